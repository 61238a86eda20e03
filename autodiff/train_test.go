package autodiff_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// mlp is a plain multilayer perceptron written with MatMul and Add, with
// ReLU between layers, for the training-step tests and benchmarks.
type mlp[T kernel.Float] struct {
	params []*autodiff.Tensor[T] // W1, b1, W2, b2, ...
}

func newMLP[T kernel.Float](seed uint64, sizes ...int) *mlp[T] {
	r := rand.New(rand.NewPCG(seed, 11))
	m := &mlp[T]{}
	for l := 0; l+1 < len(sizes); l++ {
		in, out := sizes[l], sizes[l+1]
		w := make([]T, in*out)
		scale := 1 / float64(in)
		for i := range w {
			w[i] = T((r.Float64()*2 - 1) * 2 * scale)
		}
		m.params = append(m.params,
			autodiff.New(w, in, out).SetRequiresGrad(true),
			autodiff.Zeros[T](out).SetRequiresGrad(true))
	}
	return m
}

func (m *mlp[T]) forward(x *autodiff.Tensor[T]) *autodiff.Tensor[T] {
	h := x
	for l := 0; l < len(m.params); l += 2 {
		h = autodiff.Add(autodiff.MatMul(h, m.params[l], false, false), m.params[l+1])
		if l+2 < len(m.params) {
			h = autodiff.ReLU(h)
		}
	}
	return h
}

// step runs one SGD step on cross-entropy and returns the loss. With gp it
// adds a WGAN-GP style penalty on the input gradient (double backward).
func (m *mlp[T]) step(tb testing.TB, x *autodiff.Tensor[T], labels []int, lr T, gp bool) T {
	logits := m.forward(x)
	loss, err := autodiff.CrossEntropy(logits, labels, nil, autodiff.ReduceMean)
	if err != nil {
		tb.Fatal(err)
	}
	if gp {
		g, err := autodiff.Gradients([]*autodiff.Tensor[T]{autodiff.SumAll(logits)}, nil, []*autodiff.Tensor[T]{x}, true)
		if err != nil {
			tb.Fatal(err)
		}
		pen := autodiff.MeanAll(autodiff.Square(autodiff.AddScalar(autodiff.RowNorm(g[0], 1e-10), -1)))
		loss = autodiff.Add(loss, autodiff.MulScalar(pen, 0.1))
	}
	loss.Backward()
	for _, p := range m.params {
		kernel.Axpy(-lr, p.Grad().Data(), p.Data())
		p.ZeroGrad()
	}
	v := loss.Item()
	loss.Release()
	return v
}

func batch[T kernel.Float](seed uint64, n, in, classes int) (*autodiff.Tensor[T], []int) {
	r := rand.New(rand.NewPCG(seed, 5))
	x := make([]T, n*in)
	for i := range x {
		x[i] = T(r.Float64())
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = r.IntN(classes)
	}
	return autodiff.New(x, n, in), labels
}

// TestTrainingStepReusesBuffers runs repeated training steps and checks that
// after warm-up a step allocates far less memory than one activation buffer:
// every activation and gradient comes back from the pool.
func TestTrainingStepReusesBuffers(t *testing.T) {
	for _, gp := range []bool{false, true} {
		name := "plain"
		if gp {
			name = "gradient-penalty"
		}
		t.Run(name, func(t *testing.T) {
			const n, in, hidden, classes = 128, 128, 1024, 4
			m := newMLP[float32](1, in, hidden, classes)
			x, labels := batch[float32](2, n, in, classes)
			if gp {
				x.SetRequiresGrad(true)
			}
			// Record every allocation, so that a failure names the sites.
			defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
			runtime.MemProfileRate = 1
			first := m.step(t, x, labels, 0.1, gp)
			// Keep the collector out of the warm-up and the window: a step
			// should not depend on it, and its timing would blur the count.
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			for range 3 {
				m.step(t, x, labels, 0.1, gp)
			}
			const steps = 5
			var before, after runtime.MemStats
			profBefore := memProfile()
			runtime.ReadMemStats(&before)
			var last float32
			for range steps {
				last = m.step(t, x, labels, 0.1, gp)
			}
			runtime.ReadMemStats(&after)
			perStep := float64(after.TotalAlloc-before.TotalAlloc) / steps
			activation := float64(n * hidden * 4)
			t.Logf("%.0f bytes and %.0f allocations per step; one activation buffer is %.0f bytes",
				perStep, float64(after.Mallocs-before.Mallocs)/steps, activation)
			if perStep > activation/4 {
				t.Errorf("a step allocates %.0f bytes, more than a quarter of one activation buffer (%.0f); largest sites in the window:\n%s",
					perStep, activation, largestSites(profBefore, memProfile(), 5))
			}
			if !(last < first) {
				t.Errorf("loss did not decrease: %v -> %v", first, last)
			}
		})
	}
}

