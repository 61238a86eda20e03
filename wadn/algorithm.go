package wadn

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/convex"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/numerics"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
)

// algo is WADN's update and estimation.
type algo struct {
	s       Settings
	critics []nn.Module[float32]        // d_t, one per source
	centS   []*autodiff.Tensor[float32] // per-source centroids [K, width], leaves
	centT   *autodiff.Tensor[float32]   // target centroids
	zeroT   *autodiff.Tensor[float32]   // zeros: the target average of the Code form
	// With Hidden centroids: the classifier split before its output layer,
	// the centroids taken on what the first part gives.
	clsHidden, clsOut nn.Module[float32]
	srcDist           [][]float64                 // the sources' label distributions S_t
	zint              []*autodiff.Tensor[float32] // per-source interpolation leaves, reused

	// With Transductive: the run's splits plus the target's test split,
	// whose rows (labels unread) form the critics' target block, and the
	// rows of all of them.
	splits []*data.Split
	rows   [][]int
}

func newAlgo(s *Settings) (method.Algorithm, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &algo{s: *s}, nil
}

// CheckNetwork reports whether WADN can run on net with its settings: the
// hidden centroids need a classifier with a hidden layer.
func (a *algo) CheckNetwork(net nets.Network) error {
	if a.s.Centroids != Hidden {
		return nil
	}
	_, _, _, err := splitClassifier(net.NewClassifier(2, nn.NewRand(0)))
	return err
}

// Setup creates the critics (from the model's generator, after the model),
// the moving centroids (checkpointed) and the reusable interpolation leaves
// of the gradient penalty.
func (a *algo) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	T, k, d := len(r.Task.Sources), r.Classes, r.Model.Extractor.Dim()
	if a.s.Alpha == Oracle && r.Scenario != data.Limited {
		r.Alpha = r.TrueAlpha()
	}
	for t := range T {
		c := r.Net.NewHead(1, r.Init)
		if a.s.CriticSigmoid {
			c = nets.Squash(c, nn.Sigmoid[float32]{})
		}
		a.critics = append(a.critics, c)
		params = append(params, nn.Prefix(fmt.Sprintf("critic%d", t), c.Params())...)
	}
	cd := d // the centroids' width
	if a.s.Centroids == Hidden {
		if a.clsHidden, a.clsOut, cd, err = splitClassifier(r.Model.Classifier); err != nil {
			return nil, nil, err
		}
	}
	for t := range T {
		a.centS = append(a.centS, autodiff.Zeros[float32](k, cd))
		a.zint = append(a.zint, autodiff.Zeros[float32](r.Train.Batch, d).SetRequiresGrad(true))
		buffers = append(buffers, nn.Param[float32]{Name: fmt.Sprintf("centroid.source%d", t), Tensor: a.centS[t]})
	}
	a.centT = autodiff.Zeros[float32](k, cd)
	a.zeroT = autodiff.Zeros[float32](k, cd)
	buffers = append(buffers, nn.Param[float32]{Name: "centroid.target", Tensor: a.centT})
	for _, s := range r.Task.Sources {
		a.srcDist = append(a.srcDist, method.Normalise(method.Histogram(s.Y, k)))
	}
	if r.Scenario == data.Limited && r.Train.Transductive {
		a.splits = append(slices.Clone(r.Splits), &r.Task.TargetTest.Split)
		a.rows = make([][]int, len(a.splits))
	}
	return params, buffers, nil
}

// splitClassifier returns the classifier cls as every layer but the last
// and that last layer, a Linear, with the width of what the one passes to
// the other; an error when the classifier has no hidden layer.
func splitClassifier(cls nn.Module[float32]) (hidden, out nn.Module[float32], width int, err error) {
	s, ok := cls.(*nn.Sequential[float32])
	if !ok || len(s.Layers) < 2 {
		return nil, nil, 0, errors.New("centroids hidden needs a classifier with a hidden layer (digits, or amazon with depth 1 or 2)")
	}
	last, ok := s.Layers[len(s.Layers)-1].(*nn.Linear[float32])
	if !ok {
		return nil, nil, 0, fmt.Errorf("the classifier's last layer is a %T, not a Linear", s.Layers[len(s.Layers)-1])
	}
	return &nn.Sequential[float32]{Layers: s.Layers[:len(s.Layers)-1]}, last, last.In, nil
}

