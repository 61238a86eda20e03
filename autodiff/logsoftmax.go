package autodiff

import (
	"math"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// LogSoftmax returns x - log(sum(exp(x))) along the last axis, computed with
// the row maximum subtracted, so it is finite for finite x.
//
// Backward: dL/dx = g - exp(out) * sum(g, last axis).
func LogSoftmax[T kernel.Float](x *Tensor[T]) *Tensor[T] {
	if len(x.shape) == 0 {
		shapePanic("LogSoftmax", "tensor must have at least one dimension", x.shape)
	}
	out := empty[T](x.shape...)
	c := x.shape[len(x.shape)-1]
	forEachRow(x.data, c, func(r int, row []T) {
		lse := logSumExp(row)
		d := out.data[r*c : (r+1)*c]
		for j, v := range row {
			d[j] = T(float64(v) - lse)
		}
	})
	var ret *Tensor[T]
	ret = newOp("LogSoftmax", out, []*Tensor[T]{x}, func(g *Tensor[T], createGraph bool) []*Tensor[T] {
		if !createGraph {
			gx := empty[T](x.shape...)
			forEachRow(g.data, c, func(r int, gr []T) {
				s := float64(ewSum(gr))
				y := ret.data[r*c : (r+1)*c]
				d := gx.data[r*c : (r+1)*c]
				for j, v := range gr {
					d[j] = T(float64(v) - float64(numerics.Exp(float64(y[j]))*s))
				}
			})
			return []*Tensor[T]{gx}
		}
		return []*Tensor[T]{Sub(g, Mul(Exp(ret), Sum(g, true, -1)))}
	})
	return ret
}

// logSumExp returns log(sum(exp(x))) in float64, with the maximum
// subtracted first.
func logSumExp[T kernel.Float](x []T) float64 {
	m := float64(ewMax(x))
	if math.IsInf(m, 0) {
		if m > 0 {
			return m
		}
		m = 0
	}
	var s float64
	for _, v := range x {
		s += numerics.Exp(float64(v) - m)
	}
	return m + numerics.Log(s)
}
