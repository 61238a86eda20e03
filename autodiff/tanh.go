package autodiff

import (
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// Tanh returns the hyperbolic tangent element-wise.
//
// Backward: dL/dx = g * (1 - out**2).
func Tanh[T kernel.Float](x *Tensor[T]) *Tensor[T] {
	out := unaryRaw(x, numerics.Tanh)
	var ret *Tensor[T]
	ret = newOp("Tanh", out, []*Tensor[T]{x}, func(g *Tensor[T], createGraph bool) []*Tensor[T] {
		if !createGraph {
			return []*Tensor[T]{zip2Raw(g, ret, func(g, y T) T { return g * (1 - T(y*y)) })}
		}
		return []*Tensor[T]{Mul(g, AddScalar(Neg(Square(ret)), 1))}
	})
	return ret
}
