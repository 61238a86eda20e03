package wadn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/wadn-go/wadn/data"
)

// Experiment is one cell of the paper's tables: a method on one target of a
// data set in one scenario, repeated over seeds.
type Experiment struct {
	Dataset  string   // "amazon", "digits" or "office-home"
	Target   string   // target domain name
	Sources  []string // source domains; nil means every other domain loaded
	Method   string   // "wadn" or a baseline (see Methods)
	Seeds    []uint64
	Config   Config
	Protocol data.Protocol
	Domains  []data.Domain // the loaded domains (see LoadDomains)
	OutDir   string        // one sub-directory per seed; "" keeps nothing
	Resume   bool          // continue unfinished seeds, skip finished ones
	// KeepCheckpoints keeps each seed's last checkpoint (CheckpointFile,
	// 66 MB for the Amazon network) after its result is written; by default
	// it is removed then, since only an unfinished seed resumes from it.
	KeepCheckpoints bool
	// Jobs is how many seeds train at once (0 or 1: one after the other).
	// Each seed's result is the same either way: the seeds share nothing
	// but read-only data, the kernels' worker threads and the buffer pools.
	Jobs int
	// Progress, when set, is called after every step of every seed; with
	// Jobs above 1 it is called from several goroutines at once.
	Progress func(seed uint64, p StepProgress)
}

// ExperimentResult is the outcome of an Experiment, as printed by
// "wadn run --json".
type ExperimentResult struct {
	Dataset   string        `json:"dataset"`
	Target    string        `json:"target"`
	Sources   []string      `json:"sources"`
	Scenario  string        `json:"scenario"`
	Method    string        `json:"method"`
	Seeds     []uint64      `json:"seeds"`
	Accuracy  []float64     `json:"accuracy"` // per seed, percent
	Mean      float64       `json:"mean"`
	Std       float64       `json:"std"` // sample standard deviation (n-1)
	Alpha     [][][]float64 `json:"alpha"`
	TrueAlpha [][][]float64 `json:"true_alpha"`
	Lambda    [][]float64   `json:"lambda"`
}

// ResultFile is the name of a finished seed's result in its directory.
const ResultFile = "result.json"

