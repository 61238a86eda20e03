package main

import (
	"encoding/json"
	"flag"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn"
)

func TestRunRejectsBadMethod(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--method", "cdan"}, "mdan, mdmn, m3sda, darn, pada, mme, rlus"},
		{[]string{"run", "--method", "mme"}, "limited"},
		{[]string{"run", "--method", "pada", "--scenario", "limited"}, "partial"},
	} {
		code, _, errOut := runArgs(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message with %q", c.args, code, errOut, c.want)
		}
	}
	if code, _, errOut := runArgs(t, "", "run", "--method", "darn", "--mdan-gamma", "x"); code == 0 || !strings.Contains(errOut, "mdan-gamma") {
		t.Errorf("--mdan-gamma x: exit %d, stderr %q", code, errOut)
	}
}

func TestRunHelpListsMethods(t *testing.T) {
	_, _, errOut := runArgs(t, "", "run", "-h")
	for _, m := range wadn.MethodNames() {
		if !strings.Contains(errOut, "  "+m+" (") {
			t.Errorf("run -h does not describe method %q:\n%s", m, errOut)
		}
	}
}

// TestConfigFlags checks every hyperparameter flag of wadn run against the
// Config settings it is meant to set: given for a method that reads them,
// it sets them to its value and changes nothing else; given for a method
// that does not, it is refused.
func TestConfigFlags(t *testing.T) {
	values := map[string]string{"float64": "0.37", "int": "7", "bool": "true"}
	settings := map[string]string{
		"lr": "LR", "batch": "Batch", "dropout": "Dropout", "depth": "Depth", "transductive": "Transductive",
		"eps": "Eps", "c0": "C0", "c1": "C1", "c2": "C2", "gp": "GP",
		"centroid-keep": "CentroidKeep", "alpha-keep": "AlphaKeep", "lambda-keep": "LambdaKeep",
		"alpha-start": "AlphaStart", "lambda-start": "LambdaStart", "align-start": "AlignStart",
		"explicit-start": "ExplicitStart", "held-out": "HeldOut", "oracle-alpha": "OracleAlpha",
		"pseudo-threshold": "PseudoThreshold", "soft-estimate": "SoftEstimate", "eval-estimate": "EvalEstimate",
		"code-centroids": "CodeCentroids", "centroid-mse": "CentroidMSE", "class-norm": "ClassNorm", "hidden-centroids": "HiddenCentroids",
		"target-weight": "TargetWeight Baseline.TargetWeight", "mu": "Baseline.Mu",
		"mdan-gamma": "Baseline.MDANGamma", "mdan-hard": "Baseline.MDANHard", "darn-gamma": "Baseline.DARNGamma",
		"m3sda-mu": "Baseline.M3SDAMu", "m3sda-order": "Baseline.M3SDAOrder", "m3sda-central": "Baseline.M3SDACentral", "pool-sources": "Baseline.PoolSources",
		"pada-mu": "Baseline.PADAMu", "pada-ramp": "Baseline.PADARamp", "mme-lambda": "Baseline.MMELambda",
		"mme-temp": "Baseline.MMETemp", "rlus-c": "Baseline.RLUSC",
	}
	if len(settings) != len(configFlags) {
		t.Errorf("%d flags, %d expected", len(configFlags), len(settings))
	}
	for _, c := range configFlags {
		keys := strings.Fields(settings[c.name])
		if keys == nil {
			t.Errorf("unexpected flag --%s", c.name)
			continue
		}
		for _, sc := range []data.Scenario{data.UDA, data.Limited, data.Partial} {
			for _, m := range wadn.Methods() {
				checkConfigFlag(t, c, keys, values, m, sc)
			}
		}
	}
	code, _, errOut := runArgs(t, "", "run", "--method", "dann", "--c0", "0.1")
	if code != 2 || !strings.Contains(errOut, "--c0 is not a setting of --method dann in the uda scenario") {
		t.Errorf("run --method dann --c0 0.1: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runArgs(t, "", "run", "--scenario", "limited", "--held-out")
	if code != 2 || !strings.Contains(errOut, "--held-out is not a setting of --method wadn in the limited scenario") {
		t.Errorf("run --scenario limited --held-out: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runArgs(t, "", "run", "--dataset", "digits", "--depth", "1")
	if code != 2 || !strings.Contains(errOut, "amazon network only") {
		t.Errorf("run --dataset digits --depth 1: exit %d, stderr %q", code, errOut)
	}
}

// checkConfigFlag is TestConfigFlags for flag c, meant to set the settings keys,
// with method m in scenario sc.
func checkConfigFlag(t *testing.T, c configFlag, keys []string, values map[string]string, m wadn.Method, sc data.Scenario) {
	t.Helper()
	read := false
	for _, k := range keys {
		read = read || m.Reads(sc, k)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	registerConfigFlags(fs)
	kind := reflect.TypeOf(c.kind).String()
	if err := fs.Parse([]string{"--" + c.name + "=" + values[kind]}); err != nil {
		t.Fatal(err)
	}
	def, err := wadn.DefaultConfig("amazon", sc)
	if err != nil {
		t.Fatal(err)
	}
	def.Baseline = wadn.DefaultBaselineConfig("amazon", sc)
	got := def
	err = applyConfigFlags(fs, m, &got)
	if !read {
		if err == nil || !strings.Contains(err.Error(), "--"+c.name+" is not a setting of --method "+m.Name+" in the "+sc.String()) {
			t.Errorf("--%s with --method %s in %s: error %v, want a refusal", c.name, m.Name, sc, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("--%s with --method %s in %s: %v", c.name, m.Name, sc, err)
	}
	want := def
	typed := map[string]any{"float64": 0.37, "int": 7, "bool": true}[kind]
	for _, k := range keys {
		if err := want.Set(k, typed); err != nil {
			t.Fatalf("--%s: %v", c.name, err)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("--%s with --method %s in %s (-want +got):\n%s", c.name, m.Name, sc, d)
	}
}

// TestRunBaselineEmbeddedAmazon trains a baseline for one epoch on the
// embedded data and checks its JSON result.
func TestRunBaselineEmbeddedAmazon(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the Amazon network")
	}
	out := t.TempDir()
	code, stdout, errOut := runArgs(t, "", "run", "--data", "", "--method", "darn", "--epochs", "1", "--seeds", "2",
		"--out", filepath.Join(out, "d"), "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Method   string
		Accuracy []float64
		Lambda   [][]float64
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	if res.Method != "darn" || len(res.Accuracy) != 1 || res.Accuracy[0] < 40 || len(res.Lambda) != 1 || len(res.Lambda[0]) != 3 {
		t.Errorf("result %+v", res)
	}
}
