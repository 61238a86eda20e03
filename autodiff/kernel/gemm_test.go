package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// forEachImpl runs f once under every implementation this machine supports.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, name := range Available() {
		t.Run(name, func(t *testing.T) {
			prev, err := SetImpl(name)
			if err != nil {
				t.Fatal(err)
			}
			defer SetImpl(prev)
			f(t)
		})
	}
}

// withThreads runs f with SetThreads(n) and parallel Gemm enabled on small
// problems.
func withThreads(n int, f func()) {
	prev := SetThreads(n)
	prevFlops := minParallelFlops
	minParallelFlops = 0
	defer func() {
		SetThreads(prev)
		minParallelFlops = prevFlops
	}()
	f()
}

type gemmCase struct {
	transA, transB bool
	m, n, k        int
	padA, padB     int // extra stride beyond the row length
	padC           int
	alpha, beta    float64
}

func (c gemmCase) String() string {
	return fmt.Sprintf("tA=%v,tB=%v,m=%d,n=%d,k=%d,pad=%d/%d/%d,alpha=%g,beta=%g",
		c.transA, c.transB, c.m, c.n, c.k, c.padA, c.padB, c.padC, c.alpha, c.beta)
}

// operands returns random A, B, C for the case with their strides.
func operands[T Float](c gemmCase, rng *rand.Rand) (a []T, lda int, b []T, ldb int, cm []T, ldc int) {
	ra, ca := c.m, c.k
	if c.transA {
		ra, ca = c.k, c.m
	}
	rb, cb := c.k, c.n
	if c.transB {
		rb, cb = c.n, c.k
	}
	lda, ldb, ldc = ca+c.padA, cb+c.padB, c.n+c.padC
	fill := func(rows, ld int) []T {
		s := make([]T, rows*ld)
		for i := range s {
			s[i] = T(rng.Float64()*2 - 1)
		}
		return s
	}
	return fill(ra, lda), lda, fill(rb, ldb), ldb, fill(c.m, ldc), ldc
}

// gemmProblem is a case with its operands and the float64 reference result.
type gemmProblem[T Float] struct {
	c             gemmCase
	a, b, c0      []T
	lda, ldb, ldc int
	want, mag     []float64
}

// newProblem draws the operands of c and evaluates GemmRef in float64, with
// the magnitude |alpha| sum_p |a||b| + |beta||c| that rounding acts on.
func newProblem[T Float](c gemmCase, rng *rand.Rand) *gemmProblem[T] {
	p := &gemmProblem[T]{c: c}
	p.a, p.lda, p.b, p.ldb, p.c0, p.ldc = operands[T](c, rng)
	if c.beta == 0 {
		// Garbage that must not leak into the result.
		for i := range p.c0 {
			p.c0[i] = T(math.NaN())
		}
	}
	a64, b64, c64 := to64(p.a), to64(p.b), to64(p.c0)
	p.want = append([]float64(nil), c64...)
	GemmRef(c.transA, c.transB, c.m, c.n, c.k, c.alpha, a64, p.lda, b64, p.ldb, c.beta, p.want, p.ldc)
	p.mag = make([]float64, len(p.want))
	GemmRef(c.transA, c.transB, c.m, c.n, c.k, math.Abs(c.alpha), abs64(a64), p.lda, abs64(b64), p.ldb, 0, p.mag, p.ldc)
	if c.beta != 0 {
		for i, v := range c64 {
			p.mag[i] += math.Abs(c.beta * v)
		}
	}
	return p
}

// check runs Gemm on a copy of C and compares it with the reference.
func (p *gemmProblem[T]) check(t *testing.T) {
	t.Helper()
	c := p.c
	cm := append([]T(nil), p.c0...)
	Gemm(c.transA, c.transB, c.m, c.n, c.k, T(c.alpha), p.a, p.lda, p.b, p.ldb, T(c.beta), cm, p.ldc)
	eps := 1e-15
	if is32[T]() {
		eps = 1.2e-7
	}
	for i := 0; i < c.m; i++ {
		for j := 0; j < p.ldc; j++ {
			idx := i*p.ldc + j
			got := float64(cm[idx])
			if j >= c.n {
				old := float64(p.c0[idx])
				if math.Float64bits(got) != math.Float64bits(old) && !(math.IsNaN(got) && math.IsNaN(old)) {
					t.Fatalf("%v: c[%d][%d] beyond n changed: %v -> %v", c, i, j, old, got)
				}
				continue
			}
			tol := eps * float64(c.k+4) * (p.mag[idx] + 1e-30)
			if math.IsNaN(got) || math.Abs(got-p.want[idx]) > tol {
				t.Fatalf("%v: c[%d][%d] = %v, want %v (tol %.3g)", c, i, j, got, p.want[idx], tol)
			}
		}
	}
}

