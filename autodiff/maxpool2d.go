package autodiff

import (
	"fmt"
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// poolOutSize returns the number of windows of width k moved by stride over n
// inputs with no padding, following PyTorch: floor((n-k)/stride)+1, or with
// ceilMode ceil((n-k)/stride)+1 less one when the last window would start past
// the end of the input. ok is false when that is below one.
func poolOutSize(n, k, stride int, ceilMode bool) (out int, ok bool) {
	if n < 1 || k < 1 || stride < 1 {
		return 0, false
	}
	num := n - k
	if ceilMode {
		num += stride - 1
	}
	// floor division, rounding towards minus infinity
	q := num / stride
	if num%stride != 0 && num < 0 {
		q--
	}
	out = q + 1
	if ceilMode && out > 0 && (out-1)*stride >= n {
		out--
	}
	return out, out >= 1
}

// maxPoolForward takes the maximum over each k x k window, moved by stride,
// of planes planes of h x w values in x, writing oh x ow values per plane to
// y and, in idx, the offset within its plane (iy*w+ix) of the element chosen.
// Windows are clipped to the plane. The first maximum in row-major order wins
// and a NaN wins over any number, so NaN propagates.
func maxPoolForward[T kernel.Float](x []T, planes, h, w, k, stride, oh, ow int, y []T, idx []int32) {
	hw, ohw := h*w, oh*ow
	asm := useMaxPoolAsm() && unsafe.Sizeof(T(0)) == 4
	if asm && k == 2 && stride == 2 && poolCovers(h, w, oh, ow) && planes > 0 {
		// Whole planes in assembly; a plane holding a NaN in Go.
		for pl := 0; pl < planes; pl++ {
			pl += maxPool2x2PlanesAVX2(f32p(x[pl*hw:]), f32p(y[pl*ohw:]), &idx[pl*ohw], planes-pl, h, w, oh, ow)
			if pl < planes {
				maxPool2x2Plane(x[pl*hw:(pl+1)*hw], h, w, oh, ow, y[pl*ohw:(pl+1)*ohw], idx[pl*ohw:(pl+1)*ohw], false)
			}
		}
		return
	}
	for pl := 0; pl < planes; pl++ {
		src := x[pl*hw : (pl+1)*hw]
		dst := y[pl*ohw : (pl+1)*ohw]
		di := idx[pl*ohw : (pl+1)*ohw]
		if k == 2 && stride == 2 {
			maxPool2x2Plane(src, h, w, oh, ow, dst, di, asm)
			continue
		}
		for oy := 0; oy < oh; oy++ {
			y0 := oy * stride
			y1 := min(y0+k, h)
			for ox := 0; ox < ow; ox++ {
				x0 := ox * stride
				x1 := min(x0+k, w)
				m, best := maxWindow(src, w, y0, y1, x0, x1)
				dst[oy*ow+ox] = m
				di[oy*ow+ox] = int32(best)
			}
		}
	}
}

// poolCovers reports whether oh x ow windows of 2 x 2 moved by 2 cover an
// h x w plane exactly: every value lies in one window (ceil mode, or even
// sizes).
func poolCovers(h, w, oh, ow int) bool {
	return 2*oh >= h && 2*oh-1 <= h && 2*ow >= w && 2*ow-1 <= w
}

// f32p points at s[0] as a *float32; s holds 32-bit values.
func f32p[T kernel.Float](s []T) *float32 { return (*float32)(unsafe.Pointer(unsafe.SliceData(s))) }

// maxPool2x2PlanesGo is the definition of maxPool2x2PlanesAVX2: for planes
// planes of h x w values that oh x ow windows of 2 x 2 moved by 2 cover
// (poolCovers), it pools the planes in order as maxPoolForward does and
// stops before the first plane that holds a NaN, returning the number of
// planes pooled.
func maxPool2x2PlanesGo[T kernel.Float](x []T, planes, h, w, oh, ow int, y []T, idx []int32) int {
	hw, ohw := h*w, oh*ow
	for pl := 0; pl < planes; pl++ {
		src := x[pl*hw : (pl+1)*hw]
		for _, v := range src {
			if v != v {
				return pl
			}
		}
		maxPool2x2Plane(src, h, w, oh, ow, y[pl*ohw:(pl+1)*ohw], idx[pl*ohw:(pl+1)*ohw], false)
	}
	return planes
}

// maxPool2x2Plane is maxPoolForward for one plane with 2 x 2 windows moved
// by 2. Full windows go through maxPool2x2Row (asm tells it that it may use
// maxPool2x2AVX2: T is 32 bits wide and the CPU has AVX2); the windows
// clipped by the last column (odd w) or the last row (odd h) hold two values
// or one and are done here, without the general window loop.
func maxPool2x2Plane[T kernel.Float](src []T, h, w, oh, ow int, dst []T, di []int32, asm bool) {
	for oy := 0; oy < oh; oy++ {
		y0 := 2 * oy
		d, dix := dst[oy*ow:(oy+1)*ow], di[oy*ow:(oy+1)*ow]
		if y0+1 < h {
			ox := maxPool2x2Row(src[y0*w:(y0+2)*w], w, y0*w, d, dix, asm)
			if ox == w/2 && ox < ow {
				// The last column alone: rows y0 and y0+1 at w-1.
				o := y0*w + w - 1
				d[ox], dix[ox] = firstMax(src[o], src[o+w], o, o+w)
				ox++
			}
			for ; ox < ow; ox++ { // the windows from a NaN on
				m, best := maxWindow(src, w, y0, y0+2, 2*ox, min(2*ox+2, w))
				d[ox], dix[ox] = m, int32(best)
			}
			continue
		}
		// The last row alone: windows of two values, and of one at an odd
		// end.
		ox := 0
		for ; ox < ow && 2*ox+1 < w; ox++ {
			o := y0*w + 2*ox
			d[ox], dix[ox] = firstMax(src[o], src[o+1], o, o+1)
		}
		if ox < ow {
			o := y0*w + 2*ox
			d[ox], dix[ox] = src[o], int32(o)
		}
	}
}

// firstMax returns the maximum of a window of the two values a and b, at
// offsets ia and ib, as maxWindow chooses it: b only when it is greater than
// a, or NaN while a is not.
func firstMax[T kernel.Float](a, b T, ia, ib int) (T, int32) {
	if b > a || b != b && a == a {
		return b, int32(ib)
	}
	return a, int32(ia)
}

// maxPool2x2Row pools the two input rows in rows (each w wide, the first at
// plane offset off) with 2 x 2 windows of stride 2 into dst and di, for as
// many windows as lie fully inside the rows and hold no NaN, and returns how
// many it did; maxWindow finishes the row. It chooses as maxWindow does: the
// first maximum in row-major order, with its own sign when -0 and +0 tie.
// With asm set (T is 32 bits wide) rows of at least four windows go through
// maxPool2x2AVX2 (eight windows at a time) or maxPool2x2AVX4 (four), the
// last group overlapping the one before it, and maxPool2x2Go does the rest.
func maxPool2x2Row[T kernel.Float](rows []T, w, off int, dst []T, di []int32, asm bool) int {
	n := min(w/2, len(dst))
	from := 0
	if asm && n >= 4 {
		_ = rows[2*w-1]
		f32 := func(s []T, i int) *float32 { return (*float32)(unsafe.Pointer(&s[i])) }
		if n >= 8 {
			groups := n / 8
			from = maxPool2x2AVX2(f32(rows, 0), f32(rows, w), f32(dst, 0), &di[0], groups, off, w)
			if from == 8*groups && from < n {
				s := n - 8
				if maxPool2x2AVX2(f32(rows, 2*s), f32(rows, w+2*s), f32(dst, s), &di[s], 1, off+2*s, w) == 8 {
					from = n
				}
			}
		} else if maxPool2x2AVX4(f32(rows, 0), f32(rows, w), f32(dst, 0), &di[0], off, w) == 4 {
			from = 4
			if n > 4 {
				s := n - 4
				if maxPool2x2AVX4(f32(rows, 2*s), f32(rows, w+2*s), f32(dst, s), &di[s], off+2*s, w) == 4 {
					from = n
				}
			}
		}
	}
	return maxPool2x2Go(rows, w, off, from, dst, di)
}

// maxPool2x2Go is maxPool2x2Row in Go from window from on, and the
// definition of maxPool2x2AVX2 (which returns a multiple of eight, stopping
// at the first group of eight windows that holds a NaN).
func maxPool2x2Go[T kernel.Float](rows []T, w, off, from int, dst []T, di []int32) int {
	r0, r1 := rows[:w], rows[w:2*w]
	n := min(w/2, len(dst))
	dst, di = dst[:n], di[:n]
	for ox := from; ox < n; ox++ {
		j := 2 * ox
		// Two-value windows of each row: two bounds checks instead of four.
		p, q := r0[j:j+2:j+2], r1[j:j+2:j+2]
		a, b, c, d := p[0], p[1], q[0], q[1]
		m := max(a, b, c, d)
		if m != m {
			return ox // a NaN: maxWindow picks the first one
		}
		// The first position holding the maximum, by conditional moves
		// rather than branches that random data mispredicts.
		best := w + j + 1
		if c == m {
			best = w + j
		}
		if b == m {
			best = j + 1
		}
		if a == m {
			best = j
		}
		if m == 0 {
			// -0 and +0 tie: keep the sign of the value chosen.
			m = rows[best]
		}
		dst[ox] = m
		di[ox] = int32(off + best)
	}
	return n
}

// maxWindow returns the maximum of the window [y0, y1) x [x0, x1) of the
// plane src (w wide) and its offset: the first maximum in row-major order, or
// the first NaN.
func maxWindow[T kernel.Float](src []T, w, y0, y1, x0, x1 int) (T, int) {
	best := y0*w + x0
	m := src[best]
	if m != m {
		return m, best
	}
	for iy := y0; iy < y1; iy++ {
		row := src[iy*w : iy*w+x1]
		for ix := x0; ix < x1; ix++ {
			v := row[ix]
			if v > m {
				m, best = v, iy*w+ix
			} else if v != v {
				return v, iy*w + ix
			}
		}
	}
	return m, best
}

// maxPoolScatter adds g[p] onto dx at the input position idx[p] chosen for
// output p, plane by plane: the backward pass of maxPoolForward. It is linear
// in g; its adjoint is maxPoolGather.
func maxPoolScatter[T kernel.Float](g []T, idx []int32, planes, hw, ohw int, dx []T) {
	for pl := 0; pl < planes; pl++ {
		d := dx[pl*hw : (pl+1)*hw]
		gs := g[pl*ohw : (pl+1)*ohw]
		for p, i := range idx[pl*ohw : (pl+1)*ohw] {
			d[i] += gs[p]
		}
	}
}

// maxPoolGather sets out[p] to gx at the input position idx[p], plane by
// plane: the adjoint of maxPoolScatter.
func maxPoolGather[T kernel.Float](gx []T, idx []int32, planes, hw, ohw int, out []T) {
	for pl := 0; pl < planes; pl++ {
		s := gx[pl*hw : (pl+1)*hw]
		o := out[pl*ohw : (pl+1)*ohw]
		for p, i := range idx[pl*ohw : (pl+1)*ohw] {
			o[p] = s[i]
		}
	}
}

// MaxPool2d takes the maximum of x ([N, C, H, W]) over kernel x kernel windows
// moved by stride, with PyTorch's MaxPool2d semantics and no padding: the
// output is [N, C, OH, OW] with OH = floor((H-kernel)/stride) + 1, or with
// ceilMode ceil((H-kernel)/stride) + 1 (less one if the last window would
// start past the input), and likewise OW; windows that run past the input are
// clipped to it. Within a window the first maximum in row-major order is
// chosen, and a NaN is chosen over any number, so NaN propagates.
//
// The backward pass sends each output gradient to the input position chosen
// by the forward pass. That scatter is linear in the gradient, and its adjoint
// is a gather by the same positions, so with createGraph both are recorded as
// differentiable operators and MaxPool2d can be differentiated any number of
// times. It panics with a *ShapeError for a shape that is not 4-D, a kernel
// or stride below 1, or an empty output.
func MaxPool2d[T kernel.Float](x *Tensor[T], kernelSize, stride int, ceilMode bool) *Tensor[T] {
	const op = "MaxPool2d"
	if len(x.shape) != 4 {
		shapePanic(op, "input must be [N, C, H, W]", x.shape)
	}
	n, c, h, w := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	oh, ok1 := poolOutSize(h, kernelSize, stride, ceilMode)
	ow, ok2 := poolOutSize(w, kernelSize, stride, ceilMode)
	if !ok1 || !ok2 {
		shapePanic(op, fmt.Sprintf("kernel %d, stride %d, ceil mode %v: no output pixel", kernelSize, stride, ceilMode), x.shape)
	}
	y := empty[T](n, c, oh, ow)
	idxT, idx := poolIndexBuffer[T](len(y.data))
	planes := n * c
	parallelRange(planes, 16, func(lo, hi int) {
		maxPoolForward(x.data[lo*h*w:hi*h*w], hi-lo, h, w, kernelSize, stride, oh, ow,
			y.data[lo*oh*ow:hi*oh*ow], idx[lo*oh*ow:hi*oh*ow])
	})
	pi := &poolIndex[T]{idx: idx, buf: idxT, planes: planes, hw: h * w, ohw: oh * ow}
	bw := func(g *Tensor[T], createGraph bool) []*Tensor[T] {
		if createGraph {
			return []*Tensor[T]{maxPoolScatterNode(pi, g, x.shape)}
		}
		dx := empty[T](x.shape...)
		pi.scatter(g.data, dx.data)
		return []*Tensor[T]{dx}
	}
	out := newOp(op, y, []*Tensor[T]{x}, bw)
	out.retain(idxT)
	return out
}

// poolIndex holds the input positions chosen by a MaxPool2d forward pass:
// idx[p] is the offset within its plane of hw values of the input chosen for
// output p (planes planes of ohw outputs). Its storage is buf, a pooled
// tensor that every node using idx retains.
type poolIndex[T kernel.Float] struct {
	idx             []int32
	buf             *Tensor[T]
	planes, hw, ohw int
}

// poolIndexBuffer returns a pooled tensor whose buffer holds at least n int32
// values, and those n values as an []int32 aliasing it.
func poolIndexBuffer[T kernel.Float](n int) (*Tensor[T], []int32) {
	size := int(unsafe.Sizeof(T(0)))
	t := empty[T]((n*4 + size - 1) / size)
	if n == 0 {
		return t, nil
	}
	return t, unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(t.data))), n)
}

