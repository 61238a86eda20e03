package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wadn-go/wadn/autodiff/audit"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
	"github.com/wadn-go/wadn/wadn/fingerprint"
)

func init() {
	register(&command{
		name:    "audit",
		summary: "check operator gradients and SIMD kernels on this machine, or print the numerics fingerprint",
		usage:   "[--json] [--seed N] [--only REGEX] | --fingerprint [--numerics MODE] [--threads N] [--trace] [--json]",
		run:     runAudit,
	})
}

// auditChecks returns the checks "wadn audit" runs; tests replace it.
var auditChecks = audit.Checks

// auditReport is the --json form of the audit.
type auditReport struct {
	Seed      uint64        `json:"seed"`
	Impl      string        `json:"impl"`
	Available []string      `json:"available"`
	Threads   int           `json:"threads"`
	Seconds   float64       `json:"seconds"`
	Passed    int           `json:"passed"`
	Failed    int           `json:"failed"`
	NA        int           `json:"not_applicable"`
	Results   []auditResult `json:"results"`
}

// auditResult is audit.Result with a max error that is a number when finite
// and the string "+Inf" or "NaN" otherwise, which JSON numbers cannot hold.
type auditResult struct {
	Op      string  `json:"op"`
	Check   string  `json:"check"`
	MaxErr  any     `json:"max_error"`
	Tol     float64 `json:"tolerance"`
	Verdict string  `json:"verdict"`
	Detail  string  `json:"detail,omitempty"`
}

func runAudit(ctx context.Context, e *env, args []string) error {
	c := commands["audit"]
	fs := newFlagSet(c, e)
	asJSON := fs.Bool("json", false, "print the results as one JSON object")
	seed := fs.Uint64("seed", 1, "seed of the random inputs")
	only := fs.String("only", "", "run only the checks whose \"operator check\" name matches this regular expression")
	fp := fs.Bool("fingerprint", false, "train the fixed small problem of the fingerprint and print its SHA-256 with the mode and platform (the same on every platform in the reference mode)")
	mode := fs.String("numerics", "reference", "numerics mode of --fingerprint: reference or default")
	threads := fs.Int("threads", 0, "worker threads of the kernels for --fingerprint (0: all cores)")
	trace := fs.Bool("trace", false, "with --fingerprint, write what the hashes are made of to stderr, line by line (a hash of every operator's output and gradient, the epoch logs, each parameter's hash, the conv losses), to find where two platforms part")
	if err := noOperands(fs, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *fp {
		if set["seed"] || set["only"] {
			fmt.Fprintf(e.stderr, "wadn audit: --fingerprint takes no --seed or --only: its problem is fixed\n")
			return errUsage
		}
		m, err := numerics.Parse(*mode)
		if err != nil {
			fmt.Fprintf(e.stderr, "wadn audit: --numerics: %v\n", err)
			return errUsage
		}
		if *threads < 0 {
			fmt.Fprintf(e.stderr, "wadn audit: --threads %d: want a positive count, or 0 for all cores\n", *threads)
			return errUsage
		}
		var tw io.Writer
		if *trace {
			tw = e.stderr
		}
		return printFingerprint(ctx, e, m, *threads, *asJSON, tw)
	}
	for _, name := range []string{"numerics", "threads", "trace"} {
		if set[name] {
			fmt.Fprintf(e.stderr, "wadn audit: --%s is a flag of --fingerprint\n", name)
			return errUsage
		}
	}
	opts := audit.Options{Seed: *seed}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintf(e.stderr, "wadn audit: --only: %v\n", err)
			return errUsage
		}
		opts.Only = re
	}

	start := time.Now()
	results, err := audit.Run(ctx, auditChecks(), opts)
	if err != nil {
		return fmt.Errorf("interrupted after %d checks: %w", len(results), err)
	}
	if len(results) == 0 {
		return fmt.Errorf("no check matches --only %q", *only)
	}
	passed, failed, na := audit.Count(results)

	if *asJSON {
		rep := auditReport{Seed: *seed, Impl: kernel.Impl(), Available: kernel.Available(), Threads: kernel.Threads(),
			Seconds: time.Since(start).Seconds(), Passed: passed, Failed: failed, NA: na}
		for _, r := range results {
			var me any = r.MaxErr
			if math.IsInf(r.MaxErr, 0) || math.IsNaN(r.MaxErr) {
				me = fmt.Sprint(r.MaxErr)
			}
			rep.Results = append(rep.Results, auditResult{r.Op, r.Check, me, r.Tol, r.Verdict, r.Detail})
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "kernels: %s (available: %s), %d threads; seed %d\n\n",
			kernel.Impl(), strings.Join(kernel.Available(), ", "), kernel.Threads(), *seed)
		printAuditTable(e.stdout, results)
		fmt.Fprintf(e.stdout, "\n%d checks not applicable; %.1f s\n", na, time.Since(start).Seconds())
		fmt.Fprintf(e.stdout, "%d passed, %d failed\n", passed, failed)
	}
	if failed > 0 {
		return &exitError{code: 1}
	}
	return nil
}

// printAuditTable writes one row per result; the detail is shown for the
// checks that failed or did not apply.
func printAuditTable(w io.Writer, results []audit.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATOR\tCHECK\tMAX ERROR\tTOLERANCE\tVERDICT\t")
	for _, r := range results {
		maxErr := "-"
		if r.Verdict != audit.NA {
			maxErr = fmt.Sprintf("%.3g", r.MaxErr)
		}
		detail := ""
		if r.Verdict != audit.Pass {
			detail = r.Detail
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3g\t%s\t%s\n", r.Op, r.Check, maxErr, r.Tol, r.Verdict, detail)
	}
	tw.Flush()
}

// printFingerprint trains the fingerprint's problem in mode m with the given
// kernel threads (writing its trace to trace, if not nil) and prints the result: a first line "fingerprint SUM" that
// scripts compare, then what it was computed on.
func printFingerprint(ctx context.Context, e *env, m numerics.Mode, threads int, asJSON bool, trace io.Writer) error {
	defer numerics.Set(numerics.Set(m))
	defer kernel.SetThreads(kernel.SetThreads(threads))
	start := time.Now()
	r, err := fingerprint.RunTrace(ctx, trace)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		return enc.Encode(struct {
			Fingerprint string `json:"fingerprint"`
			*fingerprint.Result
			Seconds float64 `json:"seconds"`
		}{r.Sum(), r, time.Since(start).Seconds()})
	}
	fmt.Fprintf(e.stdout, "fingerprint %s\n", r.Sum())
	fmt.Fprintf(e.stdout, "numerics    %s\n", r.Numerics)
	fmt.Fprintf(e.stdout, "platform    %s, %s kernels, %d threads\n", r.Platform, r.Kernels, r.Threads)
	fmt.Fprintf(e.stdout, "weights     %s\n", r.Weights)
	fmt.Fprintf(e.stdout, "losses      %s\n", r.Losses)
	fmt.Fprintf(e.stdout, "training    %d steps, last epoch loss %v, %.1f s\n", r.Steps, r.Loss, time.Since(start).Seconds())
	return nil
}