// checkGemmCase draws a problem for c and checks Gemm on it.
func checkGemmCase[T Float](t *testing.T, c gemmCase, rng *rand.Rand) {
	t.Helper()
	newProblem[T](c, rng).check(t)
}

func to64[T Float](x []T) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

func abs64(x []float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Abs(v)
	}
	return y
}

// gemmCases crosses the layouts, sizes (around the 4, 6, 8, 16 and 48 tiles),
// strides and alpha/beta variants.
func gemmCases() []gemmCase {
	sizes := [][3]int{
		{1, 1, 1}, {1, 67, 3}, {67, 1, 5}, {2, 3, 4}, {5, 7, 9}, {8, 48, 16},
		{9, 49, 17}, {7, 47, 33}, {16, 16, 1}, {13, 50, 64}, {6, 16, 2},
		{12, 32, 67}, {24, 96, 8}, {33, 65, 31}, {67, 67, 67}, {40, 17, 3},
	}
	ab := [][2]float64{{1, 0}, {-0.5, 1}, {2, 0.25}, {1, -1}}
	var cases []gemmCase
	for si, s := range sizes {
		for l := 0; l < 4; l++ {
			x := ab[(si+l)%len(ab)]
			pad := (si + l) % 3 * 2
			cases = append(cases, gemmCase{
				transA: l&1 != 0, transB: l&2 != 0,
				m: s[0], n: s[1], k: s[2],
				padA: pad, padB: (pad + 1) % 4, padC: pad % 3,
				alpha: x[0], beta: x[1],
			})
		}
	}
	return cases
}

func TestGemm(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for threads := 1; threads <= 3; threads++ {
			t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
				withThreads(threads, func() {
					rng := rand.New(rand.NewPCG(1, uint64(threads)))
					for _, c := range gemmCases() {
						checkGemmCase[float32](t, c, rng)
						checkGemmCase[float64](t, c, rng)
					}
				})
			})
		}
	})
}

// TestGemmBlocks uses sizes beyond the cache blocks (mc, kc, nc) so that the
// multi-block paths, the beta=1 accumulation over k blocks and the thread
// split over rows and columns all run.
func TestGemmBlocks(t *testing.T) {
	cases := []gemmCase{
		{m: 100, n: 500, k: 400, alpha: 1, beta: 0},
		{transA: true, m: 97, n: 490, k: 390, padA: 3, alpha: 0.5, beta: 2},
		{transB: true, m: 200, n: 7, k: 800, padC: 1, alpha: 1, beta: 1},
		{transA: true, transB: true, m: 150, n: 530, k: 260, alpha: -1, beta: 0},
	}
	if testing.Short() {
		cases = cases[:2]
	}
	rng := rand.New(rand.NewPCG(2, 3))
	var p32 []*gemmProblem[float32]
	var p64 []*gemmProblem[float64]
	for _, c := range cases {
		p32 = append(p32, newProblem[float32](c, rng))
		p64 = append(p64, newProblem[float64](c, rng))
	}
	forEachImpl(t, func(t *testing.T) {
		for _, threads := range []int{1, 2, 3} {
			withThreads(threads, func() {
				for i := range cases {
					p32[i].check(t)
					if threads == 2 {
						p64[i].check(t)
					}
				}
			})
		}
	})
}

// TestGemmRandom draws random shapes, layouts, strides, scalars and thread
// counts.
func TestGemmRandom(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 40
	}
	rng := rand.New(rand.NewPCG(3, 4))
	scalars := []float64{0, 1, -1, 0.5, 3}
	forEachImpl(t, func(t *testing.T) {
		for i := 0; i < n; i++ {
			c := gemmCase{
				transA: rng.IntN(2) == 1, transB: rng.IntN(2) == 1,
				m: 1 + rng.IntN(90), n: 1 + rng.IntN(130), k: 1 + rng.IntN(100),
				padA: rng.IntN(3), padB: rng.IntN(3), padC: rng.IntN(3),
				alpha: scalars[1+rng.IntN(len(scalars)-1)], beta: scalars[rng.IntN(len(scalars))],
			}
			withThreads(1+rng.IntN(3), func() {
				checkGemmCase[float32](t, c, rng)
				if i%4 == 0 {
					checkGemmCase[float64](t, c, rng)
				}
			})
		}
	})
}

