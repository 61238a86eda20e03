package autodiff_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/gradcheck"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// convShape is one test geometry: n images of c x h x w, f filters of kh x kw.
type convShape struct {
	n, c, h, w, f, kh, kw, stride, pad int
	bias                               bool
}

func (s convShape) String() string {
	return fmt.Sprintf("x[%d,%d,%d,%d] w[%d,%d,%d,%d] stride %d pad %d bias %v",
		s.n, s.c, s.h, s.w, s.f, s.c, s.kh, s.kw, s.stride, s.pad, s.bias)
}

// convShapes are odd shapes with strides 1 and 2 and padding 0 and 1, small
// enough for finite differences.
var convShapes = []convShape{
	{1, 1, 3, 3, 1, 3, 3, 1, 0, false},
	{2, 2, 5, 4, 3, 3, 3, 1, 1, true},
	{2, 3, 5, 7, 2, 3, 2, 2, 0, true},
	{1, 2, 6, 5, 3, 3, 3, 2, 1, false},
	{3, 1, 4, 3, 2, 1, 1, 1, 0, true},
	{1, 3, 2, 2, 2, 3, 3, 1, 1, true},
}

func convRandData(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.NormFloat64()
	}
	return s
}

// naiveConv2d is the definition of Conv2d as nested loops.
func naiveConv2d(s convShape, x, w, b []float64) (y []float64, oh, ow int) {
	oh = (s.h+2*s.pad-s.kh)/s.stride + 1
	ow = (s.w+2*s.pad-s.kw)/s.stride + 1
	y = make([]float64, s.n*s.f*oh*ow)
	for n := 0; n < s.n; n++ {
		for f := 0; f < s.f; f++ {
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					var acc float64
					if b != nil {
						acc = b[f]
					}
					for c := 0; c < s.c; c++ {
						for i := 0; i < s.kh; i++ {
							for j := 0; j < s.kw; j++ {
								iy, ix := oy*s.stride-s.pad+i, ox*s.stride-s.pad+j
								if iy < 0 || iy >= s.h || ix < 0 || ix >= s.w {
									continue
								}
								acc += w[((f*s.c+c)*s.kh+i)*s.kw+j] * x[((n*s.c+c)*s.h+iy)*s.w+ix]
							}
						}
					}
					y[((n*s.f+f)*oh+oy)*ow+ox] = acc
				}
			}
		}
	}
	return y, oh, ow
}

// convInputs returns random x, w and b (nil without bias) for s.
func convInputs(r *rand.Rand, s convShape) (x, w, b []float64) {
	x = convRandData(r, s.n*s.c*s.h*s.w)
	w = convRandData(r, s.f*s.c*s.kh*s.kw)
	if s.bias {
		b = convRandData(r, s.f)
	}
	return x, w, b
}

func convTensors[T float32 | float64](s convShape, x, w, b []float64) (tx, tw, tb *autodiff.Tensor[T]) {
	conv := func(v []float64) []T {
		out := make([]T, len(v))
		for i, f := range v {
			out[i] = T(f)
		}
		return out
	}
	tx = autodiff.New(conv(x), s.n, s.c, s.h, s.w)
	tw = autodiff.New(conv(w), s.f, s.c, s.kh, s.kw)
	if b != nil {
		tb = autodiff.New(conv(b), s.f)
	}
	return tx, tw, tb
}

func TestConv2dForward(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, s := range convShapes {
		x, w, b := convInputs(r, s)
		want, oh, ow := naiveConv2d(s, x, w, b)

		x64, w64, b64 := convTensors[float64](s, x, w, b)
		y64 := autodiff.Conv2d(x64, w64, b64, s.stride, s.pad)
		if got := y64.Shape(); len(got) != 4 || got[0] != s.n || got[1] != s.f || got[2] != oh || got[3] != ow {
			t.Fatalf("%v: shape %v, want [%d %d %d %d]", s, got, s.n, s.f, oh, ow)
		}
		for i, v := range y64.Data() {
			if math.Abs(v-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("%v: float64 y[%d] = %v, want %v", s, i, v, want[i])
			}
		}

		// float32 agrees with the float64 reference to single precision.
		x32, w32, b32 := convTensors[float32](s, x, w, b)
		y32 := autodiff.Conv2d(x32, w32, b32, s.stride, s.pad)
		scale := float64(s.c*s.kh*s.kw + 1)
		for i, v := range y32.Data() {
			if math.Abs(float64(v)-want[i]) > 1e-6*scale*(1+math.Abs(want[i])) {
				t.Fatalf("%v: float32 y[%d] = %v, want %v", s, i, v, want[i])
			}
		}
	}
}

