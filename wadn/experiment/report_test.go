package experiment

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// fakeRun writes a finished run's directory under dir without training: the
// record of method on target at seed with settings set (on the fixture's
// domains, changed by data), and a result of accuracy acc and the given
// alpha. It returns the directory.
func fakeRun(t *testing.T, dir string, sc data.Scenario, methodName, target string, seed uint64, set map[string]string, acc float64, alpha, truth [][]float64) string {
	t.Helper()
	s, err := NewSpec(dataset.Amazon, sc, methodName)
	if err != nil {
		t.Fatal(err)
	}
	s.Target, s.Seed = target, seed
	for k, v := range set {
		if k == "_data" {
			continue
		}
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	id, err := s.Identity(fixtureDomains())
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := set["_data"]; ok { // another draw of the data
		id.Data[target] = d
	}
	run := filepath.Join(dir, id.Name())
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(filepath.Join(run, RunFile), &Record{Version: RecordVersion, Key: id.Key(), Identity: id}); err != nil {
		t.Fatal(err)
	}
	res := &RunResult{Accuracy: acc, Alpha: alpha, TrueAlpha: truth, Environment: []Environment{{Kernels: "go"}}}
	if err := writeJSON(filepath.Join(run, ResultFile), res); err != nil {
		t.Fatal(err)
	}
	return run
}

func TestLargestDrop(t *testing.T) {
	tail := []float64{80, 81, 82, 83, 84, 85, 86, 87, 88, 89} // the last ten epochs, rising
	for _, c := range []struct {
		name string
		acc  []float64
		want float64
		ok   bool
	}{
		{"no log", nil, 0, false},
		{"one epoch", []float64{50}, 0, false},
		{"two epochs", []float64{50, 47.5}, 2.5, true},
		{"rising", []float64{10, 20, 30}, 0, true},
		{"into the first of the last ten", append([]float64{90}, tail...), 10, true},
		{"before the last ten", append([]float64{90, 70}, tail...), 0, true},
		{"largest of several", []float64{60, 59, 61, 58, 58, 62, 61.5}, 3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := &Finished{}
			for _, a := range c.acc {
				run.History = append(run.History, method.EpochLog{Accuracy: a})
			}
			got, ok := run.LargestDrop()
			if got != c.want || ok != c.ok {
				t.Errorf("LargestDrop of %v = %v, %v; want %v, %v", c.acc, got, ok, c.want, c.ok)
			}
		})
	}
}

// TestRunEpochLog checks that Collect tells an empty epoch log, which is
// a log, from a missing one, which Finished.EpochLog reports by its path.
func TestRunEpochLog(t *testing.T) {
	dir := t.TempDir()
	empty := fakeRun(t, dir, data.UDA, "dann", "kitchen", 0, nil, 74, nil, nil)
	writeEpochs(t, empty)
	missing := fakeRun(t, dir, data.UDA, "dann", "kitchen", 1, nil, 76, nil, nil)
	rep, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Rows[0].Runs() {
		h, err := r.EpochLog()
		switch r.Dir {
		case empty:
			if err != nil || len(h) != 0 {
				t.Errorf("empty log: %v, %v", h, err)
			}
		case missing:
			if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(missing, trainer.LogFile)) {
				t.Errorf("missing log: %v", err)
			}
		}
	}
	if rep.Rows[0].Drop != nil {
		t.Errorf("row without logs has a largest drop, %v", *rep.Rows[0].Drop)
	}
}

// TestReportLimitedAlpha checks that WADN's rows with limited target labels
// have no alpha error: there alpha is computed from the labelled rows, from
// which the true ratios come too, so its error is 0 by construction.
func TestReportLimitedAlpha(t *testing.T) {
	dir := t.TempDir()
	ratios := [][]float64{{1.5, 0.75}, {1.5, 0.75}, {1.25, 0.8}}
	fakeRun(t, dir, data.Limited, "wadn", "kitchen", 0, nil, 79, ratios, ratios)
	fakeRun(t, dir, data.UDA, "wadn", "kitchen", 0, nil, 80, ratios, ratios)
	rep, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		switch r.Scenario {
		case data.Limited.String():
			if r.AlphaError != nil {
				t.Errorf("limited labels: alpha error %v, want none", *r.AlphaError)
			}
			if r.AlphaErrors != nil {
				t.Errorf("limited labels: alpha errors %v, want none", r.AlphaErrors)
			}
		default:
			if r.AlphaError == nil || *r.AlphaError != 0 {
				t.Errorf("UDA with alpha at the true ratios: no alpha error of 0")
			}
			if len(r.AlphaErrors) != 3 {
				t.Errorf("UDA: alpha errors %v, want one for each of 3 sources", r.AlphaErrors)
			}
		}
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := "| limited | amazon | wadn | kitchen | 1 | 79.00 | 81.53 | -2.53 | - |"
	if !strings.Contains(b.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, b.String())
	}
}

// writeEpochs writes an epoch log of the given target accuracies, one
// epoch each, into the run directory run.
func writeEpochs(t *testing.T, run string, acc ...float64) {
	t.Helper()
	var b strings.Builder
	for e, a := range acc {
		fmt.Fprintf(&b, "{\"epoch\":%d,\"accuracy\":%v}\n", e+1, a)
	}
	writeLogFile(t, run, b.String())
}

