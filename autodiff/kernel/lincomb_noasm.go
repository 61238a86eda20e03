//go:build !amd64 || purego

package kernel

// Without assembly the linear-combination kernels are never called, because
// haveAVX2 is false.

func comb3AVX2(d, r0, r1, r2 []float64, c *[3]float64) {
	panic("kernel: comb3AVX2 without assembly")
}

func comb3To32AVX2(d []float32, r0, r1, r2 []float64, c *[3]float64) {
	panic("kernel: comb3To32AVX2 without assembly")
}

func addScaledAVX2(d, x []float64, a float64) { panic("kernel: addScaledAVX2 without assembly") }

func addWidenedAVX2(d []float64, x []float32) { panic("kernel: addWidenedAVX2 without assembly") }

func blend32AVX2(d, x []float32, r, q float32) { panic("kernel: blend32AVX2 without assembly") }

func filterTransformAVX2(u *float32, stride int, gv *float64, groups int, gm *float64, a int) {
	panic("kernel: filterTransformAVX2 without assembly")
}

func filterTransformAdjAVX2(out *float32, du0, du1 *float32, stride, groups int, gm *float64, a int) {
	panic("kernel: filterTransformAdjAVX2 without assembly")
}

func filterTransformAVX512(u *float32, stride int, gv *float64, pairs int, gm *float64, a int) {
	panic("kernel: filterTransformAVX512 without assembly")
}

func filterTransformAdjAVX512(out *float32, du0, du1 *float32, stride, pairs int, gm *float64, a int) {
	panic("kernel: filterTransformAdjAVX512 without assembly")
}
