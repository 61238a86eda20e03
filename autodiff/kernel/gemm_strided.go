package kernel

import (
	"math"
	"unsafe"
)

// The float32 assembly path of gemmBlocks. Its micro-kernels read op(A) and
// op(B) through strides (sgemmStridedGo), so a panel can be read where the
// operand is stored instead of being packed first, and the last, partial
// panel of columns runs on the narrowest kernel that covers it instead of
// the full width with columns of zeros. Either way each element of C is the
// same sum in the same order as with packed panels and the full kernel: the
// same products accumulated over p by fused multiply-adds from zero in each
// k block, and the same tiles (full mr x nr tiles written by the kernel,
// the others through the tile buffer), so the results keep their bits.

// readsDirect tells gemmStrided which operands to read in place.
type readsDirect struct{ a, b bool }

// directReads decides which operands of a product gemmStrided reads in
// place rather than packs. A packed panel is contiguous and is read from
// the caches as many times as it meets a panel of the other operand; an
// operand read in place saves the packing pass, which costs about as much
// as the micro-kernel's work when the other dimension is small.
func directReads(transA, transB bool, m, n, k int, alpha float32, lda, ldb, nr int) readsDirect {
	if directOverride != nil {
		return directOverride(transA, transB, m, n, k, alpha, lda, ldb)
	}
	return readsDirect{a: readsA(transA, k, alpha, lda), b: readsB(transB, m, k, ldb, nr)}
}

// readsA reports whether gemmStrided reads op(A) in place. That needs
// alpha == 1 (packing applies alpha). A row-major A gives each of the mr
// rows of a tile as one run over p; a transposed A gives mr neighbours for
// each p, a cache line per step of p, which pays while those lines are
// close together or few.
func readsA(transA bool, k int, alpha float32, lda int) bool {
	return alpha == 1 && (!transA || k <= 64 || lda <= 512)
}

// readsB reports whether gemmStrided reads op(B) in place: B must be
// untransposed (rows of nr neighbours), and rows a multiple of 4 KiB apart,
// which would fall into a few sets of the caches, are packed. So is B for
// kernels narrower than 32 columns, unless the product has few rows: the
// AVX2 tile, 16 columns, reads one cache line of B per step of p, a new row
// every 6 cycles of its multiply-adds, which it waits for when the rows are
// apart; the AVX-512 tile reads three lines per 24 cycles and does not.
// With at most narrowRows rows, though, each panel is read by at most four
// tiles, too few to repay a packing pass over B, as long as B (k rows of
// ldb) is small enough, narrowB values, to stay in the caches between
// them; a larger B comes from memory, where the packing pass's sequential
// reads are the faster way.
func readsB(transB bool, m, k, ldb, nr int) bool {
	if transB || ldb%1024 == 0 {
		return false
	}
	return nr >= 32 || m <= narrowRows && k*ldb <= narrowB
}

// narrowRows and narrowB bound the products whose B the narrow kernels read
// in place (readsB): four of the AVX2 tile's 6-row tiles, and 4 MiB of
// float32.
const (
	narrowRows = 24
	narrowB    = 1 << 20
)

// swapOverride is swaps, or what tests set in its place.
var swapOverride = swaps

// directOverride, when not nil, replaces directReads' decision (which
// gemmStrided still restricts to the operands it can read in place), so
// that tests can run every combination.
var directOverride func(transA, transB bool, m, n, k int, alpha float32, lda, ldb int) readsDirect

