package baselines

import (
	"math/rand/v2"
	"slices"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
)

// common is what every baseline shares: the splits and rows of its
// mini-batch.
//
// The batch has one block of Batch rows per split: the sources in order,
// then the target's training split. In the unsupervised scenarios that
// block is the unlabelled target. In the limited-label scenario it is the
// labelled 10%, which the adversarial, moment and entropy terms also take,
// labels unread, as their target sample: the protocol has no other target
// data, and WADN sees the same. With the transductive setting one more
// block, drawn from the target's test split with its labels unread, serves
// as the unlabelled target instead (the semi-supervised setting the MME and
// DANN papers use), as WADN's critics then do.
type common struct {
	splits []*data.Split
	rows   [][]int
}

// init lays out the batch.
func (c *common) init(r *method.Run) {
	c.splits = slices.Clone(r.Splits)
	if r.Scenario == data.Limited && r.Train.Transductive {
		c.splits = append(c.splits, &r.Task.TargetTest.Split)
	}
	c.rows = make([][]int, len(c.splits))
}

// batch is one step's features and the layout of their blocks.
type batch struct {
	z        *autodiff.Tensor[float32] // [blocks*B, d]
	B, T     int                       // rows per block, sources
	labelled bool                      // block T is the labelled target
	unl      int                       // block of the target sample whose labels the terms leave unread (T or T+1)
	ys       [][]int                   // labels of the labelled blocks
}

// batch draws the unlabelled target rows of the transductive limited-label
// scenario (after the run's rows, from the step's generator) and returns
// the features of the whole batch.
func (c *common) batch(r *method.Run) *batch {
	T, B := len(r.Task.Sources), r.Train.Batch
	copy(c.rows, r.Rows)
	bb := &batch{B: B, T: T, unl: T, labelled: r.Scenario == data.Limited}
	if len(c.splits) > T+1 {
		c.rows[T+1] = r.DrawRows(c.splits[T+1].Len(), c.rows[T+1])
		bb.unl = T + 1
	}
	labelled := T
	if bb.labelled {
		labelled++
	}
	for i := range labelled {
		ys := make([]int, B)
		for j, row := range c.rows[i] {
			ys[j] = c.splits[i].Y[row]
		}
		bb.ys = append(bb.ys, ys)
	}
	bb.z = r.Model.Features(c.splits, c.rows)
	return bb
}

// block returns rows [i*B, (i+1)*B) of x.
func (bb *batch) block(x *autodiff.Tensor[float32], i int) *autodiff.Tensor[float32] {
	return autodiff.Slice(x, 0, i*bb.B, (i+1)*bb.B)
}

// sources returns the rows of every source block of x.
func (bb *batch) sources(x *autodiff.Tensor[float32]) *autodiff.Tensor[float32] {
	return autodiff.Slice(x, 0, 0, bb.T*bb.B)
}

// sourceLabels returns the labels of every source block, in order.
func (bb *batch) sourceLabels() []int {
	var ys []int
	for t := range bb.T {
		ys = append(ys, bb.ys[t]...)
	}
	return ys
}

// countTarget adds the predictions of the unlabelled target block of logits
// to the epoch's target prediction counts.
func (bb *batch) countTarget(r *method.Run, logits *autodiff.Tensor[float32]) {
	K := r.Classes
	d := logits.Data()
	for i := bb.unl * bb.B; i < (bb.unl+1)*bb.B; i++ {
		r.Sums.Pred[method.Argmax(d[i*K:(i+1)*K])]++
	}
}

// targetLoss returns weight times the cross-entropy of the labelled target
// block of logits, or nil outside the limited-label scenario.
func (bb *batch) targetLoss(logits *autodiff.Tensor[float32], weight float64) (*autodiff.Tensor[float32], error) {
	if !bb.labelled || weight == 0 {
		return nil, nil
	}
	ce, err := autodiff.CrossEntropy(bb.block(logits, bb.T), bb.ys[bb.T], nil, autodiff.ReduceMean)
	if err != nil {
		return nil, err
	}
	return autodiff.MulScalar(ce, float32(weight)), nil
}

// perSourceCE returns the cross-entropy of each source block of logits and
// adds them to the epoch's per-source classification sums.
func perSourceCE(r *method.Run, bb *batch, logits *autodiff.Tensor[float32]) ([]*autodiff.Tensor[float32], error) {
	out := make([]*autodiff.Tensor[float32], bb.T)
	for t := range bb.T {
		ce, err := autodiff.CrossEntropy(bb.block(logits, t), bb.ys[t], nil, autodiff.ReduceMean)
		if err != nil {
			return nil, err
		}
		out[t] = ce
		r.Sums.Class[t] += float64(ce.Item())
	}
	return out, nil
}

// mergedClass returns the cross-entropy over the rows of every source block,
// the sources merged into one domain (equal blocks: the mean of the
// per-source losses), plus, with limited labels, the labelled target's term
// at scale times its merged weight: the supervised part of Source(+Tar) and
// DANN.
func mergedClass(r *method.Run, bb *batch, logits *autodiff.Tensor[float32], scale float64) (*autodiff.Tensor[float32], error) {
	ces, err := perSourceCE(r, bb, logits)
	if err != nil {
		return nil, err
	}
	cls := autodiff.MulScalar(sumTerms(ces...), 1/float32(bb.T))
	tl, err := bb.targetLoss(logits, r.TargetWeight(scale))
	if err != nil {
		return nil, err
	}
	return sumTerms(cls, tl), nil
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
// The classifier reads both in one pass (nn.ForwardEach: the values and
// graph of two).
func domainLoss(net nn.Module[float32], src, tgt *autodiff.Tensor[float32]) (*autodiff.Tensor[float32], error) {
	outs := nn.ForwardEach(net, src, tgt)
	ls, err := nn.BCEWithLogits(outs[0], autodiff.Full[float32](1, src.Shape()[0], 1), nn.Mean)
	if err != nil {
		return nil, err
	}
	lt, err := nn.BCEWithLogits(outs[1], autodiff.Zeros[float32](tgt.Shape()[0], 1), nn.Mean)
	if err != nil {
		return nil, err
	}
	return autodiff.Add(ls, lt), nil
}

// ownRand returns the generator that initialises a baseline's own modules:
// fixed by the seed, distinct from the model's.
func ownRand(r *method.Run, salt uint64) *rand.Rand {
	return nn.NewRand(r.Seed ^ (0x9e3779b97f4a7c15 * (salt + 1)))
}

// newClassifier returns a second classifier laid out as the model's, with
// its dropout drawing from the step's generator.
func newClassifier(r *method.Run, rng *rand.Rand) nn.Module[float32] {
	m := r.Net.NewClassifier(r.Classes, rng)
	nets.SetDropoutRand(m, r.Rand)
	return m
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

// nothing is the end of an epoch of a method with no estimate to update.
type nothing struct{}

func (nothing) EndEpoch(*method.Run, int, *method.EpochLog) error { return nil }
