package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/datadir"
	"github.com/wadn-go/wadn/internal/numerics"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/trainer"
)

func init() {
	register(&command{
		name:    "run",
		summary: "train WADN or a baseline on a target over seeds (default: WADN, Amazon, unsupervised, target kitchen)",
		usage:   "[--config FILE] [--dataset D] [--target T] [--scenario S] [--method M] [--seeds 0,1,2] [--NAME VALUE | --set NAME=VALUE ...] [--out DIR] | --resume --out DIR",
		run:     runRun,
	})
	defaultCommand = "run"
}

// runFlags are the flags of wadn run other than the settings.
type runFlags struct {
	config, out, dataDir              string
	resume, wait, keep, asJSON, quiet bool
	loose                             bool // --allow-unverified
	threads, jobs                     int
	sf                                settingFlags
	fs                                *flag.FlagSet
}

// planFlags are the flags of wadn run that set the plan's keys.
var planFlags = []string{"dataset", "target", "sources", "scenario", "method", "seeds", "epochs", "numerics"}

func newRunFlags(c *command, e *env) *runFlags {
	r := &runFlags{fs: newFlagSet(c, e)}
	fs := r.fs
	fs.StringVar(&r.config, "config", "", "experiment file: a JSON object of flags and settings by name (flags given here override it)")
	fs.String("dataset", "amazon", datasetHelp())
	fs.String("target", "", targetHelp())
	fs.String("sources", "", "comma-separated source domains (default: every other domain)")
	fs.String("scenario", "uda", "scenario: uda (unsupervised), limited (10% target labels) or partial")
	fs.String("method", "wadn", methodHelp())
	fs.String("seeds", "0", "comma-separated seeds, one run each")
	fs.String("epochs", "", "epochs per run (default: the data set's and scenario's, as wadn help settings lists them)")
	fs.String("numerics", "default", "numerics mode: default (fastest on this machine) or reference (the same bits on every platform; see docs/numerics.md)")
	fs.StringVar(&r.dataDir, "data", datadir.Default(), "data directory (default "+datadir.Help+"; amazon falls back to the copy embedded in the binary)")
	fs.StringVar(&r.out, "out", "runs", "directory of the run directories, one per run, named by the run's identity")
	fs.BoolVar(&r.resume, "resume", false, "continue every unfinished run recorded under --out, with the settings it recorded (give no settings)")
	fs.BoolVar(&r.wait, "wait", false, "wait for a run directory that another process has locked, instead of failing")
	fs.BoolVar(&r.keep, "keep-checkpoints", false, "keep each finished run's last checkpoint (by default only its weights are kept)")
	fs.BoolVar(&r.loose, "allow-unverified", false, "accept data that differ from the published data sets (one's own, in their layout); the runs and their report rows say so")
	fs.IntVar(&r.threads, "threads", 0, "worker threads of the kernels (0: all cores)")
	fs.IntVar(&r.jobs, "jobs", 1, "runs trained at once, sharing the worker threads (each gives what it gives alone)")
	fs.BoolVar(&r.asJSON, "json", false, "print the results as JSON, one object per line and method, target and settings")
	fs.BoolVar(&r.quiet, "quiet", false, "print no progress")
	r.sf.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: wadn %s %s\n\n%s\n\nflags:\n", c.name, c.usage, c.summary)
		r.sf.printUsage(e.stderr, fs)
		fmt.Fprintln(e.stderr, "\nEvery setting (c0, lr, dropout, mu, ...) is also a flag; 'wadn help settings' lists them with their defaults.")
	}
	return r
}

