#include "textflag.h"

// NEON integer lanes of the IQ2 and IQ3 dot products, with the
// dot-product extension (*SDOT) and without (*NEON); see neon_iq_arm64.go. Each kernel takes
// (w *byte, x *q8KBlock, n int, lanes *int32, grid) and writes, per
// super-block, the eight int32 lanes of dotLanesK to lanes. Per chunk of
// 32 elements: the grid magnitudes (looked up in scalar code) go to V0 and
// V1, the 32-bit sign word to R12, the odd scales to V27 (lane 0 for the
// first 16, lane 1 for the second 16), then IQTAIL.
// Instructions Go's assembler lacks are WORDs, each named in a comment.

// iqTblIdx spreads the four bytes of a 32-bit sign word: byte i of the
// first 16 takes byte i/8, of the second 16 byte 2+i/8. iqBits holds bit
// i%8 in byte i.
DATA iqTblIdx<>+0(SB)/8, $0x0000000000000000
DATA iqTblIdx<>+8(SB)/8, $0x0101010101010101
DATA iqTblIdx<>+16(SB)/8, $0x0202020202020202
DATA iqTblIdx<>+24(SB)/8, $0x0303030303030303
GLOBL iqTblIdx<>(SB), RODATA|NOPTR, $32

DATA iqBits<>+0(SB)/8, $0x8040201008040201
DATA iqBits<>+8(SB)/8, $0x8040201008040201
GLOBL iqBits<>(SB), RODATA|NOPTR, $16

// IQBEGIN loads a kernel's arguments (w to R0, x to R1, n to R2, lanes to
// R3, grid to R4) and the sign constants (iqTblIdx to V24, V25, iqBits to
// V26).
#define IQBEGIN \
	MOVD w+0(FP), R0; \
	MOVD x+8(FP), R1; \
	MOVD n+16(FP), R2; \
	MOVD lanes+24(FP), R3; \
	MOVD grid+32(FP), R4; \
	MOVD $iqTblIdx<>(SB), R6; \
	VLD1 (R6), [V24.B16, V25.B16]; \
	MOVD $iqBits<>(SB), R6; \
	VLD1 (R6), [V26.B16]

// IQBLOCK starts a super-block: it clears the integer lanes V16 and V17
// (WORDs: movi #0) and points R5 at the activations.
#define IQBLOCK \
	WORD $0x4f000410; \
	WORD $0x4f000411; \
	ADD $4, R1, R5

// IQNEXT stores a super-block's lanes, steps to the next weight
// super-block (SIZE bytes) and Q8_K block, and loops to L while blocks
// remain.
#define IQNEXT(SIZE, L) \
	VST1.P [V16.S4, V17.S4], 32(R3); \
	ADD $SIZE, R0; \
	ADD $292, R1; \
	SUBS $1, R2, R2; \
	BNE L

// IQTAIL negates the magnitudes in V0, V1 where the sign word R12 has its
// bit set (cmtst against iqBits makes the masks, then (g^m)-m), multiplies
// them with the 32 activations at R5 (advanced by 32) into four-product
// lanes V7 (elements 0..15) and V8 with MUL (SDOTP or MULP), and adds those
// times the scale in V27.S[0] to V16 and times V27.S[1] to V17 (mla by
// element). WORDs: cmtst v3/v4, sub v0/v1, mla v16, mla v17.
#define IQTAIL(MUL) \
	VDUP R12, V2.S4; \
	VTBL V24.B16, [V2.B16], V3.B16; \
	VTBL V25.B16, [V2.B16], V4.B16; \
	WORD $0x4e3a8c63; \
	WORD $0x4e3a8c84; \
	VEOR V3.B16, V0.B16, V0.B16; \
	VEOR V4.B16, V1.B16, V1.B16; \
	WORD $0x6e238400; \
	WORD $0x6e248421; \
	VLD1.P 32(R5), [V5.B16, V6.B16]; \
	MUL; \
	WORD $0x6f9b00f0; \
	WORD $0x6fbb0111

