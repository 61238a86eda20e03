package nets

import (
	"math/rand/v2"

	"github.com/wadn-go/wadn/nn"
)

// MLP is the Amazon network's layout (dropout, hidden sizes, the extractor's
// depth) on dense inputs of width Inputs: the network of the authors' code
// for pre-extracted image features (its Office-Home path, WarnMLP), fed here
// the Office-Caltech10 histograms. The extractor is Depth blocks of dropout,
// Linear and ReLU, the input's dropout included; the heads are the Amazon
// network's.
type MLP struct {
	Amazon
	Inputs int
}

// NewExtractor returns the dense extractor: Depth blocks of dropout, Linear
// and ReLU from Inputs to Hidden[Depth-1].
func (m *MLP) NewExtractor(rng *rand.Rand) Extractor {
	seq := &nn.Sequential[float32]{}
	in := m.Inputs
	for _, h := range m.Hidden[:m.Depth] {
		seq.Layers = append(seq.Layers, nn.NewDropout[float32](m.Dropout, rng), nn.NewLinear[float32](in, h, true, rng), nn.ReLU[float32]{})
		in = h
	}
	return &dense{m: seq, dim: in}
}
