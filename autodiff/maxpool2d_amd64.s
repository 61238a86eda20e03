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

// Lanes 0-7 and 8-15, for the masks of maxPool2x2PlanesAVX2.
DATA poolLanes<>+0(SB)/4, $0
DATA poolLanes<>+4(SB)/4, $1
DATA poolLanes<>+8(SB)/4, $2
DATA poolLanes<>+12(SB)/4, $3
DATA poolLanes<>+16(SB)/4, $4
DATA poolLanes<>+20(SB)/4, $5
DATA poolLanes<>+24(SB)/4, $6
DATA poolLanes<>+28(SB)/4, $7
DATA poolLanes<>+32(SB)/4, $8
DATA poolLanes<>+36(SB)/4, $9
DATA poolLanes<>+40(SB)/4, $10
DATA poolLanes<>+44(SB)/4, $11
DATA poolLanes<>+48(SB)/4, $12
DATA poolLanes<>+52(SB)/4, $13
DATA poolLanes<>+56(SB)/4, $14
DATA poolLanes<>+60(SB)/4, $15
GLOBL poolLanes<>(SB), RODATA|NOPTR, $64

// poolNegInf is -Inf.
DATA poolNegInf<>+0(SB)/4, $0xff800000
GLOBL poolNegInf<>(SB), RODATA|NOPTR, $4

// func maxPool2x2PlanesAVX2(src, dst *float32, idx *int32, planes, h, w, oh, ow int) int
//
// Each output row is made from one or two input rows in groups of 8
// windows: the group's 16 input columns of each row are loaded under masks
// (columns past the plane and a missing second row read as -Inf, which never
// beats a value), split into the windows' left and right values and chosen
// as maxPool2x2AVX2 does; the values and offsets go out under a mask of the
// windows that exist. Unordered comparisons are or-ed into Y11, and a plane
// that holds a NaN ends the call before it counts.
//
// Registers: SI, DI, R8 the planes; R11 w, R13 ow; AX planes done; BX the
// output row; DX its first input row, R12 2*row+1; R9, R10 the output rows;
// CX the first window of the group, R14 its input, R15 counts. Y15 -Inf,
// Y14 twice the shuffled window numbers, Y13 1, Y12 w, Y11 NaN flags, Y10
// the group's offsets, Y9 lanes 0-7, Y8 lanes 8-15.
TEXT ·maxPool2x2PlanesAVX2(SB), NOSPLIT, $64-72
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ idx+16(FP), R8
	MOVQ w+40(FP), R11
	MOVQ ow+56(FP), R13
	VBROADCASTSS poolNegInf<>(SB), Y15
	VMOVDQU maxPoolLanes<>(SB), Y14
	VPBROADCASTD maxPoolConsts<>+4(SB), Y13
	VPBROADCASTD w+40(FP), Y12
	VMOVDQU poolLanes<>+0(SB), Y9
	VMOVDQU poolLanes<>+32(SB), Y8
	XORQ AX, AX
plane:
	CMPQ AX, planes+24(FP)
	JGE done
	VXORPS Y11, Y11, Y11
	XORQ BX, BX
row:
	CMPQ BX, oh+48(FP)
	JGE planeend
	MOVQ BX, CX
	IMULQ R11, CX
	SHLQ $1, CX
	LEAQ (SI)(CX*4), DX
	MOVQ BX, R9
	IMULQ R13, R9
	LEAQ (R8)(R9*4), R10
	LEAQ (DI)(R9*4), R9
	LEAQ 1(BX)(BX*1), R12
	XORQ CX, CX
group:
	CMPQ CX, R13
	JGE rowend
	// A last partial group of a row of at least 8 windows moves back to
	// end at the last window, doing some windows twice.
	LEAQ 8(CX), R15
	CMPQ R15, R13
	JLE placed
	CMPQ R13, $8
	JLT placed
	LEAQ -8(R13), CX
placed:
	// Y10: the offsets of the windows' first values, 2*(row*w + j0 + l).
	MOVQ R12, R15
	DECQ R15
	IMULQ R11, R15
	LEAQ (R15)(CX*2), R15
	VMOVD R15, X10
	VPBROADCASTD X10, Y10
	VPADDD Y14, Y10, Y10
	// The group's input columns, w - 2*j0 of them: 16 with plain loads,
	// fewer under masks.
	MOVQ R11, R15
	SUBQ CX, R15
	SUBQ CX, R15
	LEAQ (DX)(CX*8), R14
	CMPQ R15, $16
	JLT masked
	VMOVUPS (R14), Y3
	VMOVUPS 32(R14), Y4
	CMPQ R12, h+32(FP)
	JGE nobottom
	VMOVUPS (R14)(R11*4), Y5
	VMOVUPS 32(R14)(R11*4), Y6
	JMP split
