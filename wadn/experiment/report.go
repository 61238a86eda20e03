package experiment

import (
	"cmp"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// Finished is one finished run found by Collect.
type Finished struct {
	Dir    string
	Record *Record
	Result *RunResult
	Spec   *Spec
	// History is the run's epoch log; nil when its directory has none.
	History []method.EpochLog
}

// EpochLog returns the run's epoch log, or an error naming the missing
// file when its directory has none.
func (r *Finished) EpochLog() ([]method.EpochLog, error) {
	if r.History == nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(r.Dir, trainer.LogFile), fs.ErrNotExist)
	}
	return r.History, nil
}

// StableEpochs is how many final epochs LargestDrop reads.
const StableEpochs = 10

// LargestDrop returns the largest fall of the target accuracy from one
// epoch to the next, into any of the run's last StableEpochs epochs (0 when
// it never falls there); ok is false when the run has no epoch log or
// fewer than two epochs.
func (r *Finished) LargestDrop() (drop float64, ok bool) {
	h := r.History
	if len(h) < 2 {
		return 0, false
	}
	for e := max(1, len(h)-StableEpochs); e < len(h); e++ {
		drop = max(drop, h[e-1].Accuracy-h[e].Accuracy)
	}
	return drop, true
}

// Row is one cell of a report: the runs of one method, with one settings
// label, on one target of a data set in one scenario, over their seeds.
type Row struct {
	Dataset  string `json:"dataset"`
	Scenario string `json:"scenario"`
	Method   string `json:"method"`
	Target   string `json:"target"`
	// Label says how the runs' settings differ from the defaults ("c0
	// 0.05, epochs 2"), "" when they do not. When the runs of one label
	// trained on different data, each row of them adds "data" and a digest
	// of its data.
	Label    string    `json:"label"`
	Seeds    []uint64  `json:"seeds"`
	Accuracy []float64 `json:"accuracy"` // per seed, percent
	Mean     float64   `json:"mean"`
	Std      float64   `json:"std"` // sample standard deviation (n-1); 0 for one seed
	N        int       `json:"n"`
	// AlphaError is, for a method that estimates alpha, the error of the
	// final alpha on the source where it is largest: per source, the mean
	// absolute difference from the true ratios over the classes and seeds.
	// It is nil where the method's alpha is not an estimate
	// (method.Method.EstimatesAlpha): with limited labels alpha is the ratios
	// of the labelled target rows, the very rows the true ratios come from.
	AlphaError *float64 `json:"alpha_error,omitempty"`
	// AlphaErrors is that error on every source, in the runs' order of
	// sources, when the runs share it.
	AlphaErrors []SourceError `json:"alpha_errors,omitempty"`
	// Drop is, over the row's runs, the largest fall of the target
	// accuracy from one epoch to the next into any of a run's last
	// StableEpochs epochs (Finished.LargestDrop); nil when a run has no epoch
	// log.
	Drop *float64 `json:"largest_drop,omitempty"`
	// Published is the paper's number for the cell, where it gives one.
	Published *float64 `json:"published,omitempty"`
	Dirs      []string `json:"dirs"` // the run directories, in the order of Seeds
	runs      []*Finished
}

// SourceError is the final alpha's error on one source: the mean absolute
// difference from the true ratios over the classes and seeds.
type SourceError struct {
	Source string  `json:"source"`
	Error  float64 `json:"error"`
}

// Runs returns the row's runs, in the order of Seeds.
func (r *Row) Runs() []*Finished { return r.runs }

// EstimatesAlpha reports whether the row's method estimates alpha in its
// scenario (method.About.EstimatesAlpha): only then does its alpha mean
// something beside the true ratios.
func (r *Row) EstimatesAlpha() bool {
	if len(r.runs) == 0 {
		return false
	}
	sc := r.runs[0].Spec.Scenario
	m, err := Methods.Lookup(r.Method, sc)
	return err == nil && slices.Contains(m.EstimatesAlpha, sc)
}

// WeighsSources reports whether the row's method weighs its sources
// (method.About.EstimatesLambda), or, for a method Methods does not know,
// whether the weights lambda of some run's epoch log move from where its
// first epoch has them. A method that does not weigh them (DANN, the
// source-only baseline) keeps lambda at the sources' shares, which mean
// nothing.
func (r *Row) WeighsSources() bool {
	if sc, err := data.ParseScenario(r.Scenario); err == nil {
		if m, err := Methods.Lookup(r.Method, sc); err == nil {
			return m.EstimatesLambda
		}
	}
	for _, run := range r.runs {
		for _, h := range run.History {
			if !slices.Equal(h.Lambda, run.History[0].Lambda) {
				return true
			}
		}
	}
	return false
}

