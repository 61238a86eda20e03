//go:build !amd64 || purego

package autodiff

// usePoolFilterAsm reports whether pooledFilter may run: never without
// assembly.
func usePoolFilterAsm() bool { return false }

// filterRowsAVX2 is never called without assembly.
func filterRowsAVX2(dst, x *float32, pix, segs *int32, np, ns int) {
	panic("autodiff: filterRowsAVX2 without assembly")
}

// maskPositiveAVX2 is never called without assembly.
func maskPositiveAVX2(dst, gv, x *float32, n int) {
	panic("autodiff: maskPositiveAVX2 without assembly")
}

// poolFilterGradAVX2 is never called without assembly.
func poolFilterGradAVX2(acc, rows, gv *float32, idx *int32, nf, n, stride int) {
	panic("autodiff: poolFilterGradAVX2 without assembly")
}

// poolFilterGrad is never called without assembly.
func poolFilterGrad(acc, rows, gv []float32, idx []int32, nf, n, stride int) {
	panic("autodiff: poolFilterGrad without assembly")
}
