package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/nets"
)

func init() {
	register(&command{
		name: "bench",
		summary: "time a numeric kernel: matmul (the float32 Gemm), digits (the Digits extractor's " +
			"forward and backward, or with --step a WADN training step, beside the machine's FMA peak) or peak (that peak alone)",
		usage: "matmul [--m M] [--k K] [--n N] [--transa] [--transb] [--threads T] [--runs R] [--impl NAME] [--json]\n" +
			"       wadn bench digits [--images N] [--conv ALGORITHM] [--threads T] [--runs R] [--impl NAME] [--json]\n" +
			"       wadn bench digits --step [--batch N] [--products] [--regions] [--conv ALGORITHM] [--threads T[,T...]] [--runs R] [--impl NAME] [--json]\n" +
			"       wadn bench peak [--threads T] [--impl NAME] [--json]",
		run: runBench,
	})
}

// benchTargets are the targets of "wadn bench" and the flags each takes
// beside --threads, --runs, --impl and --json.
var benchTargets = map[string][]string{
	"matmul": {"m", "k", "n", "transa", "transb"},
	"digits": {"images", "conv", "step", "batch", "products", "regions"},
	"peak":   nil,
}

// benchResult is the outcome of "wadn bench matmul", also its --json form.
type benchResult struct {
	Target    string  `json:"target"`
	M         int     `json:"m"`
	K         int     `json:"k"`
	N         int     `json:"n"`
	TransA    bool    `json:"transa"`
	TransB    bool    `json:"transb"`
	Threads   int     `json:"threads"`
	Impl      string  `json:"impl"`
	Runs      int     `json:"runs"`
	GFLOPS    float64 `json:"gflops"` // median over the runs
	GFLOPSMin float64 `json:"gflops_min"`
	GFLOPSMax float64 `json:"gflops_max"`
	Seconds   float64 `json:"seconds_median"`
}

