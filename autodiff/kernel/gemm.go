package kernel

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/wadn-go/wadn/internal/numerics"
)

// asmKernel and asmKernel64 are the signatures of the float32 and float64
// assembly micro-kernels; see sgemmKernelGo and dgemmKernelGo for their
// specification.
type (
	asmKernel   func(k int, a, b, c *float32, ldc int, beta float32)
	asmKernel64 func(k int, a, b, c *float64, ldc int, beta float64)
)

// blocking describes one micro-kernel and the cache blocks around it.
//
// The loops, outermost first: columns of C in blocks of nc; the inner
// dimension in blocks of kc, for which a kc x nc block of op(B) is packed into
// nr-wide panels; rows of C in blocks of mc, for which an mc x kc block of
// op(A) is packed into mr-high panels; then each mr-high panel of A meets every
// nr-wide panel of B in the micro-kernel, which keeps the mr x nr tile of C in
// registers for all kc steps.
type blocking struct {
	mr, nr     int             // register tile of the micro-kernel
	mc, kc, nc int             // cache blocks, multiples of mr / nr
	asm        asmKernel       // float32 assembly kernel, or nil
	sk         []stridedKernel // float32 strided kernels, widest (nr) first: gemmStrided runs on them
	row        rowKernel       // the float32 row kernel of sk[0], with sk
	asm64      asmKernel64     // float64 assembly kernel, or nil; both nil: Go
	ref        bool            // the reference kernel (gemmKernel2x4Ref)
}

// Blocking of the AVX-512 8x48 kernel (Zen 5: 48 KiB L1d, 1 MiB L2 per core).
const (
	// kc512: a packed 8 x kc panel of A (32*kc bytes = 12 KiB) stays in L1
	// while it sweeps the whole B block; a larger kc also means fewer passes
	// that read and write C.
	kc512 = 384
	// nc512: the kc x nc block of B (4*kc*nc bytes = 720 KiB, up to 900 KiB
	// for the widened last block, see ncMax) stays in the 1 MiB L2 and
	// streams through the micro-kernel once per panel of A.
	nc512 = 480
	// mc512: rows of A packed in one pass. Each packed 8-row panel is read
	// from L2 into L1 once and then reused for every panel of the B block,
	// so mc only has to keep the A block (144 KiB) small beside B in L2.
	mc512 = 96
)

// Blocking of the AVX2 6x16 kernel, with the same reasoning: 6 x kc A panel
// (9 KiB) in L1, kc x nc B block (720 KiB) in L2, mc x kc A block in L2.
const (
	kcAVX2 = 384
	ncAVX2 = 480
	mcAVX2 = 96
)

// Blocking of the float64 kernels, AVX-512 8x24 and AVX2 6x8: an 8 x kc A
// panel of float64 (16 KiB) in L1 and the kc x nc B block (672 KiB) in L2.
const (
	kc64 = 256
	nc64 = 336
	mc64 = 96
)

// Blocking of the pure-Go 2x4 kernel. The scalar kernel runs far below cache
// bandwidth, so the blocks only need to keep B in L2: kc x nc float64 is 512 KiB.
const (
	kcGo = 256
	ncGo = 256
	mcGo = 64
	mrGo = 2
	nrGo = 4
)

// blockingRef is the blocking of the reference numerics mode in Go, for
// float32 and float64. Its kc (kcRef) fixes the order of the sums: each
// element of C is the sum over p of the rounded products op(A)(i,p)*op(B)(p,j),
// in order of p within each block of kBlock(blockingRef, k) values of p, each
// block's sum added to C in order of the blocks (see Gemm). mr, nr, mc and nc
// change no result, only the speed: blockingRefAVX2, the float32 blocking of
// the mode under "avx2" and "avx512", has other tiles and the same kc.
var blockingRef = blocking{mr: mrGo, nr: nrGo, mc: mcGo, kc: kcRef, nc: ncGo, ref: true}

// kcRef is the depth of the k blocks of the reference mode. Changing it
// changes the mode's results (and its fingerprint).
const kcRef = 256

