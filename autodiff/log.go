package autodiff

import (
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// Log returns the natural logarithm element-wise. Log(0) is -Inf and the log
// of a negative number is NaN, as math.Log (numerics.Log: see package numerics); the gradient at 0 is +Inf.
// Losses that take the log of a probability should use LogSoftmax or
// CrossEntropy, which stay finite.
//
// Backward: dL/dx = g / x.
func Log[T kernel.Float](x *Tensor[T]) *Tensor[T] {
	out := unaryRaw(x, numerics.Log)
	return newOp("Log", out, []*Tensor[T]{x}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		return []*Tensor[T]{Div(g, x)}
	})
}