// writeLogFile writes log as the epoch log of the run directory run, and
// its number of epochs into the run's result, which a report checks
// against the log.
func writeLogFile(t *testing.T, run, log string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(run, trainer.LogFile), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var res RunResult
	if _, err := readJSON(filepath.Join(run, ResultFile), &res); err != nil {
		t.Fatal(err)
	}
	res.Epochs = strings.Count(log, "\n")
	if err := writeJSON(filepath.Join(run, ResultFile), &res); err != nil {
		t.Fatal(err)
	}
}

func TestReportTable(t *testing.T) {
	dir := t.TempDir()
	// Final alpha error per source: seed 0 0.25, 0.25, 0; seed 1 0.1, 0.2,
	// 0. The worst source's mean over the seeds is 0.225.
	w0 := fakeRun(t, dir, data.UDA, "wadn", "kitchen", 0, nil, 84,
		[][]float64{{1.5, 1}, {2, 0.5}, {1.5, 0.75}}, [][]float64{{1.5, 0.5}, {1.5, 0.5}, {1.5, 0.75}})
	w1 := fakeRun(t, dir, data.UDA, "wadn", "kitchen", 1, nil, 82,
		[][]float64{{1.4, 0.85}, {1.8, 0.75}, {1.5, 0.75}}, [][]float64{{1.5, 0.75}, {1.5, 0.85}, {1.5, 0.75}})
	// The drop of 40 into epoch 2 of seed 0 is before its last ten epochs;
	// its largest drop there is 2.5, seed 1's 1.25.
	writeEpochs(t, w0, 50, 10, 80, 81, 82, 83, 84, 85, 86, 83.5, 84, 84, 84)
	writeEpochs(t, w1, 80, 81, 79.75, 82)
	d0 := fakeRun(t, dir, data.UDA, "dann", "kitchen", 0, nil, 74, nil, nil)
	writeEpochs(t, d0, 70, 60, 74) // the row's other run has no log
	fakeRun(t, dir, data.UDA, "dann", "kitchen", 1, nil, 76, nil, nil)
	fakeRun(t, dir, data.UDA, "wadn", "books", 0, nil, 73, nil, nil)
	fakeRun(t, dir, data.Limited, "mme", "kitchen", 0, nil, 80, nil, nil)
	fakeRun(t, dir, data.Limited, "mme", "books", 0, nil, 70, nil, nil)
	rep, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| largest drop, last 10 epochs |",
		"| uda | amazon | wadn | kitchen | 2 | 83.00 ± 1.41 | 83.73 | -0.73 | 0.225 (books 0.175, dvd 0.225, electronics 0.000) | 2.50 |",
		"| uda | amazon | dann | kitchen | 2 | 75.00 ± 1.41 | 74.71 | +0.29 | - | - |",
		"| target | wadn | dann |",
		"| uda | amazon | wadn | books | 1 | 73.00 | 73.72 | -0.72 | - |",
		"| books | 73.00 (73.72) | - |",
		"A mean without ± is from one seed.",
		"| kitchen | 83.00 ± 1.41 (83.73) | 75.00 ± 1.41 (74.71) |",
		"| **average** | 78.00 [2] (80.43*) | 75.00 [1] (72.00*) |",
		"| target | mme |",
		"| **average** | 75.00 [2] (74.14*) |",
		"*: the paper's average over all its targets",
		"| limited | amazon | mme | **average** over 2 | | 75.00 | 74.14 (all targets) | +0.86 | | |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// The JSON rows are the Markdown rows.
	b.Reset()
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct{ Rows []*Row }
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != len(rep.Rows) {
		t.Fatalf("%d JSON rows, %d in the table", len(got.Rows), len(rep.Rows))
	}
	for i, r := range got.Rows {
		acc := fmt.Sprintf("%.2f ± %.2f", r.Mean, r.Std)
		if r.N == 1 {
			acc = fmt.Sprintf("%.2f", r.Mean)
		}
		line := fmt.Sprintf("| %s | %s | %s | %s | %d | %s |", r.Scenario, r.Dataset, r.Name(), r.Target, r.N, acc)
		if !strings.Contains(out, line) {
			t.Errorf("JSON row %d (%s) is not in the table:\n%s", i, line, out)
		}
		if r.N != len(r.Seeds) || r.N != len(r.Accuracy) || r.N != len(r.Dirs) {
			t.Errorf("JSON row %d: n %d, seeds %v, accuracies %v, dirs %v", i, r.N, r.Seeds, r.Accuracy, r.Dirs)
		}
	}
	for _, r := range got.Rows {
		switch {
		case r.Method == "wadn" && r.Target == "kitchen":
			if r.AlphaError == nil || *r.AlphaError != 0.225 {
				t.Errorf("WADN's kitchen row: alpha error %v, want 0.225", r.AlphaError)
			}
			if r.Drop == nil || *r.Drop != 2.5 {
				t.Errorf("WADN's kitchen row: largest drop %v, want 2.5", r.Drop)
			}
			want := []SourceError{{"books", 0.175}, {"dvd", 0.225}, {"electronics", 0}}
			if !cmp.Equal(r.AlphaErrors, want, cmpopts.EquateApprox(0, 1e-12)) {
				t.Errorf("WADN's kitchen row: alpha errors %v, want %v", r.AlphaErrors, want)
			}
		case r.AlphaError != nil:
			t.Errorf("%s's %s row has an alpha error, %v", r.Method, r.Target, *r.AlphaError)
		case r.Drop != nil:
			t.Errorf("%s's %s row has a largest drop, %v, but not every run has an epoch log", r.Method, r.Target, *r.Drop)
		}
	}
	if _, err := Collect(t.TempDir()); err == nil {
		t.Error("Collect of an empty directory gave no error")
	}
}

