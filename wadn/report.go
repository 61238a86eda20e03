package wadn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Published accuracies (%) of the paper, by scenario, data set, method and
// target, for the report's comparison column.
var Published = map[string]map[string]map[string]map[string]float64{
	"uda": {
		"amazon": {
			"source": {"books": 68.15, "dvd": 69.51, "electronics": 82.09, "kitchen": 75.30},
			"dann":   {"books": 65.59, "dvd": 67.23, "electronics": 80.49, "kitchen": 74.71},
			"mdan":   {"books": 68.77, "dvd": 67.81, "electronics": 80.96, "kitchen": 75.67},
			"mdmn":   {"books": 70.56, "dvd": 69.64, "electronics": 82.71, "kitchen": 77.05},
			"m3sda":  {"books": 69.09, "dvd": 68.67, "electronics": 81.34, "kitchen": 76.10},
			"darn":   {"books": 71.21, "dvd": 68.68, "electronics": 81.51, "kitchen": 77.71},
			"wadn":   {"books": 73.72, "dvd": 79.64, "electronics": 84.64, "kitchen": 83.73},
		},
		"digits": {
			"source": {"mnist": 84.93, "svhn": 67.14, "synth": 78.11, "usps": 86.02},
			"dann":   {"mnist": 86.99, "svhn": 69.56, "synth": 78.73, "usps": 86.81},
			"mdan":   {"mnist": 87.86, "svhn": 69.13, "synth": 79.77, "usps": 86.50},
			"mdmn":   {"mnist": 87.31, "svhn": 69.84, "synth": 80.27, "usps": 86.61},
			"m3sda":  {"mnist": 87.22, "svhn": 68.89, "synth": 80.01, "usps": 86.39},
			"darn":   {"mnist": 86.98, "svhn": 68.59, "synth": 80.68, "usps": 86.85},
			"wadn":   {"mnist": 89.07, "svhn": 71.66, "synth": 82.06, "usps": 90.07},
		},
	},
	"limited": {
		"amazon": {"wadn": {"books": 74.83, "dvd": 75.05, "electronics": 84.23, "kitchen": 81.53}},
		"digits": {"wadn": {"mnist": 88.32, "svhn": 70.64, "synth": 81.53, "usps": 90.53}},
	},
	"partial": {
		"office-home": {"wadn": {"art": 80.06, "clipart": 75.90, "product": 89.55, "real": 90.40}},
	},
}

func init() {
	Published["uda"]["office-home"] = map[string]map[string]float64{
		"wadn": {"art": 73.78, "clipart": 70.18, "product": 86.32, "real": 87.28},
	}
}

// PublishedAverage holds the paper's printed averages over the targets, by
// scenario, data set and method; for the baselines of the limited-label and
// Office-Home tables they are the only numbers it gives.
var PublishedAverage = map[string]map[string]map[string]float64{
	"limited": {
		"amazon": {"source": 76.06, "dann": 71.50, "mdan": 72.71, "mdmn": 74.57, "m3sda": 72.36,
			"darn": 73.76, "rlus": 75.54, "mme": 74.14, "wadn": 78.91},
		"digits": {"source": 73.01, "dann": 80.32, "mdan": 80.30, "mdmn": 78.35, "m3sda": 79.54,
			"darn": 80.68, "rlus": 81.08, "mme": 80.16, "wadn": 82.75},
	},
	"uda": {
		"amazon": {"source": 73.81, "dann": 72.00, "mdan": 73.30, "mdmn": 74.99, "m3sda": 73.79,
			"darn": 74.78, "wadn": 80.43},
		"digits": {"source": 79.05, "dann": 80.52, "mdan": 80.81, "mdmn": 81.00, "m3sda": 80.87,
			"darn": 80.78, "wadn": 83.22},
		"office-home": {"darn": 76.54, "wadn": 79.39},
	},
	"partial": {
		"office-home": {"pada": 78.28, "darn": 77.12, "wadn": 83.98},
	},
}

// paperAverage returns the paper's average of a method over the targets:
// the printed one when PublishedAverage has it, otherwise the mean of the
// per-target numbers when the paper gives all of them (ok false when it
// gives none).
func paperAverage(scenario, dataset, method string) (float64, bool) {
	if v, ok := PublishedAverage[scenario][dataset][method]; ok {
		return v, true
	}
	per := Published[scenario][dataset][method]
	if len(per) == 0 {
		return 0, false
	}
	var s float64
	for _, v := range per {
		s += v
	}
	return s / float64(len(per)), true
}

