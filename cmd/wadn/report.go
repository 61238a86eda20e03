package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/datadir"
	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/experiment/figures"
	"github.com/wadn-go/wadn/wadn/experiment/site"
)

func init() {
	register(&command{
		name:    "report",
		summary: "tabulate the finished runs under one or more directories beside the paper's numbers",
		usage:   "[--json | --csv | --runs | --sources | --comparison | --against NAME] [--scenario S[,S]] [--method M[,M]] [--target T[,T]] [--seed N[,N]] [--settings L]... [--plots PLOTDIR] [--figures FIGDIR [--data DIR]] [--html OUT] DIR...",
		run:     runReport,
	})
}

func runReport(ctx context.Context, e *env, args []string) error {
	c := commands["report"]
	fs := newFlagSet(c, e)
	asJSON := fs.Bool("json", false, "print the rows as JSON: per data set, scenario, method, target and settings label, the accuracy per seed, mean, std, n and the final alpha's error, worst and per source")
	plots := fs.String("plots", "", "also draw each row's accuracy, lambda and alpha over the epochs (mean and range over the seeds) as SVG files in `PLOTDIR`")
	figs := fs.String("figures", "", "also draw the paper's figures that the runs allow (Fig. 2 to 5 and the appendix's alpha over the epochs) as NAME.svg and NAME.png in `FIGDIR`")
	dataDir := fs.String("data", datadir.Default(), "data directory from which Fig. 2 (of --figures and --html) loads Digits (default "+datadir.Help+"; none: Fig. 2 of Amazon alone, from the copy embedded in the binary)")
	asCSV := fs.Bool("csv", false, "print the runs' epoch logs as one CSV table: a line per run and epoch, the run's identity then the epoch's fields")
	runs := fs.Bool("runs", false, "print a Markdown table with a line per run: the target accuracy at epochs 1, 10, 20, 30 and the last, the peak and its epoch, the largest drop into the last 10 epochs and the median epoch's seconds")
	sources := fs.Bool("sources", false, "print a Markdown table with a line per row: each source's final lambda and alpha error, and the estimated target label distribution (last epoch, mean over the seeds)")
	comparison := fs.Bool("comparison", false, "print only the Markdown tables with the methods side by side, a line per target and one of averages")
	against := fs.String("against", "", "print only the Markdown tables of an ablation over the setting `NAME` (shift, label-fraction, keep-classes, ...): per data set, scenario and target a line per value and a column per method, and the averages over the targets; the runs at the defaults are the default value's, runs that change another setting are left out")
	html := fs.String("html", "", "also write the report as a web site into `OUT`: the tables, a page per target with its accuracy curves, a page per run with its settings and environment, the paper's figures that the runs allow (files of the same names replaced, others left)")
	filter := filterFlags(fs)
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		fmt.Fprintln(e.stderr, "wadn report: want at least one directory")
		return errUsage
	}
	n := 0
	for _, set := range []bool{*asJSON, *asCSV, *runs, *sources, *comparison, *against != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		fmt.Fprintln(e.stderr, "wadn report: one of --json, --csv, --runs, --sources, --comparison and --against, not more")
		return errUsage
	}
	f, err := filter(e)
	if err != nil {
		return err
	}
	rep, err := experiment.CollectFiltered(f, dirs...)
	if err != nil {
		return err
	}
	var paper []figures.Figure
	if (*figs != "" || *html != "") && len(rep.Rows) > 0 {
		if paper, err = figures.Paper(rep, figures.PaperOptions{DataDir: *dataDir}); err != nil {
			return err
		}
	}
	if *figs != "" && len(rep.Rows) > 0 {
		if err := writeFigures(e, paper, *figs); err != nil {
			return err
		}
	}
	if *html != "" {
		files, err := site.New(rep, site.Options{Figures: paper}).Write(*html)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "%d files of the web site written to %s (open %s)\n", len(files), *html, filepath.Join(*html, "index.html"))
	}
	if *against != "" {
		wrote, err := rep.WriteAgainst(e.stdout, *against)
		if err != nil {
			return err
		}
		if !wrote {
			fmt.Fprintf(e.stderr, "wadn report: --against %s: no data set and scenario has runs at two values of %s that change no other setting\n", *against, *against)
			return &exitError{1}
		}
	} else if err := writeReport(e, rep, *plots, *asJSON, *asCSV, *runs, *sources, *comparison); err != nil {
		return err
	}
	if len(rep.Damaged) > 0 {
		fmt.Fprintf(e.stderr, "wadn report: %d damaged run(s), left out of the tables (move them away, or train them again):\n", len(rep.Damaged))
		for _, d := range rep.Damaged {
			// The reasons name files of the directory: by their names.
			fmt.Fprintf(e.stderr, "  %s: %s\n", d.Dir, strings.ReplaceAll(d.Error, d.Dir+string(filepath.Separator), ""))
		}
		return &exitError{1}
	}
	return nil
}

