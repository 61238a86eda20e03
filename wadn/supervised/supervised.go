// Package supervised trains the Digits network of the WADN paper (its
// extractor and classifier) on one labelled domain: the plain supervised
// run behind "wadn train", on the generic loop of package trainer.
package supervised

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/optim"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// Settings are the settings of a supervised run.
type Settings struct {
	Epochs    int     `setting:"epochs" help:"passes over the training split"`
	Batch     int     `setting:"batch" help:"samples per step"`
	LR        float64 `setting:"lr" help:"Adadelta learning rate"`
	EvalBatch int     `setting:"eval-batch" help:"samples per batch of evaluation"`
}

// Defaults returns 3 epochs of batches of 128 at Adadelta's learning rate
// 1.0, evaluating 500 images a batch.
func Defaults() Settings { return Settings{Epochs: 3, Batch: 128, LR: 1, EvalBatch: 500} }

// Options are the parts of a run that are not settings.
type Options struct {
	Seed   uint64 // initialisation and shuffling
	Dir    string // checkpoint and epoch log; "" keeps nothing
	Resume bool   // continue from Dir's checkpoint
	// Progress, when set, is called after every step.
	Progress func(Progress)
	// StopAfter, when positive, stops the run after that many steps, as an
	// interruption would (for tests of resumption).
	StopAfter int
}

// Progress describes a running job.
type Progress struct {
	Epoch, Epochs int     // current epoch (1-based) and total
	Step, Steps   int     // step within the epoch (1-based) and steps per epoch
	Loss          float64 // mean training loss over the epoch so far
	SamplesPerSec float64
	Remaining     time.Duration // estimate for the whole run; negative during the first steps
}

// EpochResult is one line of the epoch log.
type EpochResult struct {
	Epoch         int     `json:"epoch"`
	Loss          float64 `json:"loss"`
	TestAccuracy  float64 `json:"test_accuracy"` // percent
	Seconds       float64 `json:"seconds"`
	SamplesPerSec float64 `json:"samples_per_sec"`
}

// Train trains the Digits extractor and classifier on dom's 3x32x32 train
// split with Adadelta and returns the per-epoch results. Each epoch visits
// the training split in an order drawn from (Seed, epoch), so that a resumed
// run repeats exactly what an uninterrupted one does.
func Train(ctx context.Context, dom data.Domain, s Settings, opt Options) ([]EpochResult, error) {
	if err := checkImages(dom.Train, "train"); err != nil {
		return nil, err
	}
	if err := checkImages(dom.Test, "test"); err != nil {
		return nil, err
	}
	if s.Epochs <= 0 || s.Batch <= 0 || s.EvalBatch <= 0 {
		return nil, fmt.Errorf("epochs (%d), batch (%d) and eval-batch (%d) must be positive", s.Epochs, s.Batch, s.EvalBatch)
	}
	rng := nn.NewRand(opt.Seed)
	net := nets.Digits{}
	j := &job{s: s, seed: opt.Seed, train: dom.Train, test: dom.Test,
		ext: nets.NewDigitsExtractor(rng), cls: net.NewClassifier(nets.DigitsClasses, rng)}
	var err error
	if j.opt, err = optim.NewAdadelta[float32](optim.AdadeltaConfig{LR: s.LR}); err != nil {
		return nil, err
	}
	j.params = append(nn.Prefix("extractor", j.ext.Params()), nn.Prefix("classifier", j.cls.Params())...)
	n := dom.Train.Len()
	loop := &trainer.Loop[EpochResult]{
		Job: j, Epochs: s.Epochs, Steps: (n + s.Batch - 1) / s.Batch,
		Params: j.params, Optimizer: j.opt, State: &j.state,
		Identity: fmt.Sprintf("domain %s, seed %d, batch %d", dom.Name, opt.Seed, s.Batch),
		Dir:      opt.Dir, Resume: opt.Resume, StopAfter: opt.StopAfter,
	}
	if opt.Progress != nil {
		loop.Progress = func(p trainer.Progress) {
			opt.Progress(Progress{Epoch: p.Epoch, Epochs: p.Epochs, Step: p.Step, Steps: p.Steps,
				Loss:          j.state.LossSum / float64(p.Step),
				SamplesPerSec: float64(p.Timing.Steps*s.Batch) / p.Timing.Seconds,
				Remaining:     p.Remaining})
		}
	}
	return loop.Run(ctx)
}

