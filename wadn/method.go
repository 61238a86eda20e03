package wadn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/convex"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/optim"
)

// RunOptions are the parts of a run that are not hyperparameters.
type RunOptions struct {
	Seed   uint64 // initialisation, batches, dropout, interpolation
	OutDir string // checkpoint and epoch log; "" keeps nothing
	Resume bool   // continue from OutDir's checkpoint
	// Progress, when set, is called after every step.
	Progress func(StepProgress)
	// StopAfter, when positive, stops the run after that many steps, as an
	// interruption would (for tests of resumption).
	StopAfter int
}

// StepProgress describes a running WADN job after one step.
type StepProgress struct {
	Epoch, Epochs int
	Step, Steps   int
	Loss          float64   // mean total loss of the epoch so far
	Class         float64   // mean lambda-weighted classification loss so far
	Accuracy      float64   // target test accuracy after the previous epoch (NaN before)
	Lambda        []float64 // current source weights
	// Remaining estimates the time left of the run; it is negative while
	// the first steps of the process run, which are not yet a fair pace.
	Remaining time.Duration
}

// EpochLog is one line of a run's epoch log.
type EpochLog struct {
	Epoch    int         `json:"epoch"`
	Loss     float64     `json:"loss"`     // mean total loss
	Class    []float64   `json:"class"`    // per source: mean alpha-weighted classification loss
	Explicit []float64   `json:"explicit"` // per source: mean centroid distance
	Implicit []float64   `json:"implicit"` // per source: mean critic Wasserstein estimate
	Penalty  []float64   `json:"penalty"`  // per source: mean gradient penalty
	Accuracy float64     `json:"accuracy"` // target test accuracy, percent
	Lambda   []float64   `json:"lambda"`
	Alpha    [][]float64 `json:"alpha"`
	// AlphaError is the mean absolute error of alpha against the true ratios
	// of the task's label distributions, per source.
	AlphaError []float64 `json:"alpha_error"`
	// TargetDist is the estimated target label distribution: WADN's T_bar
	// (with limited labels, the labelled target's histogram); for the
	// baselines, the class shares of their predictions on the epoch's
	// unlabelled target batches.
	TargetDist []float64 `json:"target_dist"`
	Seconds    float64   `json:"seconds"`
}

// Result is the outcome of a finished run.
type Result struct {
	Accuracy  float64     // target test accuracy after the last epoch, percent
	History   []EpochLog  // one entry per epoch
	Alpha     [][]float64 // final alpha per source
	TrueAlpha [][]float64 // the task's true label ratios T(y)/S_t(y)
	Lambda    []float64   // final lambda
}

// runState is what the checkpoint metadata holds besides the tensors.
type runState struct {
	Seed     uint64      `json:"seed"`
	Target   string      `json:"target"`
	Scenario string      `json:"scenario"`
	Epoch    int         `json:"epoch"` // epochs completed
	Step     int         `json:"step"`  // steps completed within the next epoch
	Alpha    [][]float64 `json:"alpha"`
	Lambda   []float64   `json:"lambda"`
	TBar     []float64   `json:"tbar"` // target label distribution used by the explicit term
	Acc      float64     `json:"acc"`  // last epoch's accuracy, NaN-free (-1 before)
	Sums     epochSums   `json:"sums"`
	History  []EpochLog  `json:"history"`
}

// epochSums accumulates the statistics of one epoch.
type epochSums struct {
	Loss     float64       `json:"loss"`
	Class    []float64     `json:"class"`
	Explicit []float64     `json:"explicit"`
	Implicit []float64     `json:"implicit"`
	Penalty  []float64     `json:"penalty"`
	Conf     [][][]float64 `json:"conf"` // per source [predicted][true] counts
	Pred     []float64     `json:"pred"` // target predictions per class
}

func newEpochSums(sources, classes int) epochSums {
	s := epochSums{
		Class: make([]float64, sources), Explicit: make([]float64, sources),
		Implicit: make([]float64, sources), Penalty: make([]float64, sources),
		Pred: make([]float64, classes),
	}
	for range sources {
		c := make([][]float64, classes)
		for y := range c {
			c[y] = make([]float64, classes)
		}
		s.Conf = append(s.Conf, c)
	}
	return s
}

