#include "textflag.h"
#include "neon_i8mm_arm64.h"

// The i8mm tile kernels (neon_i8mm_arm64.go says what each computes).
// SMMLA multiplies a 2×8 matrix of int8 (two weight rows' eight quants) by
// an 8×2 one (two activation rows' eight quants) into a 2×2 int32 tile,
// lanes (w0,x0), (w0,x1), (w1,x0), (w1,x1). As in neon_arm64.s, each NEON
// instruction is a WORD with its ARM syntax in the comment (encodings from
// llvm-mc -triple=aarch64 -mattr=+dotprod,+i8mm).
// Registers: x0-x9 and v0-v31 are scratch.

// tileQ40I8MM(w *byte, wstride int, x *q8Block, xstride int, n int, res *[16]float32)
//
// Weight rows 0-3 in x0-x3, activation rows 0-3 in x4-x7, blocks left in
// x8. Per block: v0-v3 hold activation rows 0,1 interleaved by 8 bytes
// (elements 0-7, 8-15, 16-23, 24-31), v4-v7 rows 2,3; v20-v23 a pair of
// weight rows unpacked the same way; v8-v11 the block's integer tiles
// (w01·x01, w01·x23, w23·x01, w23·x23) and v12-v15 their float sums.
TEXT ·tileQ40I8MM(SB), NOSPLIT, $0-48
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
	ADD R11, R5, R6
	ADD R11, R6, R7
	WORD $0x4f00e5ff // movi v31.16b, #15
	WORD $0x4f00e51e // movi v30.16b, #8
	WORD $0x4f00040c // movi v12.4s, #0
	WORD $0x4f00040d // movi v13.4s, #0
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4f00040f // movi v15.4s, #0
tileQ40I8MM_loop:
	// Scales: v25 = d0 d0 d1 d1, v24 = d2 d2 d3 d3 (weights); v27 = e0 e1
	// e0 e1, v26 = e2 e3 e2 e3 (activations).
	WORD $0x0d404018 // ld1 {v24.h}[0], [x0]
	WORD $0x0d404838 // ld1 {v24.h}[1], [x1]
	WORD $0x0d405058 // ld1 {v24.h}[2], [x2]
	WORD $0x0d405878 // ld1 {v24.h}[3], [x3]
	WORD $0x0d40809a // ld1 {v26.s}[0], [x4]
	WORD $0x0d4090ba // ld1 {v26.s}[1], [x5]
	WORD $0x4d4080da // ld1 {v26.s}[2], [x6]
	WORD $0x4d4090fa // ld1 {v26.s}[3], [x7]
	WORD $0x0e217b18 // fcvtl v24.4s, v24.4h
	WORD $0x4e983b19 // zip1 v25.4s, v24.4s, v24.4s
	WORD $0x4e987b18 // zip2 v24.4s, v24.4s, v24.4s
	WORD $0x4e08075b // dup v27.2d, v26.d[0]
	WORD $0x4e18075a // dup v26.2d, v26.d[1]
	// Activations.
	WORD $0x3cc08090 // ldur q16, [x4, #8]
	WORD $0x3cc18091 // ldur q17, [x4, #24]
	WORD $0x3cc080b2 // ldur q18, [x5, #8]
	WORD $0x3cc180b3 // ldur q19, [x5, #24]
	WORD $0x4ed23a00 // zip1 v0.2d, v16.2d, v18.2d
	WORD $0x4ed27a01 // zip2 v1.2d, v16.2d, v18.2d
	WORD $0x4ed33a22 // zip1 v2.2d, v17.2d, v19.2d
	WORD $0x4ed37a23 // zip2 v3.2d, v17.2d, v19.2d
	WORD $0x3cc080d0 // ldur q16, [x6, #8]
	WORD $0x3cc180d1 // ldur q17, [x6, #24]
	WORD $0x3cc080f2 // ldur q18, [x7, #8]
	WORD $0x3cc180f3 // ldur q19, [x7, #24]
	WORD $0x4ed23a04 // zip1 v4.2d, v16.2d, v18.2d
	WORD $0x4ed27a05 // zip2 v5.2d, v16.2d, v18.2d
	WORD $0x4ed33a26 // zip1 v6.2d, v17.2d, v19.2d
	WORD $0x4ed37a27 // zip2 v7.2d, v17.2d, v19.2d
	WORD $0x4f000408 // movi v8.4s, #0
	WORD $0x4f000409 // movi v9.4s, #0
	WORD $0x4f00040a // movi v10.4s, #0
	WORD $0x4f00040b // movi v11.4s, #0
	// Weight rows 0 and 1.
	WORD $0x3cc02010 // ldur q16, [x0, #2]
	WORD $0x3cc02031 // ldur q17, [x1, #2]
	WORD $0x4e3f1e12 // and v18.16b, v16.16b, v31.16b
	WORD $0x6f0c0610 // ushr v16.16b, v16.16b, #4
	WORD $0x4e3f1e33 // and v19.16b, v17.16b, v31.16b
	WORD $0x6f0c0631 // ushr v17.16b, v17.16b, #4
	WORD $0x6e3e8652 // sub v18.16b, v18.16b, v30.16b
	WORD $0x6e3e8610 // sub v16.16b, v16.16b, v30.16b
	WORD $0x6e3e8673 // sub v19.16b, v19.16b, v30.16b
	WORD $0x6e3e8631 // sub v17.16b, v17.16b, v30.16b
	WORD $0x4ed33a54 // zip1 v20.2d, v18.2d, v19.2d
	WORD $0x4ed37a55 // zip2 v21.2d, v18.2d, v19.2d
	WORD $0x4ed13a16 // zip1 v22.2d, v16.2d, v17.2d
	WORD $0x4ed17a17 // zip2 v23.2d, v16.2d, v17.2d
	WORD $0x4e80a688 // smmla v8.4s, v20.16b, v0.16b
	WORD $0x4e84a689 // smmla v9.4s, v20.16b, v4.16b
	WORD $0x4e81a6a8 // smmla v8.4s, v21.16b, v1.16b
	WORD $0x4e85a6a9 // smmla v9.4s, v21.16b, v5.16b
	WORD $0x4e82a6c8 // smmla v8.4s, v22.16b, v2.16b
	WORD $0x4e86a6c9 // smmla v9.4s, v22.16b, v6.16b
	WORD $0x4e83a6e8 // smmla v8.4s, v23.16b, v3.16b
	WORD $0x4e87a6e9 // smmla v9.4s, v23.16b, v7.16b
	// Weight rows 2 and 3.
	WORD $0x3cc02050 // ldur q16, [x2, #2]
	WORD $0x3cc02071 // ldur q17, [x3, #2]
	WORD $0x4e3f1e12 // and v18.16b, v16.16b, v31.16b
	WORD $0x6f0c0610 // ushr v16.16b, v16.16b, #4
	WORD $0x4e3f1e33 // and v19.16b, v17.16b, v31.16b
	WORD $0x6f0c0631 // ushr v17.16b, v17.16b, #4
	WORD $0x6e3e8652 // sub v18.16b, v18.16b, v30.16b
	WORD $0x6e3e8610 // sub v16.16b, v16.16b, v30.16b
	WORD $0x6e3e8673 // sub v19.16b, v19.16b, v30.16b
	WORD $0x6e3e8631 // sub v17.16b, v17.16b, v30.16b
	WORD $0x4ed33a54 // zip1 v20.2d, v18.2d, v19.2d
	WORD $0x4ed37a55 // zip2 v21.2d, v18.2d, v19.2d
	WORD $0x4ed13a16 // zip1 v22.2d, v16.2d, v17.2d
	WORD $0x4ed17a17 // zip2 v23.2d, v16.2d, v17.2d
	WORD $0x4e80a68a // smmla v10.4s, v20.16b, v0.16b
	WORD $0x4e84a68b // smmla v11.4s, v20.16b, v4.16b
	WORD $0x4e81a6aa // smmla v10.4s, v21.16b, v1.16b
	WORD $0x4e85a6ab // smmla v11.4s, v21.16b, v5.16b
	WORD $0x4e82a6ca // smmla v10.4s, v22.16b, v2.16b
	WORD $0x4e86a6cb // smmla v11.4s, v22.16b, v6.16b
	WORD $0x4e83a6ea // smmla v10.4s, v23.16b, v3.16b
	WORD $0x4e87a6eb // smmla v11.4s, v23.16b, v7.16b
	// sum = fma(float(sumi), d·e, sum) per output, as dot32.
	WORD $0x6e3bdf3c // fmul v28.4s, v25.4s, v27.4s
	WORD $0x6e3adf3d // fmul v29.4s, v25.4s, v26.4s
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e21d929 // scvtf v9.4s, v9.4s
	WORD $0x4e3ccd0c // fmla v12.4s, v8.4s, v28.4s
	WORD $0x4e3dcd2d // fmla v13.4s, v9.4s, v29.4s
	WORD $0x6e3bdf1c // fmul v28.4s, v24.4s, v27.4s
	WORD $0x6e3adf1d // fmul v29.4s, v24.4s, v26.4s
	WORD $0x4e21d94a // scvtf v10.4s, v10.4s
	WORD $0x4e21d96b // scvtf v11.4s, v11.4s
	WORD $0x4e3ccd4e // fmla v14.4s, v10.4s, v28.4s
	WORD $0x4e3dcd6f // fmla v15.4s, v11.4s, v29.4s
	ADD $18, R0
	ADD $18, R1
	ADD $18, R2
	ADD $18, R3
	ADD $40, R4
	ADD $40, R5
	ADD $40, R6
	ADD $40, R7
	SUBS $1, R8
	BNE tileQ40I8MM_loop
	WORD $0x4c00292c // st1 {v12.4s, v13.4s, v14.4s, v15.4s}, [x9]
	RET

