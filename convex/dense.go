package convex

import (
	"math"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// Dense kernels for the small symmetric systems of the interior-point core.
// Matrices are row-major n×n with stride n and only their lower triangle
// (j <= i) is read or written. The Gram products go through the project's
// Gemm; the factorisation and solves are plain dot-product loops.

// dot returns Σ_k a[k]·b[k] for len(b) >= len(a).
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	for len(a) >= 4 && len(b) >= 4 {
		s0 += float64(a[0] * b[0])
		s1 += float64(a[1] * b[1])
		s2 += float64(a[2] * b[2])
		s3 += float64(a[3] * b[3])
		a, b = a[4:], b[4:]
	}
	for k, v := range a {
		s0 += float64(v * b[k])
	}
	return (s0 + s1) + (s2 + s3)
}

// gram sets the lower triangle of h (n×n) to B·Bᵀ, where B is n×m
// row-major in b: h[i*n+j] = Σ_y b[i*m+y]·b[j*m+y] for j <= i. It is one
// matrix product of the project's Gemm (AVX-512 or AVX2 assembly on amd64),
// which fills the whole of h; the upper triangle is not read by the callers.
func gram(h, b []float64, n, m int) {
	if n == 0 {
		return
	}
	if m == 0 {
		clear(h[:n*n])
		return
	}
	kernel.Gemm(false, true, n, n, m, 1, b, m, b, m, 0, h, n)
}

// blockMin is the order from which cholesky works by blocks of blockSize
// rows, so that most of its arithmetic is the matrix product of package
// kernel; below it the row-by-row form is faster.
const (
	blockMin  = 256
	blockSize = 64
)

// cholesky overwrites the lower triangle of a (n×n, row-major) with L such
// that A = L·Lᵀ and reports false, leaving a partly overwritten, when A is
// not numerically positive definite. Only the lower triangle is read; from
// order blockMin on the upper triangle is overwritten too (callers never
// read it).
//
// The blocked form is the right-looking algorithm: factor a diagonal block
// by rows (cholRows), solve the panel below it against that factor, then
// subtract the panel's outer product from the trailing lower triangle, one
// strip of rows at a time, with kernel.Gemm.
func cholesky(a []float64, n int) bool {
	if n < blockMin {
		return cholRows(a, n, n)
	}
	for k := 0; k < n; k += blockSize {
		kb := min(blockSize, n-k)
		if !cholRows(a[k*n+k:], kb, n) {
			return false
		}
		// Panel rows r > k+kb: x := x·L_kk⁻ᵀ, by forward substitution.
		for r := k + kb; r < n; r++ {
			x := a[r*n+k : r*n+k+kb]
			for j := range kb {
				lj := a[(k+j)*n+k : (k+j)*n+k+j+1]
				x[j] = (x[j] - dot(lj[:j], x)) / lj[j]
			}
		}
		m := n - k - kb
		if m == 0 {
			break
		}
		p := a[(k+kb)*n+k:]      // m×kb panel, stride n
		c := a[(k+kb)*n+(k+kb):] // m×m trailing matrix, stride n
		for i0 := 0; i0 < m; i0 += blockSize {
			i1 := min(i0+blockSize, m)
			// Rows i0..i1 of C, columns 0..i1: the lower triangle and
			// the part of the upper one within the strip's diagonal block.
			kernel.Gemm(false, true, i1-i0, i1, kb, -1, p[i0*n:], n, p, n, 1, c[i0*n:], n)
		}
	}
	return true
}

// cholRows overwrites the lower triangle of the n×n matrix at a, with row
// stride lda, with L such that A = L·Lᵀ (the Cholesky–Banachiewicz order:
// each entry is a dot product of two contiguous row prefixes). Rows are
// computed two at a time so that every earlier row is loaded once for
// both. It reports false, leaving a partly overwritten, when A is not
// numerically positive definite.
func cholRows(a []float64, n, lda int) bool {
	i := 0
	for ; i+2 <= n; i += 2 {
		r0 := a[i*lda : i*lda+i+1]
		r1 := a[(i+1)*lda : (i+1)*lda+i+2]
		for j := 0; j < i; j++ {
			rj := a[j*lda : j*lda+j+1]
			d := rj[j]
			x0, x1, xj := r0[:j], r1[:j], rj[:j]
			var s0, s1, t0, t1 float64
			for len(xj) >= 2 && len(x0) >= 2 && len(x1) >= 2 {
				u, v := xj[0], xj[1]
				s0 += float64(x0[0] * u)
				s1 += float64(x0[1] * v)
				t0 += float64(x1[0] * u)
				t1 += float64(x1[1] * v)
				xj, x0, x1 = xj[2:], x0[2:], x1[2:]
			}
			if len(xj) == 1 && len(x0) == 1 && len(x1) == 1 {
				s0 += float64(x0[0] * xj[0])
				t0 += float64(x1[0] * xj[0])
			}
			r0[j] = (r0[j] - (s0 + s1)) / d
			r1[j] = (r1[j] - (t0 + t1)) / d
		}
		d0 := r0[i] - dot(r0[:i], r0)
		if !(d0 > 0) || math.IsInf(d0, 0) {
			return false
		}
		r0[i] = math.Sqrt(d0)
		r1[i] = (r1[i] - dot(r1[:i], r0)) / r0[i]
		d1 := r1[i+1] - dot(r1[:i+1], r1)
		if !(d1 > 0) || math.IsInf(d1, 0) {
			return false
		}
		r1[i+1] = math.Sqrt(d1)
	}
	if i < n {
		ri := a[i*lda : i*lda+i+1]
		for j := 0; j < i; j++ {
			rj := a[j*lda : j*lda+j+1]
			ri[j] = (ri[j] - dot(ri[:j], rj)) / rj[j]
		}
		d := ri[i] - dot(ri[:i], ri)
		if !(d > 0) || math.IsInf(d, 0) {
			return false
		}
		ri[i] = math.Sqrt(d)
	}
	return true
}

// cholSolve overwrites r with A⁻¹r given the factor L of A from cholesky.
func cholSolve(l []float64, n int, r []float64) {
	r = r[:n]
	// L·w = r, by rows.
	for i := range n {
		li := l[i*n : i*n+i+1]
		r[i] = (r[i] - dot(li[:i], r)) / li[i]
	}
	// Lᵀ·x = w, by rows of L from the bottom: once x_i is known, its
	// multiples leave the earlier equations.
	for i := n - 1; i >= 0; i-- {
		li := l[i*n : i*n+i+1]
		r[i] /= li[i]
		xi := r[i]
		for k, v := range li[:i] {
			r[k] -= float64(v * xi)
		}
	}
}
