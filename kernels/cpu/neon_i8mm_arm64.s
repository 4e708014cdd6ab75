#include "textflag.h"

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
