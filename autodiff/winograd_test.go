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
	y, dx, dw, _ = f32convBias(t, alg, s, x, w, b, seed)
	return y, dx, dw
}

// f32convBias is f32conv that also returns the gradient in the bias, nil
// without bias.
func f32convBias(t *testing.T, alg autodiff.ConvAlgorithm, s convShape, x, w, b, seed []float64) (y, dx, dw, db []float32) {
	t.Helper()
	prev := autodiff.SetConvAlgorithm(alg)
	defer autodiff.SetConvAlgorithm(prev)
	tx, tw, tb := convTensors[float32](s, x, w, b)
	xs := []*autodiff.Tensor[float32]{tx.SetRequiresGrad(true), tw.SetRequiresGrad(true)}
	if tb != nil {
		xs = append(xs, tb.SetRequiresGrad(true))
	}
	out := autodiff.Conv2d(tx, tw, tb, s.stride, s.pad)
	sd := make([]float32, len(seed))
	for i, v := range seed {
		sd[i] = float32(v)
	}
	g, err := autodiff.Gradients([]*autodiff.Tensor[float32]{out}, []*autodiff.Tensor[float32]{autodiff.New(sd, out.Shape()...)},
		xs, false)
	if err != nil {
		t.Fatal(err)
	}
	if tb != nil {
		db = g[2].Data()
	}
	return out.Data(), g[0].Data(), g[1].Data(), db
}

// TestConvWinogradMatchesDirect compares both Winograd paths with the
// direct one on shapes with partial 8-image blocks, several chunks (a small
// column budget), padding, odd sizes and tiles cut by the edges, and checks
// that the results have the same bits on 1, 2 and 3 threads, with the
// threads taking whole chunks and sharing each chunk's work out.
func TestConvWinogradMatchesDirect(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shared int // winoSharedChunks
	}{
		{"whole chunks", 0},
		{"shared chunks", 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer autodiff.SetWinogradSharedChunks(autodiff.SetWinogradSharedChunks(tc.shared))
			convWinogradMatchesDirect(t)
		})
	}
}

func convWinogradMatchesDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	shapes := []convShape{
		{n: 13, c: 64, h: 15, w: 15, f: 128, kh: 3, kw: 3, stride: 1, pad: 0, bias: true},
		{n: 9, c: 16, h: 7, w: 7, f: 20, kh: 3, kw: 3, stride: 1, pad: 1, bias: false},
		{n: 17, c: 20, h: 5, w: 6, f: 18, kh: 3, kw: 3, stride: 1, pad: 2, bias: true},
		{n: 1, c: 16, h: 3, w: 3, f: 16, kh: 3, kw: 3, stride: 1, pad: 0, bias: true},
		{n: 8, c: 24, h: 12, w: 9, f: 16, kh: 3, kw: 3, stride: 1, pad: 0, bias: true},
	}
	for _, alg := range []autodiff.ConvAlgorithm{autodiff.ConvWinograd4, autodiff.ConvWinograd5} {
		for _, cols := range []int{128, 8} {
			prevCols := autodiff.SetWinogradCols(cols)
			for _, s := range shapes {
				x, w, b := convInputs(r, s)
				oh, ow := s.h+2*s.pad-2, s.w+2*s.pad-2
				seed := convRandData(r, s.n*s.f*oh*ow)
				y0, dx0, dw0, db0 := f32convBias(t, autodiff.ConvDirect, s, x, w, b, seed)
				var first [3][]float32
				for _, threads := range []int{1, 2, 3} {
					prev := kernel.SetThreads(threads)
					y, dx, dw, db := f32convBias(t, alg, s, x, w, b, seed)
					kernel.SetThreads(prev)
					name := fmt.Sprintf("%v %v cols %d threads %d", alg, s, cols, threads)
					// The bias gradient adds the same row sums in the same
					// order on both paths.
					for i := range db0 {
						if math.Float32bits(db[i]) != math.Float32bits(db0[i]) {
							t.Fatalf("%s: db[%d] = %v, direct %v", name, i, db[i], db0[i])
						}
					}
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
}

// TestConvWinogradRounds checks the backward pass that takes its first
// chunks whole, one a thread a round, and shares the rest (wholeRounds): on
// 2 threads its gradients have the bits of the one-thread pass and of the
// pass that shares every chunk, with the filter gradient (the rounds follow
// its two partial sums) and without (the input gradient alone), for 1 to 4
// chunks.
func TestConvWinogradRounds(t *testing.T) {
	defer autodiff.SetWinogradSharedChunks(autodiff.SetWinogradSharedChunks(1 << 20))
	defer autodiff.SetWinogradCols(autodiff.SetWinogradCols(8)) // chunks of one block
	r := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{5, 13, 17, 32} {
		s := convShape{n: n, c: 16, h: 9, w: 9, f: 24, kh: 3, kw: 3, stride: 1, pad: 1, bias: true}
		x, w, b := convInputs(r, s)
		seed := convRandData(r, s.n*s.f*s.h*s.w)
		for _, filters := range []bool{true, false} {
			grads := func(threads int, rounds bool) [][]float32 {
				defer kernel.SetThreads(kernel.SetThreads(threads))
				defer autodiff.SetWinogradRounds(autodiff.SetWinogradRounds(rounds))
				defer autodiff.SetConvAlgorithm(autodiff.SetConvAlgorithm(autodiff.ConvWinograd5))
				tx, tw, tb := convTensors[float32](s, x, w, b)
				xs := []*autodiff.Tensor[float32]{tx.SetRequiresGrad(true)}
				if filters {
					xs = append(xs, tw.SetRequiresGrad(true))
				}
				out := autodiff.Conv2d(tx, tw, tb, s.stride, s.pad)
				sd := make([]float32, len(seed))
				for i, v := range seed {
					sd[i] = float32(v)
				}
				g, err := autodiff.Gradients([]*autodiff.Tensor[float32]{out}, []*autodiff.Tensor[float32]{autodiff.New(sd, out.Shape()...)}, xs, false)
				if err != nil {
					t.Fatal(err)
				}
				var data [][]float32
				for _, gi := range g {
					data = append(data, gi.Data())
				}
				return data
			}
			want := grads(1, true)
			for _, rounds := range []bool{true, false} {
				got := grads(2, rounds)
				for k := range want {
					for i := range want[k] {
						if math.Float32bits(got[k][i]) != math.Float32bits(want[k][i]) {
							t.Fatalf("%d images, filter gradient %v, 2 threads, rounds %v: gradient %d [%d] = %v, %v on one thread",
								n, filters, rounds, k, i, got[k][i], want[k][i])
						}
					}
				}
			}
		}
	}
}

// TestConvWinogradTile checks which convolutions take a Winograd path, and
// which tile.
func TestConvWinogradTile(t *testing.T) {
	const none = kernel.WinogradTile(0)
	for _, tc := range []struct {
		n, c, h, w, f, kh, kw, stride, pad int
		want                               kernel.WinogradTile
	}{
		{512, 64, 15, 15, 128, 3, 3, 1, 0, kernel.F5x5}, // 13x13 outputs: 9 tiles of 49 against 16 of 36
		{512, 128, 7, 7, 256, 3, 3, 1, 0, kernel.F5x5},  // 5x5: 1 tile of 49 against 4 of 36
		{512, 64, 10, 10, 64, 3, 3, 1, 0, kernel.F4x4},  // 8x8: 4 tiles of 36 against 4 of 49
		{512, 3, 32, 32, 64, 3, 3, 1, 0, none},          // 3 input channels
		{4, 64, 15, 15, 8, 3, 3, 1, 0, none},            // 8 filters
		{4, 64, 15, 15, 64, 3, 3, 2, 0, none},           // stride 2
		{4, 64, 15, 15, 64, 5, 5, 1, 0, none},           // 5x5
		{4, 64, 66, 66, 64, 3, 3, 1, 0, kernel.F5x5},    // 64x64 outputs: 169 tiles of 49 against 256 of 36
		{4, 64, 67, 67, 64, 3, 3, 1, 0, none},           // larger
		{0, 64, 15, 15, 64, 3, 3, 1, 0, none},           // no image
	} {
		if got := autodiff.WinogradTileFor(tc.n, tc.c, tc.h, tc.w, tc.f, tc.kh, tc.kw, tc.stride, tc.pad); got != tc.want {
			t.Errorf("%+v: tile %v, want %v", tc, got, tc.want)
		}
	}
	for alg, want := range map[autodiff.ConvAlgorithm]kernel.WinogradTile{
		autodiff.ConvDirect: none, autodiff.ConvWinograd4: kernel.F4x4, autodiff.ConvWinograd5: kernel.F5x5,
	} {
		prev := autodiff.SetConvAlgorithm(alg)
		if got := autodiff.WinogradTileFor(512, 64, 15, 15, 128, 3, 3, 1, 0); got != want {
			t.Errorf("%v: tile %v, want %v", alg, got, want)
		}
		if autodiff.SetConvAlgorithm(prev) != alg || autodiff.CurrentConvAlgorithm() != prev {
			t.Error("SetConvAlgorithm does not return or restore the algorithm")
		}
		if a, err := autodiff.ParseConvAlgorithm(alg.String()); a != alg || err != nil {
			t.Errorf("ParseConvAlgorithm(%q) = %v, %v", alg.String(), a, err)
		}
	}
	if _, err := autodiff.ParseConvAlgorithm("fft"); err == nil {
		t.Error("ParseConvAlgorithm(fft) succeeded")
	}
}

// winogradChecks runs the audit's check of the Winograd path alg under the
// current implementation and returns its worst error as a fraction of the
// bound.
func winogradChecks(t *testing.T, alg autodiff.ConvAlgorithm) (float64, string) {
	t.Helper()
	only := regexp.MustCompile(`^Conv2d/` + alg.String() + ` ` + kernel.Impl() + ` `)
	res, err := audit.Run(context.Background(), audit.ConvChecks(), audit.Options{Seed: 3, Only: only})
	if err != nil || len(res) != 1 {
		t.Fatalf("audit: %d results, %v", len(res), err)
	}
	return res[0].MaxErr, res[0].Detail
}

// TestConvWinogradBound runs the audit's error-bound checks of the Winograd
// paths, then the same with a transform made wrong by one part in a
// thousand, one at a time: each wrong transform must break the bound.
func TestConvWinogradBound(t *testing.T) {
	algs := []autodiff.ConvAlgorithm{autodiff.ConvWinograd4, autodiff.ConvWinograd5}
	for _, alg := range algs {
		if e, detail := winogradChecks(t, alg); e > 1 {
			t.Fatalf("%v exceeds its error bound: %.3g of it (%s)", alg, e, detail)
		}
	}
	good := autodiff.CurrentWinogradTransforms()
	defer autodiff.SetWinogradTransforms(good)
	const eps = 1e-3
	// mix adds eps times position 8 of the transformed tile to position 7
	// (positions stride apart, tiles*8 lanes each).
	mix := func(buf []float32, stride, tiles int) {
		for i := 0; i < tiles*kernel.Lanes; i++ {
			buf[7*stride+i] += eps * buf[8*stride+i]
		}
	}
	wrong := map[string]func(*autodiff.WinogradTransforms){
		"G": func(w *autodiff.WinogradTransforms) {
			w.G = map[kernel.WinogradTile][][]float64{}
			for tile, g := range good.G {
				c := make([][]float64, len(g))
				for i := range g {
					c[i] = append([]float64(nil), g[i]...)
				}
				c[3][1] *= 1 + eps
				w.G[tile] = c
			}
		},
		"In": func(w *autodiff.WinogradTransforms) {
			w.In = func(tile kernel.WinogradTile, dst []float32, stride int, src []float32, row, tiles int) {
				good.In(tile, dst, stride, src, row, tiles)
				mix(dst, stride, tiles)
			}
		},
		"InAdj": func(w *autodiff.WinogradTransforms) {
			w.InAdj = func(tile kernel.WinogradTile, dst []float32, row int, src []float32, stride, tiles int) {
				tmp := append([]float32(nil), src...)
				mix(tmp, stride, tiles)
				good.InAdj(tile, dst, row, tmp, stride, tiles)
			}
		},
		"Out": func(w *autodiff.WinogradTransforms) {
			w.Out = func(tile kernel.WinogradTile, dst []float32, row int, src []float32, stride, tiles int, bias float32) {
				tmp := append([]float32(nil), src...)
				mix(tmp, stride, tiles)
				good.Out(tile, dst, row, tmp, stride, tiles, bias)
			}
		},
		"OutAdj": func(w *autodiff.WinogradTransforms) {
			w.OutAdj = func(tile kernel.WinogradTile, dst []float32, stride int, src []float32, row, tiles int) {
				good.OutAdj(tile, dst, stride, src, row, tiles)
				mix(dst, stride, tiles)
			}
		},
	}
	for name, spoil := range wrong {
		w := good
		spoil(&w)
		autodiff.SetWinogradTransforms(w)
		for _, alg := range algs {
			if e, detail := winogradChecks(t, alg); e <= 1 {
				t.Errorf("%v with a wrong %s: error %.3g of the bound, want it broken (%s)", alg, name, e, detail)
			}
		}
		autodiff.SetWinogradTransforms(good)
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
	direct := run(autodiff.ConvDirect)
	var scale float64
	for _, v := range direct {
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	for _, alg := range []autodiff.ConvAlgorithm{autodiff.ConvWinograd4, autodiff.ConvWinograd5} {
		wino := run(alg)
		for i := range direct {
			if d := math.Abs(float64(wino[i] - direct[i])); d > 1e-4*scale || math.IsNaN(d) {
				t.Fatalf("%v: value %d: %v on the Winograd path, %v direct", alg, i, wino[i], direct[i])
			}
		}
	}
}