// LoadDomains loads every domain of a data set from dir. Amazon with dir ""
// uses the copy embedded in the binary. For digits, names selects domains
// (nil: those found in dir, with synthgen).
func LoadDomains(dataset, dir string, names []string) ([]data.Domain, error) {
	switch dataset {
	case "amazon":
		return data.LoadAmazon(dir)
	case "digits":
		if names == nil {
			names = []string{"mnist", "usps", "mnist_m", "synthgen"}
		}
		return data.LoadDigitDomains(dir, names, data.DigitsOptions{Scale: data.Raw})
	case "office-home", "officehome":
		var out []data.Domain
		for _, n := range names {
			d, err := data.LoadOfficeHome(dir, n)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
		if len(out) == 0 {
			return nil, errors.New("wadn: office-home needs the domain names")
		}
		return out, nil
	}
	return nil, fmt.Errorf("wadn: unknown dataset %q (want amazon, digits or office-home)", dataset)
}

// Run trains every seed, Jobs at a time, and returns the results in the
// order of Seeds. An interrupted run returns an error wrapping
// ErrInterrupted after every running seed has saved; with Resume a later
// Run continues where it stopped. When a seed fails, the seeds running
// beside it are stopped (saving, as if interrupted), none is started, and
// the failure is returned with the results of the seeds before it.
func (e *Experiment) Run(ctx context.Context) (*ExperimentResult, error) {
	if _, err := lookupMethod(e.Method, e.Config.Scenario); err != nil {
		return nil, err
	}
	if len(e.Seeds) == 0 {
		return nil, errors.New("wadn: no seeds")
	}
	for i, s := range e.Seeds {
		if slices.Contains(e.Seeds[:i], s) {
			return nil, fmt.Errorf("wadn: seed %d is given twice (each seed is one run, in its own directory)", s)
		}
	}
	domains, err := e.pick()
	if err != nil {
		return nil, err
	}
	if e.OutDir != "" {
		if err := e.checkSettings(); err != nil {
			return nil, err
		}
	}
	res := &ExperimentResult{Dataset: e.Dataset, Target: e.Target, Scenario: e.Config.Scenario.String(),
		Method: e.Method, Seeds: e.Seeds}
	for _, d := range domains {
		if d.Name != e.Target {
			res.Sources = append(res.Sources, d.Name)
		}
	}
	results, errs := e.runSeeds(ctx, domains)
	for i, r := range results {
		if r == nil {
			return res, firstError(errs[i:])
		}
		res.Accuracy = append(res.Accuracy, r.Accuracy)
		res.Alpha = append(res.Alpha, r.Alpha)
		res.TrueAlpha = append(res.TrueAlpha, r.TrueAlpha)
		res.Lambda = append(res.Lambda, r.Lambda)
	}
	res.Mean, res.Std = meanStd(res.Accuracy)
	if e.OutDir != "" {
		if err := writeJSON(filepath.Join(e.OutDir, ExperimentFile), res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// ExperimentFile is the name of a finished experiment's summary in its
// output directory.
const ExperimentFile = "experiment.json"

// SettingsFile is the name of the file in an experiment's output directory
// that records the settings its seeds were trained with.
const SettingsFile = "settings.json"

// settings are what decides an experiment's results, as recorded in its
// SettingsFile. Seeds are not among them, nor is the thread count: the
// kernels split their work so that every sum runs in the same order whatever
// the count (TestGemmThreadsExact, TestThreadsAgree), and a run resumed with
// other threads continues the same arithmetic.
type settings struct {
	Dataset  string
	Target   string
	Sources  []string
	Method   string
	Config   Config
	Protocol data.Protocol
}

// checkSettings records the experiment's settings in its output directory.
// With Resume, settings recorded by an earlier run must be the same: seeds
// continued or skipped under other settings would mix two experiments in
// one result. A directory without recorded settings is taken as it is.
func (e *Experiment) checkSettings() error {
	now := settings{Dataset: e.Dataset, Target: e.Target, Sources: e.Sources, Method: e.Method, Config: e.Config, Protocol: e.Protocol}
	path := filepath.Join(e.OutDir, SettingsFile)
	if e.Resume {
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			var before settings
			if err := json.Unmarshal(b, &before); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			d, err := settingsDiff(before, now)
			if err != nil {
				return err
			}
			if d != "" {
				return fmt.Errorf("wadn: cannot resume in %s: its seeds were trained with other settings; resume with those or use another output directory:\n%s", e.OutDir, d)
			}
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	return writeJSON(path, now)
}

// settingsDiff returns, a line each, the settings in which the recorded
// ones differ from now, leaving out the Config settings the method does not
// read (Method.Reads): "" when none do. Lists are compared as JSON, so that
// a nil and an empty list, which the file cannot tell apart, are equal.
func settingsDiff(recorded, now settings) (string, error) {
	a, err := settingLeaves(recorded)
	if err != nil {
		return "", err
	}
	b, err := settingLeaves(now)
	if err != nil {
		return "", err
	}
	keys := maps.Clone(a)
	maps.Copy(keys, b)
	var lines []string
	for k := range keys {
		w, ok := a[k]
		if !ok {
			w = "(absent)"
		}
		v, ok := b[k]
		if !ok {
			v = "(absent)"
		}
		if w != v {
			lines = append(lines, fmt.Sprintf("  %s: recorded %s, now %s", k, w, v))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n"), nil
}

// settingLeaves returns the leaves (see leaves) of s, keyed "Target",
// "Config.C0", "Protocol.Pool" and so on, without the Config settings its
// method does not read; a null leaf reads as an empty list.
func settingLeaves(s settings) (map[string]string, error) {
	l, err := leaves(s)
	if err != nil {
		return nil, err
	}
	for k, v := range l {
		if c, ok := strings.CutPrefix(k, "Config."); ok && !readsSetting(s.Method, s.Config.Scenario, c) {
			delete(l, k)
		} else if v == "null" {
			l[k] = "[]"
		}
	}
	return l, nil
}

// writeJSON writes v as indented JSON to path atomically.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// pick returns the target and the sources among e.Domains.
func (e *Experiment) pick() ([]data.Domain, error) {
	var out []data.Domain
	var names []string
	found := false
	for _, d := range e.Domains {
		names = append(names, d.Name)
		switch {
		case d.Name == e.Target:
			found = true
			out = append(out, d)
		case e.Sources == nil || slices.Contains(e.Sources, d.Name):
			out = append(out, d)
		}
	}
	if !found {
		return nil, fmt.Errorf("wadn: target %q is not among the domains %s", e.Target, strings.Join(names, ", "))
	}
	for i, s := range e.Sources {
		if s == "" {
			return nil, errors.New("wadn: empty source name")
		}
		if slices.Contains(e.Sources[:i], s) {
			return nil, fmt.Errorf("wadn: source %q is named twice", s)
		}
		if !slices.Contains(names, s) {
			return nil, fmt.Errorf("wadn: source %q is not among the domains %s", s, strings.Join(names, ", "))
		}
		if s == e.Target {
			return nil, fmt.Errorf("wadn: %q is both the target and a source", s)
		}
	}
	if len(out) < 2 {
		return nil, errors.New("wadn: no source domain")
	}
	return out, nil
}

// runSeeds trains the seeds, e.Jobs at a time, and returns each seed's
// result or error by its index in e.Seeds; a seed not started, its
// context cancelled, has an error wrapping ErrInterrupted. A failure stops
// the other seeds through their context.
func (e *Experiment) runSeeds(ctx context.Context, domains []data.Domain) ([]*Result, []error) {
	n := len(e.Seeds)
	results, errs := make([]*Result, n), make([]error, n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(e.Jobs, 1))
	for i, seed := range e.Seeds {
		slots <- struct{}{}
		if ctx.Err() != nil {
			<-slots
			for j := i; j < n; j++ {
				errs[j] = fmt.Errorf("seed %d not started: %w", e.Seeds[j], ErrInterrupted)
			}
			break
		}
		dir := ""
		if e.OutDir != "" {
			dir = filepath.Join(e.OutDir, fmt.Sprintf("seed%d", seed))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			results[i], errs[i] = e.runSeed(ctx, domains, seed, dir)
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	return results, errs
}

// firstError returns the first error in errs that is not an interruption,
// or else the first error: a failed seed stops the seeds beside it, and
// their interruptions are not the news.
func firstError(errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, ErrInterrupted) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

func (e *Experiment) runSeed(ctx context.Context, domains []data.Domain, seed uint64, dir string) (*Result, error) {
	if dir != "" && e.Resume {
		if b, err := os.ReadFile(filepath.Join(dir, ResultFile)); err == nil {
			var r Result
			if err := json.Unmarshal(b, &r); err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ResultFile), err)
			}
			return &r, nil
		}
	}
	task, err := e.Protocol.BuildFor(domains, e.Target, seed)
	if err != nil {
		return nil, err
	}
	opt := RunOptions{Seed: seed, OutDir: dir}
	if dir != "" && e.Resume {
		if _, err := os.Stat(filepath.Join(dir, CheckpointFile)); err == nil {
			opt.Resume = true
		}
	}
	if e.Progress != nil {
		opt.Progress = func(p StepProgress) { e.Progress(seed, p) }
	}
	var r *Result
	if e.Method == "wadn" {
		r, err = Train(ctx, task, e.Config, opt)
	} else {
		var m *Method
		if m, err = lookupMethod(e.Method, e.Config.Scenario); err != nil {
			return nil, err
		}
		r, err = train(ctx, m.new(), task, e.Config, opt)
	}
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	if dir != "" {
		if err := writeJSON(filepath.Join(dir, ResultFile), r); err != nil {
			return nil, err
		}
		if !e.KeepCheckpoints {
			if err := os.Remove(filepath.Join(dir, CheckpointFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
	}
	return r, nil
}

// meanStd returns the mean and the sample standard deviation of v.
func meanStd(v []float64) (mean, std float64) {
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

// Method describes one method that Experiment.Run can train.
type Method struct {
	Name      string          // as given to Experiment.Method and "wadn run --method"
	Scenarios []data.Scenario // the scenarios the paper runs it in
	Summary   string          // one line for help texts
	new       func() algorithm
}

// methods lists WADN and the baselines of the paper's tables.
var methods = []Method{
	{"wadn", []data.Scenario{data.UDA, data.Limited, data.Partial},
		"WADN: alpha-weighted losses, conditional alignment, lambda from the bound", func() algorithm { return &wadnAlgo{} }},
	{"source", []data.Scenario{data.UDA, data.Limited, data.Partial},
		"sources merged, no adaptation (limited: Source+Tar, with the labelled target)", func() algorithm { return &sourceAlgo{} }},
	{"dann", []data.Scenario{data.UDA, data.Limited, data.Partial},
		"sources merged, one domain classifier, gradient reversal", func() algorithm { return &dannAlgo{} }},
	{"mdan", []data.Scenario{data.UDA, data.Limited},
		"a domain classifier per source, soft-max aggregation (--mdan-hard: hard-max)", func() algorithm { return &mdanAlgo{} }},
	{"mdmn", []data.Scenario{data.UDA, data.Limited},
		"multi-domain critic with WGAN-GP and pairwise domain weights", func() algorithm { return &mdmnAlgo{} }},
	{"m3sda", []data.Scenario{data.UDA, data.Limited},
		"moment matching up to order 4, two classifiers, three-step update", func() algorithm { return &m3sdaAlgo{} }},
	{"darn", []data.Scenario{data.UDA, data.Limited, data.Partial},
		"a domain classifier per source, weights by DARN's L2 projection onto the simplex", func() algorithm { return &mdanAlgo{darn: true} }},
	{"pada", []data.Scenario{data.Partial},
		"partial: class weights from the averaged target predictions, weighted adversary", func() algorithm { return &padaAlgo{} }},
	{"mme", []data.Scenario{data.Limited},
		"limited labels: minimax entropy with a cosine classifier", func() algorithm { return &mmeAlgo{} }},
	{"rlus", []data.Scenario{data.Limited},
		"limited labels: source weights from a robust discrepancy bound", func() algorithm { return &rlusAlgo{} }},
}

// wadnOnly are the Config settings only WADN reads: its conditional terms,
// its alpha and lambda estimation, and their schedules.
var wadnOnly = []string{
	"Eps", "C0", "C1", "C2", "CentroidKeep", "AlphaKeep", "LambdaKeep",
	"AlphaStart", "LambdaStart", "AlignStart", "ExplicitStart", "TargetWeight",
	"EvalEstimate", "PseudoThreshold", "SoftEstimate", "HeldOut", "OracleAlpha",
	"CodeCentroids", "CentroidMSE", "ClassNorm", "HiddenCentroids",
}

// settingReaders names, for each setting that only some methods read (a
// dotted Config field path, as settings.json records it), the methods that
// read it. Every setting not listed here is read by every method, so a new
// Config field counts for all of them until it is listed.
var settingReaders = func() map[string][]string {
	m := map[string][]string{
		"GP":                    {"wadn", "mdmn"},
		"Baseline.Mu":           {"dann", "mdan", "darn", "mdmn"},
		"Baseline.MDANGamma":    {"mdan"},
		"Baseline.MDANHard":     {"mdan"},
		"Baseline.DARNGamma":    {"darn"},
		"Baseline.M3SDAMu":      {"m3sda"},
		"Baseline.M3SDAOrder":   {"m3sda"},
		"Baseline.M3SDACentral": {"m3sda"},
		"Baseline.PoolSources":  {"source", "dann"},
		"Baseline.PADAMu":       {"pada"},
		"Baseline.PADARamp":     {"pada"},
		"Baseline.MMELambda":    {"mme"},
		"Baseline.MMETemp":      {"mme"},
		"Baseline.RLUSC":        {"rlus"},
		"Baseline.TargetWeight": {"dann", "mdan", "darn", "mdmn", "m3sda", "pada"},
	}
	for _, k := range wadnOnly {
		m[k] = []string{"wadn"}
	}
	return m
}()

// settingScenarios names, for each setting that only some scenarios read,
// those scenarios: the labelled target's weight and the transductive
// sample exist with limited labels only; with them alpha comes from the
// labels, so its estimation settings and the pseudo-labels go unread.
var settingScenarios = map[string][]data.Scenario{
	"TargetWeight":          {data.Limited},
	"Baseline.TargetWeight": {data.Limited},
	"Transductive":          {data.Limited},
	"C2":                    {data.UDA, data.Partial},
	"AlphaKeep":             {data.UDA, data.Partial},
	"AlphaStart":            {data.UDA, data.Partial},
	"EvalEstimate":          {data.UDA, data.Partial},
	"HeldOut":               {data.UDA, data.Partial},
	"SoftEstimate":          {data.UDA, data.Partial},
	"PseudoThreshold":       {data.UDA, data.Partial},
}

// Reads reports whether the method's training in scenario sc reads the
// setting key, a dotted path of a Config field ("C0", "Baseline.Mu").
// Settings a run does not read neither refuse a resumed run nor label a
// report row, and wadn run refuses their flags.
func (m Method) Reads(sc data.Scenario, key string) bool {
	if scs, ok := settingScenarios[key]; ok && !slices.Contains(scs, sc) {
		return false
	}
	readers, ok := settingReaders[key]
	return !ok || slices.Contains(readers, m.Name)
}

// readsSetting is Method.Reads for a method named in recorded settings; an
// unknown name reads everything.
func readsSetting(method string, sc data.Scenario, key string) bool {
	for _, m := range methods {
		if m.Name == method {
			return m.Reads(sc, key)
		}
	}
	return true
}

// Methods returns every method Experiment.Run accepts, WADN first.
func Methods() []Method { return slices.Clone(methods) }

// MethodNames returns the names of Methods.
func MethodNames() []string {
	out := make([]string, len(methods))
	for i, m := range methods {
		out[i] = m.Name
	}
	return out
}

// lookupMethod returns the method called name, or an error naming the valid
// methods or, for a method the paper does not run in scenario, its scenarios.
func lookupMethod(name string, scenario data.Scenario) (*Method, error) {
	for i := range methods {
		m := &methods[i]
		if m.Name != name {
			continue
		}
		if !slices.Contains(m.Scenarios, scenario) {
			var sc []string
			for _, s := range m.Scenarios {
				sc = append(sc, s.String())
			}
			return nil, fmt.Errorf("wadn: method %s runs in the %s scenario(s), not %s", name, strings.Join(sc, ", "), scenario)
		}
		return m, nil
	}
	return nil, fmt.Errorf("wadn: unknown method %q (want one of %s)", name, strings.Join(MethodNames(), ", "))
}

// LookupMethod returns the method Experiment.Run trains as method in
// scenario, or an error naming the valid methods or the method's scenarios.
func LookupMethod(method string, scenario data.Scenario) (Method, error) {
	m, err := lookupMethod(method, scenario)
	if err != nil {
		return Method{}, err
	}
	return *m, nil
}