// Row is one experiment in a report.
type Row struct {
	ExperimentResult
	// Dir is the experiment's output directory; for experiments merged from
	// parts (mergeParts), that of the part holding the first seed.
	Dir       string
	Published float64 // the paper's number, NaN when there is none
	// Variant says how the experiment's recorded settings differ from the
	// defaults ("C0 0.03, Transductive true"), "" when they do not. When
	// the settings cannot tell two experiments of a method and target apart
	// (one run twice, or run before settings were recorded) the directory
	// follows ("dir NAME", after "settings unrecorded" for the latter).
	// Rows of one method with different variants are reported apart.
	Variant  string
	recorded bool // the directory records its settings
}

// AlphaError returns the error of WADN's final alpha on the source where it
// is largest: per source, the mean absolute difference from the true ratios
// over the classes and the seeds. ok is false for the baselines (they keep
// no alpha) and when a seed recorded no alpha or no true ratios.
func (r *Row) AlphaError() (e float64, ok bool) {
	if r.Method != "wadn" || len(r.Alpha) == 0 || len(r.Alpha) != len(r.TrueAlpha) {
		return 0, false
	}
	var per []float64 // per source, summed over the seeds
	for i, seed := range r.Alpha {
		truth := r.TrueAlpha[i]
		if len(seed) == 0 || len(seed) != len(truth) || (per != nil && len(seed) != len(per)) {
			return 0, false
		}
		if per == nil {
			per = make([]float64, len(seed))
		}
		for t := range seed {
			if len(seed[t]) != len(truth[t]) || len(seed[t]) == 0 {
				return 0, false
			}
			per[t] += meanAbsDiff(seed[t], truth[t])
		}
	}
	return slices.Max(per) / float64(len(r.Alpha)), true
}

// Label returns the row's method with its Variant, if any, in brackets.
func (r *Row) Label() string {
	if r.Variant == "" {
		return r.Method
	}
	return r.Method + " [" + r.Variant + "]"
}

// Collect finds every finished experiment (experiment.json) under dir,
// following symbolic links to directories (each real directory once), so
// that a folder of links to experiments reports them all.
func Collect(dir string) ([]Row, error) {
	var rows []Row
	seen := map[string]bool{}
	// walk collects the experiments under real, a directory without links
	// in its path, naming them under shown, the path the user gave.
	var walk func(real, shown string) error
	walk = func(real, shown string) error {
		if seen[real] {
			return nil
		}
		seen[real] = true
		return filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(real, path)
			if err != nil {
				return err
			}
			at := filepath.Join(shown, rel)
			if d.Type()&fs.ModeSymlink != 0 {
				target, err := filepath.EvalSymlinks(path)
				switch {
				case err == nil:
					if fi, err := os.Stat(target); err == nil && fi.IsDir() {
						return walk(target, at)
					}
				case d.Name() == ExperimentFile:
					return fmt.Errorf("%s: %w", at, err)
				default:
					return nil // a dangling link is no experiment
				}
				if d.Name() != ExperimentFile {
					return nil
				}
			} else if d.IsDir() || d.Name() != ExperimentFile {
				return nil
			}
			r, err := readRow(path)
			if err != nil {
				return err
			}
			r.Dir = filepath.Dir(at)
			rows = append(rows, r)
			return nil
		})
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	if err := walk(real, dir); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no %s under %s: run 'wadn run --out DIR' first", ExperimentFile, dir)
	}
	rows = mergeParts(rows)
	// Experiments that their settings cannot tell apart are named by their
	// directories: all those that record no settings, and those that do
	// when two or more of them record the same.
	type cell struct{ sc, ds, label, target string }
	all, recorded := map[cell]int{}, map[cell]int{}
	key := func(r *Row) cell { return cell{r.Scenario, r.Dataset, r.Label(), r.Target} }
	for i := range rows {
		all[key(&rows[i])]++
		if rows[i].recorded {
			recorded[key(&rows[i])]++
		}
	}
	for i := range rows {
		r := &rows[i]
		k := key(r)
		if all[k] == 1 || (r.recorded && recorded[k] == 1) {
			continue
		}
		rel, err := filepath.Rel(dir, r.Dir)
		if err != nil {
			rel = r.Dir
		}
		name := "dir " + filepath.ToSlash(rel)
		if !r.recorded {
			name = "settings unrecorded, " + name
		}
		r.Variant = strings.TrimPrefix(r.Variant+", "+name, ", ")
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Scenario != b.Scenario {
			return a.Scenario < b.Scenario
		}
		if a.Dataset != b.Dataset {
			return a.Dataset < b.Dataset
		}
		if a.Method != b.Method {
			return a.Method < b.Method
		}
		if a.Variant != b.Variant {
			return a.Variant < b.Variant
		}
		return a.Target < b.Target
	})
	return rows, nil
}

