package autodiff

import (
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// Conv2dMaxPool is the block of a convolutional network in one operator:
// MaxPool2d(Conv2d(x, w, b, stride, padding), kernelSize, poolStride,
// ceilMode), followed by ReLU when relu is set. Its result and the
// gradients of x, w and b have the bits of the three operators applied in
// turn, and it panics as they do on shapes that do not fit, with one
// exception: for float32, with the AVX2 kernels, the default numerics and
// a convolution algorithm other than ConvDirect, the filter and bias
// gradients of a convolution of rows of three pixels moved by one without
// padding, with at most 31 weights a filter (a first layer's), are sums
// over the pooled values only (pooledFilter), in another order.
//
// The convolution's output is pooled where it is produced, a plane (or a
// few) at a time while it is in cache, instead of being written out whole
// and read back; the backward pass likewise builds each plane of the
// convolution's output gradient (the masked pooled gradient scattered to
// the chosen positions) just before the convolution's backward pass reads
// it. With createGraph the gradients are built from the operators the
// three would record, so the block can be differentiated again.
func Conv2dMaxPool[T kernel.Float](x, w, b *Tensor[T], stride, padding, kernelSize, poolStride int, ceilMode, relu bool) *Tensor[T] {
	const op = "Conv2dMaxPool"
	g := convGeomOf(op, x, w, b, stride, padding)
	oh, ok1 := poolOutSize(g.oh, kernelSize, poolStride, ceilMode)
	ow, ok2 := poolOutSize(g.ow, kernelSize, poolStride, ceilMode)
	if !ok1 || !ok2 {
		shapePanic(op, fmt.Sprintf("pooling kernel %d, stride %d, ceil mode %v: no output pixel", kernelSize, poolStride, ceilMode),
			[]int{x.shape[0], w.shape[0], g.oh, g.ow})
	}
	n, f := x.shape[0], w.shape[0]
	out := empty[T](n, f, oh, ow)
	idxT, idx := poolIndexBuffer[T](len(out.data))
	cp := &convPool[T]{k: kernelSize, s: poolStride, h: g.oh, w: g.ow, oh: oh, ow: ow, relu: relu, out: out.data, idx: idx}
	var bd []T
	inputs := []*Tensor[T]{x, w}
	if b != nil {
		bd = b.data
		inputs = append(inputs, b)
	}
	fu := convForwardPool(&g, n, f, x.data, w.data, bd, nil, x.requiresGrad, cp)
	pi := &poolIndex[T]{idx: idx, buf: idxT, planes: n * f, hw: g.oh * g.ow, ohw: oh * ow}
	convShape := []int{n, f, g.oh, g.ow}
	var res *Tensor[T]
	bw := func(gr *Tensor[T], createGraph bool) []*Tensor[T] {
		grads := make([]*Tensor[T], len(inputs))
		if createGraph {
			// The operators ReLU, MaxPool2d and Conv2d record.
			gp := gr
			if relu {
				gp = Mul(gr, maskConst(res, func(v T) T {
					if v > 0 {
						return 1
					}
					return 0
				}))
			}
			dy := maxPoolScatterNode(pi, gp, convShape)
			if res.wantGrad(0) {
				grads[0] = conv2dDataNode(&g, dy, w)
			}
			if res.wantGrad(1) {
				grads[1] = conv2dFilterNode(&g, x, dy)
			}
			if b != nil && res.wantGrad(2) {
				grads[2] = convBiasSumNode(dy)
			}
			return grads
		}
		var dx, dw, db []T
		if res.wantGrad(0) {
			grads[0] = empty[T](x.shape...)
			dx = grads[0].data
		}
		if res.wantGrad(1) {
			grads[1] = empty[T](w.shape...)
			dw = grads[1].data
		}
		if b != nil && res.wantGrad(2) {
			grads[2] = empty[T](f)
			db = grads[2].data
		}
		convBackwardPool(&g, n, f, x.data, w.data, nil, dx, dw, db, fu, &poolGrad[T]{convPool: cp, g: gr.data})
		return grads
	}
	res = newOp(op, out, inputs, bw)
	res.retain(idxT)
	if fu.u != nil {
		res.retain(newTensor(fromAs32[T](fu.u), []int{len(fu.u)}, true))
	}
	return res
}

// convPool pools the output planes of a convolution (h x w each) as they
// are produced: windows of k x k moved by s, as MaxPool2d takes them, into
// the planes of oh x ow values of out, the positions chosen into idx, and
// then ReLU when relu is set. Plane p of the output is image p/f, filter
// p%f.
type convPool[T kernel.Float] struct {
	k, s, h, w, oh, ow int
	relu               bool
	out                []T
	idx                []int32
}

// pool pools the count planes of src (h*w values each) into the output
// planes [p, p+count).
func (cp *convPool[T]) pool(src []T, p, count int) {
	ohw := cp.oh * cp.ow
	o := cp.out[p*ohw : (p+count)*ohw]
	maxPoolForward(src[:count*cp.h*cp.w], count, cp.h, cp.w, cp.k, cp.s, cp.oh, cp.ow, o, cp.idx[p*ohw:(p+count)*ohw])
	if cp.relu {
		ewRelu(o, o)
	}
}

// poolLanes pools the lanes planes of src (h*w values each), those of
// images img, img+1, ... and filter fi of f, through the buffers y (lanes
// planes of oh*ow values) and yi (as many indices).
func (cp *convPool[T]) poolLanes(src []T, img, fi, f, lanes int, y []T, yi []int32) {
	ohw := cp.oh * cp.ow
	y, yi = y[:lanes*ohw], yi[:lanes*ohw]
	maxPoolForward(src[:lanes*cp.h*cp.w], lanes, cp.h, cp.w, cp.k, cp.s, cp.oh, cp.ow, y, yi)
	if cp.relu {
		ewRelu(y, y)
	}
	for l := 0; l < lanes; l++ {
		p := (img+l)*f + fi
		copy(cp.out[p*ohw:(p+1)*ohw], y[l*ohw:(l+1)*ohw])
		copy(cp.idx[p*ohw:(p+1)*ohw], yi[l*ohw:(l+1)*ohw])
	}
}

// as32 views a convPool of a 4-byte float type as one of float32.
func (cp *convPool[T]) as32() *convPool[float32] {
	return (*convPool[float32])(unsafe.Pointer(cp))
}

// poolGrad gives the planes of the gradient of a convolution whose output
// a convPool pooled: g, the gradient of the pooled output, masked as ReLU's
// backward pass masks it when the convPool applies ReLU, and sent to the
// positions chosen, as MaxPool2d's backward pass sends it; zero elsewhere.
type poolGrad[T kernel.Float] struct {
	*convPool[T]
	g []T
}

// plane sets dst (h*w values) to plane p of the gradient: zero, then
// each value of g's plane p, masked as reluGrad masks it with the output
// when the convPool applies ReLU, added at its position (maxPoolScatter).
func (pg *poolGrad[T]) plane(p int, dst []T) {
	ohw := pg.oh * pg.ow
	d := dst[:pg.h*pg.w]
	gs, ix := pg.g[p*ohw:(p+1)*ohw], pg.idx[p*ohw:(p+1)*ohw]
	var xs []T
	if pg.relu {
		xs = pg.out[p*ohw : (p+1)*ohw]
	}
	if pg.k == 2 && pg.s == 2 && pg.w >= 16 && poolCovers(pg.h, pg.w, pg.oh, pg.ow) &&
		useMaxPoolAsm() && unsafe.Sizeof(T(0)) == 4 {
		unpool2x2(d, pg.h, pg.w, gs, xs, ix, pg.oh, pg.ow)
		return
	}
	clear(d)
	if pg.relu {
		scatterReLU(d, gs, xs, ix)
		return
	}
	maxPoolScatter(gs, ix, 1, pg.h*pg.w, ohw, d)
}

// unpool2x2 is clear(d) then scatterReLU(d, g, x, idx) (maxPoolScatter
// when x is nil) for a float32 plane d of h x w values (w at least 16)
// that oh x ow windows of 2 x 2 moved by 2 cover (poolCovers): each
// window's value goes to its chosen position and zeros to the others, row
// pair by row pair, the windows of two columns eight at a time in
// assembly (unpool2x2AVX2; the last eight overlapping the eight before,
// whose values they write again), the others in Go (unpool2x2Go).
//
// A plane of whole windows (h = 2*oh, w = 2*ow) takes one call of
// unpool2x2PlaneAVX2, which runs the same groups row pair by row pair.
func unpool2x2[T kernel.Float](d []T, h, w int, g, x []T, idx []int32, oh, ow int) {
	if h == 2*oh && w == 2*ow {
		d, g, idx = d[:h*w], g[:oh*ow], idx[:oh*ow] // the lengths the assembly reads
		var xp *float32
		if x != nil {
			xp = f32p(x[:oh*ow])
		}
		unpool2x2PlaneAVX2(f32p(d), f32p(g), xp, &idx[0], oh, ow, w)
		return
	}
	full := w / 2 // windows of two columns in a row
	for oy := 0; oy < oh; oy++ {
		off := 2 * oy * w
		gs, is := g[oy*ow:(oy+1)*ow], idx[oy*ow:(oy+1)*ow]
		var xs []T
		if x != nil {
			xs = x[oy*ow : (oy+1)*ow]
		}
		if 2*oy+1 == h {
			// The last row alone (odd h): windows of two values, one at
			// an odd end.
			unpool2x2Go(d[off:off+w], nil, gs, xs, is, 0, ow, off, w)
			continue
		}
		r0, r1 := d[off:off+w], d[off+w:off+2*w]
		group := func(j int) {
			var xp *float32
			if xs != nil {
				xp = f32p(xs[j:])
			}
			unpool2x2AVX2(f32p(r0[2*j:]), f32p(r1[2*j:]), f32p(gs[j:]), xp, &is[j], 1, off+2*j, w)
		}
		for j := 0; j+8 <= full; j += 8 {
			group(j)
		}
		if full%8 != 0 {
			group(full - 8)
		}
		unpool2x2Go(r0, r1, gs, xs, is, full, ow, off, w) // an odd last column
	}
}

// unpool2x2Go writes the windows [from, n) of one row of windows: window j
// covers columns 2j and 2j+1 (when below w) of the rows r0 and r1 (nil for
// a last row alone), whose first value is at offset off of the plane; the
// value of window j, v = 0 + g[j] (masked to zero unless x[j] > 0 when x
// is not nil), goes to the position idx[j] and zeros to the others. It is
// the definition of unpool2x2AVX2.
func unpool2x2Go[T kernel.Float](r0, r1, g, x []T, idx []int32, from, n, off, w int) {
	for j := from; j < n; j++ {
		v := g[j]
		if x != nil && !(x[j] > 0) {
			v = 0
		}
		var zero T
		v = zero + v
		i := int(idx[j]) - off
		for c := 2 * j; c < min(2*j+2, w); c++ {
			r0[c] = 0
			if c == i {
				r0[c] = v
			}
			if r1 != nil {
				r1[c] = 0
				if c+w == i {
					r1[c] = v
				}
			}
		}
	}
}

// planes sets dst to the count planes [p, p+count) of the gradient.
func (pg *poolGrad[T]) planes(p, count int, dst []T) {
	hw := pg.h * pg.w
	for q := 0; q < count; q++ {
		pg.plane(p+q, dst[q*hw:(q+1)*hw])
	}
}

// all returns the whole gradient, planes planes, in a pooled buffer the
// caller releases, planes shared out over the threads.
func (pg *poolGrad[T]) all(planes int) []T {
	hw := pg.h * pg.w
	dy := alloc[T](planes * hw)
	parallelRange(planes, 16, func(lo, hi int) { pg.planes(lo, hi-lo, dy[lo*hw:hi*hw]) })
	return dy
}

// scatterReLU is
//
//	for q, i := range idx { if x[q] > 0 { d[i] += g[q] } else { d[i] += 0 } }
//
// reluGrad and maxPoolScatter in one loop, with reluGrad's branch-free
// mask.
func scatterReLU[T kernel.Float](d, g, x []T, idx []int32) {
	g, x = g[:len(idx)], x[:len(idx)]
	if unsafe.Sizeof(d[0]) == 4 {
		gb, xb := asBits[uint32](g), asBits[uint32](x)
		gb, xb = gb[:len(idx)], xb[:len(idx)]
		for q, i := range idx {
			v := gb[q] & uint32((uint64(xb[q]-1)-0x7f800000)>>32)
			d[i] += *(*T)(unsafe.Pointer(&v))
		}
		return
	}
	gb, xb := asBits[uint64](g), asBits[uint64](x)
	gb, xb = gb[:len(idx)], xb[:len(idx)]
	for q, i := range idx {
		_, borrow := bits.Sub64(xb[q]-1, 0x7ff0000000000000, 0)
		v := gb[q] & -borrow
		d[i] += *(*T)(unsafe.Pointer(&v))
	}
}

// as32 views a poolGrad of a 4-byte float type as one of float32.
func (pg *poolGrad[T]) as32() *poolGrad[float32] {
	return &poolGrad[float32]{convPool: pg.convPool.as32(), g: as32(pg.g)}
}
