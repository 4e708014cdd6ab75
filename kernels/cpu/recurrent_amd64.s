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

// ZCHUNK4(OP) applies OP(offset, accumulator) to the four vectors of 64
// values, into Z0-Z3.
#define ZCHUNK4(OP) \
	OP(0, Z0); \
	OP(64, Z1); \
	OP(128, Z2); \
	OP(192, Z3)

// YCHUNK8(OP) applies OP(offset, accumulator) to the eight vectors of 64
// values, into the pairs of Y0-Y7.
#define YCHUNK8(OP) \
	OP(0, Y0); \
	OP(32, Y1); \
	OP(64, Y2); \
	OP(96, Y3); \
	OP(128, Y4); \
	OP(160, Y5); \
	OP(192, Y6); \
	OP(224, Y7)

// ZZERO(OFF, ACC) and YZERO(OFF, ACC) clear ACC; ZZERO4 and YZERO8 clear
// the accumulators of a chunk.
#define ZZERO(OFF, ACC) VPXORD ACC, ACC, ACC
#define YZERO(OFF, ACC) VXORPS ACC, ACC, ACC
#define ZZERO4 ZCHUNK4(ZZERO)
#define YZERO8 YCHUNK8(YZERO)

// CHUNKS sets CX to the chunks of 64 values of a row (R10 values).
#define CHUNKS \
	MOVQ R10, CX; \
	SHRQ $6, CX

// NEXTROW advances the input (R8) and output (R9) cursors by a float and
// loops to ROW while rows are left (R11).
#define NEXTROW(ROW) \
	ADDQ $4, R8; \
	ADDQ $4, R9; \
	DECQ R11; \
	JNZ  ROW

// ---------------------------------------------------------------------
// The selective scan. Registers: SI the state row, BX b, DX c, R8 x, R9 y,
// R10 the row length, R11 the rows left, CX the chunks of 64 left; Z8/Y8
// dA and Z9/Y9 x·d in every lane, X12 d.

// ZSSM(OFF, ACC) updates sixteen state values at OFF and accumulates their
// products with c into ACC: s = fma(s, dA, b·xdt).
#define ZSSM(OFF, ACC) \
	VMULPS      OFF(BX), Z9, Z5; \
	VMOVUPS     OFF(SI), Z6; \
	VFMADD213PS Z5, Z8, Z6; \
	VMOVUPS     Z6, OFF(SI); \
	VFMADD231PS OFF(DX), Z6, ACC

// YSSM(OFF, ACC) is ZSSM for eight values.
#define YSSM(OFF, ACC) \
	VMULPS      OFF(BX), Y9, Y10; \
	VMOVUPS     OFF(SI), Y11; \
	VFMADD213PS Y10, Y8, Y11; \
	VMOVUPS     Y11, OFF(SI); \
	VFMADD231PS OFF(DX), Y11, ACC

// SSMROWS(V8, V9, ZERO, CHUNK, RED, ROW, LOOP, DONE) is the body of a scan
// kernel over registers V8 (dA) and V9 (x·d) of its width.
#define SSMROWS(V8, V9, ZERO, CHUNK, RED, ROW, LOOP, DONE) \
	MOVQ         st+0(FP), SI; \
	MOVQ         x+24(FP), R8; \
	MOVQ         y+32(FP), R9; \
	VBROADCASTSS dA+40(FP), V8; \
	VMOVSS       d+44(FP), X12; \
	MOVQ         nc+48(FP), R10; \
	MOVQ         rows+56(FP), R11; \
	TESTQ        R11, R11; \
	JZ           DONE; \
ROW: \
	VMOVSS       0(R8), X9; \
	VMULSS       X12, X9, X9; \
	VBROADCASTSS X9, V9; \
	MOVQ         bg+8(FP), BX; \
	MOVQ         cg+16(FP), DX; \
	ZERO; \
	CHUNKS; \
LOOP: \
	CHUNK; \
	ADDQ $256, SI; \
	ADDQ $256, BX; \
	ADDQ $256, DX; \
	DECQ CX; \
	JNZ  LOOP; \
	RED; \
	VMOVSS X0, 0(R9); \
	NEXTROW(ROW); \
