#include "textflag.h"
#include "neon_i8mm_arm64.h"

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

// tileQ6K2x4SDOT(w *byte, wstride int, x *q8KBlock, xstride int, n int, scr *q6KScratch)
//
// Weight rows 0-1 in x0-x1, activation rows 0-3 in x4-x7, super-blocks
// left in x8, scr in x9. Output (i, j), o = 4i+j, keeps its integer lanes
// 0-3 and 4-7 in v[2o], v[2o+1] for a super-block, as q6KDotSDOT does, and
// its float lanes in scr.acc[o]. The prologue widens the rows' 16 scales
// to int32 in scr.sc; per group of 16 elements v16-v19 hold the
// activation rows' quants, v22 a weight row's unsigned quants (q+32),
// v24 its scale.
TEXT ·tileQ6K2x4SDOT(SB), NOSPLIT, $0-48
	MOVD w+0(FP), R0
	MOVD wstride+8(FP), R10
	MOVD x+16(FP), R4
	MOVD xstride+24(FP), R11
	MOVD n+32(FP), R8
	MOVD scr+40(FP), R9
	ADD R10, R0, R1
	ADD R11, R4, R5
	ADD R11, R5, R6
	ADD R11, R6, R7
	WORD $0x4f00e5fd // movi v29.16b, #15
	WORD $0x4f01e61e // movi v30.16b, #48
