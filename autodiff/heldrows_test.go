package autodiff_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// TestBackwardSumsRows checks the parameters' gradients that Backward takes
// as one product over rows: a weight read by several MatMuls (as the right
// operand, its left one not transposed) gets, in the default numerics,
// exactly kernel.Gemm's xᵀy over the rows of every use stacked, the uses in
// the order the pass meets them (the loss below adds its terms left to
// right, so the pass meets the last term first), added to what else has
// flowed into the weight. A weight with one such use gets exactly
// MatMul's product; and in the reference numerics every product is taken
// alone and added, as Gradients does. Each case runs on one thread and on
// three, under every implementation; the threads change no bit.
func TestBackwardSumsRows(t *testing.T) {
	type use struct {
		rows   int
		transB bool
	}
	cases := []struct {
		name  string
		p, q  int // the weight is p x q
		uses  []use
		extra bool // the loss also has sum(w * c)
	}{
		{"critic", 24, 40, []use{{5, true}, {5, true}, {5, true}}, false},
		{"uneven", 9, 13, []use{{3, true}, {1, true}, {7, true}}, false},
		{"untransposed", 11, 6, []use{{4, false}, {6, false}}, false},
		{"mixed", 8, 8, []use{{2, true}, {5, false}, {3, true}}, false},
		{"with-other", 7, 10, []use{{4, true}, {2, true}}, true},
		{"empty-rows", 6, 9, []use{{3, true}, {0, true}, {2, true}}, false},
		{"one", 10, 12, []use{{6, true}}, false},
		{"one-with-other", 10, 12, []use{{6, false}}, true},
		// Large enough that every product splits over the threads.
		{"wide", 64, 300, []use{{20, true}, {20, true}, {20, true}}, false},
	}
	for _, tc := range cases {
		r := rand.New(rand.NewPCG(7, uint64(len(tc.name))))
		fill := func(n int) []float32 {
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
			return v
		}
		w, c := fill(tc.p*tc.q), fill(tc.p*tc.q)
		var xs, seeds [][]float32
		for _, u := range tc.uses {
			k, n := tc.q, tc.p // x is rows x q, the product rows x p
			if !u.transB {
				k, n = tc.p, tc.q
			}
			xs = append(xs, fill(u.rows*k))
			seeds = append(seeds, fill(u.rows*n))
		}
		// build returns the weight, the inputs, the products and the loss
		// sum_i sum(seed_i * tanh(x_i op(w))) (+ sum(w * c)).
		build := func() (wt *autodiff.Tensor[float32], in, ys []*autodiff.Tensor[float32], loss *autodiff.Tensor[float32]) {
			wt = autodiff.New(append([]float32(nil), w...), tc.p, tc.q).SetRequiresGrad(true)
			for i, u := range tc.uses {
				k := tc.q
				if !u.transB {
					k = tc.p
				}
				x := autodiff.New(append([]float32(nil), xs[i]...), u.rows, k)
				y := autodiff.MatMul(x, wt, false, u.transB)
				term := autodiff.SumAll(autodiff.Mul(autodiff.Tanh(y), autodiff.New(seeds[i], y.Shape()...)))
				in, ys = append(in, x), append(ys, y)
				if loss == nil {
					loss = term
				} else {
					loss = autodiff.Add(loss, term)
				}
			}
			if tc.extra {
				loss = autodiff.Add(loss, autodiff.SumAll(autodiff.Mul(wt, autodiff.New(c, tc.p, tc.q))))
			}
			return wt, in, ys, loss
		}
		var first []float32 // the default numerics' gradient on the first run
		for _, threads := range []int{1, 3} {
			for _, impl := range kernel.Available() {
				t.Run(fmt.Sprintf("%s/%d/%s", tc.name, threads, impl), func(t *testing.T) {
					defer kernel.SetThreads(kernel.SetThreads(threads))
					prev, err := kernel.SetImpl(impl)
					if err != nil {
						t.Fatal(err)
					}
					defer kernel.SetImpl(prev)

					// The gradients into the products and into the weight,
					// every product taken alone.
					wt, in, ys, loss := build()
					gs, err := autodiff.Gradients([]*autodiff.Tensor[float32]{loss}, nil, append(ys, wt), false)
					if err != nil {
						t.Fatal(err)
					}
					alone := gs[len(ys)].Data()

					// xᵀy over the uses stacked, last first.
					var xrows, yrows []float32
					k := 0
					for i := len(tc.uses) - 1; i >= 0; i-- {
						if tc.uses[i].transB {
							xrows, yrows = append(xrows, gs[i].Data()...), append(yrows, in[i].Data()...)
						} else {
							xrows, yrows = append(xrows, in[i].Data()...), append(yrows, gs[i].Data()...)
						}
						k += tc.uses[i].rows
					}
					want := make([]float32, tc.p*tc.q)
					kernel.Gemm(true, false, tc.p, tc.q, k, 1, xrows, tc.p, yrows, tc.q, 0, want, tc.q)
					if tc.extra {
						for i := range want {
							want[i] = c[i] + want[i]
						}
					}
					if len(tc.uses) == 1 {
						sameBits(t, "one use, against Gradients", want, alone)
					}

					wt, _, _, loss = build()
					loss.Backward()
					got := wt.Grad().Data()
					sameBits(t, "default numerics", got, want)
					if first == nil {
						first = append([]float32(nil), got...)
					} else if impl == kernel.Available()[0] {
						sameBits(t, "default numerics, against one thread", got, first)
					}

					defer numerics.Set(numerics.Set(numerics.Reference))
					wt, _, _, loss = build()
					loss.Backward()
					ref := wt.Grad().Data()
					wt, _, _, loss = build()
					gs, err = autodiff.Gradients([]*autodiff.Tensor[float32]{loss}, nil, []*autodiff.Tensor[float32]{wt}, false)
					if err != nil {
						t.Fatal(err)
					}
					sameBits(t, "reference numerics, against Gradients", ref, gs[0].Data())
				})
			}
		}
	}
}

// sameBits fails t when got and want differ in length or in any value's
// bits.
func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: value %d is %v, want %v (bits differ)", what, i, got[i], want[i])
		}
	}
}
