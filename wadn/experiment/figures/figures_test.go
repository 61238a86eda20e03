package figures

import (
	"cmp"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"

	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/method"
)

// svgText is a text element of an SVG file: where it is, its size and what
// it says.
type svgText struct {
	x, y float64
	size string
	text string
}

// readTexts returns the text elements of the SVG file at path.
func readTexts(t *testing.T, path string) []svgText {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	var out []svgText
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "text" {
			continue
		}
		var e struct {
			X     float64 `xml:"x,attr"`
			Y     float64 `xml:"y,attr"`
			Style string  `xml:"style,attr"`
			Body  string  `xml:",chardata"`
		}
		if err := dec.DecodeElement(&e, &se); err != nil {
			t.Fatal(err)
		}
		size := ""
		for _, kv := range strings.Split(e.Style, ";") {
			if v, ok := strings.CutPrefix(kv, "font-size:"); ok {
				size = v
			}
		}
		out = append(out, svgText{e.X, e.Y, size, e.Body})
	}
	return out
}

// checkTicks checks the tick labels of the plots in an SVG file (its 10px
// texts): along each axis they are whole multiples of one round step (1, 2,
// 2.5 or 5 times a power of ten), each at the position its value gives (the
// positions affine in the values), and there are at least two. The panels
// may lie in rows (a grid).
func checkTicks(t *testing.T, path string) {
	t.Helper()
	checkTicksAt(t, path, nil)
}

