// Package dataset is the registry of the data sets the WADN paper's
// experiments run on: for each, its domains, how an adaptation task is drawn
// from them (its protocol), how they are loaded, its network, and the
// training schedule the paper gives for it.
//
// A data set is known by name only at the edge (Lookup); everywhere else it
// is one of the values Amazon, Digits and OfficeHome.
package dataset

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wadn-go/wadn/data"
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
	// Embedded tells that the data set loads without a data directory.
	Embedded bool
	// Scenarios are the scenarios it can be run in.
	Scenarios []data.Scenario
	// Schedule is its default training schedule: the paper's, or the
	// authors' code's where the two differ (docs/ says which).
	Schedule Schedule

	protocol func(sc data.Scenario) data.Protocol
	settings func() Settings
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

// The data sets.
var (
	Amazon = &Dataset{
		Name:    "amazon",
		Domains: []string{"books", "dvd", "electronics", "kitchen"},
		Loaded:  []string{"books", "dvd", "electronics", "kitchen"},
		Target:  "kitchen", Embedded: true,
		Scenarios: []data.Scenario{data.UDA, data.Limited}, // two classes: no partial target
		Schedule:  Schedule{Epochs: 50, Batch: 20, LR: 0.5},
		protocol:  data.AmazonProtocol,
		settings: func() Settings {
			return &AmazonSettings{Draw: drawOf(data.AmazonProtocol(data.UDA)), Amazon: nets.DefaultAmazon()}
		},
	}
	Digits = &Dataset{
		Name:      "digits",
		Domains:   []string{"mnist", "usps", "mnist_m", "synthgen", "svhn", "synth"},
		Loaded:    []string{"mnist", "usps", "mnist_m", "synthgen"},
		Target:    "mnist",
		Scenarios: data.Scenarios,
		// The authors' code's schedule; the evaluated weights are their
		// moving average, chosen on the sources' held-out rows
		// (docs/digits.md).
		Schedule: Schedule{Epochs: 50, Batch: 20, LR: 0.5, Average: 0.9995},
		protocol: data.DigitsProtocol,
		settings: func() Settings {
			d := drawOf(data.DigitsProtocol(data.UDA))
			d.KeepClasses = 5 // of 10, as the paper keeps 35 of Office-Home's 65
			return &DigitsSettings{Draw: d, Pixels: data.Raw}
		},
	}
	OfficeHome = &Dataset{
		Name:      "office-home",
		Aliases:   []string{"officehome"},
		Domains:   []string{"art", "clipart", "product", "real"},
		Loaded:    []string{"art", "clipart", "product", "real"},
		Scenarios: data.Scenarios,
		Schedule:  Schedule{Epochs: 100, Batch: 32, LR: 1.0},
		protocol:  data.OfficeHomeProtocol,
		settings:  func() Settings { return &OfficeHomeSettings{Draw: drawOf(data.OfficeHomeProtocol(data.Partial))} },
	}
)

// All lists the data sets.
var All = []*Dataset{Amazon, Digits, OfficeHome}

// Lookup returns the data set called name, or one of its aliases.
func Lookup(name string) (*Dataset, error) {
	for _, d := range All {
		if d.Name == name || slices.Contains(d.Aliases, name) {
			return d, nil
		}
	}
	names := make([]string, len(All))
	for i, d := range All {
		names[i] = d.Name
	}
	return nil, fmt.Errorf("unknown data set %q (want %s)", name, strings.Join(names, ", "))
}

// String returns the data set's name.
func (d *Dataset) String() string { return d.Name }

// Settings returns the data set's settings at their defaults.
func (d *Dataset) Settings() Settings { return d.settings() }

// Protocol returns the paper's protocol for scenario sc, with the options s
// chooses.
func (d *Dataset) Protocol(sc data.Scenario, s Settings) data.Protocol {
	p := d.protocol(sc)
	s.Apply(&p)
	return p
}

