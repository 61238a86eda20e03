package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/wadn-go/wadn/internal/lock"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/experiment"
)

// small are the settings of a quick Amazon run: 200 reviews per domain, 100
// to test, the MLP [32 16 8], one epoch.
var small = []string{"--data", "", "--train-size", "200", "--test-size", "100", "--hidden", "32,16,8", "--epochs", "1"}

func TestRunRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--scenario", "semi"}, `unknown scenario "semi"`},
		{[]string{"run", "--seeds", "1,x"}, `"x" is not a seed`},
		{[]string{"run", "--seeds", "2,1,2"}, "seed 2 is given twice"},
		{[]string{"run", "--dataset", "cifar"}, `unknown data set "cifar"`},
		{[]string{"run", "extra"}, `unexpected argument "extra"`},
		{[]string{"run", "--epochs", "-1"}, "epochs = -1, want in [1, 100000]"},
		{[]string{"run", "--epochs", "x"}, `--epochs: "x" is not an integer`},
		{[]string{"run", "--lr", "NaN"}, "--lr: NaN is not a finite number"},
		{[]string{"run", "--c0", "Inf"}, "--c0: +Inf is not a finite number"},
		{[]string{"run", "--threads", "-2"}, "--threads -2"},
		{[]string{"run", "--jobs", "0"}, "--jobs 0"},
		{[]string{"run", "--dataset", "digits", "--data", ""}, "digits has no embedded copy"},
		{[]string{"run", "--method", "cdan"}, "mdan, mdmn, m3sda, darn, pada, mme, rlus"},
		{[]string{"run", "--method", "mme"}, "limited"},
		{[]string{"run", "--method", "pada", "--scenario", "limited"}, "partial"},
		{[]string{"run", "--method", "darn", "--mdan-gamma", "2"}, "--mdan-gamma is not a setting of method darn on amazon (it is one of mdan)"},
		{[]string{"run", "--method", "dann", "--c0", "0.1"}, "--c0 is not a setting of method dann"},
		{[]string{"run", "--scenario", "limited", "--alpha", "held-out"}, "--alpha is not read in the limited scenario"},
		{[]string{"run", "--dataset", "digits", "--depth", "1"}, "--depth is not a setting of method wadn on digits (it is one of data set amazon, data set office-caltech)"},
		{[]string{"run", "--set", "c0"}, `"c0": want NAME=VALUE`},
		{[]string{"run", "--set", "bogus=1"}, "bogus is no setting"},
		{[]string{"run", "--centroids", "hidden"}, "hidden layer"},
		{[]string{"run", "--depth", "3", "--centroids", "hidden"}, "hidden layer"},
		{[]string{"run", "--dataset", "officehome", "--target", "art", "--data", "x", "--centroids", "hidden"}, "hidden layer"},
		{[]string{"run", "--hidden-centroids"}, "--hidden-centroids is now --centroids hidden"},
		{[]string{"run", "--held-out"}, "--held-out is now --alpha held-out"},
		{[]string{"run", "--split", "random"}, `--split: "random" is not one of pool, fixed`},
		{[]string{"run", "--config", "/no/such/file"}, "--config"},
		{[]string{"run", "--resume", "--c0", "0.05"}, "--resume continues the runs under --out with the settings they recorded: give no --c0"},
	} {
		args := append(tc.args, "--out", t.TempDir())
		code, _, errOut := runArgs(t, "", args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// The target and the sources are checked against the data set's
	// domains before any data is loaded: a mistake on the command line.
	code, _, errOut := runArgs(t, "", "run", "--data", "", "--target", "nowhere", "--epochs", "1", "--out", t.TempDir())
	if code != 2 || !strings.Contains(errOut, `target "nowhere": amazon has no such domain`) {
		t.Errorf("unknown target: exit %d, stderr %q; want 2 and the name", code, errOut)
	}
	for _, tc := range []struct{ sources, want string }{
		{"books,books", `source "books" is named twice`},
		{"books,,dvd", `sources "books,,dvd": an empty name`},
		{"books,kitchen", `source "kitchen" is the target too`},
	} {
		code, _, errOut := runArgs(t, "", "run", "--data", "", "--sources", tc.sources, "--epochs", "1", "--out", t.TempDir())
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("--sources %s: exit %d, stderr %q; want 2 and %q", tc.sources, code, errOut, tc.want)
		}
	}
}