tileQ6K2x4SDOT_loop:
	WORD $0x3dc0301f // ldr q31, [x0, #192]
	WORD $0x0f08a7f7 // sxtl v23.8h, v31.8b
	WORD $0x4f08a7ff // sxtl2 v31.8h, v31.16b
	WORD $0x0f10a6f8 // sxtl v24.4s, v23.4h
	WORD $0x4f10a6f7 // sxtl2 v23.4s, v23.8h
	WORD $0xad005d38 // stp q24, q23, [x9, #0]
	WORD $0x0f10a7f8 // sxtl v24.4s, v31.4h
	WORD $0x4f10a7ff // sxtl2 v31.4s, v31.8h
	WORD $0xad017d38 // stp q24, q31, [x9, #32]
	WORD $0x3dc0303f // ldr q31, [x1, #192]
	WORD $0x0f08a7f7 // sxtl v23.8h, v31.8b
	WORD $0x4f08a7ff // sxtl2 v31.8h, v31.16b
	WORD $0x0f10a6f8 // sxtl v24.4s, v23.4h
	WORD $0x4f10a6f7 // sxtl2 v23.4s, v23.8h
	WORD $0xad025d38 // stp q24, q23, [x9, #64]
	WORD $0x0f10a7f8 // sxtl v24.4s, v31.4h
	WORD $0x4f10a7ff // sxtl2 v31.4s, v31.8h
	WORD $0xad037d38 // stp q24, q31, [x9, #96]
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
	// Group 0.
	WORD $0x3cc04090 // ldur q16, [x4, #4]
	WORD $0x3cc040b1 // ldur q17, [x5, #4]
	WORD $0x3cc040d2 // ldur q18, [x6, #4]
	WORD $0x3cc040f3 // ldur q19, [x7, #4]
	WORD $0x3dc00014 // ldr q20, [x0, #0]
	WORD $0x3dc02015 // ldr q21, [x0, #128]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0c56b7 // shl v23.16b, v21.16b, #4
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd400138 // ldr s24, [x9, #0]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980320 // mla v0.4s, v25.4s, v24.s[0]
	WORD $0x6f980342 // mla v2.4s, v26.4s, v24.s[0]
	WORD $0x6f980364 // mla v4.4s, v27.4s, v24.s[0]
	WORD $0x6f980386 // mla v6.4s, v28.4s, v24.s[0]
	WORD $0x3dc00034 // ldr q20, [x1, #0]
	WORD $0x3dc02035 // ldr q21, [x1, #128]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0c56b7 // shl v23.16b, v21.16b, #4
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd404138 // ldr s24, [x9, #64]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980328 // mla v8.4s, v25.4s, v24.s[0]
	WORD $0x6f98034a // mla v10.4s, v26.4s, v24.s[0]
	WORD $0x6f98036c // mla v12.4s, v27.4s, v24.s[0]
	WORD $0x6f98038e // mla v14.4s, v28.4s, v24.s[0]
	// Group 1.
	WORD $0x3cc14090 // ldur q16, [x4, #20]
	WORD $0x3cc140b1 // ldur q17, [x5, #20]
	WORD $0x3cc140d2 // ldur q18, [x6, #20]
	WORD $0x3cc140f3 // ldur q19, [x7, #20]
	WORD $0x3dc00414 // ldr q20, [x0, #16]
	WORD $0x3dc02415 // ldr q21, [x0, #144]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0c56b7 // shl v23.16b, v21.16b, #4
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd400538 // ldr s24, [x9, #4]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980321 // mla v1.4s, v25.4s, v24.s[0]
	WORD $0x6f980343 // mla v3.4s, v26.4s, v24.s[0]
	WORD $0x6f980365 // mla v5.4s, v27.4s, v24.s[0]
	WORD $0x6f980387 // mla v7.4s, v28.4s, v24.s[0]
	WORD $0x3dc00434 // ldr q20, [x1, #16]
	WORD $0x3dc02435 // ldr q21, [x1, #144]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0c56b7 // shl v23.16b, v21.16b, #4
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd404538 // ldr s24, [x9, #68]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980329 // mla v9.4s, v25.4s, v24.s[0]
	WORD $0x6f98034b // mla v11.4s, v26.4s, v24.s[0]
	WORD $0x6f98036d // mla v13.4s, v27.4s, v24.s[0]
	WORD $0x6f98038f // mla v15.4s, v28.4s, v24.s[0]
	// Group 2.
	WORD $0x3cc24090 // ldur q16, [x4, #36]
	WORD $0x3cc240b1 // ldur q17, [x5, #36]
	WORD $0x3cc240d2 // ldur q18, [x6, #36]
	WORD $0x3cc240f3 // ldur q19, [x7, #36]
	WORD $0x3dc00814 // ldr q20, [x0, #32]
	WORD $0x3dc02015 // ldr q21, [x0, #128]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0a56b7 // shl v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd400938 // ldr s24, [x9, #8]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980320 // mla v0.4s, v25.4s, v24.s[0]
	WORD $0x6f980342 // mla v2.4s, v26.4s, v24.s[0]
	WORD $0x6f980364 // mla v4.4s, v27.4s, v24.s[0]
	WORD $0x6f980386 // mla v6.4s, v28.4s, v24.s[0]
	WORD $0x3dc00834 // ldr q20, [x1, #32]
	WORD $0x3dc02035 // ldr q21, [x1, #128]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0a56b7 // shl v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd404938 // ldr s24, [x9, #72]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980328 // mla v8.4s, v25.4s, v24.s[0]
	WORD $0x6f98034a // mla v10.4s, v26.4s, v24.s[0]
	WORD $0x6f98036c // mla v12.4s, v27.4s, v24.s[0]
	WORD $0x6f98038e // mla v14.4s, v28.4s, v24.s[0]
	// Group 3.
	WORD $0x3cc34090 // ldur q16, [x4, #52]
	WORD $0x3cc340b1 // ldur q17, [x5, #52]
	WORD $0x3cc340d2 // ldur q18, [x6, #52]
	WORD $0x3cc340f3 // ldur q19, [x7, #52]
	WORD $0x3dc00c14 // ldr q20, [x0, #48]
	WORD $0x3dc02415 // ldr q21, [x0, #144]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0a56b7 // shl v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd400d38 // ldr s24, [x9, #12]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980321 // mla v1.4s, v25.4s, v24.s[0]
	WORD $0x6f980343 // mla v3.4s, v26.4s, v24.s[0]
	WORD $0x6f980365 // mla v5.4s, v27.4s, v24.s[0]
	WORD $0x6f980387 // mla v7.4s, v28.4s, v24.s[0]
	WORD $0x3dc00c34 // ldr q20, [x1, #48]
	WORD $0x3dc02435 // ldr q21, [x1, #144]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0a56b7 // shl v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd404d38 // ldr s24, [x9, #76]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980329 // mla v9.4s, v25.4s, v24.s[0]
	WORD $0x6f98034b // mla v11.4s, v26.4s, v24.s[0]
	WORD $0x6f98036d // mla v13.4s, v27.4s, v24.s[0]
	WORD $0x6f98038f // mla v15.4s, v28.4s, v24.s[0]
	// Group 4.
	WORD $0x3cc44090 // ldur q16, [x4, #68]
	WORD $0x3cc440b1 // ldur q17, [x5, #68]
	WORD $0x3cc440d2 // ldur q18, [x6, #68]
	WORD $0x3cc440f3 // ldur q19, [x7, #68]
	WORD $0x3dc00014 // ldr q20, [x0, #0]
	WORD $0x3dc02015 // ldr q21, [x0, #128]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x4e3e1eb7 // and v23.16b, v21.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd401138 // ldr s24, [x9, #16]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980320 // mla v0.4s, v25.4s, v24.s[0]
	WORD $0x6f980342 // mla v2.4s, v26.4s, v24.s[0]
	WORD $0x6f980364 // mla v4.4s, v27.4s, v24.s[0]
	WORD $0x6f980386 // mla v6.4s, v28.4s, v24.s[0]
	WORD $0x3dc00034 // ldr q20, [x1, #0]
	WORD $0x3dc02035 // ldr q21, [x1, #128]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x4e3e1eb7 // and v23.16b, v21.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd405138 // ldr s24, [x9, #80]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980328 // mla v8.4s, v25.4s, v24.s[0]
	WORD $0x6f98034a // mla v10.4s, v26.4s, v24.s[0]
	WORD $0x6f98036c // mla v12.4s, v27.4s, v24.s[0]
	WORD $0x6f98038e // mla v14.4s, v28.4s, v24.s[0]
	// Group 5.
	WORD $0x3cc54090 // ldur q16, [x4, #84]
	WORD $0x3cc540b1 // ldur q17, [x5, #84]
	WORD $0x3cc540d2 // ldur q18, [x6, #84]
	WORD $0x3cc540f3 // ldur q19, [x7, #84]
	WORD $0x3dc00414 // ldr q20, [x0, #16]
	WORD $0x3dc02415 // ldr q21, [x0, #144]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x4e3e1eb7 // and v23.16b, v21.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd401538 // ldr s24, [x9, #20]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980321 // mla v1.4s, v25.4s, v24.s[0]
	WORD $0x6f980343 // mla v3.4s, v26.4s, v24.s[0]
	WORD $0x6f980365 // mla v5.4s, v27.4s, v24.s[0]
	WORD $0x6f980387 // mla v7.4s, v28.4s, v24.s[0]
	WORD $0x3dc00434 // ldr q20, [x1, #16]
	WORD $0x3dc02435 // ldr q21, [x1, #144]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x4e3e1eb7 // and v23.16b, v21.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd405538 // ldr s24, [x9, #84]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980329 // mla v9.4s, v25.4s, v24.s[0]
	WORD $0x6f98034b // mla v11.4s, v26.4s, v24.s[0]
	WORD $0x6f98036d // mla v13.4s, v27.4s, v24.s[0]
	WORD $0x6f98038f // mla v15.4s, v28.4s, v24.s[0]
	// Group 6.
	WORD $0x3cc64090 // ldur q16, [x4, #100]
	WORD $0x3cc640b1 // ldur q17, [x5, #100]
	WORD $0x3cc640d2 // ldur q18, [x6, #100]
	WORD $0x3cc640f3 // ldur q19, [x7, #100]
	WORD $0x3dc00814 // ldr q20, [x0, #32]
	WORD $0x3dc02015 // ldr q21, [x0, #128]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x6f0e06b7 // ushr v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd401938 // ldr s24, [x9, #24]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980320 // mla v0.4s, v25.4s, v24.s[0]
	WORD $0x6f980342 // mla v2.4s, v26.4s, v24.s[0]
	WORD $0x6f980364 // mla v4.4s, v27.4s, v24.s[0]
	WORD $0x6f980386 // mla v6.4s, v28.4s, v24.s[0]
	WORD $0x3dc00834 // ldr q20, [x1, #32]
	WORD $0x3dc02035 // ldr q21, [x1, #128]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x6f0e06b7 // ushr v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd405938 // ldr s24, [x9, #88]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980328 // mla v8.4s, v25.4s, v24.s[0]
	WORD $0x6f98034a // mla v10.4s, v26.4s, v24.s[0]
	WORD $0x6f98036c // mla v12.4s, v27.4s, v24.s[0]
	WORD $0x6f98038e // mla v14.4s, v28.4s, v24.s[0]
	// Group 7.
	WORD $0x3cc74090 // ldur q16, [x4, #116]
	WORD $0x3cc740b1 // ldur q17, [x5, #116]
	WORD $0x3cc740d2 // ldur q18, [x6, #116]
	WORD $0x3cc740f3 // ldur q19, [x7, #116]
	WORD $0x3dc00c14 // ldr q20, [x0, #48]
	WORD $0x3dc02415 // ldr q21, [x0, #144]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x6f0e06b7 // ushr v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd401d38 // ldr s24, [x9, #28]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980321 // mla v1.4s, v25.4s, v24.s[0]
	WORD $0x6f980343 // mla v3.4s, v26.4s, v24.s[0]
	WORD $0x6f980365 // mla v5.4s, v27.4s, v24.s[0]
	WORD $0x6f980387 // mla v7.4s, v28.4s, v24.s[0]
	WORD $0x3dc00c34 // ldr q20, [x1, #48]
	WORD $0x3dc02435 // ldr q21, [x1, #144]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x6f0e06b7 // ushr v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd405d38 // ldr s24, [x9, #92]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980329 // mla v9.4s, v25.4s, v24.s[0]
	WORD $0x6f98034b // mla v11.4s, v26.4s, v24.s[0]
	WORD $0x6f98036d // mla v13.4s, v27.4s, v24.s[0]
	WORD $0x6f98038f // mla v15.4s, v28.4s, v24.s[0]
	// Group 8.
	WORD $0x3cc84090 // ldur q16, [x4, #132]
	WORD $0x3cc840b1 // ldur q17, [x5, #132]
	WORD $0x3cc840d2 // ldur q18, [x6, #132]
	WORD $0x3cc840f3 // ldur q19, [x7, #132]
	WORD $0x3dc01014 // ldr q20, [x0, #64]
	WORD $0x3dc02815 // ldr q21, [x0, #160]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0c56b7 // shl v23.16b, v21.16b, #4
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd402138 // ldr s24, [x9, #32]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980320 // mla v0.4s, v25.4s, v24.s[0]
	WORD $0x6f980342 // mla v2.4s, v26.4s, v24.s[0]
	WORD $0x6f980364 // mla v4.4s, v27.4s, v24.s[0]
	WORD $0x6f980386 // mla v6.4s, v28.4s, v24.s[0]
	WORD $0x3dc01034 // ldr q20, [x1, #64]
	WORD $0x3dc02835 // ldr q21, [x1, #160]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0c56b7 // shl v23.16b, v21.16b, #4
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd406138 // ldr s24, [x9, #96]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980328 // mla v8.4s, v25.4s, v24.s[0]
	WORD $0x6f98034a // mla v10.4s, v26.4s, v24.s[0]
	WORD $0x6f98036c // mla v12.4s, v27.4s, v24.s[0]
	WORD $0x6f98038e // mla v14.4s, v28.4s, v24.s[0]
	// Group 9.
	WORD $0x3cc94090 // ldur q16, [x4, #148]
	WORD $0x3cc940b1 // ldur q17, [x5, #148]
	WORD $0x3cc940d2 // ldur q18, [x6, #148]
	WORD $0x3cc940f3 // ldur q19, [x7, #148]
	WORD $0x3dc01414 // ldr q20, [x0, #80]
	WORD $0x3dc02c15 // ldr q21, [x0, #176]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0c56b7 // shl v23.16b, v21.16b, #4
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd402538 // ldr s24, [x9, #36]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980321 // mla v1.4s, v25.4s, v24.s[0]
	WORD $0x6f980343 // mla v3.4s, v26.4s, v24.s[0]
	WORD $0x6f980365 // mla v5.4s, v27.4s, v24.s[0]
	WORD $0x6f980387 // mla v7.4s, v28.4s, v24.s[0]
	WORD $0x3dc01434 // ldr q20, [x1, #80]
	WORD $0x3dc02c35 // ldr q21, [x1, #176]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0c56b7 // shl v23.16b, v21.16b, #4
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd406538 // ldr s24, [x9, #100]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980329 // mla v9.4s, v25.4s, v24.s[0]
	WORD $0x6f98034b // mla v11.4s, v26.4s, v24.s[0]
	WORD $0x6f98036d // mla v13.4s, v27.4s, v24.s[0]
	WORD $0x6f98038f // mla v15.4s, v28.4s, v24.s[0]
	// Group 10.
	WORD $0x3cca4090 // ldur q16, [x4, #164]
	WORD $0x3cca40b1 // ldur q17, [x5, #164]
	WORD $0x3cca40d2 // ldur q18, [x6, #164]
	WORD $0x3cca40f3 // ldur q19, [x7, #164]
	WORD $0x3dc01814 // ldr q20, [x0, #96]
	WORD $0x3dc02815 // ldr q21, [x0, #160]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0a56b7 // shl v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd402938 // ldr s24, [x9, #40]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980320 // mla v0.4s, v25.4s, v24.s[0]
	WORD $0x6f980342 // mla v2.4s, v26.4s, v24.s[0]
	WORD $0x6f980364 // mla v4.4s, v27.4s, v24.s[0]
	WORD $0x6f980386 // mla v6.4s, v28.4s, v24.s[0]
	WORD $0x3dc01834 // ldr q20, [x1, #96]
	WORD $0x3dc02835 // ldr q21, [x1, #160]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0a56b7 // shl v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd406938 // ldr s24, [x9, #104]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980328 // mla v8.4s, v25.4s, v24.s[0]
	WORD $0x6f98034a // mla v10.4s, v26.4s, v24.s[0]
	WORD $0x6f98036c // mla v12.4s, v27.4s, v24.s[0]
	WORD $0x6f98038e // mla v14.4s, v28.4s, v24.s[0]
	// Group 11.
	WORD $0x3ccb4090 // ldur q16, [x4, #180]
	WORD $0x3ccb40b1 // ldur q17, [x5, #180]
	WORD $0x3ccb40d2 // ldur q18, [x6, #180]
	WORD $0x3ccb40f3 // ldur q19, [x7, #180]
	WORD $0x3dc01c14 // ldr q20, [x0, #112]
	WORD $0x3dc02c15 // ldr q21, [x0, #176]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0a56b7 // shl v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd402d38 // ldr s24, [x9, #44]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980321 // mla v1.4s, v25.4s, v24.s[0]
	WORD $0x6f980343 // mla v3.4s, v26.4s, v24.s[0]
	WORD $0x6f980365 // mla v5.4s, v27.4s, v24.s[0]
	WORD $0x6f980387 // mla v7.4s, v28.4s, v24.s[0]
	WORD $0x3dc01c34 // ldr q20, [x1, #112]
	WORD $0x3dc02c35 // ldr q21, [x1, #176]
	WORD $0x4e3d1e96 // and v22.16b, v20.16b, v29.16b
	WORD $0x4f0a56b7 // shl v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd406d38 // ldr s24, [x9, #108]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980329 // mla v9.4s, v25.4s, v24.s[0]
	WORD $0x6f98034b // mla v11.4s, v26.4s, v24.s[0]
	WORD $0x6f98036d // mla v13.4s, v27.4s, v24.s[0]
	WORD $0x6f98038f // mla v15.4s, v28.4s, v24.s[0]
	// Group 12.
	WORD $0x3ccc4090 // ldur q16, [x4, #196]
	WORD $0x3ccc40b1 // ldur q17, [x5, #196]
	WORD $0x3ccc40d2 // ldur q18, [x6, #196]
	WORD $0x3ccc40f3 // ldur q19, [x7, #196]
	WORD $0x3dc01014 // ldr q20, [x0, #64]
	WORD $0x3dc02815 // ldr q21, [x0, #160]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x4e3e1eb7 // and v23.16b, v21.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd403138 // ldr s24, [x9, #48]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980320 // mla v0.4s, v25.4s, v24.s[0]
	WORD $0x6f980342 // mla v2.4s, v26.4s, v24.s[0]
	WORD $0x6f980364 // mla v4.4s, v27.4s, v24.s[0]
	WORD $0x6f980386 // mla v6.4s, v28.4s, v24.s[0]
	WORD $0x3dc01034 // ldr q20, [x1, #64]
	WORD $0x3dc02835 // ldr q21, [x1, #160]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x4e3e1eb7 // and v23.16b, v21.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd407138 // ldr s24, [x9, #112]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980328 // mla v8.4s, v25.4s, v24.s[0]
	WORD $0x6f98034a // mla v10.4s, v26.4s, v24.s[0]
	WORD $0x6f98036c // mla v12.4s, v27.4s, v24.s[0]
	WORD $0x6f98038e // mla v14.4s, v28.4s, v24.s[0]
	// Group 13.
	WORD $0x3ccd4090 // ldur q16, [x4, #212]
	WORD $0x3ccd40b1 // ldur q17, [x5, #212]
	WORD $0x3ccd40d2 // ldur q18, [x6, #212]
	WORD $0x3ccd40f3 // ldur q19, [x7, #212]
	WORD $0x3dc01414 // ldr q20, [x0, #80]
	WORD $0x3dc02c15 // ldr q21, [x0, #176]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x4e3e1eb7 // and v23.16b, v21.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd403538 // ldr s24, [x9, #52]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980321 // mla v1.4s, v25.4s, v24.s[0]
	WORD $0x6f980343 // mla v3.4s, v26.4s, v24.s[0]
	WORD $0x6f980365 // mla v5.4s, v27.4s, v24.s[0]
	WORD $0x6f980387 // mla v7.4s, v28.4s, v24.s[0]
	WORD $0x3dc01434 // ldr q20, [x1, #80]
	WORD $0x3dc02c35 // ldr q21, [x1, #176]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x4e3e1eb7 // and v23.16b, v21.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd407538 // ldr s24, [x9, #116]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980329 // mla v9.4s, v25.4s, v24.s[0]
	WORD $0x6f98034b // mla v11.4s, v26.4s, v24.s[0]
	WORD $0x6f98036d // mla v13.4s, v27.4s, v24.s[0]
	WORD $0x6f98038f // mla v15.4s, v28.4s, v24.s[0]
	// Group 14.
	WORD $0x3cce4090 // ldur q16, [x4, #228]
	WORD $0x3cce40b1 // ldur q17, [x5, #228]
	WORD $0x3cce40d2 // ldur q18, [x6, #228]
	WORD $0x3cce40f3 // ldur q19, [x7, #228]
	WORD $0x3dc01814 // ldr q20, [x0, #96]
	WORD $0x3dc02815 // ldr q21, [x0, #160]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x6f0e06b7 // ushr v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd403938 // ldr s24, [x9, #56]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980320 // mla v0.4s, v25.4s, v24.s[0]
	WORD $0x6f980342 // mla v2.4s, v26.4s, v24.s[0]
	WORD $0x6f980364 // mla v4.4s, v27.4s, v24.s[0]
	WORD $0x6f980386 // mla v6.4s, v28.4s, v24.s[0]
	WORD $0x3dc01834 // ldr q20, [x1, #96]
	WORD $0x3dc02835 // ldr q21, [x1, #160]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x6f0e06b7 // ushr v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd407938 // ldr s24, [x9, #120]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980328 // mla v8.4s, v25.4s, v24.s[0]
	WORD $0x6f98034a // mla v10.4s, v26.4s, v24.s[0]
	WORD $0x6f98036c // mla v12.4s, v27.4s, v24.s[0]
	WORD $0x6f98038e // mla v14.4s, v28.4s, v24.s[0]
	// Group 15.
	WORD $0x3ccf4090 // ldur q16, [x4, #244]
	WORD $0x3ccf40b1 // ldur q17, [x5, #244]
	WORD $0x3ccf40d2 // ldur q18, [x6, #244]
	WORD $0x3ccf40f3 // ldur q19, [x7, #244]
	WORD $0x3dc01c14 // ldr q20, [x0, #112]
	WORD $0x3dc02c15 // ldr q21, [x0, #176]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x6f0e06b7 // ushr v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd403d38 // ldr s24, [x9, #60]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980321 // mla v1.4s, v25.4s, v24.s[0]
	WORD $0x6f980343 // mla v3.4s, v26.4s, v24.s[0]
	WORD $0x6f980365 // mla v5.4s, v27.4s, v24.s[0]
	WORD $0x6f980387 // mla v7.4s, v28.4s, v24.s[0]
	WORD $0x3dc01c34 // ldr q20, [x1, #112]
	WORD $0x3dc02c35 // ldr q21, [x1, #176]
	WORD $0x6f0c0696 // ushr v22.16b, v20.16b, #4
	WORD $0x6f0e06b7 // ushr v23.16b, v21.16b, #2
	WORD $0x4e3e1ef7 // and v23.16b, v23.16b, v30.16b
	WORD $0x4eb71ed6 // orr v22.16b, v22.16b, v23.16b
	WORD $0xbd407d38 // ldr s24, [x9, #124]
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e9096d9 // sdot v25.4s, v22.16b, v16.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e9196da // sdot v26.4s, v22.16b, v17.16b
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e9296db // sdot v27.4s, v22.16b, v18.16b
	WORD $0x4f00041c // movi v28.4s, #0
	WORD $0x4e9396dc // sdot v28.4s, v22.16b, v19.16b
	WORD $0x6f980329 // mla v9.4s, v25.4s, v24.s[0]
	WORD $0x6f98034b // mla v11.4s, v26.4s, v24.s[0]
	WORD $0x6f98036d // mla v13.4s, v27.4s, v24.s[0]
	WORD $0x6f98038f // mla v15.4s, v28.4s, v24.s[0]
	// Less 32·(sc·bsum of groups 2l and 2l+1) in lane l, then
	// acc = fma(float(lanes), xd·d, acc), as dotQ6K.
	WORD $0x3dc0301f // ldr q31, [x0, #192]
	WORD $0x0f08a7f4 // sxtl v20.8h, v31.8b
	WORD $0x4f08a7f5 // sxtl2 v21.8h, v31.16b
	WORD $0x7d41a01c // ldr h28, [x0, #208]
	WORD $0x1ee2439c // fcvt s28, h28
	ADD $260, R4, R10
	WORD $0xad405d56 // ldp q22, q23, [x10]
	WORD $0x0e76c298 // smull v24.4s, v20.4h, v22.4h
	WORD $0x4e76c299 // smull2 v25.4s, v20.8h, v22.8h
	WORD $0x0e77c2ba // smull v26.4s, v21.4h, v23.4h
	WORD $0x4e77c2bb // smull2 v27.4s, v21.8h, v23.8h
	WORD $0x4eb9bf18 // addp v24.4s, v24.4s, v25.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4f255718 // shl v24.4s, v24.4s, #5
	WORD $0x4f25575a // shl v26.4s, v26.4s, #5
	WORD $0x6eb88400 // sub v0.4s, v0.4s, v24.4s
	WORD $0x6eba8421 // sub v1.4s, v1.4s, v26.4s
	WORD $0x4e21d800 // scvtf v0.4s, v0.4s
	WORD $0x4e21d821 // scvtf v1.4s, v1.4s
	WORD $0xbd40009f // ldr s31, [x4]
	WORD $0x1e3c0bff // fmul s31, s31, s28
	WORD $0xad446538 // ldp q24, q25, [x9, #128]
	WORD $0x4f9f1018 // fmla v24.4s, v0.4s, v31.s[0]
	WORD $0x4f9f1039 // fmla v25.4s, v1.4s, v31.s[0]
	WORD $0xad046538 // stp q24, q25, [x9, #128]
	ADD $260, R5, R10
	WORD $0xad405d56 // ldp q22, q23, [x10]
	WORD $0x0e76c298 // smull v24.4s, v20.4h, v22.4h
	WORD $0x4e76c299 // smull2 v25.4s, v20.8h, v22.8h
	WORD $0x0e77c2ba // smull v26.4s, v21.4h, v23.4h
	WORD $0x4e77c2bb // smull2 v27.4s, v21.8h, v23.8h
	WORD $0x4eb9bf18 // addp v24.4s, v24.4s, v25.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4f255718 // shl v24.4s, v24.4s, #5
	WORD $0x4f25575a // shl v26.4s, v26.4s, #5
	WORD $0x6eb88442 // sub v2.4s, v2.4s, v24.4s
	WORD $0x6eba8463 // sub v3.4s, v3.4s, v26.4s
	WORD $0x4e21d842 // scvtf v2.4s, v2.4s
	WORD $0x4e21d863 // scvtf v3.4s, v3.4s
	WORD $0xbd4000bf // ldr s31, [x5]
	WORD $0x1e3c0bff // fmul s31, s31, s28
	WORD $0xad456538 // ldp q24, q25, [x9, #160]
	WORD $0x4f9f1058 // fmla v24.4s, v2.4s, v31.s[0]
	WORD $0x4f9f1079 // fmla v25.4s, v3.4s, v31.s[0]
	WORD $0xad056538 // stp q24, q25, [x9, #160]
	ADD $260, R6, R10
	WORD $0xad405d56 // ldp q22, q23, [x10]
	WORD $0x0e76c298 // smull v24.4s, v20.4h, v22.4h
	WORD $0x4e76c299 // smull2 v25.4s, v20.8h, v22.8h
	WORD $0x0e77c2ba // smull v26.4s, v21.4h, v23.4h
	WORD $0x4e77c2bb // smull2 v27.4s, v21.8h, v23.8h
	WORD $0x4eb9bf18 // addp v24.4s, v24.4s, v25.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4f255718 // shl v24.4s, v24.4s, #5
	WORD $0x4f25575a // shl v26.4s, v26.4s, #5
	WORD $0x6eb88484 // sub v4.4s, v4.4s, v24.4s
	WORD $0x6eba84a5 // sub v5.4s, v5.4s, v26.4s
	WORD $0x4e21d884 // scvtf v4.4s, v4.4s
	WORD $0x4e21d8a5 // scvtf v5.4s, v5.4s
	WORD $0xbd4000df // ldr s31, [x6]
	WORD $0x1e3c0bff // fmul s31, s31, s28
	WORD $0xad466538 // ldp q24, q25, [x9, #192]
	WORD $0x4f9f1098 // fmla v24.4s, v4.4s, v31.s[0]
	WORD $0x4f9f10b9 // fmla v25.4s, v5.4s, v31.s[0]
	WORD $0xad066538 // stp q24, q25, [x9, #192]
	ADD $260, R7, R10
	WORD $0xad405d56 // ldp q22, q23, [x10]
	WORD $0x0e76c298 // smull v24.4s, v20.4h, v22.4h
	WORD $0x4e76c299 // smull2 v25.4s, v20.8h, v22.8h
	WORD $0x0e77c2ba // smull v26.4s, v21.4h, v23.4h
	WORD $0x4e77c2bb // smull2 v27.4s, v21.8h, v23.8h
	WORD $0x4eb9bf18 // addp v24.4s, v24.4s, v25.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4f255718 // shl v24.4s, v24.4s, #5
	WORD $0x4f25575a // shl v26.4s, v26.4s, #5
	WORD $0x6eb884c6 // sub v6.4s, v6.4s, v24.4s
	WORD $0x6eba84e7 // sub v7.4s, v7.4s, v26.4s
	WORD $0x4e21d8c6 // scvtf v6.4s, v6.4s
	WORD $0x4e21d8e7 // scvtf v7.4s, v7.4s
	WORD $0xbd4000ff // ldr s31, [x7]
	WORD $0x1e3c0bff // fmul s31, s31, s28
	WORD $0xad476538 // ldp q24, q25, [x9, #224]
	WORD $0x4f9f10d8 // fmla v24.4s, v6.4s, v31.s[0]
	WORD $0x4f9f10f9 // fmla v25.4s, v7.4s, v31.s[0]
	WORD $0xad076538 // stp q24, q25, [x9, #224]
	WORD $0x3dc0303f // ldr q31, [x1, #192]
	WORD $0x0f08a7f4 // sxtl v20.8h, v31.8b
	WORD $0x4f08a7f5 // sxtl2 v21.8h, v31.16b
	WORD $0x7d41a03c // ldr h28, [x1, #208]
	WORD $0x1ee2439c // fcvt s28, h28
	ADD $260, R4, R10
	WORD $0xad405d56 // ldp q22, q23, [x10]
	WORD $0x0e76c298 // smull v24.4s, v20.4h, v22.4h
	WORD $0x4e76c299 // smull2 v25.4s, v20.8h, v22.8h
	WORD $0x0e77c2ba // smull v26.4s, v21.4h, v23.4h
	WORD $0x4e77c2bb // smull2 v27.4s, v21.8h, v23.8h
	WORD $0x4eb9bf18 // addp v24.4s, v24.4s, v25.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4f255718 // shl v24.4s, v24.4s, #5
	WORD $0x4f25575a // shl v26.4s, v26.4s, #5
	WORD $0x6eb88508 // sub v8.4s, v8.4s, v24.4s
	WORD $0x6eba8529 // sub v9.4s, v9.4s, v26.4s
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e21d929 // scvtf v9.4s, v9.4s
	WORD $0xbd40009f // ldr s31, [x4]
	WORD $0x1e3c0bff // fmul s31, s31, s28
	WORD $0xad486538 // ldp q24, q25, [x9, #256]
	WORD $0x4f9f1118 // fmla v24.4s, v8.4s, v31.s[0]
	WORD $0x4f9f1139 // fmla v25.4s, v9.4s, v31.s[0]
	WORD $0xad086538 // stp q24, q25, [x9, #256]
	ADD $260, R5, R10
	WORD $0xad405d56 // ldp q22, q23, [x10]
	WORD $0x0e76c298 // smull v24.4s, v20.4h, v22.4h
	WORD $0x4e76c299 // smull2 v25.4s, v20.8h, v22.8h
	WORD $0x0e77c2ba // smull v26.4s, v21.4h, v23.4h
	WORD $0x4e77c2bb // smull2 v27.4s, v21.8h, v23.8h
	WORD $0x4eb9bf18 // addp v24.4s, v24.4s, v25.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4f255718 // shl v24.4s, v24.4s, #5
	WORD $0x4f25575a // shl v26.4s, v26.4s, #5
	WORD $0x6eb8854a // sub v10.4s, v10.4s, v24.4s
	WORD $0x6eba856b // sub v11.4s, v11.4s, v26.4s
	WORD $0x4e21d94a // scvtf v10.4s, v10.4s
	WORD $0x4e21d96b // scvtf v11.4s, v11.4s
	WORD $0xbd4000bf // ldr s31, [x5]
	WORD $0x1e3c0bff // fmul s31, s31, s28
	WORD $0xad496538 // ldp q24, q25, [x9, #288]
	WORD $0x4f9f1158 // fmla v24.4s, v10.4s, v31.s[0]
	WORD $0x4f9f1179 // fmla v25.4s, v11.4s, v31.s[0]
	WORD $0xad096538 // stp q24, q25, [x9, #288]
	ADD $260, R6, R10
	WORD $0xad405d56 // ldp q22, q23, [x10]
	WORD $0x0e76c298 // smull v24.4s, v20.4h, v22.4h
	WORD $0x4e76c299 // smull2 v25.4s, v20.8h, v22.8h
	WORD $0x0e77c2ba // smull v26.4s, v21.4h, v23.4h
	WORD $0x4e77c2bb // smull2 v27.4s, v21.8h, v23.8h
	WORD $0x4eb9bf18 // addp v24.4s, v24.4s, v25.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4f255718 // shl v24.4s, v24.4s, #5
	WORD $0x4f25575a // shl v26.4s, v26.4s, #5
	WORD $0x6eb8858c // sub v12.4s, v12.4s, v24.4s
	WORD $0x6eba85ad // sub v13.4s, v13.4s, v26.4s
	WORD $0x4e21d98c // scvtf v12.4s, v12.4s
	WORD $0x4e21d9ad // scvtf v13.4s, v13.4s
	WORD $0xbd4000df // ldr s31, [x6]
	WORD $0x1e3c0bff // fmul s31, s31, s28
	WORD $0xad4a6538 // ldp q24, q25, [x9, #320]
	WORD $0x4f9f1198 // fmla v24.4s, v12.4s, v31.s[0]
	WORD $0x4f9f11b9 // fmla v25.4s, v13.4s, v31.s[0]
	WORD $0xad0a6538 // stp q24, q25, [x9, #320]
	ADD $260, R7, R10
	WORD $0xad405d56 // ldp q22, q23, [x10]
	WORD $0x0e76c298 // smull v24.4s, v20.4h, v22.4h
	WORD $0x4e76c299 // smull2 v25.4s, v20.8h, v22.8h
	WORD $0x0e77c2ba // smull v26.4s, v21.4h, v23.4h
	WORD $0x4e77c2bb // smull2 v27.4s, v21.8h, v23.8h
	WORD $0x4eb9bf18 // addp v24.4s, v24.4s, v25.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4f255718 // shl v24.4s, v24.4s, #5
	WORD $0x4f25575a // shl v26.4s, v26.4s, #5
	WORD $0x6eb885ce // sub v14.4s, v14.4s, v24.4s
	WORD $0x6eba85ef // sub v15.4s, v15.4s, v26.4s
	WORD $0x4e21d9ce // scvtf v14.4s, v14.4s
	WORD $0x4e21d9ef // scvtf v15.4s, v15.4s
	WORD $0xbd4000ff // ldr s31, [x7]
	WORD $0x1e3c0bff // fmul s31, s31, s28
	WORD $0xad4b6538 // ldp q24, q25, [x9, #352]
	WORD $0x4f9f11d8 // fmla v24.4s, v14.4s, v31.s[0]
	WORD $0x4f9f11f9 // fmla v25.4s, v15.4s, v31.s[0]
	WORD $0xad0b6538 // stp q24, q25, [x9, #352]
	ADD $210, R0
	ADD $210, R1
	ADD $292, R4
	ADD $292, R5
	ADD $292, R6
	ADD $292, R7
	SUBS $1, R8
	BNE tileQ6K2x4SDOT_loop
	RET

