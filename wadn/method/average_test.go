package method

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/optim"
)

// TestAverageFollowsItsRecurrence feeds parameters through random walks and
// checks the float32 average against the recurrence in float64:
// s_0 = p_0, s_{n+1} = r_n s_n + (1-r_n) p, r_n = min(decay, (n+1)/(n+2)):
// the plain mean of the weights met so far while n+2 <= 1/(1-decay).
func TestAverageFollowsItsRecurrence(t *testing.T) {
	for _, decay := range []float64{0.5, 0.9, 0.999} {
		rng := rand.New(rand.NewPCG(1, 2))
		ps := []nn.Param[float32]{
			{Name: "extractor.w", Tensor: autodiff.New(make([]float32, 6), 2, 3)},
			{Name: "classifier.b", Tensor: autodiff.New(make([]float32, 4), 4)},
		}
		for _, p := range ps {
			for j := range p.Tensor.Data() {
				p.Tensor.Data()[j] = float32(rng.NormFloat64())
			}
		}
		a := newAverage(decay, ps)
		if a.shadow[0].Name != "average.extractor.w" || a.shadow[1].Name != "average.classifier.b" {
			t.Fatalf("averages named %q, %q", a.shadow[0].Name, a.shadow[1].Name)
		}
		var want [][]float64
		for _, p := range ps {
			var w []float64
			for _, v := range p.Tensor.Data() {
				w = append(w, float64(v))
			}
			want = append(want, w)
		}
		for n := range 300 {
			r := math.Min(decay, float64(n+1)/float64(n+2))
			if got := a.rate(n); got != r {
				t.Fatalf("decay %v: rate(%d) = %v, want %v", decay, n, got, r)
			}
			for i, p := range ps {
				for j := range p.Tensor.Data() {
					v := p.Tensor.Data()[j] + float32(0.1*rng.NormFloat64())
					p.Tensor.Data()[j] = v
					want[i][j] = r*want[i][j] + (1-r)*float64(v)
				}
			}
			a.update(n)
		}
		for i := range ps {
			for j, s := range a.shadow[i].Tensor.Data() {
				if d := math.Abs(float64(s) - want[i][j]); d > 1e-4*(1+math.Abs(want[i][j])) {
					t.Errorf("decay %v: %s[%d] = %v, want %v", decay, a.shadow[i].Name, j, s, want[i][j])
				}
			}
		}
		// swap exchanges the two, and twice restores both.
		before := append([]float32(nil), ps[0].Tensor.Data()...)
		avg := append([]float32(nil), a.shadow[0].Tensor.Data()...)
		a.swap()
		for j := range before {
			if ps[0].Tensor.Data()[j] != avg[j] || a.shadow[0].Tensor.Data()[j] != before[j] {
				t.Fatalf("decay %v: swap did not exchange element %d", decay, j)
			}
		}
		a.swap()
		for j := range before {
			if ps[0].Tensor.Data()[j] != before[j] {
				t.Fatalf("decay %v: two swaps changed element %d", decay, j)
			}
		}
	}
}

func TestTrainValidateAverage(t *testing.T) {
	for _, tc := range []struct {
		average float64
		ok      bool
	}{
		{0, true}, {0.999, true}, {1, false}, {-0.1, false}, {math.NaN(), false}, {math.Inf(1), false},
	} {
		tr := Train{Epochs: 1, Batch: 1, Settings: optim.Settings{LR: 1}, EvalBatch: 1, Average: tc.average}
		if err := tr.Validate(); (err == nil) != tc.ok {
			t.Errorf("average %v: Validate() = %v, want ok %v", tc.average, err, tc.ok)
		}
	}
}

