#include "textflag.h"

// The NEON (SDOT) dot product of IQ1_M weights with Q8_K activations, in
// dotIQ1M's integer lanes: per super-block, eight lanes of the grid
// values' products with the activations and eight of the shifts' signs
// times the activations, both scaled by the 2s+1 of their group of 16;
// each scaled by d_x·d_w with one fused multiply-add into float lanes of
// its own, which the caller finishes.

// func iq1mDotSDOT(w *byte, x *q8KBlock, n int, out *[16]float32, grid *[2048]uint64)
//
// Per pair of groups of 32: R12 the grid indices' low bytes, R13 the qh
// bytes, R14 the activations, R15 the scale word (in R19). R21 holds
// bytes of 1, R22 -1; V16-V17 and V24-V25 are the integer lanes, V20-V21
// and V26-V27 the float lanes.
TEXT ·iq1mDotSDOT(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	MOVD out+24(FP), R3
	MOVD grid+32(FP), R8
	MOVD $0x0101010101010101, R21
	MOVD $-1, R22
	WORD $0x4f000414 // movi v20.4s, #0
	WORD $0x4f000415 // movi v21.4s, #0
	WORD $0x4f00041a // movi v26.4s, #0
	WORD $0x4f00041b // movi v27.4s, #0
	CBZ R2, iq1mdone
iq1mblock:
	WORD $0x4f000410 // movi v16.4s, #0
	WORD $0x4f000411 // movi v17.4s, #0
	WORD $0x4f000418 // movi v24.4s, #0
	WORD $0x4f000419 // movi v25.4s, #0
	MOVD R0, R12
	ADD  $32, R0, R13
	ADD  $4, R1, R14
	ADD  $48, R0, R15
	MOVD $4, R6
iq1mpair:
	MOVHU (R15), R19
	MOVHU 0(R13), R7
	LSR   $0, R19, R9
	AND   $7, R9
	LSL   $1, R9
	ADD   $1, R9
	VDUP  R9, V9.S4
	LSR   $3, R19, R9
	AND   $7, R9
	LSL   $1, R9
	ADD   $1, R9
	VDUP  R9, V28.S4
	MOVBU 0(R12), R10
	LSR   $0, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V3.D[0]
	TST   $8, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V10.D[0]
	MOVBU 1(R12), R10
	LSR   $4, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V3.D[1]
	TST   $128, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V10.D[1]
	MOVBU 2(R12), R10
	LSR   $8, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V4.D[0]
	TST   $2048, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V11.D[0]
	MOVBU 3(R12), R10
	LSR   $12, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V4.D[1]
	TST   $32768, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V11.D[1]
	ADD   $0, R14, R20
	WORD $0xad401a85 // ldp q5, q6, [x20]
	WORD $0x4f000407 // movi v7.4s, #0
	WORD $0x4f000412 // movi v18.4s, #0
	WORD $0x4f000413 // movi v19.4s, #0
	WORD $0x4f000417 // movi v23.4s, #0
	WORD $0x4e859467 // sdot v7.4s, v3.16b, v5.16b
	WORD $0x4e869492 // sdot v18.4s, v4.16b, v6.16b
	WORD $0x4e859553 // sdot v19.4s, v10.16b, v5.16b
	WORD $0x4e869577 // sdot v23.4s, v11.16b, v6.16b
	WORD $0x4ea994f0 // mla v16.4s, v7.4s, v9.4s
	WORD $0x4ebc9651 // mla v17.4s, v18.4s, v28.4s
	WORD $0x4ea99678 // mla v24.4s, v19.4s, v9.4s
	WORD $0x4ebc96f9 // mla v25.4s, v23.4s, v28.4s
	MOVHU 2(R13), R7
	LSR   $6, R19, R9
	AND   $7, R9
	LSL   $1, R9
	ADD   $1, R9
	VDUP  R9, V9.S4
	LSR   $9, R19, R9
	AND   $7, R9
	LSL   $1, R9
	ADD   $1, R9
	VDUP  R9, V28.S4
	MOVBU 4(R12), R10
	LSR   $0, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V3.D[0]
	TST   $8, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V10.D[0]
	MOVBU 5(R12), R10
	LSR   $4, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V3.D[1]
	TST   $128, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V10.D[1]
	MOVBU 6(R12), R10
	LSR   $8, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V4.D[0]
	TST   $2048, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V11.D[0]
	MOVBU 7(R12), R10
	LSR   $12, R7, R16
	AND   $7, R16
	ORR   R16<<8, R10, R10
	MOVD  (R8)(R10<<3), R10
	VMOV  R10, V4.D[1]
	TST   $32768, R7
	CSEL  NE, R22, R21, R9
	VMOV  R9, V11.D[1]
	ADD   $32, R14, R20
	WORD $0xad401a85 // ldp q5, q6, [x20]
	WORD $0x4f000407 // movi v7.4s, #0
	WORD $0x4f000412 // movi v18.4s, #0
	WORD $0x4f000413 // movi v19.4s, #0
	WORD $0x4f000417 // movi v23.4s, #0
	WORD $0x4e859467 // sdot v7.4s, v3.16b, v5.16b
	WORD $0x4e869492 // sdot v18.4s, v4.16b, v6.16b
	WORD $0x4e859553 // sdot v19.4s, v10.16b, v5.16b
	WORD $0x4e869577 // sdot v23.4s, v11.16b, v6.16b
	WORD $0x4ea994f0 // mla v16.4s, v7.4s, v9.4s
	WORD $0x4ebc9651 // mla v17.4s, v18.4s, v28.4s
	WORD $0x4ea99678 // mla v24.4s, v19.4s, v9.4s
	WORD $0x4ebc96f9 // mla v25.4s, v23.4s, v28.4s
	ADD   $8, R12
	ADD   $4, R13
	ADD   $64, R14
	ADD   $2, R15
	SUBS  $1, R6
	BNE   iq1mpair
	// The scale: the top nibbles of the four scale words.
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
	WORD $0xad005474 // stp q20, q21, [x3]
	WORD $0xad016c7a // stp q26, q27, [x3, #32]
	RET
