package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// TestReportFigures: --figures writes NAME.svg and NAME.png of every figure
// the runs allow into its directory, made for them, and says how many; the
// report is printed as without it.
func TestReportFigures(t *testing.T) {
	dir := t.TempDir()
	copyRuns(t, dir, "amazon-books-uda-wadn-seed0-6c64aeb40abb", "amazon-books-uda-wadn-seed1-783e7a3929eb",
		"amazon-kitchen-uda-wadn-seed0-d961938dc3cb", "amazon-kitchen-uda-darn-seed0-55fbd8c3f868")
	figs := filepath.Join(t.TempDir(), "new", "figures")
	code, stdout, stderr := runArgs(t, "", "report", "--figures", figs, "--data", "", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	_, plain, _ := runArgs(t, "", "report", dir)
	if stdout != plain {
		t.Errorf("the report with --figures:\n%s\nwithout:\n%s", stdout, plain)
	}
	want := []string{"fig2-label-shift-amazon", "fig3a-lambda-matrix-amazon", "fig3b-lambda-epochs-amazon", "figA-alpha-epochs-amazon"}
	if !strings.Contains(stderr, fmt.Sprintf("%d figures written to %s", len(want), figs)) {
		t.Errorf("stderr does not say %d figures were written to %s:\n%s", len(want), figs, stderr)
	}
	var files []string
	entries, err := os.ReadDir(figs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		files = append(files, e.Name())
	}
	var wantFiles []string
	for _, name := range want {
		wantFiles = append(wantFiles, name+".png", name+".svg")
		if !strings.Contains(stderr, name+": ") {
			t.Errorf("stderr does not name %s:\n%s", name, stderr)
		}
	}
	if !slices.Equal(files, wantFiles) {
		t.Errorf("%s holds %q, want %q", figs, files, wantFiles)
	}
	code, stdout, _ = runArgs(t, "", "help", "report")
	for _, flag := range []string{"[--figures FIGDIR [--data DIR]]", "-figures FIGDIR", "-data"} {
		if code != 0 || !strings.Contains(stdout, flag) {
			t.Errorf("wadn help report: exit %d, no %q:\n%s", code, flag, stdout)
		}
	}
}

// TestReportAgainst: --against prints the ablation's tables alone, and
// says so with exit status 1 when the runs hold one value of the setting.
func TestReportAgainst(t *testing.T) {
	dir := t.TempDir()
	copyRuns(t, dir, "amazon-books-uda-wadn-seed0-6c64aeb40abb", "amazon-books-uda-darn-seed0-c60fedc7f170")
	code, stdout, stderr := runArgs(t, "", "report", "--against", "shift", dir)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "--against shift: no data set and scenario has runs at two values of shift") {
		t.Errorf("one value: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runArgs(t, "", "report", "--against", "shift", "--json", dir)
	if code != 2 || !strings.Contains(stderr, "--against, not more") {
		t.Errorf("--against with --json: exit %d, stderr %q", code, stderr)
	}
	// A run of the same task at shift 0, made from the stored one by
	// changing its record: a second value.
	src := filepath.Join(dir, "amazon-books-uda-wadn-seed0-6c64aeb40abb")
	var rec experiment.Record
	b, err := os.ReadFile(filepath.Join(src, experiment.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	rec.Identity.Settings["shift"] = 0.0
	rec.Key = rec.Identity.Key()
	other := filepath.Join(dir, rec.Identity.Name())
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range experiment.StoredFiles {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == experiment.RunFile {
			if b, err = json.Marshal(&rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(other, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr = runArgs(t, "", "report", "--against", "shift", dir)
	if code != 0 || !strings.Contains(stdout, "| 0 | ") || !strings.Contains(stdout, "| 0.5 (default) | ") || strings.Contains(stdout, "darn") {
		t.Errorf("two values: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
}
