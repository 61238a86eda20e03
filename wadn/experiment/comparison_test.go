package experiment

import (
	"testing"

	"github.com/wadn-go/wadn/data"
)

// TestComparisons: a table per scenario and data set, in the order of the
// rows; the columns in the order of Methods, then by label; a nil cell
// where a column has no run on a target; each column's average over the
// targets it has, beside the paper's, covered or not.
func TestComparisons(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, data.UDA, "source", "books", 0, nil, 70, nil, nil)
	fakeRun(t, dir, data.UDA, "source", "dvd", 0, nil, 74, nil, nil)
	fakeRun(t, dir, data.UDA, "wadn", "books", 0, nil, 80, nil, nil)
	fakeRun(t, dir, data.UDA, "wadn", "books", 0, map[string]string{"c0": "0.05"}, 60, nil, nil)
	fakeRun(t, dir, data.Limited, "source", "kitchen", 0, nil, 90, nil, nil)
	rep, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	cs := rep.Comparisons()
	type col struct {
		name, method string
		mean         float64
		n            int
		paper        bool
	}
	want := []struct {
		sc      string
		targets []string
		cols    []col
		nils    [][2]int // the empty cells: target, column
	}{
		{"limited", []string{"kitchen"}, []col{{"source+tar", "source", 90, 1, true}}, nil},
		{"uda", []string{"books", "dvd"}, []col{
			{"wadn", "wadn", 80, 1, true}, {"wadn [c0 0.05]", "wadn", 60, 1, true}, {"source", "source", 72, 2, true},
		}, [][2]int{{1, 0}, {1, 1}}},
	}
	if len(cs) != len(want) {
		t.Fatalf("%d comparisons, want %d", len(cs), len(want))
	}
	for i, w := range want {
		c := cs[i]
		if c.Scenario != w.sc || c.Dataset != "amazon" || len(c.Targets) != len(w.targets) || len(c.Columns) != len(w.cols) {
			t.Errorf("comparison %d: %s %s, targets %v, %d columns; want %s amazon, %v, %d", i, c.Scenario, c.Dataset, c.Targets, len(c.Columns), w.sc, w.targets, len(w.cols))
			continue
		}
		for j, wc := range w.cols {
			got, a := c.Columns[j], c.Averages[j]
			if got.Name != wc.name || got.Method != wc.method || a.Mean != wc.mean || a.N != wc.n || (a.Paper != nil) != wc.paper || a.PaperCovered {
				t.Errorf("%s column %d: %+v, average %+v; want %+v, not covering the paper's targets", w.sc, j, got, a, wc)
			}
		}
		nils := 0
		for ti := range c.Targets {
			for j := range c.Columns {
				if c.Cells[ti][j] == nil {
					nils++
					continue
				}
				if r := c.Cells[ti][j]; r.Target != c.Targets[ti] || r.Name() != c.Columns[j].Name {
					t.Errorf("%s cell %d,%d holds %s on %s", w.sc, ti, j, r.Name(), r.Target)
				}
			}
		}
		for _, n := range w.nils {
			if c.Cells[n[0]][n[1]] != nil {
				t.Errorf("%s cell %v is not empty", w.sc, n)
			}
		}
		if nils != len(w.nils) {
			t.Errorf("%s: %d empty cells, want %d", w.sc, nils, len(w.nils))
		}
	}
}
