#include "textflag.h"

// The NEON (SDOT) dot products of IQ1_S and IQ1_M weights with Q8_K
// activations, in dotLanesK's and dotIQ1M's integer lanes: per
// super-block, eight lanes of the grid values' products with the
// activations (lane l the elements whose index modulo 32 is in [4l,
// 4l+4)) scaled by the 2s+1 of their group, and the shifts' terms (an
// integer sum for IQ1_S, eight more lanes for IQ1_M); each is scaled by
// d_x·d_w with one fused multiply-add into float lanes (and a float sum)
// the caller finishes. One group of 32 per loop step: R12 walks the grid
// indices' low bytes, R13 the qh, R14 the activations; R8 is the grid.
// V16 and V17 are the integer lanes 0-3 and 4-7, V20 and V21 the float
// lanes.

// IQ1ARGS loads the arguments (w, x, n, out, grid) and clears the float
// lanes.
#define IQ1ARGS \
	MOVD w+0(FP), R0; \
	MOVD x+8(FP), R1; \
	MOVD n+16(FP), R2; \
	MOVD out+24(FP), R3; \
	MOVD grid+32(FP), R8; \
	WORD $0x4f000414; \
	WORD $0x4f000415

// IQ1GRID(L, SH, V, LANE) loads into lane LANE of V the grid entry of
// index qs (the byte at L(R12)) | bits SH..SH+2 of R7 << 8.
#define IQ1GRID(L, SH, V, LANE) \
	MOVBU L(R12), R10; \
	LSR   $SH, R7, R16; \
	AND   $7, R16; \
	ORR   R16<<8, R10, R10; \
	MOVD  (R8)(R10<<3), R10; \
	VMOV  R10, V.D[LANE]

// IQ1SCALE(SH, V) sets the four words of V to 2s+1 for the s at bits
// SH..SH+2 of R19 (SH a register or a constant).
#define IQ1SCALE(SH, V) \
	LSR   SH, R19, R9; \
	AND   $7, R9; \
	LSL   $1, R9; \
	ADD   $1, R9; \
	VDUP  R9, V.S4

// IQ1DOT adds the grid values in V3 and V4 times the activations at R14,
// scaled by V9 (elements 0-15) and V28 (16-31), to the lanes.
//	ldp q5, q6, [x14]
//	movi v7.4s, #0
//	movi v18.4s, #0
//	sdot v7.4s, v3.16b, v5.16b
//	sdot v18.4s, v4.16b, v6.16b
//	mla v16.4s, v7.4s, v9.4s
//	mla v17.4s, v18.4s, v28.4s
#define IQ1DOT \
	WORD $0xad4019c5; \
	WORD $0x4f000407; \
	WORD $0x4f000412; \
	WORD $0x4e859467; \
	WORD $0x4e869492; \
	WORD $0x4ea994f0; \
	WORD $0x4ebc9651

// IQ1FLOAT converts the lanes and accumulates them scaled by d_x·d_w (d_w
// the float16 at R0) into the float lanes; d stays in S2.
//	scvtf v16.4s, v16.4s
//	scvtf v17.4s, v17.4s
//	ldr h2, [x0]
//	fcvt s2, h2
//	ldr s3, [x1]
//	fmul s2, s3, s2
//	fmla v20.4s, v16.4s, v2.s[0]
//	fmla v21.4s, v17.4s, v2.s[0]
#define IQ1FLOAT \
	WORD $0x4e21da10; \
	WORD $0x4e21da31; \
	WORD $0x7d400002; \
	WORD $0x1ee24042; \
	WORD $0xbd400023; \
	WORD $0x1e220862; \
	WORD $0x4f821214; \
	WORD $0x4f821235

// func iq1sDotSDOT(w *byte, x *q8KBlock, n int, out *[9]float32, grid *[2048]uint64)
//
// R19 is the group's qh word (its scale bits 12-14), R11 the shifts'
// integer sum, S22 their float sum.
TEXT ·iq1sDotSDOT(SB), NOSPLIT, $0-40
	IQ1ARGS
	WORD $0x4f000416
	CBZ R2, iq1sdone
iq1sblock:
	WORD $0x4f000410
	WORD $0x4f000411
	MOVD ZR, R11
	ADD  $2, R0, R12
	ADD  $34, R0, R13
	ADD  $4, R1, R14
	ADD  $260, R1, R15
	MOVD $8, R6
iq1sgroup:
	MOVHU (R13), R7
	MOVD  R7, R19
	IQ1SCALE($12, V9)
	VMOV  V9.B16, V28.B16
	IQ1GRID(0, 0, V3, 0)
	IQ1GRID(1, 3, V3, 1)
	IQ1GRID(2, 6, V4, 0)
	IQ1GRID(3, 9, V4, 1)
	IQ1DOT
	MOVH  (R15), R16
	MOVH  2(R15), R17
	ADD   R17, R16
	MUL   R9, R16
	TBZ   $15, R7, iq1spos
	NEG   R16, R16
