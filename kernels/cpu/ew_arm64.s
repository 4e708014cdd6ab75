#include "textflag.h"

// NEON forms of the element-wise kernels, lane for lane the Go expV: the
// same constants, the same fused multiply-adds (FMLA/FMLS), 2^n applied in
// two exact steps so the result rounds once. The float instructions the Go
// assembler lacks are WORD-encoded. Registers: V1, V2 and V21-V31 hold the
// constants (SETUP); EXPV reads x in V0 and leaves exp(x) in V16,
// clobbering V3-V17. Its steps:
//
//	VORR V1.B16, V1.B16, V3.B16        
//	VFMLA V2.S4, V0.S4, V3.S4          z = x·log2e + r
//	WORD $0x4ea1d464                   FSUB V4.4S, V3.4S, V1.4S: n = z - r
//	VORR V0.B16, V0.B16, V5.B16        
//	VFMLS V21.S4, V4.S4, V5.S4         
//	VFMLS V22.S4, V4.S4, V5.S4         b = x - n·ln2hi - n·ln2lo
//	WORD $0x6e25dca6                   FMUL V6.4S, V5.4S, V5.4S: u = b·b
//	VORR V24.B16, V24.B16, V7.B16      
//	VFMLA V23.S4, V5.S4, V7.S4         A = p0·b + p1
//	VORR V26.B16, V26.B16, V8.B16      
//	VFMLA V25.S4, V5.S4, V8.S4         B = p2·b + p3
//	VFMLA V7.S4, V6.S4, V8.S4          C = A·u + B
//	VORR V28.B16, V28.B16, V9.B16      
//	VFMLA V27.S4, V5.S4, V9.S4         D = p4·b + 1
//	VFMLA V8.S4, V6.S4, V9.S4          j = C·u + D
//	VSUB V1.S4, V3.S4, V3.S4           n as an integer: the low bits of z
//	WORD $0x4f3f046a                   SSHR V10.4S, V3.4S, #1: n1 = n>>1
//	VSUB V10.S4, V3.S4, V3.S4          n2 = n - n1
//	VADD V29.S4, V10.S4, V10.S4        
//	VSHL $23, V10.S4, V10.S4           2^n1
//	VADD V29.S4, V3.S4, V3.S4          
//	VSHL $23, V3.S4, V3.S4             2^n2
//	WORD $0x6e2add29                   FMUL V9.4S, V9.4S, V10.4S: exact
//	WORD $0x6e23dd29                   FMUL V9.4S, V9.4S, V3.4S: rounds once
//	WORD $0x4ea0f88c                   FABS V12.4S, V4.4S
//	WORD $0x6e2ce7ce                   FCMGE V14.4S, V30.4S, V12.4S: |n| <= 192, false for NaN
//	WORD $0x6ea0d88f                   FCMLE V15.4S, V4.4S, #0: n <= 0
//	VEOR V17.B16, V17.B16, V17.B16     
//	VORR V31.B16, V31.B16, V16.B16     
//	VBIT V15.B16, V17.B16, V16.B16     n <= 0 ? 0 : +Inf
//	VBIT V14.B16, V9.B16, V16.B16      the result where |n| <= 192

#define SETUP \
	MOVW $0x4b400000, R3 ; \
	VDUP R3, V1.S4 ; \
	MOVW $0x3fb8aa3b, R3 ; \
	VDUP R3, V2.S4 ; \
	MOVW $0x3f317200, R3 ; \
	VDUP R3, V21.S4 ; \
	MOVW $0x35bfbe8e, R3 ; \
	VDUP R3, V22.S4 ; \
	MOVW $0x3c072010, R3 ; \
	VDUP R3, V23.S4 ; \
	MOVW $0x3d2b9f17, R3 ; \
	VDUP R3, V24.S4 ; \
	MOVW $0x3e2aaf33, R3 ; \
	VDUP R3, V25.S4 ; \
	MOVW $0x3efffedb, R3 ; \
	VDUP R3, V26.S4 ; \
	MOVW $0x3f7ffff6, R3 ; \
	VDUP R3, V27.S4 ; \
	MOVW $0x3f800000, R3 ; \
	VDUP R3, V28.S4 ; \
	MOVW $0x7f, R3 ; \
	VDUP R3, V29.S4 ; \
	MOVW $0x43400000, R3 ; \
	VDUP R3, V30.S4 ; \
	MOVW $0x7f800000, R3 ; \
	VDUP R3, V31.S4

