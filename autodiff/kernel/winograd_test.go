package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// winoDense applies the 2-D transform L x Rᵀ in float64 for an
// lr x lc matrix L applied to the rows and an rr x rc matrix R applied to the
// columns of x (lc x rc).
func winoDense(l [][]float64, x [][]float64, r [][]float64) [][]float64 {
	tmp := make([][]float64, len(l))
	for i := range l {
		tmp[i] = make([]float64, len(x[0]))
		for k := range x {
			for j := range x[0] {
				tmp[i][j] += l[i][k] * x[k][j]
			}
		}
	}
	out := make([][]float64, len(l))
	for i := range out {
		out[i] = make([]float64, len(r))
		for j := range r {
			for k := range r[j] {
				out[i][j] += tmp[i][k] * r[j][k]
			}
		}
	}
	return out
}

func transposeM(m [][]float64) [][]float64 {
	out := make([][]float64, len(m[0]))
	for j := range out {
		out[j] = make([]float64, len(m))
		for i := range m {
			out[j][i] = m[i][j]
		}
	}
	return out
}

func winoMats(t WinogradTile) (bt, g, at, b, a [][]float64) {
	bt, g, at = t.Matrices()
	return bt, g, at, transposeM(bt), transposeM(at)
}

var winoTileList = []WinogradTile{F4x4, F5x5}

// TestWinogradIdentity checks the matrices: Aᵀ[(G g Gᵀ) ∘ (Bᵀ d B)]A is the
// valid 3x3 cross-correlation of the a x a tile d with g.
func TestWinogradIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tile := range winoTileList {
		bt, g, at, b, a := winoMats(tile)
		m, al := tile.Outputs(), tile.Size()
		if len(bt) != al || len(g) != al || len(at) != m {
			t.Fatalf("%v: matrices %dx, %dx, %dx", tile, len(bt), len(g), len(at))
		}
		for trial := 0; trial < 20; trial++ {
			d := make([][]float64, al)
			for i := range d {
				d[i] = make([]float64, al)
				for j := range d[i] {
					d[i][j] = rng.NormFloat64()
				}
			}
			f := make([][]float64, 3)
			for i := range f {
				f[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			}
			u := winoDense(g, f, g)
			v := winoDense(bt, d, transposeM(b))
			mm := make([][]float64, al)
			for i := range mm {
				mm[i] = make([]float64, al)
				for j := range mm[i] {
					mm[i][j] = u[i][j] * v[i][j]
				}
			}
			y := winoDense(at, mm, transposeM(a))
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					var want float64
					for p := 0; p < 3; p++ {
						for q := 0; q < 3; q++ {
							want += f[p][q] * d[i+p][j+q]
						}
					}
					if math.Abs(y[i][j]-want) > 1e-11*(1+math.Abs(want)) {
						t.Fatalf("%v trial %d: y[%d][%d] = %v, correlation %v", tile, trial, i, j, y[i][j], want)
					}
				}
			}
		}
	}
}

// winoLayout is a buffer geometry for the transform tests: tiles side by
// side in a tile-side buffer of rows x row values and a*a positions stride
// apart on the transform side.
type winoLayout struct{ tiles, row, stride int }

var winoLayouts = []winoLayout{
	{1, 7 * Lanes, Lanes},
	{1, 7*Lanes + 3, Lanes + 5},
	{3, 17 * Lanes, 3 * Lanes},
	{4, 22*Lanes + 1, 7*Lanes + 2},
	{7, 37 * Lanes, 9 * Lanes},
}

// lens returns the lengths of the tile-side and transform-side buffers of
// lay for tile t.
func (lay winoLayout) lens(t WinogradTile) (tileLen, posLen int) {
	m, a := t.Outputs(), t.Size()
	return (a-1)*lay.row + Lanes*(m*(lay.tiles-1)+a), (a*a-1)*lay.stride + Lanes*lay.tiles
}

