package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// testLengths straddle the vector widths, the 32-wide unrolled loops, the
// parallel threshold and the reduction blocks.
var testLengths = []int{0, 1, 7, 8, 9, 15, 31, 32, 33, 63, 100, parallelMin + 13, 3*reduceChunk + 5}

// values returns n test values in [-4, 4) with some exact zeros and a -0.
func values(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.Float64()*8 - 4
		if i%17 == 3 {
			x[i] = 0
		}
		if i%19 == 5 {
			x[i] = math.Copysign(0, -1)
		}
	}
	return x
}

func conv[T Float](x []float64) []T {
	y := make([]T, len(x))
	for i, v := range x {
		y[i] = T(v)
	}
	return y
}

// mapCase is one element-wise kernel and its reference loop in float64 on
// values already rounded to T.
type mapCase struct {
	name string
	ulps float64 // allowed error in units of T's epsilon, relative; 0 = exact
	run  func(dst, a, b any)
	ref  func(a, b float64) float64
	// mag is the magnitude the error is relative to; nil: |result|.
	mag func(a, b float64) float64
}

func mapCases[T Float]() []mapCase {
	cast := func(f func(dst, a, b []T)) func(dst, a, b any) {
		return func(dst, a, b any) { f(dst.([]T), a.([]T), b.([]T)) }
	}
	return []mapCase{
		{"Add", 0, cast(Add[T]), func(a, b float64) float64 { return a + b }, nil},
		{"Sub", 0, cast(Sub[T]), func(a, b float64) float64 { return a - b }, nil},
		{"Mul", 0, cast(Mul[T]), func(a, b float64) float64 { return a * b }, nil},
		{"Div", 0, cast(Div[T]), func(a, b float64) float64 { return a / b }, nil},
		{"AddScalar", 0, cast(func(d, a, _ []T) { AddScalar(d, a, 0.75) }), func(a, _ float64) float64 { return a + 0.75 }, nil},
		{"Scale", 0, cast(func(d, a, _ []T) { Scale(d, a, -1.5) }), func(a, _ float64) float64 { return -1.5 * a }, nil},
		{"Axpy", 1, cast(func(d, a, b []T) { x := append([]T(nil), a...); copy(d, b); Axpy(0.3, x, d) }), func(a, b float64) float64 { return b + float64(T(0.3))*a },
			func(a, b float64) float64 { return math.Abs(b) + math.Abs(0.3*a) }},
		{"Relu", 0, cast(func(d, a, _ []T) { Relu(d, a) }), func(a, _ float64) float64 {
			if a < 0 {
				a = 0
			}
			return a
		}, nil},
		{"Exp", 2, cast(func(d, a, _ []T) { Exp(d, a) }), func(a, _ float64) float64 { return math.Exp(a) }, nil},
	}
}

func TestElementwise(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, threads := range []int{1, 3} {
			t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
				defer SetThreads(SetThreads(threads))
				// Long slices only matter for the parallel split.
				maxLen := 1000
				if threads > 1 {
					maxLen = 1 << 30
				}
				testMaps[float32](t, maxLen)
				testMaps[float64](t, maxLen)
			})
		}
	})
}

func testMaps[T Float](t *testing.T, maxLen int) {
	rng := rand.New(rand.NewPCG(7, 8))
	eps := math.Nextafter(1, 2) - 1
	if is32[T]() {
		eps = float64(math.Nextafter32(1, 2) - 1)
	}
	for _, mc := range mapCases[T]() {
		for _, n := range testLengths {
			if n > maxLen {
				continue
			}
			a, b := conv[T](values(rng, n)), conv[T](values(rng, n))
			for _, alias := range []bool{false, true} {
				if alias && n > 1000 {
					continue
				}
				want := make([]float64, n)
				for i := range want {
					want[i] = mc.ref(float64(a[i]), float64(b[i]))
				}
				dst := make([]T, n)
				in := append([]T(nil), a...)
				if alias {
					dst = in // dst is the first input
				}
				mc.run(dst, in, b)
				for i := range dst {
					got, w := float64(dst[i]), float64(T(want[i]))
					if mc.ulps == 0 {
						if math.Float64bits(got) != math.Float64bits(w) && !(math.IsNaN(got) && math.IsNaN(w)) {
							t.Fatalf("%s[%T] n=%d alias=%v: dst[%d] = %v, want %v (inputs %v, %v)", mc.name, dst[0], n, alias, i, got, w, a[i], b[i])
						}
						continue
					}
					mag := math.Abs(want[i])
					if mc.mag != nil {
						mag = mc.mag(float64(a[i]), float64(b[i]))
					}
					if math.Abs(got-want[i]) > mc.ulps*eps*mag+1e-30 {
						t.Fatalf("%s[%T] n=%d alias=%v: dst[%d] = %v, want %v (inputs %v, %v)", mc.name, dst[0], n, alias, i, got, want[i], a[i], b[i])
					}
				}
			}
		}
	}
}

