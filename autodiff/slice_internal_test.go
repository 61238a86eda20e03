package autodiff

import (
	"fmt"
	"math"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// TestPadWritesEveryValue compares pad with a loop over every output value,
// bit for bit, on a buffer the pool hands back full of NaN, so that a value
// pad leaves unwritten fails. The long cases are split over the threads at
// places inside the zeros and inside the copied values.
func TestPadWritesEveryValue(t *testing.T) {
	cases := []struct {
		shape              []int
		axis, start, total int
	}{
		{[]int{5}, 0, 0, 5},
		{[]int{3}, 0, 2, 7},
		{[]int{0, 4}, 0, 1, 3},
		{[]int{2, 3, 4}, 1, 1, 6},
		{[]int{2, 3, 4}, 2, 3, 7},
		{[]int{3, 2, 5}, 0, 0, 4},
		{[]int{20, 2304}, 0, 60, 80},    // the step's last domain of four
		{[]int{20, 2304}, 0, 20, 80},    // a middle one
		{[]int{40, 2304}, 0, 0, 80},     // the first two
		{[]int{3, 7, 9001}, 1, 5, 13},   // parts ending inside rows of x
		{[]int{7, 3, 1, 4099}, 2, 1, 2}, // axis of one, inner long
	}
	for _, threads := range []int{1, 2, 3} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("threads%d/%v/axis%d/%d-of-%d", threads, c.shape, c.axis, c.start, c.total), func(t *testing.T) {
				defer kernel.SetThreads(kernel.SetThreads(threads))
				x := empty[float32](c.shape...)
				for i := range x.data {
					x.data[i] = float32(i%1000) - 499.5
				}
				os := cloneInts(c.shape)
				os[c.axis] = c.total
				n := shapeSize(os)
				poison := alloc[float32](n)
				for i := range poison {
					poison[i] = float32(math.NaN())
				}
				release(poison)

				got := pad(x, c.axis, c.start, c.total)
				outer, inner := splitAt(c.shape, c.axis)
				k := c.shape[c.axis]
				for o := 0; o < outer; o++ {
					for r := 0; r < c.total; r++ {
						for i := 0; i < inner; i++ {
							var want float32
							if r >= c.start && r < c.start+k {
								want = x.data[(o*k+r-c.start)*inner+i]
							}
							at := (o*c.total+r)*inner + i
							if g := got.data[at]; math.Float32bits(g) != math.Float32bits(want) {
								t.Fatalf("value %d (outer %d, row %d, %d): %v, want %v", at, o, r, i, g, want)
							}
						}
					}
				}
			})
		}
	}
}

// TestOrderMarksReused: the map a pass's walk used is handed back empty, so
// that a later pass over the same graph meets every node again.
func TestOrderMarksReused(t *testing.T) {
	x := New([]float64{1, -2, 3}, 3).SetRequiresGrad(true)
	y := SumAll(Mul(x, x))
	for pass := 1; pass <= 3; pass++ {
		g, err := Gradients([]*Tensor[float64]{y}, nil, []*Tensor[float64]{x}, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []float64{2, -4, 6} {
			if g[0].data[i] != want {
				t.Fatalf("pass %d: gradient %d is %v, want %v", pass, i, g[0].data[i], want)
			}
		}
		m := takeMarks[float64]()
		if len(m) != 0 {
			t.Fatalf("pass %d: the kept map holds %d entries", pass, len(m))
		}
		putMarks(m)
	}
}

// BenchmarkPad times the adjoint of one domain's rows sliced from the Digits
// step's features (20 of 80 rows of 2304 values); -cpu sets the threads.
func BenchmarkPad(b *testing.B) {
	defer kernel.SetThreads(kernel.SetThreads(0))
	x := empty[float32](20, 2304)
	clear(x.data)
	for b.Loop() {
		pad(x, 0, 20, 80).Release()
	}
}
