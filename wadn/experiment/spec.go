// Package experiment runs the WADN paper's experiments and reports them: a
// Spec names one run (a method on one target of a data set in one scenario,
// at one seed, with all its settings), each run lives in a directory keyed
// by its identity, a Plan trains runs on this machine or one at a time on a
// cluster (sweeps), and a report gathers the runs of a tree of directories
// into the paper's tables.
package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/numerics"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn"
	"github.com/wadn-go/wadn/wadn/baselines"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
)

// Methods are the methods a run can train: WADN, then the baselines.
var Methods = append(method.Registry{wadn.Method}, baselines.All...)

// Spec is everything that decides one run's result but its data: the
// data set, the target and its sources, the scenario, the method, the seed
// and every setting. Make one with NewSpec, which sets the defaults, then
// change its settings with Set.
type Spec struct {
	Dataset  *dataset.Dataset
	Target   string
	Sources  []string // nil: every other domain loaded
	Scenario data.Scenario
	Method   method.Method
	Seed     uint64
	// Numerics is the numerics mode the run trains in (package numerics).
	// It is not a setting: the default mode leaves the identity as it
	// was, the reference mode is part of it (Identity.Numerics) and of the
	// Label, so runs in different modes never share a directory or a row.
	Numerics numerics.Mode

	Train  method.Train     // the training settings every method reads
	Data   dataset.Settings // the data set's settings
	Config any              // the method's settings (a pointer)
}

// NewSpec returns the spec of method on ds in scenario sc with every setting
// at its default, target ds.Target (may be "") and seed 0.
func NewSpec(ds *dataset.Dataset, sc data.Scenario, methodName string) (*Spec, error) {
	if !slices.Contains(ds.Scenarios, sc) {
		return nil, fmt.Errorf("%s is not run in the %s scenario", ds, sc)
	}
	m, err := Methods.Lookup(methodName, sc)
	if err != nil {
		return nil, err
	}
	return &Spec{Dataset: ds, Target: ds.Target, Scenario: sc, Method: m,
		Train: method.DefaultTrain(ds), Data: ds.Settings(), Config: m.Settings(ds, sc)}, nil
}

// Fields returns the spec's settings that its scenario reads: the training
// settings, the data set's, then the method's.
func (s *Spec) Fields() []settings.Field {
	var out []settings.Field
	for _, f := range settings.Fields(&s.Train, s.Data, s.Config) {
		if f.Reads(s.Scenario.String()) {
			out = append(out, f)
		}
	}
	return out
}

// ErrNotASetting is wrapped by Set's error for a name the run does not read.
var ErrNotASetting = errors.New("not a setting of this run")

// Set sets the setting called name from its text form. A name that no
// setting of the run has, or that its scenario does not read, is refused
// with an error wrapping ErrNotASetting that says whose setting it is, if
// anyone's.
func (s *Spec) Set(name, value string) error {
	f, err := settings.Lookup(s.Fields(), name)
	if err != nil {
		return fmt.Errorf("%s is %s: %w", name, s.whose(name), ErrNotASetting)
	}
	return f.Set(value)
}

// SetJSON sets the setting called name from a JSON value (see Set).
func (s *Spec) SetJSON(name string, raw json.RawMessage) error {
	f, err := settings.Lookup(s.Fields(), name)
	if err != nil {
		return fmt.Errorf("%s is %s: %w", name, s.whose(name), ErrNotASetting)
	}
	return f.SetJSON(raw)
}

// whose says why name is not a setting of the run.
func (s *Spec) whose(name string) string {
	for _, f := range settings.Fields(&s.Train, s.Data, s.Config) {
		if f.Name == name {
			return fmt.Sprintf("not read in the %s scenario (only in %s)", s.Scenario, strings.Join(f.Scenarios, ", "))
		}
	}
	var owners []string
	for _, m := range Methods {
		for _, sc := range m.Scenarios {
			if _, err := settings.Lookup(settings.Fields(m.Settings(s.Dataset, sc)), name); err == nil {
				owners = append(owners, m.Name)
				break
			}
		}
	}
	for _, d := range dataset.All {
		if _, err := settings.Lookup(settings.Fields(d.Settings()), name); err == nil {
			owners = append(owners, "data set "+d.Name)
		}
	}
	if len(owners) == 0 {
		return "no setting (wadn help settings lists them)"
	}
	return fmt.Sprintf("not a setting of method %s on %s (it is one of %s)", s.Method.Name, s.Dataset, strings.Join(owners, ", "))
}