// blockingRefAVX2 runs the reference order on the AVX2 6x16 tile without
// fused multiply-adds (sgemmKernel6x16Ref).
func blockingRefAVX2() blocking {
	return blocking{mr: 6, nr: 16, mc: mcAVX2, kc: kcRef, nc: ncAVX2, asm: kernel6x16Ref(), ref: true}
}

// blockingFor returns the micro-kernel and blocks for element type T under the
// current implementation, or those of the reference numerics mode.
func blockingFor[T Float]() blocking {
	if numerics.IsReference() {
		if is32[T]() && current.Load() != implGo && haveAVX2 {
			return blockingRefAVX2()
		}
		return blockingRef
	}
	if !is32[T]() {
		return blocking64()
	}
	switch int(current.Load()) {
	case implAVX512:
		return blocking{mr: 8, nr: 48, mc: mc512, kc: kc512, nc: nc512, asm: kernel8x48(), sk: stridedKernels512(), row: rowKernel512()}
	case implAVX2:
		return blocking{mr: 6, nr: 16, mc: mcAVX2, kc: kcAVX2, nc: ncAVX2, asm: kernel6x16(), sk: stridedKernelsAVX2(), row: rowKernelAVX2()}
	}
	return blocking{mr: mrGo, nr: nrGo, mc: mcGo, kc: kcGo, nc: ncGo}
}

// blocking64 returns the float64 micro-kernel and blocks.
func blocking64() blocking {
	switch int(current.Load()) {
	case implAVX512:
		return blocking{mr: 8, nr: 24, mc: mc64, kc: kc64, nc: nc64, asm64: kernel8x24()}
	case implAVX2:
		return blocking{mr: 6, nr: 8, mc: mc64, kc: kc64, nc: nc64, asm64: kernel6x8()}
	}
	return blocking{mr: mrGo, nr: nrGo, mc: mcGo, kc: kcGo, nc: ncGo}
}

// MicroTile returns the rows and columns of the register tile of the
// float32 micro-kernel of the current implementation: Gemm computes C in
// mr x nr blocks, and a product whose dimensions are multiples of them
// wastes none of the kernel's work.
func MicroTile() (mr, nr int) {
	bl := blockingFor[float32]()
	return bl.mr, bl.nr
}

// minParallelFlops is the work below which Gemm stays on the calling
// goroutine: starting and joining a goroutine costs a few microseconds, about
// the time of 1 MFLOP. It is a variable so that tests can exercise the
// parallel split on small matrices.
var minParallelFlops = float64(1 << 20)

// splitsRows reports whether a product of m x n x k is one whose C, at
// least four times the values of op(A) and op(B) together, is the bulk of
// its memory traffic: a weight gradient summed over a small batch, whose C
// the element-wise kernels, the engine's sums and the optimisers read next.
// gemm then gives the threads contiguous ranges of rows, which are
// contiguous ranges of C, the first to the calling goroutine, as those
// passes share a buffer out (part j of t: about the j-th t-th of it); so
// each thread writes the values that the same thread reads next, rather
// than a share of every row. Each thread reads all of op(B) rather than a
// share of it: the smaller part of the traffic.
func splitsRows(m, n, k int) bool {
	return 4*float64(k)*float64(m+n) <= float64(m)*float64(n)
}