// TestGemmZeroCases covers alpha = 0 and k = 0 (C = beta*C without reading A
// or B) and empty outputs.
func TestGemmZeroCases(t *testing.T) {
	tests := []struct {
		name        string
		m, n, k     int
		alpha, beta float32
		c, want     []float32
	}{
		{"k=0,beta=0", 2, 2, 0, 1, 0, []float32{nan32(), 1, 2, 3}, []float32{0, 0, 0, 0}},
		{"k=0,beta=2", 2, 2, 0, 1, 2, []float32{1, 2, 3, 4}, []float32{2, 4, 6, 8}},
		{"alpha=0,beta=1", 2, 2, 3, 0, 1, []float32{1, 2, 3, 4}, []float32{1, 2, 3, 4}},
		{"alpha=0,beta=0", 2, 2, 3, 0, 0, []float32{nan32(), 2, 3, 4}, []float32{0, 0, 0, 0}},
		{"m=0", 0, 2, 3, 1, 0, []float32{}, []float32{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := make([]float32, max(1, tc.m*tc.k))
			b := make([]float32, max(1, tc.k*tc.n))
			for i := range a {
				a[i] = nan32() // must not be read
			}
			Gemm(false, false, tc.m, tc.n, tc.k, tc.alpha, a, max(1, tc.k), b, tc.n, tc.beta, tc.c, tc.n)
			for i := range tc.want {
				if tc.c[i] != tc.want[i] {
					t.Fatalf("c = %v, want %v", tc.c, tc.want)
				}
			}
		})
	}
}

func nan32() float32 { return float32(math.NaN()) }

func TestGemmPanics(t *testing.T) {
	buf := make([]float32, 100)
	tests := []struct {
		name           string
		transA, transB bool
		m, n, k        int
		a              []float32
		lda            int
		b              []float32
		ldb            int
		c              []float32
		ldc            int
		want           string
	}{
		{"negative m", false, false, -1, 2, 2, buf, 2, buf, 2, buf, 2, errNegM},
		{"negative n", false, false, 2, -1, 2, buf, 2, buf, 2, buf, 2, errNegN},
		{"negative k", false, false, 2, 2, -1, buf, 2, buf, 2, buf, 2, errNegK},
		{"lda < k", false, false, 2, 2, 3, buf, 2, buf, 2, buf, 2, errBadLda},
		{"lda < m transposed", true, false, 3, 2, 2, buf, 2, buf, 2, buf, 2, errBadLda},
		{"ldb < n", false, false, 2, 3, 2, buf, 2, buf, 2, buf, 3, errBadLdb},
		{"ldb < k transposed", false, true, 2, 2, 3, buf, 3, buf, 2, buf, 2, errBadLdb},
		{"ldc < n", false, false, 2, 3, 2, buf, 2, buf, 3, buf, 2, errBadLdc},
		{"short a", false, false, 4, 2, 4, buf[:15], 4, buf, 2, buf, 2, errShortA},
		{"short b", false, false, 2, 4, 4, buf, 4, buf[:15], 4, buf, 4, errShortB},
		{"short c", false, false, 4, 4, 2, buf, 2, buf, 4, buf[:15], 4, errShortC},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range []func(){
				func() { Gemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, 1, tc.a, tc.lda, tc.b, tc.ldb, 0, tc.c, tc.ldc) },
				func() {
					GemmRef(tc.transA, tc.transB, tc.m, tc.n, tc.k, 1, tc.a, tc.lda, tc.b, tc.ldb, 0, tc.c, tc.ldc)
				},
			} {
				got := catchPanic(f)
				if got != tc.want {
					t.Errorf("panic %q, want %q", got, tc.want)
				}
			}
		})
	}
}

