#include "textflag.h"

// AVX-512 VNNI tiles for Q8_0, Q4_0 and IQ4_NL weights (see
// avx512_q8_amd64.go). In the Q8_0 tiles each zmm holds two outputs side
// by side, one per 256-bit half, and each half does for its output
// exactly what the AVX2 kernel's ymm does: eight int32 lanes of four
// products per block (here one VPDPBUSD), converted, scaled by d_w·d_x
// and accumulated with one fused multiply-add per lane, hsum8 at the end.
//
// VPDPBUSD multiplies unsigned bytes by signed ones. A Q8_0 product w·x
// of two signed quants is taken as (u+128)·s - 128·s, with u+128 the
// unsigned byte u XOR 0x80: the lane sums are exact integers whatever the
// grouping, so each lane equals the AVX2 kernel's |w|·sign(w)x sum.

// HSUM8Z(Y, X, T) leaves in the low lane of X (the xmm of Y) the sum of
// Y's eight lanes in hsum8's order (high half onto low half, lanes 0+2
// and 1+3, then the two), as the AVX2 kernels' FHSUM8; T is an xmm
// scratch, which may be X16-X31.
#define HSUM8Z(Y, X, T) \
	VEXTRACTF32X4 $1, Y, T; \
	VADDPS        T, X, X;  \
	VMOVHLPS      X, X, T;  \
	VADDPS        T, X, X;  \
	VMOVSHDUP     X, T;     \
	VADDSS        T, X, X

// ZOUT2(Z, Y, X, LO, HI) stores hsum8 of Z's low half at LO and of its
// high half at HI. Uses Z29, Z30.
#define ZOUT2(Z, Y, X, LO, HI) \
	VEXTRACTF64X4 $1, Z, Y29;     \
	HSUM8Z(Y29, X29, X30);        \
	VMOVSS        X29, HI;        \
	HSUM8Z(Y, X, X30);            \
	VMOVSS        X, LO

// ---------------------------------------------------------------------
// Q8_0 prompt tile: four weight rows by eight activation rows. Weight
// rows 0 and 1 share a zmm (Z16: row 0's quants in the low half, row 1's
// in the high half), rows 2 and 3 another (Z17); each activation block is
// broadcast to both halves (Z20) and made unsigned, so one VPDPBUSD gives
// the lanes of two outputs. Per weight pair, Z18 (Z19) holds -128·Σw of
// each lane, the start of every lane sum; Z24 (Z25) holds the pair's
// scales, d_w of row 0 in the low half and of row 1 in the high half,
// multiplied by the activation's d_x (broadcast from memory) per output.
// Output (2p+h, j) accumulates in half h of Z(8p+j).
//
// Registers: SI weight row 0 (its blocks bstep apart: 34 in the file's
// layout), R12 wstride, R13 3·wstride, DI activation row 0, DX activation
// row 4, R9 xstride, R10 3·xstride, CX blocks left, BX the outputs, R11
// 4·ostride, R8 the bytes prefetched (from pahead on, pstep a block: in
// the file's layout the next four rows); Z26 0x80 bytes, Z27 zero, K1 the
// high eight words of a ymm.

// Q8ZCOL(XB, A0, A1) accumulates the current block of the activation row
// at XB (its d at 0, quants at 8) into A0 (weight rows 0, 1) and A1 (rows
// 2, 3).
#define Q8ZCOL(XB, A0, A1) \
	VBROADCASTI64X4 8 XB, Z20;  \
	VPXORD          Z26, Z20, Z20; \
	VMOVDQA64       Z18, Z21;   \
	VPDPBUSD        Z16, Z20, Z21; \
	VMOVDQA64       Z19, Z22;   \
	VPDPBUSD        Z17, Z20, Z22; \
	VCVTDQ2PS       Z21, Z21;   \
	VCVTDQ2PS       Z22, Z22;   \
	VMULPS.BCST     XB, Z24, Z23; \
	VMULPS.BCST     XB, Z25, Z28; \
	VFMADD231PS     Z21, Z23, A0; \
	VFMADD231PS     Z22, Z28, A1

// Q8ZPAIR(R0, R1, W, C, D) loads the current blocks of the weight rows at
// R0 and R1 (d at 0, quants at 2): their quants into W's halves, -128·Σw
// of each lane into C and their scales into D's halves. Uses Y21.
#define Q8ZPAIR(R0, R1, W, C, D) \
	VMOVDQU64        2 R0, Y21;    \
	VINSERTI64X4     $1, 2 R1, Z21, W; \
	VPXORD           C, C, C;      \
	VPDPBUSD         W, Z26, C;    \
	VPSUBD           C, Z27, C;    \
	VPBROADCASTW     R0, Y21;      \
	VPBROADCASTW     R1, K1, Y21;  \
	VCVTPH2PS        Y21, D

// func tileQ8_0x4x8StepAVX512(a *tileArgs, bstep, pahead, pstep int)
TEXT ·tileQ8_0x4x8StepAVX512(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), AX
	MOVQ 0(AX), SI
	MOVQ 8(AX), R12
	LEAQ (R12)(R12*2), R13
	MOVQ 16(AX), DI
	MOVQ 24(AX), R9
	LEAQ (R9)(R9*2), R10
	LEAQ (DI)(R9*4), DX
	MOVQ 32(AX), CX
	MOVQ 40(AX), BX
	MOVQ 48(AX), R11
	SHLQ $2, R11
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z27, Z27, Z27
	MOVL   $0x80808080, AX
	VPBROADCASTD AX, Z26
	MOVL   $0xff00, AX
	KMOVW  AX, K1
	MOVQ   pahead+16(FP), R8 // the next rows, prefetched as these run
	ADDQ   SI, R8
	MOVQ   bstep+8(FP), AX
	TESTQ  CX, CX
	JZ     q8zdone

q8zloop:
	PREFETCHT0 0(R8)
	PREFETCHT0 64(R8)
	PREFETCHT0 128(R8)
	ADDQ       pstep+24(FP), R8
	Q8ZPAIR((SI), (SI)(R12*1), Z16, Z18, Z24)
	Q8ZPAIR((SI)(R12*2), (SI)(R13*1), Z17, Z19, Z25)
	Q8ZCOL((DI), Z0, Z8)
	Q8ZCOL((DI)(R9*1), Z1, Z9)
	Q8ZCOL((DI)(R9*2), Z2, Z10)
	Q8ZCOL((DI)(R10*1), Z3, Z11)
	Q8ZCOL((DX), Z4, Z12)
	Q8ZCOL((DX)(R9*1), Z5, Z13)
	Q8ZCOL((DX)(R9*2), Z6, Z14)
	Q8ZCOL((DX)(R10*1), Z7, Z15)
	ADDQ AX, SI
	ADDQ $40, DI
	ADDQ $40, DX
	DECQ CX
	JNZ  q8zloop

