package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// poolTieValues are the values pooling tests draw from: few enough that
// windows hold ties, with both zeros, infinities and NaN.
var poolTieValues = []float64{-2, -1, math.Copysign(0, -1), 0, 1, 2, math.Inf(1), math.Inf(-1), math.NaN()}

// refMaxPool is maxPoolForward computed by maxWindow for every window, the
// definition the fast paths must match bit for bit.
func refMaxPool[T kernel.Float](x []T, planes, h, w, k, stride, oh, ow int) ([]T, []int32) {
	y := make([]T, planes*oh*ow)
	idx := make([]int32, len(y))
	for pl := 0; pl < planes; pl++ {
		src := x[pl*h*w : (pl+1)*h*w]
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				m, best := maxWindow(src, w, oy*stride, min(oy*stride+k, h), ox*stride, min(ox*stride+k, w))
				y[(pl*oh+oy)*ow+ox] = m
				idx[(pl*oh+oy)*ow+ox] = int32(best)
			}
		}
	}
	return y, idx
}

func checkMaxPool2x2[T kernel.Float](t *testing.T, r *rand.Rand, nanRate float64) {
	t.Helper()
	for h := 1; h <= 9; h++ {
		for w := 1; w <= 37; w += 1 + w/8 {
			for _, ceil := range []bool{false, true} {
				oh, ok1 := poolOutSize(h, 2, 2, ceil)
				ow, ok2 := poolOutSize(w, 2, 2, ceil)
				if !ok1 || !ok2 {
					continue
				}
				const planes = 3
				x := make([]T, planes*h*w)
				for i := range x {
					v := poolTieValues[r.IntN(len(poolTieValues)-1)]
					if r.Float64() < nanRate {
						v = math.NaN()
					}
					x[i] = T(v)
				}
				want, wantIdx := refMaxPool(x, planes, h, w, 2, 2, oh, ow)
				y := make([]T, len(want))
				idx := make([]int32, len(want))
				maxPoolForward(x, planes, h, w, 2, 2, oh, ow, y, idx)
				name := fmt.Sprintf("%T %dx%d ceil %v", x[0], h, w, ceil)
				for i := range want {
					if math.Float64bits(float64(y[i])) != math.Float64bits(float64(want[i])) || idx[i] != wantIdx[i] {
						t.Fatalf("%s: output %d = %v at %d, want %v at %d (x %v)", name, i, y[i], idx[i], want[i], wantIdx[i], x)
					}
				}

			}
		}
	}
}

// TestMaxPool2x2MatchesWindows checks the 2 x 2, stride 2 paths (full rows,
// the clipped last column and row of odd sizes in ceil mode) against the
// general window loop: the same values, signs of zero included, and the same
// chosen positions, with ties, infinities and NaNs.
func TestMaxPool2x2MatchesWindows(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	forEachImpl(t, func(t *testing.T) {
		for _, nanRate := range []float64{0, 0.02, 0.3} {
			checkMaxPool2x2[float32](t, r, nanRate)
			checkMaxPool2x2[float64](t, r, nanRate)
		}
	})
}

// TestReluGradBits checks the branch-free reluGrad against its definition on
// the values where the bit test could go wrong.
func TestReluGradBits(t *testing.T) {
	xs := []float64{math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
		1e-40, -1e-40, 1, -1, math.MaxFloat32, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(),
		-math.NaN(), math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff0000000000001)}
	gs := []float64{3, -2.5, math.Copysign(0, -1), math.NaN(), math.Inf(-1)}
	t.Run("float32", func(t *testing.T) { checkReluGrad[float32](t, xs, gs) })
	t.Run("float64", func(t *testing.T) { checkReluGrad[float64](t, xs, gs) })
	x32 := []float32{math.Float32frombits(0x7f800001), math.Float32frombits(0xff800001), math.Float32frombits(1),
		math.Float32frombits(0x80000001), math.Float32frombits(0x7f7fffff)}
	xs32 := make([]float64, len(x32))
	for i, v := range x32 {
		xs32[i] = float64(v)
	}
	t.Run("float32 bits", func(t *testing.T) { checkReluGrad[float32](t, xs32, gs) })
}

func checkReluGrad[T kernel.Float](t *testing.T, xs, gs []float64) {
	var x, g []T
	for _, xv := range xs {
		for _, gv := range gs {
			x = append(x, T(xv))
			g = append(g, T(gv))
		}
	}
	dst := make([]T, len(x))
	reluGrad(dst, g, x)
	for i := range x {
		var want T
		if x[i] > 0 {
			want = g[i]
		}
		if math.Float64bits(float64(dst[i])) != math.Float64bits(float64(want)) {
			t.Errorf("x %v, g %v: %v, want %v", x[i], g[i], dst[i], want)
		}
	}
}

