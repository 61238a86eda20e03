package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/gradcheck"
	"github.com/wadn-go/wadn/internal/numerics"
)

type T64 = autodiff.Tensor[float64]

func randTensor(rng *rand.Rand, scale float64, shape ...int) *T64 {
	n := 1
	for _, d := range shape {
		n *= d
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = (2*rng.Float64() - 1) * scale
	}
	return autodiff.New(x, shape...)
}

// TestLayerGradients checks every layer and loss against finite differences
// in float64, with the parameters among the checked inputs.
func TestLayerGradients(t *testing.T) {
	rng := NewRand(7)
	labels := []int{2, 0, 1, 2}
	cases := []struct {
		name   string
		inputs []*T64
		f      gradcheck.Func
		second bool
	}{
		{"Linear", []*T64{randTensor(rng, 1, 4, 5), randTensor(rng, 1, 3, 5), randTensor(rng, 1, 3)},
			func(xs []*T64) *T64 {
				l := &Linear[float64]{In: 5, Out: 3, Weight: xs[1], Bias: xs[2]}
				return l.Forward(xs[0])
			}, true},
		{"SparseLinear", []*T64{randTensor(rng, 1, 6, 3), randTensor(rng, 1, 3)},
			func(xs []*T64) *T64 {
				x := &autodiff.CSR{Rows: 2, Cols: 6, RowPtr: []int{0, 2, 3}, ColIdx: []int32{1, 4, 5}, Val: []float32{2, -1, 0.5}}
				l := &SparseLinear[float64]{In: 6, Out: 3, Weight: xs[0], Bias: xs[1]}
				return l.ForwardCSR(x)
			}, false},
		{"Conv2d", []*T64{randTensor(rng, 1, 2, 2, 5, 5), randTensor(rng, 1, 3, 2, 3, 3), randTensor(rng, 1, 3)},
			func(xs []*T64) *T64 {
				c := &Conv2d[float64]{In: 2, Out: 3, Kernel: 3, Stride: 2, Padding: 1, Weight: xs[1], Bias: xs[2]}
				return c.Forward(xs[0])
			}, false},
		{"BatchNorm1d", []*T64{randTensor(rng, 2, 5, 3), randTensor(rng, 1, 3), randTensor(rng, 1, 3)},
			func(xs []*T64) *T64 {
				b := NewBatchNorm1d[float64](3)
				b.Weight, b.Bias = xs[1], xs[2]
				return b.Forward(xs[0])
			}, true},
		{"LeakyReLU+Sigmoid+Tanh", []*T64{randTensor(rng, 2, 3, 4)},
			func(xs []*T64) *T64 {
				y := LeakyReLU[float64]{Slope: 0.2}.Forward(xs[0])
				return Tanh[float64]{}.Forward(Sigmoid[float64]{}.Forward(y))
			}, true},
		{"CrossEntropy weighted", []*T64{randTensor(rng, 2, 4, 3)},
			func(xs []*T64) *T64 {
				l, err := CrossEntropy(xs[0], labels, CrossEntropyOptions[float64]{
					SampleWeights: []float64{0.5, 1.5, 1, 2}, ClassWeights: []float64{1, 0.25, 3}})
				if err != nil {
					panic(err)
				}
				return l
			}, true},
		{"NLL", []*T64{randTensor(rng, 2, 4, 3)},
			func(xs []*T64) *T64 {
				l, err := NLL(autodiff.LogSoftmax(xs[0]), labels, Sum)
				if err != nil {
					panic(err)
				}
				return l
			}, true},
		{"BCEWithLogits", []*T64{randTensor(rng, 3, 4, 2)},
			func(xs []*T64) *T64 {
				tg := autodiff.New([]float64{0, 1, 0.3, 1, 0, 0.5, 1, 0}, 4, 2)
				l, err := BCEWithLogits(xs[0], tg, Mean)
				if err != nil {
					panic(err)
				}
				return l
			}, true},
		{"MSE", []*T64{randTensor(rng, 1, 3, 2), randTensor(rng, 1, 3, 2)},
			func(xs []*T64) *T64 {
				l, err := MSE(xs[0], xs[1], Mean)
				if err != nil {
					panic(err)
				}
				return l
			}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := gradcheck.First(c.f, c.inputs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.MaxErr > 1e-6 {
				t.Errorf("first order: %v", r)
			}
			if !c.second {
				return
			}
			r, err = gradcheck.Second(c.f, c.inputs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.MaxErr > 1e-6 {
				t.Errorf("second order: %v", r)
			}
		})
	}
}

func TestCrossEntropyWeightsMatchDefinition(t *testing.T) {
	logits := []float64{1, 2, 0.5, -1, 0, 3}
	labels := []int{1, 2}
	sw := []float64{2, 0.5}
	cw := []float64{1, 3, 0.5}
	x := autodiff.New(logits, 2, 3)
	var want, den float64
	for i, y := range labels {
		row := logits[i*3 : i*3+3]
		lse := math.Log(math.Exp(row[0]) + math.Exp(row[1]) + math.Exp(row[2]))
		want += sw[i] * cw[y] * (lse - row[y])
		den += cw[y]
	}
	for _, tc := range []struct {
		red  Reduction
		want float64
	}{{Sum, want}, {Mean, want / den}} {
		l, err := CrossEntropy(x, labels, CrossEntropyOptions[float64]{SampleWeights: sw, ClassWeights: cw, Reduction: tc.red})
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Item(); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%v: got %.15g, want %.15g", tc.red, got, tc.want)
		}
	}
	if _, err := CrossEntropy(x, labels, CrossEntropyOptions[float64]{ClassWeights: []float64{1}}); err == nil {
		t.Error("wrong number of class weights accepted")
	}
	if _, err := CrossEntropy(x, []int{0, 3}, CrossEntropyOptions[float64]{ClassWeights: cw}); err == nil {
		t.Error("out-of-range label accepted")
	}
}

