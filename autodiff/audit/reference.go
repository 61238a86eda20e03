package audit

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// ReferenceChecks returns the checks of the reference numerics mode
// (package numerics): every float32 kernel computed in the mode against the
// same computation in float64, to the tolerances of the kernel checks, and
// one check that the mode gives the same bits under every implementation
// this machine has.
func ReferenceChecks() []Check {
	var out []Check
	for _, rs := range referenceSpecs() {
		run := rs.run
		out = append(out, Check{Op: "kernel." + rs.name, Kind: "reference vs float64", Tol: rs.tol, Notes: rs.notes,
			Run: func(seed uint64) (float64, string, error) {
				var e float64
				var d string
				var err error
				inReference(func() { e, d, err = run(rand.New(rand.NewPCG(seed, 5))) })
				return e, d, err
			}})
	}
	out = append(out, Check{Op: "kernel.*", Kind: "reference: every implementation", Tol: tolExact,
		Notes: "each kernel of the mode under every available implementation: the same bits as under go",
		Run:   referenceImplsCheck})
	out = append(out, Check{Op: "Conv2d", Kind: "reference vs float64", Tol: tolConvDirect,
		Notes: "y, dx, dw of the Winograd-sized cases, direct, against float64 (error relative to the sum of |terms|); with the Winograd algorithm set the mode must give the same bits",
		Run:   referenceConvCheck})
	return out
}

// referenceConvCheck runs the convolution checks in the reference mode under
// the fastest implementation, and checks that setting a Winograd algorithm
// changes no bit: the mode always runs direct.
func referenceConvCheck(seed uint64) (float64, string, error) {
	var e float64
	var detail string
	var err error
	impl := kernel.Available()[0]
	inReference(func() {
		e, detail, err = convCheck(autodiff.ConvDirect, impl, rand.New(rand.NewPCG(seed, 7)))
		if err != nil {
			return
		}
		r := rand.New(rand.NewPCG(seed, 8))
		for _, cs := range convCases {
			d := newConvData(cs, 0, r)
			var direct, wino [3][]float32
			err = under(impl, func() {
				var e1, e2 error
				direct[0], direct[1], direct[2], e1 = d.run(autodiff.ConvDirect)
				wino[0], wino[1], wino[2], e2 = d.run(autodiff.ConvWinograd5)
				err = errors.Join(e1, e2)
			})
			if err != nil {
				return
			}
			for k, name := range []string{"y", "dx", "dw"} {
				for i := range direct[k] {
					if math.Float32bits(direct[k][i]) != math.Float32bits(wino[k][i]) {
						e, detail = math.Inf(1), fmt.Sprintf("%v: %s[%d] is %g with Winograd set, %g direct", cs, name, i, wino[k][i], direct[k][i])
						return
					}
				}
			}
		}
	})
	return e, detail, err
}

// inReference runs f in the reference numerics mode, then restores the mode.
func inReference(f func()) {
	defer numerics.Set(numerics.Set(numerics.Reference))
	f()
}

// referenceSpec is one check of a kernel in the reference mode against
// float64.
type referenceSpec struct {
	name, notes string
	tol         float64
	run         func(r *rand.Rand) (float64, string, error)
}

// elementwise64 checks f, computed in float32, against g computed in float64
// and rounded once; the error of element i is relative to scale.
func elementwise64(f func(dst, a, b []float32), g func(a, b float64) float64, positiveB bool,
	scale func(a, b, want float64) float64) func(*rand.Rand) (float64, string, error) {
	return func(r *rand.Rand) (float64, string, error) {
		var w worst
		for _, n := range lengths {
			a, b := normals(r, n, 1), normals(r, n, 1)
			if positiveB {
				for i := range b {
					b[i] = 0.25 + float32(math.Abs(float64(b[i])))
				}
			}
			got := make([]float32, n)
			f(got, a, b)
			for i := range got {
				x := g(float64(a[i]), float64(b[i]))
				gv := float64(got[i])
				w.add(relErr(gv, x, scale(float64(a[i]), float64(b[i]), x)), gv, x, func() string {
					return fmt.Sprintf("length %d element %d (a %g, b %g)", n, i, a[i], b[i])
				})
			}
		}
		return w.result()
	}
}

