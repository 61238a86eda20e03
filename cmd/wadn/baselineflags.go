package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/wadn-go/wadn/wadn"
)

// baselineFlags holds the flags of the comparison methods' hyperparameters;
// flags left unset keep wadn.DefaultBaselineConfig.
type baselineFlags struct {
	mu, mdanGamma, darnGamma, m3sdaMu, padaMu, padaRamp float64
	mmeLambda, mmeTemp, rlusC, targetWeight             float64
	m3sdaOrder                                          int
	mdanHard, m3sdaCentral                              bool
}

// register defines the flags on fs.
func (b *baselineFlags) register(fs *flag.FlagSet) {
	fs.Float64Var(&b.mu, "mu", 0, "baselines: weight of the adversarial term of dann, mdan, darn and mdmn (default 0.01)")
	fs.Float64Var(&b.mdanGamma, "mdan-gamma", 0, "mdan: inverse temperature of the soft-max aggregation (default 10)")
	fs.BoolVar(&b.mdanHard, "mdan-hard", false, "mdan: hard-max aggregation max_t L_t + mu*min_t D_t instead of the soft-max")
	fs.Float64Var(&b.darnGamma, "darn-gamma", 0, "darn: scale of the losses before the L2 projection (default 1)")
	fs.Float64Var(&b.m3sdaMu, "m3sda-mu", 0, "m3sda: weight of the moment-matching term (default 5e-4 amazon, 1e-7 digits)")
	fs.IntVar(&b.m3sdaOrder, "m3sda-order", 0, "m3sda: highest matched moment (default 4)")
	fs.BoolVar(&b.m3sdaCentral, "m3sda-central", false, "m3sda: match the moments of order 2 and up about each domain's mean, as the M3SDA code does (default: raw moments, as the DARN code)")
	fs.Float64Var(&b.padaMu, "pada-mu", 0, "pada: weight of the class-weighted adversarial term (default 1)")
	fs.Float64Var(&b.padaRamp, "pada-ramp", 0, "pada: steepness of the gradient-reversal ramp 2/(1+exp(-r*p))-1 (default 10)")
	fs.Float64Var(&b.mmeLambda, "mme-lambda", 0, "mme: weight of the adversarial entropy (default 0.1)")
	fs.Float64Var(&b.mmeTemp, "mme-temp", 0, "mme: temperature of the cosine classifier (default 0.05)")
	fs.Float64Var(&b.rlusC, "rlus-c", 0, "rlus: weight of the sample-size term of the bound (default 1)")
	fs.Float64Var(&b.targetWeight, "target-weight", 0, "limited labels: scale of the labelled target cross-entropy that wadn, dann, mdan, mdmn, m3sda and darn add, whose weight is then its sample count over the sources' (1: as merged into the source pool); default 0 (source+tar always merges it, mme and rlus ignore it)")
}

// apply copies the flags that were set into bc.
func (b *baselineFlags) apply(fs *flag.FlagSet, bc *wadn.BaselineConfig) {
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "mu":
			bc.Mu = b.mu
		case "mdan-gamma":
			bc.MDANGamma = b.mdanGamma
		case "mdan-hard":
			bc.MDANHard = b.mdanHard
		case "darn-gamma":
			bc.DARNGamma = b.darnGamma
		case "m3sda-mu":
			bc.M3SDAMu = b.m3sdaMu
		case "m3sda-order":
			bc.M3SDAOrder = b.m3sdaOrder
		case "m3sda-central":
			bc.M3SDACentral = b.m3sdaCentral
		case "pada-mu":
			bc.PADAMu = b.padaMu
		case "pada-ramp":
			bc.PADARamp = b.padaRamp
		case "mme-lambda":
			bc.MMELambda = b.mmeLambda
		case "mme-temp":
			bc.MMETemp = b.mmeTemp
		case "rlus-c":
			bc.RLUSC = b.rlusC
		case "target-weight":
			bc.TargetWeight = b.targetWeight
		}
	})
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
