package autodiff

import (
	"math"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// Element-wise loops used by the operators. Each one's doc comment is its
// specification; most forward to package kernel, whose float32 versions use
// SIMD assembly and which splits long slices over threads. Short slices (a
// row of a bias gradient, say) are looped here: below ewMin elements the
// dispatch costs more than the loop.

// ewMin is the shortest slice handed to package kernel.
const ewMin = 1024

// ewAdd is: for i := range dst { dst[i] = a[i] + b[i] }
func ewAdd[T kernel.Float](dst, a, b []T) {
	if len(dst) >= ewMin {
		kernel.Add(dst, a, b)
		return
	}
	b = b[:len(dst)]
	for i, v := range a[:len(dst)] {
		dst[i] = v + b[i]
	}
}

// ewSub is: for i := range dst { dst[i] = a[i] - b[i] }
func ewSub[T kernel.Float](dst, a, b []T) {
	if len(dst) >= ewMin {
		kernel.Sub(dst, a, b)
		return
	}
	b = b[:len(dst)]
	for i, v := range a[:len(dst)] {
		dst[i] = v - b[i]
	}
}

// ewMul is: for i := range dst { dst[i] = a[i] * b[i] }
func ewMul[T kernel.Float](dst, a, b []T) {
	if len(dst) >= ewMin {
		kernel.Mul(dst, a, b)
		return
	}
	b = b[:len(dst)]
	for i, v := range a[:len(dst)] {
		dst[i] = v * b[i]
	}
}

// ewDiv is: for i := range dst { dst[i] = a[i] / b[i] }
func ewDiv[T kernel.Float](dst, a, b []T) {
	if len(dst) >= ewMin {
		kernel.Div(dst, a, b)
		return
	}
	b = b[:len(dst)]
	for i, v := range a[:len(dst)] {
		dst[i] = v / b[i]
	}
}

// ewAddScalar is: for i, v := range x { dst[i] = v + s }
func ewAddScalar[T kernel.Float](dst, x []T, s T) {
	if len(dst) >= ewMin {
		kernel.AddScalar(dst, x, s)
		return
	}
	for i, v := range x {
		dst[i] = v + s
	}
}

// ewScale is: for i, v := range x { dst[i] = alpha * v }
func ewScale[T kernel.Float](dst, x []T, alpha T) {
	if len(dst) >= ewMin {
		kernel.Scale(dst, x, alpha)
		return
	}
	for i, v := range x {
		dst[i] = alpha * v
	}
}

// ewSum is: for _, v := range x { s += v } (in kernel.Sum's order).
func ewSum[T kernel.Float](x []T) T {
	if len(x) >= ewMin {
		return kernel.Sum(x)
	}
	var s T
	for _, v := range x {
		s += v
	}
	return s
}

// ewMax is the largest element of x, NaN if any is NaN, -Inf for an empty x.
func ewMax[T kernel.Float](x []T) T {
	if len(x) == 0 {
		return T(math.Inf(-1))
	}
	return kernel.Max(x)
}

// ewRelu is: for i, v := range x { if v < 0 { v = 0 }; dst[i] = v } (NaN
// stays NaN).
func ewRelu[T kernel.Float](dst, x []T) {
	if len(dst) >= ewMin {
		kernel.Relu(dst, x)
		return
	}
	for i, v := range x {
		if v < 0 {
			v = 0
		}
		dst[i] = v
	}
}

// ewExp is: for i, v := range x { dst[i] = exp(v) } (within 2 ulp for
// float32, see kernel.Exp).
func ewExp[T kernel.Float](dst, x []T) { kernel.Exp(dst, x) }

// ewMap is: for i, v := range x { dst[i] = f(v) }
func ewMap[T kernel.Float](dst, x []T, f func(float64) float64) {
	parallelFor(len(x), 1, func(lo, hi int) {
		d := dst[lo:hi]
		for i, v := range x[lo:hi] {
			d[i] = T(f(float64(v)))
		}
	})
}

// ewAxpy is: for i, v := range x { y[i] += T(alpha * v) }
func ewAxpy[T kernel.Float](alpha T, x, y []T) {
	if len(x) >= ewMin {
		kernel.Axpy(alpha, x, y)
		return
	}
	y = y[:len(x)]
	for i, v := range x {
		y[i] += T(alpha * v)
	}
}