// Name returns the row's method, as the paper names it in the row's
// scenario (method.Method.Title; the method's name when Methods does not know it),
// with its label, if any, in brackets.
func (r *Row) Name() string {
	m := r.Method
	if sc, err := data.ParseScenario(r.Scenario); err == nil {
		if s, err := Methods.Lookup(m, sc); err == nil {
			m = s.Title(sc)
		}
	}
	if r.Label == "" {
		return m
	}
	return m + " [" + r.Label + "]"
}

// Report is what Collect finds under a directory.
type Report struct {
	Rows []*Row
	// Unfinished counts the run directories without a result.
	Unfinished int
	// Pending are those of them whose record reads, in the order of their
	// directories.
	Pending []*Pending
	// Notes are things the reader should know: runs found twice, rows
	// whose runs used different kernels.
	Notes []string
	// Damaged are the run directories whose files cannot be read, or
	// disagree (checkResult): they are in no row.
	Damaged []Damaged
}

// Damaged is a run directory a report leaves out, and why.
type Damaged struct {
	Dir   string `json:"dir"`
	Error string `json:"error"`
}

// checkResult checks a finished run's result against its epoch log (when
// its directory has one): as many epochs, and the accuracy and source
// weights of the last. A result that says otherwise was changed after the
// run wrote it, or belongs to another log.
func checkResult(dir string, res *RunResult, hist []method.EpochLog) error {
	if hist == nil {
		return nil
	}
	path := filepath.Join(dir, ResultFile)
	log := filepath.Join(dir, trainer.LogFile)
	if len(hist) != res.Epochs {
		return fmt.Errorf("%s says %d epochs, %s holds %d", path, res.Epochs, log, len(hist))
	}
	if len(hist) == 0 {
		return nil
	}
	last := hist[len(hist)-1]
	if last.Accuracy != res.Accuracy {
		return fmt.Errorf("%s says accuracy %v, the last epoch of %s %v", path, res.Accuracy, log, last.Accuracy)
	}
	if last.Lambda != nil && res.Lambda != nil && !slices.Equal(last.Lambda, res.Lambda) {
		return fmt.Errorf("%s says lambda %v, the last epoch of %s %v", path, res.Lambda, log, last.Lambda)
	}
	return nil
}

// Filter chooses the runs a report counts; the zero Filter takes every run.
type Filter struct {
	// Scenarios, when not empty, are the only scenarios taken.
	Scenarios []data.Scenario
	// Methods, when not empty, are the only methods taken, by the names
	// of Methods ("source", not "source+tar").
	Methods []string
	// Targets, when not empty, are the only target domains taken.
	Targets []string
	// Seeds, when not empty, are the only seeds taken.
	Seeds []uint64
	// Settings, when not empty, are the only settings labels taken, as
	// Spec.Label gives them ("c2 0"); "" is the runs at every default.
	Settings []string
}

// keeps reports whether f takes the run of spec s.
func (f Filter) keeps(s *Spec) bool {
	return (len(f.Scenarios) == 0 || slices.Contains(f.Scenarios, s.Scenario)) &&
		(len(f.Methods) == 0 || slices.Contains(f.Methods, s.Method.Name)) &&
		(len(f.Targets) == 0 || slices.Contains(f.Targets, s.Target)) &&
		(len(f.Seeds) == 0 || slices.Contains(f.Seeds, s.Seed)) &&
		(len(f.Settings) == 0 || slices.Contains(f.Settings, s.Label()))
}

