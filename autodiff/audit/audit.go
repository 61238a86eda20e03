// Package audit checks the numerics of package autodiff on the machine it runs
// on: the gradients of every operator against finite differences, to first
// and second order, in float64, and every float32 kernel of package
// autodiff/kernel under each implementation the CPU can run (AVX-512, AVX2)
// against the pure-Go one, and Conv2d's float32 paths (direct and Winograd)
// against the exact convolution.
//
// The checks form a registry (Checks). Run executes a list of checks and
// returns one Result per check with its largest error and a verdict; the
// wadn audit command prints them. A check that cannot apply (the second
// order of an operator that is not twice differentiable, an implementation
// the CPU lacks) is reported as not applicable with the reason.
package audit

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
)

// Verdicts of a Result.
const (
	Pass = "pass"
	Fail = "FAIL"
	NA   = "n/a"
)

// Check is one numerics check of one operator or kernel.
type Check struct {
	Op    string  // operator or kernel, e.g. "Conv2d/stride2-pad1-bias" or "kernel.Gemm"
	Kind  string  // what is checked, e.g. "grad1", "grad2", "avx512 vs go"
	Tol   float64 // largest error that passes
	NA    string  // when not empty the check does not apply, for this reason
	Notes string  // how the error is measured, for the report

	// Run performs the check with the inputs drawn from seed and returns the
	// largest error found, in the units of Tol. An error means the check
	// could not complete (a panic, a non-finite value) and fails it.
	Run func(seed uint64) (maxErr float64, detail string, err error)
}

// Name returns "Op Kind", the string that Options.Only is matched against.
func (c Check) Name() string { return c.Op + " " + c.Kind }

// Result is the outcome of one Check.
type Result struct {
	Op      string  `json:"op"`
	Check   string  `json:"check"`
	MaxErr  float64 `json:"max_error"`
	Tol     float64 `json:"tolerance"`
	Verdict string  `json:"verdict"`
	Detail  string  `json:"detail,omitempty"`
}

// Options select and seed the checks Run executes.
type Options struct {
	Seed uint64         // base seed of every check's inputs; 0 means 1
	Only *regexp.Regexp // when not nil, run only the checks whose Name matches
}

// Run executes the checks in order and returns their results. A check that
// panics fails with the panic as its detail; the others still run. When ctx
// is cancelled Run stops before the next check and returns the results so far
// with ctx's error.
func Run(ctx context.Context, checks []Check, opts Options) ([]Result, error) {
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	var out []Result
	for _, c := range checks {
		if opts.Only != nil && !opts.Only.MatchString(c.Name()) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		out = append(out, runOne(c, seed))
	}
	return out, nil
}

func runOne(c Check, seed uint64) (r Result) {
	r = Result{Op: c.Op, Check: c.Kind, Tol: c.Tol}
	if c.NA != "" {
		r.Verdict, r.Detail = NA, c.NA
		return r
	}
	if c.Run == nil {
		r.Verdict, r.Detail = Fail, "check has no function"
		return r
	}
	defer func() {
		if p := recover(); p != nil {
			r.Verdict, r.MaxErr, r.Detail = Fail, math.Inf(1), fmt.Sprintf("panic: %v", p)
		}
	}()
	// Each check draws from its own stream, so that adding or filtering
	// checks does not change the inputs of the others.
	h := fnv.New64a()
	h.Write([]byte(c.Name()))
	maxErr, detail, err := c.Run(seed ^ h.Sum64())
	r.MaxErr, r.Detail = maxErr, detail
	switch {
	case err != nil:
		r.Verdict, r.Detail = Fail, err.Error()
		if r.MaxErr == 0 {
			r.MaxErr = math.Inf(1)
		}
	case math.IsNaN(maxErr) || maxErr > c.Tol:
		r.Verdict = Fail
	default:
		r.Verdict = Pass
	}
	if c.Notes != "" {
		if r.Detail != "" {
			r.Detail = c.Notes + "; " + r.Detail
		} else {
			r.Detail = c.Notes
		}
	}
	return r
}

// Count returns the number of results that passed, failed and did not apply.
func Count(results []Result) (passed, failed, na int) {
	for _, r := range results {
		switch r.Verdict {
		case Pass:
			passed++
		case Fail:
			failed++
		default:
			na++
		}
	}
	return passed, failed, na
}

// Checks returns the full registry: the gradient checks of every operator
// (OperatorChecks of Operators), the exact checks of Norm at a zero row,
// the kernel checks (KernelChecks), the checks of the reference numerics
// mode (ReferenceChecks), the float32 convolution checks
// (ConvChecks) and the float32 pooling checks (MaxPoolChecks).
func Checks() []Check {
	out := append(OperatorChecks(Operators()), normChecks()...)
	out = append(out, KernelChecks()...)
	out = append(out, ReferenceChecks()...)
	out = append(out, ConvChecks()...)
	return append(out, MaxPoolChecks()...)
}
