package kernel

// The transforms of the Winograd convolution F(4x4, 3x3) and the copies that
// lay images out for them. They work on float32 values in groups of eight
// lanes: lane l of every vector belongs to the l-th of eight images, so a
// transform of one tile position transforms that tile of eight images at
// once, with no shuffling.
//
// F(4x4, 3x3) computes a 4x4 block of the valid 3x3 cross-correlation of a
// 6x6 input tile d with a filter g as
//
//	Y = Aᵀ [(G g Gᵀ) ∘ (Bᵀ d B)] A
//
// with the 6x6 product taken element by element, from the interpolation
// points 0, 1, -1, 2, -2 and infinity:
//
//	Bᵀ = [4  0 -5  0 1 0]   G = [ 1/4     0    0 ]   Aᵀ = [1 1  1 1  1 0]
//	     [0 -4 -4  1 1 0]       [-1/6 -1/6 -1/6 ]        [0 1 -1 2 -2 0]
//	     [0  4 -4 -1 1 0]       [-1/6  1/6 -1/6 ]        [0 1  1 4  4 0]
//	     [0 -2 -1  2 1 0]       [1/24 1/12  1/6 ]        [0 1 -1 8 -8 1]
//	     [0  2 -1 -2 1 0]       [1/24 -1/12 1/6 ]
//	     [0  4  0 -5 0 1]       [ 0     0    1  ]
//
// Summed over input channels, the element-wise products become 36 matrix
// products, one per position of the 6x6 transformed tile: the caller runs
// those with Gemm. The filter transform G g Gᵀ and its adjoint are done once
// per pass on few values and belong to the caller.
//
// Every transform below multiplies only by 2, 4, 8 (exact) and 5, and adds
// in a fixed order that its Go twin (winograd_twin.go) spells out; the
// assembly performs the same operations in the same order, with no fused
// multiply-add, so both give the same bits. How many roundings each output
// goes through is stated with each transform: the error bound of the
// convolution is built from those counts.

// Panic messages of the Winograd kernels.
const (
	errWinoTiles  = "kernel: Winograd tiles < 0"
	errWinoStride = "kernel: Winograd stride too small"
	errWinoShort  = "kernel: Winograd slice too short"
	errLanes      = "kernel: lanes out of range 0..8"
	errOffsets    = "kernel: offset out of range"
	errPlanes     = "kernel: plane stride or length too small"
)

// Lanes is the number of images a Winograd vector holds: the lane count of
// Interleave8 and of every Winograd transform.
const Lanes = 8

// winoCheck panics unless a transform of tiles tiles may read or write a
// tile-side buffer of n values laid out with row stride row (6 rows of
// 6 or 4 columns: cols) and a transform-side buffer of m values with stride
// between the 36 positions stride.
func winoCheck(tiles, n, row, rows, cols, m, stride int) {
	if tiles < 0 {
		panic(errWinoTiles)
	}
	if tiles == 0 {
		return
	}
	if row < Lanes*(4*(tiles-1)+cols) || stride < Lanes*tiles {
		panic(errWinoStride)
	}
	if n < (rows-1)*row+Lanes*(4*(tiles-1)+cols) || m < 35*stride+Lanes*tiles {
		panic(errWinoShort)
	}
}

// WinogradIn applies the input transform Bᵀ d B to tiles 6x6 tiles lying
// side by side, 4 columns apart, in src, and writes each transformed tile's
// 36 positions stride apart in dst:
//
//	for t < tiles, a, b < 6, l < 8:
//	    d[i][j] = src[i*row + 8*(4*t+j) + l]           (i, j < 6)
//	    dst[(6*a+b)*stride + 8*t + l] = (Bᵀ d B)[a][b]
//
// src holds 8 lanes per pixel, row values per image row. Bᵀ is applied to
// the columns first, then to the rows, as winoBT computes it: every output
// goes through at most 4 roundings. dst must not overlap src.
func WinogradIn(dst []float32, stride int, src []float32, row, tiles int) {
	winoCheck(tiles, len(src), row, 6, 6, len(dst), stride)
	if tiles == 0 {
		return
	}
	if useAsm32() {
		winogradInAVX2(&dst[0], stride, &src[0], row, tiles)
		return
	}
	winogradInGo(dst, stride, src, row, tiles)
}

// WinogradInAdj is the adjoint of WinogradIn, B v Bᵀ, added into dst: for
// every tile t it reads the 36 positions v[a][b] = src[(6*a+b)*stride + 8*t
// + l] and adds (B v Bᵀ)[i][j] to dst[i*row + 8*(4*t+j) + l]. Tiles are
// added in order, so where neighbours overlap (two columns) the sums run
// from left to right. B is applied to the columns first, then to the rows,
// as winoB computes it: every added value goes through at most 6 roundings
// before the addition. dst must not overlap src.
func WinogradInAdj(dst []float32, row int, src []float32, stride, tiles int) {
	winoCheck(tiles, len(dst), row, 6, 6, len(src), stride)
	if tiles == 0 {
		return
	}
	if useAsm32() {
		winogradInAdjAVX2(&dst[0], row, &src[0], stride, tiles)
		return
	}
	winogradInAdjGo(dst, row, src, stride, tiles)
}

