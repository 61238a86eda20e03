package baselines

import (
	"fmt"
	"slices"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/numerics"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/method"
)

// MDAN (Zhao et al. 2018) gives every source t its own domain classifier d_t
// (laid out as the data set's critics) behind a gradient-reversal layer and
// forms the per-source loss g_t = L_t + Mu*D_t, with L_t the source's
// cross-entropy and D_t the binary cross-entropy of d_t telling source t
// (label 1) from the target (label 0). The g_t are combined by the soft-max
// log(sum_t exp(gamma*g_t))/gamma, whose gradient weighs source t by
// softmax(gamma*g)_t, or with the hard-max setting by max_t L_t +
// Mu*min_t D_t. The epoch's mean weights are kept as lambda.
var MDAN = method.Define(method.About{Name: "mdan", Scenarios: udaAndLimited,
	Summary:         "a domain classifier per source, soft-max aggregation (mdan-hard: hard-max)",
	Terms:           mdanTerms,
	EstimatesLambda: true},
	func(data.Scenario) MDANSettings { return MDANSettings{Mu: 1e-2, Gamma: 10} },
	func(s *MDANSettings) (method.Algorithm, error) {
		return &mdan{s: *s}, nil
	})

// MDANSettings are the settings of MDAN.
type MDANSettings struct {
	Mu    float64 `setting:"mu" range:"[0,inf)" help:"weight of the adversarial term (the MDAN and DARN code's 1e-2)"`
	Gamma float64 `setting:"mdan-gamma" range:"(0,inf)" help:"inverse temperature of the soft-max aggregation (the MDAN code's 10)"`
	Hard  bool    `setting:"mdan-hard" help:"the hard-max rule max_t L_t + mu*min_t D_t instead of the soft-max"`
	Labelled
}

// mdanTerms are the terms of MDAN and DARN.
var mdanTerms = []method.Term{{Name: "domain", Help: "each source's domain classifier's cross-entropy against the target", PerSource: true, Was: "implicit"}}

// mdan is MDAN and, with darn set, DARN.
type mdan struct {
	common
	s    MDANSettings
	darn bool
	nets []nn.Module[float32]
	acc  weightAcc
}

func (a *mdan) name() string {
	if a.darn {
		return "darn"
	}
	return "mdan"
}

func (a *mdan) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	a.init(r)
	T := len(r.Task.Sources)
	for t := range T {
		net := r.Net.NewHead(1, ownRand(r, uint64(2+t)))
		a.nets = append(a.nets, net)
		params = append(params, nn.Prefix(fmt.Sprintf("%s.domain%d", a.name(), t), net.Params())...)
	}
	a.acc = newWeightAcc(T)
	return params, []nn.Param[float32]{{Name: a.name() + ".weights", Tensor: a.acc.buf}}, nil
}

func (a *mdan) Step(r *method.Run, epoch int) error {
	bb := a.batch(r)
	logits := r.Model.Classifier.Forward(bb.z)
	bb.countTarget(r, logits)
	ces, err := perSourceCE(r, bb, logits)
	if err != nil {
		return err
	}
	zr := autodiff.GradReverse(bb.z, 1)
	tgt := bb.block(zr, bb.unl)
	doms := make([]*autodiff.Tensor[float32], bb.T)
	for t := range bb.T {
		if doms[t], err = domainLoss(a.nets[t], bb.block(zr, t), tgt); err != nil {
			return err
		}
		r.Sums.Terms[0][t] += float64(doms[t].Item()) // domain
	}
	L, D := stackScalars(ces), stackScalars(doms)
	mu := float32(a.s.Mu)
	var loss *autodiff.Tensor[float32]
	var w []float64
	switch {
	case a.darn:
		v := autodiff.MulScalar(autodiff.Add(L, autodiff.MulScalar(D, mu)), float32(a.s.Gamma))
		p, err := darnProject(v)
		if err != nil {
			return err
		}
		loss = autodiff.Add(autodiff.SumAll(autodiff.Mul(v, p)), autodiff.RowNorm(p, 0))
		w = toF64(p.Data())
	case a.s.Hard:
		loss = autodiff.Sub(autodiff.MaxAll(L), autodiff.MulScalar(autodiff.MaxAll(autodiff.Neg(D)), mu))
		w = make([]float64, bb.T)
		w[method.Argmax(L.Data())] = 1
	default:
		g := autodiff.Add(L, autodiff.MulScalar(D, mu))
		loss = softAggregate(g, float32(a.s.Gamma))
		w = softmaxWeights(g.Data(), a.s.Gamma)
	}
	a.acc.add(w)
	tl, err := bb.targetLoss(logits, r.TargetWeight(a.s.TargetWeight))
	if err != nil {
		return err
	}
	total := sumTerms(loss, tl)
	r.Sums.Loss += float64(total.Item())
	return r.Update(total, nil)
}

func (a *mdan) EndEpoch(r *method.Run, epoch int, log *method.EpochLog) error {
	a.acc.flush(r.Lambda)
	return nil
}

// softAggregate returns MDAN's soft-max log(sum_i exp(gamma*g_i))/gamma of the
// vector g, computed after subtracting its maximum. Its gradient with
// respect to g_i is softmax(gamma*g)_i.
func softAggregate[T kernel.Float](g *autodiff.Tensor[T], gamma T) *autodiff.Tensor[T] {
	m := slices.Max(g.Data())
	e := autodiff.Exp(autodiff.AddScalar(autodiff.MulScalar(g, gamma), -gamma*m))
	return autodiff.AddScalar(autodiff.MulScalar(autodiff.Log(autodiff.SumAll(e)), 1/gamma), m)
}

// softmaxWeights returns softmax(gamma*g).
func softmaxWeights[T kernel.Float](g []T, gamma float64) []float64 {
	m := float64(slices.Max(g))
	w := make([]float64, len(g))
	var s float64
	for i, x := range g {
		w[i] = numerics.Exp(gamma * (float64(x) - m))
		s += w[i]
	}
	for i := range w {
		w[i] /= s
	}
	return w
}
