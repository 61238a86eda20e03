//go:build !purego

#include "textflag.h"

// func filterRowsAVX2(dst, x *float32, pix, segs *int32, np, ns int)
//
// For each pixel p < np, ns segments of three values: segment s is
// x[pix[p]+segs[s] : +3], loaded with the fourth lane masked off, and
// stored as four values at dst[p*32+3*s], so that the zero of its fourth
// lane is overwritten by the next segment and stays after the last one.
//
// DI the pixel's row, SI x, R8 pix, R9 segs, CX the pixels left, R10 ns,
// R11 the segment's place in the row, DX the segment, AX the pixel's
// offset, BX the segment's offset, X15 the mask.
TEXT ·filterRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ pix+16(FP), R8
	MOVQ segs+24(FP), R9
	MOVQ np+32(FP), CX
	MOVQ ns+40(FP), R10
	TESTQ CX, CX
	JEQ rowsdone
	VPCMPEQD X15, X15, X15
	VPSRLDQ $4, X15, X15
rowspixel:
	MOVLQSX (R8), AX
	LEAQ (SI)(AX*4), AX
	MOVQ DI, R11
	XORQ DX, DX
rowsseg:
	MOVLQSX (R9)(DX*4), BX
	VMASKMOVPS (AX)(BX*4), X15, X0
	VMOVUPS X0, (R11)
	ADDQ $12, R11
	INCQ DX
	CMPQ DX, R10
	JLT rowsseg
	ADDQ $128, DI
	ADDQ $4, R8
	DECQ CX
	JNZ rowspixel
rowsdone:
	RET

// func maskPositiveAVX2(dst, gv, x *float32, n int)
//
// dst[i] = g[i] where x[i] > 0 and +0 elsewhere (NaN included), for i < n,
// n a multiple of eight.
TEXT ·maskPositiveAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ gv+8(FP), SI
	MOVQ x+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	JEQ maskdone
	VXORPS Y15, Y15, Y15
