//go:build !purego

#include "textflag.h"

// Lanes 0..r-1 of the eight int32 at addTileMask<>+4*(8-r) are all ones,
// the others zero.
DATA addTileMask<>+0(SB)/8, $-1
DATA addTileMask<>+8(SB)/8, $-1
DATA addTileMask<>+16(SB)/8, $-1
DATA addTileMask<>+24(SB)/8, $-1
DATA addTileMask<>+32(SB)/8, $0
DATA addTileMask<>+40(SB)/8, $0
DATA addTileMask<>+48(SB)/8, $0
DATA addTileMask<>+56(SB)/8, $0
GLOBL addTileMask<>(SB), RODATA|NOPTR, $64

// func addTileAVX2(dst *float32, ldd int, src *float32, lds int, rows, cols int, beta float32)
//
// For each row: eight columns at a time, then the last cols%8 through a
// mask (lanes past cols are neither read nor written). Each value is
// src + (beta*dst), the product rounded, in the MXCSR the caller has.
TEXT ·addTileAVX2(SB), NOSPLIT, $0-52
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	MOVQ rows+32(FP), CX
	MOVQ cols+40(FP), DX
	VBROADCASTSS beta+48(FP), Y15
	MOVQ DX, R10
	ANDQ $-8, R10 // columns in whole vectors
	MOVQ DX, R11
	ANDQ $7, R11 // columns after them
	MOVQ $8, AX
	SUBQ R11, AX
	LEAQ addTileMask<>(SB), BX
	VMOVDQU (BX)(AX*4), Y14 // the mask of the last R11 columns
	TESTQ CX, CX
	JEQ done
row:
	XORQ AX, AX
vec:
	CMPQ AX, R10
	JGE rest
	VMULPS (DI)(AX*4), Y15, Y0
	VMOVUPS (SI)(AX*4), Y1
	VADDPS Y0, Y1, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	JMP vec
rest:
	TESTQ R11, R11
	JEQ next
	LEAQ (DI)(AX*4), BX
	LEAQ (SI)(AX*4), R12
	VMASKMOVPS (BX), Y14, Y0
	VMULPS Y0, Y15, Y0
	VMASKMOVPS (R12), Y14, Y1
	VADDPS Y0, Y1, Y0
	VMASKMOVPS Y0, Y14, (BX)
next:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ row
done:
	VZEROUPPER
	RET