q8zdone:
	// AX: the outputs of activation row 3, DX: of row 4, R8: of row 7.
	LEAQ (R11)(R11*2), R8
	LEAQ (BX)(R8*1), AX
	LEAQ (BX)(R11*4), DX
	ADDQ DX, R8
	ZOUT2(Z0, Y0, X0, 0(BX), 4(BX))
	ZOUT2(Z1, Y1, X1, 0(BX)(R11*1), 4(BX)(R11*1))
	ZOUT2(Z2, Y2, X2, 0(BX)(R11*2), 4(BX)(R11*2))
	ZOUT2(Z3, Y3, X3, 0(AX), 4(AX))
	ZOUT2(Z4, Y4, X4, 0(DX), 4(DX))
	ZOUT2(Z5, Y5, X5, 0(DX)(R11*1), 4(DX)(R11*1))
	ZOUT2(Z6, Y6, X6, 0(DX)(R11*2), 4(DX)(R11*2))
	ZOUT2(Z7, Y7, X7, 0(R8), 4(R8))
	ZOUT2(Z8, Y8, X8, 8(BX), 12(BX))
	ZOUT2(Z9, Y9, X9, 8(BX)(R11*1), 12(BX)(R11*1))
	ZOUT2(Z10, Y10, X10, 8(BX)(R11*2), 12(BX)(R11*2))
	ZOUT2(Z11, Y11, X11, 8(AX), 12(AX))
	ZOUT2(Z12, Y12, X12, 8(DX), 12(DX))
	ZOUT2(Z13, Y13, X13, 8(DX)(R11*1), 12(DX)(R11*1))
	ZOUT2(Z14, Y14, X14, 8(DX)(R11*2), 12(DX)(R11*2))
	ZOUT2(Z15, Y15, X15, 8(R8), 12(R8))
	VZEROUPPER
	RET

// Q8_0 tiles for batches of one to nine activation rows: four weight rows
// (two pairs, as in the prompt tile) by C activation rows, C = 1..9, so a
// batch of up to nine rows (a few sequences decoding together, a
// speculative draft's check) is one call per group of weight rows, and a
// longer batch's last rows after its tiles are one more. The weight rows
// stream from memory: the next four are prefetched as these run, so the
// loads overlap the arithmetic. Output (2p+h, j) accumulates in half h of
// the accumulator of pair p and activation row j: Z(j) and Z(8+j) for
// C <= 8; for C = 9, Z(j) and Z(9+j), row 7's and 8's second in Z29, Z30.

// Q8NHEAD(DONE) loads the arguments as tileQ8_0x4x8AVX512 does, the
// constants, and R8, the next four weight rows.
#define Q8NHEAD(DONE) \
	MOVQ a+0(FP), AX; \
	MOVQ 0(AX), SI; \
	MOVQ 8(AX), R12; \
	LEAQ (R12)(R12*2), R13; \
	MOVQ 16(AX), DI; \
	MOVQ 24(AX), R9; \
	LEAQ (R9)(R9*2), R10; \
	LEAQ (DI)(R9*4), DX; \
	MOVQ 32(AX), CX; \
	MOVQ 40(AX), BX; \
	MOVQ 48(AX), R11; \
	SHLQ $2, R11; \
	VPXORD Z27, Z27, Z27; \
	MOVL $0x80808080, AX; \
	VPBROADCASTD AX, Z26; \
	MOVL $0xff00, AX; \
	KMOVW AX, K1; \
	LEAQ (SI)(R12*4), R8

// Q8NPAIRS prefetches the next four rows' share of this block and loads
// the two weight pairs.
#define Q8NPAIRS \
	PREFETCHT0 0(R8); \
	PREFETCHT0 64(R8); \
	PREFETCHT0 128(R8); \
	ADDQ       $136, R8; \
	Q8ZPAIR((SI), (SI)(R12*1), Z16, Z18, Z24); \
	Q8ZPAIR((SI)(R12*2), (SI)(R13*1), Z17, Z19, Z25)

// Q8NNEXT moves to the next block.
#define Q8NNEXT \
	ADDQ $34, SI; \
	ADDQ $40, DI; \
	ADDQ $40, DX; \
	DECQ CX

// Q8NOUTS sets AX, DX and R8 to the outputs of activation rows 3, 4 and 7.
#define Q8NOUTS \
	LEAQ (R11)(R11*2), R8; \
	LEAQ (BX)(R8*1), AX; \
	LEAQ (BX)(R11*4), DX; \
	ADDQ DX, R8

// ZOUT2T is ZOUT2 with Z16 and Z17 for scratch (free after the loop).
#define ZOUT2T(Z, Y, X, LO, HI) \
	VEXTRACTF64X4 $1, Z, Y16;     \
	HSUM8Z(Y16, X16, X17);        \
	VMOVSS        X16, HI;        \
	HSUM8Z(Y, X, X17);            \
	VMOVSS        X, LO

// func tileQ8_0x4x2AVX512(a *tileArgs)
TEXT ·tileQ8_0x4x2AVX512(SB), NOSPLIT, $0-8
	Q8NHEAD(q8n2done)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	TESTQ CX, CX
	JZ    q8n2done

q8n2loop:
	Q8NPAIRS
	Q8ZCOL((DI), Z0, Z8)
	Q8ZCOL((DI)(R9*1), Z1, Z9)
	Q8NNEXT
	JNZ q8n2loop

q8n2done:
	Q8NOUTS
	ZOUT2(Z0, Y0, X0, 0(BX), 4(BX))
	ZOUT2(Z1, Y1, X1, 0(BX)(R11*1), 4(BX)(R11*1))
	ZOUT2(Z8, Y8, X8, 8(BX), 12(BX))
	ZOUT2(Z9, Y9, X9, 8(BX)(R11*1), 12(BX)(R11*1))
	VZEROUPPER
	RET

// func tileQ8_0x4x3AVX512(a *tileArgs)
TEXT ·tileQ8_0x4x3AVX512(SB), NOSPLIT, $0-8
	Q8NHEAD(q8n3done)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	TESTQ CX, CX
	JZ    q8n3done

q8n3loop:
	Q8NPAIRS
	Q8ZCOL((DI), Z0, Z8)
	Q8ZCOL((DI)(R9*1), Z1, Z9)
	Q8ZCOL((DI)(R9*2), Z2, Z10)
	Q8NNEXT
	JNZ q8n3loop

q8n3done:
	Q8NOUTS
	ZOUT2(Z0, Y0, X0, 0(BX), 4(BX))
	ZOUT2(Z1, Y1, X1, 0(BX)(R11*1), 4(BX)(R11*1))
	ZOUT2(Z2, Y2, X2, 0(BX)(R11*2), 4(BX)(R11*2))
	ZOUT2(Z8, Y8, X8, 8(BX), 12(BX))
	ZOUT2(Z9, Y9, X9, 8(BX)(R11*1), 12(BX)(R11*1))
	ZOUT2(Z10, Y10, X10, 8(BX)(R11*2), 12(BX)(R11*2))
	VZEROUPPER
	RET

// func tileQ8_0x4x4AVX512(a *tileArgs)
TEXT ·tileQ8_0x4x4AVX512(SB), NOSPLIT, $0-8
	Q8NHEAD(q8n4done)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	TESTQ CX, CX
	JZ    q8n4done

