package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
)

// TestForwardEach checks that ForwardEach gives the bits of one Forward
// per input: the outputs, and the gradients of the inputs and of every
// parameter after a backward pass through all of them, for modules whose
// first products it stacks (an MLP, with and without dropout, nested in a
// Sequential, a lone Linear) and for one it runs input by input.
func TestForwardEach(t *testing.T) {
	cases := []struct {
		name string
		make func(rng *rand.Rand) Module[float32]
	}{
		{"mlp", func(rng *rand.Rand) Module[float32] { return NewMLP[float32]([]int{24, 16, 1}, 0, rng) }},
		{"mlp-dropout", func(rng *rand.Rand) Module[float32] { return NewMLP[float32]([]int{24, 16, 8, 2}, 0.3, rng) }},
		{"nested", func(rng *rand.Rand) Module[float32] {
			return NewSequential[float32](NewMLP[float32]([]int{24, 16, 1}, 0, rng), Sigmoid[float32]{})
		}},
		{"linear", func(rng *rand.Rand) Module[float32] { return NewLinear[float32](24, 5, true, rng) }},
		{"linear-no-bias", func(rng *rand.Rand) Module[float32] { return NewLinear[float32](24, 5, false, rng) }},
		{"relu-first", func(rng *rand.Rand) Module[float32] {
			return NewSequential[float32](ReLU[float32]{}, NewLinear[float32](24, 3, true, rng))
		}},
	}
	rows := []int{6, 6, 3}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 8))
			var xs, seeds [][]float32
			for _, m := range rows {
				x := make([]float32, m*24)
				for i := range x {
					x[i] = float32(r.NormFloat64())
				}
				xs = append(xs, x)
			}
			// run builds the module from the same seed (so dropout draws
			// the same masks), applies it, and returns the outputs and the
			// gradients of the inputs and the parameters.
			run := func(each bool) (outs, grads [][]float32) {
				m := tc.make(rand.New(rand.NewPCG(9, 10)))
				var in []*autodiff.Tensor[float32]
				for i, x := range xs {
					in = append(in, autodiff.New(append([]float32(nil), x...), rows[i], 24).SetRequiresGrad(true))
				}
				var ys []*autodiff.Tensor[float32]
				if each {
					ys = ForwardEach(m, in...)
				} else {
					for _, x := range in {
						ys = append(ys, m.Forward(x))
					}
				}
				var loss *autodiff.Tensor[float32]
				for i, y := range ys {
					if len(seeds) <= i {
						s := make([]float32, len(y.Data()))
						for j := range s {
							s[j] = float32(r.NormFloat64())
						}
						seeds = append(seeds, s)
					}
					term := autodiff.SumAll(autodiff.Mul(y, autodiff.New(seeds[i], y.Shape()...)))
					if loss == nil {
						loss = term
					} else {
						loss = autodiff.Add(loss, term)
					}
					outs = append(outs, append([]float32(nil), y.Data()...))
				}
				loss.Backward()
				for _, x := range in {
					grads = append(grads, append([]float32(nil), x.Grad().Data()...))
				}
				for _, p := range m.Params() {
					grads = append(grads, append([]float32(nil), p.Tensor.Grad().Data()...))
				}
				return outs, grads
			}
			wantOut, wantGrad := run(false)
			gotOut, gotGrad := run(true)
			for _, c := range []struct {
				what      string
				got, want [][]float32
			}{{"output", gotOut, wantOut}, {"gradient", gotGrad, wantGrad}} {
				if len(c.got) != len(c.want) {
					t.Fatalf("%s: %d tensors, want %d", c.what, len(c.got), len(c.want))
				}
				for i := range c.want {
					for j := range c.want[i] {
						if math.Float32bits(c.got[i][j]) != math.Float32bits(c.want[i][j]) {
							t.Fatalf("%s %d, value %d: %v, want %v", c.what, i, j, c.got[i][j], c.want[i][j])
						}
					}
				}
			}
		})
	}
}

// TestForwardEachStacks checks which modules ForwardEach takes the first
// products of in one pass, and that it builds nothing for the others.
func TestForwardEachStacks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	lin := NewLinear[float32](4, 2, true, rng)
	xs := []*autodiff.Tensor[float32]{autodiff.Zeros[float32](3, 4), autodiff.Zeros[float32](2, 4)}
	for _, tc := range []struct {
		name string
		m    Module[float32]
		want bool
	}{
		{"linear", lin, true},
		{"mlp", NewMLP[float32]([]int{4, 3, 1}, 0, rng), true},
		{"nested", NewSequential[float32](NewSequential[float32](lin), ReLU[float32]{}), true},
		{"relu-first", NewSequential[float32](ReLU[float32]{}, lin), false},
		{"empty", &Sequential[float32]{}, false},
	} {
		outs, ok := forwardStacked(tc.m, xs)
		if ok != tc.want {
			t.Errorf("%s: stacked %v, want %v", tc.name, ok, tc.want)
		}
		if !ok && outs != nil {
			t.Errorf("%s: not stacked, yet %d outputs built", tc.name, len(outs))
		}
		if ok && len(outs) != len(xs) {
			t.Errorf("%s: %d outputs, want %d", tc.name, len(outs), len(xs))
		}
	}
}