masked:
	VMOVD R15, X0
	VPBROADCASTD X0, Y0
	VPCMPGTD Y9, Y0, Y1
	VPCMPGTD Y8, Y0, Y2
	VMASKMOVPS (R14), Y1, Y3
	VBLENDVPS Y1, Y3, Y15, Y3
	VMASKMOVPS 32(R14), Y2, Y4
	VBLENDVPS Y2, Y4, Y15, Y4
	CMPQ R12, h+32(FP)
	JGE nobottom
	VMASKMOVPS (R14)(R11*4), Y1, Y5
	VBLENDVPS Y1, Y5, Y15, Y5
	VMASKMOVPS 32(R14)(R11*4), Y2, Y6
	VBLENDVPS Y2, Y6, Y15, Y6
	JMP split
nobottom:
	VMOVAPS Y15, Y5
	VMOVAPS Y15, Y6
split:
	// A, B: left and right values of the top row; C, D of the bottom row.
	VSHUFPS $0x88, Y4, Y3, Y0
	VSHUFPS $0xDD, Y4, Y3, Y1
	VSHUFPS $0x88, Y6, Y5, Y2
	VSHUFPS $0xDD, Y6, Y5, Y3
	VCMPPS $3, Y1, Y0, Y4
	VCMPPS $3, Y3, Y2, Y5
	VORPS Y4, Y11, Y11
	VORPS Y5, Y11, Y11
	VCMPPS $0x1e, Y0, Y1, Y4
	VBLENDVPS Y4, Y1, Y0, Y5
	VCMPPS $0x1e, Y2, Y3, Y6
	VBLENDVPS Y6, Y3, Y2, Y7
	VCMPPS $0x1e, Y5, Y7, Y0
	VBLENDVPS Y0, Y7, Y5, Y1
	VPAND Y13, Y4, Y4
	VPAND Y13, Y6, Y6
	VPADDD Y12, Y6, Y6
	VBLENDVPS Y0, Y6, Y4, Y4
	VPADDD Y10, Y4, Y4
	VPERMPD $0xd8, Y1, Y1
	VPERMPD $0xd8, Y4, Y4
	// Store the windows that exist, ow - j0 of them: a whole group with
	// plain stores, a last partial one through the frame (masked stores
	// are slow on the project's AMD machines).
	MOVQ R13, R15
	SUBQ CX, R15
	CMPQ R15, $8
	JLT partial
	VMOVUPS Y1, (R9)(CX*4)
	VMOVDQU Y4, (R10)(CX*4)
	JMP stored
partial:
	VMOVUPS Y1, 0(SP)
	VMOVDQU Y4, 32(SP)
	LEAQ (R9)(CX*4), R14
	LEAQ (R10)(CX*4), R12
copy:
	DECQ R15
	JL copied
	VMOVSS 0(SP)(R15*4), X0
	VMOVSS X0, (R14)(R15*4)
	VMOVSS 32(SP)(R15*4), X0
	VMOVSS X0, (R12)(R15*4)
	JMP copy
copied:
	LEAQ 1(BX)(BX*1), R12
stored:
	ADDQ $8, CX
	JMP group
rowend:
	INCQ BX
	JMP row
planeend:
	VPTEST Y11, Y11
	JNE done
	MOVQ h+32(FP), R14
	IMULQ R11, R14
	LEAQ (SI)(R14*4), SI
	MOVQ oh+48(FP), R14
	IMULQ R13, R14
	LEAQ (DI)(R14*4), DI
	LEAQ (R8)(R14*4), R8
	INCQ AX
	JMP plane
done:
	VZEROUPPER
	MOVQ AX, ret+64(FP)
	RET

// UNPOOL8 writes one group of eight windows: Y0 the positions less each
// window's first (0, 1, w or w+1 for the one chosen), Y1 the values,
// masked by x > 0 when DX (x) is not nil and added to zero; Y4-Y7 the
// value or zero at each of the four positions, interleaved into the rows
// at DI and SI. It reads idx at R8 and the values at BX, and needs Y13 the
// windows' first positions and the constants of UNPOOL8_CONSTS.
// UNPOOL8_CONSTS sets, from Y11 holding w in each lane, the constants
// UNPOOL8 needs: Y15 zero, Y10 ones and Y9 w+1.
#define UNPOOL8_CONSTS \
	VPXOR Y15, Y15, Y15; \
	VPCMPEQD Y10, Y10, Y10; \
	VPSRLD $31, Y10, Y10; \
	VPADDD Y10, Y11, Y9

#define UNPOOL8 \
	VMOVDQU (R8), Y0; \
	VPSUBD Y13, Y0, Y0; \
	VMOVUPS (BX), Y1; \
	TESTQ DX, DX; \
	JEQ unpoolnomask; \
	VMOVUPS (DX), Y2; \
	VCMPPS $0x1e, Y15, Y2, Y3; \
	VANDPS Y3, Y1, Y1; \
