package baselines

import (
	"fmt"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/method"
)

// MME (Saito et al. 2019, minimax entropy) for the limited-label scenario.
// The model's classifier becomes a cosine classifier with temperature Temp
// (cosineHead), used for evaluation too. The loss is the cross-entropy over
// the union of the labelled batches (every source and the labelled target,
// row for row) plus the adversarial entropy mmeAdentropy (weight Lambda) of
// the target sample, its labels unread (the labelled rows, or with the
// transductive setting test rows), computed through a gradient-reversal
// layer in front of the classifier: the classifier minimises lambda*sum p log
// p, so it raises the target entropy, while the extractor, its gradient
// reversed, lowers it. MME's two updates per batch (cross-entropy, then
// entropy) are taken as one step on their sum.
var MME = method.Define(method.About{Name: "mme", Scenarios: []data.Scenario{data.Limited},
	Summary: "limited labels: minimax entropy with a cosine classifier",
	Terms:   []method.Term{{Name: "entropy", Help: "the adversarial entropy of the target predictions", Was: "implicit"}}},
	func(data.Scenario) MMESettings { return MMESettings{Lambda: 0.1, Temp: 0.05} },
	func(s *MMESettings) (method.Algorithm, error) {
		return &mme{s: *s}, nil
	})

// MMESettings are the settings of MME.
type MMESettings struct {
	Lambda float64 `setting:"mme-lambda" range:"[0,inf)" help:"weight of the adversarial entropy (the MME paper's 0.1)"`
	Temp   float64 `setting:"mme-temp" range:"(0,inf)" help:"temperature of the cosine classifier (the MME paper's 0.05)"`
}

// cosineHead is MME's cosine classifier built on the model's classifier:
// its hidden layers, if any, then the cosine similarity between the
// normalised input and the normalised rows of the last linear layer's
// weight, divided by a temperature. The last layer's bias is not used. It
// owns the wrapped classifier's parameters, under their names.
type cosineHead struct {
	inner  nn.Module[float32]
	hidden []nn.Module[float32]
	last   *nn.Linear[float32]
	temp   float32
}

// newCosineHead wraps cls, a Linear layer or a Sequential ending in one.
func newCosineHead(cls nn.Module[float32], temp float64) (*cosineHead, error) {
	h := &cosineHead{inner: cls, temp: float32(temp)}
	switch c := cls.(type) {
	case *nn.Linear[float32]:
		h.last = c
	case *nn.Sequential[float32]:
		if n := len(c.Layers); n > 0 {
			h.last, _ = c.Layers[n-1].(*nn.Linear[float32])
			h.hidden = c.Layers[:n-1]
		}
	}
	if h.last == nil {
		return nil, fmt.Errorf("MME needs a classifier ending in a linear layer, have %T", cls)
	}
	return h, nil
}

// cosineNormalize divides every row of x by its Euclidean norm.
func cosineNormalize[T kernel.Float](x *autodiff.Tensor[T]) *autodiff.Tensor[T] {
	n := x.Shape()[0]
	return autodiff.Div(x, autodiff.Reshape(autodiff.RowNorm(x, 1e-12), n, 1))
}

// Forward returns the cosine scores over the temperature.
func (h *cosineHead) Forward(x *autodiff.Tensor[float32]) *autodiff.Tensor[float32] {
	for _, l := range h.hidden {
		x = l.Forward(x)
	}
	s := autodiff.MatMul(cosineNormalize(x), cosineNormalize(h.last.Weight), false, true)
	return autodiff.MulScalar(s, 1/h.temp)
}

// Params returns the wrapped classifier's parameters.
func (h *cosineHead) Params() []nn.Param[float32] { return h.inner.Params() }

// SetTrain sets the wrapped classifier's mode.
func (h *cosineHead) SetTrain(train bool) { h.inner.SetTrain(train) }

type mme struct {
	common
	nothing
	s    MMESettings
	head *cosineHead
}

func (a *mme) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	a.init(r)
	if a.head, err = newCosineHead(r.Model.Classifier, a.s.Temp); err != nil {
		return nil, nil, err
	}
	r.Model.Classifier = a.head
	return nil, nil, nil
}

func (a *mme) Step(r *method.Run, epoch int) error {
	bb := a.batch(r)
	T, B, K := bb.T, bb.B, r.Classes
	nl := (T + 1) * B
	if !bb.labelled {
		nl = T * B
	}
	var ys []int
	for _, y := range bb.ys {
		ys = append(ys, y...)
	}
	per, err := autodiff.CrossEntropy(a.head.Forward(autodiff.Slice(bb.z, 0, 0, nl)), ys, nil, autodiff.ReduceNone)
	if err != nil {
		return err
	}
	pd := per.Data()
	for t := range T {
		var s float64
		for _, v := range pd[t*B : (t+1)*B] {
			s += float64(v)
		}
		r.Sums.Class[t] += s / float64(B)
	}
	ce := autodiff.MeanAll(per)
	lu := a.head.Forward(autodiff.GradReverse(bb.block(bb.z, bb.unl), 1))
	ld := lu.Data()
	for i := range B {
		r.Sums.Pred[method.Argmax(ld[i*K:(i+1)*K])]++
	}
	ent := mmeAdentropy(lu, float32(a.s.Lambda))
	r.Sums.Terms[0][0] += float64(ent.Item()) // entropy
	total := autodiff.Add(ce, ent)
	r.Sums.Loss += float64(total.Item())
	return r.Update(total, nil)
}

// mmeAdentropy returns MME's adversarial entropy term
// lambda * mean over rows of sum_k p_k log p_k, p = softmax(logits): minus
// lambda times the mean entropy. Minimising it raises the entropy.
func mmeAdentropy[T kernel.Float](logits *autodiff.Tensor[T], lambda T) *autodiff.Tensor[T] {
	n := logits.Shape()[0]
	plogp := autodiff.Mul(autodiff.Softmax(logits), autodiff.LogSoftmax(logits))
	return autodiff.MulScalar(autodiff.SumAll(plogp), lambda/T(n))
}
