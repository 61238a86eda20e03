package experiment

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/data"
)

// TestWriteAgainst checks the tables of an ablation: the default runs at
// the default value, the levels in numeric order, runs that change another
// setting left out, a method at one value left out, and the averages only
// where every target has the value.
func TestWriteAgainst(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []struct {
		method, target string
		set            map[string]string
		acc            float64
		seed           uint64
	}{
		{"wadn", "books", nil, 80, 0},
		{"wadn", "books", map[string]string{"shift": "0"}, 84, 0},
		{"wadn", "books", map[string]string{"shift": "0.8"}, 70, 0},
		{"wadn", "books", map[string]string{"shift": "0.2"}, 82, 0},
		{"wadn", "dvd", nil, 78, 0},
		{"wadn", "dvd", map[string]string{"shift": "0"}, 80, 0},
		{"wadn", "dvd", map[string]string{"shift": "0.2", "c0": "0.05"}, 10, 0}, // another setting: left out
		{"source", "books", map[string]string{"shift": "0"}, 75, 0},
		{"source", "books", nil, 72, 0},
		{"dann", "books", nil, 60, 0}, // one value: no column
		// A seed the other values lack: left out of the default's cell.
		{"wadn", "books", nil, 90, 1},
	} {
		fakeRun(t, dir, data.UDA, r.method, r.target, r.seed, r.set, r.acc, nil, nil)
	}
	rep, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	wrote, err := rep.WriteAgainst(&b, "shift")
	if err != nil || !wrote {
		t.Fatalf("WriteAgainst: %v, %v", wrote, err)
	}
	out := b.String()
	for _, want := range []string{
		"uda, amazon, target books: accuracy (%) against shift",
		"| shift | wadn | source |\n|---|---|---|\n" +
			"| 0 | 84.00 [1] | 75.00 [1] |\n" +
			"| 0.2 | 82.00 [1] | - |\n" +
			"| 0.5 (default) | 80.00 [1] | 72.00 [1] |\n" +
			"| 0.8 | 70.00 [1] | - |\n",
		"| 0 | 80.00 [1] | - |\n| 0.2 | - | - |\n| 0.5 (default) | 78.00 [1] | - |\n",
		"uda, amazon: accuracy (%) against shift, mean over the 2 targets",
		"| 0 | 82.00 | - |\n| 0.2 | - | - |\n| 0.5 (default) | 79.00 | - |\n| 0.8 | - | - |\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the tables lack\n%s\nin\n%s", want, out)
		}
	}
	for _, absent := range []string{"dann", "10.00", "90.00", "85.00"} {
		if strings.Contains(out, absent) {
			t.Errorf("the tables hold %q:\n%s", absent, out)
		}
	}
	b.Reset()
	if wrote, err := rep.WriteAgainst(&b, "c0"); wrote || err != nil || b.Len() != 0 {
		t.Errorf("against c0 (one run that changes another setting too): wrote %v, %v, %q", wrote, err, b.String())
	}
}
