package autodiff

import (
	"math"
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// convGeom is the geometry of a 2-D convolution over one NCHW image: c input
// channels of h x w pixels, a kh x kw kernel moved by stride with zero padding
// on every side, giving oh x ow output pixels.
type convGeom struct {
	c, h, w   int
	kh, kw    int
	stride    int
	pad       int
	oh, ow    int
	colRows   int // c*kh*kw: rows of the column matrix of one image
	outPixels int // oh*ow: columns of the column matrix of one image

	// offs, set when pad is 0, holds for each output pixel p = oy*ow+ox the
	// plane offset oy*stride*w + ox*stride of the top-left pixel it reads.
	offs []int32
}

// newConvGeom returns the geometry for the given sizes. The output size is
// (h+2*pad-kh)/stride + 1 in each dimension; ok is false when it is below one
// or an argument is out of range.
func newConvGeom(c, h, w, kh, kw, stride, pad int) (g convGeom, ok bool) {
	if c < 1 || h < 1 || w < 1 || kh < 1 || kw < 1 || stride < 1 || pad < 0 {
		return g, false
	}
	if h+2*pad < kh || w+2*pad < kw {
		return g, false
	}
	g = convGeom{c: c, h: h, w: w, kh: kh, kw: kw, stride: stride, pad: pad}
	g.oh = (h+2*pad-kh)/stride + 1
	g.ow = (w+2*pad-kw)/stride + 1
	g.colRows = c * kh * kw
	g.outPixels = g.oh * g.ow
	if pad == 0 && c*h*w <= math.MaxInt32 {
		g.offs = make([]int32, 0, g.outPixels)
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				g.offs = append(g.offs, int32((oy*w+ox)*stride))
			}
		}
	}
	return g, true
}

