package baselines

import (
	"errors"
	"fmt"
	"math"
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
var MDAN = method.Define("mdan", udaAndLimited,
	"a domain classifier per source, soft-max aggregation (mdan-hard: hard-max)",
	func(data.Scenario) MDANSettings { return MDANSettings{Mu: 1e-2, Gamma: 10} },
	func(s *MDANSettings) (method.Algorithm, error) {
		if err := checkWeights(map[string]float64{"mu": s.Mu, "target-weight": s.TargetWeight}); err != nil {
			return nil, err
		}
		if !(s.Gamma > 0) {
			return nil, fmt.Errorf("mdan-gamma %v, want > 0", s.Gamma)
		}
		return &mdan{s: *s}, nil
	})

// MDANSettings are the settings of MDAN.
type MDANSettings struct {
	Mu    float64 `setting:"mu" help:"weight of the adversarial term (the MDAN and DARN code's 1e-2)"`
	Gamma float64 `setting:"mdan-gamma" help:"inverse temperature of the soft-max aggregation (the MDAN code's 10)"`
	Hard  bool    `setting:"mdan-hard" help:"the hard-max rule max_t L_t + mu*min_t D_t instead of the soft-max"`
	Labelled
}

// DARN (Wen et al. 2020) is MDAN's per-source loss g_t = L_t + Mu*D_t
// combined by DARN's rule: with v = Gamma*g, the weights a = darnProject(v)
// minimise <v, a> + ||a||_2 over the simplex, and the loss is <v, a> +
// ||a||_2. The epoch's mean weights are kept as lambda.
var DARN = method.Define("darn", everyScenario,
	"a domain classifier per source, weights by DARN's L2 projection onto the simplex",
	func(data.Scenario) DARNSettings { return DARNSettings{Mu: 1e-2, Gamma: 1} },
	func(s *DARNSettings) (method.Algorithm, error) {
		if err := checkWeights(map[string]float64{"mu": s.Mu, "target-weight": s.TargetWeight}); err != nil {
			return nil, err
		}
		if !(s.Gamma > 0) {
			return nil, fmt.Errorf("darn-gamma %v, want > 0", s.Gamma)
		}
		return &mdan{darn: true, s: MDANSettings{Mu: s.Mu, Gamma: s.Gamma, Labelled: s.Labelled}}, nil
	})

// DARNSettings are the settings of DARN.
type DARNSettings struct {
	Mu    float64 `setting:"mu" help:"weight of the adversarial term (the DARN code's 1e-2)"`
	Gamma float64 `setting:"darn-gamma" help:"scale of the losses before the L2 projection (the DARN code's 1)"`
	Labelled
}

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
		net := r.Net.NewDomainNet(1, ownRand(r, uint64(2+t)))
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
		r.Sums.Implicit[t] += float64(doms[t].Item())
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

// errDARNNotFinite reports a non-finite input of the projection.
var errDARNNotFinite = errors.New("the DARN projection got a non-finite value")

// darnProject returns DARN's aggregation weights for the per-source losses
// v: the minimiser a of <v, a> + ||a||_2 over the probability simplex.
// Its optimality conditions give a = b/sum(b) with b_i = max(tau - v_i, 0)
// and ||b||_2 = 1: the L2 projection of DARN's paper. On the active set s
// (the v_i below tau, |s| = S) the solution has the closed form
//
//	A   = (sum_s v_i)^2 - S*(sum_s v_i^2 - 1)
//	tau = (sum_s v_i + sqrt(A)) / S
//	a_i = (tau - v_i) / sqrt(A) for i in s, 0 elsewhere,
//
// (sum_s (tau - v_i) = sqrt(A)). The forward finds s by sorting v and
// trying its prefixes; the result is then built from that formula with
// differentiable operators, the active set held fixed, so its gradient is
// the closed-form Jacobian of DARN's appendix and it can be differentiated
// again.
func darnProject[T kernel.Float](v *autodiff.Tensor[T]) (*autodiff.Tensor[T], error) {
	d := v.Data()
	n := len(d)
	if v.Dims() != 1 || n == 0 {
		return nil, fmt.Errorf("the DARN projection wants a non-empty vector, got shape %v", v.Shape())
	}
	sorted := make([]float64, n)
	for i, x := range d {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("%w: element %d is %v", errDARNNotFinite, i, x)
		}
		sorted[i] = float64(x)
	}
	slices.Sort(sorted)
	tau := math.NaN()
	var s1, s2 float64
	for k := 1; k <= n; k++ {
		x := sorted[k-1]
		s1 += x
		s2 += float64(x * x)
		A := float64(s1*s1) - float64(float64(k)*(s2-1))
		if A < 0 {
			continue
		}
		t := (s1 + math.Sqrt(A)) / float64(k)
		if t > x && (k == n || t <= sorted[k]) {
			tau = t
			break
		}
	}
	if math.IsNaN(tau) {
		// Rounding left no prefix consistent: solve sum max(tau-v, 0)^2 = 1
		// by bisection, as the function is increasing in tau.
		lo, hi := sorted[0], sorted[0]+1
		for range 200 {
			mid := float64((lo + hi) / 2)
			var f float64
			for _, x := range sorted {
				if mid > x {
					f += float64((mid - x) * (mid - x))
				}
			}
			if f > 1 {
				hi = mid
			} else {
				lo = mid
			}
		}
		tau = (lo + hi) / 2
	}
	mask := make([]T, n)
	S := 0
	for i, x := range d {
		if float64(x) < tau {
			mask[i] = 1
			S++
		}
	}
	if S == 0 { // unreachable: the smallest element is always active
		return nil, fmt.Errorf("the DARN projection found no active source for %v", d)
	}
	s := autodiff.New(mask, n)
	vs := autodiff.Mul(v, s)
	a1 := autodiff.SumAll(vs)
	a2 := autodiff.SumAll(autodiff.Square(vs))
	A := autodiff.Sub(autodiff.Square(a1), autodiff.MulScalar(autodiff.AddScalar(a2, -1), T(S)))
	r := autodiff.Sqrt(A)
	t := autodiff.MulScalar(autodiff.Add(a1, r), 1/T(S))
	return autodiff.Div(autodiff.Mul(s, autodiff.Sub(t, v)), r), nil
}

// toF64 converts v to float64.
func toF64[T kernel.Float](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
