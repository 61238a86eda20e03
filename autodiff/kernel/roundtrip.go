package kernel

import (
	"runtime"
	"slices"
	"sync/atomic"
	"time"
)

// CoreRoundTrip measures the time a value takes to go from one goroutine to
// another and back through one cache line, both spinning on it: five
// rounds of trips round trips each, of which it returns the median of the
// rounds' means. On a machine with as many cores as GOMAXPROCS the two
// goroutines run on two cores, so this is the latency between the cores
// the kernels' threads run on, which sets what a value written by one
// thread costs the other (the same last-level cache, or not). With
// GOMAXPROCS below 2, or trips below 1, it returns 0.
func CoreRoundTrip(trips int) time.Duration {
	if runtime.GOMAXPROCS(0) < 2 || trips < 1 {
		return 0
	}
	means := make([]time.Duration, 5)
	for r := range means {
		means[r] = roundTrips(trips)
	}
	slices.Sort(means)
	return means[len(means)/2]
}

// roundTrips times n round trips between the calling goroutine and one it
// starts, and returns their mean. Each side yields the processor now and
// then while it waits, so that both make progress when they share a
// thread.
func roundTrips(n int) time.Duration {
	var line struct {
		_ [64]byte // the value alone on its cache line
		v atomic.Int64
		_ [56]byte
	}
	wait := func(want int64) {
		for i := 1; line.v.Load() != want; i++ {
			if i%(1<<14) == 0 {
				runtime.Gosched()
			}
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range int64(n) {
			wait(2*i + 1)
			line.v.Store(2*i + 2)
		}
	}()
	start := time.Now()
	for i := range int64(n) {
		line.v.Store(2*i + 1)
		wait(2*i + 2)
	}
	elapsed := time.Since(start)
	<-done
	return elapsed / time.Duration(n)
}
