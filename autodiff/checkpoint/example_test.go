package checkpoint_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
)

func Example() {
	dir, err := os.MkdirTemp("", "ckpt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.ckpt")

	f := &checkpoint.File{
		Meta: []byte(`{"epoch":4}`),
		Tensors: []checkpoint.Tensor{
			{Name: "fc.weight", Shape: []int{2, 2}, F32: []float32{1, 2, 3, 4}},
			{Name: "fc.bias", Shape: []int{2}, F32: []float32{0.5, -0.5}},
		},
		Optim:     []checkpoint.Tensor{{Name: "fc.weight/step", Shape: []int{}, F64: []float64{10}}},
		OptimStep: 10,
	}
	if err := checkpoint.Save(path, f); err != nil {
		fmt.Println(err)
		return
	}
	got, err := checkpoint.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(got.Meta), got.OptimStep, got.Tensors[0].F32)

	// The model of a later version has a wider layer.
	err = got.Match([]checkpoint.Tensor{
		{Name: "fc.weight", Shape: []int{3, 2}},
		{Name: "fc.bias", Shape: []int{2}},
	})
	fmt.Println(err != nil)
	// Output:
	// {"epoch":4} 10 [1 2 3 4]
	// true
}
