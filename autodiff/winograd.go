package autodiff

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// The Winograd path of Conv2d: float32 convolutions with 3x3 filters and
// stride 1 computed with F(4x4, 3x3) or F(5x5, 3x3) (see package kernel),
// which need 36 multiplications for a 4x4 block of outputs (direct: 144) or
// 49 for a 5x5 block (direct: 225).
//
// Images go through in chunks of 8-image blocks. For each block and input
// channel, the 8 images' planes are interleaved into a zero-padded buffer
// (8 lanes per pixel) and cut into a x a tiles m pixels apart (a = m+2);
// each tile's input transform goes to column (block*tiles + tile)*8 + lane
// of a*a matrices V[ξ] (channels x columns), one per position ξ of the
// transformed tile. With the transformed filters U[ξ] (filters x channels)
// the convolution is then a*a independent products M[ξ] = U[ξ] V[ξ], and
// the output transform of each column of the M[ξ] gives an m x m block of
// outputs. The backward pass runs the same way in reverse: dM[ξ] from the
// output gradient by the adjoint output transform, dU[ξ] += dM[ξ] V[ξ]ᵀ
// summed over the chunks for the filter gradient, dV[ξ] = U[ξ]ᵀ dM[ξ] and
// the adjoint input transform for the input gradient.
//
// With many chunks a thread the threads take whole chunks, so that they
// meet only at the end of a pass; with few (the small batches of training,
// winoShared) they take the chunks one after the other together, sharing
// out each phase of a chunk, except that a backward pass with as many
// threads as partial sums of the filter gradient takes its first chunks
// whole, one a thread a round (wholeRounds). Either way the filter gradient
// is summed in a fixed number of partial sums (winoAccumulators), never in
// an order that depends on the threads, so the results have the same bits
// for every thread count. The error against the exact convolution is
// bounded as package audit states and checks.

// ConvAlgorithm selects how Conv2d computes the convolutions the Winograd
// path can take: float32, 3x3 filters, stride 1, at least winoMinChannels
// input channels and filters, images of at most 64x64 outputs. The others
// always run direct, and so does every convolution in the reference
// numerics mode (package numerics), whatever the algorithm set.
type ConvAlgorithm int32

const (
	// ConvWinograd, the default, takes for each convolution the Winograd
	// tile that needs fewer multiplications for its output size, F(4x4,
	// 3x3) on a tie: F(5x5, 3x3) for the 13x13 and 5x5 outputs of the
	// digits extractor.
	ConvWinograd ConvAlgorithm = iota
	// ConvDirect computes every convolution with im2col and Gemm.
	ConvDirect
	// ConvWinograd4 always takes F(4x4, 3x3).
	ConvWinograd4
	// ConvWinograd5 always takes F(5x5, 3x3).
	ConvWinograd5
)

var convAlgorithmNames = [...]string{
	ConvWinograd: "winograd", ConvDirect: "direct", ConvWinograd4: "winograd4x4", ConvWinograd5: "winograd5x5",
}

// String returns "winograd", "direct", "winograd4x4" or "winograd5x5".
func (a ConvAlgorithm) String() string {
	if a >= 0 && int(a) < len(convAlgorithmNames) {
		return convAlgorithmNames[a]
	}
	return fmt.Sprintf("ConvAlgorithm(%d)", int32(a))
}

// ParseConvAlgorithm returns the algorithm whose String is name.
func ParseConvAlgorithm(name string) (ConvAlgorithm, error) {
	for a, n := range convAlgorithmNames {
		if n == name {
			return ConvAlgorithm(a), nil
		}
	}
	return 0, fmt.Errorf("autodiff: unknown convolution algorithm %q (want one of %v)", name, convAlgorithmNames)
}

var convAlgorithm atomic.Int32

// SetConvAlgorithm selects the algorithm of Conv2d and returns the previous
// one. It panics on a value that is not one of the constants. It must not be
// called while a convolution runs.
func SetConvAlgorithm(a ConvAlgorithm) (previous ConvAlgorithm) {
	if a < 0 || int(a) >= len(convAlgorithmNames) {
		panic(fmt.Sprintf("autodiff: SetConvAlgorithm(%v): unknown algorithm", a))
	}
	return ConvAlgorithm(convAlgorithm.Swap(int32(a)))
}

// CurrentConvAlgorithm returns the algorithm set by SetConvAlgorithm.
func CurrentConvAlgorithm() ConvAlgorithm { return ConvAlgorithm(convAlgorithm.Load()) }

// Limits of the Winograd path. Below winoMinChannels input channels or
// filters the products are too thin for the transforms to pay; above
// winoMaxOutput outputs per image side one block of 8 images would not fit
// the caches.
const (
	winoMinChannels = 16
	winoMaxOutput   = 64
)

