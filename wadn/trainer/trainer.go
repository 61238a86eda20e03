// Package trainer runs a training job over epochs of steps: the loop, a
// checkpoint after every epoch and on interruption, exact resumption,
// progress with an estimate of the time left, and the epoch log. It knows no
// method and no network: a Job takes the steps, any optim.Optimizer updates
// the parameters.
//
// Exact resumption rests on three rules. Everything a step reads that changes
// during training is in the checkpoint: the parameters, the buffers, the
// optimiser's state and the job's State. The randomness of a step depends
// only on the seed, the epoch and the step (Loop.Rand is reseeded before
// every step). And the checkpoint is written between steps. A run
// interrupted after any step and resumed then gives, bit for bit, what an
// uninterrupted run gives.
//
// Snapshot, the checkpoint of a model with its optimiser, and OptimParams,
// the optimiser's view of a model's parameters, are here rather than in nn
// or optim because they join the two, which do not import each other.
package trainer

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
	"github.com/wadn-go/wadn/internal/atomic"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/optim"
)

// Names of a run's files in its directory.
const (
	CheckpointFile = "checkpoint.wadn"
	LogFile        = "epochs.jsonl"
)

// ErrInterrupted is returned (wrapped) by a run stopped by its context or by
// Loop.StopAfter, after its state has been saved.
var ErrInterrupted = errors.New("interrupted")

// Job is one training run's work, step by step. L is the type of a line of
// its epoch log, which encodes to a JSON object.
type Job[L any] interface {
	// Step takes update number step (0-based) of epoch (1-based).
	Step(epoch, step int) error
	// EndEpoch finishes epoch and returns its epoch-log line.
	EndEpoch(epoch int, t Timing) (L, error)
}

// Settler is a Job whose steps may leave work under way that reads or
// writes the state the Loop checkpoints (Params, Buffers, the optimiser's
// state): the Loop calls Settle before each save.
type Settler interface {
	Settle()
}

// Timing is the time an epoch took in this process.
type Timing struct {
	Seconds float64 // wall time from the epoch's first step in this process to its end
	Steps   int     // steps of the epoch run in this process (fewer after a resume mid-epoch)
}

// Progress describes a running job after one step.
type Progress struct {
	Epoch, Epochs int // the current epoch (1-based) and the total
	Step, Steps   int // the step just done (1-based) and the steps of an epoch
	Timing            // the epoch so far, in this process
	// Remaining estimates the time left of the run; it is negative while
	// the first steps of the process run, which are not yet a fair pace.
	Remaining time.Duration
}

// Loop trains a Job. Its fields are set before Run and not changed after.
type Loop[L any] struct {
	Job    Job[L]
	Epochs int // epochs to train
	Steps  int // steps per epoch

	// Params are updated by Optimizer; they, Buffers (state that is not
	// learnt) and the optimiser's state are checkpointed.
	Params    []nn.Param[float32]
	Buffers   []nn.Param[float32]
	Optimizer optim.Optimizer[float32]
	// State points at the job's own state, encoded as JSON in the
	// checkpoint and decoded into it again on resumption.
	State any
	// Identity describes the run; resumption refuses a checkpoint whose
	// identity differs.
	Identity string

	// Rand, when set, is reseeded from (Seed, epoch, step) before every step.
	Rand *rand.PCG
	Seed uint64

	Dir    string // checkpoint and epoch log; "" keeps nothing
	Resume bool   // continue from Dir's checkpoint
	// StopAfter, when positive, stops the run after that many steps in this
	// process, as an interruption would (for tests of resumption).
	StopAfter int
	// Progress, when set, is called after every step.
	Progress func(Progress)

	epoch, step int // epochs completed; steps completed within the next
	history     []L
}

// meta is what a checkpoint holds besides the tensors.
type meta[L any] struct {
	Identity string          `json:"identity"`
	Epoch    int             `json:"epoch"` // epochs completed
	Step     int             `json:"step"`  // steps completed within the next epoch
	State    json.RawMessage `json:"state"`
	History  []L             `json:"history"`
}

