package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// stridedSets returns the strided kernels of each implementation this
// machine has, with the packed kernel of the same rows and its width.
func stridedSets() []struct {
	name   string
	impl   int
	mr     int
	packed microKernel[asmKernel]
	ks     []stridedKernel
} {
	type set = struct {
		name   string
		impl   int
		mr     int
		packed microKernel[asmKernel]
		ks     []stridedKernel
	}
	var out []set
	for _, kn := range microKernels32() {
		if kn.fn == nil || !supported(kn.impl) {
			continue
		}
		ks := stridedKernelsAVX2()
		if kn.impl == implAVX512 {
			ks = stridedKernels512()
		}
		out = append(out, set{kn.name, kn.impl, kn.mr, kn, ks})
	}
	return out
}

// stridedOperands returns A (mr x k) and B (k x nr) stored with padded
// strides in each of the layouts the kernels read: packed panels, A
// row-major or transposed, B row-major.
type stridedLayout struct {
	name          string
	ars, acs, brs int
}

func stridedLayouts(mr, nr, k int) []stridedLayout {
	return []stridedLayout{
		{"packed", 1, mr, nr},
		{"rows", k + 3, 1, nr + 5},
		{"transposed", 1, mr + 7, nr + 16},
	}
}

// TestStridedKernels compares each strided kernel with its Go
// specification, sgemmStridedGo, in every layout, and checks that it has
// the bits of the packed kernel of the same implementation on the packed
// panels of the same values (the columns it covers).
func TestStridedKernels(t *testing.T) {
	sets := stridedSets()
	if len(sets) == 0 {
		t.Skip("no assembly kernels in this build or on this machine")
	}
	rng := rand.New(rand.NewPCG(9, 11))
	for _, s := range sets {
		mr, wide := s.mr, s.packed.nr
		for _, kn := range s.ks {
			for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 13, 100} {
				for _, beta := range []float32{0, 1, -0.5} {
					for _, lay := range stridedLayouts(mr, kn.nr, k) {
						name := fmt.Sprintf("%s/%dx%d/k=%d/beta=%v/%s", s.name, mr, kn.nr, k, beta, lay.name)
						a := randSlice32(rng, (mr-1)*lay.ars+(k-1)*lay.acs+1)
						b := randSlice32(rng, (k-1)*lay.brs+kn.nr)
						ldc := kn.nr + 3
						c := randSlice32(rng, mr*ldc)
						if beta == 0 {
							for i := range c {
								c[i] = float32(math.NaN())
							}
						}
						want := append([]float32(nil), c...)
						sgemmStridedGo(mr, kn.nr, k, a, lay.ars, lay.acs, b, lay.brs, want, ldc, beta)
						got := append([]float32(nil), c...)
						kn.fn(k, &a[0], lay.ars, lay.acs, &b[0], lay.brs, &got[0], ldc, beta)
						for i := range got {
							d := math.Abs(float64(got[i] - want[i]))
							if !(d <= 1e-6*float64(k+2)) && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want[i]))) {
								t.Fatalf("%s: c[%d] = %v, want %v", name, i, got[i], want[i])
							}
						}
						// The packed kernel on the same values, padded to its width.
						pa := make([]float32, mr*k)
						pb := make([]float32, wide*k)
						for p := 0; p < k; p++ {
							for i := 0; i < mr; i++ {
								pa[p*mr+i] = a[i*lay.ars+p*lay.acs]
							}
							copy(pb[p*wide:p*wide+kn.nr], b[p*lay.brs:p*lay.brs+kn.nr])
						}
						pc := make([]float32, mr*wide)
						for i := 0; i < mr; i++ {
							copy(pc[i*wide:i*wide+kn.nr], c[i*ldc:i*ldc+kn.nr])
						}
						s.packed.fn(k, &pa[0], &pb[0], &pc[0], wide, beta)
						for i := 0; i < mr; i++ {
							for j := 0; j < kn.nr; j++ {
								g, p := got[i*ldc+j], pc[i*wide+j]
								if math.Float32bits(g) != math.Float32bits(p) {
									t.Fatalf("%s: c[%d][%d] = %v, the packed kernel gives %v", name, i, j, g, p)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestRowKernels checks that each row kernel gives the bits of its strided
// kernel run on every tile of the row, for packed and in-place panels of
// B, with beta 0, 1 and another.
func TestRowKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	for _, impl := range []int{implAVX512, implAVX2} {
		if !supported(impl) {
			continue
		}
		row, kn, mr := rowKernel512(), stridedKernels512()[0], 8
		if impl == implAVX2 {
			row, kn, mr = rowKernelAVX2(), stridedKernelsAVX2()[0], 6
		}
		if row == nil {
			continue
		}
		for _, k := range []int{1, 3, 8, 37} {
			for _, panels := range []int{1, 2, 5} {
				for _, inPlace := range []bool{false, true} {
					for _, beta := range []float32{0, 1, -0.5} {
						brs, bps := kn.nr, kn.nr*k
						if inPlace {
							brs, bps = panels*kn.nr+3, kn.nr
						}
						a := randSlice32(rng, mr*k)
						b := randSlice32(rng, (k-1)*brs+(panels-1)*bps+kn.nr)
						ldc := panels*kn.nr + 5
						c := randSlice32(rng, mr*ldc)
						want := append([]float32(nil), c...)
						for p := 0; p < panels; p++ {
							kn.fn(k, &a[0], 1, mr, &b[p*bps], brs, &want[p*kn.nr], ldc, beta)
						}
						got := append([]float32(nil), c...)
						row(k, &a[0], 1, mr, &b[0], brs, bps, &got[0], ldc, beta, panels)
						for i := range got {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%dx%d k=%d panels=%d in place %v beta %v: c[%d] = %v, tile by tile %v",
									mr, kn.nr, k, panels, inPlace, beta, i, got[i], want[i])
							}
						}
						spec := append([]float32(nil), c...)
						sgemmRowGo(mr, kn.nr, k, a, 1, mr, b, brs, bps, spec, ldc, beta, panels)
						for i := range spec {
							if d := math.Abs(float64(spec[i] - got[i])); d > 1e-6*float64(k+2) {
								t.Fatalf("%dx%d k=%d panels=%d: c[%d] = %v, sgemmRowGo %v", mr, kn.nr, k, panels, i, got[i], spec[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestStridedKernelsFlushSubnormals checks that the strided kernels flush
// subnormals as the packed ones do, and restore MXCSR.
func TestStridedKernelsFlushSubnormals(t *testing.T) {
	for _, s := range stridedSets() {
		for _, kn := range s.ks {
			const k = 3
			sub := float32(1e-39)
			for _, c := range []struct {
				what       string
				av, bv, cv float32
				beta       float32
				want       float32
			}{
				{"subnormal a", sub, 1, 0, 0, 0},
				{"subnormal product", 1e-20, 1e-20, 0, 0, 0},
				{"subnormal c", 0, 0, sub, 1, 0},
				{"normal", 0.5, 0.25, 2, 1, 2.375},
			} {
				a, b := make([]float32, s.mr*k), make([]float32, kn.nr*k)
				for i := range a {
					a[i] = c.av
				}
				for i := range b {
					b[i] = c.bv
				}
				cs := make([]float32, s.mr*kn.nr)
				for i := range cs {
					cs[i] = c.cv
				}
				kn.fn(k, &a[0], 1, s.mr, &b[0], kn.nr, &cs[0], kn.nr, c.beta)
				for i, v := range cs {
					if d := math.Abs(float64(v - c.want)); d > 1e-6*math.Abs(float64(c.want)) {
						t.Fatalf("%s %dx%d, %s: c[%d] = %g, want %g", s.name, s.mr, kn.nr, c.what, i, v, c.want)
					}
				}
			}
			if y := flushProbe[0] * flushProbe[1]; y == 0 {
				t.Errorf("%s %dx%d: MXCSR was not restored", s.name, s.mr, kn.nr)
			}
		}
	}
}

// BenchmarkMicroKernels times the packed and strided micro-kernels on
// packed panels of kc = 384 (GFLOP/s of the tile's products).
func BenchmarkMicroKernels(b *testing.B) {
	const k = 384
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range stridedSets() {
		mr := s.mr
		a := randSlice32(rng, mr*k)
		bb := randSlice32(rng, s.packed.nr*k)
		c := make([]float32, mr*s.packed.nr)
		report := func(b *testing.B, nr int) {
			b.ReportMetric(2*float64(mr*nr*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		b.Run(fmt.Sprintf("%s/packed%dx%d", s.name, mr, s.packed.nr), func(b *testing.B) {
			for range b.N {
				s.packed.fn(k, &a[0], &bb[0], &c[0], s.packed.nr, 0)
			}
			report(b, s.packed.nr)
		})
		for _, kn := range s.ks {
			b.Run(fmt.Sprintf("%s/strided%dx%d", s.name, mr, kn.nr), func(b *testing.B) {
				for range b.N {
					kn.fn(k, &a[0], 1, mr, &bb[0], kn.nr, (*float32)(unsafe.Pointer(&c[0])), kn.nr, 0)
				}
				report(b, kn.nr)
			})
		}
	}
}

// TestGemmStridedBits checks that gemmStrided, which reads operands in
// place and runs the last columns on narrower kernels, gives the bits of
// the packed panels on the full-width kernel (gemmBlocks without strided
// kernels), on shapes with partial panels of rows and columns, several k
// blocks, both transposes, operands read in place or packed, alpha and
// beta of every kind, and a pre-packed op(A).
func TestGemmStridedBits(t *testing.T) {
	cases := []gemmCase{
		{m: 128, n: 64, k: 144, alpha: 1, beta: 0},
		{transB: true, m: 128, n: 64, k: 144, alpha: 1, beta: 1},
		{m: 64, n: 144, k: 128, alpha: 1, beta: 0},
		{m: 256, n: 80, k: 128, alpha: 1, beta: 0},
		{transB: true, m: 256, n: 128, k: 80, alpha: 1, beta: 1},
		{m: 64, n: 900, k: 28, alpha: 1, beta: 0},
		{transB: true, m: 64, n: 27, k: 900, alpha: 1, beta: 1},
		{transB: true, m: 20, n: 256, k: 2304, alpha: 1, beta: 0},
		{m: 20, n: 2304, k: 256, alpha: 1, beta: 0},
		{transA: true, m: 256, n: 2304, k: 20, alpha: 1, beta: 0},
		{transA: true, m: 100, n: 97, k: 400, alpha: 1, beta: 1},
		{m: 37, n: 61, k: 777, padA: 3, padB: 5, padC: 2, alpha: 1, beta: -0.5},
		{transA: true, transB: true, m: 45, n: 83, k: 50, padA: 1, padB: 2, alpha: 0.5, beta: 2},
		{m: 30, n: 40, k: 1000, padB: 1024 - 40, alpha: 1, beta: 0},
		{m: 7, n: 5, k: 3, alpha: -1, beta: 1},
		{m: 16, n: 640, k: 33, alpha: 1, beta: 0},
		{transB: true, m: 13, n: 200, k: 900, alpha: 1, beta: 1},
		{transB: true, transA: true, m: 9, n: 77, k: 500, alpha: 1, beta: 0},
	}
	rng := rand.New(rand.NewPCG(12, 13))
	defer func() { directOverride, swapOverride = nil, swaps }()
	forEachImpl(t, func(t *testing.T) {
		bl := blockingFor[float32]()
		if len(bl.sk) == 0 {
			t.Skip("no strided kernels")
		}
		packed := bl
		packed.sk = nil
		for ci, c := range cases {
			p := newProblem[float32](c, rng)
			if ci%2 == 1 {
				// Products near the smallest normal and a C of subnormals:
				// the tiles' additions differ in how they flush those.
				for i := range p.a {
					p.a[i] *= 4e-19
				}
				for i := range p.b {
					p.b[i] *= 1e-19
				}
				if c.beta != 0 {
					for i := range p.c0 {
						p.c0[i] *= 2e-38
					}
				}
			}
			run := func(bl blocking, pa *PackedA[float32]) []float32 {
				cm := append([]float32(nil), p.c0...)
				s := getScratch[float32](bl)
				defer putScratch(s)
				gemmBlocks(bl, s, pa, c.transA, c.transB, c.m, c.n, c.k, float32(c.alpha), p.a, p.lda, p.b, p.ldb, float32(c.beta), cm, p.ldc)
				return cm
			}
			want := run(packed, nil)
			var pa PackedA[float32]
			PackA(&pa, c.transA, c.m, c.k, float32(c.alpha), p.a, p.lda)
			for pol := range 15 {
				// Every choice of operands read in place, with and without
				// swapping the product where that is possible, then the
				// defaults.
				if pol < 12 {
					directOverride = func(bool, bool, int, int, int, float32, int, int) readsDirect {
						return readsDirect{a: pol&1 != 0, b: pol&2 != 0}
					}
				}
				if pol < 4 || pol >= 12 && pol < 14 {
					swapOverride = func(transB bool, m, n int, alpha, beta float32, pa bool) bool {
						return transB && !pa && alpha == 1 && (beta == 0 || beta == 1)
					}
				} else if pol < 8 || pol == 14 {
					swapOverride = func(bool, int, int, float32, float32, bool) bool { return false }
				}
				for _, got := range [][]float32{run(bl, nil), run(bl, &pa)} {
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want[i]))) {
							t.Fatalf("%v, policy %d: element %d is %v, the packed kernels give %v", c, pol, i, got[i], want[i])
						}
					}
				}
				directOverride, swapOverride = nil, swaps
			}
		}
	})
}

// TestAddTile checks addTile against addTileGo bit for bit (NaN for NaN):
// every number of rows to 9 and of columns to 50, strides longer than the
// rows, scales that make products overflow, round and turn subnormal, and
// values among which are infinities, NaNs, both zeros and subnormals. What
// lies past each row's columns and after the last row must stay as it was.
func TestAddTile(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 assembly")
	}
	rng := rand.New(rand.NewPCG(31, 32))
	specials := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0, float32(math.Copysign(0, -1)), 1e-40, -3e-39, math.MaxFloat32, 1.1754944e-38}
	value := func() float32 {
		if rng.IntN(8) == 0 {
			return specials[rng.IntN(len(specials))]
		}
		return float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4)))
	}
	const sentinel = 42
	for _, beta := range []float32{1, -1, 0.5, 3.7, 1e-30, 1e30} {
		for rows := 0; rows <= 9; rows++ {
			for cols := 0; cols <= 50; cols++ {
				ldd, lds := cols+rng.IntN(4), cols+rng.IntN(4)
				n := (rows+1)*ldd + 1
				src := make([]float32, (rows+1)*lds+1)
				for i := range src {
					src[i] = value()
				}
				got := make([]float32, n)
				want := make([]float32, n)
				for i := range got {
					got[i] = sentinel
					if i/max(ldd, 1) < rows && i%max(ldd, 1) < cols {
						got[i] = value()
					}
					want[i] = got[i]
				}
				addTile(got, ldd, src, lds, rows, cols, beta)
				addTileGo(want, ldd, src, lds, rows, cols, beta)
				for i := range got {
					g, w := got[i], want[i]
					if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
						t.Fatalf("beta %v, %d x %d, strides %d and %d: dst[%d] = %v (%#x), want %v (%#x)", beta, rows, cols, ldd, lds, i, g, math.Float32bits(g), w, math.Float32bits(w))
					}
				}
			}
		}
	}
}
