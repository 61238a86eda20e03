package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

func TestBenchMatmulJSON(t *testing.T) {
	tests := []struct {
		name             string
		args             []string
		m, k, n, threads int
		transA, transB   bool
		runs             int
	}{
		{"plain", []string{"bench", "matmul", "--m", "7", "--k", "5", "--n", "9", "--runs", "3", "--threads", "1", "--json"}, 7, 5, 9, 1, false, false, 3},
		{"transposes", []string{"bench", "matmul", "--m=3", "--k=4", "--n=5", "--transa", "--transb", "--runs=2", "--threads=2", "--json"}, 3, 4, 5, 2, true, true, 2},
		{"target last", []string{"bench", "--m", "2", "--k", "2", "--n", "2", "--runs", "1", "--threads", "1", "matmul", "--json"}, 2, 2, 2, 1, false, false, 1},
		{"impl go", []string{"bench", "matmul", "--m", "4", "--k", "4", "--n", "4", "--runs", "1", "--threads", "1", "--impl", "go", "--json"}, 4, 4, 4, 1, false, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runArgs(t, "", tc.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			var raw map[string]any
			if err := json.Unmarshal([]byte(out), &raw); err != nil {
				t.Fatalf("output is not one JSON object: %v\n%s", err, out)
			}
			for _, key := range []string{"gflops", "m", "k", "n", "threads", "impl", "runs", "transa", "transb", "gflops_min", "gflops_max"} {
				if _, ok := raw[key]; !ok {
					t.Errorf("JSON lacks %q: %s", key, out)
				}
			}
			var r benchResult
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if r.M != tc.m || r.K != tc.k || r.N != tc.n || r.Threads != tc.threads || r.Runs != tc.runs || r.TransA != tc.transA || r.TransB != tc.transB {
				t.Errorf("got %+v, want m=%d k=%d n=%d threads=%d runs=%d transa=%v transb=%v", r, tc.m, tc.k, tc.n, tc.threads, tc.runs, tc.transA, tc.transB)
			}
			if !(r.GFLOPS > 0) || r.GFLOPSMin > r.GFLOPS || r.GFLOPS > r.GFLOPSMax {
				t.Errorf("GFLOP/s not ordered min <= median <= max or not positive: %+v", r)
			}
			if r.Impl == "" || (tc.name == "impl go" && r.Impl != "go") {
				t.Errorf("impl = %q", r.Impl)
			}
		})
	}
}

func TestBenchMatmulText(t *testing.T) {
	checkBenchText(t, []string{"m=3 k=3 n=3", "GFLOP/s: median", "impl="}, "bench", "matmul", "--m", "3", "--k", "3", "--n", "3", "--runs", "2")
}

func TestBenchErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"help", []string{"bench", "-h"}, 0, "usage: wadn bench"},
		{"no target", []string{"bench"}, 2, "missing target"},
		{"unknown target", []string{"bench", "conv"}, 2, "unknown target"},
		{"matmul flag on digits", []string{"bench", "digits", "--m", "3"}, 2, "--m: not a flag of target digits"},
		{"digits flag on matmul", []string{"bench", "--images", "3", "matmul"}, 2, "--images: not a flag of target matmul"},
		{"bad conv", []string{"bench", "digits", "--conv", "fft"}, 2, "unknown convolution algorithm"},
		{"zero images", []string{"bench", "digits", "--images", "0"}, 2, "--images"},
		{"zero batch", []string{"bench", "digits", "--step", "--batch", "0"}, 2, "--batch"},
		{"images with step", []string{"bench", "digits", "--step", "--images", "8"}, 2, "--images: not a flag of digits --step"},
		{"batch without step", []string{"bench", "digits", "--batch", "8"}, 2, "--batch: not a flag of digits without --step"},
		{"step flag on matmul", []string{"bench", "matmul", "--step"}, 2, "--step: not a flag of target matmul"},
		{"products without step", []string{"bench", "digits", "--products"}, 2, "--products: not a flag of digits without --step"},
		{"products on matmul", []string{"bench", "matmul", "--products"}, 2, "--products: not a flag of target matmul"},
		{"regions without step", []string{"bench", "digits", "--regions"}, 2, "--regions: not a flag of digits without --step"},
		{"regions on peak", []string{"bench", "peak", "--regions"}, 2, "--regions: not a flag of target peak"},
		{"bad flag", []string{"bench", "matmul", "--nope"}, 2, "flag provided but not defined"},
		{"bad number", []string{"bench", "matmul", "--m", "x"}, 2, "invalid value"},
		{"zero size", []string{"bench", "matmul", "--m", "0"}, 2, "at least 1"},
		{"zero runs", []string{"bench", "matmul", "--runs", "0"}, 2, "--runs"},
		{"negative threads", []string{"bench", "matmul", "--threads", "-1"}, 2, "--threads"},
		{"negative thread in a list", []string{"bench", "digits", "--step", "--threads", "1,-2"}, 2, "--threads must not be negative (got 1,-2)"},
		{"bad thread list", []string{"bench", "digits", "--step", "--threads", "1,x"}, 2, "as 1,2"},
		{"empty thread list entry", []string{"bench", "digits", "--step", "--threads", "1,"}, 2, "as 1,2"},
		{"thread list on matmul", []string{"bench", "matmul", "--threads", "1,2"}, 2, "--threads 1,2: a list of thread counts is taken by digits --step only"},
		{"thread list without step", []string{"bench", "digits", "--threads", "1,2"}, 2, "digits --step only"},
		{"thread list on peak", []string{"bench", "peak", "--threads", "1,2"}, 2, "digits --step only"},
		{"thread list with products", []string{"bench", "digits", "--step", "--products", "--threads", "1,2"}, 2, "--products takes one thread count"},
		{"thread list with regions", []string{"bench", "digits", "--step", "--regions", "--threads", "1,2"}, 2, "--regions takes one thread count"},
		{"thread count twice", []string{"bench", "digits", "--step", "--threads", "2,1,2"}, 2, "2 threads twice"},
		{"unknown impl", []string{"bench", "matmul", "--impl", "sse9"}, 2, "sse9"},
		{"extra argument", []string{"bench", "matmul", "--m", "2", "extra"}, 2, "unexpected argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runArgs(t, "", tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, errOut)
			}
			if !strings.Contains(errOut, tc.message) {
				t.Errorf("stderr lacks %q:\n%s", tc.message, errOut)
			}
		})
	}
}

func TestBenchDigitsJSON(t *testing.T) {
	for _, conv := range []string{"winograd", "winograd4x4", "winograd5x5", "direct"} {
		code, out, errOut := runArgs(t, "", "bench", "digits", "--images", "9", "--runs", "2", "--threads", "1", "--conv", conv, "--json")
		if code != 0 {
			t.Fatalf("exit %d, stderr:\n%s", code, errOut)
		}
		var raw map[string]any
		if err := json.Unmarshal([]byte(out), &raw); err != nil {
			t.Fatalf("output is not one JSON object: %v\n%s", err, out)
		}
		for _, key := range []string{"seconds", "gflops", "threads", "impl", "conv", "peak_gflops", "peak_ratio", "gflop_per_pass", "images", "runs"} {
			if _, ok := raw[key]; !ok {
				t.Errorf("JSON lacks %q: %s", key, out)
			}
		}
		var r digitsResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		// 9 images: 2*9*(64*3*900*2 + 128*64*169*3 + 256*128*25*3)*9 flops.
		want := 2 * 9 * 9 * float64(64*3*900*2+128*64*169*3+256*128*25*3) / 1e9
		if r.Images != 9 || r.Runs != 2 || r.Threads != 1 || r.Conv != conv || r.Impl == "" {
			t.Errorf("got %+v", r)
		}
		if diff := r.GFLOP - want; diff > 1e-9 || diff < -1e-9 {
			t.Errorf("GFLOP per pass %v, want %v", r.GFLOP, want)
		}
		if !(r.Seconds > 0) || r.SecondsMin > r.Seconds || r.Seconds > r.SecondsMax || !(r.PeakGFLOPS > 0) || !(r.PeakRatio > 0) {
			t.Errorf("times or peak not positive and ordered: %+v", r)
		}
		if d := r.GFLOPS - r.GFLOP/r.Seconds; d > 1e-6*r.GFLOPS || d < -1e-6*r.GFLOPS {
			t.Errorf("GFLOP/s %v, want GFLOP/seconds = %v", r.GFLOPS, r.GFLOP/r.Seconds)
		}
	}
}

