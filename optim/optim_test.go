package optim

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// refOpt is an optimiser written as PyTorch's documentation states its
// algorithm: element by element, in float64, with the bias corrections
// applied to the moments (not folded into the step size) and no shared
// machinery with the package. It checks the configurations for which the
// reference file has no trace.
type refOpt interface {
	step(p, g []float64, lr float64)
}

type refSGD struct {
	mom, damp, wd float64
	nesterov      bool
	buf           []float64
}

func (r *refSGD) step(p, g []float64, lr float64) {
	first := r.buf == nil
	if first {
		r.buf = make([]float64, len(p))
	}
	for i := range p {
		gt := g[i] + r.wd*p[i]
		if r.mom != 0 {
			if first {
				r.buf[i] = gt
			} else {
				r.buf[i] = r.mom*r.buf[i] + (1-r.damp)*gt
			}
			if r.nesterov {
				gt += r.mom * r.buf[i]
			} else {
				gt = r.buf[i]
			}
		}
		p[i] -= lr * gt
	}
}

type refAdadelta struct {
	rho, eps, wd float64
	v, u         []float64
}

func (r *refAdadelta) step(p, g []float64, lr float64) {
	if r.v == nil {
		r.v, r.u = make([]float64, len(p)), make([]float64, len(p))
	}
	for i := range p {
		gt := g[i] + r.wd*p[i]
		r.v[i] = r.v[i]*r.rho + gt*gt*(1-r.rho)
		dx := math.Sqrt(r.u[i]+r.eps) / math.Sqrt(r.v[i]+r.eps) * gt
		r.u[i] = r.u[i]*r.rho + dx*dx*(1-r.rho)
		p[i] -= lr * dx
	}
}

type refAdam struct {
	b1, b2, eps, wd float64
	decoupled, ams  bool
	m, v, vmax      []float64
	t               int
}

func (r *refAdam) step(p, g []float64, lr float64) {
	if r.m == nil {
		r.m, r.v, r.vmax = make([]float64, len(p)), make([]float64, len(p)), make([]float64, len(p))
	}
	r.t++
	for i := range p {
		gt := g[i]
		if r.decoupled {
			p[i] -= lr * r.wd * p[i]
		} else {
			gt += r.wd * p[i]
		}
		r.m[i] = r.b1*r.m[i] + (1-r.b1)*gt
		r.v[i] = r.b2*r.v[i] + (1-r.b2)*gt*gt
		mhat := r.m[i] / (1 - math.Pow(r.b1, float64(r.t)))
		v := r.v[i]
		if r.ams {
			r.vmax[i] = math.Max(r.vmax[i], r.v[i])
			v = r.vmax[i]
		}
		vhat := v / (1 - math.Pow(r.b2, float64(r.t)))
		p[i] -= lr * mhat / (math.Sqrt(vhat) + r.eps)
	}
}

// testQuad returns a fixed, well-conditioned quadratic in n variables:
// A = M M^T/n + I, b and p0 with entries in [-2, 2).
func testQuad(n int, seed uint64) (a [][]float64, b, p0 []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
		for j := range m[i] {
			m[i][j] = 2*rng.Float64() - 1
		}
	}
	a = make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n)
		for j := range a[i] {
			for k := range n {
				a[i][j] += m[i][k] * m[j][k] / float64(n)
			}
		}
		a[i][i]++
	}
	b, p0 = make([]float64, n), make([]float64, n)
	for i := range b {
		b[i] = 4*rng.Float64() - 2
		p0[i] = 4*rng.Float64() - 2
	}
	return a, b, p0
}

