//go:build amd64 && !purego

#include "textflag.h"

// Each kernel walks its slices with BX as the byte offset and CX counting
// 8-element blocks. Operands are in Go assembler order: VMULPS a, b, d
// computes d = b*a; VSUBPS a, b, d computes d = b-a; VDIVPS a, b, d computes
// d = b/a.

// One Adadelta block: Y5 holds g (with weight decay added), Y6 holds p.
// Y0..Y3 hold lr, rho, 1-rho, eps; Y14 the smallest normal float32. The new
// square_avg (Y8) and acc_delta (Y11) are set to zero where they are below
// Y14 (VCMPPS predicate 5, not-less-than, keeps NaN).
#define ADADELTA_BLOCK \
	VMOVUPS (R8)(BX*1), Y8; \
	VMULPS  Y1, Y8, Y8; \
	VMULPS  Y2, Y5, Y9; \
	VMULPS  Y5, Y9, Y9; \
	VADDPS  Y9, Y8, Y8; \
	VCMPPS  $5, Y14, Y8, Y15; \
	VANDPS  Y15, Y8, Y8; \
	VADDPS  Y3, Y8, Y10; \
	VSQRTPS Y10, Y10; \
	VMOVUPS (R9)(BX*1), Y11; \
	VADDPS  Y3, Y11, Y12; \
	VSQRTPS Y12, Y12; \
	VDIVPS  Y10, Y12, Y12; \
	VMULPS  Y5, Y12, Y12; \
	VMULPS  Y1, Y11, Y11; \
	VMULPS  Y2, Y12, Y13; \
	VMULPS  Y12, Y13, Y13; \
	VADDPS  Y13, Y11, Y11; \
	VCMPPS  $5, Y14, Y11, Y15; \
	VANDPS  Y15, Y11, Y11; \
	VMOVUPS Y11, (R9)(BX*1); \
	VMOVUPS Y8, (R8)(BX*1); \
	VMULPS  Y0, Y12, Y13; \
	VSUBPS  Y13, Y6, Y6; \
	VMOVUPS Y6, (DI)(BX*1)

// func adadeltaAVX2(p, grad, sq, acc *float32, n int, k *[5]float32)
TEXT ·adadeltaAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ sq+16(FP), R8
	MOVQ acc+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ k+40(FP), AX
	VBROADCASTSS 0(AX), Y0
	VBROADCASTSS 4(AX), Y1
	VBROADCASTSS 8(AX), Y2
	VBROADCASTSS 12(AX), Y3
	VBROADCASTSS 16(AX), Y4
	MOVL $0x00800000, R10
	MOVQ R10, X14
	VBROADCASTSS X14, Y14
	SHRQ $3, CX
	XORQ BX, BX
	MOVL 16(AX), DX
	SHLL $1, DX        // drop the sign: zero for +0 and -0
	JZ   adadelta_nowd

adadelta_wd:
	VMOVUPS (SI)(BX*1), Y5
	VMOVUPS (DI)(BX*1), Y6
	VMULPS  Y4, Y6, Y7
	VADDPS  Y7, Y5, Y5
	ADADELTA_BLOCK
	ADDQ $32, BX
	DECQ CX
	JNZ  adadelta_wd
	VZEROUPPER
	RET

adadelta_nowd:
	VMOVUPS (SI)(BX*1), Y5
	VMOVUPS (DI)(BX*1), Y6
	ADADELTA_BLOCK
	ADDQ $32, BX
	DECQ CX
	JNZ  adadelta_nowd
	VZEROUPPER
	RET

// Loads the Adam coefficients: Y0 beta1, Y1 1-beta1, Y2 beta2, Y3 1-beta2,
// Y4 eps, Y5 wd, Y6 decay, Y7 step size, Y8 sqrt(1-beta2^t).
#define ADAM_COEF \
	VBROADCASTSS 0(AX), Y0; \
	VBROADCASTSS 4(AX), Y1; \
	VBROADCASTSS 8(AX), Y2; \
	VBROADCASTSS 12(AX), Y3; \
	VBROADCASTSS 16(AX), Y4; \
	VBROADCASTSS 20(AX), Y5; \
	VBROADCASTSS 24(AX), Y6; \
	VBROADCASTSS 28(AX), Y7; \
	VBROADCASTSS 32(AX), Y8

// Loads g into Y9 and p*decay into Y10, adding wd*p to g first.
#define ADAM_LOAD_WD \
	VMOVUPS (SI)(BX*1), Y9; \
	VMOVUPS (DI)(BX*1), Y10; \
	VMULPS  Y5, Y10, Y11; \
	VADDPS  Y11, Y9, Y9; \
	VMULPS  Y6, Y10, Y10

#define ADAM_LOAD \
	VMOVUPS (SI)(BX*1), Y9; \
	VMOVUPS (DI)(BX*1), Y10; \
	VMULPS  Y6, Y10, Y10

// Updates the moments: m into Y11 and memory, v into Y12 and memory.
#define ADAM_MOMENTS \
	VMOVUPS (R8)(BX*1), Y11; \
	VMULPS  Y0, Y11, Y11; \
	VMULPS  Y1, Y9, Y12; \
	VADDPS  Y12, Y11, Y11; \
	VMOVUPS Y11, (R8)(BX*1); \
	VMOVUPS (R9)(BX*1), Y12; \
	VMULPS  Y2, Y12, Y12; \
	VMULPS  Y3, Y9, Y13; \
	VMULPS  Y9, Y13, Y13; \
	VADDPS  Y13, Y12, Y12; \
	VMOVUPS Y12, (R9)(BX*1)