// tileQ4KSDOT(w *byte, wstride int, x *q8KBlock, xstride int, n int, gemm int, scr *q4KScratch, idx *[28][16]byte)
//
// The SDOT form of tileQ4KI8MM (neon_i8mm_arm64.s), with the same
// prologue but each sub-block's scales as one vector of the four rows
// (idx entries 20-27) and d·xd per activation row, in scr. Per
// sub-block v16-v23 hold the activation rows' quants (two vectors a
// row), v24-v25 a weight row's, v28 the scales; output (i, j) sums
// its scaled lanes in v[4j+i], which each chunk adds up and scales
// into scr.acc[4j+i].
TEXT ·tileQ4KSDOT(SB), NOSPLIT, $0-64
	MOVD w+0(FP), R0
	MOVD wstride+8(FP), R12
	MOVD x+16(FP), R4
	MOVD xstride+24(FP), R13
	MOVD n+32(FP), R8
	MOVD gemm+40(FP), R11
	MOVD scr+48(FP), R9
	MOVD idx+56(FP), R10
	ADD R12, R0, R1
	ADD R12, R1, R2
	ADD R12, R2, R3
	ADD R13, R4, R5
	ADD R13, R5, R6
	ADD R13, R6, R7
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f01e7fe // movi v30.16b, #63
tileQ4KSDOT_loop:
	Q4K_DECODE
	// scr: sub-block s's int32 scales of rows 0-3.
	WORD $0x3dc05158 // ldr q24, [x10, #320]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803138 // str q24, [x9, #192]
	WORD $0x3dc05558 // ldr q24, [x10, #336]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803538 // str q24, [x9, #208]
	WORD $0x3dc05958 // ldr q24, [x10, #352]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803938 // str q24, [x9, #224]
	WORD $0x3dc05d58 // ldr q24, [x10, #368]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803d38 // str q24, [x9, #240]
	WORD $0x3dc06158 // ldr q24, [x10, #384]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804138 // str q24, [x9, #256]
	WORD $0x3dc06558 // ldr q24, [x10, #400]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804538 // str q24, [x9, #272]
	WORD $0x3dc06958 // ldr q24, [x10, #416]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804938 // str q24, [x9, #288]
	WORD $0x3dc06d58 // ldr q24, [x10, #432]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804d38 // str q24, [x9, #304]
	// scr: d·xd_j for rows 0-3; v16-v19: dmin·xd_j.
	WORD $0x0e217a18 // fcvtl v24.4s, v16.4h
	WORD $0x4e217a19 // fcvtl2 v25.4s, v16.8h
	WORD $0x4e991b1b // uzp1 v27.4s, v24.4s, v25.4s
	WORD $0x4e995b1c // uzp2 v28.4s, v24.4s, v25.4s
	WORD $0x0d40809d // ld1 {v29.s}[0], [x4]
	WORD $0x0d4090bd // ld1 {v29.s}[1], [x5]
	WORD $0x4d4080dd // ld1 {v29.s}[2], [x6]
	WORD $0x4d4090fd // ld1 {v29.s}[3], [x7]
	WORD $0x4f9d9370 // fmul v16.4s, v27.4s, v29.s[0]
	WORD $0x4fbd9371 // fmul v17.4s, v27.4s, v29.s[1]
	WORD $0x4f9d9b72 // fmul v18.4s, v27.4s, v29.s[2]
	WORD $0x4fbd9b73 // fmul v19.4s, v27.4s, v29.s[3]
	WORD $0xad044530 // stp q16, q17, [x9, #128]
	WORD $0xad054d32 // stp q18, q19, [x9, #160]
	WORD $0x4f9d9390 // fmul v16.4s, v28.4s, v29.s[0]
	WORD $0x4fbd9391 // fmul v17.4s, v28.4s, v29.s[1]
	WORD $0x4f9d9b92 // fmul v18.4s, v28.4s, v29.s[2]
	WORD $0x4fbd9b93 // fmul v19.4s, v28.4s, v29.s[3]
	Q4K_MINS
	// Sub-block 0.
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
	WORD $0x3cc04090 // ldur q16, [x4, #4]
	WORD $0x3cc14091 // ldur q17, [x4, #20]
	WORD $0x3cc040b2 // ldur q18, [x5, #4]
	WORD $0x3cc140b3 // ldur q19, [x5, #20]
	WORD $0x3cc040d4 // ldur q20, [x6, #4]
	WORD $0x3cc140d5 // ldur q21, [x6, #20]
	WORD $0x3cc040f6 // ldur q22, [x7, #4]
	WORD $0x3cc140f7 // ldur q23, [x7, #20]
	WORD $0x3dc0313c // ldr q28, [x9, #192]
	WORD $0x3dc00418 // ldr q24, [x0, #16]
	WORD $0x3dc00819 // ldr q25, [x0, #32]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0364 // mla v4.4s, v27.4s, v28.s[0]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0348 // mla v8.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c036c // mla v12.4s, v27.4s, v28.s[0]
	WORD $0x3dc00438 // ldr q24, [x1, #16]
	WORD $0x3dc00839 // ldr q25, [x1, #32]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0365 // mla v5.4s, v27.4s, v28.s[1]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0349 // mla v9.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc036d // mla v13.4s, v27.4s, v28.s[1]
	WORD $0x3dc00458 // ldr q24, [x2, #16]
	WORD $0x3dc00859 // ldr q25, [x2, #32]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0b66 // mla v6.4s, v27.4s, v28.s[2]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0b4a // mla v10.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c0b6e // mla v14.4s, v27.4s, v28.s[2]
	WORD $0x3dc00478 // ldr q24, [x3, #16]
	WORD $0x3dc00879 // ldr q25, [x3, #32]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0b67 // mla v7.4s, v27.4s, v28.s[3]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0b4b // mla v11.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc0b6f // mla v15.4s, v27.4s, v28.s[3]
	// Sub-block 1.
	WORD $0x3cc24090 // ldur q16, [x4, #36]
	WORD $0x3cc34091 // ldur q17, [x4, #52]
	WORD $0x3cc240b2 // ldur q18, [x5, #36]
	WORD $0x3cc340b3 // ldur q19, [x5, #52]
	WORD $0x3cc240d4 // ldur q20, [x6, #36]
	WORD $0x3cc340d5 // ldur q21, [x6, #52]
	WORD $0x3cc240f6 // ldur q22, [x7, #36]
	WORD $0x3cc340f7 // ldur q23, [x7, #52]
	WORD $0x3dc0353c // ldr q28, [x9, #208]
	WORD $0x3dc00418 // ldr q24, [x0, #16]
	WORD $0x3dc00819 // ldr q25, [x0, #32]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0364 // mla v4.4s, v27.4s, v28.s[0]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0348 // mla v8.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c036c // mla v12.4s, v27.4s, v28.s[0]
	WORD $0x3dc00438 // ldr q24, [x1, #16]
	WORD $0x3dc00839 // ldr q25, [x1, #32]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0365 // mla v5.4s, v27.4s, v28.s[1]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0349 // mla v9.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc036d // mla v13.4s, v27.4s, v28.s[1]
	WORD $0x3dc00458 // ldr q24, [x2, #16]
	WORD $0x3dc00859 // ldr q25, [x2, #32]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0b66 // mla v6.4s, v27.4s, v28.s[2]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0b4a // mla v10.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c0b6e // mla v14.4s, v27.4s, v28.s[2]
	WORD $0x3dc00478 // ldr q24, [x3, #16]
	WORD $0x3dc00879 // ldr q25, [x3, #32]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0b67 // mla v7.4s, v27.4s, v28.s[3]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0b4b // mla v11.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc0b6f // mla v15.4s, v27.4s, v28.s[3]
	CBZ R11, tileQ4KSDOT_gemv1
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0x4ea1bc1a // addp v26.4s, v0.4s, v1.4s
	WORD $0x4ea3bc5b // addp v27.4s, v2.4s, v3.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0213b // ldr q27, [x9, #128]
	WORD $0x3dc00138 // ldr q24, [x9, #0]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800138 // str q24, [x9, #0]
	WORD $0x4ea5bc9a // addp v26.4s, v4.4s, v5.4s
	WORD $0x4ea7bcdb // addp v27.4s, v6.4s, v7.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0253b // ldr q27, [x9, #144]
	WORD $0x3dc00538 // ldr q24, [x9, #16]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800538 // str q24, [x9, #16]
	WORD $0x4ea9bd1a // addp v26.4s, v8.4s, v9.4s
	WORD $0x4eabbd5b // addp v27.4s, v10.4s, v11.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0293b // ldr q27, [x9, #160]
	WORD $0x3dc00938 // ldr q24, [x9, #32]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800938 // str q24, [x9, #32]
	WORD $0x4eadbd9a // addp v26.4s, v12.4s, v13.4s
	WORD $0x4eafbddb // addp v27.4s, v14.4s, v15.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc02d3b // ldr q27, [x9, #176]
	WORD $0x3dc00d38 // ldr q24, [x9, #48]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800d38 // str q24, [x9, #48]
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
tileQ4KSDOT_gemv1:
	// Sub-block 2.
	WORD $0x3cc44090 // ldur q16, [x4, #68]
	WORD $0x3cc54091 // ldur q17, [x4, #84]
	WORD $0x3cc440b2 // ldur q18, [x5, #68]
	WORD $0x3cc540b3 // ldur q19, [x5, #84]
	WORD $0x3cc440d4 // ldur q20, [x6, #68]
	WORD $0x3cc540d5 // ldur q21, [x6, #84]
	WORD $0x3cc440f6 // ldur q22, [x7, #68]
	WORD $0x3cc540f7 // ldur q23, [x7, #84]
	WORD $0x3dc0393c // ldr q28, [x9, #224]
	WORD $0x3dc00c18 // ldr q24, [x0, #48]
	WORD $0x3dc01019 // ldr q25, [x0, #64]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0364 // mla v4.4s, v27.4s, v28.s[0]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0348 // mla v8.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c036c // mla v12.4s, v27.4s, v28.s[0]
	WORD $0x3dc00c38 // ldr q24, [x1, #48]
	WORD $0x3dc01039 // ldr q25, [x1, #64]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0365 // mla v5.4s, v27.4s, v28.s[1]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0349 // mla v9.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc036d // mla v13.4s, v27.4s, v28.s[1]
	WORD $0x3dc00c58 // ldr q24, [x2, #48]
	WORD $0x3dc01059 // ldr q25, [x2, #64]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0b66 // mla v6.4s, v27.4s, v28.s[2]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0b4a // mla v10.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c0b6e // mla v14.4s, v27.4s, v28.s[2]
	WORD $0x3dc00c78 // ldr q24, [x3, #48]
	WORD $0x3dc01079 // ldr q25, [x3, #64]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0b67 // mla v7.4s, v27.4s, v28.s[3]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0b4b // mla v11.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc0b6f // mla v15.4s, v27.4s, v28.s[3]
	// Sub-block 3.
	WORD $0x3cc64090 // ldur q16, [x4, #100]
	WORD $0x3cc74091 // ldur q17, [x4, #116]
	WORD $0x3cc640b2 // ldur q18, [x5, #100]
	WORD $0x3cc740b3 // ldur q19, [x5, #116]
	WORD $0x3cc640d4 // ldur q20, [x6, #100]
	WORD $0x3cc740d5 // ldur q21, [x6, #116]
	WORD $0x3cc640f6 // ldur q22, [x7, #100]
	WORD $0x3cc740f7 // ldur q23, [x7, #116]
	WORD $0x3dc03d3c // ldr q28, [x9, #240]
	WORD $0x3dc00c18 // ldr q24, [x0, #48]
	WORD $0x3dc01019 // ldr q25, [x0, #64]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0364 // mla v4.4s, v27.4s, v28.s[0]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0348 // mla v8.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c036c // mla v12.4s, v27.4s, v28.s[0]
	WORD $0x3dc00c38 // ldr q24, [x1, #48]
	WORD $0x3dc01039 // ldr q25, [x1, #64]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0365 // mla v5.4s, v27.4s, v28.s[1]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0349 // mla v9.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc036d // mla v13.4s, v27.4s, v28.s[1]
	WORD $0x3dc00c58 // ldr q24, [x2, #48]
	WORD $0x3dc01059 // ldr q25, [x2, #64]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0b66 // mla v6.4s, v27.4s, v28.s[2]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0b4a // mla v10.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c0b6e // mla v14.4s, v27.4s, v28.s[2]
	WORD $0x3dc00c78 // ldr q24, [x3, #48]
	WORD $0x3dc01079 // ldr q25, [x3, #64]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0b67 // mla v7.4s, v27.4s, v28.s[3]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0b4b // mla v11.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc0b6f // mla v15.4s, v27.4s, v28.s[3]
	CBZ R11, tileQ4KSDOT_gemv3
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0x4ea1bc1a // addp v26.4s, v0.4s, v1.4s
	WORD $0x4ea3bc5b // addp v27.4s, v2.4s, v3.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0213b // ldr q27, [x9, #128]
	WORD $0x3dc00138 // ldr q24, [x9, #0]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800138 // str q24, [x9, #0]
	WORD $0x4ea5bc9a // addp v26.4s, v4.4s, v5.4s
	WORD $0x4ea7bcdb // addp v27.4s, v6.4s, v7.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0253b // ldr q27, [x9, #144]
	WORD $0x3dc00538 // ldr q24, [x9, #16]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800538 // str q24, [x9, #16]
	WORD $0x4ea9bd1a // addp v26.4s, v8.4s, v9.4s
	WORD $0x4eabbd5b // addp v27.4s, v10.4s, v11.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0293b // ldr q27, [x9, #160]
	WORD $0x3dc00938 // ldr q24, [x9, #32]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800938 // str q24, [x9, #32]
	WORD $0x4eadbd9a // addp v26.4s, v12.4s, v13.4s
	WORD $0x4eafbddb // addp v27.4s, v14.4s, v15.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc02d3b // ldr q27, [x9, #176]
	WORD $0x3dc00d38 // ldr q24, [x9, #48]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800d38 // str q24, [x9, #48]
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
tileQ4KSDOT_gemv3:
	// Sub-block 4.
	WORD $0x3cc84090 // ldur q16, [x4, #132]
	WORD $0x3cc94091 // ldur q17, [x4, #148]
	WORD $0x3cc840b2 // ldur q18, [x5, #132]
	WORD $0x3cc940b3 // ldur q19, [x5, #148]
	WORD $0x3cc840d4 // ldur q20, [x6, #132]
	WORD $0x3cc940d5 // ldur q21, [x6, #148]
	WORD $0x3cc840f6 // ldur q22, [x7, #132]
	WORD $0x3cc940f7 // ldur q23, [x7, #148]
	WORD $0x3dc0413c // ldr q28, [x9, #256]
	WORD $0x3dc01418 // ldr q24, [x0, #80]
	WORD $0x3dc01819 // ldr q25, [x0, #96]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0364 // mla v4.4s, v27.4s, v28.s[0]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0348 // mla v8.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c036c // mla v12.4s, v27.4s, v28.s[0]
	WORD $0x3dc01438 // ldr q24, [x1, #80]
	WORD $0x3dc01839 // ldr q25, [x1, #96]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0365 // mla v5.4s, v27.4s, v28.s[1]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0349 // mla v9.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc036d // mla v13.4s, v27.4s, v28.s[1]
	WORD $0x3dc01458 // ldr q24, [x2, #80]
	WORD $0x3dc01859 // ldr q25, [x2, #96]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0b66 // mla v6.4s, v27.4s, v28.s[2]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0b4a // mla v10.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c0b6e // mla v14.4s, v27.4s, v28.s[2]
	WORD $0x3dc01478 // ldr q24, [x3, #80]
	WORD $0x3dc01879 // ldr q25, [x3, #96]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0b67 // mla v7.4s, v27.4s, v28.s[3]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0b4b // mla v11.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc0b6f // mla v15.4s, v27.4s, v28.s[3]
	// Sub-block 5.
	WORD $0x3cca4090 // ldur q16, [x4, #164]
	WORD $0x3ccb4091 // ldur q17, [x4, #180]
	WORD $0x3cca40b2 // ldur q18, [x5, #164]
	WORD $0x3ccb40b3 // ldur q19, [x5, #180]
	WORD $0x3cca40d4 // ldur q20, [x6, #164]
	WORD $0x3ccb40d5 // ldur q21, [x6, #180]
	WORD $0x3cca40f6 // ldur q22, [x7, #164]
	WORD $0x3ccb40f7 // ldur q23, [x7, #180]
	WORD $0x3dc0453c // ldr q28, [x9, #272]
	WORD $0x3dc01418 // ldr q24, [x0, #80]
	WORD $0x3dc01819 // ldr q25, [x0, #96]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0364 // mla v4.4s, v27.4s, v28.s[0]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0348 // mla v8.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c036c // mla v12.4s, v27.4s, v28.s[0]
	WORD $0x3dc01438 // ldr q24, [x1, #80]
	WORD $0x3dc01839 // ldr q25, [x1, #96]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0365 // mla v5.4s, v27.4s, v28.s[1]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0349 // mla v9.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc036d // mla v13.4s, v27.4s, v28.s[1]
	WORD $0x3dc01458 // ldr q24, [x2, #80]
	WORD $0x3dc01859 // ldr q25, [x2, #96]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0b66 // mla v6.4s, v27.4s, v28.s[2]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0b4a // mla v10.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c0b6e // mla v14.4s, v27.4s, v28.s[2]
	WORD $0x3dc01478 // ldr q24, [x3, #80]
	WORD $0x3dc01879 // ldr q25, [x3, #96]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0b67 // mla v7.4s, v27.4s, v28.s[3]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0b4b // mla v11.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc0b6f // mla v15.4s, v27.4s, v28.s[3]
	CBZ R11, tileQ4KSDOT_gemv5
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0x4ea1bc1a // addp v26.4s, v0.4s, v1.4s
	WORD $0x4ea3bc5b // addp v27.4s, v2.4s, v3.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0213b // ldr q27, [x9, #128]
	WORD $0x3dc00138 // ldr q24, [x9, #0]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800138 // str q24, [x9, #0]
	WORD $0x4ea5bc9a // addp v26.4s, v4.4s, v5.4s
	WORD $0x4ea7bcdb // addp v27.4s, v6.4s, v7.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0253b // ldr q27, [x9, #144]
	WORD $0x3dc00538 // ldr q24, [x9, #16]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800538 // str q24, [x9, #16]
	WORD $0x4ea9bd1a // addp v26.4s, v8.4s, v9.4s
	WORD $0x4eabbd5b // addp v27.4s, v10.4s, v11.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0293b // ldr q27, [x9, #160]
	WORD $0x3dc00938 // ldr q24, [x9, #32]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800938 // str q24, [x9, #32]
	WORD $0x4eadbd9a // addp v26.4s, v12.4s, v13.4s
	WORD $0x4eafbddb // addp v27.4s, v14.4s, v15.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc02d3b // ldr q27, [x9, #176]
	WORD $0x3dc00d38 // ldr q24, [x9, #48]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800d38 // str q24, [x9, #48]
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
tileQ4KSDOT_gemv5:
	// Sub-block 6.
	WORD $0x3ccc4090 // ldur q16, [x4, #196]
	WORD $0x3ccd4091 // ldur q17, [x4, #212]
	WORD $0x3ccc40b2 // ldur q18, [x5, #196]
	WORD $0x3ccd40b3 // ldur q19, [x5, #212]
	WORD $0x3ccc40d4 // ldur q20, [x6, #196]
	WORD $0x3ccd40d5 // ldur q21, [x6, #212]
	WORD $0x3ccc40f6 // ldur q22, [x7, #196]
	WORD $0x3ccd40f7 // ldur q23, [x7, #212]
	WORD $0x3dc0493c // ldr q28, [x9, #288]
	WORD $0x3dc01c18 // ldr q24, [x0, #112]
	WORD $0x3dc02019 // ldr q25, [x0, #128]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0364 // mla v4.4s, v27.4s, v28.s[0]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0348 // mla v8.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c036c // mla v12.4s, v27.4s, v28.s[0]
	WORD $0x3dc01c38 // ldr q24, [x1, #112]
	WORD $0x3dc02039 // ldr q25, [x1, #128]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0365 // mla v5.4s, v27.4s, v28.s[1]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0349 // mla v9.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc036d // mla v13.4s, v27.4s, v28.s[1]
	WORD $0x3dc01c58 // ldr q24, [x2, #112]
	WORD $0x3dc02059 // ldr q25, [x2, #128]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0b66 // mla v6.4s, v27.4s, v28.s[2]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0b4a // mla v10.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c0b6e // mla v14.4s, v27.4s, v28.s[2]
	WORD $0x3dc01c78 // ldr q24, [x3, #112]
	WORD $0x3dc02079 // ldr q25, [x3, #128]
	WORD $0x4e3f1f18 // and v24.16b, v24.16b, v31.16b
	WORD $0x4e3f1f39 // and v25.16b, v25.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0b67 // mla v7.4s, v27.4s, v28.s[3]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0b4b // mla v11.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc0b6f // mla v15.4s, v27.4s, v28.s[3]
	// Sub-block 7.
	WORD $0x3cce4090 // ldur q16, [x4, #228]
	WORD $0x3ccf4091 // ldur q17, [x4, #244]
	WORD $0x3cce40b2 // ldur q18, [x5, #228]
	WORD $0x3ccf40b3 // ldur q19, [x5, #244]
	WORD $0x3cce40d4 // ldur q20, [x6, #228]
	WORD $0x3ccf40d5 // ldur q21, [x6, #244]
	WORD $0x3cce40f6 // ldur q22, [x7, #228]
	WORD $0x3ccf40f7 // ldur q23, [x7, #244]
	WORD $0x3dc04d3c // ldr q28, [x9, #304]
	WORD $0x3dc01c18 // ldr q24, [x0, #112]
	WORD $0x3dc02019 // ldr q25, [x0, #128]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0364 // mla v4.4s, v27.4s, v28.s[0]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0348 // mla v8.4s, v26.4s, v28.s[0]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c036c // mla v12.4s, v27.4s, v28.s[0]
	WORD $0x3dc01c38 // ldr q24, [x1, #112]
	WORD $0x3dc02039 // ldr q25, [x1, #128]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0365 // mla v5.4s, v27.4s, v28.s[1]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0349 // mla v9.4s, v26.4s, v28.s[1]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc036d // mla v13.4s, v27.4s, v28.s[1]
	WORD $0x3dc01c58 // ldr q24, [x2, #112]
	WORD $0x3dc02059 // ldr q25, [x2, #128]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6f9c0b66 // mla v6.4s, v27.4s, v28.s[2]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6f9c0b4a // mla v10.4s, v26.4s, v28.s[2]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6f9c0b6e // mla v14.4s, v27.4s, v28.s[2]
	WORD $0x3dc01c78 // ldr q24, [x3, #112]
	WORD $0x3dc02079 // ldr q25, [x3, #128]
	WORD $0x6f0c0718 // ushr v24.16b, v24.16b, #4
	WORD $0x6f0c0739 // ushr v25.16b, v25.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e92971b // sdot v27.4s, v24.16b, v18.16b
	WORD $0x4e93973b // sdot v27.4s, v25.16b, v19.16b
	WORD $0x6fbc0b67 // mla v7.4s, v27.4s, v28.s[3]
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e94971a // sdot v26.4s, v24.16b, v20.16b
	WORD $0x4e95973a // sdot v26.4s, v25.16b, v21.16b
	WORD $0x6fbc0b4b // mla v11.4s, v26.4s, v28.s[3]
	WORD $0x4f00041b // movi v27.4s, #0
	WORD $0x4e96971b // sdot v27.4s, v24.16b, v22.16b
	WORD $0x4e97973b // sdot v27.4s, v25.16b, v23.16b
	WORD $0x6fbc0b6f // mla v15.4s, v27.4s, v28.s[3]
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0x4ea1bc1a // addp v26.4s, v0.4s, v1.4s
	WORD $0x4ea3bc5b // addp v27.4s, v2.4s, v3.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0213b // ldr q27, [x9, #128]
	WORD $0x3dc00138 // ldr q24, [x9, #0]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800138 // str q24, [x9, #0]
	WORD $0x4ea5bc9a // addp v26.4s, v4.4s, v5.4s
	WORD $0x4ea7bcdb // addp v27.4s, v6.4s, v7.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0253b // ldr q27, [x9, #144]
	WORD $0x3dc00538 // ldr q24, [x9, #16]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800538 // str q24, [x9, #16]
	WORD $0x4ea9bd1a // addp v26.4s, v8.4s, v9.4s
	WORD $0x4eabbd5b // addp v27.4s, v10.4s, v11.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0293b // ldr q27, [x9, #160]
	WORD $0x3dc00938 // ldr q24, [x9, #32]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800938 // str q24, [x9, #32]
	WORD $0x4eadbd9a // addp v26.4s, v12.4s, v13.4s
	WORD $0x4eafbddb // addp v27.4s, v14.4s, v15.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc02d3b // ldr q27, [x9, #176]
	WORD $0x3dc00d38 // ldr q24, [x9, #48]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800d38 // str q24, [x9, #48]
	ADD $144, R0
	ADD $144, R1
	ADD $144, R2
	ADD $144, R3
	ADD $292, R4
	ADD $292, R5
	ADD $292, R6
	ADD $292, R7
	SUBS $1, R8
	BNE tileQ4KSDOT_loop
	RET


