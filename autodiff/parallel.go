package autodiff

import (
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// parallelMin is the least work, in element operations of a transcendental
// function (about 10 ns each), worth splitting over goroutines: below it the
// cost of starting them (about 1 us) is not repaid.
const parallelMin = 1 << 13

// parallelFor runs fn over [0, n) split into at most kernel.Threads()
// contiguous chunks, concurrently when n*cost reaches parallelMin, and in
// the calling goroutine otherwise. cost is the work per item in element
// operations.
func parallelFor(n, cost int, fn func(lo, hi int)) {
	t := kernel.Threads()
	if t <= 1 || n < 2 || n*cost < parallelMin {
		fn(0, n)
		return
	}
	t = min(t, n, n*cost/(parallelMin/2))
	per := (n + t - 1) / t
	kernel.Parallel((n+per-1)/per, func(p int) { fn(p*per, min((p+1)*per, n)) })
}
