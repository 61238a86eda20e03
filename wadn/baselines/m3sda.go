package baselines

import (
	"slices"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/method"
)

// M3SDA (Peng et al. 2019, moment matching) as the DARN code the paper's
// numbers come from runs it: two classifiers h1 (the model's, used for
// evaluation) and h2 (same layout), and three updates per batch, each on a
// fresh forward pass:
//
//  1. extractor and both classifiers: the sum over sources of both
//     classifiers' cross-entropies plus Mu times the moment distance
//     (m3sdaMoments) between every source and the target and between every
//     pair of sources;
//  2. classifiers only, features fixed: the same cross-entropies minus the
//     discrepancy mean |softmax h1 - softmax h2| on the target;
//  3. extractor only: the discrepancy on the target.
//
// Each update is an optimiser step on its own parameters (state per
// parameter name, as three optimisers would keep it).
var M3SDA = method.Define(method.About{Name: "m3sda", Scenarios: udaAndLimited,
	Summary: "moment matching up to order 4, two classifiers, three-step update",
	Terms: []method.Term{
		{Name: "moment", Help: "the moment distance of the sources to the target", Was: "explicit"},
		{Name: "discrepancy", Help: "the two classifiers' discrepancy on the target", Was: "implicit"}}},
	func(data.Scenario) M3SDASettings { return M3SDASettings{Mu: 5e-4, Order: 4} },
	func(s *M3SDASettings) (method.Algorithm, error) {
		return &m3sda{s: *s}, nil
	})

// M3SDASettings are the settings of M3SDA.
type M3SDASettings struct {
	Mu      float64 `setting:"m3sda-mu" range:"[0,inf)" help:"weight of the moment-matching term (the DARN code's models: 5e-4 for the MLP, 1e-7 for the Digits CNN, which the digits data set sets)"`
	Order   int     `setting:"m3sda-order" range:"[1,inf)" help:"highest matched moment"`
	Central bool    `setting:"m3sda-central" help:"match the moments of order 2 and up about each domain's mean, as the M3SDA code (default: raw moments, as the DARN code)"`
	Labelled
}

type m3sda struct {
	common
	nothing
	s        M3SDASettings
	h2       nn.Module[float32]
	ext, cls []nn.Param[float32] // extractor; both classifiers
}

func (a *m3sda) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	a.init(r)
	a.h2 = newClassifier(r, ownRand(r, 30))
	params = nn.Prefix("m3sda.classifier2", a.h2.Params())
	a.ext = paramsWithPrefix(r.Params(), "extractor")
	a.cls = append(paramsWithPrefix(r.Params(), "classifier"), params...)
	return params, nil, nil
}

// classLoss returns the sum over the sources (and, with limited labels, the
// weighted labelled target) of the cross-entropies of logits; the sources
// are summed, so the target's weight as merged into their pool is multiplied
// by their number.
func (a *m3sda) classLoss(r *method.Run, bb *batch, logits *autodiff.Tensor[float32], record bool) (*autodiff.Tensor[float32], error) {
	var terms []*autodiff.Tensor[float32]
	for t := range bb.T {
		ce, err := autodiff.CrossEntropy(bb.block(logits, t), bb.ys[t], nil, autodiff.ReduceMean)
		if err != nil {
			return nil, err
		}
		if record {
			r.Sums.Class[t] += float64(ce.Item())
		}
		terms = append(terms, ce)
	}
	tl, err := bb.targetLoss(logits, float64(bb.T)*r.TargetWeight(a.s.TargetWeight))
	if err != nil {
		return nil, err
	}
	return sumTerms(append(terms, tl)...), nil
}

// m3sdaDiscrepancy returns mean |softmax(l1) - softmax(l2)|.
func m3sdaDiscrepancy(l1, l2 *autodiff.Tensor[float32]) *autodiff.Tensor[float32] {
	return autodiff.MeanAll(autodiff.Abs(autodiff.Sub(autodiff.Softmax(l1), autodiff.Softmax(l2))))
}

