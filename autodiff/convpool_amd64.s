//go:build !purego

#include "textflag.h"
#include "kernel/transpose_amd64.h"

// Pooling and unpooling in the interleaved layout of the Winograd output
// transforms: lane l of pixel p of a block of eight images lies at
// offset(p) + l. A window table gives for each window k, at 32*k bytes,
// the interleaved offsets of its four values (in row-major order, a
// clipped window repeating them) and then their positions in the plane.
// Eight windows at a time: their eight lanes are pooled in vectors, one a
// window, and transposed to eight runs of the lanes' planes, or the other
// way round.

// poolLanesNegInf is -Inf.
DATA poolLanesNegInf<>+0(SB)/4, $0xff800000
GLOBL poolLanesNegInf<>(SB), RODATA|NOPTR, $4

// POOLSTEP takes value q of window k (at R9) as the window's maximum M,
// position in Y8, when it is greater than M, or a NaN while M is not one:
// the choice of maxWindow. Y9-Y12 are clobbered; AX too.
#define POOLSTEP(k, q, M) \
	MOVL (k*32+q*4)(R9), AX; \
	VMOVUPS (SI)(AX*4), Y9; \
	VCMPPS $7, M, M, Y11; \
	VCMPPS $0x16, M, Y9, Y10; \
	VANDPS Y11, Y10, Y10; \
	VBLENDVPS Y10, Y9, M, M; \
	VPBROADCASTD (k*32+16+q*4)(R9), Y12; \
	VBLENDVPS Y10, Y12, Y8, Y8

// POOLWINDOW sets M to the eight lanes' maxima of window k, zero where
// below Y15 (the ReLU's threshold), and their positions to the frame.
#define POOLWINDOW(k, M) \
	MOVL (k*32)(R9), AX; \
	VMOVUPS (SI)(AX*4), M; \
	VPBROADCASTD (k*32+16)(R9), Y8; \
	POOLSTEP(k, 1, M); \
	POOLSTEP(k, 2, M); \
	POOLSTEP(k, 3, M); \
	VCMPPS $0x11, Y15, M, Y10; \
	VANDNPS M, Y10, M; \
	VMOVDQU Y8, (k*32)(SP)

// The eight lanes' runs start at AX, R10 bytes apart (R11, R12 and R13
// hold 3, 5 and 7 times R10). STORELANES stores column c of the block
// TRANSPOSE8X8 leaves to run c; LOADLANES loads run r into Yr.
#define STORELANES \
	VMOVUPS Y10, (AX); \
	VMOVUPS Y11, (AX)(R10*1); \
	VMOVUPS Y12, (AX)(R10*2); \
	VMOVUPS Y13, (AX)(R11*1); \
	VMOVUPS Y0, (AX)(R10*4); \
	VMOVUPS Y1, (AX)(R12*1); \
	VMOVUPS Y14, (AX)(R11*2); \
	VMOVUPS Y2, (AX)(R13*1)

#define LOADLANES \
	VMOVUPS (AX), Y0; \
	VMOVUPS (AX)(R10*1), Y1; \
	VMOVUPS (AX)(R10*2), Y2; \
	VMOVUPS (AX)(R11*1), Y3; \
	VMOVUPS (AX)(R10*4), Y4; \
	VMOVUPS (AX)(R12*1), Y5; \
	VMOVUPS (AX)(R11*2), Y6; \
	VMOVUPS (AX)(R13*1), Y7

// LANESTRIDES sets R10 to the stride in bytes from R10 in values, and
// R11, R12, R13 to 3, 5 and 7 times it.
#define LANESTRIDES \
	SHLQ $2, R10; \
	LEAQ (R10)(R10*2), R11; \
	LEAQ (R10)(R10*4), R12; \
	LEAQ (R11)(R10*4), R13

