#include "textflag.h"

// AVX-512 VNNI kernels for Q8_0 weights (see avx512_q8_amd64.go). Each
// zmm holds two outputs side by side, one per 256-bit half, and each half
// does for its output exactly what the AVX2 kernel's ymm does: eight int32
// lanes of four products per block (here one VPDPBUSD), converted,
// scaled by d_w·d_x and accumulated with one fused multiply-add per lane,
// hsum8 at the end.
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
// Registers: SI weight row 0, R12 wstride, R13 3·wstride, DI activation
// row 0, DX activation row 4, R9 xstride, R10 3·xstride, CX blocks left,
// BX the outputs, R11 4·ostride; Z26 0x80 bytes, Z27 zero, K1 the high
// eight words of a ymm.

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

// func tileQ8_0x4x8AVX512(a *tileArgs)
TEXT ·tileQ8_0x4x8AVX512(SB), NOSPLIT, $0-8
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
	TESTQ  CX, CX
	JZ     q8zdone

q8zloop:
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
	ADDQ $34, SI
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

// ---------------------------------------------------------------------
// Q8_0 decode tile: weight rows in groups of eight against one activation
// row. Rows 2p and 2p+1 share a zmm as in the prompt tile, but here the
// weights are made unsigned (w XOR 0x80) and the activation block, signed,
// is broadcast once per block to both halves (Z20), with -128·Σx of each
// lane (Z21) the start of every row's lane sums; its d_x is broadcast
// from memory into the scale products. Row 2p+h accumulates in half h of
// Z(p).
//
// Registers: R8 the group's first weight row, R12 wstride, R13
// 3·wstride, R11 the activation row, R14 blocks per row, BX the group's
// outputs, DX rows left; SI, DI, CX the cursors and blocks left, R9 the
// next group's rows (prefetched); Z26 0x80 bytes, Z27 zero, K1 the high
// eight words of a ymm.

// Q8GPAIR(R0, R1, ACC) accumulates the current blocks of the weight rows
// at R0 and R1 (low and high half) into ACC. Uses Z22..Z25.
#define Q8GPAIR(R0, R1, ACC) \
	VMOVDQU64     2 R0, Y22;    \
	VINSERTI64X4  $1, 2 R1, Z22, Z22; \
	VPXORD        Z26, Z22, Z22; \
	VMOVDQA64     Z21, Z23;     \
	VPDPBUSD      Z20, Z22, Z23; \
	VCVTDQ2PS     Z23, Z23;     \
	VPBROADCASTW  R0, Y24;      \
	VPBROADCASTW  R1, K1, Y24;  \
	VCVTPH2PS     Y24, Z24;     \
	VMULPS.BCST   (DI), Z24, Z25; \
	VFMADD231PS   Z23, Z25, ACC

// func gemvQ80AVX512(a *tileArgs, rows int)
TEXT ·gemvQ80AVX512(SB), NOSPLIT, $0-16
	MOVQ a+0(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R12
	LEAQ (R12)(R12*2), R13
	MOVQ 16(AX), R11
	MOVQ 32(AX), R14
	MOVQ 40(AX), BX
	MOVQ rows+8(FP), DX
	VPXORD Z27, Z27, Z27
	MOVL   $0x80808080, AX
	VPBROADCASTD AX, Z26
	MOVL   $0xff00, AX
	KMOVW  AX, K1

q8ggroup:
	MOVQ   R8, SI
	LEAQ   (R8)(R12*4), R10 // rows 4..7 of the group
	MOVQ   R11, DI
	MOVQ   R14, CX
	LEAQ   (R10)(R12*4), R9 // the next group, prefetched as this one runs
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

q8gblock:
	PREFETCHT0      0(R9)
	PREFETCHT0      64(R9)
	PREFETCHT0      128(R9)
	PREFETCHT0      192(R9)
	PREFETCHT0      256(R9)
	VBROADCASTI64X4 8(DI), Z20
	VPXORD          Z21, Z21, Z21
	VPDPBUSD        Z20, Z26, Z21
	VPSUBD          Z21, Z27, Z21
	Q8GPAIR((SI), (SI)(R12*1), Z0)
	Q8GPAIR((SI)(R12*2), (SI)(R13*1), Z1)
	Q8GPAIR((R10), (R10)(R12*1), Z2)
	Q8GPAIR((R10)(R12*2), (R10)(R13*1), Z3)
	ADDQ            $34, SI
	ADDQ            $34, R10
	ADDQ            $40, DI
	ADDQ            $272, R9
	DECQ            CX
	JNZ             q8gblock

	ZOUT2(Z0, Y0, X0, 0(BX), 4(BX))
	ZOUT2(Z1, Y1, X1, 8(BX), 12(BX))
	ZOUT2(Z2, Y2, X2, 16(BX), 20(BX))
	ZOUT2(Z3, Y3, X3, 24(BX), 28(BX))
	LEAQ (R8)(R12*8), R8
	ADDQ $32, BX
	SUBQ $8, DX
	JNZ  q8ggroup
	VZEROUPPER
	RET
