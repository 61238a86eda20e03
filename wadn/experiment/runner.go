package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/atomic"
	"github.com/wadn-go/wadn/internal/lock"
	"github.com/wadn-go/wadn/internal/numerics"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// Runner trains runs, each in its own directory under Out named by its
// identity (Identity.Name), Jobs at a time. A run whose directory holds its
// result is not trained again; one whose directory holds a checkpoint
// continues from it to the result an uninterrupted run gives. A directory
// is locked while a process trains in it.
type Runner struct {
	Out     string // the directory of the run directories
	DataDir string // where the data sets are loaded from ("": Amazon's embedded copy)
	Jobs    int    // runs trained at once (0 or 1: one after the other)
	// Wait makes a run whose directory another process has locked wait for
	// it; otherwise the run fails at once, naming the holder.
	Wait bool
	// AllowUnverified accepts data that differ from the published data sets
	// (one's own, in a data set's layout); the runs record which checks were
	// waived in their identity, and their report rows say so.
	AllowUnverified bool
	// KeepCheckpoints keeps each run's last checkpoint after its result is
	// written; by default it is replaced then by the weights alone
	// (ModelFile), since only an unfinished run resumes from the rest.
	KeepCheckpoints bool
	// Progress, when set, is called after every step of every run; with
	// Jobs above 1 from several goroutines at once.
	Progress func(s *Spec, p method.Progress)
	// Note, when set, is told what happens to each run: started, continued,
	// found finished.
	Note func(s *Spec, msg string)
	// KeepGoing makes a failed run stop no other (see Run): the runs of a
	// sweep are independent tasks.
	KeepGoing bool

	mu      sync.Mutex
	domains map[string][]data.Domain // loaded data, by data set and data settings
}

// Outcome is what became of one run.
type Outcome struct {
	Spec    *Spec
	Sources []string // the sources trained on, in order
	Dir     string
	Result  *RunResult
	Reused  bool // the run had finished before
}

// Run trains the specs, Jobs at a time, and returns their outcomes in order.
// An interrupted Run returns an error wrapping trainer.ErrInterrupted after
// every running run has saved its state. When a run fails, the runs beside
// it are stopped (saving, as if interrupted), no other is started, and the
// failure is returned with the outcomes of the runs before it. With
// KeepGoing every run is trained even when some fail: Run returns every
// outcome, nil for a failed run, and an error joining the failures, each
// naming its run (a *RunError).
//
// The numerics mode is process-wide: the specs must all have the same
// Numerics, which Run sets (numerics.Set) for its duration and then restores.
func (rn *Runner) Run(ctx context.Context, specs []*Spec) ([]*Outcome, error) {
	seen := map[string]int{}
	for i, s := range specs {
		if s.Numerics != specs[0].Numerics {
			return nil, fmt.Errorf("runs 1 and %d train in different numerics modes (%s, %s): run them apart", i+1, specs[0].Numerics, s.Numerics)
		}
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Method.Name, err)
		}
		k := s.RunKey()
		if j, ok := seen[k]; ok {
			return nil, fmt.Errorf("runs %d and %d are the same run (%s, seed %d)", j+1, i+1, s.Method.Name, s.Seed)
		}
		seen[k] = i
	}
	n := len(specs)
	if n > 0 {
		defer numerics.Set(numerics.Set(specs[0].Numerics))
	}
	outs, errs := make([]*Outcome, n), make([]error, n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(rn.Jobs, 1))
	for i, s := range specs {
		slots <- struct{}{}
		if ctx.Err() != nil {
			<-slots
			for j := i; j < n; j++ {
				errs[j] = fmt.Errorf("seed %d not started: %w", specs[j].Seed, trainer.ErrInterrupted)
			}
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			outs[i], errs[i] = rn.RunOne(ctx, s)
			if errs[i] != nil && !rn.KeepGoing {
				cancel()
			}
		}()
	}
	wg.Wait()
	if rn.KeepGoing {
		return outs, keptGoing(specs, errs)
	}
	for i, o := range outs {
		if o == nil {
			return outs[:i], firstError(errs[i:])
		}
	}
	return outs, nil
}

