package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/numerics"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn/dataset"
)

// Plan is a grid of runs: data sets x scenarios x methods x targets x the
// values of any settings x seeds. Each key holds one value or a list of
// values; the runs are every combination. It reads from an experiment file,
// a JSON object whose keys are the names of wadn run's flags and of the
// settings:
//
//	{"dataset": "digits", "target": ["mnist", "usps"], "method": ["wadn", "source"],
//	 "seeds": [0, 1, 2], "lr": [1.0, 0.5], "out": "runs/digits"}
//
// A setting applies to the runs whose method or data set reads it in their
// scenario and is left out of the others (a method that does not read lr is
// not trained twice); a setting that no run of the grid reads is an error.
// A setting whose value is a list (hidden) takes a list of lists.
type Plan struct {
	Datasets  []string
	Scenarios []string
	Methods   []string
	Targets   []string // "": the data set's default target
	Sources   []string // nil: every other domain
	Seeds     []uint64
	// Settings are the settings' values, each a list of one or more; a
	// value is its JSON text (a number, a bool, a string or a list).
	Settings map[string][]json.RawMessage
	// Out and DataDir are where the runs go and where their data come from,
	// when the file says.
	Out, DataDir string
	// Numerics is the numerics mode of every run (key "numerics":
	// "default" or "reference").
	Numerics numerics.Mode
}

// planKeys are the keys of an experiment file that are not settings.
var planKeys = []string{"dataset", "scenario", "method", "target", "sources", "seeds", "out", "data", "numerics"}

// MaxPlanFile is the largest experiment file ReadPlan reads, in bytes.
const MaxPlanFile = 1 << 20

// ReadPlan reads an experiment file: one JSON object, nothing after it,
// no key twice in any object and no null anywhere. An error names the key
// or the value at fault.
func ReadPlan(r io.Reader) (*Plan, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxPlanFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxPlanFile {
		return nil, fmt.Errorf("more than %d bytes: not an experiment file", MaxPlanFile)
	}
	if err := strictJSON(b); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not a JSON object of settings: %w", err)
	}
	p := &Plan{Settings: map[string][]json.RawMessage{}}
	strs := func(key string) ([]string, error) {
		v, ok := raw[key]
		if !ok {
			return nil, nil
		}
		var one string
		if json.Unmarshal(v, &one) == nil {
			return []string{one}, nil
		}
		var list []string
		if err := json.Unmarshal(v, &list); err != nil || len(list) == 0 {
			return nil, fmt.Errorf("%q: want a string or a non-empty list of strings, have %s", key, v)
		}
		return list, nil
	}
	for _, f := range []struct {
		key string
		dst *[]string
	}{{"dataset", &p.Datasets}, {"scenario", &p.Scenarios}, {"method", &p.Methods}, {"target", &p.Targets}} {
		if *f.dst, err = strs(f.key); err != nil {
			return nil, err
		}
	}
	if v, ok := raw["sources"]; ok {
		var one string
		if json.Unmarshal(v, &one) == nil {
			p.Sources = strings.Split(one, ",")
		} else if err := json.Unmarshal(v, &p.Sources); err != nil {
			return nil, fmt.Errorf(`"sources": want a list of domain names, have %s`, v)
		}
	}
	if v, ok := raw["seeds"]; ok {
		if p.Seeds, err = parseSeedsJSON(v); err != nil {
			return nil, fmt.Errorf(`"seeds": %w`, err)
		}
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"out", &p.Out}, {"data", &p.DataDir}} {
		if v, ok := raw[f.key]; ok {
			if err := json.Unmarshal(v, f.dst); err != nil {
				return nil, fmt.Errorf("%q: want a directory name, have %s", f.key, v)
			}
		}
	}
	if v, ok := raw["numerics"]; ok {
		var name string
		if err := json.Unmarshal(v, &name); err != nil {
			return nil, fmt.Errorf(`"numerics": want "default" or "reference", have %s`, v)
		}
		if p.Numerics, err = numerics.Parse(name); err != nil {
			return nil, fmt.Errorf(`"numerics": %w`, err)
		}
	}
	for k, v := range raw {
		if slices.Contains(planKeys, k) {
			continue
		}
		var list []json.RawMessage
		grid := []byte("[")
		if isListSetting(k) {
			grid = []byte("[[") // a list of values, each a list
		}
		if bytes.HasPrefix(bytes.TrimSpace(v), grid) {
			if err := json.Unmarshal(v, &list); err != nil || len(list) == 0 {
				return nil, fmt.Errorf("%q: want a value or a non-empty list of values, have %s", k, v)
			}
		} else {
			list = []json.RawMessage{v}
		}
		p.Settings[k] = list
	}
	return p, nil
}