func runBench(ctx context.Context, e *env, args []string) error {
	c := commands["bench"]
	fs := newFlagSet(c, e)
	m := fs.Int("m", 1024, "matmul: rows of op(A) and C")
	k := fs.Int("k", 1024, "matmul: columns of op(A), rows of op(B)")
	n := fs.Int("n", 1024, "matmul: columns of op(B) and C")
	transA := fs.Bool("transa", false, "matmul: store A transposed (k x m)")
	transB := fs.Bool("transb", false, "matmul: store B transposed (n x k)")
	images := fs.Int("images", 512, "digits: images of 3x32x32 per pass")
	step := fs.Bool("step", false, "digits: time WADN's training step (3 sources and the target, --batch images each) instead of the extractor")
	batch := fs.Int("batch", 20, "digits --step: images of every domain a step")
	products := fs.Bool("products", false, "digits --step: also time the step's matrix products by shape, beside each shape alone with its operands in the caches")
	regions := fs.Bool("regions", false, "digits --step: also time the step's parallel regions: how long the calling goroutine spends in them, waiting in them for the other threads, alone outside them, and recording them for the profile (left out of the others), in all and by the functions that called them (with GOMAXPROCS=1 and --threads 2, the same regions' parts run one after the other)")
	conv := fs.String("conv", autodiff.CurrentConvAlgorithm().String(),
		"digits: convolution algorithm: winograd (the tile with fewer products per layer), winograd4x4, winograd5x5 or direct")
	threads := threadCounts{0}
	fs.Var(&threads, "threads", "goroutines for the kernels (0: GOMAXPROCS); digits --step also takes a list, as 1,2: "+
		"its runs then take the counts in turn, and it reports each count's step beside the speed-up over the first count")
	runs := fs.Int("runs", 10, "timed runs after one warm-up run (digits: 5 unless given)")
	impl := fs.String("impl", "", "kernel implementation (default: the fastest; one of "+strings.Join(kernel.Available(), ", ")+")")
	asJSON := fs.Bool("json", false, "print one JSON object")

	// The target may come before or after the flags.
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	var target string
	if len(pos) > 0 {
		target = pos[0]
	}
	if len(pos) > 1 {
		return usageError(fs, "unexpected argument %q", pos[1])
	}
	own, known := benchTargets[target]
	switch {
	case target == "":
		return usageError(fs, "missing target (matmul, digits or peak)")
	case !known:
		return usageError(fs, "unknown target %q (want matmul, digits or peak)", target)
	}
	var misplaced []string
	runsGiven := false
	fs.Visit(func(f *flag.Flag) {
		runsGiven = runsGiven || f.Name == "runs"
		for _, others := range benchTargets {
			if slices.Contains(others, f.Name) && !slices.Contains(own, f.Name) {
				misplaced = append(misplaced, "--"+f.Name)
			}
		}
	})
	if len(misplaced) > 0 {
		return usageError(fs, "%s: not a flag of target %s", strings.Join(misplaced, ", "), target)
	}
	if target == "digits" && !runsGiven {
		*runs = 5
	}
	switch {
	case *m < 1 || *k < 1 || *n < 1:
		return usageError(fs, "--m, --k and --n must be at least 1 (got %d, %d, %d)", *m, *k, *n)
	case *runs < 1:
		return usageError(fs, "--runs must be at least 1 (got %d)", *runs)
	case slices.Min(threads) < 0:
		return usageError(fs, "--threads must not be negative (got %s)", threads.String())
	case len(threads) > 1 && !(target == "digits" && *step):
		return usageError(fs, "--threads %s: a list of thread counts is taken by digits --step only", threads.String())
	case len(threads) > 1 && *products:
		return usageError(fs, "--threads %s: --products takes one thread count", threads.String())
	case len(threads) > 1 && *regions:
		return usageError(fs, "--threads %s: --regions takes one thread count", threads.String())
	case *images < 1:
		return usageError(fs, "--images must be at least 1 (got %d)", *images)
	case *batch < 1:
		return usageError(fs, "--batch must be at least 1 (got %d)", *batch)
	}
	var misstep []string
	fs.Visit(func(f *flag.Flag) {
		if *step && f.Name == "images" || !*step && (f.Name == "batch" || f.Name == "products" || f.Name == "regions") {
			misstep = append(misstep, "--"+f.Name)
		}
	})
	if len(misstep) > 0 {
		return usageError(fs, "%s: not a flag of digits %s", misstep[0], map[bool]string{true: "--step", false: "without --step"}[*step])
	}
	alg, err := autodiff.ParseConvAlgorithm(*conv)
	if err != nil {
		return usageError(fs, "--conv: %v", err)
	}
	if *impl != "" {
		prev, err := kernel.SetImpl(*impl)
		if err != nil {
			return usageError(fs, "--impl: %v", err)
		}
		defer kernel.SetImpl(prev)
	}
	counts := threads.resolved()
	for i, c := range counts {
		if slices.Index(counts, c) < i {
			return usageError(fs, "--threads %s: %d threads twice (0 is GOMAXPROCS, %d here)", threads.String(), c, runtime.GOMAXPROCS(0))
		}
	}
	prevThreads := kernel.SetThreads(counts[0])
	defer kernel.SetThreads(prevThreads)

	// show prints res as one JSON object with --json, otherwise as text.
	show := func(res any, err error, text func(w io.Writer)) error {
		switch {
		case err != nil:
			return err
		case *asJSON:
			return json.NewEncoder(e.stdout).Encode(res)
		}
		text(e.stdout)
		return nil
	}
	switch target {
	case "digits":
		prevAlg := autodiff.SetConvAlgorithm(alg)
		defer autodiff.SetConvAlgorithm(prevAlg)
		switch {
		case *step && len(counts) > 1:
			res, err := benchDigitsStepThreads(ctx, *batch, *runs, counts)
			return show(res, err, func(w io.Writer) {
				for _, r := range res.Results {
					writeStep(w, r)
					fmt.Fprintln(w)
				}
				for _, s := range res.Speedups {
					fmt.Fprintf(w, "speed-up of %d threads over %d, runs of the same round side by side: median %.2f (min %.2f, max %.2f) over %d rounds\n",
						s.Threads, s.Over, s.Median, s.Min, s.Max, s.Rounds)
				}
			})
		case *step:
			res, err := benchDigitsStep(ctx, *batch, *runs, *products, *regions)
			return show(res, err, func(w io.Writer) { writeStep(w, res) })
		}
		res, err := benchDigits(ctx, *images, *runs)
		return show(res, err, func(w io.Writer) {
			fmt.Fprintf(w, "digits extractor forward+backward, %d images, float32, threads=%d impl=%s conv=%s runs=%d\n",
				res.Images, res.Threads, res.Impl, res.Conv, res.Runs)
			fmt.Fprintf(w, "time: median %.3f s (min %.3f, max %.3f); %.1f GFLOP/s (direct-convolution count: %.1f GFLOP per pass)\n",
				res.Seconds, res.SecondsMin, res.SecondsMax, res.GFLOPS, res.GFLOP)
			fmt.Fprintf(w, "FMA peak (register-only loop, measured before each run): median %.1f GFLOP/s; ratio %.2f (median over runs)\n",
				res.PeakGFLOPS, res.PeakRatio)
		})
	case "peak":
		res := benchPeak()
		return show(res, nil, func(w io.Writer) {
			fmt.Fprintf(w, "FMA peak (register-only float32 multiply-add loop) threads=%d impl=%s: %.1f GFLOP/s\n",
				res.Threads, res.Impl, res.PeakGFLOPS)
		})
	}
	res, err := benchMatmul(ctx, *m, *k, *n, *transA, *transB, *runs)
	return show(res, err, func(w io.Writer) {
		fmt.Fprintf(w, "matmul float32 m=%d k=%d n=%d transa=%v transb=%v threads=%d impl=%s runs=%d\n",
			res.M, res.K, res.N, res.TransA, res.TransB, res.Threads, res.Impl, res.Runs)
		fmt.Fprintf(w, "GFLOP/s: median %.1f (min %.1f, max %.1f); median time %.3f ms\n",
			res.GFLOPS, res.GFLOPSMin, res.GFLOPSMax, res.Seconds*1e3)
	})
}

