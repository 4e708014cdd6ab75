#include "textflag.h"

// The NEON (SDOT) dot product of TQ2_0 weights with Q8_K activations, in
// dotTQ's integer lanes: lane l the trits' products with the activations
// of the elements whose index modulo 32 is in [4l, 4l+4), less the
// activation sums of groups 2l and 2l+1; each lane is scaled by
// d_x·d_w with one fused multiply-add per super-block into the eight
// float lanes the caller adds as hsum8. R0 walks the weights, R1 the
// activations (R6 and R7 their halves); V31 holds bytes of 3, V16 and
// V17 the integer lanes 0-3 and 4-7, V20 and V21 the float lanes.

// TQ2HALF adds the products of the 32 weight bytes at R6 (128 elements)
// with the activations at R7 to V16 and V17.
//	ldp q0, q1, [x6]
//	and v4.16b, v0.16b, v31.16b
//	and v5.16b, v1.16b, v31.16b
//	ldur q6, [x7, #0]
//	ldur q7, [x7, #16]
//	sdot v16.4s, v4.16b, v6.16b
//	sdot v17.4s, v5.16b, v7.16b
//	ushr v4.16b, v0.16b, #2
//	ushr v5.16b, v1.16b, #2
//	and v4.16b, v4.16b, v31.16b
//	and v5.16b, v5.16b, v31.16b
//	ldur q6, [x7, #32]
//	ldur q7, [x7, #48]
//	sdot v16.4s, v4.16b, v6.16b
//	sdot v17.4s, v5.16b, v7.16b
//	ushr v4.16b, v0.16b, #4
//	ushr v5.16b, v1.16b, #4
//	and v4.16b, v4.16b, v31.16b
//	and v5.16b, v5.16b, v31.16b
//	ldur q6, [x7, #64]
//	ldur q7, [x7, #80]
//	sdot v16.4s, v4.16b, v6.16b
//	sdot v17.4s, v5.16b, v7.16b
//	ushr v4.16b, v0.16b, #6
//	ushr v5.16b, v1.16b, #6
//	and v4.16b, v4.16b, v31.16b
//	and v5.16b, v5.16b, v31.16b
//	ldur q6, [x7, #96]
//	ldur q7, [x7, #112]
//	sdot v16.4s, v4.16b, v6.16b
//	sdot v17.4s, v5.16b, v7.16b
#define TQ2HALF \
	WORD $0xad4004c0; \
	WORD $0x4e3f1c04; \
	WORD $0x4e3f1c25; \
	WORD $0x3cc000e6; \
	WORD $0x3cc100e7; \
	WORD $0x4e869490; \
	WORD $0x4e8794b1; \
	WORD $0x6f0e0404; \
	WORD $0x6f0e0425; \
	WORD $0x4e3f1c84; \
	WORD $0x4e3f1ca5; \
	WORD $0x3cc200e6; \
	WORD $0x3cc300e7; \
	WORD $0x4e869490; \
	WORD $0x4e8794b1; \
	WORD $0x6f0c0404; \
	WORD $0x6f0c0425; \
	WORD $0x4e3f1c84; \
	WORD $0x4e3f1ca5; \
	WORD $0x3cc400e6; \
	WORD $0x3cc500e7; \
	WORD $0x4e869490; \
	WORD $0x4e8794b1; \
	WORD $0x6f0a0404; \
	WORD $0x6f0a0425; \
	WORD $0x4e3f1c84; \
	WORD $0x4e3f1ca5; \
	WORD $0x3cc600e6; \
	WORD $0x3cc700e7; \
	WORD $0x4e869490; \
	WORD $0x4e8794b1

// TQ2END subtracts the group sums from the integer lanes, converts them
// and accumulates them scaled by d_x·d_w.
//	add x4, x1, #260
//	ldp q6, q7, [x4]
//	saddlp v6.4s, v6.8h
//	saddlp v7.4s, v7.8h
//	sub v16.4s, v16.4s, v6.4s
//	sub v17.4s, v17.4s, v7.4s
//	scvtf v16.4s, v16.4s
//	scvtf v17.4s, v17.4s
//	ldr h2, [x0, #64]
//	fcvt s2, h2
//	ldr s3, [x1]
//	fmul s2, s3, s2
//	fmla v20.4s, v16.4s, v2.s[0]
//	fmla v21.4s, v17.4s, v2.s[0]
#define TQ2END \
	WORD $0x91041024; \
	WORD $0xad401c86; \
	WORD $0x4e6028c6; \
	WORD $0x4e6028e7; \
	WORD $0x6ea68610; \
	WORD $0x6ea78631; \
	WORD $0x4e21da10; \
	WORD $0x4e21da31; \
	WORD $0x7d408002; \
	WORD $0x1ee24042; \
	WORD $0xbd400023; \
	WORD $0x1e220862; \
	WORD $0x4f821214; \
	WORD $0x4f821235

// func tq2DotSDOT(w *byte, x *q8KBlock, n int, acc *[8]float32)
TEXT ·tq2DotSDOT(SB), NOSPLIT, $0-32
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD acc+24(FP), R3
	WORD $0x4f00e47f
	WORD $0x4f000414
	WORD $0x4f000415
	CBZ R2, tq2done
tq2loop:
	WORD $0x4f000410
	WORD $0x4f000411
	MOVD R0, R6
	ADD $4, R1, R7
	TQ2HALF
	ADD $32, R6
	ADD $128, R7
	TQ2HALF
	TQ2END
	ADD $66, R0
	ADD $292, R1
	SUBS $1, R2
	BNE tq2loop
tq2done:
	WORD $0xad005474
	RET
