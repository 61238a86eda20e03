package autodiff

import "github.com/wadn-go/wadn/autodiff/kernel"

// Hooks for the external tests of the Winograd path.

// WinogradTransforms are the transforms the Winograd path calls, and the G
// matrices of its filter transforms.
type WinogradTransforms struct {
	In     func(t kernel.WinogradTile, dst []float32, stride int, src []float32, row, tiles int)
	InAdj  func(t kernel.WinogradTile, dst []float32, row int, src []float32, stride, tiles int)
	Out    func(t kernel.WinogradTile, dst []float32, row int, src []float32, stride, tiles int, bias float32)
	OutAdj func(t kernel.WinogradTile, dst []float32, stride int, src []float32, row, tiles int)
	G      map[kernel.WinogradTile][][]float64
}

// SetWinogradTransforms replaces the Winograd path's transforms and returns
// the previous ones.
func SetWinogradTransforms(t WinogradTransforms) (previous WinogradTransforms) {
	previous = CurrentWinogradTransforms()
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

// SetWinogradSharedChunks sets winoSharedChunks, the chunks per thread
// below which the threads share each chunk's work out, and returns the
// previous value.
func SetWinogradSharedChunks(n int) int {
	prev := winoSharedChunks
	winoSharedChunks = n
	return prev
}

// SetWinogradRounds sets winoRounds, whether the threads take the first
// chunks of a shared backward pass whole (wholeRounds), and returns the
// previous value.
func SetWinogradRounds(on bool) bool {
	prev := winoRounds
	winoRounds = on
	return prev
}

// WinogradTileFor returns the Winograd tile Conv2d of x [n, c, h, w] with f
// filters of kh x kw, stride and padding takes for float32, or 0 when it
// runs direct.
func WinogradTileFor(n, c, h, w, f, kh, kw, stride, pad int) kernel.WinogradTile {
	g, ok := newConvGeom(c, h, w, kh, kw, stride, pad)
	if !ok {
		return 0
	}
	return winoTile[float32](&g, n, f)
}

// PooledFilterApplies reports whether the backward pass of Conv2dMaxPool
// on n images of c x h x h, f filters of 3 x 3 moved by one with padding
// pad, takes the filter and bias gradients from the pooled gradient
// (pooledFilter), whose sums are in another order than Conv2d's.
func PooledFilterApplies[T kernel.Float](n, c, h, f, pad int) bool {
	g, ok := newConvGeom(c, h, h, 3, 3, 1, pad)
	if !ok {
		return false
	}
	src := &poolGrad[T]{convPool: &convPool[T]{}}
	return winoTile[T](&g, n, f) == 0 && convChunk(&g, n) == 1 && pooledFilterFor(&g, f, src) != nil
}
