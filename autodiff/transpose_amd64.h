// A copy of autodiff/kernel/transpose_amd64.h for the assembly of this
// package (an #include does not reach another package's directory).

// TRANSPOSE8X8 transposes the 8x8 block of float32 values in Y0-Y7 (row r
// in Yr): unpack pairs of rows, shuffle pairs of pairs, then swap 128-bit
// halves. Column c of the block ends in Y10, Y11, Y12, Y13, Y0, Y1, Y14,
// Y2 for c = 0..7; Y3-Y9 are clobbered.
#define TRANSPOSE8X8 \
	VUNPCKLPS Y1, Y0, Y8; \
	VUNPCKHPS Y1, Y0, Y9; \
	VUNPCKLPS Y3, Y2, Y10; \
	VUNPCKHPS Y3, Y2, Y11; \
	VUNPCKLPS Y5, Y4, Y12; \
	VUNPCKHPS Y5, Y4, Y13; \
	VUNPCKLPS Y7, Y6, Y0; \
	VUNPCKHPS Y7, Y6, Y1; \
	VSHUFPS $0x44, Y10, Y8, Y2; \
	VSHUFPS $0xEE, Y10, Y8, Y3; \
	VSHUFPS $0x44, Y11, Y9, Y4; \
	VSHUFPS $0xEE, Y11, Y9, Y5; \
	VSHUFPS $0x44, Y0, Y12, Y6; \
	VSHUFPS $0xEE, Y0, Y12, Y7; \
	VSHUFPS $0x44, Y1, Y13, Y8; \
	VSHUFPS $0xEE, Y1, Y13, Y9; \
	VPERM2F128 $0x20, Y6, Y2, Y10; \
	VPERM2F128 $0x20, Y7, Y3, Y11; \
	VPERM2F128 $0x20, Y8, Y4, Y12; \
	VPERM2F128 $0x20, Y9, Y5, Y13; \
	VPERM2F128 $0x31, Y6, Y2, Y0; \
	VPERM2F128 $0x31, Y7, Y3, Y1; \
	VPERM2F128 $0x31, Y8, Y4, Y14; \
	VPERM2F128 $0x31, Y9, Y5, Y2
