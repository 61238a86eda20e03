package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/internal/datadir"
)

// TestRunRefusesDamagedAmazon: wadn run --data DIR refuses an Amazon
// directory with kitchen_test.svmlight cut at a line boundary (2,975 of
// 5,945 rows) or with books_test.svmlight emptied, naming the file, with
// and without the directory's SHA256SUMS, before any training.
func TestRunRefusesDamagedAmazon(t *testing.T) {
	shared, ok := datadir.Find()
	if !ok {
		t.Skip(datadir.SkipReason)
	}
	for _, tc := range []struct {
		name, file string
		edit       func([]byte) []byte
		sums       bool
		want       string
	}{
		{"cut kitchen_test", "kitchen_test.svmlight", datadir.KeepLines(2975), false, "2975 rows, but the amazon/kitchen test split has 5945"},
		{"empty books_test", "books_test.svmlight", datadir.Empty, false, "0 rows, but the amazon/books test split has 4465"},
		{"cut kitchen_test, with sums", "kitchen_test.svmlight", datadir.KeepLines(2975), true, "SHA256SUMS lists"},
		{"empty books_test, with sums", "books_test.svmlight", datadir.Empty, true, "SHA256SUMS lists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := datadir.CopyAmazon(shared, dir, tc.sums, map[string]func([]byte) []byte{tc.file: tc.edit}); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, errOut := runArgs(t, "", "run", "--data", dir, "--epochs", "1", "--quiet", "--out", out)
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, errOut)
			}
			path := filepath.Join(dir, "amazon", tc.file)
			if !strings.Contains(errOut, path) || !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr does not name %s and say %q:\n%s", path, tc.want, errOut)
			}
			if strings.Contains(errOut, "epoch") {
				t.Errorf("training started on damaged data:\n%s", errOut)
			}
		})
	}
}

// TestRunAllowUnverified trains on a cut Amazon directory with
// --allow-unverified and checks that the run records the waived check and
// that its report row says the data are unverified.
func TestRunAllowUnverified(t *testing.T) {
	shared, ok := datadir.Find()
	if !ok {
		t.Skip(datadir.SkipReason)
	}
	dir := t.TempDir()
	if err := datadir.CopyAmazon(shared, dir, false, map[string]func([]byte) []byte{"kitchen_test.svmlight": datadir.KeepLines(2975)}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "--data", dir, "--method", "source", "--train-size", "200", "--test-size", "100", "--hidden", "32,16,8", "--epochs", "1", "--quiet", "--out", out}
	code, _, errOut := runArgs(t, "", args...)
	if code != 1 || !strings.Contains(errOut, "--allow-unverified") {
		t.Errorf("without --allow-unverified: exit %d, stderr %q; want 1 and the flag named", code, errOut)
	}
	if code, _, errOut := runArgs(t, "", append(args, "--allow-unverified")...); code != 0 {
		t.Fatalf("with --allow-unverified: exit %d: %s", code, errOut)
	}
	code, stdout, errOut := runArgs(t, "", "report", out)
	if code != 0 || !strings.Contains(stdout, "source [epochs 1, train-size 200, test-size 100, hidden 32,16,8, unverified data]") {
		t.Errorf("report: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
}

// TestRefusesBadPlans: wadn sweep and wadn run refuse, with exit status 2
// and the key or value named, what would fail on every node or run
// something else than the file says: an unknown target, a source named
// twice or also the target, duplicate keys, content after the object,
// null, a negative task index and negative epochs to start at.
func TestRefusesBadPlans(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file string
		args       []string
		want       string
	}{
		{"unknown target", `{"target": "kitchenx"}`, []string{"--list"}, `target "kitchenx": amazon has no such domain (want one of books, dvd, electronics, kitchen)`},
		{"source twice", `{"target": "books", "sources": ["kitchen", "kitchen"]}`, []string{"--emit", "slurm"}, `source "kitchen" is named twice`},
		{"source is target", `{"target": "books", "sources": ["books", "dvd"]}`, []string{"--list"}, `source "books" is the target too`},
		{"unknown source", `{"sources": "dvd,cds"}`, []string{"--list"}, `source "cds": amazon has no such domain`},
		{"duplicate key", `{"seeds": [0], "seeds": [5]}`, []string{"--list"}, `"seeds" is given twice`},
		{"trailing", `{"seeds": [0]} {"seeds": [5]}`, []string{"--list"}, "content after the object"},
		{"null", `null`, []string{"--list"}, "the file holds null"},
		{"negative index", `{"seeds": [0]}`, []string{"--index", "-5"}, "--index -5: want a task number from 0"},
		{"negative alpha-start", `{"alpha-start": -3}`, []string{"--list"}, "alpha-start = -3"},
		{"negative lambda-start", `{"lambda-start": -1}`, []string{"--list"}, "lambda-start = -1"},
		{"keep-classes", `{"dataset": "office-caltech", "scenario": "partial", "keep-classes": -3}`, []string{"--list"}, "keep-classes -3: want 1..10"},
		{"keep-classes too many", `{"dataset": "office-caltech", "scenario": "partial", "keep-classes": 11}`, []string{"--list"}, "keep-classes 11: want 1..10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			if err := os.WriteFile(file, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("SLURM_ARRAY_TASK_ID", "0")
			code, stdout, stderr := runArgs(t, "", append([]string{"sweep", file, "--out", filepath.Join(dir, "out")}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want 2, %q and nothing on stdout", code, stderr, stdout, tc.want)
			}
			if !strings.HasPrefix(tc.file, "{") || strings.Contains(tc.name, "index") || strings.Contains(tc.name, "key") || strings.Contains(tc.name, "trailing") {
				return
			}
			code, _, stderr = runArgs(t, "", "run", "--config", file, "--out", filepath.Join(dir, "out"))
			if code != 2 || !strings.Contains(stderr, strings.TrimPrefix(tc.want, "--")) {
				t.Errorf("wadn run --config: exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

// TestRunRefusesHugeSizes: sizes beyond their bounds, or a run the
// machine cannot hold, are refused before anything is allocated, with
// exit status 2, the setting named and, for memory, the estimate; never a
// runtime trace.
func TestRunRefusesHugeSizes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "books", "--epochs", "1", "--hidden", "1000000000", "--depth", "1"}, "--hidden 1000000000: a layer of at most 1048576 units"},
		{[]string{"--hidden", "1000000000"}, "--hidden 1000000000: a layer of at most 1048576 units"},
		{[]string{"--hidden", "1048576,1048576", "--depth", "2"}, "of memory, more than"},
		{[]string{"--hidden", "1048576,1048576", "--depth", "2"}, "the trained values (1.1e+12), sized by hidden"},
		{[]string{"--batch", "2000000"}, "--batch = 2000000, want in [1, 1048576]"},
		{[]string{"--epochs", "1000000"}, "--epochs = 1000000, want in [1, 100000]"},
		{[]string{"--eval-batch", "1048576", "--hidden", "100000,100000,100000"}, "sized by eval-batch and hidden"},
	} {
		code, stdout, stderr := runArgs(t, "", append([]string{"run", "--quiet", "--out", out}, tc.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