// TestConv2dBatchChunks runs enough images that the forward and backward
// passes split the batch into several chunks, and compares against the naive
// loops and against one image at a time.
func TestConv2dBatchChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	// 1152 x 64 columns per image: several images per chunk, the last partial.
	s := convShape{n: 37, c: 128, h: 8, w: 8, f: 4, kh: 3, kw: 3, stride: 1, pad: 1, bias: true}
	if testing.Short() {
		s.n = 5
	}
	x, w, b := convInputs(r, s)
	want, _, _ := naiveConv2d(s, x, w, b)
	tx, tw, tb := convTensors[float64](s, x, w, b)
	tx.SetRequiresGrad(true)
	tw.SetRequiresGrad(true)
	y := autodiff.Conv2d(tx, tw, tb, s.stride, s.pad)
	for i, v := range y.Data() {
		if math.Abs(v-want[i]) > 1e-11*(1+math.Abs(want[i])) {
			t.Fatalf("y[%d] = %v, want %v", i, v, want[i])
		}
	}
	seed := autodiff.New(convRandData(r, len(want)), y.Shape()...)
	grads, err := autodiff.Gradients([]*autodiff.Tensor[float64]{y}, []*autodiff.Tensor[float64]{seed},
		[]*autodiff.Tensor[float64]{tx, tw}, false)
	if err != nil {
		t.Fatal(err)
	}
	// The same gradients image by image.
	one := s
	one.n = 1
	chw, fp := s.c*s.h*s.w, len(want)/s.n
	dw := make([]float64, len(w))
	for n := 0; n < s.n; n++ {
		xn, wn, _ := convTensors[float64](one, x[n*chw:(n+1)*chw], w, nil)
		xn.SetRequiresGrad(true)
		wn.SetRequiresGrad(true)
		yn := autodiff.Conv2d(xn, wn, nil, s.stride, s.pad)
		sn := autodiff.New(seed.Data()[n*fp:(n+1)*fp], yn.Shape()...)
		gn, err := autodiff.Gradients([]*autodiff.Tensor[float64]{yn}, []*autodiff.Tensor[float64]{sn},
			[]*autodiff.Tensor[float64]{xn, wn}, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range gn[0].Data() {
			if got := grads[0].Data()[n*chw+i]; math.Abs(got-v) > 1e-11*(1+math.Abs(v)) {
				t.Fatalf("dx[%d] = %v, per image %v", n*chw+i, got, v)
			}
		}
		for i, v := range gn[1].Data() {
			dw[i] += v
		}
	}
	for i, v := range dw {
		if got := grads[1].Data()[i]; math.Abs(got-v) > 1e-10*(1+math.Abs(v)) {
			t.Fatalf("dw[%d] = %v, summed per image %v", i, got, v)
		}
	}
}

func TestConv2dShapeErrors(t *testing.T) {
	x := autodiff.Zeros[float64](1, 2, 5, 5)
	for _, tc := range []struct {
		name            string
		x, w, b         *autodiff.Tensor[float64]
		stride, padding int
	}{
		{"3-D input", autodiff.Zeros[float64](2, 5, 5), autodiff.Zeros[float64](1, 2, 3, 3), nil, 1, 0},
		{"channels", x, autodiff.Zeros[float64](1, 3, 3, 3), nil, 1, 0},
		{"bias", x, autodiff.Zeros[float64](4, 2, 3, 3), autodiff.Zeros[float64](3), 1, 0},
		{"stride", x, autodiff.Zeros[float64](1, 2, 3, 3), nil, 0, 0},
		{"padding", x, autodiff.Zeros[float64](1, 2, 3, 3), nil, 1, -1},
		{"kernel too big", x, autodiff.Zeros[float64](1, 2, 7, 3), nil, 1, 0},
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				if !errors.Is(err, autodiff.ErrShape) {
					t.Errorf("%s: recovered %v, want a shape error", tc.name, err)
				}
			}()
			autodiff.Conv2d(tc.x, tc.w, tc.b, tc.stride, tc.padding)
		}()
	}
}

// digitsExtractor runs the digits feature extractor forward: three blocks of
// conv 3x3 (padding 1), ReLU and 2x2 max pooling.
func digitsExtractor(x *autodiff.Tensor[float32], ws, bs []*autodiff.Tensor[float32]) *autodiff.Tensor[float32] {
	h := x
	for i := range ws {
		h = autodiff.ReLU(autodiff.MaxPool2d(autodiff.Conv2d(h, ws[i], bs[i], 1, 0), 2, 2, true))
	}
	return h
}