// An algorithm is what sets one method apart: its update on a mini-batch
// and its estimates at the end of an epoch. The trainer supplies the rest:
// the model, the batches, the optimiser, evaluation, checkpoints and logs.
type algorithm interface {
	// setup runs once, after the model is built and before any resumption,
	// and returns the method's own parameters (trained and checkpointed
	// with the model's) and buffers (checkpointed only).
	setup(tr *trainer) (params, buffers []nn.Param[float32], err error)
	// step updates the model on the mini-batch tr.rows drawn for the
	// current step of epoch (1-based), adding to tr.st.Sums.
	step(tr *trainer, epoch int) error
	// endEpoch updates the method's weights (tr.st.Alpha, tr.st.Lambda)
	// after epoch; log holds the epoch's means and target accuracy.
	endEpoch(tr *trainer, epoch int, log *EpochLog) error
}

// trainer runs one method on one task.
type trainer struct {
	cfg   Config
	opt   RunOptions
	task  *data.Task
	algo  algorithm
	m     *model
	ps    []nn.Param[float32]
	bufs  []nn.Param[float32]
	adad  *optim.Adadelta[float32]
	oprm  []optim.Param[float32]
	pcg   *rand.PCG
	rng   *rand.Rand
	st    runState
	beta  []float64
	steps int
	k     int

	rows  [][]int       // the current mini-batch: rows of each split
	split []*data.Split // the sources, then the target's training split
}

// wadnAlgo is WADN's update and estimation.
type wadnAlgo struct {
	centS []*autodiff.Tensor[float32] // per-source centroids [K, width], leaves
	centT *autodiff.Tensor[float32]   // target centroids
	zeroT *autodiff.Tensor[float32]   // zeros: the target average of CodeCentroids
	// With Config.HiddenCentroids: the classifier split before its output
	// layer, the centroids taken on what the first part gives.
	clsHidden, clsOut nn.Module[float32]
	// srcDist are the sources' label distributions S_t (CodeCentroids).
	srcDist [][]float64
	zint    []*autodiff.Tensor[float32] // per-source interpolation leaves, reused

	// With Config.Transductive: the trainer's splits plus the target's test
	// split, whose rows (labels unread) form the critics' target block, and
	// the rows of all of them.
	splits []*data.Split
	rows   [][]int
}

// Train runs WADN on task with the given configuration and returns its
// result. It checkpoints every epoch and on interruption (ctx cancelled):
// then it returns an error wrapping ErrInterrupted, and a later call with
// opt.Resume continues to the result an uninterrupted run would give.
func Train(ctx context.Context, task *data.Task, cfg Config, opt RunOptions) (*Result, error) {
	return train(ctx, &wadnAlgo{}, task, cfg, opt)
}

// train runs algo on task.
func train(ctx context.Context, algo algorithm, task *data.Task, cfg Config, opt RunOptions) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if p, ok := algo.(sourcePooler); ok && p.poolsSources(&cfg) {
		var err error
		if task, err = task.PooledSources(); err != nil {
			return nil, err
		}
	}
	tr, err := newTrainer(algo, task, cfg, opt)
	if err != nil {
		return nil, err
	}
	return tr.run(ctx)
}

