package wadn

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/datadir"
)

// The golden logs pin what every method trains, epoch by epoch, so that a
// change meant to keep behaviour (a refactoring) can be shown to keep it to
// the last bit. They are the epoch logs of short runs at seed 0, without
// their timings, in testdata/golden/CASE.jsonl: two epochs on Amazon (the
// embedded copy, 400 reviews drawn per domain, the target tested on 200
// others) and one epoch of a small Digits task (16 images per domain,
// batches of 4), trained with the pure-Go kernels, whose arithmetic is the
// same on every amd64 machine.
//
// With -golden.full the Amazon runs take the paper's protocol (2000 reviews
// per domain) and this machine's kernels, and the logs are those of
// testdata/golden/full-IMPL: a longer check of the real runs, for machines
// with the kernels they were recorded on.
//
//	go test ./wadn -run TestGolden -golden.update                 # record
//	go test ./wadn -run TestGolden -golden.full [-golden.update]  # the paper's protocol
var (
	goldenUpdate = flag.Bool("golden.update", false, "rewrite the golden epoch logs of TestGolden")
	goldenFull   = flag.Bool("golden.full", false, "TestGolden on the paper's Amazon protocol with this machine's kernels")
)

// goldenCase is one short run whose epoch log is pinned.
type goldenCase struct {
	name    string
	dataset string
	sc      data.Scenario
	method  string
	epochs  int
	set     map[string]any // Config settings by key (Config.Set), after the defaults
}

// goldenCases returns every method in every scenario the paper runs it, on
// Amazon (two epochs) and on a small Digits task (one epoch), and the
// variants of their settings.
func goldenCases() []goldenCase {
	var cs []goldenCase
	for _, ds := range []string{"amazon", "digits"} {
		for _, sc := range []data.Scenario{data.UDA, data.Limited, data.Partial} {
			if ds == "amazon" && sc == data.Partial {
				continue // two classes: no partial target
			}
			for _, m := range methods {
				if !slices.Contains(m.Scenarios, sc) {
					continue
				}
				c := goldenCase{name: fmt.Sprintf("%s-%s-%s", ds, sc, m.Name), dataset: ds, sc: sc, method: m.Name, epochs: 2}
				if ds == "digits" {
					c.epochs = 1
				}
				cs = append(cs, c)
			}
		}
	}
	variant := func(name, ds string, sc data.Scenario, method string, set map[string]any) {
		epochs := 2
		if ds == "digits" {
			epochs = 1
		}
		cs = append(cs, goldenCase{name: fmt.Sprintf("%s-%s-%s-%s", ds, sc, method, name), dataset: ds, sc: sc,
			method: method, epochs: epochs, set: set})
	}
	uda, lim := data.UDA, data.Limited
	variant("paper-forms", "amazon", uda, "wadn", map[string]any{"CentroidMSE": false, "ClassNorm": false, "C0": 0.01, "AlphaKeep": 0.7})
	variant("code-centroids", "amazon", uda, "wadn", map[string]any{"CodeCentroids": true})
	variant("hidden-centroids", "amazon", uda, "wadn", map[string]any{"Depth": 1, "HiddenCentroids": true})
	variant("eval-estimate", "amazon", uda, "wadn", map[string]any{"EvalEstimate": true})
	variant("held-out", "amazon", uda, "wadn", map[string]any{"HeldOut": true, "SoftEstimate": true})
	variant("soft-estimate", "amazon", uda, "wadn", map[string]any{"SoftEstimate": true, "PseudoThreshold": 0.8})
	variant("oracle-alpha", "amazon", uda, "wadn", map[string]any{"OracleAlpha": true})
	variant("schedule", "amazon", uda, "wadn", map[string]any{"AlignStart": 2, "ExplicitStart": 1, "AlphaStart": 1, "LambdaStart": 1, "C1": 0})
	variant("transductive", "amazon", lim, "wadn", map[string]any{"Transductive": true, "TargetWeight": 1})
	variant("transductive", "amazon", lim, "mme", map[string]any{"Transductive": true})
	variant("target-weight", "amazon", lim, "dann", map[string]any{"Baseline.TargetWeight": 1})
	variant("pooled", "amazon", uda, "source", map[string]any{"Baseline.PoolSources": true})
	variant("pooled", "amazon", uda, "dann", map[string]any{"Baseline.PoolSources": true})
	variant("hard", "amazon", uda, "mdan", map[string]any{"Baseline.MDANHard": true})
	variant("central", "amazon", uda, "m3sda", map[string]any{"Baseline.M3SDACentral": true, "Baseline.M3SDAOrder": 2})
	variant("hidden-centroids", "digits", uda, "wadn", map[string]any{"HiddenCentroids": true, "CentroidMSE": true, "ClassNorm": true})
	return cs
}

// goldenDomains loads the domains of a data set once for every golden run.
var goldenDomains = struct {
	sync.Mutex
	m map[string][]data.Domain
}{m: map[string][]data.Domain{}}