func TestBenchDigitsAndPeakText(t *testing.T) {
	checkBenchText(t, []string{"digits extractor forward+backward, 8 images", "GFLOP/s", "FMA peak", "ratio", "conv=winograd"}, "bench", "digits", "--images", "8", "--runs", "1")
	code, out, errOut := runArgs(t, "", "bench", "peak", "--threads", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	var r peakResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Threads != 1 || !(r.PeakGFLOPS > 0) || r.Target != "peak" {
		t.Errorf("peak JSON %s: %+v, %v", out, r, err)
	}
}

// TestBenchDigitsStep times two runs of the WADN Digits step at a batch of
// 4 images per domain, in JSON and in text, and checks the counts: the
// direct convolutions execute more than the Winograd path.
func TestBenchDigitsStep(t *testing.T) {
	for _, tc := range []struct {
		conv    string
		threads string
	}{
		{"winograd", "1"},
		{"direct", "2"},
	} {
		code, out, errOut := runArgs(t, "", "bench", "digits", "--step", "--batch", "4", "--runs", "2", "--threads", tc.threads, "--conv", tc.conv, "--json")
		if code != 0 {
			t.Fatalf("exit %d, stderr:\n%s", code, errOut)
		}
		var raw map[string]any
		if err := json.Unmarshal([]byte(out), &raw); err != nil {
			t.Fatalf("output is not one JSON object: %v\n%s", err, out)
		}
		for _, key := range []string{"seconds", "gflops", "gflops_direct", "threads", "impl", "batch", "peak_gflops", "peak_ratio"} {
			if _, ok := raw[key]; !ok {
				t.Errorf("JSON lacks %q: %s", key, out)
			}
		}
		var r stepResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Batch != 4 || r.Runs != 2 || r.Conv != tc.conv || r.Impl == "" || fmt.Sprint(r.Threads) != tc.threads {
			t.Errorf("got %+v", r)
		}
		if !(r.Seconds > 0) || r.SecondsMin > r.Seconds || r.Seconds > r.SecondsMax || !(r.PeakGFLOPS > 0) || !(r.PeakRatio > 0) {
			t.Errorf("times or peak not positive and ordered: %+v", r)
		}
		// The first layer alone, forward and filter gradient, runs 2*2*16*64*27*900 flops direct.
		if floor := 4 * 16 * 64 * 27 * 900 / 1e9; !(r.GFLOP > floor) || !(r.GFLOPDirect > floor) {
			t.Errorf("counts %v and %v GFLOP, want above %v", r.GFLOP, r.GFLOPDirect, floor)
		}
		if tc.conv == "direct" && r.GFLOP != r.GFLOPDirect || tc.conv == "winograd" && !(r.GFLOP < r.GFLOPDirect) {
			t.Errorf("%s: executed %v GFLOP, direct %v", tc.conv, r.GFLOP, r.GFLOPDirect)
		}
		if d := r.GFLOPS - r.GFLOP/r.Seconds; d > 1e-6*r.GFLOPS || d < -1e-6*r.GFLOPS {
			t.Errorf("GFLOP/s %v, want GFLOP/seconds = %v", r.GFLOPS, r.GFLOP/r.Seconds)
		}
		// A round trip a run on two threads (when the process may use two),
		// none on one.
		want := 0
		if tc.threads == "2" && runtime.GOMAXPROCS(0) > 1 {
			want = r.Runs
		}
		if len(r.RoundTripNs) != want || slices.ContainsFunc(r.RoundTripNs, func(ns float64) bool { return !(ns > 0) }) {
			t.Errorf("threads %s: round trips %v, want %d positive", tc.threads, r.RoundTripNs, want)
		}
		// The huge pages' state where the system reports it, none elsewhere.
		if (r.HugePages != nil) != (readHugePages() != nil) {
			t.Errorf("huge pages %+v, where the system reports %+v", r.HugePages, readHugePages())
		}
		if h := r.HugePages; h != nil && (h.Mode == "" || !(h.Resident > 0) || h.Bytes > h.Resident) {
			t.Errorf("huge pages %+v", h)
		}
	}
	wants := []string{"WADN digits step, 2 images", "executed", "direct-convolution count", "FMA peak"}
	if runtime.GOMAXPROCS(0) > 1 {
		wants = append(wants, "round trip between two cores")
	}
	if readHugePages() != nil {
		wants = append(wants, "transparent huge pages: ")
	}
	checkBenchText(t, wants, "bench", "digits", "--step", "--batch", "2", "--runs", "1", "--threads", "2")
}

// TestBenchDigitsStepThreads checks --step with a list of thread counts:
// one result a count, in the order given, each with its own runs, peaks
// and (on more than one thread) round trips, the same count of operations
// for both; and the speed-up of the second count over the first, its
// median between its least and greatest; and the text form.
func TestBenchDigitsStepThreads(t *testing.T) {
	code, out, errOut := runArgs(t, "", "bench", "digits", "--step", "--batch", "4", "--runs", "3", "--threads", "2,1", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	var res threadsResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out)
	}
	if res.Target != "digits-step-threads" || len(res.Results) != 2 || len(res.Speedups) != 1 {
		t.Fatalf("got %+v", res)
	}
	for i, want := range []int{2, 1} {
		r := res.Results[i]
		if r.Threads != want || r.Runs != 3 || r.Batch != 4 || !(r.Seconds > 0) || !(r.PeakGFLOPS > 0) || !(r.PeakRatio > 0) {
			t.Errorf("result %d: %+v", i, r)
		}
		if r.GFLOP != res.Results[0].GFLOP || r.GFLOPDirect != res.Results[0].GFLOPDirect || !(r.GFLOP > 0) {
			t.Errorf("result %d counts %v and %v GFLOP, the first %v and %v", i, r.GFLOP, r.GFLOPDirect, res.Results[0].GFLOP, res.Results[0].GFLOPDirect)
		}
		trips := 0
		if want > 1 && runtime.GOMAXPROCS(0) > 1 {
			trips = 3
		}
		if len(r.RoundTripNs) != trips {
			t.Errorf("%d threads: round trips %v, want %d", want, r.RoundTripNs, trips)
		}
		if (r.HugePages != nil) != (readHugePages() != nil) || r.HugePages != nil && *r.HugePages != *res.Results[0].HugePages {
			t.Errorf("%d threads: huge pages %+v, the first count's %+v", want, r.HugePages, res.Results[0].HugePages)
		}
	}
	s := res.Speedups[0]
	if s.Threads != 1 || s.Over != 2 || s.Rounds != 3 || !(s.Min > 0) || s.Min > s.Median || s.Median > s.Max {
		t.Errorf("speed-up %+v", s)
	}
	checkBenchText(t, []string{"threads=1 impl", "threads=2 impl", "speed-up of 2 threads over 1", "over 1 rounds"}, "bench", "digits", "--step", "--batch", "2", "--runs", "1", "--threads", "1,2")
}

