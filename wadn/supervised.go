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
	"time"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/optim"
)

// SupervisedConfig configures TrainSupervised: the digits CNN (extractor and
// classifier of the paper) trained on one labelled domain.
type SupervisedConfig struct {
	Domain    data.Domain // train and test splits of 3x32x32 images
	Epochs    int         // number of passes over the training split
	Batch     int         // mini-batch size (default 128)
	LR        float64     // Adadelta learning rate (default 1.0)
	Seed      uint64      // initialisation and shuffling
	OutDir    string      // checkpoint and epoch log; "" keeps nothing
	Resume    bool        // continue from OutDir's checkpoint
	EvalBatch int         // batch size of evaluation (default 500)
	// Progress, when set, is called after every step.
	Progress func(Progress)
	// StopAfter, when positive, stops the run after that many steps in
	// total, as an interruption would (for tests of resumption).
	StopAfter int
}

// Progress describes a running training job.
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

// CheckpointFile and LogFile are the names of a run's files in its OutDir.
const (
	CheckpointFile = "checkpoint.wadn"
	LogFile        = "epochs.jsonl"
)

// ErrInterrupted is returned (wrapped) by a run stopped by its context or by
// StopAfter, after its state has been saved.
var ErrInterrupted = errors.New("interrupted")

// supervisedMeta is the checkpoint metadata of a supervised run.
type supervisedMeta struct {
	Domain  string        `json:"domain"`
	Seed    uint64        `json:"seed"`
	Batch   int           `json:"batch"`
	Epoch   int           `json:"epoch"` // epochs completed
	Step    int           `json:"step"`  // steps completed within the next epoch
	LossSum float64       `json:"loss_sum"`
	History []EpochResult `json:"history"`
}