iq1spos:
	ADD   R16, R11
	ADD   $4, R12
	ADD   $2, R13
	ADD   $32, R14
	ADD   $4, R15
	SUBS  $1, R6
	BNE   iq1sgroup
	IQ1FLOAT
	WORD $0x1e220164
	WORD $0x1f045856
	ADD  $50, R0
	ADD  $292, R1
	SUBS $1, R2
	BNE  iq1sblock
iq1sdone:
	WORD $0xad005474
	WORD $0xbd002076
	RET

// func iq1mDotSDOT(w *byte, x *q8KBlock, n int, out *[16]float32, grid *[2048]uint64)
//
// R15 walks the scale words (in R19; R23 the bit of the group's first
// 3-bit scale, 0 or 6); R21 holds bytes of 1, R22 -1; V24 and V25 are the
// shifts' integer lanes, V26 and V27 their float lanes.
TEXT ·iq1mDotSDOT(SB), NOSPLIT, $0-40
	IQ1ARGS
	MOVD $0x0101010101010101, R21
	MOVD $-1, R22
	WORD $0x4f00041a
	WORD $0x4f00041b
	CBZ R2, iq1mdone
iq1mblock:
	WORD $0x4f000410
	WORD $0x4f000411
	WORD $0x4f000418
	WORD $0x4f000419
	MOVD R0, R12
	ADD  $32, R0, R13
	ADD  $4, R1, R14
	ADD  $48, R0, R15
	MOVD $8, R6
	MOVD ZR, R23
iq1mgroup:
	MOVHU (R13), R7
	MOVHU (R15), R19
	IQ1SCALE(R23, V9)
	ADD   $3, R23, R24
	IQ1SCALE(R24, V28)
	IQ1GRID(0, 0, V3, 0)
	IQ1GRID(1, 4, V3, 1)
	IQ1GRID(2, 8, V4, 0)
	IQ1GRID(3, 12, V4, 1)
	TST   $8, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V10.D[0]
	TST   $128, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V10.D[1]
	TST   $2048, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V11.D[0]
	TST   $32768, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V11.D[1]
	IQ1DOT
	WORD $0x4f000413 // movi v19.4s, #0
	WORD $0x4f000417 // movi v23.4s, #0
	WORD $0x4e859553 // sdot v19.4s, v10.16b, v5.16b
	WORD $0x4e869577 // sdot v23.4s, v11.16b, v6.16b
	WORD $0x4ea99678 // mla v24.4s, v19.4s, v9.4s
	WORD $0x4ebc96f9 // mla v25.4s, v23.4s, v28.4s
	ADD   $4, R12
	ADD   $2, R13
	ADD   $32, R14
	// The next group's scales: bits 6-11 of this word, or the next word.
	EOR   $6, R23
	CBNZ  R23, iq1msame
	ADD   $2, R15
iq1msame:
	SUBS  $1, R6
	BNE   iq1mgroup
	// The scale: the top nibbles of the four scale words, into H2.
	MOVHU 48(R0), R9
	LSR   $12, R9
	MOVHU 50(R0), R10
	LSR   $8, R10
	AND   $0xf0, R10
	ORR   R10, R9
	MOVHU 52(R0), R10
	LSR   $4, R10
	AND   $0xf00, R10
	ORR   R10, R9
	MOVHU 54(R0), R10
	AND   $0xf000, R10
	ORR   R10, R9
	VMOV  R9, V2.H[0]
	WORD $0x1ee24042 // fcvt s2, h2
	WORD $0xbd400023 // ldr s3, [x1]
	WORD $0x1e220862 // fmul s2, s3, s2
	WORD $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD $0x4e21da31 // scvtf v17.4s, v17.4s
	WORD $0x4e21db18 // scvtf v24.4s, v24.4s
	WORD $0x4e21db39 // scvtf v25.4s, v25.4s
	WORD $0x4f821214 // fmla v20.4s, v16.4s, v2.s[0]
	WORD $0x4f821235 // fmla v21.4s, v17.4s, v2.s[0]
	WORD $0x4f82131a // fmla v26.4s, v24.4s, v2.s[0]
	WORD $0x4f82133b // fmla v27.4s, v25.4s, v2.s[0]
	ADD  $56, R0
	ADD  $292, R1
	SUBS $1, R2
	BNE  iq1mblock
iq1mdone:
	WORD $0xad005474
	WORD $0xad016c7a
	RET
