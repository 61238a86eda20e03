package numerics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulps returns the distance of got from want in units in the last place of
// want.
func ulps(got, want float64) float64 {
	if got == want {
		return 0
	}
	u := math.Nextafter(want, math.Inf(1)) - want
	if u == 0 || math.IsInf(u, 0) {
		u = want - math.Nextafter(want, math.Inf(-1))
	}
	return math.Abs(got-want) / u
}

func TestPortableAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name    string
		f, want func(float64) float64
		gen     func() float64
		maxUlps float64
	}{
		{"Exp", PortableExp, math.Exp, func() float64 { return r.Float64()*1400 - 700 }, 2},
		{"ExpSmall", PortableExp, math.Exp, func() float64 { return r.NormFloat64() }, 2},
		{"Expm1", PortableExpm1, math.Expm1, func() float64 { return r.NormFloat64() * 0.3 }, 2},
		{"Expm1Tiny", PortableExpm1, math.Expm1, func() float64 { return r.NormFloat64() * 1e-9 }, 2},
		{"Log", PortableLog, math.Log, func() float64 { return math.Exp(r.Float64()*1400 - 700) }, 2},
		{"LogNear1", PortableLog, math.Log, func() float64 { return 1 + r.NormFloat64()*1e-3 }, 2},
		{"Tanh", PortableTanh, math.Tanh, func() float64 { return r.NormFloat64() * 3 }, 3},
		{"TanhTiny", PortableTanh, math.Tanh, func() float64 { return r.NormFloat64() * 1e-6 }, 3},
		{"PowSqrt", func(x float64) float64 { return PortablePow(x, 0.5) }, math.Sqrt, func() float64 { return r.Float64() * 100 }, 0},
		{"PowCube", func(x float64) float64 { return PortablePow(x, 3) }, func(x float64) float64 { return x * x * x }, func() float64 { return r.NormFloat64() }, 2},
		{"PowReal", func(x float64) float64 { return PortablePow(x, 1.7) }, func(x float64) float64 { return math.Pow(x, 1.7) }, func() float64 { return 0.5 + r.Float64()*4 }, 8},
	}
	for _, c := range cases {
		worst := 0.0
		for range 20000 {
			x := c.gen()
			got, want := c.f(x), c.want(x)
			if u := ulps(got, want); u > worst {
				worst = u
				if u > c.maxUlps {
					t.Errorf("%s(%v) = %v, want %v (%.1f ulp, bound %v)", c.name, x, got, want, u, c.maxUlps)
				}
			}
		}
		t.Logf("%s: worst %.2f ulp", c.name, worst)
	}
}

func TestPortableSpecial(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	cases := []struct {
		name    string
		got     float64
		want    float64
		wantNaN bool
	}{
		{"Exp(NaN)", PortableExp(nan), 0, true},
		{"Exp(+Inf)", PortableExp(inf), inf, false},
		{"Exp(-Inf)", PortableExp(-inf), 0, false},
		{"Exp(710)", PortableExp(710), inf, false},
		{"Exp(-740)", PortableExp(-740), math.Exp(-740), false},
		{"Exp(0)", PortableExp(0), 1, false},
		{"Log(0)", PortableLog(0), -inf, false},
		{"Log(-1)", PortableLog(-1), 0, true},
		{"Log(+Inf)", PortableLog(inf), inf, false},
		{"Log(1)", PortableLog(1), 0, false},
		// math.Log gives -709.09 here on amd64, whose assembly does not
		// normalise subnormal inputs; the arm64 build of math gives this.
		{"Log(subnormal)", PortableLog(5e-324), -744.4400719213812, false},
		{"Tanh(100)", PortableTanh(100), 1, false},
		{"Tanh(-100)", PortableTanh(-100), -1, false},
		{"Tanh(NaN)", PortableTanh(nan), 0, true},
		{"Pow(-2, 3)", PortablePow(-2, 3), -8, false},
		{"Pow(-2, 0.5)", PortablePow(-2, 0.5), 0, true},
		{"Pow(0, -1)", PortablePow(0, -1), inf, false},
		{"Pow(2, -2)", PortablePow(2, -2), 0.25, false},
		{"Pow(NaN, 0)", PortablePow(nan, 0), 1, false},
	}
	for _, c := range cases {
		if c.wantNaN {
			if !math.IsNaN(c.got) {
				t.Errorf("%s = %v, want NaN", c.name, c.got)
			}
			continue
		}
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestModeDispatch(t *testing.T) {
	prev := Set(Reference)
	defer Set(prev)
	x := 0.3
	if Exp(x) != PortableExp(x) || Log(x) != PortableLog(x) || Tanh(x) != PortableTanh(x) || Pow(x, 1.5) != PortablePow(x, 1.5) {
		t.Error("reference mode does not use the portable functions")
	}
	Set(Default)
	if Exp(x) != math.Exp(x) || Log(x) != math.Log(x) || Tanh(x) != math.Tanh(x) || Pow(x, 1.5) != math.Pow(x, 1.5) {
		t.Error("default mode does not use package math")
	}
}

func TestParse(t *testing.T) {
	for _, m := range []Mode{Default, Reference} {
		got, err := Parse(m.String())
		if err != nil || got != m {
			t.Errorf("Parse(%q) = %v, %v", m.String(), got, err)
		}
		b, _ := m.MarshalText()
		var back Mode
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("text round trip of %v: %v, %v", m, back, err)
		}
	}
	if _, err := Parse("fast"); err == nil {
		t.Error(`Parse("fast") gave no error`)
	}
}
