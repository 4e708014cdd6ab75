#include "textflag.h"

// The SDOT tile kernels (neon_gemv_arm64.go says what each computes). As
// in neon_arm64.s, each NEON instruction is a WORD with its ARM syntax in
// the comment (encodings from llvm-mc -triple=aarch64 -mattr=+dotprod).
// Registers: x0-x9 and v0-v31 are scratch.

// tileQ80x1SDOT(w *byte, wstride int, x *q8Block, xstride int, n int, res *[4][8]float32)
//
// Weight rows 0-3 in x0-x3, activation rows in x4-x4, blocks left in x8.
// Output (i, j) keeps its eight lanes in v[2o], v[2o+1], o = 1·i+j; per
// block v16-v17 hold the activation rows' quants, v24-v25 one weight
// row's, v22-v22 the scales d_i·xd_j by activation row.
TEXT ·tileQ80x1SDOT(SB), NOSPLIT, $0-48
	MOVD w+0(FP), R0
	MOVD wstride+8(FP), R10
	MOVD x+16(FP), R4
	MOVD xstride+24(FP), R11
	MOVD n+32(FP), R8
	MOVD res+40(FP), R9
	ADD R10, R0, R1
	ADD R10, R1, R2
	ADD R10, R2, R3
	WORD $0x4f000400 // movi v0.4s, #0
	WORD $0x4f000401 // movi v1.4s, #0
	WORD $0x4f000402 // movi v2.4s, #0
	WORD $0x4f000403 // movi v3.4s, #0
	WORD $0x4f000404 // movi v4.4s, #0
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4f000406 // movi v6.4s, #0
	WORD $0x4f000407 // movi v7.4s, #0
tileQ80x1SDOT_loop:
	WORD $0x0d404014 // ld1 {v20.h}[0], [x0]
	WORD $0x0d404834 // ld1 {v20.h}[1], [x1]
	WORD $0x0d405054 // ld1 {v20.h}[2], [x2]
	WORD $0x0d405874 // ld1 {v20.h}[3], [x3]
	WORD $0x0d408095 // ld1 {v21.s}[0], [x4]
	WORD $0x3cc08090 // ldur q16, [x4, #8]
	WORD $0x3cc18091 // ldur q17, [x4, #24]
	WORD $0x0e217a94 // fcvtl v20.4s, v20.4h
	WORD $0x4f959296 // fmul v22.4s, v20.4s, v21.s[0]
	WORD $0x3cc02018 // ldur q24, [x0, #2]
	WORD $0x3cc12019 // ldur q25, [x0, #18]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973b // sdot v27.4s, v25.16b, v17.16b
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x4e21db7b // scvtf v27.4s, v27.4s
	WORD $0x4f961340 // fmla v0.4s, v26.4s, v22.s[0]
	WORD $0x4f961361 // fmla v1.4s, v27.4s, v22.s[0]
	WORD $0x3cc02038 // ldur q24, [x1, #2]
	WORD $0x3cc12039 // ldur q25, [x1, #18]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973b // sdot v27.4s, v25.16b, v17.16b
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x4e21db7b // scvtf v27.4s, v27.4s
	WORD $0x4fb61342 // fmla v2.4s, v26.4s, v22.s[1]
	WORD $0x4fb61363 // fmla v3.4s, v27.4s, v22.s[1]
	WORD $0x3cc02058 // ldur q24, [x2, #2]
	WORD $0x3cc12059 // ldur q25, [x2, #18]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973b // sdot v27.4s, v25.16b, v17.16b
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x4e21db7b // scvtf v27.4s, v27.4s
	WORD $0x4f961b44 // fmla v4.4s, v26.4s, v22.s[2]
	WORD $0x4f961b65 // fmla v5.4s, v27.4s, v22.s[2]
	WORD $0x3cc02078 // ldur q24, [x3, #2]
	WORD $0x3cc12079 // ldur q25, [x3, #18]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973b // sdot v27.4s, v25.16b, v17.16b
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x4e21db7b // scvtf v27.4s, v27.4s
	WORD $0x4fb61b46 // fmla v6.4s, v26.4s, v22.s[3]
	WORD $0x4fb61b67 // fmla v7.4s, v27.4s, v22.s[3]
	ADD $34, R0
	ADD $34, R1
	ADD $34, R2
	ADD $34, R3
	ADD $40, R4
	SUBS $1, R8
	BNE tileQ80x1SDOT_loop
	WORD $0xad000520 // stp q0, q1, [x9, #0]
	WORD $0xad010d22 // stp q2, q3, [x9, #32]
	WORD $0xad021524 // stp q4, q5, [x9, #64]
	WORD $0xad031d26 // stp q6, q7, [x9, #96]
	RET

