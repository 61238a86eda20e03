package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/wadn-go/wadn/wadn"
)

// configFlag is a flag of wadn run that sets Config settings: keys are
// dotted paths of wadn.Config fields ("C0", "Baseline.Mu"), kind is the
// flag's type, float64(0), 0 or false. Flags left unset keep the defaults of
// the chosen data set and scenario.
type configFlag struct {
	name  string
	keys  []string
	kind  any
	usage string
}

// configFlags are the hyperparameter flags of wadn run: WADN's first, then
// the baselines'.
var configFlags = []configFlag{
	{"lr", []string{"LR"}, 0.0, "Adadelta learning rate (default: the paper's)"},
	{"batch", []string{"Batch"}, 0, "samples per domain per step (default: the paper's)"},
	{"dropout", []string{"Dropout"}, 0.0, "Amazon dropout probability (default 0.7)"},
	{"depth", []string{"Depth"}, 0, "Amazon extractor depth: 1 as the paper describes, 3 as the authors' code (default 3)"},
	{"transductive", []string{"Transductive"}, false, "limited labels: every method also reads the target's test rows, labels unread, as its unlabelled target sample (default: the labelled 10% is all it sees of the target)"},
	{"eps", []string{"Eps"}, 0.0, "wadn: share of the explicit conditional term (default 0.5)"},
	{"c0", []string{"C0"}, 0.0, "wadn: weight of the conditional terms (default 0.02 amazon uda/partial, 0.002 with limited labels, else 0.01)"},
	{"c1", []string{"C1"}, 0.0, "wadn: norm weight of the lambda problem (default 1 for amazon, max_t L_t otherwise)"},
	{"c2", []string{"C2"}, 0.0, "wadn: L1 weight of the alpha problem (default 0, 0.1 for partial)"},
	{"gp", []string{"GP"}, 0.0, "wadn, mdmn: gradient-penalty coefficient (default 10)"},
	{"centroid-keep", []string{"CentroidKeep"}, 0.0, "wadn: centroid moving-average keep rate (default 0.7)"},
	{"alpha-keep", []string{"AlphaKeep"}, 0.0, "wadn: alpha moving-average keep rate (default 0.8 amazon, else 0.7)"},
	{"lambda-keep", []string{"LambdaKeep"}, 0.0, "wadn: lambda moving-average keep rate (default 0.8)"},
	{"alpha-start", []string{"AlphaStart"}, 0, "wadn: first epoch whose end re-estimates alpha (default 3)"},
	{"lambda-start", []string{"LambdaStart"}, 0, "wadn: first epoch whose end re-estimates lambda (default 2 amazon, 6 digits)"},
	{"align-start", []string{"AlignStart"}, 0, "wadn: first epoch whose steps include the conditional (centroid and critic) terms (default 1)"},
	{"explicit-start", []string{"ExplicitStart"}, 0, "wadn: first epoch whose steps include the centroid term, the critics starting at --align-start (default: with them)"},
	{"held-out", []string{"HeldOut"}, false, "wadn: estimate alpha from each source's confusion on its held-out test rows"},
	{"oracle-alpha", []string{"OracleAlpha"}, false, "wadn, diagnostic: fix alpha at the true label ratios (reads the target labels)"},
	{"pseudo-threshold", []string{"PseudoThreshold"}, 0.0, "wadn, unsupervised: leave target rows predicted with a probability below this out of the target centroids (default 0: every row)"},
	{"soft-estimate", []string{"SoftEstimate"}, false, "wadn: estimate alpha from soft-max probabilities instead of arg-max classes"},
	{"eval-estimate", []string{"EvalEstimate"}, false, "wadn: estimate alpha from an evaluation-mode pass over all training samples"},
	{"code-centroids", []string{"CodeCentroids"}, false, "wadn: the explicit term as the authors' code computes it: squared centroid distance averaged over the features, weighted by alpha_t*S_t, the target centroid the batch's class mean times 1-keep (the code's moving average is never stored)"},
	{"centroid-mse", []string{"CentroidMSE"}, false, "wadn: the explicit term in the squared form of the authors' code with the moving-average target centroid (default true amazon uda/partial; --centroid-mse=false: the paper's distance)"},
	{"hidden-centroids", []string{"HiddenCentroids"}, false, "wadn: take the explicit term's class centroids on the classifier's last hidden layer instead of the extractor's output, as the authors' Digits code (needs a classifier with a hidden layer: digits, or amazon with --depth 1 or 2)"},
	{"class-norm", []string{"ClassNorm"}, false, "wadn: divide each source's alpha-weighted cross-entropy by the batch's sum of weights (PyTorch's weighted mean) instead of the batch size (default true amazon uda/partial)"},
	{"target-weight", []string{"TargetWeight", "Baseline.TargetWeight"}, 0.0, "limited labels: scale of the labelled target cross-entropy that wadn, dann, mdan, mdmn, m3sda and darn add, whose weight is then its sample count over the sources' (1: as merged into the source pool); default 0 (source+tar always merges it, mme and rlus have their own)"},
	{"mu", []string{"Baseline.Mu"}, 0.0, "dann, mdan, darn, mdmn: weight of the adversarial term (default 0.01)"},
	{"pool-sources", []string{"Baseline.PoolSources"}, false, "source, dann: draw each step's batch from the sources pooled into one domain, an epoch being the pool's size over the batch, as the MDAN and DARN code merges them (default: a batch from every source, an epoch the largest source's size over the batch)"},
	{"mdan-gamma", []string{"Baseline.MDANGamma"}, 0.0, "mdan: inverse temperature of the soft-max aggregation (default 10)"},
	{"mdan-hard", []string{"Baseline.MDANHard"}, false, "mdan: hard-max aggregation max_t L_t + mu*min_t D_t instead of the soft-max"},
	{"darn-gamma", []string{"Baseline.DARNGamma"}, 0.0, "darn: scale of the losses before the L2 projection (default 1)"},
	{"m3sda-mu", []string{"Baseline.M3SDAMu"}, 0.0, "m3sda: weight of the moment-matching term (default 5e-4 amazon, 1e-7 digits)"},
	{"m3sda-order", []string{"Baseline.M3SDAOrder"}, 0, "m3sda: highest matched moment (default 4)"},
	{"m3sda-central", []string{"Baseline.M3SDACentral"}, false, "m3sda: match the moments of order 2 and up about each domain's mean, as the M3SDA code does (default: raw moments, as the DARN code)"},
	{"pada-mu", []string{"Baseline.PADAMu"}, 0.0, "pada: weight of the class-weighted adversarial term (default 1)"},
	{"pada-ramp", []string{"Baseline.PADARamp"}, 0.0, "pada: steepness of the gradient-reversal ramp 2/(1+exp(-r*p))-1 (default 10)"},
	{"mme-lambda", []string{"Baseline.MMELambda"}, 0.0, "mme: weight of the adversarial entropy (default 0.1)"},
	{"mme-temp", []string{"Baseline.MMETemp"}, 0.0, "mme: temperature of the cosine classifier (default 0.05)"},
	{"rlus-c", []string{"Baseline.RLUSC"}, 0.0, "rlus: weight of the sample-size term of the bound (default 1)"},
}