// tileQ4KI8MM(w *byte, wstride int, x *q8KBlock, xstride int, n int, gemm int, scr *q4KScratch, idx *[28][16]byte)
//
// Weight rows 0-3 in x0-x3, activation rows 0-3 in x4-x7, super-blocks
// left in x8, gemm in x11, scr in x9, idx in x10. Per super-block the
// prologue transposes the four rows' first 16 bytes (d, dmin, scales),
// decodes the 6-bit scales and minimums of the four rows at once, stores
// each sub-block's scale vectors (by idx entries 0-15) and the products
// d·xd in scr, and adds the minimums' chunk sums to scr.accMin (idx
// entries 16-19 give the minimums of two sub-blocks, by sub-block then
// weight row, as int16). Then per sub-block: v0-v3 hold activation rows
// 0,1 interleaved by 8 bytes, v4-v7 rows 2,3, v20-v23 a pair of weight
// rows the same way; v24-v25 the sub-block's SMMLA tiles, scaled into
// the integer sums v8-v11 (w01·x01, w01·x23, w23·x01, w23·x23), which
// each chunk (64 elements with gemm, else 256) scales into the float
// sums v12-v15.
TEXT ·tileQ4KI8MM(SB), NOSPLIT, $0-64
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
	WORD $0x4f00040c // movi v12.4s, #0
	WORD $0x4f00040d // movi v13.4s, #0
	WORD $0x4f00040e // movi v14.4s, #0
	WORD $0x4f00040f // movi v15.4s, #0