// tileQ4Kx1SDOT(w *byte, wstride int, x *q8KBlock, xstride int, n int, gemm int, scr *q4KScratch, idx *[28][16]byte)
//
// The SDOT form of tileQ4KI8MM (neon_i8mm_arm64.s) for weight rows 0-3
// and activation row 0 alone, with the same decoding of the scales,
// each sub-block's scales as one vector of the four rows (idx entries
// 20-27) and d·xd in scr. Per sub-block v16-v17 hold the activation
// row's quants, v8-v15 a chunk of the weight rows' packed quants,
// v24-v25 a weight row's sub-block, v28 the scales; output i sums
// its scaled lanes in v[i], which each chunk adds up and scales into
// scr.acc[i]; the minimums go to scr.accMin[i].
TEXT ·tileQ4Kx1SDOT(SB), NOSPLIT, $0-64
	MOVD w+0(FP), R0
	MOVD wstride+8(FP), R12
	MOVD x+16(FP), R4
	MOVD xstride+24(FP), R13
	MOVD n+32(FP), R8
	MOVD gemm+40(FP), R11
	MOVD scr+48(FP), R9
	MOVD idx+56(FP), R10
	ADD R12, R0, R1
	ADD R12, R1, R2
	ADD R12, R2, R3
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f01e7fe // movi v30.16b, #63
tileQ4Kx1SDOT_loop:
	WORD $0x3dc00010 // ldr q16, [x0]
	WORD $0x3dc00031 // ldr q17, [x1]
	WORD $0x3dc00052 // ldr q18, [x2]
	WORD $0x3dc00073 // ldr q19, [x3]
	WORD $0x4e912a14 // trn1 v20.4s, v16.4s, v17.4s
	WORD $0x4e916a15 // trn2 v21.4s, v16.4s, v17.4s
	WORD $0x4e932a56 // trn1 v22.4s, v18.4s, v19.4s
	WORD $0x4e936a57 // trn2 v23.4s, v18.4s, v19.4s
	WORD $0x4ed63a90 // zip1 v16.2d, v20.2d, v22.2d
	WORD $0x4ed67a91 // zip2 v17.2d, v20.2d, v22.2d
	WORD $0x4ed73ab2 // zip1 v18.2d, v21.2d, v23.2d
	WORD $0x4ed77ab3 // zip2 v19.2d, v21.2d, v23.2d
	WORD $0x4e3e1e54 // and v20.16b, v18.16b, v30.16b
	WORD $0x4e3e1e36 // and v22.16b, v17.16b, v30.16b
	WORD $0x6f0a0658 // ushr v24.16b, v18.16b, #6
	WORD $0x4f0c5718 // shl v24.16b, v24.16b, #4
	WORD $0x4e3f1e75 // and v21.16b, v19.16b, v31.16b
	WORD $0x4eb81eb5 // orr v21.16b, v21.16b, v24.16b
	WORD $0x6f0a0639 // ushr v25.16b, v17.16b, #6
	WORD $0x4f0c5739 // shl v25.16b, v25.16b, #4
	WORD $0x6f0c0677 // ushr v23.16b, v19.16b, #4
	WORD $0x4eb91ef7 // orr v23.16b, v23.16b, v25.16b
	// scr: sub-block s's int32 scales of rows 0-3.
	WORD $0x3dc05158 // ldr q24, [x10, #320]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803138 // str q24, [x9, #192]
	WORD $0x3dc05558 // ldr q24, [x10, #336]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803538 // str q24, [x9, #208]
	WORD $0x3dc05958 // ldr q24, [x10, #352]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803938 // str q24, [x9, #224]
	WORD $0x3dc05d58 // ldr q24, [x10, #368]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803d38 // str q24, [x9, #240]
	WORD $0x3dc06158 // ldr q24, [x10, #384]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804138 // str q24, [x9, #256]
	WORD $0x3dc06558 // ldr q24, [x10, #400]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804538 // str q24, [x9, #272]
	WORD $0x3dc06958 // ldr q24, [x10, #416]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804938 // str q24, [x9, #288]
	WORD $0x3dc06d58 // ldr q24, [x10, #432]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804d38 // str q24, [x9, #304]
	// scr: d·xd_j for rows 0-3; v16-v19: dmin·xd_j.
	WORD $0x0e217a18 // fcvtl v24.4s, v16.4h
	WORD $0x4e217a19 // fcvtl2 v25.4s, v16.8h
	WORD $0x4e991b1b // uzp1 v27.4s, v24.4s, v25.4s
	WORD $0x4e995b1c // uzp2 v28.4s, v24.4s, v25.4s
	WORD $0x0d40809d // ld1 {v29.s}[0], [x4]
	WORD $0x4f9d9370 // fmul v16.4s, v27.4s, v29.s[0]
	WORD $0x3d802130 // str q16, [x9, #128]
	WORD $0x4f9d9390 // fmul v16.4s, v28.4s, v29.s[0]
	WORD $0x3dc04158 // ldr q24, [x10, #256]
	WORD $0x4e1822d8 // tbl v24.16b, {v22.16b, v23.16b}, v24.16b
	WORD $0x3dc04559 // ldr q25, [x10, #272]
	WORD $0x4e1922d9 // tbl v25.16b, {v22.16b, v23.16b}, v25.16b
	WORD $0x3dc0495a // ldr q26, [x10, #288]
	WORD $0x4e1a22da // tbl v26.16b, {v22.16b, v23.16b}, v26.16b
	WORD $0x3dc04d5b // ldr q27, [x10, #304]
	WORD $0x4e1b22db // tbl v27.16b, {v22.16b, v23.16b}, v27.16b
	ADD $260, R4, R12
	WORD $0xad40759c // ldp q28, q29, [x12]
	WORD $0x4e7dbf80 // addp v0.8h, v28.8h, v29.8h
	WORD $0x3dc01124 // ldr q4, [x9, #64]
	CBZ R11, tileQ4Kx1SDOT_mingemv
	WORD $0x0f40a308 // smull v8.4s, v24.4h, v0.h[0]
	WORD $0x4f502308 // smlal2 v8.4s, v24.8h, v0.h[1]
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e30cd04 // fmla v4.4s, v8.4s, v16.4s
	WORD $0x0f60a328 // smull v8.4s, v25.4h, v0.h[2]
	WORD $0x4f702328 // smlal2 v8.4s, v25.8h, v0.h[3]
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e30cd04 // fmla v4.4s, v8.4s, v16.4s
	WORD $0x0f40ab48 // smull v8.4s, v26.4h, v0.h[4]
	WORD $0x4f502b48 // smlal2 v8.4s, v26.8h, v0.h[5]
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e30cd04 // fmla v4.4s, v8.4s, v16.4s
	WORD $0x0f60ab68 // smull v8.4s, v27.4h, v0.h[6]
	WORD $0x4f702b68 // smlal2 v8.4s, v27.8h, v0.h[7]
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e30cd04 // fmla v4.4s, v8.4s, v16.4s
	B tileQ4Kx1SDOT_mindone
