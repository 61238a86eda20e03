package autodiff

import (
	"fmt"
	"math"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// CSR is a sparse float32 matrix in compressed sparse row form, as bag-of-words
// features are stored: the non-zeros of row r are Val[RowPtr[r]:RowPtr[r+1]]
// in the columns ColIdx[RowPtr[r]:RowPtr[r+1]]. Columns within a row need not
// be sorted; a column repeated within a row adds up.
type CSR struct {
	Rows, Cols int
	RowPtr     []int   // len Rows+1, RowPtr[0] == 0, non-decreasing
	ColIdx     []int32 // len RowPtr[Rows], each in [0, Cols)
	Val        []float32
}

// Validate reports the first way in which x is not a well-formed CSR matrix:
// negative sizes, a RowPtr of the wrong length or not non-decreasing from 0,
// ColIdx and Val lengths that differ from RowPtr[Rows], a column index out of
// range, or a value that is NaN or infinite.
func (x *CSR) Validate() error {
	if x == nil {
		return fmt.Errorf("csr: nil matrix")
	}
	if x.Rows < 0 || x.Cols < 0 {
		return fmt.Errorf("csr: negative size %d x %d", x.Rows, x.Cols)
	}
	if len(x.RowPtr) != x.Rows+1 {
		return fmt.Errorf("csr: len(RowPtr) = %d, want Rows+1 = %d", len(x.RowPtr), x.Rows+1)
	}
	if x.RowPtr[0] != 0 {
		return fmt.Errorf("csr: RowPtr[0] = %d, want 0", x.RowPtr[0])
	}
	for r := 0; r < x.Rows; r++ {
		if x.RowPtr[r+1] < x.RowPtr[r] {
			return fmt.Errorf("csr: RowPtr[%d] = %d is below RowPtr[%d] = %d", r+1, x.RowPtr[r+1], r, x.RowPtr[r])
		}
	}
	nnz := x.RowPtr[x.Rows]
	if len(x.ColIdx) != nnz || len(x.Val) != nnz {
		return fmt.Errorf("csr: len(ColIdx) = %d, len(Val) = %d, want RowPtr[Rows] = %d", len(x.ColIdx), len(x.Val), nnz)
	}
	for r := 0; r < x.Rows; r++ {
		for i := x.RowPtr[r]; i < x.RowPtr[r+1]; i++ {
			if c := x.ColIdx[i]; c < 0 || int(c) >= x.Cols {
				return fmt.Errorf("csr: row %d: column index %d (entry %d) outside [0, %d)", r, c, i, x.Cols)
			}
			if v := float64(x.Val[i]); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("csr: row %d: value %v (entry %d) is not finite", r, v, i)
			}
		}
	}
	return nil
}

// NNZ returns the number of stored entries.
func (x *CSR) NNZ() int { return x.RowPtr[x.Rows] }

// SelectRows returns the matrix made of the rows of x listed in rows, in that
// order (a row may repeat), as a mini-batch is drawn. The result reuses the
// slices of dst when dst is not nil and they are large enough; dst may then be
// the returned matrix. x must be valid; an index outside [0, x.Rows) is an
// error.
func (x *CSR) SelectRows(rows []int, dst *CSR) (*CSR, error) {
	nnz := 0
	for i, r := range rows {
		if r < 0 || r >= x.Rows {
			return nil, fmt.Errorf("csr: select rows: rows[%d] = %d outside [0, %d)", i, r, x.Rows)
		}
		nnz += x.RowPtr[r+1] - x.RowPtr[r]
	}
	if dst == nil {
		dst = new(CSR)
	}
	dst.Rows, dst.Cols = len(rows), x.Cols
	dst.RowPtr = csrResize(dst.RowPtr, len(rows)+1)
	dst.ColIdx = csrResize(dst.ColIdx, nnz)
	dst.Val = csrResize(dst.Val, nnz)
	dst.RowPtr[0] = 0
	at := 0
	for i, r := range rows {
		lo, hi := x.RowPtr[r], x.RowPtr[r+1]
		copy(dst.ColIdx[at:], x.ColIdx[lo:hi])
		copy(dst.Val[at:], x.Val[lo:hi])
		at += hi - lo
		dst.RowPtr[i+1] = at
	}
	return dst, nil
}

// csrResize returns s with length n, reusing its array when it is large enough.
func csrResize[E any](s []E, n int) []E {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]E, n)
}

// csrMul sets y (x.Rows x n, row-major) to x*w for w of x.Cols x n, for the
// columns [j0, j1) of y and w only, so that column blocks can run in parallel:
//
//	y[r, j] = sum over entries (r, c, v) of v * w[c, j]
func csrMul[T kernel.Float](x *CSR, w []T, n, j0, j1 int, y []T) {
	for r := 0; r < x.Rows; r++ {
		yr := y[r*n+j0 : r*n+j1]
		clear(yr)
		for i := x.RowPtr[r]; i < x.RowPtr[r+1]; i++ {
			c := int(x.ColIdx[i])
			kernel.Axpy(T(x.Val[i]), w[c*n+j0:c*n+j1], yr)
		}
	}
}

