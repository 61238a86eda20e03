package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/wadn"
)

func TestRunRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--scenario", "semi"},
		{"run", "--seeds", "1,x"},
		{"run", "--seeds", "2,1,2"},
		{"run", "--dataset", "cifar"},
		{"run", "extra"},
		{"run", "--epochs", "-1"},
		{"run", "--threads", "-2"},
		{"run", "--jobs", "0"},
		{"run", "--dataset", "digits", "--data", ""},
	} {
		code, _, errOut := runArgs(t, "", args...)
		if code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
	for _, args := range [][]string{
		{"run", "--hidden-centroids"},
		{"run", "--depth", "3", "--hidden-centroids"},
		{"run", "--dataset", "officehome", "--target", "art", "--data", t.TempDir(), "--hidden-centroids"},
	} {
		// Should the check fail, the run writes nothing here and stops soon.
		args = append(args, "--out", t.TempDir(), "--epochs", "1")
		code, _, errOut := runArgs(t, "", args...)
		if code != 2 || !strings.Contains(errOut, "--hidden-centroids needs a classifier with a hidden layer") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the reason", args, code, errOut)
		}
	}
	code, _, errOut := runArgs(t, "", "run", "--data", "", "--target", "nowhere", "--epochs", "1", "--out", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "nowhere") || strings.Contains(errOut, "wadn run: wadn:") {
		t.Errorf("unknown target: exit %d, stderr %q; want 1, the name, and one prefix", code, errOut)
	}
	for _, tc := range []struct{ sources, want string }{
		{"books,books", `source "books" is named twice`},
		{"books,,dvd", "empty source name"},
		{"books,kitchen", `"kitchen" is both the target and a source`},
	} {
		code, _, errOut := runArgs(t, "", "run", "--data", "", "--sources", tc.sources, "--epochs", "1", "--out", t.TempDir())
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("--sources %s: exit %d, stderr %q; want 1 and %q", tc.sources, code, errOut, tc.want)
		}
	}
}

// TestRunEmbeddedAmazon runs four epochs on the embedded data and checks the
// JSON result and the report built from it.
func TestRunEmbeddedAmazon(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the Amazon network for four epochs")
	}
	out := t.TempDir()
	code, stdout, errOut := runArgs(t, "", "run", "--data", "", "--epochs", "4", "--seeds", "3",
		"--out", filepath.Join(out, "k"), "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Dataset, Target, Scenario, Method string
		Seeds                             []uint64
		Accuracy                          []float64
		Mean, Std                         float64
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	if res.Dataset != "amazon" || res.Target != "kitchen" || res.Scenario != "uda" || res.Method != "wadn" ||
		len(res.Seeds) != 1 || res.Seeds[0] != 3 || len(res.Accuracy) != 1 || res.Mean != res.Accuracy[0] {
		t.Errorf("result %+v", res)
	}
	if res.Mean < 60 || res.Mean > 100 {
		t.Errorf("accuracy %v after four epochs: the network did not learn", res.Mean)
	}
	code, stdout, errOut = runArgs(t, "", "report", out)
	if code != 0 || !strings.Contains(stdout, "| uda | amazon | wadn [Epochs 4] | kitchen | 1 |") {
		t.Errorf("report: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
}

// TestRunSplit checks that --split reaches the protocol: the fixed split's
// sources hold exactly 1000 negatives halved and 1000 positives, so their
// true ratio alpha(0) is exactly 1.5; a draw from the pooled rows, the
// default, is not balanced to the review.
func TestRunSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the Amazon network for an epoch")
	}
	alpha0 := func(extra ...string) float64 {
		t.Helper()
		args := append([]string{"run", "--data", "", "--method", "source", "--epochs", "1", "--out", t.TempDir(), "--json", "--quiet"}, extra...)
		code, stdout, errOut := runArgs(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errOut)
		}
		var res struct {
			TrueAlpha [][][]float64 `json:"true_alpha"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.TrueAlpha) != 1 || len(res.TrueAlpha[0]) != 3 {
			t.Fatalf("%v: %v: %q", extra, err, stdout)
		}
		return res.TrueAlpha[0][0][0]
	}
	if a := alpha0("--split", "fixed"); a != 1.5 {
		t.Errorf("fixed split: true alpha(0) of the first source %v, want 1.5", a)
	}
	for _, args := range [][]string{nil, {"--split", "pool"}} {
		if a := alpha0(args...); a == 1.5 || a < 1.2 || a > 1.8 {
			t.Errorf("pooled split %v: true alpha(0) of the first source %v, want near 1.5 but not exactly", args, a)
		}
	}
	if code, _, errOut := runArgs(t, "", "run", "--split", "random", "--epochs", "1", "--out", t.TempDir()); code != 2 || !strings.Contains(errOut, "--split") {
		t.Errorf("--split random: exit %d, stderr %q; want 2 naming the flag", code, errOut)
	}
}

// TestRunJobsFlag runs two seeds side by side with progress on and checks
// the progress of both and the same accuracies as one after the other.
func TestRunJobsFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the Amazon network for an epoch per seed, twice")
	}
	acc := func(args ...string) ([]float64, string) {
		t.Helper()
		args = append([]string{"run", "--data", "", "--method", "source", "--epochs", "1", "--seeds", "0,1", "--out", t.TempDir(), "--json"}, args...)
		code, stdout, errOut := runArgs(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var res struct{ Accuracy []float64 }
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Accuracy) != 2 {
			t.Fatalf("%v: %v: %q", args, err, stdout)
		}
		return res.Accuracy, errOut
	}
	want, _ := acc("--quiet")
	got, progress := acc("--jobs", "2", "--threads", "2")
	if got[0] != want[0] || got[1] != want[1] {
		t.Errorf("--jobs 2: accuracies %v, one after the other %v", got, want)
	}
	for _, line := range []string{"(2 at a time)", "seed 0 epoch 1/1 step 75/75", "seed 1 epoch 1/1 step 75/75"} {
		if !strings.Contains(progress, line) {
			t.Errorf("--jobs 2: progress lacks %q:\n%s", line, progress)
		}
	}
	// The first step gives no time left yet; the last leaves none.
	for line := range strings.Lines(progress) {
		line = strings.TrimSpace(line)
		switch {
		case strings.Contains(line, " step 1/75 ") && !strings.HasSuffix(line, " left -"),
			strings.Contains(line, " step 75/75 ") && !strings.HasSuffix(line, " left 0s"):
			t.Errorf("progress line %q", line)
		}
	}
}

func TestWriteSummary(t *testing.T) {
	base := wadn.ExperimentResult{Method: "wadn", Scenario: "uda", Target: "kitchen",
		Sources: []string{"books", "dvd", "electronics"}}
	tests := []struct {
		name  string
		seeds []uint64
		acc   []float64
		mean  float64
		std   float64
		want  string
	}{
		{"one seed shows no spread", []uint64{0}, []float64{79.53}, 79.53, 0,
			"seed 0: target kitchen accuracy 79.53%\n" +
				"wadn uda books,dvd,electronics -> kitchen: 79.53% (1 seed)\n"},
		{"several seeds show mean and std", []uint64{3, 4}, []float64{80, 82.5}, 81.25, 1.7678,
			"seed 3: target kitchen accuracy 80.00%\n" +
				"seed 4: target kitchen accuracy 82.50%\n" +
				"wadn uda books,dvd,electronics -> kitchen: 81.25 +- 1.77% over 2 seeds\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := base
			res.Seeds, res.Accuracy, res.Mean, res.Std = tc.seeds, tc.acc, tc.mean, tc.std
			var b strings.Builder
			writeSummary(&b, &res)
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}
