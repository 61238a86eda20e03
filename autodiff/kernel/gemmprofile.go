package kernel

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// GemmEntry names the entry point a product came through.
type GemmEntry uint8

// The entry points of the products.
const (
	EntryGemm   GemmEntry = iota // Gemm: C split over Threads goroutines
	EntrySerial                  // GemmSerial: on the calling goroutine
	EntryPacked                  // GemmPacked: op(A) packed by PackA, on the calling goroutine
)

// String returns the entry point's function name.
func (e GemmEntry) String() string {
	switch e {
	case EntryGemm:
		return "Gemm"
	case EntrySerial:
		return "GemmSerial"
	case EntryPacked:
		return "GemmPacked"
	}
	return "GemmEntry(?)"
}

// GemmShape is what the profile of the products tells them apart by: the
// dimensions, the transposes (TransA is false for GemmPacked), the entry
// point and the element type.
type GemmShape struct {
	M, N, K        int
	TransA, TransB bool
	Entry          GemmEntry
	Float64        bool // float64 elements, not float32
}

// shapeOf returns the shape of an m x n x k product of T through entry.
func shapeOf[T Float](m, n, k int, transA, transB bool, entry GemmEntry) GemmShape {
	return GemmShape{m, n, k, transA, transB, entry, !is32[T]()}
}

// Flops returns the operations of one product of the shape, 2*M*N*K.
func (s GemmShape) Flops() float64 { return 2 * float64(s.M) * float64(s.N) * float64(s.K) }

// GemmProfile is the record of the products of one shape: how many ran and
// the wall time they took, summed over the goroutines that ran them.
type GemmProfile struct {
	GemmShape
	Calls   int64
	Seconds float64
}

// The profile of the products: while it is on (ProfileGemms), Gemm,
// GemmSerial and GemmPacked time each product that needs a multiplication
// (what CountFlops counts) and add it to the record of its shape. It costs
// an atomic load per call when off, and a clock read on entry and on
// return, and a lock, when on.
var (
	profOn  atomic.Bool
	profMu  sync.Mutex
	profLog = map[GemmShape]GemmProfile{}
)

// ProfileGemms turns the profile of the products on (on set) or off, and
// returns the records made since the last call, starting again from none:
// one a shape, the longest first (ties by shape). The records are shared by
// every goroutine; a product that runs while the profile is turned on or
// off may be left out.
func ProfileGemms(on bool) []GemmProfile {
	profMu.Lock()
	defer profMu.Unlock()
	profOn.Store(on)
	out := make([]GemmProfile, 0, len(profLog))
	for _, p := range profLog {
		out = append(out, p)
	}
	clear(profLog)
	slices.SortFunc(out, func(a, b GemmProfile) int {
		if c := cmp.Compare(b.Seconds, a.Seconds); c != 0 {
			return c
		}
		return compareShapes(a.GemmShape, b.GemmShape)
	})
	return out
}

// compareShapes orders shapes by M, N, K, the transposes, the entry and
// the element type.
func compareShapes(a, b GemmShape) int {
	bit := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	return cmp.Or(cmp.Compare(a.M, b.M), cmp.Compare(a.N, b.N), cmp.Compare(a.K, b.K),
		cmp.Compare(bit(a.TransA), bit(b.TransA)), cmp.Compare(bit(a.TransB), bit(b.TransB)),
		cmp.Compare(a.Entry, b.Entry), cmp.Compare(bit(a.Float64), bit(b.Float64)))
}

// profileStart returns the time a product starts while the profile is on,
// the zero time otherwise.
func profileStart() time.Time {
	if profOn.Load() {
		return time.Now()
	}
	return time.Time{}
}

// profileEnd adds a product of shape s that started at t0 (profileStart)
// to the profile; it does nothing for a zero t0.
func profileEnd(t0 time.Time, s GemmShape) {
	if t0.IsZero() {
		return
	}
	d := time.Since(t0).Seconds()
	profMu.Lock()
	defer profMu.Unlock()
	if !profOn.Load() {
		return
	}
	p := profLog[s]
	p.GemmShape = s
	p.Calls++
	p.Seconds += d
	profLog[s] = p
}