q8n4loop:
	Q8NPAIRS
	Q8ZCOL((DI), Z0, Z8)
	Q8ZCOL((DI)(R9*1), Z1, Z9)
	Q8ZCOL((DI)(R9*2), Z2, Z10)
	Q8ZCOL((DI)(R10*1), Z3, Z11)
	Q8NNEXT
	JNZ q8n4loop

q8n4done:
	Q8NOUTS
	ZOUT2(Z0, Y0, X0, 0(BX), 4(BX))
	ZOUT2(Z1, Y1, X1, 0(BX)(R11*1), 4(BX)(R11*1))
	ZOUT2(Z2, Y2, X2, 0(BX)(R11*2), 4(BX)(R11*2))
	ZOUT2(Z3, Y3, X3, 0(AX), 4(AX))
	ZOUT2(Z8, Y8, X8, 8(BX), 12(BX))
	ZOUT2(Z9, Y9, X9, 8(BX)(R11*1), 12(BX)(R11*1))
	ZOUT2(Z10, Y10, X10, 8(BX)(R11*2), 12(BX)(R11*2))
	ZOUT2(Z11, Y11, X11, 8(AX), 12(AX))
	VZEROUPPER
	RET

// func tileQ8_0x4x5AVX512(a *tileArgs)
TEXT ·tileQ8_0x4x5AVX512(SB), NOSPLIT, $0-8
	Q8NHEAD(q8n5done)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	TESTQ CX, CX
	JZ    q8n5done

q8n5loop:
	Q8NPAIRS
	Q8ZCOL((DI), Z0, Z8)
	Q8ZCOL((DI)(R9*1), Z1, Z9)
	Q8ZCOL((DI)(R9*2), Z2, Z10)
	Q8ZCOL((DI)(R10*1), Z3, Z11)
	Q8ZCOL((DX), Z4, Z12)
	Q8NNEXT
	JNZ q8n5loop

q8n5done:
	Q8NOUTS
	ZOUT2(Z0, Y0, X0, 0(BX), 4(BX))
	ZOUT2(Z1, Y1, X1, 0(BX)(R11*1), 4(BX)(R11*1))
	ZOUT2(Z2, Y2, X2, 0(BX)(R11*2), 4(BX)(R11*2))
	ZOUT2(Z3, Y3, X3, 0(AX), 4(AX))
	ZOUT2(Z4, Y4, X4, 0(DX), 4(DX))
	ZOUT2(Z8, Y8, X8, 8(BX), 12(BX))
	ZOUT2(Z9, Y9, X9, 8(BX)(R11*1), 12(BX)(R11*1))
	ZOUT2(Z10, Y10, X10, 8(BX)(R11*2), 12(BX)(R11*2))
	ZOUT2(Z11, Y11, X11, 8(AX), 12(AX))
	ZOUT2(Z12, Y12, X12, 8(DX), 12(DX))
	VZEROUPPER
	RET

// func tileQ8_0x4x6AVX512(a *tileArgs)
TEXT ·tileQ8_0x4x6AVX512(SB), NOSPLIT, $0-8
	Q8NHEAD(q8n6done)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	TESTQ CX, CX
	JZ    q8n6done

q8n6loop:
	Q8NPAIRS
	Q8ZCOL((DI), Z0, Z8)
	Q8ZCOL((DI)(R9*1), Z1, Z9)
	Q8ZCOL((DI)(R9*2), Z2, Z10)
	Q8ZCOL((DI)(R10*1), Z3, Z11)
	Q8ZCOL((DX), Z4, Z12)
	Q8ZCOL((DX)(R9*1), Z5, Z13)
	Q8NNEXT
	JNZ q8n6loop

q8n6done:
	Q8NOUTS
	ZOUT2(Z0, Y0, X0, 0(BX), 4(BX))
	ZOUT2(Z1, Y1, X1, 0(BX)(R11*1), 4(BX)(R11*1))
	ZOUT2(Z2, Y2, X2, 0(BX)(R11*2), 4(BX)(R11*2))
	ZOUT2(Z3, Y3, X3, 0(AX), 4(AX))
	ZOUT2(Z4, Y4, X4, 0(DX), 4(DX))
	ZOUT2(Z5, Y5, X5, 0(DX)(R11*1), 4(DX)(R11*1))
	ZOUT2(Z8, Y8, X8, 8(BX), 12(BX))
	ZOUT2(Z9, Y9, X9, 8(BX)(R11*1), 12(BX)(R11*1))
	ZOUT2(Z10, Y10, X10, 8(BX)(R11*2), 12(BX)(R11*2))
	ZOUT2(Z11, Y11, X11, 8(AX), 12(AX))
	ZOUT2(Z12, Y12, X12, 8(DX), 12(DX))
	ZOUT2(Z13, Y13, X13, 8(DX)(R11*1), 12(DX)(R11*1))
	VZEROUPPER
	RET

// func tileQ8_0x4x7AVX512(a *tileArgs)
TEXT ·tileQ8_0x4x7AVX512(SB), NOSPLIT, $0-8
	Q8NHEAD(q8n7done)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	TESTQ CX, CX
	JZ    q8n7done

q8n7loop:
	Q8NPAIRS
	Q8ZCOL((DI), Z0, Z8)
	Q8ZCOL((DI)(R9*1), Z1, Z9)
	Q8ZCOL((DI)(R9*2), Z2, Z10)
	Q8ZCOL((DI)(R10*1), Z3, Z11)
	Q8ZCOL((DX), Z4, Z12)
	Q8ZCOL((DX)(R9*1), Z5, Z13)
	Q8ZCOL((DX)(R9*2), Z6, Z14)
	Q8NNEXT
	JNZ q8n7loop

q8n7done:
	Q8NOUTS
	ZOUT2(Z0, Y0, X0, 0(BX), 4(BX))
	ZOUT2(Z1, Y1, X1, 0(BX)(R11*1), 4(BX)(R11*1))
	ZOUT2(Z2, Y2, X2, 0(BX)(R11*2), 4(BX)(R11*2))
	ZOUT2(Z3, Y3, X3, 0(AX), 4(AX))
	ZOUT2(Z4, Y4, X4, 0(DX), 4(DX))
	ZOUT2(Z5, Y5, X5, 0(DX)(R11*1), 4(DX)(R11*1))
	ZOUT2(Z6, Y6, X6, 0(DX)(R11*2), 4(DX)(R11*2))
	ZOUT2(Z8, Y8, X8, 8(BX), 12(BX))
	ZOUT2(Z9, Y9, X9, 8(BX)(R11*1), 12(BX)(R11*1))
	ZOUT2(Z10, Y10, X10, 8(BX)(R11*2), 12(BX)(R11*2))
	ZOUT2(Z11, Y11, X11, 8(AX), 12(AX))
	ZOUT2(Z12, Y12, X12, 8(DX), 12(DX))
	ZOUT2(Z13, Y13, X13, 8(DX)(R11*1), 12(DX)(R11*1))
	ZOUT2(Z14, Y14, X14, 8(DX)(R11*2), 12(DX)(R11*2))
	VZEROUPPER
	RET

