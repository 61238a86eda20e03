package nets

import (
	"errors"
	"math/rand/v2"
	"slices"

	"github.com/wadn-go/wadn/data"

	"github.com/wadn-go/wadn/nn"
)

// Sizes of the Digits network (the paper's appendix).
const (
	DigitsFeatures = 256 * 3 * 3 // extractor output for 3x32x32 input
	DigitsClasses  = 10
)

// Digits is the network of the digit domains: a convolutional extractor on
// 3x32x32 images, no dropout, no batch normalisation.
type Digits struct{}

// NewExtractor returns NewDigitsExtractor over the images of the splits.
func (Digits) NewExtractor(rng *rand.Rand) Extractor {
	return &dense{m: NewDigitsExtractor(rng), dim: DigitsFeatures}
}

// CheckInput reports a split that does not hold 3x32x32 images.
func (Digits) CheckInput(s data.Split) error {
	if s.Dense == nil || !slices.Equal(s.Dense.Shape, []int{3, 32, 32}) {
		return errors.New("the digits network reads 3x32x32 images, which the split does not hold")
	}
	return nil
}

// NewClassifier returns FC [2304, 512] ReLU [512, 100] ReLU [100, classes].
func (Digits) NewClassifier(classes int, rng *rand.Rand) nn.Module[float32] {
	return nn.NewMLP[float32]([]int{DigitsFeatures, 512, 100, classes}, 0, rng)
}

// NewHead returns FC [2304, 256] ReLU [256, out].
func (Digits) NewHead(out int, rng *rand.Rand) nn.Module[float32] {
	return nn.NewMLP[float32]([]int{DigitsFeatures, 256, out}, 0, rng)
}

// NewDigitsExtractor returns the Digits feature extractor:
// 3 x [conv 3x3 (64, 128, 256 filters, no padding) + ReLU + maxpool 2x2
// (ceil mode)], flattened: [n, 3, 32, 32] -> [n, 2304]. The spatial size
// goes 32 -> 30 -> 15 -> 13 -> 7 -> 5 -> 3, as in the authors' code.
// The ReLU is applied after the pooling: max-pooling commutes with ReLU (a
// monotone function), so the result and its gradient are those of conv,
// ReLU, pool, at a quarter of the ReLU's work.
func NewDigitsExtractor(rng *rand.Rand) *nn.Sequential[float32] {
	s := &nn.Sequential[float32]{}
	in := 3
	for _, out := range []int{64, 128, 256} {
		s.Layers = append(s.Layers,
			nn.NewConv2d[float32](in, out, 3, 1, 0, rng), &nn.MaxPool2d[float32]{Kernel: 2, Stride: 2, CeilMode: true}, nn.ReLU[float32]{})
		in = out
	}
	s.Layers = append(s.Layers, nn.Flatten[float32]{})
	return s
}
