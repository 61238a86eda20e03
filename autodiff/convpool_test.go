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

// convPoolCase is a convolution followed by max pooling.
type convPoolCase struct {
	n, c, h, f, pad  int
	k, stride        int // pooling
	ceil, relu, bias bool
}

// TestConv2dMaxPoolBits checks that Conv2dMaxPool gives the bits of
// Conv2d, MaxPool2d and ReLU applied in turn: the output and the gradients
// of the input, the filters and the bias, once and differentiated again
// (the gradient of a function of the input's gradient, as a gradient
// penalty takes it), on the Winograd path (13x13 and 5x5 outputs), the one
// Gemm per image path (at least 256 output pixels) and the chunked path,
// with and without ReLU and bias, odd sizes in ceil mode, on 1, 2 and 3
// threads, in float32 and float64, and in the reference numerics mode.
// Where the filter and bias gradients are sums over the pooled values
// (PooledFilterApplies), they are held to the rounding of their terms and
// to the same bits on every thread count.
func TestConv2dMaxPoolBits(t *testing.T) {
	cases := []convPoolCase{
		{n: 20, c: 16, h: 15, f: 24, k: 2, stride: 2, ceil: true, relu: true, bias: true}, // Winograd, 13x13
		{n: 9, c: 16, h: 7, f: 16, k: 2, stride: 2, ceil: true, relu: true, bias: true},   // Winograd, 5x5
		{n: 5, c: 3, h: 18, f: 8, k: 2, stride: 2, ceil: true, relu: true, bias: true},    // one Gemm per image, 16x16
		{n: 4, c: 3, h: 19, f: 6, k: 2, stride: 2, ceil: false, relu: false, bias: false},
		{n: 3, c: 3, h: 18, f: 9, k: 3, stride: 2, ceil: true, relu: true, bias: true},        // windows that overlap
		{n: 6, c: 4, h: 9, f: 5, pad: 1, k: 3, stride: 2, ceil: true, relu: true, bias: true}, // chunked
		{n: 3, c: 16, h: 10, f: 16, k: 2, stride: 2, relu: false, bias: true},                 // Winograd, 8x8
	}
	for _, c := range cases {
		for _, mode := range []numerics.Mode{numerics.Default, numerics.Reference} {
			t.Run(fmt.Sprintf("%+v/%v", c, mode), func(t *testing.T) {
				defer numerics.Set(numerics.Set(mode))
				checkConvPool[float32](t, c)
				checkConvPool[float64](t, c)
			})
		}
	}
}