// func tileQ8_0x4x9AVX512(a *tileArgs)
TEXT ·tileQ8_0x4x9AVX512(SB), NOSPLIT, $0-8
	Q8NHEAD(q8n9done)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z29, Z29, Z29
	VPXORD Z30, Z30, Z30
	TESTQ CX, CX
	JZ    q8n9done

q8n9loop:
	Q8NPAIRS
	Q8ZCOL((DI), Z0, Z9)
	Q8ZCOL((DI)(R9*1), Z1, Z10)
	Q8ZCOL((DI)(R9*2), Z2, Z11)
	Q8ZCOL((DI)(R10*1), Z3, Z12)
	Q8ZCOL((DX), Z4, Z13)
	Q8ZCOL((DX)(R9*1), Z5, Z14)
	Q8ZCOL((DX)(R9*2), Z6, Z15)
	Q8ZCOL((DX)(R10*1), Z7, Z29)
	Q8ZCOL((DX)(R9*4), Z8, Z30)
	Q8NNEXT
	JNZ q8n9loop

q8n9done:
	Q8NOUTS
	ZOUT2T(Z29, Y29, X29, 8(R8), 12(R8))
	ZOUT2T(Z30, Y30, X30, 8(DX)(R11*4), 12(DX)(R11*4))
	ZOUT2(Z0, Y0, X0, 0(BX), 4(BX))
	ZOUT2(Z1, Y1, X1, 0(BX)(R11*1), 4(BX)(R11*1))
	ZOUT2(Z2, Y2, X2, 0(BX)(R11*2), 4(BX)(R11*2))
	ZOUT2(Z3, Y3, X3, 0(AX), 4(AX))
	ZOUT2(Z4, Y4, X4, 0(DX), 4(DX))
	ZOUT2(Z5, Y5, X5, 0(DX)(R11*1), 4(DX)(R11*1))
	ZOUT2(Z6, Y6, X6, 0(DX)(R11*2), 4(DX)(R11*2))
	ZOUT2(Z7, Y7, X7, 0(R8), 4(R8))
	ZOUT2(Z8, Y8, X8, 0(DX)(R11*4), 4(DX)(R11*4))
	ZOUT2(Z9, Y9, X9, 8(BX), 12(BX))
	ZOUT2(Z10, Y10, X10, 8(BX)(R11*1), 12(BX)(R11*1))
	ZOUT2(Z11, Y11, X11, 8(BX)(R11*2), 12(BX)(R11*2))
	ZOUT2(Z12, Y12, X12, 8(AX), 12(AX))
	ZOUT2(Z13, Y13, X13, 8(DX), 12(DX))
	ZOUT2(Z14, Y14, X14, 8(DX)(R11*1), 12(DX)(R11*1))
	ZOUT2(Z15, Y15, X15, 8(DX)(R11*2), 12(DX)(R11*2))
	VZEROUPPER
	RET

// ---------------------------------------------------------------------
// Q4_0 and IQ4_NL tiles: sixteen weight rows, one to a lane of a zmm, by
// one or eight activation rows. The oracle (dot32) takes one integer dot
// per block and output and one fused multiply-add per block, so here each
// lane holds one output: per block the sixteen rows' quants are
// transposed so that dword k of lane r holds row r's four quants of step
// k (k = 0..3: the low nibbles of the block's bytes 4k..4k+3, elements
// 4k..4k+3; k = 4..7: their high nibbles, elements 16+4(k-4)..), looked up
// in a table of unsigned levels (Q4_0: q+8, the nibble itself; IQ4_NL:
// level+128, so level = u - off; the five-bit types add their fifth bit), and eight VPDPBUSD with the activation's dword k broadcast
// from memory give each lane Σu·x, started from -off·Σx: the exact
// integer dot. Then per lane float32(dot)·(d_w·d_x) + sum with one fused
// multiply-add, in block order, as the oracle.
//
// Registers: SI, R8, R14, AX weight rows 0, 4, 8, 12; R12 wstride, R13
// 3·wstride; DI activation row 0, DX row 4, R9 xstride, R10 3·xstride; CX
// blocks left; BX the outputs, R11 4·ostride. Z8..Z15 the unsigned quants
// of steps 0..7, Z16 the sixteen rows' d_w, Z25 0x0f bytes, Z26 the
// table in each 128-bit lane, Z27 off in every byte, Z31 zero.

// Q4ZLOAD(OFF, R0, R1, R2, R3, Z, X) loads the 16 quant bytes (at OFF) of
// the blocks at R0..R3 (rows r, 4+r, 8+r, 12+r) into Z's four 128-bit
// lanes.
#define Q4ZLOAD(OFF, R0, R1, R2, R3, Z, X) \
	VMOVDQU64    OFF R0, X; \
	VINSERTI32X4 $1, OFF R1, Z, Z; \
	VINSERTI32X4 $2, OFF R2, Z, Z; \
	VINSERTI32X4 $3, OFF R3, Z, Z

// Q4ZNIB(T, LO, HI) splits the transposed dwords T into their low nibbles
// (LO) and high nibbles (HI): Q4_0's unsigned levels.
#define Q4ZNIB(T, LO, HI) \
	VPANDD  Z25, T, LO;    \
	VPSRLD  $4, T, HI;     \
	VPANDD  Z25, HI, HI

// Q4ZLUT(T, LO, HI) is Q4ZNIB with the nibbles looked up in the table
// (IQ4_NL's unsigned levels).
#define Q4ZLUT(T, LO, HI) \
	Q4ZNIB(T, LO, HI);     \
	VPSHUFB LO, Z26, LO;   \
	VPSHUFB HI, Z26, HI

// Q4ZQUANTS(OFF, STEPS) loads the quants (at OFF in each block) of the
// current block of the sixteen weight rows and leaves their steps,
// unpacked by STEPS, in Z8..Z15: a 4×4 dword transpose in each 128-bit
// lane turns rows 4c..4c+3 of lane c into dword k of lanes 4c..4c+3.
// Uses Z17..Z24.
#define Q4ZQUANTS(OFF, STEPS) \
	Q4ZLOAD(OFF, (SI), (R8), (R14), (AX), Z17, X17); \
	Q4ZLOAD(OFF, (SI)(R12*1), (R8)(R12*1), (R14)(R12*1), (AX)(R12*1), Z18, X18); \
	Q4ZLOAD(OFF, (SI)(R12*2), (R8)(R12*2), (R14)(R12*2), (AX)(R12*2), Z19, X19); \
	Q4ZLOAD(OFF, (SI)(R13*1), (R8)(R13*1), (R14)(R13*1), (AX)(R13*1), Z20, X20); \
	VPUNPCKLDQ  Z18, Z17, Z21; \
	VPUNPCKHDQ  Z18, Z17, Z22; \
	VPUNPCKLDQ  Z20, Z19, Z23; \
	VPUNPCKHDQ  Z20, Z19, Z24; \
	VPUNPCKLQDQ Z23, Z21, Z17; \
	VPUNPCKHQDQ Z23, Z21, Z18; \
	VPUNPCKLQDQ Z24, Z22, Z19; \
	VPUNPCKHQDQ Z24, Z22, Z20; \
	STEPS(Z17, Z8, Z12); \
	STEPS(Z18, Z9, Z13); \
	STEPS(Z19, Z10, Z14); \
	STEPS(Z20, Z11, Z15)