// threadCounts is the value of --threads: one count of goroutines, or
// several separated by commas; 0 stands for GOMAXPROCS.
type threadCounts []int

// String returns the counts as given, separated by commas.
func (t *threadCounts) String() string {
	s := make([]string, len(*t))
	for i, c := range *t {
		s[i] = fmt.Sprint(c)
	}
	return strings.Join(s, ",")
}

// Set parses a count or a comma-separated list of them.
func (t *threadCounts) Set(v string) error {
	var counts []int
	for _, f := range strings.Split(v, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("want a count of goroutines or a list of them, as 1,2 (got %q)", v)
		}
		counts = append(counts, c)
	}
	*t = counts
	return nil
}

// resolved returns the counts with 0 read as GOMAXPROCS.
func (t threadCounts) resolved() []int {
	out := slices.Clone(t)
	for i, c := range out {
		if c == 0 {
			out[i] = runtime.GOMAXPROCS(0)
		}
	}
	return out
}

// usageError prints a command-line mistake and the usage, and returns errUsage.
func usageError(fs *flag.FlagSet, format string, a ...any) error {
	fmt.Fprintf(fs.Output(), "%s: %s\n", fs.Name(), fmt.Sprintf(format, a...))
	fs.Usage()
	return errUsage
}

// gemmOperands returns the operands of an m x n x k product with the
// given transposes, rows stored without padding: op(A) and op(B) hold
// random values in [-1, 1) (the same for the same sizes), C (m x n) zeros.
func gemmOperands[T kernel.Float](m, n, k int, transA, transB bool) (a []T, lda int, b []T, ldb int, c []T) {
	rng := rand.New(rand.NewPCG(1, 1))
	fill := func(x []T) []T {
		for i := range x {
			x[i] = T(rng.Float64()*2 - 1)
		}
		return x
	}
	a, b, c = fill(make([]T, m*k)), fill(make([]T, k*n)), make([]T, m*n)
	lda, ldb = k, n
	if transA {
		lda = m
	}
	if transB {
		ldb = k
	}
	return a, lda, b, ldb, c
}

