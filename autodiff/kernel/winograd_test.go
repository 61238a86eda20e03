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

func winoMats() (bt, g, at, b, gt, a [][]float64) {
	bt6, g6, at4 := WinogradMatrices()
	for i := range bt6 {
		bt = append(bt, bt6[i][:])
	}
	for i := range g6 {
		g = append(g, g6[i][:])
	}
	for i := range at4 {
		at = append(at, at4[i][:])
	}
	return bt, g, at, transposeM(bt), transposeM(g), transposeM(at)
}

// TestWinogradIdentity checks the matrices: Aᵀ[(G g Gᵀ) ∘ (Bᵀ d B)]A is the
// valid 3x3 cross-correlation of the 6x6 tile d with g.
func TestWinogradIdentity(t *testing.T) {
	bt, g, at, b, _, a := winoMats()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		d := make([][]float64, 6)
		for i := range d {
			d[i] = make([]float64, 6)
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
		m := make([][]float64, 6)
		for i := range m {
			m[i] = make([]float64, 6)
			for j := range m[i] {
				m[i][j] = u[i][j] * v[i][j]
			}
		}
		y := winoDense(at, m, transposeM(a))
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				var want float64
				for p := 0; p < 3; p++ {
					for q := 0; q < 3; q++ {
						want += f[p][q] * d[i+p][j+q]
					}
				}
				if math.Abs(y[i][j]-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("trial %d: y[%d][%d] = %v, correlation %v", trial, i, j, y[i][j], want)
				}
			}
		}
	}
}

// winoLayout is a buffer geometry for the transform tests: tiles side by
// side in a tile-side buffer of rows x row values and 36 positions stride
// apart on the transform side.
type winoLayout struct{ tiles, row, stride int }

var winoLayouts = []winoLayout{
	{1, 6 * Lanes, Lanes},
	{1, 6*Lanes + 3, Lanes + 5},
	{3, 14 * Lanes, 3 * Lanes},
	{4, 18*Lanes + 1, 7*Lanes + 2},
	{7, 30 * Lanes, 9 * Lanes},
}

// TestWinogradTwinsMath checks each Go twin against the dense float64
// transform it computes: the tile side of each of the 8 lanes of every tile
// against L x Rᵀ.
func TestWinogradTwinsMath(t *testing.T) {
	bt, _, at, b, _, a := winoMats()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, lay := range winoLayouts {
		tileLen := 5*lay.row + Lanes*(4*(lay.tiles-1)+6)
		posLen := 35*lay.stride + Lanes*lay.tiles
		src := randSlice32(rng, max(tileLen, posLen))
		tileAt := func(buf []float32, rows, cols, t, l int) [][]float64 {
			out := make([][]float64, rows)
			for i := range out {
				out[i] = make([]float64, cols)
				for j := range out[i] {
					out[i][j] = float64(buf[i*lay.row+Lanes*(4*t+j)+l])
				}
			}
			return out
		}
		posAt := func(buf []float32, t, l int) [][]float64 {
			out := make([][]float64, 6)
			for i := range out {
				out[i] = make([]float64, 6)
				for j := range out[i] {
					out[i][j] = float64(buf[(6*i+j)*lay.stride+Lanes*t+l])
				}
			}
			return out
		}
		check := func(name string, got, want [][]float64, scale float64) {
			t.Helper()
			for i := range want {
				for j := range want[i] {
					if math.Abs(got[i][j]-want[i][j]) > 1e-5*scale {
						t.Fatalf("%s %+v: [%d][%d] = %v, dense %v", name, lay, i, j, got[i][j], want[i][j])
					}
				}
			}
		}
		in := make([]float32, posLen)
		winogradInGo(in, lay.stride, src, lay.row, lay.tiles)
		out := make([]float32, tileLen)
		winogradOutGo(out, lay.row, src, lay.stride, lay.tiles, 0.5)
		outAdj := make([]float32, posLen)
		winogradOutAdjGo(outAdj, lay.stride, src, lay.row, lay.tiles)
		for tt := 0; tt < lay.tiles; tt++ {
			for l := 0; l < Lanes; l++ {
				check("in", posAt(in, tt, l), winoDense(bt, tileAt(src, 6, 6, tt, l), bt), 100)
				y := winoDense(at, posAt(src, tt, l), at)
				for i := range y {
					for j := range y[i] {
						y[i][j] += 0.5
					}
				}
				check("out", tileAt(out, 4, 4, tt, l), y, 100)
				check("outAdj", posAt(outAdj, tt, l), winoDense(a, tileAt(src, 4, 4, tt, l), a), 100)
			}
		}
		// The adjoint of the input transform adds tile by tile; with one
		// tile at a time on a zero buffer it is B v Bᵀ.
		for tt := 0; tt < lay.tiles; tt++ {
			one := make([]float32, tileLen)
			winogradInAdjGo(one[Lanes*4*tt:], lay.row, src[Lanes*tt:], lay.stride, 1)
			for l := 0; l < Lanes; l++ {
				got := make([][]float64, 6)
				for i := range got {
					got[i] = make([]float64, 6)
					for j := range got[i] {
						got[i][j] = float64(one[i*lay.row+Lanes*(4*tt+j)+l])
					}
				}
				check("inAdj", got, winoDense(b, posAt(src, tt, l), b), 100)
			}
		}
	}
}