// tileQ80x2SDOT(w *byte, wstride int, x *q8Block, xstride int, n int, res *[8][8]float32)
//
// Weight rows 0-3 in x0-x3, activation rows in x4-x5, blocks left in x8.
// Output (i, j) keeps its eight lanes in v[2o], v[2o+1], o = 2·i+j; per
// block v16-v19 hold the activation rows' quants, v24-v25 one weight
// row's, v22-v23 the scales d_i·xd_j by activation row.
TEXT ·tileQ80x2SDOT(SB), NOSPLIT, $0-48
	MOVD w+0(FP), R0
	MOVD wstride+8(FP), R10
	MOVD x+16(FP), R4
	MOVD xstride+24(FP), R11
	MOVD n+32(FP), R8
	MOVD res+40(FP), R9
	ADD R10, R0, R1
	ADD R10, R1, R2
	ADD R10, R2, R3
	ADD R11, R4, R5
	WORD $0x4f000400 // movi v0.4s, #0
	WORD $0x4f000401 // movi v1.4s, #0
	WORD $0x4f000402 // movi v2.4s, #0
	WORD $0x4f000403 // movi v3.4s, #0
	WORD $0x4f000404 // movi v4.4s, #0
	WORD $0x4f000405 // movi v5.4s, #0
	WORD $0x4f000406 // movi v6.4s, #0
	WORD $0x4f000407 // movi v7.4s, #0
	WORD $0x4f000408 // movi v8.4s, #0
	WORD $0x4f000409 // movi v9.4s, #0
	WORD $0x4f00040a // movi v10.4s, #0
	WORD $0x4f00040b // movi v11.4s, #0
	WORD $0x4f00040c // movi v12.4s, #0
	WORD $0x4f00040d // movi v13.4s, #0
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4f00040f // movi v15.4s, #0
tileQ80x2SDOT_loop:
	WORD $0x0d404014 // ld1 {v20.h}[0], [x0]
	WORD $0x0d404834 // ld1 {v20.h}[1], [x1]
	WORD $0x0d405054 // ld1 {v20.h}[2], [x2]
	WORD $0x0d405874 // ld1 {v20.h}[3], [x3]
	WORD $0x0d408095 // ld1 {v21.s}[0], [x4]
	WORD $0x3cc08090 // ldur q16, [x4, #8]
	WORD $0x3cc18091 // ldur q17, [x4, #24]
	WORD $0x0d4090b5 // ld1 {v21.s}[1], [x5]
	WORD $0x3cc080b2 // ldur q18, [x5, #8]
	WORD $0x3cc180b3 // ldur q19, [x5, #24]
	WORD $0x0e217a94 // fcvtl v20.4s, v20.4h
	WORD $0x4f959296 // fmul v22.4s, v20.4s, v21.s[0]
	WORD $0x4fb59297 // fmul v23.4s, v20.4s, v21.s[1]
	WORD $0x3cc02018 // ldur q24, [x0, #2]
	WORD $0x3cc12019 // ldur q25, [x0, #18]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973b // sdot v27.4s, v25.16b, v17.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4e92971c // sdot v28.4s, v24.16b, v18.16b
	WORD $0x4e93973d // sdot v29.4s, v25.16b, v19.16b
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x4e21db7b // scvtf v27.4s, v27.4s
	WORD $0x4f961340 // fmla v0.4s, v26.4s, v22.s[0]
	WORD $0x4f961361 // fmla v1.4s, v27.4s, v22.s[0]
	WORD $0x4e21db9c // scvtf v28.4s, v28.4s
	WORD $0x4e21dbbd // scvtf v29.4s, v29.4s
	WORD $0x4f971382 // fmla v2.4s, v28.4s, v23.s[0]
	WORD $0x4f9713a3 // fmla v3.4s, v29.4s, v23.s[0]
	WORD $0x3cc02038 // ldur q24, [x1, #2]
	WORD $0x3cc12039 // ldur q25, [x1, #18]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973b // sdot v27.4s, v25.16b, v17.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4e92971c // sdot v28.4s, v24.16b, v18.16b
	WORD $0x4e93973d // sdot v29.4s, v25.16b, v19.16b
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x4e21db7b // scvtf v27.4s, v27.4s
	WORD $0x4fb61344 // fmla v4.4s, v26.4s, v22.s[1]
	WORD $0x4fb61365 // fmla v5.4s, v27.4s, v22.s[1]
	WORD $0x4e21db9c // scvtf v28.4s, v28.4s
	WORD $0x4e21dbbd // scvtf v29.4s, v29.4s
	WORD $0x4fb71386 // fmla v6.4s, v28.4s, v23.s[1]
	WORD $0x4fb713a7 // fmla v7.4s, v29.4s, v23.s[1]
	WORD $0x3cc02058 // ldur q24, [x2, #2]
	WORD $0x3cc12059 // ldur q25, [x2, #18]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973b // sdot v27.4s, v25.16b, v17.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4e92971c // sdot v28.4s, v24.16b, v18.16b
	WORD $0x4e93973d // sdot v29.4s, v25.16b, v19.16b
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x4e21db7b // scvtf v27.4s, v27.4s
	WORD $0x4f961b48 // fmla v8.4s, v26.4s, v22.s[2]
	WORD $0x4f961b69 // fmla v9.4s, v27.4s, v22.s[2]
	WORD $0x4e21db9c // scvtf v28.4s, v28.4s
	WORD $0x4e21dbbd // scvtf v29.4s, v29.4s
	WORD $0x4f971b8a // fmla v10.4s, v28.4s, v23.s[2]
	WORD $0x4f971bab // fmla v11.4s, v29.4s, v23.s[2]
	WORD $0x3cc02078 // ldur q24, [x3, #2]
	WORD $0x3cc12079 // ldur q25, [x3, #18]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973b // sdot v27.4s, v25.16b, v17.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4f00041d // movi v29.4s, #0
	WORD $0x4e92971c // sdot v28.4s, v24.16b, v18.16b
	WORD $0x4e93973d // sdot v29.4s, v25.16b, v19.16b
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x4e21db7b // scvtf v27.4s, v27.4s
	WORD $0x4fb61b4c // fmla v12.4s, v26.4s, v22.s[3]
	WORD $0x4fb61b6d // fmla v13.4s, v27.4s, v22.s[3]
	WORD $0x4e21db9c // scvtf v28.4s, v28.4s
	WORD $0x4e21dbbd // scvtf v29.4s, v29.4s
	WORD $0x4fb71b8e // fmla v14.4s, v28.4s, v23.s[3]
	WORD $0x4fb71baf // fmla v15.4s, v29.4s, v23.s[3]
	ADD $34, R0
	ADD $34, R1
	ADD $34, R2
	ADD $34, R3
	ADD $40, R4
	ADD $40, R5
	SUBS $1, R8
	BNE tileQ80x2SDOT_loop
	WORD $0xad000520 // stp q0, q1, [x9, #0]
	WORD $0xad010d22 // stp q2, q3, [x9, #32]
	WORD $0xad021524 // stp q4, q5, [x9, #64]
	WORD $0xad031d26 // stp q6, q7, [x9, #96]
	WORD $0xad042528 // stp q8, q9, [x9, #128]
	WORD $0xad052d2a // stp q10, q11, [x9, #160]
	WORD $0xad06352c // stp q12, q13, [x9, #192]
	WORD $0xad073d2e // stp q14, q15, [x9, #224]
	RET
