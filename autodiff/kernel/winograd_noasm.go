//go:build !amd64 || purego

package kernel

// Without assembly the Winograd kernels run their Go twins; these entry
// points are never called because haveAVX2 is false.

func winogradInAVX2(dst *float32, stride int, src *float32, row int, tiles int) {
	panic("kernel: winogradInAVX2 without assembly")
}

func winogradInAdjAVX2(dst *float32, row int, src *float32, stride int, tiles int) {
	panic("kernel: winogradInAdjAVX2 without assembly")
}

func winogradOutAVX2(dst *float32, row int, src *float32, stride int, tiles int, bias float32) {
	panic("kernel: winogradOutAVX2 without assembly")
}

func winogradOutAdjAVX2(dst *float32, stride int, src *float32, row int, tiles int) {
	panic("kernel: winogradOutAdjAVX2 without assembly")
}

func interleave8AVX2(dst *float32, offs *int32, src *float32, stride int, n int) {
	panic("kernel: interleave8AVX2 without assembly")
}

func deinterleave8AVX2(dst *float32, stride int, src *float32, offs *int32, n int) {
	panic("kernel: deinterleave8AVX2 without assembly")
}
