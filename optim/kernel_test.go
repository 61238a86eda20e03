package optim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// randF32 returns n values spread over many magnitudes and both signs, with
// some zeros of either sign.
func randF32(rng *rand.Rand, n int, positive bool) []float32 {
	x := make([]float32, n)
	for i := range x {
		switch rng.IntN(10) {
		case 0:
			x[i] = 0
		case 1:
			x[i] = float32(math.Copysign(0, -1))
		default:
			x[i] = float32(math.Ldexp(rng.Float64()+0.5, rng.IntN(40)-30))
			if !positive && rng.IntN(2) == 0 {
				x[i] = -x[i]
			}
		}
		if positive {
			x[i] = float32(math.Abs(float64(x[i])))
		}
	}
	return x
}

func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s[%d] = %v (%#x), pure Go %v (%#x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestKernelsMatchTwins checks that the float32 updates, which use the
// assembly kernels where there are some, give the same bits as the pure-Go
// twins, for every length around the 8-element blocks.
func TestKernelsMatchTwins(t *testing.T) {
	if !useAVX2 {
		t.Log("no assembly kernels on this platform: the updates are the twins")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 70; n++ {
		for _, wd := range []float32{0, float32(math.Copysign(0, -1)), 0.01} {
			p, g := randF32(rng, n, false), randF32(rng, n, false)
			a, b, c := randF32(rng, n, true), randF32(rng, n, true), randF32(rng, n, true)

			for mode := range 16 {
				if mode&sgdMomentum == 0 && mode&(sgdFirst|sgdNesterov) != 0 || mode&sgdWD != 0 && wd == 0 {
					continue // modes SGD.updateRange never makes
				}
				ks := sgdCoef[float32]{lr: 0.05, wd: wd, mom: 0.9, omd: 0.75}
				p1, a1 := clone(p), clone(a)
				p2, a2 := clone(p), clone(a)
				sgdUpdate(p1, g, a1, &ks, mode)
				wdGo := wd
				if mode&sgdWD == 0 {
					wdGo = 0
				}
				switch nesterov := mode&sgdNesterov != 0; {
				case mode&sgdMomentum == 0:
					sgdPlainGo(p2, g, ks.lr, wdGo)
				case mode&sgdFirst != 0:
					sgdFirstGo(p2, g, a2, ks.lr, ks.mom, wdGo, nesterov)
				default:
					sgdMomentumGo(p2, g, a2, ks.lr, ks.mom, ks.omd, wdGo, nesterov)
				}
				sameBits(t, fmt.Sprintf("sgd mode %#x p", mode), p1, p2)
				sameBits(t, fmt.Sprintf("sgd mode %#x momentum_buffer", mode), a1, a2)
			}

			kd := adadeltaCoef[float32]{lr: 0.7, rho: 0.9, omr: float32(1 - 0.9), eps: 1e-6, wd: wd}
			p1, a1, b1 := clone(p), clone(a), clone(b)
			p2, a2, b2 := clone(p), clone(a), clone(b)
			adadeltaUpdate(p1, g, a1, b1, &kd)
			adadeltaGo(p2, g, a2, b2, &kd)
			sameBits(t, "adadelta p", p1, p2)
			sameBits(t, "adadelta square_avg", a1, a2)
			sameBits(t, "adadelta acc_delta", b1, b2)

			for _, decay := range []float32{1, 0.999} {
				ka := adamCoef[float32]{beta1: 0.9, omb1: 0.1, beta2: 0.999, omb2: float32(1 - 0.999), eps: 1e-8,
					wd: wd, decay: decay, stepSize: 0.013, bc2sqrt: 0.0447}
				p1, a1, b1, c1 := clone(p), clone(a), clone(b), clone(c)
				p2, a2, b2, c2 := clone(p), clone(a), clone(b), clone(c)
				adamUpdate(p1, g, a1, b1, &ka)
				adamGo(p2, g, a2, b2, &ka)
				sameBits(t, "adam p", p1, p2)
				sameBits(t, "adam exp_avg", a1, a2)
				sameBits(t, "adam exp_avg_sq", b1, b2)
				p1, a1, b1 = clone(p), clone(a), clone(b)
				p2, a2, b2 = clone(p), clone(a), clone(b)
				adamAMSGradUpdate(p1, g, a1, b1, c1, &ka)
				adamAMSGradGo(p2, g, a2, b2, c2, &ka)
				sameBits(t, "amsgrad p", p1, p2)
				sameBits(t, "amsgrad exp_avg", a1, a2)
				sameBits(t, "amsgrad exp_avg_sq", b1, b2)
				sameBits(t, "amsgrad max_exp_avg_sq", c1, c2)
			}
		}
	}
}

// TestAllFiniteAsm checks the assembly scan against every position of a
// non-finite value, for lengths around its 8-element blocks.
func TestAllFiniteAsm(t *testing.T) {
	if !useAVX2 {
		t.Skip("no assembly kernels on this platform")
	}
	for n := 0; n < 41; n++ {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i) - 20.5
		}
		if !allFiniteAsm(x) {
			t.Fatalf("n=%d: finite data reported non-finite", n)
		}
		for pos := range n {
			for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				y := clone(x)
				y[pos] = float32(v)
				if allFiniteAsm(y) {
					t.Errorf("n=%d: %v at %d not found", n, v, pos)
				}
			}
		}
	}
}

// TestParallelMatchesSerial checks that a tensor long enough to be split
// between goroutines is updated exactly as the same elements cut into
// tensors too short to be split.
func TestParallelMatchesSerial(t *testing.T) {
	testParallel[float32](t)
	testParallel[float64](t)
}