// Q4ZSCALES loads the d (at 0) of the current block of the sixteen weight
// rows into Z16 (inserted word by word). Uses Z21, Z22.
#define Q4ZSCALES \
	VPINSRW     $0, (SI), X21, X21; \
	VPINSRW     $1, (SI)(R12*1), X21, X21; \
	VPINSRW     $2, (SI)(R12*2), X21, X21; \
	VPINSRW     $3, (SI)(R13*1), X21, X21; \
	VPINSRW     $4, (R8), X21, X21; \
	VPINSRW     $5, (R8)(R12*1), X21, X21; \
	VPINSRW     $6, (R8)(R12*2), X21, X21; \
	VPINSRW     $7, (R8)(R13*1), X21, X21; \
	VPINSRW     $0, (R14), X22, X22; \
	VPINSRW     $1, (R14)(R12*1), X22, X22; \
	VPINSRW     $2, (R14)(R12*2), X22, X22; \
	VPINSRW     $3, (R14)(R13*1), X22, X22; \
	VPINSRW     $4, (AX), X22, X22; \
	VPINSRW     $5, (AX)(R12*1), X22, X22; \
	VPINSRW     $6, (AX)(R12*2), X22, X22; \
	VPINSRW     $7, (AX)(R13*1), X22, X22; \
	VINSERTI32X4 $1, X22, Y21, Y21; \
	VCVTPH2PS   Y21, Z16

// q5zSpread+64b spreads byte b of each dword over the dword's bytes (as
// VPSHUFB controls); q5zBit holds bits 0..3, then 4..7, of each dword's
// bytes in turn; q5z10 holds 16 in every byte.
DATA q5zSpread<>+0(SB)/8, $0x0404040400000000
DATA q5zSpread<>+8(SB)/8, $0x0c0c0c0c08080808
DATA q5zSpread<>+16(SB)/8, $0x0404040400000000
DATA q5zSpread<>+24(SB)/8, $0x0c0c0c0c08080808
DATA q5zSpread<>+32(SB)/8, $0x0404040400000000
DATA q5zSpread<>+40(SB)/8, $0x0c0c0c0c08080808
DATA q5zSpread<>+48(SB)/8, $0x0404040400000000
DATA q5zSpread<>+56(SB)/8, $0x0c0c0c0c08080808
DATA q5zSpread<>+64(SB)/8, $0x0505050501010101
DATA q5zSpread<>+72(SB)/8, $0x0d0d0d0d09090909
DATA q5zSpread<>+80(SB)/8, $0x0505050501010101
DATA q5zSpread<>+88(SB)/8, $0x0d0d0d0d09090909
DATA q5zSpread<>+96(SB)/8, $0x0505050501010101
DATA q5zSpread<>+104(SB)/8, $0x0d0d0d0d09090909
DATA q5zSpread<>+112(SB)/8, $0x0505050501010101
DATA q5zSpread<>+120(SB)/8, $0x0d0d0d0d09090909
DATA q5zSpread<>+128(SB)/8, $0x0606060602020202
DATA q5zSpread<>+136(SB)/8, $0x0e0e0e0e0a0a0a0a
DATA q5zSpread<>+144(SB)/8, $0x0606060602020202
DATA q5zSpread<>+152(SB)/8, $0x0e0e0e0e0a0a0a0a
DATA q5zSpread<>+160(SB)/8, $0x0606060602020202
DATA q5zSpread<>+168(SB)/8, $0x0e0e0e0e0a0a0a0a
DATA q5zSpread<>+176(SB)/8, $0x0606060602020202
DATA q5zSpread<>+184(SB)/8, $0x0e0e0e0e0a0a0a0a
DATA q5zSpread<>+192(SB)/8, $0x0707070703030303
DATA q5zSpread<>+200(SB)/8, $0x0f0f0f0f0b0b0b0b
DATA q5zSpread<>+208(SB)/8, $0x0707070703030303
DATA q5zSpread<>+216(SB)/8, $0x0f0f0f0f0b0b0b0b
DATA q5zSpread<>+224(SB)/8, $0x0707070703030303
DATA q5zSpread<>+232(SB)/8, $0x0f0f0f0f0b0b0b0b
DATA q5zSpread<>+240(SB)/8, $0x0707070703030303
DATA q5zSpread<>+248(SB)/8, $0x0f0f0f0f0b0b0b0b
GLOBL q5zSpread<>(SB), RODATA|NOPTR, $256

DATA q5zBit<>+0(SB)/8, $0x0804020108040201
DATA q5zBit<>+8(SB)/8, $0x0804020108040201
DATA q5zBit<>+16(SB)/8, $0x0804020108040201
DATA q5zBit<>+24(SB)/8, $0x0804020108040201
DATA q5zBit<>+32(SB)/8, $0x0804020108040201
DATA q5zBit<>+40(SB)/8, $0x0804020108040201
DATA q5zBit<>+48(SB)/8, $0x0804020108040201
DATA q5zBit<>+56(SB)/8, $0x0804020108040201
DATA q5zBit<>+64(SB)/8, $0x8040201080402010
DATA q5zBit<>+72(SB)/8, $0x8040201080402010
DATA q5zBit<>+80(SB)/8, $0x8040201080402010
DATA q5zBit<>+88(SB)/8, $0x8040201080402010
DATA q5zBit<>+96(SB)/8, $0x8040201080402010
DATA q5zBit<>+104(SB)/8, $0x8040201080402010
DATA q5zBit<>+112(SB)/8, $0x8040201080402010
DATA q5zBit<>+120(SB)/8, $0x8040201080402010
GLOBL q5zBit<>(SB), RODATA|NOPTR, $128

DATA q5z10<>+0(SB)/8, $0x1010101010101010
DATA q5z10<>+8(SB)/8, $0x1010101010101010
DATA q5z10<>+16(SB)/8, $0x1010101010101010
DATA q5z10<>+24(SB)/8, $0x1010101010101010
DATA q5z10<>+32(SB)/8, $0x1010101010101010
DATA q5z10<>+40(SB)/8, $0x1010101010101010
DATA q5z10<>+48(SB)/8, $0x1010101010101010
DATA q5z10<>+56(SB)/8, $0x1010101010101010
GLOBL q5z10<>(SB), RODATA|NOPTR, $64

