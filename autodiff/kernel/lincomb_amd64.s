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