unpoolnomask: \
	VADDPS Y15, Y1, Y1; \
	VPCMPEQD Y15, Y0, Y4; \
	VPCMPEQD Y10, Y0, Y5; \
	VPCMPEQD Y11, Y0, Y6; \
	VPCMPEQD Y9, Y0, Y7; \
	VANDPS Y1, Y4, Y4; \
	VANDPS Y1, Y5, Y5; \
	VANDPS Y1, Y6, Y6; \
	VANDPS Y1, Y7, Y7; \
	VUNPCKLPS Y5, Y4, Y8; \
	VUNPCKHPS Y5, Y4, Y3; \
	VPERM2F128 $0x20, Y3, Y8, Y2; \
	VPERM2F128 $0x31, Y3, Y8, Y3; \
	VMOVUPS Y2, 0(DI); \
	VMOVUPS Y3, 32(DI); \
	VUNPCKLPS Y7, Y6, Y8; \
	VUNPCKHPS Y7, Y6, Y3; \
	VPERM2F128 $0x20, Y3, Y8, Y2; \
	VPERM2F128 $0x31, Y3, Y8, Y3; \
	VMOVUPS Y2, 0(SI); \
	VMOVUPS Y3, 32(SI)

// func unpool2x2AVX2(r0, r1, gv, x *float32, idx *int32, groups, off, w int)
//
// UNPOOL8 for each group of eight windows, Y13 holding the windows' first
// positions and Y12 16, their step from one group to the next.
DATA unpoolSteps<>+0(SB)/4, $0
DATA unpoolSteps<>+4(SB)/4, $2
DATA unpoolSteps<>+8(SB)/4, $4
DATA unpoolSteps<>+12(SB)/4, $6
DATA unpoolSteps<>+16(SB)/4, $8
DATA unpoolSteps<>+20(SB)/4, $10
DATA unpoolSteps<>+24(SB)/4, $12
DATA unpoolSteps<>+28(SB)/4, $14
GLOBL unpoolSteps<>(SB), RODATA|NOPTR, $32

TEXT ·unpool2x2AVX2(SB), NOSPLIT, $0-64
	MOVQ r0+0(FP), DI
	MOVQ r1+8(FP), SI
	MOVQ gv+16(FP), BX
	MOVQ x+24(FP), DX
	MOVQ idx+32(FP), R8
	MOVQ groups+40(FP), CX
	VPBROADCASTD off+48(FP), Y13
	VPADDD unpoolSteps<>(SB), Y13, Y13
	VPBROADCASTD w+56(FP), Y11
	UNPOOL8_CONSTS
	VPSLLD $4, Y10, Y12
unpoolloop:
	UNPOOL8
	TESTQ DX, DX
	JEQ unpoolnext
	ADDQ $32, DX
unpoolnext:
	VPADDD Y12, Y13, Y13
	ADDQ $32, R8
	ADDQ $32, BX
	ADDQ $64, DI
	ADDQ $64, SI
	DECQ CX
	JNZ unpoolloop
	VZEROUPPER
	RET

// func unpool2x2PlaneAVX2(d, gv, x *float32, idx *int32, oh, ow, w int)
//
// UNPOOL8, as unpool2x2AVX2 runs it, over a whole plane of 2*oh rows of
// w = 2*ow values (ow at least 8), row pair by row pair: the groups of
// eight windows from the row's first, the last group overlapping the one
// before when ow is not a multiple of eight. Registers: R9 the row pair's first value, R10, R11
// and R12 the row's windows' values, outputs (zero: no mask) and
// positions, R13 ow, R14 the row pairs left, CX the row pair's first
// position, AX the group's first window; DI, SI, BX, DX, R8 and Y13 as in
// unpool2x2AVX2.
TEXT ·unpool2x2PlaneAVX2(SB), NOSPLIT, $0-56
	MOVQ d+0(FP), R9
	MOVQ gv+8(FP), R10
	MOVQ x+16(FP), R11
	MOVQ idx+24(FP), R12
	MOVQ oh+32(FP), R14
	MOVQ ow+40(FP), R13
	VPBROADCASTD w+48(FP), Y11
	UNPOOL8_CONSTS
	XORQ CX, CX
planerow:
	XORQ AX, AX
planegroup:
	LEAQ (R9)(AX*8), DI
	MOVQ w+48(FP), SI
	LEAQ (DI)(SI*4), SI
	LEAQ (R10)(AX*4), BX
	LEAQ (R12)(AX*4), R8
	LEAQ (CX)(AX*2), DX
	MOVQ DX, X13
	VPBROADCASTD X13, Y13
	VPADDD unpoolSteps<>(SB), Y13, Y13
	XORQ DX, DX
	TESTQ R11, R11
	JEQ planenox
	LEAQ (R11)(AX*4), DX
planenox:
	UNPOOL8
	LEAQ -8(R13), BX
	CMPQ AX, BX
	JEQ planenext
	ADDQ $8, AX
	CMPQ AX, BX
	JLE planegroup
	MOVQ BX, AX
	JMP planegroup
planenext:
	MOVQ w+48(FP), SI
	LEAQ (R9)(SI*8), R9
	LEAQ (CX)(SI*2), CX
	LEAQ (R10)(R13*4), R10
	LEAQ (R12)(R13*4), R12
	TESTQ R11, R11
	JEQ planenextx
	LEAQ (R11)(R13*4), R11
planenextx:
	DECQ R14
	JNZ planerow
	VZEROUPPER
	RET
