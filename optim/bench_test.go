package optim

import (
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// benchSizes splits 7.2 million parameters like the Amazon MLP of the
// paper: a 5000x1000 first layer, its bias, and the rest of the network.
var benchSizes = []int{5000 * 1000, 1000, 1000 * 2000, 199 * 1000}

func benchParams() []Param[float32] {
	ps := make([]Param[float32], len(benchSizes))
	for i, n := range benchSizes {
		ps[i] = Param[float32]{Name: string(rune('a' + i)), Value: make([]float32, n), Grad: make([]float32, n)}
		for j := range ps[i].Grad {
			ps[i].Grad[j] = float32(j%13-6) * 1e-3
			ps[i].Value[j] = float32(j%7-3) * 1e-2
		}
	}
	return ps
}

func benchStep(b *testing.B, o Optimizer[float32], err error) {
	if err != nil {
		b.Fatal(err)
	}
	defer kernel.SetThreads(kernel.SetThreads(0)) // GOMAXPROCS, as -test.cpu sets it for this run
	ps := benchParams()
	if err := o.Step(ps); err != nil { // create the state outside the timing
		b.Fatal(err)
	}
	n := 0
	for _, s := range benchSizes {
		n += s
	}
	b.SetBytes(int64(4 * n)) // bytes of parameters updated per step
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := o.Step(ps); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(kernel.Threads()), "threads")
}

func BenchmarkAdadelta7M(b *testing.B) {
	o, err := NewAdadelta[float32](AdadeltaConfig{LR: 1})
	benchStep(b, o, err)
}

func BenchmarkAdadeltaWD7M(b *testing.B) {
	o, err := NewAdadelta[float32](AdadeltaConfig{LR: 1, WeightDecay: 1e-4})
	benchStep(b, o, err)
}

func BenchmarkSGD7M(b *testing.B) {
	o, err := NewSGD[float32](SGDConfig{LR: 0.01})
	benchStep(b, o, err)
}

func BenchmarkSGDMomentum7M(b *testing.B) {
	o, err := NewSGD[float32](SGDConfig{LR: 0.01, Momentum: 0.9})
	benchStep(b, o, err)
}

func BenchmarkAdam7M(b *testing.B) {
	o, err := NewAdam[float32](AdamConfig{LR: 1e-3})
	benchStep(b, o, err)
}

func BenchmarkAdamW7M(b *testing.B) {
	o, err := NewAdamW[float32](AdamConfig{LR: 1e-3, WeightDecay: 1e-2})
	benchStep(b, o, err)
}

// BenchmarkFiniteScan7M measures the gradient check every Step makes
// before it updates anything.
func BenchmarkFiniteScan7M(b *testing.B) {
	ps := benchParams()
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range ps {
			if _, ok := firstNonFinite(p.Grad); !ok {
				b.Fatal("non-finite")
			}
		}
	}
}

// benchState times Steps of opt on 1.2 million parameters (the size of the
// Digits classifier's first layer) with gradient grad, every state slot
// first set to fill. With a zero gradient, as for units that no longer fire,
// a running average left at a subnormal value stays there unless the
// optimiser flushes it, since rho times the smallest subnormals rounds back
// to them.
func benchState(b *testing.B, opt Optimizer[float32], err error, grad, fill float32) {
	if err != nil {
		b.Fatal(err)
	}
	defer kernel.SetThreads(kernel.SetThreads(0)) // GOMAXPROCS, as -test.cpu sets it for this run
	const n = 1179648
	ps := []Param[float32]{{Name: "w", Value: make([]float32, n), Grad: make([]float32, n)}}
	for j := range ps[0].Value {
		ps[0].Value[j] = float32(j%7-3) * 1e-2
		ps[0].Grad[j] = 1e-3
	}
	if err := opt.Step(ps); err != nil { // create the state
		b.Fatal(err)
	}
	for j := range ps[0].Grad {
		ps[0].Grad[j] = grad
	}
	st := opt.State()
	for _, p := range st.Params {
		for _, s := range p.Slots {
			for j := range s.F32 {
				s.F32[j] = fill
			}
		}
	}
	if err := opt.SetState(st); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(4 * n)
	b.ResetTimer()
	for b.Loop() {
		if err := opt.Step(ps); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(kernel.Threads()), "threads")
}

// BenchmarkAdadeltaState compares Adadelta's step on parameters whose
// gradients are zero and running averages subnormal (1e-44) with its step on
// live ones (gradient 1e-3, averages 1e-6). The first step flushes the
// subnormal averages to zero, so the two should take the same time; on CPUs
// slow at subnormal arithmetic, a ratio above 1 means the flush is missing.
func BenchmarkAdadeltaState(b *testing.B) {
	for _, c := range []struct {
		name       string
		grad, fill float32
	}{{"subnormal", 0, 1e-44}, {"live", 1e-3, 1e-6}} {
		b.Run(c.name, func(b *testing.B) {
			o, err := NewAdadelta[float32](AdadeltaConfig{LR: 0.5, Rho: 0.95})
			benchState(b, o, err, c.grad, c.fill)
		})
	}
}
