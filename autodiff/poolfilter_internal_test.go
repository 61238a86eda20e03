package autodiff

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// fma32 is the float32 fused multiply-add, a*b+c rounded once to nearest
// even: the product and the sum are exact at big.Float's precision, and
// Float32 rounds the sum once.
func fma32(a, b, c float32) float32 {
	if math.IsNaN(float64(a)) || math.IsNaN(float64(b)) || math.IsNaN(float64(c)) ||
		math.IsInf(float64(a), 0) || math.IsInf(float64(b), 0) || math.IsInf(float64(c), 0) {
		return float32(float64(a)*float64(b) + float64(c))
	}
	p := new(big.Float).SetPrec(600).SetFloat64(float64(a))
	p.Mul(p, new(big.Float).SetPrec(600).SetFloat64(float64(b)))
	p.Add(p, new(big.Float).SetPrec(600).SetFloat64(float64(c)))
	if p.Sign() == 0 {
		// An exact zero sum is +0, unless both terms are -0.
		if math.Signbit(float64(a)) != math.Signbit(float64(b)) && (a == 0 || b == 0) && math.Signbit(float64(c)) {
			return float32(math.Copysign(0, -1))
		}
		return 0
	}
	v, _ := p.Float32()
	return v
}

func TestFMA32(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	cases := []struct{ a, b, c, want float32 }{
		{2, 3, 1, 7},
		{1 + 1.0/(1<<23), 1 - 1.0/(1<<23), -1, -1.0 / (1 << 46)}, // the product's low bits survive
		{0, 5, negZero, 0},
		{negZero, 5, negZero, negZero},
		{1, 1, -1, 0},
		{1 << 12, 1 << 12, 1.0 / (1 << 30), 1 << 24}, // the addend is rounded away
	}
	for _, c := range cases {
		got := fma32(c.a, c.b, c.c)
		if math.Float32bits(got) != math.Float32bits(c.want) {
			t.Errorf("fma32(%g, %g, %g) = %g, want %g", c.a, c.b, c.c, got, c.want)
		}
	}
}

// TestFilterRows checks filterRowsAVX2 against im2col: row p of the pixel
// rows holds column p of the column matrix, a zero after it, and the
// columns after that are left alone.
func TestFilterRows(t *testing.T) {
	if !usePoolFilterAsm() {
		t.Skip("no AVX2 and FMA, or package kernel is restricted to Go: the kernels do not run")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ c, h, w, kh int }{
		{3, 32, 32, 3}, // the digits' first layer
		{1, 5, 3, 3},
		{3, 18, 18, 3},
		{2, 10, 13, 5},  // 30 values a column
		{10, 4, 7, 1},   // rows of one pixel, 30 values
		{1, 40, 40, 10}, // 30 values, one channel
	} {
		g, ok := newConvGeom(c.c, c.h, c.w, c.kh, 3, 1, 0)
		if !ok || g.colRows >= pooledFilterWidth {
			t.Fatalf("%+v: bad case", c)
		}
		x := make([]float32, c.c*c.h*c.w)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		P, K := g.outPixels, g.colRows
		cols := make([]float32, K*P)
		im2col(&g, x, cols, P)
		pf := pooledFilterFor(&g, 1, &poolGrad[float32]{convPool: &convPool[float32]{oh: 1, ow: 1}})
		if pf == nil {
			t.Fatalf("%+v: pooledFilterFor refused the geometry", c)
		}
		rows := make([]float32, P*pooledFilterWidth)
		const sentinel = 7.5
		for i := range rows {
			rows[i] = sentinel
		}
		filterRowsAVX2(&rows[0], &x[0], &g.offs[0], &pf.segs[0], P, len(pf.segs))
		for p := 0; p < P; p++ {
			row := rows[p*pooledFilterWidth : (p+1)*pooledFilterWidth]
			for k := 0; k < pooledFilterWidth; k++ {
				want := float32(sentinel)
				switch {
				case k < K:
					want = cols[k*P+p]
				case k == K:
					want = 0
				}
				if math.Float32bits(row[k]) != math.Float32bits(want) {
					t.Fatalf("%+v: pixel %d column %d = %v, want %v", c, p, k, row[k], want)
				}
			}
		}
	}
}

func TestMaskPositive(t *testing.T) {
	if !usePoolFilterAsm() {
		t.Skip("no AVX2 and FMA, or package kernel is restricted to Go: the kernels do not run")
	}
	special := []float64{0, math.Copysign(0, -1), 1e-40, -1e-40, math.NaN(), math.Inf(1), math.Inf(-1), -2.5, 3}
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 8 * 40
	x, g := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(special[rng.IntN(len(special))])
		g[i] = float32(special[rng.IntN(len(special))])
	}
	got, want := make([]float32, n), make([]float32, n)
	maskPositiveAVX2(&got[0], &g[0], &x[0], n)
	reluGrad(want, g, x)
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("value %d (x %v, g %v) = %v, want %v", i, x[i], g[i], got[i], want[i])
		}
	}
}