// Values returns the canonical text of every setting of the run, by name.
func (s *Spec) Values() map[string]string { return settings.Values(s.Fields()) }

// Defaults returns a spec like s with every setting at its default.
func (s *Spec) Defaults() *Spec {
	d := *s
	d.Train = method.DefaultTrain(s.Dataset)
	d.Data = s.Dataset.Settings()
	d.Config = s.Method.Settings(s.Dataset, s.Scenario)
	return &d
}

// Changes returns the settings whose values differ from their defaults, in
// the order of Fields.
func (s *Spec) Changes() []settings.Change {
	var names []string
	for _, f := range s.Fields() {
		names = append(names, f.Name)
	}
	return settings.Diff(s.defaultValues(), s.Values(), names)
}

// defaults caches the Values of the defaults by data set, scenario and
// method, which a large plan's labels read for every run.
var defaults sync.Map // string -> map[string]string

// defaultValues returns the Values of s.Defaults(), which callers must not
// change.
func (s *Spec) defaultValues() map[string]string {
	k := s.Dataset.Name + "/" + s.Scenario.String() + "/" + s.Method.Name
	if v, ok := defaults.Load(k); ok {
		return v.(map[string]string)
	}
	v := s.Defaults().Values()
	defaults.Store(k, v)
	return v
}

// PaperTask reports whether the spec trains on the paper's task: the
// sources not chosen and the data drawn as the data set's defaults draw it
// (its protocol: the draw, the shift, the labelled share, ...). The
// paper's numbers are for that task alone; the method's settings and the
// network may differ.
func (s *Spec) PaperTask() bool {
	return s.Sources == nil &&
		reflect.DeepEqual(s.Dataset.Protocol(s.Scenario, s.Data), s.Dataset.Protocol(s.Scenario, s.Dataset.Settings()))
}

// Cell names the cell of a report the spec's runs fall in: data set,
// scenario, method, target and Label (which holds the sources when they
// were chosen), whatever the seed.
func (s *Spec) Cell() string {
	return strings.Join([]string{s.Dataset.Name, s.Scenario.String(), s.Method.Name, s.Target, s.Label()}, "|")
}

// RunKey names the spec's run among those of a plan: its Cell and its seed.
// Two specs of one RunKey are the same run.
func (s *Spec) RunKey() string { return fmt.Sprintf("%s|seed %d", s.Cell(), s.Seed) }

// Label describes how the spec's settings differ from the defaults,
// "c0 0.05, epochs 2", with "sources a,b" for a chosen source list: "" when
// they do not.
func (s *Spec) Label() string {
	var items []string
	for _, c := range s.Changes() {
		items = append(items, c.Name+" "+c.Now)
	}
	if s.Sources != nil {
		items = append(items, "sources "+strings.Join(s.Sources, ","))
	}
	if s.Numerics != numerics.Default {
		items = append(items, "numerics "+s.Numerics.String())
	}
	return strings.Join(items, ", ")
}

