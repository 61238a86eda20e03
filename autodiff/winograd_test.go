package autodiff_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/audit"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// f32conv runs Conv2d of float32 copies of x, w, b with the given algorithm
// and returns y and the gradients of <y, seed> in x and w.
func f32conv(t *testing.T, alg autodiff.ConvAlgorithm, s convShape, x, w, b, seed []float64) (y, dx, dw []float32) {
	t.Helper()
	prev := autodiff.SetConvAlgorithm(alg)
	defer autodiff.SetConvAlgorithm(prev)
	tx, tw, tb := convTensors[float32](s, x, w, b)
	tx.SetRequiresGrad(true)
	tw.SetRequiresGrad(true)
	out := autodiff.Conv2d(tx, tw, tb, s.stride, s.pad)
	sd := make([]float32, len(seed))
	for i, v := range seed {
		sd[i] = float32(v)
	}
	g, err := autodiff.Gradients([]*autodiff.Tensor[float32]{out}, []*autodiff.Tensor[float32]{autodiff.New(sd, out.Shape()...)},
		[]*autodiff.Tensor[float32]{tx, tw}, false)
	if err != nil {
		t.Fatal(err)
	}
	return out.Data(), g[0].Data(), g[1].Data()
}

// TestConvWinogradMatchesDirect compares the Winograd path with the direct
// one on shapes with partial 8-image blocks, several chunks (a small column
// budget), padding, odd sizes and tiles cut by the edges, and checks that the
// results have the same bits on 1, 2 and 3 threads.
func TestConvWinogradMatchesDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	shapes := []convShape{
		{n: 13, c: 64, h: 15, w: 15, f: 128, kh: 3, kw: 3, stride: 1, pad: 0, bias: true},
		{n: 9, c: 16, h: 7, w: 7, f: 20, kh: 3, kw: 3, stride: 1, pad: 1, bias: false},
		{n: 17, c: 20, h: 5, w: 6, f: 18, kh: 3, kw: 3, stride: 1, pad: 2, bias: true},
		{n: 1, c: 16, h: 3, w: 3, f: 16, kh: 3, kw: 3, stride: 1, pad: 0, bias: true},
		{n: 8, c: 24, h: 12, w: 9, f: 16, kh: 3, kw: 3, stride: 1, pad: 0, bias: true},
	}
	for _, cols := range []int{128, 8} {
		prevCols := autodiff.SetWinogradCols(cols)
		for _, s := range shapes {
			if !autodiff.WinogradApplies(s.n, s.c, s.h, s.w, s.f, 3, 3, 1, s.pad) {
				t.Fatalf("%v: the Winograd path does not apply", s)
			}
			x, w, b := convInputs(r, s)
			oh, ow := s.h+2*s.pad-2, s.w+2*s.pad-2
			seed := convRandData(r, s.n*s.f*oh*ow)
			y0, dx0, dw0 := f32conv(t, autodiff.ConvDirect, s, x, w, b, seed)
			var first [3][]float32
			for _, threads := range []int{1, 2, 3} {
				prev := kernel.SetThreads(threads)
				y, dx, dw := f32conv(t, autodiff.ConvWinograd, s, x, w, b, seed)
				kernel.SetThreads(prev)
				name := fmt.Sprintf("%v cols %d threads %d", s, cols, threads)
				for k, pair := range [][2][]float32{{y, y0}, {dx, dx0}, {dw, dw0}} {
					got, want := pair[0], pair[1]
					var scale float64
					for _, v := range want {
						scale = math.Max(scale, math.Abs(float64(v)))
					}
					for i := range want {
						if d := math.Abs(float64(got[i] - want[i])); d > 2e-5*scale || math.IsNaN(d) {
							t.Fatalf("%s: output %d [%d] = %v, direct %v", name, k, i, got[i], want[i])
						}
					}
					if threads == 1 {
						first[k] = append([]float32(nil), got...)
						continue
					}
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(first[k][i]) {
							t.Fatalf("%s: output %d [%d] = %v, %v on one thread", name, k, i, got[i], first[k][i])
						}
					}
				}
			}
		}
		autodiff.SetWinogradCols(prevCols)
	}
}

// TestConvWinogradApplies checks which convolutions take the Winograd path.
func TestConvWinogradApplies(t *testing.T) {
	for _, tc := range []struct {
		n, c, h, w, f, kh, kw, stride, pad int
		want                               bool
	}{
		{512, 64, 15, 15, 128, 3, 3, 1, 0, true},
		{512, 128, 7, 7, 256, 3, 3, 1, 0, true},
		{512, 3, 32, 32, 64, 3, 3, 1, 0, false}, // 3 input channels
		{4, 64, 15, 15, 8, 3, 3, 1, 0, false},   // 8 filters
		{4, 64, 15, 15, 64, 3, 3, 2, 0, false},  // stride 2
		{4, 64, 15, 15, 64, 5, 5, 1, 0, false},  // 5x5
		{4, 64, 66, 66, 64, 3, 3, 1, 0, true},   // 16 x 16 tiles
		{4, 64, 67, 67, 64, 3, 3, 1, 0, false},  // more tiles
		{0, 64, 15, 15, 64, 3, 3, 1, 0, false},  // no image
	} {
		if got := autodiff.WinogradApplies(tc.n, tc.c, tc.h, tc.w, tc.f, tc.kh, tc.kw, tc.stride, tc.pad); got != tc.want {
			t.Errorf("%+v: applies %v, want %v", tc, got, tc.want)
		}
	}
	prev := autodiff.SetConvAlgorithm(autodiff.ConvDirect)
	if autodiff.WinogradApplies(512, 64, 15, 15, 128, 3, 3, 1, 0) {
		t.Error("the Winograd path applies under ConvDirect")
	}
	if autodiff.SetConvAlgorithm(prev) != autodiff.ConvDirect || autodiff.CurrentConvAlgorithm() != prev {
		t.Error("SetConvAlgorithm does not return or restore the algorithm")
	}
}

