package kernel

//go:generate sh -c "cd ../.. && python3 scripts/winograd_gen.py"

// The transforms of the Winograd convolutions F(4x4, 3x3) and F(5x5, 3x3)
// and the copies that lay images out for them. They work on float32 values
// in groups of eight lanes: lane l of every vector belongs to the l-th of
// eight images, so a transform of one tile position transforms that tile of
// eight images at once, with no shuffling.
//
// F(m x m, 3 x 3) computes an m x m block of the valid 3x3 cross-correlation
// of an a x a input tile d (a = m+2) with a filter g as
//
//	Y = Aᵀ [(G g Gᵀ) ∘ (Bᵀ d B)] A
//
// with the a x a product taken element by element; WinogradTile.Matrices
// gives Bᵀ, G and Aᵀ. F(4x4, 3x3) interpolates at 0, 1, -1, 2, -2 and
// infinity:
//
//	Bᵀ = [4  0 -5  0 1 0]   G = [ 1/4     0    0 ]   Aᵀ = [1 1  1 1  1 0]
//	     [0 -4 -4  1 1 0]       [-1/6 -1/6 -1/6 ]        [0 1 -1 2 -2 0]
//	     [0  4 -4 -1 1 0]       [-1/6  1/6 -1/6 ]        [0 1  1 4  4 0]
//	     [0 -2 -1  2 1 0]       [1/24 1/12  1/6 ]        [0 1 -1 8 -8 1]
//	     [0  2 -1 -2 1 0]       [1/24 -1/12 1/6 ]
//	     [0  4  0 -5 0 1]       [ 0     0    1  ]
//
// F(5x5, 3x3) interpolates at 0, 1, -1, 2, -2, 1/2 and infinity, with the
// rows of Bᵀ scaled to integers and those of G by the inverse scales.
//
// Summed over input channels, the element-wise products become a*a matrix
// products, one per position of the transformed tile: the caller runs them
// with Gemm. The filter transform G g Gᵀ and its adjoint are done once per
// pass on few values and belong to the caller.
//
// The transforms multiply by constants and add in a fixed order that their
// Go twins (winograd_1d.go, generated with the assembly by
// scripts/winograd_gen.py) spell out; the assembly performs the same
// operations in the same order, with no fused multiply-add, so both give the
// same bits. WinogradTile.Roundings states how many roundings each output
// goes through: the error bound of the convolution is built from those
// counts.

