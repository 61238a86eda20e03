package autodiff

import (
	"math/bits"
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// ReLU returns max(x, 0) element-wise (NaN stays NaN).
//
// Backward: dL/dx = g where x > 0, else 0 (the derivative at 0 is taken as
// 0). The mask is a constant, so the second derivative is zero.
func ReLU[T kernel.Float](x *Tensor[T]) *Tensor[T] {
	out := empty[T](x.shape...)
	ewRelu(out.data, x.data)
	return newOp("ReLU", out, []*Tensor[T]{x}, func(g *Tensor[T], createGraph bool) []*Tensor[T] {
		if !createGraph {
			gx := empty[T](x.shape...)
			parallelFor(len(gx.data), 1, func(lo, hi int) {
				reluGrad(gx.data[lo:hi], g.data[lo:hi], x.data[lo:hi])
			})
			return []*Tensor[T]{gx}
		}
		return []*Tensor[T]{Mul(g, maskConst(x, func(v T) T {
			if v > 0 {
				return 1
			}
			return 0
		}))}
	})
}

// reluGrad is: for i, v := range x { if v > 0 { dst[i] = g[i] } else { dst[i] = 0 } }
//
// It works on the bits, without a branch that random signs would
// mispredict: v > 0 exactly when the bits of v, less one, are below those of
// +Inf (zero wraps round, negative numbers have the sign bit set, NaNs lie
// above +Inf), and the borrow of that comparison masks g. For float32 the
// comparison is a 64-bit subtraction whose upper half is the mask, which
// the compiler keeps in registers (bits.Sub32 is a call in this generic
// function).
func reluGrad[T kernel.Float](dst, g, x []T) {
	n := len(dst)
	g, x = g[:n], x[:n]
	if n == 0 {
		return
	}
	if unsafe.Sizeof(dst[0]) == 4 {
		d, gb, xb := asBits[uint32](dst), asBits[uint32](g), asBits[uint32](x)
		gb, xb = gb[:len(d)], xb[:len(d)]
		for i := range d {
			d[i] = gb[i] & uint32((uint64(xb[i]-1)-0x7f800000)>>32)
		}
		return
	}
	d, gb, xb := asBits[uint64](dst), asBits[uint64](g), asBits[uint64](x)
	gb, xb = gb[:len(d)], xb[:len(d)]
	for i := range d {
		_, borrow := bits.Sub64(xb[i]-1, 0x7ff0000000000000, 0)
		d[i] = gb[i] & -borrow
	}
}

// asBits returns the memory of s as a slice of unsigned integers U of the
// same size as T.
func asBits[U uint32 | uint64, T kernel.Float](s []T) []U {
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
