package autodiff

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// The Winograd path of Conv2d: float32 convolutions with 3x3 filters and
// stride 1 computed with F(4x4, 3x3) (see package kernel), which needs 36
// multiplications for a 4x4 block of outputs where the direct convolution
// needs 144.
//
// Images go through in chunks of 8-image blocks. For each block and input
// channel, the 8 images' planes are interleaved into a zero-padded buffer
// (8 lanes per pixel) and cut into 6x6 tiles 4 pixels apart; each tile's
// input transform goes to column (block*tiles + tile)*8 + lane of 36
// matrices V[ξ] (channels x columns), one per position ξ of the transformed
// tile. With the transformed filters U[ξ] (filters x channels) the
// convolution is then 36 independent products M[ξ] = U[ξ] V[ξ], and the
// output transform of each column of the M[ξ] gives a 4x4 block of outputs.
// The backward pass runs the same way in reverse: dM[ξ] from the output
// gradient by the adjoint output transform, dU[ξ] += dM[ξ] V[ξ]ᵀ summed over
// the chunks for the filter gradient, dV[ξ] = U[ξ]ᵀ dM[ξ] and the adjoint
// input transform for the input gradient.
//
// The work of a chunk is split over threads by blocks and channels for the
// transforms and by ξ for the products, never within a sum: the results
// have the same bits for every thread count. The error against the exact
// convolution is bounded as docs/performance.md derives and package audit
// checks.

// ConvAlgorithm selects how Conv2d computes the convolutions the Winograd
// path can take.
type ConvAlgorithm int32

const (
	// ConvWinograd, the default, computes float32 convolutions with 3x3
	// filters, stride 1, at least winoMinChannels input channels and
	// filters and at most winoMaxTiles 4x4 output tiles per image with
	// Winograd F(4x4, 3x3); the others run direct.
	ConvWinograd ConvAlgorithm = iota
	// ConvDirect computes every convolution with im2col and Gemm.
	ConvDirect
)

// String returns "winograd" or "direct".
func (a ConvAlgorithm) String() string {
	switch a {
	case ConvWinograd:
		return "winograd"
	case ConvDirect:
		return "direct"
	}
	return fmt.Sprintf("ConvAlgorithm(%d)", int32(a))
}

var convAlgorithm atomic.Int32

// SetConvAlgorithm selects the algorithm of Conv2d and returns the previous
// one. It panics on a value that is not one of the constants. It must not be
// called while a convolution runs.
func SetConvAlgorithm(a ConvAlgorithm) (previous ConvAlgorithm) {
	if a != ConvWinograd && a != ConvDirect {
		panic(fmt.Sprintf("autodiff: SetConvAlgorithm(%v): unknown algorithm", a))
	}
	return ConvAlgorithm(convAlgorithm.Swap(int32(a)))
}

// CurrentConvAlgorithm returns the algorithm set by SetConvAlgorithm.
func CurrentConvAlgorithm() ConvAlgorithm { return ConvAlgorithm(convAlgorithm.Load()) }

// Limits of the Winograd path. Below winoMinChannels input channels or
// filters the products are too thin for the transforms to pay; above
// winoMaxTiles tiles per image (images larger than 64x64) one block of 8
// images would not fit the caches.
const (
	winoMinChannels = 16
	winoMaxTiles    = 256
)

// winoCols is the number of matrix columns (tiles times lanes) a chunk aims
// at: with 64 to 256 channels the 36 matrices V and M of a chunk take a few
// MiB, within the last-level cache, and every product is wide enough for the
// micro-kernel. It is a variable so that tests can force several chunks.
var winoCols = 128

// winoGeom is the layout of the Winograd path for one convolution.
type winoGeom struct {
	*convGeom
	th, tw   int     // tiles per column and per row
	tiles    int     // th*tw tiles per image
	wp       int     // width of the padded input buffer, 4*tw+2 (height 4*th+2)
	inLen    int     // values of the padded input buffer
	opw      int     // width of the output buffer, 4*tw (height 4*th)
	outLen   int     // values of the output buffer
	inOffs   []int32 // input pixel (y, x) -> its lanes in the padded input buffer
	outOffs  []int32 // output pixel (oy, ox) -> its lanes in the output buffer
	blocks   int     // 8-image blocks per chunk
	cols     int     // columns of a full chunk, blocks*tiles*8
	inPlane  int     // h*w
	outPlane int     // oh*ow
}

