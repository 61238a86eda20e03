package nets

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
)

// Sizes of the Amazon reviews network (the paper's appendix).
const (
	AmazonInputs   = 5000 // bag-of-words features
	AmazonFeatures = 1000 // the first hidden layer
)

// Amazon is the network of the Amazon reviews: an MLP on the 5000
// bag-of-words counts whose hidden layers Hidden are split between the
// extractor (the first Depth of them) and the heads (the rest), with inverted
// dropout before every layer of the extractor, the input's included, and
// after every hidden layer of the classifier.
type Amazon struct {
	Dropout float64 `setting:"dropout" help:"drop probability of the MLP (Amazon, Office-Caltech10), before each extractor layer and after each hidden classifier layer"`
	// Hidden are the layer sizes: the extractor maps the inputs to
	// Hidden[0]; the heads map Hidden[Depth-1] through the rest to their
	// outputs.
	Hidden []int `setting:"hidden" help:"hidden layer sizes of the MLP (Amazon, Office-Caltech10)"`
	// Depth is how many of the Hidden layers form the extractor g. Depth 1
	// is the paper's description (g = 5000 -> 1000); the default, all three,
	// is the authors' code, where the heads are linear on the 100-d features.
	Depth int `setting:"depth" help:"how many hidden layers form the MLP's extractor (1: the paper's text, 3: the authors' code)"`
}

// DefaultAmazon returns the paper's layer sizes [1000 500 100] with the
// extractor split of the authors' code (Depth 3) and dropout 0.7.
func DefaultAmazon() Amazon {
	return Amazon{Dropout: 0.7, Hidden: []int{AmazonFeatures, 500, 100}, Depth: 3}
}

// Validate reports a setting the network cannot be built with.
func (a *Amazon) Validate() error {
	switch {
	case !(a.Dropout >= 0 && a.Dropout < 1):
		return fmt.Errorf("dropout %v, want a value in [0, 1)", a.Dropout)
	case len(a.Hidden) == 0 || slices.Min(a.Hidden) <= 0:
		return fmt.Errorf("hidden sizes %v, want at least one, all positive", a.Hidden)
	case a.Depth < 1 || a.Depth > len(a.Hidden):
		return fmt.Errorf("depth %d, want 1..%d (the number of hidden sizes)", a.Depth, len(a.Hidden))
	}
	return nil
}

// heads returns the layer sizes of a head with out outputs.
func (a *Amazon) heads(out int) []int { return append(slices.Clone(a.Hidden[a.Depth-1:]), out) }

// NewExtractor returns the sparse extractor: input dropout, Linear 5000 ->
// Hidden[0] and ReLU over the sparse rows, then Depth-1 blocks of dropout,
// Linear and ReLU. Its parameters are "0.weight", "0.bias" and, for the
// blocks, "post.1.weight" and so on.
func (a *Amazon) NewExtractor(rng *rand.Rand) Extractor {
	e := &amazonExtractor{first: NewSparseExtractor(AmazonInputs, a.Hidden[0], a.Dropout, rng), dim: a.Hidden[a.Depth-1]}
	if a.Depth > 1 {
		e.post = &nn.Sequential[float32]{}
		for i := 1; i < a.Depth; i++ {
			e.post.Layers = append(e.post.Layers, nn.NewDropout[float32](a.Dropout, rng),
				nn.NewLinear[float32](a.Hidden[i-1], a.Hidden[i], true, rng), nn.ReLU[float32]{})
		}
	}
	return e
}

// NewClassifier returns the MLP Hidden[Depth-1:] -> classes, with dropout
// after its hidden layers.
func (a *Amazon) NewClassifier(classes int, rng *rand.Rand) nn.Module[float32] {
	return nn.NewMLP[float32](a.heads(classes), a.Dropout, rng)
}

// NewHead returns the MLP Hidden[Depth-1:] -> out without dropout.
func (a *Amazon) NewHead(out int, rng *rand.Rand) nn.Module[float32] {
	return nn.NewMLP[float32](a.heads(out), 0, rng)
}

// amazonExtractor is the Amazon extractor: the sparse first layer, then the
// dense blocks, if any.
type amazonExtractor struct {
	first *SparseExtractor
	post  *nn.Sequential[float32] // nil at depth 1
	dim   int
	csr   autodiff.CSR // batch assembly buffer, reused across steps
}

func (e *amazonExtractor) Features(splits []*data.Split, rows [][]int) *autodiff.Tensor[float32] {
	c := &e.csr
	c.Rows, c.Cols = 0, splits[0].Sparse.Cols
	c.RowPtr = append(c.RowPtr[:0], 0)
	c.ColIdx, c.Val = c.ColIdx[:0], c.Val[:0]
	for i, s := range splits {
		sp := s.Sparse
		for _, r := range rows[i] {
			lo, hi := sp.RowPtr[r], sp.RowPtr[r+1]
			c.ColIdx = append(c.ColIdx, sp.ColIdx[lo:hi]...)
			c.Val = append(c.Val, sp.Val[lo:hi]...)
			c.RowPtr = append(c.RowPtr, len(c.ColIdx))
			c.Rows++
		}
	}
	z := e.first.ForwardCSR(c)
	if e.post != nil {
		z = e.post.Forward(z)
	}
	return z
}

func (e *amazonExtractor) Dim() int { return e.dim }

func (e *amazonExtractor) Params() []nn.Param[float32] {
	ps := e.first.Params()
	if e.post != nil {
		ps = append(ps, nn.Prefix("post", e.post.Params())...)
	}
	return ps
}

func (e *amazonExtractor) Buffers() []nn.Param[float32] { return nil }

func (e *amazonExtractor) SetTrain(train bool) {
	e.first.SetTrain(train)
	if e.post != nil {
		e.post.SetTrain(train)
	}
}

func (e *amazonExtractor) SetRand(rng *rand.Rand) {
	e.first.Rand = rng
	if e.post != nil {
		SetDropoutRand(e.post, rng)
	}
}

// SparseExtractor is a layer over sparse rows (bag-of-words counts): input
// dropout, then a Linear layer and a ReLU.
type SparseExtractor struct {
	Layer   *nn.SparseLinear[float32]
	Dropout float64
	Rand    *rand.Rand // the dropout's generator
	train   bool
	buf     autodiff.CSR
}

// NewSparseExtractor returns a SparseExtractor from in to out features with
// input dropout p, in training mode.
func NewSparseExtractor(in, out int, p float64, rng *rand.Rand) *SparseExtractor {
	return &SparseExtractor{Layer: nn.NewSparseLinear[float32](in, out, rng), Dropout: p, Rand: rng, train: true}
}

// ForwardCSR maps sparse rows [n, in] to features [n, out]. In training the
// dropped input lives in a buffer of the extractor that the next call
// reuses.
func (e *SparseExtractor) ForwardCSR(x *autodiff.CSR) *autodiff.Tensor[float32] {
	x = nn.DropoutCSR(x, e.Dropout, e.train, e.Rand, &e.buf)
	return autodiff.ReLU(e.Layer.ForwardCSR(x))
}

// Params returns the parameters of the linear layer, named "0.weight" and
// "0.bias".
func (e *SparseExtractor) Params() []nn.Param[float32] { return nn.Prefix("0", e.Layer.Params()) }

// SetTrain switches input dropout on or off.
func (e *SparseExtractor) SetTrain(train bool) { e.train = train }