// winogradChecks runs the audit's Winograd checks under the current
// implementation and returns their worst error as a fraction of the bound.
func winogradChecks(t *testing.T) (float64, string) {
	t.Helper()
	only := regexp.MustCompile(`^Conv2d/winograd ` + kernel.Impl() + ` `)
	res, err := audit.Run(context.Background(), audit.ConvChecks(), audit.Options{Seed: 3, Only: only})
	if err != nil || len(res) != 1 {
		t.Fatalf("audit: %d results, %v", len(res), err)
	}
	return res[0].MaxErr, res[0].Detail
}

// TestConvWinogradBound runs the audit's error-bound check of the Winograd
// path, then the same with a transform made wrong by one part in a thousand,
// one at a time: each wrong transform must break the bound.
func TestConvWinogradBound(t *testing.T) {
	if e, detail := winogradChecks(t); e > 1 {
		t.Fatalf("the Winograd path exceeds its error bound: %.3g of it (%s)", e, detail)
	}
	good := autodiff.CurrentWinogradTransforms()
	defer autodiff.SetWinogradTransforms(good)
	const eps = 1e-3
	// mix adds eps times position 8 of the transformed tile to position 7
	// (36 positions stride apart, tiles*8 lanes each).
	mix := func(buf []float32, stride, tiles int) {
		for i := 0; i < tiles*kernel.Lanes; i++ {
			buf[7*stride+i] += eps * buf[8*stride+i]
		}
	}
	wrong := map[string]func(*autodiff.WinogradTransforms){
		"G": func(w *autodiff.WinogradTransforms) { w.G[3][1] *= 1 + eps },
		"In": func(w *autodiff.WinogradTransforms) {
			w.In = func(dst []float32, stride int, src []float32, row, tiles int) {
				good.In(dst, stride, src, row, tiles)
				mix(dst, stride, tiles)
			}
		},
		"InAdj": func(w *autodiff.WinogradTransforms) {
			w.InAdj = func(dst []float32, row int, src []float32, stride, tiles int) {
				tmp := append([]float32(nil), src...)
				mix(tmp, stride, tiles)
				good.InAdj(dst, row, tmp, stride, tiles)
			}
		},
		"Out": func(w *autodiff.WinogradTransforms) {
			w.Out = func(dst []float32, row int, src []float32, stride, tiles int, bias float32) {
				tmp := append([]float32(nil), src...)
				mix(tmp, stride, tiles)
				good.Out(dst, row, tmp, stride, tiles, bias)
			}
		},
		"OutAdj": func(w *autodiff.WinogradTransforms) {
			w.OutAdj = func(dst []float32, stride int, src []float32, row, tiles int) {
				good.OutAdj(dst, stride, src, row, tiles)
				mix(dst, stride, tiles)
			}
		},
	}
	for name, spoil := range wrong {
		w := good
		spoil(&w)
		autodiff.SetWinogradTransforms(w)
		e, detail := winogradChecks(t)
		autodiff.SetWinogradTransforms(good)
		if e <= 1 {
			t.Errorf("wrong %s: error %.3g of the bound, want it broken (%s)", name, e, detail)
		}
	}
}

// TestConvWinogradSecondOrder differentiates a gradient penalty through a
// float32 convolution on the Winograd path (the double backward builds its
// adjoint operators, which run on the Winograd path too) and compares it with
// the direct path.
func TestConvWinogradSecondOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	s := convShape{n: 10, c: 16, h: 9, w: 8, f: 16, kh: 3, kw: 3, stride: 1, pad: 1, bias: true}
	x, w, b := convInputs(r, s)
	run := func(alg autodiff.ConvAlgorithm) []float32 {
		prev := autodiff.SetConvAlgorithm(alg)
		defer autodiff.SetConvAlgorithm(prev)
		tx, tw, tb := convTensors[float32](s, x, w, b)
		tw.SetRequiresGrad(true)
		tb.SetRequiresGrad(true)
		z := tx.SetRequiresGrad(true)
		out := autodiff.SumAll(autodiff.Tanh(autodiff.Conv2d(z, tw, tb, 1, s.pad)))
		gz, err := autodiff.Gradients([]*autodiff.Tensor[float32]{out}, nil, []*autodiff.Tensor[float32]{z}, true)
		if err != nil {
			t.Fatal(err)
		}
		penalty := autodiff.SumAll(autodiff.Square(gz[0]))
		g, err := autodiff.Gradients([]*autodiff.Tensor[float32]{penalty}, nil, []*autodiff.Tensor[float32]{tw, tb}, false)
		if err != nil {
			t.Fatal(err)
		}
		return append(append([]float32{penalty.Item()}, g[0].Data()...), g[1].Data()...)
	}
	direct, wino := run(autodiff.ConvDirect), run(autodiff.ConvWinograd)
	var scale float64
	for _, v := range direct {
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	for i := range direct {
		if d := math.Abs(float64(wino[i] - direct[i])); d > 1e-4*scale || math.IsNaN(d) {
			t.Fatalf("value %d: %v on the Winograd path, %v direct", i, wino[i], direct[i])
		}
	}
}