// Q5ZHIGH(OFF) adds the fifth bits (the block's dword at OFF: bit e for
// element e) to the steps in Z8..Z15: step s holds elements 4s..4s+3, whose
// bits are bits 4(s%2).. of byte s/2, spread over the dword's bytes
// (q5zSpread), tested (q5zBit) and added as 16 where set. Uses Z17, Z21..Z24,
// K1.
#define Q5ZHIGH(OFF) \
	VPINSRD      $0, OFF(SI), X21, X21; \
	VPINSRD      $1, OFF(SI)(R12*1), X21, X21; \
	VPINSRD      $2, OFF(SI)(R12*2), X21, X21; \
	VPINSRD      $3, OFF(SI)(R13*1), X21, X21; \
	VPINSRD      $0, OFF(R8), X22, X22; \
	VPINSRD      $1, OFF(R8)(R12*1), X22, X22; \
	VPINSRD      $2, OFF(R8)(R12*2), X22, X22; \
	VPINSRD      $3, OFF(R8)(R13*1), X22, X22; \
	VPINSRD      $0, OFF(R14), X23, X23; \
	VPINSRD      $1, OFF(R14)(R12*1), X23, X23; \
	VPINSRD      $2, OFF(R14)(R12*2), X23, X23; \
	VPINSRD      $3, OFF(R14)(R13*1), X23, X23; \
	VPINSRD      $0, OFF(AX), X24, X24; \
	VPINSRD      $1, OFF(AX)(R12*1), X24, X24; \
	VPINSRD      $2, OFF(AX)(R12*2), X24, X24; \
	VPINSRD      $3, OFF(AX)(R13*1), X24, X24; \
	VINSERTI32X4 $1, X22, Z21, Z21; \
	VINSERTI32X4 $2, X23, Z21, Z21; \
	VINSERTI32X4 $3, X24, Z21, Z21; \
	Q5ZBYTE(0, Z8, Z9); \
	Q5ZBYTE(64, Z10, Z11); \
	Q5ZBYTE(128, Z12, Z13); \
	Q5ZBYTE(192, Z14, Z15)

// Q5ZBYTE(SP, LO, HI) adds the bits of one byte of the fifth bits (Z21,
// spread by q5zSpread+SP) to the steps LO (its low four bits) and HI.
#define Q5ZBYTE(SP, LO, HI) \
	VPSHUFB  q5zSpread<>+SP(SB), Z21, Z17; \
	VPTESTMB q5zBit<>+0(SB), Z17, K1; \
	VPADDB   q5z10<>(SB), LO, K1, LO; \
	VPTESTMB q5zBit<>+64(SB), Z17, K1; \
	VPADDB   q5z10<>(SB), HI, K1, HI

// The weight loads of each type: steps into Z8..Z15, d into Z16 and, for
// Q4_1, Q5_0 and Q5_1, m into Z30 (zero for Q5_0).
#define Q40W Q4ZQUANTS(2, Q4ZNIB); Q4ZSCALES
#define IQ4W Q4ZQUANTS(2, Q4ZLUT); Q4ZSCALES
#define Q41W Q4ZQUANTS(4, Q4ZNIB); Q41ZSCALES
#define Q50W Q4ZQUANTS(6, Q4ZNIB); Q5ZHIGH(2); Q4ZSCALES; VPXORD Z30, Z30, Z30
#define Q51W Q4ZQUANTS(8, Q4ZNIB); Q5ZHIGH(4); Q41ZSCALES

// Q4ZCHAIN(XB) adds to the lane sums in Z28 the products of the steps
// Z8..Z15 with the activation quants at XB+8 (dword s broadcast for step
// s).
#define Q4ZCHAIN(XB) \
	VPDPBUSD.BCST 8 XB, Z8, Z28;  \
	VPDPBUSD.BCST 12 XB, Z9, Z28; \
	VPDPBUSD.BCST 16 XB, Z10, Z28; \
	VPDPBUSD.BCST 20 XB, Z11, Z28; \
	VPDPBUSD.BCST 24 XB, Z12, Z28; \
	VPDPBUSD.BCST 28 XB, Z13, Z28; \
	VPDPBUSD.BCST 32 XB, Z14, Z28; \
	VPDPBUSD.BCST 36 XB, Z15, Z28

// Q4ZDOT(XB, ACC) accumulates the current block of the activation row at
// XB (d at 0, quants at 8) into ACC, the lane sums starting from Z28
// (-off·Σx in every lane): sum = fma(float32(dot), d_w·d_x, sum). Uses
// Z28, Z29.
#define Q4ZDOT(XB, ACC) \
	Q4ZCHAIN(XB);                \
	VCVTDQ2PS     Z28, Z28;      \
	VMULPS.BCST   XB, Z16, Z29;  \
	VFMADD231PS   Z29, Z28, ACC

// Q5ZDOT(XB, ACC) is Q4ZDOT with dot32's generic order: sum +=
// float32(dot)·(d_w·d_x) + m_w·s_x (m_w in Z30, s_x at XB+4), each
// operation rounded apart.
#define Q5ZDOT(XB, ACC) \
	Q4ZCHAIN(XB);                \
	VCVTDQ2PS     Z28, Z28;      \
	VMULPS.BCST   XB, Z16, Z29;  \
	VMULPS        Z29, Z28, Z28; \
	VMULPS.BCST   4 XB, Z30, Z29; \
	VADDPS        Z29, Z28, Z28; \
	VADDPS        Z28, ACC, ACC

// Q4ZCOL(DOT, XB, D, IMM, ACC) is DOT with the start taken from the 128-bit
// lane of D that IMM picks (0x00 lane 0, 0xaa lane 2), spread over Z28.
#define Q4ZCOL(DOT, XB, D, IMM, ACC) \
	VSHUFI32X4 $IMM, D, D, Z28; \
	DOT(XB, ACC)

// Q4ZSETUP loads the tile description and the constants (AX the table,
// DX the offset).
#define Q4ZSETUP \
	VBROADCASTI32X4 (AX), Z26; \
	VPBROADCASTB    DX, Z27; \
	MOVL            $0x0f0f0f0f, AX; \
	VPBROADCASTD    AX, Z25; \
	VPXORD          Z31, Z31, Z31; \
	MOVQ            a+0(FP), AX; \
	MOVQ            0(AX), SI; \
	MOVQ            8(AX), R12; \
	LEAQ            (R12)(R12*2), R13; \
	MOVQ            16(AX), DI; \
	MOVQ            24(AX), R9; \
	LEAQ            (R9)(R9*2), R10; \
	LEAQ            (DI)(R9*4), DX; \
	MOVQ            32(AX), CX; \
	MOVQ            40(AX), BX; \
	MOVQ            48(AX), R11; \
	SHLQ            $2, R11; \
	LEAQ            (SI)(R12*4), R8; \
	LEAQ            (R8)(R12*4), R14; \
	LEAQ            (R14)(R12*4), AX

// Q4ZADV(BS) moves the weight rows (blocks of BS bytes) and activation
// rows to their next block.
#define Q4ZADV(BS) \
	ADDQ $BS, SI; \
	ADDQ $BS, R8; \
	ADDQ $BS, R14; \
	ADDQ $BS, AX; \
	ADDQ $40, DI; \
	ADDQ $40, DX