// writeFigures writes the paper's figures figs into dir, and says how
// many, and what each shows, on the standard error.
func writeFigures(e *env, figs []figures.Figure, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range figs {
		if _, err := f.Write(dir); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "%d figures written to %s (NAME.svg and NAME.png):\n", len(figs), dir)
	for _, f := range figs {
		fmt.Fprintf(e.stderr, "  %s: %s\n", f.Name, f.Caption)
	}
	return nil
}

// writeReport writes rep in the form the flags choose, and its plots to
// the directory plots when it is not "". A report of damaged runs alone
// writes nothing but its JSON.
func writeReport(e *env, rep *experiment.Report, plots string, asJSON, asCSV, runs, sources, comparison bool) error {
	if plots != "" && len(rep.Rows) > 0 {
		files, err := figures.Write(plots, rep)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "%d plots written to %s\n", len(files), plots)
	}
	switch {
	case asJSON:
		return rep.WriteJSON(e.stdout)
	case len(rep.Rows) == 0:
		return nil
	case asCSV:
		return rep.WriteCSV(e.stdout)
	case runs:
		return rep.WriteRuns(e.stdout)
	case sources:
		return rep.WriteSources(e.stdout)
	case comparison:
		return rep.WriteComparison(e.stdout)
	}
	return rep.WriteMarkdown(e.stdout)
}

// filterFlags defines on fs the flags that choose the runs of a report
// (--scenario, --method, --target, --seed, --settings) and returns the
// function that reads them into a Filter once fs is parsed: errUsage,
// after saying which is wrong, for a value that names nothing.
func filterFlags(fs *flag.FlagSet) func(e *env) (experiment.Filter, error) {
	scenarios := fs.String("scenario", "", "take only the runs of the scenarios in the comma-separated list `S` of uda, limited and partial (default all)")
	methods := fs.String("method", "", "take only the runs of the methods in the comma-separated list `M`, named as wadn run --method names them (default all)")
	targets := fs.String("target", "", "take only the runs of the target domains in the comma-separated list `T` (default all)")
	seeds := fs.String("seed", "", "take only the runs of the seeds in the comma-separated list `N` (default all)")
	var f experiment.Filter
	fs.Func("settings", "take only the runs whose settings label is `L`: the bracketed part of a row's method (\"c2 0\"), or default for the runs at every default; repeat it for several (default all)", func(l string) error {
		if l == "default" {
			l = ""
		}
		f.Settings = append(f.Settings, l)
		return nil
	})
	return func(e *env) (experiment.Filter, error) {
		name := fs.Name()
		if *scenarios != "" {
			for _, s := range strings.Split(*scenarios, ",") {
				sc, err := data.ParseScenario(strings.TrimSpace(s))
				if err != nil {
					fmt.Fprintf(e.stderr, "%s: --scenario: %v\n", name, err)
					return f, errUsage
				}
				f.Scenarios = append(f.Scenarios, sc)
			}
		}
		if *methods != "" {
			known := experiment.Methods.Names()
			for _, m := range strings.Split(*methods, ",") {
				m = strings.TrimSpace(m)
				if !slices.Contains(known, m) {
					fmt.Fprintf(e.stderr, "%s: --method: unknown method %q (want one of %s)\n", name, m, strings.Join(known, ", "))
					return f, errUsage
				}
				f.Methods = append(f.Methods, m)
			}
		}
		if *targets != "" {
			for _, t := range strings.Split(*targets, ",") {
				if t = strings.TrimSpace(t); t == "" {
					fmt.Fprintf(e.stderr, "%s: --target: an empty name in %q\n", name, *targets)
					return f, errUsage
				}
				f.Targets = append(f.Targets, t)
			}
		}
		if *seeds != "" {
			for _, n := range strings.Split(*seeds, ",") {
				seed, err := strconv.ParseUint(strings.TrimSpace(n), 10, 64)
				if err != nil {
					fmt.Fprintf(e.stderr, "%s: --seed: %q is not a seed (want a whole number from 0)\n", name, n)
					return f, errUsage
				}
				f.Seeds = append(f.Seeds, seed)
			}
		}
		return f, nil
	}
}
