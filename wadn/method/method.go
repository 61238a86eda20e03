// Package method is what the multi-source adaptation methods of the WADN
// paper share: the description of a method (Method) and its algorithm, the
// state of one run as a method sees it (Run: the task, the model, the
// mini-batch, the weights alpha and lambda, the epoch's sums), the epoch log
// and the result.
//
// A method is an Algorithm with a settings type of its own, and its own log
// terms (Term) and heads on the features (nets.Network.NewHead). The run
// draws the step's mini-batch (Batch rows of every source and of the
// target's training sample, with replacement), calls Step, and at the end
// of every epoch evaluates the target, calls EndEpoch and writes the log;
// package trainer drives the epochs, the checkpoints and the resumption.
package method

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/dataset"
)

// Algorithm is what sets one method apart: its update on a mini-batch and its
// estimates at the end of an epoch.
type Algorithm interface {
	// Setup runs once, after the model is built and before any resumption,
	// and returns the method's own parameters (trained and checkpointed
	// with the model's) and buffers (checkpointed only), named uniquely
	// (e.g. "critic0.0.weight").
	Setup(r *Run) (params, buffers []nn.Param[float32], err error)
	// Step updates the model on the mini-batch r.Rows drawn for the
	// current step of epoch (1-based), adding to r.Sums.
	Step(r *Run, epoch int) error
	// EndEpoch updates the method's weights (r.Alpha, r.Lambda) after
	// epoch; log holds the epoch's means and target accuracy, and the
	// method may set its TargetDist (by default the class shares of the
	// target predictions counted in r.Sums.Pred).
	EndEpoch(r *Run, epoch int, log *EpochLog) error
}

// Epocher is implemented by an Algorithm whose epoch is not the run's
// default of the largest source's size over the batch (data.EpochSteps):
// EpochSteps returns its steps per epoch, read once the run is set up.
type Epocher interface {
	EpochSteps(r *Run) int
}

// SourcePooler is implemented by an Algorithm that may train on the sources
// pooled into one domain (data.Task.PooledSources); the run pools them
// before it is built when PoolsSources says so.
type SourcePooler interface {
	PoolsSources() bool
}

// About is what a method says of itself.
type About struct {
	Name      string          // as runs and commands name it
	Scenarios []data.Scenario // the scenarios the paper runs it in
	Summary   string          // one line for help texts
	// Terms are the method's own loss terms, which its steps add to
	// Run.Sums.Terms in this order and its epoch log holds by name.
	Terms []Term
	// EstimatesAlpha lists the scenarios where the method's alpha estimates
	// the label ratios T(y)/S_t(y), so that its error against them means
	// something (not where alpha is computed from labelled target rows,
	// the rows the true ratios come from).
	EstimatesAlpha []data.Scenario
	// EstimatesLambda is set for a method that weighs its sources (lambda
	// moves from the uniform weights it starts at).
	EstimatesLambda bool
}

// Method describes one method a run can train: what it says of itself, its
// settings and its algorithm.
type Method struct {
	About
	// Titles holds the paper's name of the method in the scenarios where
	// it differs from Name; Title reads it.
	Titles map[data.Scenario]string
	// Settings returns the method's settings at their defaults for a data
	// set and scenario: a pointer to a struct of tagged fields (package
	// internal/settings).
	Settings func(ds *dataset.Dataset, sc data.Scenario) any
	// New returns the method's algorithm for settings s, a pointer that
	// Settings returned (its fields possibly changed since), or an error
	// naming a setting it cannot run with.
	New func(s any) (Algorithm, error)
}

// Define returns the Method of the method a describes, whose settings have
// type S: defaults gives them for a scenario, and newAlgo makes the
// algorithm from them, refusing settings it cannot run with. On a data set,
// the settings the data set gives the method other defaults for
// (dataset.Dataset.MethodDefaults) are set over the method's own. Settings
// whose fields declare bounds (internal/settings) are checked before
// newAlgo sees them. It panics when a's terms cannot be logged, a mistake
// in the declaration.
func Define[S any](a About, defaults func(sc data.Scenario) S, newAlgo func(s *S) (Algorithm, error)) Method {
	if err := checkTerms(a.Terms); err != nil {
		panic(fmt.Sprintf("method %s: %v", a.Name, err))
	}
	name := a.Name
	return Method{
		About: a,
		Settings: func(ds *dataset.Dataset, sc data.Scenario) any {
			s := defaults(sc)
			set := ds.MethodSettings(name, sc)
			if len(set) > 0 {
				fs := settings.Fields(&s)
				for _, k := range slices.Sorted(maps.Keys(set)) {
					f, err := settings.Lookup(fs, k)
					if err == nil {
						err = f.Set(set[k])
					}
					if err != nil {
						// A mistake in the registry's declaration, which
						// TestMethodDefaultsOfDatasets (wadn/experiment)
						// tries for every method, data set and scenario.
						panic(fmt.Sprintf("data set %s, method %s: %v", ds, name, err))
					}
				}
			}
			return &s
		},
		New: func(s any) (Algorithm, error) {
			p, ok := s.(*S)
			if !ok {
				return nil, fmt.Errorf("%s: settings of type %T, want %T", name, s, p)
			}
			if err := settings.Check(settings.Fields(p)); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			a, err := newAlgo(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			return a, nil
		},
	}
}

// Titled returns a copy of s that the paper calls title in scenario sc.
func (s Method) Titled(sc data.Scenario, title string) Method {
	s.Titles = maps.Clone(s.Titles)
	if s.Titles == nil {
		s.Titles = map[data.Scenario]string{}
	}
	s.Titles[sc] = title
	return s
}

// Title returns the paper's name of the method in scenario sc: its Titles
// entry for sc, else Name.
func (s Method) Title(sc data.Scenario) string {
	if t, ok := s.Titles[sc]; ok {
		return t
	}
	return s.Name
}

// Runs reports whether the paper runs the method in scenario sc.
func (s Method) Runs(sc data.Scenario) bool { return slices.Contains(s.Scenarios, sc) }

// Registry is a list of methods, known by name.
type Registry []Method

// Lookup returns the method called name, or an error naming the methods, or
// the method's scenarios when the paper does not run it in sc.
func (r Registry) Lookup(name string, sc data.Scenario) (Method, error) {
	for _, s := range r {
		if s.Name != name {
			continue
		}
		if !s.Runs(sc) {
			var names []string
			for _, x := range s.Scenarios {
				names = append(names, x.String())
			}
			return Method{}, fmt.Errorf("method %s runs in the %s scenario(s), not %s", name, strings.Join(names, ", "), sc)
		}
		return s, nil
	}
	return Method{}, fmt.Errorf("unknown method %q (want one of %s)", name, strings.Join(r.Names(), ", "))
}

// Names returns the methods' names in order.
func (r Registry) Names() []string {
	out := make([]string, len(r))
	for i, s := range r {
		out[i] = s.Name
	}
	return out
}