// job is a supervised run's steps.
type job struct {
	s           Settings
	seed        uint64
	train, test data.Split
	ext         *nn.Sequential[float32]
	cls         nn.Module[float32]
	params      []nn.Param[float32]
	opt         optim.Optimizer[float32]
	state       struct {
		LossSum float64 `json:"loss_sum"` // the epoch's losses so far
	}

	order      []int // the current epoch's visiting order
	orderEpoch int
	xbuf       []float32
	ybuf       []int
	oparam     []optim.Param[float32]
}

func (j *job) Step(epoch, step int) error {
	if j.orderEpoch != epoch {
		j.order = rand.New(rand.NewPCG(j.seed, uint64(epoch))).Perm(j.train.Len())
		j.orderEpoch = epoch
	}
	lo := step * j.s.Batch
	hi := min(lo+j.s.Batch, len(j.order))
	rows := j.order[lo:hi]
	j.xbuf = j.train.Dense.Gather(rows, j.xbuf)
	j.ybuf = j.ybuf[:0]
	for _, r := range rows {
		j.ybuf = append(j.ybuf, j.train.Y[r])
	}
	dim := j.train.Dense.Dim()
	x := autodiff.New(j.xbuf[:len(rows)*dim], append([]int{len(rows)}, j.train.Dense.Shape...)...)
	loss, err := nn.CrossEntropy(j.cls.Forward(j.ext.Forward(x)), j.ybuf, nn.CrossEntropyOptions[float32]{})
	if err != nil {
		return err
	}
	nn.ZeroGrad(j.params)
	loss.Backward()
	l := float64(loss.Item())
	loss.Release()
	if math.IsNaN(l) || math.IsInf(l, 0) {
		return fmt.Errorf("training loss is %v", l)
	}
	j.oparam = trainer.OptimParams(j.params, j.oparam)
	if err := j.opt.Step(j.oparam); err != nil {
		return err
	}
	j.state.LossSum += l
	return nil
}

func (j *job) EndEpoch(epoch int, t trainer.Timing) (EpochResult, error) {
	steps := (j.train.Len() + j.s.Batch - 1) / j.s.Batch
	acc := Accuracy(func(x *autodiff.Tensor[float32]) *autodiff.Tensor[float32] {
		return j.cls.Forward(j.ext.Forward(x))
	}, j.test, j.s.EvalBatch, j.ext, j.cls)
	r := EpochResult{Epoch: epoch, Loss: j.state.LossSum / float64(steps), TestAccuracy: acc,
		Seconds: t.Seconds, SamplesPerSec: float64(t.Steps*j.s.Batch) / t.Seconds}
	j.state.LossSum = 0
	return r, nil
}

// checkImages reports whether s holds labelled 3x32x32 images.
func checkImages(s data.Split, what string) error {
	if s.Dense == nil || len(s.Dense.Shape) != 3 || s.Dense.Shape[0] != 3 || s.Dense.Shape[1] != 32 || s.Dense.Shape[2] != 32 {
		return fmt.Errorf("the %s split does not hold 3x32x32 images", what)
	}
	if s.Len() == 0 {
		return fmt.Errorf("the %s split is empty", what)
	}
	return s.Validate()
}

// Accuracy returns the percentage of s classified correctly by f, evaluated
// in batches with the given modules in evaluation mode (restored to training
// mode afterwards).
func Accuracy(f func(*autodiff.Tensor[float32]) *autodiff.Tensor[float32], s data.Split, batch int, modes ...interface{ SetTrain(bool) }) float64 {
	for _, m := range modes {
		m.SetTrain(false)
	}
	defer func() {
		for _, m := range modes {
			m.SetTrain(true)
		}
	}()
	n := s.Len()
	dim := s.Dense.Dim()
	var buf []float32
	correct := 0
	method.EachBatch(n, batch, func(rows []int) *autodiff.Tensor[float32] {
		buf = s.Dense.Gather(rows, buf)
		return f(autodiff.New(buf[:len(rows)*dim], append([]int{len(rows)}, s.Dense.Shape...)...))
	}, func(r int, l []float32) {
		if method.Argmax(l) == s.Y[r] {
			correct++
		}
	})
	return 100 * float64(correct) / float64(n)
}
