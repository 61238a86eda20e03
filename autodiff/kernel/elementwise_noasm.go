//go:build !amd64 || purego

package kernel

// Without assembly the element-wise entry points are their Go twins; the
// kernels never call them because haveAVX2 is false.

func binaryAsm32(op binaryOp, dst, a, b []float32) { binary32Go(op, dst, a, b) }
func addScalarAVX2(dst, x []float32, s float32)    { addScalar32Go(dst, x, s) }
func scaleAVX2(dst, x []float32, alpha float32)    { scale32Go(dst, x, alpha) }
func axpyAVX2(alpha float32, x, y []float32)       { axpy32Go(alpha, x, y) }
func dotAVX2(x, y []float32) float32               { return dot32Go(x, y) }
func sumAVX2(x []float32) float32                  { return sum32Go(x) }
func maxAVX2(x []float32) float32                  { return max32Go(x) }
func reluAVX2(dst, x []float32)                    { relu32Go(dst, x) }
func expAVX2(dst, x []float32)                     { exp32Go(dst, x) }

func sumLanes8AVX2(dst, src *float32, offs *int32, n int) {
	panic("kernel: sumLanes8AVX2 without assembly")
}