#define EXPV \
	VORR V1.B16, V1.B16, V3.B16 ; \
	VFMLA V2.S4, V0.S4, V3.S4 ; \
	WORD $0x4ea1d464 ; \
	VORR V0.B16, V0.B16, V5.B16 ; \
	VFMLS V21.S4, V4.S4, V5.S4 ; \
	VFMLS V22.S4, V4.S4, V5.S4 ; \
	WORD $0x6e25dca6 ; \
	VORR V24.B16, V24.B16, V7.B16 ; \
	VFMLA V23.S4, V5.S4, V7.S4 ; \
	VORR V26.B16, V26.B16, V8.B16 ; \
	VFMLA V25.S4, V5.S4, V8.S4 ; \
	VFMLA V7.S4, V6.S4, V8.S4 ; \
	VORR V28.B16, V28.B16, V9.B16 ; \
	VFMLA V27.S4, V5.S4, V9.S4 ; \
	VFMLA V8.S4, V6.S4, V9.S4 ; \
	VSUB V1.S4, V3.S4, V3.S4 ; \
	WORD $0x4f3f046a ; \
	VSUB V10.S4, V3.S4, V3.S4 ; \
	VADD V29.S4, V10.S4, V10.S4 ; \
	VSHL $23, V10.S4, V10.S4 ; \
	VADD V29.S4, V3.S4, V3.S4 ; \
	VSHL $23, V3.S4, V3.S4 ; \
	WORD $0x6e2add29 ; \
	WORD $0x6e23dd29 ; \
	WORD $0x4ea0f88c ; \
	WORD $0x6e2ce7ce ; \
	WORD $0x6ea0d88f ; \
	VEOR V17.B16, V17.B16, V17.B16 ; \
	VORR V31.B16, V31.B16, V16.B16 ; \
	VBIT V15.B16, V17.B16, V16.B16 ; \
	VBIT V14.B16, V9.B16, V16.B16

// func expNEON(dst, src *float32, n int)
TEXT ·expNEON(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2
	LSR  $2, R2
	CBZ  R2, expdone
	SETUP

exploop:
	VLD1.P 16(R1), [V0.S4]
	EXPV
	VST1.P [V16.S4], 16(R0)
	SUBS   $1, R2
	BNE    exploop

expdone:
	RET

// func siluNEON(y, x, gate *float32, n int)
TEXT ·siluNEON(SB), NOSPLIT, $0-32
	MOVD y+0(FP), R0
	MOVD x+8(FP), R1
	MOVD gate+16(FP), R4
	MOVD n+24(FP), R2
	LSR  $2, R2
	CBZ  R2, siludone
	SETUP

siluloop:
	VLD1.P 16(R1), [V20.S4]
	VLD1.P 16(R4), [V19.S4]
	WORD $0x6ea0fa80 // FNEG V0.4S, V20.4S
	EXPV
	WORD $0x4e3cd610 // FADD V16.4S, V16.4S, V28.4S: 1 + e
	WORD $0x6e30fe90 // FDIV V16.4S, V20.4S, V16.4S: x/(1+e)
	WORD $0x6e33de10 // FMUL V16.4S, V16.4S, V19.4S: times gate
	VST1.P [V16.S4], 16(R0)
	SUBS   $1, R2
	BNE    siluloop

siludone:
	RET