// TestComparisonPaperAverage checks the paper's average beside a row's
// average over its targets. Over every target the paper reports, both
// tables give its printed average plain (for source only 73.81, where the
// mean of its four numbers is 73.76), also where the paper prints the
// average alone (Source+Tar with limited labels). Over some of them the
// comparison stars the printed average, with the footnote, and the table
// of rows gives the mean of the paper's numbers for those targets (68.15,
// 69.51 and 75.30 for source only).
func TestComparisonPaperAverage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sc      data.Scenario
		method  string
		targets []string
		want    []string
		starred bool
	}{
		{"every target", data.UDA, "dann", []string{"books", "dvd", "electronics", "kitchen"}, []string{
			"| **average** | 80.00 [4] (72.00) |",
			"| uda | amazon | dann | **average** over 4 | | 80.00 | 72.00 | +8.00 | | |",
		}, false},
		{"every target, printed average not the mean", data.UDA, "source", []string{"books", "dvd", "electronics", "kitchen"}, []string{
			"| **average** | 80.00 [4] (73.81) |",
			"| uda | amazon | source | **average** over 4 | | 80.00 | 73.81 | +6.19 | | |",
		}, false},
		{"every target, the paper's average alone", data.Limited, "source", []string{"books", "dvd", "electronics", "kitchen"}, []string{
			"| **average** | 80.00 [4] (76.06) |",
			"| limited | amazon | source+tar | **average** over 4 | | 80.00 | 76.06 | +3.94 | | |",
		}, false},
		{"three targets", data.UDA, "dann", []string{"books", "dvd", "kitchen"}, []string{
			"| **average** | 80.00 [3] (72.00*) |",
		}, true},
		{"three targets, printed average not the mean", data.UDA, "source", []string{"books", "dvd", "kitchen"}, []string{
			"| **average** | 80.00 [3] (73.81*) |",
			"| uda | amazon | source | **average** over 3 | | 80.00 | 70.99 | +9.01 | | |",
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, target := range tc.targets {
				fakeRun(t, dir, tc.sc, tc.method, target, 0, nil, 80, nil, nil)
			}
			rep, err := Collect(dir)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := rep.WriteMarkdown(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("report lacks %q:\n%s", want, out)
				}
			}
			if got := strings.Contains(out, "*: the paper's average"); got != tc.starred {
				t.Errorf("footnote present %v, want %v:\n%s", got, tc.starred, out)
			}
		})
	}
}