// isListSetting reports whether some run's setting called name takes a
// list as its value.
func isListSetting(name string) bool {
	for _, ds := range dataset.All {
		for _, f := range settings.Fields(ds.Settings()) {
			if f.Name == name {
				return f.IsList()
			}
		}
	}
	return false
}

// parseSeedsJSON reads seeds as a list of integers, one integer, or a
// string of comma-separated integers.
func parseSeedsJSON(v json.RawMessage) ([]uint64, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return ParseSeeds(s)
	}
	var list []uint64
	if err := json.Unmarshal(v, &list); err == nil {
		return checkSeeds(list)
	}
	var one uint64
	if err := json.Unmarshal(v, &one); err == nil {
		return []uint64{one}, nil
	}
	return nil, fmt.Errorf("want a list of non-negative integers, have %s", v)
}

// ParseSeeds reads a comma-separated list of distinct non-negative integers.
func ParseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a seed (a non-negative integer)", f)
		}
		out = append(out, v)
	}
	return checkSeeds(out)
}

func checkSeeds(seeds []uint64) ([]uint64, error) {
	if len(seeds) == 0 {
		return nil, errors.New("no seeds")
	}
	for i, s := range seeds {
		if slices.Contains(seeds[:i], s) {
			return nil, fmt.Errorf("seed %d is given twice (each seed is one run)", s)
		}
	}
	return seeds, nil
}

// Set sets the plan's key to one value given as text, as a command line
// gives it: a flag of wadn run or a setting.
func (p *Plan) Set(key, value string) error {
	switch key {
	case "dataset":
		p.Datasets = []string{value}
	case "scenario":
		p.Scenarios = []string{value}
	case "method":
		p.Methods = []string{value}
	case "target":
		p.Targets = []string{value}
	case "sources":
		p.Sources = strings.Split(value, ",")
	case "seeds":
		s, err := ParseSeeds(value)
		if err != nil {
			return fmt.Errorf("seeds: %w", err)
		}
		p.Seeds = s
	case "out":
		p.Out = value
	case "data":
		p.DataDir = value
	case "numerics":
		m, err := numerics.Parse(value)
		if err != nil {
			return err
		}
		p.Numerics = m
	default:
		if p.Settings == nil {
			p.Settings = map[string][]json.RawMessage{}
		}
		b, _ := json.Marshal(value)
		p.Settings[key] = []json.RawMessage{b}
	}
	return nil
}

// MaxRuns is the most runs a plan may expand to. A grid beyond it is
// refused before any run is built, the more so that listing it would take
// long: no machine or cluster trains that many runs of a sweep, and a
// larger study is split into several files.
const MaxRuns = 10000

// planCell is one data set, scenario, method and target of a plan, with the
// settings of the plan its runs read, by name.
type planCell struct {
	ds     *dataset.Dataset
	sc     data.Scenario
	method string
	target string
	reads  []string
}

