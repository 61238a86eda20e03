package autodiff_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

func TestCSRValidate(t *testing.T) {
	good := func() *autodiff.CSR {
		return &autodiff.CSR{Rows: 2, Cols: 3, RowPtr: []int{0, 2, 3}, ColIdx: []int32{0, 2, 1}, Val: []float32{1, 2, 3}}
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("valid matrix rejected: %v", err)
	}
	for _, tc := range []struct {
		name   string
		break_ func(*autodiff.CSR)
		want   string
	}{
		{"negative", func(x *autodiff.CSR) { x.Cols = -1 }, "negative size"},
		{"rowptr length", func(x *autodiff.CSR) { x.RowPtr = x.RowPtr[:2] }, "len(RowPtr)"},
		{"rowptr start", func(x *autodiff.CSR) { x.RowPtr[0] = 1 }, "RowPtr[0]"},
		{"decreasing", func(x *autodiff.CSR) { x.RowPtr[1] = 4 }, "below"},
		{"nnz", func(x *autodiff.CSR) { x.Val = x.Val[:2] }, "len(ColIdx)"},
		{"column", func(x *autodiff.CSR) { x.ColIdx[2] = 3 }, "row 1: column index 3"},
		{"negative column", func(x *autodiff.CSR) { x.ColIdx[0] = -1 }, "row 0: column index -1"},
		{"nan", func(x *autodiff.CSR) { x.Val[1] = float32(math.NaN()) }, "not finite"},
		{"inf", func(x *autodiff.CSR) { x.Val[2] = float32(math.Inf(1)) }, "not finite"},
	} {
		x := good()
		tc.break_(x)
		err := x.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestCSRSelectRows(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x, dense := randCSR(r, 7, 5, 0.4)
	var dst *autodiff.CSR
	for _, rows := range [][]int{{0, 6, 3}, {}, {2, 2, 5, 1, 0, 4}, {1}} {
		got, err := x.SelectRows(rows, dst)
		if err != nil {
			t.Fatalf("SelectRows(%v): %v", rows, err)
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("SelectRows(%v) invalid: %v", rows, err)
		}
		if got.Rows != len(rows) || got.Cols != x.Cols {
			t.Fatalf("SelectRows(%v) is %d x %d", rows, got.Rows, got.Cols)
		}
		for i, src := range rows {
			row := make([]float64, x.Cols)
			for k := got.RowPtr[i]; k < got.RowPtr[i+1]; k++ {
				row[got.ColIdx[k]] += float64(got.Val[k])
			}
			for j := range row {
				if row[j] != dense[src*x.Cols+j] {
					t.Fatalf("SelectRows(%v): row %d col %d = %v, want %v", rows, i, j, row[j], dense[src*x.Cols+j])
				}
			}
		}
		dst = got // reuse the buffers on the next call
	}
	if _, err := x.SelectRows([]int{0, 7}, nil); err == nil || !strings.Contains(err.Error(), "rows[1] = 7") {
		t.Errorf("out-of-range row: err = %v", err)
	}
}

// randCSR returns a rows x cols matrix with about density of its entries
// non-zero, and the same matrix dense in float64.
func randCSR(r *rand.Rand, rows, cols int, density float64) (*autodiff.CSR, []float64) {
	x := &autodiff.CSR{Rows: rows, Cols: cols, RowPtr: make([]int, rows+1)}
	dense := make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if r.Float64() < density {
				v := float32(r.NormFloat64())
				x.ColIdx = append(x.ColIdx, int32(j))
				x.Val = append(x.Val, v)
				dense[i*cols+j] = float64(v)
			}
		}
		x.RowPtr[i+1] = len(x.ColIdx)
	}
	return x, dense
}

