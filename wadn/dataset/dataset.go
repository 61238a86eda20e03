// Package dataset is the registry of the data sets the WADN paper's
// experiments run on: for each, its domains, how an adaptation task is drawn
// from them (its protocol), how they are loaded, its network, and the
// training schedule the paper gives for it.
//
// Each data set is declared in one place, a file of its own holding its
// entry: its domains, each under one name, with their published sizes; its
// files, listing and downloads with their checksums; its reader and
// preprocessing (its Settings' Load), its network, its defaults per scenario,
// the methods' settings that differ on it, its golden runs and the paper's
// figures for it. Listings, help, integrity checks, goldens and reports read
// the entries through All.
//
// A data set is known by name only at the edge (Lookup); everywhere else it
// is one of the values of All.
package dataset

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/data/fetch"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn/nets"
)

// Dataset is one data set of the paper's experiments.
type Dataset struct {
	// Name is how commands and files name the data set.
	Name string
	// Aliases are other names Lookup accepts.
	Aliases []string
	// Domains are the domains it has, in the order of the paper's tables.
	Domains []string
	// Loaded are the domains a run loads when it names no sources: the
	// target's sources are then the others.
	Loaded []string
	// Target is the default target domain of a run.
	Target string
	// Classes is the number of classes of every domain.
	Classes int
	// Embedded tells that the data set loads without a data directory.
	Embedded bool
	// Scenarios are the scenarios it can be run in.
	Scenarios []data.Scenario
	// Schedule is its default training schedule: the paper's, or the
	// authors' code's where the two differ (docs/ says which).
	Schedule Schedule

	// Summary says in a line what the data set is.
	Summary string
	// Sizes are the published rows of every domain's splits, by domain
	// name, each domain under the one name it has everywhere: a load from
	// files is refused unless its rows are one of these forms (package
	// data's strict loading).
	Sizes map[string][]data.Edition
	// Lister lists what a data directory and the binary hold of the data
	// set (wadn data ls).
	Lister data.Lister
	// Downloads are the public sources "wadn data get" fetches it from,
	// with their published checksums.
	Downloads []fetch.Dataset
	// Published are the paper's accuracies (%) by scenario, method and
	// target; PublishedAverage its printed averages over the targets, by
	// scenario and method, where it prints them. Nil where the paper has
	// none.
	Published        map[string]map[string]map[string]float64
	PublishedAverage map[string]map[string]float64
	// MethodDefaults are the settings of methods whose defaults on this data
	// set differ from the method's own, applied in order.
	MethodDefaults []MethodDefault
	// Golden is the short run whose epoch logs the golden tests pin for
	// every method; nil for a data set without golden runs.
	Golden *Golden

	// PaperProtocol returns the protocol of scenario sc at the defaults:
	// how a task is drawn from the domains.
	PaperProtocol func(sc data.Scenario) data.Protocol
	// NewSettings returns the data set's settings at their defaults: its
	// draw, its reader and preprocessing (Settings.Load) and its network.
	NewSettings func() Settings
}

// MethodDefault gives a method other defaults on a data set.
type MethodDefault struct {
	// Method is the method's name.
	Method string
	// Scenarios are those it applies to; nil: every one.
	Scenarios []data.Scenario
	// Set are the settings' values by name, in their text forms.
	Set map[string]string
}

// Golden is the short run of a data set's golden epoch logs: its target and
// the settings, by name, that make it short.
type Golden struct {
	Target string
	Set    map[string]string
	// NeedsData tells that it reads the data directory.
	NeedsData bool
	// Full are the settings of the longer check on the paper's protocol
	// with the machine's kernels (go test -golden.full); nil: none.
	Full map[string]string
}

// MethodSettings returns the settings, by name, that the data set gives
// method in scenario sc other defaults for: its MethodDefaults in order.
func (d *Dataset) MethodSettings(method string, sc data.Scenario) map[string]string {
	out := map[string]string{}
	for _, m := range d.MethodDefaults {
		if m.Method == method && (m.Scenarios == nil || slices.Contains(m.Scenarios, sc)) {
			maps.Copy(out, m.Set)
		}
	}
	return out
}

// Load loads the named domains (nil: Loaded) from dir, or from the copy
// embedded in the binary when dir is "", as s delivers them, checking every
// domain read from files against Sizes (and the SHA256SUMS lists as opt
// says). It refuses a domain the data set does not have.
func (d *Dataset) Load(s Settings, dir string, names []string, opt data.LoadOptions) ([]data.Domain, error) {
	for _, n := range names {
		if n != "" && !slices.Contains(d.Domains, n) { // an empty name is the run's to refuse
			return nil, fmt.Errorf("%s has no domain %q (want one of %s)", d.Name, n, strings.Join(d.Domains, ", "))
		}
	}
	if dir == "" && !d.Embedded {
		return nil, fmt.Errorf("%s has no embedded copy: give its data directory", d.Name)
	}
	opt.Editions = d.Sizes
	return s.Load(dir, names, opt)
}

// Schedule is a training schedule: epochs, the samples of each domain per
// step, the optimiser's learning rate, and the weight of the past in the
// moving average of the weights that is evaluated (0: none; see
// method.Train.Average).
type Schedule struct {
	Epochs, Batch int
	LR            float64
	Average       float64
}

// Settings are the settings a data set owns: how its samples are drawn and
// delivered, and its network. Each data set has its own type (AmazonSettings,
// DigitsSettings, OfficeHomeSettings), a pointer to a struct of tagged
// fields (package internal/settings).
type Settings interface {
	// Network returns the network these settings describe.
	Network() (nets.Network, error)
	// Apply sets the protocol's options that the settings choose.
	Apply(p *data.Protocol)
	// Load loads the named domains (nil: Dataset.Loaded) from dir, checking
	// them as opt says (package data's strict loading).
	Load(dir string, names []string, opt data.LoadOptions) ([]data.Domain, error)
}

