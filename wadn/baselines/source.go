package baselines

import (
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/method"
)

// Source is the classifier trained on the sources merged into one domain,
// no adaptation. With limited labels it is the paper's Source+Tar: the
// labelled target batch's cross-entropy, weighted as if merged into the
// source pool, is added, and the method is titled "source+tar" there.
var Source = method.Define(method.About{Name: "source", Scenarios: everyScenario,
	Summary: "sources merged, no adaptation (limited: with the labelled target)"},
	func(data.Scenario) SourceSettings { return SourceSettings{} },
	func(s *SourceSettings) (method.Algorithm, error) { return &source{s: *s}, nil }).
	Titled(data.Limited, "source+tar")

// SourceSettings are the settings of Source.
type SourceSettings struct {
	// PoolSources pools the sources into one domain, as the MDAN and DARN
	// code merges them: each step draws one batch of Batch rows from the
	// pool, and an epoch has the pool's size over Batch steps. Without it
	// each step draws a block of Batch rows from every source, and an epoch
	// has the largest source's size over Batch steps: with three sources of
	// equal size, the same expected loss in a third of the steps.
	PoolSources bool `setting:"pool-sources" help:"draw each step's batch from the sources pooled into one domain (an epoch: the pool's size over the batch), as the MDAN and DARN code"`
}

type source struct {
	common
	nothing
	s SourceSettings
}

func (a *source) PoolsSources() bool { return a.s.PoolSources }

func (a *source) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	a.init(r)
	return nil, nil, nil
}

func (a *source) Step(r *method.Run, epoch int) error {
	bb := a.batch(r)
	logits := r.Model.Classifier.Forward(bb.z)
	bb.countTarget(r, logits)
	total, err := mergedClass(r, bb, logits, 1)
	if err != nil {
		return err
	}
	r.Sums.Loss += float64(total.Item())
	return r.Update(total, nil)
}