// csrMulT adds x^T*g onto dw (x.Cols x n) for g of x.Rows x n, for the columns
// [j0, j1) only, without forming x^T:
//
//	dw[c, j] += sum over entries (r, c, v) of v * g[r, j]
func csrMulT[T kernel.Float](x *CSR, g []T, n, j0, j1 int, dw []T) {
	for r := 0; r < x.Rows; r++ {
		gr := g[r*n+j0 : r*n+j1]
		for i := x.RowPtr[r]; i < x.RowPtr[r+1]; i++ {
			c := int(x.ColIdx[i])
			// The caller already splits the columns over goroutines: a
			// serial update per entry avoids a fan-out per call.
			kernel.AxpySerial(T(x.Val[i]), gr, dw[c*n+j0:c*n+j1])
		}
	}
}

// sparseBlock is the narrowest column block of the dense operand handed to
// one goroutine: 64 columns keep each Axpy long enough to amortise its call.
const sparseBlock = 64

// parallelColumns is parallelRange over n columns in blocks of at least
// sparseBlock, with every bound but the last a multiple of 8. The float32
// Axpy fuses multiply and add in its 8-wide vector body and not in its
// scalar tail; with aligned bounds each column falls in a vector body or in
// the last n%8 columns' tail, as with one thread, so the products are the
// same to the bit whatever the thread count.
func parallelColumns(n int, fn func(j0, j1 int)) {
	parts := min(kernel.Threads(), n/sparseBlock)
	if parts <= 1 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	bound := func(p int) int {
		if p == parts {
			return n
		}
		return (p * n / parts) &^ 7
	}
	kernel.Parallel(parts, func(p int) { fn(bound(p), bound(p+1)) })
}

// SparseMatMul returns the product of the sparse matrix x (rows x cols) and
// the dense matrix w ([cols, n]), a [rows, n] tensor, without densifying x:
//
//	y[r, j] = sum over the entries (r, c, v) of x of v * w[c, j]
//
// It is differentiable in w: dW = x^T * dY, accumulated entry by entry from
// the rows of x. That gradient is linear in dY with adjoint SparseMatMul
// itself, so with createGraph it is recorded as a differentiable operator and
// SparseMatMul can be differentiated any number of times. x is a constant:
// no gradient flows to it. Both passes split the n columns into blocks run in
// parallel. x must be valid (see Validate); SparseMatMul panics with a
// *ShapeError when w is not [x.Cols, n] or x's RowPtr has the wrong length.
func SparseMatMul[T kernel.Float](x *CSR, w *Tensor[T]) *Tensor[T] {
	const op = "SparseMatMul"
	if len(w.shape) != 2 || w.shape[0] != x.Cols || len(x.RowPtr) != x.Rows+1 {
		shapePanic(op, "dense operand must be [x.Cols, n] for a valid CSR x", []int{x.Rows, x.Cols}, w.shape)
	}
	n := w.shape[1]
	y := empty[T](x.Rows, n)
	parallelColumns(n, func(j0, j1 int) {
		csrMul(x, w.data, n, j0, j1, y.data)
	})
	bw := func(g *Tensor[T], createGraph bool) []*Tensor[T] {
		if createGraph {
			return []*Tensor[T]{sparseMatMulTNode(x, g)}
		}
		dw := empty[T](x.Cols, n)
		sparseMulT(x, g.data, n, dw.data)
		return []*Tensor[T]{dw}
	}
	return newOp(op, y, []*Tensor[T]{w}, bw)
}

// sparseMulT sets dw (x.Cols x n) to x^T*g, column blocks in parallel.
func sparseMulT[T kernel.Float](x *CSR, g []T, n int, dw []T) {
	parallelColumns(n, func(j0, j1 int) {
		if j0 == 0 && j1 == n {
			clear(dw)
		} else {
			for c := 0; c < x.Cols; c++ {
				clear(dw[c*n+j0 : c*n+j1])
			}
		}
		csrMulT(x, g, n, j0, j1, dw)
	})
}

// sparseMatMulTNode records dw = x^T*g for g of shape [x.Rows, n]; its
// adjoint is SparseMatMul(x, .).
func sparseMatMulTNode[T kernel.Float](x *CSR, g *Tensor[T]) *Tensor[T] {
	n := g.shape[1]
	dw := empty[T](x.Cols, n)
	sparseMulT(x, g.data, n, dw.data)
	bw := func(gw *Tensor[T], createGraph bool) []*Tensor[T] {
		if createGraph {
			return []*Tensor[T]{SparseMatMul(x, gw)}
		}
		gg := empty[T](x.Rows, n)
		parallelColumns(n, func(j0, j1 int) {
			csrMul(x, gw.data, n, j0, j1, gg.data)
		})
		return []*Tensor[T]{gg}
	}
	return newOp("SparseMatMulBackward", dw, []*Tensor[T]{g}, bw)
}