// winoCols is the number of matrix columns (tiles times lanes) a chunk aims
// at: with 64 to 256 channels the a*a matrices V and M of a chunk take a
// few MiB, within the last-level cache, and every product is wide enough
// for the micro-kernel. It is a variable so that tests can force several
// chunks.
var winoCols = 128

// winoTile returns the Winograd tile Conv2d takes for g under the current
// algorithm, or 0 for the direct path; n images of element type T, f
// filters.
func winoTile[T kernel.Float](g *convGeom, n, f int) kernel.WinogradTile {
	alg := CurrentConvAlgorithm()
	if unsafe.Sizeof(T(0)) != 4 || alg == ConvDirect || n == 0 || numerics.IsReference() {
		return 0
	}
	if g.kh != 3 || g.kw != 3 || g.stride != 1 || g.c < winoMinChannels || f < winoMinChannels ||
		g.oh > winoMaxOutput || g.ow > winoMaxOutput {
		return 0
	}
	switch alg {
	case ConvWinograd4:
		return kernel.F4x4
	case ConvWinograd5:
		return kernel.F5x5
	}
	cost := func(t kernel.WinogradTile) int {
		m, a := t.Outputs(), t.Size()
		return ((g.oh + m - 1) / m) * ((g.ow + m - 1) / m) * a * a
	}
	if cost(kernel.F5x5) < cost(kernel.F4x4) {
		return kernel.F5x5
	}
	return kernel.F4x4
}

// winoGeom is the layout of the Winograd path for one convolution.
type winoGeom struct {
	*convGeom
	tile     kernel.WinogradTile
	m, a     int            // output and input tile sides
	pos      int            // a*a positions of a transformed tile
	th, tw   int            // tiles per column and per row
	tiles    int            // th*tw tiles per image
	wp       int            // width of the padded input buffer, m*tw+2 (height m*th+2)
	inLen    int            // values of the padded input buffer
	opw      int            // width of the output buffer, m*tw (height m*th)
	outLen   int            // values of the output buffer
	inOffs   kernel.Offsets // input pixel (y, x) -> its lanes in the padded input buffer
	outOffs  kernel.Offsets // output pixel (oy, ox) -> its lanes in the output buffer
	blocks   int            // 8-image blocks per chunk
	cols     int            // columns of a full chunk, blocks*tiles*8
	inPlane  int            // h*w
	outPlane int            // oh*ow
	pool     *poolWindows   // the windows of a pooled output in the output buffer, or nil (windows)
}