// benchMatmul times C = A*B (with the requested transposes) in float32: one
// warm-up run that also touches every page, then runs timed runs.
func benchMatmul(ctx context.Context, m, k, n int, transA, transB bool, runs int) (benchResult, error) {
	secs := make([]float64, runs)
	err := untilDone(ctx, func() error {
		a, lda, b, ldb, c := gemmOperands[float32](m, n, k, transA, transB)
		gemm := func() { kernel.Gemm(transA, transB, m, n, k, 1, a, lda, b, ldb, 0, c, n) }
		gemm()
		for i := range secs {
			if err := ctx.Err(); err != nil {
				return err
			}
			start := time.Now()
			gemm()
			secs[i] = time.Since(start).Seconds()
		}
		return nil
	})
	if err != nil {
		return benchResult{}, err
	}
	slices.Sort(secs)
	flops := 2 * float64(m) * float64(n) * float64(k)
	median := experiment.Median(secs)
	return benchResult{
		Target: "matmul", M: m, K: k, N: n, TransA: transA, TransB: transB,
		Threads: kernel.Threads(), Impl: kernel.Impl(), Runs: runs,
		GFLOPS:    flops / median / 1e9,
		GFLOPSMin: flops / secs[len(secs)-1] / 1e9,
		GFLOPSMax: flops / secs[0] / 1e9,
		Seconds:   median,
	}, nil
}

// peakTime is how long the FMA peak is measured before each timed run.
const peakTime = 250 * time.Millisecond

// peakResult is the outcome of "wadn bench peak", also its --json form.
type peakResult struct {
	Target     string  `json:"target"`
	Threads    int     `json:"threads"`
	Impl       string  `json:"impl"`
	PeakGFLOPS float64 `json:"peak_gflops"`
}

// benchPeak measures the FMA peak on the kernels' thread count, over four
// times peakTime.
func benchPeak() peakResult {
	t := kernel.Threads()
	return peakResult{Target: "peak", Threads: t, Impl: kernel.Impl(), PeakGFLOPS: kernel.FMAPeak(t, 4*peakTime)}
}

// timeRuns times runs runs of reps calls of pass, each run preceded by a
// measurement of the FMA peak on the kernels' threads (for peakTime) and,
// with withTrips on more than one thread, of the round trip between two
// cores (kernel.CoreRoundTrip), and returns the seconds of a call in each
// run, the peaks and the round trips in nanoseconds (nil without
// withTrips, on one thread, or when GOMAXPROCS is 1).
func timeRuns(ctx context.Context, runs, reps int, withTrips bool, pass func() error) (secs, peaks, trips []float64, err error) {
	s, p, tr, err := timeRounds(ctx, runs, reps, withTrips, []int{kernel.Threads()}, pass)
	if err != nil {
		return nil, nil, nil, err
	}
	return s[0], p[0], tr[0], nil
}