func catchPanic(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// microKernel is an assembly micro-kernel of Gemm (K is asmKernel or
// asmKernel64) with its tile, used where impl is supported (fn is nil
// without assembly).
type microKernel[K any] struct {
	name   string
	impl   int
	mr, nr int
	fn     K
}

// microKernels32 returns the float32 assembly micro-kernels.
func microKernels32() []microKernel[asmKernel] {
	return []microKernel[asmKernel]{
		{"8x48", implAVX512, 8, 48, kernel8x48()},
		{"6x16", implAVX2, 6, 16, kernel6x16()},
	}
}

// TestMicroKernels compares each assembly micro-kernel with its Go
// specification (sgemmKernelGo, dgemmKernelGo) on the same packed panels.
func TestMicroKernels(t *testing.T) {
	k32 := microKernels32()
	k64 := []microKernel[asmKernel64]{
		{"8x24", implAVX512, 8, 24, kernel8x24()},
		{"6x8", implAVX2, 6, 8, kernel6x8()},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, kn := range k32 {
		if supported(kn.impl) {
			checkMicro(t, kn.name, rng, kn.mr, kn.nr, 1e-6, sgemmKernelGo,
				func(k int, a, b, c []float32, ldc int, beta float32) { kn.fn(k, &a[0], &b[0], &c[0], ldc, beta) })
		}
	}
	for _, kn := range k64 {
		if supported(kn.impl) {
			checkMicro(t, kn.name, rng, kn.mr, kn.nr, 1e-14, dgemmKernelGo,
				func(k int, a, b, c []float64, ldc int, beta float64) { kn.fn(k, &a[0], &b[0], &c[0], ldc, beta) })
		}
	}
}

// flushProbe is a product with a subnormal result, in a variable so that
// the compiler cannot fold it.
var flushProbe = [2]float32{1.2e-38, 0.5}

// TestMicroKernelsFlushSubnormals checks that the float32 assembly
// micro-kernels read subnormal inputs as zero and write zero for products
// that would be subnormal, while normal products are kept; and that they
// restore MXCSR, so that Go code on the same thread after them still
// computes subnormal results.
func TestMicroKernelsFlushSubnormals(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, kn := range microKernels32() {
		if kn.fn == nil || !supported(kn.impl) {
			t.Logf("%s: no assembly kernel in this build or on this machine", kn.name)
			continue
		}
		const k = 3
		sub := float32(1e-39) // subnormal
		for _, c := range []struct {
			what       string
			av, bv, cv float32
			beta       float32
			want       float32
		}{
			{"subnormal a", sub, 1, 0, 0, 0},
			{"subnormal b", 1e10, sub, 0, 0, 0},
			{"subnormal product", 1e-20, 1e-20, 0, 0, 0},
			{"subnormal c", 0, 0, sub, 1, 0},
			{"normal product", 1e-18, 1e-18, 0, 0, 3e-36},
			{"normal", 0.5, 0.25, 2, 1, 2.375},
		} {
			a, b := make([]float32, kn.mr*k), make([]float32, kn.nr*k)
			for i := range a {
				a[i] = c.av
			}
			for i := range b {
				b[i] = c.bv
			}
			cs := make([]float32, kn.mr*kn.nr)
			for i := range cs {
				cs[i] = c.cv
			}
			kn.fn(k, &a[0], &b[0], &cs[0], kn.nr, c.beta)
			for i, v := range cs {
				if d := math.Abs(float64(v - c.want)); d > 1e-6*math.Abs(float64(c.want)) {
					t.Fatalf("%s, %s: c[%d] = %g, want %g", kn.name, c.what, i, v, c.want)
				}
			}
		}
		if y := flushProbe[0] * flushProbe[1]; y == 0 {
			t.Errorf("%s: after the kernel, %g * %g = 0 in Go: MXCSR was not restored", kn.name, flushProbe[0], flushProbe[1])
		}
	}
}

func checkMicro[T Float](t *testing.T, name string, rng *rand.Rand, mr, nr int, eps float64,
	spec func(mr, nr, k int, a, b, c []T, ldc int, beta T), fn func(k int, a, b, c []T, ldc int, beta T)) {
	t.Helper()
	rand := func(n int) []T {
		s := make([]T, n)
		for i := range s {
			s[i] = T(rng.Float64()*2 - 1)
		}
		return s
	}
	for _, k := range []int{1, 2, 3, 4, 5, 8, 13, 100} {
		for _, beta := range []T{0, 1, -0.5} {
			ldc := nr + 3
			a, b, c := rand(mr*k), rand(nr*k), rand(mr*ldc)
			if beta == 0 {
				for i := range c {
					c[i] = T(math.NaN())
				}
			}
			want := append([]T(nil), c...)
			spec(mr, nr, k, a, b, want, ldc, beta)
			fn(k, a, b, c, ldc, beta)
			for i := range c {
				d := math.Abs(float64(c[i] - want[i]))
				bothNaN := math.IsNaN(float64(c[i])) && math.IsNaN(float64(want[i]))
				if !(d <= eps*float64(k+2)) && !bothNaN {
					t.Fatalf("%s k=%d beta=%v: c[%d] = %v, want %v", name, k, beta, i, c[i], want[i])
				}
			}
		}
	}
}

func randSlice32(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.Float64()*2 - 1)
	}
	return s
}

