package baselines

import (
	"errors"
	"fmt"
	"math"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/convex"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/method"
)

// RLUS (Konstantinov and Lampert 2019, robust learning from untrusted
// sources) for the limited-label scenario: the classifier is trained on the
// weighted sum sum_i a_i L_i of the cross-entropies of the sources and of
// the labelled (trusted) target, with weights a on the simplex that minimise
// the bound
//
//	sum_i a_i d_i + C * sqrt(sum_i a_i^2 / m_i)
//
// where m_i is the sample size of domain i and d_i its estimated label
// discrepancy to the target (d = 0 for the target itself). The discrepancy
// of source t is estimated by a head q_t laid out as the classifier and
// trained on the detached features to maximise the gap of its soft errors
// E_T[1 - p_y] - E_t[1 - p_y] between the labelled target and the source; d_t
// is the epoch's mean gap, clipped at 0. The weights, uniform at first, are
// solved at the end of every epoch; the sources' share is kept as lambda
// (the target has the rest).
var RLUS = method.Define(method.About{Name: "rlus", Scenarios: []data.Scenario{data.Limited},
	Summary:         "limited labels: source weights from a robust discrepancy bound",
	Terms:           []method.Term{{Name: "gap", Help: "each source head's gap in true-class probability, source against labelled target", PerSource: true, Was: "implicit"}},
	EstimatesLambda: true},
	func(data.Scenario) RLUSSettings { return RLUSSettings{C: 1} },
	func(s *RLUSSettings) (method.Algorithm, error) {
		return &rlus{s: *s}, nil
	})

// RLUSSettings are the settings of RLUS.
type RLUSSettings struct {
	C float64 `setting:"rlus-c" range:"[0,inf)" help:"weight of the sample-size term of the bound (the bound's constant, 1)"`
}

type rlus struct {
	common
	s     RLUSSettings
	heads []nn.Module[float32]
	w     *autodiff.Tensor[float32] // weights of the sources, then the target
	gaps  *autodiff.Tensor[float32] // per-source gap sums, then the step count
}

func (a *rlus) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	a.init(r)
	T := len(r.Task.Sources)
	for t := range T {
		h := newClassifier(r, ownRand(r, uint64(50+t)))
		a.heads = append(a.heads, h)
		params = append(params, nn.Prefix(fmt.Sprintf("rlus.discrepancy%d", t), h.Params())...)
	}
	a.w = autodiff.Full[float32](1/float32(T+1), T+1)
	a.gaps = autodiff.Zeros[float32](T + 1)
	for t := range T {
		r.Lambda[t] = 1 / float64(T+1)
	}
	return params, []nn.Param[float32]{{Name: "rlus.weights", Tensor: a.w}, {Name: "rlus.gaps", Tensor: a.gaps}}, nil
}

func (a *rlus) Step(r *method.Run, epoch int) error {
	bb := a.batch(r)
	T := bb.T
	logits := r.Model.Classifier.Forward(bb.z)
	bb.countTarget(r, logits)
	ces, err := perSourceCE(r, bb, logits)
	if err != nil {
		return err
	}
	tce, err := bb.targetLoss(logits, 1)
	if err != nil {
		return err
	}
	w := a.w.Data()
	terms := make([]*autodiff.Tensor[float32], 0, T+1)
	for t, ce := range ces {
		terms = append(terms, autodiff.MulScalar(ce, w[t]))
	}
	if tce != nil {
		terms = append(terms, autodiff.MulScalar(tce, w[T]))
	}
	cls := sumTerms(terms...)

	// Discrepancy heads on fixed features: maximise E_t[p_y] - E_T[p_y].
	zd := bb.z.Detach()
	zl := bb.block(zd, T)
	gaps := make([]*autodiff.Tensor[float32], T)
	g := a.gaps.Data()
	for t, q := range a.heads {
		ps, err := autodiff.Pick(autodiff.Softmax(q.Forward(bb.block(zd, t))), bb.ys[t])
		if err != nil {
			return err
		}
		pl, err := autodiff.Pick(autodiff.Softmax(q.Forward(zl)), bb.ys[T])
		if err != nil {
			return err
		}
		gaps[t] = autodiff.Sub(autodiff.MeanAll(ps), autodiff.MeanAll(pl))
		g[t] += gaps[t].Item()
		r.Sums.Terms[0][t] += float64(gaps[t].Item()) // gap
	}
	g[T]++
	total := autodiff.Sub(cls, sumTerms(gaps...))
	r.Sums.Loss += float64(cls.Item())
	return r.Update(total, nil)
}

// EndEpoch solves the weights from the epoch's discrepancies.
func (a *rlus) EndEpoch(r *method.Run, epoch int, log *method.EpochLog) error {
	T := len(r.Task.Sources)
	g := a.gaps.Data()
	if g[T] == 0 {
		return nil
	}
	d := make([]float64, T+1)
	m := make([]float64, T+1)
	for t := range T {
		d[t] = math.Max(0, float64(g[t])/float64(g[T]))
		m[t] = float64(r.Task.Sources[t].Len())
	}
	m[T] = float64(r.Task.TargetTrain.Len())
	a0, err := rlusWeights(d, m, a.s.C)
	if err != nil {
		return err
	}
	w := a.w.Data()
	for i := range w {
		w[i] = float32(a0[i])
	}
	copy(r.Lambda, a0[:T])
	clear(g)
	return nil
}

// rlusWeights returns the a on the simplex that minimises
// sum_i a_i d_i + c*sqrt(sum_i a_i^2/m_i), by the lambda solver of package
// convex (its norm term is sqrt(sum a_i^2/beta_i) with beta_i = m_i/sum m).
func rlusWeights(d, m []float64, c float64) ([]float64, error) {
	var total float64
	for _, v := range m {
		total += v
	}
	beta := make([]float64, len(m))
	for i, v := range m {
		beta[i] = v / total
	}
	res, err := convex.SolveLambda(convex.LambdaProblem{A: d, W: make([]float64, len(d)), Beta: beta, C1: c / math.Sqrt(total)}, nil)
	if err != nil && !errors.Is(err, convex.ErrNotOptimal) {
		return nil, fmt.Errorf("rlus weights: %w", err)
	}
	return res.X, nil
}
