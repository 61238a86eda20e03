package convex

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// spd returns a random symmetric positive definite n×n matrix B·Bᵀ/n + I
// (full storage).
func spd(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 9))
	b := make([]float64, n*n)
	for i := range b {
		b[i] = r.NormFloat64()
	}
	a := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			s := dot(b[i*n:(i+1)*n], b[j*n:(j+1)*n]) / float64(n)
			if i == j {
				s++
			}
			a[i*n+j], a[j*n+i] = s, s
		}
	}
	return a
}

// TestBlockedCholesky: from order blockMin on, cholesky works by blocks; its
// factor agrees with the row-by-row one to rounding, across block edges,
// and it still reports a matrix that is not positive definite.
func TestBlockedCholesky(t *testing.T) {
	for _, n := range []int{blockMin, blockMin + 1, 333, 2*blockSize*4 + 7} {
		a := spd(n, uint64(n))
		ref := slices.Clone(a)
		if !cholesky(a, n) || !cholRows(ref, n, n) {
			t.Fatalf("n=%d: a positive definite matrix was refused", n)
		}
		worst := 0.0
		for i := range n {
			for j := 0; j <= i; j++ {
				worst = max(worst, math.Abs(a[i*n+j]-ref[i*n+j])/ref[i*n+i])
			}
		}
		if worst > 1e-12 {
			t.Errorf("n=%d: blocked and row-by-row factors differ by %.3g (relative to the diagonal)", n, worst)
		}
		// Solving with the blocked factor recovers a known solution.
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i%7) - 3
		}
		full := spd(n, uint64(n))
		rhs := make([]float64, n)
		for i := range n {
			rhs[i] = dot(full[i*n:(i+1)*n], x)
		}
		cholSolve(a, n, rhs)
		for i := range n {
			if math.Abs(rhs[i]-x[i]) > 1e-9 {
				t.Fatalf("n=%d: solve gives x[%d] = %v, want %v", n, i, rhs[i], x[i])
			}
		}
	}
	// An indefinite matrix whose defect shows only in a late block.
	n := 300
	a := spd(n, 3)
	a[290*n+290] = -5
	if cholesky(a, n) {
		t.Error("an indefinite matrix was factorised")
	}
}