// TestAgainstReference compares each optimiser configuration with the
// documented algorithm over 40 steps of a quadratic, changing the learning
// rate with SetLR at steps 10 and 25.
func TestAgainstReference(t *testing.T) {
	cases := []struct {
		name string
		opt  func() (Optimizer[float64], error)
		ref  refOpt
	}{
		{"sgd", func() (Optimizer[float64], error) { return NewSGD[float64](SGDConfig{LR: 0.05}) }, &refSGD{}},
		{"sgd_wd", func() (Optimizer[float64], error) { return NewSGD[float64](SGDConfig{LR: 0.05, WeightDecay: 0.1}) }, &refSGD{wd: 0.1}},
		{"sgd_momentum_dampening", func() (Optimizer[float64], error) {
			return NewSGD[float64](SGDConfig{LR: 0.05, Momentum: 0.8, Dampening: 0.3})
		}, &refSGD{mom: 0.8, damp: 0.3}},
		{"sgd_nesterov_wd", func() (Optimizer[float64], error) {
			return NewSGD[float64](SGDConfig{LR: 0.05, Momentum: 0.9, Nesterov: true, WeightDecay: 0.01})
		}, &refSGD{mom: 0.9, nesterov: true, wd: 0.01}},
		{"adadelta_wd", func() (Optimizer[float64], error) {
			return NewAdadelta[float64](AdadeltaConfig{LR: 1, Rho: 0.95, Eps: 1e-5, WeightDecay: 0.01})
		}, &refAdadelta{rho: 0.95, eps: 1e-5, wd: 0.01}},
		{"adam_wd", func() (Optimizer[float64], error) {
			return NewAdam[float64](AdamConfig{LR: 0.05, WeightDecay: 0.1})
		}, &refAdam{b1: 0.9, b2: 0.999, eps: 1e-8, wd: 0.1}},
		{"adam_amsgrad_betas", func() (Optimizer[float64], error) {
			return NewAdam[float64](AdamConfig{LR: 0.05, Betas: [2]float64{0, 0.9}, Eps: 1e-6, AMSGrad: true})
		}, &refAdam{b1: 0, b2: 0.9, eps: 1e-6, ams: true}},
		{"adamw", func() (Optimizer[float64], error) {
			return NewAdamW[float64](AdamConfig{LR: 0.05, WeightDecay: 0.01})
		}, &refAdam{b1: 0.9, b2: 0.999, eps: 1e-8, wd: 0.01, decoupled: true}},
		{"adamw_amsgrad", func() (Optimizer[float64], error) {
			return NewAdamW[float64](AdamConfig{LR: 0.05, Betas: [2]float64{0.5, 0.99}, WeightDecay: 0.2, AMSGrad: true})
		}, &refAdam{b1: 0.5, b2: 0.99, eps: 1e-8, wd: 0.2, decoupled: true, ams: true}},
	}
	a, b, p0 := testQuad(7, 3)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := c.opt()
			if err != nil {
				t.Fatal(err)
			}
			p, g := append([]float64(nil), p0...), make([]float64, len(p0))
			rp, rg := append([]float64(nil), p0...), make([]float64, len(p0))
			lr := o.LR()
			for k := range 40 {
				switch k {
				case 10:
					lr /= 2
				case 25:
					lr *= 3
				}
				if err := o.SetLR(lr); err != nil {
					t.Fatal(err)
				}
				quadGrad(g, p, a, b)
				if err := o.Step([]Param[float64]{{Name: "x", Value: p, Grad: g}}); err != nil {
					t.Fatal(err)
				}
				quadGrad(rg, rp, a, b)
				c.ref.step(rp, rg, lr)
				for i := range p {
					if d := math.Abs(p[i] - rp[i]); !(d <= 1e-12*(1+math.Abs(rp[i]))) {
						t.Fatalf("step %d: x[%d] = %.17g, reference %.17g", k+1, i, p[i], rp[i])
					}
				}
			}
		})
	}
}