func newTrainer(algo algorithm, task *data.Task, cfg Config, opt RunOptions) (*trainer, error) {
	T := len(task.Sources)
	if T == 0 {
		return nil, errors.New("wadn: the task has no sources")
	}
	k := task.NumClasses
	if task.TargetTest.Len() == 0 {
		return nil, errors.New("wadn: the task has no target test samples")
	}
	if cfg.Scenario == data.Limited && task.TargetTrain.Len() == 0 {
		return nil, errors.New("wadn: limited-label task without labelled target samples")
	}
	tr := &trainer{cfg: cfg, opt: opt, task: task, k: k, algo: algo}
	tr.pcg = rand.NewPCG(opt.Seed, 0)
	tr.rng = rand.New(tr.pcg)
	var err error
	if tr.m, err = newModel(&cfg, T, k, nn.NewRand(opt.Seed)); err != nil {
		return nil, err
	}
	tr.setRand()
	tr.ps = tr.m.params()
	if tr.adad, err = optim.NewAdadelta[float32](optim.AdadeltaConfig{LR: cfg.LR}); err != nil {
		return nil, err
	}
	sizes := make([]int, T)
	total := 0
	for t, s := range task.Sources {
		sizes[t] = s.Len()
		total += s.Len()
		if s.Len() == 0 {
			return nil, fmt.Errorf("wadn: source %s is empty", s.Domain)
		}
	}
	tr.beta = make([]float64, T)
	for t := range sizes {
		tr.beta[t] = float64(sizes[t]) / float64(total)
	}
	tr.steps = data.EpochSteps(sizes, cfg.Batch)
	tr.rows = make([][]int, T+1)
	for _, s := range task.Sources {
		tr.split = append(tr.split, &s.Split)
	}
	tr.split = append(tr.split, &task.TargetTrain.Split)

	tr.st = runState{Seed: opt.Seed, Target: task.Target, Scenario: cfg.Scenario.String(), Acc: -1,
		Sums: newEpochSums(T, k)}
	tr.st.Lambda = make([]float64, T)
	for t := range tr.st.Lambda {
		tr.st.Lambda[t] = 1 / float64(T)
	}
	tr.st.Alpha = make([][]float64, T)
	for t := range tr.st.Alpha {
		tr.st.Alpha[t] = ones(k)
	}
	tr.st.TBar = make([]float64, k)
	for y := range tr.st.TBar {
		tr.st.TBar[y] = 1 / float64(k)
	}
	if cfg.Scenario == data.Limited {
		// alpha_t = T_hat(y) / S_hat_t(y) from the labels; T_bar the labelled
		// target's distribution.
		tgt := normalise(histogram(task.TargetTrain.Y, k))
		tr.st.TBar = tgt
		for t, s := range task.Sources {
			src := normalise(histogram(s.Y, k))
			for y := range tr.st.Alpha[t] {
				if src[y] > 0 {
					tr.st.Alpha[t][y] = tgt[y] / src[y]
				} else {
					tr.st.Alpha[t][y] = 0
				}
			}
		}
	}
	if _, ok := algo.(*wadnAlgo); ok && cfg.OracleAlpha {
		tr.st.Alpha = tr.trueAlpha()
	}
	ps, bufs, err := algo.setup(tr)
	if err != nil {
		return nil, err
	}
	tr.ps = append(tr.ps, ps...)
	tr.bufs = append(tr.m.buffers(), bufs...)
	return tr, nil
}

// setup creates WADN's moving centroids (checkpointed) and the reusable
// interpolation leaves of the gradient penalty.
func (a *wadnAlgo) setup(tr *trainer) (params, buffers []nn.Param[float32], err error) {
	T, k, d := len(tr.task.Sources), tr.k, tr.m.featDim
	cd := d // the centroids' width
	if tr.cfg.HiddenCentroids {
		if a.clsHidden, a.clsOut, cd, err = tr.m.splitClassifier(); err != nil {
			return nil, nil, fmt.Errorf("%w (HiddenCentroids)", err)
		}
	}
	for t := 0; t < T; t++ {
		a.centS = append(a.centS, autodiff.Zeros[float32](k, cd))
		a.zint = append(a.zint, autodiff.Zeros[float32](tr.cfg.Batch, d).SetRequiresGrad(true))
		buffers = append(buffers, nn.Param[float32]{Name: fmt.Sprintf("centroid.source%d", t), Tensor: a.centS[t]})
	}
	a.centT = autodiff.Zeros[float32](k, cd)
	a.zeroT = autodiff.Zeros[float32](k, cd)
	buffers = append(buffers, nn.Param[float32]{Name: "centroid.target", Tensor: a.centT})
	for _, s := range tr.task.Sources {
		a.srcDist = append(a.srcDist, normalise(histogram(s.Y, k)))
	}
	if tr.cfg.Scenario == data.Limited && tr.cfg.Transductive {
		a.splits = append(slices.Clone(tr.split), &tr.task.TargetTest.Split)
		a.rows = make([][]int, len(a.splits))
	}
	return nil, buffers, nil
}

// setRand points every random consumer of the model at the trainer's
// generator, which is reseeded at every step.
func (tr *trainer) setRand() {
	if tr.m.amazon != nil {
		tr.m.amazon.Rand = tr.rng
	}
	mods := []nn.Module[float32]{tr.m.dense, tr.m.cls}
	if tr.m.post != nil {
		mods = append(mods, tr.m.post)
	}
	for _, mod := range mods {
		if s, ok := mod.(*nn.Sequential[float32]); ok {
			for _, l := range s.Layers {
				if d, ok := l.(*nn.Dropout[float32]); ok {
					d.Rand = tr.rng
				}
			}
		}
	}
}

// seedStep makes the randomness of a step depend only on (seed, epoch,
// step), so that a resumed run draws exactly what an uninterrupted one does.
func (tr *trainer) seedStep(epoch, step int) {
	tr.pcg.Seed(tr.opt.Seed, uint64(epoch)<<32|uint64(step))
}

