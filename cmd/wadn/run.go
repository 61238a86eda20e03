package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
		usage:   "[--dataset amazon|digits|officehome] [--target T] [--sources A,B] [--scenario uda|limited|partial] [--method wadn|source|dann|mdan|mdmn|m3sda|darn|pada|mme|rlus] [--seeds 0,1,2] [--epochs N] [--data DIR] [--out DIR] [--resume] [--keep-checkpoints] [--threads N] [--json]",
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
	asJSON := fs.Bool("json", false, "print the final result as one JSON object")
	quiet := fs.Bool("quiet", false, "print no progress")
	split := fs.String("split", "", "how the domains' samples are drawn: pool (from the train and test rows together, the target tested on the rest: the MDAN and DARN code's split, the default for amazon) or fixed (training samples from the train rows, the target tested on its test rows: the default elsewhere)")
	var hp hyper
	hp.flags(fs)
	var bf baselineFlags
	bf.register(fs)
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
	if *epochs > 0 {
		cfg.Epochs = *epochs
	}
	if err := hp.apply(fs, &cfg); err != nil {
		fmt.Fprintf(e.stderr, "wadn run: %v\n", err)
		return errUsage
	}
	cfg.Baseline = wadn.DefaultBaselineConfig(ds, sc)
	bf.apply(fs, &cfg.Baseline)
	if flagSet(fs, "target-weight") {
		cfg.TargetWeight = cfg.Baseline.TargetWeight
	}
	if err := wadn.CheckMethod(*method, sc); err != nil {
		fmt.Fprintf(e.stderr, "wadn run: --method: %v\n", err)
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
	}
	if !*quiet {
		var last time.Time
		exp.Progress = func(seed uint64, p wadn.StepProgress) {
			if time.Since(last) < time.Second && p.Step != p.Steps {
				return
			}
			last = time.Now()
			acc := "  -  "
			if !math.IsNaN(p.Accuracy) {
				acc = fmt.Sprintf("%.2f", p.Accuracy)
			}
			fmt.Fprintf(e.stderr, "seed %d epoch %d/%d step %d/%d loss %.4f class %.4f target acc %s lambda %s left %s\n",
				seed, p.Epoch, p.Epochs, p.Step, p.Steps, p.Loss, p.Class, acc, fmtVec(p.Lambda), p.Remaining.Round(time.Second))
		}
	}
	fmt.Fprintf(e.stderr, "%s %s on %s target %s, seeds %v, %d epochs, %d threads (%s kernels); output %s\n",
		*method, sc, ds, *target, seedList, cfg.Epochs, kernel.Threads(), kernel.Impl(), *out)
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
	for i, s := range res.Seeds {
		fmt.Fprintf(e.stdout, "seed %d: target %s accuracy %.2f%%\n", s, res.Target, res.Accuracy[i])
	}
	fmt.Fprintf(e.stdout, "%s %s %s -> %s: %.2f +- %.2f%% over %d seeds\n",
		res.Method, res.Scenario, strings.Join(res.Sources, ","), res.Target, res.Mean, res.Std, len(res.Seeds))
	return nil
}

// parseSeeds reads a comma-separated list of non-negative integers.
func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a seed (a non-negative integer)", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func fmtVec(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.3f", x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// hyper holds the hyperparameter flags of wadn run; flags left unset keep the
// paper's defaults of the chosen data set and scenario.
type hyper struct {
	lr, eps, c0, c1, c2, gp, dropout, pseudoThreshold                float64
	centroidKeep, alphaKeep, lambdaKeep                              float64
	batch, depth, alphaStart, lambdaStart, alignStart, explicitStart int
	evalEstimate, heldOut, oracleAlpha, transductive, softEstimate   bool
}

