package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// simdImpls are the kernel implementations other than "go" that package
// kernel knows, fastest first.
var simdImpls = []string{"avx512", "avx2"}

// Tolerances of the kernel checks, as relative errors (see each kernel's
// notes for the scale). Element-wise arithmetic is correctly rounded in both
// implementations and must agree exactly; a fused multiply-add differs from a
// multiply then add by the rounding of the product plus that of the sum, at
// most 3*2^-24 of the operands' magnitude; sums and products of vectors are
// added in another order.
const (
	tolExact  = 0
	tolFMA    = 0x1p-22
	tolExp    = 1e-6
	tolReduce = 1e-6
	tolGemm   = 1e-5
)

// kernelSpec is one kernel check: run draws its inputs from r, computes the
// result under implementation impl and under "go", and returns the largest
// error.
type kernelSpec struct {
	name  string
	tol   float64
	notes string
	run   func(r *rand.Rand, impl string) (float64, string, error)
}

// lengths of the element-wise checks: below, at and above the vector widths
// (8 and 16 lanes) and long enough to be split over threads.
var lengths = []int{1, 3, 7, 8, 15, 16, 17, 31, 33, 100, 1023, 4101, 1<<17 + 3}

// KernelChecks returns, for every float32 kernel of package kernel, one check
// per implementation other than "go" comparing it with "go" (not applicable
// when the CPU or the build cannot run it), and a check of the pure-Go Gemm
// against GemmRef.
func KernelChecks() []Check {
	avail := kernel.Available()
	var out []Check
	for _, impl := range simdImpls {
		for _, ks := range kernelSpecs() {
			c := Check{Op: "kernel." + ks.name, Kind: impl + " vs go", Tol: ks.tol, Notes: ks.notes}
			if !slices.Contains(avail, impl) {
				c.NA = fmt.Sprintf("%s not available on this machine and build (available: %s)", impl, strings.Join(avail, ", "))
			} else {
				impl, run := impl, ks.run
				c.Run = func(seed uint64) (float64, string, error) {
					return run(rand.New(rand.NewPCG(seed, 2)), impl)
				}
			}
			out = append(out, c)
		}
	}
	out = append(out, Check{Op: "kernel.Gemm", Kind: "go vs GemmRef", Tol: tolGemm,
		Notes: "float32 and float64, error relative to sum |a||b| + |beta c|",
		Run: func(seed uint64) (float64, string, error) {
			r := rand.New(rand.NewPCG(seed, 3))
			e32, d32, err := gemmCompare[float32](r, "go", true)
			if err != nil {
				return e32, d32, err
			}
			e64, d64, err := gemmCompare[float64](r, "go", true)
			if e64 > e32 {
				return e64, "float64: " + d64, err
			}
			return e32, "float32: " + d32, err
		}})
	return out
}

// under runs f with the kernel implementation set to impl, then restores the
// previous one.
func under(impl string, f func()) error {
	prev, err := kernel.SetImpl(impl)
	if err != nil {
		return err
	}
	defer kernel.SetImpl(prev)
	f()
	return nil
}

// relErr returns |got-want|/scale, 0 when both are the same value (including
// both NaN or the same infinity), and +Inf when only one is NaN or infinite.
func relErr(got, want, scale float64) float64 {
	switch {
	case got == want || math.IsNaN(got) && math.IsNaN(want):
		return 0
	case math.IsNaN(got) || math.IsNaN(want) || math.IsInf(got, 0) || math.IsInf(want, 0):
		return math.Inf(1)
	}
	return math.Abs(got-want) / scale
}

// worst tracks the largest error and where it occurred.
type worst struct {
	err       float64
	where     string
	got, want float64
}

func (w *worst) add(e float64, got, want float64, where func() string) {
	if e > w.err || math.IsNaN(e) {
		w.err, w.got, w.want, w.where = e, got, want, where()
	}
}

func (w *worst) result() (float64, string, error) {
	if w.where == "" {
		return w.err, "", nil
	}
	return w.err, fmt.Sprintf("worst at %s: %.9g, go %.9g", w.where, w.got, w.want), nil
}