// Panic messages of the Winograd kernels.
const (
	errWinoTile   = "kernel: unknown Winograd tile"
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

// WinogradTile selects the Winograd algorithm F(m x m, 3 x 3) of a
// transform by its output tile side m.
type WinogradTile int

const (
	// F4x4 is F(4x4, 3x3): 6x6 input tiles, 36 products per 16 outputs.
	F4x4 WinogradTile = 4
	// F5x5 is F(5x5, 3x3): 7x7 input tiles, 49 products per 25 outputs.
	F5x5 WinogradTile = 5
)

// String returns "F(4x4,3x3)" or "F(5x5,3x3)".
func (t WinogradTile) String() string {
	return "F(" + string(rune('0'+t)) + "x" + string(rune('0'+t)) + ",3x3)"
}

// Outputs returns m, the side of the output tile (and the distance between
// neighbouring input tiles).
func (t WinogradTile) Outputs() int { return int(t) }

// Size returns a = m+2, the side of the input tile and of the transformed
// tile, which has a*a positions.
func (t WinogradTile) Size() int { return int(t) + 2 }

// Roundings returns how many roundings, at most, an output of each
// two-dimensional transform goes through: WinogradIn, WinogradInAdj (before
// it is added to the buffer), WinogradOut (before the bias is added, one
// more) and WinogradOutAdj.
func (t WinogradTile) Roundings() (in, inAdj, out, outAdj int) {
	d := winoDepths[int(t.check())]
	return 2 * d[0], 2 * d[1], 2 * d[2], 2 * d[3]
}

func (t WinogradTile) check() WinogradTile {
	if t != F4x4 && t != F5x5 {
		panic(errWinoTile)
	}
	return t
}

// winoFuncs are the one-dimensional transforms of one tile.
type winoFuncs struct {
	bt, b, at, a func(in, out []float32)
}

var winoTiles = map[WinogradTile]winoFuncs{
	F4x4: {winoBT4, winoB4, winoAT4, winoA4},
	F5x5: {winoBT5, winoB5, winoAT5, winoA5},
}

// winoCheck panics unless a transform of tiles tiles of t may use a
// tile-side buffer of n values with row stride row, reading or writing rows
// rows of cols columns per tile, and a transform-side buffer of m values
// whose a*a positions are stride apart.
func winoCheck(t WinogradTile, tiles, n, row, rows, cols, m, stride int) {
	t.check()
	if tiles < 0 {
		panic(errWinoTiles)
	}
	if tiles == 0 {
		return
	}
	step, pos := t.Outputs(), t.Size()*t.Size()
	if row < Lanes*(step*(tiles-1)+cols) || stride < Lanes*tiles {
		panic(errWinoStride)
	}
	if n < (rows-1)*row+Lanes*(step*(tiles-1)+cols) || m < (pos-1)*stride+Lanes*tiles {
		panic(errWinoShort)
	}
}

// WinogradIn applies the input transform Bᵀ d B of t to tiles a x a tiles
// lying side by side, m columns apart, in src, and writes each transformed
// tile's a*a positions stride apart in dst:
//
//	for tile k < tiles, p, q < a, l < 8:
//	    d[i][j] = src[i*row + 8*(m*k+j) + l]           (i, j < a)
//	    dst[(a*p+q)*stride + 8*k + l] = (Bᵀ d B)[p][q]
//
// src holds 8 lanes per pixel, row values per image row. Bᵀ is applied to
// the columns first, then to the rows (winogradInGo). dst must not overlap
// src.
func WinogradIn(t WinogradTile, dst []float32, stride int, src []float32, row, tiles int) {
	a := t.check().Size()
	winoCheck(t, tiles, len(src), row, a, a, len(dst), stride)
	if tiles == 0 {
		return
	}
	winoFlops(t, tiles, func(o winoOps) int { return o.in })
	if useAsm32() {
		if t == F4x4 {
			winogradIn4AVX2(&dst[0], stride, &src[0], row, tiles)
		} else {
			winogradIn5AVX2(&dst[0], stride, &src[0], row, tiles)
		}
		return
	}
	winogradInGo(t, dst, stride, src, row, tiles)
}

// WinogradInAdj is the adjoint of WinogradIn, B v Bᵀ, added into dst: for
// every tile k it reads the a*a positions v[p][q] = src[(a*p+q)*stride +
// 8*k + l] and adds (B v Bᵀ)[i][j] to dst[i*row + 8*(m*k+j) + l]. Tiles are
// added in order, so where neighbours overlap (two columns) the sums run
// from left to right. dst must not overlap src.
func WinogradInAdj(t WinogradTile, dst []float32, row int, src []float32, stride, tiles int) {
	a := t.check().Size()
	winoCheck(t, tiles, len(dst), row, a, a, len(src), stride)
	if tiles == 0 {
		return
	}
	winoFlops(t, tiles, func(o winoOps) int { return o.inAdj })
	if useAsm32() {
		if t == F4x4 {
			winogradInAdj4AVX2(&dst[0], row, &src[0], stride, tiles)
		} else {
			winogradInAdj5AVX2(&dst[0], row, &src[0], stride, tiles)
		}
		return
	}
	winogradInAdjGo(t, dst, row, src, stride, tiles)
}

// WinogradOut applies the output transform Aᵀ v A of t to tiles
// transformed tiles and adds bias: for every tile k it reads the a*a
// positions v[p][q] = src[(a*p+q)*stride + 8*k + l] and writes (Aᵀ v A)[i][j]
// + bias to dst[i*row + 8*(m*k+j) + l] (i, j < m), tiles m columns apart.
// dst must not overlap src.
func WinogradOut(t WinogradTile, dst []float32, row int, src []float32, stride, tiles int, bias float32) {
	m := t.check().Outputs()
	winoCheck(t, tiles, len(dst), row, m, m, len(src), stride)
	if tiles == 0 {
		return
	}
	winoFlops(t, tiles, func(o winoOps) int { return o.out })
	if useAsm32() {
		if t == F4x4 {
			winogradOut4AVX2(&dst[0], row, &src[0], stride, tiles, bias)
		} else {
			winogradOut5AVX2(&dst[0], row, &src[0], stride, tiles, bias)
		}
		return
	}
	winogradOutGo(t, dst, row, src, stride, tiles, bias)
}

// WinogradOutAdj is the adjoint of WinogradOut without the bias, A y Aᵀ: for
// every tile k it reads the m x m block y[i][j] = src[i*row + 8*(m*k+j) + l]
// and writes (A y Aᵀ)[p][q] to dst[(a*p+q)*stride + 8*k + l]. dst must not
// overlap src.
func WinogradOutAdj(t WinogradTile, dst []float32, stride int, src []float32, row, tiles int) {
	m := t.check().Outputs()
	winoCheck(t, tiles, len(src), row, m, m, len(dst), stride)
	if tiles == 0 {
		return
	}
	winoFlops(t, tiles, func(o winoOps) int { return o.outAdj })
	if useAsm32() {
		if t == F4x4 {
			winogradOutAdj4AVX2(&dst[0], stride, &src[0], row, tiles)
		} else {
			winogradOutAdj5AVX2(&dst[0], stride, &src[0], row, tiles)
		}
		return
	}
	winogradOutAdjGo(t, dst, stride, src, row, tiles)
}

// Offsets is a table of lane offsets for Interleave8 and Deinterleave8:
// for pixel p, the first of its eight lanes in an interleaved buffer. It
// keeps the largest offset, so that the kernels check their bounds without
// reading the table.
type Offsets struct {
	offs []int32
	max  int // the largest offset, -1 for an empty table
}

// NewOffsets returns the table of offs, which must not be negative (it
// panics otherwise). The table refers to offs, which must not change
// afterwards.
func NewOffsets(offs []int32) Offsets {
	t := Offsets{offs: offs, max: -1}
	for _, o := range offs {
		if o < 0 {
			panic(errOffsets)
		}
		t.max = max(t.max, int(o))
	}
	return t
}

// Len returns the number of pixels of the table.
func (t Offsets) Len() int { return len(t.offs) }

// checkOffsets panics unless every offset of t leaves room for 8 lanes in a
// buffer of n values, and stride and lanes fit a buffer of m values
// holding lanes rows of t.Len() values.
func checkOffsets(t Offsets, n int, stride, lanes, m int) {
	if lanes < 0 || lanes > Lanes {
		panic(errLanes)
	}
	if t.max+Lanes > n {
		panic(errOffsets)
	}
	if lanes > 0 && len(t.offs) > 0 && (stride < len(t.offs) || m < (lanes-1)*stride+len(t.offs)) {
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
func Interleave8(dst []float32, offs Offsets, src []float32, stride, lanes int) {
	checkOffsets(offs, len(dst), stride, lanes, len(src))
	if lanes == Lanes && len(offs.offs) >= Lanes && useAsm32() {
		interleave8AVX2(&dst[0], &offs.offs[0], &src[0], stride, len(offs.offs))
		return
	}
	interleave8Go(dst, offs.offs, src, stride, lanes)
}

// Deinterleave8 is the inverse of Interleave8 for the first lanes lanes:
//
//	for p, o := range offs { for l < lanes { dst[l*stride+p] = src[o+l] } }
func Deinterleave8(dst []float32, stride int, src []float32, offs Offsets, lanes int) {
	checkOffsets(offs, len(src), stride, lanes, len(dst))
	if lanes == Lanes && len(offs.offs) >= Lanes && useAsm32() {
		deinterleave8AVX2(&dst[0], stride, &src[0], &offs.offs[0], len(offs.offs))
		return
	}
	deinterleave8Go(dst, stride, src, offs.offs, lanes)
}

// SumLanes8 sets dst[l], for the first lanes lanes, to the sum of lane l's
// plane in the interleaved buffer src, exactly as Sum adds the plane up
// once Deinterleave8 has taken it out:
//
//	for l < lanes { plane := {src[o+l] for o in offs}; dst[l] = Sum(plane) }
//
// Under the AVX2 implementations the eight planes are summed at once in
// the order of sumAVX2 (sumLanes8AVX2), otherwise one after the other in
// order. Planes longer than Sum's blocks (reduceChunk) are taken out and
// summed by Sum.
func SumLanes8(dst, src []float32, offs Offsets, lanes int) {
	checkOffsets(offs, len(src), len(offs.offs), lanes, lanes*len(offs.offs))
	_ = dst[:lanes]
	n := len(offs.offs)
	if n > reduceChunk {
		plane := make([]float32, n)
		for l := 0; l < lanes; l++ {
			for p, o := range offs.offs {
				plane[p] = src[int(o)+l]
			}
			dst[l] = Sum(plane)
		}
		return
	}
	if n > 0 && lanes > 0 && useAsm32() {
		var s [Lanes]float32
		sumLanes8AVX2(&s[0], &src[0], &offs.offs[0], n)
		copy(dst[:lanes], s[:])
		return
	}
	sumLanes8Go(dst, src, offs.offs, lanes)
}

// Matrices returns Bᵀ (a x a), G (a x 3) and Aᵀ (m x a) of t.
func (t WinogradTile) Matrices() (bt, g, at [][]float64) {
	switch t.check() {
	case F4x4:
		bt = [][]float64{
			{4, 0, -5, 0, 1, 0},
			{0, -4, -4, 1, 1, 0},
			{0, 4, -4, -1, 1, 0},
			{0, -2, -1, 2, 1, 0},
			{0, 2, -1, -2, 1, 0},
			{0, 4, 0, -5, 0, 1},
		}
		g = [][]float64{
			{1.0 / 4, 0, 0},
			{-1.0 / 6, -1.0 / 6, -1.0 / 6},
			{-1.0 / 6, 1.0 / 6, -1.0 / 6},
			{1.0 / 24, 1.0 / 12, 1.0 / 6},
			{1.0 / 24, -1.0 / 12, 1.0 / 6},
			{0, 0, 1},
		}
		at = [][]float64{
			{1, 1, 1, 1, 1, 0},
			{0, 1, -1, 2, -2, 0},
			{0, 1, 1, 4, 4, 0},
			{0, 1, -1, 8, -8, 1},
		}
	case F5x5:
		bt = [][]float64{
			{-4, 8, 5, -10, -1, 2, 0},
			{0, 4, -4, -9, 1, 2, 0},
			{0, -4, 12, -7, -3, 2, 0},
			{0, 2, -3, -4, 3, 2, 0},
			{0, -2, 5, 0, -5, 2, 0},
			{0, 4, 0, -5, 0, 1, 0},
			{0, -4, 8, 5, -10, -1, 2},
		}
		g = [][]float64{
			{-1.0 / 4, 0, 0},
			{-1.0 / 6, -1.0 / 6, -1.0 / 6},
			{1.0 / 18, -1.0 / 18, 1.0 / 18},
			{1.0 / 72, 1.0 / 36, 1.0 / 18},
			{-1.0 / 120, 1.0 / 60, -1.0 / 30},
			{32.0 / 45, 16.0 / 45, 8.0 / 45},
			{0, 0, 1.0 / 2},
		}
		at = [][]float64{
			{1, 1, 1, 1, 1, 1, 0},
			{0, 1, -1, 2, -2, 1.0 / 2, 0},
			{0, 1, 1, 4, 4, 1.0 / 4, 0},
			{0, 1, -1, 8, -8, 1.0 / 8, 0},
			{0, 1, 1, 16, 16, 1.0 / 16, 1},
		}
	}
	return bt, g, at
}