func TestInitBounds(t *testing.T) {
	rng := NewRand(1)
	l := NewLinear[float64](400, 300, true, rng)
	bound := 1 / math.Sqrt(400)
	var sum, sq float64
	for _, v := range l.Weight.Data() {
		if math.Abs(v) > bound {
			t.Fatalf("weight %v outside +-%v", v, bound)
		}
		sum += v
		sq += v * v
	}
	n := float64(l.Weight.Len())
	// U(-b, b) has mean 0 and variance b^2/3.
	if m := sum / n; math.Abs(m) > 4*bound/math.Sqrt(3*n) {
		t.Errorf("weight mean %v too far from 0", m)
	}
	if v := sq / n; math.Abs(v-bound*bound/3) > 0.02*bound*bound/3 {
		t.Errorf("weight variance %v, want about %v", v, bound*bound/3)
	}
	for _, v := range l.Bias.Data() {
		if math.Abs(v) > bound {
			t.Fatalf("bias %v outside +-%v", v, bound)
		}
	}
	c := NewConv2d[float64](3, 8, 3, 1, 1, rng)
	cb := 1 / math.Sqrt(27)
	for _, v := range c.Weight.Data() {
		if math.Abs(v) > cb {
			t.Fatalf("conv weight %v outside +-%v", v, cb)
		}
	}
	// Same seed, same weights.
	a := NewLinear[float32](10, 4, true, NewRand(3))
	b := NewLinear[float32](10, 4, true, NewRand(3))
	for i, v := range a.Weight.Data() {
		if b.Weight.Data()[i] != v {
			t.Fatal("same seed gave different weights")
		}
	}
}

func TestBatchNormRunningStats(t *testing.T) {
	x := autodiff.New([]float64{1, 10, 3, 20, 5, 60}, 3, 2)
	b := NewBatchNorm1d[float64](2)
	y := b.Forward(x)
	// Column 0: mean 3, biased var 8/3, unbiased 4.
	want0 := []float64{-2 / math.Sqrt(8.0/3+1e-5), 0, 2 / math.Sqrt(8.0/3+1e-5)}
	for i, w := range want0 {
		if got := y.At(i, 0); math.Abs(got-w) > 1e-12 {
			t.Errorf("y[%d,0] = %v, want %v", i, got, w)
		}
	}
	if got := b.RunningMean.At(0); math.Abs(got-0.3) > 1e-12 {
		t.Errorf("running mean %v, want 0.3", got)
	}
	if got := b.RunningVar.At(0); math.Abs(got-(0.9+0.1*4)) > 1e-12 {
		t.Errorf("running var %v, want 1.3", got)
	}
	b.SetTrain(false)
	ye := b.Forward(autodiff.New([]float64{0.3, 3}, 1, 2))
	if math.Abs(ye.At(0, 0)) > 1e-12 {
		t.Errorf("eval mode does not use the running mean: %v", ye.At(0, 0))
	}
}