func (tr *trainer) snapshot() *nn.Snapshot[float32] {
	return &nn.Snapshot[float32]{Params: tr.ps, Buffers: tr.bufs, Optim: tr.adad}
}

func (tr *trainer) checkpointPath() string {
	if tr.opt.OutDir == "" {
		return ""
	}
	return filepath.Join(tr.opt.OutDir, CheckpointFile)
}

func (tr *trainer) save() error {
	p := tr.checkpointPath()
	if p == "" {
		return nil
	}
	b, err := json.Marshal(tr.st)
	if err != nil {
		return err
	}
	s := tr.snapshot()
	s.Meta = b
	return s.Save(p)
}

func (tr *trainer) load() error {
	p := tr.checkpointPath()
	if p == "" {
		return errors.New("wadn: resume needs an output directory")
	}
	s := tr.snapshot()
	if err := s.Load(p); err != nil {
		return err
	}
	var st runState
	if err := json.Unmarshal(s.Meta, &st); err != nil {
		return fmt.Errorf("%s: metadata: %w", p, err)
	}
	if st.Seed != tr.st.Seed || st.Target != tr.st.Target || st.Scenario != tr.st.Scenario {
		return fmt.Errorf("%s: checkpoint of target %s, %s, seed %d; this run is target %s, %s, seed %d",
			p, st.Target, st.Scenario, st.Seed, tr.st.Target, tr.st.Scenario, tr.st.Seed)
	}
	tr.st = st
	return nil
}

func (tr *trainer) run(ctx context.Context) (*Result, error) {
	if tr.opt.OutDir != "" {
		if err := os.MkdirAll(tr.opt.OutDir, 0o755); err != nil {
			return nil, err
		}
	}
	if tr.opt.Resume {
		if err := tr.load(); err != nil {
			return nil, err
		}
	}
	done := 0
	left := newETA((tr.cfg.Epochs-tr.st.Epoch)*tr.steps - tr.st.Step)
	for tr.st.Epoch < tr.cfg.Epochs {
		epoch := tr.st.Epoch + 1
		epochStart := time.Now()
		for tr.st.Step < tr.steps {
			if ctx.Err() != nil || (tr.opt.StopAfter > 0 && done >= tr.opt.StopAfter) {
				if err := tr.save(); err != nil {
					return nil, err
				}
				return nil, fmt.Errorf("wadn: epoch %d step %d: %w", epoch, tr.st.Step, ErrInterrupted)
			}
			if err := tr.step(epoch); err != nil {
				return nil, fmt.Errorf("wadn: epoch %d step %d: %w", epoch, tr.st.Step+1, err)
			}
			tr.st.Step++
			done++
			remaining := left.step()
			if tr.opt.Progress != nil {
				n := float64(tr.st.Step)
				var cls float64
				for t, v := range tr.st.Sums.Class {
					cls += tr.st.Lambda[t] * v / n
				}
				acc := tr.st.Acc
				if acc < 0 {
					acc = math.NaN()
				}
				tr.opt.Progress(StepProgress{
					Epoch: epoch, Epochs: tr.cfg.Epochs, Step: tr.st.Step, Steps: tr.steps,
					Loss: tr.st.Sums.Loss / n, Class: cls, Accuracy: acc, Lambda: tr.st.Lambda,
					Remaining: remaining,
				})
			}
		}
		log, err := tr.endEpoch(epoch)
		if err != nil {
			return nil, err
		}
		log.Seconds = time.Since(epochStart).Seconds()
		tr.st.History = append(tr.st.History, log)
		tr.st.Epoch, tr.st.Step = epoch, 0
		tr.st.Sums = newEpochSums(len(tr.task.Sources), tr.k)
		if err := tr.save(); err != nil {
			return nil, err
		}
		if err := writeLog(tr.opt.OutDir, tr.st.History); err != nil {
			return nil, err
		}
	}
	res := &Result{Alpha: tr.st.Alpha, Lambda: tr.st.Lambda, History: tr.st.History, TrueAlpha: tr.trueAlpha()}
	if n := len(tr.st.History); n > 0 {
		res.Accuracy = tr.st.History[n-1].Accuracy
	}
	return res, nil
}

// step draws the current step's mini-batch and lets the algorithm update
// the model on it.
func (tr *trainer) step(epoch int) error {
	tr.sample(epoch)
	return tr.algo.step(tr, epoch)
}