// TestSettingFlags checks that every setting of every method and data set
// is a flag of wadn run, that --NAME VALUE and --set NAME=VALUE set it alike,
// and that the later of two wins.
func TestSettingFlags(t *testing.T) {
	specs := func(args ...string) []*experiment.Spec {
		t.Helper()
		r := newRunFlags(commands["run"], &env{stderr: io.Discard})
		if err := r.fs.Parse(args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		s, _, err := r.specs()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return s
	}
	if got := specs("--c0", "0.1", "--set", "c0=0.2")[0].Label(); got != "c0 0.2" {
		t.Errorf("--c0 then --set c0: label %q", got)
	}
	if got := specs("--set", "c0=0.2", "--c0", "0.1")[0].Label(); got != "c0 0.1" {
		t.Errorf("--set c0 then --c0: label %q", got)
	}
	for _, f := range allSettings() {
		if f.Name == "epochs" {
			continue
		}
		// A method and data set that read it, and a valid value other than
		// the default.
		candidates := map[string][]string{"true|false": {"true", "false"}, "integer": {"2", "1", "7"},
			"number": {"0.125", "0.25"}, "integers, comma-separated": {"8,4,2"}}[f.Type()]
		if strings.Contains(f.Type(), "|") && !f.IsBool() {
			// An enumeration's names, or a number's named values and numbers.
			for _, v := range strings.Split(f.Type(), "|") {
				if v != "integer" && v != "number" {
					candidates = append(candidates, v)
				}
			}
			candidates = append(candidates, "3", "1", "0.25")
		}
		found := false
		// The optimisers' settings need their optimiser chosen.
		optimizers := [][]string{nil, {"--optimizer", "sgd", "--momentum", "0.5"}, {"--optimizer", "adam"}}
	search:
		for _, m := range experiment.Methods {
			for _, ds := range []string{"amazon", "digits"} {
				for _, sc := range []string{"uda", "limited", "partial"} {
					for _, opt := range optimizers {
						base := append([]string{"--method", m.Name, "--dataset", ds, "--scenario", sc, "--data", "x"}, opt...)
						ss, ok := trySpecs(base...)
						if !ok {
							continue
						}
						def, reads := ss[0].Values()[f.Name]
						if !reads {
							continue
						}
						for _, v := range candidates {
							a, ok := trySpecs(append(base, "--"+f.Name+"="+v)...)
							if !ok || v == def {
								continue
							}
							b, _ := trySpecs(append(base, "--set", f.Name+"="+v)...)
							if a[0].Values()[f.Name] == def || b == nil || a[0].Label() != b[0].Label() {
								t.Errorf("setting %s=%s from %v: --NAME gives %q, --set %v (default %s)", f.Name, v, base, a[0].Label(), b, def)
							}
							found = true
							break search
						}
					}
				}
			}
		}
		if !found {
			t.Errorf("setting %s: no method and data set take a value other than its default", f.Name)
		}
	}
}

// trySpecs returns the runs of wadn run's arguments, and false when they
// are refused.
func trySpecs(args ...string) ([]*experiment.Spec, bool) {
	r := newRunFlags(commands["run"], &env{stderr: io.Discard})
	if r.fs.Parse(args) != nil {
		return nil, false
	}
	s, _, err := r.specs()
	return s, err == nil
}

// TestRunHelp checks that wadn run's help lists the common flags only, at
// most 20 of them, and describes every method; and that wadn help settings
// lists every setting with its defaults.
func TestRunHelp(t *testing.T) {
	_, _, errOut := runArgs(t, "", "run", "-h")
	flags := 0
	for line := range strings.Lines(errOut) {
		if strings.HasPrefix(line, "  -") {
			flags++
		}
	}
	if flags == 0 || flags > 20 {
		t.Errorf("wadn run -h lists %d flags, want 1..20:\n%s", flags, errOut)
	}
	for _, m := range experiment.Methods {
		if !strings.Contains(errOut, "  "+m.Name+" (") {
			t.Errorf("run -h does not describe method %q", m.Name)
		}
	}
	for _, d := range dataset.All {
		if !strings.Contains(errOut, "  "+d.Name+" ("+strings.Join(d.Domains, ", ")+"): "+d.Summary) {
			t.Errorf("run -h does not describe data set %q", d.Name)
		}
	}
	if !strings.Contains(errOut, "target domain (default: kitchen for amazon, mnist for digits, dslr for office-caltech)") {
		t.Errorf("run -h does not give each data set's default target:\n%s", errOut)
	}
	if !strings.Contains(errOut, "  source (uda, limited as source+tar, partial)") {
		t.Errorf("run -h does not give source's name with limited labels:\n%s", errOut)
	}
	code, out, _ := runArgs(t, "", "help", "settings")
	if code != 0 {
		t.Fatalf("help settings: exit %d", code)
	}
	for _, f := range allSettings() {
		if !strings.Contains(out, "\n  "+f.Name+" (") {
			t.Errorf("help settings lacks %s", f.Name)
		}
	}
	for _, want := range []string{
		"  c0 (number, >= 0)", "default: amazon uda, digits uda/partial, office-caltech uda/partial: 0.02; amazon limited, digits limited, office-caltech limited, office-home limited: 0.002; office-home uda/partial: 0.01",
		"  lr (number, > 0)", "default: amazon uda/limited, digits uda/limited/partial, office-caltech uda/limited/partial: 0.5; office-home uda/limited/partial: 1",
		"  lambda-distance (both|explicit)", "default: amazon uda/limited, digits limited, office-caltech uda/limited/partial, office-home uda/limited/partial: both; digits uda/partial: explicit",
		"  c1 (number|max)", "  train-size (integer|all)", "  explicit-start (integer|align)",
		"  split (pool|fixed)",
		"--hidden-centroids: --centroids hidden",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("help settings lacks %q", want)
		}
	}
}

