package wadn

import (
	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/nn"
)

// perSourceCE returns the cross-entropy of each source block of logits and
// adds them to the epoch's per-source classification sums.
func perSourceCE(tr *trainer, bb *baseBatch, logits *autodiff.Tensor[float32]) ([]*autodiff.Tensor[float32], error) {
	out := make([]*autodiff.Tensor[float32], bb.T)
	for t := range bb.T {
		ce, err := autodiff.CrossEntropy(bb.block(logits, t), bb.ys[t], nil, autodiff.ReduceMean)
		if err != nil {
			return nil, err
		}
		out[t] = ce
		tr.st.Sums.Class[t] += float64(ce.Item())
	}
	return out, nil
}

// mergedCE returns the cross-entropy over the rows of every source block,
// the sources merged into one domain (equal blocks: the mean of the
// per-source losses).
func mergedCE(tr *trainer, bb *baseBatch, logits *autodiff.Tensor[float32]) (*autodiff.Tensor[float32], error) {
	ces, err := perSourceCE(tr, bb, logits)
	if err != nil {
		return nil, err
	}
	return autodiff.MulScalar(sumTerms(ces...), 1/float32(bb.T)), nil
}

// mergedClass returns the classification loss of the merged sources plus,
// with limited labels, the labelled target's term at scale times its merged
// weight (targetWeight): the supervised part of Source(+Tar) and DANN.
func mergedClass(tr *trainer, bb *baseBatch, logits *autodiff.Tensor[float32], scale float64) (*autodiff.Tensor[float32], error) {
	cls, err := mergedCE(tr, bb, logits)
	if err != nil {
		return nil, err
	}
	tl, err := bb.targetLoss(logits, targetWeight(tr, scale))
	if err != nil {
		return nil, err
	}
	return sumTerms(cls, tl), nil
}

// sourceAlgo is the Source baseline: the classifier trained on the sources
// merged into one domain, no adaptation. In the limited-label scenario it
// is the paper's Source+Tar: the labelled target batch's cross-entropy,
// weighted as if merged into the source pool, is added (whatever
// BaselineConfig.TargetWeight says).
type sourceAlgo struct{ baseCommon }

func (a *sourceAlgo) setup(tr *trainer) (params, buffers []nn.Param[float32], err error) {
	return nil, nil, a.init(tr)
}

func (a *sourceAlgo) step(tr *trainer, epoch int) error {
	bb := a.batch(tr)
	logits := tr.m.cls.Forward(bb.z)
	bb.countTarget(tr, logits)
	total, err := mergedClass(tr, bb, logits, 1)
	if err != nil {
		return err
	}
	tr.st.Sums.Loss += float64(total.Item())
	return tr.update(total, nil)
}

func (a *sourceAlgo) endEpoch(tr *trainer, epoch int, log *EpochLog) error { return nil }

// sourcePooler is an algorithm that may train on the sources pooled into
// one domain (BaselineConfig.PoolSources); train pools them before the
// trainer is built.
type sourcePooler interface {
	poolsSources(cfg *Config) bool
}

func (a *sourceAlgo) poolsSources(cfg *Config) bool { return cfg.Baseline.PoolSources }

// dannAlgo is DANN (Ganin et al. 2016) on the sources merged into one
// domain: one domain classifier, laid out as the data set's critics, tells
// source features (label 1) from target features (label 0) through a
// gradient-reversal layer; the loss is the classification loss plus Mu
// times the domain classifier's cross-entropy, as in the DARN code the
// paper's baseline numbers come from.
type dannAlgo struct {
	baseCommon
	net nn.Module[float32]
}

func (a *dannAlgo) setup(tr *trainer) (params, buffers []nn.Param[float32], err error) {
	if err := a.init(tr); err != nil {
		return nil, nil, err
	}
	a.net = newDomainNet(&tr.cfg, tr.m.featDim, 1, baselineRand(tr, 1))
	return nn.Prefix("dann.domain", a.net.Params()), nil, nil
}

func (a *dannAlgo) step(tr *trainer, epoch int) error {
	bb := a.batch(tr)
	logits := tr.m.cls.Forward(bb.z)
	bb.countTarget(tr, logits)
	cls, err := mergedClass(tr, bb, logits, a.b.TargetWeight)
	if err != nil {
		return err
	}
	zr := autodiff.GradReverse(bb.z, 1)
	dom, err := domainLoss(a.net, bb.sources(zr), bb.block(zr, bb.unl))
	if err != nil {
		return err
	}
	for t := range bb.T {
		tr.st.Sums.Implicit[t] += float64(dom.Item())
	}
	total := sumTerms(cls, autodiff.MulScalar(dom, float32(a.b.Mu)))
	tr.st.Sums.Loss += float64(total.Item())
	return tr.update(total, nil)
}

func (a *dannAlgo) endEpoch(tr *trainer, epoch int, log *EpochLog) error { return nil }

func (a *dannAlgo) poolsSources(cfg *Config) bool { return cfg.Baseline.PoolSources }
