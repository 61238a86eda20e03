package wadn

import (
	"fmt"

	"github.com/wadn-go/wadn/data"
)

// BaselineConfig holds the hyperparameters of the comparison methods (the
// baselines of the paper's tables). Each defaults to the value its paper or
// the code the WADN paper's numbers come from states; DefaultBaselineConfig
// gives them. The zero BaselineConfig stands for DefaultBaselineConfig of the
// run's data set and scenario.
//
// The baselines share WADN's network, batches, optimiser (Config.LR,
// Config.Batch, Config.Epochs, Config.Dropout) and, for MDMN's critic,
// Config.GP.
type BaselineConfig struct {
	// Mu weighs the domain-adversarial term of DANN, MDAN, DARN and MDMN
	// against the classification loss (1e-2: the MDAN and DARN code).
	Mu float64
	// PoolSources pools, for Source (Source+Tar) and DANN, the sources into
	// one source domain (data.Task.PooledSources), as the MDAN and DARN code
	// merges them: each step draws one batch of Batch rows from the pool, and
	// an epoch has the pool's size over Batch steps. Without it each step
	// draws a block of Batch rows from every source, and an epoch has the
	// largest source's size over Batch steps: with three sources of equal
	// size, the same expected loss in a third of the steps, each of three
	// times the rows.
	PoolSources bool
	// MDANGamma is the inverse temperature of MDAN's soft-max aggregation
	// log(sum_t exp(gamma*g_t))/gamma (10: the MDAN code).
	MDANGamma float64
	// MDANHard selects MDAN's hard-max rule max_t L_t + Mu*min_t D_t.
	MDANHard bool
	// DARNGamma scales DARN's per-source losses before the L2 projection
	// onto the simplex (1: the DARN code).
	DARNGamma float64
	// M3SDAMu weighs M3SDA's moment-matching term (5e-4 for the Amazon MLP,
	// 1e-7 for the digits CNN: the DARN code's M3SDA models).
	M3SDAMu float64
	// M3SDAOrder is the highest moment M3SDA matches (4).
	M3SDAOrder int
	// M3SDACentral matches, from the second order on, the moments of each
	// block's features about the block's mean, as the M3SDA authors' code
	// does, instead of the raw moments of the DARN code's M3SDA.
	M3SDACentral bool
	// PADAMu weighs PADA's class-weighted adversarial term (1: the PADA
	// paper), reached through the ramp 2/(1+exp(-PADARamp*p)) - 1 of the
	// gradient-reversal coefficient over the training progress p.
	PADAMu float64
	// PADARamp is the steepness of PADA's ramp (10: the PADA and DANN papers).
	PADARamp float64
	// MMELambda weighs MME's adversarial entropy (0.1: the MME paper).
	MMELambda float64
	// MMETemp is the temperature of MME's cosine classifier (0.05: the MME
	// paper).
	MMETemp float64
	// RLUSC weighs the sample-size term of RLUS's bound
	// sum_i a_i d_i + RLUSC*sqrt(sum_i a_i^2/m_i) (1: the bound's constant).
	RLUSC float64
	// TargetWeight scales, in the limited-label scenario, the cross-entropy
	// of the labelled target batch that DANN, MDAN, MDMN, M3SDA and DARN
	// add to their source objective; its weight there is TargetWeight times
	// the labelled target's sample count over the sources' total, so that 1
	// counts the target as it would count merged into the source pool. The
	// default 0 keeps these methods to what they are, unsupervised
	// adaptation with the labelled rows as their target sample: the paper's
	// limited-label figures for them sit at about their unsupervised ones
	// (DANN 71.50 against 72.00), which training on the labels would not
	// give. Source+Tar always adds the labelled target, weighted as merged
	// (that is the method); MME trains on the union of its labelled batches
	// row for row, and RLUS weighs the target by its bound; the three
	// ignore it.
	TargetWeight float64
}

// DefaultBaselineConfig returns the baselines' defaults for a data set and
// scenario (see BaselineConfig for the source of each value).
func DefaultBaselineConfig(dataset string, scenario data.Scenario) BaselineConfig {
	b := BaselineConfig{
		Mu: 1e-2, MDANGamma: 10, DARNGamma: 1,
		M3SDAMu: 5e-4, M3SDAOrder: 4,
		PADAMu: 1, PADARamp: 10,
		MMELambda: 0.1, MMETemp: 0.05,
		RLUSC: 1,
	}
	if dataset == "digits" {
		b.M3SDAMu = 1e-7
	}
	return b
}

// baselineConfig returns the run's baseline settings, the defaults when
// cfg.Baseline is zero, after checking them.
func baselineConfig(cfg *Config) (BaselineConfig, error) {
	b := cfg.Baseline
	if b == (BaselineConfig{}) {
		b = DefaultBaselineConfig(cfg.Dataset, cfg.Scenario)
	}
	switch {
	case !(b.Mu >= 0) || !(b.M3SDAMu >= 0) || !(b.PADAMu >= 0) || !(b.MMELambda >= 0) || !(b.RLUSC >= 0) || !(b.TargetWeight >= 0):
		return b, fmt.Errorf("wadn: baseline weights must be >= 0 (mu %v, m3sda-mu %v, pada-mu %v, mme-lambda %v, rlus-c %v, target-weight %v)",
			b.Mu, b.M3SDAMu, b.PADAMu, b.MMELambda, b.RLUSC, b.TargetWeight)
	case !(b.MDANGamma > 0) || !(b.DARNGamma > 0):
		return b, fmt.Errorf("wadn: mdan-gamma %v and darn-gamma %v must be > 0", b.MDANGamma, b.DARNGamma)
	case b.M3SDAOrder < 1:
		return b, fmt.Errorf("wadn: m3sda-order %d, want >= 1", b.M3SDAOrder)
	case !(b.PADARamp >= 0):
		return b, fmt.Errorf("wadn: pada-ramp %v, want >= 0", b.PADARamp)
	case !(b.MMETemp > 0):
		return b, fmt.Errorf("wadn: mme-temp %v, want > 0", b.MMETemp)
	}
	return b, nil
}
