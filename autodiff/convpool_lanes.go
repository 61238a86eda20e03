package autodiff

import "github.com/wadn-go/wadn/autodiff/kernel"

// Pooling in the interleaved layout of the Winograd transforms. The output
// transforms of a block of eight images write its output planes of one
// filter interleaved, lane l of pixel (y, x) at offset (y*opw + x)*8 + l;
// the 2 x 2 windows moved by 2 of the digits' layers are pooled from
// there, eight lanes at a time, straight into the pooled output planes,
// and the backward pass builds the convolution's output gradient in the
// same layout for the adjoint output transforms. Both have the bits of
// the planes taken out (Deinterleave8) and pooled (poolLanes), and of the
// gradient's planes (poolGrad.plane) put back in (Interleave8).

// poolWindows is a table of the windows of a 2 x 2 pooling moved by 2 over
// an interleaved plane: for window k (in the order of the pooled plane),
// t[8k+q] is the interleaved offset of its value q and t[8k+4+q] the
// value's position in the plane (iy*w + ix), q < 4, the values in
// row-major order; a window clipped by the last row or column repeats its
// values (a b a b, a a c c, a a a a), which changes no choice. end is one
// past the largest offset's eight lanes.
type poolWindows struct {
	t   []int32
	end int
}

// windows returns the table of the oh x ow windows of cp over the output
// buffer of wg, or nil when cp does not pool 2 x 2 windows moved by 2 that
// cover its planes (poolCovers): it then pools planes (poolLanes,
// poolGrad.plane).
func (wg *winoGeom) windows(cp *convPool[float32]) *poolWindows {
	if cp == nil || cp.k != 2 || cp.s != 2 || !poolCovers(cp.h, cp.w, cp.oh, cp.ow) {
		return nil
	}
	k := windowsKey{cp.h, cp.w, cp.oh, cp.ow, wg.opw, wg.outLen}
	if pw, ok := poolWindowTables.find(k); ok {
		return pw
	}
	return poolWindowTables.keep(k, wg.newWindows(cp))
}

// windowsKey is what the windows of a pooling depend on: the sizes of the
// planes and pooled planes, and the width and length of the output buffer.
type windowsKey struct{ h, w, oh, ow, opw, outLen int }

// poolWindowTables keeps the windows of the layouts met, which every pass
// of a layer would otherwise compute again. A table is read only.
var poolWindowTables tableCache[windowsKey, *poolWindows]

// newWindows computes windows' table.
func (wg *winoGeom) newWindows(cp *convPool[float32]) *poolWindows {
	L := kernel.Lanes
	pw := &poolWindows{t: make([]int32, 0, 8*cp.oh*cp.ow)}
	for oy := 0; oy < cp.oh; oy++ {
		for ox := 0; ox < cp.ow; ox++ {
			y0, x0 := 2*oy, 2*ox
			y1, x1 := min(y0+1, cp.h-1), min(x0+1, cp.w-1)
			ys, xs := [4]int{y0, y0, y1, y1}, [4]int{x0, x1, x0, x1}
			for q := range 4 {
				off := (ys[q]*wg.opw + xs[q]) * L
				pw.t = append(pw.t, int32(off))
				pw.end = max(pw.end, off+L)
			}
			for q := range 4 {
				pw.t = append(pw.t, int32(ys[q]*cp.w+xs[q]))
			}
		}
	}
	if pw.end > wg.outLen {
		panic("autodiff: pooling windows outside the output buffer")
	}
	return pw
}

// poolLanes2x2Go is the definition of poolLanes2x2AVX2: for the n windows
// of win over the interleaved buffer src and the lanes l < lanes, the
// window's value and position as maxWindow chooses them (the first
// maximum in row-major order, the first NaN over any number), the value
// set to zero when relu is set and it is below zero (ewRelu), go to
// dst[l*stride+k] and idx[l*stride+k].
func poolLanes2x2Go(dst []float32, idx []int32, stride int, src []float32, win []int32, n, lanes int, relu bool) {
	for k := 0; k < n; k++ {
		w := win[8*k : 8*k+8]
		for l := 0; l < lanes; l++ {
			m, best := src[int(w[0])+l], w[4]
			for q := 1; q < 4; q++ {
				if v := src[int(w[q])+l]; v > m || v != v && m == m {
					m, best = v, w[4+q]
				}
			}
			if relu && m < 0 {
				m = 0
			}
			dst[l*stride+k], idx[l*stride+k] = m, best
		}
	}
}

