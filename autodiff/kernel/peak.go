package kernel

import (
	"sync"
	"time"
)

// fmaLanes and fmaChains describe the loop of FMAPeak under each
// implementation: the number of float32 lanes per multiply-add and the number
// of independent accumulators (enough to cover the latency of the FMA units).
const (
	fmaChainsAVX2   = 10
	fmaChainsAVX512 = 12
	fmaChainsGo     = 8
)

// fmaLoop runs n rounds of the current implementation's multiply-add loop
// and returns the sum of its accumulators and the flops it performed.
func fmaLoop(n int) (sum float32, flops float64) {
	switch int(current.Load()) {
	case implAVX512:
		return fmaLoopAVX512(n), float64(n) * fmaChainsAVX512 * 16 * 2
	case implAVX2:
		return fmaLoopAVX2(n), float64(n) * fmaChainsAVX2 * 8 * 2
	}
	return fmaLoopGo(n, 1, fmaChainsGo), float64(n) * fmaChainsGo * 2
}

// FMAPeak measures the float32 multiply-add rate of the machine under the
// current implementation, in GFLOP/s (two flops per multiply-add and lane):
// threads goroutines each run a loop of independent multiply-adds on
// registers (no memory traffic: AVX2 FMA on 256-bit registers, AVX-512 on
// 512-bit ones, scalar Go otherwise) for about d, at the same time, and the
// rates are added. It is the limit a kernel of this implementation can
// reach on this machine with this many threads, measured rather than taken
// from a data sheet.
func FMAPeak(threads int, d time.Duration) float64 {
	threads = max(threads, 1)
	const round = 1 << 16
	fmaLoop(round) // warm up the vector units
	var wg sync.WaitGroup
	rates := make([]float64, threads)
	for t := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var flops float64
			start := time.Now()
			for time.Since(start) < d {
				_, f := fmaLoop(round)
				flops += f
			}
			rates[t] = flops / time.Since(start).Seconds() / 1e9
		}()
	}
	wg.Wait()
	var sum float64
	for _, r := range rates {
		sum += r
	}
	return sum
}

// fmaLoopGo is the specification of fmaLoopAVX2 (lanes 8, chains 10) and
// fmaLoopAVX512 (lanes 16, chains 12), and with lanes 1 the loop of the Go
// implementation: accumulator i of lane l starts at i and gets n times
// acc*1 + 0.5, so that it ends at i + n/2; the result is the sum of all
// accumulators, exact while it stays below 2^24.
func fmaLoopGo(n, lanes, chains int) float32 {
	acc := make([]float32, chains)
	for i := range acc {
		acc[i] = float32(i)
	}
	one, half := float32(1), float32(0.5)
	for r := 0; r < n; r++ {
		for i := range acc {
			acc[i] = acc[i]*one + half
		}
	}
	var s float32
	for _, v := range acc {
		s += v
	}
	return s * float32(lanes)
}
