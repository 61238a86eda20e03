package experiment

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzReadPlan checks that any experiment file either is refused with an
// error or gives a plan whose runs are refused with an error or are
// distinct, each with one of the plan's seeds; never a panic.
func FuzzReadPlan(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "results", "*", "*.json"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`{"dataset": "digits", "target": ["mnist", "usps"], "method": ["wadn", "source"], "seeds": [0, 1, 2], "lr": [1.0, 0.5]}`,
		`{"seeds": "0,1", "hidden": [[1000, 500], [100]], "method": "dann"}`,
		`{"scenario": ["uda", "limited", "partial"], "method": ["pada", "mme"], "numerics": "reference"}`,
		`{"sources": "dvd,books", "target": "kitchen", "seeds": 3}`,
		`{"seeds": [1, 1]}`, `{"lr": []}`, `[]`, `{"out": 3}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			return
		}
		p, err := ReadPlan(bytes.NewReader(b))
		if refused(t, err) {
			return
		}
		specs, ok := smallSpecsOf(t, p, 10000) // a larger grid tests nothing more
		if !ok {
			return
		}
		seeds := p.Seeds
		if len(seeds) == 0 {
			seeds = []uint64{0}
		}
		seen := map[string]bool{}
		for _, s := range specs {
			if !slices.Contains(seeds, s.Seed) {
				t.Errorf("run %s has seed %d, not one of the plan's %v", s.Label(), s.Seed, seeds)
			}
			k, err := json.Marshal([]any{s.Dataset.Name, s.Scenario.String(), s.Method.Name, s.Target, s.Sources, s.Label(), s.Seed})
			if err != nil {
				t.Fatal(err)
			}
			if seen[string(k)] {
				t.Errorf("run %s is in the plan twice", k)
			}
			seen[string(k)] = true
		}
	})
}

// FuzzSettings runs an experiment file with a setting given as a command
// line gives it (Plan.Set, as --NAME VALUE) through everything a command
// does before training: the plan's runs, each run's checks (Validate: the
// domains, the bounds, the memory estimate, the method), its label and
// description. Any input is refused with an error in words or accepted;
// never a panic. A run accepted is within the bounds.
func FuzzSettings(f *testing.F) {
	for _, c := range []struct{ file, name, value string }{
		{`{"target": "books"}`, "hidden", "1000000000"},
		{`{"method": "dann", "seeds": [0, 1]}`, "batch", "1000000"},
		{`{"dataset": "office-caltech", "scenario": "partial"}`, "keep-classes", "-3"},
		{`{"dataset": "digits", "target": "usps"}`, "eval-batch", "99999999"},
		{`{"sources": "dvd,books"}`, "alpha-start", "-3"},
		{`{"lr": [1, 0.5]}`, "epochs", "0"},
		{`{"hidden": [[100, 10]]}`, "depth", "3"},
		{`{"target": "kitchen"}`, "sources", "kitchen,kitchen"},
		{`{"seeds": [0], "seeds": [5]}`, "seeds", "0,1"},
		{`{"method": "wadn"}`, "train-size", "all"},
		{`{"scenario": "limited"}`, "target-weight", "1e308"},
		{`{}`, "hidden", ""},
	} {
		f.Add([]byte(c.file), c.name, c.value)
	}
	f.Fuzz(func(t *testing.T, file []byte, name, value string) {
		if len(file) > 4096 || len(value) > 256 {
			return
		}
		p, err := ReadPlan(bytes.NewReader(file))
		if refused(t, err) {
			return
		}
		if refused(t, p.Set(name, value)) {
			return
		}
		specs, ok := smallSpecsOf(t, p, 200) // in a larger grid, each run is checked alike
		if !ok {
			return
		}
		for _, s := range specs {
			_ = s.Describe()
			if refused(t, s.Validate()) {
				continue
			}
			if s.Train.Epochs > 100000 || s.Train.Batch > 1<<20 || s.Train.EvalBatch > 1<<20 {
				t.Errorf("%s accepted beyond the bounds", s.Describe())
			}
			m, err := s.Memory()
			if lim, _ := MachineMemory(); err != nil || m.Total() > lim {
				t.Errorf("%s accepted needing %v bytes (%v)", s.Describe(), m.Total(), err)
			}
		}
	})
}

// refused reports whether err refuses the input, failing the test when it
// does so without words.
func refused(t *testing.T, err error) bool {
	if err != nil && err.Error() == "" {
		t.Fatal("an error without words")
	}
	return err != nil
}

// smallSpecsOf returns the runs of p when its grid has at most limit
// cells and its expansion is not refused.
func smallSpecsOf(t *testing.T, p *Plan, limit int) ([]*Spec, bool) {
	runs := max(len(p.Seeds), 1) * max(len(p.Datasets), 1) * max(len(p.Scenarios), 1) * max(len(p.Methods), 1) * max(len(p.Targets), 1)
	for _, v := range p.Settings {
		runs *= len(v)
	}
	if runs > limit || runs < 0 {
		return nil, false
	}
	specs, err := p.Specs()
	return specs, !refused(t, err)
}
