package experiment

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn/baselines"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/nets"
)

// toySet is a data set declared in one entry: three generated domains of
// 60 rows, 4 features and 2 classes, embedded (generated on load), with a
// published figure and another default for one baseline.
var toySet = &dataset.Dataset{
	Name:      "toyset",
	Summary:   "three generated domains, 4 features, 2 classes",
	Domains:   []string{"a", "b", "c"},
	Loaded:    []string{"a", "b", "c"},
	Target:    "a",
	Embedded:  true,
	Scenarios: []data.Scenario{data.UDA, data.Limited},
	Schedule:  dataset.Schedule{Epochs: 2, Batch: 10, LR: 0.5},
	Sizes:     map[string][]data.Edition{"a": {{Train: 60}}, "b": {{Train: 60}}, "c": {{Train: 60}}},
	Lister: data.Lister{Dataset: "toyset", Sought: []string{"toyset/"}, Embedded: func() []data.Entry {
		var out []data.Entry
		for _, d := range toyDomains() {
			out = append(out, data.Entry{Dataset: "toyset", Domain: d.Name, Split: "train", Count: d.Train.Len(),
				Histogram: d.Train.Histogram(), Source: "embedded"})
		}
		return out
	}},
	Published:      map[string]map[string]map[string]float64{"uda": {"wadn": {"a": 50}}},
	MethodDefaults: []dataset.MethodDefault{{Method: "dann", Scenarios: []data.Scenario{data.UDA}, Set: map[string]string{"mu": "0.5"}}},
	PaperProtocol:  toyProtocol,
	NewSettings:    func() dataset.Settings { return &toySetSettings{Draw: dataset.DrawOf(toyProtocol(data.UDA)), Width: 8} },
}

// toyProtocol draws every row; with limited labels a fifth of every class
// is labelled.
func toyProtocol(sc data.Scenario) data.Protocol {
	return data.Protocol{Scenario: sc, LabelledFraction: 0.2, Stratified: true}
}

// toySetSettings are the toy data set's: its draw and the width of its MLP.
type toySetSettings struct {
	dataset.Draw
	Width int `setting:"toy-width" help:"hidden width of the toy data set's MLP"`
}

func (s *toySetSettings) Network() (nets.Network, error) {
	return &nets.MLP{Amazon: nets.Amazon{Hidden: []int{s.Width}, Depth: 1}, Inputs: 4}, nil
}

func (s *toySetSettings) Load(dir string, names []string, opt data.LoadOptions) ([]data.Domain, error) {
	ds := toyDomains()
	if names == nil {
		return ds, nil
	}
	var out []data.Domain
	for _, n := range names {
		out = append(out, ds[slices.IndexFunc(ds, func(d data.Domain) bool { return d.Name == n })])
	}
	return out, nil
}

// toyDomains generates the toy data set: in domain k, class c's rows are
// centred on c+k/4 in every feature.
func toyDomains() []data.Domain {
	var out []data.Domain
	for k, name := range []string{"a", "b", "c"} {
		rng := rand.New(rand.NewPCG(uint64(k), 9))
		x, y := make([]float32, 60*4), make([]int, 60)
		for i := range y {
			y[i] = i % 2
			for j := range 4 {
				x[i*4+j] = float32(y[i]) + float32(k)/4 + float32(rng.NormFloat64())*0.3
			}
		}
		out = append(out, data.Domain{Dataset: "toyset", Name: name,
			Train: data.Split{Dense: &data.Dense{N: 60, Shape: []int{4}, X: x}, Y: y, NumClasses: 2},
			Test:  data.Split{NumClasses: 2}})
	}
	return out
}

// TestNewDataset registers the toy data set with one line and checks that
// every reader of the registry sees it: lookup and the names of help, the
// listing, runs of a method through the runner, the report with the
// paper's figure, and a method's defaults on it.
func TestNewDataset(t *testing.T) {
	saved := dataset.All
	defer func() { dataset.All = saved }()
	dataset.All = append(slices.Clone(dataset.All), toySet) // the registry line

	if ds, err := dataset.Lookup("toyset"); err != nil || ds != toySet || !slices.Contains(dataset.Names(), "toyset") {
		t.Fatalf("lookup: %v, %v; names %v", ds, err, dataset.Names())
	}
	entries, err := dataset.Catalog("", nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, e := range entries {
		if e.Dataset == "toyset" && e.Count == 60 {
			listed++
		}
	}
	if listed != 3 {
		t.Errorf("the listing shows %d toyset domains of 60 rows, want 3", listed)
	}

	s, err := NewSpec(toySet, data.UDA, "wadn")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("toy-width", "6"); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	o, err := (&Runner{Out: out}).RunOne(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.Epochs != 2 || !(o.Result.Accuracy > 0) {
		t.Errorf("toyset run: %+v", o.Result)
	}
	rep, err := Collect(out)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| uda | toyset | wadn [toy-width 6] | a | 1 |") || !strings.Contains(b.String(), "50.00") {
		t.Errorf("report:\n%s", b.String())
	}

	// The data set's default for DANN, in UDA only.
	for sc, want := range map[data.Scenario]float64{data.UDA: 0.5, data.Limited: 1e-2} {
		c := baselines.DANN.Settings(toySet, sc).(*baselines.DANNSettings)
		if c.Mu != want {
			t.Errorf("dann mu on toyset %s: %v, want %v", sc, c.Mu, want)
		}
	}
}

// TestMethodDefaultsOfDatasets gives every method its defaults on every
// data set and scenario it runs in: each setting a data set declares for a
// method names a known method and one of its settings, and takes the
// declared value.
func TestMethodDefaultsOfDatasets(t *testing.T) {
	declared := 0
	for _, ds := range dataset.All {
		for _, md := range ds.MethodDefaults {
			known := false
			for _, m := range Methods {
				known = known || m.Name == md.Method
			}
			if !known {
				t.Errorf("%s: defaults for an unknown method %q", ds, md.Method)
			}
		}
		for _, sc := range ds.Scenarios {
			for _, m := range Methods {
				if !m.Runs(sc) {
					continue
				}
				cfg := m.Settings(ds, sc) // panics on a declaration it cannot set
				fs := settings.Fields(cfg)
				for k, v := range ds.MethodSettings(m.Name, sc) {
					f, err := settings.Lookup(fs, k)
					if err != nil {
						t.Errorf("%s %s %s: %v", ds, sc, m.Name, err)
						continue
					}
					want, _ := settings.Lookup(settings.Fields(m.Settings(toyPlain, sc)), k)
					if err := want.Set(v); err != nil || f.String() != want.String() {
						t.Errorf("%s %s %s: %s = %s, declared %s", ds, sc, m.Name, k, f.String(), v)
					}
					declared++
				}
			}
		}
	}
	if declared == 0 {
		t.Error("no data set declares a method's defaults")
	}
}

// toyPlain is a data set that declares no method defaults.
var toyPlain = &dataset.Dataset{Name: "plain"}