// TestTimeRounds checks the order of timeRounds' runs: every count once a
// round, in the order given in even rounds and the reverse in odd ones,
// each run on its own count, its values filed under that count.
func TestTimeRounds(t *testing.T) {
	defer kernel.SetThreads(kernel.SetThreads(0))
	var seen []int
	secs, peaks, trips, err := timeRounds(context.Background(), 3, 2, true, []int{1, 3, 2}, func() error {
		seen = append(seen, kernel.Threads())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{1, 1, 3, 3, 2, 2, 2, 2, 3, 3, 1, 1, 1, 1, 3, 3, 2, 2}
	if !slices.Equal(seen, want) {
		t.Errorf("threads of the passes %v, want %v", seen, want)
	}
	for j, c := range []int{1, 3, 2} {
		if len(secs[j]) != 3 || len(peaks[j]) != 3 || slices.ContainsFunc(peaks[j], func(p float64) bool { return !(p > 0) }) {
			t.Errorf("count %d: seconds %v, peaks %v", c, secs[j], peaks[j])
		}
		if (c > 1 && runtime.GOMAXPROCS(0) > 1) != (trips[j] != nil) {
			t.Errorf("count %d: round trips %v", c, trips[j])
		}
	}
}

// TestPeakRates checks that each run's rate is taken over the same run's
// peak, whatever the order of the peaks, and that neither input is
// reordered.
func TestPeakRates(t *testing.T) {
	tests := []struct {
		name              string
		secs, peaks       []float64
		wantPeak, wantRat float64
	}{
		// 10 GFLOP a run: rates 10 and 2.5 GFLOP/s, each at its run's peak.
		{"falling peaks", []float64{1, 4}, []float64{10, 2.5}, 6.25, 1},
		{"rising peaks", []float64{4, 1}, []float64{2.5, 10}, 6.25, 1},
		{"three runs", []float64{2, 1, 5}, []float64{20, 5, 4}, 5, 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			secs, peaks := slices.Clone(tc.secs), slices.Clone(tc.peaks)
			peak, ratio := peakRates(10e9, secs, peaks)
			if math.Abs(peak-tc.wantPeak) > 1e-12 || math.Abs(ratio-tc.wantRat) > 1e-12 {
				t.Errorf("peak %v, ratio %v; want %v, %v", peak, ratio, tc.wantPeak, tc.wantRat)
			}
			if !slices.Equal(secs, tc.secs) || !slices.Equal(peaks, tc.peaks) {
				t.Errorf("inputs changed: %v, %v", secs, peaks)
			}
			r := newStepResult(4, 1, secs, peaks, nil, 10e9, 20e9)
			if math.Abs(r.PeakGFLOPS-tc.wantPeak) > 1e-12 || math.Abs(r.PeakRatio-tc.wantRat) > 1e-12 || r.Runs != len(secs) {
				t.Errorf("step result: peak %v, ratio %v, runs %d; want %v, %v, %d", r.PeakGFLOPS, r.PeakRatio, r.Runs, tc.wantPeak, tc.wantRat, len(secs))
			}
		})
	}
}

// TestBenchDigitsStepProducts checks --products: the step's products by
// shape, each with its calls, time and rates, the longest first, adding up
// to less than the step's count of operations but most of it; the
// classifier's first layer among them, once a step; and the table in the
// text output.
func TestBenchDigitsStepProducts(t *testing.T) {
	r, out := benchStepJSON(t, "--batch", "4", "--runs", "1", "--threads", "1", "--products")
	if len(r.Products) == 0 {
		t.Fatalf("no products: %s", out)
	}
	var flops float64
	classifier := 0.0
	for i, p := range r.Products {
		if !(p.CallsPerStep > 0) || !(p.MsPerStep > 0) || !(p.GFLOPS > 0) || !(p.HotGFLOPS > 0) {
			t.Errorf("product %d: %+v, want positive calls, time and rates", i, p)
		}
		if i > 0 && p.MsPerStep > r.Products[i-1].MsPerStep {
			t.Errorf("product %d (%.4f ms) is longer than product %d (%.4f ms)", i, p.MsPerStep, i-1, r.Products[i-1].MsPerStep)
		}
		if p.Entry != "Gemm" && p.Entry != "GemmSerial" && p.Entry != "GemmPacked" {
			t.Errorf("product %d: entry %q", i, p.Entry)
		}
		flops += 2 * float64(p.M) * float64(p.N) * float64(p.K) * p.CallsPerStep
		// 4 domains of 4 images through the classifier's 2304 -> 512 layer.
		if p.M == 16 && p.N == 512 && p.K == 2304 && !p.TransA && p.TransB {
			classifier += p.CallsPerStep
		}
	}
	if step := r.GFLOP * 1e9; !(flops <= step) || !(flops > step/2) {
		t.Errorf("the products count %.4g operations a step, want at most the step's %.4g and more than half", flops, step)
	}
	if classifier != 1 {
		t.Errorf("the classifier's first layer (16 x 512 x 2304, B transposed): %g calls a step, want 1", classifier)
	}
	checkBenchText(t, []string{"matrix products, 10 steps profiled", "calls/step", "hot", "GemmPacked"}, "bench", "digits", "--step", "--batch", "2", "--runs", "1", "--threads", "1", "--products")
}

// TestBenchDigitsStepRegions checks --regions on two threads: regions
// counted, and times that add up (the calling goroutine's time in the
// regions, outside them and recording them make the step; its waits are
// part of the first); and the lines in the text output.
func TestBenchDigitsStepRegions(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2: the regions hand parts to the team's workers")
	}
	r, out := benchStepJSON(t, "--batch", "8", "--runs", "1", "--threads", "2", "--regions")
	g := r.Regions
	switch {
	case g == nil:
		t.Fatalf("no regions: %s", out)
	case g.Steps != profileSteps || !(g.StepMs > 0):
		t.Errorf("%d steps of %g ms, want %d of a positive time", g.Steps, g.StepMs, profileSteps)
	case !(g.RegionsPerStep >= 1):
		t.Errorf("%g regions a step on two threads, want at least one", g.RegionsPerStep)
	case !(g.InsideMs > 0) || g.WaitingMs < 0 || g.WaitingMs > g.InsideMs || g.HandoffMs < 0 || g.AsleepPerStep < 0:
		t.Errorf("times out of order: %+v", *g)
	case math.Abs(g.InsideMs+g.OutsideMs+g.CostMs-g.StepMs) > 1e-9*g.StepMs || g.OutsideMs < 0 || !(g.CostMs > 0):
		t.Errorf("inside %g ms, outside %g ms and the profile's %g ms do not make the step's %g ms", g.InsideMs, g.OutsideMs, g.CostMs, g.StepMs)
	}
	checkRegionSites(t, g)
	checkBenchText(t, []string{"parallel regions, 10 steps profiled", "ms of it waiting", "recording them for this profile", "handing parts to the workers", "by the functions that called them", "autodiff.MatMul"}, "bench", "digits", "--step", "--batch", "2", "--runs", "1", "--threads", "2", "--regions")
}

