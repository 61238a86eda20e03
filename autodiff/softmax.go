package autodiff

import (
	"math"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// Softmax returns exp(x) / sum(exp(x)) along the last axis, computed after
// subtracting each row's maximum so that it never overflows.
//
// Backward: dL/dx = out * (g - sum(g*out, last axis)).
func Softmax[T kernel.Float](x *Tensor[T]) *Tensor[T] {
	if len(x.shape) == 0 {
		shapePanic("Softmax", "tensor must have at least one dimension", x.shape)
	}
	out := empty[T](x.shape...)
	c := x.shape[len(x.shape)-1]
	forEachRow(x.data, c, func(r int, row []T) {
		softmaxRow(out.data[r*c:(r+1)*c], row)
	})
	var ret *Tensor[T]
	ret = newOp("Softmax", out, []*Tensor[T]{x}, func(g *Tensor[T], createGraph bool) []*Tensor[T] {
		if !createGraph {
			gx := empty[T](x.shape...)
			forEachRow(g.data, c, func(r int, gr []T) {
				y := ret.data[r*c : (r+1)*c]
				s := kernel.Dot(gr, y)
				d := gx.data[r*c : (r+1)*c]
				for j, v := range gr {
					d[j] = y[j] * (v - s)
				}
			})
			return []*Tensor[T]{gx}
		}
		return []*Tensor[T]{Mul(ret, Sub(g, Sum(Mul(g, ret), true, -1)))}
	})
	return ret
}

// forEachRow calls fn for each row of length c of data, over several
// goroutines when the rows are many: fn must only write to row r's outputs.
func forEachRow[T kernel.Float](data []T, c int, fn func(r int, row []T)) {
	if c == 0 {
		return
	}
	parallelFor(len(data)/c, c, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			fn(r, data[r*c:(r+1)*c])
		}
	})
}

// softmaxRow writes the softmax of x into dst and returns log(sum(exp(x))).
func softmaxRow[T kernel.Float](dst, x []T) float64 {
	m := float64(ewMax(x))
	if math.IsInf(m, -1) { // all -Inf: no finite reference; let NaN show
		m = 0
	}
	var s float64
	for i, v := range x {
		e := numerics.Exp(float64(v) - m)
		dst[i] = T(e)
		s += e
	}
	inv := 1 / s
	for i := range dst {
		dst[i] = T(float64(dst[i]) * inv)
	}
	return m + numerics.Log(s)
}