func runRun(ctx context.Context, e *env, args []string) error {
	r := newRunFlags(commands["run"], e)
	fs := r.fs
	if err := noOperands(fs, args); err != nil {
		if old := renamedFlag(err); old != "" {
			fmt.Fprintf(e.stderr, "wadn run: --%s is now %s\n", old, renamed[old])
		}
		return err
	}
	usage := func(format string, a ...any) error {
		fmt.Fprintf(e.stderr, "wadn run: "+format+"\n", a...)
		return errUsage
	}
	if r.threads < 0 {
		return usage("--threads %d: want a positive count, or 0 for all cores", r.threads)
	}
	if r.jobs < 1 {
		return usage("--jobs %d: want at least 1", r.jobs)
	}
	specs, dataDirs, err := r.specs()
	if err != nil {
		var u cmdLineError
		if errors.As(err, &u) {
			return usage("%v", u.error)
		}
		return err
	}
	if specs == nil {
		fmt.Fprintf(e.stderr, "nothing to resume: every run under %s has finished (wadn report %s shows them)\n", r.out, r.out)
		return nil
	}
	kernel.SetThreads(r.threads)
	// Runs from other data directories or in other numerics modes (a
	// resumed tree) run apart.
	type groupKey struct {
		dir  string
		mode numerics.Mode
	}
	var groups [][]*experiment.Spec
	byDir := map[groupKey]int{}
	for _, s := range specs {
		d := groupKey{dataDirs[s], s.Numerics}
		i, ok := byDir[d]
		if !ok {
			i = len(groups)
			byDir[d] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], s)
	}
	var outs []*experiment.Outcome
	for _, g := range groups {
		dir := dataDirs[g[0]]
		where := dir
		if where == "" {
			if !g[0].Dataset.Embedded {
				return usage("%s has no embedded copy: give its data directory with --data DIR or $%s", g[0].Dataset, datadir.Env)
			}
			where = "the embedded copy"
		}
		fmt.Fprintf(e.stderr, "%d run(s), %d at a time, %d threads (%s kernels, %s numerics); data from %s; output under %s\n",
			len(g), min(r.jobs, len(g)), kernel.Threads(), kernel.Impl(), g[0].Numerics, where, r.out)
		rn := &experiment.Runner{Out: r.out, DataDir: dir, Jobs: r.jobs, Wait: r.wait, KeepCheckpoints: r.keep, AllowUnverified: r.loose}
		several := cells(g) > 1
		rn.Note = func(s *experiment.Spec, msg string) {
			fmt.Fprintf(e.stderr, "%s: %s\n", runName(s, several), msg)
		}
		if !r.quiet {
			rn.Progress = progressPrinter(e.stderr, several)
		}
		e.savesOnInterrupt()
		o, err := rn.Run(ctx, g)
		outs = append(outs, o...)
		if errors.Is(err, trainer.ErrInterrupted) {
			fmt.Fprintf(e.stderr, "interrupted; every run saved its state: continue with\n  wadn run --resume --out %s\n", r.out)
			return &exitError{code: e.interruptedCode()}
		}
		if err != nil {
			return err
		}
	}
	return printOutcomes(e.stdout, outs, r.asJSON)
}

// cmdLineError is a mistake on the command line.
type cmdLineError struct{ error }

func usagef(format string, a ...any) error { return cmdLineError{fmt.Errorf(format, a...)} }

// specs returns the runs the command line asks for, with the data directory
// of each: those of --config, the flags and the settings, or with --resume
// the unfinished runs under --out (nil when there are none).
func (r *runFlags) specs() ([]*experiment.Spec, map[*experiment.Spec]string, error) {
	fs := r.fs
	dataDirs := map[*experiment.Spec]string{}
	if r.resume {
		var given []string
		fs.Visit(func(f *flag.Flag) {
			if slices.Contains(planFlags, f.Name) || r.sf.names[f.Name] || f.Name == "set" || f.Name == "config" {
				given = append(given, "--"+f.Name)
			}
		})
		if len(given) > 0 {
			return nil, nil, usagef("--resume continues the runs under --out with the settings they recorded: give no %s", strings.Join(given, ", "))
		}
		list, dirs, err := experiment.Unfinished(r.out)
		if err != nil || len(list) == 0 {
			return nil, nil, err
		}
		for i, s := range list {
			dataDirs[s] = dirs[i]
			if flagSet(fs, "data") {
				dataDirs[s] = r.dataDir
			}
		}
		return list, dataDirs, nil
	}
	plan := &experiment.Plan{}
	if r.config != "" {
		f, err := os.Open(r.config)
		if err != nil {
			return nil, nil, usagef("--config: %v", err)
		}
		plan, err = experiment.ReadPlan(f)
		f.Close()
		if err != nil {
			return nil, nil, usagef("--config %s: %v", r.config, err)
		}
		if plan.Out != "" && !flagSet(fs, "out") {
			r.out = plan.Out
		}
		if plan.DataDir != "" && !flagSet(fs, "data") {
			r.dataDir = plan.DataDir
		}
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(planFlags, f.Name) {
			err = plan.Set(f.Name, f.Value.String())
		}
	})
	for _, a := range r.sf.list {
		if err == nil {
			err = plan.Set(a.name, a.value)
		}
	}
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	specs, err := plan.Specs()
	if err != nil {
		return nil, nil, usagef("%v", flagNames(err))
	}
	for _, s := range specs {
		if err := s.Validate(); err != nil {
			return nil, nil, usagef("%s: %v", s.Method.Name, flagNames(err))
		}
		dataDirs[s] = r.dataDir
	}
	return specs, dataDirs, nil
}