func TestReductions(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, threads := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
				defer SetThreads(SetThreads(threads))
				testReductions[float32](t)
				testReductions[float64](t)
			})
		}
	})
}

func testReductions[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	eps := math.Nextafter(1, 2) - 1
	if is32[T]() {
		eps = float64(math.Nextafter32(1, 2) - 1)
	}
	for _, n := range testLengths {
		x, y := conv[T](values(rng, n)), conv[T](values(rng, n))
		var dot, dotMag, sum, sumMag float64
		for i := range x {
			dot += float64(x[i]) * float64(y[i])
			dotMag += math.Abs(float64(x[i]) * float64(y[i]))
			sum += float64(x[i])
			sumMag += math.Abs(float64(x[i]))
		}
		// Summation error bound: n*eps times the sum of magnitudes (loose).
		bound := func(mag float64) float64 { return float64(n+2) * eps * mag }
		if got := float64(Dot(x, y)); math.Abs(got-dot) > bound(dotMag) {
			t.Errorf("Dot[%T] n=%d = %v, want %v", x, n, got, dot)
		}
		if got := float64(Sum(x)); math.Abs(got-sum) > bound(sumMag) {
			t.Errorf("Sum[%T] n=%d = %v, want %v", x, n, got, sum)
		}
		if n == 0 {
			continue
		}
		// Max: the exact largest value, at each position in turn for short
		// slices, and NaN wherever it is.
		for _, pos := range []int{0, n / 2, n - 1} {
			z := append([]T(nil), x...)
			z[pos] = 100
			if got := Max(z); got != 100 {
				t.Errorf("Max[%T] n=%d with 100 at %d = %v", z, n, pos, got)
			}
			z[pos] = T(math.NaN())
			if got := Max(z); !math.IsNaN(float64(got)) {
				t.Errorf("Max[%T] n=%d with NaN at %d = %v, want NaN", z, n, pos, got)
			}
		}
		neg := make([]T, n)
		for i := range neg {
			neg[i] = -T(i + 1)
		}
		if got := Max(neg); got != -1 {
			t.Errorf("Max[%T] of -1..-%d = %v", neg, n, got)
		}
	}
}

// TestReductionThreadInvariance checks that long reductions give the same
// bits for every thread count.
func TestReductionThreadInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x := conv[float32](values(rng, 5*reduceChunk+77))
	defer SetThreads(SetThreads(1))
	s1, d1 := Sum(x), Dot(x, x)
	for _, th := range []int{2, 3} {
		SetThreads(th)
		if s, d := Sum(x), Dot(x, x); s != s1 || d != d1 {
			t.Errorf("threads=%d: Sum %v Dot %v, threads=1: %v %v", th, s, d, s1, d1)
		}
	}
}

func TestSpecialValues(t *testing.T) {
	inf := math.Inf(1)
	nan := math.NaN()
	forEachImpl(t, func(t *testing.T) {
		// 9 elements so that both the vector and the scalar tail see them.
		x := []float32{float32(nan), float32(inf), float32(-inf), float32(math.Copysign(0, -1)), 0, -3, 3, 1e-40, -1e-40}
		x = append(x, x...)
		relu := make([]float32, len(x))
		Relu(relu, x)
		for i, v := range x {
			w := v
			if v < 0 {
				w = 0
			}
			if relu[i] != w && !(v != v && relu[i] != relu[i]) {
				t.Errorf("Relu(%v) = %v, want %v", v, relu[i], w)
			}
			if v != v && relu[i] == relu[i] {
				t.Errorf("Relu(NaN) = %v, want NaN", relu[i])
			}
		}
		ex := make([]float32, len(x))
		Exp(ex, x)
		for i, v := range x {
			w := float32(math.Exp(float64(v)))
			if ex[i] != w && !(w != w && ex[i] != ex[i]) {
				t.Errorf("Exp(%v) = %v, want %v", v, ex[i], w)
			}
		}
	})
}