// TestAverageStartsAsPlainMean checks that, before 1/(1-decay) steps, the
// average is the mean of the initial weights and every step's.
func TestAverageStartsAsPlainMean(t *testing.T) {
	p := nn.Param[float32]{Name: "classifier.w", Tensor: autodiff.New([]float32{8}, 1)}
	a := newAverage(0.999, []nn.Param[float32]{p})
	sum := 8.0
	for n, v := range []float32{2, -4, 16, 1, 7} {
		p.Tensor.Data()[0] = v
		a.update(n)
		sum += float64(v)
		if got, want := float64(a.shadow[0].Tensor.Data()[0]), sum/float64(n+2); math.Abs(got-want) > 1e-5 {
			t.Errorf("after %d steps: average %v, want the mean %v", n+1, got, want)
		}
	}
}

// TestAverageThreadsAgree updates the average of parameters long enough for
// several of post's chunks, as Run.Step does (post, then settle before the
// weights change), on 1, 2 and 3 threads, and requires the same bits.
func TestAverageThreadsAgree(t *testing.T) {
	const n = 3*averageChunk + 5
	run := func(threads int) []float32 {
		defer kernel.SetThreads(kernel.SetThreads(threads))
		rng := rand.New(rand.NewPCG(3, 4))
		p := nn.Param[float32]{Name: "extractor.w", Tensor: autodiff.New(make([]float32, n), n)}
		a := newAverage(0.9, []nn.Param[float32]{p})
		for step := range 4 {
			for j := range p.Tensor.Data() {
				p.Tensor.Data()[j] = float32(rng.NormFloat64())
			}
			a.post(step)
			a.settle()
		}
		return a.shadow[0].Tensor.Data()
	}
	want := run(1)
	for _, threads := range []int{2, 3} {
		for j, v := range run(threads) {
			if math.Float32bits(v) != math.Float32bits(want[j]) {
				t.Fatalf("%d threads: average[%d] = %v, %v on one thread", threads, j, v, want[j])
			}
		}
	}
}

// TestAveragePostMatchesUpdate checks that the update post hands to the
// kernels' idle workers gives the same bits as update, on parameters long
// enough for several chunks, a short one beside them, and that on one
// thread post updates at once. It fails when post leaves a chunk out,
// blends with another step's rate, or lets settle return early.
func TestAveragePostMatchesUpdate(t *testing.T) {
	defer kernel.SetThreads(kernel.Threads())
	for _, threads := range []int{1, 2} {
		kernel.SetThreads(threads)
		rng := rand.New(rand.NewPCG(3, 4))
		mk := func() []nn.Param[float32] {
			return []nn.Param[float32]{
				{Name: "extractor.w", Tensor: autodiff.New(make([]float32, 3*averageChunk+5), 3*averageChunk+5)},
				{Name: "classifier.b", Tensor: autodiff.New(make([]float32, 7), 7)},
			}
		}
		ps, qs := mk(), mk()
		for i := range ps {
			for j := range ps[i].Tensor.Data() {
				v := float32(rng.NormFloat64())
				ps[i].Tensor.Data()[j], qs[i].Tensor.Data()[j] = v, v
			}
		}
		a, b := newAverage(0.99, ps), newAverage(0.99, qs)
		for n := range 6 {
			for i := range ps {
				for j := range ps[i].Tensor.Data() {
					v := ps[i].Tensor.Data()[j] + float32(rng.NormFloat64())
					ps[i].Tensor.Data()[j], qs[i].Tensor.Data()[j] = v, v
				}
			}
			a.update(n)
			b.post(n)
			if deferred := b.pending != nil; deferred != (threads > 1) {
				t.Fatalf("%d threads: post left work under way: %v", threads, deferred)
			}
			if n%2 == 1 { // a second update on the same weights: post settles the first
				a.update(n + 10)
				b.post(n + 10)
			}
			if n < 5 {
				b.settle() // before the weights change
			}
		}
		b.swap() // settles, then exchanges
		b.swap()
		for i := range ps {
			for j, s := range a.shadow[i].Tensor.Data() {
				if g := b.shadow[i].Tensor.Data()[j]; math.Float32bits(g) != math.Float32bits(s) {
					t.Fatalf("%d threads: %s[%d] posted %v, updated %v", threads, a.shadow[i].Name, j, g, s)
				}
			}
		}
	}
}