DONE: \
	VZEROUPPER; \
	RET

// ---------------------------------------------------------------------
// The gated delta net. Registers: SI the state row, DI its start, BX k,
// DX q, R8 v, R9 out, R10 the row length, R11 the rows left, CX the chunks
// of 64 left; Z8/Y8 the decay in every lane, Z9/Y9 delta, X12 beta and
// X13 the scale.

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

// DELTAROWS(V8, V9, ZERO, DECAY, UPDATE, RED, ROW, L1, L2, DONE) is the
// body of a delta-net kernel over registers V8 (the decay) and V9 (delta)
// of its width: per row, the decay and row·k in one pass, delta = (v[j] −
// row·k)·beta, then the update and row·q in a second.
#define DELTAROWS(V8, V9, ZERO, DECAY, UPDATE, RED, ROW, L1, L2, DONE) \
	MOVQ         st+0(FP), SI; \
	MOVQ         v+24(FP), R8; \
	MOVQ         out+32(FP), R9; \
	VBROADCASTSS decay+40(FP), V8; \
	VMOVSS       beta+44(FP), X12; \
	VMOVSS       scale+48(FP), X13; \
	MOVQ         n+56(FP), R10; \
	MOVQ         R10, R11; \
	TESTQ        R11, R11; \
	JZ           DONE; \
ROW: \
	MOVQ SI, DI; \
	MOVQ k+8(FP), BX; \
	ZERO; \
	CHUNKS; \
L1: \
	DECAY; \
	ADDQ $256, SI; \
	ADDQ $256, BX; \
	DECQ CX; \
	JNZ  L1; \
	RED; \
	VMOVSS       0(R8), X14; \
	VSUBSS       X0, X14, X14; \
	VMULSS       X12, X14, X14; \
	VBROADCASTSS X14, V9; \
	MOVQ         DI, SI; \
	MOVQ         k+8(FP), BX; \
	MOVQ         q+16(FP), DX; \
	ZERO; \
	CHUNKS; \
L2: \
	UPDATE; \
	ADDQ $256, SI; \
	ADDQ $256, BX; \
	ADDQ $256, DX; \
	DECQ CX; \
	JNZ  L2; \
	RED; \
	VMULSS X13, X0, X0; \
	VMOVSS X0, 0(R9); \
	NEXTROW(ROW); \
DONE: \
	VZEROUPPER; \
	RET

// ---------------------------------------------------------------------
// The kernels.

// func ssmRowsAVX512(st, bg, cg, x, y *float32, dA, d float32, nc, rows int)
TEXT ·ssmRowsAVX512(SB), NOSPLIT, $0-64
	SSMROWS(Z8, Z9, ZZERO4, ZCHUNK4(ZSSM), ZRED, zssmrow, zssmchunk, zssmdone)

// func ssmRowsAVX2(st, bg, cg, x, y *float32, dA, d float32, nc, rows int)
TEXT ·ssmRowsAVX2(SB), NOSPLIT, $0-64
	SSMROWS(Y8, Y9, YZERO8, YCHUNK8(YSSM), YRED, yssmrow, yssmchunk, yssmdone)

// func deltaRowsAVX512(st, k, q, v, out *float32, decay, beta, scale float32, n int)
TEXT ·deltaRowsAVX512(SB), NOSPLIT, $0-64
	DELTAROWS(Z8, Z9, ZZERO4, ZCHUNK4(ZDECAY), ZCHUNK4(ZUPDATE), ZRED, zdeltarow, zdecay, zupdate, zdeltadone)

// func deltaRowsAVX2(st, k, q, v, out *float32, decay, beta, scale float32, n int)
TEXT ·deltaRowsAVX2(SB), NOSPLIT, $0-64
	DELTAROWS(Y8, Y9, YZERO8, YCHUNK8(YDECAY), YCHUNK8(YUPDATE), YRED, ydeltarow, ydecay, yupdate, ydeltadone)
