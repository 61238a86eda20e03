package kernel

import "testing"

// TestCountFlops checks what each counted kernel adds to the count, that
// nothing is counted while counting is off, and that CountFlops resets.
func TestCountFlops(t *testing.T) {
	const m, n, k = 5, 7, 3
	a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	var p PackedA[float32]
	PackA(&p, false, m, k, 1, a, k)
	const tiles = 3
	tile := F4x4
	in, inAdj, out, outAdj := tile.TransformOps()
	side := tile.Size()
	src := make([]float32, side*Lanes*(tile.Outputs()*(tiles-1)+side))
	dst := make([]float32, side*side*Lanes*tiles)
	row, stride := Lanes*(tile.Outputs()*(tiles-1)+side), Lanes*tiles
	for _, tc := range []struct {
		name string
		run  func()
		want int64
	}{
		{"Gemm", func() { Gemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n) }, 2 * m * n * k},
		{"GemmSerial", func() { GemmSerial(false, false, m, n, k, 1, a, k, b, n, 0, c, n) }, 2 * m * n * k},
		{"GemmPacked", func() { GemmPacked(&p, false, n, b, n, 0, c, n) }, 2 * m * n * k},
		{"Gemm with k 0", func() { Gemm(false, false, m, n, 0, 1, a, 1, b, n, 0, c, n) }, 0},
		{"WinogradIn", func() { WinogradIn(tile, dst, stride, src, row, tiles) }, int64(Lanes * tiles * in)},
		{"WinogradInAdj", func() { WinogradInAdj(tile, src, row, dst, stride, tiles) }, int64(Lanes * tiles * inAdj)},
		{"WinogradOut", func() { WinogradOut(tile, src, row, dst, stride, tiles, 1) }, int64(Lanes * tiles * out)},
		{"WinogradOutAdj", func() { WinogradOutAdj(tile, dst, stride, src, row, tiles) }, int64(Lanes * tiles * outAdj)},
		{"AddFlops", func() { AddFlops(42) }, 42},
	} {
		CountFlops(true)
		tc.run()
		if got := CountFlops(false); got != tc.want {
			t.Errorf("%s: counted %d, want %d", tc.name, got, tc.want)
		}
		tc.run()
		if got := CountFlops(false); got != 0 {
			t.Errorf("%s: counted %d while off", tc.name, got)
		}
	}
}

// TestTransformOps checks the counts of F(4x4, 3x3), worked out by hand
// from its matrices: Bᵀ has 22 non-zeros in 6 rows (38 operations a pass),
// B 22 in 6 (38), Aᵀ 18 in 4 (32), A 18 in 6 (30).
func TestTransformOps(t *testing.T) {
	in, inAdj, out, outAdj := F4x4.TransformOps()
	if want := [4]int{2 * 6 * 38, 2 * 6 * 38, 10*32 + 16, 10 * 30}; [4]int{in, inAdj, out, outAdj} != want {
		t.Errorf("F4x4 counts %v, want %v", [4]int{in, inAdj, out, outAdj}, want)
	}
}
