//go:build !purego

package kernel

// The AVX2 element-wise kernels. Slice lengths are multiples of 8 and equal;
// each is specified by its Go twin in elementwise_twin.go.

// addAVX2 is binary32Go(opAdd, dst, a, b).
//
//go:noescape
func addAVX2(dst, a, b []float32)

// subAVX2 is binary32Go(opSub, dst, a, b).
//
//go:noescape
func subAVX2(dst, a, b []float32)

// mulAVX2 is binary32Go(opMul, dst, a, b).
//
//go:noescape
func mulAVX2(dst, a, b []float32)

// divAVX2 is binary32Go(opDiv, dst, a, b).
//
//go:noescape
func divAVX2(dst, a, b []float32)

// addScalarAVX2 is addScalar32Go.
//
//go:noescape
func addScalarAVX2(dst, x []float32, s float32)

// scaleAVX2 is scale32Go.
//
//go:noescape
func scaleAVX2(dst, x []float32, alpha float32)

// axpyAVX2 is axpy32Go.
//
//go:noescape
func axpyAVX2(alpha float32, x, y []float32)

// dotAVX2 is dot32Go.
//
//go:noescape
func dotAVX2(x, y []float32) float32

// sumAVX2 is sum32Go.
//
//go:noescape
func sumAVX2(x []float32) float32

// sumLanes8AVX2 sets dst[0..7] to the sums of the eight lanes of the n
// pixels at offs in src (an interleaved buffer, as Deinterleave8 reads
// it), each lane's plane summed as sumBlock sums it under the AVX2
// implementations: sumAVX2 of its first n&^7 values, then the others
// added in order. sumLanes8Twin spells the order out.
//
//go:noescape
func sumLanes8AVX2(dst, src *float32, offs *int32, n int)

// maxAVX2 is max32Go.
//
//go:noescape
func maxAVX2(x []float32) float32

// reluAVX2 is relu32Go.
//
//go:noescape
func reluAVX2(dst, x []float32)

// expAVX2 is exp32Go.
//
//go:noescape
func expAVX2(dst, x []float32)

// binaryAsm32 runs the assembly kernel of op.
func binaryAsm32(op binaryOp, dst, a, b []float32) {
	switch op {
	case opAdd:
		addAVX2(dst, a, b)
	case opSub:
		subAVX2(dst, a, b)
	case opMul:
		mulAVX2(dst, a, b)
	case opDiv:
		divAVX2(dst, a, b)
	}
}
