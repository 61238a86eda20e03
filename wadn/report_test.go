package wadn

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wadn-go/wadn/data"
)

func TestReportTableAndPlots(t *testing.T) {
	dir := t.TempDir()
	exp := filepath.Join(dir, "amazon-kitchen")
	res := ExperimentResult{Dataset: "amazon", Target: "kitchen", Sources: []string{"books", "dvd", "electronics"},
		Scenario: "uda", Method: "wadn", Seeds: []uint64{0, 1}, Accuracy: []float64{84, 82},
		// Final alpha error per source: seed 0 0.25, 0.25, 0; seed 1 0.1,
		// 0.2, 0. The worst source's mean over the seeds is 0.225.
		Alpha: [][][]float64{
			{{1.5, 1}, {2, 0.5}, {1.5, 0.75}},
			{{1.4, 0.85}, {1.8, 0.75}, {1.5, 0.75}},
		},
		TrueAlpha: [][][]float64{
			{{1.5, 0.5}, {1.5, 0.5}, {1.5, 0.75}},
			{{1.5, 0.75}, {1.5, 0.85}, {1.5, 0.75}},
		}}
	res.Mean, res.Std = meanStd(res.Accuracy)
	if err := writeJSON(filepath.Join(exp, ExperimentFile), res); err != nil {
		t.Fatal(err)
	}
	hist := []EpochLog{
		{Epoch: 1, Lambda: []float64{0.3, 0.3, 0.4}, Alpha: [][]float64{{1, 1}, {1, 1}, {1, 1}}},
		{Epoch: 2, Lambda: []float64{0.2, 0.3, 0.5}, Alpha: [][]float64{{1.2, 0.9}, {1.3, 0.8}, {1.1, 0.95}}},
	}
	if err := os.MkdirAll(filepath.Join(exp, "seed0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeLog(filepath.Join(exp, "seed0"), hist); err != nil {
		t.Fatal(err)
	}
	rows, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Published != 83.73 {
		t.Fatalf("rows %+v", rows)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| uda | amazon | wadn | kitchen | 2 | 83.00 ± 1.41 | 83.73 | -0.73 | 0.225 |", "**average** over 1 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	files, err := WritePlots(filepath.Join(dir, "plots"), rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("plots %v", files)
	}
	svg, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	// Six alpha series (3 sources x 2 classes), each a polyline of 2 points.
	if n := strings.Count(string(svg), "<polyline"); n != 6 {
		t.Errorf("alpha plot has %d series, want 6", n)
	}
	if _, err := Collect(t.TempDir()); err == nil {
		t.Error("Collect of an empty directory gave no error")
	}
}

// TestReportComparison checks the side-by-side table: methods in the order
// of Methods, per-target cells with the paper's number, and the averages
// beside the paper's printed average where it gives only that.
func TestReportComparison(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct {
		sc, method, target string
		acc                []float64
	}{
		{"uda", "dann", "kitchen", []float64{74, 76}},
		{"uda", "wadn", "kitchen", []float64{84, 82}},
		{"uda", "wadn", "books", []float64{73, 73}},
		{"limited", "mme", "kitchen", []float64{80}},
		{"limited", "mme", "books", []float64{70}},
	} {
		res := ExperimentResult{Dataset: "amazon", Target: c.target, Scenario: c.sc, Method: c.method,
			Seeds: make([]uint64, len(c.acc)), Accuracy: c.acc}
		res.Mean, res.Std = meanStd(c.acc)
		if err := writeJSON(filepath.Join(dir, string(rune('a'+i)), ExperimentFile), res); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| target | wadn | dann |",
		"| books | 73.00 ± 0.00 (73.72) | - |",
		"| kitchen | 83.00 ± 1.41 (83.73) | 75.00 ± 1.41 (74.71) |",
		"| **average** | 78.00 [2] (80.43) | 75.00 [1] (72.00) |",
		"| target | mme |",
		"| **average** | 75.00 [2] (74.14) |",
		"| limited | amazon | mme | **average** over 2 | | 75.00 | 74.14 (all targets) | +0.86 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "uda, amazon") || !strings.Contains(out, "limited, amazon") {
		t.Errorf("report lacks a group title:\n%s", out)
	}
}

// TestReportVariants checks that experiments of one method and target run
// with other settings are reported apart, labelled by the settings that
// differ from the defaults and that the method reads, that experiments the
// settings cannot tell apart
// are named by their directories, and that their plots do not overwrite
// one another.
func TestReportVariants(t *testing.T) {
	dir := t.TempDir()
	write := func(sub, method string, acc float64, change func(*settings)) {
		t.Helper()
		writeExperiment(t, filepath.Join(dir, sub), method, []uint64{0}, []float64{acc}, change)
	}
	write("default", "wadn", 82, func(*settings) {})
	write("c0", "wadn", 79, func(s *settings) { s.Config.C0 = 0.03 })
	write("fixed", "wadn", 78, func(s *settings) { s.Protocol.Pool, s.Config.Baseline.M3SDACentral = false, true })
	write("sources", "wadn", 77, func(s *settings) { s.Sources = []string{"books", "dvd"} })
	write("old1", "wadn", 81, nil)
	write("old2", "wadn", 80, nil)
	write("m3sda", "m3sda", 70, func(s *settings) { s.Config.C0, s.Config.Baseline.M3SDACentral = 0.03, true })
	write("m3sda-c0", "m3sda", 69, func(s *settings) { s.Config.C0, s.Config.Baseline.Mu = 0.03, 0.5 })
	rows, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range rows {
		got[r.Label()] = r.Mean
	}
	want := map[string]float64{
		"wadn":                                 82,
		"wadn [C0 0.03]":                       79,
		"wadn [Protocol.Pool false]":           78,
		"wadn [sources books,dvd]":             77,
		"wadn [settings unrecorded, dir old1]": 81,
		"wadn [settings unrecorded, dir old2]": 80,
		"m3sda [Baseline.M3SDACentral true]":   70,
		"m3sda":                                69,
	}
	if !cmp.Equal(got, want) {
		t.Errorf("labels and means: %v\nwant %v", got, want)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| uda | amazon | wadn [C0 0.03] | kitchen | 1 | 79.00 ± 0.00 | 83.73 | -4.73 | - |",
		"| target | wadn | wadn [C0 0.03] | wadn [Protocol.Pool false] |", " 79.00 ± 0.00 (83.73) |"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, b.String())
		}
	}
	files, err := WritePlots(filepath.Join(dir, "plots"), rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2*len(rows) {
		t.Errorf("%d plot files for %d experiments: %v", len(files), len(rows), files)
	}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			t.Errorf("plot %s written twice", f)
		}
		seen[f] = true
	}
}