// WinogradOut applies the output transform Aᵀ m A to tiles transformed
// tiles and adds bias: for every tile t it reads the 36 positions m[a][b] =
// src[(6*a+b)*stride + 8*t + l] and writes (Aᵀ m A)[i][j] + bias to
// dst[i*row + 8*(4*t+j) + l] (i, j < 4), tiles 4 columns apart. Aᵀ is
// applied to the columns first, then to the rows, as winoAT computes it, and
// bias added last: every output goes through at most 7 roundings. dst must
// not overlap src.
func WinogradOut(dst []float32, row int, src []float32, stride, tiles int, bias float32) {
	winoCheck(tiles, len(dst), row, 4, 4, len(src), stride)
	if tiles == 0 {
		return
	}
	if useAsm32() {
		winogradOutAVX2(&dst[0], row, &src[0], stride, tiles, bias)
		return
	}
	winogradOutGo(dst, row, src, stride, tiles, bias)
}

// WinogradOutAdj is the adjoint of WinogradOut without the bias, A y Aᵀ: for
// every tile t it reads the 4x4 block y[i][j] = src[i*row + 8*(4*t+j) + l]
// and writes (A y Aᵀ)[a][b] to dst[(6*a+b)*stride + 8*t + l]. A is applied
// to the columns first, then to the rows, as winoA computes it: every output
// goes through at most 4 roundings. dst must not overlap src.
func WinogradOutAdj(dst []float32, stride int, src []float32, row, tiles int) {
	winoCheck(tiles, len(src), row, 4, 4, len(dst), stride)
	if tiles == 0 {
		return
	}
	if useAsm32() {
		winogradOutAdjAVX2(&dst[0], stride, &src[0], row, tiles)
		return
	}
	winogradOutAdjGo(dst, stride, src, row, tiles)
}

// checkOffsets panics unless every offset o of offs leaves room for 8 lanes
// in a buffer of n values, and stride and lanes fit a buffer of m values
// holding lanes rows of len(offs) values.
func checkOffsets(offs []int32, n int, stride, lanes, m int) {
	if lanes < 0 || lanes > Lanes {
		panic(errLanes)
	}
	for _, o := range offs {
		if o < 0 || int(o)+Lanes > n {
			panic(errOffsets)
		}
	}
	if lanes > 0 && len(offs) > 0 && (stride < len(offs) || m < (lanes-1)*stride+len(offs)) {
		panic(errPlanes)
	}
}

// Interleave8 gathers pixel p of up to eight images into the eight lanes at
// dst[offs[p]]:
//
//	for p, o := range offs { for l < 8 { dst[o+l] = src[l*stride+p] if l < lanes, else 0 } }
//
// src holds the images' planes stride values apart. The offsets must not
// make two pixels share a lane.
func Interleave8(dst []float32, offs []int32, src []float32, stride, lanes int) {
	checkOffsets(offs, len(dst), stride, lanes, len(src))
	if lanes == Lanes && len(offs) >= Lanes && useAsm32() {
		interleave8AVX2(&dst[0], &offs[0], &src[0], stride, len(offs))
		return
	}
	interleave8Go(dst, offs, src, stride, lanes)
}

// Deinterleave8 is the inverse of Interleave8 for the first lanes lanes:
//
//	for p, o := range offs { for l < lanes { dst[l*stride+p] = src[o+l] } }
func Deinterleave8(dst []float32, stride int, src []float32, offs []int32, lanes int) {
	checkOffsets(offs, len(src), stride, lanes, len(dst))
	if lanes == Lanes && len(offs) >= Lanes && useAsm32() {
		deinterleave8AVX2(&dst[0], stride, &src[0], &offs[0], len(offs))
		return
	}
	deinterleave8Go(dst, stride, src, offs, lanes)
}

// WinogradMatrices returns Bᵀ, G and Aᵀ of F(4x4, 3x3), as in the package's
// Winograd documentation.
func WinogradMatrices() (bt [6][6]float64, g [6][3]float64, at [4][6]float64) {
	bt = [6][6]float64{
		{4, 0, -5, 0, 1, 0},
		{0, -4, -4, 1, 1, 0},
		{0, 4, -4, -1, 1, 0},
		{0, -2, -1, 2, 1, 0},
		{0, 2, -1, -2, 1, 0},
		{0, 4, 0, -5, 0, 1},
	}
	g = [6][3]float64{
		{1.0 / 4, 0, 0},
		{-1.0 / 6, -1.0 / 6, -1.0 / 6},
		{-1.0 / 6, 1.0 / 6, -1.0 / 6},
		{1.0 / 24, 1.0 / 12, 1.0 / 6},
		{1.0 / 24, -1.0 / 12, 1.0 / 6},
		{0, 0, 1},
	}
	at = [4][6]float64{
		{1, 1, 1, 1, 1, 0},
		{0, 1, -1, 2, -2, 0},
		{0, 1, 1, 4, 4, 0},
		{0, 1, -1, 8, -8, 1},
	}
	return bt, g, at
}