func normals(r *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(scale * r.NormFloat64())
	}
	return v
}

// specials replaces about one element in eight of v by a special value:
// ±0, ±Inf, NaN, the largest float32, a subnormal.
func specials(r *rand.Rand, v []float32) []float32 {
	sp := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32, 1e-40}
	for i := range v {
		if r.IntN(8) == 0 {
			v[i] = sp[r.IntN(len(sp))]
		}
	}
	return v
}

// elementwise checks an element-wise kernel f(dst, a, b) on normal inputs
// and, when withSpecials, on inputs holding special values; b is drawn away
// from zero when positiveB. The error of element i is relative to
// scale(a[i], b[i], want[i]).
func elementwise(f func(dst, a, b []float32), positiveB, withSpecials bool,
	scale func(a, b, want float64) float64) func(*rand.Rand, string) (float64, string, error) {
	return func(r *rand.Rand, impl string) (float64, string, error) {
		var w worst
		for _, sp := range []bool{false, true} {
			if sp && !withSpecials {
				continue
			}
			for _, n := range lengths {
				a, b := normals(r, n, 1), normals(r, n, 1)
				if positiveB {
					for i := range b {
						b[i] = 0.25 + float32(math.Abs(float64(b[i])))
					}
				}
				if sp {
					a, b = specials(r, a), specials(r, b)
				}
				got, want := make([]float32, n), make([]float32, n)
				if err := under(impl, func() { f(got, a, b) }); err != nil {
					return 0, "", err
				}
				if err := under("go", func() { f(want, a, b) }); err != nil {
					return 0, "", err
				}
				for i := range got {
					g, x := float64(got[i]), float64(want[i])
					w.add(relErr(g, x, scale(float64(a[i]), float64(b[i]), x)), g, x, func() string {
						return fmt.Sprintf("length %d element %d (a %g, b %g)", n, i, a[i], b[i])
					})
				}
			}
		}
		return w.result()
	}
}

// reduction checks a kernel that reduces slices a and b to one value; the
// error is relative to scale(a, b).
func reduction(f func(a, b []float32) float32, scale func(a, b []float32) float64) func(*rand.Rand, string) (float64, string, error) {
	return func(r *rand.Rand, impl string) (float64, string, error) {
		var w worst
		for _, n := range lengths {
			a, b := normals(r, n, 1), normals(r, n, 1)
			var got, want float32
			if err := under(impl, func() { got = f(a, b) }); err != nil {
				return 0, "", err
			}
			if err := under("go", func() { want = f(a, b) }); err != nil {
				return 0, "", err
			}
			g, x := float64(got), float64(want)
			w.add(relErr(g, x, math.Max(scale(a, b), math.SmallestNonzeroFloat32)), g, x, func() string {
				return fmt.Sprintf("length %d", n)
			})
		}
		return w.result()
	}
}

func relToWant(_, _, want float64) float64 { return math.Max(math.Abs(want), 0x1p-126) }