// TestRunEmbeddedAmazon runs two seeds on the embedded data and checks the
// JSON result, the run directories and the report built from them.
func TestRunEmbeddedAmazon(t *testing.T) {
	out := t.TempDir()
	code, stdout, errOut := runArgs(t, "", append([]string{"run", "--seeds", "3,4", "--out", out, "--json", "--quiet"}, small...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Dataset, Target, Scenario, Method, Label string
		Seeds                                    []uint64
		Accuracy                                 []float64
		Mean, Std                                float64
		Dirs                                     []string
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	if res.Dataset != "amazon" || res.Target != "kitchen" || res.Scenario != "uda" || res.Method != "wadn" ||
		len(res.Seeds) != 2 || res.Seeds[0] != 3 || len(res.Accuracy) != 2 || len(res.Dirs) != 2 ||
		res.Label != "epochs 1, train-size 200, test-size 100, hidden 32,16,8" {
		t.Errorf("result %+v", res)
	}
	for _, d := range res.Dirs {
		for _, f := range []string{experiment.RunFile, experiment.ResultFile, "epochs.jsonl"} {
			if _, err := os.Stat(filepath.Join(d, f)); err != nil {
				t.Error(err)
			}
		}
	}
	code, stdout, errOut = runArgs(t, "", "report", out)
	if code != 0 || !strings.Contains(stdout, "| uda | amazon | wadn [epochs 1, train-size 200, test-size 100, hidden 32,16,8] | kitchen | 2 |") {
		t.Errorf("report: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	code, stdout, _ = runArgs(t, "", "report", "--json", out)
	var rep struct{ Rows []experiment.Row }
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || len(rep.Rows) != 1 || rep.Rows[0].N != 2 {
		t.Errorf("report --json: exit %d, %q", code, stdout)
	}
	code, stdout, errOut = runArgs(t, "", "report", "--runs", out)
	if code != 0 || strings.Count(stdout, "| uda | amazon | wadn [epochs 1, train-size 200, test-size 100, hidden 32,16,8] | kitchen | ") != 2 {
		t.Errorf("report --runs: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	if code, _, errOut = runArgs(t, "", "report", "--runs", "--csv", out); code != 2 || !strings.Contains(errOut, "one of --json, --csv, --runs, --sources, --comparison and --against, not more") {
		t.Errorf("report --runs --csv: exit %d, stderr %q", code, errOut)
	}
	code, stdout, errOut = runArgs(t, "", "report", "--comparison", "--scenario", "uda", out)
	if code != 0 || !strings.HasPrefix(stdout, "\nuda, amazon: accuracy (%), mean ± std over seeds (paper)\n") || strings.Contains(stdout, "| scenario |") {
		t.Errorf("report --comparison --scenario uda: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	if code, _, errOut = runArgs(t, "", "report", "--scenario", "limited", out); code != 1 || !strings.Contains(errOut, "no finished run of scenario limited under "+out) {
		t.Errorf("report --scenario limited: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut = runArgs(t, "", "report", "--scenario", "uda,unsupervised", out); code != 2 || !strings.Contains(errOut, `--scenario: unknown scenario "unsupervised"`) {
		t.Errorf("report --scenario uda,unsupervised: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut = runArgs(t, "", "report", "--method", "wadn,dan", out); code != 2 || !strings.Contains(errOut, `--method: unknown method "dan" (want one of wadn, `) {
		t.Errorf("report --method wadn,dan: exit %d, stderr %q", code, errOut)
	}
	if code, stdout, errOut = runArgs(t, "", "report", "--method", "wadn", out); code != 0 || !strings.Contains(stdout, "| uda | amazon | wadn [") {
		t.Errorf("report --method wadn: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	if code, _, errOut = runArgs(t, "", "report", "--method", "dann", out); code != 1 || !strings.Contains(errOut, "no finished run of method dann under "+out) {
		t.Errorf("report --method dann: exit %d, stderr %q", code, errOut)
	}
	for _, c := range []struct {
		args         []string
		code         int
		stdout, want string // stdout holds stdout, stderr holds want
		not          string // stdout does not hold it, unless ""
	}{
		{[]string{"--runs", "--target", "books,kitchen", "--seed", "4"}, 0, "| kitchen | 4 |", "", "| kitchen | 3 |"},
		{[]string{"--runs", "--settings", res.Label}, 0, "| kitchen | 3 |", "", ""},
		{[]string{"--target", "books"}, 1, "", "no finished run of target books under " + out, ""},
		{[]string{"--seed", "0,1"}, 1, "", "no finished run of seed 0 or 1 under " + out, ""},
		{[]string{"--settings", "default"}, 1, "", "no finished run of settings the defaults under " + out, ""},
		{[]string{"--seed", "3,x"}, 2, "", `--seed: "x" is not a seed`, ""},
		{[]string{"--seed", "-1"}, 2, "", `--seed: "-1" is not a seed`, ""},
		{[]string{"--target", "kitchen,"}, 2, "", `--target: an empty name in "kitchen,"`, ""},
	} {
		code, stdout, errOut := runArgs(t, "", append(append([]string{"report"}, c.args...), out)...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(errOut, c.want) ||
			(c.not != "" && strings.Contains(stdout, c.not)) {
			t.Errorf("report %s: exit %d, stdout %q, stderr %q; want exit %d", strings.Join(c.args, " "), code, stdout, errOut, c.code)
		}
	}
}

// TestRunConfigFile runs from an experiment file, with a flag overriding
// it, and checks that every run directory records a file it can run from.
func TestRunConfigFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "exp.json")
	exp := `{"method": "source", "seeds": [0], "train-size": 200, "test-size": 100, "hidden": [32, 16, 8], "epochs": 1, "target": "books", "out": "` + filepath.Join(dir, "runs") + `"}`
	if err := os.WriteFile(file, []byte(exp), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := runArgs(t, "", "run", "--config", file, "--data", "", "--target", "dvd", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Method, Target string
		Dirs           []string
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Method != "source" || res.Target != "dvd" || len(res.Dirs) != 1 {
		t.Fatalf("%v: %q", err, stdout)
	}
	if !strings.HasPrefix(res.Dirs[0], filepath.Join(dir, "runs")) {
		t.Errorf("run directory %s is not under the file's out", res.Dirs[0])
	}
	// The run's config file runs the same run: it is found finished.
	code, _, errOut = runArgs(t, "", "run", "--config", filepath.Join(res.Dirs[0], "config.json"), "--data", "", "--out", filepath.Join(dir, "runs"), "--quiet")
	if code != 0 || !strings.Contains(errOut, "finished earlier") {
		t.Errorf("the run's own config.json: exit %d, stderr %q", code, errOut)
	}
}

// TestRunResume finishes, with --resume and --out alone, runs that did not
// finish, to the results they give when not interrupted.
func TestRunResume(t *testing.T) {
	out := t.TempDir()
	code, stdout, errOut := runArgs(t, "", append([]string{"run", "--method", "source", "--seeds", "0,1", "--c0x", "1"}, small...)...)
	if code != 2 || !strings.Contains(errOut, "flag provided but not defined: -c0x") {
		t.Errorf("--c0x: exit %d, %q", code, errOut)
	}
	args := append([]string{"run", "--method", "source", "--seeds", "0,1", "--out", out, "--json", "--quiet", "--keep-checkpoints", "--epochs", "2"}, small[:len(small)-2]...)
	code, stdout, errOut = runArgs(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var first struct{ Accuracy []float64 }
	json.Unmarshal([]byte(stdout), &first)
	// Unfinish seed 1: no result, its last checkpoint at epoch 2. Resuming
	// loads it and ends at once, with the same result.
	matches, _ := filepath.Glob(filepath.Join(out, "*seed1*", experiment.ResultFile))
	if len(matches) != 1 {
		t.Fatalf("seed 1's result: %v", matches)
	}
	os.Remove(matches[0])
	code, stdout, errOut = runArgs(t, "", "run", "--resume", "--out", out, "--json", "--quiet")
	if code != 0 || !strings.Contains(errOut, "continuing from its checkpoint") {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	var again struct {
		Seeds    []uint64
		Accuracy []float64
	}
	if err := json.Unmarshal([]byte(stdout), &again); err != nil || len(again.Accuracy) != 1 || again.Accuracy[0] != first.Accuracy[1] {
		t.Errorf("resumed %q, first %v (%v)", stdout, first.Accuracy, err)
	}
	code, _, errOut = runArgs(t, "", "run", "--resume", "--out", out)
	if code != 0 || !strings.Contains(errOut, "nothing to resume") {
		t.Errorf("nothing to resume: exit %d, %q", code, errOut)
	}
}

// TestRunLocked checks that a second wadn run on a run directory that a
// first one holds refuses at once, naming the holder.
func TestRunLocked(t *testing.T) {
	out := t.TempDir()
	args := append([]string{"run", "--method", "source", "--out", out, "--quiet", "--json"}, small...)
	code, stdout, errOut := runArgs(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct{ Dirs []string }
	json.Unmarshal([]byte(stdout), &res)
	l, err := lock.Try(res.Dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	host, _ := os.Hostname()
	code, _, errOut = runArgs(t, "", args...)
	if code != 1 || !strings.Contains(errOut, "locked by another process: held by pid "+strconv.Itoa(os.Getpid())+" on host "+host) {
		t.Errorf("locked: exit %d, stderr %q", code, errOut)
	}
}

func TestInterruptedCode(t *testing.T) {
	for _, tc := range []struct {
		sig  os.Signal
		want int
	}{{nil, 130}, {os.Interrupt, 130}, {syscall.SIGTERM, 143}} {
		e := &env{signal: func() os.Signal { return tc.sig }}
		if got := e.interruptedCode(); got != tc.want {
			t.Errorf("%v: exit %d, want %d", tc.sig, got, tc.want)
		}
	}
}

func TestWriteSummary(t *testing.T) {
	base := cellResult{Method: "wadn", Scenario: "uda", Target: "kitchen", Sources: []string{"books", "dvd", "electronics"}}
	tests := []struct {
		name  string
		seeds []uint64
		acc   []float64
		label string
		want  string
	}{
		{"one seed shows no spread", []uint64{0}, []float64{79.53}, "",
			"seed 0: target kitchen accuracy 79.53%\n" +
				"wadn uda books,dvd,electronics -> kitchen: 79.53% (1 seed)\n"},
		{"several seeds show mean and std", []uint64{3, 4}, []float64{80, 82.5}, "c0 0.05",
			"seed 3: target kitchen accuracy 80.00%\n" +
				"seed 4: target kitchen accuracy 82.50%\n" +
				"wadn uda books,dvd,electronics -> kitchen [c0 0.05]: 81.25 +- 1.77% over 2 seeds\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := base
			res.Seeds, res.Accuracy, res.Label = tc.seeds, tc.acc, tc.label
			res.Mean, res.Std = experiment.MeanStd(tc.acc)
			var b strings.Builder
			writeSummary(&b, &res)
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

// TestRunOptimizer checks that a run chooses its optimiser and its
// hyperparameters by setting: SGD with momentum trains, is its own run
// (its label says so), and gives other weights than the default Adadelta.
func TestRunOptimizer(t *testing.T) {
	out := t.TempDir()
	acc := map[string]float64{}
	for _, c := range []struct {
		args  []string
		label string
	}{
		{nil, "epochs 1, train-size 200, test-size 100, hidden 32,16,8"},
		{[]string{"--optimizer", "sgd", "--momentum", "0.9", "--lr", "0.05"}, "epochs 1, lr 0.05, optimizer sgd, momentum 0.9, train-size 200, test-size 100, hidden 32,16,8"},
	} {
		code, stdout, errOut := runArgs(t, "", append(append([]string{"run", "--out", out, "--json", "--quiet"}, small...), c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		var res struct {
			Label    string
			Accuracy []float64
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatalf("%v: %q", err, stdout)
		}
		if res.Label != c.label || len(res.Accuracy) != 1 {
			t.Errorf("%v: label %q, accuracy %v; want label %q", c.args, res.Label, res.Accuracy, c.label)
		}
		acc[res.Label] = res.Accuracy[0]
	}
	if len(acc) != 2 {
		t.Errorf("the two optimisers' runs share a label: %v", acc)
	}
}

// TestMethodsHelp checks that wadn help methods names every method and
// every term of its epoch log, as report --csv names its columns.
func TestMethodsHelp(t *testing.T) {
	code, stdout, errOut := runArgs(t, "", "help", "methods")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, m := range experiment.Methods {
		if !strings.Contains(stdout, "\n"+m.Name+" (") {
			t.Errorf("method %s missing:\n%s", m.Name, stdout)
		}
		for _, term := range m.Terms {
			col := term.Name
			if term.PerSource {
				col += ".SOURCE"
			}
			if !strings.Contains(stdout, "  "+col+" ") {
				t.Errorf("method %s: term %s missing", m.Name, col)
			}
		}
	}
}

// TestRunFinishedReadOnly: a finished run is shown as finished from an
// output directory where its lock cannot be taken (read-only, or, for
// root, whom permissions do not stop, a lock path that is a directory).
func TestRunFinishedReadOnly(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "--data", "", "--method", "source", "--train-size", "200", "--test-size", "100", "--hidden", "32,16,8", "--epochs", "1", "--quiet", "--out", out}
	code, first, errOut := runArgs(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(runs) != 1 {
		t.Fatalf("runs %v", runs)
	}
	lockPath := filepath.Join(runs[0], lock.File)
	os.Remove(lockPath)
	if err := os.Mkdir(lockPath, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{runs[0], out} {
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(d, 0o755)
	}
	code, again, errOut := runArgs(t, "", args...)
	if code != 0 || again != first || !strings.Contains(errOut, "finished earlier") {
		t.Errorf("exit %d, stdout %q (first %q), stderr %q; want 0, the same and finished earlier", code, again, first, errOut)
	}
}