// Step runs one WADN update: the lambda-weighted sum over sources of the
// alpha-weighted classification loss, the explicit (centroid) and implicit
// (critic) conditional terms and the critics' gradient penalty, then one
// optimiser step over every parameter.
func (a *algo) Step(r *method.Run, epoch int) error {
	cfg := &a.s
	T, B, K := len(r.Task.Sources), r.Train.Batch, r.Classes
	// The critics' target block: the target's training rows, or with
	// Transductive the unlabelled block drawn after them.
	crit := T
	splits, rows := r.Splits, r.Rows
	if a.splits != nil {
		copy(a.rows, r.Rows)
		a.rows[T+1] = r.DrawRows(a.splits[T+1].Len(), a.rows[T+1])
		splits, rows, crit = a.splits, a.rows, T+1
	}
	z := r.Model.Features(splits, rows) // [(T+1)B, d], or (T+2)B
	// zc: what the centroids are taken on.
	var zc, logits *autodiff.Tensor[float32]
	if a.clsHidden != nil {
		zc = a.clsHidden.Forward(z)
		logits = a.clsOut.Forward(zc)
	} else {
		zc, logits = z, r.Model.Classifier.Forward(z)
	}
	zr := autodiff.GradReverse(z, 1)

	// Target: labels for the centroids (pseudo-labels unless labelled).
	lg := logits.Data()
	yT := make([]int, B)
	pr := make([]float64, K)
	for i := range B {
		row := lg[(T*B+i)*K : (T*B+i+1)*K]
		switch {
		case r.Scenario == data.Limited:
			yT[i] = r.Splits[T].Y[r.Rows[T][i]]
		case cfg.PseudoThreshold > 0:
			prediction(pr, row, true)
			yT[i] = method.Argmax(row)
			if pr[yT[i]] < cfg.PseudoThreshold {
				yT[i] = -1
			}
		default:
			yT[i] = method.Argmax(row)
		}
		prediction(pr, lg[(crit*B+i)*K:(crit*B+i+1)*K], cfg.SoftEstimate)
		for y, v := range pr {
			r.Sums.Pred[y] += v
		}
	}
	zT := autodiff.Slice(zc, 0, T*B, (T+1)*B)
	oldT := a.centT
	if cfg.Explicit == Code {
		oldT = a.zeroT
	}
	cT := centroid(zT, yT, oldT, cfg.CentroidKeep)
	zrT := autodiff.Slice(zr, 0, crit*B, (crit+1)*B)
	tbar := autodiff.New(method.F32s(r.TBar), K)
	zData := z.Data()
	d := r.Model.Extractor.Dim()

	var total *autodiff.Tensor[float32]
	newCent := make([]*autodiff.Tensor[float32], T)
	for t := range T {
		lo := t * B
		ys := make([]int, B)
		w := make([]float32, B)
		for i, row := range r.Rows[t] {
			ys[i] = r.Splits[t].Y[row]
			w[i] = float32(r.Alpha[t][ys[i]])
			prediction(pr, lg[(lo+i)*K:(lo+i+1)*K], cfg.SoftEstimate)
			for y, v := range pr {
				r.Sums.Conf[t][y][ys[i]] += v
			}
		}
		cls, err := autodiff.CrossEntropy(autodiff.Slice(logits, 0, lo, lo+B), ys, w, autodiff.ReduceMean)
		if err != nil {
			return err
		}
		if cfg.ClassNorm {
			cls = weightNormalised(cls, w)
		}
		// Explicit: E_{y~T_bar} ||C_t^y - C^y||, or the squared forms.
		ct := centroid(autodiff.Slice(zc, 0, lo, lo+B), ys, a.centS[t], cfg.CentroidKeep)
		newCent[t] = ct
		var expl *autodiff.Tensor[float32]
		if cfg.Explicit != Paper {
			wy := make([]float32, K)
			for y := range K {
				wy[y] = float32(r.Alpha[t][y] * a.srcDist[t][y])
			}
			expl = centroidMSE(ct, cT, wy)
		} else {
			expl = autodiff.SumAll(autodiff.Mul(autodiff.RowNorm(autodiff.Sub(ct, cT), 1e-10), tbar))
		}
		// Implicit: E_S[alpha d_t] - E_T[d_t] through gradient reversal; the
		// critic maximises it, the extractor (reversed) minimises it.
		// The critic reads the source's, the target's and the interpolated
		// (detached) features of the gradient penalty, its first products
		// in one pass (nn.ForwardEach: the values and graph of three).
		zi := a.interpolate(r, t, zData[lo*d:(lo+B)*d], zData[crit*B*d:(crit+1)*B*d])
		outs := nn.ForwardEach(a.critics[t], autodiff.Slice(zr, 0, lo, lo+B), zrT, zi)
		ds, dt := outs[0], outs[1]
		impl := autodiff.Sub(autodiff.MeanAll(autodiff.Mul(ds, autodiff.New(w, B, 1))), autodiff.MeanAll(dt))
		gp, err := penalty(outs[2], zi)
		if err != nil {
			return err
		}
		adv := (1 - cfg.Eps) * cfg.c0At(epoch)
		term := autodiff.Add(cls, autodiff.MulScalar(expl, float32(cfg.Eps*cfg.explicitC0At(epoch))))
		term = autodiff.Sub(term, autodiff.MulScalar(impl, float32(adv)))
		term = autodiff.Add(term, autodiff.MulScalar(gp, float32(adv*cfg.GP)))
		term = autodiff.MulScalar(term, float32(r.Lambda[t]))
		if total == nil {
			total = term
		} else {
			total = autodiff.Add(total, term)
		}
		r.Sums.Class[t] += float64(cls.Item())
		r.Sums.Terms[explicitTerm][t] += float64(expl.Item())
		r.Sums.Terms[implicitTerm][t] += float64(impl.Item())
		r.Sums.Terms[penaltyTerm][t] += float64(gp.Item())
	}
	if r.Scenario == data.Limited && cfg.TargetWeight > 0 {
		ce, err := autodiff.CrossEntropy(autodiff.Slice(logits, 0, T*B, (T+1)*B), yT, nil, autodiff.ReduceMean)
		if err != nil {
			return err
		}
		total = autodiff.Add(total, autodiff.MulScalar(ce, float32(r.TargetWeight(cfg.TargetWeight))))
	}
	// Keep the updated centroids (detached) for the next step.
	for t, c := range newCent {
		copy(a.centS[t].Data(), c.Data())
	}
	copy(a.centT.Data(), cT.Data())
	r.Sums.Loss += float64(total.Item())
	return r.Update(total, nil)
}