// Draw are the settings of how a task is drawn from the domains, which every
// data set has.
type Draw struct {
	Split       Split `setting:"split" help:"how each domain's samples are drawn: pool (from its train and test rows, the target tested on the rest, as the MDAN and DARN code draws the Amazon reviews) or fixed (from its train rows; the target tested on its test rows)"`
	TrainSize   Size  `setting:"train-size" help:"samples drawn at random from every domain (all: every one, in file order)"`
	TestSize    Size  `setting:"test-size" help:"target test samples drawn from the rest (all: every one)"`
	KeepClasses int   `setting:"keep-classes" scenarios:"partial" help:"classes the target keeps in partial UDA, drawn per seed"`
}

// drawOf returns the draw of protocol p.
func drawOf(p data.Protocol) Draw {
	d := Draw{Split: Fixed, TrainSize: Size(p.TrainSize), TestSize: Size(p.TestSize), KeepClasses: p.KeepClasses}
	if p.Pool {
		d.Split = Pool
	}
	return d
}

// Apply sets the protocol's options that the draw chooses.
func (d *Draw) Apply(p *data.Protocol) {
	p.Pool = d.Split == Pool
	p.TrainSize, p.TestSize, p.KeepClasses = int(d.TrainSize), int(d.TestSize), d.KeepClasses
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

// Split says how a domain's samples are drawn into a task.
type Split int

const (
	// Pool draws each domain's training samples from its train and test
	// rows together and tests the target on the rows not drawn, as the MDAN
	// and DARN code splits the Amazon reviews (data.Protocol.Pool).
	Pool Split = iota
	// Fixed draws the training samples from the train rows and tests the
	// target on its test rows.
	Fixed
)

var splitNames = [...]string{Pool: "pool", Fixed: "fixed"}

// MarshalText returns "pool" or "fixed".
func (s Split) MarshalText() ([]byte, error) {
	return settings.EnumText(splitNames[:], int(s), "split")
}

// UnmarshalText reads "pool" or "fixed".
func (s *Split) UnmarshalText(b []byte) error { return settings.ParseEnum(splitNames[:], b, (*int)(s)) }

// Values lists the splits.
func (Split) Values() []string { return splitNames[:] }

// AmazonSettings are the settings of the Amazon reviews: the split and the
// MLP's layout.
type AmazonSettings struct {
	Draw
	nets.Amazon
}

// Network returns the Amazon MLP.
func (s *AmazonSettings) Network() (nets.Network, error) {
	if err := s.Amazon.Validate(); err != nil {
		return nil, err
	}
	a := s.Amazon
	return &a, nil
}

// Load loads the four domains from dir, or the copy embedded in the binary
// when dir is "".
func (s *AmazonSettings) Load(dir string, names []string, opt data.LoadOptions) ([]data.Domain, error) {
	return data.LoadAmazonWith(dir, opt)
}

// DigitsSettings are the settings of the digit domains.
type DigitsSettings struct {
	Draw
	Pixels data.PixelScale `setting:"pixels" help:"pixel values: raw (0-255, as the authors' code feeds them) or unit ([0, 1])"`
}

// Network returns the Digits CNN.
func (s *DigitsSettings) Network() (nets.Network, error) { return nets.Digits{}, nil }

// Load loads the named digit domains from dir (nil: Digits.Loaded).
func (s *DigitsSettings) Load(dir string, names []string, opt data.LoadOptions) ([]data.Domain, error) {
	if names == nil {
		names = Digits.Loaded
	}
	return data.LoadDigitDomains(dir, names, data.DigitsOptions{Scale: s.Pixels, LoadOptions: opt})
}

// OfficeHomeSettings are the settings of the Office-Home features.
type OfficeHomeSettings struct {
	Draw
}

// Network returns the Office-Home head.
func (s *OfficeHomeSettings) Network() (nets.Network, error) { return nets.OfficeHome{}, nil }

// Load loads the named Office-Home domains from dir (nil: the four).
func (s *OfficeHomeSettings) Load(dir string, names []string, opt data.LoadOptions) ([]data.Domain, error) {
	if len(names) == 0 {
		names = OfficeHome.Loaded
	}
	var out []data.Domain
	for _, n := range names {
		d, err := data.LoadOfficeHomeWith(dir, n, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}
