//go:build !purego

package autodiff

import (
	"golang.org/x/sys/cpu"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// havePoolFilterAVX2 reports CPU support for the kernels of
// pooledFilterGrad.
var havePoolFilterAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// filterRowsAVX2 sets, for each pixel p < np, row p of dst (32 values) to
// the ns segments of three values x[pix[p]+segs[s] : +3], segment s at
// columns 3s to 3s+2, and column 3*ns to zero (3*ns is at most 31). The
// columns after it are left as they are. It reads no value of x outside
// the segments.
//
//go:noescape
func filterRowsAVX2(dst, x *float32, pix, segs *int32, np, ns int)

// maskPositiveAVX2 is reluGrad(dst[:n], gv[:n], x[:n]) for float32, n a
// multiple of eight.
//
//go:noescape
func maskPositiveAVX2(dst, gv, x *float32, n int)

// poolFilterGradAVX2 is, with fused multiply-adds, for each filter j < nf,
// each of the 32 lanes k, and q = 0, 1, ..., n-1 in turn,
//
//	acc[j*32+k] = fma(gv[j*stride+q], rows[idx[j*stride+q]*32+k], acc[j*32+k])
//
//go:noescape
func poolFilterGradAVX2(acc, rows, gv *float32, idx *int32, nf, n, stride int)

// poolFilterGradAVX512 is poolFilterGradAVX2 for nf a multiple of four, in
// AVX-512F, with the same bits.
//
//go:noescape
func poolFilterGradAVX512(acc, rows, gv *float32, idx *int32, nf, n, stride int)

// poolFilterGrad is poolFilterGradAVX2, run on the AVX-512 kernel for
// whole groups of four filters when package kernel uses AVX-512.
func poolFilterGrad(acc, rows, gv []float32, idx []int32, nf, n, stride int) {
	if n == 0 || nf == 0 {
		return
	}
	_ = acc[nf*pooledFilterWidth-1]
	_ = gv[(nf-1)*stride+n-1]
	_ = idx[(nf-1)*stride+n-1]
	done := 0
	if g := nf &^ 3; g > 0 && kernel.Impl() == "avx512" {
		poolFilterGradAVX512(&acc[0], &rows[0], &gv[0], &idx[0], g, n, stride)
		done = g
	}
	if done < nf {
		poolFilterGradAVX2(&acc[done*pooledFilterWidth], &rows[0], &gv[done*stride], &idx[done*stride], nf-done, n, stride)
	}
}

// usePoolFilterAsm reports whether pooledFilter may run: the CPU has AVX2
// and FMA and package kernel is not restricted to Go.
func usePoolFilterAsm() bool { return havePoolFilterAVX2 && kernel.Impl() != "go" }