// Run trains the job to the end, or until ctx is cancelled (or StopAfter
// steps are done): then it saves the state and returns an error wrapping
// ErrInterrupted. It returns the epoch log, one line per epoch, and on an
// error the lines of the epochs finished before it.
func (l *Loop[L]) Run(ctx context.Context) ([]L, error) {
	if l.Dir != "" {
		if err := os.MkdirAll(l.Dir, 0o755); err != nil {
			return nil, err
		}
	}
	if l.Resume {
		if err := l.load(); err != nil {
			return nil, err
		}
	}
	done := 0
	left := newETA((l.Epochs-l.epoch)*l.Steps - l.step)
	for l.epoch < l.Epochs {
		epoch := l.epoch + 1
		start, ran := time.Now(), 0
		for l.step < l.Steps {
			if ctx.Err() != nil || (l.StopAfter > 0 && done >= l.StopAfter) {
				if err := l.save(); err != nil {
					return l.history, err
				}
				return l.history, fmt.Errorf("epoch %d step %d: %w", epoch, l.step, ErrInterrupted)
			}
			if l.Rand != nil {
				l.Rand.Seed(l.Seed, uint64(epoch)<<32|uint64(l.step))
			}
			if err := l.Job.Step(epoch, l.step); err != nil {
				return l.history, fmt.Errorf("epoch %d step %d: %w", epoch, l.step+1, err)
			}
			l.step++
			done++
			ran++
			remaining := left.step()
			if l.Progress != nil {
				l.Progress(Progress{Epoch: epoch, Epochs: l.Epochs, Step: l.step, Steps: l.Steps,
					Timing: Timing{Seconds: time.Since(start).Seconds(), Steps: ran}, Remaining: remaining})
			}
		}
		line, err := l.Job.EndEpoch(epoch, Timing{Seconds: time.Since(start).Seconds(), Steps: ran})
		if err != nil {
			return nil, err
		}
		l.history = append(l.history, line)
		l.epoch, l.step = epoch, 0
		if err := l.save(); err != nil {
			return nil, err
		}
		if err := l.writeLog(); err != nil {
			return nil, err
		}
	}
	return l.history, nil
}

func (l *Loop[L]) snapshot() *Snapshot[float32] {
	return &Snapshot[float32]{Params: l.Params, Buffers: l.Buffers, Optim: l.Optimizer}
}

func (l *Loop[L]) save() error {
	if l.Dir == "" {
		return nil
	}
	if s, ok := l.Job.(Settler); ok {
		s.Settle()
	}
	state, err := json.Marshal(l.State)
	if err != nil {
		return err
	}
	b, err := json.Marshal(meta[L]{Identity: l.Identity, Epoch: l.epoch, Step: l.step, State: state, History: l.history})
	if err != nil {
		return err
	}
	s := l.snapshot()
	s.Meta = b
	return s.Save(filepath.Join(l.Dir, CheckpointFile))
}

func (l *Loop[L]) load() error {
	if l.Dir == "" {
		return errors.New("resume needs an output directory")
	}
	p := filepath.Join(l.Dir, CheckpointFile)
	// A damaged checkpoint fails every resumption alike: say how to start
	// the run over.
	restart := "; it cannot be resumed: remove " + p + " to train the run from its start"
	s := l.snapshot()
	if err := s.Load(p); err != nil {
		return fmt.Errorf("%w%s", err, restart)
	}
	var m meta[L]
	if err := json.Unmarshal(s.Meta, &m); err != nil {
		return fmt.Errorf("%s: metadata: %w%s", p, err, restart)
	}
	if m.Identity != l.Identity {
		return fmt.Errorf("%s: checkpoint of %s; this run is %s", p, m.Identity, l.Identity)
	}
	if m.Epoch < 0 || m.Step < 0 || m.Step >= max(l.Steps, 1) || len(m.History) != m.Epoch {
		return fmt.Errorf("%s: metadata: epoch %d step %d with %d log lines, for %d steps an epoch%s", p, m.Epoch, m.Step, len(m.History), l.Steps, restart)
	}
	if l.State != nil {
		if err := json.Unmarshal(m.State, l.State); err != nil {
			return fmt.Errorf("%s: metadata: state: %w%s", p, err, restart)
		}
	}
	l.epoch, l.step, l.history = m.Epoch, m.Step, m.History
	return nil
}

// writeLog rewrites the epoch log, one JSON object per line, atomically,
// from the history kept in the checkpoint.
func (l *Loop[L]) writeLog() error {
	if l.Dir == "" {
		return nil
	}
	var b []byte
	for _, r := range l.history {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b = append(append(b, line...), '\n')
	}
	return atomic.WriteFile(filepath.Join(l.Dir, LogFile), b, 0o644)
}

// Update takes one step of opt on ps with the gradients of loss, then
// releases loss's graph. A non-finite loss is an error and changes nothing.
// buf is reused for the optimiser's view of ps and returned.
func Update(opt optim.Optimizer[float32], loss *autodiff.Tensor[float32], ps []nn.Param[float32], buf []optim.Param[float32]) ([]optim.Param[float32], error) {
	v := float64(loss.Item())
	if math.IsNaN(v) || math.IsInf(v, 0) {
		loss.Release()
		return buf, fmt.Errorf("the training loss is %v", v)
	}
	nn.ZeroGrad(ps)
	loss.Backward()
	loss.Release()
	buf = OptimParams(ps, buf)
	return buf, opt.Step(buf)
}
