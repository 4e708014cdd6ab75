#include "textflag.h"

// AVX2 and AVX-512 forms of ssmRowsGo and deltaRowsGo (see
// recurrent_amd64.go) for rows of a multiple of 64 values: dotVec's four
// accumulators of sixteen lanes (one zmm each, or a pair of ymm holding
// lanes 0-7 and 8-15), combined 0+2, 1+3, then together and reduced as
// reduce16, so that every value is the oracle's bit for bit.

// ZRED reduces Z0-Z3 as dotVec does into the low float of X0 (Z4 a
// temporary).
#define ZRED \
	VADDPS        Z2, Z0, Z0; \
	VADDPS        Z3, Z1, Z1; \
	VADDPS        Z1, Z0, Z0; \
	VEXTRACTF64X4 $1, Z0, Y4; \
	VADDPS        Y4, Y0, Y0; \
	HSUM8

// YRED reduces the ymm pairs (Y0,Y1) (Y2,Y3) (Y4,Y5) (Y6,Y7), lanes 0-7
// and 8-15 of the four accumulators, as dotVec does into the low float of
// X0.
#define YRED \
	VADDPS Y4, Y0, Y0; \
	VADDPS Y5, Y1, Y1; \
	VADDPS Y6, Y2, Y2; \
	VADDPS Y7, Y3, Y3; \
	VADDPS Y2, Y0, Y0; \
	VADDPS Y3, Y1, Y1; \
	VADDPS Y1, Y0, Y0; \
	HSUM8

// HSUM8 finishes reduce16 from the eight sums t of Y0 (t[i] = lane i +
// lane i+8): high four onto low four, lanes 0+2 and 1+3, then the two,
// into the low float of X0 (X4 a temporary).
#define HSUM8 \
	VEXTRACTF128 $1, Y0, X4; \
	VADDPS       X4, X0, X0; \
	VMOVHLPS     X0, X0, X4; \
	VADDPS       X4, X0, X0; \
	VMOVSHDUP    X0, X4; \
	VADDSS       X4, X0, X0

// ---------------------------------------------------------------------
// The selective scan. Registers: SI the state row, BX b, DX c, R8 x, R9 y,
// R10 the row length, R11 the rows left, CX the chunks of 64 left; Z8/Y8
// dA and Z9/Y9 x·d in every lane, X10 (AVX2: X12) d.

// ZSSM(OFF, ACC) updates sixteen state values at OFF and accumulates their
// products with c into ACC: s = fma(s, dA, b·xdt).
#define ZSSM(OFF, ACC) \
	VMULPS      OFF(BX), Z9, Z5; \
	VMOVUPS     OFF(SI), Z6; \
	VFMADD213PS Z5, Z8, Z6; \
	VMOVUPS     Z6, OFF(SI); \
	VFMADD231PS OFF(DX), Z6, ACC

// func ssmRowsAVX512(st, bg, cg, x, y *float32, dA, d float32, nc, rows int)
TEXT ·ssmRowsAVX512(SB), NOSPLIT, $0-64
	MOVQ         st+0(FP), SI
	MOVQ         x+24(FP), R8
	MOVQ         y+32(FP), R9
	VBROADCASTSS dA+40(FP), Z8
	VMOVSS       d+44(FP), X10
	MOVQ         nc+48(FP), R10
	MOVQ         rows+56(FP), R11
	TESTQ        R11, R11
	JZ           zssmdone

zssmrow:
	VMOVSS       0(R8), X9
	VMULSS       X10, X9, X9
	VBROADCASTSS X9, Z9
	MOVQ         bg+8(FP), BX
	MOVQ         cg+16(FP), DX
	VPXORD       Z0, Z0, Z0
	VPXORD       Z1, Z1, Z1
	VPXORD       Z2, Z2, Z2
	VPXORD       Z3, Z3, Z3
	MOVQ         R10, CX
	SHRQ         $6, CX

zssmchunk:
	ZSSM(0, Z0)
	ZSSM(64, Z1)
	ZSSM(128, Z2)
	ZSSM(192, Z3)
	ADDQ $256, SI
	ADDQ $256, BX
	ADDQ $256, DX
	DECQ CX
	JNZ  zssmchunk

	ZRED
	VMOVSS X0, 0(R9)
	ADDQ $4, R8
	ADDQ $4, R9
	DECQ R11
	JNZ  zssmrow