func kernelSpecs() []kernelSpec {
	return []kernelSpec{
		{"Add", tolExact, "with NaN, Inf, subnormals; error relative to |go|",
			elementwise(kernel.Add[float32], false, true, relToWant)},
		{"Sub", tolExact, "with NaN, Inf, subnormals; error relative to |go|",
			elementwise(kernel.Sub[float32], false, true, relToWant)},
		{"Mul", tolExact, "with NaN, Inf, subnormals; error relative to |go|",
			elementwise(kernel.Mul[float32], false, true, relToWant)},
		{"Div", tolExact, "with NaN, Inf, subnormals; error relative to |go|",
			elementwise(kernel.Div[float32], true, true, relToWant)},
		{"AddScalar", tolExact, "with NaN, Inf, subnormals; error relative to |go|",
			elementwise(func(dst, a, _ []float32) { kernel.AddScalar(dst, a, 0.375) }, false, true, relToWant)},
		{"Scale", tolExact, "with NaN, Inf, subnormals; error relative to |go|",
			elementwise(func(dst, a, _ []float32) { kernel.Scale(dst, a, -1.625) }, false, true, relToWant)},
		{"Axpy", tolFMA, "error relative to |alpha x| + |y|",
			elementwise(func(dst, a, b []float32) {
				copy(dst, b)
				kernel.Axpy(0.7, a, dst)
			}, false, false, func(a, b, _ float64) float64 {
				return math.Max(math.Abs(0.7*a)+math.Abs(b), 0x1p-126)
			})},
		{"Relu", tolExact, "with NaN, Inf, subnormals; error relative to |go|",
			elementwise(func(dst, a, _ []float32) { kernel.Relu(dst, a) }, false, true, relToWant)},
		{"Exp", tolExp, "inputs N(0, 4^2) and specials; error relative to max(|go|, 2^-126)",
			elementwise(func(dst, a, _ []float32) {
				for i := range a {
					a[i] *= 4
				}
				kernel.Exp(dst, a)
				for i := range a {
					a[i] /= 4 // leave the input as drawn for the report
				}
			}, false, true, relToWant)},
		{"Dot", tolReduce, "error relative to sum |x y|",
			reduction(kernel.Dot[float32], func(a, b []float32) float64 {
				var s float64
				for i := range a {
					s += math.Abs(float64(a[i]) * float64(b[i]))
				}
				return s
			})},
		{"Sum", tolReduce, "error relative to sum |x|",
			reduction(func(a, _ []float32) float32 { return kernel.Sum(a) }, func(a, _ []float32) float64 {
				var s float64
				for _, v := range a {
					s += math.Abs(float64(v))
				}
				return s
			})},
		{"Max", tolExact, "error relative to |go|",
			reduction(func(a, _ []float32) float32 { return kernel.Max(a) }, func(a, _ []float32) float64 {
				return math.Max(math.Abs(float64(kernelMaxRef(a))), 0x1p-126)
			})},
		{"Max/NaN", tolExact, "one NaN at a random position must give NaN",
			func(r *rand.Rand, impl string) (float64, string, error) {
				var w worst
				for _, n := range lengths {
					a := normals(r, n, 1)
					a[r.IntN(n)] = float32(math.NaN())
					var got float32
					if err := under(impl, func() { got = kernel.Max(a) }); err != nil {
						return 0, "", err
					}
					w.add(relErr(float64(got), math.NaN(), 1), float64(got), math.NaN(), func() string {
						return fmt.Sprintf("length %d", n)
					})
				}
				return w.result()
			}},
		{"Gemm", tolGemm, "all transposes, strides, alpha, beta; error relative to sum |a||b| + |beta c|",
			func(r *rand.Rand, impl string) (float64, string, error) { return gemmCompare[float32](r, impl, false) }},
		{"GemmPacked", tolGemm, "PackA then GemmPacked against Gemm under go; error relative to sum |a||b| + |beta c|",
			func(r *rand.Rand, impl string) (float64, string, error) {
				return gemmCompareMode[float32](r, impl, false, true)
			}},
		{"WinogradIn", tolExact, "with NaN, Inf, subnormals; the same bits as go", winogradSpec(winoIn)},
		{"WinogradInAdj", tolExact, "with NaN, Inf, subnormals; the same bits as go", winogradSpec(winoInAdj)},
		{"WinogradOut", tolExact, "with NaN, Inf, subnormals; the same bits as go", winogradSpec(winoOut)},
		{"WinogradOutAdj", tolExact, "with NaN, Inf, subnormals; the same bits as go", winogradSpec(winoOutAdj)},
		{"LinComb", tolExact, "Comb3, Comb3To32, AddScaled, AddWidened in float64, with NaN, Inf, subnormals; the same values as go", linCombSpec},
		{"Interleave8", tolExact, "full and partial lane sets; the same bits as go", interleaveSpec(false)},
		{"Deinterleave8", tolExact, "full and partial lane sets; the same bits as go", interleaveSpec(true)},
	}
}

