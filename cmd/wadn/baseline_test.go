package main

import (
	"encoding/json"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

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

func TestBaselineFlags(t *testing.T) {
	def := wadn.DefaultBaselineConfig("amazon", data.UDA)
	for _, c := range []struct {
		args []string
		want func(b *wadn.BaselineConfig)
	}{
		{nil, func(b *wadn.BaselineConfig) {}},
		{[]string{"--mu", "0.1", "--mdan-hard"}, func(b *wadn.BaselineConfig) { b.Mu, b.MDANHard = 0.1, true }},
		{[]string{"--darn-gamma", "2", "--m3sda-order", "2", "--m3sda-mu", "0"}, func(b *wadn.BaselineConfig) { b.DARNGamma, b.M3SDAOrder, b.M3SDAMu = 2, 2, 0 }},
		{[]string{"--m3sda-central"}, func(b *wadn.BaselineConfig) { b.M3SDACentral = true }},
		{[]string{"--mme-lambda", "0.2", "--mme-temp", "0.1", "--rlus-c", "3", "--target-weight", "0.5"},
			func(b *wadn.BaselineConfig) { b.MMELambda, b.MMETemp, b.RLUSC, b.TargetWeight = 0.2, 0.1, 3, 0.5 }},
		{[]string{"--pada-mu", "0.3", "--pada-ramp", "5", "--mdan-gamma", "1"}, func(b *wadn.BaselineConfig) { b.PADAMu, b.PADARamp, b.MDANGamma = 0.3, 5, 1 }},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var bf baselineFlags
		bf.register(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		got := def
		bf.apply(fs, &got)
		want := def
		c.want(&want)
		if got != want {
			t.Errorf("%v: config %+v, want %+v", c.args, got, want)
		}
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
