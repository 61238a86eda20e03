package optim

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/internal/settings"
)

// TestSettingsNew checks that Settings build the optimiser they name with
// their hyperparameters (zero ones at the optimiser's defaults), and
// refuse a hyperparameter the chosen optimiser does not read, one out of
// range, and a combination its constructor refuses.
func TestSettingsNew(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Settings
		want any // the optimiser's config, or nil for an error
		err  string
	}{
		{"adadelta", Settings{LR: 1}, AdadeltaConfig{LR: 1, Rho: 0.9, Eps: 1e-6}, ""},
		{"adadelta rho", Settings{LR: 1, Rho: 0.95, Eps: 1e-5, WeightDecay: 0.1}, AdadeltaConfig{LR: 1, Rho: 0.95, Eps: 1e-5, WeightDecay: 0.1}, ""},
		{"sgd", Settings{LR: 0.1, Optimizer: KindSGD, Momentum: 0.9, Nesterov: true}, SGDConfig{LR: 0.1, Momentum: 0.9, Nesterov: true}, ""},
		{"adam", Settings{LR: 1e-3, Optimizer: KindAdam}, AdamConfig{LR: 1e-3, Betas: [2]float64{0.9, 0.999}, Eps: 1e-8}, ""},
		{"adamw", Settings{LR: 1e-3, Optimizer: KindAdamW, Beta1: 0.8, Beta2: 0.99, WeightDecay: 0.01, AMSGrad: true},
			AdamConfig{LR: 1e-3, Betas: [2]float64{0.8, 0.99}, Eps: 1e-8, WeightDecay: 0.01, AMSGrad: true}, ""},
		{"momentum on adadelta", Settings{LR: 1, Momentum: 0.9}, nil, "momentum is not a setting of the adadelta optimizer"},
		{"rho on sgd", Settings{LR: 1, Optimizer: KindSGD, Rho: 0.9}, nil, "rho is not a setting of the sgd optimizer"},
		{"betas on sgd", Settings{LR: 1, Optimizer: KindSGD, Beta2: 0.9}, nil, "beta2"},
		{"no lr", Settings{}, nil, "lr = 0, want > 0"},
		{"rho out of range", Settings{LR: 1, Rho: 2}, nil, "rho = 2, want in [0, 1]"},
		{"nesterov without momentum", Settings{LR: 1, Optimizer: KindSGD, Nesterov: true}, nil, "esterov"},
		{"unknown optimizer", Settings{LR: 1, Optimizer: 9}, nil, "optimizer 9"},
	} {
		err := c.s.Validate()
		o, nerr := New[float32](c.s)
		if (err == nil) != (nerr == nil) {
			t.Errorf("%s: Validate says %v, New %v", c.name, err, nerr)
		}
		if c.want == nil {
			if nerr == nil || !strings.Contains(nerr.Error(), c.err) {
				t.Errorf("%s: error %v, want one saying %q", c.name, nerr, c.err)
			}
			continue
		}
		if nerr != nil {
			t.Errorf("%s: %v", c.name, nerr)
			continue
		}
		var got any
		switch o := o.(type) {
		case *Adadelta[float32]:
			got = o.cfg
		case *SGD[float32]:
			got = o.cfg
		case *Adam[float32]:
			got = o.cfg
			if o.decoupled != (c.s.Optimizer == KindAdamW) {
				t.Errorf("%s: decoupled %v", c.name, o.decoupled)
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: built %T with %+v, want %+v", c.name, o, got, c.want)
		}
	}
}

// TestSettingsByName checks that the optimiser and its hyperparameters are
// set by name, as command lines and experiment files give them.
func TestSettingsByName(t *testing.T) {
	s := Settings{LR: 1}
	fs := settings.Fields(&s)
	for name, v := range map[string]string{"optimizer": "sgd", "momentum": "0.5", "nesterov": "true", "lr": "0.01"} {
		f, err := settings.Lookup(fs, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	if want := (Settings{LR: 0.01, Optimizer: KindSGD, Momentum: 0.5, Nesterov: true}); s != want {
		t.Errorf("set by name: %+v, want %+v", s, want)
	}
	f, _ := settings.Lookup(fs, "optimizer")
	if err := f.Set("rmsprop"); err == nil || !strings.Contains(err.Error(), "adadelta, sgd, adam, adamw") {
		t.Errorf("optimizer rmsprop: %v", err)
	}
	if got := settings.Recorded(settings.Fields(&Settings{LR: 1})); len(got) != 1 {
		t.Errorf("the default optimiser records %v, want lr alone (the records of Adadelta runs before the setting)", got)
	}
}
