package wadn

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
)

// model is the network of one run: a feature extractor g shared by every
// domain, a classifier h, and one critic d_t per source.
type model struct {
	amazon  *nn.AmazonExtractor[float32] // sparse Amazon input, or nil
	post    *nn.Sequential[float32]      // dense layers after the sparse one, or nil
	dense   nn.Module[float32]           // dense input (digits, features), or nil
	cls     nn.Module[float32]
	critics []nn.Module[float32]
	featDim int

	// batch assembly buffers, reused across steps
	csr  autodiff.CSR
	xbuf []float32
}

// newModel builds the paper's network for dataset with one critic per
// source; rng draws the initial weights.
func newModel(cfg *Config, sources, classes int, rng *rand.Rand) (*model, error) {
	m := &model{}
	switch cfg.Dataset {
	case "amazon":
		h, d := cfg.Hidden, cfg.Depth
		m.amazon = nn.NewSparseExtractor[float32](nn.AmazonInputs, h[0], cfg.Dropout, rng)
		if d > 1 {
			m.post = &nn.Sequential[float32]{}
			for i := 1; i < d; i++ {
				m.post.Layers = append(m.post.Layers, nn.NewDropout[float32](cfg.Dropout, rng),
					nn.NewLinear[float32](h[i-1], h[i], true, rng), nn.ReLU[float32]{})
			}
		}
		m.featDim = h[d-1]
		m.cls = nn.NewMLP[float32](append(slices.Clone(h[d-1:]), classes), cfg.Dropout, rng)
		for range sources {
			// No dropout in the critics: the gradient penalty differentiates
			// them twice at fixed weights.
			m.critics = append(m.critics, nn.NewMLP[float32](append(slices.Clone(h[d-1:]), 1), 0, rng))
		}
	case "digits":
		m.dense = nn.NewDigitsExtractor[float32](rng)
		m.featDim = nn.DigitsFeatures
		m.cls = nn.NewMLP[float32]([]int{nn.DigitsFeatures, 512, 100, classes}, 0, rng)
		for range sources {
			m.critics = append(m.critics, nn.NewDigitsCritic[float32](nn.DigitsFeatures, rng))
		}
	case "office-home", "officehome":
		// ResNet-50 features in; the MLP head's first two blocks are the
		// trainable extractor, its last layer the classifier.
		m.dense = nn.NewSequential[float32](
			nn.NewLinear[float32](nn.OfficeHomeInputs, 256, true, rng), nn.NewBatchNorm1d[float32](256), nn.LeakyReLU[float32]{Slope: 0.01},
			nn.NewLinear[float32](256, 256, true, rng), nn.NewBatchNorm1d[float32](256), nn.LeakyReLU[float32]{Slope: 0.01})
		m.featDim = 256
		m.cls = nn.NewLinear[float32](256, classes, true, rng)
		for range sources {
			m.critics = append(m.critics, nn.NewSequential[float32](
				nn.NewLinear[float32](256, 256, true, rng), nn.LeakyReLU[float32]{Slope: 0.01},
				nn.NewLinear[float32](256, 1, true, rng), nn.Sigmoid[float32]{}))
		}
	default:
		return nil, fmt.Errorf("wadn: unknown dataset %q (want amazon, digits or office-home)", cfg.Dataset)
	}
	return m, nil
}

// params returns every trainable parameter with a unique name.
func (m *model) params() []nn.Param[float32] {
	var ps []nn.Param[float32]
	if m.amazon != nil {
		ps = append(ps, nn.Prefix("extractor", m.amazon.Params())...)
		if m.post != nil {
			ps = append(ps, nn.Prefix("extractor.post", m.post.Params())...)
		}
	} else {
		ps = append(ps, nn.Prefix("extractor", m.dense.Params())...)
	}
	ps = append(ps, nn.Prefix("classifier", m.cls.Params())...)
	for t, c := range m.critics {
		ps = append(ps, nn.Prefix(fmt.Sprintf("critic%d", t), c.Params())...)
	}
	return ps
}

