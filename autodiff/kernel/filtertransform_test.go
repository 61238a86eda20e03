package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// filterG returns the a x 3 matrix G of a Winograd tile, its rows one
// after the other.
func filterG(t WinogradTile) []float64 {
	_, g, _ := t.Matrices()
	var gm []float64
	for _, row := range g {
		gm = append(gm, row...)
	}
	return gm
}

// TestFilterTransform checks FilterTransform and FilterTransformAdj under
// every implementation, bit for bit, against the row operations they fuse
// (Comb3 and Comb3To32; AddWidened and AddScaled) applied to the rows of a
// block, on both tiles, one and two partial sums, values over many binades
// and zeros of both signs.
func TestFilterTransform(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(31, 32))
		for _, tile := range []WinogradTile{F4x4, F5x5} {
			gm := filterG(tile)
			a := tile.Size()
			G := func(p int) [3]float64 { return [3]float64(gm[3*p : 3*p+3]) }
			for _, n := range []int{0, 1, 4, 7, 8, 12, 20, 37, 256} {
				stride := n + 12
				val := func() float64 {
					switch rng.IntN(10) {
					case 0:
						return 0
					case 1:
						return math.Copysign(0, -1)
					}
					return (rng.Float64() - 0.5) * math.Ldexp(1, rng.IntN(40)-20)
				}
				// Forward: the filters' values by rows, and grouped.
				rows := make([][]float64, 9)
				g := make([]float64, (n+3)/4*36)
				for e := range rows {
					rows[e] = make([]float64, n)
					for k := range rows[e] {
						v := float64(float32(val()))
						rows[e][k] = v
						g[(k/4)*36+4*e+k%4] = v
					}
				}
				want := make([]float32, a*a*stride)
				tmp := make([][3][]float64, a)
				for p := range a {
					for j := range 3 {
						tmp[p][j] = make([]float64, n)
						Comb3(tmp[p][j], rows[j], rows[3+j], rows[6+j], G(p))
					}
					for q := range a {
						Comb3To32(want[(a*p+q)*stride:(a*p+q)*stride+n], tmp[p][0], tmp[p][1], tmp[p][2], G(q))
					}
				}
				got := make([]float32, a*a*stride)
				FilterTransform(got, stride, g, n, gm)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%v n=%d: u[%d] = %v, the rows give %v", tile, n, i, got[i], want[i])
					}
				}
				// Adjoint, with one and two partial sums.
				for _, parts := range []int{1, 2, 3} {
					dus := make([][]float32, parts)
					for i := range dus {
						dus[i] = make([]float32, a*a*stride)
						for j := range dus[i] {
							dus[i][j] = float32(val())
						}
					}
					s := make([][]float64, 9)
					for e := range s {
						s[e] = make([]float64, n)
					}
					x := make([]float64, n)
					for q := range a {
						var d [3][]float64
						for r := range d {
							d[r] = make([]float64, n)
						}
						for p := range a {
							clear(x)
							for _, du := range dus {
								AddWidened(x, du[(a*p+q)*stride:(a*p+q)*stride+n])
							}
							for r := range 3 {
								AddScaled(d[r], x, G(p)[r])
							}
						}
						for r := range 3 {
							for c := range 3 {
								AddScaled(s[3*r+c], d[r], G(q)[c])
							}
						}
					}
					out := make([]float32, (n+3)/4*36)
					FilterTransformAdj(out, dus, stride, n, gm)
					for e := range s {
						for k := range n {
							w, v := float32(s[e][k]), out[(k/4)*36+4*e+k%4]
							if math.Float32bits(w) != math.Float32bits(v) {
								t.Fatalf("%v n=%d, %d partial sums: value %d of filter %d = %v, the rows give %v", tile, n, parts, e, k, v, w)
							}
						}
					}
				}
			}
		}
	})
}
