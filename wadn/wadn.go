// Package wadn is the Wasserstein Aggregation Domain Network of
// "Aggregating From Multiple Target-Shifted Sources" (Shui et al., ICML
// 2021): multi-source domain adaptation under label shift, in its three
// scenarios (limited target labels, unsupervised, partial unsupervised).
//
// Each step trains, for every source t weighted by lambda_t, the
// classifier on the source's samples weighted by alpha_t(y) = T(y)/S_t(y),
// and aligns the source's class conditionals with the target's, explicitly
// through class centroids and implicitly through a critic d_t behind gradient
// reversal kept Lipschitz by a gradient penalty. After each epoch alpha is
// re-estimated from the sources' confusion and the target's predictions (one
// convex problem per source), and lambda from the sources' losses and
// distances (one convex problem), both solved by package convex.
//
// Method describes the method to the experiment layer; Settings are its
// settings, with the paper's values and the authors' code's forms as
// defaults (Defaults). The packages under wadn hold what the method stands
// on: trainer (the training loop), method (what every method shares), nets
// (the networks), dataset (the data sets), baselines (the methods of the
// paper's tables) and experiment (runs, sweeps and reports).
package wadn

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn/method"
)

// Method is WADN, for the registries of the experiment layer.
var Method = func() method.Spec {
	m := method.Define("wadn", []data.Scenario{data.UDA, data.Limited, data.Partial},
		"WADN: alpha-weighted losses, conditional alignment, lambda from the bound", Defaults, newAlgo)
	m.EstimatesAlpha = []data.Scenario{data.UDA, data.Partial} // limited: the labelled rows' ratios
	return m
}()

// Settings are WADN's settings.
type Settings struct {
	Eps float64 `setting:"eps" help:"share of the explicit (centroid) conditional term; 1-eps goes to the critics"`
	C0  float64 `setting:"c0" help:"weight of the conditional terms, in training and in the lambda problem"`
	C1  C1      `setting:"c1" help:"weight of the norm term of the lambda problem: a number, or max (max_t L_t, the epoch's largest source loss)"`
	C2  float64 `setting:"c2" scenarios:"uda partial" help:"L1 weight of the alpha problem (partial UDA)"`
	GP  float64 `setting:"gp" help:"gradient-penalty coefficient of the critics"`

	CentroidKeep float64 `setting:"centroid-keep" help:"centroid moving average: C <- keep*C + (1-keep)*C_batch"`
	AlphaKeep    float64 `setting:"alpha-keep" scenarios:"uda partial" help:"alpha moving average: alpha <- keep*alpha + (1-keep)*alpha_new"`
	LambdaKeep   float64 `setting:"lambda-keep" help:"lambda moving average: lambda <- keep*lambda + (1-keep)*lambda_new"`
	AlphaStart   int     `setting:"alpha-start" scenarios:"uda partial" help:"first epoch at whose end alpha is re-estimated"`
	LambdaStart  int     `setting:"lambda-start" help:"first epoch at whose end lambda is re-estimated"`
	// AlignStart is the first epoch whose steps include the conditional
	// terms (centroids and critics) and whose lambda problem counts them;
	// before it the model learns from the alpha-weighted classification
	// losses alone.
	AlignStart int `setting:"align-start" help:"first epoch whose steps include the conditional (centroid and critic) terms"`
	// ExplicitStart is the first epoch whose steps include the explicit
	// (centroid) term, or the align-start's epoch.
	ExplicitStart Start `setting:"explicit-start" help:"first epoch whose steps include the centroid term: a number, or align (with the critics, at align-start)"`

	// Explicit is the form of the explicit conditional term.
	Explicit Explicit `setting:"explicit" help:"the explicit term: paper (E_{y~T} ||C_t^y - C^y||), squared (sum_y alpha_t(y) S_t(y) mean_j (C_t^y - C^y)_j^2, the authors' code) or code (squared, with the code's target centroid: the batch mean times 1-keep)"`
	// Centroids is where the class centroids of the explicit term are taken.
	Centroids Centroids `setting:"centroids" help:"where the explicit term's centroids are taken: features (the extractor's output) or hidden (the classifier's last hidden layer, as the authors' Digits code)"`
	// ClassNorm divides each source's alpha-weighted cross-entropy by the
	// batch's sum of weights (PyTorch's weighted nll_loss, which the
	// authors' code calls) instead of by the batch size.
	ClassNorm bool `setting:"class-norm" help:"divide each source's alpha-weighted cross-entropy by the batch's sum of weights (the authors' code) instead of the batch size"`

	// LambdaDistance is the conditional distance W_t of the lambda problem.
	LambdaDistance Distance `setting:"lambda-distance" record:"omitzero" help:"the distance W_t of the lambda problem: both (eps*explicit + (1-eps)*critic, the paper) or explicit (eps times the centroid term alone, as the authors' code)"`

	// LambdaNorm is the norm term of the lambda problem.
	LambdaNorm Norm `setting:"lambda-norm" record:"omitzero" help:"the norm term of the lambda problem: shares (C1*sqrt(sum_t lambda_t^2/beta_t), beta_t source t's share of the source samples, the paper's bound) or equal (every beta_t 1/T, as with sources of equal size; the authors' code's ||lambda||_2 up to C1)"`

	// Alpha is how alpha is estimated without target labels.
	Alpha Estimator `setting:"alpha" scenarios:"uda partial" help:"the estimate of alpha: batches (the epoch's training batches, as the authors' code), eval (an evaluation-mode pass over the training samples), held-out (each source's confusion on its held-out rows) or oracle (fixed at the true ratios: a diagnostic that reads the target labels)"`
	// SoftEstimate counts soft-max probabilities instead of arg-max classes
	// in the estimate of alpha.
	SoftEstimate bool `setting:"soft-estimate" scenarios:"uda partial" help:"estimate alpha from soft-max probabilities instead of arg-max classes"`
	// PseudoThreshold, above 0, leaves out of the target centroids the rows
	// whose predicted class has a probability below it.
	PseudoThreshold float64 `setting:"pseudo-threshold" scenarios:"uda partial" help:"leave target rows predicted with a probability below this out of the target centroids (0: every row)"`
	// TargetWeight scales the cross-entropy of the labelled target batch
	// added to the loss, whose weight is then the labelled target's sample
	// count over the sources' total (0: the labels serve alpha and the
	// target centroids only, as in the paper).
	TargetWeight float64 `setting:"target-weight" scenarios:"limited" help:"scale of the labelled target's cross-entropy added to the loss (1: weighted as merged into the source pool; 0: none, as the paper)"`
}