// TestFirstSteps checks closed forms of the first steps under a constant
// gradient g, which follow from the update rules by hand.
func TestFirstSteps(t *testing.T) {
	g := []float64{0.5, -2, 1e-3, 0, 7}
	p0 := []float64{1, -1, 0.25, 3, -0.5}
	const lr, mu, damp, wd, eps = 0.1, 0.9, 0.25, 0.05, 1e-8
	cases := []struct {
		name  string
		opt   func() (Optimizer[float64], error)
		steps int
		want  func(p, g float64) float64
	}{
		// Adam's first step divides g by sqrt(g*g): a step of lr against
		// the sign of g.
		{"adam", func() (Optimizer[float64], error) { return NewAdam[float64](AdamConfig{LR: lr, Eps: eps}) }, 1,
			func(p, g float64) float64 { return p - lr*g/(math.Abs(g)+eps) }},
		{"adamw", func() (Optimizer[float64], error) {
			return NewAdamW[float64](AdamConfig{LR: lr, Eps: eps, WeightDecay: wd})
		}, 1, func(p, g float64) float64 { return p*(1-lr*wd) - lr*g/(math.Abs(g)+eps) }},
		// Momentum starts at g without dampening, then mu*g + (1-damp)*g.
		{"sgd_momentum", func() (Optimizer[float64], error) {
			return NewSGD[float64](SGDConfig{LR: lr, Momentum: mu, Dampening: damp})
		}, 2, func(p, g float64) float64 { return p - lr*g - lr*(mu+1-damp)*g }},
		// Nesterov: g + mu*buf with buf = g, then buf = (1+mu)g.
		{"sgd_nesterov", func() (Optimizer[float64], error) {
			return NewSGD[float64](SGDConfig{LR: lr, Momentum: mu, Nesterov: true})
		}, 2, func(p, g float64) float64 { return p - lr*(1+mu)*g - lr*(1+mu+mu*mu)*g }},
		// Adadelta's first delta is sqrt(eps)/sqrt((1-rho)g^2+eps) * g.
		{"adadelta", func() (Optimizer[float64], error) { return NewAdadelta[float64](AdadeltaConfig{LR: lr}) }, 1,
			func(p, g float64) float64 { return p - lr*math.Sqrt(1e-6)/math.Sqrt(0.1*g*g+1e-6)*g }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := c.opt()
			if err != nil {
				t.Fatal(err)
			}
			p := append([]float64(nil), p0...)
			for range c.steps {
				if err := o.Step([]Param[float64]{{Name: "w", Value: p, Grad: g}}); err != nil {
					t.Fatal(err)
				}
			}
			for i := range p {
				want := c.want(p0[i], g[i])
				if d := math.Abs(p[i] - want); !(d <= 1e-15*(1+math.Abs(want))) {
					t.Errorf("w[%d] = %.17g, want %.17g", i, p[i], want)
				}
			}
		})
	}
}

// allOptimizers returns one optimiser of each kind.
func allOptimizers[T kernel.Float](t *testing.T) map[string]Optimizer[T] {
	t.Helper()
	m := map[string]Optimizer[T]{}
	add := func(name string, o Optimizer[T], err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m[name] = o
	}
	o1, err := NewAdadelta[T](AdadeltaConfig{LR: 1, WeightDecay: 0.01})
	add("adadelta", o1, err)
	o2, err := NewSGD[T](SGDConfig{LR: 0.1, Momentum: 0.9, Nesterov: true})
	add("sgd_nesterov", o2, err)
	o3, err := NewSGD[T](SGDConfig{LR: 0.1})
	add("sgd", o3, err)
	o4, err := NewAdam[T](AdamConfig{LR: 0.01, AMSGrad: true})
	add("adam_amsgrad", o4, err)
	o5, err := NewAdamW[T](AdamConfig{LR: 0.01, WeightDecay: 0.01})
	add("adamw", o5, err)
	return m
}

func clone[T any](x []T) []T { return append([]T(nil), x...) }

