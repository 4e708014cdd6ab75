#include "textflag.h"

// The NEON dot products of MXFP4 weights with Q8_0 activations: the
// IQ4_NL kernels (neon_arm64.s) for 17-byte blocks whose scale is the
// E8M0 byte, looked up in a table of half-scales. One fused multiply-add
// per block, as dot32.

// mxfp4DotSDOT(w *byte, x *q8Block, n int, sum *float32, tab *[16]int8, scales *[256]float32)
TEXT ·mxfp4DotSDOT(SB), NOSPLIT, $0-48
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	MOVD scales+40(FP), R5
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x3dc0009d // ldr q29, [x4]
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R7
	CBZ R7, mxfp4DotSDOT_tail
mxfp4DotSDOT_loop:
	WORD $0x39400006 // ldrb w6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc01000 // ldur q0, [x0, #1]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0xbc6678a6 // ldr s6, [x5, x6, lsl #2]
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e849445 // sdot v5.4s, v2.16b, v4.16b
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	WORD $0x39404406 // ldrb w6, [x0, #17]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x3cc12000 // ldur q0, [x0, #18]
	WORD $0x3cc30023 // ldur q3, [x1, #48]
	WORD $0x3cc40024 // ldur q4, [x1, #64]
	WORD $0xbc6678a6 // ldr s6, [x5, x6, lsl #2]
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e849445 // sdot v5.4s, v2.16b, v4.16b
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	ADD $34, R0
	ADD $80, R1
	SUBS $1, R7
	BNE mxfp4DotSDOT_loop
mxfp4DotSDOT_tail:
	TBZ $0, R2, mxfp4DotSDOT_done
	WORD $0x39400006 // ldrb w6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc01000 // ldur q0, [x0, #1]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0xbc6678a6 // ldr s6, [x5, x6, lsl #2]
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4e839425 // sdot v5.4s, v1.16b, v3.16b
	WORD $0x4e849445 // sdot v5.4s, v2.16b, v4.16b
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
mxfp4DotSDOT_done:
	WORD $0xbd000074 // str s20, [x3]
	RET

// mxfp4DotNEON(w *byte, x *q8Block, n int, sum *float32, tab *[16]int8, scales *[256]float32)
TEXT ·mxfp4DotNEON(SB), NOSPLIT, $0-48
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD sum+24(FP), R3
	MOVD tab+32(FP), R4
	MOVD scales+40(FP), R5
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x3dc0009d // ldr q29, [x4]
	WORD $0x4f000414 // movi v20.4s, #0
	LSR $1, R2, R7
	CBZ R7, mxfp4DotNEON_tail
mxfp4DotNEON_loop:
	WORD $0x39400006 // ldrb w6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc01000 // ldur q0, [x0, #1]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0xbc6678a6 // ldr s6, [x5, x6, lsl #2]
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x0e23c025 // smull v5.8h, v1.8b, v3.8b
	WORD $0x4e238025 // smlal2 v5.8h, v1.16b, v3.16b
	WORD $0x0e24c048 // smull v8.8h, v2.8b, v4.8b
	WORD $0x4e248048 // smlal2 v8.8h, v2.16b, v4.16b
	WORD $0x4e6028a5 // saddlp v5.4s, v5.8h
	WORD $0x4e606905 // sadalp v5.4s, v8.8h
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	WORD $0x39404406 // ldrb w6, [x0, #17]
	WORD $0xbd402827 // ldr s7, [x1, #40]
	WORD $0x3cc12000 // ldur q0, [x0, #18]
	WORD $0x3cc30023 // ldur q3, [x1, #48]
	WORD $0x3cc40024 // ldur q4, [x1, #64]
	WORD $0xbc6678a6 // ldr s6, [x5, x6, lsl #2]
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x0e23c025 // smull v5.8h, v1.8b, v3.8b
	WORD $0x4e238025 // smlal2 v5.8h, v1.16b, v3.16b
	WORD $0x0e24c048 // smull v8.8h, v2.8b, v4.8b
	WORD $0x4e248048 // smlal2 v8.8h, v2.16b, v4.16b
	WORD $0x4e6028a5 // saddlp v5.4s, v5.8h
	WORD $0x4e606905 // sadalp v5.4s, v8.8h
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
	ADD $34, R0
	ADD $80, R1
	SUBS $1, R7
	BNE mxfp4DotNEON_loop
mxfp4DotNEON_tail:
	TBZ $0, R2, mxfp4DotNEON_done
	WORD $0x39400006 // ldrb w6, [x0, #0]
	WORD $0xbd400027 // ldr s7, [x1, #0]
	WORD $0x3cc01000 // ldur q0, [x0, #1]
	WORD $0x3cc08023 // ldur q3, [x1, #8]
	WORD $0x3cc18024 // ldur q4, [x1, #24]
	WORD $0xbc6678a6 // ldr s6, [x5, x6, lsl #2]
	WORD $0x1e2708c6 // fmul s6, s6, s7
	WORD $0x4e3f1c01 // and v1.16b, v0.16b, v31.16b
	WORD $0x6f0c0402 // ushr v2.16b, v0.16b, #4
	WORD $0x4e0103a1 // tbl v1.16b, {v29.16b}, v1.16b
	WORD $0x4e0203a2 // tbl v2.16b, {v29.16b}, v2.16b
	WORD $0x0e23c025 // smull v5.8h, v1.8b, v3.8b
	WORD $0x4e238025 // smlal2 v5.8h, v1.16b, v3.16b
	WORD $0x0e24c048 // smull v8.8h, v2.8b, v4.8b
	WORD $0x4e248048 // smlal2 v8.8h, v2.16b, v4.16b
	WORD $0x4e6028a5 // saddlp v5.4s, v5.8h
	WORD $0x4e606905 // sadalp v5.4s, v8.8h
	WORD $0x4eb1b8a5 // addv s5, v5.4s
	WORD $0x5e21d8a5 // scvtf s5, s5
	WORD $0x1f0650b4 // fmadd s20, s5, s6, s20
mxfp4DotNEON_done:
	WORD $0xbd000074 // str s20, [x3]
	RET