// Defaults returns WADN's settings for a scenario: the paper's eps 0.5, C0
// 0.01 (0.002 with limited target labels, the authors' code's mu = 1e-3), C1
// max_t L_t, C2 0.1 in partial UDA, gradient penalty 10, moving averages 0.7
// (centroids, alpha) and 0.8 (lambda), alpha from epoch 3, lambda from
// epoch 6, the conditional terms from the first epoch.
//
// A data set gives other defaults where the authors' code departs from the
// paper's text on it (dataset.Dataset.MethodDefaults): on the MLP of Amazon
// and Office-Caltech10 C1 1 and lambda from epoch 2, and without target
// labels the squared explicit term, the weighted mean of the cross-entropy,
// mu = 1e-2 on the critic, penalty and centroid terms alike (C0 0.02 with
// eps 0.5) and alpha's average 0.8; on Digits the same without target
// labels, with the centroids on the classifier's hidden layer, lambda's
// distance from the centroid term alone, and lambda from epoch 7. docs/
// gives the measurements behind these choices.
func Defaults(sc data.Scenario) Settings {
	s := Settings{
		Eps: 0.5, C0: 0.01, C1: C1Max, GP: 10,
		CentroidKeep: 0.7, AlphaKeep: 0.7, LambdaKeep: 0.8,
		AlphaStart: 3, LambdaStart: 6, AlignStart: 1, ExplicitStart: StartWithAlign,
	}
	switch sc {
	case data.Partial:
		s.C2 = 0.1
	case data.Limited:
		s.C0 = 0.002
	}
	return s
}