// Validate builds the method from the settings and checks the data set's,
// the sizes against their bounds and the run's memory (Spec.Memory)
// against what the machine holds (MachineMemory), reporting the first
// setting that cannot work; with a network check of
// the method's (WADN's hidden centroids need a hidden layer), it runs that
// too. It loads no data.
func (s *Spec) Validate() error {
	if err := s.Train.Validate(); err != nil {
		return err
	}
	if err := s.checkDomains(); err != nil {
		return err
	}
	if k, ok := s.intSetting("keep-classes"); ok && (k < 1 || k > s.Dataset.Classes) {
		return fmt.Errorf("keep-classes %d: want 1..%d, the classes of %s", k, s.Dataset.Classes, s.Dataset)
	}
	if err := s.checkSizes(); err != nil {
		return err
	}
	net, err := s.Data.Network()
	if err != nil {
		return err
	}
	m, err := s.Memory()
	if err != nil {
		return err
	}
	limit, of := MachineMemory()
	if err := checkMemory(m, limit, of); err != nil {
		return err
	}
	a, err := s.Method.New(s.Config)
	if err != nil {
		return err
	}
	if c, ok := a.(networkChecker); ok {
		return c.CheckNetwork(net)
	}
	return nil
}

// checkDomains checks the target and the sources against the data set's
// domains, before any data is loaded: a target it has, sources it has, each
// once and none the target, and at least one source.
func (s *Spec) checkDomains() error {
	ds := s.Dataset
	want := func() string { return strings.Join(ds.Domains, ", ") }
	if !slices.Contains(ds.Domains, s.Target) {
		return fmt.Errorf("target %q: %s has no such domain (want one of %s)", s.Target, ds, want())
	}
	if s.Sources == nil {
		for _, d := range ds.Loaded {
			if d != s.Target {
				return nil
			}
		}
		return fmt.Errorf("target %s: %s loads no other domain to be its source: name the sources", s.Target, ds)
	}
	if len(s.Sources) == 0 {
		return errors.New("sources: an empty list; name at least one source domain")
	}
	for i, src := range s.Sources {
		switch {
		case src == "":
			return fmt.Errorf("sources %q: an empty name", strings.Join(s.Sources, ","))
		case !slices.Contains(ds.Domains, src):
			return fmt.Errorf("source %q: %s has no such domain (want one of %s)", src, ds, want())
		case src == s.Target:
			return fmt.Errorf("source %q is the target too", src)
		case slices.Contains(s.Sources[:i], src):
			return fmt.Errorf("source %q is named twice", src)
		}
	}
	return nil
}

// setting returns the setting called name, when the run reads one.
func (s *Spec) setting(name string) (settings.Field, bool) {
	f, err := settings.Lookup(s.Fields(), name)
	return f, err == nil
}

// intSetting returns the value of the integer setting called name, when
// the run reads one.
func (s *Spec) intSetting(name string) (int, bool) {
	f, ok := s.setting(name)
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(f.String())
	return v, err == nil
}

// networkChecker is an algorithm that can tell, before any data is loaded,
// whether a network suits its settings.
type networkChecker interface {
	CheckNetwork(net nets.Network) error
}

// File returns the spec as an experiment file (ReadPlan) of one run: the
// flags' keys and every setting by name.
func (s *Spec) File() map[string]any {
	f := settings.Map(s.Fields())
	f["dataset"], f["target"], f["scenario"], f["method"] = s.Dataset.Name, s.Target, s.Scenario.String(), s.Method.Name
	f["seeds"] = []uint64{s.Seed}
	if s.Sources != nil {
		f["sources"] = s.Sources
	}
	if s.Numerics != numerics.Default {
		f["numerics"] = s.Numerics.String()
	}
	return f
}

// Identity is what a run directory records of its run: the spec, and the
// checksums of the domains it trains on (data.Domain.Checksum). Two runs
// with the same identity give the same result.
type Identity struct {
	Dataset  string            `json:"dataset"`
	Target   string            `json:"target"`
	Sources  []string          `json:"sources"` // the sources trained on, in order
	Scenario string            `json:"scenario"`
	Method   string            `json:"method"`
	Seed     uint64            `json:"seed"`
	Settings map[string]any    `json:"settings"` // every setting the run reads (settings.Recorded)
	Data     map[string]string `json:"data"`     // domain name -> checksum
	// Unverified lists the checks of the data against the published data
	// sets that were waived (data.LoadOptions.AllowUnverified); nil when
	// every check passed.
	Unverified []string `json:"unverified,omitempty"`
	// Numerics is the numerics mode, "" for the default mode (so that the
	// identities of runs in the default mode are those of before the mode
	// existed), "reference" for the reference mode.
	Numerics string `json:"numerics,omitempty"`
}