// BenchmarkDigitsExtractor times forward and backward of the digits extractor
// (3 x [conv 3x3, no padding; maxpool 2x2, ceil mode; ReLU], as package nn
// builds it: 32 -> 30 -> 15 -> 13 -> 7 -> 5 -> 3) on 512 images of
// 3 x 32 x 32 in float32 and reports the convolution FLOP rate counting only
// the products computed: 2*N*F*C*KH*KW*OH*OW per layer for the forward pass
// and for dW, and again for dX of every layer but the first (whose input
// needs no gradient).
func BenchmarkDigitsExtractor(b *testing.B) {
	defer kernel.SetThreads(kernel.SetThreads(0)) // GOMAXPROCS, as -test.cpu sets it for this run
	const n = 512
	r := rand.New(rand.NewPCG(1, 1))
	rnd := func(scale float64, shape ...int) *autodiff.Tensor[float32] {
		size := 1
		for _, d := range shape {
			size *= d
		}
		v := make([]float32, size)
		for i := range v {
			v[i] = float32(scale * r.NormFloat64())
		}
		return autodiff.New(v, shape...)
	}
	x := rnd(1, n, 3, 32, 32)
	chans := []int{3, 64, 128, 256}
	var ws, bs []*autodiff.Tensor[float32]
	flops, side := 0.0, 32
	for i := 1; i < len(chans); i++ {
		ws = append(ws, rnd(math.Sqrt(2/float64(9*chans[i-1])), chans[i], chans[i-1], 3, 3).SetRequiresGrad(true))
		bs = append(bs, rnd(0.01, chans[i]).SetRequiresGrad(true))
		out := side - 2 // 3x3, no padding
		passes := 3.0   // forward, dW, dX
		if i == 1 {
			passes = 2 // the images need no gradient
		}
		flops += passes * 2 * float64(n*chans[i]*chans[i-1]*9*out*out)
		side = (out + 1) / 2 // 2x2 pooling, ceil mode
	}
	step := func() {
		loss := autodiff.SumAll(digitsExtractor(x, ws, bs))
		loss.Backward()
		loss.Release()
	}
	step() // warm the buffer pool
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	b.ReportMetric(float64(kernel.Threads()), "threads")
}

const gradTol = 1e-6

// checkGradients runs the first- and second-order finite-difference checks
// of f at xs, plain and composed with tanh so that the gradient flowing into
// the operator depends on the inputs too.
func checkGradients(t *testing.T, name string, f gradcheck.Func, xs []*autodiff.Tensor[float64]) {
	t.Helper()
	for _, v := range []struct {
		name string
		f    gradcheck.Func
	}{
		{"plain", f},
		{"tanh", func(xs []*autodiff.Tensor[float64]) *autodiff.Tensor[float64] { return autodiff.Tanh(f(xs)) }},
	} {
		r1, err := gradcheck.First(v.f, xs, nil)
		if err != nil {
			t.Fatalf("%s %s first order: %v", name, v.name, err)
		}
		if r1.MaxErr > gradTol || r1.Checked == 0 {
			t.Errorf("%s %s first order: %v", name, v.name, r1)
		}
		r2, err := gradcheck.Second(v.f, xs, nil)
		if err != nil {
			t.Fatalf("%s %s second order: %v", name, v.name, err)
		}
		if r2.MaxErr > gradTol || r2.Checked == 0 {
			t.Errorf("%s %s second order: %v", name, v.name, r2)
		}
	}
}

func TestConv2dGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, s := range convShapes {
		x, w, b := convInputs(r, s)
		tx, tw, tb := convTensors[float64](s, x, w, b)
		xs := []*autodiff.Tensor[float64]{tx, tw}
		if tb != nil {
			xs = append(xs, tb)
		}
		f := func(xs []*autodiff.Tensor[float64]) *autodiff.Tensor[float64] {
			var b *autodiff.Tensor[float64]
			if len(xs) == 3 {
				b = xs[2]
			}
			return autodiff.Conv2d(xs[0], xs[1], b, s.stride, s.pad)
		}
		checkGradients(t, s.String(), f, xs)
	}
}