tileQ4KI8MM_loop:
	Q4K_DECODE
	// scr.sc[p][s]: sub-block s's int32 scales for weight pair p, in the
	// lanes of its SMMLA tiles.
	WORD $0x3dc00158 // ldr q24, [x10, #0]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803138 // str q24, [x9, #192]
	WORD $0x3dc00558 // ldr q24, [x10, #16]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803538 // str q24, [x9, #208]
	WORD $0x3dc00958 // ldr q24, [x10, #32]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803938 // str q24, [x9, #224]
	WORD $0x3dc00d58 // ldr q24, [x10, #48]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d803d38 // str q24, [x9, #240]
	WORD $0x3dc01158 // ldr q24, [x10, #64]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804138 // str q24, [x9, #256]
	WORD $0x3dc01558 // ldr q24, [x10, #80]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804538 // str q24, [x9, #272]
	WORD $0x3dc01958 // ldr q24, [x10, #96]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804938 // str q24, [x9, #288]
	WORD $0x3dc01d58 // ldr q24, [x10, #112]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d804d38 // str q24, [x9, #304]
	WORD $0x3dc02158 // ldr q24, [x10, #128]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d805138 // str q24, [x9, #320]
	WORD $0x3dc02558 // ldr q24, [x10, #144]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d805538 // str q24, [x9, #336]
	WORD $0x3dc02958 // ldr q24, [x10, #160]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d805938 // str q24, [x9, #352]
	WORD $0x3dc02d58 // ldr q24, [x10, #176]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d805d38 // str q24, [x9, #368]
	WORD $0x3dc03158 // ldr q24, [x10, #192]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d806138 // str q24, [x9, #384]
	WORD $0x3dc03558 // ldr q24, [x10, #208]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d806538 // str q24, [x9, #400]
	WORD $0x3dc03958 // ldr q24, [x10, #224]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d806938 // str q24, [x9, #416]
	WORD $0x3dc03d58 // ldr q24, [x10, #240]
	WORD $0x4e182298 // tbl v24.16b, {v20.16b, v21.16b}, v24.16b
	WORD $0x3d806d38 // str q24, [x9, #432]
	// scr.p: d·xd for the four tiles; v16-v19: dmin·xd_j, j = 0-3.
	WORD $0x0e217a18 // fcvtl v24.4s, v16.4h
	WORD $0x4e217a19 // fcvtl2 v25.4s, v16.8h
	WORD $0x4e982b1a // trn1 v26.4s, v24.4s, v24.4s
	WORD $0x4e992b3b // trn1 v27.4s, v25.4s, v25.4s
	WORD $0x4e995b1c // uzp2 v28.4s, v24.4s, v25.4s
	WORD $0x0d40809d // ld1 {v29.s}[0], [x4]
	WORD $0x0d4090bd // ld1 {v29.s}[1], [x5]
	WORD $0x4d4080dd // ld1 {v29.s}[2], [x6]
	WORD $0x4d4090fd // ld1 {v29.s}[3], [x7]
	WORD $0x4e0807b8 // dup v24.2d, v29.d[0]
	WORD $0x4e1807b9 // dup v25.2d, v29.d[1]
	WORD $0x6e38df50 // fmul v16.4s, v26.4s, v24.4s
	WORD $0x6e39df51 // fmul v17.4s, v26.4s, v25.4s
	WORD $0x6e38df72 // fmul v18.4s, v27.4s, v24.4s
	WORD $0x6e39df73 // fmul v19.4s, v27.4s, v25.4s
	WORD $0xad044530 // stp q16, q17, [x9, #128]
	WORD $0xad054d32 // stp q18, q19, [x9, #160]
	WORD $0x4f9d9390 // fmul v16.4s, v28.4s, v29.s[0]
	WORD $0x4fbd9391 // fmul v17.4s, v28.4s, v29.s[1]
	WORD $0x4f9d9b92 // fmul v18.4s, v28.4s, v29.s[2]
	WORD $0x4fbd9b93 // fmul v19.4s, v28.4s, v29.s[3]
	Q4K_MINS
	// Sub-block 0.
	WORD $0x4f000408 // movi v8.4s, #0
	WORD $0x4f000409 // movi v9.4s, #0
	WORD $0x4f00040a // movi v10.4s, #0
	WORD $0x4f00040b // movi v11.4s, #0
	WORD $0x3cc04090 // ldur q16, [x4, #4]
	WORD $0x3cc14091 // ldur q17, [x4, #20]
	WORD $0x3cc040b2 // ldur q18, [x5, #4]
	WORD $0x3cc140b3 // ldur q19, [x5, #20]
	WORD $0x4ed23a00 // zip1 v0.2d, v16.2d, v18.2d
	WORD $0x4ed27a01 // zip2 v1.2d, v16.2d, v18.2d
	WORD $0x4ed33a22 // zip1 v2.2d, v17.2d, v19.2d
	WORD $0x4ed37a23 // zip2 v3.2d, v17.2d, v19.2d
	WORD $0x3cc040d0 // ldur q16, [x6, #4]
	WORD $0x3cc140d1 // ldur q17, [x6, #20]
	WORD $0x3cc040f2 // ldur q18, [x7, #4]
	WORD $0x3cc140f3 // ldur q19, [x7, #20]
	WORD $0x4ed23a04 // zip1 v4.2d, v16.2d, v18.2d
	WORD $0x4ed27a05 // zip2 v5.2d, v16.2d, v18.2d
	WORD $0x4ed33a26 // zip1 v6.2d, v17.2d, v19.2d
	WORD $0x4ed37a27 // zip2 v7.2d, v17.2d, v19.2d
	WORD $0x3dc0313a // ldr q26, [x9, #192]
	WORD $0x3dc0513b // ldr q27, [x9, #320]
	WORD $0x3dc00410 // ldr q16, [x0, #16]
	WORD $0x3dc00811 // ldr q17, [x0, #32]
	WORD $0x3dc00432 // ldr q18, [x1, #16]
	WORD $0x3dc00833 // ldr q19, [x1, #32]
	WORD $0x4e3f1e10 // and v16.16b, v16.16b, v31.16b
	WORD $0x4e3f1e31 // and v17.16b, v17.16b, v31.16b
	WORD $0x4e3f1e52 // and v18.16b, v18.16b, v31.16b
	WORD $0x4e3f1e73 // and v19.16b, v19.16b, v31.16b
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4eba9708 // mla v8.4s, v24.4s, v26.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4eba9729 // mla v9.4s, v25.4s, v26.4s
	WORD $0x3dc00450 // ldr q16, [x2, #16]
	WORD $0x3dc00851 // ldr q17, [x2, #32]
	WORD $0x3dc00472 // ldr q18, [x3, #16]
	WORD $0x3dc00873 // ldr q19, [x3, #32]
	WORD $0x4e3f1e10 // and v16.16b, v16.16b, v31.16b
	WORD $0x4e3f1e31 // and v17.16b, v17.16b, v31.16b
	WORD $0x4e3f1e52 // and v18.16b, v18.16b, v31.16b
	WORD $0x4e3f1e73 // and v19.16b, v19.16b, v31.16b
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4ebb970a // mla v10.4s, v24.4s, v27.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4ebb972b // mla v11.4s, v25.4s, v27.4s
	// Sub-block 1.
	WORD $0x3cc24090 // ldur q16, [x4, #36]
	WORD $0x3cc34091 // ldur q17, [x4, #52]
	WORD $0x3cc240b2 // ldur q18, [x5, #36]
	WORD $0x3cc340b3 // ldur q19, [x5, #52]
	WORD $0x4ed23a00 // zip1 v0.2d, v16.2d, v18.2d
	WORD $0x4ed27a01 // zip2 v1.2d, v16.2d, v18.2d
	WORD $0x4ed33a22 // zip1 v2.2d, v17.2d, v19.2d
	WORD $0x4ed37a23 // zip2 v3.2d, v17.2d, v19.2d
	WORD $0x3cc240d0 // ldur q16, [x6, #36]
	WORD $0x3cc340d1 // ldur q17, [x6, #52]
	WORD $0x3cc240f2 // ldur q18, [x7, #36]
	WORD $0x3cc340f3 // ldur q19, [x7, #52]
	WORD $0x4ed23a04 // zip1 v4.2d, v16.2d, v18.2d
	WORD $0x4ed27a05 // zip2 v5.2d, v16.2d, v18.2d
	WORD $0x4ed33a26 // zip1 v6.2d, v17.2d, v19.2d
	WORD $0x4ed37a27 // zip2 v7.2d, v17.2d, v19.2d
	WORD $0x3dc0353a // ldr q26, [x9, #208]
	WORD $0x3dc0553b // ldr q27, [x9, #336]
	WORD $0x3dc00410 // ldr q16, [x0, #16]
	WORD $0x3dc00811 // ldr q17, [x0, #32]
	WORD $0x3dc00432 // ldr q18, [x1, #16]
	WORD $0x3dc00833 // ldr q19, [x1, #32]
	WORD $0x6f0c0610 // ushr v16.16b, v16.16b, #4
	WORD $0x6f0c0631 // ushr v17.16b, v17.16b, #4
	WORD $0x6f0c0652 // ushr v18.16b, v18.16b, #4
	WORD $0x6f0c0673 // ushr v19.16b, v19.16b, #4
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4eba9708 // mla v8.4s, v24.4s, v26.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4eba9729 // mla v9.4s, v25.4s, v26.4s
	WORD $0x3dc00450 // ldr q16, [x2, #16]
	WORD $0x3dc00851 // ldr q17, [x2, #32]
	WORD $0x3dc00472 // ldr q18, [x3, #16]
	WORD $0x3dc00873 // ldr q19, [x3, #32]
	WORD $0x6f0c0610 // ushr v16.16b, v16.16b, #4
	WORD $0x6f0c0631 // ushr v17.16b, v17.16b, #4
	WORD $0x6f0c0652 // ushr v18.16b, v18.16b, #4
	WORD $0x6f0c0673 // ushr v19.16b, v19.16b, #4
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4ebb970a // mla v10.4s, v24.4s, v27.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4ebb972b // mla v11.4s, v25.4s, v27.4s
	CBZ R11, tileQ4KI8MM_gemv1
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0xad446538 // ldp q24, q25, [x9, #128]
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e21d929 // scvtf v9.4s, v9.4s
	WORD $0x4e38cd0c // fmla v12.4s, v8.4s, v24.4s
	WORD $0x4e39cd2d // fmla v13.4s, v9.4s, v25.4s
	WORD $0xad456538 // ldp q24, q25, [x9, #160]
	WORD $0x4e21d94a // scvtf v10.4s, v10.4s
	WORD $0x4e21d96b // scvtf v11.4s, v11.4s
	WORD $0x4e38cd4e // fmla v14.4s, v10.4s, v24.4s
	WORD $0x4e39cd6f // fmla v15.4s, v11.4s, v25.4s
	WORD $0x4f000408 // movi v8.4s, #0
	WORD $0x4f000409 // movi v9.4s, #0
	WORD $0x4f00040a // movi v10.4s, #0
	WORD $0x4f00040b // movi v11.4s, #0
