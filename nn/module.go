package nn

import (
	"fmt"
	"strconv"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// Module is a layer or a network: a differentiable map from one tensor to
// another that owns named parameters.
type Module[T kernel.Float] interface {
	// Forward applies the module to x.
	Forward(x *autodiff.Tensor[T]) *autodiff.Tensor[T]
	// Params returns the module's parameters with their names, in a fixed
	// order.
	Params() []Param[T]
	// SetTrain switches between training (true) and evaluation mode; it
	// matters to Dropout and BatchNorm1d.
	SetTrain(train bool)
}

// Param is a named parameter: a leaf tensor that requires grad.
type Param[T kernel.Float] struct {
	Name   string
	Tensor *autodiff.Tensor[T]
}

// Buffers is implemented by modules that keep state that is not learnt but
// must be saved, such as BatchNorm1d's running statistics.
type Buffers[T kernel.Float] interface {
	// Buffers returns the module's named state tensors.
	Buffers() []Param[T]
}

// Sequential applies its modules in order. Parameter names are prefixed with
// the module's index, as in PyTorch ("0.weight").
type Sequential[T kernel.Float] struct {
	Layers []Module[T]
}

// NewSequential returns the composition of layers, applied first to last.
func NewSequential[T kernel.Float](layers ...Module[T]) *Sequential[T] {
	return &Sequential[T]{Layers: layers}
}

// Forward applies every layer in turn.
//
// A Conv2d followed by a MaxPool2d (and a ReLU) runs as one operator,
// autodiff.Conv2dMaxPool, without writing the convolution's output out
// whole. It gives the same results and gradients, but for the rounding of
// a first layer's filter and bias gradients (see its documentation).
func (s *Sequential[T]) Forward(x *autodiff.Tensor[T]) *autodiff.Tensor[T] {
	for i := 0; i < len(s.Layers); i++ {
		if c, ok := s.Layers[i].(*Conv2d[T]); ok && i+1 < len(s.Layers) {
			if p, ok := s.Layers[i+1].(*MaxPool2d[T]); ok {
				relu := false
				if i+2 < len(s.Layers) {
					_, relu = s.Layers[i+2].(ReLU[T])
				}
				x = c.forwardPool(x, p, relu)
				i++
				if relu {
					i++
				}
				continue
			}
		}
		x = s.Layers[i].Forward(x)
	}
	return x
}

// ForwardEach returns m.Forward(x) for each x of xs, with the same values
// and the same graph. When m is a Linear, or a Sequential whose first layer
// is one (or a Sequential that begins so), that layer's products of all
// the inputs are taken in one pass over their rows stacked
// (Linear.forwardRows), which runs faster than several passes over few
// rows; the other layers run on each input in turn, in the order of xs.
func ForwardEach[T kernel.Float](m Module[T], xs ...*autodiff.Tensor[T]) []*autodiff.Tensor[T] {
	if len(xs) > 1 {
		if outs, ok := forwardStacked(m, xs); ok {
			return outs
		}
	}
	outs := make([]*autodiff.Tensor[T], len(xs))
	for i, x := range xs {
		outs[i] = m.Forward(x)
	}
	return outs
}

// forwardStacked is ForwardEach for a module that begins with a Linear; for
// any other it builds nothing and reports false.
func forwardStacked[T kernel.Float](m Module[T], xs []*autodiff.Tensor[T]) ([]*autodiff.Tensor[T], bool) {
	switch f := m.(type) {
	case *Linear[T]:
		return f.forwardRows(xs), true
	case *Sequential[T]:
		if len(f.Layers) == 0 {
			return nil, false
		}
		ys, ok := forwardStacked(f.Layers[0], xs)
		if !ok {
			return nil, false
		}
		rest := &Sequential[T]{Layers: f.Layers[1:]}
		for i, y := range ys {
			ys[i] = rest.Forward(y)
		}
		return ys, true
	}
	return nil, false
}

// Params returns the parameters of every layer, named "i.name".
func (s *Sequential[T]) Params() []Param[T] {
	var ps []Param[T]
	for i, l := range s.Layers {
		ps = append(ps, Prefix(strconv.Itoa(i), l.Params())...)
	}
	return ps
}

// Buffers returns the state buffers of every layer, named "i.name".
func (s *Sequential[T]) Buffers() []Param[T] {
	var bs []Param[T]
	for i, l := range s.Layers {
		if b, ok := l.(Buffers[T]); ok {
			bs = append(bs, Prefix(strconv.Itoa(i), b.Buffers())...)
		}
	}
	return bs
}

// SetTrain sets the mode of every layer.
func (s *Sequential[T]) SetTrain(train bool) {
	for _, l := range s.Layers {
		l.SetTrain(train)
	}
}

// Prefix returns ps with "prefix." put before every name.
func Prefix[T kernel.Float](prefix string, ps []Param[T]) []Param[T] {
	out := make([]Param[T], len(ps))
	for i, p := range ps {
		out[i] = Param[T]{Name: prefix + "." + p.Name, Tensor: p.Tensor}
	}
	return out
}

// CheckNames reports a duplicate or empty parameter name in ps.
func CheckNames[T kernel.Float](ps []Param[T]) error {
	seen := make(map[string]bool, len(ps))
	for i, p := range ps {
		if p.Name == "" {
			return fmt.Errorf("nn: parameter %d has no name", i)
		}
		if seen[p.Name] {
			return fmt.Errorf("nn: parameter name %q used twice", p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

// ZeroGrad sets the gradient of every parameter to zero.
func ZeroGrad[T kernel.Float](ps []Param[T]) {
	for _, p := range ps {
		p.Tensor.ZeroGrad()
	}
}

// NumParams returns the number of scalar parameters in ps.
func NumParams[T kernel.Float](ps []Param[T]) int {
	n := 0
	for _, p := range ps {
		n += p.Tensor.Len()
	}
	return n
}

// stateless is embedded by layers without parameters or modes.
type stateless[T kernel.Float] struct{}

// Params returns nothing: the layer has no parameters.
func (stateless[T]) Params() []Param[T] { return nil }

// SetTrain does nothing: the layer behaves the same in both modes.
func (stateless[T]) SetTrain(bool) {}