// Q4ZCORR8 computes the eight activation rows' -off·Σx of the block
// (Q4ZTILE says how) and leaves rows 2i and 2i+1 in the 128-bit lanes 0
// and 2 of Z(17+i). Uses Z17..Z24.
#define Q4ZCORR8 \
	VMOVDQU64    8(DI), Y17; \
	VINSERTI64X4 $1, 8(DI)(R9*1), Z17, Z17; \
	VMOVDQU64    8(DI)(R9*2), Y18; \
	VINSERTI64X4 $1, 8(DI)(R10*1), Z18, Z18; \
	VMOVDQU64    8(DX), Y19; \
	VINSERTI64X4 $1, 8(DX)(R9*1), Z19, Z19; \
	VMOVDQU64    8(DX)(R9*2), Y20; \
	VINSERTI64X4 $1, 8(DX)(R10*1), Z20, Z20; \
	VPXORD       Z21, Z21, Z21; \
	VPDPBUSD     Z17, Z27, Z21; \
	VPXORD       Z22, Z22, Z22; \
	VPDPBUSD     Z18, Z27, Z22; \
	VPXORD       Z23, Z23, Z23; \
	VPDPBUSD     Z19, Z27, Z23; \
	VPXORD       Z24, Z24, Z24; \
	VPDPBUSD     Z20, Z27, Z24; \
	VSHUFPS      $0x88, Z22, Z21, Z17; \
	VSHUFPS      $0xdd, Z22, Z21, Z18; \
	VPADDD       Z18, Z17, Z17; \
	VSHUFPS      $0x88, Z24, Z23, Z19; \
	VSHUFPS      $0xdd, Z24, Z23, Z20; \
	VPADDD       Z20, Z19, Z19; \
	VSHUFPS      $0x88, Z19, Z17, Z21; \
	VSHUFPS      $0xdd, Z19, Z17, Z22; \
	VPADDD       Z22, Z21, Z21; \
	VSHUFI32X4   $0xb1, Z21, Z21, Z22; \
	VPADDD       Z22, Z21, Z21; \
	VPSUBD       Z21, Z31, Z21; \
	VPSHUFD      $0x00, Z21, Z17; \
	VPSHUFD      $0x55, Z21, Z18; \
	VPSHUFD      $0xaa, Z21, Z19; \
	VPSHUFD      $0xff, Z21, Z20

// Q4ZZERO8 is Q4ZCORR8 for unsigned quants: every start zero.
#define Q4ZZERO8 \
	VPXORD Z17, Z17, Z17; \
	VPXORD Z18, Z18, Z18; \
	VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20

// Q4ZCORR1 computes the activation row's -off·Σx of the block and spreads
// it over Z28. Uses Z17, Z21, Z22.
#define Q4ZCORR1 \
	VMOVDQU64     8(DI), Y17; \
	VPXORD        Y21, Y21, Y21; \
	VPDPBUSD      Y17, Y27, Y21; \
	VEXTRACTI32X4 $1, Y21, X22; \
	VPADDD        X22, X21, X21; \
	VPSHUFD       $0x4e, X21, X22; \
	VPADDD        X22, X21, X21; \
	VPSHUFD       $0xb1, X21, X22; \
	VPADDD        X22, X21, X21; \
	VPSUBD        X21, X31, X21; \
	VPBROADCASTD  X21, Z28

// Q4ZZERO1 is Q4ZCORR1 for unsigned quants.
#define Q4ZZERO1 VPXORD Z28, Z28, Z28

// Q4ZSTORE8 stores the sixteen outputs of each activation row j (Z(j))
// and returns.
#define Q4ZSTORE8 \
	LEAQ    (R11)(R11*2), R8; \
	LEAQ    (BX)(R8*1), AX; \
	LEAQ    (BX)(R11*4), DX; \
	ADDQ    DX, R8; \
	VMOVUPS Z0, (BX); \
	VMOVUPS Z1, (BX)(R11*1); \
	VMOVUPS Z2, (BX)(R11*2); \
	VMOVUPS Z3, (AX); \
	VMOVUPS Z4, (DX); \
	VMOVUPS Z5, (DX)(R11*1); \
	VMOVUPS Z6, (DX)(R11*2); \
	VMOVUPS Z7, (R8); \
	VZEROUPPER; \
	RET

// Q4ZTILE(WEIGHTS, CORR, DOT, BS, LOOP, DONE) is the body of a 16×8 tile
// of BS-byte blocks whose signed quants are u - off (a+0(FP) the tile, AX
// the table, DX the offset): per block WEIGHTS loads the weights, CORR
// the lane sums' starts (Q4ZCORR8: the eight activation rows' -off·Σx
// computed together: the rows in pairs (Z17..Z20), off times their
// four-byte sums (Z21..Z24), then pairwise sums across registers down to
// one dword per row, negated, rows 0, 2, 4, 6 in dwords 0..3 of the
// 128-bit lanes 0 and 1 of Z21, rows 1, 3, 5, 7 in lanes 2 and 3, and
// VPSHUFD spreading dword i over its lane), and DOT accumulates each
// activation row from its start (VSHUFI32X4 spreads the lane over the
// register). Output (r, j) accumulates in lane r of Z(j).
#define Q4ZTILE(WEIGHTS, CORR, DOT, BS, LOOP, DONE) \
	Q4ZSETUP; \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7; \
	TESTQ  CX, CX; \
	JZ     DONE; \
LOOP: \
	WEIGHTS; \
	CORR; \
	Q4ZCOL(DOT, (DI), Z17, 0x00, Z0); \
	Q4ZCOL(DOT, (DI)(R9*1), Z17, 0xaa, Z1); \
	Q4ZCOL(DOT, (DI)(R9*2), Z18, 0x00, Z2); \
	Q4ZCOL(DOT, (DI)(R10*1), Z18, 0xaa, Z3); \
	Q4ZCOL(DOT, (DX), Z19, 0x00, Z4); \
	Q4ZCOL(DOT, (DX)(R9*1), Z19, 0xaa, Z5); \
	Q4ZCOL(DOT, (DX)(R9*2), Z20, 0x00, Z6); \
	Q4ZCOL(DOT, (DX)(R10*1), Z20, 0xaa, Z7); \
	Q4ZADV(BS); \
	DECQ CX; \
	JNZ  LOOP; \
DONE: \
	Q4ZSTORE8

// Q4ZGEMV(WEIGHTS, CORR, DOT, BS, LOOP, DONE) is Q4ZTILE for one
// activation row, whose start CORR leaves in Z28 (Q4ZCORR1, Q4ZZERO1). Row
// r accumulates in lane r of Z0. R9 runs over the next sixteen rows (16·BS
// bytes a block, when rows are contiguous), prefetched as these run.
#define Q4ZGEMV(WEIGHTS, CORR, DOT, BS, LOOP, DONE) \
	Q4ZSETUP; \
	VPXORD Z0, Z0, Z0; \
	TESTQ  CX, CX; \
	JZ     DONE; \
	LEAQ   (AX)(R12*4), R9; \
