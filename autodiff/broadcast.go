package autodiff

import (
	"fmt"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// Broadcasting follows NumPy: shapes are aligned on the right and a dimension
// of 1 (or a missing leading one) is repeated to match the other operand. The
// binary operators broadcast their operands; their backward functions undo it
// with sumTo, which sums the gradient over the repeated dimensions.

// binary kinds, for binaryRaw.
const (
	kAdd = iota
	kSub
	kMul
	kDiv
)

// forRows calls fn once per row (last dimension) of shape, with the offset of
// the row in a contiguous tensor of that shape and the offsets into two other
// tensors with strides sa and sb (per dimension of shape). A 0-dimensional
// shape is one row of one element.
func forRows(shape, sa, sb []int, fn func(o, ia, ib int)) {
	nd := len(shape)
	if nd == 0 {
		fn(0, 0, 0)
		return
	}
	L := shape[nd-1]
	rows := shapeSize(shape[:nd-1])
	if rows == 0 || L == 0 {
		return
	}
	if nd == 1 {
		fn(0, 0, 0)
		return
	}
	var idxBuf [8]int
	var idx []int
	if nd-1 <= len(idxBuf) {
		idx = idxBuf[:nd-1]
	} else {
		idx = make([]int, nd-1)
	}
	ia, ib := 0, 0
	for r := 0; r < rows; r++ {
		fn(r*L, ia, ib)
		for d := nd - 2; d >= 0; d-- {
			idx[d]++
			ia += sa[d]
			ib += sb[d]
			if idx[d] < shape[d] {
				break
			}
			ia -= sa[d] * shape[d]
			ib -= sb[d] * shape[d]
			idx[d] = 0
		}
	}
}

// binaryRaw computes a (op) b with broadcasting into a new node-less pooled
// tensor. name is used in shape errors.
func binaryRaw[T kernel.Float](name string, kind int, a, b *Tensor[T]) *Tensor[T] {
	if sameShape(a.shape, b.shape) {
		out := empty[T](a.shape...)
		segBinary(kind, out.data, a.data, b.data, 1, 1)
		return out
	}
	os, ok := broadcastShapes(a.shape, b.shape)
	if !ok {
		shapePanic(name, "dimensions differ and neither is 1 (NumPy broadcasting)", a.shape, b.shape)
	}
	out := empty[T](os...)
	loop := os
	if len(loop) == 0 {
		loop = []int{1}
	}
	sa, sb := broadcastStrides(a.shape, loop), broadcastStrides(b.shape, loop)
	L := loop[len(loop)-1]
	la, lb := sa[len(sa)-1], sb[len(sb)-1]
	forRows(loop, sa, sb, func(o, ia, ib int) {
		segBinary(kind, out.data[o:o+L], a.data[ia:], b.data[ib:], la, lb)
	})
	return out
}

// segBinary computes dst[i] = a[i*sa] (op) b[i*sb] for strides sa, sb in {0, 1}.
func segBinary[T kernel.Float](kind int, dst, a, b []T, sa, sb int) {
	n := len(dst)
	switch {
	case sa == 1 && sb == 1:
		a, b = a[:n], b[:n]
		switch kind {
		case kAdd:
			ewAdd(dst, a, b)
		case kSub:
			ewSub(dst, a, b)
		case kMul:
			ewMul(dst, a, b)
		case kDiv:
			ewDiv(dst, a, b)
		}
	case sa == 1:
		a = a[:n]
		s := b[0]
		switch kind {
		case kAdd:
			ewAddScalar(dst, a, s)
		case kSub:
			ewAddScalar(dst, a, -s)
		case kMul:
			ewScale(dst, a, s)
		case kDiv:
			for i, v := range a {
				dst[i] = v / s
			}
		}
	case sb == 1:
		b = b[:n]
		s := a[0]
		switch kind {
		case kAdd:
			ewAddScalar(dst, b, s)
		case kSub:
			for i, v := range b {
				dst[i] = s - v
			}
		case kMul:
			ewScale(dst, b, s)
		case kDiv:
			for i, v := range b {
				dst[i] = s / v
			}
		}
	default:
		var v T
		switch kind {
		case kAdd:
			v = a[0] + b[0]
		case kSub:
			v = a[0] - b[0]
		case kMul:
			v = a[0] * b[0]
		case kDiv:
			v = a[0] / b[0]
		}
		for i := range dst {
			dst[i] = v
		}
	}
}

// reduceRaw sums (or, with isMax, takes the maximum of) src over the
// dimensions where keep (same number of dimensions as src's shape) is 1 and
// src's is not, into a new node-less pooled tensor of shape keep.
func reduceRaw[T kernel.Float](src *Tensor[T], keep []int, isMax bool) *Tensor[T] {
	out := empty[T](keep...)
	if isMax {
		for i := range out.data {
			out.data[i] = T(negInf)
		}
	} else {
		clear(out.data)
	}
	loop := src.shape
	if len(loop) == 0 {
		loop = []int{1}
		keep = []int{1}
	}
	sd := broadcastStrides(keep, loop)
	L := loop[len(loop)-1]
	lastKept := sd[len(sd)-1] != 0
	forRows(loop, sd, sd, func(o, id, _ int) {
		seg := src.data[o : o+L]
		switch {
		case lastKept && isMax:
			d := out.data[id : id+L]
			for i, v := range seg {
				if v > d[i] || v != v {
					d[i] = v
				}
			}
		case lastKept:
			d := out.data[id : id+L]
			ewAdd(d, d, seg)
		case isMax:
			if m := ewMax(seg); m > out.data[id] || m != m {
				out.data[id] = m
			}
		default:
			out.data[id] += ewSum(seg)
		}
	})
	return out
}

// alignedKeep returns shape, padded on the left with ones to n dimensions.
func alignedKeep(shape []int, n int) []int {
	k := make([]int, n)
	for i := range k {
		k[i] = 1
	}
	copy(k[n-len(shape):], shape)
	return k
}

// sumTo sums g over its broadcast dimensions so that it has the given shape
// (which must broadcast to g's shape). It returns g itself when the shapes are
// equal. It is differentiable: its backward broadcasts back.
func sumTo[T kernel.Float](g *Tensor[T], shape []int) *Tensor[T] {
	if sameShape(g.shape, shape) {
		return g
	}
	return SumTo(g, shape...)
}

// SumTo sums x over the dimensions that a tensor of the given shape would be
// broadcast along to reach x's shape: the inverse of BroadcastTo for
// gradients.
func SumTo[T kernel.Float](x *Tensor[T], shape ...int) *Tensor[T] {
	if len(shape) > len(x.shape) {
		shapePanic("SumTo", "target has more dimensions than the tensor", x.shape, shape)
	}
	if bs, ok := broadcastShapes(shape, x.shape); !ok || !sameShape(bs, x.shape) {
		shapePanic("SumTo", "target does not broadcast to the tensor's shape", x.shape, shape)
	}
	keep := alignedKeep(shape, len(x.shape))
	r := reduceRaw(x, keep, false)
	r.shape = cloneInts(shape)
	xs := x.shape
	return newOp("SumTo", r, []*Tensor[T]{x}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		return []*Tensor[T]{BroadcastTo(g, xs...)}
	})
}