func TestSparseMatMul(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, tc := range []struct {
		rows, cols, n int
		density       float64
	}{
		{1, 1, 1, 1}, {3, 7, 5, 0.4}, {6, 11, 3, 0.2}, {4, 5, 130, 0.5}, {2, 3, 2, 0},
	} {
		name := fmt.Sprintf("%d x %d times [%d, %d], density %v", tc.rows, tc.cols, tc.cols, tc.n, tc.density)
		x, dense := randCSR(r, tc.rows, tc.cols, tc.density)
		wv := convRandData(r, tc.cols*tc.n)
		y := autodiff.SparseMatMul(x, autodiff.New(wv, tc.cols, tc.n))
		w32 := make([]float32, len(wv))
		for i, v := range wv {
			w32[i] = float32(v)
		}
		y32 := autodiff.SparseMatMul(x, autodiff.New(w32, tc.cols, tc.n))
		if sh := y.Shape(); len(sh) != 2 || sh[0] != tc.rows || sh[1] != tc.n {
			t.Fatalf("%s: shape %v", name, sh)
		}
		for i := 0; i < tc.rows; i++ {
			for j := 0; j < tc.n; j++ {
				var s float64
				for c := 0; c < tc.cols; c++ {
					s += dense[i*tc.cols+c] * wv[c*tc.n+j]
				}
				if got := y.Data()[i*tc.n+j]; math.Abs(got-s) > 1e-12*(1+math.Abs(s)) {
					t.Fatalf("%s: y[%d,%d] = %v, want %v", name, i, j, got, s)
				}
				if got := float64(y32.Data()[i*tc.n+j]); math.Abs(got-s) > 1e-5*(1+math.Abs(s)) {
					t.Fatalf("%s: float32 y[%d,%d] = %v, want %v", name, i, j, got, s)
				}
			}
		}
		if tc.n > 20 {
			continue // the column-block split is covered; keep finite differences small
		}
		f := func(xs []*autodiff.Tensor[float64]) *autodiff.Tensor[float64] {
			return autodiff.SparseMatMul(x, xs[0])
		}
		w := autodiff.New(wv, tc.cols, tc.n)
		checkGradients(t, name, f, []*autodiff.Tensor[float64]{w})
		sq := func(xs []*autodiff.Tensor[float64]) *autodiff.Tensor[float64] { return autodiff.Square(f(xs)) }
		checkGradients(t, name+" squared", sq, []*autodiff.Tensor[float64]{w})
	}
}

// TestSparseMatMulWideGradient checks dW = X^T dY on an output wide enough to
// be split into column blocks, against dense loops.
func TestSparseMatMulWideGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	const rows, cols, n = 9, 13, 200
	x, dense := randCSR(r, rows, cols, 0.3)
	w := autodiff.New(convRandData(r, cols*n), cols, n).SetRequiresGrad(true)
	seed := autodiff.New(convRandData(r, rows*n), rows, n)
	y := autodiff.SparseMatMul(x, w)
	g, err := autodiff.Gradients([]*autodiff.Tensor[float64]{y}, []*autodiff.Tensor[float64]{seed},
		[]*autodiff.Tensor[float64]{w}, false)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < cols; c++ {
		for j := 0; j < n; j++ {
			var s float64
			for i := 0; i < rows; i++ {
				s += dense[i*cols+c] * seed.Data()[i*n+j]
			}
			if got := g[0].Data()[c*n+j]; math.Abs(got-s) > 1e-12*(1+math.Abs(s)) {
				t.Fatalf("dW[%d,%d] = %v, want %v", c, j, got, s)
			}
		}
	}
}

func TestSparseMatMulShapeError(t *testing.T) {
	x := &autodiff.CSR{Rows: 2, Cols: 3, RowPtr: []int{0, 1, 2}, ColIdx: []int32{0, 2}, Val: []float32{1, 2}}
	defer func() {
		err, _ := recover().(error)
		if !errors.Is(err, autodiff.ErrShape) {
			t.Errorf("recovered %v, want a shape error", err)
		}
	}()
	autodiff.SparseMatMul(x, autodiff.Zeros[float64](4, 2))
}

// TestSparseMatMulThreads checks that the float32 product and its gradient
// are the same to the bit with one thread and with several, for widths whose
// even split falls between the 8-wide vector blocks (500 of 1000 columns is
// 496 in vector blocks and 4 in a scalar tail).
func TestSparseMatMulThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	const rows, cols = 20, 300
	x, _ := randCSR(r, rows, cols, 0.2)
	for _, n := range []int{1000, 1003, 204} {
		wv := make([]float32, cols*n)
		for i := range wv {
			wv[i] = float32(r.NormFloat64())
		}
		sv := make([]float32, rows*n)
		for i := range sv {
			sv[i] = float32(r.NormFloat64())
		}
		run := func(threads int) (y, g []float32) {
			defer kernel.SetThreads(kernel.SetThreads(threads))
			w := autodiff.New(append([]float32(nil), wv...), cols, n).SetRequiresGrad(true)
			out := autodiff.SparseMatMul(x, w)
			grads, err := autodiff.Gradients([]*autodiff.Tensor[float32]{out},
				[]*autodiff.Tensor[float32]{autodiff.New(append([]float32(nil), sv...), rows, n)},
				[]*autodiff.Tensor[float32]{w}, false)
			if err != nil {
				t.Fatal(err)
			}
			return append([]float32(nil), out.Data()...), append([]float32(nil), grads[0].Data()...)
		}
		y1, g1 := run(1)
		for _, threads := range []int{2, 3, 4} {
			y, g := run(threads)
			for i := range y1 {
				if y[i] != y1[i] {
					t.Errorf("n %d: y[%d] = %v with %d threads, %v with one", n, i, y[i], threads, y1[i])
					break
				}
			}
			for i := range g1 {
				if g[i] != g1[i] {
					t.Errorf("n %d: dW[%d] = %v with %d threads, %v with one", n, i, g[i], threads, g1[i])
					break
				}
			}
		}
	}
}