// RunError is the failure of one run of a Runner that keeps going.
type RunError struct {
	Spec *Spec
	Err  error
}

// Error names the run and says why it failed.
func (e *RunError) Error() string { return e.Spec.Describe() + ": " + e.Err.Error() }

// Unwrap returns the run's error.
func (e *RunError) Unwrap() error { return e.Err }

// keptGoing returns the failures among errs of the runs of specs as one
// error joining a *RunError for each, nil when none failed; or, when the
// runs were interrupted, an error wrapping trainer.ErrInterrupted, since
// the runs not yet trained have no outcome.
func keptGoing(specs []*Spec, errs []error) error {
	var failed []error
	interrupted := false
	for i, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, trainer.ErrInterrupted):
			interrupted = true
		default:
			failed = append(failed, &RunError{specs[i], err})
		}
	}
	if interrupted {
		return errors.Join(append([]error{fmt.Errorf("%w", trainer.ErrInterrupted)}, failed...)...)
	}
	return errors.Join(failed...)
}

// firstError returns the first error in errs that is not an interruption,
// or else the first error: a failed run stops the runs beside it, and their
// interruptions are not the news.
func firstError(errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, trainer.ErrInterrupted) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// Domains returns the domains of s's data set as s's data settings deliver
// them, loading them on first use.
func (rn *Runner) Domains(s *Spec) ([]data.Domain, error) {
	key := s.Dataset.Name + "?" + fmt.Sprint(settings.Values(settings.Fields(s.Data)))
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if d, ok := rn.domains[key]; ok {
		return d, nil
	}
	var names []string
	if s.Sources != nil {
		names = append([]string{s.Target}, s.Sources...)
	}
	d, err := s.Dataset.Load(s.Data, rn.DataDir, names, data.LoadOptions{AllowUnverified: rn.AllowUnverified})
	if err != nil {
		if errors.Is(err, data.ErrUnverified) {
			return nil, fmt.Errorf("%w (data of one's own: --allow-unverified)", err)
		}
		return nil, err
	}
	if rn.domains == nil {
		rn.domains = map[string][]data.Domain{}
	}
	rn.domains[key] = d
	return d, nil
}

// identity returns s's domains (loaded on first use) and its identity, with
// their checksums.
func (rn *Runner) identity(s *Spec) (*Identity, []data.Domain, error) {
	domains, err := rn.Domains(s)
	if err != nil {
		return nil, nil, err
	}
	id, err := s.Identity(domains)
	return id, domains, err
}

// otherRun is the error for dir, the directory of the run id by its name,
// when its record rec is another run's.
func otherRun(dir string, rec *Record, id *Identity) error {
	return fmt.Errorf("%s holds the run %s, not %s: another run's directory", dir, describe(rec.Identity), describe(id))
}

