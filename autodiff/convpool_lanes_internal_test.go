package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// lanesCase is a block of lanes images of filter fi of f, their output
// planes h x w in an interleaved buffer opw pixels wide, pooled 2 x 2 by 2
// in ceil or floor mode.
type lanesCase struct {
	h, w, opw, lanes, fi, f int
	ceil, relu              bool
}

// geom returns the output side of a Winograd geometry for the case's
// buffer, the pooling of its planes and the buffer's offsets, or ok false
// when the windows do not cover the planes.
func (c lanesCase) geom() (wg *winoGeom, cp *convPool[float32], offs kernel.Offsets, ok bool) {
	oh, ok1 := poolOutSize(c.h, 2, 2, c.ceil)
	ow, ok2 := poolOutSize(c.w, 2, 2, c.ceil)
	if !ok1 || !ok2 || !poolCovers(c.h, c.w, oh, ow) {
		return nil, nil, offs, false
	}
	rows := c.h + 1 // a row of padding below, as the tiles leave it
	wg = &winoGeom{opw: c.opw, outLen: rows * c.opw * kernel.Lanes}
	planes := (8 + c.lanes) * c.f // the block's images from image 8 on
	cp = &convPool[float32]{k: 2, s: 2, h: c.h, w: c.w, oh: oh, ow: ow, relu: c.relu,
		out: make([]float32, planes*oh*ow), idx: make([]int32, planes*oh*ow)}
	var o []int32
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			o = append(o, int32((y*c.opw+x)*kernel.Lanes))
		}
	}
	return wg, cp, kernel.NewOffsets(o), true
}

func lanesCases() []lanesCase {
	var cases []lanesCase
	for h := 1; h <= 11; h++ {
		for w := 1; w <= 11; w++ {
			for _, ceil := range []bool{true, false} {
				for _, lanes := range []int{8, 5, 1} {
					cases = append(cases, lanesCase{h: h, w: w, opw: w + h%3, lanes: lanes, fi: 1, f: 3, ceil: ceil, relu: (h+w+lanes)%2 == 0})
				}
			}
		}
	}
	// The digits' layers: 13x13 (F(5x5), 15 wide) and 5x5.
	for _, lanes := range []int{8, 4} {
		cases = append(cases, lanesCase{h: 13, w: 13, opw: 15, lanes: lanes, fi: 2, f: 4, ceil: true, relu: true},
			lanesCase{h: 5, w: 5, opw: 5, lanes: lanes, fi: 0, f: 2, ceil: true, relu: true},
			lanesCase{h: 13, w: 13, opw: 15, lanes: lanes, fi: 3, f: 4, ceil: true, relu: false})
	}
	return cases
}

// lanesValue draws from the pooling tests' values (ties, zeros of both
// signs, infinities) and, at nanRate, NaNs with payloads of their own.
func lanesValue(r *rand.Rand, nanRate float64) float32 {
	if r.Float64() < nanRate {
		return math.Float32frombits(0x7fc00000 | uint32(r.IntN(1<<22)) | uint32(r.IntN(2))<<31)
	}
	if r.IntN(8) == 0 {
		return math.Float32frombits(uint32(r.IntN(1<<23)) | uint32(r.IntN(2))<<31) // subnormal
	}
	return float32(poolTieValues[r.IntN(len(poolTieValues)-1)])
}

// TestPoolInterleaved checks pooling in the interleaved layout against
// taking the planes out and pooling them (Deinterleave8, poolLanes), bit
// for bit: values, signs of zeros and NaN payloads, and the positions
// chosen on ties; on every implementation, planes of every small size in
// ceil and floor mode where the windows cover them, full and partial
// blocks, with and without ReLU, and the digits' 13x13 and 5x5 planes.
// The assembly is checked against its definition poolLanes2x2Go on its
// own, with what lies around its outputs untouched.
func TestPoolInterleaved(t *testing.T) {
	eachLanesCase(t, rand.New(rand.NewPCG(71, 72)), []float64{0, 0.03, 0.3}, checkPoolInterleaved)
}