// TestStepErrors checks that every rejected Step names the parameter, wraps
// the right sentinel and leaves values and state exactly as they were.
func TestStepErrors(t *testing.T) {
	cases := []struct {
		name   string
		params func(w, b []float64) []Param[float64]
		want   error
		names  string // text the error must contain
	}{
		{"grad length", func(w, b []float64) []Param[float64] {
			return []Param[float64]{{"w", w, []float64{1, 2, 3, 4}}, {"b", b, []float64{1}}}
		}, ErrLength, `"b"`},
		{"state length", func(w, b []float64) []Param[float64] {
			return []Param[float64]{{"w", w[:3], []float64{1, 2, 3}}}
		}, ErrLength, `"w"`},
		{"NaN", func(w, b []float64) []Param[float64] {
			return []Param[float64]{{"w", w, []float64{1, 2, 3, 4}}, {"b", b, []float64{1, math.NaN()}}}
		}, ErrNonFinite, `"b": gradient element 1 is NaN`},
		{"+Inf", func(w, b []float64) []Param[float64] {
			return []Param[float64]{{"w", w, []float64{1, 2, 3, 4}}, {"b", b, []float64{math.Inf(1), 0}}}
		}, ErrNonFinite, `"b": gradient element 0 is +Inf`},
		{"-Inf new param", func(w, b []float64) []Param[float64] {
			g := make([]float64, 9)
			g[8] = math.Inf(-1)
			return []Param[float64]{{"w", w, []float64{1, 2, 3, 4}}, {"new", make([]float64, 9), g}}
		}, ErrNonFinite, `"new": gradient element 8 is -Inf`},
		{"duplicate", func(w, b []float64) []Param[float64] {
			return []Param[float64]{{"w", w, []float64{1, 2, 3, 4}}, {"w", w, []float64{1, 2, 3, 4}}}
		}, ErrDuplicate, `"w"`},
		{"duplicate new", func(w, b []float64) []Param[float64] {
			return []Param[float64]{{"z", w, []float64{1, 2, 3, 4}}, {"z", w, []float64{1, 2, 3, 4}}}
		}, ErrDuplicate, `"z"`},
	}
	for oname, o := range allOptimizers[float64](t) {
		w, b := []float64{1, -2, 3, -4}, []float64{0.5, 0.25}
		if err := o.Step([]Param[float64]{{"w", w, []float64{1, 1, 1, 1}}, {"b", b, []float64{-1, 2}}}); err != nil {
			t.Fatalf("%s: %v", oname, err)
		}
		for _, c := range cases {
			t.Run(oname+"/"+c.name, func(t *testing.T) {
				before := o.State()
				w0, b0 := clone(w), clone(b)
				err := o.Step(c.params(w, b))
				if !errors.Is(err, c.want) {
					t.Fatalf("Step error %v, want %v", err, c.want)
				}
				if !strings.Contains(err.Error(), c.names) {
					t.Errorf("error %q does not contain %q", err, c.names)
				}
				if !reflect.DeepEqual(w, w0) || !reflect.DeepEqual(b, b0) {
					t.Errorf("parameters changed by a failed Step: w %v -> %v, b %v -> %v", w0, w, b0, b)
				}
				if after := o.State(); !reflect.DeepEqual(before, after) {
					t.Errorf("state changed by a failed Step:\nbefore %+v\nafter  %+v", before, after)
				}
			})
		}
	}
}