func TestImplSelection(t *testing.T) {
	avail := Available()
	if len(avail) == 0 || avail[len(avail)-1] != "go" {
		t.Fatalf("Available() = %v, want go last", avail)
	}
	if Impl() != avail[0] {
		t.Errorf("default Impl() = %q, want the best available %q", Impl(), avail[0])
	}
	for _, name := range avail {
		prev, err := SetImpl(name)
		if err != nil {
			t.Fatalf("SetImpl(%q): %v", name, err)
		}
		if Impl() != name {
			t.Errorf("after SetImpl(%q), Impl() = %q", name, Impl())
		}
		SetImpl(prev)
	}
	before := Impl()
	if _, err := SetImpl("sse9"); err == nil {
		t.Error("SetImpl(\"sse9\") succeeded")
	}
	if Impl() != before {
		t.Errorf("failed SetImpl changed Impl() from %q to %q", before, Impl())
	}
}

// TestMicroTile checks the register tile reported for each implementation.
func TestMicroTile(t *testing.T) {
	want := map[string][2]int{"avx512": {8, 48}, "avx2": {6, 16}, "go": {2, 4}}
	forEachImpl(t, func(t *testing.T) {
		if mr, nr := MicroTile(); [2]int{mr, nr} != want[Impl()] {
			t.Errorf("%s: MicroTile() = %d, %d, want %v", Impl(), mr, nr, want[Impl()])
		}
	})
}

func TestThreads(t *testing.T) {
	orig := SetThreads(3)
	defer SetThreads(orig)
	if got := Threads(); got != 3 {
		t.Errorf("Threads() = %d after SetThreads(3)", got)
	}
	if prev := SetThreads(0); prev != 3 {
		t.Errorf("SetThreads(0) returned %d, want 3", prev)
	}
	if got := Threads(); got < 1 {
		t.Errorf("Threads() = %d after SetThreads(0)", got)
	}
}

// TestPackRows8 compares the packing copy with its Go twin.
func TestPackRows8(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, tc := range []struct{ kb, panels, w8 int }{{1, 1, 1}, {3, 2, 6}, {384, 1, 1}, {17, 10, 6}, {5, 3, 2}} {
		ss := tc.panels*8*tc.w8 + 3
		src := randSlice32(rng, tc.kb*ss)
		got := make([]float32, tc.panels*tc.kb*8*tc.w8)
		want := make([]float32, len(got))
		packRows8(&got[0], &src[0], ss, tc.kb, tc.panels, tc.w8, -0.5)
		packRows8Go(&want[0], &src[0], ss, tc.kb, tc.panels, tc.w8, -0.5)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%+v: dst[%d] = %v, want %v", tc, i, got[i], want[i])
			}
		}
	}
}

// TestPackA6 compares the six-row packing with its Go twin; the values past
// the panel must stay as they were.
func TestPackA6(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, kb := range []int{8, 16, 24, 384} {
		lda := kb + 5
		src := randSlice32(rng, 6*lda)
		got := randSlice32(rng, kb*6+16)
		want := append([]float32(nil), got...)
		packA6(&got[0], &src[0], lda, kb, -1.5)
		packA6Go(&want[0], &src[0], lda, kb, -1.5)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("kb=%d: dst[%d] = %v, want %v", kb, i, got[i], want[i])
			}
		}
	}
}

// TestPackA6T compares the six-column packing of a transposed A with its Go
// twin; the values past the panel must stay as they were.
func TestPackA6T(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, kb := range []int{1, 2, 7, 16, 385} {
		for _, lda := range []int{6, 11} {
			src := randSlice32(rng, (kb-1)*lda+6)
			got := randSlice32(rng, kb*6+16)
			want := append([]float32(nil), got...)
			packA6T(&got[0], &src[0], lda, kb, -1.5)
			packA6TGo(&want[0], &src[0], lda, kb, -1.5)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("kb=%d lda=%d: dst[%d] = %v, want %v", kb, lda, i, got[i], want[i])
				}
			}
		}
	}
}

