//go:build !purego

#include "textflag.h"

// AVX2 kernels of lincomb.go, four float64 lanes at a time. Every product is
// rounded (VMULPD) before it is added (VADDPD), in the twins' order, so the
// results are the twins' bits.

// COMB3_ARGS loads the arguments of comb3AVX2 and comb3To32AVX2 (the same
// frame layout): d in DI and CX, the rows in R8-R10, the coefficients
// broadcast in Y13-Y15, and the index AX at 0.
#define COMB3_ARGS \
	MOVQ d_base+0(FP), DI \
	MOVQ d_len+8(FP), CX \
	MOVQ r0_base+24(FP), R8 \
	MOVQ r1_base+48(FP), R9 \
	MOVQ r2_base+72(FP), R10 \
	MOVQ c+96(FP), DX \
	VBROADCASTSD 0(DX), Y13 \
	VBROADCASTSD 8(DX), Y14 \
	VBROADCASTSD 16(DX), Y15 \
	XORQ AX, AX

// COMB3_Y0 sets Y0 to c0*r0 + c1*r1 + c2*r2 at elements AX..AX+3, each
// product rounded, the sums left to right.
#define COMB3_Y0 \
	VMULPD (R8)(AX*8), Y13, Y0 \
	VMULPD (R9)(AX*8), Y14, Y1 \
	VADDPD Y1, Y0, Y0 \
	VMULPD (R10)(AX*8), Y15, Y2 \
	VADDPD Y2, Y0, Y0

// func comb3AVX2(d, r0, r1, r2 []float64, c *[3]float64)
TEXT ·comb3AVX2(SB), NOSPLIT, $0-104
	COMB3_ARGS
comb3loop:
	CMPQ AX, CX
	JGE comb3done
	COMB3_Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	JMP comb3loop
comb3done:
	VZEROUPPER
	RET

// func comb3To32AVX2(d []float32, r0, r1, r2 []float64, c *[3]float64)
TEXT ·comb3To32AVX2(SB), NOSPLIT, $0-104
	COMB3_ARGS
comb32loop:
	CMPQ AX, CX
	JGE comb32done
	COMB3_Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS X0, (DI)(AX*4)
	ADDQ $4, AX
	JMP comb32loop
comb32done:
	VZEROUPPER
	RET

// func addScaledAVX2(d, x []float64, a float64)
TEXT ·addScaledAVX2(SB), NOSPLIT, $0-56
	MOVQ d_base+0(FP), DI
	MOVQ d_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	VBROADCASTSD a+48(FP), Y15
	XORQ AX, AX
scaledloop:
	CMPQ AX, CX
	JGE scaleddone
	VMULPD (SI)(AX*8), Y15, Y0
	VADDPD (DI)(AX*8), Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	JMP scaledloop
scaleddone:
	VZEROUPPER
	RET

// func addWidenedAVX2(d []float64, x []float32)
TEXT ·addWidenedAVX2(SB), NOSPLIT, $0-48
	MOVQ d_base+0(FP), DI
	MOVQ d_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	XORQ AX, AX
widenloop:
	CMPQ AX, CX
	JGE widendone
	VCVTPS2PD (SI)(AX*4), Y0
	VADDPD (DI)(AX*8), Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	JMP widenloop
widendone:
	VZEROUPPER
	RET

// func blend32AVX2(d, x []float32, r, q float32)
//
// Eight values a step: Y0 = r*d, Y1 = q*x, d = Y0 + Y1, each rounded.
TEXT ·blend32AVX2(SB), NOSPLIT, $0-56
	MOVQ d_base+0(FP), DI
	MOVQ d_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	VBROADCASTSS r+48(FP), Y14
	VBROADCASTSS q+52(FP), Y15
	XORQ AX, AX
blendloop:
	CMPQ AX, CX
	JGE blenddone
	VMULPS (DI)(AX*4), Y14, Y0
	VMULPS (SI)(AX*4), Y15, Y1
	VADDPS Y1, Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	JMP blendloop