// TestWinogradAdjoints checks <In d, v> = <d, InAdj v> and <Out m, y> =
// <m, OutAdj y> (without bias) on whole buffers of several tiles, so that
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
	for _, lay := range winoLayouts {
		tileLen := 5*lay.row + Lanes*(4*(lay.tiles-1)+6)
		posLen := 35*lay.stride + Lanes*lay.tiles
		d := randSlice32(rng, tileLen)
		v := randSlice32(rng, posLen)
		// Positions the transforms do not touch must not count.
		mask := make([]float32, posLen)
		for tt := 0; tt < lay.tiles; tt++ {
			for p := 0; p < 36; p++ {
				for l := 0; l < Lanes; l++ {
					mask[p*lay.stride+Lanes*tt+l] = 1
				}
			}
		}
		for i := range v {
			v[i] *= mask[i]
		}
		tmask := make([]float32, tileLen)
		for i := 0; i < 6; i++ {
			for j := 0; j < Lanes*(4*(lay.tiles-1)+6); j++ {
				tmask[i*lay.row+j] = 1
			}
		}
		for i := range d {
			d[i] *= tmask[i]
		}
		in := make([]float32, posLen)
		winogradInGo(in, lay.stride, d, lay.row, lay.tiles)
		adj := make([]float32, tileLen)
		winogradInAdjGo(adj, lay.row, v, lay.stride, lay.tiles)
		if l, r := dot(in, v), dot(d, adj); math.Abs(l-r) > 1e-4*(math.Abs(l)+1) {
			t.Errorf("%+v: <In d, v> = %v, <d, InAdj v> = %v", lay, l, r)
		}
		// Output transform: 4x4 blocks, no overlap.
		y := randSlice32(rng, tileLen)
		for i := range y {
			if i%lay.row >= Lanes*4*lay.tiles || i/lay.row >= 4 {
				y[i] = 0
			}
		}
		out := make([]float32, tileLen)
		winogradOutGo(out, lay.row, v, lay.stride, lay.tiles, 0)
		outAdj := make([]float32, posLen)
		winogradOutAdjGo(outAdj, lay.stride, y, lay.row, lay.tiles)
		if l, r := dot(out, y), dot(v, outAdj); math.Abs(l-r) > 1e-4*(math.Abs(l)+1) {
			t.Errorf("%+v: <Out m, y> = %v, <m, OutAdj y> = %v", lay, l, r)
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
	for _, withSpecials := range []bool{false, true} {
		for _, lay := range winoLayouts {
			tileLen := 5*lay.row + Lanes*(4*(lay.tiles-1)+6)
			posLen := 35*lay.stride + Lanes*lay.tiles
			src := randSlice32(rng, max(tileLen, posLen)+11)
			base := randSlice32(rng, max(tileLen, posLen)+11)
			if withSpecials {
				specials32(rng, src)
			}
			for _, k := range []struct {
				name     string
				asm, go_ func(dst []float32)
			}{
				{"In", func(d []float32) { winogradInAVX2(&d[0], lay.stride, &src[0], lay.row, lay.tiles) },
					func(d []float32) { winogradInGo(d, lay.stride, src, lay.row, lay.tiles) }},
				{"InAdj", func(d []float32) { winogradInAdjAVX2(&d[0], lay.row, &src[0], lay.stride, lay.tiles) },
					func(d []float32) { winogradInAdjGo(d, lay.row, src, lay.stride, lay.tiles) }},
				{"Out", func(d []float32) { winogradOutAVX2(&d[0], lay.row, &src[0], lay.stride, lay.tiles, -0.75) },
					func(d []float32) { winogradOutGo(d, lay.row, src, lay.stride, lay.tiles, -0.75) }},
				{"OutAdj", func(d []float32) { winogradOutAdjAVX2(&d[0], lay.stride, &src[0], lay.row, lay.tiles) },
					func(d []float32) { winogradOutAdjGo(d, lay.stride, src, lay.row, lay.tiles) }},
			} {
				got := append([]float32(nil), base...)
				want := append([]float32(nil), base...)
				k.asm(got)
				k.go_(want)
				if i, ok := sameBits(got, want); !ok {
					t.Fatalf("%s %+v specials %v: [%d] = %v, twin %v", k.name, lay, withSpecials, i, got[i], want[i])
				}
			}
		}
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
				Interleave8(dst, offs, src, stride, lanes)
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
				Deinterleave8(back, stride, dst, offs, lanes)
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

// TestWinogradPanics checks the argument validation of the Winograd kernels.
func TestWinogradPanics(t *testing.T) {
	buf := make([]float32, 4096)
	offs := []int32{0, 8, 4090}
	for _, tc := range []struct {
		name, msg string
		f         func()
	}{
		{"negative tiles", errWinoTiles, func() { WinogradIn(buf, 8, buf, 48, -1) }},
		{"row too small", errWinoStride, func() { WinogradIn(buf, 16, buf, 47, 1) }},
		{"stride too small", errWinoStride, func() { WinogradOut(buf, 32, buf, 7, 1, 0) }},
		{"short src", errWinoShort, func() { WinogradIn(buf, 8, buf[:200], 48, 1) }},
		{"short dst", errWinoShort, func() { WinogradOutAdj(buf[:35*8], 8, buf, 32, 1) }},
		{"short adj dst", errWinoShort, func() { WinogradInAdj(buf[:100], 48, buf, 8, 1) }},
		{"lanes", errLanes, func() { Interleave8(buf, offs[:2], buf, 2, 9) }},
		{"offset", errOffsets, func() { Interleave8(buf, offs, buf, 3, 8) }},
		{"plane stride", errPlanes, func() { Deinterleave8(buf, 1, buf, offs[:2], 8) }},
		{"planes short", errPlanes, func() { Deinterleave8(buf[:9], 2, buf, offs[:2], 8) }},
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
