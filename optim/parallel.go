package optim

import (
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// rangeUpdater applies an optimiser's update to elements [lo, hi) of the
// i-th parameter of the Step in progress.
type rangeUpdater interface {
	updateRange(i, lo, hi int)
}

// minSplit is the shortest tensor whose update is shared between
// goroutines. The updates cost about a nanosecond per element, so a piece of
// 32Ki elements takes tens of microseconds, far more than the microsecond or
// so of handing it to a waiting worker of kernel.Parallel.
const minSplit = 1 << 16

// forRange runs u.updateRange(i, 0, n), split into pieces (at multiples of 8
// elements) run at the same time by kernel.Parallel on up to
// kernel.Threads() goroutines when n is at least 2*minSplit. The update is
// element-wise, so the split does not change the result.
func forRange(u rangeUpdater, i, n int) {
	parts := min(kernel.Threads(), n/minSplit)
	if parts <= 1 {
		u.updateRange(i, 0, n)
		return
	}
	cut := func(j int) int {
		if j == parts {
			return n
		}
		return (n / parts * j) &^ 7
	}
	kernel.Parallel(parts, func(j int) { u.updateRange(i, cut(j), cut(j+1)) })
}

// stepper is what every optimiser shares: its per-parameter state (with
// State and SetState as thin wrappers in each optimiser, whose docs name its
// slots), and the Step in progress that updateRange reads.
type stepper[T kernel.Float] struct {
	reg  registry[T]
	cur  []Param[T]
	ents []*entry[T]
}

// run applies u's update to every parameter, in parallel ranges. Each
// parameter's step count advances before its update when countFirst is set
// (Adam's bias correction reads the new count), after it otherwise.
func (s *stepper[T]) run(params []Param[T], u rangeUpdater, countFirst bool) error {
	ents, err := s.reg.prepare(params)
	if err != nil {
		return err
	}
	s.cur, s.ents = params, ents
	for i := range params {
		if countFirst {
			ents[i].step++
		}
		forRange(u, i, len(params[i].Grad))
		if !countFirst {
			ents[i].step++
		}
	}
	s.cur, s.ents = nil, nil
	s.reg.step++
	return nil
}