// PREFETCHLANES asks for the line at off of each of the eight runs. The
// kernels ask 256 bytes (eight groups) ahead in every run they read or
// write: the runs are planes of eight images, far apart, and a call covers
// one plane of each, so the next call's lines follow.
#define PREFETCHLANES(off) \
	PREFETCHT0 off; \
	PREFETCHT0 off(R10*1); \
	PREFETCHT0 off(R10*2); \
	PREFETCHT0 off(R11*1); \
	PREFETCHT0 off(R10*4); \
	PREFETCHT0 off(R12*1); \
	PREFETCHT0 off(R11*2); \
	PREFETCHT0 off(R13*1)

// func poolLanes2x2AVX2(dst *float32, idx *int32, stride int, src *float32, win *int32, n int, relu int)
//
// Registers: SI src, R8 the table, R9 the group's windows, DI dst, BX idx,
// R10-R13 the lanes' strides, CX the group's first window, DX n, Y15 the
// ReLU's threshold (0, or -Inf without ReLU: nothing is below it).
TEXT ·poolLanes2x2AVX2(SB), NOSPLIT, $256-56
	MOVQ dst+0(FP), DI
	MOVQ idx+8(FP), BX
	MOVQ stride+16(FP), R10
	LANESTRIDES
	MOVQ src+24(FP), SI
	MOVQ win+32(FP), R8
	MOVQ n+40(FP), DX
	VBROADCASTSS poolLanesNegInf<>(SB), Y15
	CMPQ relu+48(FP), $0
	JEQ poolgroups
	VXORPS Y15, Y15, Y15
poolgroups:
	XORQ CX, CX
poolgroup:
	CMPQ CX, DX
	JGE pooldone
	// A last group that would pass n moves back to end at the last
	// window, doing some windows again; R9: the group's windows.
	LEAQ 8(CX), AX
	CMPQ AX, DX
	JLE poolplaced
	LEAQ -8(DX), CX
poolplaced:
	MOVQ CX, AX
	SHLQ $5, AX
	LEAQ (R8)(AX*1), R9
	POOLWINDOW(0, Y0)
	POOLWINDOW(1, Y1)
	POOLWINDOW(2, Y2)
	POOLWINDOW(3, Y3)
	POOLWINDOW(4, Y4)
	POOLWINDOW(5, Y5)
	POOLWINDOW(6, Y6)
	POOLWINDOW(7, Y7)
	TRANSPOSE8X8
	LEAQ (DI)(CX*4), AX
	PREFETCHLANES(256(AX))
	STORELANES
	VMOVDQU 0(SP), Y0
	VMOVDQU 32(SP), Y1
	VMOVDQU 64(SP), Y2
	VMOVDQU 96(SP), Y3
	VMOVDQU 128(SP), Y4
	VMOVDQU 160(SP), Y5
	VMOVDQU 192(SP), Y6
	VMOVDQU 224(SP), Y7
	TRANSPOSE8X8
	LEAQ (BX)(CX*4), AX
	PREFETCHLANES(256(AX))
	STORELANES
	ADDQ $8, CX
	JMP poolgroup
pooldone:
	VZEROUPPER
	RET

// UNPOOLPOS writes value q of window k (at R9): the lanes' values Y3 where
// the position chosen, I, is the value's, zero elsewhere. Y4, Y5 and AX are
// clobbered.
#define UNPOOLPOS(k, q, I) \
	VPBROADCASTD (k*32+16+q*4)(R9), Y4; \
	VPCMPEQD Y4, I, Y5; \
	VANDPS Y3, Y5, Y5; \
	MOVL (k*32+q*4)(R9), AX; \
	VMOVUPS Y5, (DI)(AX*4)

// UNPOOLWINDOW writes the four values of window k, whose lanes' values
// wait in the frame and positions are in I.
#define UNPOOLWINDOW(k, I) \
	VMOVUPS (k*32)(SP), Y3; \
	UNPOOLPOS(k, 0, I); \
	UNPOOLPOS(k, 1, I); \
	UNPOOLPOS(k, 2, I); \
	UNPOOLPOS(k, 3, I)