// eachLanesCase calls check on every implementation, for every case of
// lanesCases whose windows cover its planes, at every rate of NaNs.
func eachLanesCase(t *testing.T, r *rand.Rand, nanRates []float64,
	check func(t *testing.T, r *rand.Rand, name string, c lanesCase, wg *winoGeom, cp *convPool[float32], offs kernel.Offsets, nanRate float64)) {
	forEachImpl(t, func(t *testing.T) {
		for _, c := range lanesCases() {
			wg, cp, offs, ok := c.geom()
			if !ok {
				continue
			}
			for _, nanRate := range nanRates {
				check(t, r, fmt.Sprintf("%+v NaN rate %v", c, nanRate), c, wg, cp, offs, nanRate)
			}
		}
	})
}

// lanesValues returns n values of lanesValue.
func lanesValues(r *rand.Rand, n int, nanRate float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = lanesValue(r, nanRate)
	}
	return v
}

func checkPoolInterleaved(t *testing.T, r *rand.Rand, name string, c lanesCase, wg *winoGeom, cp *convPool[float32], offs kernel.Offsets, nanRate float64) {
	t.Helper()
	pw := wg.windows(cp)
	L, hw, ohw := kernel.Lanes, c.h*c.w, cp.oh*cp.ow
	src := lanesValues(r, wg.outLen, nanRate)
	// The planes way: poolLanes into a second convPool.
	want := *cp
	want.out, want.idx = make([]float32, len(cp.out)), make([]int32, len(cp.idx))
	planes := make([]float32, L*hw)
	kernel.Deinterleave8(planes, hw, src, offs, c.lanes)
	for i := range cp.out {
		cp.out[i], cp.idx[i] = -3, -3
		want.out[i], want.idx[i] = -3, -3
	}
	want.poolLanes(planes, 8, c.fi, c.f, c.lanes, make([]float32, L*ohw), make([]int32, L*ohw))
	y, yi := make([]float32, L*ohw), make([]int32, L*ohw)
	poolInterleaved(cp, pw, src, 8, c.fi, c.f, c.lanes, y, yi)
	for i := range want.out {
		if math.Float32bits(cp.out[i]) != math.Float32bits(want.out[i]) || cp.idx[i] != want.idx[i] {
			t.Fatalf("%s: pooled [%d] = %v (%#x) at %d, the planes give %v (%#x) at %d", name, i,
				cp.out[i], math.Float32bits(cp.out[i]), cp.idx[i], want.out[i], math.Float32bits(want.out[i]), want.idx[i])
		}
	}
	if !useMaxPoolAsm() || ohw < 8 {
		return
	}
	// The assembly against its definition, eight lanes, a stride with a
	// gap between the planes, guards around them.
	stride := ohw + 3
	got, gotIdx := make([]float32, 8*stride+2), make([]int32, 8*stride+2)
	def, defIdx := make([]float32, len(got)), make([]int32, len(got))
	for i := range got {
		got[i], def[i], gotIdx[i], defIdx[i] = -5, -5, -5, -5
	}
	relu := 0
	if c.relu {
		relu = 1
	}
	poolLanes2x2AVX2(&got[1], &gotIdx[1], stride, &src[0], &pw.t[0], ohw, relu)
	poolLanes2x2Go(def[1:], defIdx[1:], stride, src, pw.t, ohw, L, c.relu)
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(def[i]) || gotIdx[i] != defIdx[i] {
			t.Fatalf("%s: poolLanes2x2AVX2 [%d] = %v at %d, poolLanes2x2Go %v at %d", name, i, got[i], gotIdx[i], def[i], defIdx[i])
		}
	}
}

