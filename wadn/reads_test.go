package wadn

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wadn-go/wadn/data"
)

// unreadValues holds, for every setting in settingReaders and
// settingScenarios, a valid value other than its default.
var unreadValues = map[string]any{
	"Eps": 0.3, "C0": 0.05, "C1": 2.0, "C2": 0.2, "GP": 3.0,
	"CentroidKeep": 0.5, "AlphaKeep": 0.5, "LambdaKeep": 0.5,
	"AlphaStart": 1, "LambdaStart": 1, "AlignStart": 2, "ExplicitStart": 1,
	"TargetWeight": 1.0, "EvalEstimate": true, "PseudoThreshold": 0.6,
	"SoftEstimate": true, "HeldOut": true, "OracleAlpha": true,
	"CodeCentroids": true, "CentroidMSE": true, "ClassNorm": true, "HiddenCentroids": true,
	"Baseline.Mu": 0.5, "Baseline.MDANGamma": 2.0, "Baseline.MDANHard": true,
	"Baseline.DARNGamma": 3.0, "Baseline.M3SDAMu": 0.1, "Baseline.M3SDAOrder": 2,
	"Baseline.M3SDACentral": true, "Baseline.PADAMu": 0.3, "Baseline.PADARamp": 3.0,
	"Baseline.MMELambda": 0.3, "Baseline.MMETemp": 0.1, "Baseline.RLUSC": 3.0,
	"Baseline.TargetWeight": 1.0, "Baseline.PoolSources": true, "Transductive": true,
}

// TestMethodsIgnoreUnreadSettings checks Method.Reads against training:
// every method, in every scenario it runs in, trains exactly as with the
// defaults when every setting it is said not to read there is changed, and
// differently when a setting it reads (the learning rate) is changed as
// well. A failure names the settings that change the run one by one.
func TestMethodsIgnoreUnreadSettings(t *testing.T) {
	keys := slices.Collect(maps.Keys(settingReaders))
	for k := range settingScenarios {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := unreadValues[k]; !ok {
			t.Fatalf("no test value for setting %s", k)
		}
	}
	for _, m := range Methods() {
		for _, sc := range m.Scenarios {
			readsIn(t, m, sc, keys)
		}
	}
}

// readsIn is TestMethodsIgnoreUnreadSettings for method m in scenario sc.
func readsIn(t *testing.T, m Method, sc data.Scenario, keys []string) {
	t.Run(m.Name+"-"+sc.String(), func(t *testing.T) {
		run := func(change func(*Config)) []EpochLog {
			t.Helper()
			cfg := tinyConfig(t, sc)
			cfg.Epochs = 2
			cfg.Baseline = DefaultBaselineConfig(cfg.Dataset, cfg.Scenario)
			change(&cfg)
			res, err := train(context.Background(), m.new(), tinyTask(sc), cfg, RunOptions{Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			for i := range res.History {
				res.History[i].Seconds = 0
			}
			return res.History
		}
		var unread []string
		for _, k := range keys {
			if !m.Reads(sc, k) {
				unread = append(unread, k)
			}
		}
		changeAll := func(cfg *Config) {
			for _, k := range unread {
				if err := cfg.Set(k, unreadValues[k]); err != nil {
					t.Fatal(err)
				}
			}
		}
		want := run(func(*Config) {})
		if got := run(changeAll); !cmp.Equal(got, want) {
			for _, k := range unread {
				if !cmp.Equal(run(func(cfg *Config) { cfg.Set(k, unreadValues[k]) }), want) {
					t.Errorf("%s changes the %s run, but Reads(%q) is false", k, sc, k)
				}
			}
		}
		if got := run(func(cfg *Config) { changeAll(cfg); cfg.LR /= 2 }); cmp.Equal(got, want) {
			t.Errorf("half the learning rate leaves the %s run unchanged", sc)
		}
	})
}

// TestReadsUnlisted checks that a setting not in settingReaders counts for
// every method, a listed one for its readers alone, and a setting of some
// scenarios for none in the others.
func TestReadsUnlisted(t *testing.T) {
	for _, m := range Methods() {
		for _, sc := range m.Scenarios {
			if !m.Reads(sc, "LR") || !m.Reads(sc, "Batch") || !m.Reads(sc, "SomeFutureSetting") {
				t.Errorf("%s in %s does not read a common setting", m.Name, sc)
			}
			if got, want := m.Reads(sc, "C0"), m.Name == "wadn"; got != want {
				t.Errorf("%s in %s reads C0: %v, want %v", m.Name, sc, got, want)
			}
			if got, want := m.Reads(sc, "Baseline.M3SDAMu"), m.Name == "m3sda"; got != want {
				t.Errorf("%s in %s reads Baseline.M3SDAMu: %v, want %v", m.Name, sc, got, want)
			}
			if got, want := m.Reads(sc, "Transductive"), sc == data.Limited; got != want {
				t.Errorf("%s in %s reads Transductive: %v, want %v", m.Name, sc, got, want)
			}
		}
	}
	wadn := Methods()[0]
	if wadn.Reads(data.Limited, "HeldOut") || !wadn.Reads(data.UDA, "HeldOut") {
		t.Error("WADN should read HeldOut without target labels only")
	}
	if !readsSetting("no-such-method", data.UDA, "C0") {
		t.Error("an unknown method should read every setting")
	}
}

// TestConfigSet checks setting Config fields by dotted path: the fields
// change and nothing else, and unknown keys and values of the wrong kind are
// refused with the config untouched.
func TestConfigSet(t *testing.T) {
	def, err := DefaultConfig("amazon", data.UDA)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key     string
		v       any
		want    func(*Config)
		wantErr string
	}{
		{"C0", 0.25, func(c *Config) { c.C0 = 0.25 }, ""},
		{"C0", 2, func(c *Config) { c.C0 = 2 }, ""},
		{"AlignStart", 7, func(c *Config) { c.AlignStart = 7 }, ""},
		{"HeldOut", true, func(c *Config) { c.HeldOut = true }, ""},
		{"Baseline.M3SDAOrder", 2, func(c *Config) { c.Baseline.M3SDAOrder = 2 }, ""},
		{"Baseline.MDANHard", true, func(c *Config) { c.Baseline.MDANHard = true }, ""},
		{"AlignStart", 0.5, nil, "AlignStart is a int"},
		{"HeldOut", 1, nil, "HeldOut is a bool"},
		{"C0", "0.1", nil, "C0 is a float64"},
		{"C0", nil, nil, "C0 is a float64"},
		{"Hidden", 3, nil, "Hidden is a []int"},
		{"NoSuch", 1, nil, `no setting "NoSuch"`},
		{"C0.X", 1, nil, `no setting "C0.X"`},
		{"Baseline.NoSuch", 1, nil, `no setting "Baseline.NoSuch"`},
	} {
		got := def
		err := got.Set(c.key, c.v)
		want := def
		if c.want != nil {
			c.want(&want)
		}
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("Set(%q, %v): %v", c.key, c.v, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("Set(%q, %v): error %v, want one with %q", c.key, c.v, err, c.wantErr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("Set(%q, %v) (-want +got):\n%s", c.key, c.v, d)
		}
	}
}