// registerConfigFlags defines configFlags on fs.
func registerConfigFlags(fs *flag.FlagSet) {
	for _, c := range configFlags {
		switch c.kind.(type) {
		case float64:
			fs.Float64(c.name, 0, c.usage)
		case int:
			fs.Int(c.name, 0, c.usage)
		case bool:
			fs.Bool(c.name, false, c.usage)
		default:
			panic("configFlags: flag " + c.name + " of unknown kind")
		}
	}
}

// applyConfigFlags copies the configFlags set on fs into cfg, after
// checking that method reads them in cfg's scenario (wadn.Method.Reads) and
// that --depth is given for the amazon network only.
func applyConfigFlags(fs *flag.FlagSet, method wadn.Method, cfg *wadn.Config) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		c := lookupConfigFlag(f.Name)
		if c == nil || err != nil {
			return
		}
		read := false
		for _, k := range c.keys {
			read = read || method.Reads(cfg.Scenario, k)
		}
		switch {
		case !read:
			err = fmt.Errorf("--%s is not a setting of --method %s in the %s scenario", c.name, method.Name, cfg.Scenario)
			return
		case c.name == "depth" && cfg.Dataset != "amazon":
			err = fmt.Errorf("--depth applies to the amazon network only")
			return
		}
		for _, k := range c.keys {
			if err = cfg.Set(k, f.Value.(flag.Getter).Get()); err != nil {
				return
			}
		}
	})
	return err
}

// checkNetwork reports a setting that the chosen network cannot carry:
// --hidden-centroids needs a classifier with a hidden layer.
func checkNetwork(cfg *wadn.Config) error {
	if cfg.HiddenCentroids && !cfg.HiddenClassifier() {
		return errors.New("--hidden-centroids needs a classifier with a hidden layer: digits, or amazon with --depth 1 or 2")
	}
	return nil
}

// lookupConfigFlag returns the configFlag called name, or nil.
func lookupConfigFlag(name string) *configFlag {
	for i := range configFlags {
		if configFlags[i].name == name {
			return &configFlags[i]
		}
	}
	return nil
}

// methodHelp lists the methods of wadn run with their scenarios.
func methodHelp() string {
	var b strings.Builder
	b.WriteString("method:")
	for _, m := range wadn.Methods() {
		var sc []string
		for _, s := range m.Scenarios {
			sc = append(sc, s.String())
		}
		fmt.Fprintf(&b, "\n  %s (%s): %s", m.Name, strings.Join(sc, ", "), m.Summary)
	}
	return b.String()
}