func (h *hyper) flags(fs *flag.FlagSet) {
	fs.Float64Var(&h.lr, "lr", 0, "Adadelta learning rate (default: the paper's)")
	fs.IntVar(&h.batch, "batch", 0, "samples per domain per step (default: the paper's)")
	fs.Float64Var(&h.eps, "eps", 0, "share of the explicit conditional term (default 0.5)")
	fs.Float64Var(&h.c0, "c0", 0, "weight of the conditional terms (default 0.01; 0.002 with limited labels)")
	fs.Float64Var(&h.c1, "c1", 0, "norm weight of the lambda problem (default 1 for amazon, max_t L_t otherwise)")
	fs.Float64Var(&h.c2, "c2", 0, "L1 weight of the alpha problem (default 0, 0.1 for partial)")
	fs.Float64Var(&h.gp, "gp", 0, "gradient-penalty coefficient (default 10)")
	fs.Float64Var(&h.dropout, "dropout", 0, "Amazon dropout probability (default 0.7)")
	fs.Float64Var(&h.centroidKeep, "centroid-keep", 0, "centroid moving-average keep rate (default 0.7)")
	fs.Float64Var(&h.alphaKeep, "alpha-keep", 0, "alpha moving-average keep rate (default 0.7)")
	fs.Float64Var(&h.lambdaKeep, "lambda-keep", 0, "lambda moving-average keep rate (default 0.8)")
	fs.IntVar(&h.alphaStart, "alpha-start", 0, "first epoch whose end re-estimates alpha (default 3)")
	fs.IntVar(&h.lambdaStart, "lambda-start", 0, "first epoch whose end re-estimates lambda (default 2 amazon, 6 digits)")
	fs.IntVar(&h.alignStart, "align-start", 0, "first epoch whose steps include the conditional (centroid and critic) terms (default 20 amazon uda/partial, else 1)")
	fs.IntVar(&h.explicitStart, "explicit-start", 0, "first epoch whose steps include the centroid term, the critics starting at --align-start (default: with them)")
	fs.BoolVar(&h.heldOut, "held-out", false, "estimate alpha from each source's confusion on its held-out test rows")
	fs.BoolVar(&h.transductive, "transductive", false, "limited labels: every method also reads the target's test rows, labels unread, as its unlabelled target sample (default: the labelled 10% is all it sees of the target)")
	fs.BoolVar(&h.oracleAlpha, "oracle-alpha", false, "diagnostic: fix alpha at the true label ratios (reads the target labels)")
	fs.Float64Var(&h.pseudoThreshold, "pseudo-threshold", 0, "unsupervised: leave target rows predicted with a probability below this out of the target centroids (default 0: every row)")
	fs.BoolVar(&h.softEstimate, "soft-estimate", false, "estimate alpha from the training batches' soft-max probabilities instead of their arg-max")
	fs.BoolVar(&h.evalEstimate, "eval-estimate", false, "estimate alpha from an evaluation-mode pass over all training samples")
	fs.IntVar(&h.depth, "depth", 0, "Amazon extractor depth: 1 as the paper describes, 3 as the authors' code (default 3)")
}

// apply copies the flags that were set into cfg.
func (h *hyper) apply(fs *flag.FlagSet, cfg *wadn.Config) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "lr":
			cfg.LR = h.lr
		case "batch":
			cfg.Batch = h.batch
		case "eps":
			cfg.Eps = h.eps
		case "c0":
			cfg.C0 = h.c0
		case "c1":
			cfg.C1 = h.c1
		case "c2":
			cfg.C2 = h.c2
		case "gp":
			cfg.GP = h.gp
		case "dropout":
			cfg.Dropout = h.dropout
		case "centroid-keep":
			cfg.CentroidKeep = h.centroidKeep
		case "alpha-keep":
			cfg.AlphaKeep = h.alphaKeep
		case "lambda-keep":
			cfg.LambdaKeep = h.lambdaKeep
		case "alpha-start":
			cfg.AlphaStart = h.alphaStart
		case "lambda-start":
			cfg.LambdaStart = h.lambdaStart
		case "align-start":
			cfg.AlignStart = h.alignStart
		case "explicit-start":
			cfg.ExplicitStart = h.explicitStart
		case "held-out":
			cfg.HeldOut = h.heldOut
		case "transductive":
			cfg.Transductive = h.transductive
		case "oracle-alpha":
			cfg.OracleAlpha = h.oracleAlpha
		case "eval-estimate":
			cfg.EvalEstimate = h.evalEstimate
		case "pseudo-threshold":
			cfg.PseudoThreshold = h.pseudoThreshold
		case "soft-estimate":
			cfg.SoftEstimate = h.softEstimate
		case "depth":
			cfg.Depth = h.depth
			if cfg.Dataset != "amazon" {
				err = fmt.Errorf("--depth applies to the amazon network only")
			}
		}
	})
	return err
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