// renamedFlag returns the name of a flag of an earlier version that err
// reports as undefined, or "".
func renamedFlag(err error) string {
	const prefix = "flag provided but not defined: -"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return ""
	}
	name := strings.TrimPrefix(strings.TrimPrefix(msg, prefix), "-")
	if _, ok := renamed[name]; ok {
		return name
	}
	return ""
}

// flagNames rewrites a settings error for the command line: "c0: ..." and
// "c0 is ..." become "--c0: ..." and "--c0 is ...".
func flagNames(err error) string {
	msg := err.Error()
	name, rest, ok := strings.Cut(msg, " ")
	if ok && strings.HasSuffix(name, ":") {
		name, rest = strings.TrimSuffix(name, ":"), ": "+rest
	} else {
		rest = " " + rest
	}
	for _, f := range allSettings() {
		if f.Name == name {
			return "--" + name + rest
		}
	}
	return msg
}

// cells counts the distinct cells (all but the seed) among specs.
func cells(specs []*experiment.Spec) int {
	seen := map[string]bool{}
	for _, s := range specs {
		seen[s.Cell()] = true
	}
	return len(seen)
}

// runName names a run in messages: its seed, and with several cells its
// method, target and label.
func runName(s *experiment.Spec, several bool) string {
	if !several {
		return fmt.Sprintf("seed %d", s.Seed)
	}
	n := fmt.Sprintf("%s %s %s seed %d", s.Method.Name, s.Scenario, s.Target, s.Seed)
	if l := s.Label(); l != "" {
		n += " [" + l + "]"
	}
	return n
}

// progressPrinter prints a line per run at most every second and at the
// end of every epoch.
func progressPrinter(w io.Writer, several bool) func(*experiment.Spec, method.Progress) {
	var mu sync.Mutex
	last := map[*experiment.Spec]time.Time{}
	return func(s *experiment.Spec, p method.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last[s]) < time.Second && p.Step != p.Steps {
			return
		}
		last[s] = time.Now()
		acc := "  -  "
		if !math.IsNaN(p.Accuracy) {
			acc = fmt.Sprintf("%.2f", p.Accuracy)
		}
		fmt.Fprintf(w, "%s epoch %d/%d step %d/%d loss %.4f class %.4f target acc %s lambda %s left %s\n",
			runName(s, several), p.Epoch, p.Epochs, p.Step, p.Steps, p.Loss, p.Class, acc, fmtVec(p.Lambda), fmtLeft(p.Remaining))
	}
}

// cellResult is the result of one cell's runs, as wadn run --json prints it.
type cellResult struct {
	Dataset   string        `json:"dataset"`
	Target    string        `json:"target"`
	Sources   []string      `json:"sources"`
	Scenario  string        `json:"scenario"`
	Method    string        `json:"method"`
	Label     string        `json:"label"`
	Seeds     []uint64      `json:"seeds"`
	Accuracy  []float64     `json:"accuracy"` // per seed, percent
	Mean      float64       `json:"mean"`
	Std       float64       `json:"std"` // sample standard deviation (n-1)
	Alpha     [][][]float64 `json:"alpha"`
	TrueAlpha [][][]float64 `json:"true_alpha"`
	Lambda    [][]float64   `json:"lambda"`
	Dirs      []string      `json:"dirs"`
}

