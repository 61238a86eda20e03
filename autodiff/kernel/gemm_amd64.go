//go:build !purego

package kernel

import "golang.org/x/sys/cpu"

// haveAVX2 and haveAVX512 report CPU (and operating system) support for the
// assembly kernels. The AVX-512 implementation also uses the AVX2 element-wise
// kernels.
var (
	haveAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	haveAVX512 = haveAVX2 && cpu.X86.HasAVX512F
)

// sgemmKernel8x48 is sgemmKernelGo(8, 48, k, a, b, c, ldc, beta) in AVX-512F,
// except that it reads subnormal inputs (a, b, c) as zero and writes zero for
// every product, sum and result that would be subnormal (flush to zero); the
// Go twin keeps them. Beyond the order of its sums, an output differs from
// the twin's by at most the sum of |a_i b_i| over its terms with a subnormal
// factor, plus k+1 times the smallest normal float32 (1.2e-38). Subnormal
// arithmetic is slow on many x86 CPUs (docs/performance.md, "Subnormals").
//
//go:noescape
func sgemmKernel8x48(k int, a, b, c *float32, ldc int, beta float32)

// sgemmKernel6x16 is sgemmKernelGo(6, 16, k, a, b, c, ldc, beta) in AVX2+FMA,
// with subnormals flushed to zero as in sgemmKernel8x48.
//
//go:noescape
func sgemmKernel6x16(k int, a, b, c *float32, ldc int, beta float32)

// sgemmKernel6x16Ref is gemmKernel2x4Ref's order on a 6x16 tile in AVX2,
// without fused multiply-adds: sgemmKernelGo(6, 16, k, a, b, c, ldc, beta)
// with every product, and beta*c, rounded before it is added.
//
//go:noescape
func sgemmKernel6x16Ref(k int, a, b, c *float32, ldc int, beta float32)

func kernel6x16Ref() asmKernel { return sgemmKernel6x16Ref }

func kernel8x48() asmKernel { return sgemmKernel8x48 }
func kernel6x16() asmKernel { return sgemmKernel6x16 }

// transpose8AVX2 is transpose8Go for kb a multiple of 8.
//
//go:noescape
func transpose8AVX2(dst *float32, ds int, src *float32, ss int, kb int, scale float32)

func transpose8(dst *float32, ds int, src *float32, ss int, kb int, scale float32) {
	transpose8AVX2(dst, ds, src, ss, kb, scale)
}

// addTileAVX2 is addTileGo in AVX2.
//
//go:noescape
func addTileAVX2(dst *float32, ldd int, src *float32, lds int, rows, cols int, beta float32)

func addTile(dst []float32, ldd int, src []float32, lds int, rows, cols int, beta float32) {
	if !haveAVX2 {
		addTileGo(dst, ldd, src, lds, rows, cols, beta)
		return
	}
	if rows == 0 || cols == 0 {
		return
	}
	_ = dst[(rows-1)*ldd+cols-1]
	_ = src[(rows-1)*lds+cols-1]
	addTileAVX2(&dst[0], ldd, &src[0], lds, rows, cols, beta)
}

// dgemmKernel8x24 is dgemmKernelGo(8, 24, k, a, b, c, ldc, beta) in AVX-512F.
//
//go:noescape
func dgemmKernel8x24(k int, a, b, c *float64, ldc int, beta float64)

// dgemmKernel6x8 is dgemmKernelGo(6, 8, k, a, b, c, ldc, beta) in AVX2+FMA.
//
//go:noescape
func dgemmKernel6x8(k int, a, b, c *float64, ldc int, beta float64)

func kernel8x24() asmKernel64 { return dgemmKernel8x24 }
func kernel6x8() asmKernel64  { return dgemmKernel6x8 }

// packRows8AVX2 is packRows8Go.
//
//go:noescape
func packRows8AVX2(dst *float32, src *float32, ss int, kb int, panels int, w8 int, scale float32)

func packRows8(dst *float32, src *float32, ss int, kb int, panels int, w8 int, scale float32) {
	packRows8AVX2(dst, src, ss, kb, panels, w8, scale)
}

// packA6AVX2 is packA6Go for kb a multiple of 8.
//
//go:noescape
func packA6AVX2(dst *float32, src *float32, lda int, kb int, scale float32)

func packA6(dst *float32, src *float32, lda int, kb int, scale float32) {
	packA6AVX2(dst, src, lda, kb, scale)
}

// packA6TAVX2 is packA6TGo for kb >= 1.
//
//go:noescape
func packA6TAVX2(dst *float32, src *float32, lda int, kb int, scale float32)

func packA6T(dst *float32, src *float32, lda int, kb int, scale float32) {
	packA6TAVX2(dst, src, lda, kb, scale)
}
