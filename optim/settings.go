package optim

import (
	"fmt"
	"slices"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/settings"
)

// Kind names an optimiser.
type Kind int

// The optimisers a run can choose (Settings.Optimizer).
const (
	KindAdadelta Kind = iota // Adadelta, the zero value
	KindSGD
	KindAdam
	KindAdamW
)

var kindNames = []string{KindAdadelta: "adadelta", KindSGD: "sgd", KindAdam: "adam", KindAdamW: "adamw"}

// Values lists the optimisers' names.
func (Kind) Values() []string { return slices.Clone(kindNames) }

// MarshalText returns the optimiser's name.
func (k Kind) MarshalText() ([]byte, error) { return settings.EnumText(kindNames, int(k), "optimizer") }

// UnmarshalText sets k to the optimiser named b.
func (k *Kind) UnmarshalText(b []byte) error {
	i := int(*k)
	err := settings.ParseEnum(kindNames, b, &i)
	*k = Kind(i)
	return err
}

// String returns the optimiser's name.
func (k Kind) String() string {
	b, err := k.MarshalText()
	if err != nil {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return string(b)
}

// Settings choose an optimiser and its hyperparameters by name, as a run's
// settings (package internal/settings) and command lines give them. A zero
// hyperparameter takes the optimiser's default (its Config's); one that the
// chosen optimiser does not read must stay zero (Validate). Every field but
// LR is recorded only when set, so that the records of runs made before
// the optimiser was a setting, all of them Adadelta's, stay valid.
type Settings struct {
	LR          float64 `setting:"lr" range:"(0,inf)" help:"learning rate of the optimizer"`
	Optimizer   Kind    `setting:"optimizer" record:"omitzero" help:"the optimizer: adadelta, sgd, adam or adamw (their settings: rho and optim-eps; momentum, dampening and nesterov; beta1, beta2, optim-eps and amsgrad; weight-decay for all)"`
	Rho         float64 `setting:"rho" record:"omitzero" range:"[0,1]" help:"adadelta: decay of the running averages (0: 0.9)"`
	Eps         float64 `setting:"optim-eps" record:"omitzero" range:"[0,inf)" help:"adadelta, adam, adamw: the term added inside the square roots or to the denominator (0: 1e-6 for adadelta, 1e-8 for adam)"`
	Momentum    float64 `setting:"momentum" record:"omitzero" range:"[0,1]" help:"sgd: momentum factor (0: plain gradient descent)"`
	Dampening   float64 `setting:"dampening" record:"omitzero" range:"[0,1]" help:"sgd: dampening of the gradient in the momentum buffer"`
	Nesterov    bool    `setting:"nesterov" record:"omitzero" help:"sgd: Nesterov momentum (with momentum > 0 and no dampening)"`
	Beta1       float64 `setting:"beta1" record:"omitzero" range:"[0,1)" help:"adam, adamw: decay of the first moment average (0 with beta2 0: 0.9)"`
	Beta2       float64 `setting:"beta2" record:"omitzero" range:"[0,1)" help:"adam, adamw: decay of the second moment average (0 with beta1 0: 0.999)"`
	AMSGrad     bool    `setting:"amsgrad" record:"omitzero" help:"adam, adamw: divide by the running maximum of the second moment"`
	WeightDecay float64 `setting:"weight-decay" record:"omitzero" range:"[0,inf)" help:"L2 penalty added to the gradient (adamw: decoupled decay of the weights)"`
}

// Validate reports a setting outside its range, an unknown optimiser, a
// hyperparameter set that the chosen optimiser does not read, or one its
// constructor refuses (nesterov without momentum).
func (s *Settings) Validate() error {
	if err := s.check(); err != nil {
		return err
	}
	_, err := s.build()
	return err
}

// check reports the settings' errors that need no optimiser built.
func (s *Settings) check() error {
	if err := settings.Check(settings.Fields(s)); err != nil {
		return err
	}
	if s.Optimizer < KindAdadelta || s.Optimizer > KindAdamW {
		return fmt.Errorf("optimizer %d, want one of %v", s.Optimizer, kindNames)
	}
	reads := map[Kind][]string{
		KindAdadelta: {"rho", "optim-eps"},
		KindSGD:      {"momentum", "dampening", "nesterov"},
		KindAdam:     {"beta1", "beta2", "optim-eps", "amsgrad"},
		KindAdamW:    {"beta1", "beta2", "optim-eps", "amsgrad"},
	}[s.Optimizer]
	for name, set := range map[string]bool{"rho": s.Rho != 0, "optim-eps": s.Eps != 0, "momentum": s.Momentum != 0,
		"dampening": s.Dampening != 0, "nesterov": s.Nesterov, "beta1": s.Beta1 != 0, "beta2": s.Beta2 != 0, "amsgrad": s.AMSGrad} {
		if set && !slices.Contains(reads, name) {
			return fmt.Errorf("%s is not a setting of the %s optimizer", name, s.Optimizer)
		}
	}
	return nil
}

// New returns the optimiser s chooses, with its hyperparameters, or an
// error naming the setting it cannot run with.
func New[T kernel.Float](s Settings) (Optimizer[T], error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return build[T](s)
}

// build returns the float32 optimiser of s, for Validate.
func (s *Settings) build() (Optimizer[float32], error) { return build[float32](*s) }

func build[T kernel.Float](s Settings) (Optimizer[T], error) {
	adam := AdamConfig{LR: s.LR, Betas: [2]float64{s.Beta1, s.Beta2}, Eps: s.Eps, WeightDecay: s.WeightDecay, AMSGrad: s.AMSGrad}
	switch s.Optimizer {
	case KindSGD:
		return NewSGD[T](SGDConfig{LR: s.LR, Momentum: s.Momentum, Dampening: s.Dampening, Nesterov: s.Nesterov, WeightDecay: s.WeightDecay})
	case KindAdam:
		return NewAdam[T](adam)
	case KindAdamW:
		return NewAdamW[T](adam)
	}
	return NewAdadelta[T](AdadeltaConfig{LR: s.LR, Rho: s.Rho, Eps: s.Eps, WeightDecay: s.WeightDecay})
}