// TestConfigErrors checks that out-of-range hyperparameters are rejected.
func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		err  error
	}{
		{"adadelta lr missing", second(NewAdadelta[float64](AdadeltaConfig{}))},
		{"adadelta lr negative", second(NewAdadelta[float64](AdadeltaConfig{LR: -1}))},
		{"adadelta lr NaN", second(NewAdadelta[float64](AdadeltaConfig{LR: math.NaN()}))},
		{"adadelta lr Inf", second(NewAdadelta[float64](AdadeltaConfig{LR: math.Inf(1)}))},
		{"adadelta rho > 1", second(NewAdadelta[float64](AdadeltaConfig{LR: 1, Rho: 1.5}))},
		{"adadelta eps < 0", second(NewAdadelta[float64](AdadeltaConfig{LR: 1, Eps: -1}))},
		{"adadelta wd < 0", second(NewAdadelta[float64](AdadeltaConfig{LR: 1, WeightDecay: -1}))},
		{"sgd lr missing", second(NewSGD[float32](SGDConfig{Momentum: 0.9}))},
		{"sgd momentum < 0", second(NewSGD[float32](SGDConfig{LR: 1, Momentum: -0.1}))},
		{"sgd dampening > 1", second(NewSGD[float32](SGDConfig{LR: 1, Momentum: 0.5, Dampening: 2}))},
		{"sgd nesterov without momentum", second(NewSGD[float32](SGDConfig{LR: 1, Nesterov: true}))},
		{"sgd nesterov with dampening", second(NewSGD[float32](SGDConfig{LR: 1, Momentum: 0.9, Dampening: 0.1, Nesterov: true}))},
		{"sgd wd NaN", second(NewSGD[float32](SGDConfig{LR: 1, WeightDecay: math.NaN()}))},
		{"adam lr missing", second(NewAdam[float64](AdamConfig{}))},
		{"adam beta1 = 1", second(NewAdam[float64](AdamConfig{LR: 1, Betas: [2]float64{1, 0.9}}))},
		{"adam beta2 < 0", second(NewAdam[float64](AdamConfig{LR: 1, Betas: [2]float64{0.9, -0.9}}))},
		{"adamw eps < 0", second(NewAdamW[float64](AdamConfig{LR: 1, Eps: -1e-8}))},
		{"adamw wd Inf", second(NewAdamW[float64](AdamConfig{LR: 1, WeightDecay: math.Inf(1)}))},
	}
	for _, c := range cases {
		if !errors.Is(c.err, ErrConfig) {
			t.Errorf("%s: error %v, want ErrConfig", c.name, c.err)
		}
	}
	for name, o := range allOptimizers[float32](t) {
		for _, lr := range []float64{0, -1, math.NaN(), math.Inf(1)} {
			if err := o.SetLR(lr); !errors.Is(err, ErrConfig) {
				t.Errorf("%s: SetLR(%v) error %v, want ErrConfig", name, lr, err)
			}
		}
		if err := o.SetLR(0.125); err != nil || o.LR() != 0.125 {
			t.Errorf("%s: SetLR(0.125) = %v, LR() = %v", name, err, o.LR())
		}
	}
}

func second[A any](_ A, err error) error { return err }

// TestDefaults checks that zero hyperparameters take PyTorch's defaults.
func TestDefaults(t *testing.T) {
	ad, _ := NewAdadelta[float64](AdadeltaConfig{LR: 1})
	if c := ad.Config(); c.Rho != 0.9 || c.Eps != 1e-6 || c.WeightDecay != 0 {
		t.Errorf("Adadelta defaults %+v", c)
	}
	am, _ := NewAdam[float64](AdamConfig{LR: 1})
	if c := am.Config(); c.Betas != [2]float64{0.9, 0.999} || c.Eps != 1e-8 || c.WeightDecay != 0 || c.AMSGrad {
		t.Errorf("Adam defaults %+v", c)
	}
	am, _ = NewAdam[float64](AdamConfig{LR: 1, Betas: [2]float64{0, 0.99}})
	if c := am.Config(); c.Betas != [2]float64{0, 0.99} {
		t.Errorf("Adam betas (0, 0.99) became %v", c.Betas)
	}
}