blenddone:
	VZEROUPPER
	RET

// func filterTransformAVX2(u *float32, stride int, gv *float64, groups int, gm *float64, a int)
//
// For each group of four filters (SI at its 9 rows of 4 doubles): for each
// p (R8 at G[p]) the three t[p][j] in Y0-Y2, then for each q (R9 at G[q])
// the value at DI, stride bytes (R11) apart from q to q. Y13-Y15 hold
// G[p][0..2] broadcast; Y3-Y5 are scratch. Each store prefetches its
// stream 128 bytes (8 groups) ahead: u is fresh memory, written in a*a
// streams.
TEXT ·filterTransformAVX2(SB), NOSPLIT, $0-48
	MOVQ u+0(FP), BX
	MOVQ stride+8(FP), R11
	SHLQ $2, R11
	MOVQ gv+16(FP), SI
	MOVQ groups+24(FP), CX
	MOVQ a+40(FP), R12
ftgroup:
	MOVQ gm+32(FP), R8
	MOVQ BX, DI // position (p, 0) of the group
	MOVQ R12, R13 // p counter
ftp:
	VBROADCASTSD 0(R8), Y13
	VBROADCASTSD 8(R8), Y14
	VBROADCASTSD 16(R8), Y15
	VMULPD 0(SI), Y13, Y0
	VMULPD 96(SI), Y14, Y3
	VADDPD Y3, Y0, Y0
	VMULPD 192(SI), Y15, Y3
	VADDPD Y3, Y0, Y0
	VMULPD 32(SI), Y13, Y1
	VMULPD 128(SI), Y14, Y3
	VADDPD Y3, Y1, Y1
	VMULPD 224(SI), Y15, Y3
	VADDPD Y3, Y1, Y1
	VMULPD 64(SI), Y13, Y2
	VMULPD 160(SI), Y14, Y3
	VADDPD Y3, Y2, Y2
	VMULPD 256(SI), Y15, Y3
	VADDPD Y3, Y2, Y2
	MOVQ gm+32(FP), R9
	MOVQ R12, R14 // q counter
ftq:
	VBROADCASTSD 0(R9), Y4
	VMULPD Y0, Y4, Y4
	VBROADCASTSD 8(R9), Y5
	VMULPD Y1, Y5, Y5
	VADDPD Y5, Y4, Y4
	VBROADCASTSD 16(R9), Y5
	VMULPD Y2, Y5, Y5
	VADDPD Y5, Y4, Y4
	VCVTPD2PSY Y4, X4
	PREFETCHT0 128(DI)
	VMOVUPS X4, (DI)
	ADDQ R11, DI
	ADDQ $24, R9
	DECQ R14
	JNZ ftq
	ADDQ $24, R8
	DECQ R13
	JNZ ftp
	ADDQ $16, BX
	ADDQ $288, SI
	DECQ CX
	JNZ ftgroup
	VZEROUPPER
	RET