// sample reseeds the generator for the current step of epoch and draws the
// step's mini-batch: Batch rows of every split, with replacement.
func (tr *trainer) sample(epoch int) {
	tr.seedStep(epoch, tr.st.Step)
	for i, s := range tr.split {
		r := tr.rows[i][:0]
		for range tr.cfg.Batch {
			r = append(r, tr.rng.IntN(s.Len()))
		}
		tr.rows[i] = r
	}
}

// update takes one optimiser step on ps (every parameter when nil) with the
// gradients of loss, then releases loss's graph. A non-finite loss is an
// error and changes nothing.
func (tr *trainer) update(loss *autodiff.Tensor[float32], ps []nn.Param[float32]) error {
	v := float64(loss.Item())
	if math.IsNaN(v) || math.IsInf(v, 0) {
		loss.Release()
		return fmt.Errorf("the training loss is %v", v)
	}
	if ps == nil {
		ps = tr.ps
	}
	nn.ZeroGrad(ps)
	loss.Backward()
	loss.Release()
	tr.oprm = nn.OptimParams(ps, tr.oprm)
	return tr.adad.Step(tr.oprm)
}

// step runs one WADN update: the lambda-weighted sum over sources of the
// alpha-weighted classification loss, the explicit (centroid) and implicit
// (critic) conditional terms and the critics' gradient penalty, then one
// Adadelta step over every parameter.
func (a *wadnAlgo) step(tr *trainer, epoch int) error {
	cfg := &tr.cfg
	T, B, K := len(tr.task.Sources), cfg.Batch, tr.k
	// The critics' target block: the target's training rows, or with
	// Transductive the unlabelled block drawn after them.
	crit := T
	splits, rows := tr.split, tr.rows
	if a.splits != nil {
		copy(a.rows, tr.rows)
		a.rows[T+1] = drawRows(tr.rng, a.splits[T+1].Len(), B, a.rows[T+1])
		splits, rows, crit = a.splits, a.rows, T+1
	}
	z := tr.m.features(splits, rows) // [(T+1)B, d], or (T+2)B
	// zc: what the centroids are taken on.
	var zc, logits *autodiff.Tensor[float32]
	if a.clsHidden != nil {
		zc = a.clsHidden.Forward(z)
		logits = a.clsOut.Forward(zc)
	} else {
		zc, logits = z, tr.m.cls.Forward(z)
	}
	zr := autodiff.GradReverse(z, 1)

	// Target: labels for the centroids (pseudo-labels unless labelled).
	lg := logits.Data()
	yT := make([]int, B)
	pr := make([]float64, K)
	for i := range B {
		row := lg[(T*B+i)*K : (T*B+i+1)*K]
		switch {
		case cfg.Scenario == data.Limited:
			yT[i] = tr.split[T].Y[tr.rows[T][i]]
		case cfg.PseudoThreshold > 0:
			prediction(pr, row, true)
			yT[i] = argmax(row)
			if pr[yT[i]] < cfg.PseudoThreshold {
				yT[i] = -1
			}
		default:
			yT[i] = argmax(row)
		}
		prediction(pr, lg[(crit*B+i)*K:(crit*B+i+1)*K], cfg.SoftEstimate)
		for y, v := range pr {
			tr.st.Sums.Pred[y] += v
		}
	}
	zT := autodiff.Slice(zc, 0, T*B, (T+1)*B)
	oldT := a.centT
	if cfg.CodeCentroids {
		oldT = a.zeroT
	}
	cT := centroid(zT, yT, oldT, cfg.CentroidKeep)
	zrT := autodiff.Slice(zr, 0, crit*B, (crit+1)*B)
	tbar := autodiff.New(f32s(tr.st.TBar), K)
	zData := z.Data()
	d := tr.m.featDim

	var total *autodiff.Tensor[float32]
	newCent := make([]*autodiff.Tensor[float32], T)
	for t := range T {
		lo := t * B
		ys := make([]int, B)
		w := make([]float32, B)
		for i, r := range tr.rows[t] {
			ys[i] = tr.split[t].Y[r]
			w[i] = float32(tr.st.Alpha[t][ys[i]])
			prediction(pr, lg[(lo+i)*K:(lo+i+1)*K], cfg.SoftEstimate)
			for y, v := range pr {
				tr.st.Sums.Conf[t][y][ys[i]] += v
			}
		}
		cls, err := autodiff.CrossEntropy(autodiff.Slice(logits, 0, lo, lo+B), ys, w, autodiff.ReduceMean)
		if err != nil {
			return err
		}
		if cfg.ClassNorm {
			cls = weightNormalised(cls, w)
		}
		// Explicit: E_{y~T_bar} ||C_t^y - C^y||, or the code's form.
		ct := centroid(autodiff.Slice(zc, 0, lo, lo+B), ys, a.centS[t], cfg.CentroidKeep)
		newCent[t] = ct
		var expl *autodiff.Tensor[float32]
		if cfg.CodeCentroids || cfg.CentroidMSE {
			wy := make([]float32, K)
			for y := range K {
				wy[y] = float32(tr.st.Alpha[t][y] * a.srcDist[t][y])
			}
			expl = centroidMSE(ct, cT, wy)
		} else {
			expl = autodiff.SumAll(autodiff.Mul(autodiff.RowNorm(autodiff.Sub(ct, cT), 1e-10), tbar))
		}
		// Implicit: E_S[alpha d_t] - E_T[d_t] through gradient reversal; the
		// critic maximises it, the extractor (reversed) minimises it.
		critic := tr.m.critics[t]
		ds := critic.Forward(autodiff.Slice(zr, 0, lo, lo+B))
		dt := critic.Forward(zrT)
		impl := autodiff.Sub(autodiff.MeanAll(autodiff.Mul(ds, autodiff.New(w, B, 1))), autodiff.MeanAll(dt))
		// Gradient penalty on interpolated (detached) features.
		gp, err := a.penalty(tr, t, zData[lo*d:(lo+B)*d], zData[crit*B*d:(crit+1)*B*d])
		if err != nil {
			return err
		}
		c0 := cfg.c0At(epoch)
		adv := (1 - cfg.Eps) * c0
		term := autodiff.Add(cls, autodiff.MulScalar(expl, float32(cfg.Eps*cfg.explicitC0At(epoch))))
		term = autodiff.Sub(term, autodiff.MulScalar(impl, float32(adv)))
		term = autodiff.Add(term, autodiff.MulScalar(gp, float32(adv*cfg.GP)))
		term = autodiff.MulScalar(term, float32(tr.st.Lambda[t]))
		if total == nil {
			total = term
		} else {
			total = autodiff.Add(total, term)
		}
		tr.st.Sums.Class[t] += float64(cls.Item())
		tr.st.Sums.Explicit[t] += float64(expl.Item())
		tr.st.Sums.Implicit[t] += float64(impl.Item())
		tr.st.Sums.Penalty[t] += float64(gp.Item())
	}
	if cfg.Scenario == data.Limited && cfg.TargetWeight > 0 {
		ce, err := autodiff.CrossEntropy(autodiff.Slice(logits, 0, T*B, (T+1)*B), yT, nil, autodiff.ReduceMean)
		if err != nil {
			return err
		}
		total = autodiff.Add(total, autodiff.MulScalar(ce, float32(targetWeight(tr, cfg.TargetWeight))))
	}
	// Keep the updated centroids (detached) for the next step.
	for t, c := range newCent {
		copy(a.centS[t].Data(), c.Data())
	}
	copy(a.centT.Data(), cT.Data())
	tr.st.Sums.Loss += float64(total.Item())
	return tr.update(total, nil)
}