// splitClassifier returns the classifier as every layer but the last and
// that last layer, a Linear, with the width of what the one passes to the
// other; an error when the classifier has no hidden layer.
func (m *model) splitClassifier() (hidden, out nn.Module[float32], width int, err error) {
	s, ok := m.cls.(*nn.Sequential[float32])
	if !ok || len(s.Layers) < 2 {
		return nil, nil, 0, errors.New("wadn: the classifier has no hidden layer to take the centroids on")
	}
	last, ok := s.Layers[len(s.Layers)-1].(*nn.Linear[float32])
	if !ok {
		return nil, nil, 0, fmt.Errorf("wadn: the classifier's last layer is a %T, not a Linear", s.Layers[len(s.Layers)-1])
	}
	return &nn.Sequential[float32]{Layers: s.Layers[:len(s.Layers)-1]}, last, last.In, nil
}

// buffers returns the state buffers (BatchNorm statistics) of the model.
func (m *model) buffers() []nn.Param[float32] {
	if b, ok := m.dense.(nn.Buffers[float32]); ok && m.dense != nil {
		return nn.Prefix("extractor", b.Buffers())
	}
	return nil
}

// setTrain switches dropout and batch normalisation between modes.
func (m *model) setTrain(train bool) {
	if m.amazon != nil {
		m.amazon.SetTrain(train)
		if m.post != nil {
			m.post.SetTrain(train)
		}
	} else {
		m.dense.SetTrain(train)
	}
	m.cls.SetTrain(train)
	for _, c := range m.critics {
		c.SetTrain(train)
	}
}

// features returns g applied to the given rows of each split, one block of
// rows after another: [sum len(rows[i]), featDim].
func (m *model) features(splits []*data.Split, rows [][]int) *autodiff.Tensor[float32] {
	if m.amazon != nil {
		c := &m.csr
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
		z := m.amazon.ForwardCSR(c)
		if m.post != nil {
			z = m.post.Forward(z)
		}
		return z
	}
	d0 := splits[0].Dense
	dim := d0.Dim()
	n := 0
	for _, r := range rows {
		n += len(r)
	}
	if cap(m.xbuf) < n*dim {
		m.xbuf = make([]float32, n*dim)
	}
	x := m.xbuf[:n*dim]
	off := 0
	for i, s := range splits {
		s.Dense.Gather(rows[i], x[off:off:off+len(rows[i])*dim])
		off += len(rows[i]) * dim
	}
	return m.dense.Forward(autodiff.New(x, append([]int{n}, d0.Shape...)...))
}

// accuracy returns the percentage of s that the model classifies correctly,
// in evaluation mode, batch rows at a time.
func (m *model) accuracy(s *data.Split, batch int) float64 {
	n := s.Len()
	if n == 0 {
		return 0
	}
	correct := 0
	m.predict(s, batch, func(r, p int) {
		if p == s.Y[r] {
			correct++
		}
	})
	return 100 * float64(correct) / float64(n)
}

// predict calls f(row, predicted class) for every sample of s, in
// evaluation mode.
func (m *model) predict(s *data.Split, batch int, f func(row, pred int)) {
	m.logits(s, batch, func(r int, l []float32) { f(r, argmax(l)) })
}

// logits calls f(row, the row's logits) for every sample of s, in
// evaluation mode; f must not keep the slice.
func (m *model) logits(s *data.Split, batch int, f func(row int, logits []float32)) {
	m.setTrain(false)
	defer m.setTrain(true)
	eachBatch(s.Len(), batch, func(rows []int) *autodiff.Tensor[float32] {
		return m.cls.Forward(m.features([]*data.Split{s}, [][]int{rows}))
	}, f)
}

// eachBatch runs logits on the rows [0, n) in blocks of batch and calls
// f(row, that row's logits) for every row, releasing each block's graph
// before the next.
func eachBatch(n, batch int, logits func(rows []int) *autodiff.Tensor[float32], f func(row int, logits []float32)) {
	rows := make([]int, 0, batch)
	for lo := 0; lo < n; lo += batch {
		rows = rows[:0]
		for r := lo; r < min(lo+batch, n); r++ {
			rows = append(rows, r)
		}
		out := logits(rows)
		k := out.Shape()[1]
		d := out.Data()
		for j, r := range rows {
			f(r, d[j*k:(j+1)*k])
		}
		out.Release()
	}
}