maskloop:
	VMOVUPS (DX), Y1
	VCMPPS $0x1e, Y15, Y1, Y1
	VANDPS (SI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ maskloop
	VZEROUPPER
maskdone:
	RET

// FILTER_ROW(off, v, a0, a1, a2, a3) adds v times the 32 values of rows at
// byte offset off into a0..a3, one fused multiply-add a lane.
#define FILTER_ROW(off, v, a0, a1, a2, a3) \
	VFMADD231PS 0(SI)(off*1), v, a0; \
	VFMADD231PS 32(SI)(off*1), v, a1; \
	VFMADD231PS 64(SI)(off*1), v, a2; \
	VFMADD231PS 96(SI)(off*1), v, a3

// func poolFilterGradAVX2(acc, rows, gv *float32, idx *int32, nf, n, stride int)
//
// For each filter j < nf, in 32 lanes k, for q = 0, 1, ..., n-1 in turn:
//
//	acc[j*32+k] = fma(gv[j*stride+q], rows[idx[j*stride+q]*32+k], acc[j*32+k])
//
// Filters are taken two at a time (eight accumulators), then one.
//
// DI the filters' sums, SI rows, R8 and R9 the filters' values and
// positions, R10 the filters left, R11 n, R12 the stride in bytes, AX and
// BX the step's value and position, CX the steps left, DX and R13 the
// positions' byte offsets.
TEXT ·poolFilterGradAVX2(SB), NOSPLIT, $0-56
	MOVQ acc+0(FP), DI
	MOVQ rows+8(FP), SI
	MOVQ gv+16(FP), R8
	MOVQ idx+24(FP), R9
	MOVQ nf+32(FP), R10
	MOVQ n+40(FP), R11
	MOVQ stride+48(FP), R12
	SHLQ $2, R12
	TESTQ R11, R11
	JEQ pfdone
pfpair:
	CMPQ R10, $2
	JLT pfone
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	MOVQ R8, AX
	MOVQ R9, BX
	MOVQ R11, CX
pfpairstep:
	MOVLQSX (BX), DX
	MOVLQSX (BX)(R12*1), R13
	SHLQ $7, DX
	SHLQ $7, R13
	VBROADCASTSS (AX), Y8
	VBROADCASTSS (AX)(R12*1), Y9
	FILTER_ROW(DX, Y8, Y0, Y1, Y2, Y3)
	FILTER_ROW(R13, Y9, Y4, Y5, Y6, Y7)
	ADDQ $4, AX
	ADDQ $4, BX
	DECQ CX
	JNZ pfpairstep
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ $256, DI
	LEAQ (R8)(R12*2), R8
	LEAQ (R9)(R12*2), R9
	SUBQ $2, R10
	JMP pfpair
pfone:
	TESTQ R10, R10
	JEQ pfzero
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	MOVQ R8, AX
	MOVQ R9, BX
	MOVQ R11, CX
pfonestep:
	MOVLQSX (BX), DX
	SHLQ $7, DX
	VBROADCASTSS (AX), Y8
	FILTER_ROW(DX, Y8, Y0, Y1, Y2, Y3)
	ADDQ $4, AX
	ADDQ $4, BX
	DECQ CX
	JNZ pfonestep
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
pfzero:
	VZEROUPPER
pfdone:
	RET

// FILTER_ROW512(off, v, a0, a1) adds v times the 32 values of rows at byte
// offset off into a0 and a1, one fused multiply-add a lane.
#define FILTER_ROW512(off, v, a0, a1) \
	VFMADD231PS 0(SI)(off*1), v, a0; \
	VFMADD231PS 64(SI)(off*1), v, a1

// func poolFilterGradAVX512(acc, rows, gv *float32, idx *int32, nf, n, stride int)
//
// poolFilterGradAVX2 for nf a multiple of four, in AVX-512F: filters four
// at a time (eight accumulators of 16 lanes), each lane's multiply-adds
// the same and in the same order.
//
// DI the filters' sums, SI rows, R8 and R9 the filters' values and
// positions, R10 the filters left, R11 n, R12 the stride in bytes and R14
// three times it, AX and BX the step's value and position, CX the steps
// left, DX and R13 two filters' positions' byte offsets.
TEXT ·poolFilterGradAVX512(SB), NOSPLIT, $0-56
	MOVQ acc+0(FP), DI
	MOVQ rows+8(FP), SI
	MOVQ gv+16(FP), R8
	MOVQ idx+24(FP), R9
	MOVQ nf+32(FP), R10
	MOVQ n+40(FP), R11
	MOVQ stride+48(FP), R12
	SHLQ $2, R12
	LEAQ (R12)(R12*2), R14
	TESTQ R11, R11
	JEQ pf4done
pf4group:
	CMPQ R10, $4
	JLT pf4zero
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS 320(DI), Z5
	VMOVUPS 384(DI), Z6
	VMOVUPS 448(DI), Z7
	MOVQ R8, AX
	MOVQ R9, BX
	MOVQ R11, CX
pf4step:
	MOVLQSX (BX), DX
	MOVLQSX (BX)(R12*1), R13
	SHLQ $7, DX
	SHLQ $7, R13
	VBROADCASTSS (AX), Z8
	VBROADCASTSS (AX)(R12*1), Z9
	VBROADCASTSS (AX)(R12*2), Z10
	VBROADCASTSS (AX)(R14*1), Z11
	FILTER_ROW512(DX, Z8, Z0, Z1)
	FILTER_ROW512(R13, Z9, Z2, Z3)
	MOVLQSX (BX)(R12*2), DX
	MOVLQSX (BX)(R14*1), R13
	SHLQ $7, DX
	SHLQ $7, R13
	FILTER_ROW512(DX, Z10, Z4, Z5)
	FILTER_ROW512(R13, Z11, Z6, Z7)
	ADDQ $4, AX
	ADDQ $4, BX
	DECQ CX
	JNZ pf4step
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	ADDQ $512, DI
	LEAQ (R8)(R12*4), R8
	LEAQ (R9)(R12*4), R9
	SUBQ $4, R10
	JMP pf4group
pf4zero:
	VZEROUPPER
pf4done:
	RET