// BroadcastTo repeats x along the dimensions where its shape (aligned on the
// right) is 1 or missing, to the given shape. It returns x itself when the
// shapes are equal.
func BroadcastTo[T kernel.Float](x *Tensor[T], shape ...int) *Tensor[T] {
	if sameShape(x.shape, shape) {
		return x
	}
	if bs, ok := broadcastShapes(x.shape, shape); !ok || !sameShape(bs, shape) {
		shapePanic("BroadcastTo", "tensor does not broadcast to the target shape", x.shape, shape)
	}
	out := empty[T](shape...)
	loop := shape
	if len(loop) == 0 {
		loop = []int{1}
	}
	sx := broadcastStrides(x.shape, loop)
	L := loop[len(loop)-1]
	last := sx[len(sx)-1]
	forRows(loop, sx, sx, func(o, ix, _ int) {
		d := out.data[o : o+L]
		if last == 0 {
			v := x.data[ix]
			for i := range d {
				d[i] = v
			}
		} else {
			copy(d, x.data[ix:ix+L])
		}
	})
	xs := x.shape
	return newOp("BroadcastTo", out, []*Tensor[T]{x}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		return []*Tensor[T]{sumTo(g, xs)}
	})
}

// Identity returns a copy of x through which gradients flow unchanged.
func Identity[T kernel.Float](x *Tensor[T]) *Tensor[T] {
	out := empty[T](x.shape...)
	copy(out.data, x.data)
	return newOp("Identity", out, []*Tensor[T]{x}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		return []*Tensor[T]{g}
	})
}

func checkBroadcast(name string, a, b []int) []int {
	s, ok := broadcastShapes(a, b)
	if !ok {
		shapePanic(name, fmt.Sprintf("dimensions differ and neither is 1 (NumPy broadcasting of %d-d and %d-d)", len(a), len(b)), a, b)
	}
	return s
}