// memProfile returns the allocation profile, cumulative bytes by call stack.
// The profile is published by garbage collections, hence the two cycles
// (runtime.GC runs even with the collector disabled).
func memProfile() map[[32]uintptr]int64 {
	runtime.GC()
	runtime.GC()
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		recs = make([]runtime.MemProfileRecord, n+50)
		var ok bool
		if n, ok = runtime.MemProfile(recs, true); ok {
			break
		}
	}
	prof := make(map[[32]uintptr]int64, n)
	for _, r := range recs[:n] {
		prof[r.Stack0] += r.AllocBytes
	}
	return prof
}

// largestSites describes the k call stacks that allocated the most bytes
// between two memProfile snapshots.
func largestSites(before, after map[[32]uintptr]int64, k int) string {
	type site struct {
		stack [32]uintptr
		bytes int64
	}
	var sites []site
	for st, b := range after {
		if d := b - before[st]; d > 0 {
			sites = append(sites, site{st, d})
		}
	}
	slices.SortFunc(sites, func(a, b site) int { return cmp.Compare(b.bytes, a.bytes) })
	var sb strings.Builder
	for _, s := range sites {
		pcs := s.stack[:]
		if i := slices.Index(pcs, 0); i >= 0 {
			pcs = pcs[:i]
		}
		var line strings.Builder
		frames := runtime.CallersFrames(pcs)
		for depth := 0; ; depth++ {
			f, more := frames.Next()
			if strings.HasSuffix(f.Function, ".memProfile") {
				line.Reset() // the snapshot's own allocations
				break
			}
			if depth < 6 {
				fmt.Fprintf(&line, " %s:%d", f.Function, f.Line)
			}
			if !more {
				break
			}
		}
		if line.Len() == 0 {
			continue
		}
		fmt.Fprintf(&sb, "%d bytes:%s\n", s.bytes, line.String())
		if k--; k == 0 {
			break
		}
	}
	return sb.String()
}

// BenchmarkAmazonMLPStep is one SGD step of the Amazon-size MLP (batch 80,
// 5000-1000-500-100-2, float32): forward, cross-entropy, backward, update.
func BenchmarkAmazonMLPStep(b *testing.B) {
	defer kernel.SetThreads(kernel.SetThreads(0)) // GOMAXPROCS, as -test.cpu sets it for this run
	m := newMLP[float32](1, 5000, 1000, 500, 100, 2)
	x, labels := batch[float32](2, 80, 5000, 2)
	// Two warm-up steps: the first gives each parameter its gradient
	// buffer, the second fills the pool.
	m.step(b, x, labels, 0.01, false)
	m.step(b, x, labels, 0.01, false)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.step(b, x, labels, 0.01, false)
	}
	b.ReportMetric(float64(kernel.Threads()), "threads")
}

// BenchmarkAmazonMLPStepGP adds the gradient penalty on the input gradient
// (double backward through the whole MLP).
func BenchmarkAmazonMLPStepGP(b *testing.B) {
	defer kernel.SetThreads(kernel.SetThreads(0)) // GOMAXPROCS, as -test.cpu sets it for this run
	m := newMLP[float32](1, 5000, 1000, 500, 100, 2)
	x, labels := batch[float32](2, 80, 5000, 2)
	x.SetRequiresGrad(true)
	m.step(b, x, labels, 0.01, true)
	m.step(b, x, labels, 0.01, true)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.step(b, x, labels, 0.01, true)
	}
	b.ReportMetric(float64(kernel.Threads()), "threads")
}

// BenchmarkCriticGradientPenalty is the WADN critic part of an Amazon step:
// a 1000-500-100-1 ReLU critic on 80 feature rows, the WGAN-GP penalty
// (double backward) plus the critic's mean output, one Backward into the
// critic's weights and the features.
func BenchmarkCriticGradientPenalty(b *testing.B) {
	defer kernel.SetThreads(kernel.SetThreads(0)) // GOMAXPROCS, as -test.cpu sets it for this run
	m := newMLP[float32](3, 1000, 500, 100, 1)
	z, _ := batch[float32](4, 80, 1000, 2)
	z.SetRequiresGrad(true)
	step := func() {
		d := m.forward(z)
		g, err := autodiff.Gradients([]*autodiff.Tensor[float32]{d}, nil, []*autodiff.Tensor[float32]{z}, true)
		if err != nil {
			b.Fatal(err)
		}
		pen := autodiff.MeanAll(autodiff.Square(autodiff.AddScalar(autodiff.RowNorm(g[0], 1e-10), -1)))
		loss := autodiff.Add(autodiff.MeanAll(d), autodiff.MulScalar(pen, 10))
		loss.Backward()
		for _, p := range m.params {
			p.ZeroGrad()
		}
		z.ZeroGrad()
		loss.Release()
	}
	step()
	step()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64(kernel.Threads()), "threads")
}
