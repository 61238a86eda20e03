package autodiff

import (
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// Pow returns a**b element-wise, with NumPy broadcasting, as math.Pow (numerics.Pow)
// (a negative base with a non-integer exponent gives NaN).
//
// Backward: dL/da = sumTo(g * b * a**(b-1), shape(a)),
// dL/db = sumTo(g * out * log(a), shape(b)); the latter is NaN for a < 0 and
// -Inf*0 for a == 0, so only ask for it when a > 0.
func Pow[T kernel.Float](a, b *Tensor[T]) *Tensor[T] {
	os := checkBroadcast("Pow", a.shape, b.shape)
	out := empty[T](os...)
	loop := os
	if len(loop) == 0 {
		loop = []int{1}
	}
	sa, sb := broadcastStrides(a.shape, loop), broadcastStrides(b.shape, loop)
	L := loop[len(loop)-1]
	la, lb := sa[len(sa)-1], sb[len(sb)-1]
	forRows(loop, sa, sb, func(o, ia, ib int) {
		for i := 0; i < L; i++ {
			out.data[o+i] = T(numerics.Pow(float64(a.data[ia+i*la]), float64(b.data[ib+i*lb])))
		}
	})
	var ret *Tensor[T]
	ret = newOp("Pow", out, []*Tensor[T]{a, b}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		gs := make([]*Tensor[T], 2)
		if ret.wantGrad(0) {
			gs[0] = sumTo(Mul(g, Mul(b, Pow(a, AddScalar(b, -1)))), a.shape)
		}
		if ret.wantGrad(1) {
			gs[1] = sumTo(Mul(g, Mul(ret, Log(a))), b.shape)
		}
		return gs
	})
	return ret
}