tileQ4KI8MM_gemv1:
	// Sub-block 2.
	WORD $0x3cc44090 // ldur q16, [x4, #68]
	WORD $0x3cc54091 // ldur q17, [x4, #84]
	WORD $0x3cc440b2 // ldur q18, [x5, #68]
	WORD $0x3cc540b3 // ldur q19, [x5, #84]
	WORD $0x4ed23a00 // zip1 v0.2d, v16.2d, v18.2d
	WORD $0x4ed27a01 // zip2 v1.2d, v16.2d, v18.2d
	WORD $0x4ed33a22 // zip1 v2.2d, v17.2d, v19.2d
	WORD $0x4ed37a23 // zip2 v3.2d, v17.2d, v19.2d
	WORD $0x3cc440d0 // ldur q16, [x6, #68]
	WORD $0x3cc540d1 // ldur q17, [x6, #84]
	WORD $0x3cc440f2 // ldur q18, [x7, #68]
	WORD $0x3cc540f3 // ldur q19, [x7, #84]
	WORD $0x4ed23a04 // zip1 v4.2d, v16.2d, v18.2d
	WORD $0x4ed27a05 // zip2 v5.2d, v16.2d, v18.2d
	WORD $0x4ed33a26 // zip1 v6.2d, v17.2d, v19.2d
	WORD $0x4ed37a27 // zip2 v7.2d, v17.2d, v19.2d
	WORD $0x3dc0393a // ldr q26, [x9, #224]
	WORD $0x3dc0593b // ldr q27, [x9, #352]
	WORD $0x3dc00c10 // ldr q16, [x0, #48]
	WORD $0x3dc01011 // ldr q17, [x0, #64]
	WORD $0x3dc00c32 // ldr q18, [x1, #48]
	WORD $0x3dc01033 // ldr q19, [x1, #64]
	WORD $0x4e3f1e10 // and v16.16b, v16.16b, v31.16b
	WORD $0x4e3f1e31 // and v17.16b, v17.16b, v31.16b
	WORD $0x4e3f1e52 // and v18.16b, v18.16b, v31.16b
	WORD $0x4e3f1e73 // and v19.16b, v19.16b, v31.16b
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4eba9708 // mla v8.4s, v24.4s, v26.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4eba9729 // mla v9.4s, v25.4s, v26.4s
	WORD $0x3dc00c50 // ldr q16, [x2, #48]
	WORD $0x3dc01051 // ldr q17, [x2, #64]
	WORD $0x3dc00c72 // ldr q18, [x3, #48]
	WORD $0x3dc01073 // ldr q19, [x3, #64]
	WORD $0x4e3f1e10 // and v16.16b, v16.16b, v31.16b
	WORD $0x4e3f1e31 // and v17.16b, v17.16b, v31.16b
	WORD $0x4e3f1e52 // and v18.16b, v18.16b, v31.16b
	WORD $0x4e3f1e73 // and v19.16b, v19.16b, v31.16b
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4ebb970a // mla v10.4s, v24.4s, v27.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4ebb972b // mla v11.4s, v25.4s, v27.4s
	// Sub-block 3.
	WORD $0x3cc64090 // ldur q16, [x4, #100]
	WORD $0x3cc74091 // ldur q17, [x4, #116]
	WORD $0x3cc640b2 // ldur q18, [x5, #100]
	WORD $0x3cc740b3 // ldur q19, [x5, #116]
	WORD $0x4ed23a00 // zip1 v0.2d, v16.2d, v18.2d
	WORD $0x4ed27a01 // zip2 v1.2d, v16.2d, v18.2d
	WORD $0x4ed33a22 // zip1 v2.2d, v17.2d, v19.2d
	WORD $0x4ed37a23 // zip2 v3.2d, v17.2d, v19.2d
	WORD $0x3cc640d0 // ldur q16, [x6, #100]
	WORD $0x3cc740d1 // ldur q17, [x6, #116]
	WORD $0x3cc640f2 // ldur q18, [x7, #100]
	WORD $0x3cc740f3 // ldur q19, [x7, #116]
	WORD $0x4ed23a04 // zip1 v4.2d, v16.2d, v18.2d
	WORD $0x4ed27a05 // zip2 v5.2d, v16.2d, v18.2d
	WORD $0x4ed33a26 // zip1 v6.2d, v17.2d, v19.2d
	WORD $0x4ed37a27 // zip2 v7.2d, v17.2d, v19.2d
	WORD $0x3dc03d3a // ldr q26, [x9, #240]
	WORD $0x3dc05d3b // ldr q27, [x9, #368]
	WORD $0x3dc00c10 // ldr q16, [x0, #48]
	WORD $0x3dc01011 // ldr q17, [x0, #64]
	WORD $0x3dc00c32 // ldr q18, [x1, #48]
	WORD $0x3dc01033 // ldr q19, [x1, #64]
	WORD $0x6f0c0610 // ushr v16.16b, v16.16b, #4
	WORD $0x6f0c0631 // ushr v17.16b, v17.16b, #4
	WORD $0x6f0c0652 // ushr v18.16b, v18.16b, #4
	WORD $0x6f0c0673 // ushr v19.16b, v19.16b, #4
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4eba9708 // mla v8.4s, v24.4s, v26.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4eba9729 // mla v9.4s, v25.4s, v26.4s
	WORD $0x3dc00c50 // ldr q16, [x2, #48]
	WORD $0x3dc01051 // ldr q17, [x2, #64]
	WORD $0x3dc00c72 // ldr q18, [x3, #48]
	WORD $0x3dc01073 // ldr q19, [x3, #64]
	WORD $0x6f0c0610 // ushr v16.16b, v16.16b, #4
	WORD $0x6f0c0631 // ushr v17.16b, v17.16b, #4
	WORD $0x6f0c0652 // ushr v18.16b, v18.16b, #4
	WORD $0x6f0c0673 // ushr v19.16b, v19.16b, #4
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4ebb970a // mla v10.4s, v24.4s, v27.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4ebb972b // mla v11.4s, v25.4s, v27.4s
	CBZ R11, tileQ4KI8MM_gemv3
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0xad446538 // ldp q24, q25, [x9, #128]
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e21d929 // scvtf v9.4s, v9.4s
	WORD $0x4e38cd0c // fmla v12.4s, v8.4s, v24.4s
	WORD $0x4e39cd2d // fmla v13.4s, v9.4s, v25.4s
	WORD $0xad456538 // ldp q24, q25, [x9, #160]
	WORD $0x4e21d94a // scvtf v10.4s, v10.4s
	WORD $0x4e21d96b // scvtf v11.4s, v11.4s
	WORD $0x4e38cd4e // fmla v14.4s, v10.4s, v24.4s
	WORD $0x4e39cd6f // fmla v15.4s, v11.4s, v25.4s
	WORD $0x4f000408 // movi v8.4s, #0
	WORD $0x4f000409 // movi v9.4s, #0
	WORD $0x4f00040a // movi v10.4s, #0
	WORD $0x4f00040b // movi v11.4s, #0
