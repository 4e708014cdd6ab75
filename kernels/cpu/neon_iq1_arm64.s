#include "textflag.h"

// The NEON (SDOT) dot product of IQ1_S weights with Q8_K activations, in
// dotLanesK's integer lanes: per super-block, eight lanes of the grid
// values' products with the activations scaled by 2s+1 (lane l the
// elements whose index modulo 32 is in [4l, 4l+4)) and the integer sum of
// the shifts' terms, each scaled by d_x·d_w with one fused multiply-add
// into the float lanes and the float sum the caller finishes.

// func iq1sDotSDOT(w *byte, x *q8KBlock, n int, out *[9]float32, grid *[2048]uint64)
//
// R0 and R1 walk the super-blocks, R12 the grid indices' low bytes, R13
// the qh words, R14 the activations, R15 their group sums; R8 is the
// grid, V16 and V17 the integer lanes 0-3 and 4-7, R11 the shifts' sum;
// V20, V21 and S22 the float lanes and sum.
TEXT ·iq1sDotSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD out+24(FP), R3
	MOVD grid+32(FP), R8
	WORD $0x4f000414 // movi v20.4s, #0
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4f000416 // movi v22.4s, #0
	CBZ R2, iq1sdone
iq1sblock:
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	MOVD ZR, R11
	ADD  $2, R0, R12
	ADD  $34, R0, R13
	ADD  $4, R1, R14
	ADD  $260, R1, R15
	MOVD $8, R6
iq1sgroup:
	MOVHU (R13), R7
	LSR   $12, R7, R9
	AND   $7, R9
	LSL   $1, R9
	ADD   $1, R9
	VDUP  R9, V9.S4
	MOVBU 0(R12), R10
	LSR   $0, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V3.D[0]
	MOVBU 1(R12), R10
	LSR   $3, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V3.D[1]
	MOVBU 2(R12), R10
	LSR   $6, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V4.D[0]
	MOVBU 3(R12), R10
	LSR   $9, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V4.D[1]
	WORD $0xad4019c5 // ldp q5, q6, [x14]
	WORD $0x4f000407 // movi v7.4s, #0
	WORD $0x4f000412 // movi v18.4s, #0
	WORD $0x4e859467 // sdot v7.4s, v3.16b, v5.16b
	WORD $0x4e869492 // sdot v18.4s, v4.16b, v6.16b
	WORD $0x4ea994f0 // mla v16.4s, v7.4s, v9.4s
	WORD $0x4ea99651 // mla v17.4s, v18.4s, v9.4s
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
	WORD $0x4e21da10 // scvtf v16.4s, v16.4s
	WORD $0x4e21da31 // scvtf v17.4s, v17.4s
	WORD $0x7d400002 // ldr h2, [x0]
	WORD $0x1ee24042 // fcvt s2, h2
	WORD $0xbd400023 // ldr s3, [x1]
	WORD $0x1e220862 // fmul s2, s3, s2
	WORD $0x4f821214 // fmla v20.4s, v16.4s, v2.s[0]
	WORD $0x4f821235 // fmla v21.4s, v17.4s, v2.s[0]
	WORD $0x1e220164 // scvtf s4, w11
	WORD $0x1f045856 // fmadd s22, s2, s4, s22
	ADD  $50, R0
	ADD  $292, R1
	SUBS $1, R2
	BNE  iq1sblock
iq1sdone:
	WORD $0xad005474 // stp q20, q21, [x3]
	WORD $0xbd002076 // str s22, [x3, #32]
	RET
