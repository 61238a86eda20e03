package figures

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/experiment"
)

// droppedMark is the text Fig. 5 writes at the foot of a class the target
// dropped, in droppedFontSize points: apart from the tick labels' 10.
const (
	droppedMark     = "×"
	droppedFontSize = 11
)

// finalAlpha returns the run's final alpha: its result's, or its last
// epoch's.
func finalAlpha(r *experiment.Finished) [][]float64 {
	if r.Result.Alpha != nil {
		return r.Result.Alpha
	}
	if n := len(r.History); n > 0 {
		return r.History[n-1].Alpha
	}
	return nil
}

// alphaPartial draws Fig. 5 for a data set with default partial runs of
// WADN: for one run (of the default target when there is one, at its
// lowest seed: each seed draws its own kept classes), a panel per source
// with a bar per class of the final alpha beside the true ratio, the
// classes the target dropped (true ratio 0) shaded and marked droppedMark.
func alphaPartial(rep *experiment.Report, ds *dataset.Dataset, _ PaperOptions) (*Figure, error) {
	row := shown(ds, defaultRows(rep, ds, data.Partial, "wadn"))
	if row == nil {
		return nil, nil
	}
	run := firstRun(row)
	alpha, truth := finalAlpha(run), run.Result.TrueAlpha
	sources := run.Record.Identity.Sources
	if len(alpha) == 0 || len(alpha) != len(truth) || len(sources) != len(alpha) {
		return nil, nil
	}
	k := len(truth[0])
	top := 0.0
	for t := range truth {
		if len(alpha[t]) != k || len(truth[t]) != k {
			return nil, fmt.Errorf("fig. 5: the run in %s has alpha of %d classes and true ratios of %d for source %s", run.Dir, len(alpha[t]), len(truth[t]), sources[t])
		}
		top = max(top, slices.Max(alpha[t]), slices.Max(truth[t]))
	}
	top *= 1.08 // room for the marks over the bars
	barW := (panelW - 2.5*vg.Centimeter) / vg.Length(k) * 0.38
	var plots []*plot.Plot
	var legend []legendEntry
	var dropped []int
	for t, src := range sources {
		p := newPlot("source "+src, "class", "alpha(y) = T(y) / S(y)")
		p.X.Tick.Marker = classTicks(k)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -0.5, float64(k)-0.5, 0, top
		var marks plotter.XYLabels
		var shade *plotter.Polygon
		for c := range k {
			if truth[t][c] != 0 {
				continue
			}
			if t == 0 {
				dropped = append(dropped, c)
			}
			x0, x1 := float64(c)-0.5, float64(c)+0.5
			pg, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: top}, {X: x0, Y: top}})
			if err != nil {
				return nil, err
			}
			pg.Color, pg.LineStyle.Width = noValue, 0
			p.Add(pg)
			shade = pg
			marks.XYs = append(marks.XYs, plotter.XY{X: float64(c), Y: 0})
			marks.Labels = append(marks.Labels, droppedMark)
		}
		p.Add(plotter.NewGrid()) // over the shading
		var entries []legendEntry
		for _, b := range []struct {
			v      []float64
			col    int
			offset vg.Length
			name   string
		}{{alpha[t], 0, -barW / 2, "alpha estimated by WADN (last epoch)"}, {truth[t], 1, barW / 2, "true ratio"}} {
			bc, err := plotter.NewBarChart(plotter.Values(b.v), barW)
			if err != nil {
				return nil, err
			}
			bc.Color, bc.LineStyle.Width, bc.Offset = palette[b.col], 0, b.offset
			p.Add(bc)
			entries = append(entries, legendEntry{b.name, bc})
		}
		if shade != nil {
			entries = append(entries, legendEntry{"a class the target dropped (true ratio 0)", shade})
			l, err := plotter.NewLabels(marks)
			if err != nil {
				return nil, err
			}
			for i := range l.TextStyle {
				l.TextStyle[i].Font.Size = vg.Points(droppedFontSize)
				l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = draw.XCenter, draw.YBottom
			}
			p.Add(l)
		}
		if len(entries) > len(legend) {
			legend = entries
		}
		plots = append(plots, p)
	}
	s := run.Spec
	title := fmt.Sprintf("Fig. 5: the label ratios alpha estimated by WADN beside the true ones, %s partial\n"+
		"target %s, seed %d (it keeps %s classes), a panel per source; %s: a class the target dropped",
		ds.Name, s.Target, s.Seed, s.Values()["keep-classes"], droppedMark)
	caption := fmt.Sprintf("WADN's final estimate of alpha(y) = T(y)/S(y) for every source and class beside the true ratio in partial UDA on %s, "+
		"target %s at seed %d, the %d classes the target dropped (%s) shaded and marked.",
		ds.Name, s.Target, s.Seed, len(dropped), joinInts(dropped))
	f, err := layout{title: title, panels: [][]*plot.Plot{plots}, legend: legend}.drawing().figure("fig5-alpha-partial-"+ds.Name, title, caption)
	return &f, err
}

