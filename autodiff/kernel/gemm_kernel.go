package kernel

import "unsafe"

// sgemmKernelGo is the specification of the float32 assembly micro-kernels,
// for a tile of mr rows and nr columns:
//
//	for p := 0; p < k; p++ { for i < mr { for j < nr { acc[i][j] += a[p*mr+i] * b[p*nr+j] } } }
//	c[i*ldc+j] = acc[i][j]                       if beta == 0 (c not read)
//	c[i*ldc+j] = acc[i][j] + beta*c[i*ldc+j]     otherwise
//
// a is a packed mr-high panel of A and b a packed nr-wide panel of B (see
// packA and packB). The tests compare each assembly kernel with it.
func sgemmKernelGo(mr, nr, k int, a, b, c []float32, ldc int, beta float32) {
	gemmKernelSpec(mr, nr, k, a, b, c, ldc, beta)
}

// sgemmStridedGo is the specification of the strided float32 assembly
// micro-kernels (gemm_strided_amd64.s), which read op(A) and op(B) through
// strides rather than from packed panels: for a tile of mr rows and nr
// columns,
//
//	for p := 0; p < k; p++ { for i < mr { for j < nr { acc[i][j] += a[i*ars+p*acs] * b[p*brs+j] } } }
//	c[i*ldc+j] = acc[i][j]                       if beta == 0 (c not read)
//	c[i*ldc+j] = acc[i][j] + beta*c[i*ldc+j]     otherwise
//
// The packed panels of packA and packB are the strides ars = 1, acs = mr
// and brs = nr; an operand read where it is stored has the strides of its
// storage (ars = lda, acs = 1 for A, ars = 1, acs = lda for a transposed A,
// brs = ldb for B). Each element is accumulated over p in order from zero,
// as in sgemmKernelGo, so a tile has the same bits from either family.
func sgemmStridedGo(mr, nr, k int, a []float32, ars, acs int, b []float32, brs int, c []float32, ldc int, beta float32) {
	acc := make([]float32, mr*nr)
	for p := 0; p < k; p++ {
		for i := 0; i < mr; i++ {
			av := a[i*ars+p*acs]
			for j := 0; j < nr; j++ {
				acc[i*nr+j] += av * b[p*brs+j]
			}
		}
	}
	for i := 0; i < mr; i++ {
		for j := 0; j < nr; j++ {
			if beta == 0 {
				c[i*ldc+j] = acc[i*nr+j]
			} else {
				c[i*ldc+j] = acc[i*nr+j] + beta*c[i*ldc+j]
			}
		}
	}
}

// sgemmRowGo is the specification of the row kernels (sgemmRow8x48,
// sgemmRow6x16): the strided kernel on panels tiles along a row of C, tile
// t reading op(B) from b[t*bps:] and writing C from c[t*nr:].
func sgemmRowGo(mr, nr, k int, a []float32, ars, acs int, b []float32, brs, bps int, c []float32, ldc int, beta float32, panels int) {
	for t := 0; t < panels; t++ {
		sgemmStridedGo(mr, nr, k, a, ars, acs, b[t*bps:], brs, c[t*nr:], ldc, beta)
	}
}

// rowKernel is a row kernel of the float32 assembly (sgemmRowGo with the
// kernel's mr and nr).
type rowKernel func(k int, a *float32, ars, acs int, b *float32, brs, bps int, c *float32, ldc int, beta float32, panels int)

// stridedKernel is a strided float32 assembly micro-kernel of nr columns
// (sgemmStridedGo with the kernel's mr and nr).
type stridedKernel struct {
	nr int
	fn func(k int, a *float32, ars, acs int, b *float32, brs int, c *float32, ldc int, beta float32)
}

// dgemmKernelGo is sgemmKernelGo for float64, the specification of the
// float64 assembly micro-kernels.
func dgemmKernelGo(mr, nr, k int, a, b, c []float64, ldc int, beta float64) {
	gemmKernelSpec(mr, nr, k, a, b, c, ldc, beta)
}

func gemmKernelSpec[T Float](mr, nr, k int, a, b, c []T, ldc int, beta T) {
	acc := make([]T, mr*nr)
	for p := 0; p < k; p++ {
		for i := 0; i < mr; i++ {
			av := a[p*mr+i]
			for j := 0; j < nr; j++ {
				acc[i*nr+j] += av * b[p*nr+j]
			}
		}
	}
	for i := 0; i < mr; i++ {
		for j := 0; j < nr; j++ {
			if beta == 0 {
				c[i*ldc+j] = acc[i*nr+j]
			} else {
				c[i*ldc+j] = acc[i*nr+j] + beta*c[i*ldc+j]
			}
		}
	}
}