// MASKLANE masks lane row R by x > 0 (x's row at off(AX)), Y8 clobbered.
#define MASKLANE(off, R) \
	VMOVUPS off, Y8; \
	VCMPPS $0x1e, Y15, Y8, Y8; \
	VANDPS Y8, R, R

// func unpoolLanes2x2AVX2(dst *float32, win *int32, n int, gv, x *float32, idx *int32, stride int)
//
// Registers: DI dst, R8 the table, R9 the group's windows, SI gv, R14 x (or
// 0), BX idx, R10-R13 the lanes' strides, CX the group's first window, DX
// n, Y15 zero.
TEXT ·unpoolLanes2x2AVX2(SB), NOSPLIT, $256-56
	MOVQ dst+0(FP), DI
	MOVQ win+8(FP), R8
	MOVQ n+16(FP), DX
	MOVQ gv+24(FP), SI
	MOVQ x+32(FP), R14
	MOVQ idx+40(FP), BX
	MOVQ stride+48(FP), R10
	LANESTRIDES
	VXORPS Y15, Y15, Y15
	XORQ CX, CX
unpoolgroup:
	CMPQ CX, DX
	JGE unpooldone
	// A last group that would pass n moves back to end at the last
	// window, doing some windows again; R9: the group's windows.
	LEAQ 8(CX), AX
	CMPQ AX, DX
	JLE unpoolplaced
	LEAQ -8(DX), CX
unpoolplaced:
	MOVQ CX, AX
	SHLQ $5, AX
	LEAQ (R8)(AX*1), R9
	// The lanes' values of the group's windows, masked by x > 0 and added
	// to zero, one window a vector in the frame.
	LEAQ (SI)(CX*4), AX
	LOADLANES
	PREFETCHLANES(256(AX))
	LEAQ (BX)(CX*4), AX
	PREFETCHLANES(256(AX))
	TESTQ R14, R14
	JEQ unpoolnomask
	LEAQ (R14)(CX*4), AX
	PREFETCHLANES(256(AX))
	MASKLANE((AX), Y0)
	MASKLANE((AX)(R10*1), Y1)
	MASKLANE((AX)(R10*2), Y2)
	MASKLANE((AX)(R11*1), Y3)
	MASKLANE((AX)(R10*4), Y4)
	MASKLANE((AX)(R12*1), Y5)
	MASKLANE((AX)(R11*2), Y6)
	MASKLANE((AX)(R13*1), Y7)
unpoolnomask:
	VADDPS Y0, Y15, Y0
	VADDPS Y1, Y15, Y1
	VADDPS Y2, Y15, Y2
	VADDPS Y3, Y15, Y3
	VADDPS Y4, Y15, Y4
	VADDPS Y5, Y15, Y5
	VADDPS Y6, Y15, Y6
	VADDPS Y7, Y15, Y7
	TRANSPOSE8X8
	VMOVUPS Y10, 0(SP)
	VMOVUPS Y11, 32(SP)
	VMOVUPS Y12, 64(SP)
	VMOVUPS Y13, 96(SP)
	VMOVUPS Y0, 128(SP)
	VMOVUPS Y1, 160(SP)
	VMOVUPS Y14, 192(SP)
	VMOVUPS Y2, 224(SP)
	// The positions chosen, one window a vector.
	LEAQ (BX)(CX*4), AX
	LOADLANES
	TRANSPOSE8X8
	UNPOOLWINDOW(0, Y10)
	UNPOOLWINDOW(1, Y11)
	UNPOOLWINDOW(2, Y12)
	UNPOOLWINDOW(3, Y13)
	UNPOOLWINDOW(4, Y0)
	UNPOOLWINDOW(5, Y1)
	UNPOOLWINDOW(6, Y14)
	UNPOOLWINDOW(7, Y2)
	ADDQ $8, CX
	JMP unpoolgroup
unpooldone:
	VZEROUPPER
	RET
