package autodiff_test

import (
	"math"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/gradcheck"
)

func TestNormValues(t *testing.T) {
	for _, tc := range []struct {
		name  string
		data  []float64
		shape []int
		want  []float64
	}{
		{"rows", []float64{3, 4, 0, 0, -5, 12}, []int{3, 2}, []float64{5, 0, 13}},
		{"vector", []float64{1, 2, 2}, []int{3}, []float64{3}},
		{"3-d", []float64{1, 0, 0, 1, 0, 0, 2, 0}, []int{2, 2, 2}, []float64{1, 1, 0, 2}},
		{"huge", []float64{3e200, 4e200}, []int{2}, []float64{5e200}},
		{"tiny", []float64{3e-200, 4e-200}, []int{2}, []float64{5e-200}},
		{"empty rows", nil, []int{2, 0}, []float64{0, 0}},
		{"inf", []float64{math.Inf(-1), 1}, []int{2}, []float64{math.Inf(1)}},
	} {
		got := autodiff.Norm(autodiff.New(tc.data, tc.shape...))
		if len(got.Shape()) != len(tc.shape)-1 {
			t.Errorf("%s: shape %v from %v", tc.name, got.Shape(), tc.shape)
		}
		for i, w := range tc.want {
			if g := got.Data()[i]; !(math.Abs(g-w) <= 1e-15*math.Abs(w)) && g != w {
				t.Errorf("%s: norm %d = %v, want %v", tc.name, i, g, w)
			}
		}
	}
	if v := autodiff.Norm(autodiff.New([]float64{1, math.NaN()}, 2)).Item(); v == v {
		t.Errorf("Norm with a NaN entry = %v, want NaN", v)
	}
	f32 := autodiff.Norm(autodiff.New([]float32{3e30, 4e30}, 2)).Item()
	if math.Abs(float64(f32)-5e30) > 1e24 {
		t.Errorf("float32 Norm of (3e30, 4e30) = %v, want 5e30 (its squares overflow float32)", f32)
	}
}

func TestNormGradients(t *testing.T) {
	x := autodiff.New([]float64{0.3, -0.7, 1.1, 0.2, -0.5, 0.9, 0.4, -1.3, 0.6, 0.8, -0.1, 0.05}, 3, 4)
	norm := func(xs []*autodiff.Tensor[float64]) *autodiff.Tensor[float64] { return autodiff.Norm(xs[0]) }
	for name, check := range map[string]func(gradcheck.Func, []*gradcheck.Tensor, *gradcheck.Options) (gradcheck.Result, error){
		"first": gradcheck.First, "second": gradcheck.Second,
	} {
		res, err := check(norm, []*autodiff.Tensor[float64]{x}, nil)
		if err != nil || res.MaxErr > 1e-8 {
			t.Errorf("%s order: %v %v", name, res, err)
		}
	}
}

// TestNormZeroRow: on an all-zero row the gradient and the second
// derivative are 0 (PyTorch's subgradient), while RowNorm(x, 0) gives NaN;
// the other rows keep the gradient x/||x||.
func TestNormZeroRow(t *testing.T) {
	x := autodiff.New([]float64{3, 4, 0, 0, 0, 0}, 3, 2).SetRequiresGrad(true)
	y := autodiff.SumAll(autodiff.Norm(x))
	g, err := autodiff.Gradients([]*autodiff.Tensor[float64]{y}, nil, []*autodiff.Tensor[float64]{x}, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.6, 0.8, 0, 0, 0, 0}
	for i, w := range want {
		if math.Abs(g[0].Data()[i]-w) > 1e-15 || math.IsNaN(g[0].Data()[i]) {
			t.Errorf("gradient %v, want %v", g[0].Data(), want)
			break
		}
	}
	s := autodiff.SumAll(autodiff.Mul(g[0], autodiff.New([]float64{1, -2, 0.5, 3, -1, 1}, 3, 2)))
	h, err := autodiff.Gradients([]*autodiff.Tensor[float64]{s}, nil, []*autodiff.Tensor[float64]{x}, false)
	if err != nil {
		t.Fatal(err)
	}
	// On (3, 4): H v = (v - x (x.v)/25)/5 with v = (1, -2), x.v = -5.
	wantH := []float64{(1 + 3.0/5) / 5, (-2 + 4.0/5) / 5, 0, 0, 0, 0}
	for i, w := range wantH {
		if math.Abs(h[0].Data()[i]-w) > 1e-15 {
			t.Errorf("H v = %v, want %v", h[0].Data(), wantH)
			break
		}
	}
	z := autodiff.Zeros[float64](1, 3).SetRequiresGrad(true)
	gz, _ := autodiff.Gradients([]*autodiff.Tensor[float64]{autodiff.SumAll(autodiff.RowNorm(z, 0))}, nil, []*autodiff.Tensor[float64]{z}, false)
	if !gz[0].HasNaN() {
		t.Errorf("RowNorm(0, eps=0) gradient %v: expected NaN, the reason Norm exists", gz[0].Data())
	}
}

// TestNormFloat32: the float32 operator agrees with the float64 one, values
// and gradients, to float32 rounding.
func TestNormFloat32(t *testing.T) {
	v64 := []float64{0.3, -0.7, 1.1, 0.2, 0, 0, 0, 0, 0.6, 0.8, -0.1, 0.05}
	v32 := make([]float32, len(v64))
	for i, v := range v64 {
		v32[i] = float32(v)
	}
	x64 := autodiff.New(v64, 3, 4).SetRequiresGrad(true)
	x32 := autodiff.New(v32, 3, 4).SetRequiresGrad(true)
	n64, n32 := autodiff.Norm(x64), autodiff.Norm(x32)
	g64, err64 := autodiff.Gradients([]*autodiff.Tensor[float64]{autodiff.SumAll(n64)}, nil, []*autodiff.Tensor[float64]{x64}, false)
	g32, err32 := autodiff.Gradients([]*autodiff.Tensor[float32]{autodiff.SumAll(n32)}, nil, []*autodiff.Tensor[float32]{x32}, false)
	if err64 != nil || err32 != nil {
		t.Fatal(err64, err32)
	}
	for i := range n64.Data() {
		if math.Abs(float64(n32.Data()[i])-n64.Data()[i]) > 1e-6 {
			t.Errorf("norm %d: float32 %v, float64 %v", i, n32.Data()[i], n64.Data()[i])
		}
	}
	for i := range v64 {
		if math.Abs(float64(g32[0].Data()[i])-g64[0].Data()[i]) > 1e-6 {
			t.Errorf("gradient %d: float32 %v, float64 %v", i, g32[0].Data()[i], g64[0].Data()[i])
		}
	}
}
