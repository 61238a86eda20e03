package kernel

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// checkParallel runs Parallel(parts) with parts that record their index and
// fails unless every part ran exactly once and its write is visible on
// return.
func checkParallel(t *testing.T, parts int) {
	t.Helper()
	seen := make([]int, parts)
	var calls atomic.Int32
	Parallel(parts, func(p int) {
		seen[p]++
		calls.Add(1)
	})
	if got := int(calls.Load()); got != max(parts, 0) {
		t.Fatalf("Parallel(%d): %d calls", parts, got)
	}
	for p, n := range seen {
		if n != 1 {
			t.Fatalf("Parallel(%d): part %d ran %d times", parts, p, n)
		}
	}
}

func TestParallelRunsEveryPartOnce(t *testing.T) {
	for _, parts := range []int{0, 1, 2, 3, 7, 64} {
		for range 50 {
			checkParallel(t, parts)
		}
	}
}

// TestParallelNested calls Parallel from inside parts: the inner calls find
// the workers busy and must run their parts themselves rather than wait.
func TestParallelNested(t *testing.T) {
	const outer, inner = 4, 5
	var sum atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 20 {
			Parallel(outer, func(i int) {
				Parallel(inner, func(j int) { sum.Add(int64(10*i + j)) })
			})
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("nested Parallel did not finish")
	}
	want := int64(0)
	for i := range outer {
		for j := range inner {
			want += int64(10*i + j)
		}
	}
	if got := sum.Load(); got != 20*want {
		t.Fatalf("sum %d, want %d", got, 20*want)
	}
}

// TestParallelBlockingPath shortens the polling so that workers block
// between calls and callers block on slow parts, and checks that every call
// still completes with every part run once, including calls that arrive
// while a worker is going to sleep.
func TestParallelBlockingPath(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2 for a worker to exist")
	}
	old := teamSpin.Swap(int64(time.Microsecond))
	defer teamSpin.Store(old)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 400 {
			switch i % 4 {
			case 1:
				time.Sleep(50 * time.Microsecond) // let workers block
			case 2:
				// A slow part on a worker: the caller blocks on it.
				Parallel(2, func(p int) {
					if p == 1 {
						time.Sleep(200 * time.Microsecond)
					}
				})
				continue
			}
			checkParallel(t, 2+i%3)
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Parallel did not finish with short polling")
	}
}

// TestParallelUsesWorkers checks that with two threads available the second
// part runs at the same time as the first, on another goroutine.
func TestParallelUsesWorkers(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2")
	}
	var started atomic.Bool
	overlapped := false
	Parallel(2, func(p int) {
		if p == 1 {
			started.Store(true)
			return
		}
		deadline := time.Now().Add(10 * time.Second)
		for !started.Load() && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		overlapped = started.Load()
	})
	if !overlapped {
		t.Fatal("part 1 did not run while part 0 was running")
	}
}

