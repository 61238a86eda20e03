package autodiff

import (
	"fmt"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// Slice returns the elements of x with index in [start, end) along axis (a
// negative axis counts from the end), as a new buffer.
//
// Backward: g placed into zeros of x's shape at [start, end) along axis.
func Slice[T kernel.Float](x *Tensor[T], axis, start, end int) *Tensor[T] {
	ax := normAxis("Slice", axis, x.shape)
	if start < 0 || end < start || end > x.shape[ax] {
		shapePanic("Slice", fmt.Sprintf("range [%d, %d) outside [0, %d) on axis %d", start, end, x.shape[ax], ax), x.shape)
	}
	os := cloneInts(x.shape)
	os[ax] = end - start
	out := empty[T](os...)
	outer, inner := splitAt(x.shape, ax)
	D := x.shape[ax]
	w := (end - start) * inner
	for o := 0; o < outer; o++ {
		copy(out.data[o*w:(o+1)*w], x.data[(o*D+start)*inner:(o*D+end)*inner])
	}
	xs := x.shape
	return newOp("Slice", out, []*Tensor[T]{x}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		return []*Tensor[T]{pad(g, ax, start, xs[ax])}
	})
}

// splitAt returns the products of the dimensions before and after axis.
func splitAt(shape []int, axis int) (outer, inner int) {
	return shapeSize(shape[:axis]), shapeSize(shape[axis+1:])
}

// pad places x at [start, start+len) along axis in zeros with total entries
// on that axis: the adjoint of Slice.
func pad[T kernel.Float](x *Tensor[T], axis, start, total int) *Tensor[T] {
	os := cloneInts(x.shape)
	os[axis] = total
	out := empty[T](os...)
	_, inner := splitAt(x.shape, axis)
	n := x.shape[axis]
	parallelRange(len(out.data), copyPartMin, func(lo, hi int) {
		padRange(out.data, x.data, lo, hi, total*inner, start*inner, (start+n)*inner)
	})
	return newOp("Pad", out, []*Tensor[T]{x}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		return []*Tensor[T]{Slice(g, axis, start, start+n)}
	})
}

// padRange writes out[lo:hi) of pad's output, each value once: out is
// blocks of row values, of which [a, b) are the next b-a values of x and
// the rest zeros.
func padRange[T kernel.Float](out, x []T, lo, hi, row, a, b int) {
	for i := lo; i < hi; {
		o, r := i/row, i%row
		end := min(hi, (o+1)*row)
		switch {
		case r < a:
			j := min(end, i+a-r)
			clear(out[i:j])
			i = j
		case r < b:
			j := min(end, i+b-r)
			from := o*(b-a) + r - a
			copy(out[i:j], x[from:from+j-i])
			i = j
		default:
			clear(out[i:end])
			i = end
		}
	}
}