// winoApplies reports whether Conv2d of n images with f filters of element
// type T takes the Winograd path.
func winoApplies[T kernel.Float](g *convGeom, n, f int) bool {
	if unsafe.Sizeof(T(0)) != 4 || CurrentConvAlgorithm() != ConvWinograd || n == 0 {
		return false
	}
	return g.kh == 3 && g.kw == 3 && g.stride == 1 && g.c >= winoMinChannels && f >= winoMinChannels &&
		((g.oh+3)/4)*((g.ow+3)/4) <= winoMaxTiles
}

func newWinoGeom(g *convGeom) *winoGeom {
	L := kernel.Lanes
	wg := &winoGeom{convGeom: g, th: (g.oh + 3) / 4, tw: (g.ow + 3) / 4}
	wg.tiles = wg.th * wg.tw
	wg.wp = 4*wg.tw + 2
	wg.inLen = (4*wg.th + 2) * wg.wp * L
	wg.opw = 4 * wg.tw
	wg.outLen = 4 * wg.th * wg.opw * L
	wg.inPlane, wg.outPlane = g.h*g.w, g.oh*g.ow
	wg.inOffs = make([]int32, 0, wg.inPlane)
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			wg.inOffs = append(wg.inOffs, int32(((y+g.pad)*wg.wp+x+g.pad)*L))
		}
	}
	wg.outOffs = make([]int32, 0, wg.outPlane)
	for y := 0; y < g.oh; y++ {
		for x := 0; x < g.ow; x++ {
			wg.outOffs = append(wg.outOffs, int32((y*wg.opw+x)*L))
		}
	}
	// The fewest blocks that give winoCols columns, rounded up to make the
	// columns a multiple of the micro-kernel's width when that at most
	// doubles them (AVX-512's 48 columns take 3 blocks of the digits
	// layers).
	perBlock := wg.tiles * L
	wg.blocks = max(1, (winoCols+perBlock-1)/perBlock)
	_, nr := kernel.MicroTile()
	for b := wg.blocks; b <= 2*wg.blocks; b++ {
		if b*perBlock%nr == 0 {
			wg.blocks = b
			break
		}
	}
	wg.cols = wg.blocks * perBlock
	return wg
}

// winoChunk is one chunk of images: images [n0, n0+imgs) in blocks blocks,
// cols columns.
type winoChunk struct{ n0, imgs, blocks, cols int }

// chunks returns the chunks of n images.
func (wg *winoGeom) chunks(n int) []winoChunk {
	L := kernel.Lanes
	var out []winoChunk
	for n0 := 0; n0 < n; n0 += wg.blocks * L {
		imgs := min(wg.blocks*L, n-n0)
		blocks := (imgs + L - 1) / L
		out = append(out, winoChunk{n0, imgs, blocks, blocks * wg.tiles * L})
	}
	return out
}

// lanes returns the number of images of block blk of the chunk.
func (ch winoChunk) lanes(blk int) int { return min(kernel.Lanes, ch.imgs-blk*kernel.Lanes) }

// xiStride is the distance between the 36 matrices of rows x cols values
// of a chunk: one cache line more than their size, so that the 36 values a
// transform reads or writes for one tile do not all fall into the same
// cache set, as they would with the power-of-two sizes of the usual layers.
func xiStride(rows, cols int) int { return rows*cols + 16 }

