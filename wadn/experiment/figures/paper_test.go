package figures

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/method"
)

// fakeRuns are runs written without training: every seed on every target
// of one method on a data set in a scenario, with the settings in set off
// their defaults.
type fakeRuns struct {
	dataset, scenario, method string
	targets                   []string
	seeds                     []uint64
	set                       map[string]string
	// acc is the accuracy of the run of s; nil: 50 + the seed.
	acc func(s *experiment.Spec) float64
	// lambda is the weights of the run's sources at epoch e; nil: every
	// one 1/sources.
	lambda func(s *experiment.Spec, e, sources int) []float64
	// truth is the true ratios of the run, a row per source; nil: 1 for
	// every class, 1.2 for class 0. alpha moves from 1 at the first epoch to
	// the truth at the last.
	truth func(s *experiment.Spec, sources, classes int) [][]float64
}

var (
	amazonSumsOnce sync.Once
	amazonSums     map[string]string
	amazonSumsErr  error
)

// dataSums returns the checksums a run of ds records of its domains: the
// true ones of Amazon's copy in the binary, made-up ones otherwise.
func dataSums(t *testing.T, ds *dataset.Dataset) map[string]string {
	t.Helper()
	if ds.Name != "amazon" {
		sums := map[string]string{}
		for _, d := range ds.Loaded {
			sums[d] = "x"
		}
		return sums
	}
	amazonSumsOnce.Do(func() {
		domains, err := ds.Load(ds.Settings(), "", nil, data.LoadOptions{})
		if err != nil {
			amazonSumsErr = err
			return
		}
		amazonSums = map[string]string{}
		for _, d := range domains {
			amazonSums[d.Name] = d.Checksum()
		}
	})
	if amazonSumsErr != nil {
		t.Fatal(amazonSumsErr)
	}
	return amazonSums
}

// write writes the runs under dir.
func (f fakeRuns) write(t *testing.T, dir string) {
	t.Helper()
	for _, target := range f.targets {
		p := &experiment.Plan{}
		kv := map[string]string{"dataset": f.dataset, "scenario": f.scenario, "method": f.method, "target": target}
		var seeds []string
		for _, s := range f.seeds {
			seeds = append(seeds, strconv.FormatUint(s, 10))
		}
		kv["seeds"] = strings.Join(seeds, ",")
		maps.Copy(kv, f.set)
		for k, v := range kv {
			if err := p.Set(k, v); err != nil {
				t.Fatalf("%s %s: %v", k, v, err)
			}
		}
		specs, err := p.Specs()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range specs {
			f.writeRun(t, dir, s)
		}
	}
}

// writeRun writes the run of s under dir.
func (f fakeRuns) writeRun(t *testing.T, dir string, s *experiment.Spec) {
	t.Helper()
	id := &experiment.Identity{Dataset: s.Dataset.Name, Target: s.Target, Scenario: s.Scenario.String(), Method: s.Method.Name,
		Seed: s.Seed, Settings: settings.Recorded(s.Fields()), Data: dataSums(t, s.Dataset)}
	for _, d := range s.Dataset.Loaded {
		if d != s.Target {
			id.Sources = append(id.Sources, d)
		}
	}
	n, k, epochs := len(id.Sources), s.Dataset.Classes, s.Train.Epochs
	acc := 50 + float64(s.Seed)
	if f.acc != nil {
		acc = f.acc(s)
	}
	var truth [][]float64
	if f.truth != nil {
		truth = f.truth(s, n, k)
	} else {
		for range n {
			row := slices.Repeat([]float64{1}, k)
			row[0] = 1.2
			truth = append(truth, row)
		}
	}
	var log []byte
	var last method.EpochLog
	for e := 1; e <= epochs; e++ {
		l := method.EpochLog{Epoch: e, Accuracy: acc - float64(epochs-e)/10}
		if f.lambda != nil {
			l.Lambda = f.lambda(s, e, n)
		} else {
			l.Lambda = slices.Repeat([]float64{1 / float64(n)}, n)
		}
		for src := range n {
			a := make([]float64, k)
			for c := range a {
				a[c] = 1 + (truth[src][c]-1)*float64(e-1)/float64(max(epochs-1, 1))
			}
			l.Alpha = append(l.Alpha, a)
		}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		log = append(append(log, b...), '\n')
		last = l
	}
	run := filepath.Join(dir, id.Name())
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]any{
		experiment.RunFile:    &experiment.Record{Version: experiment.RecordVersion, Key: id.Key(), Identity: id},
		experiment.ResultFile: &experiment.RunResult{Accuracy: last.Accuracy, Alpha: last.Alpha, TrueAlpha: truth, Lambda: last.Lambda, Epochs: epochs},
	}
	for name, v := range files {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(run, "epochs.jsonl"), log, 0o644); err != nil {
		t.Fatal(err)
	}
}

