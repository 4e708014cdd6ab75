#include "textflag.h"

// NEON forms of the attention tile kernels. The Go assembler lacks the
// vector float arithmetic and conversions (FADD, FADDP, FMUL, FCVTL, SXTL,
// SCVTF): they are WORD-encoded, each with its instruction in a comment.

// func attnDotsNEON(out, q, k *float32, hd, ldk, n int)
TEXT ·attnDotsNEON(SB), NOSPLIT, $0-48
	MOVD out+0(FP), R0
	MOVD q+8(FP), R1
	MOVD k+16(FP), R2
	MOVD hd+24(FP), R3
	MOVD ldk+32(FP), R4
	MOVD n+40(FP), R5
	LSL  $2, R4
	CBZ  R5, dotsdone

dotscell:
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	MOVD R1, R6
	MOVD R2, R7
	MOVD R3, R8

dotsloop:
	VLD1.P 32(R6), [V4.S4, V5.S4]
	VLD1.P 32(R7), [V6.S4, V7.S4]
	VFMLA  V4.S4, V6.S4, V0.S4
	VFMLA  V5.S4, V7.S4, V1.S4
	SUBS   $8, R8
	BNE    dotsloop
	WORD $0x4e21d400 // FADD V0.4S, V0.4S, V1.4S
	WORD $0x6e20d400 // FADDP V0.4S, V0.4S, V0.4S
	WORD $0x7e30d800 // FADDP S0, V0.2S
	FMOVS  F0, (R0)
	ADD    $4, R0
	ADD    R4, R2
	SUBS   $1, R5
	BNE    dotscell

dotsdone:
	RET

// func attnAccNEON(acc, v, p *float32, vd, ldv, n int)
TEXT ·attnAccNEON(SB), NOSPLIT, $0-48
	MOVD acc+0(FP), R0
	MOVD v+8(FP), R1
	MOVD p+16(FP), R2
	MOVD vd+24(FP), R3
	MOVD ldv+32(FP), R4
	MOVD n+40(FP), R5
	LSL  $2, R4
	CBZ  R5, accdone

