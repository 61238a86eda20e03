package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/wadn/experiment"
)

// copyRuns copies the stored runs named under results/amazon into dir.
func copyRuns(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		for _, f := range experiment.StoredFiles {
			b, err := os.ReadFile(filepath.Join("..", "..", "results", "amazon", n, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, n), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, n, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestReportDamaged: a result that disagrees with its epoch log, and a
// truncated record, result or epoch log, are listed apart, each with its
// reason; the other runs are tabled; the exit status is 1.
func TestReportDamaged(t *testing.T) {
	good := []string{"amazon-books-uda-source-seed0-cb0032bab832", "amazon-books-uda-source-seed1-3cb37a00a162"}
	damaged := []struct {
		run, file string
		edit      func(b []byte) []byte
		want      string
	}{
		{"amazon-books-uda-source-seed2-527ee56f6572", "result.json", func(b []byte) []byte {
			var m map[string]any
			json.Unmarshal(b, &m)
			m["accuracy"] = 99.43
			b, _ = json.Marshal(m)
			return b
		}, "says accuracy 99.43, the last epoch of"},
		{"amazon-books-uda-source-seed3-17a8fedf56f5", "run.json", func(b []byte) []byte { return b[:len(b)/2] }, "run.json: unexpected end of JSON input"},
		{"amazon-books-uda-source-seed4-1ec1d99ae15c", "result.json", func(b []byte) []byte { return b[:len(b)/2] }, "result.json: unexpected end of JSON input"},
		{"amazon-dvd-uda-source-seed0-73477f28a3c1", "epochs.jsonl", func(b []byte) []byte { return b[:len(b)/2] }, "epochs.jsonl line"},
		{"amazon-dvd-uda-source-seed1-2b80647b2a36", "epochs.jsonl", func(b []byte) []byte {
			return b[:strings.LastIndex(strings.TrimSuffix(string(b), "\n"), "\n")+1] // the last line gone
		}, "epochs, "},
	}
	dir := t.TempDir()
	copyRuns(t, dir, good...)
	for _, d := range damaged {
		copyRuns(t, dir, d.run)
		path := filepath.Join(dir, d.run, d.file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, d.edit(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runArgs(t, "", "report", dir)
	if code != 1 || !strings.Contains(stdout, "| uda | amazon | source | books | 2 | 69.46 ± 3.88 |") || !strings.Contains(stderr, "5 damaged run(s), left out of the tables") {
		t.Errorf("exit %d; want 1, a row of the 2 good runs and 5 damaged\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, d := range damaged {
		if !strings.Contains(stderr, filepath.Join(dir, d.run)+": ") || !strings.Contains(stderr, d.want) {
			t.Errorf("stderr does not list %s with %q:\n%s", d.run, d.want, stderr)
		}
	}
	code, stdout, _ = runArgs(t, "", "report", "--json", dir)
	var rep struct {
		Rows    []experiment.Row
		Damaged []experiment.Damaged
	}
	if err := json.Unmarshal([]byte(stdout), &rep); code != 1 || err != nil || len(rep.Rows) != 1 || len(rep.Damaged) != 5 {
		t.Errorf("--json: exit %d, %v, %d rows, %d damaged; want 1, 1 and 5", code, err, len(rep.Rows), len(rep.Damaged))
	}
}

// TestResumeDamagedCheckpoint: resuming from a damaged checkpoint fails
// with the way out: remove it to train the run from its start.
func TestResumeDamagedCheckpoint(t *testing.T) {
	out := filepath.Join(t.TempDir(), "train")
	if code, _, stderr := runArgs(t, "", "train", "--domain", "synthgen", "--epochs", "1", "--out", out); code != 0 {
		t.Fatalf("train: %s", stderr)
	}
	ckpt := filepath.Join(out, "checkpoint.wadn")
	if err := os.WriteFile(ckpt, []byte("WADN damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runArgs(t, "", "train", "--resume", "--out", out)
	if code != 1 || !strings.Contains(stderr, "it cannot be resumed: remove "+ckpt+" to train the run from its start") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
