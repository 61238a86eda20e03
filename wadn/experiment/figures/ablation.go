package figures

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/experiment"
)

// ablation is a setting whose value Fig. 4 varies: the target accuracy
// against the setting's value, in one scenario.
type ablation struct {
	name     string // the file name's start: "fig4a"
	title    string // "Fig. 4(a)"
	setting  string
	scenario data.Scenario
	what     string // what the setting's value is, for the caption
}

// ablations are the paper's Fig. 4(a), (b) and (c).
var ablations = []ablation{
	{"fig4a", "Fig. 4(a)", "shift", data.UDA, "the share of the shifted classes' rows dropped from every source"},
	{"fig4b", "Fig. 4(b)", "label-fraction", data.Limited, "the share of the target's training rows that are labelled"},
	{"fig4c", "Fig. 4(c)", "keep-classes", data.Partial, "the number of classes the target keeps"},
}

// accuracies are a method's final target accuracies on one target: by the
// setting's value, by seed.
type accuracies map[float64]map[uint64]float64

// level returns the value of a's setting in run r of row: ok is false when
// the run changes another setting from its default, or its row's label
// says more than that setting (chosen sources, a numerics mode, data of
// its own).
func (a ablation) level(row *experiment.Row, r *experiment.Finished) (float64, bool) {
	s := r.Spec
	want := ""
	switch ch := s.Changes(); {
	case len(ch) > 1:
		return 0, false
	case len(ch) == 1:
		if ch[0].Name != a.setting {
			return 0, false
		}
		want = ch[0].Name + " " + ch[0].Now
	}
	if row.Label != want || s.Label() != want {
		return 0, false
	}
	v, err := strconv.ParseFloat(s.Values()[a.setting], 64)
	return v, err == nil
}

// collect returns the accuracies of the runs of ds in a's scenario that
// differ from the defaults in a's setting alone, or in none, by method and
// target.
func (a ablation) collect(rep *experiment.Report, ds *dataset.Dataset) map[string]map[string]accuracies {
	out := map[string]map[string]accuracies{}
	for _, row := range rep.Rows {
		if row.Dataset != ds.Name || row.Scenario != a.scenario.String() {
			continue
		}
		for _, r := range row.Runs() {
			v, ok := a.level(row, r)
			if !ok {
				continue
			}
			if out[row.Method] == nil {
				out[row.Method] = map[string]accuracies{}
			}
			acc := out[row.Method][row.Target]
			if acc == nil {
				acc = accuracies{}
				out[row.Method][row.Target] = acc
			}
			if acc[v] == nil {
				acc[v] = map[uint64]float64{}
			}
			acc[v][r.Spec.Seed] = r.Result.Accuracy
		}
	}
	return out
}

// seedsOf returns, for each value of acc, the seeds its point is the mean
// of: the seeds every value has, or, when they share none, each value's
// own.
func seedsOf(acc accuracies) map[float64][]uint64 {
	var common []uint64
	for i, v := range slices.Sorted(maps.Keys(acc)) {
		seeds := slices.Sorted(maps.Keys(acc[v]))
		if i == 0 {
			common = seeds
			continue
		}
		common = slices.DeleteFunc(common, func(s uint64) bool { return !slices.Contains(seeds, s) })
	}
	out := map[float64][]uint64{}
	for v, bySeed := range acc {
		out[v] = common
		if len(common) == 0 {
			out[v] = slices.Sorted(maps.Keys(bySeed))
		}
	}
	return out
}

// levelBand returns the band of the values at the levels xs: the mean of
// vals(x) and its lowest and highest.
func levelBand(xs []float64, vals func(x float64) []float64) band {
	b := band{x: xs, points: true}
	for _, x := range xs {
		b.push(vals(x))
	}
	return b
}

// levelTicks returns a tick at every level, labelled with its shortest
// decimal form.
func levelTicks(levels []float64) plot.Ticker {
	ticks := make([]plot.Tick, len(levels))
	for i, v := range levels {
		ticks[i] = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)}
	}
	return plot.ConstantTicks(ticks)
}