// validRange returns the output positions [lo, hi) along one dimension whose
// input coordinate o*stride - pad + k falls inside [0, n).
func validRange(n, k, stride, pad, out int) (lo, hi int) {
	// smallest o with o*stride >= pad-k
	d := pad - k
	if d > 0 {
		lo = (d + stride - 1) / stride
	}
	// largest o with o*stride <= n-1+pad-k
	e := n - 1 + pad - k
	if e < 0 {
		return 0, 0
	}
	hi = e/stride + 1
	lo = min(lo, out)
	hi = min(hi, out)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// im2col unfolds one image x (c x h x w, row-major) into the column matrix
// of g: row (ci*kh+ki)*kw+kj, column oy*ow+ox holds
//
//	x[ci, oy*stride-pad+ki, ox*stride-pad+kj]
//
// or zero where that pixel lies in the padding. Rows are ldc apart in cols, so
// several images can share one matrix side by side.
func im2col[T kernel.Float](g *convGeom, x []T, cols []T, ldc int) {
	hw := g.h * g.w
	if g.offs != nil && g.stride == 1 && g.ow < g.w {
		if useCopyRunsAsm() && unsafe.Sizeof(T(0)) == 4 {
			im2colRunsAsm(g, x, cols, ldc)
			return
		}
		if g.ow >= copyRunMin {
			im2colRuns(g, x, cols, ldc)
			return
		}
	}
	if g.offs != nil && !(g.stride == 1 && g.ow == g.w) {
		im2colGather(g, x, cols, ldc)
		return
	}
	for ci := 0; ci < g.c; ci++ {
		plane := x[ci*hw : (ci+1)*hw]
		for ki := 0; ki < g.kh; ki++ {
			ylo, yhi := validRange(g.h, ki, g.stride, g.pad, g.oh)
			for kj := 0; kj < g.kw; kj++ {
				xlo, xhi := validRange(g.w, kj, g.stride, g.pad, g.ow)
				row := cols[((ci*g.kh+ki)*g.kw+kj)*ldc:]
				row = row[:g.outPixels]
				if g.stride == 1 && g.ow == g.w {
					im2colSameRow(g, plane, row, ki, kj, ylo, yhi, xlo, xhi)
					continue
				}
				if g.stride == 1 {
					im2colStride1Row(g, plane, row, ki, kj, ylo, yhi, xlo, xhi)
					continue
				}
				for oy := 0; oy < g.oh; oy++ {
					dst := row[oy*g.ow : (oy+1)*g.ow]
					if oy < ylo || oy >= yhi {
						clear(dst)
						continue
					}
					src := plane[(oy*g.stride-g.pad+ki)*g.w:]
					clear(dst[:xlo])
					clear(dst[xhi:])
					ix := xlo*g.stride - g.pad + kj
					if g.stride == 1 {
						copy(dst[xlo:xhi], src[ix:ix+xhi-xlo])
						continue
					}
					for ox := xlo; ox < xhi; ox++ {
						dst[ox] = src[ix]
						ix += g.stride
					}
				}
			}
		}
	}
}

// col2im is the adjoint of im2col: it adds every entry of the column matrix
// back onto the pixel of dx (c x h x w) it was read from; entries that came
// from the padding are dropped. dx is accumulated into, not overwritten. The
// entries of cols that came from the padding may be overwritten.
func col2im[T kernel.Float](g *convGeom, cols []T, ldc int, dx []T) {
	hw := g.h * g.w
	if g.offs != nil && g.stride == 1 && g.kw == 3 && g.ow >= 2 && g.ow < g.w {
		col2imWide3(g, cols, ldc, dx)
		return
	}
	if g.offs != nil && !(g.stride == 1 && g.ow == g.w) {
		col2imScatter(g, cols, ldc, dx)
		return
	}
	for ci := 0; ci < g.c; ci++ {
		plane := dx[ci*hw : (ci+1)*hw]
		for ki := 0; ki < g.kh; ki++ {
			ylo, yhi := validRange(g.h, ki, g.stride, g.pad, g.oh)
			for kj := 0; kj < g.kw; kj++ {
				xlo, xhi := validRange(g.w, kj, g.stride, g.pad, g.ow)
				row := cols[((ci*g.kh+ki)*g.kw+kj)*ldc:]
				if g.stride == 1 && g.ow == g.w {
					col2imSameRow(g, row[:g.outPixels], plane, ki, kj, ylo, yhi, xlo, xhi)
					continue
				}
				if g.stride == 1 {
					col2imStride1Row(g, row[:g.outPixels], plane, ki, kj, ylo, yhi, xlo, xhi)
					continue
				}
				for oy := ylo; oy < yhi; oy++ {
					src := row[oy*g.ow : (oy+1)*g.ow]
					dst := plane[(oy*g.stride-g.pad+ki)*g.w:]
					ix := xlo*g.stride - g.pad + kj
					if g.stride == 1 {
						d := dst[ix : ix+xhi-xlo]
						s := src[xlo:xhi]
						for i := range d {
							d[i] += s[i]
						}
						continue
					}
					for ox := xlo; ox < xhi; ox++ {
						dst[ix] += src[ox]
						ix += g.stride
					}
				}
			}
		}
	}
}

// sameSpan returns, for a convolution with stride 1 and as many output as
// input columns (ow == w), the span [start, end) of the column-matrix row of
// kernel offset (ki, kj) that reads from the plane, and the constant offset
// from a column index p = oy*ow+ox to the pixel it reads, p + off. Within
// the span, the columns outside [xlo, xhi) of each output row wrap around to
// the neighbouring input row and must be treated as padding. ok is false when
// the row reads nothing.
func sameSpan(g *convGeom, ki, kj, ylo, yhi, xlo, xhi int) (start, end, off int, ok bool) {
	if ylo >= yhi || xlo >= xhi {
		return 0, 0, 0, false
	}
	return ylo*g.ow + xlo, (yhi-1)*g.ow + xhi, (ki-g.pad)*g.w + (kj - g.pad), true
}

// im2colSameRow fills one row of the column matrix when stride is 1 and
// ow == w: the pixels it reads are then one contiguous run of the plane, so
// the row is a single copy followed by zeroing the padding columns.
func im2colSameRow[T kernel.Float](g *convGeom, plane, row []T, ki, kj, ylo, yhi, xlo, xhi int) {
	start, end, off, ok := sameSpan(g, ki, kj, ylo, yhi, xlo, xhi)
	if !ok {
		clear(row)
		return
	}
	clear(row[:start])
	copy(row[start:end], plane[start+off:end+off])
	clear(row[end:])
	if xlo > 0 || xhi < g.ow {
		for oy := ylo; oy < yhi; oy++ {
			r := row[oy*g.ow : (oy+1)*g.ow]
			clear(r[:xlo])
			clear(r[xhi:])
		}
	}
}

// col2imSameRow is the adjoint of im2colSameRow: it zeroes the padding
// columns of the row and adds the span onto the plane in one pass.
func col2imSameRow[T kernel.Float](g *convGeom, row, plane []T, ki, kj, ylo, yhi, xlo, xhi int) {
	start, end, off, ok := sameSpan(g, ki, kj, ylo, yhi, xlo, xhi)
	if !ok {
		return
	}
	if xlo > 0 || xhi < g.ow {
		for oy := ylo; oy < yhi; oy++ {
			r := row[oy*g.ow : (oy+1)*g.ow]
			clear(r[:xlo])
			clear(r[xhi:])
		}
	}
	d := plane[start+off : end+off]
	for i, v := range row[start:end] {
		d[i] += v
	}
}

// im2colGather is im2col without padding: every entry of the column matrix
// reads a pixel, row (ci, ki, kj) at column p reading the plane offset
// ki*w + kj + offs[p]. One table-driven loop per row beats copying the output
// rows as runs when they are short (a few pixels in the late layers).
func im2colGather[T kernel.Float](g *convGeom, x []T, cols []T, ldc int) {
	hw, offs := g.h*g.w, g.offs
	r := 0
	for ci := 0; ci < g.c; ci++ {
		plane := x[ci*hw : (ci+1)*hw]
		for ki := 0; ki < g.kh; ki++ {
			for kj := 0; kj < g.kw; kj++ {
				src := plane[ki*g.w+kj:]
				row := cols[r*ldc : r*ldc+len(offs)]
				r++
				row = row[:len(offs)]
				p := 0
				for ; p+4 <= len(offs); p += 4 {
					o := offs[p : p+4 : p+4]
					d := row[p : p+4 : p+4]
					d[0], d[1], d[2], d[3] = src[o[0]], src[o[1]], src[o[2]], src[o[3]]
				}
				for ; p < len(offs); p++ {
					row[p] = src[offs[p]]
				}
			}
		}
	}
}

// im2colRuns is im2col for stride 1 and no padding when the output rows are
// narrower than the input rows: each output row of a column-matrix row is
// then a run of ow consecutive pixels of one input row, moved by copy. From
// copyRunMin pixels on, the runtime's vector copy beats both the
// table-driven gather and a scalar loop over the three rows of a kernel row,
// even with the cost of a call per run.
func im2colRuns[T kernel.Float](g *convGeom, x []T, cols []T, ldc int) {
	hw, w, ow, P := g.h*g.w, g.w, g.ow, g.outPixels
	r := 0
	for ci := 0; ci < g.c; ci++ {
		plane := x[ci*hw : (ci+1)*hw]
		for ki := 0; ki < g.kh; ki++ {
			for kj := 0; kj < g.kw; kj++ {
				row := cols[r*ldc : r*ldc+P]
				r++
				src := ki*w + kj
				for oy := 0; oy < g.oh; oy++ {
					copy(row[oy*ow:(oy+1)*ow], plane[src:src+ow])
					src += w
				}
			}
		}
	}
}

// im2colRunsAsm is im2colRuns for 32-bit values with copyRunsAVX2 moving the
// oh runs of each column-matrix row, whatever their length.
func im2colRunsAsm[T kernel.Float](g *convGeom, x []T, cols []T, ldc int) {
	hw, w, P := g.h*g.w, g.w, g.outPixels
	_ = x[g.c*hw-1]
	r := 0
	for ci := 0; ci < g.c; ci++ {
		for ki := 0; ki < g.kh; ki++ {
			for kj := 0; kj < g.kw; kj++ {
				row := cols[r*ldc : r*ldc+P]
				r++
				// The last run ends at (ci, oh-1+ki, ow-1+kj), inside x.
				src := x[ci*hw+ki*w+kj:]
				copyRunsAVX2((*float32)(unsafe.Pointer(&row[0])), (*float32)(unsafe.Pointer(&src[0])), g.oh, g.ow, w)
			}
		}
	}
}

// copyRunsGo is the definition of copyRunsAVX2: it copies runs of n values
// that start stride apart in src to consecutive places in dst, as many runs
// as runs says.
func copyRunsGo(dst, src []float32, runs, n, stride int) {
	for r := 0; r < runs; r++ {
		copy(dst[r*n:(r+1)*n], src[r*stride:r*stride+n])
	}
}

// useCopyRunsAsm reports whether im2col may call copyRunsAVX2: the CPU has
// AVX2 and package kernel is not restricted to Go.
func useCopyRunsAsm() bool { return haveCopyRunsAVX2 && kernel.Impl() != "go" }

// copyRunMin is the shortest output row that im2colRuns moves with copy when
// there is no assembly; shorter rows are gathered (on the digits extractor,
// rows of 13 and 30 pixels are faster copied and rows of 5 gathered).
const copyRunMin = 8

// col2imWide3 is col2im for stride 1, no padding and kernels three wide:
// each input row segment gathers the three rows of its (ci, ki), shifted by
// 0, 1 and 2, adding them in the order of kj as col2imScatter does, so the
// sums have the same bits.
func col2imWide3[T kernel.Float](g *convGeom, cols []T, ldc int, dx []T) {
	hw, w, ow, P := g.h*g.w, g.w, g.ow, g.outPixels
	r := 0
	for ci := 0; ci < g.c; ci++ {
		plane := dx[ci*hw : (ci+1)*hw]
		for ki := 0; ki < g.kh; ki++ {
			row0 := cols[r*ldc : r*ldc+P]
			row1 := cols[(r+1)*ldc : (r+1)*ldc+P]
			row2 := cols[(r+2)*ldc : (r+2)*ldc+P]
			r += 3
			for oy := 0; oy < g.oh; oy++ {
				d := plane[(oy+ki)*w : (oy+ki)*w+ow+2]
				c0 := row0[oy*ow : (oy+1)*ow]
				c1 := row1[oy*ow : (oy+1)*ow]
				c2 := row2[oy*ow : (oy+1)*ow]
				d[0] += c0[0]
				d[1] = d[1] + c0[1] + c1[0]
				// d[x] gathers c0[x], c1[x-1], c2[x-2] for 2 <= x < ow.
				dd, a, b, c := d[2:ow], c0[2:ow], c1[1:ow-1], c2[:ow-2]
				a, b, c = a[:len(dd)], b[:len(dd)], c[:len(dd)]
				for i := range dd {
					dd[i] = dd[i] + a[i] + b[i] + c[i]
				}
				d[ow] = d[ow] + c1[ow-1] + c2[ow-2]
				d[ow+1] += c2[ow-1]
			}
		}
	}
}

// col2imScatter is the adjoint of im2colGather: it adds every entry of the
// column matrix onto the pixel it was read from.
func col2imScatter[T kernel.Float](g *convGeom, cols []T, ldc int, dx []T) {
	hw, offs := g.h*g.w, g.offs
	r := 0
	for ci := 0; ci < g.c; ci++ {
		plane := dx[ci*hw : (ci+1)*hw]
		for ki := 0; ki < g.kh; ki++ {
			for kj := 0; kj < g.kw; kj++ {
				dst := plane[ki*g.w+kj:]
				row := cols[r*ldc : r*ldc+len(offs)]
				r++
				row = row[:len(offs)]
				for p, o := range offs {
					dst[o] += row[p]
				}
			}
		}
	}
}

// shortRun is the run length below which a plain loop moves values faster
// than a call to the runtime's copy.
const shortRun = 32

// im2colStride1Row fills one row of the column matrix when stride is 1,
// ow < w and there is padding: each output row then reads one contiguous run
// of xhi-xlo pixels of an input row, at a constant offset. Short runs are
// moved by a loop rather than copy, whose call costs more than the move.
func im2colStride1Row[T kernel.Float](g *convGeom, plane, row []T, ki, kj, ylo, yhi, xlo, xhi int) {
	ow := g.ow
	if ylo >= yhi || xlo >= xhi {
		clear(row)
		return
	}
	clear(row[:ylo*ow])
	clear(row[yhi*ow:])
	n := xhi - xlo
	src := (ylo-g.pad+ki)*g.w + xlo - g.pad + kj
	padded := xlo > 0 || xhi < ow
	for oy := ylo; oy < yhi; oy++ {
		d := row[oy*ow : (oy+1)*ow]
		if padded {
			clear(d[:xlo])
			clear(d[xhi:])
		}
		dd, ss := d[xlo:xhi], plane[src:src+n]
		src += g.w
		if n >= shortRun {
			copy(dd, ss)
			continue
		}
		for i, v := range ss {
			dd[i] = v
		}
	}
}

// col2imStride1Row is the adjoint of im2colStride1Row: it adds each run of
// the row back onto its input row.
func col2imStride1Row[T kernel.Float](g *convGeom, row, plane []T, ki, kj, ylo, yhi, xlo, xhi int) {
	if ylo >= yhi || xlo >= xhi {
		return
	}
	ow := g.ow
	n := xhi - xlo
	dst := (ylo-g.pad+ki)*g.w + xlo - g.pad + kj
	for oy := ylo; oy < yhi; oy++ {
		d := plane[dst : dst+n]
		dst += g.w
		s := row[oy*ow+xlo : oy*ow+xhi]
		s = s[:len(d)]
		for i := range d {
			d[i] += s[i]
		}
	}
}

// parallelRange splits [0, n) into at most kernel.Threads() contiguous parts
// of at least minPart items each and runs fn on them concurrently, returning
// when all are done. With one part it runs fn on the calling goroutine.
func parallelRange(n, minPart int, fn func(lo, hi int)) {
	parts := min(kernel.Threads(), n/max(minPart, 1))
	if parts <= 1 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	kernel.Parallel(parts, func(p int) { fn(p*n/parts, (p+1)*n/parts) })
}