zssmdone:
	VZEROUPPER
	RET

// YSSM(OFF, ACC) is ZSSM for eight values.
#define YSSM(OFF, ACC) \
	VMULPS      OFF(BX), Y9, Y10; \
	VMOVUPS     OFF(SI), Y11; \
	VFMADD213PS Y10, Y8, Y11; \
	VMOVUPS     Y11, OFF(SI); \
	VFMADD231PS OFF(DX), Y11, ACC

// func ssmRowsAVX2(st, bg, cg, x, y *float32, dA, d float32, nc, rows int)
TEXT ·ssmRowsAVX2(SB), NOSPLIT, $0-64
	MOVQ         st+0(FP), SI
	MOVQ         x+24(FP), R8
	MOVQ         y+32(FP), R9
	VBROADCASTSS dA+40(FP), Y8
	VMOVSS       d+44(FP), X12
	MOVQ         nc+48(FP), R10
	MOVQ         rows+56(FP), R11
	TESTQ        R11, R11
	JZ           yssmdone

yssmrow:
	VMOVSS       0(R8), X9
	VMULSS       X12, X9, X9
	VBROADCASTSS X9, Y9
	MOVQ         bg+8(FP), BX
	MOVQ         cg+16(FP), DX
	VXORPS       Y0, Y0, Y0
	VXORPS       Y1, Y1, Y1
	VXORPS       Y2, Y2, Y2
	VXORPS       Y3, Y3, Y3
	VXORPS       Y4, Y4, Y4
	VXORPS       Y5, Y5, Y5
	VXORPS       Y6, Y6, Y6
	VXORPS       Y7, Y7, Y7
	MOVQ         R10, CX
	SHRQ         $6, CX

yssmchunk:
	YSSM(0, Y0)
	YSSM(32, Y1)
	YSSM(64, Y2)
	YSSM(96, Y3)
	YSSM(128, Y4)
	YSSM(160, Y5)
	YSSM(192, Y6)
	YSSM(224, Y7)
	ADDQ $256, SI
	ADDQ $256, BX
	ADDQ $256, DX
	DECQ CX
	JNZ  yssmchunk

	YRED
	VMOVSS X0, 0(R9)
	ADDQ $4, R8
	ADDQ $4, R9
	DECQ R11
	JNZ  yssmrow

yssmdone:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------
// The gated delta net. Registers: SI the state row, DI its start, BX k,
// DX q, R8 v, R9 out, R10 the row length, R11 the rows left, CX the chunks
// of 64 left; Z8/Y8 the decay in every lane, Z9/Y9 delta, X10 beta and
// X11 the scale (AVX2: X12 and X13).

// ZDECAY(OFF, ACC) scales sixteen state values at OFF by the decay and
// accumulates their products with k into ACC.
#define ZDECAY(OFF, ACC) \
	VMULPS      OFF(SI), Z8, Z5; \
	VMOVUPS     Z5, OFF(SI); \
	VFMADD231PS OFF(BX), Z5, ACC

// ZUPDATE(OFF, ACC) adds k·delta to sixteen state values at OFF and
// accumulates their products with q into ACC.
#define ZUPDATE(OFF, ACC) \
	VMOVUPS     OFF(SI), Z5; \
	VFMADD231PS OFF(BX), Z9, Z5; \
	VMOVUPS     Z5, OFF(SI); \
	VFMADD231PS OFF(DX), Z5, ACC

// ZZERO4 clears the accumulators Z0-Z3.
#define ZZERO4 \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3

// func deltaRowsAVX512(st, k, q, v, out *float32, decay, beta, scale float32, n int)
TEXT ·deltaRowsAVX512(SB), NOSPLIT, $0-64
	MOVQ         st+0(FP), SI
	MOVQ         v+24(FP), R8
	MOVQ         out+32(FP), R9
	VBROADCASTSS decay+40(FP), Z8
	VMOVSS       beta+44(FP), X10
	VMOVSS       scale+48(FP), X11
	MOVQ         n+56(FP), R10
	MOVQ         R10, R11
	TESTQ        R11, R11
	JZ           zdeltadone

zdeltarow:
	MOVQ SI, DI
	MOVQ k+8(FP), BX
	ZZERO4
	MOVQ R10, CX
	SHRQ $6, CX