// spinFor busies the calling goroutine for about d, as a part of real work
// would, without yielding the thread.
func spinFor(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// BenchmarkForkJoin times a parallel region of two 20 us parts, run with
// Parallel and with a fresh goroutine per region (wg.Go), as back-to-back
// regions of a training step run: the difference is the time the second
// part waits for a thread.
func BenchmarkForkJoin(b *testing.B) {
	const part = 20 * time.Microsecond
	b.Run("Parallel", func(b *testing.B) {
		for range b.N {
			Parallel(2, func(int) { spinFor(part) })
		}
	})
	b.Run("goroutine", func(b *testing.B) {
		for range b.N {
			var wg sync.WaitGroup
			wg.Go(func() { spinFor(part) })
			spinFor(part)
			wg.Wait()
		}
	})
}

// TestParallelConcurrentCallers calls Parallel from several goroutines at
// once, as seeds trained side by side do: the callers share the team, and
// every call must still run each of its parts exactly once.
func TestParallelConcurrentCallers(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				parts := 2 + (c+i)%5
				var calls atomic.Int32
				seen := make([]int32, parts)
				Parallel(parts, func(p int) {
					atomic.AddInt32(&seen[p], 1)
					calls.Add(1)
				})
				for p := range seen {
					if n := atomic.LoadInt32(&seen[p]); n != 1 {
						errs <- fmt.Sprintf("caller %d call %d: part %d of %d ran %d times", c, i, p, parts, n)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// checkSites fails unless r's sites add up to r: one site here (every
// region of a test case is called from the same function), its regions,
// inside and waiting times r's, its parts' times within what the regions
// can hold, and, when a worker's part sleeps 2*lag, the workers' parts at
// least that long.
func checkSites(t *testing.T, r RegionProfile, lag time.Duration) {
	t.Helper()
	if r.Regions == 0 {
		if len(r.Sites) != 0 {
			t.Errorf("sites %+v without regions", r.Sites)
		}
		return
	}
	if len(r.Sites) != 1 {
		t.Fatalf("%d sites, want 1: %+v", len(r.Sites), r.Sites)
	}
	s := r.Sites[0]
	const eps = 1e-9
	switch {
	case s.Name == "" || strings.HasPrefix(s.Name, "github.com/") || strings.HasPrefix(s.Name, "autodiff/kernel."):
		t.Errorf("site named %q, want a function outside the kernel package, module prefix trimmed", s.Name)
	case s.Regions != r.Regions:
		t.Errorf("site has %d regions, the profile %d", s.Regions, r.Regions)
	case math.Abs(s.Inside-r.Inside) > eps || math.Abs(s.Waiting-r.Waiting) > eps:
		t.Errorf("site's inside %g and waiting %g, the profile's %g and %g", s.Inside, s.Waiting, r.Inside, r.Waiting)
	case s.Own < 0 || s.Others < 0 || s.Own+s.Waiting > s.Inside+eps:
		t.Errorf("own %g, waiting %g, others %g out of a region of %g", s.Own, s.Waiting, s.Others, s.Inside)
	case lag > 0 && s.Others < 2*lag.Seconds():
		t.Errorf("the workers' parts took %g s, want at least %v", s.Others, 2*lag)
	}
}

// TestProfileRegions checks the record of ProfileRegions: what counts as a
// region, and the times of one whose worker's part ends long after the
// caller's.
func TestProfileRegions(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2")
	}
	const late = 50 * time.Millisecond
	tests := []struct {
		name    string
		on      bool
		run     func()
		regions int64
		// lag is what the caller must have waited at least: the worker's
		// part sleeps 2*lag after the caller's part has returned.
		lag time.Duration
	}{
		{"off", false, func() { Parallel(2, func(int) {}) }, 0, 0},
		{"one part", true, func() { Parallel(1, func(int) {}) }, 0, 0},
		{"three regions", true, func() {
			for range 3 {
				Parallel(2, func(int) {})
			}
		}, 3, 0},
		{"nested", true, func() {
			Parallel(2, func(p int) {
				Parallel(2, func(int) {})
				Parallel(3, func(int) {})
			})
		}, 1, 0},
		{"late worker", true, func() {
			done := make(chan struct{})
			Parallel(2, func(p int) {
				if p == 0 {
					close(done)
					return
				}
				<-done
				time.Sleep(2 * late)
			})
		}, 1, late},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ProfileRegions(tc.on)
			tc.run()
			r := ProfileRegions(false)
			if r.Regions != tc.regions {
				t.Errorf("%d regions, want %d", r.Regions, tc.regions)
			}
			if tc.regions == 0 && !cmp.Equal(r, RegionProfile{}, cmpopts.EquateEmpty()) {
				t.Errorf("record %+v, want none", r)
			}
			if r.Waiting < 0 || r.Handoff < 0 || r.Waiting > r.Inside {
				t.Errorf("times out of order: %+v", r)
			}
			if r.Cost < 0 || (r.Regions > 0) != (r.Cost > 0) {
				t.Errorf("%d regions recorded at a cost of %g s, want a positive cost exactly when there are regions", r.Regions, r.Cost)
			}
			if tc.lag > 0 && (r.Waiting < tc.lag.Seconds() || r.Inside < 2*tc.lag.Seconds()) {
				t.Errorf("waited %.4f s in a region of %.4f s, want at least %v and %v", r.Waiting, r.Inside, tc.lag, 2*tc.lag)
			}
			if r.Asleep > r.Regions*2 {
				t.Errorf("%d parts handed to a sleeping worker in %d regions", r.Asleep, r.Regions)
			}
			checkSites(t, r, tc.lag)
		})
	}
}

// TestProfileRegionsOneThread checks that with GOMAXPROCS 1, where no
// worker is ever started, a region whose parts all run on the calling
// goroutine is recorded, its parts' times in Own. It runs the test binary
// again with GOMAXPROCS=1, since workers started by other tests would
// otherwise take the parts.
func TestProfileRegionsOneThread(t *testing.T) {
	const part = 20 * time.Millisecond
	if os.Getenv("WADN_PROFILE_ONE_THREAD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestProfileRegionsOneThread$", "-test.count", "1")
		cmd.Env = append(os.Environ(), "WADN_PROFILE_ONE_THREAD=1", "GOMAXPROCS=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("GOMAXPROCS=1: %v\n%s", err, out)
		}
		return
	}
	if runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("GOMAXPROCS %d, want 1", runtime.GOMAXPROCS(0))
	}
	ProfileRegions(true)
	Parallel(2, func(int) { time.Sleep(part) })
	r := ProfileRegions(false)
	if r.Regions != 1 || len(r.Sites) != 1 {
		t.Fatalf("%d regions at %d sites, want 1 and 1", r.Regions, len(r.Sites))
	}
	checkSites(t, r, 0)
	if s := r.Sites[0]; s.Others != 0 || s.Own < 2*part.Seconds() || r.Handoff != 0 {
		t.Errorf("own %g s, others %g s, hand-overs %g s: want both parts' %v in own, none in others", s.Own, s.Others, r.Handoff, 2*part)
	}
}
