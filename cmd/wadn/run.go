package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/datadir"
	"github.com/wadn-go/wadn/wadn"
)

func init() {
	register(&command{
		name:    "run",
		summary: "run WADN or a baseline on one target over several seeds (default: WADN, Amazon, unsupervised, target kitchen)",
		usage:   "[--dataset amazon|digits|officehome] [--target T] [--sources A,B] [--scenario uda|limited|partial] [--method wadn|source|dann|mdan|mdmn|m3sda|darn|pada|mme|rlus] [--seeds 0,1,2] [--epochs N] [--data DIR] [--out DIR] [--resume] [--keep-checkpoints] [--threads N] [--jobs N] [--json]",
		run:     runRun,
	})
	defaultCommand = "run"
}

func runRun(ctx context.Context, e *env, args []string) error {
	c := commands["run"]
	fs := newFlagSet(c, e)
	dataset := fs.String("dataset", "amazon", "data set: amazon, digits or officehome")
	target := fs.String("target", "", "target domain (default kitchen for amazon, mnist for digits)")
	sources := fs.String("sources", "", "comma-separated source domains (default: every other domain)")
	scenario := fs.String("scenario", "uda", "scenario: uda (unsupervised), limited (10% target labels) or partial")
	method := fs.String("method", "wadn", methodHelp())
	seeds := fs.String("seeds", "0", "comma-separated seeds, one run each")
	epochs := fs.Int("epochs", 0, "epochs per run (0: the paper's, 50 for amazon and 60 for digits)")
	dir := fs.String("data", os.Getenv(datadir.Env), "data directory (default $"+datadir.Env+"; amazon falls back to the embedded copy)")
	out := fs.String("out", "", "output directory (default runs/DATASET-TARGET-SCENARIO-METHOD)")
	keep := fs.Bool("keep-checkpoints", false, "keep each finished seed's last checkpoint (by default removed once its result.json is written)")
	resume := fs.Bool("resume", false, "continue an interrupted experiment in the output directory (with the settings it recorded)")
	threads := fs.Int("threads", 0, "worker threads (0: all cores)")
	jobs := fs.Int("jobs", 1, "seeds trained at once, sharing the worker threads (each seed's result is the same as alone)")
	asJSON := fs.Bool("json", false, "print the final result as one JSON object")
	quiet := fs.Bool("quiet", false, "print no progress")
	split := fs.String("split", "", "how the domains' samples are drawn: pool (from the train and test rows together, the target tested on the rest: the MDAN and DARN code's split, the default for amazon) or fixed (training samples from the train rows, the target tested on its test rows: the default elsewhere)")
	registerConfigFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "wadn run: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	ds := *dataset
	if ds == "officehome" {
		ds = "office-home"
	}
	var sc data.Scenario
	switch *scenario {
	case "uda":
		sc = data.UDA
	case "limited":
		sc = data.Limited
	case "partial":
		sc = data.Partial
	default:
		fmt.Fprintf(e.stderr, "wadn run: --scenario must be uda, limited or partial, not %q\n", *scenario)
		return errUsage
	}
	seedList, err := parseSeeds(*seeds)
	if err != nil {
		fmt.Fprintf(e.stderr, "wadn run: --seeds: %v\n", err)
		return errUsage
	}
	cfg, err := wadn.DefaultConfig(ds, sc)
	if err != nil {
		fmt.Fprintf(e.stderr, "wadn run: %v\n", err)
		return errUsage
	}
	if *epochs < 0 {
		fmt.Fprintf(e.stderr, "wadn run: --epochs %d: want a positive count, or 0 for the paper's\n", *epochs)
		return errUsage
	}
	if *epochs > 0 {
		cfg.Epochs = *epochs
	}
	if *threads < 0 {
		fmt.Fprintf(e.stderr, "wadn run: --threads %d: want a positive count, or 0 for all cores\n", *threads)
		return errUsage
	}
	if *jobs < 1 {
		fmt.Fprintf(e.stderr, "wadn run: --jobs %d: want at least 1\n", *jobs)
		return errUsage
	}
	m, err := wadn.LookupMethod(*method, sc)
	if err != nil {
		fmt.Fprintf(e.stderr, "wadn run: --method: %v\n", err)
		return errUsage
	}
	cfg.Baseline = wadn.DefaultBaselineConfig(ds, sc)
	if err := applyConfigFlags(fs, m, &cfg); err != nil {
		fmt.Fprintf(e.stderr, "wadn run: %v\n", err)
		return errUsage
	}
	if err := checkNetwork(&cfg); err != nil {
		fmt.Fprintf(e.stderr, "wadn run: %v\n", err)
		return errUsage
	}
	proto, err := wadn.DefaultProtocol(ds, sc)
	if err != nil {
		fmt.Fprintf(e.stderr, "wadn run: %v\n", err)
		return errUsage
	}
	if *target == "" {
		*target = map[string]string{"amazon": "kitchen", "digits": "mnist"}[ds]
	}
	switch *split {
	case "":
	case "pool":
		proto.Pool = true
	case "fixed":
		proto.Pool = false
	default:
		fmt.Fprintf(e.stderr, "wadn run: --split must be pool or fixed, not %q\n", *split)
		return errUsage
	}
	if *target == "" {
		fmt.Fprintf(e.stderr, "wadn run: --target is required for %s\n", ds)
		return errUsage
	}
	var srcs []string
	if *sources != "" {
		srcs = strings.Split(*sources, ",")
	}
	var names []string
	if srcs != nil {
		names = append([]string{*target}, srcs...)
	}
	kernel.SetThreads(*threads)
	if *out == "" {
		*out = filepath.Join("runs", fmt.Sprintf("%s-%s-%s-%s", ds, *target, sc, *method))
	}
	where := *dir
	if where == "" {
		if ds != "amazon" {
			fmt.Fprintf(e.stderr, "wadn run: %s has no embedded copy: give its data directory with --data DIR or $%s\n", ds, datadir.Env)
			return errUsage
		}
		where = "the embedded copy"
	}
	fmt.Fprintf(e.stderr, "loading %s from %s\n", ds, where)
	domains, err := wadn.LoadDomains(ds, *dir, names)
	if err != nil {
		return err
	}
	exp := &wadn.Experiment{
		Dataset: ds, Target: *target, Sources: srcs, Method: *method, Seeds: seedList,
		Config: cfg, Protocol: proto, Domains: domains, OutDir: *out, Resume: *resume, KeepCheckpoints: *keep,
		Jobs: *jobs,
	}
	if !*quiet {
		var mu sync.Mutex
		last := map[uint64]time.Time{}
		exp.Progress = func(seed uint64, p wadn.StepProgress) {
			mu.Lock()
			defer mu.Unlock()
			if time.Since(last[seed]) < time.Second && p.Step != p.Steps {
				return
			}
			last[seed] = time.Now()
			acc := "  -  "
			if !math.IsNaN(p.Accuracy) {
				acc = fmt.Sprintf("%.2f", p.Accuracy)
			}
			fmt.Fprintf(e.stderr, "seed %d epoch %d/%d step %d/%d loss %.4f class %.4f target acc %s lambda %s left %s\n",
				seed, p.Epoch, p.Epochs, p.Step, p.Steps, p.Loss, p.Class, acc, fmtVec(p.Lambda), fmtLeft(p.Remaining))
		}
	}
	fmt.Fprintf(e.stderr, "%s %s on %s target %s, seeds %v (%d at a time), %d epochs, %d threads (%s kernels); output %s\n",
		*method, sc, ds, *target, seedList, min(*jobs, len(seedList)), cfg.Epochs, kernel.Threads(), kernel.Impl(), *out)
	res, err := exp.Run(ctx)
	if errors.Is(err, wadn.ErrInterrupted) {
		fmt.Fprintf(e.stderr, "interrupted; state saved in %s: continue with --resume --out %s\n", *out, *out)
		return &exitError{code: 130}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	writeSummary(e.stdout, res)
	return nil
}

// writeSummary prints each seed's accuracy and their mean, with the sample
// standard deviation when there are two seeds or more.
func writeSummary(w io.Writer, res *wadn.ExperimentResult) {
	for i, s := range res.Seeds {
		fmt.Fprintf(w, "seed %d: target %s accuracy %.2f%%\n", s, res.Target, res.Accuracy[i])
	}
	head := fmt.Sprintf("%s %s %s -> %s", res.Method, res.Scenario, strings.Join(res.Sources, ","), res.Target)
	if len(res.Seeds) == 1 {
		fmt.Fprintf(w, "%s: %.2f%% (1 seed)\n", head, res.Mean)
		return
	}
	fmt.Fprintf(w, "%s: %.2f +- %.2f%% over %d seeds\n", head, res.Mean, res.Std, len(res.Seeds))
}

// parseSeeds reads a comma-separated list of distinct non-negative
// integers.
func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a seed (a non-negative integer)", f)
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("seed %d is given twice (each seed is one run)", v)
		}
		out = append(out, v)
	}
	return out, nil
}

// fmtLeft formats an estimate of the time left, "-" while there is none.
func fmtLeft(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return d.Round(time.Second).String()
}

func fmtVec(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.3f", x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