// weightNormalised turns a weighted cross-entropy averaged over the batch,
// mean_i w_i l_i, into the weighted mean sum_i w_i l_i / sum_i w_i
// (ClassNorm); a batch whose weights are all zero is left as is.
func weightNormalised(cls *autodiff.Tensor[float32], w []float32) *autodiff.Tensor[float32] {
	var sw float64
	for _, v := range w {
		sw += float64(v)
	}
	if sw <= 0 {
		return cls
	}
	return autodiff.MulScalar(cls, float32(float64(len(w))/sw))
}

// centroidMSE returns sum_y w_y mean_j (cs[y][j] - ct[y][j])^2 for
// centroids cs and ct [K, d]: the squared explicit term, with w_y =
// alpha_t(y) S_t(y).
func centroidMSE(cs, ct *autodiff.Tensor[float32], w []float32) *autodiff.Tensor[float32] {
	d := cs.Shape()[1]
	wd := make([]float32, len(w))
	for y, v := range w {
		wd[y] = v / float32(d)
	}
	return autodiff.SumAll(autodiff.Mul(autodiff.Square(autodiff.Sub(cs, ct)), autodiff.New(wd, len(w), 1)))
}

// interpolate returns the interpolated features of critic t's gradient
// penalty, z_int = xi*zs + (1-xi)*zt with one xi ~ U[0,1] per batch, in its
// reusable leaf: constants to the features, so the penalty trains the
// critic only. Each value is float32(xi*zs) + float32((1-xi)*zt), both
// products rounded (kernel.Blend32).
func (a *algo) interpolate(r *method.Run, t int, zs, zt []float32) *autodiff.Tensor[float32] {
	zi := a.zint[t]
	xi := float32(r.Rand.Float64())
	buf := zi.Data()
	copy(buf, zs[:len(buf)])
	kernel.Blend32(buf, zt[:len(buf)], xi, 1-xi)
	return zi
}