// TestConv2dThirdOrder differentiates the gradient penalty of a small
// convolutional critic, ||d sum tanh(conv(x, w, b)) / dx||^2, with respect to
// x, w and b: the gradient of a gradient, checked by finite differences of its
// first order.
func TestConv2dThirdOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	s := convShape{n: 2, c: 2, h: 5, w: 4, f: 2, kh: 3, kw: 3, stride: 2, pad: 1, bias: true}
	x, w, b := convInputs(r, s)
	tx, tw, tb := convTensors[float64](s, x, w, b)
	penalty := func(xs []*autodiff.Tensor[float64]) *autodiff.Tensor[float64] {
		x := xs[0]
		y := autodiff.SumAll(autodiff.Tanh(autodiff.Conv2d(x, xs[1], xs[2], s.stride, s.pad)))
		g, err := autodiff.Gradients([]*autodiff.Tensor[float64]{y}, nil, []*autodiff.Tensor[float64]{x}, true)
		if err != nil {
			panic(err)
		}
		return autodiff.SumAll(autodiff.Square(g[0]))
	}
	r1, err := gradcheck.First(penalty, []*autodiff.Tensor[float64]{tx, tw, tb}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r1.MaxErr > gradTol {
		t.Errorf("gradient of the penalty: %v", r1)
	}
}

// TestConv2dPartialGradients checks the backward passes that compute only
// dX or only dW against the pass that computes both.
func TestConv2dPartialGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	s := convShape{n: 3, c: 2, h: 6, w: 5, f: 3, kh: 3, kw: 3, stride: 2, pad: 1, bias: true}
	x, w, b := convInputs(r, s)
	seedData := convRandData(r, s.n*s.f*3*3)
	grads := func(wantX, wantW bool) (dx, dw []float64) {
		tx, tw, tb := convTensors[float64](s, x, w, b)
		var xs []*autodiff.Tensor[float64]
		if wantX {
			xs = append(xs, tx.SetRequiresGrad(true))
		}
		if wantW {
			xs = append(xs, tw.SetRequiresGrad(true))
		}
		y := autodiff.Conv2d(tx, tw, tb, s.stride, s.pad)
		g, err := autodiff.Gradients([]*autodiff.Tensor[float64]{y},
			[]*autodiff.Tensor[float64]{autodiff.New(seedData, y.Shape()...)}, xs, false)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case wantX && wantW:
			return g[0].Data(), g[1].Data()
		case wantX:
			return g[0].Data(), nil
		default:
			return nil, g[0].Data()
		}
	}
	dx, dw := grads(true, true)
	onlyX, _ := grads(true, false)
	_, onlyW := grads(false, true)
	for i := range dx {
		if dx[i] != onlyX[i] {
			t.Fatalf("dx[%d]: %v alone, %v with dw", i, onlyX[i], dx[i])
		}
	}
	for i := range dw {
		if dw[i] != onlyW[i] {
			t.Fatalf("dw[%d]: %v alone, %v with dx", i, onlyW[i], dw[i])
		}
	}
}

// TestConvNetPenaltyRelease computes a gradient penalty through Conv2d,
// MaxPool2d and Dropout in float32 twice, releasing the graph in between:
// the second run reuses the pooled buffers (including the saved pooling
// positions and dropout mask) and must give the same values.
func TestConvNetPenaltyRelease(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	s := convShape{n: 4, c: 3, h: 9, w: 8, f: 5, kh: 3, kw: 3, stride: 1, pad: 1, bias: true}
	x, w, b := convInputs(r, s)
	tx, tw, tb := convTensors[float32](s, x, w, b)
	tw.SetRequiresGrad(true)
	tb.SetRequiresGrad(true)
	run := func() []float32 {
		z := tx.Clone().SetRequiresGrad(true)
		h := autodiff.MaxPool2d(autodiff.Tanh(autodiff.Conv2d(z, tw, tb, s.stride, s.pad)), 2, 2, true)
		h = autodiff.Dropout(h, 0.25, true, rand.New(rand.NewPCG(1, 2)))
		out := autodiff.SumAll(autodiff.Square(h))
		gz, err := autodiff.Gradients([]*autodiff.Tensor[float32]{out}, nil, []*autodiff.Tensor[float32]{z}, true)
		if err != nil {
			t.Fatal(err)
		}
		penalty := autodiff.SumAll(autodiff.Square(gz[0]))
		gw, err := autodiff.Gradients([]*autodiff.Tensor[float32]{penalty}, nil, []*autodiff.Tensor[float32]{tw, tb}, false)
		if err != nil {
			t.Fatal(err)
		}
		res := append([]float32{penalty.Item()}, gw[0].Data()...)
		res = append(res, gw[1].Data()...)
		penalty.Release()
		out.Release()
		return res
	}
	first := run()
	second := run()
	for i := range first {
		if first[i] != second[i] || math.IsNaN(float64(first[i])) {
			t.Fatalf("value %d: %v, then %v after Release", i, first[i], second[i])
		}
	}
}