func goldenLoad(t *testing.T, dataset string) []data.Domain {
	t.Helper()
	goldenDomains.Lock()
	defer goldenDomains.Unlock()
	if d, ok := goldenDomains.m[dataset]; ok {
		return d
	}
	var d []data.Domain
	var err error
	switch dataset {
	case "amazon":
		d, err = data.LoadAmazon("")
	case "digits":
		dir, ok := datadir.Find()
		if !ok {
			t.Skip("no data directory (set " + datadir.Env + "): the Digits golden runs need MNIST, USPS and MNIST-M")
		}
		d, err = data.LoadDigitDomains(dir, []string{"mnist", "usps", "mnist_m", "synthgen"}, data.DigitsOptions{Scale: data.Raw})
	}
	if err != nil {
		t.Fatal(err)
	}
	goldenDomains.m[dataset] = d
	return d
}

// goldenRun trains c at seed 0 and returns its epoch log, one JSON object
// per line, without the timings.
func goldenRun(t *testing.T, c goldenCase) []byte {
	t.Helper()
	cfg, err := DefaultConfig(c.dataset, c.sc)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Baseline = DefaultBaselineConfig(c.dataset, c.sc)
	cfg.Epochs = c.epochs
	keys := make([]string, 0, len(c.set))
	for k := range c.set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := cfg.Set(k, c.set[k]); err != nil {
			t.Fatal(err)
		}
	}
	proto, err := DefaultProtocol(c.dataset, c.sc)
	if err != nil {
		t.Fatal(err)
	}
	target := "kitchen"
	switch c.dataset {
	case "amazon":
		if !*goldenFull {
			proto.TrainSize, proto.TestSize = 400, 200
		}
	case "digits":
		// A small task: 16 training and 16 test images per domain, batches
		// of 4, so that one epoch is a few steps.
		target = "usps"
		proto.TrainSize, proto.TestSize = 16, 16
		if c.sc == data.Partial {
			proto.KeepClasses = 5
		}
		cfg.Batch, cfg.EvalBatch = 4, 16
	}
	domains := goldenLoad(t, c.dataset)
	out := t.TempDir()
	e := &Experiment{Dataset: c.dataset, Target: target, Method: c.method, Seeds: []uint64{0},
		Config: cfg, Protocol: proto, Domains: domains, OutDir: out}
	if _, err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "seed0", LogFile))
	if err != nil {
		t.Fatal(err)
	}
	return stripSeconds(t, b)
}

// stripSeconds removes the "seconds" field from every line of an epoch log.
func stripSeconds(t *testing.T, log []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(log), []byte("\n")) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("epoch log line %q: %v", line, err)
		}
		delete(m, "seconds")
		b, err := json.Marshal(m) // keys sorted
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// goldenSupervised trains the digits CNN of "wadn train" for a few steps on
// a generated domain and returns its epoch log without the timings.
func goldenSupervised(t *testing.T) []byte {
	t.Helper()
	d, err := data.LoadSynthgen(data.DigitsOptions{Scale: data.Unit, SynthgenSeed: 3, SynthgenTrain: 32, SynthgenTest: 16})
	if err != nil {
		t.Fatal(err)
	}
	res, err := TrainSupervised(context.Background(), SupervisedConfig{Domain: d, Epochs: 2, Batch: 8, Seed: 0, EvalBatch: 16})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, r := range res {
		line, err := json.Marshal(map[string]any{"epoch": r.Epoch, "loss": r.Loss, "test_accuracy": r.TestAccuracy})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	impl, dir := "go", filepath.Join("testdata", "golden")
	if *goldenFull {
		impl = kernel.Impl()
		dir = filepath.Join(dir, "full-"+impl)
		if _, err := os.Stat(dir); err != nil && !*goldenUpdate {
			t.Skipf("no golden logs of the paper's protocol for the %s kernels (record them with -golden.update)", impl)
		}
	}
	prev, err := kernel.SetImpl(impl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kernel.SetImpl(prev) })
	if *goldenUpdate {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	check := func(t *testing.T, name string, got []byte) {
		path := filepath.Join(dir, name+".jsonl")
		if *goldenUpdate {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (record with -golden.update)", err)
		}
		if !bytes.Equal(got, want) {
			g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Fatalf("%s kernels: epoch log line %d differs from %s:\n got %s\nwant %s", impl, i+1, path, g[i], w[i])
				}
			}
			t.Fatalf("%s kernels: epoch log has %d lines, %s has %d", impl, len(g), path, len(w))
		}
	}
	for _, c := range goldenCases() {
		if *goldenFull && c.dataset != "amazon" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			check(t, c.name, goldenRun(t, c))
		})
	}
	if !*goldenFull {
		t.Run("supervised", func(t *testing.T) {
			t.Parallel()
			check(t, "supervised", goldenSupervised(t))
		})
	}
}
