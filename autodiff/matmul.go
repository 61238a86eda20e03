package autodiff

import (
	"fmt"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// MatMul returns op(a) x op(b) for 2-D tensors, where op(a) is a, or a's
// transpose when transA is set (likewise for b). op(a) must be m x k and
// op(b) k x n; the result is m x n. The product is computed by kernel.Gemm
// reading the stored layouts directly, so no transposed copy is made.
//
// Backward, with G = dL/dout:
//
//	dL/dop(a) = G op(b)^T    dL/dop(b) = op(a)^T G
//
// each again a MatMul of the stored operands with the right flags (so it is
// differentiable again and never copies).
func MatMul[T kernel.Float](a, b *Tensor[T], transA, transB bool) *Tensor[T] {
	if len(a.shape) != 2 || len(b.shape) != 2 {
		shapePanic("MatMul", "both operands must be 2-D", a.shape, b.shape)
	}
	m, k := a.shape[0], a.shape[1]
	if transA {
		m, k = k, m
	}
	k2, n := b.shape[0], b.shape[1]
	if transB {
		k2, n = n, k2
	}
	if k != k2 {
		shapePanic("MatMul", fmt.Sprintf("inner dimensions differ: op(a) is %dx%d, op(b) is %dx%d (transA=%v, transB=%v)", m, k, k2, n, transA, transB), a.shape, b.shape)
	}
	out := empty[T](m, n)
	if k == 0 {
		clear(out.data)
	} else if m > 0 && n > 0 {
		kernel.Gemm(transA, transB, m, n, k, 1, a.data, a.shape[1], b.data, b.shape[1], 0, out.data, n)
	}
	return matMulNode(out, a, b, transA, transB)
}

// matMulNode records out = op(a) x op(b) in the graph, with MatMul's
// backward.
func matMulNode[T kernel.Float](out, a, b *Tensor[T], transA, transB bool) *Tensor[T] {
	var ret *Tensor[T]
	ret = newOp("MatMul", out, []*Tensor[T]{a, b}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		gs := make([]*Tensor[T], 2)
		if ret.wantGrad(0) {
			if transA {
				gs[0] = MatMul(b, g, transB, true)
			} else {
				gs[0] = MatMul(g, b, false, !transB)
			}
		}
		if ret.wantGrad(1) {
			if transB {
				gs[1] = MatMul(g, a, true, transA)
			} else {
				gs[1] = MatMul(a, g, !transA, false)
			}
		}
		return gs
	})
	if ret.node.backward != nil && !transA {
		// b's gradient, op(a)ᵀ g, is a product over the rows of a and g.
		ret.node.rows = func(g *Tensor[T]) rowProduct[T] {
			if transB {
				return rowProduct[T]{x: g, y: a}
			}
			return rowProduct[T]{x: a, y: g}
		}
	}
	return ret
}

// MatMulRows returns MatMul(x, b, false, transB) for each x of xs, taken as
// one kernel.Gemm over the rows of xs stacked. Every element of a product
// is the same sum in the same order whatever the other rows (kernel.Gemm),
// so each result has the values of MatMul's, and it is the same node in the
// graph (inputs x and b, MatMul's backward). One product over many rows
// runs faster than several over few; the stacking copies xs once.
func MatMulRows[T kernel.Float](xs []*Tensor[T], b *Tensor[T], transB bool) []*Tensor[T] {
	if len(b.shape) != 2 {
		shapePanic("MatMulRows", "the weights must be 2-D", b.shape)
	}
	k, n := b.shape[0], b.shape[1]
	if transB {
		k, n = n, k
	}
	m := 0
	for _, x := range xs {
		if len(x.shape) != 2 || x.shape[1] != k {
			shapePanic("MatMulRows", fmt.Sprintf("every input must be 2-D with %d columns (transB=%v)", k, transB), x.shape, b.shape)
		}
		m += x.shape[0]
	}
	outs := make([]*Tensor[T], len(xs))
	if len(xs) == 1 || k == 0 || n == 0 {
		for i, x := range xs {
			outs[i] = MatMul(x, b, false, transB)
		}
		return outs
	}
	a := alloc[T](m * k)
	c := alloc[T](m * n)
	stackRows(a, xs, m, k)
	r := 0
	if m > 0 {
		kernel.Gemm(false, transB, m, n, k, 1, a, k, b.data, b.shape[1], 0, c, n)
	}
	for i, x := range xs {
		rows := x.shape[0]
		out := empty[T](rows, n)
		copy(out.data, c[r*n:(r+rows)*n])
		r += rows
		outs[i] = matMulNode(out, x, b, false, transB)
	}
	release(a)
	release(c)
	return outs
}

// copyPartMin is the fewest values a part of a copy shared out over the
// threads (stackRows, pad) writes: writing that many takes far longer than
// handing the part to a worker.
const copyPartMin = 1 << 16

// stackRows copies the m rows of k values of xs, one after the other, into
// a, the rows shared out over the threads in parts of at least
// copyPartMin values.
func stackRows[T kernel.Float](a []T, xs []*Tensor[T], m, k int) {
	parallelRange(m, max(1, copyPartMin/max(k, 1)), func(lo, hi int) {
		r := 0
		for _, x := range xs {
			rows := x.shape[0]
			if from, to := max(lo, r), min(hi, r+rows); from < to {
				copy(a[from*k:to*k], x.data[(from-r)*k:(to-r)*k])
			}
			r += rows
		}
	})
}