// gemm runs the blocked algorithm with validated arguments, k > 0 and alpha != 0.
func gemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	bl := blockingFor[T]()
	t := Threads()
	if flops := 2 * float64(m) * float64(n) * float64(k); flops < minParallelFlops {
		t = 1
	}
	// Split the columns of C into nr-aligned ranges when there are enough of
	// them; otherwise split the rows. A product that writes far more than
	// it reads (splitsRows) splits its rows whenever it has enough of them.
	splitN := true
	if t > 1 {
		panelsN := (n + bl.nr - 1) / bl.nr
		panelsM := (m + bl.mr - 1) / bl.mr
		if panelsM >= 2*t && splitsRows(m, n, k) || panelsN < 2*t && panelsM > panelsN {
			splitN = false
			t = min(t, panelsM)
		} else {
			t = min(t, panelsN)
		}
	}
	if t <= 1 {
		s := getScratch[T](bl)
		gemmSerial(bl, s, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		putScratch(s)
		return
	}
	// Each range runs gemmSerial with its own packing buffers, the calling
	// goroutine the first (the widest when the ranges differ: it starts at
	// once, the team's workers a little later). The buffers are taken here,
	// one per range, rather than by whoever runs a range: how many ranges run
	// at once depends on which workers are free, and the free list must not
	// grow with it in the middle of training.
	if splitN {
		panels := (n + bl.nr - 1) / bl.nr
		per := (panels + t - 1) / t * bl.nr
		parts := (n + per - 1) / per
		ss := getScratches[T](bl, parts)
		Parallel(parts, func(p int) {
			j0 := p * per
			nb := min(per, n-j0)
			var bb []T
			if transB {
				bb = b[j0*ldb:]
			} else {
				bb = b[j0:]
			}
			gemmSerial(bl, ss[p], transA, transB, m, nb, k, alpha, a, lda, bb, ldb, beta, c[j0:], ldc)
		})
		putScratches(ss)
		return
	}
	panels := (m + bl.mr - 1) / bl.mr
	per := (panels + t - 1) / t * bl.mr
	parts := (m + per - 1) / per
	ss := getScratches[T](bl, parts)
	Parallel(parts, func(p int) {
		i0 := p * per
		mb := min(per, m-i0)
		var aa []T
		if transA {
			aa = a[i0:]
		} else {
			aa = a[i0*lda:]
		}
		gemmSerial(bl, ss[p], transA, transB, mb, n, k, alpha, aa, lda, b, ldb, beta, c[i0*ldc:], ldc)
	})
	putScratches(ss)
}

