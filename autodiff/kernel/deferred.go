package kernel

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Deferred is work handed to the team's workers to take up while they are
// idle: between the parallel regions, a worker polling for its next part
// runs one chunk of the posted work at a time. A chunk should take a few
// microseconds: a region that starts while a worker runs one waits for it.
// What no worker has taken by the time its results are needed, Wait runs
// on the calling goroutine. A training step's work that nothing reads until
// later, such as the model's moving average, so fills the time the workers
// would spend waiting while the calling goroutine runs alone.
type Deferred struct {
	chunks int64
	fn     func(chunk int)
	next   atomic.Int64 // the next chunk to claim
	done   atomic.Int64 // the chunks finished
}

// posted holds the Deferred work not yet waited for; count is its length,
// which the workers read without the lock.
var posted struct {
	sync.Mutex
	list  []*Deferred
	count atomic.Int32
}

// Defer posts fn(0), ..., fn(chunks-1) and returns at once. The chunks may
// run in any order, at the same time, on any goroutine: each must touch
// data of its own, and none may call Parallel. Until Wait returns, the
// caller must neither write what fn reads nor touch what it writes. With
// chunks 0 or less there is nothing to do.
func Defer(chunks int, fn func(chunk int)) *Deferred {
	d := &Deferred{chunks: int64(max(chunks, 0)), fn: fn}
	if d.chunks == 0 {
		return d
	}
	posted.Lock()
	posted.list = append(posted.list, d)
	posted.count.Store(int32(len(posted.list)))
	posted.Unlock()
	return d
}

// Wait runs the chunks no worker has taken and waits for those under way:
// when it returns, every chunk has run and its writes are visible to the
// caller. Waiting again, or on nil, does nothing.
func (d *Deferred) Wait() {
	if d == nil {
		return
	}
	for d.runOne() {
	}
	for !poll(func() bool { return d.done.Load() == d.chunks }) {
	}
}

// runOne runs the next chunk of d, if any is left, and reports whether it
// ran one. Whoever claims the last chunk withdraws d from the posted work,
// so that work left unwaited for (its owner gone on an error) does not
// stay there once it has all run.
func (d *Deferred) runOne() bool {
	if d.next.Load() >= d.chunks {
		return false
	}
	c := d.next.Add(1) - 1
	if c >= d.chunks {
		return false
	}
	if c == d.chunks-1 {
		posted.Lock()
		if i := slices.Index(posted.list, d); i >= 0 {
			posted.list = slices.Delete(posted.list, i, i+1)
			posted.count.Store(int32(len(posted.list)))
		}
		posted.Unlock()
	}
	d.fn(int(c))
	d.done.Add(1)
	return true
}

// runPosted runs one chunk of the posted work, if there is any: the idle
// worker's share of it.
func runPosted() {
	if posted.count.Load() == 0 {
		return
	}
	posted.Lock()
	var d *Deferred
	for _, p := range posted.list {
		if p.next.Load() < p.chunks {
			d = p
			break
		}
	}
	posted.Unlock()
	if d != nil {
		d.runOne()
	}
}