// String describes the runs f takes, for an error message: "" for the zero
// Filter, else like "of scenario uda or limited and method wadn or source".
func (f Filter) String() string {
	var parts []string
	if len(f.Scenarios) > 0 {
		names := make([]string, len(f.Scenarios))
		for i, sc := range f.Scenarios {
			names[i] = sc.String()
		}
		parts = append(parts, "scenario "+strings.Join(names, " or "))
	}
	if len(f.Methods) > 0 {
		parts = append(parts, "method "+strings.Join(f.Methods, " or "))
	}
	if len(f.Targets) > 0 {
		parts = append(parts, "target "+strings.Join(f.Targets, " or "))
	}
	if len(f.Seeds) > 0 {
		names := make([]string, len(f.Seeds))
		for i, seed := range f.Seeds {
			names[i] = strconv.FormatUint(seed, 10)
		}
		parts = append(parts, "seed "+strings.Join(names, " or "))
	}
	if len(f.Settings) > 0 {
		names := make([]string, len(f.Settings))
		for i, l := range f.Settings {
			names[i] = "[" + l + "]"
			if l == "" {
				names[i] = "the defaults"
			}
		}
		parts = append(parts, "settings "+strings.Join(names, " or "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "of " + strings.Join(parts, " and ")
}

// Collect finds every run directory under the given directories, following
// symbolic links to directories (each real directory once in a walk), and
// gathers the finished runs into rows. A run found twice counts once, with a
// note.
func Collect(dirs ...string) (*Report, error) {
	return CollectFiltered(Filter{}, dirs...)
}

// CollectFiltered is Collect of the runs f takes: the rows, the notes and
// the unfinished runs (their count, and those whose record reads in
// Pending) are those of these runs alone. A run
// directory that cannot be read, or whose result disagrees with its epoch
// log, is left out of the rows and listed in Damaged, whatever the filter;
// the report then holds the rest, and no error.
func CollectFiltered(f Filter, dirs ...string) (*Report, error) {
	rep, runs, err := scan(f, dirs)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 && len(rep.Damaged) > 0 {
		return rep, nil // only damaged runs: the caller lists them
	}
	if len(runs) == 0 {
		msg := "no finished run"
		if d := f.String(); d != "" {
			msg += " " + d
		}
		msg += " under " + strings.Join(dirs, ", ")
		if rep.Unfinished > 0 {
			out := "DIR" // the directory holding them
			if len(dirs) == 1 {
				out = dirs[0]
			}
			msg += fmt.Sprintf(" (%d unfinished: continue them with 'wadn run --resume --out %s')", rep.Unfinished, out)
		}
		return nil, errors.New(msg)
	}
	rep.group(runs)
	return rep, nil
}

// Scan is CollectFiltered for a reader that watches runs come: it fails
// only when a directory cannot be walked, and a report without a finished
// run is returned as it is, with no rows.
func Scan(f Filter, dirs ...string) (*Report, error) {
	rep, runs, err := scan(f, dirs)
	if err != nil {
		return nil, err
	}
	rep.group(runs)
	return rep, nil
}

// scan walks dirs for the runs f takes: it returns a report of the
// unfinished and damaged runs, and the finished runs, not yet grouped.
func scan(f Filter, dirs []string) (*Report, []*Finished, error) {
	if len(dirs) == 0 {
		return nil, nil, errors.New("no directory to collect runs from")
	}
	rep := &Report{}
	var runs []*Finished
	for _, dir := range dirs {
		err := eachRun(dir, func(at, _ string, rec *Record, res *RunResult, damaged error) error {
			if damaged != nil {
				rep.Damaged = append(rep.Damaged, Damaged{at, damaged.Error()})
				return nil
			}
			if rec == nil {
				return nil // a checkpoint of no known run
			}
			spec, err := SpecOf(rec.Identity)
			if res == nil {
				// An unfinished run whose identity does not read is
				// counted, whatever the filter.
				if err != nil || f.keeps(spec) {
					rep.Unfinished++
				}
				if err == nil && f.keeps(spec) {
					rep.Pending = append(rep.Pending, readPending(at, rec, spec))
				}
				return nil
			}
			if err != nil {
				rep.Damaged = append(rep.Damaged, Damaged{at, fmt.Sprintf("%s: %v", filepath.Join(at, RunFile), err)})
				return nil
			}
			if !f.keeps(spec) {
				return nil
			}
			hist, err := ReadHistory(at)
			if err == nil {
				err = checkResult(at, res, hist)
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				rep.Damaged = append(rep.Damaged, Damaged{at, err.Error()})
				return nil
			}
			for i := range hist {
				method.Canonical(spec.Method.Terms, &hist[i])
			}
			runs = append(runs, &Finished{Dir: at, Record: rec, Result: res, Spec: spec, History: hist})
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return rep, runs, nil
}

// group sorts runs into rows.
func (rep *Report) group(runs []*Finished) {
	slices.SortFunc(runs, func(a, b *Finished) int { return strings.Compare(a.Dir, b.Dir) })
	byKey := map[string]*Finished{}
	var unique []*Finished
	for _, r := range runs {
		if first, ok := byKey[r.Record.Key]; ok {
			same := "equal"
			if first.Result.Accuracy != r.Result.Accuracy {
				same = "different"
			}
			rep.Notes = append(rep.Notes, fmt.Sprintf("run %s is in %s and %s (%s accuracies); the first is reported", r.Record.Key, first.Dir, r.Dir, same))
			continue
		}
		byKey[r.Record.Key] = r
		unique = append(unique, r)
	}
	type cell struct{ ds, sc, method, target, label string }
	cells := map[cell][]*Finished{}
	var order []cell
	data := map[cell]map[string]bool{} // the data digests of a cell's runs
	for _, r := range unique {
		s := r.Spec
		label := s.Label()
		if len(r.Record.Identity.Unverified) > 0 {
			label = strings.TrimPrefix(label+", unverified data", ", ")
		}
		c := cell{s.Dataset.Name, s.Scenario.String(), s.Method.Name, s.Target, label}
		if cells[c] == nil {
			order = append(order, c)
			data[c] = map[string]bool{}
		}
		cells[c] = append(cells[c], r)
		data[c][dataDigest(r.Record.Identity)] = true
	}
	for _, c := range order {
		byData := map[string][]*Finished{}
		var digests []string
		for _, r := range cells[c] {
			d := dataDigest(r.Record.Identity)
			if byData[d] == nil {
				digests = append(digests, d)
			}
			byData[d] = append(byData[d], r)
		}
		for _, d := range digests {
			row := &Row{Dataset: c.ds, Scenario: c.sc, Method: c.method, Target: c.target, Label: c.label, runs: byData[d]}
			if len(digests) > 1 {
				row.Label = strings.TrimPrefix(row.Label+", data "+d, ", ")
			}
			row.fill()
			rep.Rows = append(rep.Rows, row)
		}
	}
	slices.SortFunc(rep.Rows, func(a, b *Row) int {
		return cmp.Or(cmp.Compare(a.Scenario, b.Scenario), cmp.Compare(a.Dataset, b.Dataset),
			cmp.Compare(methodRank(a.Method), methodRank(b.Method)), cmp.Compare(a.Label, b.Label), cmp.Compare(a.Target, b.Target))
	})
	// One note per set of kernels, naming every row whose runs used it.
	mixed := map[string][]string{}
	var sets []string
	for _, row := range rep.Rows {
		kernels := map[string]bool{}
		for _, r := range row.runs {
			for _, e := range r.Result.Environment {
				kernels[e.Kernels] = true
			}
		}
		if len(kernels) > 1 {
			set := strings.Join(slices.Sorted(maps.Keys(kernels)), ", ")
			if mixed[set] == nil {
				sets = append(sets, set)
			}
			mixed[set] = append(mixed[set], fmt.Sprintf("%s %s %s on %s", row.Scenario, row.Dataset, row.Name(), row.Target))
		}
	}
	for _, set := range sets {
		rows, its := strings.Join(mixed[set], "; "), "its runs"
		if len(mixed[set]) > 1 {
			its = "the runs of each"
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s used the kernels %s, which round differently", rows, its, set))
	}
}

// methodRank orders the methods as Methods lists them, others after.
func methodRank(name string) int {
	if i := slices.Index(Methods.Names(), name); i >= 0 {
		return i
	}
	return len(Methods)
}

// dataDigest returns a short digest of the data an identity records.
func dataDigest(id *Identity) string {
	b, _ := json.Marshal(id.Data) // keys sorted
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:4])
}

// fill computes the row's figures from its runs, ordered by seed.
func (row *Row) fill() {
	slices.SortFunc(row.runs, func(a, b *Finished) int { return cmp.Compare(a.Spec.Seed, b.Spec.Seed) })
	for _, r := range row.runs {
		row.Seeds = append(row.Seeds, r.Spec.Seed)
		row.Accuracy = append(row.Accuracy, r.Result.Accuracy)
		row.Dirs = append(row.Dirs, r.Dir)
	}
	row.N = len(row.runs)
	row.Mean, row.Std = MeanStd(row.Accuracy)
	var drop float64
	logged := true
	for _, r := range row.runs {
		d, ok := r.LargestDrop()
		logged = logged && ok
		drop = max(drop, d)
	}
	if logged {
		row.Drop = &drop
	}
	if row.EstimatesAlpha() {
		if per, ok := alphaErrors(row.runs); ok {
			e := slices.Max(per)
			row.AlphaError = &e
			srcs := row.runs[0].Record.Identity.Sources
			same := len(srcs) == len(per)
			for _, r := range row.runs {
				same = same && slices.Equal(r.Record.Identity.Sources, srcs)
			}
			if same {
				for t, e := range per {
					row.AlphaErrors = append(row.AlphaErrors, SourceError{Source: srcs[t], Error: e})
				}
			}
		}
	}
	if !row.paperTask() {
		return
	}
	if v, ok := published(row.Scenario, row.Dataset, row.Method, row.Target); ok {
		row.Published = &v
	}
}

// paperTask reports whether every run of the row trains on the paper's task
// (Spec.PaperTask), the one its numbers are for.
func (row *Row) paperTask() bool {
	for _, r := range row.runs {
		if !r.Spec.PaperTask() {
			return false
		}
	}
	return true
}

// alphaErrors returns the final alpha's error per source: the mean absolute
// difference from the true ratios over the classes, averaged over the runs;
// ok is false when a run lacks them.
func alphaErrors(runs []*Finished) ([]float64, bool) {
	var per []float64
	for _, r := range runs {
		a, truth := r.Result.Alpha, r.Result.TrueAlpha
		if len(a) == 0 || len(a) != len(truth) || (per != nil && len(a) != len(per)) {
			return nil, false
		}
		if per == nil {
			per = make([]float64, len(a))
		}
		for t := range a {
			if len(a[t]) != len(truth[t]) || len(a[t]) == 0 {
				return nil, false
			}
			var s float64
			for k := range a[t] {
				s += math.Abs(a[t][k] - truth[t][k])
			}
			per[t] += s / float64(len(a[t]))
		}
	}
	for t := range per {
		per[t] /= float64(len(runs))
	}
	return per, true
}

// accuracy formats the row's accuracy as "mean ± std", or as the mean alone
// for one seed, whose spread is unknown.
func (r *Row) accuracy() string {
	if r.N < 2 {
		return fmt.Sprintf("%.2f", r.Mean)
	}
	return fmt.Sprintf("%.2f ± %.2f", r.Mean, r.Std)
}

// MeanStd returns the mean and the sample standard deviation of v (0 for
// fewer than two values).
func MeanStd(v []float64) (mean, std float64) {
	if len(v) == 0 {
		return 0, 0
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)-1))
}

// WriteJSON writes the rows as one JSON object {"rows": [...], "unfinished":
// n, "notes": [...]}, with "damaged": [{"dir", "error"}, ...] when there
// are damaged runs.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(struct {
		Rows       []*Row    `json:"rows"`
		Unfinished int       `json:"unfinished"`
		Notes      []string  `json:"notes"`
		Damaged    []Damaged `json:"damaged,omitempty"`
	}{rep.Rows, rep.Unfinished, rep.Notes, rep.Damaged})
}

