package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/datadir"
	"github.com/wadn-go/wadn/optim"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
	"github.com/wadn-go/wadn/wadn/supervised"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// The golden logs pin what every method trains, epoch by epoch, so that a
// change meant to keep behaviour (a refactoring) can be shown to keep it to
// the last bit. They are the epoch logs of short runs at seed 0, without
// their timings, in testdata/golden/CASE.jsonl: on every data set of the
// registry that declares its short run (dataset.Dataset.Golden: two epochs
// on Amazon, 400 reviews drawn per domain, the target tested on 200 others;
// one epoch of a small Digits task, 16 images per domain, batches of 4; one
// epoch of Office-Caltech10, 100 rows per domain), trained with the pure-Go
// kernels, whose arithmetic is the same on every amd64 machine.
//
// With -golden.full the data sets that declare it (Amazon) take the paper's
// protocol (2000 reviews per domain) and this machine's kernels, and the
// logs are those of testdata/golden/full-IMPL: a longer check of the real
// runs, for machines with the kernels they were recorded on.
//
//	go test ./wadn/experiment -run TestGolden -golden.update                 # record
//	go test ./wadn/experiment -run TestGolden -golden.full [-golden.update]  # the paper's protocol
//	go test ./wadn/experiment -run TestGolden -golden.full -golden.impl avx2 # with other kernels this machine has
var (
	goldenUpdate = flag.Bool("golden.update", false, "rewrite the golden epoch logs of TestGolden")
	goldenFull   = flag.Bool("golden.full", false, "TestGolden on the paper's Amazon protocol with this machine's kernels")
	goldenImpl   = flag.String("golden.impl", "", "with -golden.full, the kernels to run (default: this machine's fastest), among those it has")
)

// goldenCase is one short run whose epoch log is pinned.
type goldenCase struct {
	name    string
	dataset *dataset.Dataset
	sc      data.Scenario
	method  string
	set     map[string]string // settings by name, after the defaults
}

// goldenCases returns every method in every scenario the paper runs it, on
// every data set that declares a golden run (dataset.Dataset.Golden), and
// the variants of their settings.
func goldenCases() []goldenCase {
	var cs []goldenCase
	for _, ds := range dataset.All {
		if ds.Golden == nil {
			continue
		}
		for _, sc := range ds.Scenarios {
			for _, m := range Methods {
				if m.Runs(sc) {
					cs = append(cs, goldenCase{name: fmt.Sprintf("%s-%s-%s", ds, sc, m.Name), dataset: ds, sc: sc, method: m.Name})
				}
			}
		}
	}
	variant := func(name string, ds *dataset.Dataset, sc data.Scenario, method string, set map[string]string) {
		cs = append(cs, goldenCase{name: fmt.Sprintf("%s-%s-%s-%s", ds, sc, method, name), dataset: ds, sc: sc, method: method, set: set})
	}
	am, dg, uda, lim := dataset.Amazon, dataset.Digits, data.UDA, data.Limited
	variant("paper-forms", am, uda, "wadn", map[string]string{"explicit": "paper", "class-norm": "false", "c0": "0.01", "alpha-keep": "0.7"})
	variant("code-centroids", am, uda, "wadn", map[string]string{"explicit": "code"})
	variant("hidden-centroids", am, uda, "wadn", map[string]string{"depth": "1", "centroids": "hidden"})
	variant("eval-estimate", am, uda, "wadn", map[string]string{"alpha": "eval"})
	variant("held-out", am, uda, "wadn", map[string]string{"alpha": "held-out", "soft-estimate": "true"})
	variant("soft-estimate", am, uda, "wadn", map[string]string{"soft-estimate": "true", "pseudo-threshold": "0.8"})
	variant("oracle-alpha", am, uda, "wadn", map[string]string{"alpha": "oracle"})
	variant("schedule", am, uda, "wadn", map[string]string{"align-start": "2", "explicit-start": "1", "alpha-start": "1", "lambda-start": "1", "c1": "max"})
	variant("transductive", am, lim, "wadn", map[string]string{"transductive": "true", "target-weight": "1"})
	variant("transductive", am, lim, "mme", map[string]string{"transductive": "true"})
	variant("target-weight", am, lim, "dann", map[string]string{"target-weight": "1"})
	variant("pooled", am, uda, "source", map[string]string{"pool-sources": "true"})
	variant("pooled", am, uda, "dann", map[string]string{"pool-sources": "true"})
	variant("hard", am, uda, "mdan", map[string]string{"mdan-hard": "true"})
	variant("central", am, uda, "m3sda", map[string]string{"m3sda-central": "true", "m3sda-order": "2"})
	variant("average", am, uda, "wadn", map[string]string{"average": "0.9"})
	variant("hidden-centroids", dg, uda, "wadn", map[string]string{"centroids": "hidden", "explicit": "squared", "class-norm": "true"})
	return cs
}

// goldenRunners hold the runners of the golden runs, by data set: one
// loads the domains for all, whose runs go to their own directories in out.
var goldenRunners = struct {
	sync.Mutex
	out string
	m   map[*dataset.Dataset]*Runner
}{m: map[*dataset.Dataset]*Runner{}}

// goldenRunner returns the runner of the data set's golden runs.
func goldenRunner(t *testing.T, ds *dataset.Dataset) *Runner {
	t.Helper()
	goldenRunners.Lock()
	defer goldenRunners.Unlock()
	if r, ok := goldenRunners.m[ds]; ok {
		return r
	}
	r := &Runner{Out: goldenRunners.out}
	if ds.Golden.NeedsData {
		dir, ok := datadir.Find()
		if !ok {
			t.Skipf("no data directory (set %s): the %s golden runs need its files", datadir.Env, ds)
		}
		r.DataDir = dir
	}
	goldenRunners.m[ds] = r
	return r
}

// goldenRun trains c at seed 0 and returns its epoch log, one JSON object
// per line, without the timings.
func goldenRun(t *testing.T, c goldenCase) []byte {
	t.Helper()
	s, err := NewSpec(c.dataset, c.sc, c.method)
	if err != nil {
		t.Fatal(err)
	}
	g := c.dataset.Golden
	if g.Target != "" {
		s.Target = g.Target
	}
	set := maps.Clone(g.Set)
	if *goldenFull {
		set = maps.Clone(g.Full)
	}
	maps.Copy(set, c.set)
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if err := s.Set(k, set[k]); err != nil {
			t.Fatal(err)
		}
	}
	out, err := goldenRunner(t, c.dataset).RunOne(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out.Dir, trainer.LogFile))
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
	tr := method.Train{Epochs: 2, Batch: 8, Settings: optim.Settings{LR: 1}, EvalBatch: 16}
	res, err := supervised.Train(context.Background(), d, nets.Digits{}, tr, method.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, r := range res.History {
		line, err := json.Marshal(map[string]any{"epoch": r.Epoch, "loss": r.Loss, "test_accuracy": r.Accuracy})
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
		if *goldenImpl != "" {
			impl = *goldenImpl
		}
		dir = filepath.Join(dir, "full-"+impl)
		if _, err := os.Stat(dir); err != nil && !*goldenUpdate {
			t.Skipf("no golden logs of the paper's protocol for the %s kernels (record them with -golden.update)", impl)
		}
	}
	prev, err := kernel.SetImpl(impl)
	if err != nil {
		t.Fatal(err)
	}
	goldenRunners.out = t.TempDir()
	t.Cleanup(func() {
		kernel.SetImpl(prev)
		clear(goldenRunners.m)
	})
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
		if *goldenFull && c.dataset.Golden.Full == nil {
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