// TestWinogradTwinsMath checks each Go twin against the dense float64
// transform it computes, on each of the 8 lanes of every tile.
func TestWinogradTwinsMath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tile := range winoTileList {
		bt, _, at, b, a := winoMats(tile)
		m, al := tile.Outputs(), tile.Size()
		for _, lay := range winoLayouts {
			tileLen, posLen := lay.lens(tile)
			src := randSlice32(rng, max(tileLen, posLen))
			tileAt := func(buf []float32, n, k, l int) [][]float64 {
				out := make([][]float64, n)
				for i := range out {
					out[i] = make([]float64, n)
					for j := range out[i] {
						out[i][j] = float64(buf[i*lay.row+Lanes*(m*k+j)+l])
					}
				}
				return out
			}
			posAt := func(buf []float32, k, l int) [][]float64 {
				out := make([][]float64, al)
				for i := range out {
					out[i] = make([]float64, al)
					for j := range out[i] {
						out[i][j] = float64(buf[(al*i+j)*lay.stride+Lanes*k+l])
					}
				}
				return out
			}
			check := func(name string, got, want [][]float64) {
				t.Helper()
				for i := range want {
					for j := range want[i] {
						if math.Abs(got[i][j]-want[i][j]) > 1e-4*(1+math.Abs(want[i][j])) {
							t.Fatalf("%v %s %+v: [%d][%d] = %v, dense %v", tile, name, lay, i, j, got[i][j], want[i][j])
						}
					}
				}
			}
			in := make([]float32, posLen)
			winogradInGo(tile, in, lay.stride, src, lay.row, lay.tiles)
			out := make([]float32, tileLen)
			winogradOutGo(tile, out, lay.row, src, lay.stride, lay.tiles, 0.5)
			outAdj := make([]float32, posLen)
			winogradOutAdjGo(tile, outAdj, lay.stride, src, lay.row, lay.tiles)
			for k := 0; k < lay.tiles; k++ {
				for l := 0; l < Lanes; l++ {
					check("in", posAt(in, k, l), winoDense(bt, tileAt(src, al, k, l), bt))
					y := winoDense(at, posAt(src, k, l), at)
					for i := range y {
						for j := range y[i] {
							y[i][j] += 0.5
						}
					}
					check("out", tileAt(out, m, k, l), y)
					check("outAdj", posAt(outAdj, k, l), winoDense(a, tileAt(src, m, k, l), a))
				}
			}
			// The adjoint of the input transform adds tile by tile; with one
			// tile at a time on a zero buffer it is B v Bᵀ.
			for k := 0; k < lay.tiles; k++ {
				one := make([]float32, tileLen)
				winogradInAdjGo(tile, one[Lanes*m*k:], lay.row, src[Lanes*k:], lay.stride, 1)
				for l := 0; l < Lanes; l++ {
					check("inAdj", tileAt(one, al, k, l), winoDense(b, posAt(src, k, l), b))
				}
			}
		}
	}
}

// TestWinogradAdjoints checks <In d, v> = <d, InAdj v> and <Out v, y> =
// <v, OutAdj y> (without bias) on whole buffers of several tiles, so that
// the overlapping columns of neighbouring tiles are summed as the adjoint of
// reading them twice.
func TestWinogradAdjoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dot := func(a, b []float32) float64 {
		var s float64
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	for _, tile := range winoTileList {
		m, al := tile.Outputs(), tile.Size()
		for _, lay := range winoLayouts {
			tileLen, posLen := lay.lens(tile)
			d := randSlice32(rng, tileLen)
			v := randSlice32(rng, posLen)
			// Values the transforms do not touch must not count.
			mask := make([]float32, posLen)
			for k := 0; k < lay.tiles; k++ {
				for p := 0; p < al*al; p++ {
					for l := 0; l < Lanes; l++ {
						mask[p*lay.stride+Lanes*k+l] = 1
					}
				}
			}
			for i := range v {
				v[i] *= mask[i]
			}
			for i := range d {
				if i%lay.row >= Lanes*(m*(lay.tiles-1)+al) {
					d[i] = 0
				}
			}
			in := make([]float32, posLen)
			winogradInGo(tile, in, lay.stride, d, lay.row, lay.tiles)
			adj := make([]float32, tileLen)
			winogradInAdjGo(tile, adj, lay.row, v, lay.stride, lay.tiles)
			if l, r := dot(in, v), dot(d, adj); math.Abs(l-r) > 1e-4*(math.Abs(l)+1) {
				t.Errorf("%v %+v: <In d, v> = %v, <d, InAdj v> = %v", tile, lay, l, r)
			}
			// Output transform: m x m blocks, no overlap.
			y := randSlice32(rng, tileLen)
			for i := range y {
				if i%lay.row >= Lanes*m*lay.tiles || i/lay.row >= m {
					y[i] = 0
				}
			}
			out := make([]float32, tileLen)
			winogradOutGo(tile, out, lay.row, v, lay.stride, lay.tiles, 0)
			outAdj := make([]float32, posLen)
			winogradOutAdjGo(tile, outAdj, lay.stride, y, lay.row, lay.tiles)
			if l, r := dot(out, y), dot(v, outAdj); math.Abs(l-r) > 1e-4*(math.Abs(l)+1) {
				t.Errorf("%v %+v: <Out v, y> = %v, <v, OutAdj y> = %v", tile, lay, l, r)
			}
		}
	}
}