// TestPartialSteps checks that a parameter left out of a Step keeps its
// state, as one whose gradient is None does in PyTorch.
func TestPartialSteps(t *testing.T) {
	o, _ := NewAdam[float64](AdamConfig{LR: 0.1})
	a, b := []float64{1, 2}, []float64{3}
	ga, gb := []float64{0.5, 0.5}, []float64{-1}
	steps := [][]Param[float64]{
		{{"a", a, ga}, {"b", b, gb}},
		{{"a", a, ga}},
		{{"b", b, gb}, {"a", a, ga}},
	}
	for k, ps := range steps {
		if err := o.Step(ps); err != nil {
			t.Fatalf("step %d: %v", k+1, err)
		}
	}
	st := o.State()
	got := map[string]int{}
	for _, p := range st.Params {
		got[p.Name] = p.Step
	}
	if st.Step != 3 || got["a"] != 3 || got["b"] != 2 || len(got) != 2 {
		t.Errorf("State step %d, parameter steps %v; want 3 and a:3 b:2", st.Step, got)
	}
	// b has taken two Adam steps of a constant gradient: each moves it by
	// lr against the gradient's sign (mhat = g, vhat = g*g).
	if want := 3 + 2*0.1*(1/(1+1e-8)); math.Abs(b[0]-want) > 1e-15 {
		t.Errorf("b = %.17g, want %.17g", b[0], want)
	}
}

// TestStateRoundTrip checks State, SetState and the checkpoint tensors, and
// that restored state continues bit for bit in both precisions.
func TestStateRoundTrip(t *testing.T) {
	testStateRoundTrip[float32](t)
	testStateRoundTrip[float64](t)
}

