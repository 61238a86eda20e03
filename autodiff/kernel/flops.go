package kernel

import "sync/atomic"

// The count of floating-point operations, for benchmarks that report the
// rate of the work a computation executes: while counting is on (CountFlops),
// Gemm, GemmSerial and GemmPacked add 2*m*n*k each (beta's scaling of C
// not counted), and the Winograd transforms (WinogradIn, InAdj, Out,
// OutAdj) add, for each tile and lane, a multiply and an add for every
// non-zero coefficient of their matrices, one add fewer for each output
// of a one-dimensional pass (WinogradOut one more for the bias): the
// operations of a dense matrix-vector product over the non-zeros, which
// may be more than the generated code does. Callers add the work of their
// own loops with AddFlops. Counting costs an atomic load per call when off.
var (
	flopsOn atomic.Bool
	flops   atomic.Int64
)

// CountFlops turns the count on (on set) or off, and returns the operations
// counted since the last call, starting again from zero. The count is
// shared by every goroutine.
func CountFlops(on bool) (count int64) {
	flopsOn.Store(on)
	return flops.Swap(0)
}

// AddFlops adds n operations to the count while it is on.
func AddFlops(n int) {
	if flopsOn.Load() {
		flops.Add(int64(n))
	}
}

// gemmFlops adds the operations of an m x n x k product to the count.
func gemmFlops(m, n, k int) {
	if flopsOn.Load() {
		flops.Add(2 * int64(m) * int64(n) * int64(k))
	}
}

// passOps returns the operations of one one-dimensional pass of the matrix
// mat (rows x cols), or with byCols set of its transpose, over a vector,
// counted as a dense product over its non-zeros: 2*nnz - 1 for each row
// (column) with a non-zero.
func passOps(mat [][]float64, byCols bool) int {
	rows, cols := len(mat), len(mat[0])
	if byCols {
		rows, cols = cols, rows
	}
	ops := 0
	for i := range rows {
		nnz := 0
		for j := range cols {
			if byCols && mat[j][i] != 0 || !byCols && mat[i][j] != 0 {
				nnz++
			}
		}
		if nnz > 0 {
			ops += 2*nnz - 1
		}
	}
	return ops
}

// winoOps are the operations of one tile and lane of each transform of a
// tile, as the count takes them.
type winoOps struct{ in, inAdj, out, outAdj int }

// TransformOps returns the operations one tile and lane of WinogradIn,
// WinogradInAdj, WinogradOut (with its bias) and WinogradOutAdj count.
func (t WinogradTile) TransformOps() (in, inAdj, out, outAdj int) {
	o := winoTileOps[t.check()]
	return o.in, o.inAdj, o.out, o.outAdj
}

var winoTileOps = func() map[WinogradTile]winoOps {
	m := map[WinogradTile]winoOps{}
	for _, t := range []WinogradTile{F4x4, F5x5} {
		bt, _, at := t.Matrices()
		a, mo := t.Size(), t.Outputs()
		m[t] = winoOps{
			in:     2 * a * passOps(bt, false),        // Bᵀ on a columns, then on a rows
			inAdj:  2 * a * passOps(bt, true),         // B likewise
			out:    (a+mo)*passOps(at, false) + mo*mo, // Aᵀ on a columns, then on m rows; the bias
			outAdj: (mo + a) * passOps(at, true),      // A on m columns, then on a rows
		}
	}
	return m
}()

// winoFlops adds the operations of tiles tiles of one transform to the
// count; op picks the transform's count.
func winoFlops(t WinogradTile, tiles int, op func(winoOps) int) {
	if flopsOn.Load() {
		flops.Add(int64(Lanes * tiles * op(winoTileOps[t])))
	}
}