// All is the registry: every data set, in the order of listings and help.
// A data set is added with one entry here and the file declaring it.
var All = []*Dataset{Amazon, Digits, OfficeCaltech, OfficeHome}

// Lookup returns the data set called name, or one of its aliases.
func Lookup(name string) (*Dataset, error) {
	for _, d := range All {
		if d.Name == name || slices.Contains(d.Aliases, name) {
			return d, nil
		}
	}
	return nil, fmt.Errorf("unknown data set %q (want %s)", name, strings.Join(Names(), ", "))
}

// Names returns the names of the data sets, in registry order.
func Names() []string {
	names := make([]string, len(All))
	for i, d := range All {
		names[i] = d.Name
	}
	return names
}

// String returns the data set's name.
func (d *Dataset) String() string { return d.Name }

// Settings returns the data set's settings at their defaults.
func (d *Dataset) Settings() Settings { return d.NewSettings() }

// Protocol returns the paper's protocol for scenario sc, with the options s
// chooses.
func (d *Dataset) Protocol(sc data.Scenario, s Settings) data.Protocol {
	p := d.PaperProtocol(sc)
	s.Apply(&p)
	return p
}

// Draw are the settings of how a task is drawn from the domains, which every
// data set has.
type Draw struct {
	Split       SplitRule `setting:"split" help:"how each domain's samples are drawn: pool (from its train and test rows, the target tested on the rest, as the MDAN and DARN code draws the Amazon reviews) or fixed (from its train rows; the target tested on its test rows)"`
	TrainSize   Size      `setting:"train-size" help:"samples drawn at random from every domain (all: every one, in file order)"`
	TestSize    Size      `setting:"test-size" help:"target test samples drawn from the rest (all: every one)"`
	KeepClasses int       `setting:"keep-classes" scenarios:"partial" help:"classes the target keeps in partial UDA, drawn per seed"`
	// LabelFraction was fixed at 0.1 before it was a setting; runs recorded
	// then hold no value for it.
	LabelFraction float64 `setting:"label-fraction" scenarios:"limited" range:"(0,1)" record:"omit=0.1" help:"share of the target's training rows that are labelled with limited labels (the rest is its test set)"`
}

// Shift is the setting of the label shift of the data sets whose sources
// the paper shifts: the share of the rows of the shifted classes (Amazon's
// negative reviews, Digits' 5-9) dropped from every source. It was fixed at
// the paper's 0.5 before it was a setting; runs recorded then hold no value
// for it.
type Shift struct {
	Shift float64 `setting:"shift" range:"[0,1]" record:"omit=0.5" help:"share of every source's rows of the shifted classes (Amazon: the negative reviews; Digits: 5-9) dropped at random; 0: no label shift"`
}

// ShiftOf returns the shift of protocol p.
func ShiftOf(p data.Protocol) Shift { return Shift{Shift: p.DropRate} }

// Apply sets the protocol's drop rate.
func (s *Shift) Apply(p *data.Protocol) { p.DropRate = s.Shift }

// DrawOf returns the draw that gives protocol p: a data set's settings
// start from the draw of its protocol.
func DrawOf(p data.Protocol) Draw {
	d := Draw{Split: Fixed, TrainSize: Size(p.TrainSize), TestSize: Size(p.TestSize), KeepClasses: p.KeepClasses,
		LabelFraction: p.LabelledFraction}
	if p.Pool {
		d.Split = Pool
	}
	return d
}

// Apply sets the protocol's options that the draw chooses.
func (d *Draw) Apply(p *data.Protocol) {
	p.Pool = d.Split == Pool
	p.TrainSize, p.TestSize, p.KeepClasses = int(d.TrainSize), int(d.TestSize), d.KeepClasses
	p.LabelledFraction = d.LabelFraction
}

// Size is a count of samples, or Every.
type Size int

// Every takes every sample.
const Every Size = 0

// MarshalText returns "all" or the count.
func (n Size) MarshalText() ([]byte, error) {
	if n == Every {
		return []byte("all"), nil
	}
	return strconv.AppendInt(nil, int64(n), 10), nil
}

// SettingType describes Size's values for help texts.
func (Size) SettingType() string { return "integer|all" }

// UnmarshalText reads "all" or a positive count.
func (n *Size) UnmarshalText(b []byte) error {
	if string(b) == "all" {
		*n = Every
		return nil
	}
	v, err := strconv.Atoi(string(b))
	if err != nil || v <= 0 {
		return fmt.Errorf("%q is not all or a positive count", b)
	}
	*n = Size(v)
	return nil
}

// SplitRule says how a domain's samples are drawn into a task (the split
// setting); it is no data.Split, which holds samples.
type SplitRule int

const (
	// Pool draws each domain's training samples from its train and test
	// rows together and tests the target on the rows not drawn, as the MDAN
	// and DARN code splits the Amazon reviews (data.Protocol.Pool).
	Pool SplitRule = iota
	// Fixed draws the training samples from the train rows and tests the
	// target on its test rows.
	Fixed
)

var splitNames = [...]string{Pool: "pool", Fixed: "fixed"}

// MarshalText returns "pool" or "fixed".
func (s SplitRule) MarshalText() ([]byte, error) {
	return settings.EnumText(splitNames[:], int(s), "split")
}

// UnmarshalText reads "pool" or "fixed".
func (s *SplitRule) UnmarshalText(b []byte) error {
	return settings.ParseEnum(splitNames[:], b, (*int)(s))
}

// Values lists the splits.
func (SplitRule) Values() []string { return splitNames[:] }