// TestReportPaperTask checks that a row is set beside the paper's number
// only when its runs train on the paper's task: a method's own setting
// keeps the comparison, a changed shift or labelled share or a chosen list
// of sources (another task) loses it, in the rows, the averages and the
// comparison table.
func TestReportPaperTask(t *testing.T) {
	targets := []string{"books", "dvd", "electronics", "kitchen"}
	for _, tc := range []struct {
		name  string
		sc    data.Scenario
		set   map[string]string
		paper bool
	}{
		{"defaults", data.UDA, nil, true},
		{"a method setting", data.UDA, map[string]string{"c0": "0.05"}, true},
		{"the default shift, written", data.UDA, map[string]string{"shift": "0.5"}, true},
		{"no shift", data.UDA, map[string]string{"shift": "0"}, false},
		{"another shift", data.UDA, map[string]string{"shift": "0.8"}, false},
		{"another labelled share", data.Limited, map[string]string{"label-fraction": "0.03"}, false},
		{"another draw", data.UDA, map[string]string{"train-size": "1000"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, target := range targets {
				fakeRun(t, dir, tc.sc, "wadn", target, 0, tc.set, 80, nil, nil)
			}
			rep, err := Collect(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Rows {
				if got := r.Published != nil; got != tc.paper {
					t.Errorf("%s on %s: paper's number given %v, want %v", r.Name(), r.Target, got, tc.paper)
				}
			}
			for _, c := range rep.Comparisons() {
				for _, a := range c.Averages {
					if got := a.Paper != nil; got != tc.paper {
						t.Errorf("comparison average: paper's given %v, want %v", got, tc.paper)
					}
				}
			}
			var b bytes.Buffer
			if err := rep.WriteMarkdown(&b); err != nil {
				t.Fatal(err)
			}
			avg := "| **average** over 4 | | 80.00 | - | - | | |"
			if got := !strings.Contains(b.String(), avg); got != tc.paper {
				t.Errorf("average line beside the paper's %v, want %v:\n%s", got, tc.paper, b.String())
			}
		})
	}
	// Chosen sources are another task too.
	s, err := NewSpec(dataset.Amazon, data.UDA, "wadn")
	if err != nil {
		t.Fatal(err)
	}
	if !s.PaperTask() {
		t.Error("the defaults: not the paper's task")
	}
	s.Sources = []string{"dvd"}
	if s.PaperTask() {
		t.Error("one chosen source: the paper's task")
	}
}

// TestPaperTaskAtDefaults checks that every data set's defaults are the
// paper's task, in every scenario it runs in, for every method, and that
// every setting of the draw and of the shift, changed, is not.
func TestPaperTaskAtDefaults(t *testing.T) {
	for _, ds := range dataset.All {
		for _, sc := range ds.Scenarios {
			for _, m := range Methods.Names() {
				s, err := NewSpec(ds, sc, m)
				if err != nil {
					continue // a method of other scenarios
				}
				if !s.PaperTask() {
					t.Errorf("%s %s %s: the defaults are not the paper's task", ds, sc, m)
				}
			}
			for _, ch := range [][2]string{{"shift", "0"}, {"label-fraction", "0.03"}, {"keep-classes", "3"},
				{"train-size", "100"}, {"test-size", "100"}, {"split", "pool"}, {"split", "fixed"}} {
				s, err := NewSpec(ds, sc, "wadn")
				if err != nil {
					t.Fatal(err)
				}
				if before, ok := s.Values()[ch[0]]; !ok || before == ch[1] {
					continue // not a setting here, or its default
				}
				if err := s.Set(ch[0], ch[1]); err != nil {
					t.Fatal(err)
				}
				if s.PaperTask() {
					t.Errorf("%s %s, %s %s: the paper's task", ds, sc, ch[0], ch[1])
				}
			}
		}
	}
}

// TestReportLabels checks that runs of one method and target with other
// settings are rows apart, labelled by the settings that differ from the
// defaults, and runs of other data split a label's row.
func TestReportLabels(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, data.UDA, "wadn", "kitchen", 0, nil, 80, nil, nil)
	fakeRun(t, dir, data.UDA, "wadn", "kitchen", 1, nil, 82, nil, nil)
	fakeRun(t, dir, data.UDA, "wadn", "kitchen", 0, map[string]string{"c0": "0.05", "explicit": "paper"}, 70, nil, nil)
	fakeRun(t, dir, data.UDA, "wadn", "kitchen", 2, map[string]string{"_data": "other"}, 90, nil, nil)
	rep, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Rows {
		got = append(got, fmt.Sprint(r.Name(), " ", r.Seeds))
	}
	slices.Sort(got)
	// The default label's runs drew two data: each part names its data.
	if len(got) != 3 || got[0] != "wadn [c0 0.05, explicit paper] [0]" ||
		!strings.HasPrefix(got[1], "wadn [data ") || !strings.HasSuffix(got[1], "] [0 1]") ||
		!strings.HasPrefix(got[2], "wadn [data ") || !strings.HasSuffix(got[2], "] [2]") || got[1][:19] == got[2][:19] {
		t.Errorf("rows %q", got)
	}
}

// TestRowName checks the names of rows: the paper's name of Source+Tar in
// the limited-label scenario only, the stored name where the method or the
// scenario is unknown, and the label in brackets.
func TestRowName(t *testing.T) {
	for _, c := range []struct {
		scenario, method, label, want string
	}{
		{"limited", "source", "", "source+tar"},
		{"limited", "source", "epochs 2", "source+tar [epochs 2]"},
		{"uda", "source", "", "source"},
		{"partial", "source", "", "source"},
		{"limited", "wadn", "", "wadn"},
		{"uda", "wadn", "c0 0.05", "wadn [c0 0.05]"},
		{"limited", "nosuch", "", "nosuch"},
		{"nosuch", "source", "", "source"},
	} {
		r := &Row{Scenario: c.scenario, Method: c.method, Label: c.label}
		if got := r.Name(); got != c.want {
			t.Errorf("%s %s [%s]: name %q, want %q", c.scenario, c.method, c.label, got, c.want)
		}
	}
}

