package trainer

import (
	"slices"
	"time"
)

// etaWarmSteps is how many steps of a process are left out of its time-left
// estimate: the first steps also fault in the buffers and grow the pools,
// and on Amazon the first one alone takes some twenty ordinary steps.
const etaWarmSteps = 3

// A gap between two step ends longer than etaPause times the median of the
// last etaWindow gaps counts as etaPause times that median: a process
// stopped for a while (SIGSTOP, a suspended laptop) would otherwise inflate
// the estimate for the rest of the job. Work between steps shorter than
// that, such as an epoch's evaluation and checkpoint, counts in full. No
// gap is shortened before etaMinGaps gaps have been seen.
const (
	etaPause   = 200
	etaWindow  = 64
	etaMinGaps = 8
)

// eta estimates the time left of a job from the pace of its steps in this
// process after the first etaWarmSteps.
type eta struct {
	total, done int
	last        time.Time                // when the previous step ended
	sum         time.Duration            // the gaps counted so far, done-etaWarmSteps of them
	recent      []time.Duration          // the last etaWindow gaps, a ring
	next        int                      // where the next gap goes in recent
	sorted      [etaWindow]time.Duration // scratch of median
	now         func() time.Time         // time.Now; a test's clock
}

// newETA returns the estimator of a job with total steps still to do.
func newETA(total int) *eta { return &eta{total: total, now: time.Now} }

// step records one step done and returns the estimated time left: zero after
// the last step, -1 while the warm-up steps are running.
func (e *eta) step() time.Duration {
	e.done++
	switch {
	case e.done >= e.total:
		return 0
	case e.done == etaWarmSteps:
		e.last = e.now()
		return -1
	case e.done < etaWarmSteps:
		return -1
	}
	now := e.now()
	gap := now.Sub(e.last)
	e.last = now
	counted := gap
	if len(e.recent) >= etaMinGaps {
		if limit := etaPause * e.median(); gap > limit {
			counted = limit
		}
	}
	e.sum += counted
	if len(e.recent) < etaWindow {
		e.recent = append(e.recent, gap)
	} else {
		e.recent[e.next] = gap
		e.next = (e.next + 1) % etaWindow
	}
	per := float64(e.sum) / float64(e.done-etaWarmSteps)
	return time.Duration(per * float64(e.total-e.done))
}

// median returns the median of the recent gaps, the upper one of an even
// count.
func (e *eta) median() time.Duration {
	s := e.sorted[:copy(e.sorted[:], e.recent)]
	slices.Sort(s)
	return s[len(s)/2]
}