func TestDropoutCSRMatchesDense(t *testing.T) {
	x := &autodiff.CSR{Rows: 2, Cols: 4, RowPtr: []int{0, 2, 4}, ColIdx: []int32{0, 3, 1, 2}, Val: []float32{1, 2, 3, 4}}
	d := DropoutCSR(x, 0.5, true, NewRand(5), nil)
	rng := NewRand(5)
	for i, v := range x.Val {
		want := float32(0)
		if rng.Float64() >= 0.5 {
			want = v * 2
		}
		if d.Val[i] != want {
			t.Errorf("value %d: got %v, want %v", i, d.Val[i], want)
		}
	}
	if x.Val[0] != 1 {
		t.Error("DropoutCSR changed its input")
	}
	if DropoutCSR(x, 0.5, false, nil, nil) != x {
		t.Error("eval-mode DropoutCSR must return its input")
	}
}

// TestGradReverseLayer checks the layer's gradient against its definition:
// -Scale times the gradient of the identity.
func TestGradReverseLayer(t *testing.T) {
	x := autodiff.New([]float64{0.5, -2, 3}, 3).SetRequiresGrad(true)
	g := &GradReverse[float64]{Scale: 0.3}
	y := g.Forward(x)
	for i, v := range y.Data() {
		if v != x.Data()[i] {
			t.Fatalf("forward changed element %d", i)
		}
	}
	autodiff.SumAll(autodiff.Square(y)).Backward()
	for i, v := range x.Grad().Data() {
		if want := -0.3 * 2 * x.Data()[i]; math.Abs(v-want) > 1e-15 {
			t.Errorf("grad[%d] = %v, want %v", i, v, want)
		}
	}
}

// TestSequentialConvPool checks that a Sequential whose Conv2d layers are
// followed by MaxPool2d (and ReLU) layers, which it runs as one operator
// each, gives the outputs and parameter gradients of its layers applied one
// by one, to the bit; but for the first layer's filter and bias gradients
// in the default numerics, which the fused operator may sum in another
// order (autodiff.Conv2dMaxPool): those are held to 1e-5 of the largest of
// their values there, and to the bit in the reference numerics.
func TestSequentialConvPool(t *testing.T) {
	for _, mode := range []numerics.Mode{numerics.Default, numerics.Reference} {
		t.Run(mode.String(), func(t *testing.T) {
			defer numerics.Set(numerics.Set(mode))
			checkSequentialConvPool(t, mode == numerics.Default)
		})
	}
}

func checkSequentialConvPool(t *testing.T, reordered bool) {
	rng := rand.New(rand.NewPCG(8, 9))
	s := &Sequential[float32]{Layers: []Module[float32]{
		NewConv2d[float32](3, 16, 3, 1, 0, rng), &MaxPool2d[float32]{Kernel: 2, CeilMode: true}, ReLU[float32]{},
		NewConv2d[float32](16, 16, 3, 1, 0, rng), &MaxPool2d[float32]{Kernel: 2, Stride: 2},
		NewConv2d[float32](16, 16, 3, 1, 1, rng), ReLU[float32]{},
		Flatten[float32]{},
	}}
	x := make([]float32, 4*3*32*32)
	for i := range x {
		x[i] = rng.Float32() - 0.5
	}
	run := func(forward func(*autodiff.Tensor[float32]) *autodiff.Tensor[float32]) [][]float32 {
		ZeroGrad(s.Params())
		y := forward(autodiff.New(append([]float32(nil), x...), 4, 3, 32, 32))
		out := [][]float32{append([]float32(nil), y.Data()...)}
		autodiff.SumAll(autodiff.Mul(y, y)).Backward()
		for _, p := range s.Params() {
			out = append(out, append([]float32(nil), p.Tensor.Grad().Data()...))
		}
		return out
	}
	want := run(func(x *autodiff.Tensor[float32]) *autodiff.Tensor[float32] {
		for _, l := range s.Layers {
			x = l.Forward(x)
		}
		return x
	})
	got := run(s.Forward)
	for k := range want {
		var tol float64 // results 1 and 2: the first layer's filters and bias
		if reordered && (k == 1 || k == 2) {
			for _, v := range want[k] {
				tol = max(tol, 1e-5*math.Abs(float64(v)))
			}
		}
		for i := range want[k] {
			g, w := got[k][i], want[k][i]
			if tol > 0 && math.Abs(float64(g-w)) <= tol {
				continue
			}
			if math.Float32bits(g) != math.Float32bits(w) {
				t.Fatalf("result %d [%d] = %v, the layers one by one give %v", k, i, g, w)
			}
		}
	}
}
