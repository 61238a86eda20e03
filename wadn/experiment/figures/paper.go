package figures

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/experiment"
)

// PaperOptions are what Paper needs beside the runs.
type PaperOptions struct {
	// DataDir is the data directory Fig. 2 loads the data sets that are not
	// embedded in the binary from (Digits); "" draws Fig. 2 for the
	// embedded ones alone (Amazon).
	DataDir string
}

// paperFigure draws one of the paper's figures for one data set from a
// report's runs; nil when the report lacks the runs it needs.
type paperFigure func(rep *experiment.Report, ds *dataset.Dataset, opt PaperOptions) (*Figure, error)

// Paper draws every figure of the paper that the runs of rep allow, in a
// fixed order: Fig. 2, 3(a), 3(b), 4(a), 4(b), 4(c), 5 and the appendix's
// alpha over the epochs, each for the data sets in the order of
// dataset.All. A figure whose runs rep lacks is left out. The figures of
// one data set, scenario and method read the runs at every default setting
// (the rows of label ""); the ablations of Fig. 4 read the runs whose only
// changed setting is the one ablated, each at the value its settings hold
// (Spec.Values), so that the runs at the default join the others.
func Paper(rep *experiment.Report, opt PaperOptions) ([]Figure, error) {
	draws := []paperFigure{labelShift, lambdaMatrix, lambdaEpochs}
	for _, a := range ablations {
		draws = append(draws, a.figure)
	}
	draws = append(draws, alphaPartial, alphaEpochs)
	var out []Figure
	for _, f := range draws {
		for _, ds := range dataset.All {
			fig, err := f(rep, ds, opt)
			if err != nil {
				return out, err
			}
			if fig != nil {
				out = append(out, *fig)
			}
		}
	}
	return out, nil
}

// defaultRows returns the rows of rep of the data set, scenario and method
// at every default setting that hold runs, their targets in the order of
// the data set's domains.
func defaultRows(rep *experiment.Report, ds *dataset.Dataset, sc data.Scenario, method string) []*experiment.Row {
	var out []*experiment.Row
	for _, r := range rep.Rows {
		if r.Dataset == ds.Name && r.Scenario == sc.String() && r.Method == method && r.Label == "" && len(r.Runs()) > 0 {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b *experiment.Row) int {
		return cmp.Compare(domainIndex(ds, a.Target), domainIndex(ds, b.Target))
	})
	return out
}

// domainIndex returns the place of the domain among the data set's, after
// them all when it has none of that name.
func domainIndex(ds *dataset.Dataset, name string) int {
	if i := slices.Index(ds.Domains, name); i >= 0 {
		return i
	}
	return len(ds.Domains)
}

