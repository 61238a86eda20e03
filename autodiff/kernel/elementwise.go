package kernel

import (
	"math"

	"github.com/wadn-go/wadn/internal/numerics"
)

// Element-wise kernels. Each doc comment gives the reference loop; dst may be
// the same slice as an input (but must not partially overlap one), and all
// slices must have the same length or the kernel panics.
//
// float32 kernels run in AVX2 assembly under the "avx2" and "avx512"
// implementations (they are bound by memory bandwidth, so wider vectors gain
// nothing); the last len%8 elements and every float64 kernel run in Go. Slices
// longer than parallelMin elements are split over Threads goroutines.

// parallelMin is the length from which element-wise kernels use more than one
// goroutine: 64 Ki float32 values are 256 KiB, which takes about 10 us to
// stream, enough to pay for starting a goroutine.
const parallelMin = 1 << 16

// reduceChunk is the fixed block size of the parallel reductions. Partial
// results are combined in block order, so a reduction gives the same result
// for every thread count.
const reduceChunk = 1 << 15

// useAsm32 reports whether float32 element-wise kernels run in assembly: not
// under the "go" implementation, nor in the reference numerics mode.
func useAsm32() bool { return haveAVX2 && current.Load() != implGo && !numerics.IsReference() }

// parallelFor calls f on consecutive ranges covering [0, n), concurrently when
// n is large and more than one thread is allowed. Range bounds are multiples
// of 8 except the last.
func parallelFor(n int, f func(lo, hi int)) {
	t := Threads()
	if n < parallelMin || t <= 1 {
		f(0, n)
		return
	}
	t = min(t, n/(parallelMin/2))
	per := (n/t + 7) &^ 7
	Parallel((n+per-1)/per, func(p int) { f(p*per, min((p+1)*per, n)) })
}

// parallelReduce splits [0, n) into blocks of reduceChunk, calls f on each
// (concurrently when allowed) and returns the partial results in block order.
func parallelReduce[T Float](n int, f func(lo, hi int) T) []T {
	blocks := (n + reduceChunk - 1) / reduceChunk
	parts := make([]T, blocks)
	t := min(Threads(), blocks)
	if t <= 1 || n < parallelMin {
		for i := range parts {
			parts[i] = f(i*reduceChunk, min((i+1)*reduceChunk, n))
		}
		return parts
	}
	Parallel(t, func(w int) {
		for i := w; i < blocks; i += t {
			parts[i] = f(i*reduceChunk, min((i+1)*reduceChunk, n))
		}
	})
	return parts
}

func checkLen2(a, b int) {
	if a != b {
		panic(errLenMismatch)
	}
}

func checkLen3(a, b, c int) {
	if a != b || a != c {
		panic(errLenMismatch)
	}
}

// binaryOp identifies one of Add, Sub, Mul and Div.
type binaryOp int

const (
	opAdd binaryOp = iota
	opSub
	opMul
	opDiv
)

// Add is
//
//	for i := range dst { dst[i] = a[i] + b[i] }
func Add[T Float](dst, a, b []T) { binary(opAdd, dst, a, b) }

// Sub is
//
//	for i := range dst { dst[i] = a[i] - b[i] }
func Sub[T Float](dst, a, b []T) { binary(opSub, dst, a, b) }

// Mul is
//
//	for i := range dst { dst[i] = a[i] * b[i] }
func Mul[T Float](dst, a, b []T) { binary(opMul, dst, a, b) }

// Div is
//
//	for i := range dst { dst[i] = a[i] / b[i] }
func Div[T Float](dst, a, b []T) { binary(opDiv, dst, a, b) }

func binary[T Float](op binaryOp, dst, a, b []T) {
	checkLen3(len(dst), len(a), len(b))
	parallelFor(len(dst), func(lo, hi int) {
		d, x, y := dst[lo:hi], a[lo:hi], b[lo:hi]
		if is32[T]() && useAsm32() {
			v := len(d) &^ 7
			binaryAsm32(op, as32(d[:v]), as32(x[:v]), as32(y[:v]))
			d, x, y = d[v:], x[v:], y[v:]
		}
		binaryGo(op, d, x, y)
	})
}

// binaryGo is the reference loop of Add, Sub, Mul and Div.
func binaryGo[T Float](op binaryOp, dst, a, b []T) {
	a = a[:len(dst)]
	b = b[:len(dst)]
	switch op {
	case opAdd:
		for i := range dst {
			dst[i] = a[i] + b[i]
		}
	case opSub:
		for i := range dst {
			dst[i] = a[i] - b[i]
		}
	case opMul:
		for i := range dst {
			dst[i] = a[i] * b[i]
		}
	case opDiv:
		for i := range dst {
			dst[i] = a[i] / b[i]
		}
	}
}

// AddScalar is
//
//	for i, v := range x { dst[i] = v + s }
func AddScalar[T Float](dst, x []T, s T) {
	checkLen2(len(dst), len(x))
	parallelFor(len(dst), func(lo, hi int) {
		d, x := dst[lo:hi], x[lo:hi]
		if is32[T]() && useAsm32() {
			v := len(d) &^ 7
			addScalarAVX2(as32(d[:v]), as32(x[:v]), float32(s))
			d, x = d[v:], x[v:]
		}
		for i, v := range x {
			d[i] = v + s
		}
	})
}

// Scale is
//
//	for i, v := range x { dst[i] = alpha * v }
func Scale[T Float](dst, x []T, alpha T) {
	checkLen2(len(dst), len(x))
	parallelFor(len(dst), func(lo, hi int) {
		d, x := dst[lo:hi], x[lo:hi]
		if is32[T]() && useAsm32() {
			v := len(d) &^ 7
			scaleAVX2(as32(d[:v]), as32(x[:v]), float32(alpha))
			d, x = d[v:], x[v:]
		}
		for i, v := range x {
			d[i] = alpha * v
		}
	})
}

