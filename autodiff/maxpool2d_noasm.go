//go:build !amd64 || purego

package autodiff

// useMaxPoolAsm reports whether maxPool2x2Row may call maxPool2x2AVX2:
// never without assembly.
func useMaxPoolAsm() bool { return false }

// maxPool2x2AVX2 is never called without assembly.
func maxPool2x2AVX2(r0, r1, dst *float32, di *int32, groups, off, w int) int {
	panic("autodiff: maxPool2x2AVX2 without assembly")
}

// maxPool2x2AVX4 is never called without assembly.
func maxPool2x2AVX4(r0, r1, dst *float32, di *int32, off, w int) int {
	panic("autodiff: maxPool2x2AVX4 without assembly")
}

// maxPool2x2PlanesAVX2 is never called without assembly.
func maxPool2x2PlanesAVX2(src, dst *float32, idx *int32, planes, h, w, oh, ow int) int {
	panic("autodiff: maxPool2x2PlanesAVX2 without assembly")
}

// unpool2x2AVX2 is never called without assembly.
func unpool2x2AVX2(r0, r1, gv, x *float32, idx *int32, groups, off, w int) {
	panic("autodiff: unpool2x2AVX2 without assembly")
}

// unpool2x2PlaneAVX2 is never called without assembly.
func unpool2x2PlaneAVX2(d, gv, x *float32, idx *int32, oh, ow, w int) {
	panic("autodiff: unpool2x2PlaneAVX2 without assembly")
}

// poolLanes2x2AVX2 is never called without assembly.
func poolLanes2x2AVX2(dst *float32, idx *int32, stride int, src *float32, win *int32, n int, relu int) {
	panic("autodiff: poolLanes2x2AVX2 without assembly")
}

// unpoolLanes2x2AVX2 is never called without assembly.
func unpoolLanes2x2AVX2(dst *float32, win *int32, n int, gv, x *float32, idx *int32, stride int) {
	panic("autodiff: unpoolLanes2x2AVX2 without assembly")
}