// SDOTP sets V7 and V8 to the four-product lanes of V0·V5 and V1·V6 with
// the dot-product extension. WORDs: movi v7/v8 #0, sdot v7/v8.
#define SDOTP \
	WORD $0x4f000407; \
	WORD $0x4f000408; \
	WORD $0x4e859407; \
	WORD $0x4e869428

// MULP is SDOTP in base NEON: smull/smull2 into 16-bit products, addp of
// neighbours (at most 4·62·128 in magnitude, within 16 bits), then saddlp
// into 32 bits. Uses V9, V10.
#define MULP \
	WORD $0x0e25c009; \
	WORD $0x4e25c00a; \
	WORD $0x4e6abd29; \
	WORD $0x4e602927; \
	WORD $0x0e26c029; \
	WORD $0x4e26c02a; \
	WORD $0x4e6abd29; \
	WORD $0x4e602928

// SPREAD7 leaves in R12 the four 7-bit sign fields at bits 7l of R13,
// field l in byte l. Uses R19.
#define SPREAD7 \
	AND $0x7f, R13, R12; \
	LSL $1, R13, R19; \
	AND $0x7f00, R19, R19; \
	ORR R19, R12, R12; \
	LSL $2, R13, R19; \
	AND $0x7f0000, R19, R19; \
	ORR R19, R12, R12; \
	LSL $3, R13, R19; \
	AND $0x7f000000, R19, R19; \
	ORR R19, R12, R12

// PARITY sets bit 7 of each byte of R12 (whose bit 7 is clear) where the
// byte has an odd number of set bits (quant.IQSigns): the low bit of
// each byte of x ^ x>>4 ^ ... ^ x>>1 is its parity. Uses R19.
#define PARITY \
	EOR R12>>4, R12, R19; \
	EOR R19>>2, R19, R19; \
	EOR R19>>1, R19, R19; \
	AND $0x01010101, R19, R19; \
	ORR R19<<7, R12, R12

// SCALE1 puts the odd scale 2s+1 of the 4-bit field s in the low bits of
// R15 into V27.S[0] and V27.S[1] (both halves of the chunk). Uses R15.
#define SCALE1 \
	AND $15, R15, R15; \
	LSL $1, R15, R15; \
	ADD $1, R15, R15; \
	VMOV R15, V27.S[0]; \
	VMOV R15, V27.S[1]

// SCALE2 puts the odd scales of the nibbles of the byte at R10 into
// V27.S[0] (low nibble) and V27.S[1], and advances R10. Uses R14, R15.
#define SCALE2 \
	MOVBU.P 1(R10), R14; \
	AND $15, R14, R15; \
	LSL $1, R15, R15; \
	ADD $1, R15, R15; \
	VMOV R15, V27.S[0]; \
	LSR $4, R14, R15; \
	LSL $1, R15, R15; \
	ADD $1, R15, R15; \
	VMOV R15, V27.S[1]

// PACK8 runs the lookups L(0) .. L(7), each leaving a 32-bit grid entry
// (four magnitudes) in R12, and gathers them into V0 (entries 0..3) and V1.
// Uses R20..R23.
#define PACK8(L) \
	L(0); \
	MOVD R12, R20; \
	L(1); \
	ORR R12<<32, R20, R20; \
	L(2); \
	MOVD R12, R21; \
	L(3); \
	ORR R12<<32, R21, R21; \
	L(4); \
	MOVD R12, R22; \
	L(5); \
	ORR R12<<32, R22, R22; \
	L(6); \
	MOVD R12, R23; \
	L(7); \
	ORR R12<<32, R23, R23; \
	VMOV R20, V0.D[0]; \
	VMOV R21, V0.D[1]; \
	VMOV R22, V1.D[0]; \
	VMOV R23, V1.D[1]

// PACK4 runs the lookups L(0) .. L(3), each leaving a 64-bit grid entry
// (eight magnitudes) in R12, and gathers them into V0 (entries 0, 1) and
// V1. Uses R20..R23.
#define PACK4(L) \
	L(0); \
	MOVD R12, R20; \
	L(1); \
	MOVD R12, R21; \
	L(2); \
	MOVD R12, R22; \
	L(3); \
	MOVD R12, R23; \
	VMOV R20, V0.D[0]; \
	VMOV R21, V0.D[1]; \
	VMOV R22, V1.D[0]; \
	VMOV R23, V1.D[1]