// figure draws the ablation for ds. Its series are the methods with runs
// at two values or more of the setting on some target; a panel per target
// where one has, and, when the series have runs on two targets or more, a
// panel of the average over all these targets. In a target's panel each
// series has a point per value: the mean over the seeds every value of the
// series has (or, when they share none, the value's own), with a band from
// the lowest to the highest seed. The average panel has a point where
// every target has one, of the seeds all their points share: per seed the
// mean over the targets, then the mean over the seeds, banded alike.
func (a ablation) figure(rep *experiment.Report, ds *dataset.Dataset, _ PaperOptions) (*Figure, error) {
	all := a.collect(rep, ds)
	// The methods with runs at two values or more on some target, the
	// targets where one has, and every target where one has runs.
	var methods, targets, every []string
	for _, m := range experiment.Methods.Names() {
		for t, acc := range all[m] {
			if len(acc) < 2 {
				continue
			}
			if !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
			if !slices.Contains(targets, t) {
				targets = append(targets, t)
			}
		}
	}
	if len(methods) == 0 {
		return nil, nil
	}
	for _, m := range methods {
		for t := range all[m] {
			if !slices.Contains(every, t) {
				every = append(every, t)
			}
		}
	}
	byDomain := func(x, y string) int { return cmp.Compare(domainIndex(ds, x), domainIndex(ds, y)) }
	slices.SortFunc(targets, byDomain)
	slices.SortFunc(every, byDomain)
	panel := func(title string, bands []band) (*plot.Plot, []legendEntry, error) {
		p := newPlot(title, a.setting, "target accuracy (%)")
		var levels []float64
		for _, b := range bands {
			for _, x := range b.x {
				if !slices.Contains(levels, x) {
					levels = append(levels, x)
				}
			}
		}
		slices.Sort(levels)
		p.X.Tick.Marker = levelTicks(levels)
		lo, hi := levels[0], levels[len(levels)-1]
		pad := 0.06 * max(hi-lo, 1e-9)
		p.X.Min, p.X.Max = lo-pad, hi+pad
		entries, err := addBands(p, bands)
		return p, entries, err
	}
	var plots []*plot.Plot
	var legend []legendEntry
	var counts []int
	addLegend := func(entries []legendEntry) {
		for _, e := range entries {
			if !slices.ContainsFunc(legend, func(l legendEntry) bool { return l.name == e.name }) {
				legend = append(legend, e)
			}
		}
	}
	for _, t := range targets {
		var bands []band
		for _, m := range methods {
			acc := all[m][t]
			if len(acc) == 0 {
				continue
			}
			seeds := seedsOf(acc)
			b := levelBand(slices.Sorted(maps.Keys(acc)), func(x float64) []float64 {
				counts = append(counts, len(seeds[x]))
				var vs []float64
				for _, s := range seeds[x] {
					vs = append(vs, acc[x][s])
				}
				return vs
			})
			b.name = methodTitle(m, a.scenario)
			b.col, b.dashed = methodColour(m)
			bands = append(bands, b)
		}
		p, entries, err := panel("target "+t, bands)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
		addLegend(entries)
	}
	if len(every) >= 2 {
		var bands []band
		for _, m := range methods {
			// The values every target has, each of the seeds of every
			// target's point.
			seeds := map[float64][]uint64{}
			var xs []float64
			for x := range all[m][every[0]] {
				var common []uint64
				for i, t := range every {
					own, ok := seedsOf(all[m][t])[x]
					if !ok {
						common = nil
						break
					}
					if i == 0 {
						common = slices.Clone(own)
					}
					common = slices.DeleteFunc(common, func(s uint64) bool { return !slices.Contains(own, s) })
				}
				if len(common) > 0 {
					seeds[x] = common
					xs = append(xs, x)
				}
			}
			if len(xs) < 2 {
				continue // no line
			}
			slices.Sort(xs)
			b := levelBand(xs, func(x float64) []float64 {
				var vs []float64
				for _, s := range seeds[x] {
					var sum float64
					for _, t := range every {
						sum += all[m][t][x][s]
					}
					vs = append(vs, sum/float64(len(every)))
				}
				return vs
			})
			b.name = methodTitle(m, a.scenario)
			b.col, b.dashed = methodColour(m)
			bands = append(bands, b)
		}
		if len(bands) > 0 {
			p, entries, err := panel(fmt.Sprintf("average over the %d targets", len(every)), bands)
			if err != nil {
				return nil, err
			}
			plots = append(plots, p)
			addLegend(entries)
		}
	}
	average := ""
	if len(plots) > len(targets) {
		average = fmt.Sprintf(" and one of the average over the %d targets with runs", len(every))
	}
	cols := min(3, len(plots))
	var grid [][]*plot.Plot
	for i := 0; i < len(plots); i += cols {
		line := make([]*plot.Plot, cols)
		copy(line, plots[i:min(i+cols, len(plots))])
		grid = append(grid, line)
	}
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = methodTitle(m, a.scenario)
	}
	def := ""
	for _, row := range rep.Rows {
		if row.Dataset == ds.Name && row.Scenario == a.scenario.String() && len(row.Runs()) > 0 {
			def = row.Runs()[0].Spec.Defaults().Values()[a.setting]
			break
		}
	}
	title := fmt.Sprintf("%s: target accuracy against %s (default %s), %s %s\n"+
		"mean over the %s every value of a series has, band from the lowest to the highest seed",
		a.title, a.setting, def, ds.Name, a.scenario, seedCount(counts))
	caption := fmt.Sprintf("The target accuracy of %s on %s in %s against %s, %s (at the default, %s, the runs at every default), "+
		"a panel per target%s, the mean over %s with a band from the lowest to the highest seed.",
		strings.Join(names, ", "), ds.Name, a.scenario, a.setting, a.what, def,
		average, seedCount(counts))
	l := layout{title: title, panels: grid, legend: legend, panelW: 10 * vg.Centimeter, panelH: 8 * vg.Centimeter}
	f, err := l.drawing().figure(fmt.Sprintf("%s-accuracy-%s-%s", a.name, a.setting, ds.Name), title, caption)
	return &f, err
}