func TestLengthMismatchPanics(t *testing.T) {
	a, b := make([]float32, 3), make([]float32, 4)
	tests := []struct {
		name string
		f    func()
		want string
	}{
		{"Add", func() { Add(a, a, b) }, errLenMismatch},
		{"Div", func() { Div(b, a, a) }, errLenMismatch},
		{"AddScalar", func() { AddScalar(a, b, 1) }, errLenMismatch},
		{"Scale", func() { Scale(a, b, 1) }, errLenMismatch},
		{"Axpy", func() { Axpy(1, a, b) }, errLenMismatch},
		{"Dot", func() { Dot(a, b) }, errLenMismatch},
		{"Relu", func() { Relu(a, b) }, errLenMismatch},
		{"Exp", func() { Exp(a, b) }, errLenMismatch},
		{"Max empty", func() { Max([]float32{}) }, errEmptyMax},
	}
	for _, tc := range tests {
		if got := catchPanic(tc.f); got != tc.want {
			t.Errorf("%s: panic %q, want %q", tc.name, got, tc.want)
		}
	}
}

// ulpDiff returns |got - want| in units of the float32 spacing at want.
func ulpDiff(got float32, want float64) float64 {
	w := float32(want)
	ulp := float64(math.Nextafter32(float32(math.Abs(float64(w))), float32(math.Inf(1))) - float32(math.Abs(float64(w))))
	return math.Abs(float64(got)-want) / ulp
}

// TestExpAccuracy sweeps expPoly32 (the spec of the assembly) and Exp under
// every implementation against math.Exp: within 2 ulp where the result is a
// normal float32, within one subnormal step below that, and exactly the
// limits outside the range.
func TestExpAccuracy(t *testing.T) {
	const step = 1.0 / 1024
	var xs []float32
	for x := -105.0; x <= 90; x += step * 7.3 {
		xs = append(xs, float32(x))
	}
	for x := -1.0; x <= 1; x += step / 64 {
		xs = append(xs, float32(x))
	}
	xs = append(xs, 88.72283, 88.72284, -87.33654, -103.97208, -103.97209, float32(math.Inf(1)), float32(math.Inf(-1)))
	check := func(name string, got []float32) {
		t.Helper()
		worst := 0.0
		for i, x := range xs {
			want := math.Exp(float64(x))
			switch {
			case want > math.MaxFloat32:
				if !math.IsInf(float64(got[i]), 1) {
					t.Fatalf("%s(%v) = %v, want +Inf", name, x, got[i])
				}
			case want < math.SmallestNonzeroFloat32/2:
				if got[i] != 0 {
					t.Fatalf("%s(%v) = %v, want 0", name, x, got[i])
				}
			case want < 0x1p-126:
				if d := math.Abs(float64(got[i]) - want); d > 1.01*math.SmallestNonzeroFloat32 {
					t.Fatalf("%s(%v) = %v, want %v (subnormal)", name, x, got[i], want)
				}
			default:
				d := ulpDiff(got[i], want)
				worst = max(worst, d)
				if d > 2 {
					t.Fatalf("%s(%v) = %v, want %v: %.2f ulp", name, x, got[i], want, d)
				}
			}
		}
		t.Logf("%s: worst error %.2f ulp over %d points", name, worst, len(xs))
	}
	poly := make([]float32, len(xs))
	for i, x := range xs {
		poly[i] = expPoly32(x)
	}
	check("expPoly32", poly)
	if !math.IsNaN(float64(expPoly32(float32(math.NaN())))) {
		t.Error("expPoly32(NaN) is not NaN")
	}
	forEachImpl(t, func(t *testing.T) {
		got := make([]float32, len(xs))
		Exp(got, xs)
		check("Exp/"+Impl(), got)
	})
}

