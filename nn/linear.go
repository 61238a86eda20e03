package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// Linear is y = x W^T + b with W of shape [out, in] and b of shape [out], as
// torch.nn.Linear.
type Linear[T kernel.Float] struct {
	stateless[T]
	In, Out int
	Weight  *autodiff.Tensor[T] // [Out, In]
	Bias    *autodiff.Tensor[T] // [Out], nil without bias
}

// NewLinear returns a Linear layer initialised as PyTorch does, from rng.
func NewLinear[T kernel.Float](in, out int, bias bool, rng *rand.Rand) *Linear[T] {
	if in <= 0 || out <= 0 {
		panic(fmt.Sprintf("nn: NewLinear(%d, %d): sizes must be positive", in, out))
	}
	l := &Linear[T]{In: in, Out: out}
	l.Weight = autodiff.Zeros[T](out, in).SetRequiresGrad(true)
	KaimingUniform(l.Weight.Data(), in, rng)
	if bias {
		l.Bias = autodiff.Zeros[T](out).SetRequiresGrad(true)
		BiasUniform(l.Bias.Data(), in, rng)
	}
	return l
}

// Forward maps x of shape [n, In] to [n, Out].
func (l *Linear[T]) Forward(x *autodiff.Tensor[T]) *autodiff.Tensor[T] {
	return l.addBias(autodiff.MatMul(x, l.Weight, false, true))
}

// forwardRows is Forward of each x of xs, the products taken in one pass
// over their rows stacked (autodiff.MatMulRows): the same values and graph.
func (l *Linear[T]) forwardRows(xs []*autodiff.Tensor[T]) []*autodiff.Tensor[T] {
	ys := autodiff.MatMulRows(xs, l.Weight, true)
	for i, y := range ys {
		ys[i] = l.addBias(y)
	}
	return ys
}

// addBias returns y + b, or y without a bias.
func (l *Linear[T]) addBias(y *autodiff.Tensor[T]) *autodiff.Tensor[T] {
	if l.Bias != nil {
		y = autodiff.Add(y, l.Bias)
	}
	return y
}

// Params returns "weight" and, with a bias, "bias".
func (l *Linear[T]) Params() []Param[T] {
	ps := []Param[T]{{"weight", l.Weight}}
	if l.Bias != nil {
		ps = append(ps, Param[T]{"bias", l.Bias})
	}
	return ps
}

// SparseLinear is Linear applied to sparse rows (bag-of-words input): y = x
// W^T + b with x a CSR matrix. W is stored transposed, [In, Out], so the
// product runs row by row over the non-zeros of x; its name is still
// "weight" and Params reports the [In, Out] layout.
type SparseLinear[T kernel.Float] struct {
	stateless[T]
	In, Out int
	Weight  *autodiff.Tensor[T] // [In, Out]
	Bias    *autodiff.Tensor[T] // [Out]
}

// NewSparseLinear returns a SparseLinear layer initialised as torch.nn.Linear
// would be (the bounds depend only on In).
func NewSparseLinear[T kernel.Float](in, out int, rng *rand.Rand) *SparseLinear[T] {
	if in <= 0 || out <= 0 {
		panic(fmt.Sprintf("nn: NewSparseLinear(%d, %d): sizes must be positive", in, out))
	}
	l := &SparseLinear[T]{In: in, Out: out}
	l.Weight = autodiff.Zeros[T](in, out).SetRequiresGrad(true)
	KaimingUniform(l.Weight.Data(), in, rng)
	l.Bias = autodiff.Zeros[T](out).SetRequiresGrad(true)
	BiasUniform(l.Bias.Data(), in, rng)
	return l
}

// ForwardCSR maps the sparse rows x (x.Cols == In) to a dense [x.Rows, Out].
func (l *SparseLinear[T]) ForwardCSR(x *autodiff.CSR) *autodiff.Tensor[T] {
	return autodiff.Add(autodiff.SparseMatMul(x, l.Weight), l.Bias)
}

// Forward maps dense rows x of shape [n, In] to [n, Out].
func (l *SparseLinear[T]) Forward(x *autodiff.Tensor[T]) *autodiff.Tensor[T] {
	return autodiff.Add(autodiff.MatMul(x, l.Weight, false, false), l.Bias)
}

// Params returns "weight" ([In, Out]) and "bias".
func (l *SparseLinear[T]) Params() []Param[T] {
	return []Param[T]{{"weight", l.Weight}, {"bias", l.Bias}}
}