// TestMaxPool2x2PlanesAsm compares the whole-plane assembly with its Go
// twin on planes of every small size the windows cover, with ties, signed
// zeros, infinities and planes holding a NaN, where the assembly must stop.
func TestMaxPool2x2PlanesAsm(t *testing.T) {
	if !useMaxPoolAsm() {
		t.Skip("no AVX2 assembly in this build")
	}
	r := rand.New(rand.NewPCG(33, 34))
	for h := 1; h <= 11; h++ {
		for w := 1; w <= 40; w += 1 + w/9 {
			oh, _ := poolOutSize(h, 2, 2, true)
			ow, _ := poolOutSize(w, 2, 2, true)
			const planes = 5
			for _, nanPlane := range []int{-1, 0, 3} {
				x := make([]float32, planes*h*w)
				for i := range x {
					x[i] = float32(poolTieValues[r.IntN(len(poolTieValues)-1)])
				}
				if nanPlane >= 0 {
					x[nanPlane*h*w+r.IntN(h*w)] = float32(math.NaN())
				}
				name := fmt.Sprintf("%dx%d NaN in plane %d", h, w, nanPlane)
				y, idx := make([]float32, planes*oh*ow+8), make([]int32, planes*oh*ow+8)
				y2, idx2 := make([]float32, len(y)), make([]int32, len(idx))
				got := maxPool2x2PlanesAVX2(&x[0], &y[0], &idx[0], planes, h, w, oh, ow)
				want := maxPool2x2PlanesGo(x, planes, h, w, oh, ow, y2, idx2)
				if got != want {
					t.Fatalf("%s: %d planes done, twin %d", name, got, want)
				}
				for i := 0; i < want*oh*ow; i++ {
					if math.Float32bits(y[i]) != math.Float32bits(y2[i]) || idx[i] != idx2[i] {
						t.Fatalf("%s: output %d = %v at %d, twin %v at %d", name, i, y[i], idx[i], y2[i], idx2[i])
					}
				}
				for i := planes * oh * ow; i < len(y); i++ {
					if y[i] != 0 || idx[i] != 0 {
						t.Fatalf("%s: wrote past the planes at %d", name, i)
					}
				}
			}
		}
	}
}

// TestUnpool2x2 checks unpool2x2 (with its assembly, on planes at least
// 16 wide) and unpool2x2Go (its definition, on every row), which write each
// plane of the pooled gradient row pair by row pair, against clearing the
// plane and scattering (scatterReLU, maxPoolScatter) the masked gradient:
// on planes of every small size the windows cover (odd sides in ceil
// mode), values of both signs, zeros of both signs, subnormals and NaNs,
// with and without the ReLU mask, in float32 and float64.
func TestUnpool2x2(t *testing.T) {
	for _, impl := range kernel.Available() {
		prev, err := kernel.SetImpl(impl)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(impl+"/float32", func(t *testing.T) { checkUnpool[float32](t) })
		t.Run(impl+"/float64", func(t *testing.T) { checkUnpool[float64](t) })
		kernel.SetImpl(prev)
	}
}

func checkUnpool[T kernel.Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	special := []float64{0, math.Copysign(0, -1), 1e-40, -1e-40, math.NaN(), math.Inf(1), -2.5, 3}
	val := func() T {
		if rng.IntN(4) == 0 {
			return T(special[rng.IntN(len(special))])
		}
		return T(rng.Float64() - 0.5)
	}
	var sizes [][2]int
	for h := 1; h <= 9; h++ {
		for w := 1; w <= 37; w += 1 + w/8 {
			sizes = append(sizes, [2]int{h, w})
		}
	}
	// Planes of whole windows, one call each on the assembly path: the
	// digits' first layer (30 x 30), a multiple of eight windows a row,
	// and a last group overlapping the one before.
	sizes = append(sizes, [2]int{30, 30}, [2]int{4, 32}, [2]int{6, 46}, [2]int{12, 18})
	for _, hw := range sizes {
		{
			h, w := hw[0], hw[1]
			oh, ow := (h+1)/2, (w+1)/2
			x := make([]T, h*w)
			for i := range x {
				x[i] = val()
			}
			y, idx := make([]T, oh*ow), make([]int32, oh*ow)
			maxPoolForward(x, 1, h, w, 2, 2, oh, ow, y, idx)
			g := make([]T, oh*ow)
			for i := range g {
				g[i] = val()
			}
			for _, relu := range []bool{false, true} {
				var xs []T
				if relu {
					xs = y
				}
				want := make([]T, h*w)
				if relu {
					scatterReLU(want, g, xs, idx)
				} else {
					maxPoolScatter(g, idx, 1, h*w, oh*ow, want)
				}
				got := make([]T, h*w)
				for i := range got {
					got[i] = T(math.NaN()) // every value must be written
				}
				if w >= 16 && useMaxPoolAsm() && unsafe.Sizeof(T(0)) == 4 {
					unpool2x2(got, h, w, g, xs, idx, oh, ow)
				} else {
					for oy := 0; oy < oh; oy++ {
						var r1 []T
						if 2*oy+1 < h {
							r1 = got[(2*oy+1)*w : (2*oy+2)*w]
						}
						var xr []T
						if xs != nil {
							xr = xs[oy*ow : (oy+1)*ow]
						}
						unpool2x2Go(got[2*oy*w:(2*oy+1)*w], r1, g[oy*ow:(oy+1)*ow], xr, idx[oy*ow:(oy+1)*ow], 0, ow, 2*oy*w, w)
					}
				}
				for i := range want {
					gb, wb := math.Float64bits(float64(got[i])), math.Float64bits(float64(want[i]))
					if unsafe.Sizeof(T(0)) == 4 {
						gb, wb = uint64(math.Float32bits(float32(got[i]))), uint64(math.Float32bits(float32(want[i])))
					}
					if gb != wb {
						t.Fatalf("%dx%d relu %v: value %d = %v (%#x), clear and scatter give %v (%#x)", h, w, relu, i, got[i], gb, want[i], wb)
					}
				}
			}
		}
	}
}