func (a *m3sda) Step(r *method.Run, epoch int) error {
	h1 := r.Model.Classifier
	// 1: everything, on the classification and moment terms.
	bb := a.batch(r)
	l1, l2 := h1.Forward(bb.z), a.h2.Forward(bb.z)
	bb.countTarget(r, l1)
	c1, err := a.classLoss(r, bb, l1, true)
	if err != nil {
		return err
	}
	c2, err := a.classLoss(r, bb, l2, false)
	if err != nil {
		return err
	}
	blocks := make([]*autodiff.Tensor[float32], bb.T)
	for t := range blocks {
		blocks[t] = bb.block(bb.z, t)
	}
	mom := m3sdaMoments(blocks, bb.block(bb.z, bb.unl), a.s.Order, a.s.Central)
	r.Sums.Terms[0][0] += float64(mom.Item()) // moment
	total := sumTerms(c1, c2, autodiff.MulScalar(mom, float32(a.s.Mu)))
	r.Sums.Loss += float64(total.Item())
	if err := r.Update(total, nil); err != nil {
		return err
	}

	// 2: the classifiers, features fixed, apart on the target.
	bb = a.batch(r)
	z := bb.z.Detach()
	l1, l2 = h1.Forward(z), a.h2.Forward(z)
	if c1, err = a.classLoss(r, bb, l1, false); err != nil {
		return err
	}
	if c2, err = a.classLoss(r, bb, l2, false); err != nil {
		return err
	}
	disc := m3sdaDiscrepancy(bb.block(l1, bb.unl), bb.block(l2, bb.unl))
	r.Sums.Terms[1][0] += float64(disc.Item()) // discrepancy
	err = r.Update(autodiff.Sub(autodiff.Add(c1, c2), disc), a.cls)
	bb.z.Release()
	if err != nil {
		return err
	}

	// 3: the extractor, towards classifiers that agree on the target.
	zt := r.Model.Features(a.splits[bb.unl:bb.unl+1], a.rows[bb.unl:bb.unl+1])
	return r.Update(m3sdaDiscrepancy(h1.Forward(zt), a.h2.Forward(zt)), a.ext)
}

// m3sdaMoments returns M3SDA's moment distance between the source feature
// blocks src and the target block tgt, for the moments 1..order of each
// feature (element-wise powers, averaged over rows):
//
//	sum_k [ sum_t ||E_t z^k - E_T z^k|| + sum_{t<u} ||E_t z^k - E_u z^k|| ]
//
// with ||x|| = sqrt(sum x^2 + 1e-10), finite at zero. With central, the
// moments of order 2 and up are taken of z - E z, each block about its own
// mean.
func m3sdaMoments[T kernel.Float](src []*autodiff.Tensor[T], tgt *autodiff.Tensor[T], order int, central bool) *autodiff.Tensor[T] {
	dist := func(a, b *autodiff.Tensor[T]) *autodiff.Tensor[T] {
		return autodiff.RowNorm(autodiff.Sub(a, b), 1e-10)
	}
	blocks := append(append([]*autodiff.Tensor[T](nil), src...), tgt)
	var terms []*autodiff.Tensor[T]
	add := func(m []*autodiff.Tensor[T]) {
		n := len(m) - 1 // m[n] is the target
		for i := range n {
			terms = append(terms, dist(m[n], m[i]))
			for j := i + 1; j < n; j++ {
				terms = append(terms, dist(m[i], m[j]))
			}
		}
	}
	means := make([]*autodiff.Tensor[T], len(blocks))
	for i, b := range blocks {
		means[i] = autodiff.Mean(b, false, 0)
	}
	add(means)
	base := blocks
	if central {
		base = make([]*autodiff.Tensor[T], len(blocks))
		for i, b := range blocks {
			base[i] = autodiff.Sub(b, means[i]) // [B,d] - [d], broadcast over rows
		}
	}
	pow := slices.Clone(base)
	for k := 2; k <= order; k++ {
		m := make([]*autodiff.Tensor[T], len(pow))
		for i := range pow {
			pow[i] = autodiff.Mul(pow[i], base[i])
			m[i] = autodiff.Mean(pow[i], false, 0)
		}
		add(m)
	}
	return sumTerms(terms...)
}