// The Winograd transforms of package kernel.
const (
	winoIn = iota
	winoInAdj
	winoOut
	winoOutAdj
)

// winogradSpec compares one Winograd transform under impl with "go" for
// both tile sizes on several tile counts and strides, on inputs holding special values and an
// output buffer of random values (the adjoint of the input transform adds
// into it).
func winogradSpec(which int) func(*rand.Rand, string) (float64, string, error) {
	return func(r *rand.Rand, impl string) (float64, string, error) {
		var w worst
		L := kernel.Lanes
		for _, lay := range []struct {
			tile               kernel.WinogradTile
			tiles, row, stride int
		}{
			{kernel.F4x4, 1, 6 * L, L}, {kernel.F4x4, 3, 14*L + 3, 3*L + 5}, {kernel.F4x4, 4, 18 * L, 64*L + 16},
			{kernel.F5x5, 1, 7 * L, L}, {kernel.F5x5, 3, 17*L + 3, 3*L + 5}, {kernel.F5x5, 3, 17 * L, 128*L + 16},
		} {
			m, a := lay.tile.Outputs(), lay.tile.Size()
			tileLen := (a-1)*lay.row + L*(m*(lay.tiles-1)+a)
			posLen := (a*a-1)*lay.stride + L*lay.tiles
			src := specials(r, normals(r, max(tileLen, posLen), 1))
			base := normals(r, max(tileLen, posLen), 1)
			apply := func(dst []float32) {
				switch which {
				case winoIn:
					kernel.WinogradIn(lay.tile, dst, lay.stride, src, lay.row, lay.tiles)
				case winoInAdj:
					kernel.WinogradInAdj(lay.tile, dst, lay.row, src, lay.stride, lay.tiles)
				case winoOut:
					kernel.WinogradOut(lay.tile, dst, lay.row, src, lay.stride, lay.tiles, 0.375)
				case winoOutAdj:
					kernel.WinogradOutAdj(lay.tile, dst, lay.stride, src, lay.row, lay.tiles)
				}
			}
			if err := compareUnder(&w, impl, base, apply, func(i int) string {
				return fmt.Sprintf("%v, %d tiles, value %d", lay.tile, lay.tiles, i)
			}); err != nil {
				return 0, "", err
			}
		}
		return w.result()
	}
}

// linCombSpec compares the float64 linear-combination kernels under impl
// with "go", on lengths with and without a tail, on inputs spanning 2^-60 to
// 2^60 with special values.
func linCombSpec(r *rand.Rand, impl string) (float64, string, error) {
	var w worst
	draw := func(n int) []float64 {
		v := make([]float64, n)
		for i, x := range specials(r, normals(r, n, 1)) {
			v[i] = math.Ldexp(float64(x), r.IntN(121)-60)
		}
		return v
	}
	c := [3]float64{0.8125, -1.0 / 3, 0x1p-20}
	for _, n := range lengths {
		r0, r1, r2, d0 := draw(n), draw(n), draw(n), draw(n)
		x32 := specials(r, normals(r, n, 1))
		kernels := []struct {
			name string
			run  func() []float64
		}{
			{"Comb3", func() []float64 {
				d := make([]float64, n)
				kernel.Comb3(d, r0, r1, r2, c)
				return d
			}},
			{"Comb3To32", func() []float64 {
				d := make([]float32, n)
				kernel.Comb3To32(d, r0, r1, r2, c)
				out := make([]float64, n)
				for i, v := range d {
					out[i] = float64(v)
				}
				return out
			}},
			{"AddScaled", func() []float64 {
				d := slices.Clone(d0)
				kernel.AddScaled(d, r0, -0.6875)
				return d
			}},
			{"AddWidened", func() []float64 {
				d := slices.Clone(d0)
				kernel.AddWidened(d, x32)
				return d
			}},
		}
		for _, k := range kernels {
			var got, want []float64
			if err := under(impl, func() { got = k.run() }); err != nil {
				return 0, "", err
			}
			if err := under("go", func() { want = k.run() }); err != nil {
				return 0, "", err
			}
			for i := range want {
				w.add(relErr(got[i], want[i], math.Max(math.Abs(want[i]), 0x1p-1022)), got[i], want[i], func() string {
					return fmt.Sprintf("%s, length %d, value %d", k.name, n, i)
				})
			}
		}
	}
	return w.result()
}

