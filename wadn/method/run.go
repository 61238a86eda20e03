package method

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/optim"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/nets"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// Train are the training settings every method reads.
type Train struct {
	Epochs int `setting:"epochs" range:"[1,100000]" help:"passes; an epoch is (largest source size / batch) steps"`
	Batch  int `setting:"batch" range:"[1,1048576]" help:"samples of every domain per step"`
	// Settings choose the optimiser (Adadelta by default) and its learning
	// rate and hyperparameters.
	optim.Settings
	EvalBatch int `setting:"eval-batch" range:"[1,1048576]" help:"samples per batch of evaluation"`
	// Average, when positive, is the weight of the past in an exponential
	// moving average of the extractor's and classifier's parameters, updated
	// after every step; the average is what is evaluated and what a finished
	// run keeps. Training itself does not read it. 0 evaluates the weights
	// as trained.
	Average float64 `setting:"average" range:"[0,1)" record:"omitzero" help:"evaluate a moving average of the model's weights, this weight on the past at every step (0: the weights as trained)"`
	// SourceAccuracy also evaluates, after every epoch, the weights
	// evaluated on the target (the average's, with Average) on every
	// source's held-out rows (data.Task.SourceTest), which training never
	// reads: a view of the training that reads no target label. Training
	// does not depend on it.
	SourceAccuracy bool `setting:"source-accuracy" record:"omitzero" help:"also log every epoch the accuracy on each source's held-out rows, which training never reads (source_accuracy)"`
	// Transductive, with limited target labels, lets every method read the
	// target's test rows, labels unread, as its unlabelled target sample
	// (WADN's critics and the baselines' adversarial, moment and entropy
	// terms); off, the labelled 10% is all any method sees of the target,
	// as in the paper.
	Transductive bool `setting:"transductive" scenarios:"limited" help:"limited labels: every method also reads the target's test rows, labels unread, as its unlabelled target sample"`
}

// DefaultTrain returns the default schedule of ds, evaluating 500 samples
// a batch.
func DefaultTrain(ds *dataset.Dataset) Train {
	s := ds.Schedule
	return Train{Epochs: s.Epochs, Batch: s.Batch, Settings: optim.Settings{LR: s.LR}, EvalBatch: 500, Average: s.Average}
}

// Validate reports the first setting outside the interval its range tag
// declares, or an optimiser's setting the chosen optimiser does not read.
func (t *Train) Validate() error {
	if err := settings.Check(settings.Fields(t)); err != nil {
		return err
	}
	return t.Settings.Validate()
}

// Options are the parts of a run that are not settings.
type Options struct {
	Seed   uint64 // initialisation, batches, dropout, interpolation
	Dir    string // checkpoint and epoch log; "" keeps nothing
	Resume bool   // continue from Dir's checkpoint
	// Progress, when set, is called after every step.
	Progress func(Progress)
	// StopAfter, when positive, stops the run after that many steps, as an
	// interruption would (for tests of resumption).
	StopAfter int
	// Identity describes the run in its checkpoint, which a resumption with
	// another identity refuses; "" describes it by target, scenario and seed.
	Identity string
}