func testStateRoundTrip[T kernel.Float](t *testing.T) {
	a, b, p0 := testQuad(5, 9)
	ta, tb := make([][]T, len(a)), conv[T](b)
	for i := range a {
		ta[i] = conv[T](a[i])
	}
	for name, o := range allOptimizers[T](t) {
		p, g := conv[T](p0), make([]T, len(p0))
		u, gu := []T{1, 2}, []T{0.5, -0.5}
		step := func(o Optimizer[T], p, u []T) {
			quadGrad(g, p, ta, tb)
			if err := o.Step([]Param[T]{{"layer/w", p, g}, {"u", u, gu}}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		for range 3 {
			step(o, p, u)
		}
		st := o.State()
		for _, ps := range st.Params {
			for _, sl := range ps.Slots {
				if isFloat32[T]() != (sl.F32 != nil) || (sl.F32 != nil) == (sl.F64 != nil) {
					t.Errorf("%s: slot %s/%s: F32 %v F64 %v for a %T optimiser", name, ps.Name, sl.Name, sl.F32 != nil, sl.F64 != nil, p[0])
				}
			}
		}
		back, err := StateFromTensors(st.Step, st.Tensors())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(back, st) {
			t.Errorf("%s: state through tensors\n got %+v\nwant %+v", name, back, st)
		}
		fresh := allOptimizers[T](t)[name]
		if err := fresh.SetState(back); err != nil {
			t.Fatalf("%s: SetState: %v", name, err)
		}
		if !reflect.DeepEqual(fresh.State(), st) {
			t.Errorf("%s: State after SetState differs", name)
		}
		p2, u2 := clone(p), clone(u)
		for range 4 {
			step(o, p, u)
			step(fresh, p2, u2)
		}
		if !reflect.DeepEqual(p, p2) || !reflect.DeepEqual(u, u2) {
			t.Errorf("%s: resumed run differs: %v %v, uninterrupted %v %v", name, p2, u2, p, u)
		}
		// State is a copy: changing it must not reach the optimiser.
		st = o.State()
		for _, ps := range st.Params {
			for _, sl := range ps.Slots {
				for i := range sl.F32 {
					sl.F32[i] = 99
				}
				for i := range sl.F64 {
					sl.F64[i] = 99
				}
			}
		}
		if reflect.DeepEqual(st, o.State()) && len(st.Params[0].Slots) > 0 {
			t.Errorf("%s: State shares memory with the optimiser", name)
		}
	}
}

// TestSetStateErrors checks that states that do not fit are rejected and
// leave the optimiser as it was.
func TestSetStateErrors(t *testing.T) {
	f64 := func(n int) []float64 { return make([]float64, n) }
	cases := []struct {
		name string
		s    State
		want error
	}{
		{"negative step", State{Step: -1}, ErrState},
		{"empty name", State{Params: []ParamState{{Name: "", Slots: []Slot{{"exp_avg", nil, f64(2)}, {"exp_avg_sq", nil, f64(2)}}}}}, ErrState},
		{"negative param step", State{Params: []ParamState{{Name: "w", Step: -2, Slots: []Slot{{"exp_avg", nil, f64(2)}, {"exp_avg_sq", nil, f64(2)}}}}}, ErrState},
		{"missing slot", State{Params: []ParamState{{Name: "w", Slots: []Slot{{"exp_avg", nil, f64(2)}}}}}, ErrState},
		{"foreign slot", State{Params: []ParamState{{Name: "w", Slots: []Slot{{"exp_avg", nil, f64(2)}, {"exp_avg_sq", nil, f64(2)}, {"momentum_buffer", nil, f64(2)}}}}}, ErrState},
		{"both precisions", State{Params: []ParamState{{Name: "w", Slots: []Slot{{"exp_avg", make([]float32, 2), f64(2)}, {"exp_avg_sq", nil, f64(2)}}}}}, ErrState},
		{"slot lengths", State{Params: []ParamState{{Name: "w", Slots: []Slot{{"exp_avg", nil, f64(2)}, {"exp_avg_sq", nil, f64(3)}}}}}, ErrLength},
		{"duplicate slot", State{Params: []ParamState{{Name: "w", Slots: []Slot{{"exp_avg", nil, f64(2)}, {"exp_avg", nil, f64(2)}, {"exp_avg_sq", nil, f64(2)}}}}}, ErrDuplicate},
		{"duplicate param", State{Params: []ParamState{
			{Name: "w", Slots: []Slot{{"exp_avg", nil, f64(2)}, {"exp_avg_sq", nil, f64(2)}}},
			{Name: "w", Slots: []Slot{{"exp_avg", nil, f64(2)}, {"exp_avg_sq", nil, f64(2)}}}}}, ErrDuplicate},
	}
	o, _ := NewAdam[float64](AdamConfig{LR: 0.1})
	w := []float64{1, 2}
	if err := o.Step([]Param[float64]{{"w", w, []float64{1, 1}}}); err != nil {
		t.Fatal(err)
	}
	before := o.State()
	for _, c := range cases {
		if err := o.SetState(c.s); !errors.Is(err, c.want) {
			t.Errorf("%s: SetState error %v, want %v", c.name, err, c.want)
		}
		if !reflect.DeepEqual(o.State(), before) {
			t.Fatalf("%s: rejected SetState changed the state", c.name)
		}
	}
	// A state of the right form but another length is caught at Step.
	good := State{Step: 1, Params: []ParamState{{Name: "w", Step: 1, Slots: []Slot{{"exp_avg", nil, f64(3)}, {"exp_avg_sq", nil, f64(3)}}}}}
	if err := o.SetState(good); err != nil {
		t.Fatal(err)
	}
	if err := o.Step([]Param[float64]{{"w", w, []float64{1, 1}}}); !errors.Is(err, ErrLength) || !strings.Contains(err.Error(), "state has length 3") {
		t.Errorf("Step with a 2-element w on 3-element state: %v", err)
	}
	// float32 slots restore into a float64 optimiser exactly.
	s32 := State{Step: 4, Params: []ParamState{{Name: "w", Step: 4, Slots: []Slot{{"exp_avg", []float32{0.1, -0.2}, nil}, {"exp_avg_sq", []float32{0.3, 0.4}, nil}}}}}
	if err := o.SetState(s32); err != nil {
		t.Fatal(err)
	}
	if got := o.State().Params[0].Slots[0].F64; got[0] != float64(float32(0.1)) || got[1] != float64(float32(-0.2)) {
		t.Errorf("float32 slot restored as %v", got)
	}
}

// TestStateFromTensorsErrors checks the conversion from checkpoint tensors.
func TestStateFromTensorsErrors(t *testing.T) {
	step := func(name string, v float64) checkpoint.Tensor {
		return checkpoint.Tensor{Name: name, Shape: []int{}, F64: []float64{v}}
	}
	vec := func(name string, n int) checkpoint.Tensor {
		return checkpoint.Tensor{Name: name, Shape: []int{n}, F32: make([]float32, n)}
	}
	cases := []struct {
		name string
		ts   []checkpoint.Tensor
		want error
	}{
		{"no slash", []checkpoint.Tensor{step("w", 1)}, ErrState},
		{"empty slot", []checkpoint.Tensor{step("w/", 1)}, ErrState},
		{"no step", []checkpoint.Tensor{vec("w/exp_avg", 2)}, ErrState},
		{"step not integral", []checkpoint.Tensor{step("w/step", 1.5)}, ErrState},
		{"step negative", []checkpoint.Tensor{step("w/step", -1)}, ErrState},
		{"step NaN", []checkpoint.Tensor{step("w/step", math.NaN())}, ErrState},
		{"step vector", []checkpoint.Tensor{vec("w/step", 1)}, ErrState},
		{"two steps", []checkpoint.Tensor{step("w/step", 1), step("w/step", 1)}, ErrDuplicate},
		{"two slots", []checkpoint.Tensor{step("w/step", 1), vec("w/exp_avg", 2), vec("w/exp_avg", 2)}, ErrDuplicate},
		{"matrix slot", []checkpoint.Tensor{step("w/step", 1), {Name: "w/exp_avg", Shape: []int{1, 2}, F32: make([]float32, 2)}}, ErrState},
	}
	for _, c := range cases {
		if _, err := StateFromTensors(1, c.ts); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := StateFromTensors(-1, nil); !errors.Is(err, ErrState) {
		t.Errorf("negative step: error %v", err)
	}
}

// TestStepAllocs checks that steps over known parameters do not allocate.
func TestStepAllocs(t *testing.T) {
	for name, o := range allOptimizers[float32](t) {
		ps := []Param[float32]{
			{"w1", make([]float32, 300), make([]float32, 300)},
			{"b1", make([]float32, 10), make([]float32, 10)},
			{"w2", make([]float32, 50), make([]float32, 50)},
		}
		for i := range ps {
			for j := range ps[i].Grad {
				ps[i].Grad[j] = float32(j%7) - 3
			}
		}
		if err := o.Step(ps); err != nil {
			t.Fatal(err)
		}
		// Reordered parameters miss the positional cache and use the map.
		rev := []Param[float32]{ps[2], ps[0], ps[1]}
		for _, list := range [][]Param[float32]{ps, rev} {
			allocs := testing.AllocsPerRun(50, func() {
				if err := o.Step(list); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%s: %v allocations per Step", name, allocs)
			}
		}
	}
}

// TestFirstNonFinite checks the finiteness scan at every position and for
// lengths around its unrolling.
func TestFirstNonFinite(t *testing.T) {
	bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for n := 0; n < 11; n++ {
		x := make([]float32, n)
		for i := range x {
			x[i] = math.MaxFloat32 * float32(1-2*(i%2))
		}
		if i, ok := firstNonFinite(x); !ok {
			t.Errorf("n=%d: finite data reported non-finite at %d", n, i)
		}
		for pos := range n {
			for _, v := range bad {
				y := clone(x)
				y[pos] = v
				if pos+1 < n {
					y[n-1] = v // a later bad element must not be reported first
				}
				if i, ok := firstNonFinite(y); ok || i != pos {
					t.Errorf("n=%d: %v at %d reported as (%d, %v)", n, v, pos, i, ok)
				}
			}
		}
	}
}