// compareUnder runs apply on a copy of base under impl and on another under
// "go", and records in w each value's error relative to the "go" value.
func compareUnder(w *worst, impl string, base []float32, apply func([]float32), where func(int) string) error {
	got, want := slices.Clone(base), slices.Clone(base)
	if err := under(impl, func() { apply(got) }); err != nil {
		return err
	}
	if err := under("go", func() { apply(want) }); err != nil {
		return err
	}
	for i := range got {
		g, x := float64(got[i]), float64(want[i])
		w.add(relErr(g, x, math.Max(math.Abs(x), 0x1p-126)), g, x, func() string { return where(i) })
	}
	return nil
}

// interleaveSpec compares Interleave8 (or Deinterleave8) under impl with
// "go" on plane geometries of 1 to 900 pixels placed in padded buffers, for
// 8 images and for fewer.
func interleaveSpec(inverse bool) func(*rand.Rand, string) (float64, string, error) {
	return func(r *rand.Rand, impl string) (float64, string, error) {
		var w worst
		L := kernel.Lanes
		for _, g := range []struct{ h, w, pad int }{{1, 1, 0}, {3, 3, 1}, {7, 7, 0}, {15, 15, 1}, {30, 30, 0}} {
			row := g.w + 2*g.pad + 1
			var offs []int32
			for y := 0; y < g.h; y++ {
				for x := 0; x < g.w; x++ {
					offs = append(offs, int32(((y+g.pad)*row+x+g.pad)*L))
				}
			}
			n := len(offs)
			stride := n + 5
			for _, lanes := range []int{L, 3} {
				planes := normals(r, L*stride, 1)
				buf := normals(r, (g.h+2*g.pad)*row*L+L, 1)
				apply := func(dst []float32) {
					if inverse {
						kernel.Deinterleave8(dst, stride, buf, kernel.NewOffsets(offs), lanes)
						return
					}
					kernel.Interleave8(dst, kernel.NewOffsets(offs), planes, stride, lanes)
				}
				base := buf
				if inverse {
					base = planes
				}
				if err := compareUnder(&w, impl, base, apply, func(i int) string {
					return fmt.Sprintf("%d pixels, %d lanes, value %d", n, lanes, i)
				}); err != nil {
					return 0, "", err
				}
			}
		}
		return w.result()
	}
}

// kernelMaxRef is the largest element of a, for the error scale of Max.
func kernelMaxRef(a []float32) float32 {
	m := a[0]
	for _, v := range a {
		m = max(m, v)
	}
	return m
}

// gemmCompare runs Gemm over a set of shapes, transposes, strides and
// coefficients under impl and compares it with "go" or, when withRef, with
// GemmRef.
func gemmCompare[T kernel.Float](r *rand.Rand, impl string, withRef bool) (float64, string, error) {
	return gemmCompareMode[T](r, impl, withRef, false)
}

