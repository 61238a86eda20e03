//go:build !amd64 || purego

package kernel

// Without assembly the Winograd kernels run their Go twins; these entry
// points are never called because haveAVX2 is false.

func winogradIn4AVX2(dst *float32, stride int, src *float32, row int, tiles int) {
	panic("kernel: winogradIn4AVX2 without assembly")
}

func winogradInAdj4AVX2(dst *float32, row int, src *float32, stride int, tiles int) {
	panic("kernel: winogradInAdj4AVX2 without assembly")
}

func winogradOut4AVX2(dst *float32, row int, src *float32, stride int, tiles int, bias float32) {
	panic("kernel: winogradOut4AVX2 without assembly")
}

func winogradOutAdj4AVX2(dst *float32, stride int, src *float32, row int, tiles int) {
	panic("kernel: winogradOutAdj4AVX2 without assembly")
}

func winogradIn5AVX2(dst *float32, stride int, src *float32, row int, tiles int) {
	panic("kernel: winogradIn5AVX2 without assembly")
}

func winogradInAdj5AVX2(dst *float32, row int, src *float32, stride int, tiles int) {
	panic("kernel: winogradInAdj5AVX2 without assembly")
}

func winogradOut5AVX2(dst *float32, row int, src *float32, stride int, tiles int, bias float32) {
	panic("kernel: winogradOut5AVX2 without assembly")
}

func winogradOutAdj5AVX2(dst *float32, stride int, src *float32, row int, tiles int) {
	panic("kernel: winogradOutAdj5AVX2 without assembly")
}

func interleave8AVX2(dst *float32, offs *int32, src *float32, stride int, n int) {
	panic("kernel: interleave8AVX2 without assembly")
}

func deinterleave8AVX2(dst *float32, stride int, src *float32, offs *int32, n int) {
	panic("kernel: deinterleave8AVX2 without assembly")
}