// gemmStrided is gemmBlocks for float32 on the strided assembly kernels bl.sk
// (widest first, the first of width bl.nr), reading op(A) from pa when pa is
// not nil.
//
// An operand read in place needs no packing for its last, partial panel
// either: when the product has rows (columns) enough, the kernel runs on
// the last mr rows (kernel-wide columns) of the operand, overlapping the
// panel before. When C is overwritten (no sum into it) the kernel writes
// the whole tile, the overlapped rows (columns) with the values they hold;
// otherwise only the tile's new rows (columns) are added to C, through the
// tile buffer, as with packed panels.
func gemmStrided(bl blocking, s *scratch[float32], pa *PackedA[float32], transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	mr, nr := bl.mr, bl.nr
	full := bl.sk[0]
	d := directReads(transA, transB, m, n, k, alpha, lda, ldb, nr)
	d.a = d.a && pa == nil && alpha == 1
	d.b = d.b && !transB
	tile := s.tile[:mr*nr]
	kc := kBlock(bl, k)
	const t8 = true
	var work yielder
	for jc := 0; jc < n; {
		nb := min(bl.nc, n-jc)
		if n-jc <= ncMax(bl.nc) {
			nb = n - jc
		}
		fullN := nb / nr * nr // columns in whole panels
		// A partial panel is read by the narrowest kernel that covers it,
		// which reads cw columns.
		cw := nr
		if fullN < nb {
			cw = narrowest(bl.sk, nb-fullN).nr
		}
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			// B: every panel packed, or only a partial panel too narrow
			// for its kernel to read in place (at s.b[0:]).
			switch {
			case !d.b:
				packB(t8, transB, b, ldb, pc, jc, kb, nb, nr, cw, s.b)
			case fullN < nb && jc+nb < cw:
				packB(t8, false, b, ldb, pc, jc+fullN, kb, nb-fullN, nr, cw, s.b)
			}
			bet := beta
			if pc > 0 {
				bet = 1
			}
			for ic := 0; ic < m; ic += bl.mc {
				mb := min(bl.mc, m-ic)
				work.done(mb * nb * kb)
				fullM := mb / mr * mr
				var sa []float32
				switch {
				case pa != nil:
					sa = pa.data[pc*pa.mPad+ic*kb:]
				case !d.a:
					packA(t8, transA, a, lda, ic, pc, mb, kb, mr, alpha, s.a)
					sa = s.a
				case fullM < mb && m < mr:
					packA(t8, transA, a, lda, ic+fullM, pc, mb-fullM, kb, mr, alpha, s.a)
				}
				for ir := 0; ir < mb; ir += mr {
					rows := min(mr, mb-ir)
					var ap *float32
					ars, acs := 1, mr
					r0 := 0 // the tile's first row to write
					switch {
					case !d.a:
						ap = &sa[ir*kb]
					case rows < mr && m < mr:
						ap = &s.a[0]
					default:
						i0 := ic + ir
						if rows < mr {
							r0 = mr - rows
							i0 -= r0
						}
						if transA {
							ap, ars, acs = &a[pc*lda+i0], 1, lda
						} else {
							ap, ars, acs = &a[i0*lda+pc], lda, 1
						}
					}
					jr0 := 0 // the columns before are done
					if fullN > 0 && bl.row != nil && (rows == mr || r0 > 0 && bet == 0) {
						// The row's whole panels in one call: whole tiles,
						// or with C overwritten the tiles overlapping the
						// rows above, as below.
						bp, brs, bps := &s.b[0], nr, nr*kb
						if d.b {
							bp, brs, bps = &b[pc*ldb+jc], ldb, nr
						}
						bl.row(kb, ap, ars, acs, bp, brs, bps, &c[(ic+ir-r0)*ldc+jc], ldc, bet, fullN/nr)
						jr0 = fullN
					}
					for jr := jr0; jr < nb; jr += nr {
						cols := min(nr, nb-jr)
						kn := full
						if cols < nr {
							kn = narrowest(bl.sk, cols)
						}
						var bp *float32
						brs := nr
						c0 := 0 // the tile's first column to write
						switch {
						case !d.b:
							bp = &s.b[jr*kb]
						case cols == kn.nr:
							bp, brs = &b[pc*ldb+jc+jr], ldb
						case jc+nb >= kn.nr:
							c0 = kn.nr - cols
							bp, brs = &b[pc*ldb+jc+jr-c0], ldb
						default:
							bp = &s.b[0]
						}
						off := (ic+ir)*ldc + jc + jr
						if rows == mr && cols == nr {
							kn.fn(kb, ap, ars, acs, bp, brs, &c[off], ldc, bet)
							continue
						}
						if bet == 0 && (rows == mr || r0 > 0) && (cols == kn.nr || c0 > 0) {
							// The whole kernel tile in C: the rows and columns
							// it overlaps get the values they have, the same
							// sums.
							kn.fn(kb, ap, ars, acs, bp, brs, &c[off-r0*ldc-c0], ldc, 0)
							continue
						}
						kn.fn(kb, ap, ars, acs, bp, brs, &tile[0], kn.nr, 0)
						if bet != 0 {
							addTile(c[off:], ldc, tile[r0*kn.nr+c0:], kn.nr, rows, cols, bet)
							continue
						}
						for i := 0; i < rows; i++ {
							copy(c[off+i*ldc:off+i*ldc+cols], tile[(r0+i)*kn.nr+c0:(r0+i)*kn.nr+c0+cols])
						}
					}
				}
			}
		}
		jc += nb
	}
}

// addTileGo sets dst[i*ldd+j] = src[i*lds+j] + float32(beta*dst[i*ldd+j])
// for i < rows and j < cols: a tile buffer's sums added into C with Go's
// arithmetic, subnormals kept. addTile is addTileGo, in assembly where
// there is some.
func addTileGo(dst []float32, ldd int, src []float32, lds int, rows, cols int, beta float32) {
	for i := range rows {
		d := dst[i*ldd : i*ldd+cols]
		for j, v := range src[i*lds : i*lds+cols] {
			d[j] = v + float32(beta*d[j])
		}
	}
}