// poolFilterKernel is one way to run poolFilterGradAVX2's sums.
type poolFilterKernel struct {
	name string
	run  func(acc, rows, gv []float32, idx []int32, nf, n, stride int)
}

// poolFilterKernels returns the AVX2 kernel, and poolFilterGrad with
// package kernel on AVX-512 when the CPU has it.
func poolFilterKernels() []poolFilterKernel {
	ks := []poolFilterKernel{{"avx2", func(acc, rows, gv []float32, idx []int32, nf, n, stride int) {
		poolFilterGradAVX2(&acc[0], &rows[0], &gv[0], &idx[0], nf, n, stride)
	}}}
	if slices.Contains(kernel.Available(), "avx512") {
		ks = append(ks, poolFilterKernel{"avx512", func(acc, rows, gv []float32, idx []int32, nf, n, stride int) {
			prev, _ := kernel.SetImpl("avx512")
			defer kernel.SetImpl(prev)
			poolFilterGrad(acc, rows, gv, idx, nf, n, stride)
		}})
	}
	return ks
}

// TestPoolFilterGrad checks poolFilterGradAVX2, and poolFilterGrad on
// AVX-512, against their definition with exactly rounded fused
// multiply-adds, for one, two, four and more filters at a time (groups of
// four and the filters left over) and blocks of positions that stop inside
// the planes.
func TestPoolFilterGrad(t *testing.T) {
	if !usePoolFilterAsm() {
		t.Skip("no AVX2 and FMA, or package kernel is restricted to Go: the kernels do not run")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct{ nf, n, stride, pixels int }{
		{1, 1, 1, 1},
		{2, 5, 7, 9},
		{3, 32, 40, 30},
		{8, 17, 17, 60},
		{7, 225, 225, 900},
		{4, 3, 5, 20},
		{12, 60, 225, 900},
		{64, 60, 225, 900},
	} {
		rows := make([]float32, c.pixels*pooledFilterWidth)
		for i := range rows {
			rows[i] = float32(rng.NormFloat64())
		}
		g := make([]float32, c.nf*c.stride)
		idx := make([]int32, len(g))
		for i := range g {
			g[i] = float32(rng.NormFloat64())
			if rng.IntN(5) == 0 {
				g[i] = 0
			}
			idx[i] = int32(rng.IntN(c.pixels))
		}
		acc := make([]float32, c.nf*pooledFilterWidth)
		for i := range acc {
			acc[i] = float32(rng.NormFloat64())
		}
		want := append([]float32(nil), acc...)
		for j := 0; j < c.nf; j++ {
			for q := 0; q < c.n; q++ {
				v, p := g[j*c.stride+q], int(idx[j*c.stride+q])
				for k := 0; k < pooledFilterWidth; k++ {
					want[j*pooledFilterWidth+k] = fma32(v, rows[p*pooledFilterWidth+k], want[j*pooledFilterWidth+k])
				}
			}
		}
		for _, k := range poolFilterKernels() {
			got := append([]float32(nil), acc...)
			k.run(got, rows, g, idx, c.nf, c.n, c.stride)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s, %+v: sum %d = %v, want %v", k.name, c, i, got[i], want[i])
				}
			}
		}
	}
}

// BenchmarkPooledFilter times the filter gradient of the digits' first
// layer from its pooled gradient (64 filters, 3 x 3 x 3, 30 x 30 pooled to
// 15 x 15), an image per operation, over the pooled values of 100 images.
func BenchmarkPooledFilter(b *testing.B) {
	if !usePoolFilterAsm() {
		b.Skip("no AVX2 and FMA, or package kernel is restricted to Go: the kernels do not run")
	}
	const n, f = 100, 64
	g, _ := newConvGeom(3, 32, 32, 3, 3, 1, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, n*3*32*32)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	planes := n * f
	conv := make([]float32, planes*30*30)
	for i := range conv {
		conv[i] = float32(rng.NormFloat64())
	}
	out, idx := refMaxPool(conv, planes, 30, 30, 2, 2, 15, 15)
	gr := make([]float32, len(out))
	for i := range gr {
		gr[i] = float32(rng.NormFloat64())
	}
	cp := &convPool[float32]{k: 2, s: 2, h: 30, w: 30, oh: 15, ow: 15, relu: true, out: out, idx: idx}
	pf := pooledFilterFor(&g, f, &poolGrad[float32]{convPool: cp, g: gr})
	bufs := pf.buffers()
	defer bufs.release()
	acc := make([]float32, f*pooledFilterWidth)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		im := i % n
		v := pf.values(im, bufs)
		pf.add(im, x[im*3*32*32:], v, bufs, acc)
	}
}