zdecay:
	ZDECAY(0, Z0)
	ZDECAY(64, Z1)
	ZDECAY(128, Z2)
	ZDECAY(192, Z3)
	ADDQ $256, SI
	ADDQ $256, BX
	DECQ CX
	JNZ  zdecay

	// delta = (v[j] - row·k)·beta
	ZRED
	VMOVSS       0(R8), X12
	VSUBSS       X0, X12, X12
	VMULSS       X10, X12, X12
	VBROADCASTSS X12, Z9
	MOVQ         DI, SI
	MOVQ         k+8(FP), BX
	MOVQ         q+16(FP), DX
	ZZERO4
	MOVQ         R10, CX
	SHRQ         $6, CX

zupdate:
	ZUPDATE(0, Z0)
	ZUPDATE(64, Z1)
	ZUPDATE(128, Z2)
	ZUPDATE(192, Z3)
	ADDQ $256, SI
	ADDQ $256, BX
	ADDQ $256, DX
	DECQ CX
	JNZ  zupdate

	ZRED
	VMULSS X11, X0, X0
	VMOVSS X0, 0(R9)
	ADDQ   $4, R8
	ADDQ   $4, R9
	DECQ   R11
	JNZ    zdeltarow

zdeltadone:
	VZEROUPPER
	RET

// YDECAY(OFF, ACC) is ZDECAY for eight values.
#define YDECAY(OFF, ACC) \
	VMULPS      OFF(SI), Y8, Y10; \
	VMOVUPS     Y10, OFF(SI); \
	VFMADD231PS OFF(BX), Y10, ACC

// YUPDATE(OFF, ACC) is ZUPDATE for eight values.
#define YUPDATE(OFF, ACC) \
	VMOVUPS     OFF(SI), Y10; \
	VFMADD231PS OFF(BX), Y9, Y10; \
	VMOVUPS     Y10, OFF(SI); \
	VFMADD231PS OFF(DX), Y10, ACC

// YZERO8 clears the accumulators Y0-Y7.
#define YZERO8 \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7

// func deltaRowsAVX2(st, k, q, v, out *float32, decay, beta, scale float32, n int)
TEXT ·deltaRowsAVX2(SB), NOSPLIT, $0-64
	MOVQ         st+0(FP), SI
	MOVQ         v+24(FP), R8
	MOVQ         out+32(FP), R9
	VBROADCASTSS decay+40(FP), Y8
	VMOVSS       beta+44(FP), X12
	VMOVSS       scale+48(FP), X13
	MOVQ         n+56(FP), R10
	MOVQ         R10, R11
	TESTQ        R11, R11
	JZ           ydeltadone

ydeltarow:
	MOVQ SI, DI
	MOVQ k+8(FP), BX
	YZERO8
	MOVQ R10, CX
	SHRQ $6, CX

ydecay:
	YDECAY(0, Y0)
	YDECAY(32, Y1)
	YDECAY(64, Y2)
	YDECAY(96, Y3)
	YDECAY(128, Y4)
	YDECAY(160, Y5)
	YDECAY(192, Y6)
	YDECAY(224, Y7)
	ADDQ $256, SI
	ADDQ $256, BX
	DECQ CX
	JNZ  ydecay

	YRED
	VMOVSS       0(R8), X14
	VSUBSS       X0, X14, X14
	VMULSS       X12, X14, X14
	VBROADCASTSS X14, Y9
	MOVQ         DI, SI
	MOVQ         k+8(FP), BX
	MOVQ         q+16(FP), DX
	YZERO8
	MOVQ         R10, CX
	SHRQ         $6, CX

yupdate:
	YUPDATE(0, Y0)
	YUPDATE(32, Y1)
	YUPDATE(64, Y2)
	YUPDATE(96, Y3)
	YUPDATE(128, Y4)
	YUPDATE(160, Y5)
	YUPDATE(192, Y6)
	YUPDATE(224, Y7)
	ADDQ $256, SI
	ADDQ $256, BX
	ADDQ $256, DX
	DECQ CX
	JNZ  yupdate

	YRED
	VMULSS X13, X0, X0
	VMOVSS X0, 0(R9)
	ADDQ   $4, R8
	ADDQ   $4, R9
	DECQ   R11
	JNZ    ydeltarow

ydeltadone:
	VZEROUPPER
	RET