// TestConv2dImagesThreads covers convolutions with one Gemm per image (at
// least 256 output pixels), whose images the threads share out: against the
// naive loops in float64, and with the same bits on 1, 2 and 3 threads in
// float32 (the filter gradient is summed in a fixed number of partial sums).
func TestConv2dImagesThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	s := convShape{n: 7, c: 3, h: 19, w: 18, f: 5, kh: 3, kw: 3, stride: 1, pad: 0, bias: true}
	x, w, b := convInputs(r, s)
	want, oh, ow := naiveConv2d(s, x, w, b)
	if oh*ow < 256 {
		t.Fatalf("%d output pixels: not the per-image path", oh*ow)
	}
	seed := convRandData(r, len(want))
	grads := func(tx, tw, tb *autodiff.Tensor[float64]) (dx, dw, db []float64) {
		t.Helper()
		y := autodiff.Conv2d(tx, tw, tb, 1, 0)
		g, err := autodiff.Gradients([]*autodiff.Tensor[float64]{y}, []*autodiff.Tensor[float64]{autodiff.New(seed, y.Shape()...)},
			[]*autodiff.Tensor[float64]{tx, tw, tb}, false)
		if err != nil {
			t.Fatal(err)
		}
		return g[0].Data(), g[1].Data(), g[2].Data()
	}
	for _, threads := range []int{1, 2} {
		prev := kernel.SetThreads(threads)
		tx, tw, tb := convTensors[float64](s, x, w, b)
		y := autodiff.Conv2d(tx, tw, tb, 1, 0)
		for i, v := range y.Data() {
			if math.Abs(v-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("threads %d: y[%d] = %v, want %v", threads, i, v, want[i])
			}
		}
		// The gradients against the naive adjoints.
		tx.SetRequiresGrad(true)
		tw.SetRequiresGrad(true)
		tb.SetRequiresGrad(true)
		dx, dw, db := grads(tx, tw, tb)
		ndx, ndw, ndb := make([]float64, len(x)), make([]float64, len(w)), make([]float64, s.f)
		for n := 0; n < s.n; n++ {
			for f := 0; f < s.f; f++ {
				for oy := 0; oy < oh; oy++ {
					for ox := 0; ox < ow; ox++ {
						g := seed[((n*s.f+f)*oh+oy)*ow+ox]
						ndb[f] += g
						for c := 0; c < s.c; c++ {
							for i := 0; i < 3; i++ {
								for j := 0; j < 3; j++ {
									xi := ((n*s.c+c)*s.h+oy+i)*s.w + ox + j
									wi := ((f*s.c+c)*3+i)*3 + j
									ndx[xi] += g * w[wi]
									ndw[wi] += g * x[xi]
								}
							}
						}
					}
				}
			}
		}
		for i := range ndx {
			if math.Abs(dx[i]-ndx[i]) > 1e-11*(1+math.Abs(ndx[i])) {
				t.Fatalf("threads %d: dx[%d] = %v, want %v", threads, i, dx[i], ndx[i])
			}
		}
		for i := range ndw {
			if math.Abs(dw[i]-ndw[i]) > 1e-10*(1+math.Abs(ndw[i])) {
				t.Fatalf("threads %d: dw[%d] = %v, want %v", threads, i, dw[i], ndw[i])
			}
		}
		for i := range ndb {
			if math.Abs(db[i]-ndb[i]) > 1e-11*(1+math.Abs(ndb[i])) {
				t.Fatalf("threads %d: db[%d] = %v, want %v", threads, i, db[i], ndb[i])
			}
		}
		kernel.SetThreads(prev)
	}
	// float32: the same bits whatever the thread count.
	var first [3][]float32
	for _, threads := range []int{1, 2, 3} {
		prev := kernel.SetThreads(threads)
		y, dx, dw := f32conv(t, autodiff.ConvDirect, s, x, w, b, seed)
		kernel.SetThreads(prev)
		for k, got := range [][]float32{y, dx, dw} {
			if threads == 1 {
				first[k] = append([]float32(nil), got...)
				continue
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(first[k][i]) {
					t.Fatalf("threads %d: output %d [%d] = %v, %v on one thread", threads, k, i, got[i], first[k][i])
				}
			}
		}
	}
}