// RunOne trains one run in its directory (see Runner) and returns its
// outcome.
//
// The process must be in the spec's numerics mode (Run sets it).
func (rn *Runner) RunOne(ctx context.Context, s *Spec) (*Outcome, error) {
	if m := numerics.Get(); m != s.Numerics {
		return nil, fmt.Errorf("seed %d trains in the %s numerics mode, but the process is in the %s mode", s.Seed, s.Numerics, m)
	}
	// An interruption before the run has started, or while its data load,
	// leaves nothing to save.
	notStarted := fmt.Errorf("seed %d not started: %w", s.Seed, trainer.ErrInterrupted)
	if ctx.Err() != nil {
		return nil, notStarted
	}
	id, domains, err := rn.identity(s)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, notStarted
	}
	out := &Outcome{Spec: s, Sources: id.Sources}
	if rn.Out != "" {
		out.Dir = filepath.Join(rn.Out, id.Name())
	}
	note := func(msg string) {
		if rn.Note != nil {
			rn.Note(s, msg)
		}
	}
	resume := false
	if out.Dir != "" {
		var l *lock.Lock
		err := os.MkdirAll(out.Dir, 0o755)
		if err == nil && rn.Wait {
			l, err = lock.Wait(ctx, out.Dir)
		} else if err == nil {
			l, err = lock.Try(out.Dir)
		}
		if err != nil {
			// A tree one may not write (a shared or stored copy) gives no
			// lock: a finished run in it is shown as finished all the same.
			// One that another process holds is that process's.
			if res, ok := finished(out.Dir, id); ok && !errors.Is(err, lock.ErrHeld) {
				note("finished earlier in " + out.Dir)
				out.Result, out.Reused = res, true
				return out, nil
			}
			return nil, err
		}
		defer l.Release()
		if _, err := atomic.RemoveTemps(out.Dir); err != nil {
			return nil, err
		}
		rec, ok, err := readRecord(out.Dir)
		if err != nil {
			return nil, err
		}
		switch {
		case ok && rec.Key != id.Key():
			return nil, otherRun(out.Dir, rec, id)
		case ok:
			if res, done, err := readResult(out.Dir); err != nil {
				return nil, err
			} else if done {
				note("finished earlier in " + out.Dir)
				out.Result, out.Reused = res, true
				return out, nil
			}
			_, err := os.Stat(filepath.Join(out.Dir, trainer.CheckpointFile))
			resume = err == nil
		default:
			config, err := marshalJSON(s.File())
			if err != nil {
				return nil, err
			}
			if err := strayFiles(out.Dir, config); err != nil {
				return nil, err
			}
			if err := atomic.WriteFile(filepath.Join(out.Dir, ConfigFile), config, 0o644); err != nil {
				return nil, err
			}
			if err := writeJSON(filepath.Join(out.Dir, RunFile), &Record{Version: RecordVersion, Key: id.Key(), Identity: id, DataDir: rn.DataDir}); err != nil {
				return nil, err
			}
		}
	}
	picked, err := pick(domains, s.Target, s.Sources)
	if err != nil {
		return nil, err
	}
	task, err := s.Dataset.Protocol(s.Scenario, s.Data).BuildFor(picked, s.Target, s.Seed)
	if err != nil {
		return nil, err
	}
	net, err := s.Data.Network()
	if err != nil {
		return nil, err
	}
	if _, err := s.Method.New(s.Config); err != nil { // refused before the run starts
		return nil, err
	}
	envs, err := rn.startEnvironment(out.Dir, resume)
	if err != nil {
		return nil, err
	}
	if resume {
		note("continuing from its checkpoint in " + out.Dir)
	} else {
		note("starting in " + out.Dir)
	}
	opt := method.Options{Seed: s.Seed, Dir: out.Dir, Resume: resume, Identity: "run " + id.Key()}
	if rn.Progress != nil {
		opt.Progress = func(p method.Progress) { rn.Progress(s, p) }
	}
	r, err := method.Execute(ctx, method.Config{Method: s.Method, Settings: s.Config, Task: task, Scenario: s.Scenario, Net: net, Train: s.Train}, opt)
	if err != nil {
		if errors.Is(err, trainer.ErrInterrupted) && out.Dir != "" {
			now := time.Now().UTC()
			envs[len(envs)-1].Interrupted = &now
			if werr := writeJSON(filepath.Join(out.Dir, environmentFile), envs); werr != nil {
				err = errors.Join(err, werr)
			}
		}
		return nil, fmt.Errorf("seed %d: %w", s.Seed, err)
	}
	now := time.Now().UTC()
	envs[len(envs)-1].Finished = &now
	out.Result = &RunResult{Accuracy: r.Accuracy, Alpha: r.Alpha, TrueAlpha: r.TrueAlpha, Lambda: r.Lambda,
		Epochs: len(r.History), Environment: envs}
	if out.Dir != "" {
		if err := writeJSON(filepath.Join(out.Dir, ResultFile), out.Result); err != nil {
			return nil, err
		}
		os.Remove(filepath.Join(out.Dir, environmentFile))
		if !rn.KeepCheckpoints {
			if err := keepWeights(out.Dir); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// finished returns the result of the run id in dir when dir holds its
// record and its result; ok is false otherwise, or when they cannot be
// read (the locked path that follows says why).
func finished(dir string, id *Identity) (res *RunResult, ok bool) {
	rec, found, err := readRecord(dir)
	if err != nil || !found || rec.Key != id.Key() {
		return nil, false
	}
	res, done, err := readResult(dir)
	return res, err == nil && done
}

// keepWeights replaces the checkpoint of a finished run in dir by its
// weights alone (ModelFile): the parameters and buffers, without the
// optimiser's state, which only a resumption reads. A run that evaluated the
// average of its weights (method.Train.Average) keeps that average in the
// parameters' place.
func keepWeights(dir string) error {
	ckpt := filepath.Join(dir, trainer.CheckpointFile)
	f, err := checkpoint.Load(ckpt)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	f.Optim, f.OptimStep = nil, 0
	if err := useAverages(f); err != nil {
		return fmt.Errorf("%s: %w", ckpt, err)
	}
	if err := checkpoint.Save(filepath.Join(dir, ModelFile), f); err != nil {
		return err
	}
	return os.Remove(ckpt)
}

// useAverages puts the average of every parameter (nets.AveragePrefix) in
// the parameter's place and drops the averages.
func useAverages(f *checkpoint.File) error {
	at := make(map[string]int, len(f.Tensors))
	for i, t := range f.Tensors {
		at[t.Name] = i
	}
	for _, t := range f.Tensors {
		name, ok := nets.IsAverage(t.Name)
		if !ok {
			continue
		}
		i, found := at[name]
		if !found || !slices.Equal(f.Tensors[i].Shape, t.Shape) || (f.Tensors[i].F32 == nil) != (t.F32 == nil) {
			return fmt.Errorf("%s has no parameter %s of its shape %v", t.Name, name, t.Shape)
		}
		f.Tensors[i].F32, f.Tensors[i].F64 = t.F32, t.F64
	}
	var kept []checkpoint.Tensor
	for _, t := range f.Tensors {
		if _, ok := nets.IsAverage(t.Name); !ok {
			kept = append(kept, t)
		}
	}
	f.Tensors = kept
	return nil
}

// environmentFile keeps, while a run is unfinished, the environments of the
// processes that trained it so far.
const environmentFile = "environment.json"

// startEnvironment returns the environments of the run in dir with this
// process's last, recording them in dir. A fresh run starts the list anew.
func (rn *Runner) startEnvironment(dir string, resume bool) ([]Environment, error) {
	var envs []Environment
	if dir != "" && resume {
		if b, err := os.ReadFile(filepath.Join(dir, environmentFile)); err == nil {
			if err := json.Unmarshal(b, &envs); err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Join(dir, environmentFile), err)
			}
		}
	}
	e := environment()
	if n := len(envs); n > 0 && resume {
		if h, err := ReadHistory(dir); err == nil {
			e.FromEpoch = len(h)
		}
	}
	envs = append(envs, e)
	if dir != "" {
		if err := writeJSON(filepath.Join(dir, environmentFile), envs); err != nil {
			return nil, err
		}
	}
	return envs, nil
}

// Unfinished returns the specs of the runs under dir (dir itself, or its
// run directories at any depth, through links too) that have not finished,
// with the data directory each recorded. A checkpoint in a directory without
// a record is an error: it is nobody's run to continue.
func Unfinished(dir string) (specs []*Spec, dataDirs []string, err error) {
	err = eachRun(dir, func(at, _ string, rec *Record, res *RunResult, damaged error) error {
		switch {
		case damaged != nil:
			return damaged
		case rec == nil:
			return fmt.Errorf("%s holds a checkpoint but no %s: the run it belongs to is unknown, and it is not resumed", at, RunFile)
		case res != nil:
			return nil
		}
		s, err := SpecOf(rec.Identity)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(at, RunFile), err)
		}
		specs = append(specs, s)
		dataDirs = append(dataDirs, rec.DataDir)
		return nil
	})
	return specs, dataDirs, err
}