// WriteMarkdown writes the rows as Markdown: a table with a line per row
// (mean ± std over the seeds, the mean alone for one seed, beside the
// paper's number, the alpha error and Row.Drop), a line per method and
// label with its average over the targets, then for every scenario and data
// set a table with the methods side by side (WriteComparison).
func (rep *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "| scenario | dataset | method | target | seeds | accuracy (%%) | paper | difference | alpha error | largest drop, last %d epochs |\n", StableEpochs)
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|---|")
	type key struct{ sc, ds, m, name string }
	var order []key
	sums := map[key][]float64{}
	pubs := map[key][]float64{}
	targets := map[key]map[string]bool{}
	paper := map[key]bool{} // whether every row of the key is on the paper's task
	for _, r := range rep.Rows {
		k := key{r.Scenario, r.Dataset, r.Method, r.Name()}
		if _, ok := sums[k]; !ok {
			order = append(order, k)
			targets[k] = map[string]bool{}
			paper[k] = true
		}
		paper[k] = paper[k] && r.paperTask()
		targets[k][r.Target] = true
		sums[k] = append(sums[k], r.Mean)
		pub, diff := "-", "-"
		if r.Published != nil {
			pub = fmt.Sprintf("%.2f", *r.Published)
			diff = fmt.Sprintf("%+.2f", r.Mean-*r.Published)
			pubs[k] = append(pubs[k], *r.Published)
		}
		aerr := "-"
		if r.AlphaError != nil {
			aerr = fmt.Sprintf("%.3f", *r.AlphaError)
			if len(r.AlphaErrors) > 0 {
				per := make([]string, len(r.AlphaErrors))
				for i, e := range r.AlphaErrors {
					per[i] = fmt.Sprintf("%s %.3f", e.Source, e.Error)
				}
				aerr += " (" + strings.Join(per, ", ") + ")"
			}
		}
		drop := "-"
		if r.Drop != nil {
			drop = fmt.Sprintf("%.2f", *r.Drop)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s |\n",
			r.Scenario, r.Dataset, r.Name(), r.Target, r.N, r.accuracy(), pub, diff, aerr, drop)
	}
	for _, k := range order {
		m, _ := MeanStd(sums[k])
		pub, diff := "-", "-"
		// None for runs off the paper's task (Spec.PaperTask). Over every
		// target of the paper's table, its average (the printed one, as in
		// the comparison); over some, the mean of its numbers for the row's
		// targets, or else its average over all its targets, said so.
		pm, ok, label := 0.0, false, ""
		switch p := pubs[k]; {
		case !paper[k]:
		case coversPaper(k.sc, k.ds, targets[k]):
			pm, ok = paperAverage(k.sc, k.ds, k.m)
		case len(p) == len(sums[k]):
			pm, _ = MeanStd(p)
			ok = true
		default:
			pm, ok = publishedAverage(k.sc, k.ds, k.m)
			label = " (all targets)"
		}
		if ok {
			pub, diff = fmt.Sprintf("%.2f%s", pm, label), fmt.Sprintf("%+.2f", m-pm)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | **average** over %d | | %.2f | %s | %s | | |\n", k.sc, k.ds, k.name, len(sums[k]), m, pub, diff)
	}
	if rep.Unfinished > 0 {
		fmt.Fprintf(&b, "\n%d run(s) unfinished, not counted.\n", rep.Unfinished)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "\nNote: %s.\n", n)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return rep.WriteComparison(w)
}