// scatter sets dx to zero and adds g at the chosen positions, plane blocks in
// parallel. Each plane is cleared just before its scatter, while it is in
// cache.
func (pi *poolIndex[T]) scatter(g, dx []T) {
	hw, ohw := pi.hw, pi.ohw
	parallelRange(pi.planes, 16, func(lo, hi int) {
		for pl := lo; pl < hi; pl++ {
			d := dx[pl*hw : (pl+1)*hw]
			clear(d)
			maxPoolScatter(g[pl*ohw:(pl+1)*ohw], pi.idx[pl*ohw:(pl+1)*ohw], 1, hw, ohw, d)
		}
	})
}

// gather sets out to gx at the chosen positions, plane blocks in parallel.
func (pi *poolIndex[T]) gather(gx, out []T) {
	parallelRange(pi.planes, 16, func(lo, hi int) {
		maxPoolGather(gx[lo*pi.hw:hi*pi.hw], pi.idx[lo*pi.ohw:hi*pi.ohw], hi-lo, pi.hw, pi.ohw, out[lo*pi.ohw:hi*pi.ohw])
	})
}

// maxPoolScatterNode records the scatter of g (the pooled output's shape) to
// a tensor of shape xShape; its adjoint is maxPoolGatherNode.
func maxPoolScatterNode[T kernel.Float](pi *poolIndex[T], g *Tensor[T], xShape []int) *Tensor[T] {
	dx := empty[T](xShape...)
	pi.scatter(g.data, dx.data)
	bw := func(gx *Tensor[T], createGraph bool) []*Tensor[T] {
		if createGraph {
			return []*Tensor[T]{maxPoolGatherNode(pi, gx, g.shape)}
		}
		gg := empty[T](g.shape...)
		pi.gather(gx.data, gg.data)
		return []*Tensor[T]{gg}
	}
	out := newOp("MaxPool2dBackward", dx, []*Tensor[T]{g}, bw)
	out.retain(pi.buf)
	return out
}

// maxPoolGatherNode records the gather of gx (the input's shape) at the
// chosen positions into a tensor of shape yShape; its adjoint is
// maxPoolScatterNode.
func maxPoolGatherNode[T kernel.Float](pi *poolIndex[T], gx *Tensor[T], yShape []int) *Tensor[T] {
	y := empty[T](yShape...)
	pi.gather(gx.data, y.data)
	bw := func(gy *Tensor[T], createGraph bool) []*Tensor[T] {
		if createGraph {
			return []*Tensor[T]{maxPoolScatterNode(pi, gy, gx.shape)}
		}
		dx := empty[T](gx.shape...)
		pi.scatter(gy.data, dx.data)
		return []*Tensor[T]{dx}
	}
	out := newOp("MaxPool2dGather", y, []*Tensor[T]{gx}, bw)
	out.retain(pi.buf)
	return out
}
