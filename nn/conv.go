package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// Conv2d is a 2-D convolution over NCHW input with square kernels, as
// torch.nn.Conv2d with groups = 1 and dilation = 1.
type Conv2d[T kernel.Float] struct {
	stateless[T]
	In, Out, Kernel, Stride, Padding int
	Weight                           *autodiff.Tensor[T] // [Out, In, Kernel, Kernel]
	Bias                             *autodiff.Tensor[T] // [Out]
}

// NewConv2d returns a Conv2d layer initialised as PyTorch does, from rng.
func NewConv2d[T kernel.Float](in, out, kernelSize, stride, padding int, rng *rand.Rand) *Conv2d[T] {
	if in <= 0 || out <= 0 || kernelSize <= 0 || stride <= 0 || padding < 0 {
		panic(fmt.Sprintf("nn: NewConv2d(in %d, out %d, kernel %d, stride %d, padding %d): bad geometry",
			in, out, kernelSize, stride, padding))
	}
	c := &Conv2d[T]{In: in, Out: out, Kernel: kernelSize, Stride: stride, Padding: padding}
	fanIn := in * kernelSize * kernelSize
	c.Weight = autodiff.Zeros[T](out, in, kernelSize, kernelSize).SetRequiresGrad(true)
	KaimingUniform(c.Weight.Data(), fanIn, rng)
	c.Bias = autodiff.Zeros[T](out).SetRequiresGrad(true)
	BiasUniform(c.Bias.Data(), fanIn, rng)
	return c
}

// Forward convolves x of shape [n, In, h, w].
func (c *Conv2d[T]) Forward(x *autodiff.Tensor[T]) *autodiff.Tensor[T] {
	return autodiff.Conv2d(x, c.Weight, c.Bias, c.Stride, c.Padding)
}

// forwardPool is p.Forward(c.Forward(x)), followed by ReLU when relu is
// set, in one operator (autodiff.Conv2dMaxPool).
func (c *Conv2d[T]) forwardPool(x *autodiff.Tensor[T], p *MaxPool2d[T], relu bool) *autodiff.Tensor[T] {
	return autodiff.Conv2dMaxPool(x, c.Weight, c.Bias, c.Stride, c.Padding, p.Kernel, p.stride(), p.CeilMode, relu)
}

// Params returns "weight" and "bias".
func (c *Conv2d[T]) Params() []Param[T] {
	return []Param[T]{{"weight", c.Weight}, {"bias", c.Bias}}
}

// MaxPool2d is max pooling over square windows, as torch.nn.MaxPool2d with no
// padding.
type MaxPool2d[T kernel.Float] struct {
	stateless[T]
	Kernel, Stride int
	CeilMode       bool
}

// Forward pools x of shape [n, c, h, w].
func (p *MaxPool2d[T]) Forward(x *autodiff.Tensor[T]) *autodiff.Tensor[T] {
	return autodiff.MaxPool2d(x, p.Kernel, p.stride(), p.CeilMode)
}

// stride returns the stride of the windows: Stride, or Kernel when Stride
// is 0.
func (p *MaxPool2d[T]) stride() int {
	if p.Stride == 0 {
		return p.Kernel
	}
	return p.Stride
}

// Flatten reshapes [n, d1, d2, ...] to [n, d1*d2*...].
type Flatten[T kernel.Float] struct{ stateless[T] }

// Forward flattens all but the first dimension of x.
func (Flatten[T]) Forward(x *autodiff.Tensor[T]) *autodiff.Tensor[T] {
	return autodiff.Flatten(x)
}