// checkTicksAt is checkTicks, but with levels not nil the tick labels along
// every x axis are the values of levels, each at the position its value
// gives, whatever their step.
func checkTicksAt(t *testing.T, path string, levels []float64) {
	t.Helper()
	name := filepath.Base(path)
	byY := map[float64][]svgText{}
	for _, e := range readTexts(t, path) {
		if e.size != "10px" {
			continue
		}
		if _, err := strconv.ParseFloat(e.text, 64); err != nil {
			t.Errorf("%s: tick label %q is not a number", name, e.text)
			continue
		}
		byY[e.y] = append(byY[e.y], e)
	}
	// The y labels of a panel end at one x, right of which its axis is:
	// a column of labels ending at one x whose values are not all one is
	// of y labels (the x labels of panels one above the other end at one
	// x too, but each says the same).
	var all []svgText
	for _, row := range byY {
		all = append(all, row...)
	}
	style := text.Style{Font: font.From(plot.DefaultFont, vg.Points(10)), Handler: plot.DefaultTextHandler}
	end := func(e svgText) float64 { return e.x + float64(style.Width(e.text).Points()) }
	slices.SortFunc(all, func(a, b svgText) int { return cmpFloat(end(a), end(b)) })
	isY := map[svgText]bool{}
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && end(all[j])-end(all[j-1]) < 0.5 {
			j++
		}
		if slices.ContainsFunc(all[i:j], func(e svgText) bool { return value(e) != value(all[i]) }) {
			for _, e := range all[i:j] {
				isY[e] = true
			}
		}
		i = j
	}
	// A row of x labels holds every panel's of a row of panels: split where
	// the values start again.
	var xAxes [][]svgText
	var yLabels []svgText
	for _, row := range byY {
		var xs []svgText
		for _, e := range row {
			if isY[e] {
				yLabels = append(yLabels, e)
			} else {
				xs = append(xs, e)
			}
		}
		slices.SortFunc(xs, func(a, b svgText) int { return cmpFloat(a.x, b.x) })
		start := 0
		for i := 1; i <= len(xs); i++ {
			if i == len(xs) || value(xs[i]) <= value(xs[i-1]) {
				xAxes = append(xAxes, xs[start:i])
				start = i
			}
		}
	}
	// A row of panels lies above its x labels: a y label belongs to the
	// row of panels whose x labels are the first below it.
	var xRows []float64
	for _, a := range xAxes {
		if !slices.Contains(xRows, a[0].y) {
			xRows = append(xRows, a[0].y)
		}
	}
	band := func(e svgText) int {
		n := 0
		for _, y := range xRows {
			if y < e.y { // the SVG's y grows downwards
				n++
			}
		}
		return n
	}
	// The y labels of one panel lie within a few points of each other in x.
	slices.SortFunc(yLabels, func(a, b svgText) int { return cmp.Or(band(a)-band(b), cmpFloat(a.x, b.x)) })
	var yAxes [][]svgText
	for i, e := range yLabels {
		if i == 0 || band(e) != band(yLabels[i-1]) || e.x-yLabels[i-1].x > 40 {
			yAxes = append(yAxes, nil)
		}
		yAxes[len(yAxes)-1] = append(yAxes[len(yAxes)-1], e)
	}
	if len(xAxes) == 0 || len(yAxes) == 0 {
		t.Fatalf("%s: %d x axes and %d y axes of tick labels", name, len(xAxes), len(yAxes))
	}
	check := func(kind string, labels []svgText, pos func(svgText) float64, at []float64) {
		if len(labels) < 2 {
			t.Errorf("%s: a %s axis with %d tick labels", name, kind, len(labels))
			return
		}
		slices.SortFunc(labels, func(a, b svgText) int { return cmpFloat(pos(a), pos(b)) })
		if at != nil {
			var got []float64
			for _, l := range labels {
				got = append(got, value(l))
			}
			if !slices.Equal(got, at) {
				t.Errorf("%s: %s ticks at %v, want %v", name, kind, got, at)
				return
			}
			// Value and position move together.
			first, last := labels[0], labels[len(labels)-1]
			for _, l := range labels[1 : len(labels)-1] {
				want := pos(first) + (pos(last)-pos(first))*(value(l)-value(first))/(value(last)-value(first))
				if math.Abs(pos(l)-want) > 1 {
					t.Errorf("%s: %s tick %s at %.2f, its value puts it at %.2f", name, kind, l.text, pos(l), want)
				}
			}
			return
		}
		step := value(labels[1]) - value(labels[0])
		mant := step / math.Pow10(int(math.Floor(math.Log10(step))))
		round := false
		for _, m := range []float64{1, 2, 2.5, 5} {
			round = round || math.Abs(mant-m) < 1e-6
		}
		if !(step > 0) || !round {
			t.Errorf("%s: %s ticks step %v, not a round step", name, kind, step)
		}
		d0 := pos(labels[1]) - pos(labels[0])
		for i, l := range labels {
			if k := value(l) / step; math.Abs(k-math.Round(k)) > 1e-6 {
				t.Errorf("%s: %s tick %s is not a multiple of the step %v", name, kind, l.text, step)
			}
			// Value and position move together: the label is where its value is.
			if i > 0 {
				want := pos(labels[0]) + d0*(value(l)-value(labels[0]))/step
				if math.Abs(pos(l)-want) > 1 {
					t.Errorf("%s: %s tick %s at %.2f, its value puts it at %.2f", name, kind, l.text, pos(l), want)
				}
			}
		}
	}
	// An x label is centred on its tick: its middle, not its start, is the
	// position (the figures of a 10px label are about 5 points wide).
	for _, a := range xAxes {
		check("x", a, func(e svgText) float64 { return e.x + 2.5*float64(len(e.text)) }, levels)
	}
	for _, a := range yAxes {
		check("y", a, func(e svgText) float64 { return -e.y }, nil)
	}
}