// G3S looks up IQ3_S grid entry K of a chunk: index byte K at R7, its
// ninth bit bit K of R13.
#define G3S(K) \
	MOVBU K(R7), R11; \
	UBFX $K, R13, $1, R12; \
	ORR R12<<8, R11, R11; \
	MOVWU (R4)(R11<<2), R12

// G3X looks up IQ3_XXS grid entry K of a chunk (index byte K at R7).
#define G3X(K) \
	MOVBU K(R7), R11; \
	MOVWU (R4)(R11<<2), R12

// G2X looks up IQ2_XXS grid entry K of a chunk (index byte K at R7).
#define G2X(K) \
	MOVBU K(R7), R11; \
	MOVD (R4)(R11<<3), R12

// G2S looks up IQ2_S grid entry K of a chunk: index byte K at R7, its
// bits 8 and 9 bits 2K and 2K+1 of R13.
#define G2S(K) \
	MOVBU K(R7), R11; \
	UBFX $(2*K), R13, $2, R12; \
	ORR R12<<8, R11, R11; \
	MOVD (R4)(R11<<3), R12

// AUXTAIL finishes a chunk of IQ3_XXS or IQ2_XXS, whose magnitudes are
// in V0, V1 and whose word of four 7-bit sign fields and 4-bit scale (bits
// 28..31) is in R13, with IQTAIL.
#define AUXTAIL(MUL) \
	SPREAD7; \
	PARITY; \
	LSR $28, R13, R15; \
	SCALE1; \
	IQTAIL(MUL)

// IQ3SCHUNK: one chunk of an IQ3_S super-block: grid indices at R7 (8
// bytes), their ninth bits in the byte at R8, signs at R9 (4 bytes); the
// scale is in V27. R4 is the grid. Advances R7, R8 and R9.
#define IQ3SCHUNK(MUL) \
	MOVBU (R8), R13; \
	PACK8(G3S); \
	MOVWU.P 4(R9), R12; \
	IQTAIL(MUL); \
	ADD $8, R7; \
	ADD $1, R8

// IQ3XXSCHUNK: one chunk of an IQ3_XXS super-block: grid indices at R7
// (8 bytes), the signs and scale word at R9. Advances R7 and R9.
#define IQ3XXSCHUNK(MUL) \
	MOVWU.P 4(R9), R13; \
	PACK8(G3X); \
	AUXTAIL(MUL); \
	ADD $8, R7

// IQ2XXSCHUNK: one chunk of an IQ2_XXS super-block: four grid indices
// then the signs and scale word at R7. Advances R7.
#define IQ2XXSCHUNK(MUL) \
	MOVWU 4(R7), R13; \
	PACK4(G2X); \
	AUXTAIL(MUL); \
	ADD $8, R7

// IQ2XSCHUNK: one chunk of an IQ2_XS super-block: four words of grid
// index and signs at R7, the scales' byte at R10. Advances R7 and R10.
#define IQ2XSCHUNK(MUL) \
	MOVHU 0(R7), R11; \
	AND $511, R11, R14; \
	MOVD (R4)(R14<<3), R20; \
	LSR $9, R11, R14; \
	MOVD R14, R12; \
	MOVHU 2(R7), R11; \
	AND $511, R11, R14; \
	MOVD (R4)(R14<<3), R21; \
	LSR $9, R11, R14; \
	ORR R14<<8, R12, R12; \
	MOVHU 4(R7), R11; \
	AND $511, R11, R14; \
	MOVD (R4)(R14<<3), R22; \
	LSR $9, R11, R14; \
	ORR R14<<16, R12, R12; \
	MOVHU 6(R7), R11; \
	AND $511, R11, R14; \
	MOVD (R4)(R14<<3), R23; \
	LSR $9, R11, R14; \
	ORR R14<<24, R12, R12; \
	VMOV R20, V0.D[0]; \
	VMOV R21, V0.D[1]; \
	VMOV R22, V1.D[0]; \
	VMOV R23, V1.D[1]; \
	PARITY; \
	SCALE2; \
	IQTAIL(MUL); \
	ADD $8, R7