// gemmKernel2x4 is the pure-Go micro-kernel, sgemmKernelGo with mr = 2 and
// nr = 4 for any element type. Its eight accumulators are separate variables
// so that the compiler keeps them in registers: with the six loaded values
// they fit the 15 usable SSE registers of amd64, where a 4x4 tile spills to
// the stack and runs a third slower.
func gemmKernel2x4[T Float](k int, a, b, c []T, ldc int, beta T) {
	var c00, c01, c02, c03 T
	var c10, c11, c12, c13 T
	a = a[:2*k]
	b = b[:4*k]
	for p := 0; p < k; p++ {
		av := a[2*p : 2*p+2 : 2*p+2]
		bv := b[4*p : 4*p+4 : 4*p+4]
		a0, a1 := av[0], av[1]
		b0, b1, b2, b3 := bv[0], bv[1], bv[2], bv[3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
	}
	store4(c[:4], beta, c00, c01, c02, c03)
	store4(c[ldc:ldc+4], beta, c10, c11, c12, c13)
}

// gemmKernel2x4Ref is the micro-kernel of the reference numerics mode:
// gemmKernel2x4 with every product rounded before it is added, so that no
// compiler fuses them, and the beta term rounded likewise (store4Ref).
func gemmKernel2x4Ref[T Float](k int, a, b, c []T, ldc int, beta T) {
	var c00, c01, c02, c03 T
	var c10, c11, c12, c13 T
	a = a[:2*k]
	b = b[:4*k]
	for p := 0; p < k; p++ {
		av := a[2*p : 2*p+2 : 2*p+2]
		bv := b[4*p : 4*p+4 : 4*p+4]
		a0, a1 := av[0], av[1]
		b0, b1, b2, b3 := bv[0], bv[1], bv[2], bv[3]
		c00 += T(a0 * b0)
		c01 += T(a0 * b1)
		c02 += T(a0 * b2)
		c03 += T(a0 * b3)
		c10 += T(a1 * b0)
		c11 += T(a1 * b1)
		c12 += T(a1 * b2)
		c13 += T(a1 * b3)
	}
	store4Ref(c[:4], beta, c00, c01, c02, c03)
	store4Ref(c[ldc:ldc+4], beta, c10, c11, c12, c13)
}

// store4Ref is store4 with the products beta*c rounded.
func store4Ref[T Float](c []T, beta T, v0, v1, v2, v3 T) {
	c = c[:4]
	if beta == 0 {
		c[0], c[1], c[2], c[3] = v0, v1, v2, v3
		return
	}
	c[0] = v0 + T(beta*c[0])
	c[1] = v1 + T(beta*c[1])
	c[2] = v2 + T(beta*c[2])
	c[3] = v3 + T(beta*c[3])
}

func store4[T Float](c []T, beta T, v0, v1, v2, v3 T) {
	c = c[:4]
	if beta == 0 {
		c[0], c[1], c[2], c[3] = v0, v1, v2, v3
		return
	}
	c[0] = v0 + beta*c[0]
	c[1] = v1 + beta*c[1]
	c[2] = v2 + beta*c[2]
	c[3] = v3 + beta*c[3]
}

// transpose8Go is the specification of transpose8AVX2, which packs eight rows
// of a source matrix into kb rows of eight:
//
//	for p < kb { for r < 8 { dst[p*ds+r] = scale * src[r*ss+p] } }
func transpose8Go(dst *float32, ds int, src *float32, ss int, kb int, scale float32) {
	d := unsafe.Slice(dst, (kb-1)*ds+8)
	s := unsafe.Slice(src, 7*ss+kb)
	for p := 0; p < kb; p++ {
		for r := 0; r < 8; r++ {
			d[p*ds+r] = scale * s[r*ss+p]
		}
	}
}

// packA6Go is the specification of packA6AVX2, which packs six rows of an
// untransposed A into the panel of the AVX2 micro-kernel:
//
//	for p < kb { for r < 6 { dst[p*6+r] = scale * src[r*lda+p] } }
func packA6Go(dst *float32, src *float32, lda int, kb int, scale float32) {
	d := unsafe.Slice(dst, kb*6)
	s := unsafe.Slice(src, 5*lda+kb)
	for p := 0; p < kb; p++ {
		for r := 0; r < 6; r++ {
			d[p*6+r] = scale * s[r*lda+p]
		}
	}
}

// packA6TGo is the specification of packA6TAVX2, which packs six columns
// of a transposed A (six values of each of kb rows) into the panel of the
// AVX2 micro-kernel:
//
//	for p < kb { for r < 6 { dst[p*6+r] = scale * src[p*lda+r] } }
func packA6TGo(dst *float32, src *float32, lda int, kb int, scale float32) {
	if kb == 0 {
		return
	}
	d := unsafe.Slice(dst, kb*6)
	s := unsafe.Slice(src, (kb-1)*lda+6)
	for p := 0; p < kb; p++ {
		for r := 0; r < 6; r++ {
			d[p*6+r] = scale * s[p*lda+r]
		}
	}
}

// packRows8Go is the specification of packRows8AVX2, which packs blocks whose
// rows are already in panel order (transposed A, untransposed B) into panels
// of width w = 8*w8, reading each source row once from front to back:
//
//	for p < kb { for q < panels { for j < w { dst[q*kb*w+p*w+j] = scale * src[p*ss+q*w+j] } } }
func packRows8Go(dst *float32, src *float32, ss int, kb int, panels int, w8 int, scale float32) {
	if kb == 0 || panels == 0 || w8 == 0 {
		return
	}
	w := 8 * w8
	d := unsafe.Slice(dst, panels*kb*w)
	s := unsafe.Slice(src, (kb-1)*ss+panels*w)
	for p := 0; p < kb; p++ {
		for q := 0; q < panels; q++ {
			for j := 0; j < w; j++ {
				d[q*kb*w+p*w+j] = scale * s[p*ss+q*w+j]
			}
		}
	}
}