// alphaEpochs draws the appendix's alpha over the epochs for a data set
// with default UDA runs of WADN: for one target (the default one when it
// has runs), a heat map per source of alpha(y) by class and epoch, the mean
// over the seeds, and at its right, apart, the true ratios (the mean over
// the seeds' samples).
func alphaEpochs(rep *experiment.Report, ds *dataset.Dataset, _ PaperOptions) (*Figure, error) {
	row := shown(ds, defaultRows(rep, ds, data.UDA, "wadn"))
	if row == nil {
		return nil, nil
	}
	runs, err := histories(row)
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	runs = slices.DeleteFunc(runs, func(r seedRun) bool { return !slices.Equal(r.sources, runs[0].sources) })
	epochs := len(runs[0].hist)
	for _, r := range runs {
		epochs = min(epochs, len(r.hist))
	}
	if epochs == 0 || len(runs[0].hist[0].Alpha) == 0 {
		return nil, nil
	}
	k := len(runs[0].hist[0].Alpha[0])
	// Each source's grid: the epochs, a column apart, and three columns
	// of the true ratios.
	const gap, truthCols = 1, 3
	grids := make([]cells, len(runs[0].sources))
	top := 1.0
	for t := range grids {
		g := cells{v: make([][]float64, k), x0: 1}
		for c := range k {
			g.v[c] = make([]float64, epochs+gap+truthCols)
			for e := range epochs {
				var s float64
				for _, r := range runs {
					if t >= len(r.hist[e].Alpha) || c >= len(r.hist[e].Alpha[t]) {
						return nil, fmt.Errorf("appendix figure: a run of %s %s has no alpha of class %d for source %d at epoch %d", row.Name(), row.Target, c, t, e+1)
					}
					s += r.hist[e].Alpha[t][c]
				}
				g.v[c][e] = s / float64(len(runs))
				top = max(top, g.v[c][e])
			}
			truth, ok := meanTruth(runs, t, c)
			if !ok {
				truth = math.NaN()
			} else {
				top = max(top, truth)
			}
			g.v[c][epochs] = math.NaN()
			for i := range truthCols {
				g.v[c][epochs+gap+i] = truth
			}
		}
		grids[t] = g
	}
	cm := diverging(0, 1, top*1.0001)
	var plots []*plot.Plot
	for t, src := range runs[0].sources {
		p := plot.New()
		p.Title.Text = "source " + src
		p.X.Label.Text, p.Y.Label.Text = "epoch", "class"
		p.X.Tick.Marker = plot.TickerFunc(func(float64, float64) []plot.Tick { return epochTicks(1, float64(epochs)) })
		p.Y.Tick.Marker = classTicks(k)
		p.Add(&heat{g: grids[t], m: cm, blank: true}) // the gap stays blank
		mark := plotter.XYLabels{XYs: plotter.XYs{{X: float64(epochs + gap + truthCols/2 + 1), Y: float64(k) - 0.5}}, Labels: []string{"true"}}
		l, err := plotter.NewLabels(mark)
		if err != nil {
			return nil, err
		}
		l.TextStyle[0].Font.Size = vg.Points(cellFontSize)
		l.TextStyle[0].XAlign, l.TextStyle[0].YAlign = draw.XCenter, draw.YBottom
		p.Add(l)
		plots = append(plots, p)
	}
	title := fmt.Sprintf("Appendix: the label ratios alpha of WADN over the epochs, %s uda, target %s\n"+
		"per source, alpha(y) = T(y) / S(y) by class and epoch, the mean over %s; at the right, apart, the true ratios",
		ds.Name, row.Target, seedCount([]int{len(runs)}))
	caption := fmt.Sprintf("WADN's estimate of alpha(y) for every source, class and epoch in UDA on %s, target %s, the mean over %s, "+
		"beside the true ratios (white: 1, blue: below, red: above).", ds.Name, row.Target, seedCount([]int{len(runs)}))
	l := layout{title: title, panels: [][]*plot.Plot{plots}, bar: colourBar(cm, "alpha"),
		panelH: vg.Length(k)*0.55*vg.Centimeter + 3.5*vg.Centimeter}
	f, err := l.drawing().figure("figA-alpha-epochs-"+ds.Name, title, caption)
	return &f, err
}