// rounded is scale relative to the float64 result rounded to float32, for
// operations that must be correctly rounded: the error is then 0 or more
// than half an ulp.
func rounded(g func(a, b float64) float64) func(a, b float64) float64 {
	return func(a, b float64) float64 { return float64(float32(g(a, b))) }
}

func referenceSpecs() []referenceSpec {
	rel := relToWant
	return []referenceSpec{
		{"Add", "correctly rounded: equal to the float64 sum rounded to float32", tolExact,
			elementwise64(kernel.Add[float32], rounded(func(a, b float64) float64 { return a + b }), false, rel)},
		{"Sub", "correctly rounded", tolExact,
			elementwise64(kernel.Sub[float32], rounded(func(a, b float64) float64 { return a - b }), false, rel)},
		{"Mul", "correctly rounded", tolExact,
			elementwise64(kernel.Mul[float32], rounded(func(a, b float64) float64 { return a * b }), false, rel)},
		{"Div", "correctly rounded", tolExact,
			elementwise64(kernel.Div[float32], rounded(func(a, b float64) float64 { return a / b }), true, rel)},
		{"Scale", "correctly rounded", tolExact,
			elementwise64(func(dst, a, _ []float32) { kernel.Scale(dst, a, -1.625) },
				rounded(func(a, _ float64) float64 { return -1.625 * a }), false, rel)},
		{"AddScalar", "correctly rounded", tolExact,
			elementwise64(func(dst, a, _ []float32) { kernel.AddScalar(dst, a, 0.375) },
				rounded(func(a, _ float64) float64 { return a + 0.375 }), false, rel)},
		{"Axpy", "the product rounded, then the sum: error relative to |alpha x| + |y|", tolFMA,
			elementwise64(func(dst, a, b []float32) {
				copy(dst, b)
				kernel.Axpy(0.7, a, dst)
			}, func(a, b float64) float64 { return float64(float32(0.7))*a + b }, false,
				func(a, b, _ float64) float64 { return math.Max(math.Abs(0.7*a)+math.Abs(b), 0x1p-126) })},
		{"Exp", "inputs N(0, 4^2); against math.Exp in float64, relative to max(|exp|, 2^-126)", tolExp,
			elementwise64(func(dst, a, _ []float32) {
				for i := range a {
					a[i] *= 4
				}
				kernel.Exp(dst, a)
				for i := range a {
					a[i] /= 4
				}
			}, func(a, _ float64) float64 { return math.Exp(4 * a) }, false, relToWant)},
		{"Dot", "against the float64 sum, relative to sum |x y|", tolReduce, func(r *rand.Rand) (float64, string, error) {
			var w worst
			for _, n := range lengths {
				a, b := normals(r, n, 1), normals(r, n, 1)
				got := float64(kernel.Dot(a, b))
				var want, scale float64
				for i := range a {
					p := float64(a[i]) * float64(b[i])
					want += p
					scale += math.Abs(p)
				}
				w.add(relErr(got, want, math.Max(scale, 0x1p-126)), got, want, func() string { return fmt.Sprintf("length %d", n) })
			}
			return w.result()
		}},
		{"Sum", "against the float64 sum, relative to sum |x|", tolReduce, func(r *rand.Rand) (float64, string, error) {
			var w worst
			for _, n := range lengths {
				a := normals(r, n, 1)
				got := float64(kernel.Sum(a))
				var want, scale float64
				for _, v := range a {
					want += float64(v)
					scale += math.Abs(float64(v))
				}
				w.add(relErr(got, want, math.Max(scale, 0x1p-126)), got, want, func() string { return fmt.Sprintf("length %d", n) })
			}
			return w.result()
		}},
		{"Gemm", "float32 and float64, all transposes, strides, alpha, beta; against GemmRef in float64, relative to sum |a||b| + |beta c|", tolGemm,
			func(r *rand.Rand) (float64, string, error) {
				e32, d32, err := gemmAgainst64[float32](r)
				if err != nil {
					return e32, d32, err
				}
				e64, d64, err := gemmAgainst64[float64](r)
				if e64 > e32 {
					return e64, "float64: " + d64, err
				}
				return e32, "float32: " + d32, err
			}},
	}
}

