// Package nets builds the networks of the WADN paper's experiments: for each
// data set a feature extractor g, a classifier h and the layout of the heads
// the methods put on the features (critics, domain classifiers), as the
// paper's appendix and the authors' code describe them. It knows no method.
//
// A Network is built from its data set's settings and draws every initial
// weight from the generator it is given, in a fixed order, so that a seed
// fixes the network.
package nets

import (
	"math/rand/v2"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
)

// Network builds the modules of one data set's network.
type Network interface {
	// NewExtractor returns the feature extractor g.
	NewExtractor(rng *rand.Rand) Extractor
	// NewClassifier returns a classifier h with the given number of
	// classes on the extractor's features.
	NewClassifier(classes int, rng *rand.Rand) nn.Module[float32]
	// NewHead returns a head with out outputs on the extractor's features,
	// laid out as the data set's code lays out its discriminators (WADN's
	// critics, the baselines' domain classifiers): no dropout, which a
	// gradient penalty's second derivative could not go through, and no
	// final squashing, which a method adds when it wants one (Squash). The
	// methods build their heads from it.
	NewHead(out int, rng *rand.Rand) nn.Module[float32]
	// Size counts the network with classes outputs from its layout,
	// building nothing: what a run's memory estimate reads.
	Size(classes int) Size
}

// InputChecker is implemented by a Network that takes inputs of one layout
// only: CheckInput reports a split its extractor cannot read.
type InputChecker interface {
	CheckInput(s data.Split) error
}

// Squash returns head followed by layer (a Sigmoid, say): the layer is
// appended to a Sequential head, so that the head's parameter names stay
// those of the head alone.
func Squash(head, layer nn.Module[float32]) nn.Module[float32] {
	if s, ok := head.(*nn.Sequential[float32]); ok {
		s.Layers = append(s.Layers, layer)
		return s
	}
	return nn.NewSequential(head, layer)
}

// Extractor is a feature extractor over the rows of data splits.
type Extractor interface {
	// Features returns g applied to the given rows of each split, one block
	// of rows after another: [sum of len(rows[i]), Dim()].
	Features(splits []*data.Split, rows [][]int) *autodiff.Tensor[float32]
	// Dim is the width of the features.
	Dim() int
	// Params returns the trainable parameters, named within the extractor.
	Params() []nn.Param[float32]
	// Buffers returns the state that is not learnt (batch-norm statistics).
	Buffers() []nn.Param[float32]
	// SetTrain switches dropout and batch normalisation between modes.
	SetTrain(train bool)
	// SetRand points the extractor's dropout at rng.
	SetRand(rng *rand.Rand)
}

// SetDropoutRand points the dropout layers of m, a Sequential or a single
// layer, at rng.
func SetDropoutRand(m nn.Module[float32], rng *rand.Rand) {
	switch v := m.(type) {
	case *nn.Sequential[float32]:
		for _, l := range v.Layers {
			SetDropoutRand(l, rng)
		}
	case *nn.Dropout[float32]:
		v.Rand = rng
	}
}

// dense is an Extractor of dense inputs (images, pre-extracted features)
// through a module.
type dense struct {
	m    nn.Module[float32]
	dim  int
	xbuf []float32 // batch assembly buffer, reused across steps
}

func (e *dense) Features(splits []*data.Split, rows [][]int) *autodiff.Tensor[float32] {
	d0 := splits[0].Dense
	dim := d0.Dim()
	n := 0
	for _, r := range rows {
		n += len(r)
	}
	if cap(e.xbuf) < n*dim {
		e.xbuf = make([]float32, n*dim)
	}
	x := e.xbuf[:n*dim]
	off := 0
	for i, s := range splits {
		s.Dense.Gather(rows[i], x[off:off:off+len(rows[i])*dim])
		off += len(rows[i]) * dim
	}
	return e.m.Forward(autodiff.New(x, append([]int{n}, d0.Shape...)...))
}

func (e *dense) Dim() int                     { return e.dim }
func (e *dense) Params() []nn.Param[float32]  { return e.m.Params() }
func (e *dense) SetTrain(train bool)          { e.m.SetTrain(train) }
func (e *dense) SetRand(rng *rand.Rand)       { SetDropoutRand(e.m, rng) }
func (e *dense) Buffers() []nn.Param[float32] { return buffersOf(e.m) }

// buffersOf returns m's buffers when it has any.
func buffersOf(m nn.Module[float32]) []nn.Param[float32] {
	if b, ok := m.(nn.Buffers[float32]); ok {
		return b.Buffers()
	}
	return nil
}