tileQ4Kx1SDOT_mingemv:
	WORD $0x0f40a308 // smull v8.4s, v24.4h, v0.h[0]
	WORD $0x4f502308 // smlal2 v8.4s, v24.8h, v0.h[1]
	WORD $0x0f602328 // smlal v8.4s, v25.4h, v0.h[2]
	WORD $0x4f702328 // smlal2 v8.4s, v25.8h, v0.h[3]
	WORD $0x0f402b48 // smlal v8.4s, v26.4h, v0.h[4]
	WORD $0x4f502b48 // smlal2 v8.4s, v26.8h, v0.h[5]
	WORD $0x0f602b68 // smlal v8.4s, v27.4h, v0.h[6]
	WORD $0x4f702b68 // smlal2 v8.4s, v27.8h, v0.h[7]
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e30cd04 // fmla v4.4s, v8.4s, v16.4s
tileQ4Kx1SDOT_mindone:
	WORD $0x3d801124 // str q4, [x9, #64]
	// Sub-block 0.
	WORD $0x4f000400 // movi v0.4s, #0
	WORD $0x4f000401 // movi v1.4s, #0
	WORD $0x4f000402 // movi v2.4s, #0
	WORD $0x4f000403 // movi v3.4s, #0
	WORD $0x3cc04090 // ldur q16, [x4, #4]
	WORD $0x3cc14091 // ldur q17, [x4, #20]
	WORD $0x3dc0313c // ldr q28, [x9, #192]
	WORD $0x3dc00408 // ldr q8, [x0, #16]
	WORD $0x3dc00809 // ldr q9, [x0, #32]
	WORD $0x3dc0042a // ldr q10, [x1, #16]
	WORD $0x3dc0082b // ldr q11, [x1, #32]
	WORD $0x3dc0044c // ldr q12, [x2, #16]
	WORD $0x3dc0084d // ldr q13, [x2, #32]
	WORD $0x3dc0046e // ldr q14, [x3, #16]
	WORD $0x3dc0086f // ldr q15, [x3, #32]
	WORD $0x4e3f1d18 // and v24.16b, v8.16b, v31.16b
	WORD $0x4e3f1d39 // and v25.16b, v9.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4e3f1d58 // and v24.16b, v10.16b, v31.16b
	WORD $0x4e3f1d79 // and v25.16b, v11.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4e3f1d98 // and v24.16b, v12.16b, v31.16b
	WORD $0x4e3f1db9 // and v25.16b, v13.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4e3f1dd8 // and v24.16b, v14.16b, v31.16b
	WORD $0x4e3f1df9 // and v25.16b, v15.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	// Sub-block 1.
	WORD $0x3cc24090 // ldur q16, [x4, #36]
	WORD $0x3cc34091 // ldur q17, [x4, #52]
	WORD $0x3dc0353c // ldr q28, [x9, #208]
	WORD $0x6f0c0518 // ushr v24.16b, v8.16b, #4
	WORD $0x6f0c0539 // ushr v25.16b, v9.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x6f0c0558 // ushr v24.16b, v10.16b, #4
	WORD $0x6f0c0579 // ushr v25.16b, v11.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x6f0c0598 // ushr v24.16b, v12.16b, #4
	WORD $0x6f0c05b9 // ushr v25.16b, v13.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x6f0c05d8 // ushr v24.16b, v14.16b, #4
	WORD $0x6f0c05f9 // ushr v25.16b, v15.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	CBZ R11, tileQ4Kx1SDOT_gemv1
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0x4ea1bc1a // addp v26.4s, v0.4s, v1.4s
	WORD $0x4ea3bc5b // addp v27.4s, v2.4s, v3.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0213b // ldr q27, [x9, #128]
	WORD $0x3dc00138 // ldr q24, [x9, #0]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800138 // str q24, [x9, #0]
	WORD $0x4f000400 // movi v0.4s, #0
	WORD $0x4f000401 // movi v1.4s, #0
	WORD $0x4f000402 // movi v2.4s, #0
	WORD $0x4f000403 // movi v3.4s, #0
