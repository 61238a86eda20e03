package autodiff

import (
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// Sigmoid returns 1/(1+e**-x) element-wise, computed without overflow.
//
// Backward: dL/dx = g * out * (1 - out).
func Sigmoid[T kernel.Float](x *Tensor[T]) *Tensor[T] {
	out := unaryRaw(x, func(v float64) float64 {
		if v >= 0 {
			return 1 / (1 + numerics.Exp(-v))
		}
		e := numerics.Exp(v)
		return e / (1 + e)
	})
	var ret *Tensor[T]
	ret = newOp("Sigmoid", out, []*Tensor[T]{x}, func(g *Tensor[T], createGraph bool) []*Tensor[T] {
		if !createGraph {
			return []*Tensor[T]{zip2Raw(g, ret, func(g, y T) T { return g * y * (1 - y) })}
		}
		return []*Tensor[T]{Mul(g, Mul(ret, AddScalar(Neg(ret), 1)))}
	})
	return ret
}