// func filterTransformAdjAVX2(out *float32, du0, du1 *float32, stride, groups int, gm *float64, a int)
//
// For each group of four filters: s (9 sums) in Y0-Y8; for each q (R8 at
// G[q]) t[q][0..2] in Y9-Y11, summed over p (R9 at G[p]) from x in Y12,
// read at SI (and R10 for du1), a*stride bytes (R12) apart from p to p.
// Y13 and Y14 are scratch. Each load prefetches its stream 128 bytes (8
// groups) ahead: the a*a (or 2*a*a) streams are more than the hardware
// prefetchers follow, and the partial sums come from memory.
TEXT ·filterTransformAdjAVX2(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ du0+8(FP), BX
	MOVQ du1+16(FP), DX
	MOVQ stride+24(FP), R11
	SHLQ $2, R11
	MOVQ groups+32(FP), CX
	MOVQ a+48(FP), R12
	IMULQ R11, R12 // a*stride bytes: from p to p+1
fagroup:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	MOVQ gm+40(FP), R8
	XORQ AX, AX // q*stride bytes
	MOVQ a+48(FP), R13 // q counter
faq:
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	LEAQ (BX)(AX*1), SI
	LEAQ (DX)(AX*1), R10
	MOVQ gm+40(FP), R9
	MOVQ a+48(FP), R14 // p counter
fap:
	VXORPD Y12, Y12, Y12
	PREFETCHT0 128(SI)
	VCVTPS2PD (SI), Y13
	VADDPD Y13, Y12, Y12
	CMPQ du1+16(FP), $0
	JEQ faone
	PREFETCHT0 128(R10)
	VCVTPS2PD (R10), Y13
	VADDPD Y13, Y12, Y12
faone:
	VBROADCASTSD 0(R9), Y13
	VMULPD Y12, Y13, Y13
	VADDPD Y13, Y9, Y9
	VBROADCASTSD 8(R9), Y13
	VMULPD Y12, Y13, Y13
	VADDPD Y13, Y10, Y10
	VBROADCASTSD 16(R9), Y13
	VMULPD Y12, Y13, Y13
	VADDPD Y13, Y11, Y11
	ADDQ R12, SI
	ADDQ R12, R10
	ADDQ $24, R9
	DECQ R14
	JNZ fap
	VBROADCASTSD 0(R8), Y12
	VBROADCASTSD 8(R8), Y13
	VBROADCASTSD 16(R8), Y14
	VMULPD Y9, Y12, Y15
	VADDPD Y15, Y0, Y0
	VMULPD Y9, Y13, Y15
	VADDPD Y15, Y1, Y1
	VMULPD Y9, Y14, Y15
	VADDPD Y15, Y2, Y2
	VMULPD Y10, Y12, Y15
	VADDPD Y15, Y3, Y3
	VMULPD Y10, Y13, Y15
	VADDPD Y15, Y4, Y4
	VMULPD Y10, Y14, Y15
	VADDPD Y15, Y5, Y5
	VMULPD Y11, Y12, Y15
	VADDPD Y15, Y6, Y6
	VMULPD Y11, Y13, Y15
	VADDPD Y15, Y7, Y7
	VMULPD Y11, Y14, Y15
	VADDPD Y15, Y8, Y8
	ADDQ R11, AX
	ADDQ $24, R8
	DECQ R13
	JNZ faq
	VCVTPD2PSY Y0, X0
	VMOVUPS X0, 0(DI)
	VCVTPD2PSY Y1, X1
	VMOVUPS X1, 16(DI)
	VCVTPD2PSY Y2, X2
	VMOVUPS X2, 32(DI)
	VCVTPD2PSY Y3, X3
	VMOVUPS X3, 48(DI)
	VCVTPD2PSY Y4, X4
	VMOVUPS X4, 64(DI)
	VCVTPD2PSY Y5, X5
	VMOVUPS X5, 80(DI)
	VCVTPD2PSY Y6, X6
	VMOVUPS X6, 96(DI)
	VCVTPD2PSY Y7, X7
	VMOVUPS X7, 112(DI)
	VCVTPD2PSY Y8, X8
	VMOVUPS X8, 128(DI)
	ADDQ $144, DI
	ADDQ $16, BX
	ADDQ $16, DX
	DECQ CX
	JNZ fagroup
	VZEROUPPER
	RET

// func filterTransformAVX512(u *float32, stride int, gv *float64, pairs int, gm *float64, a int)
//
// filterTransformAVX2 on two groups of four filters at a time, with the
// same operations in the same order on each filter: the pair's 9 rows
// (each group's row of 4 doubles, the groups 288 bytes apart) in Z16-Z24,
// for each p the three t[p][j] in Z0-Z2, and for each q the pair's eight
// values stored at once at DI. Z13-Z15 hold G[p][0..2] broadcast; Z3-Z5 are
// scratch.
TEXT ·filterTransformAVX512(SB), NOSPLIT, $0-48
	MOVQ u+0(FP), BX
	MOVQ stride+8(FP), R11
	SHLQ $2, R11
	MOVQ gv+16(FP), SI
	MOVQ pairs+24(FP), CX
	MOVQ a+40(FP), R12
ftpair:
	VBROADCASTF64X4 0(SI), Z16
	VINSERTF64X4 $1, 288(SI), Z16, Z16
	VBROADCASTF64X4 32(SI), Z17
	VINSERTF64X4 $1, 320(SI), Z17, Z17
	VBROADCASTF64X4 64(SI), Z18
	VINSERTF64X4 $1, 352(SI), Z18, Z18
	VBROADCASTF64X4 96(SI), Z19
	VINSERTF64X4 $1, 384(SI), Z19, Z19
	VBROADCASTF64X4 128(SI), Z20
	VINSERTF64X4 $1, 416(SI), Z20, Z20
	VBROADCASTF64X4 160(SI), Z21
	VINSERTF64X4 $1, 448(SI), Z21, Z21
	VBROADCASTF64X4 192(SI), Z22
	VINSERTF64X4 $1, 480(SI), Z22, Z22
	VBROADCASTF64X4 224(SI), Z23
	VINSERTF64X4 $1, 512(SI), Z23, Z23
	VBROADCASTF64X4 256(SI), Z24
	VINSERTF64X4 $1, 544(SI), Z24, Z24
	MOVQ gm+32(FP), R8
	MOVQ BX, DI // position (p, 0) of the pair
	MOVQ R12, R13 // p counter
ftpp:
	VBROADCASTSD 0(R8), Z13
	VBROADCASTSD 8(R8), Z14
	VBROADCASTSD 16(R8), Z15
	VMULPD Z16, Z13, Z0
	VMULPD Z19, Z14, Z3
	VADDPD Z3, Z0, Z0
	VMULPD Z22, Z15, Z3
	VADDPD Z3, Z0, Z0
	VMULPD Z17, Z13, Z1
	VMULPD Z20, Z14, Z3
	VADDPD Z3, Z1, Z1
	VMULPD Z23, Z15, Z3
	VADDPD Z3, Z1, Z1
	VMULPD Z18, Z13, Z2
	VMULPD Z21, Z14, Z3
	VADDPD Z3, Z2, Z2
	VMULPD Z24, Z15, Z3
	VADDPD Z3, Z2, Z2
	MOVQ gm+32(FP), R9
	MOVQ R12, R14 // q counter
ftpq:
	VBROADCASTSD 0(R9), Z4
	VMULPD Z0, Z4, Z4
	VBROADCASTSD 8(R9), Z5
	VMULPD Z1, Z5, Z5
	VADDPD Z5, Z4, Z4
	VBROADCASTSD 16(R9), Z5
	VMULPD Z2, Z5, Z5
	VADDPD Z5, Z4, Z4
	VCVTPD2PS Z4, Y4
	PREFETCHT0 128(DI)
	VMOVUPS Y4, (DI)
	ADDQ R11, DI
	ADDQ $24, R9
	DECQ R14
	JNZ ftpq
	ADDQ $24, R8
	DECQ R13
	JNZ ftpp
	ADDQ $32, BX
	ADDQ $576, SI
	DECQ CX
	JNZ ftpair
	VZEROUPPER
	RET

// func filterTransformAdjAVX512(out *float32, du0, du1 *float32, stride, pairs int, gm *float64, a int)
//
// filterTransformAdjAVX2 on two groups of four filters at a time, with the
// same operations in the same order on each filter, in Z registers: the
// partial sums' eight values of a position widened at once, and each of
// the 9 results' eight values split between the two groups (144 bytes
// apart).
TEXT ·filterTransformAdjAVX512(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ du0+8(FP), BX
	MOVQ du1+16(FP), DX
	MOVQ stride+24(FP), R11
	SHLQ $2, R11
	MOVQ pairs+32(FP), CX
	MOVQ a+48(FP), R12
	IMULQ R11, R12 // a*stride bytes: from p to p+1
fappair:
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	MOVQ gm+40(FP), R8
	XORQ AX, AX // q*stride bytes
	MOVQ a+48(FP), R13 // q counter
fapq:
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	LEAQ (BX)(AX*1), SI
	LEAQ (DX)(AX*1), R10
	MOVQ gm+40(FP), R9
	MOVQ a+48(FP), R14 // p counter
fapp:
	VPXORQ Z12, Z12, Z12
	PREFETCHT0 128(SI)
	VCVTPS2PD (SI), Z13
	VADDPD Z13, Z12, Z12
	CMPQ du1+16(FP), $0
	JEQ fapone
	PREFETCHT0 128(R10)
	VCVTPS2PD (R10), Z13
	VADDPD Z13, Z12, Z12
fapone:
	VBROADCASTSD 0(R9), Z13
	VMULPD Z12, Z13, Z13
	VADDPD Z13, Z9, Z9
	VBROADCASTSD 8(R9), Z13
	VMULPD Z12, Z13, Z13
	VADDPD Z13, Z10, Z10
	VBROADCASTSD 16(R9), Z13
	VMULPD Z12, Z13, Z13
	VADDPD Z13, Z11, Z11
	ADDQ R12, SI
	ADDQ R12, R10
	ADDQ $24, R9
	DECQ R14
	JNZ fapp
	VBROADCASTSD 0(R8), Z12
	VBROADCASTSD 8(R8), Z13
	VBROADCASTSD 16(R8), Z14
	VMULPD Z9, Z12, Z15
	VADDPD Z15, Z0, Z0
	VMULPD Z9, Z13, Z15
	VADDPD Z15, Z1, Z1
	VMULPD Z9, Z14, Z15
	VADDPD Z15, Z2, Z2
	VMULPD Z10, Z12, Z15
	VADDPD Z15, Z3, Z3
	VMULPD Z10, Z13, Z15
	VADDPD Z15, Z4, Z4
	VMULPD Z10, Z14, Z15
	VADDPD Z15, Z5, Z5
	VMULPD Z11, Z12, Z15
	VADDPD Z15, Z6, Z6
	VMULPD Z11, Z13, Z15
	VADDPD Z15, Z7, Z7
	VMULPD Z11, Z14, Z15
	VADDPD Z15, Z8, Z8
	ADDQ R11, AX
	ADDQ $24, R8
	DECQ R13
	JNZ fapq
	VCVTPD2PS Z0, Y0
	VMOVUPS X0, 0(DI)
	VEXTRACTF128 $1, Y0, 144(DI)
	VCVTPD2PS Z1, Y1
	VMOVUPS X1, 16(DI)
	VEXTRACTF128 $1, Y1, 160(DI)
	VCVTPD2PS Z2, Y2
	VMOVUPS X2, 32(DI)
	VEXTRACTF128 $1, Y2, 176(DI)
	VCVTPD2PS Z3, Y3
	VMOVUPS X3, 48(DI)
	VEXTRACTF128 $1, Y3, 192(DI)
	VCVTPD2PS Z4, Y4
	VMOVUPS X4, 64(DI)
	VEXTRACTF128 $1, Y4, 208(DI)
	VCVTPD2PS Z5, Y5
	VMOVUPS X5, 80(DI)
	VEXTRACTF128 $1, Y5, 224(DI)
	VCVTPD2PS Z6, Y6
	VMOVUPS X6, 96(DI)
	VEXTRACTF128 $1, Y6, 240(DI)
	VCVTPD2PS Z7, Y7
	VMOVUPS X7, 112(DI)
	VEXTRACTF128 $1, Y7, 256(DI)
	VCVTPD2PS Z8, Y8
	VMOVUPS X8, 128(DI)
	VEXTRACTF128 $1, Y8, 272(DI)
	ADDQ $288, DI
	ADDQ $32, BX
	ADDQ $32, DX
	DECQ CX
	JNZ fappair
	VZEROUPPER
	RET