tileQ4Kx1SDOT_gemv1:
	// Sub-block 2.
	WORD $0x3cc44090 // ldur q16, [x4, #68]
	WORD $0x3cc54091 // ldur q17, [x4, #84]
	WORD $0x3dc0393c // ldr q28, [x9, #224]
	WORD $0x3dc00c08 // ldr q8, [x0, #48]
	WORD $0x3dc01009 // ldr q9, [x0, #64]
	WORD $0x3dc00c2a // ldr q10, [x1, #48]
	WORD $0x3dc0102b // ldr q11, [x1, #64]
	WORD $0x3dc00c4c // ldr q12, [x2, #48]
	WORD $0x3dc0104d // ldr q13, [x2, #64]
	WORD $0x3dc00c6e // ldr q14, [x3, #48]
	WORD $0x3dc0106f // ldr q15, [x3, #64]
	WORD $0x4e3f1d18 // and v24.16b, v8.16b, v31.16b
	WORD $0x4e3f1d39 // and v25.16b, v9.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4e3f1d58 // and v24.16b, v10.16b, v31.16b
	WORD $0x4e3f1d79 // and v25.16b, v11.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4e3f1d98 // and v24.16b, v12.16b, v31.16b
	WORD $0x4e3f1db9 // and v25.16b, v13.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4e3f1dd8 // and v24.16b, v14.16b, v31.16b
	WORD $0x4e3f1df9 // and v25.16b, v15.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	// Sub-block 3.
	WORD $0x3cc64090 // ldur q16, [x4, #100]
	WORD $0x3cc74091 // ldur q17, [x4, #116]
	WORD $0x3dc03d3c // ldr q28, [x9, #240]
	WORD $0x6f0c0518 // ushr v24.16b, v8.16b, #4
	WORD $0x6f0c0539 // ushr v25.16b, v9.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x6f0c0558 // ushr v24.16b, v10.16b, #4
	WORD $0x6f0c0579 // ushr v25.16b, v11.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x6f0c0598 // ushr v24.16b, v12.16b, #4
	WORD $0x6f0c05b9 // ushr v25.16b, v13.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x6f0c05d8 // ushr v24.16b, v14.16b, #4
	WORD $0x6f0c05f9 // ushr v25.16b, v15.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	CBZ R11, tileQ4Kx1SDOT_gemv3
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0x4ea1bc1a // addp v26.4s, v0.4s, v1.4s
	WORD $0x4ea3bc5b // addp v27.4s, v2.4s, v3.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0213b // ldr q27, [x9, #128]
	WORD $0x3dc00138 // ldr q24, [x9, #0]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800138 // str q24, [x9, #0]
	WORD $0x4f000400 // movi v0.4s, #0
	WORD $0x4f000401 // movi v1.4s, #0
	WORD $0x4f000402 // movi v2.4s, #0
	WORD $0x4f000403 // movi v3.4s, #0