// swaps reports whether gemmStrided computes C = op(A) op(B) as the
// transpose of op(B)ᵀ op(A)ᵀ (gemmSwapped): for a transposed B (the
// weights of a linear layer, x Wᵀ) and few rows of C, op(B)ᵀ is read in
// place instead of every one of its values being transposed into packed
// panels, and op(A)ᵀ, which has few columns, is packed instead.
func swaps(transB bool, m, n int, alpha, beta float32, pa bool) bool {
	return transB && !pa && alpha == 1 && (beta == 0 || beta == 1) && 4*m <= n && m <= 32
}

// gemmSwapped computes C = op(A) op(B) + beta*C (beta 0 or 1) k block by k
// block: the block's products P = op(B)ᵀ op(A)ᵀ (n x m, by gemmStrided in a
// buffer), then C = Pᵀ (the first block, beta 0) or C = Pᵀ + C, each
// element added as gemmStrided adds it in the orientation of C: with the
// micro-kernel's flush of subnormals (flushAdd) in whole mr x nr tiles, by
// Go's addition in the others. Each element of C is thus the same sum in
// the same order as op(A) op(B) gives.
func gemmSwapped(bl blocking, s *scratch[float32], transA bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	kc := kBlock(bl, k)
	if need := (n*m + 1) / 2; cap(s.raw.prod) < need {
		s.raw.prod = make([]float64, need)
	}
	prod := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s.raw.prod))), n*m)
	fm, fn := m/bl.mr*bl.mr, n/bl.nr*bl.nr // C's whole tiles
	for pc := 0; pc < k; pc += kc {
		kb := min(kc, k-pc)
		// op(B)ᵀ is B (n x k) from column pc; op(A)ᵀ is A read as a
		// transposed B (k x m), or A (k x m) itself when transA.
		bt, ldbt := a[pc:], lda
		if transA {
			bt = a[pc*lda:]
		}
		gemmStrided(bl, s, nil, false, !transA, n, m, kb, 1, b[pc:], ldb, bt, ldbt, 0, prod, m)
		if pc == 0 && beta == 0 {
			for i := 0; i < m; i++ {
				row := c[i*ldc : i*ldc+n]
				for j := range row {
					row[j] = prod[j*m+i]
				}
			}
			continue
		}
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			j := 0
			if i < fm {
				for ; j < fn; j++ {
					row[j] = flushAdd(prod[j*m+i], row[j])
				}
			}
			for ; j < n; j++ {
				row[j] = prod[j*m+i] + row[j]
			}
		}
	}
}

// flushAdd returns v + c as the float32 micro-kernels add a tile to C with
// beta 1 (one fused multiply-add, 1*c + v): a subnormal c is read as zero
// and a subnormal sum written as zero, each with its sign.
func flushAdd(v, c float32) float32 {
	cb := math.Float32bits(c)
	if cb&0x7f800000 == 0 {
		cb &= 0x80000000
	}
	rb := math.Float32bits(v + math.Float32frombits(cb))
	if rb&0x7f800000 == 0 {
		rb &= 0x80000000
	}
	return math.Float32frombits(rb)
}

// narrowest returns the narrowest of the kernels ks (widest first) that
// covers cols columns.
func narrowest(ks []stridedKernel, cols int) stridedKernel {
	kn := ks[0]
	for _, k := range ks[1:] {
		if k.nr >= cols {
			kn = k
		}
	}
	return kn
}

// gemmBlocks32 runs gemmStrided on the float32 views of the operands of
// gemmBlocks.
func gemmBlocks32[T Float](bl blocking, s *scratch[T], pa *PackedA[T], transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if pa != nil && pa.src != nil { // op(A) in place
		pa, transA, alpha, a, lda = nil, pa.trans, 1, pa.src, pa.lda
	}
	s32 := (*scratch[float32])(unsafe.Pointer(s))
	if swapOverride(transB, m, n, float32(alpha), float32(beta), pa != nil) {
		gemmSwapped(bl, s32, transA, m, n, k, as32(a), lda, as32(b), ldb, float32(beta), as32(c), ldc)
		return
	}
	pa32 := (*PackedA[float32])(unsafe.Pointer(pa))
	gemmStrided(bl, s32, pa32, transA, transB, m, n, k, float32(alpha), as32(a), lda, as32(b), ldb, float32(beta), as32(c), ldc)
}