acc16:
	CMP  $16, R3
	BLT  acc4
	VLD1 (R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	MOVD R1, R6
	MOVD R2, R7
	MOVD R5, R8

acc16loop:
	VLD1R.P 4(R7), [V8.S4]
	VLD1    (R6), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA   V8.S4, V4.S4, V0.S4
	VFMLA   V8.S4, V5.S4, V1.S4
	VFMLA   V8.S4, V6.S4, V2.S4
	VFMLA   V8.S4, V7.S4, V3.S4
	ADD     R4, R6
	SUBS    $1, R8
	BNE     acc16loop
	VST1.P  [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	ADD     $64, R1
	SUB     $16, R3
	B       acc16

acc4:
	CBZ  R3, accdone
	VLD1 (R0), [V0.S4]
	MOVD R1, R6
	MOVD R2, R7
	MOVD R5, R8

acc4loop:
	VLD1R.P 4(R7), [V8.S4]
	VLD1    (R6), [V4.S4]
	VFMLA   V8.S4, V4.S4, V0.S4
	ADD     R4, R6
	SUBS    $1, R8
	BNE     acc4loop
	VST1.P  [V0.S4], 16(R0)
	ADD     $16, R1
	SUB     $4, R3
	B       acc4

accdone:
	RET

// func f16ToF32NEON(dst *float32, src *byte, n, stride, rows int)
TEXT ·f16ToF32NEON(SB), NOSPLIT, $0-40
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
	MOVD stride+24(FP), R3
	MOVD rows+32(FP), R4
	CBZ  R2, f16done
	CBZ  R4, f16done

f16row:
	MOVD R1, R5
	MOVD R2, R6

f16loop:
	VLD1.P 16(R5), [V0.H8]
	WORD $0xe217801 // FCVTL V1.4S, V0.4H
	WORD $0x4e217802 // FCVTL2 V2.4S, V0.8H
	VST1.P [V1.S4, V2.S4], 32(R0)
	SUBS   $8, R6
	BNE    f16loop
	ADD    R3, R1
	SUBS   $1, R4
	BNE    f16row

f16done:
	RET

// func q8ToF32NEON(dst *float32, src *byte, blocks, stride, rows int)
TEXT ·q8ToF32NEON(SB), NOSPLIT, $0-40
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD blocks+16(FP), R2
	MOVD stride+24(FP), R3
	MOVD rows+32(FP), R4
	CBZ  R2, q8done
	CBZ  R4, q8done

q8row:
	MOVD R1, R5
	MOVD R2, R6

q8loop:
	MOVHU  (R5), R7
	FMOVS  R7, F0
	WORD $0x1ee24000 // FCVT S0, H0
	ADD    $2, R5
	VLD1.P 32(R5), [V1.B16, V2.B16]
	WORD $0xf08a423 // SXTL V3.8H, V1.8B
	WORD $0x4f08a424 // SXTL2 V4.8H, V1.16B
	WORD $0xf08a445 // SXTL V5.8H, V2.8B
	WORD $0x4f08a446 // SXTL2 V6.8H, V2.16B
	WORD $0xf10a470 // SXTL V16.4S, V3.4H
	WORD $0x4f10a471 // SXTL2 V17.4S, V3.8H
	WORD $0xf10a492 // SXTL V18.4S, V4.4H
	WORD $0x4f10a493 // SXTL2 V19.4S, V4.8H
	WORD $0xf10a4b4 // SXTL V20.4S, V5.4H
	WORD $0x4f10a4b5 // SXTL2 V21.4S, V5.8H
	WORD $0xf10a4d6 // SXTL V22.4S, V6.4H
	WORD $0x4f10a4d7 // SXTL2 V23.4S, V6.8H
	WORD $0x4e21da10 // SCVTF V16.4S, V16.4S
	WORD $0x4e21da31 // SCVTF V17.4S, V17.4S
	WORD $0x4e21da52 // SCVTF V18.4S, V18.4S
	WORD $0x4e21da73 // SCVTF V19.4S, V19.4S
	WORD $0x4e21da94 // SCVTF V20.4S, V20.4S
	WORD $0x4e21dab5 // SCVTF V21.4S, V21.4S
	WORD $0x4e21dad6 // SCVTF V22.4S, V22.4S
	WORD $0x4e21daf7 // SCVTF V23.4S, V23.4S
	WORD $0x4f809210 // FMUL V16.4S, V16.4S, V0.S[0]
	WORD $0x4f809231 // FMUL V17.4S, V17.4S, V0.S[0]
	WORD $0x4f809252 // FMUL V18.4S, V18.4S, V0.S[0]
	WORD $0x4f809273 // FMUL V19.4S, V19.4S, V0.S[0]
	WORD $0x4f809294 // FMUL V20.4S, V20.4S, V0.S[0]
	WORD $0x4f8092b5 // FMUL V21.4S, V21.4S, V0.S[0]
	WORD $0x4f8092d6 // FMUL V22.4S, V22.4S, V0.S[0]
	WORD $0x4f8092f7 // FMUL V23.4S, V23.4S, V0.S[0]
	VST1.P [V16.S4, V17.S4, V18.S4, V19.S4], 64(R0)
	VST1.P [V20.S4, V21.S4, V22.S4, V23.S4], 64(R0)
	SUBS   $1, R6
	BNE    q8loop
	ADD    R3, R1
	SUBS   $1, R4
	BNE    q8row

q8done:
	RET

// func prefetchRows(p *byte, stride, n, size int)
TEXT ·prefetchRows(SB), NOSPLIT, $0-32
	MOVD p+0(FP), R0
	MOVD stride+8(FP), R1
	MOVD n+16(FP), R2
	MOVD size+24(FP), R3
	CBZ  R2, pfdone

pfrow:
	MOVD $0, R4

pfline:
	ADD  R0, R4, R5
	PRFM (R5), PLDL1KEEP
	ADD  $64, R4
	CMP  R3, R4
	BLT  pfline
	ADD  R1, R0
	SUBS $1, R2
	BNE  pfrow

pfdone:
	RET

// func f16AccNEON(acc *float32, v *byte, vs float32, n int)
//
// acc[i] = roundF16(fma(v[i], vs, acc[i])) for the n (a multiple of 8) F16
// values at v: FMLA by element, then FCVTN/FCVTL (round to nearest even).
TEXT ·f16AccNEON(SB), NOSPLIT, $0-32
	MOVD  acc+0(FP), R0
	MOVD  v+8(FP), R1
	FMOVS vs+16(FP), F5
	MOVD  n+24(FP), R2
	LSR   $3, R2
	CBZ   R2, faccdone

facc:
	VLD1.P 16(R1), [V0.H8]
	WORD $0xe217801 // FCVTL V1.4S, V0.4H
	WORD $0x4e217802 // FCVTL2 V2.4S, V0.8H
	VLD1   (R0), [V3.S4, V4.S4]
	WORD $0x4f851023 // FMLA V3.4S, V1.4S, V5.S[0]
	WORD $0x4f851044 // FMLA V4.4S, V2.4S, V5.S[0]
	WORD $0xe216866 // FCVTN V6.4H, V3.4S
	WORD $0x4e216886 // FCVTN2 V6.8H, V4.4S
	WORD $0xe2178c3 // FCVTL V3.4S, V6.4H
	WORD $0x4e2178c4 // FCVTL2 V4.4S, V6.8H
	VST1.P [V3.S4, V4.S4], 32(R0)
	SUBS   $1, R2
	BNE    facc

faccdone:
	RET

// func f16ScaleNEON(acc *float32, ms float32, n int)
//
// acc[i] = roundF16(acc[i]·ms) for i < n (a multiple of 8).
TEXT ·f16ScaleNEON(SB), NOSPLIT, $0-24
	MOVD  acc+0(FP), R0
	FMOVS ms+8(FP), F5
	MOVD  n+16(FP), R2
	LSR   $3, R2
	CBZ   R2, fscdone

fsc:
	VLD1   (R0), [V3.S4, V4.S4]
	WORD $0x4f859063 // FMUL V3.4S, V3.4S, V5.S[0]
	WORD $0x4f859084 // FMUL V4.4S, V4.4S, V5.S[0]
	WORD $0xe216866 // FCVTN V6.4H, V3.4S
	WORD $0x4e216886 // FCVTN2 V6.8H, V4.4S
	WORD $0xe2178c3 // FCVTL V3.4S, V6.4H
	WORD $0x4e2178c4 // FCVTL2 V4.4S, V6.8H
	VST1.P [V3.S4, V4.S4], 32(R0)
	SUBS   $1, R2
	BNE    fsc

fscdone:
	RET

// func seqDots64NEON(out, q, kt *float32, hd int)
//
// out[c] = Σ_i q[i]·kt[64i+c] for the 64 cells of a transposed key tile,
// each a chain of fused multiply-adds in element order: two halves of 32
// cells in eight accumulators.
TEXT ·seqDots64NEON(SB), NOSPLIT, $0-32
	MOVD out+0(FP), R0
	MOVD q+8(FP), R1
	MOVD kt+16(FP), R2
	MOVD hd+24(FP), R3
	MOVD $2, R6

s64half:
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	MOVD R1, R4
	MOVD R2, R5
	MOVD R3, R7
	CBZ  R7, s64store

s64loop:
	VLD1R.P 4(R4), [V16.S4]
	ADD     $64, R5, R8
	VLD1    (R5), [V8.S4, V9.S4, V10.S4, V11.S4]
	VLD1    (R8), [V12.S4, V13.S4, V14.S4, V15.S4]
	VFMLA V16.S4, V8.S4, V0.S4
	VFMLA V16.S4, V9.S4, V1.S4
	VFMLA V16.S4, V10.S4, V2.S4
	VFMLA V16.S4, V11.S4, V3.S4
	VFMLA V16.S4, V12.S4, V4.S4
	VFMLA V16.S4, V13.S4, V5.S4
	VFMLA V16.S4, V14.S4, V6.S4
	VFMLA V16.S4, V15.S4, V7.S4
	ADD     $256, R5
	SUBS    $1, R7
	BNE     s64loop

s64store:
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)
	ADD    $128, R2
	SUBS   $1, R6
	BNE    s64half
	RET