// IQ2SCHUNK: one chunk of an IQ2_S super-block: the low bytes of four
// grid indices at R7, their high bits in the byte at R8, signs at R9, the
// scales' byte at R10. Advances R7, R8, R9 and R10.
#define IQ2SCHUNK(MUL) \
	MOVBU (R8), R13; \
	PACK4(G2S); \
	MOVWU.P 4(R9), R12; \
	SCALE2; \
	IQTAIL(MUL); \
	ADD $4, R7; \
	ADD $1, R8

// func iq3sLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint64)
TEXT ·iq3sLanesSDOT(SB), NOSPLIT, $0-40
	IQBEGIN
	CBZ  R2, iq3sLanesSDOT_done

iq3sLanesSDOT_block:
	IQBLOCK
	ADD  $2, R0, R7
	ADD  $66, R0, R8
	ADD  $74, R0, R9
	ADD  $106, R0, R10
	MOVD $4, R16
	iq3sLanesSDOT_pair:
	MOVBU.P 1(R10), R15
	SCALE1
	IQ3SCHUNK(SDOTP)
	MOVBU -1(R10), R15
	LSR $4, R15, R15
	SCALE1
	IQ3SCHUNK(SDOTP)
	SUBS $1, R16, R16
	BNE iq3sLanesSDOT_pair
	IQNEXT(110, iq3sLanesSDOT_block)

iq3sLanesSDOT_done:
	RET

// func iq3xxsLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint64)
TEXT ·iq3xxsLanesSDOT(SB), NOSPLIT, $0-40
	IQBEGIN
	CBZ  R2, iq3xxsLanesSDOT_done

iq3xxsLanesSDOT_block:
	IQBLOCK
	ADD  $2, R0, R7
	ADD  $66, R0, R9
	MOVD $8, R16
	iq3xxsLanesSDOT_chunk:
	IQ3XXSCHUNK(SDOTP)
	SUBS $1, R16, R16
	BNE iq3xxsLanesSDOT_chunk
	IQNEXT(98, iq3xxsLanesSDOT_block)

iq3xxsLanesSDOT_done:
	RET

// func iq2xxsLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint64)
TEXT ·iq2xxsLanesSDOT(SB), NOSPLIT, $0-40
	IQBEGIN
	CBZ  R2, iq2xxsLanesSDOT_done

iq2xxsLanesSDOT_block:
	IQBLOCK
	ADD  $2, R0, R7
	MOVD $8, R16
	iq2xxsLanesSDOT_chunk:
	IQ2XXSCHUNK(SDOTP)
	SUBS $1, R16, R16
	BNE iq2xxsLanesSDOT_chunk
	IQNEXT(66, iq2xxsLanesSDOT_block)

iq2xxsLanesSDOT_done:
	RET

// func iq2xsLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint64)
TEXT ·iq2xsLanesSDOT(SB), NOSPLIT, $0-40
	IQBEGIN
	CBZ  R2, iq2xsLanesSDOT_done

iq2xsLanesSDOT_block:
	IQBLOCK
	ADD  $2, R0, R7
	ADD  $66, R0, R10
	MOVD $8, R16
	iq2xsLanesSDOT_chunk:
	IQ2XSCHUNK(SDOTP)
	SUBS $1, R16, R16
	BNE iq2xsLanesSDOT_chunk
	IQNEXT(74, iq2xsLanesSDOT_block)

iq2xsLanesSDOT_done:
	RET

// func iq2sLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint64)
TEXT ·iq2sLanesSDOT(SB), NOSPLIT, $0-40
	IQBEGIN
	CBZ  R2, iq2sLanesSDOT_done