// checkRegionSites fails unless g's sites add up to g (their regions and
// times inside and waiting), come the most time inside first, name
// functions outside the kernel package, and include the step's matrix
// products (autodiff.MatMul, and the function that called it).
func checkRegionSites(t *testing.T, g *regionResult) {
	t.Helper()
	var regions, inside, waiting float64
	names := map[string]bool{}
	for i, s := range g.Sites {
		regions += s.RegionsPerStep
		inside += s.InsideMs
		waiting += s.WaitingMs
		names[s.Name] = true
		switch {
		case s.Name == "" || strings.HasPrefix(s.Name, "autodiff/kernel."):
			t.Errorf("site %d named %q", i, s.Name)
		case !(s.RegionsPerStep > 0) || s.WaitingMs < 0 || s.OwnMs < 0 || s.OthersMs < 0 || s.OwnMs+s.WaitingMs > s.InsideMs*(1+1e-9):
			t.Errorf("site %s out of order: %+v", s.Name, s)
		case i > 0 && s.InsideMs > g.Sites[i-1].InsideMs:
			t.Errorf("site %s (%g ms) after %s (%g ms)", s.Name, s.InsideMs, g.Sites[i-1].Name, g.Sites[i-1].InsideMs)
		}
	}
	const eps = 1e-6
	if math.Abs(regions-g.RegionsPerStep) > eps || math.Abs(inside-g.InsideMs) > eps*g.InsideMs || math.Abs(waiting-g.WaitingMs) > eps*max(g.WaitingMs, 1e-3) {
		t.Errorf("sites add up to %g regions, %g ms inside, %g waiting; the step's %g, %g, %g", regions, inside, waiting, g.RegionsPerStep, g.InsideMs, g.WaitingMs)
	}
	matmul := false
	for name := range names {
		matmul = matmul || strings.HasPrefix(name, "autodiff.MatMul[...] < ")
	}
	if !matmul {
		t.Errorf("no site called from autodiff.MatMul among %v", names)
	}
}

