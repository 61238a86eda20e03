package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// TestPending: an unfinished run is listed with the complete lines of its
// epoch log, whatever follows them (a line being written, a damaged one),
// its epochs setting and the time its remaining epochs take at the mean
// seconds of the logged ones; a filter leaves it out as it leaves out its
// count.
func TestPending(t *testing.T) {
	cases := []struct {
		name   string
		log    string // "": no epoch log
		epochs int    // the logged epochs read
		left   time.Duration
		ok     bool
	}{
		{"no log", "", 0, 0, false},
		{"empty log", "-", 0, 0, false},
		{"two epochs", "{\"epoch\":1,\"accuracy\":50,\"seconds\":2}\n{\"epoch\":2,\"accuracy\":60,\"seconds\":4}\n", 2, 8 * 3 * time.Second, true},
		{"a line being written", "{\"epoch\":1,\"accuracy\":50,\"seconds\":2}\n{\"epoch\":2,\"accu", 1, 9 * 2 * time.Second, true},
		{"a complete line unterminated", "{\"epoch\":1,\"accuracy\":50,\"seconds\":2}\n{\"epoch\":2,\"accuracy\":60,\"seconds\":4}", 1, 9 * 2 * time.Second, true},
		{"a damaged line", "{\"epoch\":1,\"seconds\":1}\nnot json\n{\"epoch\":3,\"seconds\":1}\n", 1, 9 * time.Second, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fakeRun(t, dir, data.UDA, "source", "kitchen", 0, nil, 70, nil, nil)
			run := fakeRun(t, dir, data.UDA, "source", "kitchen", 1, map[string]string{"epochs": "10"}, 72, nil, nil)
			if err := os.Remove(filepath.Join(run, ResultFile)); err != nil {
				t.Fatal(err)
			}
			if tc.log != "" {
				if err := os.WriteFile(filepath.Join(run, trainer.LogFile), []byte(strings.TrimPrefix(tc.log, "-")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Collect(dir)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Unfinished != 1 || len(rep.Pending) != 1 || len(rep.Rows) != 1 {
				t.Fatalf("unfinished %d, pending %d, rows %d; want 1, 1, 1", rep.Unfinished, len(rep.Pending), len(rep.Rows))
			}
			p := rep.Pending[0]
			if p.Dir != run || p.Spec.Seed != 1 || p.Epochs() != 10 || len(p.History) != tc.epochs {
				t.Errorf("dir %s seed %d epochs %d logged %d; want %s, 1, 10, %d", p.Dir, p.Spec.Seed, p.Epochs(), len(p.History), run, tc.epochs)
			}
			if (p.History == nil) != (tc.log == "") || p.Logged.IsZero() != (tc.log == "") {
				t.Errorf("history nil %v, logged %v, for log %q", p.History == nil, p.Logged, tc.log)
			}
			if left, ok := p.Left(); left != tc.left || ok != tc.ok {
				t.Errorf("Left() = %v, %v; want %v, %v", left, ok, tc.left, tc.ok)
			}
			rep, err = CollectFiltered(Filter{Seeds: []uint64{0}}, dir)
			if err != nil || rep.Unfinished != 0 || len(rep.Pending) != 0 {
				t.Errorf("filtered to seed 0: %v, unfinished %d, pending %d; want none", err, rep.Unfinished, len(rep.Pending))
			}
		})
	}
}

// TestScan: where Collect fails for want of a finished run, Scan returns
// the unfinished runs and no row; both fail on a directory that is not
// there.
func TestScan(t *testing.T) {
	dir := t.TempDir()
	run := fakeRun(t, dir, data.UDA, "source", "kitchen", 0, nil, 70, nil, nil)
	if err := os.Remove(filepath.Join(run, ResultFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), "no finished run") {
		t.Errorf("Collect: %v, want no finished run", err)
	}
	rep, err := Scan(Filter{}, dir)
	if err != nil || len(rep.Rows) != 0 || rep.Unfinished != 1 || len(rep.Pending) != 1 {
		t.Fatalf("Scan: %v; want no error, no rows, one unfinished run", err)
	}
	for _, f := range []func() error{
		func() error { _, err := Scan(Filter{}, filepath.Join(dir, "none")); return err },
		func() error { _, err := Collect(filepath.Join(dir, "none")); return err },
		func() error { _, err := Scan(Filter{}); return err },
	} {
		if f() == nil {
			t.Error("no error for a directory that is not there, or none")
		}
	}
}