// weightNormalised turns a weighted cross-entropy averaged over the batch,
// mean_i w_i l_i, into the weighted mean sum_i w_i l_i / sum_i w_i
// (Config.ClassNorm); a batch whose weights are all zero is left as is.
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
// centroids cs and ct [K, d]: the explicit term of the authors' code
// (Config.CodeCentroids), with w_y = alpha_t(y) S_t(y).
func centroidMSE(cs, ct *autodiff.Tensor[float32], w []float32) *autodiff.Tensor[float32] {
	d := cs.Shape()[1]
	wd := make([]float32, len(w))
	for y, v := range w {
		wd[y] = v / float32(d)
	}
	return autodiff.SumAll(autodiff.Mul(autodiff.Square(autodiff.Sub(cs, ct)), autodiff.New(wd, len(w), 1)))
}

// penalty returns E(||grad d_t(z_int)|| - 1)^2 for z_int = xi*zs + (1-xi)*zt,
// one xi ~ U[0,1] per batch, the norm computed as sqrt(sum g^2 + 1e-10).
// The features are taken as constants: the penalty trains the critic only.
func (a *wadnAlgo) penalty(tr *trainer, t int, zs, zt []float32) (*autodiff.Tensor[float32], error) {
	zi := a.zint[t]
	xi := float32(tr.rng.Float64())
	buf := zi.Data()
	for i := range buf {
		buf[i] = xi*zs[i] + (1-xi)*zt[i]
	}
	out := autodiff.SumAll(tr.m.critics[t].Forward(zi))
	g, err := autodiff.Gradients([]*autodiff.Tensor[float32]{out}, nil, []*autodiff.Tensor[float32]{zi}, true)
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
	a := make([]float32, K)
	for c := range a {
		a[c] = 1
		if count[c] > 0 {
			a[c] = float32(keep)
		}
	}
	for i, c := range y {
		if c >= 0 {
			m[c*B+i] = float32((1 - keep) / float64(count[c]))
		}
	}
	batch := autodiff.MatMul(autodiff.New(m, K, B), z, false, false)
	return autodiff.Add(autodiff.Mul(old.Detach(), autodiff.New(a, K, 1)), batch)
}

