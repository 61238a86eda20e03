package wadn

import (
	"math/rand/v2"
	"slices"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
)

// baseCommon is what every baseline shares: its settings and the splits
// and rows of its mini-batch.
//
// The batch has one block of Batch rows per split: the sources in order,
// then the target's training split. In the unsupervised scenarios that
// block is the unlabelled target. In the limited-label scenario it is the
// labelled 10%, which the adversarial, moment and entropy terms also take,
// labels unread, as their target sample: the protocol has no other target
// data, and WADN sees the same. With Config.Transductive one more block,
// drawn from the target's test split with its labels unread, serves as the
// unlabelled target instead (the semi-supervised setting the MME and DANN
// papers use), as WADN's critics then do.
type baseCommon struct {
	b      BaselineConfig
	splits []*data.Split
	rows   [][]int
}

// init reads the run's baseline settings and lays out the batch.
func (c *baseCommon) init(tr *trainer) error {
	b, err := baselineConfig(&tr.cfg)
	if err != nil {
		return err
	}
	c.b = b
	c.splits = slices.Clone(tr.split)
	if tr.cfg.Scenario == data.Limited && tr.cfg.Transductive {
		c.splits = append(c.splits, &tr.task.TargetTest.Split)
	}
	c.rows = make([][]int, len(c.splits))
	return nil
}

// baseBatch is one step's features and the layout of their blocks.
type baseBatch struct {
	z        *autodiff.Tensor[float32] // [blocks*B, d]
	B, T     int                       // rows per block, sources
	labelled bool                      // block T is the labelled target
	unl      int                       // block of the target sample whose labels the terms leave unread (T or T+1)
	ys       [][]int                   // labels of the labelled blocks
}

// batch draws the unlabelled target rows of the transductive limited-label
// scenario (after the trainer's rows, from the step's generator) and returns
// the features of the whole batch.
func (c *baseCommon) batch(tr *trainer) *baseBatch {
	T, B := len(tr.task.Sources), tr.cfg.Batch
	copy(c.rows, tr.rows)
	bb := &baseBatch{B: B, T: T, unl: T, labelled: tr.cfg.Scenario == data.Limited}
	if len(c.splits) > T+1 {
		c.rows[T+1] = drawRows(tr.rng, c.splits[T+1].Len(), B, c.rows[T+1])
		bb.unl = T + 1
	}
	labelled := T
	if bb.labelled {
		labelled++
	}
	for i := range labelled {
		ys := make([]int, B)
		for j, r := range c.rows[i] {
			ys[j] = c.splits[i].Y[r]
		}
		bb.ys = append(bb.ys, ys)
	}
	bb.z = tr.m.features(c.splits, c.rows)
	return bb
}

// drawRows returns b row indices drawn uniformly from [0, n) with
// replacement, reusing dst.
func drawRows(rng *rand.Rand, n, b int, dst []int) []int {
	dst = dst[:0]
	for range b {
		dst = append(dst, rng.IntN(n))
	}
	return dst
}

// block returns rows [i*B, (i+1)*B) of x.
func (bb *baseBatch) block(x *autodiff.Tensor[float32], i int) *autodiff.Tensor[float32] {
	return autodiff.Slice(x, 0, i*bb.B, (i+1)*bb.B)
}

// sources returns the rows of every source block of x.
func (bb *baseBatch) sources(x *autodiff.Tensor[float32]) *autodiff.Tensor[float32] {
	return autodiff.Slice(x, 0, 0, bb.T*bb.B)
}

// sourceLabels returns the labels of every source block, in order.
func (bb *baseBatch) sourceLabels() []int {
	var ys []int
	for t := range bb.T {
		ys = append(ys, bb.ys[t]...)
	}
	return ys
}

// countTarget adds the predictions of the unlabelled target block of logits
// to the epoch's target prediction counts.
func (bb *baseBatch) countTarget(tr *trainer, logits *autodiff.Tensor[float32]) {
	K := tr.k
	d := logits.Data()
	for i := bb.unl * bb.B; i < (bb.unl+1)*bb.B; i++ {
		tr.st.Sums.Pred[argmax(d[i*K:(i+1)*K])]++
	}
}

// targetWeight returns the weight of the labelled target's cross-entropy
// for BaselineConfig.TargetWeight: scale times the labelled target's sample
// count over the sources' total.
func targetWeight(tr *trainer, scale float64) float64 {
	n := 0
	for _, s := range tr.task.Sources {
		n += s.Len()
	}
	return scale * float64(tr.task.TargetTrain.Len()) / float64(n)
}

// targetLoss returns weight times the cross-entropy of the labelled target
// block of logits, or nil outside the limited-label scenario.
func (bb *baseBatch) targetLoss(logits *autodiff.Tensor[float32], weight float64) (*autodiff.Tensor[float32], error) {
	if !bb.labelled || weight == 0 {
		return nil, nil
	}
	ce, err := autodiff.CrossEntropy(bb.block(logits, bb.T), bb.ys[bb.T], nil, autodiff.ReduceMean)
	if err != nil {
		return nil, err
	}
	return autodiff.MulScalar(ce, float32(weight)), nil
}