// printOutcomes prints the outcomes grouped by cell: a summary per cell, or
// a JSON object per cell and line.
func printOutcomes(w io.Writer, outs []*experiment.Outcome, asJSON bool) error {
	var order []string
	byCell := map[string]*cellResult{}
	for _, o := range outs {
		k := o.Spec.Cell()
		c, ok := byCell[k]
		if !ok {
			s := o.Spec
			c = &cellResult{Dataset: s.Dataset.Name, Target: s.Target, Scenario: s.Scenario.String(), Method: s.Method.Name, Label: s.Label()}
			byCell[k] = c
			order = append(order, k)
		}
		c.Seeds = append(c.Seeds, o.Spec.Seed)
		c.Accuracy = append(c.Accuracy, o.Result.Accuracy)
		c.Alpha = append(c.Alpha, o.Result.Alpha)
		c.TrueAlpha = append(c.TrueAlpha, o.Result.TrueAlpha)
		c.Lambda = append(c.Lambda, o.Result.Lambda)
		c.Dirs = append(c.Dirs, o.Dir)
		if c.Sources == nil {
			c.Sources = o.Sources
		}
	}
	for _, k := range order {
		c := byCell[k]
		c.Mean, c.Std = experiment.MeanStd(c.Accuracy)
		if asJSON {
			b, err := json.Marshal(c)
			if err != nil {
				return err
			}
			fmt.Fprintln(w, string(b))
			continue
		}
		writeSummary(w, c)
	}
	return nil
}

// writeSummary prints each seed's accuracy and their mean, with the sample
// standard deviation when there are two seeds or more.
func writeSummary(w io.Writer, res *cellResult) {
	for i, s := range res.Seeds {
		fmt.Fprintf(w, "seed %d: target %s accuracy %.2f%%\n", s, res.Target, res.Accuracy[i])
	}
	head := fmt.Sprintf("%s %s %s -> %s", res.Method, res.Scenario, strings.Join(res.Sources, ","), res.Target)
	if res.Label != "" {
		head += " [" + res.Label + "]"
	}
	if len(res.Seeds) == 1 {
		fmt.Fprintf(w, "%s: %.2f%% (1 seed)\n", head, res.Mean)
		return
	}
	fmt.Fprintf(w, "%s: %.2f +- %.2f%% over %d seeds\n", head, res.Mean, res.Std, len(res.Seeds))
}

// methodHelp lists the methods of wadn run with their scenarios, and the
// paper's name of a method in a scenario where it has another.
func methodHelp() string {
	var b strings.Builder
	b.WriteString("method:")
	for _, m := range experiment.Methods {
		var sc []string
		for _, s := range m.Scenarios {
			if t := m.Title(s); t != m.Name {
				sc = append(sc, s.String()+" as "+t)
				continue
			}
			sc = append(sc, s.String())
		}
		fmt.Fprintf(&b, "\n  %s (%s): %s", m.Name, strings.Join(sc, ", "), m.Summary)
	}
	return b.String()
}

// datasetHelp lists the data sets of the registry, each with its domains
// and what it is.
func datasetHelp() string {
	var b strings.Builder
	b.WriteString("data set:")
	for _, d := range dataset.All {
		fmt.Fprintf(&b, "\n  %s (%s): %s", d.Name, strings.Join(d.Domains, ", "), d.Summary)
	}
	return b.String()
}

// targetHelp says which target a run takes by default on each data set.
func targetHelp() string {
	var defaults []string
	for _, d := range dataset.All {
		if d.Target != "" {
			defaults = append(defaults, d.Target+" for "+d.Name)
		}
	}
	return "target domain (default: " + strings.Join(defaults, ", ") + ")"
}

// fmtLeft formats an estimate of the time left, "-" while there is none.
func fmtLeft(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return d.Round(time.Second).String()
}

func fmtVec(v []float64) string {
	return "[" + joinFloats(v, "%.3f", " ") + "]"
}

// joinFloats formats each of xs with format and joins them with sep.
func joinFloats(xs []float64, format, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf(format, x)
	}
	return strings.Join(parts, sep)
}
