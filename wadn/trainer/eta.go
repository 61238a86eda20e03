package trainer

import "time"

// etaWarmSteps is how many steps of a process are left out of its time-left
// estimate: the first steps also fault in the buffers and grow the pools,
// and on Amazon the first one alone takes some twenty ordinary steps.
const etaWarmSteps = 3

// eta estimates the time left of a job from the pace of its steps in this
// process after the first etaWarmSteps.
type eta struct {
	total, done int
	t0          time.Time        // when step etaWarmSteps ended
	now         func() time.Time // time.Now; a test's clock
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
		e.t0 = e.now()
		return -1
	case e.done < etaWarmSteps:
		return -1
	}
	per := float64(e.now().Sub(e.t0)) / float64(e.done-etaWarmSteps)
	return time.Duration(per * float64(e.total-e.done))
}
