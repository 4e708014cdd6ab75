#include "textflag.h"

// NEON (with the dot-product extension) integer lanes of the IQ3_S dot
// product; see iq3sLanesSDOT in neon_iq_arm64.go. Instructions Go's
// assembler lacks are written as WORDs, with the instruction in a comment.

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

// IQ3SCHUNK adds to V16 (elements 0..15) and V17 (16..31) the integer
// lanes of one 32-element chunk of an IQ3_S super-block: grid indices at
// R7 (8 bytes), their ninth bits in the byte at R8, signs at R9 (4 bytes),
// activations at R5 (advanced by 32), the odd scale in R15; R4 is the
// grid. Advances R7, R8 and R9. Its WORDs are cmtst v3/v4 (the sign
// masks against v26), sub v0/v1 (negating the magnitudes), movi v7/v8 #0,
// sdot v7/v8 (four products per lane) and mla v16/v17 by v27.s[0] (the
// scale).
#define IQ3SCHUNK \
	MOVBU (R8), R13; \
	MOVBU 0(R7), R11; \
	UBFX $0, R13, $1, R12; \
	ORR R12<<8, R11, R11; \
	MOVWU (R4)(R11<<2), R12; \
	MOVD R12, R20; \
	MOVBU 1(R7), R11; \
	UBFX $1, R13, $1, R12; \
	ORR R12<<8, R11, R11; \
	MOVWU (R4)(R11<<2), R12; \
	ORR R12<<32, R20, R20; \
	MOVBU 2(R7), R11; \
	UBFX $2, R13, $1, R12; \
	ORR R12<<8, R11, R11; \
	MOVWU (R4)(R11<<2), R12; \
	MOVD R12, R21; \
	MOVBU 3(R7), R11; \
	UBFX $3, R13, $1, R12; \
	ORR R12<<8, R11, R11; \
	MOVWU (R4)(R11<<2), R12; \
	ORR R12<<32, R21, R21; \
	MOVBU 4(R7), R11; \
	UBFX $4, R13, $1, R12; \
	ORR R12<<8, R11, R11; \
	MOVWU (R4)(R11<<2), R12; \
	MOVD R12, R22; \
	MOVBU 5(R7), R11; \
	UBFX $5, R13, $1, R12; \
	ORR R12<<8, R11, R11; \
	MOVWU (R4)(R11<<2), R12; \
	ORR R12<<32, R22, R22; \
	MOVBU 6(R7), R11; \
	UBFX $6, R13, $1, R12; \
	ORR R12<<8, R11, R11; \
	MOVWU (R4)(R11<<2), R12; \
	MOVD R12, R23; \
	MOVBU 7(R7), R11; \
	UBFX $7, R13, $1, R12; \
	ORR R12<<8, R11, R11; \
	MOVWU (R4)(R11<<2), R12; \
	ORR R12<<32, R23, R23; \
	VMOV R20, V0.D[0]; \
	VMOV R21, V0.D[1]; \
	VMOV R22, V1.D[0]; \
	VMOV R23, V1.D[1]; \
	MOVWU (R9), R12; \
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
	WORD $0x4f000407; \
	WORD $0x4f000408; \
	WORD $0x4e859407; \
	WORD $0x4e869428; \
	VMOV R15, V27.S[0]; \
	WORD $0x6f9b00f0; \
	WORD $0x6f9b0111; \
	ADD $8, R7; \
	ADD $1, R8; \
	ADD $4, R9

// func iq3sLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint32)
TEXT ·iq3sLanesSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD lanes+24(FP), R3
	MOVD grid+32(FP), R4
	MOVD $iqTblIdx<>(SB), R6
	VLD1 (R6), [V24.B16, V25.B16]
	MOVD $iqBits<>(SB), R6
	VLD1 (R6), [V26.B16]
	CBZ  R2, done

block:
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	ADD  $4, R1, R5
	ADD  $2, R0, R7
	ADD  $66, R0, R8
	ADD  $74, R0, R9
	ADD  $106, R0, R10
	MOVD $4, R16

pair:
	MOVBU (R10), R14
	AND   $15, R14, R15
	LSL   $1, R15, R15
	ADD   $1, R15, R15
	IQ3SCHUNK
	LSR   $4, R14, R15
	LSL   $1, R15, R15
	ADD   $1, R15, R15
	IQ3SCHUNK
	ADD   $1, R10
	SUBS  $1, R16, R16
	BNE   pair

	VST1.P [V16.S4, V17.S4], 32(R3)
	ADD    $110, R0
	ADD    $292, R1
	SUBS   $1, R2, R2
	BNE    block

done:
	RET
