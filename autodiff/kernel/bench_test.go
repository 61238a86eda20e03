package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wadn-go/wadn/internal/numerics"
)

// gemmBenchShapes are the shapes the framework spends its time in: square,
// the Amazon MLP layer (80 x 5000 x 1000) with its two gradient layouts, and
// the im2col products of the digits conv extractor as package autodiff chunks
// them (2M-element column matrices: 75, 14 and 28 images per Gemm for the
// three layers): forward W*cols, dW = dY*cols^T and dX = W^T*dY.
var gemmBenchShapes = []struct {
	name           string
	transA, transB bool
	m, n, k        int
	count          int // Gemm calls per digits batch of 512 images, 0: not part of it
}{
	{"square1024", false, false, 1024, 1024, 1024, 0},
	{"amazon_fwd", false, false, 80, 1000, 5000, 0},
	{"amazon_dW_tA", true, false, 5000, 1000, 80, 0},
	{"amazon_dX_tB", false, true, 80, 5000, 1000, 0},
	{"conv1_fwd", false, false, 64, 75 * 1024, 27, 512 / 75},
	{"conv1_dW_tB", false, true, 64, 27, 75 * 1024, 512 / 75},
	{"conv2_fwd", false, false, 128, 14 * 256, 576, 512 / 14},
	{"conv2_dW_tB", false, true, 128, 576, 14 * 256, 512 / 14},
	{"conv2_dX_tA", true, false, 576, 14 * 256, 128, 512 / 14},
	{"conv3_fwd", false, false, 256, 28 * 64, 1152, 512 / 28},
	{"conv3_dW_tB", false, true, 256, 1152, 28 * 64, 512 / 28},
	{"conv3_dX_tA", true, false, 1152, 28 * 64, 256, 512 / 28},
}

// BenchmarkGemm reports float32 GFLOP/s per shape, layout and thread count
// under the current implementation.
func BenchmarkGemm(b *testing.B) {
	for _, s := range gemmBenchShapes {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/%dx%dx%d/threads=%d", s.name, s.m, s.k, s.n, threads), func(b *testing.B) {
				benchGemm(b, s.transA, s.transB, s.m, s.n, s.k, threads)
			})
		}
	}
}

// BenchmarkGemmFewRows reports float32 GFLOP/s, on one thread and under
// every implementation, of products with few rows and a B that stays in the
// caches, which the AVX2 kernels read in place (readsB): the input gradient
// of a WADN critic's first layer on Digits (20 x 256 times 256 x 2304), and
// a B of 10 MiB, which they pack.
func BenchmarkGemmFewRows(b *testing.B) {
	for _, impl := range Available() {
		for _, s := range [][3]int{{20, 2304, 256}, {20, 1000, 2500}} {
			b.Run(fmt.Sprintf("%s/%dx%dx%d", impl, s[0], s[2], s[1]), func(b *testing.B) {
				prev, err := SetImpl(impl)
				if err != nil {
					b.Fatal(err)
				}
				defer SetImpl(prev)
				benchGemm(b, false, false, s[0], s[1], s[2], 1)
			})
		}
	}
}

// BenchmarkGemmReference is BenchmarkGemm in the reference numerics mode
// (package numerics), whose kernel is the same under every implementation.
func BenchmarkGemmReference(b *testing.B) {
	defer numerics.Set(numerics.Set(numerics.Reference))
	BenchmarkGemm(b)
}

func benchGemm(b *testing.B, transA, transB bool, m, n, k, threads int) {
	prev := SetThreads(threads)
	defer SetThreads(prev)
	rng := rand.New(rand.NewPCG(1, 2))
	lda, ldb := k, n
	if transA {
		lda = m
	}
	if transB {
		ldb = k
	}
	a := randSlice32(rng, m*k)
	bm := randSlice32(rng, k*n)
	c := make([]float32, m*n)
	Gemm(transA, transB, m, n, k, 1, a, lda, bm, ldb, 0, c, n)
	b.ResetTimer()
	for b.Loop() {
		Gemm(transA, transB, m, n, k, 1, a, lda, bm, ldb, 0, c, n)
	}
	b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkDigitsConvGemm runs the Gemm calls of one forward and backward
// pass of the digits conv extractor over 512 images (full chunks only) on 2
// threads and reports their combined GFLOP/s.
func BenchmarkDigitsConvGemm(b *testing.B) {
	prev := SetThreads(2)
	defer SetThreads(prev)
	type op struct {
		transA, transB bool
		m, n, k, count int
		a, bm, c       []float32
		lda, ldb, ldc  int
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var ops []op
	flops := 0.0
	for _, s := range gemmBenchShapes {
		if s.count == 0 {
			continue
		}
		o := op{transA: s.transA, transB: s.transB, m: s.m, n: s.n, k: s.k, count: s.count,
			a: randSlice32(rng, s.m*s.k), bm: randSlice32(rng, s.k*s.n), c: make([]float32, s.m*s.n),
			lda: s.k, ldb: s.n, ldc: s.n}
		if s.transA {
			o.lda = s.m
		}
		if s.transB {
			o.ldb = s.k
		}
		ops = append(ops, o)
		flops += 2 * float64(s.m) * float64(s.n) * float64(s.k) * float64(s.count)
	}
	for b.Loop() {
		for _, o := range ops {
			for range o.count {
				Gemm(o.transA, o.transB, o.m, o.n, o.k, 1, o.a, o.lda, o.bm, o.ldb, 0, o.c, o.ldc)
			}
		}
	}
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkGemm64 reports float64 GFLOP/s of the Go kernel on a square matrix.
func BenchmarkGemm64(b *testing.B) {
	const n = 512
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float64, n*n)
	for i := range a {
		a[i] = rng.Float64()
	}
	c := make([]float64, n*n)
	for b.Loop() {
		Gemm(false, false, n, n, n, 1, a, n, a, n, 0, c, n)
	}
	b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkElementwise reports GB/s of the float32 element-wise kernels on a
// slice that fits in L2 and one that does not.
func BenchmarkElementwise(b *testing.B) {
	for _, n := range []int{4096, 1 << 22} {
		x := make([]float32, n)
		y := make([]float32, n)
		d := make([]float32, n)
		for i := range x {
			x[i] = float32(i%100) / 50
			y[i] = 1
		}
		kernels := []struct {
			name  string
			bytes int
			f     func()
		}{
			{"Add", 12, func() { Add(d, x, y) }},
			{"Axpy", 12, func() { Axpy(0.5, x, y) }},
			{"Dot", 8, func() { _ = Dot(x, y) }},
			{"Sum", 4, func() { _ = Sum(x) }},
			{"Max", 4, func() { _ = Max(x) }},
			{"Relu", 8, func() { Relu(d, x) }},
			{"Exp", 8, func() { Exp(d, x) }},
		}
		for _, k := range kernels {
			b.Run(fmt.Sprintf("%s/n=%d", k.name, n), func(b *testing.B) {
				for b.Loop() {
					k.f()
				}
				b.ReportMetric(float64(k.bytes*n*b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}