// Validate reports the first setting that cannot work.
func (s *Settings) Validate() error {
	unit := func(v float64) bool { return v >= 0 && v <= 1 }
	switch {
	case !unit(s.Eps):
		return fmt.Errorf("eps = %v, want a value in [0, 1]", s.Eps)
	case !(s.PseudoThreshold >= 0 && s.PseudoThreshold < 1):
		return fmt.Errorf("pseudo-threshold %v, want a value in [0, 1)", s.PseudoThreshold)
	case !(s.C0 >= 0) || !(s.C1 >= 0 || s.C1 == C1Max) || !(s.C2 >= 0) || !(s.GP >= 0) || !(s.TargetWeight >= 0):
		return fmt.Errorf("c0, c1, c2, gp and target-weight must be >= 0 (have %v, %v, %v, %v, %v)", s.C0, s.C1, s.C2, s.GP, s.TargetWeight)
	case !unit(s.CentroidKeep) || !unit(s.AlphaKeep) || !unit(s.LambdaKeep):
		return fmt.Errorf("centroid-keep, alpha-keep and lambda-keep must lie in [0, 1] (have %v, %v, %v)", s.CentroidKeep, s.AlphaKeep, s.LambdaKeep)
	case s.AlphaStart < 0 || s.LambdaStart < 0:
		return fmt.Errorf("alpha-start %d, lambda-start %d, want epochs >= 0", s.AlphaStart, s.LambdaStart)
	case s.AlignStart < 0 || s.ExplicitStart < StartWithAlign:
		return fmt.Errorf("align-start %d, explicit-start %v, want >= 0", s.AlignStart, s.ExplicitStart)
	case s.Explicit < Paper || s.Explicit > Code || s.Centroids < Features || s.Centroids > Hidden || s.LambdaDistance < Both || s.LambdaDistance > ExplicitOnly || s.LambdaNorm < Shares || s.LambdaNorm > Equal || s.Alpha < Batches || s.Alpha > Oracle:
		return fmt.Errorf("explicit %d, centroids %d, lambda-distance %d, lambda-norm %d or alpha %d out of range", s.Explicit, s.Centroids, s.LambdaDistance, s.LambdaNorm, s.Alpha)
	}
	return nil
}

// c0At returns the weight of the conditional terms in epoch, in the steps
// and in the lambda problem: C0 from AlignStart on, 0 before (while they are
// off their values say nothing).
func (s *Settings) c0At(epoch int) float64 { return c0From(s.C0, s.AlignStart, epoch) }

// explicitC0At returns the weight of the explicit term in the steps of
// epoch: C0 from ExplicitStart on (AlignStart with StartWithAlign).
func (s *Settings) explicitC0At(epoch int) float64 {
	if s.ExplicitStart == StartWithAlign {
		return s.c0At(epoch)
	}
	return c0From(s.C0, int(s.ExplicitStart), epoch)
}

func c0From(c0 float64, start, epoch int) float64 {
	if epoch < start {
		return 0
	}
	return c0
}

// C1 is the weight of the lambda problem's norm term: a number, or C1Max.
type C1 float64

// C1Max weighs the norm term by max_t L_t, the epoch's largest source
// classification loss (the paper's choice for Digits and Office-Home).
const C1Max C1 = -1

// MarshalText returns "max" or the number.
func (c C1) MarshalText() ([]byte, error) {
	if c == C1Max {
		return []byte("max"), nil
	}
	return strconv.AppendFloat(nil, float64(c), 'g', -1, 64), nil
}

// SettingType describes C1's values for help texts.
func (C1) SettingType() string { return "number|max" }

// UnmarshalText reads "max" or a non-negative number.
func (c *C1) UnmarshalText(b []byte) error {
	if string(b) == "max" {
		*c = C1Max
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || !(v >= 0) || v > 1e300 {
		return fmt.Errorf("%q is not max or a non-negative number", b)
	}
	*c = C1(v)
	return nil
}

// Start is the first epoch of a term, or StartWithAlign.
type Start int

// StartWithAlign starts a term with the conditional terms, at AlignStart.
const StartWithAlign Start = -1

// MarshalText returns "align" or the epoch.
func (s Start) MarshalText() ([]byte, error) {
	if s == StartWithAlign {
		return []byte("align"), nil
	}
	return strconv.AppendInt(nil, int64(s), 10), nil
}

// SettingType describes Start's values for help texts.
func (Start) SettingType() string { return "integer|align" }

// UnmarshalText reads "align" or a non-negative epoch.
func (s *Start) UnmarshalText(b []byte) error {
	if string(b) == "align" {
		*s = StartWithAlign
		return nil
	}
	v, err := strconv.Atoi(string(b))
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not align or an epoch (a non-negative integer)", b)
	}
	*s = Start(v)
	return nil
}

// Explicit is the form of the explicit conditional term.
type Explicit int

const (
	// Paper is the paper's E_{y~T_bar} ||C_t^y - C^y||_2, the target
	// centroids moving averages.
	Paper Explicit = iota
	// Squared is the authors' code's sum_y alpha_t(y) S_t(y) mean_j
	// (C_t^y - C^y)_j^2 (S_t the source's label distribution) with the
	// moving-average target centroids of the paper.
	Squared
	// Code is Squared with the target centroid as the authors' code
	// computes it: it stores the target's moving average under another
	// name, so the average it starts from stays zero, and C^y is the batch's
	// class mean times 1-CentroidKeep.
	Code
)

var explicitNames = []string{Paper: "paper", Squared: "squared", Code: "code"}