// endEpoch evaluates the target, lets the algorithm update its weights and
// returns the epoch's log line.
func (tr *trainer) endEpoch(epoch int) (EpochLog, error) {
	T := len(tr.task.Sources)
	n := float64(tr.steps)
	s := &tr.st.Sums
	log := EpochLog{Epoch: epoch, Loss: s.Loss / n}
	for t := range T {
		log.Class = append(log.Class, s.Class[t]/n)
		log.Explicit = append(log.Explicit, s.Explicit[t]/n)
		log.Implicit = append(log.Implicit, s.Implicit[t]/n)
		log.Penalty = append(log.Penalty, s.Penalty[t]/n)
	}
	log.Accuracy = tr.m.accuracy(&tr.task.TargetTest.Split, tr.cfg.EvalBatch)
	tr.st.Acc = log.Accuracy
	if err := tr.algo.endEpoch(tr, epoch, &log); err != nil {
		return log, err
	}
	log.Lambda = append([]float64(nil), tr.st.Lambda...)
	truth := tr.trueAlpha()
	for t := range T {
		log.Alpha = append(log.Alpha, append([]float64(nil), tr.st.Alpha[t]...))
		log.AlphaError = append(log.AlphaError, meanAbsDiff(tr.st.Alpha[t], truth[t]))
	}
	log.TargetDist = append([]float64(nil), tr.st.TBar...)
	if _, ok := tr.algo.(*wadnAlgo); !ok && slices.Max(s.Pred) > 0 {
		log.TargetDist = normalise(s.Pred)
	}
	return log, nil
}

// prediction sets dst to what one row of logits adds to the estimation
// counts: the arg-max class's indicator, or with soft the soft-max
// probabilities.
func prediction(dst []float64, logits []float32, soft bool) {
	clear(dst)
	if !soft {
		dst[argmax(logits)] = 1
		return
	}
	m := logits[argmax(logits)]
	var sum float64
	for y, v := range logits {
		dst[y] = math.Exp(float64(v - m))
		sum += dst[y]
	}
	for y := range dst {
		dst[y] /= sum
	}
}