func newWinoGeom(g *convGeom, tile kernel.WinogradTile) *winoGeom {
	L := kernel.Lanes
	m, a := tile.Outputs(), tile.Size()
	wg := &winoGeom{convGeom: g, tile: tile, m: m, a: a, pos: a * a, th: (g.oh + m - 1) / m, tw: (g.ow + m - 1) / m}
	wg.tiles = wg.th * wg.tw
	wg.wp = m*wg.tw + 2
	wg.inLen = (m*wg.th + 2) * wg.wp * L
	wg.opw = m * wg.tw
	wg.outLen = m * wg.th * wg.opw * L
	wg.inPlane, wg.outPlane = g.h*g.w, g.oh*g.ow
	k := offsetsKey{g.h, g.w, g.pad, g.oh, g.ow, wg.opw}
	offs, ok := winoOffsetTables.find(k)
	if !ok {
		offs = winoOffsetTables.keep(k, wg.offsets())
	}
	wg.inOffs, wg.outOffs = offs.in, offs.out
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

// winoOffsets are the lane offsets of a layout: in, input pixel (y, x) ->
// its lanes in the padded input buffer; out, output pixel (oy, ox) -> its
// lanes in the output buffer.
type winoOffsets struct{ in, out kernel.Offsets }

// offsetsKey is what winoOffsets depend on: the input's size and padding,
// the output's size, and the output buffer's width (the padded input
// buffer's is 2 more).
type offsetsKey struct{ h, w, pad, oh, ow, opw int }

// winoOffsetTables keeps the offsets of the layouts met, which every pass
// of a layer would otherwise compute again.
var winoOffsetTables tableCache[offsetsKey, *winoOffsets]

// offsets computes the lane offsets of wg's layout.
func (wg *winoGeom) offsets() *winoOffsets {
	L := kernel.Lanes
	in := make([]int32, 0, wg.inPlane)
	for y := 0; y < wg.h; y++ {
		for x := 0; x < wg.w; x++ {
			in = append(in, int32(((y+wg.pad)*wg.wp+x+wg.pad)*L))
		}
	}
	out := make([]int32, 0, wg.outPlane)
	for y := 0; y < wg.oh; y++ {
		for x := 0; x < wg.ow; x++ {
			out = append(out, int32((y*wg.opw+x)*L))
		}
	}
	return &winoOffsets{kernel.NewOffsets(in), kernel.NewOffsets(out)}
}

// tableCache keeps tables computed from a layout, which must not change
// once made, so that the passes of a layer share one. It keeps the first
// maxCachedTables layouts it meets; the others' tables are computed at
// every call. It is safe for concurrent use.
type tableCache[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

// maxCachedTables bounds a tableCache: a model has a few layers, and one
// that meets ever new image sizes does not keep a table of each.
const maxCachedTables = 64

// find returns the table kept for key k, if any.
func (c *tableCache[K, V]) find(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

// keep keeps v, the table of key k, unless maxCachedTables are kept
// already, and returns it.
func (c *tableCache[K, V]) keep(k K, v V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[K]V{}
	}
	if len(c.m) < maxCachedTables {
		c.m[k] = v
	}
	return v
}

// forwardChunks sets the chunks of a forward pass: one block each when a
// block has at least half the columns winoCols aims at (several tiles an
// image: the digits' 13x13 layer, 72 columns a block), winoCols' otherwise
// (one tile an image: 8 columns a block, far too narrow a product). The
// matrix V of a position ξ, which every panel of filters of its product
// reads, then takes c x 72 values (18 KiB for 64 channels), which stay in
// the first-level cache where two blocks' (36 KiB) do not. The forward
// pass's results do not depend on its chunks: each column of a product is
// a sum over the channels alone, whatever the other columns. The backward
// pass keeps the chunks of winoCols, which give the order of the filter
// gradient's sums.
func (wg *winoGeom) forwardChunks() {
	if perBlock := wg.tiles * kernel.Lanes; 2*perBlock >= winoCols && winoForwardBlocks {
		wg.blocks, wg.cols = 1, perBlock
	}
}

// winoForwardBlocks enables forwardChunks' chunks of one block; tests
// clear it to run the forward pass on the chunks of winoCols.
var winoForwardBlocks = true

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

// fromAs32 views x as []T for a 4-byte float type T, the inverse of as32.
func fromAs32[T kernel.Float](x []float32) []T {
	if unsafe.Sizeof(T(0)) != 4 {
		panic("autodiff: fromAs32 of an 8-byte type")
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// Test hooks: the transforms the Winograd path calls and the G matrices of
// its filter transforms. Tests swap them for wrong ones to see that the
// error bound catches them.
var (
	winoIn     = kernel.WinogradIn
	winoInAdj  = kernel.WinogradInAdj
	winoOut    = kernel.WinogradOut
	winoOutAdj = kernel.WinogradOutAdj
	winoG      = map[kernel.WinogradTile][][]float64{kernel.F4x4: matrixG(kernel.F4x4), kernel.F5x5: matrixG(kernel.F5x5)}
)

func matrixG(t kernel.WinogradTile) [][]float64 {
	_, g, _ := t.Matrices()
	return g
}

// winoFilterBlock is the number of filters the filter transforms take at
// once: the values of a block, and the a*a runs of its transformed
// filters, stay in the first-level caches.
const winoFilterBlock = 256

// winoGm returns G of the tile's filter transform (winoG), its rows one
// after the other, as kernel.FilterTransform takes it.
func winoGm(t kernel.WinogradTile) []float64 {
	var gm []float64
	for _, row := range winoG[t] {
		gm = append(gm, row...)
	}
	return gm
}

// winoUStride is the distance between the a*a matrices of f x c
// transformed filters (fc values each) of winoFilter's u and the filter
// gradient's partial sums: one cache line more than their size, so that the
// a*a values of one filter do not all fall into the same cache set.
func winoUStride(fc int) int { return fc + 16 }

// winoFilter sets u, a*a matrices of f x c winoUStride(f*c) apart, to the
// filter transform G w Gᵀ of the f x c filters of w (f x c x 3 x 3):
// position ξ = a*p+q of filter (i, j) at u[ξ*winoUStride(f*c) + i*c + j].
// The transform is computed in float64 and rounded once
// (kernel.FilterTransform).
func winoFilter(t kernel.WinogradTile, u, w []float32, f, c int) {
	gm, a := winoGm(t), t.Size()
	fc := f * c
	us := winoUStride(fc)
	kernel.AddFlops(fc * 5 * (3*a + a*a)) // Comb3 and Comb3To32: 3 multiplies, 2 adds
	blocks := (fc + winoFilterBlock - 1) / winoFilterBlock
	parallelRange(blocks, 8, func(lo, hi int) {
		const B = winoFilterBlock
		var g [9 * B]float64 // the block's values, in groups of 4 filters (B is a multiple of 4)
		for blk := lo; blk < hi; blk++ {
			i0 := blk * B
			nb := min(B, fc-i0)
			k4 := 0
			for ; k4+4 <= nb; k4 += 4 {
				groupFilters((*[36]float64)(g[9*k4:]), (*[36]float32)(w[9*(i0+k4):]))
			}
			if k4 < nb {
				grp := g[9*k4 : 9*k4+36]
				for l := 0; l < nb-k4; l++ {
					f := w[9*(i0+k4+l) : 9*(i0+k4+l)+9]
					for e, v := range f {
						grp[4*e+l] = float64(v)
					}
				}
			}
			kernel.FilterTransform(u[i0:], us, g[:(nb+3)/4*36], nb, gm)
		}
	})
}

// winoPacked is a set of packed transformed filters, one per position ξ.
type winoPacked []kernel.PackedA[float32]

// winoPacks keeps packed filter sets for reuse, so that their storage is
// not allocated afresh at every pass.
var winoPacks struct {
	sync.Mutex
	free []winoPacked
}

// packFilters returns the pos matrices of m (each r x k, row-major, stride
// values apart), or with trans set their transposes (k x r), packed for
// GemmPacked, or referring to m where the kernels read them in place
// (kernel.PackA): m must stay as it is until the products are done.
func packFilters(m []float32, trans bool, pos, r, k, stride int) winoPacked {
	winoPacks.Lock()
	var p winoPacked
	for i := len(winoPacks.free) - 1; i >= 0; i-- {
		if len(winoPacks.free[i]) == pos {
			p = winoPacks.free[i]
			winoPacks.free = append(winoPacks.free[:i], winoPacks.free[i+1:]...)
			break
		}
	}
	winoPacks.Unlock()
	if p == nil {
		p = make(winoPacked, pos)
	}
	parallelRange(pos, 1, func(lo, hi int) {
		for xi := lo; xi < hi; xi++ {
			if trans {
				kernel.PackA(&p[xi], true, k, r, 1, m[xi*stride:], k)
			} else {
				kernel.PackA(&p[xi], false, r, k, 1, m[xi*stride:], k)
			}
		}
	})
	return p
}

// releasePacks returns p to the free list.
func releasePacks(p winoPacked) {
	winoPacks.Lock()
	winoPacks.free = append(winoPacks.free, p)
	winoPacks.Unlock()
}

// winoFilterAdj sets dw (f x c x 3 x 3) to the adjoint of the filter
// transform, Gᵀ du G, of du, the sum in order of the partial sums dus, each
// laid out as winoFilter's u; the sum and the transform are computed in
// float64 and rounded once (kernel.FilterTransformAdj).
func winoFilterAdj(t kernel.WinogradTile, dw []float32, dus [][]float32, fc int) {
	gm, a := winoGm(t), t.Size()
	us := winoUStride(fc)
	kernel.AddFlops(fc * (a*a*len(dus) + 2*3*a*a + 2*9*a)) // the partial sums' adds, AddScaled's multiply-adds
	blocks := (fc + winoFilterBlock - 1) / winoFilterBlock
	parallelRange(blocks, 8, func(lo, hi int) {
		const B = winoFilterBlock
		var out [9 * B]float32 // the block's values, in groups of 4 filters
		at := make([][]float32, len(dus))
		for blk := lo; blk < hi; blk++ {
			i0 := blk * B
			nb := min(B, fc-i0)
			for i, du := range dus {
				at[i] = du[i0:]
			}
			kernel.FilterTransformAdj(out[:(nb+3)/4*36], at, us, nb, gm)
			k4 := 0
			for ; k4+4 <= nb; k4 += 4 {
				ungroupFilters((*[36]float32)(dw[9*(i0+k4):]), (*[36]float32)(out[9*k4:]))
			}
			if k4 < nb {
				grp := out[9*k4 : 9*k4+36]
				for l := 0; l < nb-k4; l++ {
					d := dw[9*(i0+k4+l) : 9*(i0+k4+l)+9]
					for e := range d {
						d[e] = grp[4*e+l]
					}
				}
			}
		}
	})
}

// groupFilters widens four filters' 3x3 values (src: filter l's value e at
// 9*l+e) into the layout of kernel.FilterTransform's groups (dst: at
// 4*e+l).
func groupFilters(dst *[36]float64, src *[36]float32) {
	for e := range 9 {
		dst[4*e] = float64(src[e])
		dst[4*e+1] = float64(src[9+e])
		dst[4*e+2] = float64(src[18+e])
		dst[4*e+3] = float64(src[27+e])
	}
}

// ungroupFilters is the inverse of groupFilters' layout, without the
// widening: it sets dst[9*l+e] to src[4*e+l] for four filters l.
func ungroupFilters(dst, src *[36]float32) {
	for e := range 9 {
		dst[e] = src[4*e]
		dst[9+e] = src[4*e+1]
		dst[18+e] = src[4*e+2]
		dst[27+e] = src[4*e+3]
	}
}

// transformIn interleaves channel c of block blk of the chunk into buf
// (whose padding is zero) and writes its tiles' input transforms to columns
// of v (a*a matrices of c x ch.cols).
func (wg *winoGeom) transformIn(v, x, buf []float32, ch winoChunk, blk, c int) {
	L, chw := kernel.Lanes, wg.c*wg.inPlane
	img := ch.n0 + blk*L
	kernel.Interleave8(buf, wg.inOffs, x[img*chw+c*wg.inPlane:], chw, ch.lanes(blk))
	col := c*ch.cols + blk*wg.tiles*L
	for ty := 0; ty < wg.th; ty++ {
		winoIn(wg.tile, v[col+ty*wg.tw*L:], xiStride(wg.c, ch.cols), buf[wg.m*ty*wg.wp*L:], wg.wp*L, wg.tw)
	}
}

// scratch returns a zeroed pooled buffer of n values for one part of a
// parallel loop.
func scratch(n int) []float32 { return allocZeroed[float32](n) }

// winoAccumulators is the number of partial sums of the filter gradient:
// chunk k of the batch adds into partial sum k mod winoAccumulators, each
// partial sum takes its chunks in order, and the partial sums are added in
// order at the end. Whether the threads share the partial sums out (a chunk
// each) or share each chunk's work out (winoShared), the result has the
// same bits for every thread count.
const winoAccumulators = 2

// winoSharedChunks decides how the threads share a pass out: with fewer
// than winoSharedChunks chunks per thread, the threads take the chunks one
// after the other together, each taking its part of every phase of the
// chunk (the transforms of blocks and channels, the products of positions
// ξ); with more, each thread takes whole chunks, and a backward pass that
// needs the filter gradient runs on at most winoAccumulators threads. The
// small batches of training have too few chunks to keep the threads busy
// with whole ones. It is a variable so that tests can force either way.
var winoSharedChunks = 4

// winoShared reports whether a pass of the given chunks shares each chunk
// among threads threads.
func winoShared(chunks, threads int) bool { return threads > 1 && chunks < winoSharedChunks*threads }

// wholeRounds returns how many of the first chunks of a shared backward
// pass (winoShared) the threads take whole, in rounds of one chunk each:
// chunk k goes to thread k%threads, and the chunks after those are shared
// out as before. With accs partial sums of the filter gradient (chunk k
// adds into sum k%accs, in the order of k) that needs threads == accs, so
// that each sum is one thread's and gets its chunks in the same order as on
// one thread; without (accs == 0) any number of threads will do. Each thread
// then works on what it wrote itself, rather than reading the other
// threads' transforms at every phase of every chunk. It returns 0 when
// rounds are off (winoRounds) or impossible.
func wholeRounds(chunks, threads, accs int) int {
	if !winoRounds || threads < 2 || accs != 0 && accs != threads {
		return 0
	}
	return chunks / threads * threads
}

// winoRounds enables wholeRounds; tests clear it to share every chunk.
var winoRounds = true

// winoPlanes are the buffers of one part of a chunk's transforms: the
// interleaved input and output planes of one block and, when the output is
// pooled (convPool, poolGrad), the block's output planes of one filter
// (y), their pooled values (py) and positions (pidx): the planes of a
// pooling that windows does not take, and the copies of a block of fewer
// than eight images for the assembly of poolInterleaved and
// unpoolInterleaved.
type winoPlanes struct {
	in, out []float32
	dirty   bool // in's padding holds an adjoint's values, not zeros
	y, py   []float32
	pidx    []int32
}

// winoWork holds the buffers of one chunk at a time: the matrices V (then
// dV) and M (or dM) of the chunk, and the planes of each of the parts that
// share its phases out.
type winoWork struct {
	v, m   []float32
	planes []winoPlanes
}

// newWork returns the buffers of parts parts running the chunks of
// convolutions with f filters, with the buffers of pooling the output
// planes of ohw pooled values each when ohw is not 0.
func (wg *winoGeom) newWork(f, parts, ohw int) *winoWork {
	ww := &winoWork{
		v:      alloc[float32](wg.pos * xiStride(wg.c, wg.cols)),
		m:      alloc[float32](wg.pos * xiStride(f, wg.cols)),
		planes: make([]winoPlanes, parts),
	}
	for p := range ww.planes {
		pl := winoPlanes{in: scratch(wg.inLen), out: scratch(wg.outLen)}
		if ohw > 0 {
			pl.y = alloc[float32](kernel.Lanes * wg.outPlane)
			pl.py = alloc[float32](kernel.Lanes * ohw)
			pl.pidx = make([]int32, kernel.Lanes*ohw)
		}
		ww.planes[p] = pl
	}
	return ww
}

func (ww *winoWork) release() {
	release(ww.v)
	release(ww.m)
	for _, pl := range ww.planes {
		release(pl.in)
		release(pl.out)
		if pl.y != nil {
			release(pl.y)
			release(pl.py)
		}
	}
}

// pooledPlane returns the values of a pooled output plane of sink, or 0
// without one.
func pooledPlane(sink *convPool[float32]) int {
	if sink == nil {
		return 0
	}
	return sink.oh * sink.ow
}

// each runs fn on the items [0, n) of one phase of a chunk: in order on
// the calling goroutine with one part, otherwise on the parts' goroutines,
// each taking the next item not taken with its own planes. The items of a
// phase must not depend on each other.
func (ww *winoWork) each(n int, fn func(pl *winoPlanes, i int)) {
	if len(ww.planes) == 1 {
		for i := range n {
			fn(&ww.planes[0], i)
		}
		return
	}
	shareOut(len(ww.planes), n, func(p, i int) { fn(&ww.planes[p], i) })
}

// shareOut runs fn(part, i) for every i in [0, n) on min(parts, n)
// goroutines (kernel.Parallel), each taking the next run of shareRun(parts,
// n) values of i not taken, in order.
func shareOut(parts, n int, fn func(part, i int)) {
	var next atomic.Int64
	run := int64(shareRun(parts, n))
	kernel.Parallel(min(parts, n), func(p int) {
		for lo := next.Add(run) - run; lo < int64(n); lo = next.Add(run) - run {
			for i := int(lo); i < min(int(lo+run), n); i++ {
				fn(p, i)
			}
		}
	})
}

// shareRun is the number of consecutive values shareOut's parts take at a
// time: about a sixteenth of a part's share, at least 1. Neighbouring
// values write neighbouring rows and planes, which then share cache lines
// at their ends within a part rather than between parts, and the parts
// contend for the counter sixteen times a share rather than once a value.
func shareRun(parts, n int) int {
	return max(1, n/(16*max(parts, 1)))
}

// winoForward is convForward on the Winograd path with the given tile: y (n
// x f x oh x ow) is the convolution of x (n x c x h x w) with w (f x c x 3 x
// 3) plus b (f values, or nil), or with sink not nil (y nil) its pooling by
// sink. The threads share the chunks out, or each chunk's work
// (winoShared). With keep set it returns the transformed filters
// (winoFilter's u, a pooled buffer the caller releases), nil otherwise.
func winoForward(tile kernel.WinogradTile, g *convGeom, n, f int, x, w, b, y []float32, keep bool, sink *convPool[float32]) (kept []float32) {
	wg := newWinoGeom(g, tile)
	wg.forwardChunks()
	wg.pool = wg.windows(sink)
	C, pos := g.c, wg.pos
	us := winoUStride(f * C)
	u := alloc[float32](pos * us)
	winoFilter(tile, u, w, f, C)
	pu := packFilters(u, false, pos, f, C, us) // may refer to u: released after the products
	chunks := wg.chunks(n)
	if t := kernel.Threads(); winoShared(len(chunks), t) {
		ww := wg.newWork(f, min(t, wg.pos), pooledPlane(sink))
		for _, ch := range chunks {
			wg.forwardChunk(ww, pu, ch, f, x, b, y, sink)
		}
		ww.release()
	} else {
		var next atomic.Int64
		kernel.Parallel(min(t, len(chunks)), func(int) {
			ww := wg.newWork(f, 1, pooledPlane(sink))
			for k := int(next.Add(1) - 1); k < len(chunks); k = int(next.Add(1) - 1) {
				wg.forwardChunk(ww, pu, chunks[k], f, x, b, y, sink)
			}
			ww.release()
		})
	}
	releasePacks(pu)
	if keep {
		kept = u
	} else {
		release(u)
	}
	return kept
}

// forwardChunk computes the output of one chunk: the input transforms of
// its blocks and channels, the products of the positions, the output
// transforms of its blocks and filters (pooled by sink when it is not nil:
// from the interleaved output when wg.pool holds its windows, otherwise
// through planes), each phase shared out by ww.each.
func (wg *winoGeom) forwardChunk(ww *winoWork, pu winoPacked, ch winoChunk, f int, x, b, y []float32, sink *convPool[float32]) {
	C, L, T := wg.c, kernel.Lanes, ch.cols
	vs, ms := xiStride(C, T), xiStride(f, T)
	ww.each(ch.blocks*C, func(pl *winoPlanes, it int) {
		wg.transformIn(ww.v, x, pl.in, ch, it/C, it%C)
	})
	ww.each(wg.pos, func(_ *winoPlanes, xi int) {
		kernel.GemmPacked(&pu[xi], false, T, ww.v[xi*vs:], T, 0, ww.m[xi*ms:], T)
	})
	ofc := f * wg.outPlane
	ww.each(ch.blocks*f, func(pl *winoPlanes, it int) {
		blk, fi := it/f, it%f
		var bias float32
		if b != nil {
			bias = b[fi]
		}
		col := fi*T + blk*wg.tiles*L
		for ty := 0; ty < wg.th; ty++ {
			winoOut(wg.tile, pl.out[wg.m*ty*wg.opw*L:], wg.opw*L, ww.m[col+ty*wg.tw*L:], ms, wg.tw, bias)
		}
		img := ch.n0 + blk*L
		if wg.pool != nil {
			poolInterleaved(sink, wg.pool, pl.out, img, fi, f, ch.lanes(blk), pl.py, pl.pidx)
			return
		}
		if sink != nil {
			lanes := ch.lanes(blk)
			kernel.Deinterleave8(pl.y, wg.outPlane, pl.out, wg.outOffs, lanes)
			sink.poolLanes(pl.y, img, fi, f, lanes, pl.py, pl.pidx)
			return
		}
		kernel.Deinterleave8(y[img*ofc+fi*wg.outPlane:], ofc, pl.out, wg.outOffs, ch.lanes(blk))
	})
}

// winoBackward is convBackward on the Winograd path with the given tile:
// for the gradient dy (n x f x oh x ow) of the output it sets dx (n x c x h
// x w, needs w) and dw (f x c x 3 x 3, needs x), each skipped when nil, and
// when sums is not nil sums[i*f+j] to the sum of dy's row (i, j), as
// kernel.Sum takes it. The threads share each chunk's work out
// (winoShared; the first chunks whole, in rounds, when wholeRounds allows),
// or take whole chunks: the next free one each when only dx is wanted,
// otherwise those of their share of the partial sums of dw. u,
// when not nil, holds the transformed filters of w for tile (winoFilter's
// u, which winoForward kept), which dx then uses rather than computing them
// again. With src not nil (dy nil) the output gradient is src's, built
// for each block and filter as the transforms need it.
func winoBackward(tile kernel.WinogradTile, g *convGeom, n, f int, x, w, dy, dx, dw, sums, u []float32, src *poolGrad[float32]) {
	wg := newWinoGeom(g, tile)
	if src != nil {
		wg.pool = wg.windows(src.convPool)
	}
	C, pos := g.c, wg.pos
	us := winoUStride(f * C)
	var put winoPacked // the transposed transformed filters, packed (or referring to u)
	own := false       // u is this call's, released at the end
	if dx != nil {
		own = u == nil
		if own {
			u = alloc[float32](pos * us)
			winoFilter(tile, u, w, f, C)
		}
		put = packFilters(u, true, pos, f, C, us)
	}
	chunks := wg.chunks(n)
	var acc [][]float32 // the partial sums of the transformed dw
	if dw != nil {
		acc = make([][]float32, min(winoAccumulators, len(chunks)))
		for k := range acc {
			acc[k] = alloc[float32](pos * us)
		}
	}
	// chunk runs chunk k on ww, adding into its partial sum of dw.
	chunk := func(ww *winoWork, k int) {
		var du []float32
		if acc != nil {
			du = acc[k%len(acc)]
		}
		wg.backwardChunk(ww, put, du, k < len(acc), chunks[k], f, x, dy, dx, sums, src)
	}
	var ohw int
	if src != nil {
		ohw = src.oh * src.ow
	}
	// byThread runs chunks [0, upto) on workers threads, each taking whole
	// chunks: chunk k on thread k%m%workers, in the order of k.
	byThread := func(workers, upto, m int) {
		kernel.Parallel(workers, func(p int) {
			ww := wg.newWork(f, 1, ohw)
			for k := range upto {
				if k%m%workers == p {
					chunk(ww, k)
				}
			}
			ww.release()
		})
	}
	t := kernel.Threads()
	switch {
	case winoShared(len(chunks), t):
		whole := wholeRounds(len(chunks), t, len(acc))
		if whole > 0 {
			byThread(t, whole, t)
		}
		if whole < len(chunks) {
			ww := wg.newWork(f, min(t, wg.pos), ohw)
			for k := whole; k < len(chunks); k++ {
				chunk(ww, k)
			}
			ww.release()
		}
	case dw == nil:
		var next atomic.Int64
		kernel.Parallel(min(t, len(chunks)), func(int) {
			ww := wg.newWork(f, 1, ohw)
			for k := int(next.Add(1) - 1); k < len(chunks); k = int(next.Add(1) - 1) {
				chunk(ww, k)
			}
			ww.release()
		})
	default:
		// Each thread takes the chunks of its share of the partial sums.
		byThread(min(t, len(chunks), len(acc)), len(chunks), len(acc))
	}
	if dw != nil {
		winoFilterAdj(tile, dw, acc, f*C)
		for _, a := range acc {
			release(a)
		}
	}
	if put != nil {
		releasePacks(put)
	}
	if own {
		release(u)
	}
}

// backwardChunk runs one chunk of winoBackward, each phase shared out by
// ww.each: the transformed output gradient dM (and the row sums of dy when
// sums is not nil) beside the input transforms V (when du is not nil), then
// for each position the filter-gradient product added into du (overwriting
// it when first is set; skipped when du is nil) and the input-gradient
// product (skipped when dx is nil), and the adjoint input transforms. With
// src not nil the output gradient of each block and filter is src's, built
// in the part's buffer: interleaved when wg.pool holds the windows, with
// the row sums taken from there (kernel.SumLanes8), otherwise as planes
// that are then interleaved.
func (wg *winoGeom) backwardChunk(ww *winoWork, put winoPacked, du []float32, first bool, ch winoChunk, f int, x, dy, dx, sums []float32, src *poolGrad[float32]) {
	C, L, T := wg.c, kernel.Lanes, ch.cols
	vs, ms := xiStride(C, T), xiStride(f, T)
	ofc, chw := f*wg.outPlane, C*wg.inPlane
	outs, ins := ch.blocks*f, 0
	if du != nil {
		ins = ch.blocks * C
	}
	ww.each(outs+ins, func(pl *winoPlanes, it int) {
		if it >= outs {
			if pl.dirty { // the padding, after an adjoint
				clear(pl.in)
				pl.dirty = false
			}
			it -= outs
			wg.transformIn(ww.v, x, pl.in, ch, it/C, it%C)
			return
		}
		blk, fi := it/f, it%f
		img := ch.n0 + blk*L
		col := fi*T + blk*wg.tiles*L
		if wg.pool != nil {
			lanes := ch.lanes(blk)
			unpoolInterleaved(src, wg.pool, pl.out, img, fi, f, lanes, pl.py, pl.y, pl.pidx)
			if sums != nil {
				var s [kernel.Lanes]float32
				kernel.SumLanes8(s[:], pl.out, wg.outOffs, lanes)
				for l := 0; l < lanes; l++ {
					sums[(img+l)*f+fi] = s[l]
				}
			}
			for ty := 0; ty < wg.th; ty++ {
				winoOutAdj(wg.tile, ww.m[col+ty*wg.tw*L:], ms, pl.out[wg.m*ty*wg.opw*L:], wg.opw*L, wg.tw)
			}
			return
		}
		var planes []float32 // the block's planes of filter fi, stride apart
		stride := ofc
		if src != nil {
			for l := 0; l < ch.lanes(blk); l++ {
				src.plane((img+l)*f+fi, pl.y[l*wg.outPlane:(l+1)*wg.outPlane])
			}
			planes, stride = pl.y, wg.outPlane
		} else {
			planes = dy[img*ofc+fi*wg.outPlane:]
		}
		if sums != nil {
			for l := 0; l < ch.lanes(blk); l++ {
				sums[(img+l)*f+fi] = kernel.Sum(planes[l*stride : l*stride+wg.outPlane])
			}
		}
		kernel.Interleave8(pl.out, wg.outOffs, planes, stride, ch.lanes(blk))
		for ty := 0; ty < wg.th; ty++ {
			winoOutAdj(wg.tile, ww.m[col+ty*wg.tw*L:], ms, pl.out[wg.m*ty*wg.opw*L:], wg.opw*L, wg.tw)
		}
	})
	var beta float32 = 1
	if first {
		beta = 0
	}
	ww.each(wg.pos, func(_ *winoPlanes, xi int) {
		// V's position xi is read by the filter-gradient product, then
		// overwritten by dV.
		if du != nil {
			kernel.GemmSerial(false, true, f, C, T, 1, ww.m[xi*ms:], T, ww.v[xi*vs:], T, beta, du[xi*winoUStride(f*C):], C)
		}
		if dx != nil {
			kernel.GemmPacked(&put[xi], false, T, ww.m[xi*ms:], T, 0, ww.v[xi*vs:], T)
		}
	})
	if dx == nil {
		return
	}
	ww.each(ch.blocks*C, func(pl *winoPlanes, it int) {
		blk, c := it/C, it%C
		clear(pl.in)
		pl.dirty = true
		col := c*T + blk*wg.tiles*L
		for ty := 0; ty < wg.th; ty++ {
			winoInAdj(wg.tile, pl.in[wg.m*ty*wg.wp*L:], wg.wp*L, ww.v[col+ty*wg.tw*L:], vs, wg.tw)
		}
		img := ch.n0 + blk*L
		kernel.Deinterleave8(dx[img*chw+c*wg.inPlane:], chw, pl.in, wg.inOffs, ch.lanes(blk))
	})
}
