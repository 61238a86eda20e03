package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// productResult is the record of one shape of matrix product in "wadn bench
// digits --step --products": the calls a step made of it, the wall time
// they took a step (summed over the goroutines that ran them) and their
// rate, beside the rate of the same product repeated alone on operands
// that stay in the caches (HotGFLOPS; packed row-major with the shape's
// transposes, through the same entry point, on the same threads).
type productResult struct {
	M            int     `json:"m"`
	N            int     `json:"n"`
	K            int     `json:"k"`
	TransA       bool    `json:"transa"`
	TransB       bool    `json:"transb"`
	Entry        string  `json:"entry"` // Gemm, GemmSerial or GemmPacked
	Float64      bool    `json:"float64,omitempty"`
	CallsPerStep float64 `json:"calls_per_step"`
	MsPerStep    float64 `json:"ms_per_step"`
	GFLOPS       float64 `json:"gflops"`     // in the step
	HotGFLOPS    float64 `json:"hot_gflops"` // alone, operands in the caches
}

// profileSteps is the number of steps productsOf and regionsOf profile
// (profiledSteps), and hotTime the least time productsOf repeats each shape
// alone.
const (
	profileSteps = stepsPerRun
	hotTime      = 20 * time.Millisecond
)

// productsOf runs profileSteps steps with the profile of the products on
// (kernel.ProfileGemms), then repeats each shape alone for its hot rate.
func productsOf(ctx context.Context, step func() error) ([]productResult, error) {
	kernel.ProfileGemms(true)
	if _, err := profiledSteps(ctx, step, func() { kernel.ProfileGemms(false) }); err != nil {
		return nil, err
	}
	recs := kernel.ProfileGemms(false)
	out := make([]productResult, 0, len(recs))
	for _, r := range recs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hot := hotRate[float32]
		if r.Float64 {
			hot = hotRate[float64]
		}
		out = append(out, productResult{
			M: r.M, N: r.N, K: r.K, TransA: r.TransA, TransB: r.TransB,
			Entry: r.Entry.String(), Float64: r.Float64,
			CallsPerStep: float64(r.Calls) / profileSteps,
			MsPerStep:    r.Seconds * 1e3 / profileSteps,
			GFLOPS:       r.Flops() * float64(r.Calls) / r.Seconds / 1e9,
			HotGFLOPS:    hot(r.GemmShape),
		})
	}
	return out, nil
}

// profiledSteps runs profileSteps steps, stopping at the first error or
// when ctx is done, and returns their wall time. On error it calls stop,
// which turns the caller's profile off, before returning.
func profiledSteps(ctx context.Context, step func() error, stop func()) (time.Duration, error) {
	start := time.Now()
	for range profileSteps {
		err := ctx.Err()
		if err == nil {
			err = step()
		}
		if err != nil {
			stop()
			return 0, err
		}
	}
	return time.Since(start), nil
}

// hotRate times products of shape s in T, one after the other on the
// same operands, through s's entry point, for at least hotTime after one
// untimed product, and returns their rate in GFLOP/s, on gemmOperands;
// C is overwritten.
func hotRate[T kernel.Float](s kernel.GemmShape) float64 {
	a, lda, b, ldb, c := gemmOperands[T](s.M, s.N, s.K, s.TransA, s.TransB)
	var run func()
	switch s.Entry {
	case kernel.EntrySerial:
		run = func() { kernel.GemmSerial(s.TransA, s.TransB, s.M, s.N, s.K, 1, a, lda, b, ldb, 0, c, s.N) }
	case kernel.EntryPacked:
		var p kernel.PackedA[T]
		kernel.PackA(&p, s.TransA, s.M, s.K, 1, a, lda)
		run = func() { kernel.GemmPacked(&p, s.TransB, s.N, b, ldb, 0, c, s.N) }
	default:
		run = func() { kernel.Gemm(s.TransA, s.TransB, s.M, s.N, s.K, 1, a, lda, b, ldb, 0, c, s.N) }
	}
	run()
	n := 0
	start := time.Now()
	for n == 0 || time.Since(start) < hotTime {
		run()
		n++
	}
	return s.Flops() * float64(n) / time.Since(start).Seconds() / 1e9
}

// writeProducts prints the products of res as a table, with their share
// of the step.
func writeProducts(w io.Writer, res stepResult) {
	var ms float64
	for _, p := range res.Products {
		ms += p.MsPerStep
	}
	fmt.Fprintf(w, "matrix products, %d steps profiled: %.2f ms a step in all (summed over the goroutines; the median step took %.2f ms)\n",
		profileSteps, ms, res.Seconds*1e3)
	fmt.Fprintf(w, "%6s %6s %6s %-5s %-14s %10s %8s %8s %8s\n", "m", "n", "k", "trans", "entry", "calls/step", "ms/step", "GFLOP/s", "hot")
	for _, p := range res.Products {
		tr := map[bool]string{false: "n", true: "t"}[p.TransA] + map[bool]string{false: "n", true: "t"}[p.TransB]
		entry := p.Entry
		if p.Float64 {
			entry += " f64"
		}
		fmt.Fprintf(w, "%6d %6d %6d %-5s %-14s %10.1f %8.3f %8.1f %8.1f\n",
			p.M, p.N, p.K, tr, entry, p.CallsPerStep, p.MsPerStep, p.GFLOPS, p.HotGFLOPS)
	}
}