// Axpy is
//
//	for i, v := range x { y[i] += T(alpha * v) }
//
// (the product rounded; the float32 assembly fuses it, except in the
// reference numerics mode, which runs this loop).
func Axpy[T Float](alpha T, x, y []T) {
	checkLen2(len(x), len(y))
	parallelFor(len(x), func(lo, hi int) {
		x, y := x[lo:hi], y[lo:hi]
		if is32[T]() && useAsm32() {
			v := len(x) &^ 7
			axpyAVX2(float32(alpha), as32(x[:v]), as32(y[:v]))
			x, y = x[v:], y[v:]
		}
		for i, v := range x {
			y[i] += T(alpha * v)
		}
	})
}

// AxpySerial is Axpy on the calling goroutine alone, for callers that split
// the work themselves:
//
//	for i, v := range x { y[i] += T(alpha * v) }
func AxpySerial[T Float](alpha T, x, y []T) {
	checkLen2(len(x), len(y))
	if is32[T]() && useAsm32() {
		v := len(x) &^ 7
		axpyAVX2(float32(alpha), as32(x[:v]), as32(y[:v]))
		x, y = x[v:], y[v:]
	}
	for i, v := range x {
		y[i] += T(alpha * v)
	}
}

// Dot is
//
//	for i, v := range x { s += T(v * y[i]) }
//
// summed in a different order: by blocks of reduceChunk elements on long
// slices, each block summed in this loop's order and the block sums added in
// order; within a block by lanes under the float32 assembly (default mode).
func Dot[T Float](x, y []T) T {
	checkLen2(len(x), len(y))
	if len(x) <= reduceChunk {
		return dotBlock(x, y)
	}
	var s T
	for _, p := range parallelReduce(len(x), func(lo, hi int) T { return dotBlock(x[lo:hi], y[lo:hi]) }) {
		s += p
	}
	return s
}

func dotBlock[T Float](x, y []T) T {
	var s T
	if is32[T]() && useAsm32() {
		v := len(x) &^ 7
		s = T(dotAVX2(as32(x[:v]), as32(y[:v])))
		x, y = x[v:], y[v:]
	}
	y = y[:len(x)]
	for i, v := range x {
		s += T(v * y[i])
	}
	return s
}

// Sum is
//
//	for _, v := range x { s += v }
//
// summed in a different order: by blocks of reduceChunk elements on long
// slices, each block summed in this loop's order and the block sums added in
// order; within a block by lanes under the float32 assembly (default mode).
func Sum[T Float](x []T) T {
	if len(x) <= reduceChunk {
		return sumBlock(x)
	}
	var s T
	for _, p := range parallelReduce(len(x), func(lo, hi int) T { return sumBlock(x[lo:hi]) }) {
		s += p
	}
	return s
}

func sumBlock[T Float](x []T) T {
	var s T
	if is32[T]() && useAsm32() {
		v := len(x) &^ 7
		s = T(sumAVX2(as32(x[:v])))
		x = x[v:]
	}
	for _, v := range x {
		s += v
	}
	return s
}

// Max is
//
//	m := x[0]; for _, v := range x[1:] { m = max(m, v) }
//
// with Go's max: the result is NaN if any element is NaN. Max panics on an
// empty slice.
func Max[T Float](x []T) T {
	if len(x) == 0 {
		panic(errEmptyMax)
	}
	if len(x) <= reduceChunk {
		return maxBlock(x)
	}
	parts := parallelReduce(len(x), func(lo, hi int) T { return maxBlock(x[lo:hi]) })
	return maxBlock(parts)
}

func maxBlock[T Float](x []T) T {
	m := x[0]
	if is32[T]() && useAsm32() && len(x) >= 8 {
		v := len(x) &^ 7
		m = T(maxAVX2(as32(x[:v])))
		x = x[v:]
	}
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

// Relu is
//
//	for i, v := range x { if v < 0 { v = 0 }; dst[i] = v }
//
// so NaN stays NaN.
func Relu[T Float](dst, x []T) {
	checkLen2(len(dst), len(x))
	parallelFor(len(dst), func(lo, hi int) {
		d, x := dst[lo:hi], x[lo:hi]
		if is32[T]() && useAsm32() {
			v := len(d) &^ 7
			reluAVX2(as32(d[:v]), as32(x[:v]))
			d, x = d[v:], x[v:]
		}
		for i, v := range x {
			if v < 0 {
				v = 0
			}
			d[i] = v
		}
	})
}

// Exp is
//
//	for i, v := range x { dst[i] = T(math.Exp(float64(v))) }
//
// exactly so under the "go" implementation and for float64. The float32
// assembly evaluates the polynomial of expPoly32 instead, within 2 ulp of
// math.Exp for normal results (see expPoly32 for the bound and the special
// values: overflow gives +Inf, underflow 0, NaN stays NaN). In the reference
// numerics mode every implementation computes
//
//	for i, v := range x { dst[i] = T(numerics.PortableExp(float64(v))) }
func Exp[T Float](dst, x []T) {
	checkLen2(len(dst), len(x))
	parallelFor(len(dst), func(lo, hi int) {
		d, x := dst[lo:hi], x[lo:hi]
		if is32[T]() && useAsm32() {
			v := len(d) &^ 7
			expAVX2(as32(d[:v]), as32(x[:v]))
			d, x = d[v:], x[v:]
		}
		if numerics.IsReference() {
			for i, v := range x {
				d[i] = T(numerics.PortableExp(float64(v)))
			}
			return
		}
		for i, v := range x {
			d[i] = T(math.Exp(float64(v)))
		}
	})
}