// Key returns a short hash of the identity: the same for the same identity,
// different (but for a 1 in 2^48 chance) for any other.
func (id *Identity) Key() string {
	b, err := json.Marshal(id) // map keys sorted: canonical
	if err != nil {
		panic(err) // plain values only
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// Name returns the run directory's name: readable fields and the key.
func (id *Identity) Name() string {
	return fmt.Sprintf("%s-%s-%s-%s-seed%d-%s", id.Dataset, id.Target, id.Scenario, id.Method, id.Seed, id.Key())
}

// Identity returns the run's identity with the checksums of domains, the
// target and its sources.
func (s *Spec) Identity(domains []data.Domain) (*Identity, error) {
	picked, err := pick(domains, s.Target, s.Sources)
	if err != nil {
		return nil, err
	}
	id := &Identity{Dataset: s.Dataset.Name, Target: s.Target, Scenario: s.Scenario.String(), Method: s.Method.Name,
		Seed: s.Seed, Settings: settings.Recorded(s.Fields()), Data: map[string]string{}}
	if s.Numerics != numerics.Default {
		id.Numerics = s.Numerics.String()
	}
	for _, d := range picked {
		if d.Name != s.Target {
			id.Sources = append(id.Sources, d.Name)
		}
		id.Data[d.Name] = d.Checksum()
		id.Unverified = append(id.Unverified, d.Unverified...)
	}
	return id, nil
}

// SpecOf returns the spec an identity records.
func SpecOf(id *Identity) (*Spec, error) {
	ds, err := dataset.Lookup(id.Dataset)
	if err != nil {
		return nil, err
	}
	sc, err := data.ParseScenario(id.Scenario)
	if err != nil {
		return nil, err
	}
	s, err := NewSpec(ds, sc, id.Method)
	if err != nil {
		return nil, err
	}
	s.Target, s.Seed = id.Target, id.Seed
	if id.Numerics != "" {
		if s.Numerics, err = numerics.Parse(id.Numerics); err != nil {
			return nil, err
		}
	}
	// Sources chosen are kept; the default, every other domain loaded, is nil.
	var others []string
	for _, d := range ds.Loaded {
		if d != id.Target {
			others = append(others, d)
		}
	}
	if !slices.Equal(others, id.Sources) {
		s.Sources = slices.Clone(id.Sources)
	}
	if err := settings.Restore(s.Fields(), id.Settings); err != nil {
		if errors.Is(err, settings.ErrUnknown) {
			return nil, fmt.Errorf("%w: %w", err, ErrNotASetting)
		}
		return nil, err
	}
	return s, nil
}

// pick returns the target and the sources among domains: the named sources,
// or every other domain when sources is nil.
func pick(domains []data.Domain, target string, sources []string) ([]data.Domain, error) {
	var out []data.Domain
	var names []string
	found := false
	for _, d := range domains {
		names = append(names, d.Name)
		switch {
		case d.Name == target:
			found = true
			out = append(out, d)
		case sources == nil || slices.Contains(sources, d.Name):
			out = append(out, d)
		}
	}
	if !found {
		return nil, fmt.Errorf("target %q is not among the domains %s", target, strings.Join(names, ", "))
	}
	for i, s := range sources {
		if s == "" {
			return nil, errors.New("empty source name")
		}
		if slices.Contains(sources[:i], s) {
			return nil, fmt.Errorf("source %q is named twice", s)
		}
		if !slices.Contains(names, s) {
			return nil, fmt.Errorf("source %q is not among the domains %s", s, strings.Join(names, ", "))
		}
		if s == target {
			return nil, fmt.Errorf("%q is both the target and a source", s)
		}
	}
	if len(out) < 2 {
		return nil, errors.New("no source domain")
	}
	return out, nil
}