tileQ4KI8MM_gemv3:
	// Sub-block 4.
	WORD $0x3cc84090 // ldur q16, [x4, #132]
	WORD $0x3cc94091 // ldur q17, [x4, #148]
	WORD $0x3cc840b2 // ldur q18, [x5, #132]
	WORD $0x3cc940b3 // ldur q19, [x5, #148]
	WORD $0x4ed23a00 // zip1 v0.2d, v16.2d, v18.2d
	WORD $0x4ed27a01 // zip2 v1.2d, v16.2d, v18.2d
	WORD $0x4ed33a22 // zip1 v2.2d, v17.2d, v19.2d
	WORD $0x4ed37a23 // zip2 v3.2d, v17.2d, v19.2d
	WORD $0x3cc840d0 // ldur q16, [x6, #132]
	WORD $0x3cc940d1 // ldur q17, [x6, #148]
	WORD $0x3cc840f2 // ldur q18, [x7, #132]
	WORD $0x3cc940f3 // ldur q19, [x7, #148]
	WORD $0x4ed23a04 // zip1 v4.2d, v16.2d, v18.2d
	WORD $0x4ed27a05 // zip2 v5.2d, v16.2d, v18.2d
	WORD $0x4ed33a26 // zip1 v6.2d, v17.2d, v19.2d
	WORD $0x4ed37a27 // zip2 v7.2d, v17.2d, v19.2d
	WORD $0x3dc0413a // ldr q26, [x9, #256]
	WORD $0x3dc0613b // ldr q27, [x9, #384]
	WORD $0x3dc01410 // ldr q16, [x0, #80]
	WORD $0x3dc01811 // ldr q17, [x0, #96]
	WORD $0x3dc01432 // ldr q18, [x1, #80]
	WORD $0x3dc01833 // ldr q19, [x1, #96]
	WORD $0x4e3f1e10 // and v16.16b, v16.16b, v31.16b
	WORD $0x4e3f1e31 // and v17.16b, v17.16b, v31.16b
	WORD $0x4e3f1e52 // and v18.16b, v18.16b, v31.16b
	WORD $0x4e3f1e73 // and v19.16b, v19.16b, v31.16b
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4eba9708 // mla v8.4s, v24.4s, v26.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4eba9729 // mla v9.4s, v25.4s, v26.4s
	WORD $0x3dc01450 // ldr q16, [x2, #80]
	WORD $0x3dc01851 // ldr q17, [x2, #96]
	WORD $0x3dc01472 // ldr q18, [x3, #80]
	WORD $0x3dc01873 // ldr q19, [x3, #96]
	WORD $0x4e3f1e10 // and v16.16b, v16.16b, v31.16b
	WORD $0x4e3f1e31 // and v17.16b, v17.16b, v31.16b
	WORD $0x4e3f1e52 // and v18.16b, v18.16b, v31.16b
	WORD $0x4e3f1e73 // and v19.16b, v19.16b, v31.16b
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4ebb970a // mla v10.4s, v24.4s, v27.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4ebb972b // mla v11.4s, v25.4s, v27.4s
	// Sub-block 5.
	WORD $0x3cca4090 // ldur q16, [x4, #164]
	WORD $0x3ccb4091 // ldur q17, [x4, #180]
	WORD $0x3cca40b2 // ldur q18, [x5, #164]
	WORD $0x3ccb40b3 // ldur q19, [x5, #180]
	WORD $0x4ed23a00 // zip1 v0.2d, v16.2d, v18.2d
	WORD $0x4ed27a01 // zip2 v1.2d, v16.2d, v18.2d
	WORD $0x4ed33a22 // zip1 v2.2d, v17.2d, v19.2d
	WORD $0x4ed37a23 // zip2 v3.2d, v17.2d, v19.2d
	WORD $0x3cca40d0 // ldur q16, [x6, #164]
	WORD $0x3ccb40d1 // ldur q17, [x6, #180]
	WORD $0x3cca40f2 // ldur q18, [x7, #164]
	WORD $0x3ccb40f3 // ldur q19, [x7, #180]
	WORD $0x4ed23a04 // zip1 v4.2d, v16.2d, v18.2d
	WORD $0x4ed27a05 // zip2 v5.2d, v16.2d, v18.2d
	WORD $0x4ed33a26 // zip1 v6.2d, v17.2d, v19.2d
	WORD $0x4ed37a27 // zip2 v7.2d, v17.2d, v19.2d
	WORD $0x3dc0453a // ldr q26, [x9, #272]
	WORD $0x3dc0653b // ldr q27, [x9, #400]
	WORD $0x3dc01410 // ldr q16, [x0, #80]
	WORD $0x3dc01811 // ldr q17, [x0, #96]
	WORD $0x3dc01432 // ldr q18, [x1, #80]
	WORD $0x3dc01833 // ldr q19, [x1, #96]
	WORD $0x6f0c0610 // ushr v16.16b, v16.16b, #4
	WORD $0x6f0c0631 // ushr v17.16b, v17.16b, #4
	WORD $0x6f0c0652 // ushr v18.16b, v18.16b, #4
	WORD $0x6f0c0673 // ushr v19.16b, v19.16b, #4
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4eba9708 // mla v8.4s, v24.4s, v26.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4eba9729 // mla v9.4s, v25.4s, v26.4s
	WORD $0x3dc01450 // ldr q16, [x2, #80]
	WORD $0x3dc01851 // ldr q17, [x2, #96]
	WORD $0x3dc01472 // ldr q18, [x3, #80]
	WORD $0x3dc01873 // ldr q19, [x3, #96]
	WORD $0x6f0c0610 // ushr v16.16b, v16.16b, #4
	WORD $0x6f0c0631 // ushr v17.16b, v17.16b, #4
	WORD $0x6f0c0652 // ushr v18.16b, v18.16b, #4
	WORD $0x6f0c0673 // ushr v19.16b, v19.16b, #4
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4ebb970a // mla v10.4s, v24.4s, v27.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4ebb972b // mla v11.4s, v25.4s, v27.4s
	CBZ R11, tileQ4KI8MM_gemv5
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0xad446538 // ldp q24, q25, [x9, #128]
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e21d929 // scvtf v9.4s, v9.4s
	WORD $0x4e38cd0c // fmla v12.4s, v8.4s, v24.4s
	WORD $0x4e39cd2d // fmla v13.4s, v9.4s, v25.4s
	WORD $0xad456538 // ldp q24, q25, [x9, #160]
	WORD $0x4e21d94a // scvtf v10.4s, v10.4s
	WORD $0x4e21d96b // scvtf v11.4s, v11.4s
	WORD $0x4e38cd4e // fmla v14.4s, v10.4s, v24.4s
	WORD $0x4e39cd6f // fmla v15.4s, v11.4s, v25.4s
	WORD $0x4f000408 // movi v8.4s, #0
	WORD $0x4f000409 // movi v9.4s, #0
	WORD $0x4f00040a // movi v10.4s, #0
	WORD $0x4f00040b // movi v11.4s, #0