tileQ4Kx1SDOT_gemv3:
	// Sub-block 4.
	WORD $0x3cc84090 // ldur q16, [x4, #132]
	WORD $0x3cc94091 // ldur q17, [x4, #148]
	WORD $0x3dc0413c // ldr q28, [x9, #256]
	WORD $0x3dc01408 // ldr q8, [x0, #80]
	WORD $0x3dc01809 // ldr q9, [x0, #96]
	WORD $0x3dc0142a // ldr q10, [x1, #80]
	WORD $0x3dc0182b // ldr q11, [x1, #96]
	WORD $0x3dc0144c // ldr q12, [x2, #80]
	WORD $0x3dc0184d // ldr q13, [x2, #96]
	WORD $0x3dc0146e // ldr q14, [x3, #80]
	WORD $0x3dc0186f // ldr q15, [x3, #96]
	WORD $0x4e3f1d18 // and v24.16b, v8.16b, v31.16b
	WORD $0x4e3f1d39 // and v25.16b, v9.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4e3f1d58 // and v24.16b, v10.16b, v31.16b
	WORD $0x4e3f1d79 // and v25.16b, v11.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4e3f1d98 // and v24.16b, v12.16b, v31.16b
	WORD $0x4e3f1db9 // and v25.16b, v13.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4e3f1dd8 // and v24.16b, v14.16b, v31.16b
	WORD $0x4e3f1df9 // and v25.16b, v15.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	// Sub-block 5.
	WORD $0x3cca4090 // ldur q16, [x4, #164]
	WORD $0x3ccb4091 // ldur q17, [x4, #180]
	WORD $0x3dc0453c // ldr q28, [x9, #272]
	WORD $0x6f0c0518 // ushr v24.16b, v8.16b, #4
	WORD $0x6f0c0539 // ushr v25.16b, v9.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x6f0c0558 // ushr v24.16b, v10.16b, #4
	WORD $0x6f0c0579 // ushr v25.16b, v11.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x6f0c0598 // ushr v24.16b, v12.16b, #4
	WORD $0x6f0c05b9 // ushr v25.16b, v13.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x6f0c05d8 // ushr v24.16b, v14.16b, #4
	WORD $0x6f0c05f9 // ushr v25.16b, v15.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	CBZ R11, tileQ4Kx1SDOT_gemv5
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0x4ea1bc1a // addp v26.4s, v0.4s, v1.4s
	WORD $0x4ea3bc5b // addp v27.4s, v2.4s, v3.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0213b // ldr q27, [x9, #128]
	WORD $0x3dc00138 // ldr q24, [x9, #0]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800138 // str q24, [x9, #0]
	WORD $0x4f000400 // movi v0.4s, #0
	WORD $0x4f000401 // movi v1.4s, #0
	WORD $0x4f000402 // movi v2.4s, #0
	WORD $0x4f000403 // movi v3.4s, #0