// Replaces v in Y12 by max(vmax, v) and stores it as the new vmax.
#define ADAM_MAX \
	VMOVUPS (R10)(BX*1), Y13; \
	VMAXPS  Y12, Y13, Y12; \
	VMOVUPS Y12, (R10)(BX*1)

// p = p*decay - ss*(m/(sqrt(v)/bc2+eps)).
#define ADAM_STEP \
	VSQRTPS Y12, Y13; \
	VDIVPS  Y8, Y13, Y13; \
	VADDPS  Y4, Y13, Y13; \
	VDIVPS  Y13, Y11, Y13; \
	VMULPS  Y7, Y13, Y13; \
	VSUBPS  Y13, Y10, Y10; \
	VMOVUPS Y10, (DI)(BX*1)

// func adamAVX2(p, grad, m, v *float32, n int, k *[9]float32)
TEXT ·adamAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ k+40(FP), AX
	ADAM_COEF
	SHRQ $3, CX
	XORQ BX, BX
	MOVL 20(AX), DX
	SHLL $1, DX
	JZ   adam_nowd

adam_wd:
	ADAM_LOAD_WD
	ADAM_MOMENTS
	ADAM_STEP
	ADDQ $32, BX
	DECQ CX
	JNZ  adam_wd
	VZEROUPPER
	RET

adam_nowd:
	ADAM_LOAD
	ADAM_MOMENTS
	ADAM_STEP
	ADDQ $32, BX
	DECQ CX
	JNZ  adam_nowd
	VZEROUPPER
	RET

// func adamAMSGradAVX2(p, grad, m, v, vmax *float32, n int, k *[9]float32)
TEXT ·adamAMSGradAVX2(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ vmax+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ k+48(FP), AX
	ADAM_COEF
	SHRQ $3, CX
	XORQ BX, BX
	MOVL 20(AX), DX
	SHLL $1, DX
	JZ   ams_nowd

ams_wd:
	ADAM_LOAD_WD
	ADAM_MOMENTS
	ADAM_MAX
	ADAM_STEP
	ADDQ $32, BX
	DECQ CX
	JNZ  ams_wd
	VZEROUPPER
	RET

ams_nowd:
	ADAM_LOAD
	ADAM_MOMENTS
	ADAM_MAX
	ADAM_STEP
	ADDQ $32, BX
	DECQ CX
	JNZ  ams_nowd
	VZEROUPPER
	RET

// func sgdAVX2(p, grad, buf *float32, n int, k *[4]float32, mode int)
//
// Y0 lr, Y1 wd, Y2 momentum, Y3 1-dampening; DX the mode bits (1 weight
// decay, 2 momentum, 4 first step, 8 Nesterov). The branches on DX go the
// same way for every block.
TEXT ·sgdAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ buf+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ k+32(FP), AX
	MOVQ mode+40(FP), DX
	VBROADCASTSS 0(AX), Y0
	VBROADCASTSS 4(AX), Y1
	VBROADCASTSS 8(AX), Y2
	VBROADCASTSS 12(AX), Y3
	SHRQ $3, CX
	XORQ BX, BX

sgd_loop:
	VMOVUPS (SI)(BX*1), Y5
	VMOVUPS (DI)(BX*1), Y6
	TESTQ $1, DX
	JZ    sgd_momentum
	VMULPS Y1, Y6, Y7
	VADDPS Y7, Y5, Y5

sgd_momentum:
	TESTQ $2, DX
	JZ    sgd_apply
	TESTQ $4, DX
	JZ    sgd_later
	VMOVAPS Y5, Y8
	JMP   sgd_store

sgd_later:
	VMOVUPS (R8)(BX*1), Y8
	VMULPS  Y2, Y8, Y8
	VMULPS  Y3, Y5, Y9
	VADDPS  Y9, Y8, Y8

sgd_store:
	VMOVUPS Y8, (R8)(BX*1)
	TESTQ $8, DX
	JZ    sgd_heavy
	VMULPS Y2, Y8, Y9
	VADDPS Y9, Y5, Y5
	JMP   sgd_apply

sgd_heavy:
	VMOVAPS Y8, Y5

sgd_apply:
	VMULPS  Y0, Y5, Y9
	VSUBPS  Y9, Y6, Y6
	VMOVUPS Y6, (DI)(BX*1)
	ADDQ $32, BX
	DECQ CX
	JNZ  sgd_loop
	VZEROUPPER
	RET

// func allFiniteAVX2(x *float32, n int) bool
TEXT ·allFiniteAVX2(SB), NOSPLIT, $0-17
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	SHRQ $3, CX
	XORQ BX, BX
	VXORPS Y0, Y0, Y0

finite_loop:
	VMOVUPS (SI)(BX*1), Y1
	VSUBPS  Y1, Y1, Y1
	VORPS   Y1, Y0, Y0
	ADDQ $32, BX
	DECQ CX
	JNZ  finite_loop
	VPTEST Y0, Y0
	SETEQ ret+16(FP)
	VZEROUPPER
	RET