func checkConvPool[T kernel.Float](t *testing.T, c convPoolCase) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(c.n*100+c.h), 7))
	fill := func(k int) []T {
		v := make([]T, k)
		for i := range v {
			v[i] = T(r.Float64() - 0.5)
		}
		return v
	}
	x, w, b := fill(c.n*c.c*c.h*c.h), fill(c.f*c.c*9), fill(c.f)
	var seed, seed2 []T
	// run returns the output, the gradients of x, w and b, and those of
	// the penalty-like second pass.
	run := func(fused bool) [][]T {
		tx := autodiff.New(append([]T(nil), x...), c.n, c.c, c.h, c.h).SetRequiresGrad(true)
		tw := autodiff.New(append([]T(nil), w...), c.f, c.c, 3, 3).SetRequiresGrad(true)
		var tb *autodiff.Tensor[T]
		ins := []*autodiff.Tensor[T]{tx, tw}
		if c.bias {
			tb = autodiff.New(append([]T(nil), b...), c.f).SetRequiresGrad(true)
			ins = append(ins, tb)
		}
		forward := func() *autodiff.Tensor[T] {
			if fused {
				return autodiff.Conv2dMaxPool(tx, tw, tb, 1, c.pad, c.k, c.stride, c.ceil, c.relu)
			}
			y := autodiff.MaxPool2d(autodiff.Conv2d(tx, tw, tb, 1, c.pad), c.k, c.stride, c.ceil)
			if c.relu {
				y = autodiff.ReLU(y)
			}
			return y
		}
		y := forward()
		if seed == nil {
			seed, seed2 = fill(y.Len()), fill(len(x))
		}
		out := [][]T{append([]T(nil), y.Data()...)}
		gs, err := autodiff.Gradients([]*autodiff.Tensor[T]{y}, []*autodiff.Tensor[T]{autodiff.New(seed, y.Shape()...)}, ins, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gs {
			out = append(out, append([]T(nil), g.Data()...))
		}
		// Again, with the graph of the input's gradient kept, then the
		// gradient of <dx, seed2> with respect to the filters and bias.
		y = forward()
		gx, err := autodiff.Gradients([]*autodiff.Tensor[T]{y}, []*autodiff.Tensor[T]{autodiff.New(seed, y.Shape()...)}, []*autodiff.Tensor[T]{tx}, true)
		if err != nil {
			t.Fatal(err)
		}
		pen := autodiff.SumAll(autodiff.Mul(gx[0], autodiff.New(seed2, tx.Shape()...)))
		g2, err := autodiff.Gradients([]*autodiff.Tensor[T]{pen}, nil, ins[1:], false)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range g2 {
			out = append(out, append([]T(nil), g.Data()...))
		}
		return out
	}
	// When the filter and bias gradients come from the pooled gradient,
	// their sums are in another order: they are compared within the
	// rounding error of sums of their terms (their scale from
	// pooledTermScale), and with the bits of the fused operator on one
	// thread.
	var scale [][]T
	pooled := autodiff.PooledFilterApplies[T](c.n, c.c, c.h, c.f, c.pad)
	// Both ways of sharing the Winograd path's chunks out, on several
	// chunks of few columns, and the defaults.
	for _, shared := range []struct{ chunks, cols int }{{1, 16}, {100, 16}, {4, 128}} {
		prevChunks := autodiff.SetWinogradSharedChunks(shared.chunks)
		prevCols := autodiff.SetWinogradCols(shared.cols)
		want := run(false)
		if pooled && scale == nil {
			scale = pooledTermScale(t, c, x, w, b, seed)
		}
		var first [][]T
		for _, threads := range []int{1, 2, 3} {
			prev := kernel.SetThreads(threads)
			got := run(true)
			kernel.SetThreads(prev)
			if first == nil {
				first = got
			}
			for k := range want {
				for i := range want[k] {
					g, w := float64(got[k][i]), float64(want[k][i])
					if k == 2 && scale != nil || k == 3 && scale != nil && c.bias {
						// A sum of m terms in another order: each order is
						// within m*eps of the sum of the terms' sizes.
						m := float64(c.n * (c.h - 2) * (c.h - 2))
						tol := 2 * m * 0x1p-24 * float64(scale[k-2][i])
						if math.Abs(g-w) > tol || math.IsNaN(g) != math.IsNaN(w) {
							t.Fatalf("threads %d, chunks %+v: result %d [%d] = %v, the three operators give %v, beyond the rounding of its terms (%g)", threads, shared, k, i, g, w, tol)
						}
						w = float64(first[k][i])
					}
					if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
						t.Fatalf("threads %d, chunks %+v: result %d [%d] = %v, the three operators give %v", threads, shared, k, i, g, w)
					}
				}
			}
		}
		autodiff.SetWinogradSharedChunks(prevChunks)
		autodiff.SetWinogradCols(prevCols)
	}
}

// pooledTermScale returns the sums of the sizes of the terms of the filter
// and bias gradients of Conv2d, MaxPool2d and ReLU applied in turn: with
// dy the gradient of the convolution's output, those of the product of
// |dy| and the columns of |x|, and the sums of |dy| over each filter's
// planes.
func pooledTermScale[T kernel.Float](t *testing.T, c convPoolCase, x, w, b, seed []T) [][]T {
	t.Helper()
	abs := func(v []T) []T {
		a := make([]T, len(v))
		for i := range v {
			a[i] = T(math.Abs(float64(v[i])))
		}
		return a
	}
	tw := autodiff.New(append([]T(nil), w...), c.f, c.c, 3, 3).SetRequiresGrad(true)
	var tb *autodiff.Tensor[T]
	if c.bias {
		tb = autodiff.New(append([]T(nil), b...), c.f)
	}
	conv := autodiff.Conv2d(autodiff.New(append([]T(nil), x...), c.n, c.c, c.h, c.h), tw, tb, 1, c.pad)
	y := autodiff.MaxPool2d(conv, c.k, c.stride, c.ceil)
	if c.relu {
		y = autodiff.ReLU(y)
	}
	dy, err := autodiff.Gradients([]*autodiff.Tensor[T]{y}, []*autodiff.Tensor[T]{autodiff.New(seed, y.Shape()...)}, []*autodiff.Tensor[T]{conv}, false)
	if err != nil {
		t.Fatal(err)
	}
	ady := abs(dy[0].Data())
	tw2 := autodiff.New(make([]T, len(w)), c.f, c.c, 3, 3).SetRequiresGrad(true)
	conv2 := autodiff.Conv2d(autodiff.New(abs(x), c.n, c.c, c.h, c.h), tw2, nil, 1, c.pad)
	sw, err := autodiff.Gradients([]*autodiff.Tensor[T]{conv2}, []*autodiff.Tensor[T]{autodiff.New(ady, conv2.Shape()...)}, []*autodiff.Tensor[T]{tw2}, false)
	if err != nil {
		t.Fatal(err)
	}
	sb := make([]T, c.f)
	p := len(ady) / (c.n * c.f)
	for i, v := range ady {
		sb[i/p%c.f] += v
	}
	return [][]T{sw[0].Data(), sb}
}