tileQ4KI8MM_gemv5:
	// Sub-block 6.
	WORD $0x3ccc4090 // ldur q16, [x4, #196]
	WORD $0x3ccd4091 // ldur q17, [x4, #212]
	WORD $0x3ccc40b2 // ldur q18, [x5, #196]
	WORD $0x3ccd40b3 // ldur q19, [x5, #212]
	WORD $0x4ed23a00 // zip1 v0.2d, v16.2d, v18.2d
	WORD $0x4ed27a01 // zip2 v1.2d, v16.2d, v18.2d
	WORD $0x4ed33a22 // zip1 v2.2d, v17.2d, v19.2d
	WORD $0x4ed37a23 // zip2 v3.2d, v17.2d, v19.2d
	WORD $0x3ccc40d0 // ldur q16, [x6, #196]
	WORD $0x3ccd40d1 // ldur q17, [x6, #212]
	WORD $0x3ccc40f2 // ldur q18, [x7, #196]
	WORD $0x3ccd40f3 // ldur q19, [x7, #212]
	WORD $0x4ed23a04 // zip1 v4.2d, v16.2d, v18.2d
	WORD $0x4ed27a05 // zip2 v5.2d, v16.2d, v18.2d
	WORD $0x4ed33a26 // zip1 v6.2d, v17.2d, v19.2d
	WORD $0x4ed37a27 // zip2 v7.2d, v17.2d, v19.2d
	WORD $0x3dc0493a // ldr q26, [x9, #288]
	WORD $0x3dc0693b // ldr q27, [x9, #416]
	WORD $0x3dc01c10 // ldr q16, [x0, #112]
	WORD $0x3dc02011 // ldr q17, [x0, #128]
	WORD $0x3dc01c32 // ldr q18, [x1, #112]
	WORD $0x3dc02033 // ldr q19, [x1, #128]
	WORD $0x4e3f1e10 // and v16.16b, v16.16b, v31.16b
	WORD $0x4e3f1e31 // and v17.16b, v17.16b, v31.16b
	WORD $0x4e3f1e52 // and v18.16b, v18.16b, v31.16b
	WORD $0x4e3f1e73 // and v19.16b, v19.16b, v31.16b
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4eba9708 // mla v8.4s, v24.4s, v26.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4eba9729 // mla v9.4s, v25.4s, v26.4s
	WORD $0x3dc01c50 // ldr q16, [x2, #112]
	WORD $0x3dc02051 // ldr q17, [x2, #128]
	WORD $0x3dc01c72 // ldr q18, [x3, #112]
	WORD $0x3dc02073 // ldr q19, [x3, #128]
	WORD $0x4e3f1e10 // and v16.16b, v16.16b, v31.16b
	WORD $0x4e3f1e31 // and v17.16b, v17.16b, v31.16b
	WORD $0x4e3f1e52 // and v18.16b, v18.16b, v31.16b
	WORD $0x4e3f1e73 // and v19.16b, v19.16b, v31.16b
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4ebb970a // mla v10.4s, v24.4s, v27.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4ebb972b // mla v11.4s, v25.4s, v27.4s
	// Sub-block 7.
	WORD $0x3cce4090 // ldur q16, [x4, #228]
	WORD $0x3ccf4091 // ldur q17, [x4, #244]
	WORD $0x3cce40b2 // ldur q18, [x5, #228]
	WORD $0x3ccf40b3 // ldur q19, [x5, #244]
	WORD $0x4ed23a00 // zip1 v0.2d, v16.2d, v18.2d
	WORD $0x4ed27a01 // zip2 v1.2d, v16.2d, v18.2d
	WORD $0x4ed33a22 // zip1 v2.2d, v17.2d, v19.2d
	WORD $0x4ed37a23 // zip2 v3.2d, v17.2d, v19.2d
	WORD $0x3cce40d0 // ldur q16, [x6, #228]
	WORD $0x3ccf40d1 // ldur q17, [x6, #244]
	WORD $0x3cce40f2 // ldur q18, [x7, #228]
	WORD $0x3ccf40f3 // ldur q19, [x7, #244]
	WORD $0x4ed23a04 // zip1 v4.2d, v16.2d, v18.2d
	WORD $0x4ed27a05 // zip2 v5.2d, v16.2d, v18.2d
	WORD $0x4ed33a26 // zip1 v6.2d, v17.2d, v19.2d
	WORD $0x4ed37a27 // zip2 v7.2d, v17.2d, v19.2d
	WORD $0x3dc04d3a // ldr q26, [x9, #304]
	WORD $0x3dc06d3b // ldr q27, [x9, #432]
	WORD $0x3dc01c10 // ldr q16, [x0, #112]
	WORD $0x3dc02011 // ldr q17, [x0, #128]
	WORD $0x3dc01c32 // ldr q18, [x1, #112]
	WORD $0x3dc02033 // ldr q19, [x1, #128]
	WORD $0x6f0c0610 // ushr v16.16b, v16.16b, #4
	WORD $0x6f0c0631 // ushr v17.16b, v17.16b, #4
	WORD $0x6f0c0652 // ushr v18.16b, v18.16b, #4
	WORD $0x6f0c0673 // ushr v19.16b, v19.16b, #4
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4eba9708 // mla v8.4s, v24.4s, v26.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4eba9729 // mla v9.4s, v25.4s, v26.4s
	WORD $0x3dc01c50 // ldr q16, [x2, #112]
	WORD $0x3dc02051 // ldr q17, [x2, #128]
	WORD $0x3dc01c72 // ldr q18, [x3, #112]
	WORD $0x3dc02073 // ldr q19, [x3, #128]
	WORD $0x6f0c0610 // ushr v16.16b, v16.16b, #4
	WORD $0x6f0c0631 // ushr v17.16b, v17.16b, #4
	WORD $0x6f0c0652 // ushr v18.16b, v18.16b, #4
	WORD $0x6f0c0673 // ushr v19.16b, v19.16b, #4
	WORD $0x4ed23a14 // zip1 v20.2d, v16.2d, v18.2d
	WORD $0x4ed27a15 // zip2 v21.2d, v16.2d, v18.2d
	WORD $0x4ed33a36 // zip1 v22.2d, v17.2d, v19.2d
	WORD $0x4ed37a37 // zip2 v23.2d, v17.2d, v19.2d
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4e80a698 // smmla v24.4s, v20.16b, v0.16b
	WORD $0x4e81a6b8 // smmla v24.4s, v21.16b, v1.16b
	WORD $0x4e82a6d8 // smmla v24.4s, v22.16b, v2.16b
	WORD $0x4e83a6f8 // smmla v24.4s, v23.16b, v3.16b
	WORD $0x4ebb970a // mla v10.4s, v24.4s, v27.4s
	WORD $0x4f000419 // movi v25.4s, #0
	WORD $0x4e84a699 // smmla v25.4s, v20.16b, v4.16b
	WORD $0x4e85a6b9 // smmla v25.4s, v21.16b, v5.16b
	WORD $0x4e86a6d9 // smmla v25.4s, v22.16b, v6.16b
	WORD $0x4e87a6f9 // smmla v25.4s, v23.16b, v7.16b
	WORD $0x4ebb972b // mla v11.4s, v25.4s, v27.4s
	// acc = fma(float(isum), d·xd, acc) per output, as dotRepackedK.
	WORD $0xad446538 // ldp q24, q25, [x9, #128]
	WORD $0x4e21d908 // scvtf v8.4s, v8.4s
	WORD $0x4e21d929 // scvtf v9.4s, v9.4s
	WORD $0x4e38cd0c // fmla v12.4s, v8.4s, v24.4s
	WORD $0x4e39cd2d // fmla v13.4s, v9.4s, v25.4s
	WORD $0xad456538 // ldp q24, q25, [x9, #160]
	WORD $0x4e21d94a // scvtf v10.4s, v10.4s
	WORD $0x4e21d96b // scvtf v11.4s, v11.4s
	WORD $0x4e38cd4e // fmla v14.4s, v10.4s, v24.4s
	WORD $0x4e39cd6f // fmla v15.4s, v11.4s, v25.4s
	ADD $144, R0
	ADD $144, R1
	ADD $144, R2
	ADD $144, R3
	ADD $292, R4
	ADD $292, R5
	ADD $292, R6
	ADD $292, R7
	SUBS $1, R8
	BNE tileQ4KI8MM_loop
	WORD $0xad00352c // stp q12, q13, [x9]
	WORD $0xad013d2e // stp q14, q15, [x9, #32]
	RET