// TestUnpoolInterleaved checks the output gradient built in the
// interleaved layout against building its planes (poolGrad.plane) and
// interleaving them (Interleave8), bit for bit, with the values outside
// the planes' offsets untouched: gradients of both signs, zeros of both
// signs, subnormals, infinities and NaNs with payloads, masked by the
// pooled output (itself pooled from such values) with ReLU; the cases and
// implementations of TestPoolInterleaved. The assembly is checked
// against its definition unpoolLanes2x2Go on its own.
func TestUnpoolInterleaved(t *testing.T) {
	eachLanesCase(t, rand.New(rand.NewPCG(73, 74)), []float64{0, 0.05}, checkUnpoolInterleaved)
}

func checkUnpoolInterleaved(t *testing.T, r *rand.Rand, name string, c lanesCase, wg *winoGeom, cp *convPool[float32], offs kernel.Offsets, nanRate float64) {
	t.Helper()
	pw := wg.windows(cp)
	L, hw, ohw := kernel.Lanes, c.h*c.w, cp.oh*cp.ow
	// The pooled output and positions of the block, from random planes.
	src := lanesValues(r, wg.outLen, nanRate)
	planes := make([]float32, L*hw)
	kernel.Deinterleave8(planes, hw, src, offs, c.lanes)
	cp.poolLanes(planes, 8, c.fi, c.f, c.lanes, make([]float32, L*ohw), make([]int32, L*ohw))
	g := make([]float32, len(cp.out))
	for i := range g {
		g[i] = lanesValue(r, nanRate)
		if r.IntN(4) == 0 {
			g[i] = float32((r.Float64() - 0.5) * 1e3)
		}
	}
	pg := &poolGrad[float32]{convPool: cp, g: g}
	// The planes way.
	want := make([]float32, wg.outLen)
	for i := range want {
		want[i] = lanesValue(r, 0)
	}
	got := append([]float32(nil), want...)
	dy := make([]float32, L*hw)
	for l := 0; l < c.lanes; l++ {
		pg.plane((8+l)*c.f+c.fi, dy[l*hw:(l+1)*hw])
	}
	kernel.Interleave8(want, offs, dy, hw, c.lanes)
	gs, xs, is := make([]float32, L*ohw), make([]float32, L*hw), make([]int32, L*ohw)
	unpoolInterleaved(pg, pw, got, 8, c.fi, c.f, c.lanes, gs, xs, is)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: interleaved gradient [%d] = %v (%#x), the planes give %v (%#x)", name, i,
				got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
	if !useMaxPoolAsm() || ohw < 8 {
		return
	}
	// The assembly against its definition, eight lanes of random values
	// and positions within each window, with and without the mask.
	stride := ohw + 2
	gl, xl, il := make([]float32, 8*stride), make([]float32, 8*stride), make([]int32, 8*stride)
	for i := range gl {
		gl[i], xl[i] = lanesValue(r, nanRate), lanesValue(r, nanRate)
		if k := i % stride; k < ohw {
			il[i] = pw.t[8*k+4+r.IntN(4)]
		}
	}
	for _, x := range [][]float32{xl, nil} {
		asm := make([]float32, wg.outLen)
		for i := range asm {
			asm[i] = lanesValue(r, 0)
		}
		def := append([]float32(nil), asm...)
		var xp *float32
		if x != nil {
			xp = &x[0]
		}
		unpoolLanes2x2AVX2(&asm[0], &pw.t[0], ohw, &gl[0], xp, &il[0], stride)
		unpoolLanes2x2Go(def, pw.t, ohw, gl, x, il, stride, L)
		for i := range asm {
			if math.Float32bits(asm[i]) != math.Float32bits(def[i]) {
				t.Fatalf("%s, mask %v: unpoolLanes2x2AVX2 [%d] = %v (%#x), unpoolLanes2x2Go %v (%#x)", name, x != nil, i,
					asm[i], math.Float32bits(asm[i]), def[i], math.Float32bits(def[i]))
			}
		}
	}
}