LOOP: \
	PREFETCHT0    0(R9); \
	PREFETCHT0    64(R9); \
	PREFETCHT0    128(R9); \
	PREFETCHT0    192(R9); \
	PREFETCHT0    256(R9); \
	ADDQ          $(16*BS), R9; \
	CORR; \
	WEIGHTS; \
	DOT((DI), Z0); \
	Q4ZADV(BS); \
	DECQ CX; \
	JNZ  LOOP; \
DONE: \
	VMOVUPS Z0, (BX); \
	VZEROUPPER; \
	RET

// func tileQ4_0x16x8AVX512(a *tileArgs, lut *[16]byte, off uint32)
TEXT ·tileQ4_0x16x8AVX512(SB), NOSPLIT, $0-20
	MOVQ lut+8(FP), AX
	MOVL off+16(FP), DX
	Q4ZTILE(Q40W, Q4ZCORR8, Q4ZDOT, 18, q40zloop, q40zdone)

// func tileIQ4NLx16x8AVX512(a *tileArgs, lut *[16]byte, off uint32)
TEXT ·tileIQ4NLx16x8AVX512(SB), NOSPLIT, $0-20
	MOVQ lut+8(FP), AX
	MOVL off+16(FP), DX
	Q4ZTILE(IQ4W, Q4ZCORR8, Q4ZDOT, 18, iq4zloop, iq4zdone)

// func gemvQ4_0x16AVX512(a *tileArgs, lut *[16]byte, off uint32)
TEXT ·gemvQ4_0x16AVX512(SB), NOSPLIT, $0-20
	MOVQ lut+8(FP), AX
	MOVL off+16(FP), DX
	Q4ZGEMV(Q40W, Q4ZCORR1, Q4ZDOT, 18, q40gloop, q40gdone)

// func gemvIQ4NLx16AVX512(a *tileArgs, lut *[16]byte, off uint32)
TEXT ·gemvIQ4NLx16AVX512(SB), NOSPLIT, $0-20
	MOVQ lut+8(FP), AX
	MOVL off+16(FP), DX
	Q4ZGEMV(IQ4W, Q4ZCORR1, Q4ZDOT, 18, iq4gloop, iq4gdone)

// ---------------------------------------------------------------------
// Q4_1, Q5_1 and Q5_0 tiles (Q4_1: 20-byte blocks, d at 0, m at 2,
// quants at 4; Q5_1: 24 bytes, d, m, the fifth bits at 4, quants at 8;
// Q5_0: 22 bytes, d, the fifth bits at 2, quants at 6; Q8_1 activations:
// d at 0, s at 4). Q4_1's and Q5_1's quants are unsigned, so their lane
// sums start from zero; Q5_0's start from -16·Σx. Per block and lane,
// dot32's unfused sum += float32(dot)·(d_w·d_x) + m_w·s_x (Q5ZDOT), m_w
// zero for Q5_0. Z16 holds the sixteen rows' d_w, Z30 their m_w.

// Q41ZSCALES loads the d and m of the current block of the sixteen weight
// rows into Z16 and Z30 (inserted dword by dword). Uses Z21..Z24.
#define Q41ZSCALES \
	VPINSRD      $0, (SI), X21, X21; \
	VPINSRD      $1, (SI)(R12*1), X21, X21; \
	VPINSRD      $2, (SI)(R12*2), X21, X21; \
	VPINSRD      $3, (SI)(R13*1), X21, X21; \
	VPINSRD      $0, (R8), X22, X22; \
	VPINSRD      $1, (R8)(R12*1), X22, X22; \
	VPINSRD      $2, (R8)(R12*2), X22, X22; \
	VPINSRD      $3, (R8)(R13*1), X22, X22; \
	VPINSRD      $0, (R14), X23, X23; \
	VPINSRD      $1, (R14)(R12*1), X23, X23; \
	VPINSRD      $2, (R14)(R12*2), X23, X23; \
	VPINSRD      $3, (R14)(R13*1), X23, X23; \
	VPINSRD      $0, (AX), X24, X24; \
	VPINSRD      $1, (AX)(R12*1), X24, X24; \
	VPINSRD      $2, (AX)(R12*2), X24, X24; \
	VPINSRD      $3, (AX)(R13*1), X24, X24; \
	VINSERTI32X4 $1, X22, Z21, Z21; \
	VINSERTI32X4 $2, X23, Z21, Z21; \
	VINSERTI32X4 $3, X24, Z21, Z21; \
	VPMOVDW      Z21, Y16; \
	VCVTPH2PS    Y16, Z16; \
	VPSRLD       $16, Z21, Z21; \
	VPMOVDW      Z21, Y30; \
	VCVTPH2PS    Y30, Z30

// func tileQ4_1x16x8AVX512(a *tileArgs, lut *[16]byte)
TEXT ·tileQ4_1x16x8AVX512(SB), NOSPLIT, $0-16
	MOVQ lut+8(FP), AX
	XORL DX, DX
	Q4ZTILE(Q41W, Q4ZZERO8, Q5ZDOT, 20, q41zloop, q41zdone)

// func gemvQ4_1x16AVX512(a *tileArgs, lut *[16]byte)
TEXT ·gemvQ4_1x16AVX512(SB), NOSPLIT, $0-16
	MOVQ lut+8(FP), AX
	XORL DX, DX
	Q4ZGEMV(Q41W, Q4ZZERO1, Q5ZDOT, 20, q41gloop, q41gdone)

// func tileQ5_1x16x8AVX512(a *tileArgs, lut *[16]byte)
TEXT ·tileQ5_1x16x8AVX512(SB), NOSPLIT, $0-16
	MOVQ lut+8(FP), AX
	XORL DX, DX
	Q4ZTILE(Q51W, Q4ZZERO8, Q5ZDOT, 24, q51zloop, q51zdone)

// func gemvQ5_1x16AVX512(a *tileArgs, lut *[16]byte)
TEXT ·gemvQ5_1x16AVX512(SB), NOSPLIT, $0-16
	MOVQ lut+8(FP), AX
	XORL DX, DX
	Q4ZGEMV(Q51W, Q4ZZERO1, Q5ZDOT, 24, q51gloop, q51gdone)

// func tileQ5_0x16x8AVX512(a *tileArgs, lut *[16]byte, off uint32)
TEXT ·tileQ5_0x16x8AVX512(SB), NOSPLIT, $0-20
	MOVQ lut+8(FP), AX
	MOVL off+16(FP), DX
	Q4ZTILE(Q50W, Q4ZCORR8, Q5ZDOT, 22, q50zloop, q50zdone)

// func gemvQ5_0x16AVX512(a *tileArgs, lut *[16]byte, off uint32)
TEXT ·gemvQ5_0x16AVX512(SB), NOSPLIT, $0-20
	MOVQ lut+8(FP), AX
	MOVL off+16(FP), DX
	Q4ZGEMV(Q50W, Q4ZCORR1, Q5ZDOT, 22, q50gloop, q50gdone)
