#include "textflag.h"

// The NEON (SDOT) dot product of TQ1_0 weights with Q8_K activations, in
// dotTQ's integer lanes (see neon_tq_arm64.s): trit n of a byte b is
// (b·3^n mod 256)·3 >> 8, with MUL on bytes, UMULL and SHRN. Per
// super-block: for bytes 0-31, per trit n, two 16-byte halves against the
// activations of elements 32n..32n+31; for bytes 32-47, trit n against
// elements 160+16n..; the four trits of qh (its bytes replicated and
// multiplied by qhmul: 1, 3, 9, 27 per four) against elements 240-255.
// V16 and V17 are the integer lanes 0-3 and 4-7, V20 and V21 the float
// lanes; each WORD carries its instruction as a comment.

// func tq1DotSDOT(w *byte, x *q8KBlock, n int, acc *[8]float32, qhmul *[16]byte)
TEXT ·tq1DotSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	MOVD qhmul+32(FP), R5
	WORD $0x4f00e438 // movi v24.16b, #1
	WORD $0x4f00e479 // movi v25.16b, #3
	WORD $0x4f00e53a // movi v26.16b, #9
	WORD $0x4f00e77b // movi v27.16b, #27
	WORD $0x4f02e63c // movi v28.16b, #81
	WORD $0x3dc000bd // ldr q29, [x5]
	WORD $0x4f000414 // movi v20.4s, #0
	WORD $0x4f000415 // movi v21.4s, #0
	CBZ R2, tq1done
tq1loop:
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	ADD $48, R0, R13
	WORD $0xad400400 // ldp q0, q1, [x0]
	WORD $0x3dc00802 // ldr q2, [x0, #32]
	WORD $0x4d40c9ac // ld1r {v12.4s}, [x13]
	WORD $0x2e39c009 // umull v9.8h, v0.8b, v25.8b
	WORD $0x6e39c00a // umull2 v10.8h, v0.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cc04025 // ldur q5, [x1, #4]
	WORD $0x4e859570 // sdot v16.4s, v11.16b, v5.16b
	WORD $0x2e39c029 // umull v9.8h, v1.8b, v25.8b
	WORD $0x6e39c02a // umull2 v10.8h, v1.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cc14026 // ldur q6, [x1, #20]
	WORD $0x4e869571 // sdot v17.4s, v11.16b, v6.16b
	WORD $0x4e399c08 // mul v8.16b, v0.16b, v25.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cc24025 // ldur q5, [x1, #36]
	WORD $0x4e859570 // sdot v16.4s, v11.16b, v5.16b
	WORD $0x4e399c28 // mul v8.16b, v1.16b, v25.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cc34026 // ldur q6, [x1, #52]
	WORD $0x4e869571 // sdot v17.4s, v11.16b, v6.16b
	WORD $0x4e3a9c08 // mul v8.16b, v0.16b, v26.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cc44025 // ldur q5, [x1, #68]
	WORD $0x4e859570 // sdot v16.4s, v11.16b, v5.16b
	WORD $0x4e3a9c28 // mul v8.16b, v1.16b, v26.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cc54026 // ldur q6, [x1, #84]
	WORD $0x4e869571 // sdot v17.4s, v11.16b, v6.16b
	WORD $0x4e3b9c08 // mul v8.16b, v0.16b, v27.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cc64025 // ldur q5, [x1, #100]
	WORD $0x4e859570 // sdot v16.4s, v11.16b, v5.16b
	WORD $0x4e3b9c28 // mul v8.16b, v1.16b, v27.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cc74026 // ldur q6, [x1, #116]
	WORD $0x4e869571 // sdot v17.4s, v11.16b, v6.16b
	WORD $0x4e3c9c08 // mul v8.16b, v0.16b, v28.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cc84025 // ldur q5, [x1, #132]
	WORD $0x4e859570 // sdot v16.4s, v11.16b, v5.16b
	WORD $0x4e3c9c28 // mul v8.16b, v1.16b, v28.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cc94026 // ldur q6, [x1, #148]
	WORD $0x4e869571 // sdot v17.4s, v11.16b, v6.16b
	WORD $0x2e39c049 // umull v9.8h, v2.8b, v25.8b
	WORD $0x6e39c04a // umull2 v10.8h, v2.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cca4025 // ldur q5, [x1, #164]
	WORD $0x4e859570 // sdot v16.4s, v11.16b, v5.16b
	WORD $0x4e399c48 // mul v8.16b, v2.16b, v25.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3ccb4025 // ldur q5, [x1, #180]
	WORD $0x4e859571 // sdot v17.4s, v11.16b, v5.16b
	WORD $0x4e3a9c48 // mul v8.16b, v2.16b, v26.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3ccc4025 // ldur q5, [x1, #196]
	WORD $0x4e859570 // sdot v16.4s, v11.16b, v5.16b
	WORD $0x4e3b9c48 // mul v8.16b, v2.16b, v27.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3ccd4025 // ldur q5, [x1, #212]
	WORD $0x4e859571 // sdot v17.4s, v11.16b, v5.16b
	WORD $0x4e3c9c48 // mul v8.16b, v2.16b, v28.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3cce4025 // ldur q5, [x1, #228]
	WORD $0x4e859570 // sdot v16.4s, v11.16b, v5.16b
	WORD $0x4e3d9d88 // mul v8.16b, v12.16b, v29.16b
	WORD $0x2e39c109 // umull v9.8h, v8.8b, v25.8b
	WORD $0x6e39c10a // umull2 v10.8h, v8.16b, v25.16b
	WORD $0x0f08852b // shrn v11.8b, v9.8h, #8
	WORD $0x4f08854b // shrn2 v11.16b, v10.8h, #8
	WORD $0x3ccf4025 // ldur q5, [x1, #244]
	WORD $0x4e859571 // sdot v17.4s, v11.16b, v5.16b
	WORD $0x91041024 // add x4, x1, #260
	WORD $0xad401c86 // ldp q6, q7, [x4]
	WORD $0x4e6028c6 // saddlp v6.4s, v6.8h
	WORD $0x4e6028e7 // saddlp v7.4s, v7.8h
	WORD $0x6ea68610 // sub v16.4s, v16.4s, v6.4s
	WORD $0x6ea78631 // sub v17.4s, v17.4s, v7.4s
	WORD $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD $0x4e21da31 // scvtf v17.4s, v17.4s
	WORD $0x7d406802 // ldr h2, [x0, #52]
	WORD $0x1ee24042 // fcvt s2, h2
	WORD $0xbd400023 // ldr s3, [x1]
	WORD $0x1e220862 // fmul s2, s3, s2
	WORD $0x4f821214 // fmla v20.4s, v16.4s, v2.s[0]
	WORD $0x4f821235 // fmla v21.4s, v17.4s, v2.s[0]
	ADD $54, R0
	ADD $292, R1
	SUBS $1, R2
	BNE tq1loop
tq1done:
	WORD $0xad005474 // stp q20, q21, [x3]
	RET