// TestGemmSerialAndPacked checks that GemmSerial, and a product with op(A)
// packed once by PackA, have the bits of Gemm on 2 threads, for shapes with
// several k blocks and row blocks, and that a packed operand is refused
// under another implementation.
func TestGemmSerialAndPacked(t *testing.T) {
	cases := []gemmCase{
		{m: 100, n: 130, k: 64, alpha: 1, beta: 0},
		{m: 100, n: 500, k: 400, alpha: 1, beta: 0},
		{transA: true, m: 97, n: 49, k: 390, padA: 3, alpha: 0.5, beta: 2},
		{transB: true, m: 200, n: 17, k: 800, padC: 1, alpha: -1, beta: 1},
		{m: 6, n: 16, k: 8, alpha: 1, beta: 0},
		{m: 5, n: 3, k: 1, alpha: 2, beta: 0},
	}
	rng := rand.New(rand.NewPCG(5, 10))
	var pa PackedA[float32]
	forEachImpl(t, func(t *testing.T) {
		for _, c := range cases {
			p := newProblem[float32](c, rng)
			want := append([]float32(nil), p.c0...)
			withThreads(2, func() {
				Gemm(c.transA, c.transB, c.m, c.n, c.k, float32(c.alpha), p.a, p.lda, p.b, p.ldb, float32(c.beta), want, p.ldc)
			})
			serial := append([]float32(nil), p.c0...)
			GemmSerial(c.transA, c.transB, c.m, c.n, c.k, float32(c.alpha), p.a, p.lda, p.b, p.ldb, float32(c.beta), serial, p.ldc)
			PackA(&pa, c.transA, c.m, c.k, float32(c.alpha), p.a, p.lda)
			if pa.Rows() != c.m || pa.Cols() != c.k {
				t.Fatalf("%+v: packed %d x %d", c, pa.Rows(), pa.Cols())
			}
			packed := append([]float32(nil), p.c0...)
			GemmPacked(&pa, c.transB, c.n, p.b, p.ldb, float32(c.beta), packed, p.ldc)
			for i := range want {
				if math.Float32bits(serial[i]) != math.Float32bits(want[i]) || math.Float32bits(packed[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%+v: element %d is %v serial, %v packed, %v from Gemm", c, i, serial[i], packed[i], want[i])
				}
			}
		}
	})
	if avail := Available(); len(avail) > 1 {
		prev, _ := SetImpl(avail[0])
		defer SetImpl(prev)
		a := make([]float32, 12*12)
		PackA(&pa, false, 12, 12, 1, a, 12)
		SetImpl("go")
		defer func() {
			if r := recover(); r != errPackedImpl {
				t.Errorf("GemmPacked after SetImpl: recovered %v, want %q", r, errPackedImpl)
			}
		}()
		GemmPacked(&pa, false, 12, a, 12, 0, make([]float32, 144), 12)
	}
}

// TestGemmThreadsExact: the threads split C by rows or columns, never the
// sum over k, so every element is summed in the same order whatever the
// thread count and the products agree to the bit. Training results, and a
// run resumed with another --threads, depend on it.
func TestGemmThreadsExact(t *testing.T) {
	cases := []gemmCase{
		{m: 100, n: 500, k: 400, alpha: 1, beta: 0},
		{transA: true, m: 97, n: 490, k: 390, padA: 3, alpha: 0.5, beta: 2},
		{transB: true, m: 200, n: 7, k: 800, padC: 1, alpha: 1, beta: 1},
		{m: 20, n: 1000, k: 5000, alpha: 1, beta: 0},
		// Rows split (splitsRows): a weight gradient over a batch, and one
		// whose rows end inside a tile.
		{transA: true, m: 256, n: 2304, k: 20, alpha: 1, beta: 0},
		{transA: true, m: 101, n: 333, k: 9, padC: 3, alpha: 1, beta: 1},
	}
	rng := rand.New(rand.NewPCG(5, 8))
	forEachImpl(t, func(t *testing.T) {
		for _, c := range cases {
			p := newProblem[float32](c, rng)
			run := func(threads int) []float32 {
				cm := append([]float32(nil), p.c0...)
				withThreads(threads, func() {
					Gemm(c.transA, c.transB, c.m, c.n, c.k, float32(c.alpha), p.a, p.lda, p.b, p.ldb, float32(c.beta), cm, p.ldc)
				})
				return cm
			}
			one := run(1)
			for _, threads := range []int{2, 3} {
				got := run(threads)
				for i := range one {
					if math.Float32bits(got[i]) != math.Float32bits(one[i]) {
						t.Fatalf("%+v: element %d is %v with %d threads, %v with one", c, i, got[i], threads, one[i])
					}
				}
			}
		}
	})
}

// TestSplitsRows: the products whose C outweighs their operands four
// times, the weight gradients over a batch of the step, split their rows;
// the forward and input-gradient products do not.
func TestSplitsRows(t *testing.T) {
	for _, c := range []struct {
		m, n, k int
		want    bool
	}{
		{256, 2304, 20, true},   // a critic's weight gradient, 20 rows a block
		{512, 2304, 80, true},   // the classifier's, 80 rows
		{512, 2304, 512, false}, // the same at the paper's batch
		{100, 512, 80, false},   // the classifier's second layer
		{80, 512, 2304, false},  // its forward product
		{20, 2304, 256, false},  // a critic's input gradient
		{60, 256, 2304, false},  // the critics' stacked forward product
		{8, 8, 1, true},
		{8, 8, 2, false},
	} {
		if got := splitsRows(c.m, c.n, c.k); got != c.want {
			t.Errorf("splitsRows(%d, %d, %d) = %v, want %v", c.m, c.n, c.k, got, c.want)
		}
	}
}

// TestGemmSerialAllocs checks that products on the calling goroutine take
// their buffers from the free list without allocating, in both precisions,
// packed and in place, and through the swapped path of short products.
func TestGemmSerialAllocs(t *testing.T) {
	cases := []struct {
		name           string
		transA, transB bool
		m, n, k        int
	}{
		{"square", false, false, 64, 64, 64},
		{"transposed", true, true, 40, 72, 33},
		{"short", false, false, 20, 300, 50},
		{"narrow", false, false, 128, 20, 64},
		{"swapped", false, true, 20, 256, 64},
	}
	check := func(t *testing.T, name string, run func()) {
		run() // the first call may grow the free list
		if allocs := testing.AllocsPerRun(20, run); allocs != 0 {
			t.Errorf("%s: %v allocations per call", name, allocs)
		}
	}
	for _, c := range cases {
		a32 := make([]float32, c.m*c.k)
		b32 := make([]float32, c.k*c.n)
		c32 := make([]float32, c.m*c.n)
		a64 := make([]float64, c.m*c.k)
		b64 := make([]float64, c.k*c.n)
		c64 := make([]float64, c.m*c.n)
		lda, ldb := c.k, c.n
		if c.transA {
			lda = c.m
		}
		if c.transB {
			ldb = c.k
		}
		check(t, c.name+"/float32", func() {
			GemmSerial(c.transA, c.transB, c.m, c.n, c.k, 1, a32, lda, b32, ldb, 0, c32, c.n)
		})
		check(t, c.name+"/float64", func() {
			GemmSerial(c.transA, c.transB, c.m, c.n, c.k, 1, a64, lda, b64, ldb, 0, c64, c.n)
		})
		var p PackedA[float32]
		PackA(&p, c.transA, c.m, c.k, 1, a32, lda)
		check(t, c.name+"/packed", func() {
			GemmPacked(&p, c.transB, c.n, b32, ldb, 1, c32, c.n)
		})
	}
}

// TestGemmNamedFloat checks that products of a named float type, which
// getScratch gives a view of its own, have the bits of float32's.
func TestGemmNamedFloat(t *testing.T) {
	type named float32
	const m, n, k = 13, 37, 29
	rng := rand.New(rand.NewPCG(5, 6))
	a, b := randSlice32(rng, m*k), randSlice32(rng, k*n)
	an, bn := make([]named, m*k), make([]named, k*n)
	for i, v := range a {
		an[i] = named(v)
	}
	for i, v := range b {
		bn[i] = named(v)
	}
	c, cn := make([]float32, m*n), make([]named, m*n)
	GemmSerial(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
	GemmSerial(false, false, m, n, k, 1, an, k, bn, n, 0, cn, n)
	for i := range c {
		if math.Float32bits(c[i]) != math.Float32bits(float32(cn[i])) {
			t.Fatalf("c[%d] = %g with the named type, %g with float32", i, cn[i], c[i])
		}
	}
}
