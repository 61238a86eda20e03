package baselines

import (
	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/numerics"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/method"
)

// MDMN (Li et al. 2018, multi-domain matching) as the DARN code the paper's
// numbers come from runs it: one critic f with an output per domain (the
// sources, then the target) sits behind a gradient-reversal layer; output
// f_i compares domain i with the others, weighted pairwise by w_ij =
// sigmoid(E_j f_i - E_i f_i), and the outputs are weighted by a soft-max over
// domains of their weighted gaps (the target's output gets weight 1). The
// loss is the mean source cross-entropy plus Mu times the weighted critic
// term and GP times the WGAN-GP penalty of f, taken, as in WADN, on
// interpolations (one source drawn per batch, one xi) of detached features
// so that it trains the critic only. The sources' soft-max weights, averaged
// over the epoch, are kept as lambda.
var MDMN = method.Define(method.About{Name: "mdmn", Scenarios: udaAndLimited,
	Summary: "multi-domain critic with WGAN-GP and pairwise domain weights",
	Terms: []method.Term{
		{Name: "critic", Help: "the multi-domain critic's Wasserstein estimate", Was: "implicit"},
		{Name: "penalty", Help: "the critic's gradient penalty", Was: "penalty"}},
	EstimatesLambda: true},
	func(data.Scenario) MDMNSettings { return MDMNSettings{Mu: 1e-2, GP: 10} },
	func(s *MDMNSettings) (method.Algorithm, error) {
		return &mdmn{s: *s}, nil
	})

// MDMNSettings are the settings of MDMN.
type MDMNSettings struct {
	Mu float64 `setting:"mu" range:"[0,inf)" help:"weight of the adversarial term (the DARN code's 1e-2)"`
	GP float64 `setting:"gp" range:"[0,inf)" help:"gradient-penalty coefficient of the critic"`
	Labelled
}

type mdmn struct {
	common
	s    MDMNSettings
	net  nn.Module[float32]
	zint *autodiff.Tensor[float32]
	acc  weightAcc
}

func (a *mdmn) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	a.init(r)
	T := len(r.Task.Sources)
	a.net = r.Net.NewHead(T+1, ownRand(r, 20))
	a.zint = autodiff.Zeros[float32](r.Train.Batch, r.Model.Extractor.Dim()).SetRequiresGrad(true)
	a.acc = newWeightAcc(T)
	return nn.Prefix("mdmn.critic", a.net.Params()), []nn.Param[float32]{{Name: "mdmn.weights", Tensor: a.acc.buf}}, nil
}

func (a *mdmn) Step(r *method.Run, epoch int) error {
	bb := a.batch(r)
	T, B := bb.T, bb.B
	logits := r.Model.Classifier.Forward(bb.z)
	bb.countTarget(r, logits)
	ces, err := perSourceCE(r, bb, logits)
	if err != nil {
		return err
	}
	cls := autodiff.MulScalar(sumTerms(ces...), 1/float32(T))
	zr := autodiff.GradReverse(bb.z, 1)
	dz := autodiff.Slice(zr, 0, 0, (T+1)*B)
	if bb.unl != T {
		dz = autodiff.Concat(0, bb.sources(zr), bb.block(zr, bb.unl))
	}
	pred := a.net.Forward(dz)
	W, fw := mdmnWeights(pred.Data(), T+1, B)
	crit := autodiff.MeanAll(autodiff.Mul(autodiff.New(W, (T+1)*B, T+1), pred))

	// Gradient penalty on xi*z_s + (1-xi)*z_t for one random source s.
	src := r.Rand.IntN(T)
	xi := float32(r.Rand.Float64())
	zd, d := bb.z.Data(), r.Model.Extractor.Dim()
	zs, zt := zd[src*B*d:(src+1)*B*d], zd[bb.unl*B*d:(bb.unl+1)*B*d]
	buf := a.zint.Data()
	for i := range buf {
		buf[i] = float32(xi*zs[i]) + float32((1-xi)*zt[i])
	}
	g, err := autodiff.Gradients([]*autodiff.Tensor[float32]{autodiff.SumAll(a.net.Forward(a.zint))}, nil,
		[]*autodiff.Tensor[float32]{a.zint}, true)
	if err != nil {
		return err
	}
	gp := autodiff.MeanAll(autodiff.Square(autodiff.AddScalar(autodiff.RowNorm(g[0], 1e-10), -1)))
	adv := autodiff.Add(crit, autodiff.MulScalar(gp, float32(a.s.GP)))
	r.Sums.Terms[0][0] += float64(crit.Item()) // critic
	r.Sums.Terms[1][0] += float64(gp.Item())   // penalty
	a.acc.add(fw)
	tl, err := bb.targetLoss(logits, r.TargetWeight(a.s.TargetWeight))
	if err != nil {
		return err
	}
	total := sumTerms(cls, autodiff.MulScalar(adv, float32(a.s.Mu)), tl)
	r.Sums.Loss += float64(total.Item())
	return r.Update(total, nil)
}

func (a *mdmn) EndEpoch(r *method.Run, epoch int, log *method.EpochLog) error {
	a.acc.flush(r.Lambda)
	return nil
}

// mdmnWeights returns MDMN's weights of the critic outputs pred ([N*B, N]:
// N domains of B rows, the target last) and the soft-max weights of the
// N-1 sources. With M[j][i] the mean of output i over domain j:
//
//	w_ij = sigmoid(M[j][i] - M[i][i]) (j != i), w_ii = 1
//	f_i  = sum_{j != i} w_ij M[j][i] - M[i][i]
//	c    = softmax over the sources of f (the target excluded); c_target = 1
//
// and the weight of output i on a row of domain j is c_i*w_ij/B for j != i
// and -c_i/B for j = i, so that the mean of weights*pred is proportional to
// sum_i c_i (sum_{j != i} w_ij E_j f_i - E_i f_i).
func mdmnWeights(pred []float32, N, B int) (W []float32, src []float64) {
	M := make([][]float64, N)
	for j := range N {
		M[j] = make([]float64, N)
		for r := j * B; r < (j+1)*B; r++ {
			for i := range N {
				M[j][i] += float64(pred[r*N+i])
			}
		}
		for i := range N {
			M[j][i] /= float64(B)
		}
	}
	w := make([][]float64, N)
	f := make([]float64, N)
	for i := range N {
		w[i] = make([]float64, N)
		f[i] = -M[i][i]
		for j := range N {
			if j == i {
				w[i][j] = 1
				continue
			}
			w[i][j] = 1 / (1 + numerics.Exp(-(M[j][i] - M[i][i])))
			f[i] += float64(w[i][j] * M[j][i])
		}
	}
	c := softmaxWeights(f[:N-1], 1)
	c = append(c, 1)
	W = make([]float32, N*B*N)
	for j := range N {
		for r := j * B; r < (j+1)*B; r++ {
			for i := range N {
				v := -c[i]
				if j != i {
					v = c[i] * w[i][j]
				}
				W[r*N+i] = float32(v / float64(B))
			}
		}
	}
	return W, c[:N-1]
}