// gemmAgainst64 runs Gemm on element type T over the shapes of the kernel
// checks and compares it with GemmRef on the same values in float64.
func gemmAgainst64[T kernel.Float](r *rand.Rand) (float64, string, error) {
	var w worst
	shapes := [][3]int{{1, 1, 1}, {7, 13, 5}, {33, 47, 65}, {64, 96, 300}, {129, 65, 600}}
	to64 := func(v []T) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out
	}
	err := eachGemmCase(shapes, func(g gemmCase) error {
		m, n, k, ca, cb := g.m, g.n, g.k, g.ca, g.cb
		alpha, beta := T(g.alpha), T(g.beta)
		a, b, c := randT[T](r, g.ra*ca), randT[T](r, g.rb*cb), randT[T](r, m*n)
		got := slices.Clone(c)
		kernel.Gemm(g.ta, g.tb, m, n, k, alpha, a, ca, b, cb, beta, got, n)
		want, a64, b64 := to64(c), to64(a), to64(b)
		kernel.GemmRef(g.ta, g.tb, m, n, k, float64(alpha), a64, ca, b64, cb, float64(beta), want, n)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				scale := math.Abs(float64(beta)*float64(c[i*n+j])) +
					gemmScale(g.ta, g.tb, i, j, k, float64(alpha), a64, ca, b64, cb)
				x, y := float64(got[i*n+j]), want[i*n+j]
				w.add(relErr(x, y, math.Max(scale, 0x1p-126)), x, y, func() string { return g.at(i, j) })
			}
		}
		return nil
	})
	if err != nil {
		return 0, "", err
	}
	return w.result()
}

// referenceImplsCheck runs every kernel in the reference mode under each
// available implementation and compares the bits with those under "go".
func referenceImplsCheck(seed uint64) (float64, string, error) {
	r := rand.New(rand.NewPCG(seed, 6))
	const n = 1<<17 + 5 // long enough for the threads and the vector loops
	a, b := normals(r, n, 1), normals(r, n, 1)
	m, k := 67, 129
	ga, gb := normals(r, m*k, 1), normals(r, k*m, 1)
	run := func() [][]float32 {
		var out [][]float32
		for _, f := range []func(dst, a, b []float32){kernel.Add[float32], kernel.Sub[float32], kernel.Mul[float32], kernel.Div[float32]} {
			d := make([]float32, n)
			f(d, a, b)
			out = append(out, d)
		}
		d := slices.Clone(b)
		kernel.Axpy(0.7, a, d)
		e := make([]float32, n)
		kernel.Exp(e, a)
		c := make([]float32, m*m)
		kernel.Gemm(false, false, m, m, k, 1, ga, k, gb, m, 0, c, m)
		return append(out, d, e, c, []float32{kernel.Dot(a, b), kernel.Sum(a), kernel.Max(a)})
	}
	var want [][]float32
	var err error
	inReference(func() { err = under("go", func() { want = run() }) })
	if err != nil {
		return 0, "", err
	}
	for _, impl := range kernel.Available() {
		var got [][]float32
		inReference(func() { err = under(impl, func() { got = run() }) })
		if err != nil {
			return 0, "", err
		}
		for i := range got {
			for j := range got[i] {
				if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
					return math.Inf(1), fmt.Sprintf("%s: result %d element %d: %g, go gives %g", impl, i, j, got[i][j], want[i][j]), nil
				}
			}
		}
	}
	return 0, "", nil
}