// TestAsmTwins compares each AVX2 element-wise routine with its Go twin on
// lengths that are multiples of 8.
func TestAsmTwins(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 assembly in this build")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{0, 8, 16, 24, 32, 40, 64, 136} {
		a, b := conv[float32](values(rng, n)), conv[float32](values(rng, n))
		for i := range b {
			if b[i] == 0 {
				b[i] = 0.5
			}
		}
		same := func(name string, got, want []float32, tol float64) {
			t.Helper()
			for i := range want {
				if d := math.Abs(float64(got[i] - want[i])); d > tol*math.Abs(float64(want[i])) || math.IsNaN(d) {
					t.Fatalf("%s n=%d: [%d] = %v, twin %v", name, n, i, got[i], want[i])
				}
			}
		}
		for op := opAdd; op <= opDiv; op++ {
			got, want := make([]float32, n), make([]float32, n)
			binaryAsm32(op, got, a, b)
			binary32Go(op, want, a, b)
			same(fmt.Sprint("binary op ", op), got, want, 0)
		}
		got, want := make([]float32, n), make([]float32, n)
		addScalarAVX2(got, a, 1.25)
		addScalar32Go(want, a, 1.25)
		same("addScalar", got, want, 0)
		scaleAVX2(got, a, -2.5)
		scale32Go(want, a, -2.5)
		same("scale", got, want, 0)
		copy(got, b)
		copy(want, b)
		axpyAVX2(0.7, a, got)
		axpy32Go(0.7, a, want)
		same("axpy", got, want, 0)
		reluAVX2(got, a)
		relu32Go(want, a)
		same("relu", got, want, 0)
		expAVX2(got, a)
		exp32Go(want, a)
		same("exp", got, want, 0)
		tol := float64(n+1) * 1.2e-7 * 4 * 4
		if d := math.Abs(float64(dotAVX2(a, b) - dot32Go(a, b))); d > tol*float64(n+1) {
			t.Errorf("dot n=%d: %v, twin %v", n, dotAVX2(a, b), dot32Go(a, b))
		}
		if d := math.Abs(float64(sumAVX2(a) - sum32Go(a))); d > tol*float64(n+1) {
			t.Errorf("sum n=%d: %v, twin %v", n, sumAVX2(a), sum32Go(a))
		}
		if n > 0 && maxAVX2(a) != max32Go(a) {
			t.Errorf("max n=%d: %v, twin %v", n, maxAVX2(a), max32Go(a))
		}
	}
}

// TestTranspose8 compares the packing transpose with its Go twin, bit for
// bit, under each assembly implementation this machine supports: one to 49
// groups of eight columns; the strides of the panels the packing fills and
// of the linear layers' weights; infinities, NaNs, signed zeros and
// subnormals among the values; scales of 1, of a power of two and of
// neither. Nothing past the eight transposed columns may be written.
func TestTranspose8(t *testing.T) {
	cases := []struct {
		kb, ss, ds int
		scale      float32
	}{
		{8, 13, 48, 0.5},
		{16, 21, 48, 1},
		{24, 24, 48, 1},
		{32, 2304, 48, -3},
		{64, 69, 8, 0.5},
		{200, 2304, 48, 1},
		{384, 389, 48, 0.7},
		{392, 397, 16, 1},
	}
	specials := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(math.Copysign(0, -1)), 0, 1e-40, -3e-39}
	rng := rand.New(rand.NewPCG(15, 16))
	forEachImpl(t, func(t *testing.T) {
		if Impl() == "go" {
			t.Skip("transpose8 is the assembly's entry point")
		}
		for _, c := range cases {
			checkTranspose8(t, rng, c.kb, c.ss, c.ds, c.scale, specials)
		}
	})
}

// checkTranspose8 runs transpose8 and transpose8Go on the same random
// 8 x ss source, with specials placed among its first kb columns, and
// fails on the first value whose bits differ.
func checkTranspose8(t *testing.T, rng *rand.Rand, kb, ss, ds int, scale float32, specials []float32) {
	t.Helper()
	src := randSlice32(rng, 8*ss)
	for i, v := range specials {
		src[i%8*ss+i*7%kb] = v
	}
	got := make([]float32, kb*ds)
	want := make([]float32, kb*ds)
	for i := range got {
		got[i], want[i] = 42, 42 // what the transpose must leave alone
	}
	transpose8(&got[0], ds, &src[0], ss, kb, scale)
	transpose8Go(&want[0], ds, &src[0], ss, kb, scale)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("kb=%d ss=%d ds=%d scale=%v: dst[%d] = %v, want %v", kb, ss, ds, scale, i, got[i], want[i])
		}
	}
}
