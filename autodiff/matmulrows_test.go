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

// TestMatMulRows checks that MatMulRows gives, on one thread and on three,
// under every implementation and in both numerics modes, the bits of one
// MatMul per input: the products, and the gradients of the inputs and of
// the weights after a backward pass through both.
func TestMatMulRows(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	fill := func(shape ...int) []float32 {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	cases := []struct {
		name   string
		rows   []int
		k, n   int
		transB bool
	}{
		// The Digits critics' first layer: 20 rows each, swapped alone.
		{"critic", []int{20, 20, 20}, 2304, 256, true},
		{"uneven", []int{3, 17, 8}, 100, 64, true},
		{"untransposed", []int{5, 9}, 33, 70, false},
		{"narrow", []int{7, 1}, 50, 3, true},
		{"empty-rows", []int{4, 0, 6}, 40, 24, true},
		{"one", []int{12}, 30, 20, true},
		// Rows long enough that the stacking is shared out over the
		// threads, the parts' bounds falling inside the inputs.
		{"wide", []int{3, 50, 1, 30}, 3000, 40, true},
	}
	for _, threads := range []int{1, 3} {
		for _, mode := range []numerics.Mode{numerics.Default, numerics.Reference} {
			for _, impl := range kernel.Available() {
				for _, tc := range cases {
					t.Run(fmt.Sprintf("%d/%v/%s/%s", threads, mode, impl, tc.name), func(t *testing.T) {
						defer kernel.SetThreads(kernel.SetThreads(threads))
						defer numerics.Set(numerics.Set(mode))
						prev, err := kernel.SetImpl(impl)
						if err != nil {
							t.Fatal(err)
						}
						defer kernel.SetImpl(prev)
						wshape := []int{tc.k, tc.n}
						if tc.transB {
							wshape = []int{tc.n, tc.k}
						}
						w := fill(wshape...)
						var xs, seeds [][]float32
						for _, m := range tc.rows {
							xs = append(xs, fill(m, tc.k))
							seeds = append(seeds, fill(m, tc.n))
						}
						// run returns the products and the gradients of the
						// inputs and the weights of sum_i sum(seed_i * out_i).
						run := func(stacked bool) (outs, grads [][]float32) {
							wt := autodiff.New(append([]float32(nil), w...), wshape...).SetRequiresGrad(true)
							var in []*autodiff.Tensor[float32]
							for i, x := range xs {
								in = append(in, autodiff.New(append([]float32(nil), x...), tc.rows[i], tc.k).SetRequiresGrad(true))
							}
							var ys []*autodiff.Tensor[float32]
							if stacked {
								ys = autodiff.MatMulRows(in, wt, tc.transB)
							} else {
								for _, x := range in {
									ys = append(ys, autodiff.MatMul(x, wt, false, tc.transB))
								}
							}
							var loss *autodiff.Tensor[float32]
							for i, y := range ys {
								term := autodiff.SumAll(autodiff.Mul(y, autodiff.New(seeds[i], tc.rows[i], tc.n)))
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
							grads = append(grads, append([]float32(nil), wt.Grad().Data()...))
							return outs, grads
						}
						wantOut, wantGrad := run(false)
						gotOut, gotGrad := run(true)
						same := func(what string, got, want [][]float32) {
							t.Helper()
							if len(got) != len(want) {
								t.Fatalf("%s: %d tensors, want %d", what, len(got), len(want))
							}
							for i := range want {
								if len(got[i]) != len(want[i]) {
									t.Fatalf("%s %d: %d values, want %d", what, i, len(got[i]), len(want[i]))
								}
								for j := range want[i] {
									if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
										t.Fatalf("%s %d, value %d: %v, want %v (bits differ)", what, i, j, got[i][j], want[i][j])
									}
								}
							}
						}
						same("product", gotOut, wantOut)
						same("gradient", gotGrad, wantGrad)
					})
				}
			}
		}
	}
}

// TestMatMulRowsShapes checks that MatMulRows panics on weights that are
// not 2-D and on inputs whose columns do not match them.
func TestMatMulRowsShapes(t *testing.T) {
	w := autodiff.Zeros[float32](4, 6)
	for _, tc := range []struct {
		name string
		xs   []*autodiff.Tensor[float32]
		w    *autodiff.Tensor[float32]
	}{
		{"columns", []*autodiff.Tensor[float32]{autodiff.Zeros[float32](2, 6), autodiff.Zeros[float32](2, 5)}, w},
		{"3-D input", []*autodiff.Tensor[float32]{autodiff.Zeros[float32](2, 6), autodiff.Zeros[float32](1, 2, 6)}, w},
		{"1-D weights", []*autodiff.Tensor[float32]{autodiff.Zeros[float32](2, 6)}, autodiff.Zeros[float32](6)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			autodiff.MatMulRows(tc.xs, tc.w, true)
		})
	}
}