// gemmCompareMode is gemmCompare; with packed set, the product under impl
// is computed by PackA and GemmPacked instead of Gemm.
func gemmCompareMode[T kernel.Float](r *rand.Rand, impl string, withRef, packed bool) (float64, string, error) {
	var w worst
	shapes := [][3]int{{1, 1, 1}, {7, 13, 5}, {33, 47, 65}, {64, 96, 128}, {129, 65, 300}, {5, 200, 17}}
	err := eachGemmCase(shapes, func(g gemmCase) error {
		m, n, k, ta, tb := g.m, g.n, g.k, g.ta, g.tb
		alpha, beta := T(g.alpha), T(g.beta)
		pad := r.IntN(3) // extra row stride
		lda, ldb, ldc := g.ca+pad, g.cb+pad, n+pad
		a := randT[T](r, g.ra*lda)
		b := randT[T](r, g.rb*ldb)
		c0 := randT[T](r, m*ldc)
		got := slices.Clone(c0)
		want := slices.Clone(c0)
		if withRef {
			if err := under(impl, func() {
				kernel.Gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
			}); err != nil {
				return err
			}
			kernel.GemmRef(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
		} else {
			if err := under(impl, func() {
				if packed {
					var pa kernel.PackedA[T]
					kernel.PackA(&pa, ta, m, k, alpha, a, lda)
					kernel.GemmPacked(&pa, tb, n, b, ldb, beta, got, ldc)
					return
				}
				kernel.Gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
			}); err != nil {
				return err
			}
			if err := under("go", func() {
				kernel.Gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
			}); err != nil {
				return err
			}
		}
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				scale := gemmScale(ta, tb, i, j, k, float64(alpha), a, lda, b, ldb) +
					math.Abs(float64(beta)*float64(c0[i*ldc+j]))
				x, y := float64(got[i*ldc+j]), float64(want[i*ldc+j])
				w.add(relErr(x, y, math.Max(scale, 0x1p-126)), x, y, func() string { return g.at(i, j) })
			}
		}
		// The padding between rows must be left alone.
		for i := 0; i < m; i++ {
			for j := n; j < ldc && i*ldc+j < len(got); j++ {
				if got[i*ldc+j] != c0[i*ldc+j] {
					return fmt.Errorf("m=%d n=%d k=%d: wrote c[%d] outside the matrix", m, n, k, i*ldc+j)
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, "", err
	}
	return w.result()
}

// gemmCase is one product of the Gemm checks: C (m x n) = alpha op(A) op(B)
// + beta C with op(A) m x k, and the stored shapes of A (ra x ca) and B
// (rb x cb) under the transposes.
type gemmCase struct {
	m, n, k        int
	ta, tb         bool
	alpha, beta    float64
	ra, ca, rb, cb int
}

// eachGemmCase calls f on every shape with each transpose of A and of B and
// the coefficients (alpha, beta) = (1, 0) and (-0.7, 0.5), in that order,
// and returns f's first error.
func eachGemmCase(shapes [][3]int, f func(gemmCase) error) error {
	for _, s := range shapes {
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				for _, coef := range [][2]float64{{1, 0}, {-0.7, 0.5}} {
					g := gemmCase{m: s[0], n: s[1], k: s[2], ta: ta, tb: tb, alpha: coef[0], beta: coef[1]}
					g.ra, g.ca = g.m, g.k
					if ta {
						g.ra, g.ca = g.k, g.m
					}
					g.rb, g.cb = g.k, g.n
					if tb {
						g.rb, g.cb = g.n, g.k
					}
					if err := f(g); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// at describes element (i, j) of the case's product.
func (g gemmCase) at(i, j int) string {
	return fmt.Sprintf("m=%d n=%d k=%d transA=%v transB=%v alpha=%g beta=%g c[%d,%d]", g.m, g.n, g.k, g.ta, g.tb, g.alpha, g.beta, i, j)
}

// gemmScale returns sum_p |alpha*opA(i,p)*opB(p,j)| in float64: the scale
// of element (i, j) of a product against which its error is measured.
func gemmScale[T kernel.Float](ta, tb bool, i, j, k int, alpha float64, a []T, lda int, b []T, ldb int) float64 {
	var scale float64
	for p := 0; p < k; p++ {
		var av, bv T
		if ta {
			av = a[p*lda+i]
		} else {
			av = a[i*lda+p]
		}
		if tb {
			bv = b[j*ldb+p]
		} else {
			bv = b[p*ldb+j]
		}
		scale += math.Abs(alpha * float64(av) * float64(bv))
	}
	return scale
}

func randT[T kernel.Float](r *rand.Rand, n int) []T {
	v := make([]T, n)
	for i := range v {
		v[i] = T(r.NormFloat64())
	}
	return v
}