tileQ4Kx1SDOT_gemv5:
	// Sub-block 6.
	WORD $0x3ccc4090 // ldur q16, [x4, #196]
	WORD $0x3ccd4091 // ldur q17, [x4, #212]
	WORD $0x3dc0493c // ldr q28, [x9, #288]
	WORD $0x3dc01c08 // ldr q8, [x0, #112]
	WORD $0x3dc02009 // ldr q9, [x0, #128]
	WORD $0x3dc01c2a // ldr q10, [x1, #112]
	WORD $0x3dc0202b // ldr q11, [x1, #128]
	WORD $0x3dc01c4c // ldr q12, [x2, #112]
	WORD $0x3dc0204d // ldr q13, [x2, #128]
	WORD $0x3dc01c6e // ldr q14, [x3, #112]
	WORD $0x3dc0206f // ldr q15, [x3, #128]
	WORD $0x4e3f1d18 // and v24.16b, v8.16b, v31.16b
	WORD $0x4e3f1d39 // and v25.16b, v9.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x4e3f1d58 // and v24.16b, v10.16b, v31.16b
	WORD $0x4e3f1d79 // and v25.16b, v11.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x4e3f1d98 // and v24.16b, v12.16b, v31.16b
	WORD $0x4e3f1db9 // and v25.16b, v13.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x4e3f1dd8 // and v24.16b, v14.16b, v31.16b
	WORD $0x4e3f1df9 // and v25.16b, v15.16b, v31.16b
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	// Sub-block 7.
	WORD $0x3cce4090 // ldur q16, [x4, #228]
	WORD $0x3ccf4091 // ldur q17, [x4, #244]
	WORD $0x3dc04d3c // ldr q28, [x9, #304]
	WORD $0x6f0c0518 // ushr v24.16b, v8.16b, #4
	WORD $0x6f0c0539 // ushr v25.16b, v9.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0340 // mla v0.4s, v26.4s, v28.s[0]
	WORD $0x6f0c0558 // ushr v24.16b, v10.16b, #4
	WORD $0x6f0c0579 // ushr v25.16b, v11.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0341 // mla v1.4s, v26.4s, v28.s[1]
	WORD $0x6f0c0598 // ushr v24.16b, v12.16b, #4
	WORD $0x6f0c05b9 // ushr v25.16b, v13.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6f9c0b42 // mla v2.4s, v26.4s, v28.s[2]
	WORD $0x6f0c05d8 // ushr v24.16b, v14.16b, #4
	WORD $0x6f0c05f9 // ushr v25.16b, v15.16b, #4
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4e90971a // sdot v26.4s, v24.16b, v16.16b
	WORD $0x4e91973a // sdot v26.4s, v25.16b, v17.16b
	WORD $0x6fbc0b43 // mla v3.4s, v26.4s, v28.s[3]
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0x4ea1bc1a // addp v26.4s, v0.4s, v1.4s
	WORD $0x4ea3bc5b // addp v27.4s, v2.4s, v3.4s
	WORD $0x4ebbbf5a // addp v26.4s, v26.4s, v27.4s
	WORD $0x4e21db5a // scvtf v26.4s, v26.4s
	WORD $0x3dc0213b // ldr q27, [x9, #128]
	WORD $0x3dc00138 // ldr q24, [x9, #0]
	WORD $0x4e3bcf58 // fmla v24.4s, v26.4s, v27.4s
	WORD $0x3d800138 // str q24, [x9, #0]
	ADD $144, R0
	ADD $144, R1
	ADD $144, R2
	ADD $144, R3
	ADD $292, R4
	SUBS $1, R8
	BNE tileQ4Kx1SDOT_loop
	RET