// timeRounds is timeRuns on each of the thread counts in turn: runs
// rounds, each of which sets every count once (kernel.SetThreads) and times
// a run on it, in the order of counts in even rounds and the reverse in odd
// ones, so that the host's changes over a round weigh on every count
// alike. Entry j of secs, peaks and trips is count j's, one value a round
// (trips[j] nil on one thread).
func timeRounds(ctx context.Context, runs, reps int, withTrips bool, counts []int, pass func() error) (secs, peaks, trips [][]float64, err error) {
	n := len(counts)
	secs, peaks, trips = make([][]float64, n), make([][]float64, n), make([][]float64, n)
	for j, t := range counts {
		secs[j], peaks[j] = make([]float64, runs), make([]float64, runs)
		if withTrips && t > 1 && runtime.GOMAXPROCS(0) > 1 {
			trips[j] = make([]float64, runs)
		}
	}
	err = untilDone(ctx, func() error {
		for i := range runs {
			for o := range n {
				j := o
				if i%2 == 1 {
					j = n - 1 - o
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				t := counts[j]
				kernel.SetThreads(t)
				peaks[j][i] = kernel.FMAPeak(t, peakTime)
				if trips[j] != nil {
					trips[j][i] = float64(kernel.CoreRoundTrip(tripsPerRound).Nanoseconds())
				}
				start := time.Now()
				for range reps {
					if err := pass(); err != nil {
						return err
					}
				}
				secs[j][i] = time.Since(start).Seconds() / float64(reps)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return secs, peaks, trips, nil
}

// tripsPerRound is the number of round trips of each of
// kernel.CoreRoundTrip's five rounds before a timed run: 5 to 35 ms at
// round trips of 50 to 350 ns.
const tripsPerRound = 20000

// untilDone runs timed work in a goroutine of its own and returns its
// error, or ctx's as soon as ctx is done: a product or a pass that takes
// seconds (a large matmul, the Go kernels) does not hold up an interrupt.
// The work, left running, must touch nothing the caller reads after an
// early return; the process ends soon after.
func untilDone(ctx context.Context, work func() error) error {
	done := make(chan error, 1)
	go func() { done <- work() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// peakRates returns the median of the runs' peaks (GFLOP/s) and the median
// over the runs of the rate of flops operations in the run's seconds over
// the same run's peak. secs and peaks are left as they are, in the order of
// the runs.
func peakRates(flops float64, secs, peaks []float64) (peak, ratio float64) {
	ratios := make([]float64, len(secs))
	for i := range ratios {
		ratios[i] = flops / secs[i] / 1e9 / peaks[i]
	}
	return experiment.Median(slices.Clone(peaks)), experiment.Median(ratios)
}

// digitsResult is the outcome of "wadn bench digits", also its --json form.
// GFLOPS counts the direct convolution's multiply-adds (GFLOP per pass), so
// that the Winograd path, which does fewer, shows as a higher rate.
type digitsResult struct {
	Target     string  `json:"target"`
	Images     int     `json:"images"`
	Threads    int     `json:"threads"`
	Impl       string  `json:"impl"`
	Conv       string  `json:"conv"`
	Runs       int     `json:"runs"`
	Seconds    float64 `json:"seconds"` // median over the runs
	SecondsMin float64 `json:"seconds_min"`
	SecondsMax float64 `json:"seconds_max"`
	GFLOP      float64 `json:"gflop_per_pass"`
	GFLOPS     float64 `json:"gflops"`      // GFLOP / median seconds
	PeakGFLOPS float64 `json:"peak_gflops"` // median of the peaks measured before each run
	PeakRatio  float64 `json:"peak_ratio"`  // median over runs of that run's GFLOP/s over its peak
}

// benchDigits times the forward and backward pass of the Digits extractor
// (nets.NewDigitsExtractor) on images random 3x32x32 float32 images: one
// warm-up pass, then runs passes, each preceded by a measurement of the FMA
// peak on the same threads.
func benchDigits(ctx context.Context, images, runs int) (digitsResult, error) {
	rng := rand.New(rand.NewPCG(1, 1))
	net := nets.NewDigitsExtractor(rng)
	x := make([]float32, images*3*32*32)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	input := autodiff.New(x, images, 3, 32, 32)
	flops := digitsFlops(net, input)
	pass := func() {
		loss := autodiff.SumAll(net.Forward(input))
		loss.Backward()
		loss.Release()
	}
	pass()
	t := kernel.Threads()
	secs, peaks, _, err := timeRuns(ctx, runs, 1, false, func() error { pass(); return nil })
	if err != nil {
		return digitsResult{}, err
	}
	median := experiment.Median(slices.Clone(secs))
	peak, ratio := peakRates(flops, secs, peaks)
	return digitsResult{
		Target: "digits", Images: images, Threads: t, Impl: kernel.Impl(),
		Conv: autodiff.CurrentConvAlgorithm().String(), Runs: runs,
		Seconds: median, SecondsMin: slices.Min(secs), SecondsMax: slices.Max(secs),
		GFLOP: flops / 1e9, GFLOPS: flops / median / 1e9,
		PeakGFLOPS: peak, PeakRatio: ratio,
	}, nil
}

// digitsFlops returns the multiply-adds (times two) of the direct
// convolutions of one forward and backward pass of net on x: for every
// Conv2d layer 2*N*F*C*KH*KW*OH*OW for the forward pass, as many for the
// filter gradient, and as many for the input gradient except in the first
// layer, whose input (the images) needs none. The shapes are those of a
// forward pass, layer by layer.
func digitsFlops(net *nn.Sequential[float32], x *autodiff.Tensor[float32]) float64 {
	var flops float64
	first := true
	h := x
	for _, l := range net.Layers {
		out := l.Forward(h)
		if c, ok := l.(*nn.Conv2d[float32]); ok {
			in, o := h.Shape(), out.Shape()
			per := 2 * float64(o[0]) * float64(o[1]) * float64(in[1]) * float64(c.Kernel*c.Kernel) * float64(o[2]*o[3])
			passes := 3.0
			if first {
				passes = 2
			}
			flops += passes * per
			first = false
		}
		h = out
	}
	h.Release()
	return flops
}

// stepsPerRun is the number of WADN steps each timed run of "wadn bench
// digits --step" takes.
const stepsPerRun = 10

// stepResult is the outcome of "wadn bench digits --step", also its --json
// form. GFLOP counts what a step executes (kernel.CountFlops: the products
// and transforms of the Winograd path, every Gemm, element-wise work),
// GFLOPDirect what the same step executes with every convolution direct.
type stepResult struct {
	Target       string  `json:"target"`
	Batch        int     `json:"batch"` // images of each of the 4 domains a step
	Threads      int     `json:"threads"`
	Impl         string  `json:"impl"`
	Conv         string  `json:"conv"`
	Runs         int     `json:"runs"`
	StepsPerRun  int     `json:"steps_per_run"`
	Seconds      float64 `json:"seconds"` // a step, median over the runs
	SecondsMin   float64 `json:"seconds_min"`
	SecondsMax   float64 `json:"seconds_max"`
	GFLOP        float64 `json:"gflop_per_step"`
	GFLOPDirect  float64 `json:"gflop_direct_per_step"`
	GFLOPS       float64 `json:"gflops"`        // GFLOP / seconds
	GFLOPSDirect float64 `json:"gflops_direct"` // GFLOPDirect / seconds
	PeakGFLOPS   float64 `json:"peak_gflops"`   // median of the peaks measured before each run
	PeakRatio    float64 `json:"peak_ratio"`    // median over runs of the executed rate over that run's peak
	// RoundTripNs holds, for each run on more than one thread, the round
	// trip of a cache line between two cores measured before it
	// (kernel.CoreRoundTrip), in nanoseconds: the step's threads exchange
	// data, and a machine whose cores share no cache slows them down.
	RoundTripNs []float64 `json:"round_trip_ns,omitempty"`
	// HugePages is the state of transparent huge pages after the timed
	// runs, where the system reports it (readHugePages).
	HugePages *hugePages `json:"huge_pages,omitempty"`
	// Products holds, with --products, the step's matrix products by
	// shape (productsOf), the longest first.
	Products []productResult `json:"products,omitempty"`
	// Regions holds, with --regions, the record of the step's parallel
	// regions (regionsOf).
	Regions *regionResult `json:"regions,omitempty"`
}

// benchDigitsStep times WADN's training step on the Digits network with the
// Digits defaults (unsupervised adaptation) on random images, batch of each
// domain: two warm-up steps, then runs runs of stepsPerRun steps, each
// preceded by a measurement of the FMA peak on the same threads. The
// operations of one step are counted after the timed runs, with the
// convolution algorithm in use and with the direct one; with products set,
// the step's matrix products are then timed by shape (productsOf), and
// with regions set its parallel regions (regionsOf).
func benchDigitsStep(ctx context.Context, batch, runs int, products, regions bool) (stepResult, error) {
	step, err := newBenchStep(batch)
	if err != nil {
		return stepResult{}, err
	}
	t := kernel.Threads()
	secs, peaks, trips, err := timeRuns(ctx, runs, stepsPerRun, true, step)
	if err != nil {
		return stepResult{}, err
	}
	huge := readHugePages()
	flops, direct, err := stepFlops(step)
	if err != nil {
		return stepResult{}, err
	}
	res := newStepResult(batch, t, secs, peaks, trips, flops, direct)
	res.HugePages = huge
	if products {
		if res.Products, err = productsOf(ctx, step); err != nil {
			return stepResult{}, err
		}
	}
	if regions {
		if res.Regions, err = regionsOf(ctx, step); err != nil {
			return stepResult{}, err
		}
	}
	return res, nil
}

// newBenchStep returns a function that runs the next WADN training step on
// the Digits network with the Digits defaults (unsupervised adaptation) on
// random images, batch of each domain, after two warm-up steps.
func newBenchStep(batch int) (step func() error, err error) {
	r, err := wadn.NewBenchRun(wadn.DigitsBenchTask(), dataset.Digits, nets.Digits{}, batch)
	if err != nil {
		return nil, err
	}
	k := 0
	step = func() error {
		k++
		return r.Step(1, k%r.Steps)
	}
	for range 2 {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return step, nil
}

// stepFlops returns the operations of one step, counted with the
// convolution algorithm in use and with the direct one.
func stepFlops(step func() error) (flops, direct float64, err error) {
	count := func(alg autodiff.ConvAlgorithm) (float64, error) {
		defer autodiff.SetConvAlgorithm(autodiff.SetConvAlgorithm(alg))
		kernel.CountFlops(true)
		err := step()
		return float64(kernel.CountFlops(false)), err
	}
	if flops, err = count(autodiff.CurrentConvAlgorithm()); err != nil {
		return 0, 0, err
	}
	direct, err = count(autodiff.ConvDirect)
	return flops, direct, err
}

// newStepResult returns the result of runs on t threads that took secs a
// step, beside the peaks and round trips measured before them, of steps of
// flops operations (direct with direct convolutions).
func newStepResult(batch, t int, secs, peaks, trips []float64, flops, direct float64) stepResult {
	median := experiment.Median(slices.Clone(secs))
	peak, ratio := peakRates(flops, secs, peaks)
	return stepResult{
		Target: "digits-step", Batch: batch, Threads: t, Impl: kernel.Impl(),
		Conv: autodiff.CurrentConvAlgorithm().String(), Runs: len(secs), StepsPerRun: stepsPerRun,
		Seconds: median, SecondsMin: slices.Min(secs), SecondsMax: slices.Max(secs),
		GFLOP: flops / 1e9, GFLOPDirect: direct / 1e9,
		GFLOPS: flops / median / 1e9, GFLOPSDirect: direct / median / 1e9,
		PeakGFLOPS: peak, PeakRatio: ratio,
		RoundTripNs: trips,
	}
}

// writeStep prints res as the text form of "wadn bench digits --step".
func writeStep(w io.Writer, res stepResult) {
	fmt.Fprintf(w, "WADN digits step, %d images of each of 4 domains, threads=%d impl=%s conv=%s runs=%d of %d steps\n",
		res.Batch, res.Threads, res.Impl, res.Conv, res.Runs, res.StepsPerRun)
	fmt.Fprintf(w, "time a step: median %.4f s (min %.4f, max %.4f)\n", res.Seconds, res.SecondsMin, res.SecondsMax)
	fmt.Fprintf(w, "executed: %.3f GFLOP a step, %.1f GFLOP/s; direct-convolution count: %.3f GFLOP, %.1f GFLOP/s\n",
		res.GFLOP, res.GFLOPS, res.GFLOPDirect, res.GFLOPSDirect)
	fmt.Fprintf(w, "FMA peak (register-only loop, measured before each run): median %.1f GFLOP/s; executed rate over it %.2f (median over runs)\n",
		res.PeakGFLOPS, res.PeakRatio)
	if len(res.RoundTripNs) > 0 {
		fmt.Fprintf(w, "a cache line's round trip between two cores, before each run: %s ns\n", joinFloats(res.RoundTripNs, "%.0f", ", "))
	}
	if h := res.HugePages; h != nil {
		fmt.Fprintf(w, "transparent huge pages: %s (the kernel's setting); %.0f of the process's %.0f MB resident in huge pages\n",
			h.Mode, float64(h.Bytes)/1e6, float64(h.Resident)/1e6)
	}
	if res.Products != nil {
		writeProducts(w, res)
	}
	if res.Regions != nil {
		writeRegions(w, res)
	}
}

// threadsResult is the outcome of "wadn bench digits --step" with a list of
// thread counts, also its --json form.
type threadsResult struct {
	Target  string       `json:"target"`  // digits-step-threads
	Results []stepResult `json:"results"` // one a count, in the order given
	// Speedups holds one entry for each count after the first.
	Speedups []speedup `json:"speedups"`
}

// speedup compares the step on Threads threads with the step on Over
// threads: in each round, the time on Over over the time on Threads;
// Median, Min and Max are taken over the Rounds rounds.
type speedup struct {
	Threads int     `json:"threads"`
	Over    int     `json:"over_threads"`
	Rounds  int     `json:"rounds"`
	Median  float64 `json:"median"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
}

// benchDigitsStepThreads is benchDigitsStep on several thread counts, one
// model for all: the two warm-up steps of newBenchStep on the first count,
// two more on each other count, then runs rounds in
// which each count takes a run of stepsPerRun steps (timeRounds). The
// thread count changes no bit of a step, so the counts train the same
// model on and the operations are counted once.
func benchDigitsStepThreads(ctx context.Context, batch, runs int, counts []int) (threadsResult, error) {
	kernel.SetThreads(counts[0])
	step, err := newBenchStep(batch)
	if err != nil {
		return threadsResult{}, err
	}
	for _, t := range counts[1:] {
		kernel.SetThreads(t)
		for range 2 {
			if err := step(); err != nil {
				return threadsResult{}, err
			}
		}
	}
	secs, peaks, trips, err := timeRounds(ctx, runs, stepsPerRun, true, counts, step)
	if err != nil {
		return threadsResult{}, err
	}
	huge := readHugePages()
	flops, direct, err := stepFlops(step)
	if err != nil {
		return threadsResult{}, err
	}
	res := threadsResult{Target: "digits-step-threads"}
	for j, t := range counts {
		res.Results = append(res.Results, newStepResult(batch, t, secs[j], peaks[j], trips[j], flops, direct))
		res.Results[j].HugePages = huge
		if j == 0 {
			continue
		}
		ratios := make([]float64, runs)
		for i := range ratios {
			ratios[i] = secs[0][i] / secs[j][i]
		}
		res.Speedups = append(res.Speedups, speedup{
			Threads: t, Over: counts[0], Rounds: runs,
			Median: experiment.Median(slices.Clone(ratios)), Min: slices.Min(ratios), Max: slices.Max(ratios),
		})
	}
	return res, nil
}
