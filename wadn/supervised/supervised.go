// Package supervised is the plain supervised run behind "wadn train": a
// method (Method) that trains a data set's network on the labelled rows of
// one domain and evaluates it on that domain's test rows, on the same
// trainer, settings and run state as the adaptation methods (package
// method).
package supervised

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/optim"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
)

// Method trains on the rows of the run's one source, a pass over them an
// epoch, in batches of Train.Batch rows (the last one shorter) in an order
// drawn from the seed and the epoch, so that a resumed run repeats what an
// uninterrupted one does. It reads nothing of the target but the test rows
// the run evaluates.
var Method = method.Define(method.About{Name: "supervised", Scenarios: []data.Scenario{data.UDA},
	Summary: "the network trained on one labelled domain, evaluated on its test rows (wadn train)"},
	func(data.Scenario) Settings { return Settings{} },
	func(*Settings) (method.Algorithm, error) { return &algo{}, nil })

// Settings are the method's own settings: none besides the training
// settings (method.Train).
type Settings struct{}

// Defaults returns the training settings of wadn train: 3 epochs of
// batches of 128 at Adadelta's learning rate 1, evaluating 500 rows a batch.
func Defaults() method.Train {
	return method.Train{Epochs: 3, Batch: 128, Settings: optim.Settings{LR: 1}, EvalBatch: 500}
}

// Task returns the task of a supervised run on dom: its training split is
// the one source (and the target's training sample, which the method does
// not read), its test split the target's test set.
func Task(dom data.Domain) (*data.Task, error) {
	for _, s := range []struct {
		split data.Split
		what  string
	}{{dom.Train, "train"}, {dom.Test, "test"}} {
		if s.split.Len() == 0 {
			return nil, fmt.Errorf("%s: the %s split is empty", dom.Name, s.what)
		}
		if err := s.split.Validate(); err != nil {
			return nil, fmt.Errorf("%s: the %s split: %w", dom.Name, s.what, err)
		}
	}
	all := func(s data.Split, from string) data.Subset {
		rows := make([]int, s.Len())
		for i := range rows {
			rows[i] = i
		}
		return data.Subset{Domain: dom.Name, From: from, Rows: rows, Split: s}
	}
	train := all(dom.Train, "train")
	return &data.Task{Dataset: dom.Dataset, Target: dom.Name, Sources: []data.Subset{train},
		TargetTrain: train, TargetTest: all(dom.Test, "test"), NumClasses: dom.Train.NumClasses}, nil
}

// Train trains net on dom with the training settings tr and returns the
// result, its history one line an epoch.
func Train(ctx context.Context, dom data.Domain, net nets.Network, tr method.Train, opt method.Options) (*method.Result, error) {
	task, err := Task(dom)
	if err != nil {
		return nil, err
	}
	if c, ok := net.(nets.InputChecker); ok {
		for _, s := range []data.Split{dom.Train, dom.Test} {
			if err := c.CheckInput(s); err != nil {
				return nil, fmt.Errorf("%s: %w", dom.Name, err)
			}
		}
	}
	if opt.Identity == "" {
		opt.Identity = fmt.Sprintf("domain %s, seed %d, batch %d", dom.Name, opt.Seed, tr.Batch)
	}
	return method.Execute(ctx, method.Config{Method: Method, Settings: &Settings{}, Task: task, Scenario: data.UDA, Net: net, Train: tr}, opt)
}

// algo is the supervised method's algorithm.
type algo struct {
	order      []int // the current epoch's visiting order
	orderEpoch int
	rows       [][]int
}

func (a *algo) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	if len(r.Task.Sources) != 1 {
		return nil, nil, errors.New("the supervised method trains on one domain, not several")
	}
	return nil, nil, nil
}

// EpochSteps returns the batches of a pass over the source, the last one
// shorter.
func (a *algo) EpochSteps(r *method.Run) int {
	return (r.Splits[0].Len() + r.Train.Batch - 1) / r.Train.Batch
}

func (a *algo) Step(r *method.Run, epoch int) error {
	src := r.Splits[0]
	if a.orderEpoch != epoch || a.order == nil {
		a.order = rand.New(rand.NewPCG(r.Seed, uint64(epoch))).Perm(src.Len())
		a.orderEpoch = epoch
	}
	lo := r.CurrentStep * r.Train.Batch
	rows := a.order[lo:min(lo+r.Train.Batch, len(a.order))]
	ys := make([]int, len(rows))
	for i, row := range rows {
		ys[i] = src.Y[row]
	}
	a.rows = append(a.rows[:0], rows)
	logits := r.Model.Classifier.Forward(r.Model.Features(r.Splits[:1], a.rows))
	loss, err := nn.CrossEntropy(logits, ys, nn.CrossEntropyOptions[float32]{})
	if err != nil {
		return err
	}
	l := float64(loss.Item())
	if err := r.Update(loss, nil); err != nil {
		return err
	}
	r.Sums.Class[0] += l
	r.Sums.Loss += l
	return nil
}

func (a *algo) EndEpoch(*method.Run, int, *method.EpochLog) error { return nil }