iq2sLanesSDOT_block:
	IQBLOCK
	ADD  $2, R0, R7
	ADD  $34, R0, R9
	ADD  $66, R0, R8
	ADD  $74, R0, R10
	MOVD $8, R16
	iq2sLanesSDOT_chunk:
	IQ2SCHUNK(SDOTP)
	SUBS $1, R16, R16
	BNE iq2sLanesSDOT_chunk
	IQNEXT(82, iq2sLanesSDOT_block)

iq2sLanesSDOT_done:
	RET

// func iq3sLanesNEON(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint64)
TEXT ·iq3sLanesNEON(SB), NOSPLIT, $0-40
	IQBEGIN
	CBZ  R2, iq3sLanesNEON_done

iq3sLanesNEON_block:
	IQBLOCK
	ADD  $2, R0, R7
	ADD  $66, R0, R8
	ADD  $74, R0, R9
	ADD  $106, R0, R10
	MOVD $4, R16
	iq3sLanesNEON_pair:
	MOVBU.P 1(R10), R15
	SCALE1
	IQ3SCHUNK(MULP)
	MOVBU -1(R10), R15
	LSR $4, R15, R15
	SCALE1
	IQ3SCHUNK(MULP)
	SUBS $1, R16, R16
	BNE iq3sLanesNEON_pair
	IQNEXT(110, iq3sLanesNEON_block)

iq3sLanesNEON_done:
	RET

// func iq3xxsLanesNEON(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint64)
TEXT ·iq3xxsLanesNEON(SB), NOSPLIT, $0-40
	IQBEGIN
	CBZ  R2, iq3xxsLanesNEON_done

iq3xxsLanesNEON_block:
	IQBLOCK
	ADD  $2, R0, R7
	ADD  $66, R0, R9
	MOVD $8, R16
	iq3xxsLanesNEON_chunk:
	IQ3XXSCHUNK(MULP)
	SUBS $1, R16, R16
	BNE iq3xxsLanesNEON_chunk
	IQNEXT(98, iq3xxsLanesNEON_block)

iq3xxsLanesNEON_done:
	RET

// func iq2xxsLanesNEON(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint64)
TEXT ·iq2xxsLanesNEON(SB), NOSPLIT, $0-40
	IQBEGIN
	CBZ  R2, iq2xxsLanesNEON_done

iq2xxsLanesNEON_block:
	IQBLOCK
	ADD  $2, R0, R7
	MOVD $8, R16
	iq2xxsLanesNEON_chunk:
	IQ2XXSCHUNK(MULP)
	SUBS $1, R16, R16
	BNE iq2xxsLanesNEON_chunk
	IQNEXT(66, iq2xxsLanesNEON_block)

iq2xxsLanesNEON_done:
	RET

// func iq2xsLanesNEON(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint64)
TEXT ·iq2xsLanesNEON(SB), NOSPLIT, $0-40
	IQBEGIN
	CBZ  R2, iq2xsLanesNEON_done

iq2xsLanesNEON_block:
	IQBLOCK
	ADD  $2, R0, R7
	ADD  $66, R0, R10
	MOVD $8, R16
	iq2xsLanesNEON_chunk:
	IQ2XSCHUNK(MULP)
	SUBS $1, R16, R16
	BNE iq2xsLanesNEON_chunk
	IQNEXT(74, iq2xsLanesNEON_block)

iq2xsLanesNEON_done:
	RET

// func iq2sLanesNEON(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint64)
TEXT ·iq2sLanesNEON(SB), NOSPLIT, $0-40
	IQBEGIN
	CBZ  R2, iq2sLanesNEON_done

iq2sLanesNEON_block:
	IQBLOCK
	ADD  $2, R0, R7
	ADD  $34, R0, R9
	ADD  $66, R0, R8
	ADD  $74, R0, R10
	MOVD $8, R16
	iq2sLanesNEON_chunk:
	IQ2SCHUNK(MULP)
	SUBS $1, R16, R16
	BNE iq2sLanesNEON_chunk
	IQNEXT(82, iq2sLanesNEON_block)

iq2sLanesNEON_done:
	RET