func testParallel[T kernel.Float](t *testing.T) {
	n := 3*minSplit + 13
	piece := minSplit/2 + 3
	rng := rand.New(rand.NewPCG(1, 2))
	for name, big := range allOptimizers[T](t) {
		small := allOptimizers[T](t)[name]
		p := make([]T, n)
		for i := range p {
			p[i] = T(rng.NormFloat64())
		}
		q := clone(p)
		g := make([]T, n)
		var pieces []Param[T]
		for lo := 0; lo < n; lo += piece {
			hi := min(lo+piece, n)
			pieces = append(pieces, Param[T]{Name: string(rune('A' + len(pieces))), Value: q[lo:hi], Grad: g[lo:hi]})
		}
		for step := range 3 {
			for i := range g {
				g[i] = T(rng.NormFloat64())
			}
			if err := big.Step([]Param[T]{{Name: "w", Value: p, Grad: g}}); err != nil {
				t.Fatal(err)
			}
			if err := small.Step(pieces); err != nil {
				t.Fatal(err)
			}
			for i := range p {
				if math.Float64bits(float64(p[i])) != math.Float64bits(float64(q[i])) {
					t.Fatalf("%s %T step %d: element %d = %v split, %v serial", name, p[0], step+1, i, p[i], q[i])
				}
			}
		}
	}
}

// TestParallelNonFinite checks that the split gradient scan finds a bad
// value in any piece and reports its index.
func TestParallelNonFinite(t *testing.T) {
	n := 3*minSplit + 5
	for _, pos := range []int{0, minSplit + 1, 2*minSplit - 1, n - 1} {
		o, _ := NewAdam[float32](AdamConfig{LR: 0.1})
		w, g := make([]float32, n), make([]float32, n)
		g[pos] = float32(math.Inf(1))
		err := o.Step([]Param[float32]{{Name: "big", Value: w, Grad: g}})
		if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), fmt.Sprintf("element %d is +Inf", pos)) {
			t.Errorf("Inf at %d: error %v", pos, err)
		}
	}
}

// TestAdadeltaFlushesSubnormalState checks that Adadelta sets its running
// averages to zero where they would be subnormal, keeps NaN, and leaves the
// parameters alone when the gradient is zero, on lengths that use the
// assembly blocks and the Go tail.
func TestAdadeltaFlushesSubnormalState(t *testing.T) {
	for _, n := range []int{1, 8, 19} {
		o, err := NewAdadelta[float32](AdadeltaConfig{LR: 1, Rho: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		p := make([]float32, n)
		for i := range p {
			p[i] = float32(i) - 3.5
		}
		g := make([]float32, n)
		ps := []Param[float32]{{Name: "w", Value: p, Grad: g}}
		if err := o.Step(ps); err != nil {
			t.Fatal(err)
		}
		st := o.State()
		for _, s := range st.Params[0].Slots {
			for i := range s.F32 {
				s.F32[i] = 1e-44 // 7 times the smallest subnormal: rho times it rounds back to it
			}
			s.F32[n-1] = float32(math.NaN())
		}
		if err := o.SetState(st); err != nil {
			t.Fatal(err)
		}
		before := append([]float32(nil), p...)
		if err := o.Step(ps); err != nil {
			t.Fatal(err)
		}
		for _, s := range o.State().Params[0].Slots {
			for i, v := range s.F32 {
				if i == n-1 {
					if !math.IsNaN(float64(v)) {
						t.Errorf("n=%d: %s[%d] = %v, want NaN kept", n, s.Name, i, v)
					}
					continue
				}
				if v != 0 {
					t.Errorf("n=%d: %s[%d] = %g, want 0 (flushed)", n, s.Name, i, v)
				}
			}
		}
		sameBits(t, fmt.Sprintf("n=%d: p", n), p[:n-1], before[:n-1])
	}
}

// TestAdadeltaFlushKeepsParameters runs Adadelta on gradients that decay
// through the subnormal range to zero beside a float32 reference without the
// flush: the parameters must agree bit for bit at every step while the
// reference's averages stay subnormal where Adadelta's are zero.
func TestAdadeltaFlushKeepsParameters(t *testing.T) {
	const n, steps = 19, 1800
	o, err := NewAdadelta[float32](AdadeltaConfig{LR: 0.5, Rho: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	base := randF32(rng, n, false)
	p := randF32(rng, n, false)
	rp := append([]float32(nil), p...)
	rsq, racc := make([]float32, n), make([]float32, n)
	g := make([]float32, n)
	const lr, rho, omr, eps = float32(0.5), float32(0.95), float32(1 - 0.95), float32(1e-6)
	for step := range steps {
		for i := range g {
			g[i] = float32(math.Ldexp(float64(base[i]), -step/10)) // 0 from about step 1800
		}
		if err := o.Step([]Param[float32]{{Name: "w", Value: p, Grad: g}}); err != nil {
			t.Fatal(err)
		}
		for i, gi := range g {
			// Every product rounded before it is added, as in adadeltaGo.
			s := float32(rho*rsq[i]) + float32(omr*gi*gi)
			d := float32(math.Sqrt(float64(racc[i]+eps))) / float32(math.Sqrt(float64(s+eps))) * gi
			racc[i] = float32(rho*racc[i]) + float32(omr*d*d)
			rsq[i] = s
			rp[i] -= float32(lr * d)
		}
		sameBits(t, fmt.Sprintf("step %d: p", step+1), p, rp)
	}
	flushed := 0
	for i, v := range o.State().Params[0].Slots[0].F32 {
		if v == 0 && rsq[i] != 0 && math.Abs(float64(rsq[i])) < 0x1p-126 {
			flushed++
		}
	}
	if flushed == 0 {
		t.Errorf("no running average was subnormal in the reference and zero here: the test did not reach the flush")
	}
}
