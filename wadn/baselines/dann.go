package baselines

import (
	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/method"
)

// DANN (Ganin et al. 2016) on the sources merged into one domain: one
// domain classifier, laid out as the data set's critics, tells source
// features (label 1) from target features (label 0) through a
// gradient-reversal layer; the loss is the classification loss plus Mu times
// the domain classifier's cross-entropy, as in the DARN code the paper's
// baseline numbers come from.
var DANN = method.Define(method.About{Name: "dann", Scenarios: everyScenario,
	Summary: "sources merged, one domain classifier, gradient reversal",
	Terms:   []method.Term{{Name: "domain", Help: "the domain classifier's cross-entropy, sources against target", Was: "implicit"}}},
	func(data.Scenario) DANNSettings { return DANNSettings{Mu: 1e-2} },
	func(s *DANNSettings) (method.Algorithm, error) {
		return &dann{s: *s}, nil
	})

// DANNSettings are the settings of DANN.
type DANNSettings struct {
	Mu          float64 `setting:"mu" range:"[0,inf)" help:"weight of the adversarial term (the MDAN and DARN code's 1e-2)"`
	PoolSources bool    `setting:"pool-sources" help:"draw each step's batch from the sources pooled into one domain, as the MDAN and DARN code"`
	Labelled
}

// Labelled is the setting of the baselines that may add the labelled
// target's cross-entropy to their source objective.
type Labelled struct {
	// TargetWeight scales, with limited labels, the cross-entropy of the
	// labelled target batch added to the source objective; its weight is
	// then the labelled target's sample count over the sources' total, so
	// that 1 counts the target as merged into the source pool. The default
	// 0 keeps the method unsupervised adaptation with the labelled rows as
	// its target sample: the paper's limited-label figures for these
	// methods sit at about their unsupervised ones, which training on the
	// labels would not give.
	TargetWeight float64 `setting:"target-weight" range:"[0,inf)" scenarios:"limited" help:"scale of the labelled target's cross-entropy added to the source objective (1: weighted as merged into the source pool; default 0)"`
}

type dann struct {
	common
	nothing
	s   DANNSettings
	net nn.Module[float32]
}

func (a *dann) PoolsSources() bool { return a.s.PoolSources }

func (a *dann) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	a.init(r)
	a.net = r.Net.NewHead(1, ownRand(r, 1))
	return nn.Prefix("dann.domain", a.net.Params()), nil, nil
}

func (a *dann) Step(r *method.Run, epoch int) error {
	bb := a.batch(r)
	logits := r.Model.Classifier.Forward(bb.z)
	bb.countTarget(r, logits)
	cls, err := mergedClass(r, bb, logits, a.s.TargetWeight)
	if err != nil {
		return err
	}
	zr := autodiff.GradReverse(bb.z, 1)
	dom, err := domainLoss(a.net, bb.sources(zr), bb.block(zr, bb.unl))
	if err != nil {
		return err
	}
	r.Sums.Terms[0][0] += float64(dom.Item()) // domain
	total := sumTerms(cls, autodiff.MulScalar(dom, float32(a.s.Mu)))
	r.Sums.Loss += float64(total.Item())
	return r.Update(total, nil)
}
