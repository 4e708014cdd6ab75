#include "textflag.h"

// The NEON dot product of MXFP4 weights with Q8_0 activations: the IQ4_NL
// kernels' steps (neon_arm64.s) for 17-byte blocks whose scale is an
// E8M0 byte, looked up in a table of half-scales; one block at a time, one
// fused multiply-add per block, as dot32. R0 walks the weights, R1 the
// activations, R5 holds the table of half-scales; V29 the levels, V31
// bytes of 15 and S20 the sum.

// MXLOAD loads a block and its activations: v1 and v2 the levels of its
// low and high nibbles, v3 and v4 the activations, s6 the product of
// the scales.
//	ldrb w6, [x0]
//	ldr s7, [x1]
//	ldur q0, [x0, #1]
//	ldur q3, [x1, #8]
//	ldur q4, [x1, #24]
//	ldr s6, [x5, x6, lsl #2]
//	fmul s6, s6, s7
//	and v1.16b, v0.16b, v31.16b
//	ushr v2.16b, v0.16b, #4
//	tbl v1.16b, {v29.16b}, v1.16b
//	tbl v2.16b, {v29.16b}, v2.16b
#define MXLOAD \
	WORD $0x39400006; \
	WORD $0xbd400027; \
	WORD $0x3cc01000; \
	WORD $0x3cc08023; \
	WORD $0x3cc18024; \
	WORD $0xbc6678a6; \
	WORD $0x1e2708c6; \
	WORD $0x4e3f1c01; \
	WORD $0x6f0c0402; \
	WORD $0x4e0103a1; \
	WORD $0x4e0203a2

// MXSDOT sets v5's four lanes to partial integer dots, with SDOT.
//	movi v5.4s, #0
//	sdot v5.4s, v1.16b, v3.16b
//	sdot v5.4s, v2.16b, v4.16b
#define MXSDOT \
	WORD $0x4f000405; \
	WORD $0x4e839425; \
	WORD $0x4e849445

// MXSMULL is MXSDOT with SMULL/SMLAL2 and pairwise widening adds.
//	smull v5.8h, v1.8b, v3.8b
//	smlal2 v5.8h, v1.16b, v3.16b
//	smull v8.8h, v2.8b, v4.8b
//	smlal2 v8.8h, v2.16b, v4.16b
//	saddlp v5.4s, v5.8h
//	sadalp v5.4s, v8.8h
#define MXSMULL \
	WORD $0x0e23c025; \
	WORD $0x4e238025; \
	WORD $0x0e24c048; \
	WORD $0x4e248048; \
	WORD $0x4e6028a5; \
	WORD $0x4e606905

// MXACC adds v5's lanes, converts the sum and accumulates it, scaled by s6,
// into s20 with one fused multiply-add.
//	addv s5, v5.4s
//	scvtf s5, s5
//	fmadd s20, s5, s6, s20
#define MXACC \
	WORD $0x4eb1b8a5; \
	WORD $0x5e21d8a5; \
	WORD $0x1f0650b4

// func mxfp4Dot(w *byte, x *q8Block, n int, sum *float32, tab *[16]int8, scales *[256]float32, sdot bool)
TEXT ·mxfp4Dot(SB), NOSPLIT, $0-49
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	MOVD scales+40(FP), R5
	MOVBU sdot+48(FP), R6
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x3dc0009d // ldr q29, [x4]
	WORD $0x4f000414 // movi v20.4s, #0
	CBZ R2, mxdone
	CBZ R6, mxneon
mxsdot:
	MXLOAD
	MXSDOT
	MXACC
	ADD $17, R0
	ADD $40, R1
	SUBS $1, R2
	BNE mxsdot
	B mxdone
mxneon:
	MXLOAD
	MXSMULL
	MXACC
	ADD $17, R0
	ADD $40, R1
	SUBS $1, R2
	BNE mxneon
mxdone:
	WORD $0xbd000074 // str s20, [x3]
	RET