// sumTerms adds the non-nil terms.
func sumTerms[T kernel.Float](terms ...*autodiff.Tensor[T]) *autodiff.Tensor[T] {
	var total *autodiff.Tensor[T]
	for _, t := range terms {
		switch {
		case t == nil:
		case total == nil:
			total = t
		default:
			total = autodiff.Add(total, t)
		}
	}
	return total
}

// stackScalars joins scalar tensors into a vector.
func stackScalars[T kernel.Float](xs []*autodiff.Tensor[T]) *autodiff.Tensor[T] {
	v := make([]*autodiff.Tensor[T], len(xs))
	for i, x := range xs {
		v[i] = autodiff.Reshape(x, 1)
	}
	return autodiff.Concat(0, v...)
}

// domainLoss returns the domain classifier's binary cross-entropy on the
// features src (label 1) and tgt (label 0), each averaged over its rows.
func domainLoss(net nn.Module[float32], src, tgt *autodiff.Tensor[float32]) (*autodiff.Tensor[float32], error) {
	ls, err := nn.BCEWithLogits(net.Forward(src), autodiff.Full[float32](1, src.Shape()[0], 1), nn.Mean)
	if err != nil {
		return nil, err
	}
	lt, err := nn.BCEWithLogits(net.Forward(tgt), autodiff.Zeros[float32](tgt.Shape()[0], 1), nn.Mean)
	if err != nil {
		return nil, err
	}
	return autodiff.Add(ls, lt), nil
}

// baselineRand returns the generator that initialises a baseline's own
// modules: fixed by the seed, distinct from the model's.
func baselineRand(tr *trainer, salt uint64) *rand.Rand {
	return nn.NewRand(tr.opt.Seed ^ (0x9e3779b97f4a7c15 * (salt + 1)))
}

// newDomainNet returns a domain classifier or critic with out outputs, laid
// out as the data set's critics (no dropout, no final sigmoid): the Amazon
// heads on the extractor's output, FC [*, 256] ReLU [256, out] for digits,
// FC [256, 256] LeakyReLU [256, out] for Office-Home.
func newDomainNet(cfg *Config, featDim, out int, rng *rand.Rand) nn.Module[float32] {
	switch cfg.Dataset {
	case "amazon":
		return nn.NewMLP[float32](append(slices.Clone(cfg.Hidden[cfg.Depth-1:]), out), 0, rng)
	case "digits":
		return nn.NewMLP[float32]([]int{featDim, 256, out}, 0, rng)
	}
	return nn.NewSequential[float32](nn.NewLinear[float32](featDim, 256, true, rng), nn.LeakyReLU[float32]{Slope: 0.01},
		nn.NewLinear[float32](256, out, true, rng))
}

// newClassifier returns a second classifier laid out as the model's, with
// its dropout drawing from the trainer's generator.
func newClassifier(tr *trainer, rng *rand.Rand) nn.Module[float32] {
	cfg := &tr.cfg
	var m nn.Module[float32]
	switch cfg.Dataset {
	case "amazon":
		m = nn.NewMLP[float32](append(slices.Clone(cfg.Hidden[cfg.Depth-1:]), tr.k), cfg.Dropout, rng)
	case "digits":
		m = nn.NewMLP[float32]([]int{tr.m.featDim, 512, 100, tr.k}, 0, rng)
	default:
		m = nn.NewLinear[float32](tr.m.featDim, tr.k, true, rng)
	}
	setDropoutRand(m, tr.rng)
	return m
}

// setDropoutRand points the dropout layers of m at rng.
func setDropoutRand(m nn.Module[float32], rng *rand.Rand) {
	if s, ok := m.(*nn.Sequential[float32]); ok {
		for _, l := range s.Layers {
			if d, ok := l.(*nn.Dropout[float32]); ok {
				d.Rand = rng
			}
		}
	}
}

// paramsWithPrefix returns the parameters of ps named "prefix.*".
func paramsWithPrefix(ps []nn.Param[float32], prefix string) []nn.Param[float32] {
	var out []nn.Param[float32]
	for _, p := range ps {
		if len(p.Name) > len(prefix) && p.Name[:len(prefix)] == prefix && p.Name[len(prefix)] == '.' {
			out = append(out, p)
		}
	}
	return out
}

// weightAcc accumulates per-source weights over an epoch in a checkpointed
// buffer (the last element counts the steps); at the end of the epoch
// their mean becomes lambda.
type weightAcc struct{ buf *autodiff.Tensor[float32] }

func newWeightAcc(T int) weightAcc { return weightAcc{autodiff.Zeros[float32](T + 1)} }

func (w weightAcc) add(v []float64) {
	d := w.buf.Data()
	for i, x := range v {
		d[i] += float32(x)
	}
	d[len(d)-1]++
}

// flush sets lambda to the epoch's mean weights, when there were any, and
// resets the sums.
func (w weightAcc) flush(lambda []float64) {
	d := w.buf.Data()
	n := float64(d[len(d)-1])
	if n > 0 {
		var s float64
		for i := range lambda {
			s += float64(d[i])
		}
		for i := range lambda {
			lambda[i] = float64(d[i]) / s
		}
	}
	clear(d)
}
