package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLinComb checks the float64 linear-combination kernels bit for bit
// against their reference loops under every implementation, on lengths with
// and without a tail of fewer than 4 elements, on values spanning many
// binades, and on rows of zeros of both signs (whose sums keep their sign).
func TestLinComb(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(21, 22))
		for _, n := range []int{0, 1, 3, 4, 5, 8, 13, 256, 259} {
			row := func() []float64 {
				x := values(rng, n)
				for k := range x {
					x[k] *= math.Ldexp(1, rng.IntN(40)-20)
				}
				return x
			}
			negZeros := make([]float64, n)
			for k := range negZeros {
				negZeros[k] = math.Copysign(0, -1)
			}
			c := [3]float64{0.75, -1.0 / 3, 2.5e-3}
			for _, rows := range [][3][]float64{{row(), row(), row()}, {negZeros, negZeros, negZeros}} {
				r0, r1, r2 := rows[0], rows[1], rows[2]
				want := make([]float64, n)
				for k := range want {
					want[k] = float64(c[0]*r0[k]) + float64(c[1]*r1[k]) + float64(c[2]*r2[k])
				}
				got := make([]float64, n)
				Comb3(got, r0, r1, r2, c)
				sameBits64(t, "Comb3", got, want)
				got32 := make([]float32, n)
				Comb3To32(got32, r0, r1, r2, c)
				for k := range want {
					if w := float32(want[k]); math.Float32bits(got32[k]) != math.Float32bits(w) {
						t.Fatalf("Comb3To32 n=%d: [%d] = %v, want %v", n, k, got32[k], w)
					}
				}

				d := row()
				want = append([]float64(nil), d...)
				for k, v := range r1 {
					want[k] += float64(-0.3 * v)
				}
				AddScaled(d, r1, -0.3)
				sameBits64(t, "AddScaled", d, want)

				x := conv[float32](r2)
				d = append([]float64(nil), r0...)
				want = append([]float64(nil), r0...)
				for k, v := range x {
					want[k] += float64(v)
				}
				AddWidened(d, x)
				sameBits64(t, "AddWidened", d, want)
			}
		}
	})
}

// TestBlend32 checks Blend32 bit for bit against its reference loop under
// every implementation, on lengths with and without a tail of fewer than 8
// elements, on values spanning many binades, subnormals (which it must not
// flush), zeros of both signs, infinities and NaNs (whose payloads it need
// not keep).
func TestBlend32(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(23, 24))
		specials := []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -3 * math.SmallestNonzeroFloat32,
			1e-38, -1.1e-38, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32}
		for _, n := range []int{0, 1, 7, 8, 9, 16, 100, 259, 1027} {
			row := func() []float32 {
				x := make([]float32, n)
				for k := range x {
					if rng.IntN(8) == 0 {
						x[k] = specials[rng.IntN(len(specials))]
						continue
					}
					x[k] = float32(rng.NormFloat64() * math.Ldexp(1, rng.IntN(60)-30))
				}
				return x
			}
			for _, rq := range [][2]float32{{0.9995, 1 - 0.9995}, {0.5, 0.5}, {1e-20, 3e-20}, {0, 1}} {
				d, x := row(), row()
				want := append([]float32(nil), d...)
				for k, v := range x {
					want[k] = float32(rq[0]*want[k]) + float32(rq[1]*v)
				}
				Blend32(d, x, rq[0], rq[1])
				for k := range want {
					g, w := d[k], want[k]
					if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
						t.Fatalf("Blend32 n=%d r=%v: [%d] = %v, want %v", n, rq[0], k, g, w)
					}
				}
			}
		}
	})
}

// TestLinCombLengths checks that the kernels refuse slices of different
// lengths.
func TestLinCombLengths(t *testing.T) {
	a, b := make([]float64, 4), make([]float64, 5)
	for name, f := range map[string]func(){
		"Comb3":      func() { Comb3(a, a, a, b, [3]float64{}) },
		"Comb3To32":  func() { Comb3To32(make([]float32, 4), a, b, a, [3]float64{}) },
		"AddScaled":  func() { AddScaled(a, b, 1) },
		"AddWidened": func() { AddWidened(a, make([]float32, 5)) },
		"Blend32":    func() { Blend32(make([]float32, 4), make([]float32, 5), 1, 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s with lengths 4 and 5 did not panic", name)
				}
			}()
			f()
		}()
	}
}

func sameBits64(t *testing.T, name string, got, want []float64) {
	t.Helper()
	for k := range want {
		if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
			t.Fatalf("%s n=%d: [%d] = %v, want %v", name, len(want), k, got[k], want[k])
		}
	}
}
