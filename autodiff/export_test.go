package autodiff

// Hooks for the external tests of the Winograd path.

// WinogradTransforms are the transforms the Winograd path calls, and the G
// matrix of its filter transform.
type WinogradTransforms struct {
	In     func(dst []float32, stride int, src []float32, row, tiles int)
	InAdj  func(dst []float32, row int, src []float32, stride, tiles int)
	Out    func(dst []float32, row int, src []float32, stride, tiles int, bias float32)
	OutAdj func(dst []float32, stride int, src []float32, row, tiles int)
	G      [6][3]float64
}

// SetWinogradTransforms replaces the Winograd path's transforms and returns
// the previous ones.
func SetWinogradTransforms(t WinogradTransforms) (previous WinogradTransforms) {
	previous = WinogradTransforms{winoIn, winoInAdj, winoOut, winoOutAdj, winoG}
	winoIn, winoInAdj, winoOut, winoOutAdj, winoG = t.In, t.InAdj, t.Out, t.OutAdj, t.G
	return previous
}

// CurrentWinogradTransforms returns the transforms in use.
func CurrentWinogradTransforms() WinogradTransforms {
	return WinogradTransforms{winoIn, winoInAdj, winoOut, winoOutAdj, winoG}
}

// SetWinogradCols sets the column budget of a chunk and returns the
// previous one.
func SetWinogradCols(n int) int {
	prev := winoCols
	winoCols = n
	return prev
}

// WinogradApplies reports whether Conv2d of x [n, c, h, w] with f filters of
// kh x kw, stride and padding takes the Winograd path for float32.
func WinogradApplies(n, c, h, w, f, kh, kw, stride, pad int) bool {
	g, ok := newConvGeom(c, h, w, kh, kw, stride, pad)
	return ok && winoApplies[float32](&g, n, f)
}