// TestReportFollowsLinks checks that a directory of links to run trees
// reports each run once, and notes a run found twice.
func TestReportFollowsLinks(t *testing.T) {
	a, b, view := t.TempDir(), t.TempDir(), t.TempDir()
	run := fakeRun(t, a, data.UDA, "source", "kitchen", 0, nil, 70, nil, nil)
	fakeRun(t, b, data.UDA, "source", "kitchen", 1, nil, 72, nil, nil)
	for name, target := range map[string]string{"a": a, "b": b, "again": a, "dangling": filepath.Join(a, "nothing")} {
		if err := os.Symlink(target, filepath.Join(view, name)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	rep, err := Collect(view)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].N != 2 || len(rep.Notes) != 0 {
		t.Fatalf("rows %+v, notes %q: want one row of two seeds", rep.Rows, rep.Notes)
	}
	// A copy of a run in another directory is counted once, and noted.
	copyDir := filepath.Join(b, "copy")
	if err := os.MkdirAll(copyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{RunFile, ResultFile} {
		data, err := os.ReadFile(filepath.Join(run, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(copyDir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err = Collect(view)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].N != 2 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "equal accuracies") {
		t.Errorf("with a copy: rows %+v, notes %q", rep.Rows, rep.Notes)
	}
}

// TestReportCountsUnfinished checks that runs without a result are counted
// and left out.
func TestReportCountsUnfinished(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, data.UDA, "source", "kitchen", 0, nil, 70, nil, nil)
	run := fakeRun(t, dir, data.UDA, "source", "kitchen", 1, nil, 72, nil, nil)
	if err := os.Remove(filepath.Join(run, ResultFile)); err != nil {
		t.Fatal(err)
	}
	rep, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unfinished != 1 || len(rep.Rows) != 1 || rep.Rows[0].N != 1 {
		t.Errorf("unfinished %d, rows %+v", rep.Unfinished, rep.Rows)
	}
	var b bytes.Buffer
	rep.WriteMarkdown(&b)
	if !strings.Contains(b.String(), "1 run(s) unfinished") {
		t.Errorf("the table does not say a run is unfinished:\n%s", b.String())
	}
}

// collectFiltered returns CollectFiltered(f, dir), failing t if it errs; if
// wantErr is not "", it returns nil and fails t unless that is the error.
func collectFiltered(t *testing.T, f Filter, dir, wantErr string) *Report {
	t.Helper()
	rep, err := CollectFiltered(f, dir)
	if wantErr != "" {
		if err == nil || err.Error() != wantErr {
			t.Errorf("error %v, want %q", err, wantErr)
		}
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestReportFilter checks that a filter by scenario and method keeps the
// rows, the unfinished runs and the kernel notes of its runs alone, and that
// a filter no finished run passes is an error naming it.
func TestReportFilter(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, data.UDA, "source", "kitchen", 0, nil, 70, nil, nil)
	mixed := fakeRun(t, dir, data.UDA, "source", "kitchen", 1, nil, 72, nil, nil)
	if err := writeJSON(filepath.Join(mixed, ResultFile), &RunResult{Accuracy: 72, Environment: []Environment{{Kernels: "avx2"}}}); err != nil {
		t.Fatal(err)
	}
	fakeRun(t, dir, data.Limited, "wadn", "books", 0, nil, 75, nil, nil)
	open := fakeRun(t, dir, data.Limited, "wadn", "books", 1, nil, 76, nil, nil)
	if err := os.Remove(filepath.Join(open, ResultFile)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		scenarios  []data.Scenario
		methods    []string
		rows       []string // scenario and target of each row
		unfinished int
		notes      int
		err        string
	}{
		{"every run", nil, nil, []string{"limited books", "uda kitchen"}, 1, 1, ""},
		{"uda", []data.Scenario{data.UDA}, nil, []string{"uda kitchen"}, 0, 1, ""},
		{"limited", []data.Scenario{data.Limited}, nil, []string{"limited books"}, 1, 0, ""},
		{"both", []data.Scenario{data.UDA, data.Limited}, nil, []string{"limited books", "uda kitchen"}, 1, 1, ""},
		{"wadn", nil, []string{"wadn"}, []string{"limited books"}, 1, 0, ""},
		{"wadn and source", nil, []string{"source", "wadn"}, []string{"limited books", "uda kitchen"}, 1, 1, ""},
		{"uda wadn", []data.Scenario{data.UDA}, []string{"wadn", "dann"}, nil, 0, 0, "no finished run of scenario uda and method wadn or dann under " + dir},
		{"none", []data.Scenario{data.Partial}, nil, nil, 0, 0, "no finished run of scenario partial under " + dir},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := collectFiltered(t, Filter{Scenarios: c.scenarios, Methods: c.methods}, dir, c.err)
			if rep == nil {
				return
			}
			var rows []string
			for _, r := range rep.Rows {
				rows = append(rows, r.Scenario+" "+r.Target)
			}
			if diff := cmp.Diff(c.rows, rows); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if rep.Unfinished != c.unfinished || len(rep.Notes) != c.notes {
				t.Errorf("unfinished %d, notes %q; want %d and %d notes", rep.Unfinished, rep.Notes, c.unfinished, c.notes)
			}
		})
	}
}

// TestReportKernelNotes checks that the rows whose runs used more than one
// set of kernels are named in one note per set, and the others in none.
func TestReportKernelNotes(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []struct {
		target, kernels string
		seed            uint64
	}{
		{"kitchen", "go", 0}, {"kitchen", "avx2", 1},
		{"books", "avx2", 0}, {"books", "go", 1},
		{"dvd", "avx2", 0}, {"dvd", "avx2", 1},
		{"electronics", "avx2", 0}, {"electronics", "avx512", 1},
	} {
		run := fakeRun(t, dir, data.UDA, "source", r.target, r.seed, nil, 70, nil, nil)
		res := &RunResult{Accuracy: 70, Environment: []Environment{{Kernels: r.kernels}}}
		if err := writeJSON(filepath.Join(run, ResultFile), res); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"uda amazon source on books; uda amazon source on kitchen: the runs of each used the kernels avx2, go, which round differently",
		"uda amazon source on electronics: its runs used the kernels avx2, avx512, which round differently",
	}
	if diff := cmp.Diff(want, rep.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// TestReportSeveralDirs checks that the runs of several directories are
// gathered into the same rows, that a directory given twice counts its runs
// once, and that a missing directory is an error naming it.
func TestReportSeveralDirs(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	fakeRun(t, a, data.UDA, "source", "kitchen", 0, nil, 70, nil, nil)
	fakeRun(t, b, data.UDA, "source", "kitchen", 1, nil, 72, nil, nil)
	fakeRun(t, b, data.UDA, "source", "books", 0, nil, 66, nil, nil)
	rep, err := Collect(a, b)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, r := range rep.Rows {
		n[r.Target] = r.N
	}
	if !cmp.Equal(n, map[string]int{"kitchen": 2, "books": 1}) {
		t.Errorf("seeds per target %v; want kitchen 2 (one from each directory), books 1", n)
	}
	rep, err = Collect(a, b, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].N+rep.Rows[1].N != 3 || len(rep.Notes) != 1 {
		t.Errorf("a directory given twice: rows %+v, notes %q; want 3 runs and one note", rep.Rows, rep.Notes)
	}
	missing := filepath.Join(a, "nowhere")
	if _, err := Collect(b, missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing directory: error %v, want one naming %s", err, missing)
	}
	if _, err := Collect(); err == nil {
		t.Error("no directory: no error")
	}
}

func TestMeanStd(t *testing.T) {
	for _, c := range []struct {
		v         []float64
		mean, std float64
	}{
		{[]float64{70, 72, 74}, 72, 2},
		{[]float64{5}, 5, 0},
		{nil, 0, 0},
	} {
		m, s := MeanStd(c.v)
		if !cmp.Equal([]float64{m, s}, []float64{c.mean, c.std}) {
			t.Errorf("MeanStd(%v) = %v, %v; want %v, %v", c.v, m, s, c.mean, c.std)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{5}, 5},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := Median(slices.Clone(c.v)); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

// TestReportRuns checks the table of runs: a line per run in the order of
// the rows and seeds, "-" for epochs past a run's end, the first of tied
// peaks, the largest drop into the last ten epochs and the median epoch;
// and that a run without epochs is an error naming its log.
func TestReportRuns(t *testing.T) {
	dir := t.TempDir()
	writeLog := func(run string, acc, secs []float64) {
		t.Helper()
		var b strings.Builder
		for e := range acc {
			fmt.Fprintf(&b, "{\"epoch\":%d,\"accuracy\":%v,\"seconds\":%v}\n", e+1, acc[e], secs[e])
		}
		writeLogFile(t, run, b.String())
	}
	long := fakeRun(t, dir, data.UDA, "dann", "kitchen", 0, nil, 70, nil, nil)
	writeLog(long, []float64{50, 60, 62, 64, 66, 68, 70, 72, 74, 72, 74, 70}, []float64{12, 1, 11, 2, 10, 3, 9, 4, 8, 5, 7, 6})
	short := fakeRun(t, dir, data.UDA, "dann", "kitchen", 1, nil, 64, nil, nil)
	writeLog(short, []float64{60, 65, 64}, []float64{3, 1, 2})
	rep, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteRuns(&b); err != nil {
		t.Fatal(err)
	}
	name := rep.Rows[0].Name()
	want := "| scenario | dataset | method | target | seed | epoch 1 | epoch 10 | epoch 20 | epoch 30 | last epoch | peak (epoch) | largest drop, last 10 epochs | median epoch (s) |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n" +
		"| uda | amazon | " + name + " | kitchen | 0 | 50.00 | 72.00 | - | - | 70.00 | 74.00 (9) | 4.00 | 6.5 |\n" +
		"| uda | amazon | " + name + " | kitchen | 1 | 60.00 | - | - | - | 64.00 | 65.00 (2) | 1.00 | 2.0 |\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("runs table (-want +got):\n%s", diff)
	}
	writeLog(short, nil, nil)
	if rep, err = Collect(dir); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteRuns(io.Discard); err == nil || !strings.Contains(err.Error(), filepath.Join(short, trainer.LogFile)+": no epochs") {
		t.Errorf("a run with an empty epoch log: %v", err)
	}
	if err := os.Remove(filepath.Join(short, trainer.LogFile)); err != nil {
		t.Fatal(err)
	}
	if rep, err = Collect(dir); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteRuns(io.Discard); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a run without an epoch log: %v", err)
	}
}

// TestReportCSV checks the epoch-log table: a line per run and epoch with
// the run's identity, its per-source fields under the sources' names, and
// the fields only some epochs have left empty in the others.
func TestReportCSV(t *testing.T) {
	dir := t.TempDir()
	run := fakeRun(t, dir, data.UDA, "wadn", "kitchen", 3, map[string]string{"c0": "0.05"}, 80, nil, nil)
	log := `{"epoch":1,"loss":0.5,"class":[0.1,0.2,0.3],"lambda":[0.2,0.3,0.5],"alpha":[[1,2],[3,4],[5,6]],"accuracy":70,"target_dist":[0.4,0.6]}
{"epoch":2,"loss":0.25,"class":[0.1,0.2,0.3],"lambda":[0.2,0.3,0.5],"alpha":[[1,2],[3,4],[5,6]],"accuracy":80,"accuracy_trained":78.5,"source_accuracy":[91,92,93],"target_dist":[0.4,0.6]}
`
	writeLogFile(t, run, log)
	recs, col := reportCSV(t, dir)
	if len(recs) != 3 {
		t.Fatalf("%d lines, want a header and 2 epochs:\n%v", len(recs), recs)
	}
	for _, c := range []struct{ name, want string }{
		{"method", "wadn"}, {"label", "c0 0.05"}, {"seed", "3"}, {"epoch", "2"}, {"loss", "0.25"}, {"accuracy", "80"},
		{"class.dvd", "0.2"}, {"lambda.electronics", "0.5"}, {"alpha.dvd.1", "4"}, {"target_dist.0", "0.4"},
		{"accuracy_trained", "78.5"}, {"source_accuracy.books", "91"}, {"source_accuracy.electronics", "93"},
	} {
		i, ok := col[c.name]
		if !ok {
			t.Errorf("no column %s in %v", c.name, recs[0])
			continue
		}
		if got := recs[2][i]; got != c.want {
			t.Errorf("epoch 2 %s = %q, want %q", c.name, got, c.want)
		}
	}
	if i := col["source_accuracy.dvd"]; recs[1][i] != "" {
		t.Errorf("epoch 1, which has no source accuracy, gives %q", recs[1][i])
	}

	// A DANN run logged before the methods named their terms, its domain
	// loss in every source's implicit slot: its CSV line has the loss as
	// DANN's term "domain", and none of the slots.
	dann := fakeRun(t, dir, data.UDA, "dann", "kitchen", 1, nil, 70, nil, nil)
	dlog := `{"epoch":1,"loss":0.5,"class":[0.1,0.2,0.3],"explicit":[0,0,0],"implicit":[1.25,1.25,1.25],"penalty":[0,0,0],"lambda":[0.2,0.3,0.5],"alpha":[[1,2],[3,4],[5,6]],"accuracy":70,"target_dist":[0.4,0.6]}
`
	if err := os.WriteFile(filepath.Join(dann, "epochs.jsonl"), []byte(dlog), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, col = reportCSV(t, dir)
	for _, r := range recs[1:] {
		if r[col["method"]] != "dann" {
			continue
		}
		if i, ok := col["domain"]; !ok || r[i] != "1.25" {
			t.Errorf("dann: no column domain of 1.25 in %v / %v", recs[0], r)
		}
		for _, slot := range []string{"explicit.books", "implicit.books", "penalty.books"} {
			if i, ok := col[slot]; ok && r[i] != "" {
				t.Errorf("dann: %s = %q, a slot DANN's terms do not read", slot, r[i])
			}
		}
	}
	if err := os.RemoveAll(dann); err != nil {
		t.Fatal(err)
	}

	// A method that pools its sources logs one value per field, named
	// "pooled", never after the first source.
	pooled := fakeRun(t, dir, data.UDA, "source", "kitchen", 0, nil, 75, nil, nil)
	plog := `{"epoch":1,"loss":0.5,"class":[0.4],"lambda":[1],"alpha":[[1,1]],"accuracy":75,"source_accuracy":[90],"target_dist":[0.5,0.5]}
`
	writeLogFile(t, pooled, plog)
	recs, col = reportCSV(t, dir)
	var line []string
	for _, r := range recs[1:] {
		if r[col["method"]] == "source" {
			line = r
		}
	}
	if line == nil {
		t.Fatalf("no line of the pooled run:\n%v", recs)
	}
	for name, want := range map[string]string{"class.pooled": "0.4", "lambda.pooled": "1", "alpha.pooled.1": "1", "source_accuracy.pooled": "90", "class.books": ""} {
		i, ok := col[name]
		if !ok {
			t.Errorf("pooled run: no column %s in %v", name, recs[0])
			continue
		}
		if line[i] != want {
			t.Errorf("pooled run: %s = %q, want %q", name, line[i], want)
		}
	}
}

// reportCSV returns the lines of the CSV table of the runs under dir and
// the index of every column by name.
func reportCSV(t *testing.T, dir string) ([][]string, map[string]int) {
	t.Helper()
	rep, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("the CSV table: %v, %d lines", err, len(recs))
	}
	col := map[string]int{}
	for i, c := range recs[0] {
		col[c] = i
	}
	return recs, col
}

// TestReportFilterRuns checks the filter by target, seed and settings label,
// alone and with the others, and its message when no run passes.
func TestReportFilterRuns(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, data.Limited, "wadn", "books", 0, nil, 75, nil, nil)
	fakeRun(t, dir, data.Limited, "wadn", "books", 1, nil, 76, nil, nil)
	fakeRun(t, dir, data.Limited, "wadn", "books", 0, map[string]string{"target-weight": "1"}, 77, nil, nil)
	fakeRun(t, dir, data.Limited, "wadn", "dvd", 0, map[string]string{"c0": "0", "target-weight": "1"}, 78, nil, nil)
	fakeRun(t, dir, data.Limited, "source", "dvd", 2, nil, 79, nil, nil)
	for _, c := range []struct {
		name string
		f    Filter
		runs []string // target, method and seed of each run, row by row
		err  string
	}{
		{"every run", Filter{}, []string{"books wadn 0", "books wadn 1", "dvd wadn [c0 0, target-weight 1] 0", "books wadn [target-weight 1] 0", "dvd source+tar 2"}, ""},
		{"books", Filter{Targets: []string{"books"}}, []string{"books wadn 0", "books wadn 1", "books wadn [target-weight 1] 0"}, ""},
		{"books and dvd", Filter{Targets: []string{"dvd", "books"}}, []string{"books wadn 0", "books wadn 1", "dvd wadn [c0 0, target-weight 1] 0", "books wadn [target-weight 1] 0", "dvd source+tar 2"}, ""},
		{"seed 0", Filter{Seeds: []uint64{0}}, []string{"books wadn 0", "dvd wadn [c0 0, target-weight 1] 0", "books wadn [target-weight 1] 0"}, ""},
		{"seeds 1 and 2", Filter{Seeds: []uint64{1, 2}}, []string{"books wadn 1", "dvd source+tar 2"}, ""},
		{"defaults", Filter{Settings: []string{""}}, []string{"books wadn 0", "books wadn 1", "dvd source+tar 2"}, ""},
		{"one label", Filter{Settings: []string{"target-weight 1"}}, []string{"books wadn [target-weight 1] 0"}, ""},
		{"two labels", Filter{Settings: []string{"c0 0, target-weight 1", "target-weight 1"}}, []string{"dvd wadn [c0 0, target-weight 1] 0", "books wadn [target-weight 1] 0"}, ""},
		{"all four", Filter{Methods: []string{"wadn"}, Targets: []string{"books"}, Seeds: []uint64{0}, Settings: []string{""}}, []string{"books wadn 0"}, ""},
		{"none", Filter{Targets: []string{"dvd"}, Seeds: []uint64{1}, Settings: []string{"", "c0 0"}}, nil,
			"no finished run of target dvd and seed 1 and settings the defaults or [c0 0] under " + dir},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := collectFiltered(t, c.f, dir, c.err)
			if rep == nil {
				return
			}
			var runs []string
			for _, r := range rep.Rows {
				for _, seed := range r.Seeds {
					runs = append(runs, fmt.Sprintf("%s %s %d", r.Target, r.Name(), seed))
				}
			}
			if diff := cmp.Diff(c.runs, runs); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReportSources checks the table of sources: lambda and the target
// distribution averaged over the seeds, alpha's error per source, and "-"
// for the lambda of a method that never moves it and for the alpha error
// of a method that does not estimate alpha.
func TestReportSources(t *testing.T) {
	dir := t.TempDir()
	// write gives run the final lambda and an epoch log whose last line
	// holds lambda and the estimated target distribution.
	write := func(run string, first, lambda, dist []float64) {
		t.Helper()
		var res RunResult
		if _, err := readJSON(filepath.Join(run, ResultFile), &res); err != nil {
			t.Fatal(err)
		}
		res.Lambda, res.Epochs = lambda, 2
		if err := writeJSON(filepath.Join(run, ResultFile), &res); err != nil {
			t.Fatal(err)
		}
		l0, _ := json.Marshal(method.EpochLog{Epoch: 1, Lambda: first, TargetDist: dist})
		l1, _ := json.Marshal(method.EpochLog{Epoch: 2, Lambda: lambda, TargetDist: dist, Accuracy: res.Accuracy})
		if err := os.WriteFile(filepath.Join(run, trainer.LogFile), append(append(l0, '\n'), append(l1, '\n')...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	third := []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	truth := [][]float64{{1, 1.5}, {1, 1.5}, {1, 1.5}}
	a := fakeRun(t, dir, data.UDA, "wadn", "kitchen", 0, nil, 80, [][]float64{{1.2, 1.5}, {1, 1.5}, {1, 1.1}}, truth)
	write(a, third, []float64{0.5, 0.3, 0.2}, []float64{0.4, 0.6})
	b := fakeRun(t, dir, data.UDA, "wadn", "kitchen", 1, nil, 82, [][]float64{{1, 1.5}, {1, 1.7}, {1, 1.5}}, truth)
	write(b, third, []float64{0.3, 0.3, 0.4}, []float64{0.5, 0.5})
	c := fakeRun(t, dir, data.UDA, "dann", "kitchen", 0, nil, 70, nil, nil)
	write(c, third, third, []float64{0.45, 0.55})
	rep, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteSources(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| uda | amazon | wadn | kitchen | 2 | books 0.400, 0.050 (0.250); dvd 0.300, 0.050 (0.250); electronics 0.300, 0.100 (0.250) | 0.450 0.550 |",
		"| uda | amazon | dann | kitchen | 1 | books -, -; dvd -, -; electronics -, - | 0.450 0.550 |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("sources table lacks\n%s\n in\n%s", want, out.String())
		}
	}
}