// benchStepJSON runs "wadn bench digits --step --json" with the further
// flags and returns its result, beside the output it was decoded from; it
// fails the test unless the command succeeds with one such object.
func benchStepJSON(t *testing.T, flags ...string) (stepResult, string) {
	t.Helper()
	args := append([]string{"bench", "digits", "--step", "--json"}, flags...)
	code, out, errOut := runArgs(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	var r stepResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out)
	}
	return r, out
}

// checkBenchText runs wadn with args and checks that it succeeds and that
// its output holds each of wants.
func checkBenchText(t *testing.T, wants []string, args ...string) {
	t.Helper()
	code, out, errOut := runArgs(t, "", args...)
	if code != 0 {
		t.Fatalf("%v: exit %d, stderr:\n%s", args, code, errOut)
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%v: output lacks %q:\n%s", args, want, out)
		}
	}
}

// TestHotRate checks that each entry point and element type gives a
// positive, finite rate for a shape alone.
func TestHotRate(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    kernel.GemmShape
	}{
		{"Gemm", kernel.GemmShape{M: 9, N: 17, K: 5, Entry: kernel.EntryGemm}},
		{"GemmSerial transposed", kernel.GemmShape{M: 9, N: 17, K: 5, TransA: true, TransB: true, Entry: kernel.EntrySerial}},
		{"GemmPacked", kernel.GemmShape{M: 9, N: 17, K: 5, TransB: true, Entry: kernel.EntryPacked}},
		{"Gemm float64", kernel.GemmShape{M: 3, N: 4, K: 2, Entry: kernel.EntryGemm, Float64: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rate := hotRate[float32](tc.s)
			if tc.s.Float64 {
				rate = hotRate[float64](tc.s)
			}
			if !(rate > 0) || math.IsInf(rate, 0) {
				t.Errorf("%+v: %g GFLOP/s, want a positive, finite rate", tc.s, rate)
			}
		})
	}
}
