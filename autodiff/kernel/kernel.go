// Package kernel holds the numeric kernels under package autodiff: matrix
// multiply (Gemm, and GemmPacked for a left operand packed once by PackA),
// element-wise loops over float32 and float64 slices, the transforms of the
// Winograd convolutions F(4x4, 3x3) and F(5x5, 3x3) with the 8-lane
// interleaves that feed them (winograd.go), and the float64 linear
// combinations of their filter transforms (lincomb.go). FMAPeak measures the
// multiply-add rate the machine reaches, the limit the others are held to.
//
// Every kernel has a pure-Go reference implementation whose loop is written in
// its doc comment. On amd64 (without the purego build tag) the kernels
// dispatch at run time to AVX-512 or AVX2+FMA assembly, chosen from the CPU
// features: Gemm for float32 and float64, the element-wise kernels and the
// Winograd kernels for float32 and the linear combinations (in AVX2 under
// both). SetImpl forces one
// implementation ("go" included) so tests and the numerics audit can compare
// them. Other platforms run Go only.
//
// In the reference numerics mode (package numerics) every kernel follows one
// order of operations with every product rounded, the same under every
// implementation, thread count and platform: Gemm's is written in its doc
// comment, the element-wise kernels' in theirs (without the assembly, but for
// Gemm's float32 tile, whose AVX2 twin sgemmKernel6x16Ref adds rounded
// products in the same order).
//
// The kernels trust their callers: lengths and strides are checked up front
// and a mismatch panics with a fixed message naming the argument, as in BLAS.
// Callers such as package autodiff validate user input and return errors
// before calling here.
//
// Gemm and the element-wise kernels over long slices split their work over
// Threads goroutines (SetThreads; by default runtime.GOMAXPROCS) with
// Parallel, whose persistent workers keep polling for a while between parts
// so that back-to-back parallel regions do not wait for threads to wake.
package kernel

import "unsafe"

// Float is the element type of every kernel.
type Float interface{ ~float32 | ~float64 }

// Panic messages of argument validation, in the style of BLAS.
const (
	errNegM        = "kernel: m < 0"
	errNegN        = "kernel: n < 0"
	errNegK        = "kernel: k < 0"
	errBadLda      = "kernel: bad lda"
	errBadLdb      = "kernel: bad ldb"
	errBadLdc      = "kernel: bad ldc"
	errShortA      = "kernel: insufficient length of a"
	errShortB      = "kernel: insufficient length of b"
	errShortC      = "kernel: insufficient length of c"
	errLenMismatch = "kernel: slice lengths differ"
	errEmptyMax    = "kernel: Max of an empty slice"
	errPackedImpl  = "kernel: PackedA packed under another implementation"
)

// Gemm computes C = alpha*op(A)*op(B) + beta*C for row-major matrices, where
// op(A) is m x k and op(B) is k x n. When transA is set A is stored k x m,
// otherwise m x k; likewise B is stored n x k when transB is set. lda, ldb and
// ldc are the row strides. When beta is zero C is overwritten without being read.
// When alpha is zero or k is zero, A and B are not read and C becomes beta*C.
//
// Gemm panics if a dimension is negative, a stride is smaller than its row
// length, or a slice is too short for its dimensions and stride. C must not
// overlap A or B.
//
// A and B are packed into contiguous, zero-padded panels (transposes are
// resolved while packing), the product is computed block by block by a
// register-blocked micro-kernel (assembly for float32 on amd64), and the
// columns (or rows) of C are split over Threads goroutines. The float32
// assembly kernels read an operand where it is stored instead when its
// layout allows (see directReads), and run the last columns of C on a
// narrower kernel; the sums are the same either way.
func Gemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if gemmTrivial(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		return
	}
	gemmFlops(m, n, k)
	t0 := profileStart()
	gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	profileEnd(t0, shapeOf[T](m, n, k, transA, transB, EntryGemm))
}

// gemmTrivial validates the arguments of Gemm and does the products that
// need no multiplication: nothing when C is empty, C = beta*C when alpha or
// k is zero. It reports whether the product is done.
func gemmTrivial[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) bool {
	checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return true
	}
	if alpha == 0 || k == 0 {
		scaleMatrix(m, n, beta, c, ldc)
		return true
	}
	return false
}

// GemmSerial is Gemm computed on the calling goroutine alone, whatever
// Threads says, for callers that split their work over goroutines
// themselves (one product per goroutine, say). It gives the same bits as
// Gemm: the threads of Gemm split C, never the sum over k.
func GemmSerial[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if gemmTrivial(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		return
	}
	gemmFlops(m, n, k)
	t0 := profileStart()
	bl := blockingFor[T]()
	s := getScratch[T](bl)
	gemmSerial(bl, s, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	putScratch(s)
	profileEnd(t0, shapeOf[T](m, n, k, transA, transB, EntrySerial))
}

// checkGemm validates the arguments of Gemm and GemmRef.
func checkGemm(transA, transB bool, m, n, k, la, lda, lb, ldb, lc, ldc int) {
	switch {
	case m < 0:
		panic(errNegM)
	case n < 0:
		panic(errNegN)
	case k < 0:
		panic(errNegK)
	}
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	if lda < max(1, colsA) {
		panic(errBadLda)
	}
	if ldb < max(1, colsB) {
		panic(errBadLdb)
	}
	if ldc < max(1, n) {
		panic(errBadLdc)
	}
	if rowsA > 0 && colsA > 0 && la < (rowsA-1)*lda+colsA {
		panic(errShortA)
	}
	if rowsB > 0 && colsB > 0 && lb < (rowsB-1)*ldb+colsB {
		panic(errShortB)
	}
	if m > 0 && n > 0 && lc < (m-1)*ldc+n {
		panic(errShortC)
	}
}

// scaleMatrix sets the m x n matrix c to beta*c, writing zeros without reading
// c when beta is zero.
func scaleMatrix[T Float](m, n int, beta T, c []T, ldc int) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
		} else if beta != 1 {
			for j := range row {
				row[j] *= beta
			}
		}
	}
}

// GemmRef is the pure-Go reference of Gemm:
//
//	for i, j: c[i*ldc+j] = alpha * sum_p opA(i,p)*opB(p,j) + beta*c[i*ldc+j]
//
// with the beta term left out (c not read) when beta is zero.
func GemmRef[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s T
			for p := 0; p < k; p++ {
				av, bv := opElem(a, transA, lda, i, p), opElem(b, transB, ldb, p, j)
				s += av * bv
			}
			if beta == 0 {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
			}
		}
	}
}

// is32 reports whether T is a 4-byte float (float32 or a type defined on it).
func is32[T Float]() bool {
	var z T
	return unsafe.Sizeof(z) == 4
}

// as32 views x, whose element type is 4 bytes wide, as a []float32.
func as32[T Float](x []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// opElem returns element (r, c) of op(X) for X stored by rows with stride
// ld: X[r, c], or X[c, r] when trans.
func opElem[T Float](x []T, trans bool, ld, r, c int) T {
	if trans {
		return x[c*ld+r]
	}
	return x[r*ld+c]
}