// report writes the runs into a directory of their own and collects them.
func report(t *testing.T, runs ...fakeRuns) *experiment.Report {
	t.Helper()
	dir := t.TempDir()
	for _, r := range runs {
		r.write(t, dir)
	}
	rep, err := experiment.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// writeSVG writes the figure's SVG into a temporary directory, or
// $FIGURES_OUT to look at, with its PNG beside it, and returns its path.
func writeSVG(t *testing.T, f Figure) string {
	t.Helper()
	dir := t.TempDir()
	if d := os.Getenv("FIGURES_OUT"); d != "" {
		dir = d
	}
	files, err := f.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	return files[0]
}

// texts returns the texts of size (as "12px") of the SVG file.
func texts(t *testing.T, path, size string) []string {
	t.Helper()
	var out []string
	for _, e := range readTexts(t, path) {
		if e.size == size {
			out = append(out, e.text)
		}
	}
	return out
}

// checkInside checks that every text of the SVG file lies on its canvas:
// the texts written across and those turned a quarter (the y axes'
// labels), measured in the font the figures name.
func checkInside(t *testing.T, path string) {
	t.Helper()
	name := filepath.Base(path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	var w, h float64
	var turned []bool // per open g: whether it turns its content a quarter
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch se := tok.(type) {
		case xml.EndElement:
			if se.Name.Local == "g" {
				turned = turned[:len(turned)-1]
			}
		case xml.StartElement:
			attr := func(n string) string {
				for _, a := range se.Attr {
					if a.Name.Local == n {
						return a.Value
					}
				}
				return ""
			}
			switch se.Name.Local {
			case "svg":
				w, _ = strconv.ParseFloat(strings.TrimSuffix(attr("width"), "pt"), 64)
				h, _ = strconv.ParseFloat(strings.TrimSuffix(attr("height"), "pt"), 64)
			case "g":
				tr := attr("transform")
				if strings.Contains(tr, "rotate") && tr != "rotate(90)" {
					t.Fatalf("%s: a group turned by %q", name, tr)
				}
				turned = append(turned, tr == "rotate(90)")
			case "text":
				x, _ := strconv.ParseFloat(attr("x"), 64)
				y, _ := strconv.ParseFloat(attr("y"), 64)
				size := 0.0
				for _, kv := range strings.Split(attr("style"), ";") {
					if v, ok := strings.CutPrefix(kv, "font-size:"); ok {
						size, _ = strconv.ParseFloat(strings.TrimSuffix(v, "px"), 64)
					}
				}
				var body string
				if err := dec.DecodeElement(&body, &se); err != nil {
					t.Fatal(err)
				}
				fnt := font.From(plot.DefaultFont, vg.Points(size))
				wd, up, down := plot.DefaultTextHandler.Box(body, fnt)
				width, ascent, descent := float64(wd.Points()), float64(up.Points()), float64(down.Points())
				// The box of the text on the canvas, y upwards; a text
				// turned a quarter runs upwards, its top to the left.
				x0, x1, y0, y1 := x, x+width, -y-descent, -y+ascent
				if slices.Contains(turned, true) {
					x0, x1, y0, y1 = y-ascent, y+descent, x, x+width
				}
				const slack = 0.5
				if x0 < -slack || x1 > w+slack || y0 < -slack || y1 > h+slack {
					t.Errorf("%s: %q at [%.1f, %.1f] x [%.1f, %.1f] leaves the canvas %.1f x %.1f", name, body, x0, x1, y0, y1, w, h)
				}
			}
		}
	}
	if w == 0 || h == 0 {
		t.Fatalf("%s: canvas %v x %v", name, w, h)
	}
}

// checkPNG checks that the figure's PNG is an image of the SVG's size at
// pngDPI.
func checkPNG(t *testing.T, f Figure) {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(f.PNG))
	if err != nil {
		t.Fatalf("%s.png: %v", f.Name, err)
	}
	attr := strings.SplitN(strings.SplitN(string(f.SVG), `width="`, 2)[1], `"`, 2)[0]
	w, _ := strconv.ParseFloat(strings.TrimSuffix(attr, "pt"), 64)
	if want := w / 72 * pngDPI; math.Abs(float64(cfg.Width)-want) > 1 {
		t.Errorf("%s.png is %d pixels wide, want %.0f", f.Name, cfg.Width, want)
	}
}