// gemmSerial computes the whole product on the calling goroutine.
func gemmSerial[T Float](bl blocking, s *scratch[T], transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	gemmBlocks(bl, s, nil, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// kBlock returns the depth of the k blocks of a product with inner
// dimension k: k is split into equal blocks of at most bl.kc (rounded up to
// 8 for the packing routines) rather than full blocks and a thin remainder,
// as each block costs a pass over C.
func kBlock(bl blocking, k int) int {
	kblocks := (k + bl.kc - 1) / bl.kc
	return min(bl.kc, ((k+kblocks-1)/kblocks+7)&^7)
}

// gemmBlocks is gemmSerial, with op(A) taken from pa instead of a when pa is
// not nil (read where PackA left it: packed, or in place).
func gemmBlocks[T Float](bl blocking, s *scratch[T], pa *PackedA[T], transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if len(bl.sk) > 0 && is32[T]() {
		gemmBlocks32(bl, s, pa, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	mr, nr := bl.mr, bl.nr
	tile := s.tile[:mr*nr]
	kc := kBlock(bl, k)
	var work yielder
	for jc := 0; jc < n; {
		// Take the rest of the columns if they exceed nc by at most a
		// quarter, rather than leave a thin last block that repacks all of A
		// for little work.
		nb := min(bl.nc, n-jc)
		if n-jc <= ncMax(bl.nc) {
			nb = n - jc
		}
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			packB(bl.asm != nil, transB, b, ldb, pc, jc, kb, nb, nr, nr, s.b)
			bet := beta
			if pc > 0 {
				bet = 1
			}
			for ic := 0; ic < m; ic += bl.mc {
				mb := min(bl.mc, m-ic)
				work.done(mb * nb * kb)
				sa := s.a
				if pa != nil {
					// The k block starting at pc, then rows from ic on.
					sa = pa.data[pc*pa.mPad+ic*kb:]
				} else {
					packA(bl.asm != nil, transA, a, lda, ic, pc, mb, kb, mr, alpha, s.a)
				}
				for ir := 0; ir < mb; ir += mr {
					rows := min(mr, mb-ir)
					ap := sa[ir*kb : (ir+mr)*kb]
					for jr := 0; jr < nb; jr += nr {
						cols := min(nr, nb-jr)
						bp := s.b[jr*kb : (jr+nr)*kb]
						off := (ic+ir)*ldc + jc + jr
						if rows == mr && cols == nr {
							micro(bl, kb, ap, bp, c[off:], ldc, bet)
							continue
						}
						micro(bl, kb, ap, bp, tile, nr, 0)
						for i := 0; i < rows; i++ {
							dst := c[off+i*ldc : off+i*ldc+cols]
							src := tile[i*nr : i*nr+cols]
							if bet == 0 {
								copy(dst, src)
							} else {
								for j, v := range src {
									dst[j] = v + T(bet*dst[j])
								}
							}
						}
					}
				}
			}
		}
		jc += nb
	}
}

// PackedA is the left operand op(A) of matrix products, packed once into
// the panels of the micro-kernel of the implementation in use at the time,
// so that GemmPacked can multiply it by many right operands without packing
// it again. Where the float32 assembly kernels read op(A) in place (alpha
// 1 and a layout they read well, see readsA), PackA keeps a reference to A
// instead of a copy. The zero value is empty; PackA fills it and reuses its
// storage.
type PackedA[T Float] struct {
	m, k int
	mPad int   // m rounded up to the micro-kernel's rows
	impl int32 // the implementation packed for (packKey)
	data []T   // k blocks of mPad rows, as packA lays out each block

	// In place: op(A) is read from src (row stride lda, transposed when
	// trans is set) and data is empty.
	src   []T
	lda   int
	trans bool
}

// PackA packs alpha*op(A), m x k, into p: op(A) is A (m x k, row stride
// lda) or, when transA is set, the transpose of A stored k x m. When the
// kernels read op(A) in place, p refers to a instead, which must then not
// change until the last GemmPacked with p. It panics as Gemm does on bad
// dimensions, strides or lengths.
func PackA[T Float](p *PackedA[T], transA bool, m, k int, alpha T, a []T, lda int) {
	checkGemm(transA, false, m, 1, k, len(a), lda, k, 1, max(m, 1), 1) // B and C: placeholders
	bl := blockingFor[T]()
	p.m, p.k, p.impl = m, k, packKey()
	p.mPad = (m + bl.mr - 1) / bl.mr * bl.mr
	p.src = nil
	if len(bl.sk) > 0 && is32[T]() && m >= bl.mr && readsA(transA, k, float32(alpha), lda) {
		p.src, p.lda, p.trans = a, lda, transA
		p.data = p.data[:0]
		return
	}
	if n := p.mPad * k; cap(p.data) < n {
		p.data = make([]T, n)
	} else {
		p.data = p.data[:n]
	}
	if m == 0 || k == 0 {
		return
	}
	kc := kBlock(bl, k)
	for pc := 0; pc < k; pc += kc {
		kb := min(kc, k-pc)
		// Rows in blocks of mc, as gemmBlocks reads them: each block's
		// panels follow the previous block's.
		for ic := 0; ic < m; ic += bl.mc {
			mb := min(bl.mc, m-ic)
			packA(bl.asm != nil, transA, a, lda, ic, pc, mb, kb, bl.mr, alpha, p.data[pc*p.mPad+ic*kb:])
		}
	}
}

// Rows and Cols return the dimensions of the packed op(A).
func (p *PackedA[T]) Rows() int { return p.m }

// Cols returns the number of columns of the packed op(A).
func (p *PackedA[T]) Cols() int { return p.k }

// GemmPacked computes C = op(A)*op(B) + beta*C on the calling goroutine for
// op(A) packed by PackA (alpha included), op(B) k x n as in Gemm. For a
// non-zero alpha it gives the bits of Gemm with the same arguments. It panics if op(A) was packed
// under another implementation (SetImpl since), or as Gemm does on bad
// dimensions, strides or lengths.
func GemmPacked[T Float](p *PackedA[T], transB bool, n int, b []T, ldb int, beta T, c []T, ldc int) {
	m, k := p.m, p.k
	checkGemm(false, transB, m, n, k, m*k, max(1, k), len(b), ldb, len(c), ldc)
	if p.impl != packKey() {
		panic(errPackedImpl)
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		scaleMatrix(m, n, beta, c, ldc)
		return
	}
	gemmFlops(m, n, k)
	t0 := profileStart()
	bl := blockingFor[T]()
	s := getScratch[T](bl)
	gemmBlocks(bl, s, p, false, transB, m, n, k, 1, nil, 0, b, ldb, beta, c, ldc)
	putScratch(s)
	profileEnd(t0, shapeOf[T](m, n, k, false, transB, EntryPacked))
}

// packKey identifies the packing layout in use: the implementation, or
// -1 minus the implementation in the reference numerics mode.
func packKey() int32 {
	if numerics.IsReference() {
		return -1 - current.Load()
	}
	return current.Load()
}

// ncMax is the widest column block gemmSerial packs for a nominal nc.
func ncMax(nc int) int { return nc + nc/4 }

// micro runs one micro-kernel call on a full mr x nr tile at c.
func micro[T Float](bl blocking, k int, a, b, c []T, ldc int, beta T) {
	if bl.asm != nil {
		bl.asm(k, (*float32)(unsafe.Pointer(&a[0])), (*float32)(unsafe.Pointer(&b[0])),
			(*float32)(unsafe.Pointer(&c[0])), ldc, float32(beta))
		return
	}
	if bl.asm64 != nil {
		bl.asm64(k, (*float64)(unsafe.Pointer(&a[0])), (*float64)(unsafe.Pointer(&b[0])),
			(*float64)(unsafe.Pointer(&c[0])), ldc, float64(beta))
		return
	}
	if bl.ref {
		gemmKernel2x4Ref(k, a, b, c, ldc, beta)
		return
	}
	gemmKernel2x4(k, a, b, c, ldc, beta)
}

// packA packs rows [i0, i0+mb) and columns [p0, p0+kb) of op(A), scaled by
// alpha, into mr-high panels: element (i, p) of the block goes to
// dst[(i/mr)*mr*kb + p*mr + i%mr]. Rows past mb up to the next multiple of mr
// are zero. With t8 set (float32 with assembly) full panels are packed by
// assembly: transpose8 (8 rows) or packA6 (6 rows) for untransposed A,
// packRows8 (when mr is a multiple of 8) or packA6T (6 rows) for
// transposed A.
func packA[T Float](t8, trans bool, a []T, lda, i0, p0, mb, kb, mr int, alpha T, dst []T) {
	ir0 := 0
	if t8 && trans && mr%8 == 0 && mb >= mr {
		// All full panels at once, reading each row of A^T front to back.
		full := mb / mr
		src := a[p0*lda+i0:]
		_ = src[(kb-1)*lda+full*mr-1]
		_ = dst[full*mr*kb-1]
		packRows8((*float32)(unsafe.Pointer(&dst[0])), (*float32)(unsafe.Pointer(&src[0])), lda, kb, full, mr/8, float32(alpha))
		ir0 = full * mr
	}
	for ir := ir0; ir < mb; ir += mr {
		panel := dst[ir*kb : (ir+mr)*kb]
		rows := min(mr, mb-ir)
		if rows < mr {
			for p := 0; p < kb; p++ {
				clear(panel[p*mr+rows : (p+1)*mr])
			}
		}
		if trans {
			// op(A)(i, p) = a[p*lda+i]: each p gives mr contiguous values.
			if t8 && mr == 6 && rows == 6 && kb > 0 {
				_ = a[(p0+kb-1)*lda+i0+ir+5]
				packA6T((*float32)(unsafe.Pointer(&panel[0])), (*float32)(unsafe.Pointer(&a[p0*lda+i0+ir])), lda, kb, float32(alpha))
				continue
			}
			for p := 0; p < kb; p++ {
				src := a[(p0+p)*lda+i0+ir:]
				src = src[:rows]
				d := panel[p*mr : p*mr+rows]
				for i, v := range src {
					d[i] = alpha * v
				}
			}
			continue
		}
		// op(A)(i, p) = a[i*lda+p]: gather one value from each of the rows
		// for every p, so that the writes are sequential; the rows' cache
		// lines stay in L1 across 16 steps of p.
		base := (i0+ir)*lda + p0
		_ = a[base+(rows-1)*lda+kb-1]
		p := 0
		if t8 && mr == 8 && rows == 8 && kb >= 8 {
			p = kb &^ 7
			transpose8((*float32)(unsafe.Pointer(&panel[0])), 8, (*float32)(unsafe.Pointer(&a[base])), lda, p, float32(alpha))
		}
		if t8 && mr == 6 && rows == 6 && kb >= 8 {
			p = kb &^ 7
			packA6((*float32)(unsafe.Pointer(&panel[0])), (*float32)(unsafe.Pointer(&a[base])), lda, p, float32(alpha))
		}
		for ; p < kb; p++ {
			d := panel[p*mr : p*mr+rows]
			idx := base + p
			for i := range d {
				d[i] = alpha * a[idx]
				idx += lda
			}
		}
	}
}

// packB packs rows [p0, p0+kb) and columns [j0, j0+nb) of op(B) into nr-wide
// panels: element (p, j) of the block goes to dst[(j/nr)*nr*kb + p*nr + j%nr].
// In a last, partial panel the columns past nb up to cw (at most nr: the
// columns its kernel reads) are zero; the others past cw are left as they
// are. With t8 set (float32 with assembly) transposed columns are packed 8x8
// at a time by transpose8 (a last group of fewer than 8 overlapping the one
// before), and full untransposed panels by packRows8.
func packB[T Float](t8, trans bool, b []T, ldb, p0, j0, kb, nb, nr, cw int, dst []T) {
	jr0 := 0
	if t8 && !trans && nr%8 == 0 && nb >= nr {
		// All full panels at once, reading each row of B front to back.
		full := nb / nr
		src := b[p0*ldb+j0:]
		_ = src[(kb-1)*ldb+full*nr-1]
		_ = dst[full*nr*kb-1]
		packRows8((*float32)(unsafe.Pointer(&dst[0])), (*float32)(unsafe.Pointer(&src[0])), ldb, kb, full, nr/8, 1)
		jr0 = full * nr
	}
	for jr := jr0; jr < nb; jr += nr {
		panel := dst[jr*kb : (jr+nr)*kb]
		cols := min(nr, nb-jr)
		if w := min(cw, nr); cols < w {
			// A few values a row: stored one by one, as a call of clear
			// per row would cost more than the stores.
			_ = panel[(kb-1)*nr+w-1]
			for p := 0; p < kb; p++ {
				for j := p*nr + cols; j < p*nr+w; j++ {
					panel[j] = 0
				}
			}
		}
		if !trans {
			// op(B)(p, j) = b[p*ldb+j]: each p gives nr contiguous values.
			for p := 0; p < kb; p++ {
				src := b[(p0+p)*ldb+j0+jr:]
				copy(panel[p*nr:p*nr+cols], src[:cols])
			}
			continue
		}
		// op(B)(p, j) = b[j*ldb+p]: gather across the columns for every p
		// so that the writes are sequential.
		// transpose8 packs whole groups of 8 columns for the first p8 rows;
		// the loop below fills the remaining columns and rows.
		base := (j0+jr)*ldb + p0
		_ = b[base+(cols-1)*ldb+kb-1]
		p8, g8 := 0, 0
		if t8 && kb >= 8 && cols >= 8 {
			p8, g8 = kb&^7, cols&^7
			for g := 0; g < g8; g += 8 {
				transpose8((*float32)(unsafe.Pointer(&panel[g])), nr, (*float32)(unsafe.Pointer(&b[base+g*ldb])), ldb, p8, 1)
			}
			if g8 < cols {
				// The last columns as a group of 8 overlapping the one
				// before, whose values it writes again.
				g := cols - 8
				transpose8((*float32)(unsafe.Pointer(&panel[g])), nr, (*float32)(unsafe.Pointer(&b[base+g*ldb])), ldb, p8, 1)
				g8 = cols
			}
		}
		if p8 == kb && g8 == cols {
			continue // transpose8 packed the whole panel
		}
		for p := 0; p < kb; p++ {
			j := 0
			if p < p8 {
				j = g8
			}
			d := panel[p*nr+j : p*nr+cols]
			idx := base + j*ldb + p
			for j := range d {
				d[j] = b[idx]
				idx += ldb
			}
		}
	}
}

// scratch holds the packing buffers of one goroutine running gemmSerial.
type scratch[T Float] struct {
	a, b, tile []T
	raw        *rawScratch
}

// rawScratch is the untyped storage behind a scratch. Buffers are kept on a
// free list for the life of the process: the first touch of fresh memory is
// slow, so Gemm must not allocate per call.
type rawScratch struct {
	a, b, tile []float64
	prod       []float64 // gemmSwapped's products, grown as needed

	// The typed views getScratch returns, kept here so that taking a
	// scratch from the free list allocates nothing.
	f32 scratch[float32]
	f64 scratch[float64]
}

var scratchFree struct {
	sync.Mutex
	list []*rawScratch
}

func getScratch[T Float](bl blocking) *scratch[T] {
	var z T
	size := int(unsafe.Sizeof(z))
	na := (bl.mc*bl.kc*size + 7) / 8
	nb := (bl.kc*((ncMax(bl.nc)+bl.nr-1)/bl.nr*bl.nr)*size + 7) / 8
	nt := (bl.mr*bl.nr*size + 7) / 8
	scratchFree.Lock()
	var r *rawScratch
	if l := len(scratchFree.list); l > 0 {
		r = scratchFree.list[l-1]
		scratchFree.list = scratchFree.list[:l-1]
	}
	scratchFree.Unlock()
	if r == nil {
		r = new(rawScratch)
	}
	grow := func(s *[]float64, n int) {
		if cap(*s) < n {
			*s = make([]float64, n)
		}
		*s = (*s)[:cap(*s)]
	}
	grow(&r.a, na)
	grow(&r.b, nb)
	grow(&r.tile, nt)
	view := func(s []float64) []T {
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*8/size)
	}
	var s *scratch[T]
	if p, ok := any(&r.f32).(*scratch[T]); ok {
		s = p
	} else if p, ok := any(&r.f64).(*scratch[T]); ok {
		s = p
	} else {
		s = new(scratch[T]) // a named float type: a view of its own
	}
	*s = scratch[T]{a: view(r.a), b: view(r.b), tile: view(r.tile), raw: r}
	return s
}

// getScratches takes n scratches from the free list, one per parallel range.
func getScratches[T Float](bl blocking, n int) []*scratch[T] {
	ss := make([]*scratch[T], n)
	for i := range ss {
		ss[i] = getScratch[T](bl)
	}
	return ss
}

// putScratches returns the scratches of getScratches to the free list.
func putScratches[T Float](ss []*scratch[T]) {
	for _, s := range ss {
		putScratch(s)
	}
}

func putScratch[T Float](s *scratch[T]) {
	scratchFree.Lock()
	scratchFree.list = append(scratchFree.list, s.raw)
	scratchFree.Unlock()
}

// yieldWork is the number of multiply-adds a product does between yields
// of its processor (about a millisecond at the kernels' speed).
const yieldWork = 1 << 26

// yielder counts a product's multiply-adds and yields the processor, with
// runtime.Gosched, after every yieldWork of them. The assembly kernels are
// not points where the scheduler can preempt a goroutine, and the loops
// around them call no function that checks for preemption, so without it a
// product of seconds on every processor would keep the goroutines that
// handle signals (an interrupt) and the garbage collector's stops waiting
// until it ends. Products of less than yieldWork never yield.
type yielder struct{ n int }

// done counts n multiply-adds, yielding when their total reaches yieldWork.
func (y *yielder) done(n int) {
	y.n += n
	if y.n >= yieldWork {
		y.n = 0
		runtime.Gosched()
	}
}
