package kernel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// postCounted posts chunks chunks that count their runs in runs, each
// taking about spin of busy work, so that a worker and the waiter can
// both be inside the work at once.
func postCounted(chunks int, spin time.Duration) (*Deferred, []atomic.Int32) {
	runs := make([]atomic.Int32, max(chunks, 0))
	d := Defer(chunks, func(c int) {
		for start := time.Now(); time.Since(start) < spin; {
		}
		runs[c].Add(1)
	})
	return d, runs
}

// checkRuns fails unless every chunk ran exactly once.
func checkRuns(t *testing.T, what string, runs []atomic.Int32) {
	t.Helper()
	for c := range runs {
		if n := runs[c].Load(); n != 1 {
			t.Fatalf("%s: chunk %d of %d ran %d times", what, c, len(runs), n)
		}
	}
}

// TestDeferredWaitRunsEveryChunk posts work of several sizes and checks
// that once Wait returns every chunk has run exactly once, whether a worker
// is polling (it takes chunks while the caller waits) or not, and that
// waiting again, or on nil, does nothing.
func TestDeferredWaitRunsEveryChunk(t *testing.T) {
	for _, chunks := range []int{-1, 0, 1, 2, 7, 300} {
		for _, spin := range []time.Duration{0, 2 * time.Microsecond} {
			Parallel(2, func(int) {}) // a worker, where there is one, is polling
			d, runs := postCounted(chunks, spin)
			d.Wait()
			checkRuns(t, "after Wait", runs)
			d.Wait()
			checkRuns(t, "after a second Wait", runs)
		}
	}
	var none *Deferred
	none.Wait()
	if n := posted.count.Load(); n != 0 {
		t.Fatalf("%d posted after every Wait returned", n)
	}
}

// TestDeferredIdleWorkerRunsIt checks that a worker polling for its next
// part runs the posted work by itself, every chunk once, and withdraws it
// once the last chunk is taken: it fails when the workers never look at
// the posted work, or leave it posted.
func TestDeferredIdleWorkerRunsIt(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2 for a worker to exist")
	}
	old := teamSpin.Swap(int64(time.Minute)) // the worker keeps polling
	defer teamSpin.Store(old)
	Parallel(2, func(int) {})
	const chunks = 200
	d, runs := postCounted(chunks, time.Microsecond)
	deadline := time.Now().Add(30 * time.Second)
	for d.done.Load() < chunks && time.Now().Before(deadline) {
		time.Sleep(100 * time.Microsecond)
	}
	if got := d.done.Load(); got != chunks {
		t.Fatalf("the idle worker ran %d of %d chunks in 30 s", got, chunks)
	}
	checkRuns(t, "run by the worker", runs)
	if n := posted.count.Load(); n != 0 {
		t.Fatalf("%d posted after the worker ran every chunk", n)
	}
	d.Wait()
	checkRuns(t, "after Wait", runs)
}

// TestDeferredConcurrentOwners has goroutines post and wait for work of
// their own while parallel regions run, and checks that each finds all of
// its own chunks run, whoever else's work is posted beside it (go test
// -race checks the writes' visibility).
func TestDeferredConcurrentOwners(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	stop := make(chan struct{})
	var regions sync.WaitGroup
	regions.Add(1)
	go func() {
		defer regions.Done()
		for {
			select {
			case <-stop:
				return
			default:
				Parallel(2, func(int) {})
			}
		}
	}()
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				chunks := 1 + (g*7+i)%40
				out := make([]int, chunks)
				d := Defer(chunks, func(c int) { out[c] = c + 1 })
				if i%3 == 0 {
					runtime.Gosched()
				}
				d.Wait()
				for c, v := range out {
					if v != c+1 {
						errs <- "a chunk's write not seen after Wait"
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	regions.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if n := posted.count.Load(); n != 0 {
		t.Fatalf("%d posted after every Wait returned", n)
	}
}