// Values lists the forms.
func (Explicit) Values() []string { return slices.Clone(explicitNames) }

// MarshalText returns the form's name.
func (e Explicit) MarshalText() ([]byte, error) {
	return settings.EnumText(explicitNames, int(e), "explicit term")
}

// UnmarshalText reads a form's name.
func (e *Explicit) UnmarshalText(b []byte) error {
	return settings.ParseEnum(explicitNames, b, (*int)(e))
}

// Centroids is where the class centroids of the explicit term are taken.
type Centroids int

const (
	// Features takes them on the extractor's output, which the critics read.
	Features Centroids = iota
	// Hidden takes them on the classifier's last hidden layer (what its
	// output layer reads), as the authors' Digits code does; it needs a
	// classifier with a hidden layer.
	Hidden
)

var centroidNames = []string{Features: "features", Hidden: "hidden"}

// Values lists the places.
func (Centroids) Values() []string { return slices.Clone(centroidNames) }

// MarshalText returns the place's name.
func (c Centroids) MarshalText() ([]byte, error) {
	return settings.EnumText(centroidNames, int(c), "centroids")
}

// UnmarshalText reads a place's name.
func (c *Centroids) UnmarshalText(b []byte) error {
	return settings.ParseEnum(centroidNames, b, (*int)(c))
}

// Distance is the conditional distance W_t of source t in the lambda
// problem.
type Distance int

const (
	// Both is the paper's eps*explicit + (1-eps)*implicit: the centroid
	// term and the critic's estimate of the Wasserstein distance.
	Both Distance = iota
	// ExplicitOnly is eps*explicit: the authors' code adds only the centroid
	// term (with the weight it has in training) to the losses of the lambda
	// problem.
	ExplicitOnly
)

var distanceNames = []string{Both: "both", ExplicitOnly: "explicit"}

// Values lists the distances.
func (Distance) Values() []string { return slices.Clone(distanceNames) }

// MarshalText returns the distance's name.
func (d Distance) MarshalText() ([]byte, error) {
	return settings.EnumText(distanceNames, int(d), "lambda distance")
}

// UnmarshalText reads a distance's name.
func (d *Distance) UnmarshalText(b []byte) error {
	return settings.ParseEnum(distanceNames, b, (*int)(d))
}

// Norm is the norm term of the lambda problem.
type Norm int

const (
	// Shares is the paper's C1*sqrt(sum_t lambda_t^2/beta_t): a source
	// with fewer samples costs more weight.
	Shares Norm = iota
	// Equal takes every beta_t as 1/T, as if the sources were of equal
	// size: C1*sqrt(T)*||lambda||_2. On sources of equal size it is Shares.
	Equal
)

var normNames = []string{Shares: "shares", Equal: "equal"}

// Values lists the norms.
func (Norm) Values() []string { return slices.Clone(normNames) }

// MarshalText returns the norm's name.
func (n Norm) MarshalText() ([]byte, error) {
	return settings.EnumText(normNames, int(n), "lambda norm")
}

// UnmarshalText reads a norm's name.
func (n *Norm) UnmarshalText(b []byte) error { return settings.ParseEnum(normNames, b, (*int)(n)) }

// Estimator is how alpha is estimated without target labels.
type Estimator int

const (
	// Batches estimates from the predictions on the epoch's training
	// batches, in training mode, as the authors' code does.
	Batches Estimator = iota
	// Eval estimates from one pass over every source and target training
	// sample in evaluation mode at the end of the epoch.
	Eval
	// HeldOut estimates by black-box shift estimation: each source's
	// confusion measured in evaluation mode on its held-out rows
	// (data.Task.SourceTest), the target distribution from an
	// evaluation-mode pass. Sources without held-out rows keep their
	// training-batch counts.
	HeldOut
	// Oracle fixes alpha at the true ratios T(y)/S_t(y), read from the
	// target's labels, and never re-estimates it: a diagnostic of what a
	// perfect estimate would allow.
	Oracle
)

var estimatorNames = []string{Batches: "batches", Eval: "eval", HeldOut: "held-out", Oracle: "oracle"}

// Values lists the estimators.
func (Estimator) Values() []string { return slices.Clone(estimatorNames) }

// MarshalText returns the estimator's name.
func (e Estimator) MarshalText() ([]byte, error) {
	return settings.EnumText(estimatorNames, int(e), "alpha estimator")
}

// UnmarshalText reads an estimator's name.
func (e *Estimator) UnmarshalText(b []byte) error {
	return settings.ParseEnum(estimatorNames, b, (*int)(e))
}