// specials32 replaces about one value in eight by a special one.
func specials32(rng *rand.Rand, v []float32) {
	sp := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), 1e-40, 3e38, -3e38}
	for i := range v {
		if rng.IntN(8) == 0 {
			v[i] = sp[rng.IntN(len(sp))]
		}
	}
}

// sameBits reports whether got and want hold the same values, NaN matching
// any NaN.
func sameBits(got, want []float32) (int, bool) {
	for i := range want {
		g, w := got[i], want[i]
		if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
			return i, false
		}
	}
	return 0, true
}

// TestWinogradAsmTwins compares each Winograd assembly kernel with its Go
// twin, bit for bit, on random values with and without special values.
func TestWinogradAsmTwins(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 assembly in this build")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	asm := map[WinogradTile][4]func(dst, src []float32, lay winoLayout){
		F4x4: {
			func(d, s []float32, lay winoLayout) { winogradIn4AVX2(&d[0], lay.stride, &s[0], lay.row, lay.tiles) },
			func(d, s []float32, lay winoLayout) { winogradInAdj4AVX2(&d[0], lay.row, &s[0], lay.stride, lay.tiles) },
			func(d, s []float32, lay winoLayout) {
				winogradOut4AVX2(&d[0], lay.row, &s[0], lay.stride, lay.tiles, -0.75)
			},
			func(d, s []float32, lay winoLayout) {
				winogradOutAdj4AVX2(&d[0], lay.stride, &s[0], lay.row, lay.tiles)
			},
		},
		F5x5: {
			func(d, s []float32, lay winoLayout) { winogradIn5AVX2(&d[0], lay.stride, &s[0], lay.row, lay.tiles) },
			func(d, s []float32, lay winoLayout) { winogradInAdj5AVX2(&d[0], lay.row, &s[0], lay.stride, lay.tiles) },
			func(d, s []float32, lay winoLayout) {
				winogradOut5AVX2(&d[0], lay.row, &s[0], lay.stride, lay.tiles, -0.75)
			},
			func(d, s []float32, lay winoLayout) {
				winogradOutAdj5AVX2(&d[0], lay.stride, &s[0], lay.row, lay.tiles)
			},
		},
	}
	for _, tile := range winoTileList {
		twins := [4]func(dst, src []float32, lay winoLayout){
			func(d, s []float32, lay winoLayout) { winogradInGo(tile, d, lay.stride, s, lay.row, lay.tiles) },
			func(d, s []float32, lay winoLayout) { winogradInAdjGo(tile, d, lay.row, s, lay.stride, lay.tiles) },
			func(d, s []float32, lay winoLayout) { winogradOutGo(tile, d, lay.row, s, lay.stride, lay.tiles, -0.75) },
			func(d, s []float32, lay winoLayout) { winogradOutAdjGo(tile, d, lay.stride, s, lay.row, lay.tiles) },
		}
		for _, withSpecials := range []bool{false, true} {
			for _, lay := range winoLayouts {
				tileLen, posLen := lay.lens(tile)
				src := randSlice32(rng, max(tileLen, posLen)+11)
				base := randSlice32(rng, max(tileLen, posLen)+11)
				if withSpecials {
					specials32(rng, src)
				}
				for k, name := range []string{"In", "InAdj", "Out", "OutAdj"} {
					got := append([]float32(nil), base...)
					want := append([]float32(nil), base...)
					asm[tile][k](got, src, lay)
					twins[k](want, src, lay)
					if i, ok := sameBits(got, want); !ok {
						t.Fatalf("%v %s %+v specials %v: [%d] = %v, twin %v", tile, name, lay, withSpecials, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestWinogradRoundings checks the rounding counts the error bound uses.
func TestWinogradRoundings(t *testing.T) {
	for _, tc := range []struct {
		tile                   WinogradTile
		in, inAdj, out, outAdj int
	}{{F4x4, 4, 6, 6, 4}, {F5x5, 6, 10, 8, 8}} {
		in, inAdj, out, outAdj := tc.tile.Roundings()
		if in != tc.in || inAdj != tc.inAdj || out != tc.out || outAdj != tc.outAdj {
			t.Errorf("%v: roundings %d %d %d %d, want %d %d %d %d", tc.tile, in, inAdj, out, outAdj, tc.in, tc.inAdj, tc.out, tc.outAdj)
		}
	}
	if s := F5x5.String(); s != "F(5x5,3x3)" {
		t.Errorf("String() = %q", s)
	}
}

// interleaveCase is one plane geometry: n pixels of an h x w plane placed
// in a padded buffer row values wide, pad values from the top left.
type interleaveCase struct{ h, w, row, pad int }

func (c interleaveCase) offsets() []int32 {
	var offs []int32
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			offs = append(offs, int32(((y+c.pad)*c.row+x+c.pad)*Lanes))
		}
	}
	return offs
}

// TestInterleave8 checks Interleave8 and Deinterleave8 under every
// implementation against their definition, for full and partial lane sets,
// and that they are inverse.
func TestInterleave8(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	cases := []interleaveCase{{1, 1, 1, 0}, {2, 3, 4, 1}, {1, 8, 8, 0}, {3, 3, 5, 1}, {15, 15, 18, 0}, {7, 7, 10, 1}, {13, 13, 16, 0}, {5, 5, 8, 0}, {30, 30, 32, 1}}
	forEachImpl(t, func(t *testing.T) {
		for _, c := range cases {
			offs := c.offsets()
			n := len(offs)
			stride := n + 3
			for _, lanes := range []int{8, 5, 1, 0} {
				name := fmt.Sprintf("%+v lanes %d", c, lanes)
				src := randSlice32(rng, 8*stride)
				bufLen := (c.h+2*c.pad+1)*c.row*Lanes + Lanes
				dst := randSlice32(rng, bufLen)
				keep := append([]float32(nil), dst...)
				Interleave8(dst, NewOffsets(offs), src, stride, lanes)
				touched := map[int]bool{}
				for p, o := range offs {
					for l := 0; l < Lanes; l++ {
						want := float32(0)
						if l < lanes {
							want = src[l*stride+p]
						}
						touched[int(o)+l] = true
						if dst[int(o)+l] != want {
							t.Fatalf("%s: interleaved pixel %d lane %d = %v, want %v", name, p, l, dst[int(o)+l], want)
						}
					}
				}
				for i := range dst {
					if !touched[i] && dst[i] != keep[i] {
						t.Fatalf("%s: value %d outside the offsets changed", name, i)
					}
				}
				back := randSlice32(rng, 8*stride)
				keepBack := append([]float32(nil), back...)
				Deinterleave8(back, stride, dst, NewOffsets(offs), lanes)
				for l := 0; l < Lanes; l++ {
					for p := 0; p < stride; p++ {
						want := keepBack[l*stride+p]
						if l < lanes && p < n {
							want = src[l*stride+p]
						}
						if back[l*stride+p] != want {
							t.Fatalf("%s: deinterleaved lane %d pixel %d = %v, want %v", name, l, p, back[l*stride+p], want)
						}
					}
				}
			}
		}
	})
}

// sumLanesValue returns a value for the sums' tests: magnitudes far apart,
// so that the order of the additions shows in the bits, and now and then
// a zero of either sign, a subnormal, an infinity or a NaN with a payload
// of its own (an addition of two NaNs keeps its first operand's).
func sumLanesValue(rng *rand.Rand) float32 {
	switch rng.IntN(40) {
	case 0:
		return float32(math.Copysign(0, -1))
	case 1:
		return 0
	case 2:
		return math.Float32frombits(uint32(rng.IntN(1 << 23)))
	case 3:
		return float32(math.Inf(2*rng.IntN(2) - 1))
	case 4:
		return math.Float32frombits(0x7f800001 | uint32(rng.IntN(1<<23)) | uint32(rng.IntN(2))<<31)
	}
	return float32((rng.Float64()*2 - 1) * math.Pow(10, float64(rng.IntN(17)-8)))
}

// TestSumLanes8 checks SumLanes8 under every implementation against
// Deinterleave8 and Sum, bit for bit (NaN payloads included), for planes
// of every length up to 200 (the 13x13 and 5x5 planes of the digits
// layers among them) and one longer than Sum's blocks, offsets in any
// order, full and partial lane sets; and sumLanes8AVX2 against its Go
// twin.
func TestSumLanes8(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	lengths := []int{reduceChunk + 9}
	for n := 0; n <= 200; n++ {
		lengths = append(lengths, n)
	}
	forEachImpl(t, func(t *testing.T) {
		for _, n := range lengths {
			for _, nan := range []bool{false, true} {
				// n pixels in a buffer of n+3 slots, in shuffled order.
				offs := make([]int32, n)
				for p, slot := range rng.Perm(n + 3)[:n] {
					offs[p] = int32(slot * Lanes)
				}
				src := make([]float32, (n+3)*Lanes)
				for i := range src {
					src[i] = sumLanesValue(rng)
					if !nan && src[i] != src[i] {
						src[i] = 1
					}
				}
				planes := make([]float32, Lanes*n)
				Deinterleave8(planes, n, src, NewOffsets(offs), Lanes)
				for _, lanes := range []int{8, 5, 1, 0} {
					dst := make([]float32, Lanes)
					for i := range dst {
						dst[i] = -7
					}
					SumLanes8(dst, src, NewOffsets(offs), lanes)
					for l := range dst {
						want := float32(-7)
						if l < lanes {
							want = Sum(planes[l*n : (l+1)*n])
						}
						if math.Float32bits(dst[l]) != math.Float32bits(want) {
							t.Fatalf("%d pixels, lanes %d: lane %d sums to %v (%#x), Sum of its plane %v (%#x)",
								n, lanes, l, dst[l], math.Float32bits(dst[l]), want, math.Float32bits(want))
						}
					}
				}
				if haveAVX2 && n > 0 && n <= reduceChunk {
					var got, want [Lanes]float32
					sumLanes8AVX2(&got[0], &src[0], &offs[0], n)
					sumLanes8Twin(want[:], src, offs)
					for l := range got {
						// The twin's additions of two NaNs may take either
						// operand's payload: NaN matches NaN.
						if math.Float32bits(got[l]) != math.Float32bits(want[l]) && !(got[l] != got[l] && want[l] != want[l]) {
							t.Fatalf("%d pixels: sumLanes8AVX2 lane %d = %v, twin %v", n, l, got[l], want[l])
						}
					}
				}
			}
		}
	})
}

// TestWinogradPanics checks the argument validation of the Winograd kernels.
func TestWinogradPanics(t *testing.T) {
	buf := make([]float32, 4096)
	offs := NewOffsets([]int32{0, 8, 4090})
	short := NewOffsets([]int32{0, 8})
	for _, tc := range []struct {
		name, msg string
		f         func()
	}{
		{"unknown tile", errWinoTile, func() { WinogradIn(3, buf, 8, buf, 48, 1) }},
		{"negative tiles", errWinoTiles, func() { WinogradIn(F4x4, buf, 8, buf, 48, -1) }},
		{"row too small", errWinoStride, func() { WinogradIn(F4x4, buf, 16, buf, 47, 1) }},
		{"stride too small", errWinoStride, func() { WinogradOut(F5x5, buf, 40, buf, 7, 1, 0) }},
		{"short src", errWinoShort, func() { WinogradIn(F4x4, buf, 8, buf[:200], 48, 1) }},
		{"short dst", errWinoShort, func() { WinogradOutAdj(F4x4, buf[:35*8], 8, buf, 32, 1) }},
		{"short adj dst", errWinoShort, func() { WinogradInAdj(F5x5, buf[:100], 56, buf, 8, 1) }},
		{"lanes", errLanes, func() { Interleave8(buf, short, buf, 2, 9) }},
		{"offset", errOffsets, func() { Interleave8(buf, offs, buf, 3, 8) }},
		{"negative offset", errOffsets, func() { NewOffsets([]int32{0, -8}) }},
		{"plane stride", errPlanes, func() { Deinterleave8(buf, 1, buf, short, 8) }},
		{"planes short", errPlanes, func() { Deinterleave8(buf[:9], 2, buf, short, 8) }},
	} {
		func() {
			defer func() {
				if r := recover(); r != tc.msg {
					t.Errorf("%s: recovered %v, want %q", tc.name, r, tc.msg)
				}
			}()
			tc.f()
		}()
	}
}
