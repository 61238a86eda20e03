package experiment

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStore stores a finished run, finds it stored on the second call,
// refuses an unfinished run, a stored copy of other contents and a
// directory of other files, and completes a copy a stopped Store left
// without its record. wadn report reads the stored copy as the run.
func TestStore(t *testing.T) {
	specs := smallSpecs(t, "source", []uint64{0, 1}, nil)
	rn := &Runner{Out: t.TempDir()}
	outs, err := rn.Run(context.Background(), specs[:1])
	if err != nil {
		t.Fatal(err)
	}
	run := outs[0].Dir
	dest := filepath.Join(t.TempDir(), "results")
	stored := filepath.Join(dest, filepath.Base(run))

	names := func(dir string) []string {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, e := range entries {
			n = append(n, e.Name())
		}
		return n
	}
	store := func(wantWrote bool, wantErr string) {
		t.Helper()
		wrote, err := Store(run, dest)
		switch {
		case wantErr == "" && err != nil:
			t.Fatalf("Store: %v", err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Fatalf("Store: error %v, want one containing %q", err, wantErr)
		case wrote != wantWrote:
			t.Fatalf("Store wrote %v, want %v", wrote, wantWrote)
		}
	}
	same := func() {
		t.Helper()
		want := slices.Sorted(slices.Values(StoredFiles))
		if got := names(stored); !slices.Equal(got, want) {
			t.Fatalf("stored files %v, want %v", got, want)
		}
		for _, name := range StoredFiles {
			a, errA := os.ReadFile(filepath.Join(run, name))
			b, errB := os.ReadFile(filepath.Join(stored, name))
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Fatalf("%s: stored copy differs (%v, %v)", name, errA, errB)
			}
		}
	}

	if !slices.Contains(names(run), ModelFile) {
		t.Fatalf("the finished run holds %v, no %s", names(run), ModelFile)
	}
	store(true, "")
	same()
	store(false, "")
	rep, err := Collect(dest)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 1 || len(rep.Rows[0].Accuracy) != 1 || rep.Rows[0].Accuracy[0] != outs[0].Result.Accuracy || rep.Unfinished != 0 {
		t.Fatalf("report of the stored run: %+v, want one row of accuracy %v", rep.Rows, outs[0].Result.Accuracy)
	}

	// A copy whose result differs is refused and left as it was.
	resultPath := filepath.Join(stored, ResultFile)
	if err := os.WriteFile(resultPath, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store(false, "holds another "+ResultFile)
	if b, _ := os.ReadFile(resultPath); string(b) != "{}\n" {
		t.Fatalf("a refused Store changed %s: %q", resultPath, b)
	}

	// A Store stopped before the record: completed, temporary files aside.
	if err := os.Remove(filepath.Join(stored, RunFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stored, "."+RunFile+".tmp-1"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(dest); err == nil || !strings.Contains(err.Error(), "no finished run") {
		t.Fatalf("a stored copy without its record: report error %v, want no finished run", err)
	}
	store(true, "")
	if err := os.Remove(filepath.Join(stored, "."+RunFile+".tmp-1")); err != nil {
		t.Fatal(err)
	}
	same()

	// A directory of the run's name holding other files is not a copy.
	if err := os.RemoveAll(stored); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(stored, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stored, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	store(false, "holds notes.txt but no "+RunFile)
	if got := names(stored); !slices.Equal(got, []string{"notes.txt"}) {
		t.Fatalf("a refused Store wrote files: %v", got)
	}

	// An unfinished run is not stored.
	st, err := rn.State(specs[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(st.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(filepath.Join(run, RunFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(st.Dir, RunFile), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	if wrote, err := Store(st.Dir, dest); wrote || err == nil || !strings.Contains(err.Error(), "has not finished") {
		t.Fatalf("Store of an unfinished run: wrote %v, error %v", wrote, err)
	}
	if _, err := os.Stat(filepath.Join(dest, filepath.Base(st.Dir))); err == nil {
		t.Fatalf("Store of an unfinished run made its directory")
	}
}
