package autodiff

import (
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// AddScalar returns x + s.
//
// Backward: dL/dx = g.
func AddScalar[T kernel.Float](x *Tensor[T], s T) *Tensor[T] {
	out := empty[T](x.shape...)
	ewAddScalar(out.data, x.data, s)
	return newOp("AddScalar", out, []*Tensor[T]{x}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		return []*Tensor[T]{g}
	})
}

// MulScalar returns s * x.
//
// Backward: dL/dx = s * g.
func MulScalar[T kernel.Float](x *Tensor[T], s T) *Tensor[T] {
	out := empty[T](x.shape...)
	ewScale(out.data, x.data, s)
	return newOp("MulScalar", out, []*Tensor[T]{x}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		return []*Tensor[T]{MulScalar(g, s)}
	})
}

// PowScalar returns x**p element-wise. A negative x with a non-integer p
// gives NaN, and 0**p with p < 0 gives +Inf, as math.Pow does.
//
// Backward: dL/dx = g * p * x**(p-1).
func PowScalar[T kernel.Float](x *Tensor[T], p T) *Tensor[T] {
	out := empty[T](x.shape...)
	pf := float64(p)
	switch p {
	case 1:
		copy(out.data, x.data)
	case 2:
		ewMul(out.data, x.data, x.data)
	default:
		ewMap(out.data, x.data, func(v float64) float64 { return numerics.Pow(v, pf) })
	}
	return newOp("PowScalar", out, []*Tensor[T]{x}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		if p == 0 {
			return []*Tensor[T]{constant(emptyZeroed[T](x.shape...))}
		}
		if p == 1 {
			return []*Tensor[T]{g}
		}
		return []*Tensor[T]{Mul(g, MulScalar(PowScalar(x, p-1), p))}
	})
}

// Square returns x*x element-wise.
//
// Backward: dL/dx = 2 * g * x.
func Square[T kernel.Float](x *Tensor[T]) *Tensor[T] {
	out := empty[T](x.shape...)
	ewMul(out.data, x.data, x.data)
	return newOp("Square", out, []*Tensor[T]{x}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		return []*Tensor[T]{Mul(g, MulScalar(x, 2))}
	})
}