// endEpoch re-estimates alpha (unsupervised scenarios) and lambda as the
// paper prescribes.
func (a *wadnAlgo) endEpoch(tr *trainer, epoch int, log *EpochLog) error {
	cfg := &tr.cfg
	T, K := len(tr.task.Sources), tr.k
	s := &tr.st.Sums
	if cfg.Scenario != data.Limited {
		switch {
		case cfg.HeldOut:
			tr.heldOutCounts(s)
		case cfg.EvalEstimate:
			tr.evalCounts(s)
		}
		tr.st.TBar = normalise(s.Pred)
		if epoch >= cfg.AlphaStart && !cfg.OracleAlpha {
			for t := range T {
				C := make([][]float64, K)
				var sum float64
				for y := range K {
					for k := range K {
						sum += s.Conf[t][y][k]
					}
				}
				for y := range K {
					C[y] = make([]float64, K)
					for k := range K {
						C[y][k] = s.Conf[t][y][k] / sum
					}
				}
				// A class the source is never predicted as has a zero row in C:
				// its share of the target predictions says nothing about
				// alpha (and would make the likelihood -log 0), so it drops out.
				p := slices.Clone(tr.st.TBar)
				for y := range K {
					if slices.Max(C[y]) == 0 {
						p[y] = 0
					}
				}
				if slices.Max(p) == 0 {
					continue
				}
				res, err := convex.SolveAlpha(convex.AlphaProblem{C: C, P: normalise(p), C2: cfg.C2}, nil)
				if err != nil && !errors.Is(err, convex.ErrNotOptimal) {
					return fmt.Errorf("alpha of source %s: %w", tr.task.Sources[t].Domain, err)
				}
				for k := range K {
					tr.st.Alpha[t][k] = cfg.AlphaKeep*tr.st.Alpha[t][k] + (1-cfg.AlphaKeep)*res.X[k]
				}
			}
		}
	}
	if epoch >= cfg.LambdaStart && T > 1 {
		W := make([]float64, T)
		c1 := cfg.C1
		for t := range T {
			W[t] = cfg.Eps*log.Explicit[t] + (1-cfg.Eps)*log.Implicit[t]
			if cfg.C1 == 0 {
				c1 = math.Max(c1, log.Class[t])
			}
		}
		res, err := convex.SolveLambda(convex.LambdaProblem{A: log.Class, W: W, Beta: tr.beta, C0: cfg.c0At(epoch), C1: c1}, nil)
		if err != nil && !errors.Is(err, convex.ErrNotOptimal) {
			return fmt.Errorf("lambda: %w", err)
		}
		for t := range T {
			tr.st.Lambda[t] = cfg.LambdaKeep*tr.st.Lambda[t] + (1-cfg.LambdaKeep)*res.X[t]
		}
	}
	return nil
}

// evalCounts replaces the epoch's confusion counts and target prediction
// counts with those of one pass over all source and target training samples
// in evaluation mode (arg-max classes, or with SoftEstimate probabilities).
func (tr *trainer) evalCounts(s *epochSums) {
	for t := range s.Conf {
		for y := range tr.k {
			clear(s.Conf[t][y])
		}
	}
	clear(s.Pred)
	T := len(s.Conf)
	pr := make([]float64, tr.k)
	for i, sp := range tr.split {
		tr.m.logits(sp, tr.cfg.EvalBatch, func(r int, l []float32) {
			prediction(pr, l, tr.cfg.SoftEstimate)
			for y, v := range pr {
				if i < T {
					s.Conf[i][y][sp.Y[r]] += v
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
func (tr *trainer) heldOutCounts(s *epochSums) {
	K := tr.k
	T := len(s.Conf)
	clear(s.Pred)
	pr := make([]float64, K)
	tr.m.logits(tr.split[T], tr.cfg.EvalBatch, func(_ int, l []float32) {
		prediction(pr, l, tr.cfg.SoftEstimate)
		for y, v := range pr {
			s.Pred[y] += v
		}
	})
	for t := range T {
		if t >= len(tr.task.SourceTest) || tr.task.SourceTest[t].Len() == 0 {
			continue
		}
		held := &tr.task.SourceTest[t].Split
		m := make([][]float64, K)
		for y := range m {
			m[y] = make([]float64, K)
		}
		n := make([]float64, K)
		tr.m.logits(held, tr.cfg.EvalBatch, func(r int, l []float32) {
			prediction(pr, l, tr.cfg.SoftEstimate)
			for y, v := range pr {
				m[y][held.Y[r]] += v
			}
			n[held.Y[r]]++
		})
		share := normalise(histogram(tr.task.Sources[t].Y, K))
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

// trueAlpha returns T(y)/S_t(y) from the task's labels (the target training
// sample's labels, which the method itself never reads in UDA).
func (tr *trainer) trueAlpha() [][]float64 {
	tgt := normalise(histogram(tr.task.TargetTrain.Y, tr.k))
	out := make([][]float64, len(tr.task.Sources))
	for t, s := range tr.task.Sources {
		src := normalise(histogram(s.Y, tr.k))
		out[t] = make([]float64, tr.k)
		for y := range out[t] {
			if src[y] > 0 {
				out[t][y] = tgt[y] / src[y]
			}
		}
	}
	return out
}

func histogram(y []int, k int) []float64 {
	h := make([]float64, k)
	for _, c := range y {
		h[c]++
	}
	return h
}

func normalise(v []float64) []float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	out := make([]float64, len(v))
	for i, x := range v {
		if s > 0 {
			out[i] = x / s
		} else {
			out[i] = 1 / float64(len(v))
		}
	}
	return out
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

func f32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func meanAbsDiff(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s / float64(len(a))
}