func value(e svgText) float64 {
	v, _ := strconv.ParseFloat(e.text, 64)
	return v
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fakeRow writes three seeds of a run of method with 3 sources of 10
// classes over 12 epochs, alpha moving towards the true ratios and, when
// moving, lambda too, and returns the report.
func fakeRow(t *testing.T, methodName string, moving bool) *experiment.Report {
	t.Helper()
	dir := t.TempDir()
	p := &experiment.Plan{}
	for k, v := range map[string]string{"dataset": "digits", "target": "usps", "epochs": "12", "seeds": "0,1,2", "method": methodName} {
		if err := p.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	specs, err := p.Specs()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		truth := make([][]float64, 3)
		for src := range truth {
			truth[src] = make([]float64, 10)
			for k := range 10 {
				truth[src][k] = 0.6 + 0.1*float64(k%5) + 0.05*float64(src)
			}
		}
		if err := fakeRun(dir, s, 91.5+float64(s.Seed), truth, func(e int) method.EpochLog {
			l := method.EpochLog{Epoch: e, Accuracy: 60 + 2.5*float64(e) + float64(s.Seed), Lambda: []float64{0.2, 0.3, 0.5}}
			if moving {
				l.Lambda = []float64{0.2 + 0.01*float64(e), 0.3, 0.5 - 0.01*float64(e)}
			}
			for src := range 3 {
				a := make([]float64, 10)
				for k := range a {
					a[k] = 1 + (truth[src][k]-1)*float64(e)/12 + 0.01*float64(s.Seed)
				}
				l.Alpha = append(l.Alpha, a)
			}
			return l
		}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := experiment.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestFigures draws a Digits row (three sources of ten classes) and checks
// every file: ticks at round values and where their values fall, and every
// series in the legend.
func TestFigures(t *testing.T) {
	rep := fakeRow(t, "wadn", true)
	out := t.TempDir()
	if d := os.Getenv("FIGURES_OUT"); d != "" {
		out = d // to look at them
	}
	files, err := Write(out, rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("files %v, want accuracy, lambda and alpha", files)
	}
	for _, f := range files {
		checkTicks(t, f)
		b, _ := os.ReadFile(f)
		if !strings.Contains(string(b), "3 seeds") {
			t.Errorf("%s does not say it is over 3 seeds", filepath.Base(f))
		}
	}
	legend := func(path string) []string {
		var out []string
		for _, e := range readTexts(t, path) {
			if e.size == "12px" {
				out = append(out, e.text)
			}
		}
		return out
	}
	alpha := legend(files[2])
	for k := range 10 {
		for _, name := range []string{fmt.Sprintf("class %d", k), fmt.Sprintf("class %d, true", k)} {
			if !slices.Contains(alpha, name) {
				t.Errorf("the alpha legend lacks %q: %q", name, alpha)
			}
		}
	}
	for _, src := range []string{"source mnist", "source mnist_m", "source synthgen"} {
		if !slices.Contains(alpha, src) {
			t.Errorf("the alpha plot has no panel %q: %q", src, alpha)
		}
	}
	lambda := legend(files[1])
	for _, src := range []string{"mnist", "mnist_m", "synthgen"} {
		if !slices.Contains(lambda, src) {
			t.Errorf("the lambda legend lacks %q: %q", src, lambda)
		}
	}
}

// TestFiguresDrawnWhereMeaningful: a method that weighs no source and
// estimates no alpha (DANN) gets its accuracy plot alone, not flat lines at
// the sources' shares and the true ratios; the title is never clipped.
func TestFiguresDrawnWhereMeaningful(t *testing.T) {
	files, err := Write(t.TempDir(), fakeRow(t, "dann", false))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !strings.HasSuffix(files[0], "-accuracy.svg") {
		t.Fatalf("files %v, want the accuracy plot alone", files)
	}
	// A long title widens the canvas beyond its panel, with room for a
	// wider font than the one named.
	title := "WADN [c0 0.05, c2 0.5, lr 0.5, epochs 2, train-size 200, test-size 100, hidden 32,16,8] uda, amazon, target kitchen\n" +
		"target accuracy, mean and range over 5 seeds"
	name := filepath.Join(t.TempDir(), "long.svg")
	if err := save(name, title, []*plot.Plot{newPlot("", "epoch", "accuracy")}, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	attr := strings.SplitN(strings.SplitN(string(b), `width="`, 2)[1], `"`, 2)[0]
	width, err := strconv.ParseFloat(strings.TrimSuffix(attr, "pt"), 64)
	if err != nil {
		t.Fatal(err)
	}
	if need := 1.2 * float64(plot.New().Title.TextStyle.Width(title)); width < need {
		t.Errorf("canvas %vpt wide for a title %vpt wide", width, need)
	}
}

func TestRoundTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 1, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{0.33311, 0.3342, []string{"0.33325", "0.33350", "0.33375", "0.33400"}},
		{0.7, 1.53, []string{"0.8", "1.0", "1.2", "1.4"}},
		{0, 2.4, []string{"0.0", "0.5", "1.0", "1.5", "2.0"}},
		{0.3, 1.5, []string{"0.50", "0.75", "1.00", "1.25", "1.50"}},
		{0.3, 1.6, []string{"0.5", "1.0", "1.5"}},
		{58, 92, []string{"60", "70", "80", "90"}},
		{-3, 7, []string{"-2", "0", "2", "4", "6"}},
	} {
		var got []string
		for _, tk := range roundTicks(tc.lo, tc.hi) {
			got = append(got, tk.Label)
			if v, _ := strconv.ParseFloat(tk.Label, 64); math.Abs(v-tk.Value) > 1e-12 {
				t.Errorf("[%v, %v]: tick at %v labelled %q", tc.lo, tc.hi, tk.Value, tk.Label)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("roundTicks(%v, %v) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{{1, 2, []string{"1", "2"}}, {1, 12, []string{"2", "4", "6", "8", "10", "12"}}, {1, 60, []string{"10", "20", "30", "40", "50", "60"}}} {
		var got []string
		for _, tk := range epochTicks(tc.lo, tc.hi) {
			got = append(got, tk.Label)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("epochTicks(%v, %v) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// fakeRun writes a finished run of s under dir without training: its
// record, a result of accuracy acc with the true ratios truth, and an epoch
// log of s's epochs made by line.
func fakeRun(dir string, s *experiment.Spec, acc float64, truth [][]float64, line func(epoch int) method.EpochLog) error {
	id := &experiment.Identity{Dataset: s.Dataset.Name, Target: s.Target, Scenario: s.Scenario.String(), Method: s.Method.Name,
		Seed: s.Seed, Settings: settings.Map(s.Fields()), Data: map[string]string{"usps": "x"}}
	for _, d := range s.Dataset.Loaded {
		if d != s.Target {
			id.Sources = append(id.Sources, d)
		}
	}
	run := filepath.Join(dir, id.Name())
	if err := os.MkdirAll(run, 0o755); err != nil {
		return err
	}
	files := map[string]any{
		experiment.RunFile:    &experiment.Record{Version: experiment.RecordVersion, Key: id.Key(), Identity: id},
		experiment.ResultFile: &experiment.RunResult{Accuracy: acc, TrueAlpha: truth, Epochs: s.Train.Epochs},
	}
	for name, v := range files {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(run, name), b, 0o644); err != nil {
			return err
		}
	}
	var log []byte
	for e := 1; e <= s.Train.Epochs; e++ {
		l := line(e)
		if e == s.Train.Epochs {
			l.Accuracy = acc // as the result says (wadn report checks it)
		}
		b, err := json.Marshal(l)
		if err != nil {
			return err
		}
		log = append(append(log, b...), '\n')
	}
	return os.WriteFile(filepath.Join(run, "epochs.jsonl"), log, 0o644)
}

// TestAccuracy checks the accuracy panel of several rows: every row's name
// in the legend, round ticks, and nothing drawn without an epoch log.
func TestAccuracy(t *testing.T) {
	rows := []*experiment.Row{fakeRow(t, "wadn", true).Rows[0], fakeRow(t, "dann", false).Rows[0]}
	svg, ok, err := Accuracy("uda, digits, target usps", rows)
	if err != nil || !ok {
		t.Fatalf("Accuracy: %v, %v", ok, err)
	}
	name := filepath.Join(t.TempDir(), "accuracy.svg")
	if err := os.WriteFile(name, svg, 0o644); err != nil {
		t.Fatal(err)
	}
	checkTicks(t, name)
	var legend []string
	for _, e := range readTexts(t, name) {
		if e.size == "12px" {
			legend = append(legend, e.text)
		}
	}
	for _, r := range rows {
		if !slices.Contains(legend, r.Name()) {
			t.Errorf("legend %q lacks %q", legend, r.Name())
		}
	}
	if _, ok, err := Accuracy("none", nil); ok || err != nil {
		t.Errorf("no rows: ok %v, %v", ok, err)
	}
}
