package baselines

import (
	"fmt"
	"math"
	"slices"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/numerics"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/method"
)

// PADA (Cao et al. 2018, partial adversarial domain adaptation) on the
// sources merged into one domain. Every class y has a weight gamma_y, the
// class's mean predicted probability over the target training split
// normalised by the largest (padaClassWeights), re-estimated at the end of
// every epoch in evaluation mode (1 before the first estimate) and kept as
// every source's alpha. The source cross-entropy is class-weighted (sum of
// gamma_y * loss over the sum of the batch's gamma_y; 0 for a batch whose
// every row has a weight of 0, padaClassLoss), and so is the source
// side of the domain classifier's binary cross-entropy (the target rows
// weigh 1; the mean is over all rows). The domain classifier sits behind a
// gradient-reversal layer whose coefficient rises as 2/(1+exp(-Ramp*p)) - 1
// over the training progress p; the adversarial term is weighted by Mu.
var PADA = method.Define(method.About{Name: "pada", Scenarios: []data.Scenario{data.Partial},
	Summary: "partial: class weights from the averaged target predictions, weighted adversary",
	Terms:   []method.Term{{Name: "domain", Help: "the class-weighted domain classifier's cross-entropy", Was: "implicit"}}},
	func(data.Scenario) PADASettings { return PADASettings{Mu: 1, Ramp: 10} },
	func(s *PADASettings) (method.Algorithm, error) {
		return &pada{s: *s}, nil
	})

// PADASettings are the settings of PADA.
type PADASettings struct {
	Mu   float64 `setting:"pada-mu" range:"[0,inf)" help:"weight of the class-weighted adversarial term (the PADA paper's 1)"`
	Ramp float64 `setting:"pada-ramp" range:"[0,inf)" help:"steepness of the gradient-reversal ramp 2/(1+exp(-ramp*p))-1 (the PADA and DANN papers' 10)"`
}

type pada struct {
	common
	s   PADASettings
	net nn.Module[float32]
}

func (a *pada) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	a.init(r)
	a.net = r.Net.NewHead(1, ownRand(r, 40))
	return nn.Prefix("pada.domain", a.net.Params()), nil, nil
}

func (a *pada) Step(r *method.Run, epoch int) error {
	bb := a.batch(r)
	T, B := bb.T, bb.B
	logits := r.Model.Classifier.Forward(bb.z)
	bb.countTarget(r, logits)
	gamma := r.Alpha[0]
	ys := bb.sourceLabels()
	cls, err := padaClassLoss(bb.sources(logits), ys, gamma)
	if err != nil {
		return err
	}
	p := (float64(float64(epoch-1)*float64(r.Steps)) + float64(r.CurrentStep)) / (float64(r.Train.Epochs) * float64(r.Steps))
	coef := 2/(1+numerics.Exp(-a.s.Ramp*p)) - 1
	zr := autodiff.GradReverse(bb.z, float32(coef))
	outs := nn.ForwardEach(a.net, bb.sources(zr), bb.block(zr, bb.unl))
	ls, err := nn.BCEWithLogits(outs[0], autodiff.Full[float32](1, T*B, 1), nn.None)
	if err != nil {
		return err
	}
	lt, err := nn.BCEWithLogits(outs[1], autodiff.Zeros[float32](B, 1), nn.None)
	if err != nil {
		return err
	}
	w := make([]float32, T*B)
	for i, y := range ys {
		w[i] = float32(gamma[y])
	}
	dom := autodiff.MulScalar(autodiff.Add(autodiff.SumAll(autodiff.Mul(ls, autodiff.New(w, T*B, 1))), autodiff.SumAll(lt)),
		1/float32((T+1)*B))
	for t := range T {
		r.Sums.Class[t] += float64(cls.Item())
	}
	r.Sums.Terms[0][0] += float64(dom.Item()) // domain
	total := sumTerms(cls, autodiff.MulScalar(dom, float32(a.s.Mu)))
	r.Sums.Loss += float64(total.Item())
	return r.Update(total, nil)
}

// padaClassLoss returns the class-weighted cross-entropy of the source
// rows: the sum of gamma_y * loss over the sum of the rows' gamma_y, in
// float32. When every row of the batch is of a class whose weight is 0 in
// float32 (the target's mean probability of the class having fallen below
// float32's least value, which happens when the target keeps few classes),
// that quotient is undefined: the batch has no weight, and its class term
// is 0, with no gradient.
func padaClassLoss(logits *autodiff.Tensor[float32], ys []int, gamma []float64) (*autodiff.Tensor[float32], error) {
	w := method.F32s(gamma)
	var total float32
	for _, y := range ys {
		if y >= 0 && y < len(w) {
			total += w[y]
		}
	}
	if total == 0 {
		return autodiff.Scalar[float32](0), nil
	}
	return nn.CrossEntropy(logits, ys, nn.CrossEntropyOptions[float32]{ClassWeights: w})
}

// EndEpoch re-estimates the class weights from the target predictions.
func (a *pada) EndEpoch(r *method.Run, epoch int, log *method.EpochLog) error {
	g, err := padaClassWeights(meanTargetProbs(r, &r.Task.TargetTrain.Split))
	if err != nil {
		return err
	}
	for t := range r.Alpha {
		copy(r.Alpha[t], g)
	}
	return nil
}

// padaClassWeights returns PADA's class weights from the mean predicted
// class probabilities of the target: the means divided by their maximum.
func padaClassWeights(mean []float64) ([]float64, error) {
	if len(mean) == 0 {
		return nil, fmt.Errorf("PADA class weights of no classes")
	}
	m := slices.Max(mean)
	if !(m > 0) || math.IsInf(m, 0) {
		return nil, fmt.Errorf("PADA class weights: the largest mean probability is %v", m)
	}
	g := make([]float64, len(mean))
	for i, v := range mean {
		g[i] = v / m
	}
	return g, nil
}

// meanTargetProbs returns the model's mean predicted class probabilities
// over the split, in evaluation mode.
func meanTargetProbs(r *method.Run, sp *data.Split) []float64 {
	K := r.Classes
	sums := make([]float64, K)
	n := sp.Len()
	m := r.Model
	m.SetTrain(false)
	defer m.SetTrain(true)
	method.EachBatch(n, r.Train.EvalBatch, func(rows []int) *autodiff.Tensor[float32] {
		return autodiff.Softmax(m.Classifier.Forward(m.Features([]*data.Split{sp}, [][]int{rows})))
	}, func(_ int, p []float32) {
		for k := range K {
			sums[k] += float64(p[k])
		}
	})
	for k := range sums {
		sums[k] /= float64(max(n, 1))
	}
	return sums
}
