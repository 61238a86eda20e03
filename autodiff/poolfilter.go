package autodiff

import (
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// pooledFilterWidth is the row length of pooledFilter's pixel rows and
// filter sums: the colRows of a convolution it takes, and the zero after
// them, fit in it.
const pooledFilterWidth = 32

// pooledFilterBlock is the number of pooled positions poolFilterGrad
// takes for every filter before the next positions: the pixel rows they
// choose (about eight output rows of the convolution for the digits' first
// layer, 30 KiB) stay in L1 while all the filters read them.
const pooledFilterBlock = 60

// pooledFilter computes the filter gradient of a convolution whose output
// a convPool pooled from the pooled gradient itself, without building the
// convolution's output gradient: only one value in each pooling window is
// not zero, so the product dY * cols(x)^T has a quarter of its terms (for
// 2 x 2 windows) left. For each filter j and pooled value q of an image,
// with v the pooled gradient's value (masked as ReLU's backward pass masks
// it when the convPool applies ReLU) and p the position it goes to,
//
//	acc[j][k] = fma(v, row_p[k], acc[j][k])
//
// in the order of q, where row_p is the column of cols(x) of pixel p:
// pixel rows of pooledFilterWidth values, built once an image. The sums
// are those of the plain product in another order, so the filter gradient
// does not have the bits of Conv2d's; the bias gradient's sums of each
// plane are taken over the masked values, also in another order.
//
// It needs the kernels in assembly (AVX2 and FMA, package kernel not
// restricted to Go), the default numerics, a convolution algorithm other
// than ConvDirect (which takes every convolution's products whole) and a
// convolution of rows of three pixels moved by one, without padding, of at
// most pooledFilterWidth-1 values a column (pooledFilterFor). It adds its
// multiply-adds, 2*colRows a pooled value and filter, to kernel's count.
type pooledFilter struct {
	pg   *poolGrad[float32]
	g    *convGeom
	f    int     // filters
	nq   int     // pooled values a plane
	segs []int32 // offsets in the image of a column's segments of three
}

// pooledFilterFor returns the pooledFilter of a convolution of geometry g
// with f filters whose output src pooled, or nil when it does not apply.
func pooledFilterFor[T kernel.Float](g *convGeom, f int, src *poolGrad[T]) *pooledFilter {
	if src == nil || unsafe.Sizeof(T(0)) != 4 || !usePoolFilterAsm() || numerics.IsReference() ||
		CurrentConvAlgorithm() == ConvDirect ||
		g.kw != 3 || g.stride != 1 || g.pad != 0 || g.offs == nil || g.colRows >= pooledFilterWidth {
		return nil
	}
	segs := make([]int32, 0, g.c*g.kh)
	for ci := 0; ci < g.c; ci++ {
		for ki := 0; ki < g.kh; ki++ {
			segs = append(segs, int32(ci*g.h*g.w+ki*g.w))
		}
	}
	return &pooledFilter{pg: src.as32(), g: g, f: f, nq: src.oh * src.ow, segs: segs}
}

// pooledBuffers are a thread's buffers: an image's pixel rows, zeroed when
// made (the columns past colRows stay zero), and its masked values and
// positions.
type pooledBuffers struct {
	rows, vals []float32
	pos        []int32
	posBuf     []float32 // pos's memory, from the pool
}

// buffers returns a thread's buffers, from the pool; release gives them
// back.
func (pf *pooledFilter) buffers() pooledBuffers {
	m := pf.f * pf.nq
	b := pooledBuffers{rows: allocZeroed[float32](pf.g.outPixels * pooledFilterWidth), posBuf: alloc[float32](m)}
	b.pos = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(b.posBuf))), m)
	if pf.pg.relu {
		b.vals = alloc[float32](m)
	}
	return b
}

// release gives the buffers back to the pool.
func (b pooledBuffers) release() {
	release(b.rows)
	release(b.posBuf)
	if b.vals != nil {
		release(b.vals)
	}
}

// values returns the masked pooled gradient of image i, f planes of nq
// values: the pooled gradient itself, or, with ReLU, its values where the
// output is positive and zeros elsewhere, written into b.vals.
func (pf *pooledFilter) values(i int, b pooledBuffers) []float32 {
	m := pf.f * pf.nq
	gs := pf.pg.g[i*m : (i+1)*m]
	if !pf.pg.relu {
		return gs
	}
	xs := pf.pg.out[i*m : (i+1)*m]
	v := m &^ 7
	if v > 0 {
		maskPositiveAVX2(&b.vals[0], &gs[0], &xs[0], v)
	}
	reluGrad(b.vals[v:m], gs[v:], xs[v:])
	return b.vals[:m]
}

// add adds the terms of image i, x (c x h x w), into acc (f rows of
// pooledFilterWidth sums): it builds the image's pixel rows into b.rows,
// copies its chosen positions into b.pos in one pass (read in place,
// filter by filter, they miss the caches), and runs poolFilterGrad
// over its masked values vals, a block of pooledFilterBlock positions of
// every filter at a time.
func (pf *pooledFilter) add(i int, x, vals []float32, b pooledBuffers, acc []float32) {
	P := pf.g.outPixels
	rows := b.rows[:P*pooledFilterWidth]
	x = x[:pf.g.c*pf.g.h*pf.g.w]
	filterRowsAVX2(&rows[0], &x[0], &pf.g.offs[0], &pf.segs[0], P, len(pf.segs))
	m := pf.f * pf.nq
	pos := b.pos[:m]
	copy(pos, pf.pg.idx[i*m:(i+1)*m])
	vals, acc = vals[:m], acc[:pf.f*pooledFilterWidth]
	for q := 0; q < pf.nq; q += pooledFilterBlock {
		poolFilterGrad(acc, rows, vals[q:], pos[q:], pf.f, min(pooledFilterBlock, pf.nq-q), pf.nq)
	}
	kernel.AddFlops(2 * m * pf.g.colRows)
}

// filterGradFromRows sets dw (f x k) to the sums of the partial sums accs
// (f rows of pooledFilterWidth each), added in order.
func filterGradFromRows[T kernel.Float](dw []T, accs [][]T, f, k int) {
	for j := 0; j < f; j++ {
		d := dw[j*k : (j+1)*k]
		copy(d, accs[0][j*pooledFilterWidth:])
		for _, a := range accs[1:] {
			a = a[j*pooledFilterWidth:]
			for c := range d {
				d[c] += a[c]
			}
		}
	}
}