// Specs expands the plan into its runs, in a fixed order: data sets,
// scenarios, methods, targets, then the settings' values (by name), then
// seeds. Defaults: amazon, uda, wadn, the data set's target, seed 0. Only
// methods the paper runs in a scenario, and scenarios a data set has, are
// combined; a plan that names one method and one scenario that do not go
// together is an error, and so is a plan of more than MaxRuns runs.
func (p *Plan) Specs() ([]*Spec, error) {
	cells, err := p.cells()
	if err != nil {
		return nil, err
	}
	seeds := p.Seeds
	if len(seeds) == 0 {
		seeds = []uint64{0}
	}
	total := 0
	for _, c := range cells {
		n := len(seeds)
		for _, name := range c.reads {
			n = min(n*len(p.Settings[name]), MaxRuns+1) // no overflow
		}
		if total = min(total+n, MaxRuns+1); total > MaxRuns {
			return nil, fmt.Errorf("the plan has more than %d runs (the most a plan may have): split it into several files", MaxRuns)
		}
	}
	var out []*Spec
	seen := map[string]bool{}
	for _, c := range cells {
		combos := [][]int{nil} // an index into each read setting's values
		for _, name := range c.reads {
			var next [][]int
			for _, co := range combos {
				for i := range p.Settings[name] {
					next = append(next, append(slices.Clone(co), i))
				}
			}
			combos = next
		}
		for _, co := range combos {
			for _, seed := range seeds {
				s, err := NewSpec(c.ds, c.sc, c.method)
				if err != nil {
					return nil, err
				}
				s.Target, s.Sources, s.Seed = c.target, slices.Clone(p.Sources), seed
				s.Numerics = p.Numerics
				for j, name := range c.reads {
					if err := s.SetJSON(name, p.Settings[name][co[j]]); err != nil {
						return nil, err
					}
				}
				if k := s.RunKey(); !seen[k] {
					seen[k] = true
					out = append(out, s)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the plan has no run: no method of it runs in its scenarios")
	}
	return out, nil
}

// cells returns the plan's cells in the order of Specs, refusing a
// setting that none reads.
func (p *Plan) cells() ([]planCell, error) {
	or := func(v []string, d string) []string {
		if len(v) == 0 {
			return []string{d}
		}
		return v
	}
	names := make([]string, 0, len(p.Settings))
	for k := range p.Settings {
		names = append(names, k)
	}
	slices.Sort(names)
	read := map[string]bool{}
	var cells []planCell
	var first *Spec
	single := len(or(p.Methods, "")) == 1 && len(or(p.Scenarios, "")) == 1 && len(or(p.Datasets, "")) == 1
	for _, dsName := range or(p.Datasets, dataset.Amazon.Name) {
		ds, err := dataset.Lookup(dsName)
		if err != nil {
			return nil, err
		}
		for _, scName := range or(p.Scenarios, data.UDA.String()) {
			sc, err := data.ParseScenario(scName)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(ds.Scenarios, sc) {
				if single {
					return nil, fmt.Errorf("%s is not run in the %s scenario", ds, sc)
				}
				continue
			}
			for _, m := range or(p.Methods, "wadn") {
				if _, err := Methods.Lookup(m, sc); err != nil {
					if single || !slices.Contains(Methods.Names(), m) {
						return nil, err
					}
					continue
				}
				for _, target := range or(p.Targets, ds.Target) {
					if target == "" {
						return nil, fmt.Errorf("%s has no default target: name one", ds)
					}
					base, err := NewSpec(ds, sc, m)
					if err != nil {
						return nil, err
					}
					if first == nil {
						first = base
					}
					c := planCell{ds: ds, sc: sc, method: m, target: target}
					fields := base.Fields()
					for _, name := range names {
						if _, err := settings.Lookup(fields, name); err == nil {
							read[name] = true
							c.reads = append(c.reads, name)
						}
					}
					cells = append(cells, c)
				}
			}
		}
	}
	for _, name := range names {
		if !read[name] {
			if first == nil {
				return nil, fmt.Errorf("the plan has no run, and %s is read by none: %w", name, ErrNotASetting)
			}
			return nil, fmt.Errorf("%s is %s: %w", name, first.whose(name), ErrNotASetting)
		}
	}
	return cells, nil
}

// strictJSON checks that b is one JSON object and nothing more (blanks
// aside), whose objects, at any depth, name no key twice, and that holds no
// null: JSON's decoders take the last of two keys and ignore what follows
// the value, which would run another grid than the file seems to say
// without a word. Errors name the key, by its path from the top.
func strictJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("not a JSON object of settings: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("not a JSON object of settings: the file holds %s", describeToken(tok))
	}
	if err := strictObject(dec, ""); err != nil {
		return err
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return fmt.Errorf("after the object: %w", err)
		}
		return fmt.Errorf("content after the object (%s at byte %d): one object is the whole file", describeToken(tok), dec.InputOffset())
	}
	return nil
}

// strictObject reads the members of an object whose '{' dec has read, up
// to its '}'; at is the object's path ("" for the file's).
func strictObject(dec *json.Decoder, at string) error {
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("not a JSON object of settings: %w", err)
		}
		key := tok.(string) // an object's member starts with its key
		path := key
		if at != "" {
			path = at + "." + key
		}
		if seen[key] {
			return fmt.Errorf("%q is given twice: name each key once", path)
		}
		seen[key] = true
		if err := strictValue(dec, path); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

// strictValue reads one value at path.
func strictValue(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("not a JSON object of settings: at %q: %w", path, err)
	}
	switch tok {
	case nil:
		return fmt.Errorf("%q: null is not a value (leave the key out for its default)", path)
	case json.Delim('{'):
		return strictObject(dec, path)
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := strictValue(dec, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err := dec.Token() // ']'
		return err
	}
	return nil
}

// describeToken names a JSON token in an error message.
func describeToken(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		if v == '[' {
			return "a list"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return fmt.Sprintf("the string %q", v)
	case bool:
		return fmt.Sprintf("%v", v)
	}
	return fmt.Sprintf("the number %v", tok)
}