// as32 views a slice of a 4-byte float type as []float32 (nil stays nil).
func as32[T kernel.Float](x []T) []float32 {
	if x == nil {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// Test hooks: the transforms the Winograd path calls and the G matrix of
// its filter transform. Tests swap them for wrong ones to see that the
// error bound catches them.
var (
	winoIn     = kernel.WinogradIn
	winoInAdj  = kernel.WinogradInAdj
	winoOut    = kernel.WinogradOut
	winoOutAdj = kernel.WinogradOutAdj
	winoG      = func() [6][3]float64 { _, g, _ := kernel.WinogradMatrices(); return g }()
)

// winoFilter sets u, 36 matrices of f x c, to the filter transform G w Gᵀ
// of the f x c filters of w (f x c x 3 x 3): position ξ = 6a+b of filter
// (i, j) at u[ξ*f*c + i*c + j]. When ut is not nil it also receives the 36
// transposes, c x f. The transform is computed in float64 and rounded once.
func winoFilter(u, ut, w []float32, f, c int) {
	G := winoG
	fc := f * c
	parallelRange(fc, 64, func(lo, hi int) {
		var t [6][3]float64
		for i := lo; i < hi; i++ {
			g := w[9*i : 9*i+9]
			for a := range 6 {
				for j := range 3 {
					t[a][j] = G[a][0]*float64(g[j]) + G[a][1]*float64(g[3+j]) + G[a][2]*float64(g[6+j])
				}
			}
			it := (i%c)*f + i/c
			for a := range 6 {
				for b := range 6 {
					v := float32(t[a][0]*G[b][0] + t[a][1]*G[b][1] + t[a][2]*G[b][2])
					u[(6*a+b)*fc+i] = v
					if ut != nil {
						ut[(6*a+b)*fc+it] = v
					}
				}
			}
		}
	})
}

// winoPacked is a set of 36 packed transformed filters, one per position ξ.
type winoPacked [36]kernel.PackedA[float32]

// winoPacks keeps packed filter sets for reuse, so that their storage is
// not allocated afresh at every pass.
var winoPacks struct {
	sync.Mutex
	free []*winoPacked
}

// packFilters returns the 36 matrices of m (each r x k, row-major) packed
// for GemmPacked.
func packFilters(m []float32, r, k int) *winoPacked {
	winoPacks.Lock()
	var p *winoPacked
	if n := len(winoPacks.free); n > 0 {
		p = winoPacks.free[n-1]
		winoPacks.free = winoPacks.free[:n-1]
	}
	winoPacks.Unlock()
	if p == nil {
		p = new(winoPacked)
	}
	parallelRange(36, 1, func(lo, hi int) {
		for xi := lo; xi < hi; xi++ {
			kernel.PackA(&p[xi], false, r, k, 1, m[xi*r*k:], k)
		}
	})
	return p
}

// releasePacks returns p to the free list.
func releasePacks(p *winoPacked) {
	winoPacks.Lock()
	winoPacks.free = append(winoPacks.free, p)
	winoPacks.Unlock()
}

// winoFilterAdj sets dw (f x c x 3 x 3) to the adjoint of the filter
// transform, Gᵀ du G, of the 36 matrices du laid out as winoFilter's u,
// computed in float64 and rounded once.
func winoFilterAdj(dw, du []float32, fc int) {
	G := winoG
	parallelRange(fc, 64, func(lo, hi int) {
		var t [3][6]float64
		for i := lo; i < hi; i++ {
			for p := range 3 {
				for b := range 6 {
					var s float64
					for a := range 6 {
						s += G[a][p] * float64(du[(6*a+b)*fc+i])
					}
					t[p][b] = s
				}
			}
			for p := range 3 {
				for q := range 3 {
					var s float64
					for b := range 6 {
						s += t[p][b] * G[b][q]
					}
					dw[9*i+3*p+q] = float32(s)
				}
			}
		}
	})
}

// transformIn interleaves channel c of block blk of the chunk into buf
// (whose padding is zero) and writes its tiles' input transforms to columns
// of v (36 matrices of c x ch.cols).
func (wg *winoGeom) transformIn(v, x, buf []float32, ch winoChunk, blk, c int) {
	L, chw := kernel.Lanes, wg.c*wg.inPlane
	img := ch.n0 + blk*L
	kernel.Interleave8(buf, wg.inOffs, x[img*chw+c*wg.inPlane:], chw, ch.lanes(blk))
	col := c*ch.cols + blk*wg.tiles*L
	for ty := 0; ty < wg.th; ty++ {
		winoIn(v[col+ty*wg.tw*L:], xiStride(wg.c, ch.cols), buf[4*ty*wg.wp*L:], wg.wp*L, wg.tw)
	}
}

// scratch returns a zeroed pooled buffer of n values for one part of a
// parallel loop.
func scratch(n int) []float32 { return allocZeroed[float32](n) }

// winoForward is convForward on the Winograd path: y (n x f x oh x ow) is
// the convolution of x (n x c x h x w) with w (f x c x 3 x 3) plus b (f
// values, or nil).
func winoForward(g *convGeom, n, f int, x, w, b, y []float32) {
	wg := newWinoGeom(g)
	C, L := g.c, kernel.Lanes
	u := alloc[float32](36 * f * C)
	winoFilter(u, nil, w, f, C)
	pu := packFilters(u, f, C)
	release(u)
	v := alloc[float32](36 * xiStride(C, wg.cols))
	m := alloc[float32](36 * xiStride(f, wg.cols))
	ofc := f * wg.outPlane
	for _, ch := range wg.chunks(n) {
		T := ch.cols
		vs, ms := xiStride(C, T), xiStride(f, T)
		parallelRange(ch.blocks*C, 1, func(lo, hi int) {
			buf := scratch(wg.inLen)
			for it := lo; it < hi; it++ {
				wg.transformIn(v, x, buf, ch, it/C, it%C)
			}
			release(buf)
		})
		parallelRange(36, 1, func(lo, hi int) {
			for xi := lo; xi < hi; xi++ {
				kernel.GemmPacked(&pu[xi], false, T, v[xi*vs:], T, 0, m[xi*ms:], T)
			}
		})
		parallelRange(ch.blocks*f, 1, func(lo, hi int) {
			buf := alloc[float32](wg.outLen)
			for it := lo; it < hi; it++ {
				blk, fi := it/f, it%f
				var bias float32
				if b != nil {
					bias = b[fi]
				}
				col := fi*T + blk*wg.tiles*L
				for ty := 0; ty < wg.th; ty++ {
					winoOut(buf[4*ty*wg.opw*L:], wg.opw*L, m[col+ty*wg.tw*L:], ms, wg.tw, bias)
				}
				img := ch.n0 + blk*L
				kernel.Deinterleave8(y[img*ofc+fi*wg.outPlane:], ofc, buf, wg.outOffs, ch.lanes(blk))
			}
			release(buf)
		})
	}
	releasePacks(pu)
	release(v)
	release(m)
}

// winoBackward is convBackward on the Winograd path: for the gradient dy
// (n x f x oh x ow) of the output it sets dx (n x c x h x w, needs w) and
// dw (f x c x 3 x 3, needs x), each skipped when nil.
func winoBackward(g *convGeom, n, f int, x, w, dy, dx, dw []float32) {
	wg := newWinoGeom(g)
	C, L := g.c, kernel.Lanes
	var du []float32
	var put *winoPacked // the transposed transformed filters, packed
	if dx != nil {
		u, ut := alloc[float32](36*f*C), alloc[float32](36*f*C)
		winoFilter(u, ut, w, f, C)
		put = packFilters(ut, C, f)
		release(u)
		release(ut)
	}
	if dw != nil {
		du = alloc[float32](36 * f * C)
	}
	// v holds V, then dV in the positions whose dU is done.
	v := alloc[float32](36 * xiStride(C, wg.cols))
	dm := alloc[float32](36 * xiStride(f, wg.cols))
	ofc, chw := f*wg.outPlane, C*wg.inPlane
	for k, ch := range wg.chunks(n) {
		T := ch.cols
		vs, ms := xiStride(C, T), xiStride(f, T)
		items := ch.blocks * f
		if dw != nil {
			items += ch.blocks * C
		}
		parallelRange(items, 1, func(lo, hi int) {
			var in, out []float32
			for it := lo; it < hi; it++ {
				if it >= ch.blocks*f {
					if in == nil {
						in = scratch(wg.inLen)
					}
					j := it - ch.blocks*f
					wg.transformIn(v, x, in, ch, j/C, j%C)
					continue
				}
				if out == nil {
					out = scratch(wg.outLen)
				}
				blk, fi := it/f, it%f
				img := ch.n0 + blk*L
				kernel.Interleave8(out, wg.outOffs, dy[img*ofc+fi*wg.outPlane:], ofc, ch.lanes(blk))
				col := fi*T + blk*wg.tiles*L
				for ty := 0; ty < wg.th; ty++ {
					winoOutAdj(dm[col+ty*wg.tw*L:], ms, out[4*ty*wg.opw*L:], wg.opw*L, wg.tw)
				}
			}
			if in != nil {
				release(in)
			}
			if out != nil {
				release(out)
			}
		})
		var beta float32
		if k > 0 {
			beta = 1
		}
		parallelRange(36, 1, func(lo, hi int) {
			for xi := lo; xi < hi; xi++ {
				if dw != nil {
					kernel.GemmSerial(false, true, f, C, T, 1, dm[xi*ms:], T, v[xi*vs:], T, beta, du[xi*f*C:], C)
				}
				if dx != nil {
					kernel.GemmPacked(&put[xi], false, T, dm[xi*ms:], T, 0, v[xi*vs:], T)
				}
			}
		})
		if dx == nil {
			continue
		}
		parallelRange(ch.blocks*C, 1, func(lo, hi int) {
			buf := alloc[float32](wg.inLen)
			for it := lo; it < hi; it++ {
				blk, c := it/C, it%C
				clear(buf)
				col := c*T + blk*wg.tiles*L
				for ty := 0; ty < wg.th; ty++ {
					winoInAdj(buf[4*ty*wg.wp*L:], wg.wp*L, v[col+ty*wg.tw*L:], vs, wg.tw)
				}
				img := ch.n0 + blk*L
				kernel.Deinterleave8(dx[img*chw+c*wg.inPlane:], chw, buf, wg.inOffs, ch.lanes(blk))
			}
			release(buf)
		})
	}
	if dw != nil {
		winoFilterAdj(dw, du, f*C)
		release(du)
	}
	if put != nil {
		releasePacks(put)
	}
	release(v)
	release(dm)
}