// unpoolLanes2x2Go is the definition of unpoolLanes2x2AVX2: for the n
// windows of win and the eight lanes of the interleaved buffer dst, the
// value of window k in lane l < lanes, v = 0 + g[l*stride+k] (masked to
// zero unless x[l*stride+k] > 0 when x is not nil, as scatterReLU masks
// it), goes to its value at position idx[l*stride+k] and zeros to the
// others; lanes from lanes on get zeros (as Interleave8 gives them).
func unpoolLanes2x2Go(dst []float32, win []int32, n int, g, x []float32, idx []int32, stride, lanes int) {
	for k := 0; k < n; k++ {
		w := win[8*k : 8*k+8]
		for l := 0; l < kernel.Lanes; l++ {
			var v, zero float32
			best := int32(-1)
			if l < lanes {
				v, best = g[l*stride+k], idx[l*stride+k]
				if x != nil && !(x[l*stride+k] > 0) {
					v = 0
				}
			}
			v = zero + v
			for q := 0; q < 4; q++ {
				o := int(w[q]) + l
				dst[o] = 0
				if w[4+q] == best {
					dst[o] = v
				}
			}
		}
	}
}

// poolInterleaved is poolLanes for the lanes images img, img+1, ... and
// filter fi of f, taken from the interleaved buffer src (the output
// transforms' pl.out) through the windows pw: the pooled values and
// positions go straight to cp's planes, through the buffers y and yi
// (eight planes of oh*ow values each) when the block has fewer than eight
// images and the windows are pooled in assembly.
func poolInterleaved(cp *convPool[float32], pw *poolWindows, src []float32, img, fi, f, lanes int, y []float32, yi []int32) {
	ohw := cp.oh * cp.ow
	p0, stride := (img*f+fi)*ohw, f*ohw
	if ohw < 8 || !useMaxPoolAsm() {
		poolLanes2x2Go(cp.out[p0:], cp.idx[p0:], stride, src, pw.t, ohw, lanes, cp.relu)
		return
	}
	_ = src[pw.end-1]
	_ = pw.t[8*ohw-1]
	relu := 0
	if cp.relu {
		relu = 1
	}
	L := kernel.Lanes
	if lanes == L {
		_ = cp.out[p0+(L-1)*stride+ohw-1]
		_ = cp.idx[p0+(L-1)*stride+ohw-1]
		poolLanes2x2AVX2(&cp.out[p0], &cp.idx[p0], stride, &src[0], &pw.t[0], ohw, relu)
		return
	}
	y, yi = y[:L*ohw], yi[:L*ohw]
	poolLanes2x2AVX2(&y[0], &yi[0], ohw, &src[0], &pw.t[0], ohw, relu)
	for l := 0; l < lanes; l++ {
		o := p0 + l*stride
		copy(cp.out[o:o+ohw], y[l*ohw:(l+1)*ohw])
		copy(cp.idx[o:o+ohw], yi[l*ohw:(l+1)*ohw])
	}
}

// unpoolInterleaved sets dst, the interleaved output gradient of the
// lanes images img, img+1, ... and filter fi of f (the input of the
// adjoint output transforms), to the planes pg.plane gives, as
// Interleave8 interleaves them, lanes from lanes on zero; pw are the
// windows and dst's values outside them are left as they are. When the
// block has fewer than eight images and the windows are unpooled in
// assembly, its planes of the gradient, the pooled output and the
// positions are copied, zeros after them, into gs, xs and is (eight planes
// of oh*ow values each).
func unpoolInterleaved(pg *poolGrad[float32], pw *poolWindows, dst []float32, img, fi, f, lanes int, gs, xs []float32, is []int32) {
	ohw := pg.oh * pg.ow
	p0, stride := (img*f+fi)*ohw, f*ohw
	g, idx := pg.g[p0:], pg.idx[p0:]
	var x []float32
	if pg.relu {
		x = pg.out[p0:]
	}
	if ohw < 8 || !useMaxPoolAsm() {
		unpoolLanes2x2Go(dst, pw.t, ohw, g, x, idx, stride, lanes)
		return
	}
	L := kernel.Lanes
	if lanes < L {
		gs, is = gs[:L*ohw], is[:L*ohw]
		clear(gs[lanes*ohw:])
		clear(is[lanes*ohw:])
		for l := 0; l < lanes; l++ {
			copy(gs[l*ohw:(l+1)*ohw], g[l*stride:])
			copy(is[l*ohw:(l+1)*ohw], idx[l*stride:])
		}
		if x != nil {
			xs = xs[:L*ohw]
			clear(xs[lanes*ohw:])
			for l := 0; l < lanes; l++ {
				copy(xs[l*ohw:(l+1)*ohw], x[l*stride:])
			}
			x = xs
		}
		g, idx, stride = gs, is, ohw
	}
	_ = dst[pw.end-1]
	_ = pw.t[8*ohw-1]
	_ = g[(L-1)*stride+ohw-1]
	_ = idx[(L-1)*stride+ohw-1]
	var xp *float32
	if x != nil {
		_ = x[(L-1)*stride+ohw-1]
		xp = &x[0]
	}
	unpoolLanes2x2AVX2(&dst[0], &pw.t[0], ohw, &g[0], xp, &idx[0], stride)
}
