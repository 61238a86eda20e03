package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/atomic"
	"github.com/wadn-go/wadn/internal/datadir"
	"github.com/wadn-go/wadn/internal/lock"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
	"github.com/wadn-go/wadn/wadn/supervised"
	"github.com/wadn-go/wadn/wadn/trainer"
)

func init() {
	register(&command{
		name:    "train",
		summary: "train the digits CNN on one labelled digits domain",
		usage:   "[--data DIR] [--domain mnist] [--epochs N] [--NAME VALUE | --set NAME=VALUE ...] [--out DIR] [--json] | --resume --out DIR",
		run:     runTrain,
	})
}

// trainFile records in a wadn train directory what the run is, so that
// --resume needs nothing else.
const trainFile = "train.json"

// trainRecord is what trainFile holds.
type trainRecord struct {
	Domain   string          `json:"domain"`
	Seed     uint64          `json:"seed"`
	Pixels   data.PixelScale `json:"pixels"`
	DataDir  string          `json:"data_dir"`
	Settings map[string]any  `json:"settings"`
}

func runTrain(ctx context.Context, e *env, args []string) error {
	c := commands["train"]
	flags := newFlagSet(c, e)
	s := supervised.Defaults()
	fields := settings.Fields(&s)
	var sf settingFlags
	dir := flags.String("data", datadir.Default(), "data directory (default "+datadir.Help+")")
	domain := flags.String("domain", "mnist", "digits domain: mnist, usps, mnist_m, svhn, synth or synthgen")
	seed := flags.Uint64("seed", 0, "random seed of initialisation and shuffling")
	threads := flags.Int("threads", 0, "worker threads (0: all cores)")
	out := flags.String("out", "", "output directory for the checkpoint and epoch log (default runs/train-DOMAIN-sSEED)")
	resume := flags.Bool("resume", false, "continue the run in --out with the settings it recorded")
	pixels := flags.String("pixels", "unit", "pixel scale: unit ([0,1]) or raw (0-255)")
	asJSON := flags.Bool("json", false, "print the per-epoch results as JSON")
	sf.registerFields(flags, fields)
	flags.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: wadn %s %s\n\n%s\n\nflags:\n", c.name, c.usage, c.summary)
		sf.printUsage(e.stderr, flags)
		fmt.Fprintf(e.stderr, "\nThe training settings of wadn run are flags here too, at these defaults: %s.\n", settingsLine(fields))
	}
	if err := noOperands(flags, args); err != nil {
		return err
	}
	usage := func(format string, a ...any) error {
		fmt.Fprintf(e.stderr, "wadn train: "+format+"\n", a...)
		return errUsage
	}
	rec := trainRecord{Domain: *domain, Seed: *seed, DataDir: *dir}
	if err := sf.apply(fields); err != nil {
		return usage("%v", err)
	}
	if err := rec.Pixels.UnmarshalText([]byte(*pixels)); err != nil {
		return usage("--pixels: %v", err)
	}
	if *resume {
		if *out == "" {
			return usage("--resume needs --out DIR")
		}
		b, err := os.ReadFile(filepath.Join(*out, trainFile))
		if err != nil {
			return fmt.Errorf("nothing to resume in %s: %w", *out, err)
		}
		var given []string
		flags.Visit(func(f *flag.Flag) {
			if f.Name != "resume" && f.Name != "out" && f.Name != "threads" && f.Name != "json" && f.Name != "data" {
				given = append(given, "--"+f.Name)
			}
		})
		for _, a := range sf.list {
			given = append(given, "--"+a.name)
		}
		if len(given) > 0 {
			return usage("--resume continues the run in %s with the settings it recorded: give no %v", *out, given)
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(*out, trainFile), err)
		}
		if flagSet(flags, "data") {
			rec.DataDir = *dir
		}
		for name, v := range rec.Settings {
			f, err := settings.Lookup(fields, name)
			if err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(*out, trainFile), err)
			}
			raw, _ := json.Marshal(v)
			if err := f.SetJSON(raw); err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(*out, trainFile), err)
			}
		}
	}
	if err := s.Validate(); err != nil {
		return usage("%v", err)
	}
	rec.Settings = settings.Map(fields)
	if rec.Domain != "synthgen" && rec.DataDir == "" {
		return usage("no data directory: give --data DIR or set %s", datadir.Env)
	}
	kernel.SetThreads(*threads)
	if *out == "" {
		*out = filepath.Join("runs", fmt.Sprintf("train-%s-s%d", rec.Domain, rec.Seed))
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	l, err := lock.Try(*out)
	if err != nil {
		return err
	}
	defer l.Release()
	if _, err := atomic.RemoveTemps(*out); err != nil {
		return err
	}
	if !*resume {
		if _, err := os.Stat(filepath.Join(*out, trainer.CheckpointFile)); err == nil {
			return usage("%s holds an unfinished run: continue it with --resume --out %s, or choose another --out", *out, *out)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		b, _ := json.MarshalIndent(rec, "", " ")
		if err := atomic.WriteFile(filepath.Join(*out, trainFile), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "loading %s from %s\n", rec.Domain, rec.DataDir)
	d, err := data.LoadDigits(rec.DataDir, rec.Domain, data.DigitsOptions{Scale: rec.Pixels})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%s: %d train, %d test images; %d threads (%s kernels); output %s\n",
		rec.Domain, d.Train.Len(), d.Test.Len(), kernel.Threads(), kernel.Impl(), *out)
	var last time.Time
	e.savesOnInterrupt()
	res, err := supervised.Train(ctx, d, nets.Digits{}, s, method.Options{Seed: rec.Seed, Dir: *out, Resume: *resume,
		Progress: func(p method.Progress) {
			if time.Since(last) < time.Second && p.Step != p.Steps {
				return
			}
			last = time.Now()
			fmt.Fprintf(e.stderr, "epoch %d/%d step %d/%d loss %.4f left %s\n",
				p.Epoch, p.Epochs, p.Step, p.Steps, p.Loss, fmtLeft(p.Remaining))
		},
	})
	if res != nil && !*asJSON {
		for _, r := range res.History {
			fmt.Fprintf(e.stdout, "epoch %d: loss %.4f, test accuracy %.2f%%, %.1f s (%.0f img/s)\n",
				r.Epoch, r.Loss, r.Accuracy, r.Seconds, float64(d.Train.Len())/r.Seconds)
		}
	}
	if *asJSON && res != nil {
		b, _ := json.Marshal(map[string]any{"domain": rec.Domain, "seed": rec.Seed, "epochs": res.History})
		fmt.Fprintln(e.stdout, string(b))
	}
	if errors.Is(err, trainer.ErrInterrupted) {
		fmt.Fprintf(e.stderr, "interrupted; state saved in %s: continue with\n  wadn train --resume --out %s\n", *out, *out)
		return &exitError{code: e.interruptedCode()}
	}
	return err
}

// flagSet reports whether the command line set the flag called name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
