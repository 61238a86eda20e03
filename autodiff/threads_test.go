package autodiff_test

import (
	"math/rand/v2"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// TestThreadsAgree runs operators large enough to be split over goroutines
// with one thread and with several, forward and backward, in both element
// types, and requires the same results to the bit.
func TestThreadsAgree(t *testing.T) {
	t.Run("float64", threadsAgree[float64])
	t.Run("float32", threadsAgree[float32])
}

func threadsAgree[T kernel.Float](t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	const n, c = 97, 301 // splits that fall between vector widths
	x := make([]T, n*c)
	for i := range x {
		x[i] = T(r.Float64()*6 - 3)
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = r.IntN(c)
	}
	ops := []struct {
		name string
		f    func(*autodiff.Tensor[T]) *autodiff.Tensor[T]
	}{
		{"Tanh", autodiff.Tanh[T]},
		{"Sigmoid", autodiff.Sigmoid[T]},
		{"ReLU", autodiff.ReLU[T]},
		{"Exp", autodiff.Exp[T]},
		{"Softmax", autodiff.Softmax[T]},
		{"LogSoftmax", autodiff.LogSoftmax[T]},
		{"CrossEntropy", func(x *autodiff.Tensor[T]) *autodiff.Tensor[T] {
			l, err := autodiff.CrossEntropy(x, labels, nil, autodiff.ReduceNone)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}},
	}
	run := func(threads int, f func(*autodiff.Tensor[T]) *autodiff.Tensor[T]) (y, g []T) {
		defer kernel.SetThreads(kernel.SetThreads(threads))
		in := autodiff.New(append([]T(nil), x...), n, c).SetRequiresGrad(true)
		out := f(in)
		loss := autodiff.SumAll(autodiff.Square(out))
		loss.Backward()
		y = append([]T(nil), out.Data()...)
		g = append([]T(nil), in.Grad().Data()...)
		loss.Release()
		return y, g
	}
	for _, op := range ops {
		y1, g1 := run(1, op.f)
		for _, threads := range []int{2, 3, 4} {
			y2, g2 := run(threads, op.f)
			for i := range y1 {
				if y1[i] != y2[i] {
					t.Errorf("%s: output %d: %v with one thread, %v with %d", op.name, i, y1[i], y2[i], threads)
					break
				}
			}
			for i := range g1 {
				if g1[i] != g2[i] {
					t.Errorf("%s: gradient %d: %v with one thread, %v with %d", op.name, i, g1[i], g2[i], threads)
					break
				}
			}
		}
	}
}