// wantFigure is what a test wants of one figure: texts of its legend (or
// its axes' and titles', all of 12 points) present and absent, and, for an
// ablation, the ticks of its x axes.
type wantFigure struct {
	name           string
	legend, absent []string
	levels         []float64
}

var (
	digitsDomains = []string{"mnist", "usps", "mnist_m", "synthgen"}
	shiftLegend   = []string{"rows drawn", "a source's rows after the drop", "the target's rows (never dropped)"}
	partialLegend = []string{"alpha estimated by WADN (last epoch)", "true ratio", "a class the target dropped (true ratio 0)"}
)

// dropClasses returns truth with the true ratios of the classes in drop 0
// for every source.
func dropClasses(drop ...int) func(s *experiment.Spec, sources, classes int) [][]float64 {
	return func(s *experiment.Spec, sources, classes int) [][]float64 {
		var out [][]float64
		for range sources {
			row := make([]float64, classes)
			for c := range row {
				if !slices.Contains(drop, c) {
					row[c] = 1 + 0.1*float64(c)
				}
			}
			out = append(out, row)
		}
		return out
	}
}

// TestPaperFigures draws the paper's figures from runs of several kinds: each
// figure is there when its runs are and absent otherwise, in the fixed
// order; its legend names every series and no other; its ticks are round
// (the ablations' at their values), its texts on its canvas, and its PNG
// of its size.
func TestPaperFigures(t *testing.T) {
	amazonUDA := func(m string, set map[string]string) fakeRuns {
		return fakeRuns{dataset: "amazon", scenario: "uda", method: m, targets: []string{"books", "kitchen"}, seeds: []uint64{0, 1}, set: set}
	}
	for _, tc := range []struct {
		name string
		runs []fakeRuns
		want []wantFigure
	}{
		{"digits UDA source only", []fakeRuns{{dataset: "digits", scenario: "uda", method: "source", targets: []string{"mnist", "usps"}, seeds: []uint64{0, 1}}}, nil},
		{"digits UDA WADN and DARN", []fakeRuns{
			{dataset: "digits", scenario: "uda", method: "wadn", targets: []string{"usps", "mnist"}, seeds: []uint64{0, 1}},
			{dataset: "digits", scenario: "uda", method: "darn", targets: []string{"mnist"}, seeds: []uint64{0, 1, 2}},
		}, []wantFigure{
			{name: "fig3a-lambda-matrix-digits"},
			{name: "fig3b-lambda-epochs-digits", legend: digitsDomains},
			{name: "figA-alpha-epochs-digits"},
		}},
		{"amazon UDA source only", []fakeRuns{amazonUDA("source", nil)}, []wantFigure{{name: "fig2-label-shift-amazon", legend: shiftLegend}}},
		{"amazon shift", []fakeRuns{
			amazonUDA("wadn", nil), amazonUDA("wadn", map[string]string{"shift": "0"}), amazonUDA("wadn", map[string]string{"shift": "0.2"}),
			amazonUDA("source", map[string]string{"shift": "0.2"}), amazonUDA("source", nil), amazonUDA("darn", nil),
		}, []wantFigure{
			{name: "fig2-label-shift-amazon", legend: shiftLegend},
			{name: "fig3a-lambda-matrix-amazon"},
			{name: "fig3b-lambda-epochs-amazon", legend: []string{"dvd", "electronics", "kitchen", "books"}},
			{name: "fig4a-accuracy-shift-amazon", legend: []string{"wadn", "source"}, absent: []string{"darn"}, levels: []float64{0, 0.2, 0.5}},
			{name: "figA-alpha-epochs-amazon"},
		}},
		{"another setting is no ablation", []fakeRuns{amazonUDA("wadn", nil), amazonUDA("wadn", map[string]string{"c0": "0.05"})}, []wantFigure{
			{name: "fig2-label-shift-amazon", legend: shiftLegend},
			{name: "fig3a-lambda-matrix-amazon"},
			{name: "fig3b-lambda-epochs-amazon", legend: []string{"dvd", "electronics", "kitchen", "books"}},
			{name: "figA-alpha-epochs-amazon"},
		}},
		{"office-caltech partial keep-classes", []fakeRuns{
			{dataset: "office-caltech", scenario: "partial", method: "wadn", targets: []string{"dslr", "amazon"}, seeds: []uint64{0, 1}, truth: dropClasses(0, 3, 4, 7, 9)},
			{dataset: "office-caltech", scenario: "partial", method: "wadn", targets: []string{"dslr", "amazon"}, seeds: []uint64{0, 1}, set: map[string]string{"keep-classes": "3"}},
			{dataset: "office-caltech", scenario: "partial", method: "source", targets: []string{"dslr", "amazon"}, seeds: []uint64{0, 1}, set: map[string]string{"keep-classes": "8"}},
			{dataset: "office-caltech", scenario: "partial", method: "source", targets: []string{"dslr", "amazon"}, seeds: []uint64{0, 1}},
		}, []wantFigure{
			{name: "fig4c-accuracy-keep-classes-office-caltech", legend: []string{"wadn", "source", "target dslr", "target amazon", "average over the 2 targets"}, levels: []float64{3, 5, 8}},
			{name: "fig5-alpha-partial-office-caltech", legend: partialLegend},
		}},
		{"digits limited label-fraction", []fakeRuns{
			{dataset: "digits", scenario: "limited", method: "wadn", targets: []string{"usps", "mnist"}, seeds: []uint64{0}},
			{dataset: "digits", scenario: "limited", method: "wadn", targets: []string{"usps"}, seeds: []uint64{0}, set: map[string]string{"label-fraction": "0.05"}},
			{dataset: "digits", scenario: "limited", method: "wadn", targets: []string{"usps"}, seeds: []uint64{0}, set: map[string]string{"label-fraction": "0.01"}},
		}, []wantFigure{
			{name: "fig4b-accuracy-label-fraction-digits", legend: []string{"wadn", "target usps"}, absent: []string{"target mnist"}, levels: []float64{0.01, 0.05, 0.1}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			figs, err := Paper(report(t, tc.runs...), PaperOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, f := range figs {
				got = append(got, f.Name)
			}
			for _, w := range tc.want {
				want = append(want, w.name)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("figures %q, want %q", got, want)
			}
			for i, f := range figs {
				w := tc.want[i]
				if f.Title == "" || f.Caption == "" || strings.Contains(f.Caption, "\n") || !strings.HasSuffix(f.Caption, ".") {
					t.Errorf("%s: title %q, caption %q: want both, the caption one sentence", f.Name, f.Title, f.Caption)
				}
				path := writeSVG(t, f)
				checkInside(t, path)
				checkPNG(t, f)
				// A browser keeps an embedded image's proportions, and
				// drew the colour bar, an image one pixel wide, as a line.
				if strings.Contains(string(f.SVG), "<image") {
					t.Errorf("%s: the SVG embeds an image", f.Name)
				}
				if !strings.HasPrefix(f.Name, "fig3a") { // its axes name domains
					checkTicksAt(t, path, w.levels)
				}
				legend := texts(t, path, "12px")
				for _, l := range w.legend {
					if !slices.Contains(legend, l) {
						t.Errorf("%s: no %q among %q", f.Name, l, legend)
					}
				}
				for _, l := range w.absent {
					if slices.Contains(legend, l) {
						t.Errorf("%s: %q among %q", f.Name, l, legend)
					}
				}
			}
		})
	}
}

// TestFigureAblationLevels: an ablation takes each run's value of its setting
// from the run's settings, so that the runs at every default (label "")
// join the others at the default value, and leaves out the runs that
// change another setting too.
func TestFigureAblationLevels(t *testing.T) {
	rep := report(t,
		fakeRuns{dataset: "amazon", scenario: "uda", method: "wadn", targets: []string{"kitchen"}, seeds: []uint64{0, 1, 2}},
		fakeRuns{dataset: "amazon", scenario: "uda", method: "wadn", targets: []string{"kitchen"}, seeds: []uint64{0, 1}, set: map[string]string{"shift": "0.2"}},
		fakeRuns{dataset: "amazon", scenario: "uda", method: "wadn", targets: []string{"kitchen"}, seeds: []uint64{0}, set: map[string]string{"shift": "0.8", "c0": "0.05"}},
	)
	got := ablations[0].collect(rep, dataset.Amazon)["wadn"]["kitchen"]
	want := accuracies{0.5: {0: 50, 1: 51, 2: 52}, 0.2: {0: 50, 1: 51}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("shift of the runs %v, want %v", got, want)
	}
}

func TestFigureSeedsOf(t *testing.T) {
	for _, tc := range []struct {
		acc  accuracies
		want map[float64][]uint64
	}{
		{accuracies{0.5: {0: 1, 1: 1, 2: 1, 3: 1}, 0.2: {0: 1, 2: 1}}, map[float64][]uint64{0.5: {0, 2}, 0.2: {0, 2}}},
		{accuracies{0.5: {0: 1, 1: 1}, 0.2: {2: 1}}, map[float64][]uint64{0.5: {0, 1}, 0.2: {2}}}, // none shared: each its own
		{accuracies{3: {4: 1}}, map[float64][]uint64{3: {4}}},
	} {
		if got := seedsOf(tc.acc); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("seedsOf(%v) = %v, want %v", tc.acc, got, tc.want)
		}
	}
}

// TestFigureLambdaMatrix: every cell of Fig. 3(a) says the mean over the seeds
// of its source's final weight for its row's target, the target's own cell
// says "target", and the rows are the targets from the top.
func TestFigureLambdaMatrix(t *testing.T) {
	// The weight of source i of seed s at epoch e.
	weight := func(s *experiment.Spec, e, i int) float64 {
		return 0.1*float64(i+1) + 0.05*float64(s.Seed) + 0.001*float64(e) + 0.1*float64(slices.Index(digitsDomains, s.Target))
	}
	rep := report(t, fakeRuns{dataset: "digits", scenario: "uda", method: "wadn", targets: []string{"usps", "mnist"}, seeds: []uint64{0, 1, 3},
		lambda: func(s *experiment.Spec, e, n int) []float64 {
			out := make([]float64, n)
			for i := range out {
				out[i] = weight(s, e, i)
			}
			return out
		}})
	var f *Figure
	figs, err := Paper(rep, PaperOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range figs {
		if strings.HasPrefix(figs[i].Name, "fig3a") {
			f = &figs[i]
		}
	}
	if f == nil {
		t.Fatal("no Fig. 3(a)")
	}
	path := writeSVG(t, *f)
	checkInside(t, path)
	var want [][]string
	for _, target := range []string{"mnist", "usps"} {
		var row []string
		i := 0 // the place of the source among the target's
		for _, d := range digitsDomains {
			if d == target {
				row = append(row, "target")
				continue
			}
			var sum float64
			for _, seed := range []uint64{0, 1, 3} {
				sum += weight(&experiment.Spec{Seed: seed, Target: target}, dataset.Digits.Schedule.Epochs, i)
			}
			row = append(row, strconv.FormatFloat(sum/3, 'f', 2, 64))
			i++
		}
		want = append(want, row)
	}
	byY := map[float64][]svgText{}
	for _, e := range readTexts(t, path) {
		if e.size == fmt.Sprintf("%dpx", cellFontSize) {
			byY[e.y] = append(byY[e.y], e)
		}
	}
	var got [][]string
	for _, y := range slices.Sorted(maps.Keys(byY)) { // from the top
		row := byY[y]
		slices.SortFunc(row, func(a, b svgText) int { return cmpFloat(a.x, b.x) })
		var s []string
		for _, e := range row {
			s = append(s, e.text)
		}
		got = append(got, s)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cells %q, want %q", got, want)
	}
	var ticks []string
	for _, e := range texts(t, path, "10px") {
		if _, err := strconv.ParseFloat(e, 64); err != nil {
			ticks = append(ticks, e)
		}
	}
	if want := append(slices.Clone(digitsDomains), "mnist", "usps"); !slices.Equal(ticks, want) {
		t.Errorf("the axes name %q, want the domains and the targets %q", ticks, want)
	}
}

// TestFigureAlphaPartialMarks: Fig. 5 draws the run of the lowest seed and marks
// in every source's panel exactly the classes its target dropped.
func TestFigureAlphaPartialMarks(t *testing.T) {
	drop := []int{1, 4, 5, 8, 9}
	rep := report(t,
		fakeRuns{dataset: "office-caltech", scenario: "partial", method: "wadn", targets: []string{"dslr"}, seeds: []uint64{3}, truth: dropClasses(0, 2)},
		fakeRuns{dataset: "office-caltech", scenario: "partial", method: "wadn", targets: []string{"dslr"}, seeds: []uint64{1}, truth: dropClasses(drop...)},
	)
	f, err := alphaPartial(rep, dataset.OfficeCaltech, PaperOptions{})
	if err != nil || f == nil {
		t.Fatalf("Fig. 5: %v, %v", f, err)
	}
	path := writeSVG(t, *f)
	checkTicks(t, path)
	if !strings.Contains(f.Title, "seed 1") || !strings.Contains(f.Caption, "(1, 4, 5, 8, 9)") {
		t.Errorf("title %q, caption %q: want seed 1 and its dropped classes", f.Title, f.Caption)
	}
	// Each mark is over the class whose tick label is nearest.
	var ticks, marks []svgText
	for _, e := range readTexts(t, path) {
		if e.text == droppedMark {
			marks = append(marks, e)
		} else if e.size == "10px" {
			ticks = append(ticks, e)
		}
	}
	classOf := func(m svgText) int {
		mid := m.x + 0.25*droppedFontSize // a mark is about half its size wide
		best, class := math.Inf(1), -1
		for _, tk := range ticks {
			if d := math.Abs(tk.x + 2.5*float64(len(tk.text)) - mid); d < best && tk.y > m.y && tk.y-m.y < 40 { // the x labels, under the marks
				best, class = d, int(value(tk))
			}
		}
		return class
	}
	var got []int
	for _, m := range marks {
		got = append(got, classOf(m))
	}
	slices.Sort(got)
	var want []int
	for _, c := range drop {
		want = append(want, c, c, c) // three sources
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("marks over classes %v, want %v", got, want)
	}
}