// penalty returns E(||grad d_t(z_int)|| - 1)^2 from the critic's outputs
// out on the interpolated features zi (interpolate), the norm computed as
// sqrt(sum g^2 + 1e-10).
func penalty(out, zi *autodiff.Tensor[float32]) (*autodiff.Tensor[float32], error) {
	g, err := autodiff.Gradients([]*autodiff.Tensor[float32]{autodiff.SumAll(out)}, nil, []*autodiff.Tensor[float32]{zi}, true)
	if err != nil {
		return nil, err
	}
	return autodiff.MeanAll(autodiff.Square(autodiff.AddScalar(autodiff.RowNorm(g[0], 1e-10), -1))), nil
}

// centroid returns the moving-average class centroids after a batch:
// keep*old + (1-keep)*mean of the batch rows of class y, for every class y
// present in the batch, and old for the others; rows of class -1 are left
// out. The old centroids are constants; the batch means carry the gradient.
func centroid(z *autodiff.Tensor[float32], y []int, old *autodiff.Tensor[float32], keep float64) *autodiff.Tensor[float32] {
	K := old.Shape()[0]
	B := len(y)
	count := make([]int, K)
	for _, c := range y {
		if c >= 0 {
			count[c]++
		}
	}
	m := make([]float32, K*B)
	w := make([]float32, K)
	for c := range w {
		w[c] = 1
		if count[c] > 0 {
			w[c] = float32(keep)
		}
	}
	for i, c := range y {
		if c >= 0 {
			m[c*B+i] = float32((1 - keep) / float64(count[c]))
		}
	}
	batch := autodiff.MatMul(autodiff.New(m, K, B), z, false, false)
	return autodiff.Add(autodiff.Mul(old.Detach(), autodiff.New(w, K, 1)), batch)
}

// prediction sets dst to what one row of logits adds to the estimation
// counts: the arg-max class's indicator, or with soft the soft-max
// probabilities.
func prediction(dst []float64, logits []float32, soft bool) {
	clear(dst)
	if !soft {
		dst[method.Argmax(logits)] = 1
		return
	}
	m := logits[method.Argmax(logits)]
	var sum float64
	for y, v := range logits {
		dst[y] = numerics.Exp(float64(v - m))
		sum += dst[y]
	}
	for y := range dst {
		dst[y] /= sum
	}
}

// EndEpoch re-estimates alpha (without target labels) and lambda as the
// paper prescribes, and logs T_bar as the target distribution.
func (a *algo) EndEpoch(r *method.Run, epoch int, log *method.EpochLog) error {
	cfg := &a.s
	T := len(r.Task.Sources)
	s := &r.Sums
	if r.Scenario != data.Limited {
		switch cfg.Alpha {
		case HeldOut:
			a.heldOutCounts(r, s)
		case Eval:
			a.evalCounts(r, s)
		}
		r.TBar = method.Normalise(s.Pred)
		if epoch >= cfg.AlphaStart && cfg.Alpha != Oracle {
			for t := range T {
				if err := a.estimateAlpha(r, t, s.Conf[t]); err != nil {
					return err
				}
			}
		}
	}
	if epoch >= cfg.LambdaStart && T > 1 {
		W := make([]float64, T)
		c1 := float64(cfg.C1)
		if cfg.C1 == C1Max {
			c1 = 0
		}
		for t := range T {
			W[t] = float64(cfg.Eps * log.Terms[explicitTerm].V[t])
			if cfg.LambdaDistance == Both {
				W[t] += float64((1 - cfg.Eps) * log.Terms[implicitTerm].V[t])
			}
			if cfg.C1 == C1Max {
				c1 = math.Max(c1, log.Class[t])
			}
		}
		beta := r.Beta
		if cfg.LambdaNorm == Equal {
			beta = make([]float64, T)
			for t := range beta {
				beta[t] = 1 / float64(T)
			}
		}
		res, err := convex.SolveLambda(convex.LambdaProblem{A: log.Class, W: W, Beta: beta, C0: cfg.c0At(epoch), C1: c1}, nil)
		if err != nil && !errors.Is(err, convex.ErrNotOptimal) {
			return fmt.Errorf("lambda: %w", err)
		}
		for t := range T {
			r.Lambda[t] = float64(cfg.LambdaKeep*r.Lambda[t]) + float64((1-cfg.LambdaKeep)*res.X[t])
		}
	}
	log.TargetDist = slices.Clone(r.TBar)
	return nil
}