// WriteComparison writes, for every scenario and data set among the rows, a
// Markdown table with one column per method and label (WADN and the
// baselines in the order of Methods) and one line per target, each cell
// "mean ± std (paper)" ("mean (paper)" for one seed), and a last line with
// the averages over the targets beside the paper's average (its printed one
// where it gives only that), starred where the paper's targets are not all
// among the row's: the tables of Comparisons.
func (rep *Report) WriteComparison(w io.Writer) error {
	var b strings.Builder
	starred, single := false, false
	for _, c := range rep.Comparisons() {
		fmt.Fprintf(&b, "\n%s, %s: accuracy (%%), mean ± std over seeds (paper)\n\n| target |", c.Scenario, c.Dataset)
		for _, col := range c.Columns {
			fmt.Fprintf(&b, " %s |", col.Name)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(c.Columns)) + "\n")
		for i, t := range c.Targets {
			fmt.Fprintf(&b, "| %s |", t)
			for _, r := range c.Cells[i] {
				if r == nil {
					b.WriteString(" - |")
					continue
				}
				pub := ""
				if r.Published != nil {
					pub = fmt.Sprintf(" (%.2f)", *r.Published)
				}
				fmt.Fprintf(&b, " %s%s |", r.accuracy(), pub)
				single = single || r.N < 2
			}
			b.WriteString("\n")
		}
		b.WriteString("| **average** |")
		for _, a := range c.Averages {
			pub := ""
			if a.Paper != nil {
				mark := ""
				if !a.PaperCovered {
					mark, starred = "*", true
				}
				pub = fmt.Sprintf(" (%.2f%s)", *a.Paper, mark)
			}
			fmt.Fprintf(&b, " %.2f [%d]%s |", a.Mean, a.N, pub)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n[n]: number of targets averaged.\n")
	if single {
		b.WriteString("\nA mean without ± is from one seed.\n")
	}
	if starred {
		b.WriteString("\n*: the paper's average over all its targets, not over the targets of the row.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCSV writes the epoch logs of the report's runs as one CSV table: a
// line per run and epoch, the run's identity (data set, scenario, method,
// target, label, seed, key, directory) then the epoch's fields, those per
// source as "class.SOURCE", "alpha.SOURCE.CLASS", "source_accuracy.SOURCE"
// and so on, the method's own terms under their names ("implicit.SOURCE"
// for a term per source, "domain" for one value), and the target
// distribution as "target_dist.CLASS". A field a run lacks is empty.
func (rep *Report) WriteCSV(w io.Writer) error {
	type runLog struct {
		row   *Row
		run   *Finished
		hist  []method.EpochLog
		cells [][]cell // per epoch, epochCells
	}
	var logs []runLog
	var cols []string
	seen := map[string]bool{}
	addCol := func(c string) {
		if !seen[c] {
			seen[c] = true
			cols = append(cols, c)
		}
	}
	for _, c := range []string{"dataset", "scenario", "method", "target", "label", "seed", "key", "dir", "epoch", "loss", "accuracy", "seconds"} {
		addCol(c)
	}
	for _, row := range rep.Rows {
		for _, r := range row.runs {
			hist, err := r.EpochLog()
			if err != nil {
				return err
			}
			srcs := r.Record.Identity.Sources
			fields := []string{"class"}
			for _, t := range r.Spec.Method.Terms {
				if t.PerSource {
					fields = append(fields, t.Name)
				} else {
					addCol(t.Name)
				}
			}
			for _, field := range append(fields, "lambda", "alpha_error") {
				for _, s := range srcs {
					addCol(field + "." + s)
				}
			}
			l := runLog{row: row, run: r, hist: hist}
			for i := range hist {
				l.cells = append(l.cells, epochCells(&hist[i], srcs))
				for _, c := range l.cells[i] {
					addCol(c.name)
				}
			}
			logs = append(logs, l)
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(cols); err != nil {
		return err
	}
	for _, l := range logs {
		for i, h := range l.hist {
			rec := map[string]string{
				"dataset": l.row.Dataset, "scenario": l.row.Scenario, "method": l.row.Method, "target": l.row.Target,
				"label": l.row.Label, "seed": strconv.FormatUint(l.run.Spec.Seed, 10), "key": l.run.Record.Key, "dir": l.run.Dir,
				"epoch": strconv.Itoa(h.Epoch), "loss": csvNum(h.Loss), "accuracy": csvNum(h.Accuracy), "seconds": csvNum(h.Seconds),
			}
			for _, c := range l.cells[i] {
				rec[c.name] = c.value
			}
			line := make([]string, len(cols))
			for j, c := range cols {
				line[j] = rec[c]
			}
			if err := cw.Write(line); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// runEpochs are the epochs whose target accuracy WriteRuns shows, beside
// the last.
var runEpochs = []int{1, 10, 20, 30}

// WriteRuns writes a Markdown table with a line per run, in the order of
// the rows and, within a row, of its seeds: the target accuracy at each of
// runEpochs ("-" past the run's end) and at the last epoch, the peak and
// its epoch (the first, if tied), the largest drop into the last
// StableEpochs epochs (Finished.LargestDrop), and the median of the epochs'
// seconds. It fails on a run without an epoch log, naming the file.
func (rep *Report) WriteRuns(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| scenario | dataset | method | target | seed |")
	for _, e := range runEpochs {
		fmt.Fprintf(&b, " epoch %d |", e)
	}
	fmt.Fprintf(&b, " last epoch | peak (epoch) | largest drop, last %d epochs | median epoch (s) |\n", StableEpochs)
	b.WriteString(strings.Repeat("|---", 9+len(runEpochs)) + "|\n")
	for _, row := range rep.Rows {
		for i, r := range row.runs {
			hist, err := r.EpochLog()
			if err != nil {
				return err
			}
			if len(hist) == 0 {
				return fmt.Errorf("%s: no epochs", filepath.Join(r.Dir, trainer.LogFile))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %d |", row.Scenario, row.Dataset, row.Name(), row.Target, row.Seeds[i])
			for _, e := range runEpochs {
				if e <= len(hist) {
					fmt.Fprintf(&b, " %.2f |", hist[e-1].Accuracy)
				} else {
					b.WriteString(" - |")
				}
			}
			peak := 0
			secs := make([]float64, len(hist))
			for e, h := range hist {
				if h.Accuracy > hist[peak].Accuracy {
					peak = e
				}
				secs[e] = h.Seconds
			}
			drop, _ := r.LargestDrop()
			fmt.Fprintf(&b, " %.2f | %.2f (%d) | %.2f | %.1f |\n", r.Result.Accuracy, hist[peak].Accuracy, hist[peak].Epoch, drop, Median(secs))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Median returns the median of v, the mean of the two middle values when
// len(v) is even; it sorts v in place. v must not be empty.
func Median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// cell is one named value of a CSV line.
type cell struct{ name, value string }

// epochCells returns the CSV cells of an epoch's fields other than loss,
// accuracy and seconds, in column order: the trained weights' accuracy, the
// per-source fields as FIELD.SOURCE (the class loss, then the method's own
// terms under their names: a term of one value as NAME), alpha as
// alpha.SOURCE.CLASS and the target distribution as target_dist.CLASS.
func epochCells(h *method.EpochLog, srcs []string) []cell {
	var cs []cell
	if h.AccuracyTrained != nil {
		cs = append(cs, cell{"accuracy_trained", csvNum(*h.AccuracyTrained)})
	}
	fields := []method.Value{{Name: "class", V: h.Class, PerSource: true}}
	fields = append(fields, h.Terms...)
	fields = append(fields, method.Value{Name: "lambda", V: h.Lambda, PerSource: true},
		method.Value{Name: "alpha_error", V: h.AlphaError, PerSource: true},
		method.Value{Name: "source_accuracy", V: h.SourceAccuracy, PerSource: true})
	for _, f := range fields {
		if !f.PerSource {
			cs = append(cs, cell{f.Name, csvNum(f.V[0])})
			continue
		}
		for t, x := range f.V {
			cs = append(cs, cell{f.Name + "." + sourceName(srcs, t, len(f.V)), csvNum(x)})
		}
	}
	for t, a := range h.Alpha {
		for k, x := range a {
			cs = append(cs, cell{fmt.Sprintf("alpha.%s.%d", sourceName(srcs, t, len(h.Alpha)), k), csvNum(x)})
		}
	}
	for k, x := range h.TargetDist {
		cs = append(cs, cell{fmt.Sprintf("target_dist.%d", k), csvNum(x)})
	}
	return cs
}

// csvNum writes v in the fewest digits that read back as v.
func csvNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// sourceName names the t-th of n per-source values of a run with sources
// srcs: the source, or "pooled" when a method pooling its sources logs one
// value for all.
func sourceName(srcs []string, t, n int) string {
	if n == 1 && len(srcs) > 1 {
		return "pooled"
	}
	if t < len(srcs) {
		return srcs[t]
	}
	return strconv.Itoa(t)
}

// WriteSources writes, for every row whose runs share their sources, what
// a method made of each source and of the target at the last epoch, as a
// Markdown table: each source's weight lambda (mean over the seeds; "-"
// where no epoch moved it from where it started: the method does not weigh
// the sources), the error of its final alpha (the mean absolute difference
// from the true ratios, over the classes and seeds; "-" where the method
// does not estimate alpha) beside, in brackets, the error alpha would have
// left at 1, and the estimated target label distribution (the last epoch's
// target_dist, mean over the seeds, in class order).
func (rep *Report) WriteSources(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| scenario | dataset | method | target | seeds | source: lambda, alpha error (alpha at 1) | estimated target distribution |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, row := range rep.Rows {
		srcs := row.runs[0].Record.Identity.Sources
		var lambda, dist, uniform []float64
		ok, moved := true, row.WeighsSources()
		for _, r := range row.runs {
			ok = ok && slices.Equal(r.Record.Identity.Sources, srcs) && len(r.Result.Lambda) == len(srcs) && len(r.History) > 0
			if !ok {
				break
			}
			last := r.History[len(r.History)-1]
			lambda = addTo(lambda, r.Result.Lambda)
			dist = addTo(dist, last.TargetDist)
			uniform = addTo(uniform, unitErrors(r.Result.TrueAlpha))
		}
		if !ok {
			continue
		}
		n := float64(len(row.runs))
		per := make([]string, len(srcs))
		for t, s := range srcs {
			per[t] = s + " -"
			if moved {
				per[t] = fmt.Sprintf("%s %.3f", s, lambda[t]/n)
			}
			if len(row.AlphaErrors) == len(srcs) {
				per[t] += fmt.Sprintf(", %.3f", row.AlphaErrors[t].Error)
				if len(uniform) == len(srcs) {
					per[t] += fmt.Sprintf(" (%.3f)", uniform[t]/n)
				}
			} else {
				per[t] += ", -"
			}
		}
		shares := make([]string, len(dist))
		for k, v := range dist {
			shares[k] = fmt.Sprintf("%.3f", v/n)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %s |\n", row.Scenario, row.Dataset, row.Name(), row.Target, row.N,
			strings.Join(per, "; "), strings.Join(shares, " "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// unitErrors returns, per source, the error alpha would have left at 1:
// the mean absolute difference of the true ratios from 1 over the classes.
func unitErrors(truth [][]float64) []float64 {
	out := make([]float64, len(truth))
	for t, r := range truth {
		for _, v := range r {
			out[t] += math.Abs(v-1) / float64(len(r))
		}
	}
	return out
}

// addTo returns sum with v added element by element (sum grown from nil).
func addTo(sum, v []float64) []float64 {
	if sum == nil {
		sum = make([]float64, len(v))
	}
	for i := range min(len(sum), len(v)) {
		sum[i] += v[i]
	}
	return sum
}
