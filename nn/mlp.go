package nn

import (
	"math/rand/v2"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// NewMLP returns Linear layers of the given sizes (sizes[0] inputs,
// sizes[len-1] outputs) with ReLU between them, and Dropout(dropout) after
// every hidden ReLU when dropout > 0.
func NewMLP[T kernel.Float](sizes []int, dropout float64, rng *rand.Rand) *Sequential[T] {
	if len(sizes) < 2 {
		panic("nn: NewMLP needs at least an input and an output size")
	}
	s := &Sequential[T]{}
	for i := 0; i+1 < len(sizes); i++ {
		s.Layers = append(s.Layers, NewLinear[T](sizes[i], sizes[i+1], true, rng))
		if i+2 < len(sizes) {
			s.Layers = append(s.Layers, ReLU[T]{})
			if dropout > 0 {
				s.Layers = append(s.Layers, NewDropout[T](dropout, rng))
			}
		}
	}
	return s
}
