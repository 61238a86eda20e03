package kernel

import (
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The team is a set of persistent worker goroutines that Parallel hands
// parts of its work to. Starting a goroutine for every parallel region costs
// little in itself, but the goroutine must then wait for an idle thread to
// be woken, and on virtual machines that takes 100 us or more: longer than
// many of the regions a training step runs (a Gemm on a chunk of images, an
// im2col). So a worker that finishes a part keeps polling for the next one
// for teamSpin before it blocks, and the caller of Parallel polls for the
// other parts' completion for as long before it blocks. Back-to-back regions
// then start and join within a microsecond or so; a worker idle for longer
// costs nothing. The price is up to teamSpin of CPU burnt after each region:
// on a machine whose cores are all busy with other processes, that time is
// taken from them.

// teamSpin is how long, in nanoseconds, a worker polls for a new part, and
// a caller for the other parts' completion, before blocking: 2 ms, longer
// than most of the serial stretches between the parallel regions of a
// training step (a batch's losses, its gathering), so that a worker is
// still polling when the next region starts rather than blocked, to be
// woken 100-250 us later. It is a variable so that tests can exercise both
// the polling and the blocking paths.
var teamSpin atomic.Int64

func init() { teamSpin.Store(int64(2 * time.Millisecond)) }

// worker is one member of the team. A part is handed to it by storing a job
// in job; sleeping tells the sender that the worker is blocked on wake.
type worker struct {
	job      atomic.Pointer[teamJob]
	sleeping atomic.Bool
	wake     chan struct{} // capacity 1
}

// teamJob is one part of a Parallel call.
type teamJob struct {
	fn    func(part int)
	part  int
	g     *teamGroup
	given time.Time // when it was handed over, while the region profile is on
}

// teamGroup tracks the parts of one Parallel call that run on workers.
type teamGroup struct {
	left    atomic.Int32  // parts not yet finished
	work    atomic.Int64  // the workers' parts' run time, in ns, while profiled
	waiting atomic.Bool   // the caller is blocked on done
	done    chan struct{} // capacity 1
}

var team struct {
	sync.Mutex
	idle  []*worker
	count int // workers started
}

// teamGet returns an idle worker, starting a new one when every worker is
// busy and there are fewer than GOMAXPROCS-1, or nil: more workers than
// threads to run them would only take turns.
func teamGet() *worker {
	team.Lock()
	defer team.Unlock()
	if n := len(team.idle); n > 0 {
		w := team.idle[n-1]
		team.idle = team.idle[:n-1]
		return w
	}
	if team.count >= runtime.GOMAXPROCS(0)-1 {
		return nil
	}
	team.count++
	w := &worker{wake: make(chan struct{}, 1)}
	go w.run()
	return w
}

// teamPut returns w to the idle list.
func teamPut(w *worker) {
	team.Lock()
	team.idle = append(team.idle, w)
	team.Unlock()
}

// give hands j to w, waking w if it is blocked.
func (w *worker) give(j *teamJob) {
	w.job.Store(j)
	if w.sleeping.Load() {
		if !j.given.IsZero() && regionProf.on.Load() {
			regionProf.asleep.Add(1)
		}
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// run is the worker's loop: take a part, run it, go back on the idle list,
// report the part finished.
func (w *worker) run() {
	for {
		j := w.next()
		var began time.Time
		if !j.given.IsZero() {
			began = time.Now()
			if regionProf.on.Load() {
				regionProf.handoff.Add(int64(began.Sub(j.given)))
			}
		}
		j.fn(j.part)
		g := j.g
		if !began.IsZero() {
			g.work.Add(int64(time.Since(began)))
		}
		teamPut(w)
		if g.left.Add(-1) == 0 && g.waiting.Load() {
			select {
			case g.done <- struct{}{}:
			default:
			}
		}
	}
}

// next returns the next job handed to w: it polls for teamSpin, running a
// chunk of the Deferred work posted, if any, between looks, then blocks
// until give wakes it. A wake-up left over from an earlier round (give saw
// sleeping just before w found its job by polling) only costs one more
// round.
func (w *worker) next() *teamJob {
	ready := func() bool {
		if w.job.Load() != nil {
			return true
		}
		runPosted()
		return false
	}
	for {
		if poll(ready) {
			return w.job.Swap(nil)
		}
		w.sleeping.Store(true)
		if w.job.Load() == nil {
			<-w.wake
		}
		w.sleeping.Store(false)
		if j := w.job.Swap(nil); j != nil {
			return j
		}
	}
}

// poll calls ready until it reports true, for at most teamSpin, yielding
// the thread now and then, and returns its last answer.
func poll(ready func() bool) bool {
	start := time.Now()
	for i := 1; ; i++ {
		if ready() {
			return true
		}
		if i%64 == 0 {
			if time.Since(start) > time.Duration(teamSpin.Load()) {
				return false
			}
			runtime.Gosched()
		}
	}
}

// Parallel calls fn(0), ..., fn(parts-1) at the same time and returns when
// all have returned. Part 0 runs on the calling goroutine and the others on
// the team's workers; a part for which no worker is free (all are busy, as
// when Parallel is called from inside a part, or GOMAXPROCS is 1) runs on
// the calling goroutine after part 0. The parts must not depend on each
// other to finish.
func Parallel(parts int, fn func(part int)) {
	if parts <= 1 {
		if parts == 1 {
			fn(0)
		}
		return
	}
	prof := regionProf.on.Load() // this call is profiled
	var start time.Time
	outer := false // no other region was under way at the start
	if prof {
		start = time.Now()
		outer = regionProf.depth.Add(1) == 1
	}
	g := &teamGroup{done: make(chan struct{}, 1)}
	g.left.Store(int32(parts - 1))
	var inline []int
	for p := 1; p < parts; p++ {
		if w := teamGet(); w != nil {
			j := &teamJob{fn: fn, part: p, g: g}
			if prof {
				j.given = time.Now()
			}
			w.give(j)
		} else {
			inline = append(inline, p)
		}
	}
	fn(0)
	for _, p := range inline {
		fn(p)
		g.left.Add(-1)
	}
	var join time.Time
	if prof {
		join = time.Now()
	}
	if !poll(func() bool { return g.left.Load() == 0 }) {
		g.waiting.Store(true)
		if g.left.Load() != 0 {
			<-g.done
		}
	}
	if prof {
		regionProf.depth.Add(-1)
		if outer && regionProf.on.Load() {
			end := time.Now()
			regionProf.regions.Add(1)
			regionProf.inside.Add(int64(end.Sub(start)))
			regionProf.waiting.Add(int64(end.Sub(join)))
			pcs := callerStack()
			regionProf.record(&pcs, end.Sub(start), end.Sub(join), join.Sub(start), time.Duration(g.work.Load()))
			regionProf.cost.Add(int64(time.Since(end)))
		}
	}
}

// modulePrefix begins the names of the module's functions, and
// kernelPrefix those of this package's.
const (
	modulePrefix = "github.com/wadn-go/wadn/"
	kernelPrefix = modulePrefix + "autodiff/kernel."
)

// siteDepth is how many frames outside this package siteName names.
const siteDepth = 3

// siteFrames is how many frames of the calling goroutine's stack above
// Parallel, its caller's the first, name a site: enough for siteDepth
// functions outside this package above the few of it that call Parallel,
// and few enough to walk cheaply at every region.
const siteFrames = 12

// siteStack is the program counters of a site's siteFrames frames, zero
// past the end of the stack.
type siteStack [siteFrames]uintptr

// callerStack returns the program counters of the frames above the
// function that called it: for Parallel's call, those above Parallel.
//
//go:noinline
func callerStack() siteStack {
	var pcs siteStack
	runtime.Callers(3, pcs[:])
	return pcs
}

// siteName returns the names of the first siteDepth functions outside
// this package among the frames of pcs, the innermost first, joined by
// " < " and with the module's path trimmed, or "kernel" when there is
// none.
func siteName(pcs *siteStack) string {
	n := 0
	for n < siteFrames && pcs[n] != 0 {
		n++
	}
	frames := runtime.CallersFrames(pcs[:n])
	var names []string
	for len(names) < siteDepth {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, kernelPrefix) {
			names = append(names, strings.TrimPrefix(f.Function, modulePrefix))
		}
		if !more {
			break
		}
	}
	if len(names) == 0 {
		return "kernel"
	}
	return strings.Join(names, " < ")
}

// regionProf is the record of the parallel regions while ProfileRegions
// has it on.
var regionProf regionRecord

// regionRecord is the record ProfileRegions keeps: depth counts the
// Parallel calls under way that started with it on, on every goroutine;
// the other fields are RegionProfile's, in nanoseconds for the times (cost
// its Cost), sites its Sites by name, and byStack the sites by the stacks
// they were called from, so that each stack is named once.
type regionRecord struct {
	on                             atomic.Bool
	depth                          atomic.Int32
	regions, asleep                atomic.Int64
	inside, waiting, handoff, cost atomic.Int64

	mu      sync.Mutex
	sites   map[string]*RegionSite
	byStack map[siteStack]*RegionSite
}

// record adds one region, called from the stack pcs (callerStack), to its
// site's record: inside and waiting as in RegionProfile, own the time the
// calling goroutine took to hand the parts over and run its own, others
// the workers' parts' run times summed.
func (r *regionRecord) record(pcs *siteStack, inside, waiting, own, others time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.byStack[*pcs]
	if s == nil {
		if r.sites == nil {
			r.sites = map[string]*RegionSite{}
			r.byStack = map[siteStack]*RegionSite{}
		}
		name := siteName(pcs)
		s = r.sites[name]
		if s == nil {
			s = &RegionSite{Name: name}
			r.sites[name] = s
		}
		r.byStack[*pcs] = s
	}
	s.Regions++
	s.Inside += inside.Seconds()
	s.Waiting += waiting.Seconds()
	s.Own += own.Seconds()
	s.Others += others.Seconds()
}

// takeSites returns the sites recorded since the last call, the longest
// Inside first, and starts again from none.
func (r *regionRecord) takeSites() []RegionSite {
	r.mu.Lock()
	defer r.mu.Unlock()
	sites := make([]RegionSite, 0, len(r.sites))
	for _, s := range r.sites {
		sites = append(sites, *s)
	}
	r.sites, r.byStack = nil, nil
	sort.Slice(sites, func(i, j int) bool {
		if sites[i].Inside != sites[j].Inside {
			return sites[i].Inside > sites[j].Inside
		}
		return sites[i].Name < sites[j].Name
	})
	return sites
}

// RegionSite is the part of a RegionProfile called from one site: the
// first three functions outside this package on the calling goroutine's
// stack, the innermost first (as "autodiff.shareOut <
// autodiff.(*winoWork).each < autodiff.(*winoGeom).forwardChunk"), or
// "kernel" when Parallel was called from within it alone. Times are in
// seconds.
type RegionSite struct {
	Name    string
	Regions int64
	// Inside and Waiting are RegionProfile's, for this site's regions.
	Inside, Waiting float64
	// Own is the time the calling goroutine took to hand the parts over
	// and run its own; Others the workers' parts' run times, summed.
	Own, Others float64
}

// RegionProfile is the record of the parallel regions that ProfileRegions
// gives: the calls of Parallel with two parts or more that started while
// no other such call was under way, on any goroutine (so that a region run
// inside another's part is counted in the outer one). A call whose parts
// all ran on the calling goroutine (GOMAXPROCS 1, or every worker busy)
// counts too: with GOMAXPROCS 1 and SetThreads(2) the record gives what
// each region's parts take one after the other on one thread.
type RegionProfile struct {
	Regions int64 // such calls
	// Inside is the wall time the calling goroutines spent in them, from
	// the call to its return, in seconds.
	Inside float64
	// Waiting is the part of Inside the calling goroutines spent waiting
	// for the workers' parts after running their own.
	Waiting float64
	// Handoff is the time from handing a part to a worker to the worker
	// starting it, summed over every part handed over, regions inside
	// other regions' parts included, in seconds.
	Handoff float64
	// Asleep counts the parts handed to a worker that was blocked, to be
	// woken, rather than polling for its next part.
	Asleep int64
	// Cost is the time the calling goroutines spent recording the regions
	// after each one's end (naming its site, adding it to the record), in
	// seconds: time outside Inside that the profile itself adds.
	Cost float64
	// Sites splits the regions by the site that called Parallel, the
	// longest Inside first.
	Sites []RegionSite
}

// ProfileRegions turns the profile of the parallel regions on (on set) or
// off, and returns the record made since the last call, starting again
// from none. It costs Parallel an atomic load when off. When on it costs a
// few clock reads and atomic additions a call and, after each outer
// region's end, a walk of siteFrames frames of the calling goroutine's
// stack and a lock (RegionProfile.Cost); a site's functions are named the
// first time its stack is met. A call under way while the profile is
// turned on or off is left out (and when it is turned on, the regions
// inside that call's parts count as outer ones).
func ProfileRegions(on bool) RegionProfile {
	regionProf.on.Store(on)
	seconds := func(ns *atomic.Int64) float64 { return float64(ns.Swap(0)) / 1e9 }
	return RegionProfile{
		Regions: regionProf.regions.Swap(0),
		Inside:  seconds(&regionProf.inside),
		Waiting: seconds(&regionProf.waiting),
		Handoff: seconds(&regionProf.handoff),
		Asleep:  regionProf.asleep.Swap(0),
		Cost:    seconds(&regionProf.cost),
		Sites:   regionProf.takeSites(),
	}
}