// TrainSupervised trains the digits CNN on cfg.Domain with Adadelta and
// returns the per-epoch results. Each epoch visits the training split in an
// order drawn from (Seed, epoch), so that a resumed run repeats exactly what
// an uninterrupted one does.
func TrainSupervised(ctx context.Context, cfg SupervisedConfig) ([]EpochResult, error) {
	if cfg.Batch == 0 {
		cfg.Batch = 128
	}
	if cfg.LR == 0 {
		cfg.LR = 1
	}
	if cfg.EvalBatch == 0 {
		cfg.EvalBatch = 500
	}
	train, test := cfg.Domain.Train, cfg.Domain.Test
	if err := checkImages(train, "train"); err != nil {
		return nil, err
	}
	if err := checkImages(test, "test"); err != nil {
		return nil, err
	}
	if cfg.Epochs <= 0 || cfg.Batch <= 0 {
		return nil, fmt.Errorf("wadn: epochs (%d) and batch (%d) must be positive", cfg.Epochs, cfg.Batch)
	}
	rng := nn.NewRand(cfg.Seed)
	ext := nn.NewDigitsExtractor[float32](rng)
	cls := nn.NewDigitsClassifier[float32](nn.DigitsFeatures, rng)
	params := append(nn.Prefix("extractor", ext.Params()), nn.Prefix("classifier", cls.Params())...)
	opt, err := optim.NewAdadelta[float32](optim.AdadeltaConfig{LR: cfg.LR})
	if err != nil {
		return nil, err
	}
	meta := supervisedMeta{Domain: cfg.Domain.Name, Seed: cfg.Seed, Batch: cfg.Batch}
	snap := &nn.Snapshot[float32]{Params: params, Optim: opt}
	ckpt := ""
	if cfg.OutDir != "" {
		if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
			return nil, err
		}
		ckpt = filepath.Join(cfg.OutDir, CheckpointFile)
	}
	if cfg.Resume {
		if ckpt == "" {
			return nil, errors.New("wadn: resume needs an output directory")
		}
		if err := snap.Load(ckpt); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(snap.Meta, &meta); err != nil {
			return nil, fmt.Errorf("%s: metadata: %w", ckpt, err)
		}
		if meta.Domain != cfg.Domain.Name || meta.Seed != cfg.Seed || meta.Batch != cfg.Batch {
			return nil, fmt.Errorf("%s: checkpoint of domain %q, seed %d, batch %d; this run is domain %q, seed %d, batch %d",
				ckpt, meta.Domain, meta.Seed, meta.Batch, cfg.Domain.Name, cfg.Seed, cfg.Batch)
		}
	}
	save := func() error {
		if ckpt == "" {
			return nil
		}
		b, err := json.Marshal(meta)
		if err != nil {
			return err
		}
		snap.Meta = b
		return snap.Save(ckpt)
	}

	n := train.Len()
	steps := (n + cfg.Batch - 1) / cfg.Batch
	dim := train.Dense.Dim()
	var (
		xbuf   []float32
		ybuf   []int
		oparam []optim.Param[float32]
	)
	done := 0
	left := newETA((cfg.Epochs-meta.Epoch)*steps - meta.Step)
	ext.SetTrain(true)
	cls.SetTrain(true)
	for meta.Epoch < cfg.Epochs {
		epoch := meta.Epoch + 1
		order := rand.New(rand.NewPCG(cfg.Seed, uint64(epoch))).Perm(n)
		epochStart := time.Now()
		stepsBefore := meta.Step
		for meta.Step < steps {
			if ctx.Err() != nil || (cfg.StopAfter > 0 && done >= cfg.StopAfter) {
				if err := save(); err != nil {
					return meta.History, err
				}
				return meta.History, fmt.Errorf("wadn: epoch %d step %d: %w", epoch, meta.Step, ErrInterrupted)
			}
			lo := meta.Step * cfg.Batch
			hi := min(lo+cfg.Batch, n)
			rows := order[lo:hi]
			xbuf = train.Dense.Gather(rows, xbuf)
			ybuf = ybuf[:0]
			for _, r := range rows {
				ybuf = append(ybuf, train.Y[r])
			}
			x := autodiff.New(xbuf[:len(rows)*dim], append([]int{len(rows)}, train.Dense.Shape...)...)
			loss, err := nn.CrossEntropy(cls.Forward(ext.Forward(x)), ybuf, nn.CrossEntropyOptions[float32]{})
			if err != nil {
				return meta.History, err
			}
			nn.ZeroGrad(params)
			loss.Backward()
			l := float64(loss.Item())
			loss.Release()
			if math.IsNaN(l) || math.IsInf(l, 0) {
				return meta.History, fmt.Errorf("wadn: epoch %d step %d: training loss is %v", epoch, meta.Step+1, l)
			}
			if err := opt.Step(nn.OptimParams(params, oparam)); err != nil {
				return meta.History, fmt.Errorf("wadn: epoch %d step %d: %w", epoch, meta.Step+1, err)
			}
			meta.LossSum += l
			meta.Step++
			done++
			remaining := left.step()
			if cfg.Progress != nil {
				cfg.Progress(Progress{
					Epoch: epoch, Epochs: cfg.Epochs, Step: meta.Step, Steps: steps,
					Loss:          meta.LossSum / float64(meta.Step),
					SamplesPerSec: float64((meta.Step-stepsBefore)*cfg.Batch) / time.Since(epochStart).Seconds(),
					Remaining:     remaining,
				})
			}
		}
		secs := time.Since(epochStart).Seconds()
		acc := Accuracy(func(x *autodiff.Tensor[float32]) *autodiff.Tensor[float32] {
			return cls.Forward(ext.Forward(x))
		}, test, cfg.EvalBatch, ext, cls)
		r := EpochResult{Epoch: epoch, Loss: meta.LossSum / float64(steps), TestAccuracy: acc,
			Seconds: secs, SamplesPerSec: float64((steps-stepsBefore)*cfg.Batch) / secs}
		meta.History = append(meta.History, r)
		meta.Epoch, meta.Step, meta.LossSum = epoch, 0, 0
		if err := save(); err != nil {
			return meta.History, err
		}
		if err := writeLog(cfg.OutDir, meta.History); err != nil {
			return meta.History, err
		}
	}
	return meta.History, nil
}

// checkImages reports whether s holds labelled 3x32x32 images.
func checkImages(s data.Split, what string) error {
	if s.Dense == nil || len(s.Dense.Shape) != 3 || s.Dense.Shape[0] != 3 || s.Dense.Shape[1] != 32 || s.Dense.Shape[2] != 32 {
		return fmt.Errorf("wadn: the %s split does not hold 3x32x32 images", what)
	}
	if s.Len() == 0 {
		return fmt.Errorf("wadn: the %s split is empty", what)
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
	eachBatch(n, batch, func(rows []int) *autodiff.Tensor[float32] {
		buf = s.Dense.Gather(rows, buf)
		return f(autodiff.New(buf[:len(rows)*dim], append([]int{len(rows)}, s.Dense.Shape...)...))
	}, func(r int, l []float32) {
		if argmax(l) == s.Y[r] {
			correct++
		}
	})
	return 100 * float64(correct) / float64(n)
}

func argmax(v []float32) int {
	best := 0
	for j := 1; j < len(v); j++ {
		if v[j] > v[best] {
			best = j
		}
	}
	return best
}

// writeLog rewrites the epoch log of dir, one JSON object per line,
// atomically, from the history kept in the checkpoint.
func writeLog[R any](dir string, history []R) error {
	if dir == "" {
		return nil
	}
	var b []byte
	for _, r := range history {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b = append(append(b, line...), '\n')
	}
	path := filepath.Join(dir, LogFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
