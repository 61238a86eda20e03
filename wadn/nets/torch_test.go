package nets

import (
	"slices"
	"testing"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
)

func TestSparseWeights(t *testing.T) {
	ten := func(name string, shape ...int) checkpoint.Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		return checkpoint.Tensor{Name: name, Shape: shape, F32: make([]float32, n)}
	}
	for _, tc := range []struct {
		name string
		ts   []checkpoint.Tensor
		want []string
	}{
		{"amazon", []checkpoint.Tensor{ten("extractor.0.weight", 6, 4), ten("extractor.0.bias", 4), ten("classifier.0.weight", 2, 4)}, []string{SparseWeightName}},
		{"amazon, deeper", []checkpoint.Tensor{ten("extractor.0.weight", 6, 4), ten("extractor.0.bias", 4), ten("extractor.post.1.weight", 3, 4), ten("critic0.0.weight", 1, 3)}, []string{SparseWeightName}},
		{"amazon, averaged", []checkpoint.Tensor{ten("extractor.0.weight", 6, 4), ten("extractor.0.bias", 4), ten("average.extractor.0.weight", 6, 4), ten("average.extractor.0.bias", 4)}, []string{SparseWeightName, AveragePrefix + SparseWeightName}},
		{"digits", []checkpoint.Tensor{ten("extractor.0.weight", 2, 3, 3, 3), ten("extractor.3.weight", 2, 2, 3, 3)}, nil},
		{"digits, averaged", []checkpoint.Tensor{ten("extractor.0.weight", 2, 3, 3, 3), ten("extractor.3.weight", 2, 2, 3, 3), ten("average.extractor.0.weight", 2, 3, 3, 3)}, nil},
		{"office-home", []checkpoint.Tensor{ten("extractor.0.weight", 4, 6), ten("extractor.1.running_mean", 4), ten("extractor.3.weight", 4, 4)}, nil},
		{"no extractor", []checkpoint.Tensor{ten("classifier.0.weight", 2, 4)}, nil},
	} {
		if got := SparseWeights(tc.ts); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestToTorchTransposes(t *testing.T) {
	w := checkpoint.Tensor{Name: SparseWeightName, Shape: []int{3, 2}, F32: []float32{1, 2, 3, 4, 5, 6}}
	b := checkpoint.Tensor{Name: "extractor.0.bias", Shape: []int{2}, F32: []float32{7, 8}}
	got := ToTorch([]checkpoint.Tensor{w, b})
	if !slices.Equal(got[0].Shape, []int{2, 3}) || !slices.Equal(got[0].F32, []float32{1, 3, 5, 2, 4, 6}) || !slices.Equal(got[1].F32, b.F32) {
		t.Errorf("ToTorch: %+v", got)
	}
	if !slices.Equal(w.F32, []float32{1, 2, 3, 4, 5, 6}) {
		t.Error("ToTorch changed its input")
	}
	back := FromTorch(got)
	if !slices.Equal(back[0].Shape, w.Shape) || !slices.Equal(back[0].F32, w.F32) {
		t.Errorf("FromTorch(ToTorch(w)) = %+v, want %+v", back[0], w)
	}
	w64 := checkpoint.Tensor{Name: SparseWeightName, Shape: []int{1, 2}, F64: []float64{1, 2}}
	if g := ToTorch([]checkpoint.Tensor{w64})[0]; !slices.Equal(g.Shape, []int{2, 1}) || !slices.Equal(g.F64, w64.F64) {
		t.Errorf("float64: %+v", g)
	}
}