// mergeParts pools experiments that are parts of one: the same scenario,
// data set, method, target and sources, the same recorded settings (Variant)
// and no seed in common, as when each seed of an experiment runs in its own
// process and directory. A merged row holds the parts' seeds in ascending
// order with their accuracies, alpha and lambda, and the mean and sample
// standard deviation over them all. Parts that share a seed (an experiment
// run twice), and experiments that record no settings, stay apart.
func mergeParts(rows []Row) []Row {
	type part struct{ sc, ds, method, variant, target, sources string }
	groups := map[part][]int{}
	var order []part
	for i, r := range rows {
		if !r.recorded {
			continue
		}
		k := part{r.Scenario, r.Dataset, r.Method, r.Variant, r.Target, strings.Join(r.Sources, ",")}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	merged := map[int]bool{} // rows absorbed into another
	for _, k := range order {
		idx := groups[k]
		if len(idx) < 2 {
			continue
		}
		type seedRun struct {
			seed         uint64
			acc          float64
			alpha, truth [][]float64
			lambda       []float64
			dir          string
		}
		var runs []seedRun
		seen := map[uint64]bool{}
		disjoint := true
		for _, i := range idx {
			r := &rows[i]
			for j, s := range r.Seeds {
				if seen[s] || j >= len(r.Accuracy) {
					disjoint = false
					break
				}
				seen[s] = true
				sr := seedRun{seed: s, acc: r.Accuracy[j], dir: r.Dir}
				if j < len(r.Alpha) {
					sr.alpha = r.Alpha[j]
				}
				if j < len(r.TrueAlpha) {
					sr.truth = r.TrueAlpha[j]
				}
				if j < len(r.Lambda) {
					sr.lambda = r.Lambda[j]
				}
				runs = append(runs, sr)
			}
		}
		if !disjoint {
			continue
		}
		sort.Slice(runs, func(a, b int) bool { return runs[a].seed < runs[b].seed })
		m := rows[idx[0]]
		m.Seeds, m.Accuracy, m.Alpha, m.TrueAlpha, m.Lambda = nil, nil, nil, nil, nil
		for _, sr := range runs {
			m.Seeds = append(m.Seeds, sr.seed)
			m.Accuracy = append(m.Accuracy, sr.acc)
			m.Alpha = append(m.Alpha, sr.alpha)
			m.TrueAlpha = append(m.TrueAlpha, sr.truth)
			m.Lambda = append(m.Lambda, sr.lambda)
		}
		m.Mean, m.Std = meanStd(m.Accuracy)
		m.Dir = runs[0].dir
		rows[idx[0]] = m
		for _, i := range idx[1:] {
			merged[i] = true
		}
	}
	out := rows[:0]
	for i, r := range rows {
		if !merged[i] {
			out = append(out, r)
		}
	}
	return out
}

// WriteTable writes rows as Markdown: a table of mean +- std per target and
// method beside the paper's number, with a per-method average line, then
// for every scenario and data set a table with the methods side by side
// (WriteComparison).
func WriteTable(w io.Writer, rows []Row) error {
	var b strings.Builder
	fmt.Fprintln(&b, "| scenario | dataset | method | target | seeds | accuracy (%) | paper | difference | alpha error |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|")
	type key struct{ sc, ds, m, label string }
	var order []key
	sums := map[key][]float64{}
	pubs := map[key][]float64{}
	for _, r := range rows {
		k := key{r.Scenario, r.Dataset, r.Method, r.Label()}
		if _, ok := sums[k]; !ok {
			order = append(order, k)
		}
		sums[k] = append(sums[k], r.Mean)
		pub, diff := "-", "-"
		if !math.IsNaN(r.Published) {
			pub = fmt.Sprintf("%.2f", r.Published)
			diff = fmt.Sprintf("%+.2f", r.Mean-r.Published)
			pubs[k] = append(pubs[k], r.Published)
		}
		aerr := "-"
		if e, ok := r.AlphaError(); ok {
			aerr = fmt.Sprintf("%.3f", e)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %.2f ± %.2f | %s | %s | %s |\n",
			r.Scenario, r.Dataset, r.Label(), r.Target, len(r.Seeds), r.Mean, r.Std, pub, diff, aerr)
	}
	for _, k := range order {
		m, _ := meanStd(sums[k])
		pub, diff := "-", "-"
		if p := pubs[k]; len(p) == len(sums[k]) {
			pm, _ := meanStd(p)
			pub, diff = fmt.Sprintf("%.2f", pm), fmt.Sprintf("%+.2f", m-pm)
		} else if pm, ok := PublishedAverage[k.sc][k.ds][k.m]; ok {
			pub, diff = fmt.Sprintf("%.2f (all targets)", pm), fmt.Sprintf("%+.2f", m-pm)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | **average** over %d | | %.2f | %s | %s | |\n", k.sc, k.ds, k.label, len(sums[k]), m, pub, diff)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return WriteComparison(w, rows)
}

// WriteComparison writes, for every scenario and data set among rows, a
// Markdown table with one column per method (WADN and the baselines in the
// order of Methods, then any others) and one line per target, each cell
// "ours ± std (paper)", and a last line with the averages over the targets
// beside the paper's average (its printed one where it gives only that).
func WriteComparison(w io.Writer, rows []Row) error {
	type group struct{ sc, ds string }
	var groups []group
	cells := map[group]map[string]map[string]Row{} // target -> label -> row
	method := map[string]string{}                  // label -> method
	for _, r := range rows {
		g := group{r.Scenario, r.Dataset}
		if cells[g] == nil {
			groups = append(groups, g)
			cells[g] = map[string]map[string]Row{}
		}
		if cells[g][r.Target] == nil {
			cells[g][r.Target] = map[string]Row{}
		}
		cells[g][r.Target][r.Label()] = r
		method[r.Label()] = r.Method
	}
	// rank orders the columns: WADN and the baselines in the order of
	// Methods, then any others.
	rank := func(label string) int {
		if i := slices.Index(MethodNames(), method[label]); i >= 0 {
			return i
		}
		return len(methods)
	}
	var b strings.Builder
	for _, g := range groups {
		var targets []string
		present := map[string]bool{}
		for t, ms := range cells[g] {
			targets = append(targets, t)
			for m := range ms {
				present[m] = true
			}
		}
		sort.Strings(targets)
		// Each method's variants after its defaults.
		var order []string
		for m := range present {
			order = append(order, m)
		}
		sort.Slice(order, func(i, j int) bool {
			if ri, rj := rank(order[i]), rank(order[j]); ri != rj {
				return ri < rj
			}
			return order[i] < order[j]
		})

		fmt.Fprintf(&b, "\n%s, %s: accuracy (%%), mean ± std over seeds (paper)\n\n| target |", g.sc, g.ds)
		for _, m := range order {
			fmt.Fprintf(&b, " %s |", m)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(order)) + "\n")
		for _, t := range targets {
			fmt.Fprintf(&b, "| %s |", t)
			for _, m := range order {
				r, ok := cells[g][t][m]
				if !ok {
					b.WriteString(" - |")
					continue
				}
				pub := ""
				if !math.IsNaN(r.Published) {
					pub = fmt.Sprintf(" (%.2f)", r.Published)
				}
				fmt.Fprintf(&b, " %.2f ± %.2f%s |", r.Mean, r.Std, pub)
			}
			b.WriteString("\n")
		}
		b.WriteString("| **average** |")
		for _, m := range order {
			var means []float64
			for _, t := range targets {
				if r, ok := cells[g][t][m]; ok {
					means = append(means, r.Mean)
				}
			}
			avg, _ := meanStd(means)
			pub := ""
			if p, ok := paperAverage(g.sc, g.ds, method[m]); ok {
				pub = fmt.Sprintf(" (%.2f)", p)
			}
			fmt.Fprintf(&b, " %.2f [%d]%s |", avg, len(means), pub)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n[n]: number of targets averaged.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// readHistory reads the epoch log of one seed's run.
func readHistory(seedDir string) ([]EpochLog, error) {
	b, err := os.ReadFile(filepath.Join(seedDir, LogFile))
	if err != nil {
		return nil, err
	}
	var out []EpochLog
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var l EpochLog
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", filepath.Join(seedDir, LogFile), i+1, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// WritePlots writes, for the first seed of every row, an SVG plot of lambda
// and one of alpha over the epochs into outDir, and returns the file names.
func WritePlots(outDir string, rows []Row) ([]string, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, r := range rows {
		if len(r.Seeds) == 0 {
			continue
		}
		hist, err := readHistory(filepath.Join(r.Dir, fmt.Sprintf("seed%d", r.Seeds[0])))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return files, err
		}
		base := fmt.Sprintf("%s-%s-%s-%s-seed%d", r.Dataset, r.Target, r.Scenario, r.Method, r.Seeds[0])
		if r.Variant != "" {
			base += "-" + fileSafe(r.Variant)
		}
		var lam, alpha []series
		for t, src := range r.Sources {
			s := series{name: src}
			for _, h := range hist {
				if t < len(h.Lambda) {
					s.y = append(s.y, h.Lambda[t])
				}
			}
			lam = append(lam, s)
			if len(hist) == 0 || t >= len(hist[0].Alpha) {
				continue
			}
			for k := range hist[0].Alpha[t] {
				a := series{name: fmt.Sprintf("%s, class %d", src, k)}
				for _, h := range hist {
					a.y = append(a.y, h.Alpha[t][k])
				}
				alpha = append(alpha, a)
			}
		}
		for _, p := range []struct {
			suffix, title string
			s             []series
		}{
			{"lambda", "lambda (source weights) per epoch, " + base, lam},
			{"alpha", "alpha (label ratios) per epoch, " + base, alpha},
		} {
			name := filepath.Join(outDir, base+"-"+p.suffix+".svg")
			if err := os.WriteFile(name, []byte(svgPlot(p.title, "epoch", p.s)), 0o644); err != nil {
				return files, err
			}
			files = append(files, name)
		}
	}
	return files, nil
}

// fileSafe returns s with every character other than a letter, digit, dot
// or minus replaced by '_', for a file name.
func fileSafe(s string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-':
			return c
		}
		return '_'
	}, s)
}

type series struct {
	name string
	y    []float64
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// svgPlot draws line series against their index (epoch 1, 2, ...).
func svgPlot(title, xlabel string, ss []series) string {
	const W, H, L, R, T, B = 720, 400, 60, 200, 40, 50
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, s := range ss {
		for _, v := range s.y {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		n = max(n, len(s.y))
	}
	if n == 0 || math.IsInf(lo, 0) {
		lo, hi, n = 0, 1, 1
	}
	if hi-lo < 1e-9 {
		lo, hi = lo-0.5, hi+0.5
	}
	pad := 0.05 * (hi - lo)
	lo, hi = lo-pad, hi+pad
	x := func(i int) float64 { return L + float64(i)*float64(W-L-R)/math.Max(1, float64(n-1)) }
	y := func(v float64) float64 { return T + (hi-v)/(hi-lo)*float64(H-T-B) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14">%s</text>`+"\n", L, escape(title))
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", L, H-B, W-R, H-B)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", L, T, L, H-B)
	for i := 0; i <= 4; i++ {
		v := lo + float64(i)*(hi-lo)/4
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%.3g</text>`+"\n", L-5, y(v)+4, v)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", L, y(v), W-R, y(v))
	}
	for _, e := range []int{1, (n + 1) / 2, n} {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(e-1), H-B+16, e)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", (L+W-R)/2, H-10, escape(xlabel))
	for i, s := range ss {
		col := palette[i%len(palette)]
		var pts []string
		for j, v := range s.y {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(j), y(v)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", col, strings.Join(pts, " "))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			W-R+10, T+i*18, col, W-R+28, T+i*18+11, escape(s.name))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// readRow reads the experiment file at path with the settings recorded
// beside it; the caller sets the row's Dir.
func readRow(path string) (Row, error) {
	var r Row
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r.ExperimentResult); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	if r.Variant, r.recorded, err = readVariant(filepath.Dir(path)); err != nil {
		return r, err
	}
	r.Published = math.NaN()
	if v, ok := Published[r.Scenario][r.Dataset][r.Method][r.Target]; ok {
		r.Published = v
	}
	return r, nil
}
