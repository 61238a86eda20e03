package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/datadir"
	"github.com/wadn-go/wadn/wadn"
)

func init() {
	register(&command{
		name:    "train",
		summary: "train the digits CNN on one labelled digits domain",
		usage:   "[--data DIR] [--domain mnist] [--epochs N] [--out DIR] [--resume] [--json]",
		run:     runTrain,
	})
}

func runTrain(ctx context.Context, e *env, args []string) error {
	c := commands["train"]
	fs := newFlagSet(c, e)
	dir := fs.String("data", os.Getenv(datadir.Env), "data directory (default $"+datadir.Env+")")
	domain := fs.String("domain", "mnist", "digits domain: mnist, usps, mnist_m, svhn, synth or synthgen")
	epochs := fs.Int("epochs", 3, "number of epochs")
	batch := fs.Int("batch", 128, "mini-batch size")
	lr := fs.Float64("lr", 1.0, "Adadelta learning rate")
	seed := fs.Uint64("seed", 0, "random seed of initialisation and shuffling")
	threads := fs.Int("threads", 0, "worker threads (0: all cores)")
	out := fs.String("out", "", "output directory for the checkpoint and epoch log (default runs/train-DOMAIN-sSEED)")
	resume := fs.Bool("resume", false, "continue from the checkpoint in the output directory")
	pixels := fs.String("pixels", "unit", "pixel scale: unit ([0,1]) or raw (0-255)")
	asJSON := fs.Bool("json", false, "print the per-epoch results as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "wadn train: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	opt := data.DigitsOptions{Scale: data.Unit}
	switch *pixels {
	case "unit":
	case "raw":
		opt.Scale = data.Raw
	default:
		fmt.Fprintf(e.stderr, "wadn train: --pixels must be unit or raw, not %q\n", *pixels)
		return errUsage
	}
	if *domain != "synthgen" && *dir == "" {
		return fmt.Errorf("no data directory: give --data DIR or set %s", datadir.Env)
	}
	kernel.SetThreads(*threads)
	if *out == "" {
		*out = filepath.Join("runs", fmt.Sprintf("train-%s-s%d", *domain, *seed))
	}
	fmt.Fprintf(e.stderr, "loading %s from %s\n", *domain, *dir)
	d, err := data.LoadDigits(*dir, *domain, opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%s: %d train, %d test images; %d threads (%s kernels); output %s\n",
		*domain, d.Train.Len(), d.Test.Len(), kernel.Threads(), kernel.Impl(), *out)
	var last time.Time
	res, err := wadn.TrainSupervised(ctx, wadn.SupervisedConfig{
		Domain: d, Epochs: *epochs, Batch: *batch, LR: *lr, Seed: *seed, OutDir: *out, Resume: *resume,
		Progress: func(p wadn.Progress) {
			if time.Since(last) < time.Second && p.Step != p.Steps {
				return
			}
			last = time.Now()
			fmt.Fprintf(e.stderr, "epoch %d/%d step %d/%d loss %.4f %.0f img/s left %s\n",
				p.Epoch, p.Epochs, p.Step, p.Steps, p.Loss, p.SamplesPerSec, fmtLeft(p.Remaining))
		},
	})
	for _, r := range res {
		if !*asJSON {
			fmt.Fprintf(e.stdout, "epoch %d: loss %.4f, test accuracy %.2f%%, %.1f s (%.0f img/s)\n",
				r.Epoch, r.Loss, r.TestAccuracy, r.Seconds, r.SamplesPerSec)
		}
	}
	if *asJSON && res != nil {
		b, _ := json.Marshal(map[string]any{"domain": *domain, "seed": *seed, "epochs": res})
		fmt.Fprintln(e.stdout, string(b))
	}
	if errors.Is(err, wadn.ErrInterrupted) {
		fmt.Fprintf(e.stderr, "interrupted; state saved in %s: continue with --resume --out %s\n", *out, *out)
		return &exitError{code: 130}
	}
	return err
}
