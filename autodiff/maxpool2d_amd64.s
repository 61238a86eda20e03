//go:build !purego

#include "textflag.h"

// Window numbers held by the lanes of the vectors that VSHUFPS makes from
// sixteen values of a row, times two (the offset of the window's first
// column): lanes hold windows 0 1 4 5 | 2 3 6 7 until VPERMPD $0xD8 puts
// them in order.
DATA maxPoolLanes<>+0(SB)/4, $0
DATA maxPoolLanes<>+4(SB)/4, $2
DATA maxPoolLanes<>+8(SB)/4, $8
DATA maxPoolLanes<>+12(SB)/4, $10
DATA maxPoolLanes<>+16(SB)/4, $4
DATA maxPoolLanes<>+20(SB)/4, $6
DATA maxPoolLanes<>+24(SB)/4, $12
DATA maxPoolLanes<>+28(SB)/4, $14
GLOBL maxPoolLanes<>(SB), RODATA|NOPTR, $32

// maxPoolConsts: 16 (the step of the window positions per group) and 1.
DATA maxPoolConsts<>+0(SB)/4, $16
DATA maxPoolConsts<>+4(SB)/4, $1
GLOBL maxPoolConsts<>(SB), RODATA|NOPTR, $8

// func maxPool2x2AVX2(r0, r1, dst *float32, di *int32, groups, off, w int) int
TEXT ·maxPool2x2AVX2(SB), NOSPLIT, $0-64
	MOVQ r0+0(FP), SI
	MOVQ r1+8(FP), DX
	MOVQ dst+16(FP), DI
	MOVQ di+24(FP), R8
	MOVQ groups+32(FP), CX

	// Y14: the positions of the windows' first values, off + 2*window.
	// Y13: 16, the step of Y14; Y12: 1; Y11: w. The integers are broadcast
	// from memory (the low halves of off and w) rather than moved in from
	// general registers: a legacy-SSE MOVQ into X0 once the upper halves of
	// the vector registers are in use costs a state transition, which on
	// the project's machines takes hundreds of cycles.
	VMOVDQU maxPoolLanes<>(SB), Y14
	VPBROADCASTD off+40(FP), Y0
	VPADDD Y0, Y14, Y14
	VPBROADCASTD maxPoolConsts<>+0(SB), Y13
	VPBROADCASTD maxPoolConsts<>+4(SB), Y12
	VPBROADCASTD w+48(FP), Y11

	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE done
	// A, B: the left and right values of the windows' top row.
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VSHUFPS $0x88, Y1, Y0, Y2
	VSHUFPS $0xDD, Y1, Y0, Y3
	// C, D: the same in the bottom row.
	VMOVUPS 0(DX), Y0
	VMOVUPS 32(DX), Y1
	VSHUFPS $0x88, Y1, Y0, Y4
	VSHUFPS $0xDD, Y1, Y0, Y5
	// Any NaN: leave the group to the Go code.
	VCMPPS $3, Y3, Y2, Y6
	VCMPPS $3, Y5, Y4, Y7
	VORPS Y7, Y6, Y6
	VPTEST Y6, Y6
	JNE done
	// top = B > A ? B : A; bottom = D > C ? D : C; the window's value is
	// bottom > top ? bottom : top, the first maximum in row-major order.
	VCMPPS $0x1e, Y2, Y3, Y6
	VBLENDVPS Y6, Y3, Y2, Y7
	VCMPPS $0x1e, Y4, Y5, Y8
	VBLENDVPS Y8, Y5, Y4, Y9
	VCMPPS $0x1e, Y7, Y9, Y0
	VBLENDVPS Y0, Y9, Y7, Y1
	// The offsets of the values chosen from the window's first: 0 or 1 in
	// the top row, w or w+1 in the bottom one.
	VPAND Y12, Y6, Y6
	VPAND Y12, Y8, Y8
	VPADDD Y11, Y8, Y8
	VBLENDVPS Y0, Y8, Y6, Y6
	VPADDD Y14, Y6, Y6
	VPADDD Y13, Y14, Y14
	VPERMPD $0xd8, Y1, Y1
	VPERMPD $0xd8, Y6, Y6
	VMOVUPS Y1, 0(DI)
	VMOVDQU Y6, 0(R8)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $32, DI
	ADDQ $32, R8
	INCQ AX
	JMP loop

done:
	VZEROUPPER
	SHLQ $3, AX
	MOVQ AX, ret+56(FP)
	RET

// func maxPool2x2AVX4(r0, r1, dst *float32, di *int32, off, w int) int
TEXT ·maxPool2x2AVX4(SB), NOSPLIT, $0-56
	MOVQ r0+0(FP), SI
	MOVQ r1+8(FP), DX
	MOVQ dst+16(FP), DI
	MOVQ di+24(FP), R8
	MOVQ $0, ret+48(FP)

	// A, B: the left and right values of the windows' top row, in order.
	VMOVUPS 0(SI), X0
	VMOVUPS 16(SI), X1
	VSHUFPS $0x88, X1, X0, X2
	VSHUFPS $0xDD, X1, X0, X3
	// C, D: the same in the bottom row.
	VMOVUPS 0(DX), X0
	VMOVUPS 16(DX), X1
	VSHUFPS $0x88, X1, X0, X4
	VSHUFPS $0xDD, X1, X0, X5
	VCMPPS $3, X3, X2, X6
	VCMPPS $3, X5, X4, X7
	VORPS X7, X6, X6
	VPTEST X6, X6
	JNE nan
	VCMPPS $0x1e, X2, X3, X6
	VBLENDVPS X6, X3, X2, X7
	VCMPPS $0x1e, X4, X5, X8
	VBLENDVPS X8, X5, X4, X9
	VCMPPS $0x1e, X7, X9, X0
	VBLENDVPS X0, X9, X7, X1
	// Offsets as in maxPool2x2AVX2, plus off + 2*window.
	VPBROADCASTD maxPoolConsts<>+4(SB), X10
	VPAND X10, X6, X6
	VPAND X10, X8, X8
	VPBROADCASTD w+40(FP), X11
	VPADDD X11, X8, X8
	VBLENDVPS X0, X8, X6, X6
	VPBROADCASTD off+32(FP), X12
	VPADDD maxPoolLanes4<>(SB), X12, X12
	VPADDD X12, X6, X6
	VMOVUPS X1, 0(DI)
	VMOVDQU X6, 0(R8)
	MOVQ $4, ret+48(FP)

nan:
	RET

DATA maxPoolLanes4<>+0(SB)/4, $0
DATA maxPoolLanes4<>+4(SB)/4, $2
DATA maxPoolLanes4<>+8(SB)/4, $4
DATA maxPoolLanes4<>+12(SB)/4, $6
GLOBL maxPoolLanes4<>(SB), RODATA|NOPTR, $16