// Progress describes a running job after one step.
type Progress struct {
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

// Run is one method's run on one task, as the method sees it. Its exported
// fields are the method's to read; Alpha, Lambda, TBar and Sums are the
// method's to update too (they are checkpointed).
type Run struct {
	Task     *data.Task
	Scenario data.Scenario
	Train    Train
	Net      nets.Network // builds the method's critics and extra heads
	Model    *Model
	Classes  int
	Steps    int       // steps per epoch
	Seed     uint64    // the run's seed
	Beta     []float64 // each source's share of the source samples
	// Rand is the step's generator, reseeded before every step from the
	// seed, the epoch and the step; every random draw of a step (dropout
	// included) comes from it.
	Rand *rand.Rand
	// Init is the generator that drew the model's initial weights, left
	// where the model ended: a method's own modules may continue it.
	Init *rand.Rand
	// Splits are the sources' splits, then the target's training split; Rows
	// the current mini-batch, Batch rows of each.
	Splits []*data.Split
	Rows   [][]int
	// CurrentStep is the step of the epoch being taken (0-based).
	CurrentStep int
	State

	algo   Algorithm
	terms  []Term
	params []nn.Param[float32]
	bufs   []nn.Param[float32]
	opt    optim.Optimizer[float32]
	oprm   []optim.Param[float32]
	pcg    *rand.PCG
	avg    *average // nil without Train.Average
}

// State is what a run carries from step to step besides the tensors.
type State struct {
	Alpha  [][]float64 `json:"alpha"`  // per source, the label ratios weighing its samples
	Lambda []float64   `json:"lambda"` // the sources' weights
	TBar   []float64   `json:"tbar"`   // the target label distribution used by the explicit term
	Acc    float64     `json:"acc"`    // the last epoch's accuracy; -1 before
	Sums   Sums        `json:"sums"`
}

// EpochLog is one line of a run's epoch log. Its first fields are Epoch,
// Loss and Class, which the line holds before the method's terms.
type EpochLog struct {
	Epoch int       `json:"epoch"`
	Loss  float64   `json:"loss"`  // mean total loss
	Class []float64 `json:"class"` // per source: the method's mean classification loss on its batches
	// Terms are the means of the method's own terms (Method.Terms), in their
	// declared order; the line holds each under its name, after class
	// (EpochLog.MarshalJSON).
	Terms    []Value `json:"-"`
	Accuracy float64 `json:"accuracy"` // target test accuracy, percent
	// AccuracyTrained is, with Train.Average, the target test accuracy of
	// the weights as trained (Accuracy is the average's); nil without.
	AccuracyTrained *float64 `json:"accuracy_trained,omitempty"`
	// SourceAccuracy is, with Train.SourceAccuracy, the accuracy on every
	// source's held-out rows, in percent, of the weights Accuracy measures;
	// nil without.
	SourceAccuracy []float64   `json:"source_accuracy,omitempty"`
	Lambda         []float64   `json:"lambda"`
	Alpha          [][]float64 `json:"alpha"`
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
	// Params are the trained parameters (Run.Params): the extractor's, the
	// classifier's and the method's own. With Train.Average the extractor's
	// and classifier's hold their averages, the weights evaluated.
	Params []nn.Param[float32]
}

// Config is what a run trains: a method with its settings, on a task in a
// scenario, with a data set's network and the training settings.
type Config struct {
	Method   Method
	Settings any // the method's settings, a pointer Method.Settings returned
	Task     *data.Task
	Scenario data.Scenario
	Net      nets.Network
	Train    Train
}

// Execute trains cfg's method and returns its result. It checkpoints every
// epoch and on interruption (ctx cancelled): then it returns an error
// wrapping trainer.ErrInterrupted, and a later call with opt.Resume
// continues to the result an uninterrupted run would give.
func Execute(ctx context.Context, cfg Config, opt Options) (*Result, error) {
	r, err := NewRun(cfg, opt.Seed)
	if err != nil {
		return nil, err
	}
	defer r.Settle()
	task, sc := r.Task, r.Scenario
	if opt.Identity == "" {
		opt.Identity = fmt.Sprintf("target %s, %s, seed %d", task.Target, sc, opt.Seed)
	}
	loop := &trainer.Loop[EpochLog]{
		Job: r, Epochs: r.Train.Epochs, Steps: r.Steps,
		Params: r.params, Buffers: r.bufs, Optimizer: r.opt, State: &r.State,
		Identity: opt.Identity,
		Rand:     r.pcg, Seed: opt.Seed,
		Dir: opt.Dir, Resume: opt.Resume, StopAfter: opt.StopAfter,
	}
	if opt.Progress != nil {
		loop.Progress = func(p trainer.Progress) { opt.Progress(r.progress(p)) }
	}
	history, err := loop.Run(ctx)
	if err != nil {
		return nil, err
	}
	for i := range history { // lines of a checkpoint written before the terms were named
		Canonical(r.terms, &history[i])
	}
	if r.avg != nil {
		r.avg.swap()
	}
	res := &Result{Alpha: r.Alpha, Lambda: r.Lambda, History: history, TrueAlpha: r.TrueAlpha(), Params: r.params}
	if n := len(history); n > 0 {
		res.Accuracy = history[n-1].Accuracy
	}
	return res, nil
}

// NewRun builds the run of cfg, its model drawn from seed, and sets the
// algorithm up (Algorithm.Setup), without training: Execute trains it.
// Tests inspect a run so.
func NewRun(cfg Config, seed uint64) (*Run, error) {
	tr, sc, net := cfg.Train, cfg.Scenario, cfg.Net
	if err := tr.Validate(); err != nil {
		return nil, err
	}
	algo, err := cfg.Method.New(cfg.Settings)
	if err != nil {
		return nil, err
	}
	task := cfg.Task
	if p, ok := algo.(SourcePooler); ok && p.PoolsSources() {
		if task, err = task.PooledSources(); err != nil {
			return nil, err
		}
	}
	T := len(task.Sources)
	if T == 0 {
		return nil, errors.New("the task has no sources")
	}
	k := task.NumClasses
	if task.TargetTest.Len() == 0 {
		return nil, errors.New("the task has no target test samples")
	}
	if sc == data.Limited && task.TargetTrain.Len() == 0 {
		return nil, errors.New("limited-label task without labelled target samples")
	}
	if tr.SourceAccuracy {
		if len(task.SourceTest) != T {
			return nil, fmt.Errorf("source-accuracy: %d held-out source sets for %d sources", len(task.SourceTest), T)
		}
		for t, s := range task.SourceTest {
			if s.Len() == 0 {
				return nil, fmt.Errorf("source-accuracy: source %s has no held-out rows", task.Sources[t].Domain)
			}
		}
	}
	r := &Run{Task: task, Scenario: sc, Train: tr, Net: net, Classes: k, Seed: seed, algo: algo, terms: cfg.Method.Terms}
	r.pcg = rand.NewPCG(seed, 0)
	r.Rand = rand.New(r.pcg)
	r.Init = nn.NewRand(seed)
	r.Model = &Model{Extractor: net.NewExtractor(r.Init)}
	r.Model.Classifier = net.NewClassifier(k, r.Init)
	r.Model.Extractor.SetRand(r.Rand)
	nets.SetDropoutRand(r.Model.Classifier, r.Rand)
	if r.opt, err = optim.New[float32](tr.Settings); err != nil {
		return nil, err
	}
	sizes := make([]int, T)
	total := 0
	for t, s := range task.Sources {
		sizes[t] = s.Len()
		total += s.Len()
		if s.Len() == 0 {
			return nil, fmt.Errorf("source %s is empty", s.Domain)
		}
	}
	r.Beta = make([]float64, T)
	for t := range sizes {
		r.Beta[t] = float64(sizes[t]) / float64(total)
	}
	r.Steps = data.EpochSteps(sizes, tr.Batch)
	r.Rows = make([][]int, T+1)
	for _, s := range task.Sources {
		r.Splits = append(r.Splits, &s.Split)
	}
	r.Splits = append(r.Splits, &task.TargetTrain.Split)

	r.State = State{Acc: -1, Sums: newSums(r.terms, T, k)}
	r.Lambda = make([]float64, T)
	for t := range r.Lambda {
		r.Lambda[t] = 1 / float64(T)
	}
	r.Alpha = make([][]float64, T)
	for t := range r.Alpha {
		r.Alpha[t] = ones(k)
	}
	r.TBar = make([]float64, k)
	for y := range r.TBar {
		r.TBar[y] = 1 / float64(k)
	}
	if sc == data.Limited {
		// alpha_t = T_hat(y) / S_hat_t(y) from the labels; T_bar the labelled
		// target's distribution.
		tgt := Normalise(Histogram(task.TargetTrain.Y, k))
		r.TBar = tgt
		for t, s := range task.Sources {
			src := Normalise(Histogram(s.Y, k))
			for y := range r.Alpha[t] {
				if src[y] > 0 {
					r.Alpha[t][y] = tgt[y] / src[y]
				} else {
					r.Alpha[t][y] = 0
				}
			}
		}
	}
	r.params = append(nn.Prefix("extractor", r.Model.Extractor.Params()), nn.Prefix("classifier", r.Model.Classifier.Params())...)
	model := r.params
	ps, bufs, err := algo.Setup(r)
	if err != nil {
		return nil, err
	}
	if e, ok := algo.(Epocher); ok {
		if r.Steps = e.EpochSteps(r); r.Steps <= 0 {
			return nil, fmt.Errorf("%s: %d steps an epoch", cfg.Method.Name, r.Steps)
		}
	}
	r.params = append(r.params, ps...)
	r.bufs = append(nn.Prefix("extractor", r.Model.Extractor.Buffers()), bufs...)
	if tr.Average > 0 {
		r.avg = newAverage(tr.Average, model)
		r.bufs = append(r.bufs, r.avg.shadow...)
	}
	return r, nil
}

// Algorithm returns the run's algorithm.
func (r *Run) Algorithm() Algorithm { return r.algo }

// Params returns every trainable parameter of the run: the extractor's
// ("extractor.*"), the classifier's ("classifier.*") and the method's.
func (r *Run) Params() []nn.Param[float32] { return r.params }

// Update takes one optimiser step on ps (every parameter when nil) with the
// gradients of loss, then releases loss's graph. A non-finite loss is an
// error and changes nothing.
func (r *Run) Update(loss *autodiff.Tensor[float32], ps []nn.Param[float32]) error {
	if ps == nil {
		ps = r.params
	}
	r.Settle()
	var err error
	r.oprm, err = trainer.Update(r.opt, loss, ps, r.oprm)
	return err
}

// DrawRows returns Batch row indices drawn uniformly from [0, n) with
// replacement from the step's generator, reusing dst.
func (r *Run) DrawRows(n int, dst []int) []int {
	dst = dst[:0]
	for range r.Train.Batch {
		dst = append(dst, r.Rand.IntN(n))
	}
	return dst
}

// TargetWeight returns the weight of the labelled target's cross-entropy
// for a target-weight setting: scale times the labelled target's sample
// count over the sources' total, the share it would have merged into the
// source pool.
func (r *Run) TargetWeight(scale float64) float64 {
	n := 0
	for _, s := range r.Task.Sources {
		n += s.Len()
	}
	return scale * float64(r.Task.TargetTrain.Len()) / float64(n)
}

// Step draws the step's mini-batch, Batch rows of every split with
// replacement from the step's generator, lets the algorithm update the
// model on it, then folds the model into its average (Train.Average). It is
// the trainer.Job's step. On more than one thread the average's update is
// left to the kernels' idle workers: the next Update, Settle or exchange of
// the weights with their average (EndEpoch's evaluation) finishes it.
func (r *Run) Step(epoch, step int) error {
	r.CurrentStep = step
	for i, s := range r.Splits {
		r.Rows[i] = r.DrawRows(s.Len(), r.Rows[i])
	}
	if err := r.algo.Step(r, epoch); err != nil {
		return err
	}
	if r.avg != nil {
		r.avg.post((epoch-1)*r.Steps + step)
	}
	return nil
}

// Run is a trainer.Settler: the loop settles it before saving the state.
var _ trainer.Settler = (*Run)(nil)

// Settle finishes the work the last Step left under way: the update of the
// model's average. It is the trainer.Settler's, called before the state is
// saved.
func (r *Run) Settle() {
	if r.avg != nil {
		r.avg.settle()
	}
}

// sourceAccuracy returns, with Train.SourceAccuracy, the model's accuracy
// on every source's held-out rows; nil without.
func (r *Run) sourceAccuracy() []float64 {
	if !r.Train.SourceAccuracy {
		return nil
	}
	acc := make([]float64, len(r.Task.SourceTest))
	for t := range acc {
		acc[t] = r.Model.Accuracy(&r.Task.SourceTest[t].Split, r.Train.EvalBatch)
	}
	return acc
}

// EndEpoch evaluates the target (with the average of the weights when
// Train.Average is set), and the sources' held-out rows with
// Train.SourceAccuracy, lets the algorithm, which sees the weights as
// trained, update its weights and returns the epoch's log line. It is the
// trainer.Job's end of an epoch.
func (r *Run) EndEpoch(epoch int, t trainer.Timing) (EpochLog, error) {
	T := len(r.Task.Sources)
	n := float64(r.Steps)
	s := &r.Sums
	log := EpochLog{Epoch: epoch, Loss: s.Loss / n}
	for t := range T {
		log.Class = append(log.Class, s.Class[t]/n)
	}
	for i, term := range r.terms {
		v := Value{Name: term.Name, PerSource: term.PerSource}
		for _, x := range s.Terms[i] {
			v.V = append(v.V, x/n)
		}
		log.Terms = append(log.Terms, v)
	}
	log.Accuracy = r.Model.Accuracy(&r.Task.TargetTest.Split, r.Train.EvalBatch)
	if r.avg != nil {
		trained := log.Accuracy
		log.AccuracyTrained = &trained
		r.avg.swap()
		log.Accuracy = r.Model.Accuracy(&r.Task.TargetTest.Split, r.Train.EvalBatch)
		log.SourceAccuracy = r.sourceAccuracy()
		r.avg.swap()
	} else {
		log.SourceAccuracy = r.sourceAccuracy()
	}
	r.Acc = log.Accuracy
	if err := r.algo.EndEpoch(r, epoch, &log); err != nil {
		return log, err
	}
	log.Lambda = slices.Clone(r.Lambda)
	truth := r.TrueAlpha()
	for t := range T {
		log.Alpha = append(log.Alpha, slices.Clone(r.Alpha[t]))
		log.AlphaError = append(log.AlphaError, meanAbsDiff(r.Alpha[t], truth[t]))
	}
	if log.TargetDist == nil {
		if slices.Max(s.Pred) > 0 {
			log.TargetDist = Normalise(s.Pred)
		} else {
			log.TargetDist = slices.Clone(r.TBar)
		}
	}
	log.Seconds = t.Seconds
	r.Sums = newSums(r.terms, T, r.Classes)
	return log, nil
}

// progress turns the loop's progress into the run's.
func (r *Run) progress(p trainer.Progress) Progress {
	n := float64(p.Step)
	var cls float64
	for t, v := range r.Sums.Class {
		cls += r.Lambda[t] * v / n
	}
	acc := r.Acc
	if acc < 0 {
		acc = math.NaN()
	}
	return Progress{Epoch: p.Epoch, Epochs: p.Epochs, Step: p.Step, Steps: p.Steps,
		Loss: r.Sums.Loss / n, Class: cls, Accuracy: acc, Lambda: r.Lambda, Remaining: p.Remaining}
}

// TrueAlpha returns T(y)/S_t(y) from the task's labels (the target training
// sample's labels, which the methods themselves never read in UDA).
func (r *Run) TrueAlpha() [][]float64 {
	tgt := Normalise(Histogram(r.Task.TargetTrain.Y, r.Classes))
	out := make([][]float64, len(r.Task.Sources))
	for t, s := range r.Task.Sources {
		src := Normalise(Histogram(s.Y, r.Classes))
		out[t] = make([]float64, r.Classes)
		for y := range out[t] {
			if src[y] > 0 {
				out[t][y] = tgt[y] / src[y]
			}
		}
	}
	return out
}