// writeExperiment writes an Amazon kitchen experiment into exp as wadn run
// would: experiment.json with the seeds' accuracies, each seed's epoch log
// and, unless change is nil, settings.json with the defaults after change.
func writeExperiment(t *testing.T, exp, method string, seeds []uint64, acc []float64, change func(*settings)) {
	t.Helper()
	res := ExperimentResult{Dataset: "amazon", Target: "kitchen", Sources: []string{"books", "dvd", "electronics"},
		Scenario: "uda", Method: method, Seeds: seeds, Accuracy: acc}
	res.Mean, res.Std = meanStd(res.Accuracy)
	if err := writeJSON(filepath.Join(exp, ExperimentFile), res); err != nil {
		t.Fatal(err)
	}
	for _, s := range seeds {
		sd := filepath.Join(exp, fmt.Sprintf("seed%d", s))
		if err := os.MkdirAll(sd, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeLog(sd, []EpochLog{{Epoch: 1, Lambda: []float64{1, 0, 0}, Alpha: [][]float64{{1, 1}, {1, 1}, {1, 1}}}}); err != nil {
			t.Fatal(err)
		}
	}
	if change == nil {
		return
	}
	cfg, err := DefaultConfig("amazon", data.UDA)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Baseline = DefaultBaselineConfig("amazon", data.UDA)
	s := settings{Dataset: "amazon", Target: "kitchen", Method: method, Config: cfg, Protocol: data.AmazonProtocol(data.UDA)}
	change(&s)
	if err := writeJSON(filepath.Join(exp, SettingsFile), s); err != nil {
		t.Fatal(err)
	}
}

// TestReportMergesParts checks that experiments run in parts (a seed or
// two per directory, the same settings) are reported as one, and that
// parts sharing a seed, or recording no settings, are not.
func TestReportMergesParts(t *testing.T) {
	dir := t.TempDir()
	same := func(*settings) {}
	c0 := func(s *settings) { s.Config.C0 = 0.03 }
	writeExperiment(t, filepath.Join(dir, "p2"), "wadn", []uint64{2, 3}, []float64{80, 81}, same)
	writeExperiment(t, filepath.Join(dir, "p0"), "wadn", []uint64{0}, []float64{84}, same)
	writeExperiment(t, filepath.Join(dir, "p1"), "wadn", []uint64{1}, []float64{83}, same)
	writeExperiment(t, filepath.Join(dir, "c0a"), "wadn", []uint64{0}, []float64{79}, c0)
	writeExperiment(t, filepath.Join(dir, "c0b"), "wadn", []uint64{0, 1}, []float64{78, 77}, c0)
	writeExperiment(t, filepath.Join(dir, "old1"), "wadn", []uint64{5}, []float64{70}, nil)
	writeExperiment(t, filepath.Join(dir, "old2"), "wadn", []uint64{6}, []float64{71}, nil)
	writeExperiment(t, filepath.Join(dir, "src"), "source", []uint64{0}, []float64{75}, same)
	rows, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Seeds    []uint64
		Accuracy []float64
		Dir      string
	}
	got := map[string]summary{}
	for _, r := range rows {
		got[r.Label()] = summary{r.Seeds, r.Accuracy, filepath.Base(r.Dir)}
	}
	want := map[string]summary{
		"wadn":                                 {[]uint64{0, 1, 2, 3}, []float64{84, 83, 80, 81}, "p0"},
		"wadn [C0 0.03, dir c0a]":              {[]uint64{0}, []float64{79}, "c0a"},
		"wadn [C0 0.03, dir c0b]":              {[]uint64{0, 1}, []float64{78, 77}, "c0b"},
		"wadn [settings unrecorded, dir old1]": {[]uint64{5}, []float64{70}, "old1"},
		"wadn [settings unrecorded, dir old2]": {[]uint64{6}, []float64{71}, "old2"},
		"source":                               {[]uint64{0}, []float64{75}, "src"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	for _, r := range rows {
		if r.Label() != "wadn" {
			continue
		}
		if m, s := meanStd([]float64{84, 83, 80, 81}); r.Mean != m || r.Std != s {
			t.Errorf("merged mean, std = %v, %v; want %v, %v", r.Mean, r.Std, m, s)
		}
	}
	files, err := WritePlots(filepath.Join(dir, "plots"), rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2*len(rows) {
		t.Errorf("%d plot files for %d rows: %v", len(files), len(rows), files)
	}
}

func TestRowAlphaError(t *testing.T) {
	a := [][]float64{{2, 0.5}, {1.5, 0.75}} // errors 0.375 and 0 against truth
	truth := [][]float64{{1.5, 0.75}, {1.5, 0.75}}
	for _, c := range []struct {
		name      string
		method    string
		alpha     [][][]float64
		trueAlpha [][][]float64
		want      float64
		ok        bool
	}{
		{"one seed", "wadn", [][][]float64{a}, [][][]float64{truth}, 0.375, true},
		{"two seeds", "wadn", [][][]float64{a, truth}, [][][]float64{truth, truth}, 0.1875, true},
		{"baseline", "mdmn", [][][]float64{a}, [][][]float64{truth}, 0, false},
		{"no truth", "wadn", [][][]float64{a}, nil, 0, false},
		{"a seed without alpha", "wadn", [][][]float64{nil, a}, [][][]float64{nil, truth}, 0, false},
		{"sources differ", "wadn", [][][]float64{a, a[:1]}, [][][]float64{truth, truth[:1]}, 0, false},
	} {
		r := Row{ExperimentResult: ExperimentResult{Method: c.method, Alpha: c.alpha, TrueAlpha: c.trueAlpha}}
		got, ok := r.AlphaError()
		if ok != c.ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: AlphaError() = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestCollectFollowsLinks checks that Collect reads experiments reached
// through symbolic links to directories, the given directory itself a link
// as well, each real directory once even where links form a cycle, skips a
// dangling link, and names them by the linked path.
func TestCollectFollowsLinks(t *testing.T) {
	store, view := t.TempDir(), t.TempDir()
	same := func(*settings) {}
	writeExperiment(t, filepath.Join(store, "s0"), "wadn", []uint64{0}, []float64{80}, same)
	writeExperiment(t, filepath.Join(store, "s1"), "wadn", []uint64{1}, []float64{82}, same)
	links := map[string]string{
		filepath.Join(view, "a"):     filepath.Join(store, "s0"),
		filepath.Join(view, "b"):     filepath.Join(store, "s1"),
		filepath.Join(view, "again"): filepath.Join(store, "s1"),      // the same directory twice
		filepath.Join(view, "loop"):  view,                            // a cycle
		filepath.Join(store, "top"):  view,                            // the given directory as a link
		filepath.Join(view, "gone"):  filepath.Join(store, "nowhere"), // dangling: skipped
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	rows, err := Collect(filepath.Join(store, "top"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || !slices.Equal(rows[0].Seeds, []uint64{0, 1}) || !slices.Equal(rows[0].Accuracy, []float64{80, 82}) {
		t.Fatalf("rows %+v, want one row of seeds 0 and 1 (80, 82)", rows)
	}
	if want := filepath.Join(store, "top", "a"); rows[0].Dir != want {
		t.Errorf("row directory %s, want the linked path %s", rows[0].Dir, want)
	}
}
