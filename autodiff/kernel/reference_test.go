package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wadn-go/wadn/internal/numerics"
)

// gemmRefSpec is the loop of Gemm's doc comment for the reference numerics
// mode, written out plainly.
func gemmRefSpec[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	kb := kBlock(blockingRef, k)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			bet := beta
			for p0 := 0; p0 < k; p0 += kb {
				var s T
				for p := p0; p < min(p0+kb, k); p++ {
					av, bv := opElem(a, transA, lda, i, p), opElem(b, transB, ldb, p, j)
					s += T(T(alpha*av) * bv)
				}
				if bet == 0 {
					c[i*ldc+j] = s
				} else {
					c[i*ldc+j] = s + T(bet*c[i*ldc+j])
				}
				bet = 1
			}
		}
	}
}

// TestGemmReferenceBits checks that in the reference mode Gemm and
// GemmPacked give exactly the bits of gemmRefSpec under every
// implementation and thread count, for float32 and float64.
func TestGemmReferenceBits(t *testing.T) {
	defer numerics.Set(numerics.Set(numerics.Reference))
	prevImpl := Impl()
	defer SetImpl(prevImpl)
	defer SetThreads(SetThreads(1))
	saved := minParallelFlops
	minParallelFlops = 0 // split even small products over the threads
	defer func() { minParallelFlops = saved }()
	t.Run("float32", func(t *testing.T) { gemmReferenceBits[float32](t) })
	t.Run("float64", func(t *testing.T) { gemmReferenceBits[float64](t) })
}

func gemmReferenceBits[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	bits := func(v T) uint64 {
		if is32[T]() {
			return uint64(math.Float32bits(float32(v)))
		}
		return math.Float64bits(float64(v))
	}
	for _, s := range [][3]int{{1, 1, 1}, {6, 16, 8}, {7, 17, 255}, {13, 33, 257}, {40, 50, 600}, {97, 31, 1030}} {
		m, n, k := s[0], s[1], s[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				for _, coef := range [][2]float64{{1, 0}, {-0.7, 0.5}} {
					alpha, beta := T(coef[0]), T(coef[1])
					lda, ldb := k, n
					if ta {
						lda = m
					}
					if tb {
						ldb = k
					}
					a, b := randT[T](r, m*k), randT[T](r, k*n)
					c0 := randT[T](r, m*n)
					want := slices.Clone(c0)
					gemmRefSpec(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, want, n)
					for _, impl := range Available() {
						for _, threads := range []int{1, 2} {
							if _, err := SetImpl(impl); err != nil {
								t.Fatal(err)
							}
							SetThreads(threads)
							got := slices.Clone(c0)
							Gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, got, n)
							packed := slices.Clone(c0)
							var pa PackedA[T]
							PackA(&pa, ta, m, k, alpha, a, lda)
							GemmPacked(&pa, tb, n, b, ldb, beta, packed, n)
							for i := range want {
								if bits(got[i]) != bits(want[i]) || bits(packed[i]) != bits(want[i]) {
									t.Fatalf("%s, %d threads, %dx%dx%d transA=%v transB=%v alpha=%v beta=%v: c[%d] = %v (packed %v), want %v",
										impl, threads, m, n, k, ta, tb, alpha, beta, i, got[i], packed[i], want[i])
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestReferenceElementwiseBits checks the element-wise kernels and the
// reductions of the reference mode against their loops, bit for bit, under
// every implementation and thread count.
func TestReferenceElementwiseBits(t *testing.T) {
	defer numerics.Set(numerics.Set(numerics.Reference))
	prevImpl := Impl()
	defer SetImpl(prevImpl)
	defer SetThreads(SetThreads(1))
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 7, 8, 33, 1 << 15, 1<<16 + 9, 3<<16 + 5} {
		x, y := randT[float32](r, n), randT[float32](r, n)
		wantAxpy := slices.Clone(y)
		for i, v := range x {
			wantAxpy[i] += float32(0.3 * v)
		}
		wantExp := make([]float32, n)
		for i, v := range x {
			wantExp[i] = float32(numerics.PortableExp(float64(v)))
		}
		// Sums: blocks of reduceChunk in order, each summed in order.
		var wantDot, wantSum float32
		for lo := 0; lo < n; lo += reduceChunk {
			var d, s float32
			for i := lo; i < min(lo+reduceChunk, n); i++ {
				d += float32(x[i] * y[i])
				s += x[i]
			}
			wantDot += d
			wantSum += s
		}
		for _, impl := range Available() {
			for _, threads := range []int{1, 2} {
				SetImpl(impl)
				SetThreads(threads)
				where := fmt.Sprintf("%s, %d threads, n=%d", impl, threads, n)
				got := slices.Clone(y)
				Axpy(0.3, x, got)
				e := make([]float32, n)
				Exp(e, x)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(wantAxpy[i]) || math.Float32bits(e[i]) != math.Float32bits(wantExp[i]) {
						t.Fatalf("%s: element %d: Axpy %v (want %v), Exp %v (want %v)", where, i, got[i], wantAxpy[i], e[i], wantExp[i])
					}
				}
				if d, s := Dot(x, y), Sum(x); math.Float32bits(d) != math.Float32bits(wantDot) || math.Float32bits(s) != math.Float32bits(wantSum) {
					t.Errorf("%s: Dot %v (want %v), Sum %v (want %v)", where, d, wantDot, s, wantSum)
				}
			}
		}
	}
}

// randT returns n values drawn from N(0, 1).
func randT[T Float](r *rand.Rand, n int) []T {
	v := make([]T, n)
	for i := range v {
		v[i] = T(r.NormFloat64())
	}
	return v
}