// shown returns the row of the data set's default target among rows, else
// the first; nil for no rows.
func shown(ds *dataset.Dataset, rows []*experiment.Row) *experiment.Row {
	for _, r := range rows {
		if r.Target == ds.Target {
			return r
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}

// firstRun returns the row's run of the lowest seed.
func firstRun(row *experiment.Row) *experiment.Finished {
	return slices.MinFunc(row.Runs(), func(a, b *experiment.Finished) int { return cmp.Compare(a.Spec.Seed, b.Spec.Seed) })
}

// methodTitle returns the paper's name of the method in scenario sc.
func methodTitle(name string, sc data.Scenario) string {
	if m, err := experiment.Methods.Lookup(name, sc); err == nil {
		return m.Title(sc)
	}
	return name
}

// methodColour returns the colour of a method in every figure, by its place
// among experiment.Methods; dashed tells a method beyond the palette's
// colours, drawn dashed.
func methodColour(name string) (col color.RGBA, dashed bool) {
	i := max(slices.Index(experiment.Methods.Names(), name), 0)
	return palette[i%len(palette)], i >= len(palette)
}

// domainColour returns the colour of a domain of ds in every figure, by its
// place among the data set's domains.
func domainColour(ds *dataset.Dataset, name string) color.RGBA {
	return palette[domainIndex(ds, name)%len(palette)]
}

// domainDashes returns the dashes of a domain's line in every figure where
// lines of several domains may lie on one another: solid for the data set's
// first domain, dashed differently for the others, so that a line drawn
// over another lets it show.
func domainDashes(ds *dataset.Dataset, name string) []vg.Length {
	patterns := [][]float64{nil, {7, 3}, {2, 2}, {8, 2, 2, 2}, {4, 4}, {1, 3}}
	var out []vg.Length
	for _, v := range patterns[domainIndex(ds, name)%len(patterns)] {
		out = append(out, vg.Points(v))
	}
	return out
}

// seedCount says how many seeds the counts are: "1 seed", "3 seeds", or
// "3 to 5 seeds".
func seedCount(counts []int) string {
	lo, hi := slices.Min(counts), slices.Max(counts)
	switch {
	case lo != hi:
		return fmt.Sprintf("%d to %d seeds", lo, hi)
	case lo == 1:
		return "1 seed"
	}
	return fmt.Sprintf("%d seeds", lo)
}

// classTicks returns a tick at every class of k, or, for more than twelve,
// at round steps of classes.
func classTicks(k int) plot.Ticker {
	step := 1
	if k > 12 {
		step = int(roundStep(float64(k) / 10))
	}
	var ticks []plot.Tick
	for c := 0; c < k; c += step {
		ticks = append(ticks, plot.Tick{Value: float64(c), Label: strconv.Itoa(c)})
	}
	return plot.ConstantTicks(ticks)
}

// joinInts returns the numbers separated by commas.
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// classWord returns "class" for one class, "classes" for more.
func classWord(n int) string {
	if n == 1 {
		return "class"
	}
	return "classes"
}

// shareOf returns the share of each of k classes among the labels y.
func shareOf(y []int, k int) plotter.Values {
	out := make(plotter.Values, k)
	for _, c := range y {
		out[c]++
	}
	for c := range out {
		out[c] /= float64(max(len(y), 1))
	}
	return out
}

// labelShift draws Fig. 2 for a data set whose protocol shifts its sources:
// the task of one of its default UDA runs (of the default target when
// there is one, at its lowest seed) is drawn again from its data, with and
// without the drop, and a panel per domain shows the share of each class
// among the rows drawn and among those the drop leaves.
func labelShift(rep *experiment.Report, ds *dataset.Dataset, opt PaperOptions) (*Figure, error) {
	if !ds.Embedded && opt.DataDir == "" {
		return nil, nil
	}
	// The task depends on the data settings, the target and the seed
	// alone: any method's runs will do.
	var rows []*experiment.Row
	for _, m := range experiment.Methods.Names() {
		rows = append(rows, defaultRows(rep, ds, data.UDA, m)...)
	}
	row := shown(ds, rows)
	if row == nil {
		return nil, nil
	}
	run := firstRun(row)
	s := run.Spec
	p := s.Dataset.Protocol(s.Scenario, s.Data)
	if len(p.DropClasses) == 0 || p.DropRate == 0 {
		return nil, nil
	}
	dir, from := opt.DataDir, opt.DataDir
	if ds.Embedded {
		dir, from = "", "the copy in the binary"
	}
	id := run.Record.Identity
	names := append([]string{s.Target}, id.Sources...)
	loaded, err := s.Dataset.Load(s.Data, dir, names, data.LoadOptions{AllowUnverified: len(id.Unverified) > 0})
	if err != nil {
		return nil, fmt.Errorf("fig. 2: %w", err)
	}
	var domains []data.Domain
	for _, d := range loaded {
		if !slices.Contains(names, d.Name) {
			continue
		}
		if want := id.Data[d.Name]; d.Checksum() != want {
			return nil, fmt.Errorf("fig. 2: the %s data of %s are not those the run in %s trained on (give the data directory it trained on)", d.Name, from, run.Dir)
		}
		domains = append(domains, d)
	}
	after, err := p.BuildFor(domains, s.Target, s.Seed)
	if err != nil {
		return nil, fmt.Errorf("fig. 2: %w", err)
	}
	shift := strconv.FormatFloat(p.DropRate, 'g', -1, 64)
	p.DropRate = 0
	before, err := p.BuildFor(domains, s.Target, s.Seed)
	if err != nil {
		return nil, fmt.Errorf("fig. 2: %w", err)
	}
	k := after.NumClasses
	const w = 9 * vg.Centimeter // a panel's width
	barW := (w - 2.5*vg.Centimeter) / vg.Length(k) * 0.38
	var plots []*plot.Plot
	var legend []legendEntry
	top := 0.0
	bars := func(p *plot.Plot, v plotter.Values, col color.Color, offset vg.Length, name string) error {
		top = max(top, slices.Max(v))
		b, err := plotter.NewBarChart(v, barW)
		if err != nil {
			return err
		}
		b.Color, b.LineStyle.Width, b.Offset = col, 0, offset
		p.Add(b)
		if !slices.ContainsFunc(legend, func(e legendEntry) bool { return e.name == name }) {
			legend = append(legend, legendEntry{name, b})
		}
		return nil
	}
	const (
		drawnName  = "rows drawn"
		thinName   = "a source's rows after the drop"
		targetName = "the target's rows (never dropped)"
	)
	for _, name := range ds.Domains {
		var err error
		p := newPlot("", "class", "share of the rows")
		p.X.Tick.Marker = classTicks(k)
		p.X.Min, p.X.Max, p.Y.Min = -0.5, float64(k)-0.5, 0
		if i := slices.IndexFunc(after.Sources, func(s data.Subset) bool { return s.Domain == name }); i >= 0 {
			drawn, kept := before.Sources[i].Y, after.Sources[i].Y
			p.Title.Text = fmt.Sprintf("source %s\n%d rows drawn, %d after the drop", name, len(drawn), len(kept))
			if err = bars(p, shareOf(drawn, k), palette[7], -barW/2, drawnName); err == nil {
				err = bars(p, shareOf(kept, k), palette[0], barW/2, thinName)
			}
		} else if name == after.Target {
			y := after.TargetTrain.Y
			p.Title.Text = fmt.Sprintf("target %s\n%d rows drawn", name, len(y))
			err = bars(p, shareOf(y, k), palette[1], 0, targetName)
		} else {
			continue
		}
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	for _, p := range plots {
		p.Y.Max = 1.05 * top // one scale for every domain
	}
	order := map[string]int{drawnName: 0, thinName: 1, targetName: 2}
	slices.SortFunc(legend, func(a, b legendEntry) int { return cmp.Compare(order[a.name], order[b.name]) })
	title := fmt.Sprintf("Fig. 2: the label distributions of %s before and after the shift\n"+
		"the task of target %s, seed %d: shift %s, that share of the rows of %s %s dropped from every source",
		ds.Name, s.Target, s.Seed, shift, classWord(len(p.DropClasses)), joinInts(p.DropClasses))
	caption := fmt.Sprintf("The share of each class among the rows drawn from every domain of %s for the task of target %s at seed %d, "+
		"and among each source's rows after the shift dropped %s of those of %s %s; the target keeps all its rows.",
		ds.Name, s.Target, s.Seed, shift, classWord(len(p.DropClasses)), joinInts(p.DropClasses))
	f, err := layout{title: title, panels: [][]*plot.Plot{plots}, legend: legend, panelW: w}.drawing().figure("fig2-label-shift-"+ds.Name, title, caption)
	return &f, err
}

// finalLambda returns the run's final source weights: those of its last
// epoch, or of its result.
func finalLambda(r *experiment.Finished) []float64 {
	if n := len(r.History); n > 0 && r.History[n-1].Lambda != nil {
		return r.History[n-1].Lambda
	}
	return r.Result.Lambda
}

// lambdaMatrix draws Fig. 3(a) for a data set with default UDA runs of
// WADN: a row per target, a column per domain, each cell the final weight
// lambda of that domain as a source, the mean over the seeds, written in
// the cell; the target's own cell is marked "target".
func lambdaMatrix(rep *experiment.Report, ds *dataset.Dataset, _ PaperOptions) (*Figure, error) {
	rows := defaultRows(rep, ds, data.UDA, "wadn")
	var means []map[string]float64
	var targets, domains []string
	var seeds []int
	for _, row := range rows {
		sum, n := map[string]float64{}, map[string]int{}
		for _, r := range row.Runs() {
			l := finalLambda(r)
			for t, src := range r.Record.Identity.Sources {
				if t < len(l) {
					sum[src] += l[t]
					n[src]++
				}
			}
		}
		if len(sum) == 0 {
			continue
		}
		m := map[string]float64{}
		for src, s := range sum {
			m[src] = s / float64(n[src])
			if !slices.Contains(domains, src) {
				domains = append(domains, src)
			}
		}
		means = append(means, m)
		targets = append(targets, row.Target)
		seeds = append(seeds, len(row.Runs()))
		if !slices.Contains(domains, row.Target) {
			domains = append(domains, row.Target)
		}
	}
	if len(targets) == 0 {
		return nil, nil
	}
	slices.SortFunc(domains, func(a, b string) int { return cmp.Compare(domainIndex(ds, a), domainIndex(ds, b)) })
	// The first target at the top.
	g := cells{v: make([][]float64, len(targets))}
	for i, m := range means {
		r := len(targets) - 1 - i
		g.v[r] = make([]float64, len(domains))
		for c, d := range domains {
			v, ok := m[d]
			if !ok {
				v = math.NaN()
			}
			g.v[r][c] = v
		}
	}
	top := 0.0
	for _, row := range g.v {
		for _, v := range row {
			if !math.IsNaN(v) {
				top = max(top, v)
			}
		}
	}
	// From 0 to the tenth at or above the largest weight.
	cm := sequential(0, max(math.Ceil(top*10-1e-9)/10, 0.1))
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = "source domain", "target domain"
	var xt, yt []plot.Tick
	for c, d := range domains {
		xt = append(xt, plot.Tick{Value: float64(c), Label: d})
	}
	for i, t := range targets {
		yt = append(yt, plot.Tick{Value: float64(len(targets) - 1 - i), Label: t})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
	p.Add(&heat{g: g, m: cm})
	labels, err := cellLabels(g, cm, func(c, r int) string {
		switch v := g.v[r][c]; {
		case domains[c] == targets[len(targets)-1-r]:
			return "target"
		case math.IsNaN(v):
			return ""
		default:
			return strconv.FormatFloat(v, 'f', 2, 64)
		}
	})
	if err != nil {
		return nil, err
	}
	p.Add(labels)
	title := fmt.Sprintf("Fig. 3(a): the final source weights lambda of WADN, %s uda\n"+
		"a row per target; each cell the weight of its column's domain as a source, mean over %s", ds.Name, seedCount(seeds))
	caption := fmt.Sprintf("WADN's final weight lambda of every source domain (column) for every target (row) of %s in UDA, "+
		"the mean over %s; the target's own cell is marked.", ds.Name, seedCount(seeds))
	l := layout{title: title, panels: [][]*plot.Plot{{p}}, bar: colourBar(cm, "lambda"),
		panelW: 2.4*vg.Centimeter*vg.Length(len(domains)) + 3.5*vg.Centimeter,
		panelH: 1.6*vg.Centimeter*vg.Length(len(targets)) + 3*vg.Centimeter}
	f, err := l.drawing().figure("fig3a-lambda-matrix-"+ds.Name, title, caption)
	return &f, err
}

// lambdaMethods are the methods whose weights Fig. 3(b) draws side by side.
var lambdaMethods = []string{"wadn", "darn"}

// lambdaEpochs draws Fig. 3(b) for a data set with default UDA runs of WADN
// or DARN: a row of panels per target, a panel per method, in each the
// weight lambda of every source over the epochs, the mean over the seeds
// with a band from the lowest to the highest seed.
func lambdaEpochs(rep *experiment.Report, ds *dataset.Dataset, _ PaperOptions) (*Figure, error) {
	byTarget := map[string]map[string]*experiment.Row{}
	var targets, methods []string
	for _, m := range lambdaMethods {
		for _, row := range defaultRows(rep, ds, data.UDA, m) {
			if byTarget[row.Target] == nil {
				byTarget[row.Target] = map[string]*experiment.Row{}
				targets = append(targets, row.Target)
			}
			byTarget[row.Target][m] = row
			if !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
	}
	slices.SortFunc(targets, func(a, b string) int { return cmp.Compare(domainIndex(ds, a), domainIndex(ds, b)) })
	var grid [][]*plot.Plot
	var legend []legendEntry
	var seeds []int
	for _, t := range targets {
		var line []*plot.Plot
		drawn := false
		for _, m := range methods {
			row := byTarget[t][m]
			if row == nil {
				line = append(line, nil)
				continue
			}
			runs, err := histories(row)
			if err != nil {
				return nil, err
			}
			if len(runs) == 0 {
				line = append(line, nil)
				continue
			}
			var bands []band
			for i, src := range runs[0].sources {
				b, ok := seriesOf(runs, func(r seedRun, e int) (float64, bool) {
					if i >= len(r.sources) || r.sources[i] != src || i >= len(r.hist[e].Lambda) {
						return 0, false
					}
					return r.hist[e].Lambda[i], true
				})
				if ok {
					b.name, b.col, b.dashes = src, domainColour(ds, src), domainDashes(ds, src)
					bands = append(bands, b)
				}
			}
			if len(bands) == 0 {
				line = append(line, nil)
				continue
			}
			p := newPlot(fmt.Sprintf("target %s: %s", t, methodTitle(m, data.UDA)), "epoch", "lambda (source weight)")
			p.Y.Min, p.Y.Max = 0, 1
			entries, err := addBands(p, bands)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if !slices.ContainsFunc(legend, func(l legendEntry) bool { return l.name == e.name }) {
					legend = append(legend, e)
				}
			}
			line = append(line, p)
			seeds = append(seeds, len(runs))
			drawn = true
		}
		if drawn {
			grid = append(grid, line)
		}
	}
	if len(grid) == 0 {
		return nil, nil
	}
	slices.SortFunc(legend, func(a, b legendEntry) int { return cmp.Compare(domainIndex(ds, a.name), domainIndex(ds, b.name)) })
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = methodTitle(m, data.UDA)
	}
	title := fmt.Sprintf("Fig. 3(b): the source weights lambda over the epochs, %s, %s uda\n"+
		"a row per target; mean over %s, band from the lowest to the highest seed", strings.Join(names, " beside "), ds.Name, seedCount(seeds))
	caption := fmt.Sprintf("The weight lambda of every source over the epochs of %s in UDA on %s, a row of panels per target, "+
		"the mean over %s with a band from the lowest to the highest seed.", strings.Join(names, " and "), ds.Name, seedCount(seeds))
	l := layout{title: title, panels: grid, legend: legend, panelW: 10 * vg.Centimeter, panelH: 7 * vg.Centimeter}
	f, err := l.drawing().figure("fig3b-lambda-epochs-"+ds.Name, title, caption)
	return &f, err
}