// estimateAlpha solves the alpha problem of source t from its confusion
// counts conf[predicted][true] and T_bar, and moves alpha_t towards it.
func (a *algo) estimateAlpha(r *method.Run, t int, conf [][]float64) error {
	K := r.Classes
	C := make([][]float64, K)
	var sum float64
	for y := range K {
		for k := range K {
			sum += conf[y][k]
		}
	}
	for y := range K {
		C[y] = make([]float64, K)
		for k := range K {
			C[y][k] = conf[y][k] / sum
		}
	}
	// A class the source is never predicted as has a zero row in C: its
	// share of the target predictions says nothing about alpha (and would
	// make the likelihood -log 0), so it drops out.
	p := slices.Clone(r.TBar)
	for y := range K {
		if slices.Max(C[y]) == 0 {
			p[y] = 0
		}
	}
	if slices.Max(p) == 0 {
		return nil
	}
	res, err := convex.SolveAlpha(convex.AlphaProblem{C: C, P: method.Normalise(p), C2: a.s.C2}, nil)
	if err != nil && !errors.Is(err, convex.ErrNotOptimal) {
		return fmt.Errorf("alpha of source %s: %w", r.Task.Sources[t].Domain, err)
	}
	for k := range K {
		r.Alpha[t][k] = float64(a.s.AlphaKeep*r.Alpha[t][k]) + float64((1-a.s.AlphaKeep)*res.X[k])
	}
	return nil
}

// evalCounts replaces the epoch's confusion counts and target prediction
// counts with those of one pass over all source and target training samples
// in evaluation mode (arg-max classes, or with SoftEstimate probabilities).
func (a *algo) evalCounts(r *method.Run, s *method.Sums) {
	for t := range s.Conf {
		for y := range r.Classes {
			clear(s.Conf[t][y])
		}
	}
	clear(s.Pred)
	T := len(s.Conf)
	pr := make([]float64, r.Classes)
	for i, sp := range r.Splits {
		r.Model.Logits(sp, r.Train.EvalBatch, func(row int, l []float32) {
			prediction(pr, l, a.s.SoftEstimate)
			for y, v := range pr {
				if i < T {
					s.Conf[i][y][sp.Y[row]] += v
				} else {
					s.Pred[y] += v
				}
			}
		})
	}
}

// heldOutCounts replaces the epoch's counts with black-box shift estimation
// on held-out data: for source t, C[y][k] = P(predicted y | class k) measured
// in evaluation mode on the source's held-out rows, times the share S_t(k) of
// class k in its training sample; the target distribution is the evaluation-
// mode prediction histogram of the target training sample (with
// SoftEstimate, probabilities in place of the predicted class). Sources
// without held-out rows keep their training-batch counts.
func (a *algo) heldOutCounts(r *method.Run, s *method.Sums) {
	K := r.Classes
	T := len(s.Conf)
	clear(s.Pred)
	pr := make([]float64, K)
	r.Model.Logits(r.Splits[T], r.Train.EvalBatch, func(_ int, l []float32) {
		prediction(pr, l, a.s.SoftEstimate)
		for y, v := range pr {
			s.Pred[y] += v
		}
	})
	for t := range T {
		if t >= len(r.Task.SourceTest) || r.Task.SourceTest[t].Len() == 0 {
			continue
		}
		held := &r.Task.SourceTest[t].Split
		m := make([][]float64, K)
		for y := range m {
			m[y] = make([]float64, K)
		}
		n := make([]float64, K)
		r.Model.Logits(held, r.Train.EvalBatch, func(row int, l []float32) {
			prediction(pr, l, a.s.SoftEstimate)
			for y, v := range pr {
				m[y][held.Y[row]] += v
			}
			n[held.Y[row]]++
		})
		share := method.Normalise(method.Histogram(r.Task.Sources[t].Y, K))
		for y := range K {
			for k := range K {
				s.Conf[t][y][k] = 0
				if n[k] > 0 {
					s.Conf[t][y][k] = m[y][k] / n[k] * share[k]
				}
			}
		}
	}
}
