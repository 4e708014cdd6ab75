#include "textflag.h"

// AVX2 tile kernels: mr weight rows by four activation rows per call (see
// avx2_tile_amd64.go). Each takes a *tileArgs (w @0, wstride @8, x @16,
// xstride @24, n @32, out @40, ostride @48, gemm @56) and runs over its
// weight rows itself: per weight row the super-blocks are walked once,
// every weight vector unpacked once and multiplied with the four
// activation rows, whose outputs go to out[j*ostride+i].
//
// Registers common to the kernels: R8 the current weight row, R12 wstride,
// R13 the first activation row, R9 xstride, R10 3·xstride, R14 n, BX the
// current row's first output, R11 4·ostride, DX the weight rows left, SI
// and DI the weight and activation cursors, CX the super-blocks left.
// Activation row j of the current super-block is at DI + j·xstride.

// tb0f and tb30 are 0x0f and 0x30 in every byte.
DATA tb0f<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA tb0f<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA tb0f<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA tb0f<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL tb0f<>(SB), RODATA|NOPTR, $32

DATA tb30<>+0(SB)/8, $0x3030303030303030
DATA tb30<>+8(SB)/8, $0x3030303030303030
DATA tb30<>+16(SB)/8, $0x3030303030303030
DATA tb30<>+24(SB)/8, $0x3030303030303030
GLOBL tb30<>(SB), RODATA|NOPTR, $32

// tWordBcast+32s broadcasts int16 word s of each lane to the whole lane.
DATA tWordBcast<>+0(SB)/8, $0x0100010001000100
DATA tWordBcast<>+8(SB)/8, $0x0100010001000100
DATA tWordBcast<>+16(SB)/8, $0x0100010001000100
DATA tWordBcast<>+24(SB)/8, $0x0100010001000100
DATA tWordBcast<>+32(SB)/8, $0x0302030203020302
DATA tWordBcast<>+40(SB)/8, $0x0302030203020302
DATA tWordBcast<>+48(SB)/8, $0x0302030203020302
DATA tWordBcast<>+56(SB)/8, $0x0302030203020302
DATA tWordBcast<>+64(SB)/8, $0x0504050405040504
DATA tWordBcast<>+72(SB)/8, $0x0504050405040504
DATA tWordBcast<>+80(SB)/8, $0x0504050405040504
DATA tWordBcast<>+88(SB)/8, $0x0504050405040504
DATA tWordBcast<>+96(SB)/8, $0x0706070607060706
DATA tWordBcast<>+104(SB)/8, $0x0706070607060706
DATA tWordBcast<>+112(SB)/8, $0x0706070607060706
DATA tWordBcast<>+120(SB)/8, $0x0706070607060706
DATA tWordBcast<>+128(SB)/8, $0x0908090809080908
DATA tWordBcast<>+136(SB)/8, $0x0908090809080908
DATA tWordBcast<>+144(SB)/8, $0x0908090809080908
DATA tWordBcast<>+152(SB)/8, $0x0908090809080908
DATA tWordBcast<>+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA tWordBcast<>+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA tWordBcast<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA tWordBcast<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA tWordBcast<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA tWordBcast<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA tWordBcast<>+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA tWordBcast<>+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA tWordBcast<>+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA tWordBcast<>+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA tWordBcast<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA tWordBcast<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL tWordBcast<>(SB), RODATA|NOPTR, $256

// tPairShuf+32k broadcasts word 2k of each lane over the low lane and
// word 2k+1 over the high lane: the scales of groups 2k and 2k+1 of 16.
DATA tPairShuf<>+0(SB)/8, $0x0100010001000100
DATA tPairShuf<>+8(SB)/8, $0x0100010001000100
DATA tPairShuf<>+16(SB)/8, $0x0302030203020302
DATA tPairShuf<>+24(SB)/8, $0x0302030203020302
DATA tPairShuf<>+32(SB)/8, $0x0504050405040504
DATA tPairShuf<>+40(SB)/8, $0x0504050405040504
DATA tPairShuf<>+48(SB)/8, $0x0706070607060706
DATA tPairShuf<>+56(SB)/8, $0x0706070607060706
DATA tPairShuf<>+64(SB)/8, $0x0908090809080908
DATA tPairShuf<>+72(SB)/8, $0x0908090809080908
DATA tPairShuf<>+80(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA tPairShuf<>+88(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA tPairShuf<>+96(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA tPairShuf<>+104(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA tPairShuf<>+112(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA tPairShuf<>+120(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL tPairShuf<>(SB), RODATA|NOPTR, $128

// tMinDup turns words m0..m7 (in both lanes) into m0, m0, m1, m1, ... in
// the low lane and m4, m4, ..., m7, m7 in the high lane.
DATA tMinDup<>+0(SB)/8, $0x0302030201000100
DATA tMinDup<>+8(SB)/8, $0x0706070605040504
DATA tMinDup<>+16(SB)/8, $0x0b0a0b0a09080908
DATA tMinDup<>+24(SB)/8, $0x0f0e0f0e0d0c0d0c
GLOBL tMinDup<>(SB), RODATA|NOPTR, $32

// tkscA, tkscB, tkscShift and tkscMask split the 12 packed bytes of the
// Q4_K scales and minimums (scaleMinK4) into s0..s7, m0..m7: tkscA picks
// b0..3, b8..11, b4..7, b8..11 (shifted by tkscShift and masked by
// tkscMask: the low bits), tkscB picks b0..3 and b4..7 into the second and
// fourth words (their top two bits, shifted right by 2 and masked by
// 0x30, are the high bits of s4..7 and m4..7).
DATA tkscA<>+0(SB)/8, $0x0b0a090803020100
DATA tkscA<>+8(SB)/8, $0x0b0a090807060504
GLOBL tkscA<>(SB), RODATA|NOPTR, $16

DATA tkscB<>+0(SB)/8, $0x0302010080808080
DATA tkscB<>+8(SB)/8, $0x0706050480808080
GLOBL tkscB<>(SB), RODATA|NOPTR, $16

DATA tkscShift<>+0(SB)/8, $0
DATA tkscShift<>+8(SB)/8, $0x0000000400000000
GLOBL tkscShift<>(SB), RODATA|NOPTR, $16

DATA tkscMask<>+0(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA tkscMask<>+8(SB)/8, $0x0f0f0f0f3f3f3f3f
GLOBL tkscMask<>(SB), RODATA|NOPTR, $16

// TILEARGS loads the tile description at a+0(FP) and the weight row count.
#define TILEARGS \
	MOVQ a+0(FP), AX; \
	MOVQ 0(AX), R8; \
	MOVQ 8(AX), R12; \
	MOVQ 16(AX), R13; \
	MOVQ 24(AX), R9; \
	LEAQ (R9)(R9*2), R10; \
	MOVQ 32(AX), R14; \
	MOVQ 40(AX), BX; \
	MOVQ 48(AX), R11; \
	SHLQ $2, R11; \
	MOVQ rows+8(FP), DX

// ROWSTART points SI, DI and CX at the current weight row's first
// super-block, the first activation row and the super-block count.
#define ROWSTART \
	MOVQ R8, SI; \
	MOVQ R13, DI; \
	MOVQ R14, CX

// ROWNEXT moves to the next weight row and its outputs and loops to L
// while rows remain.
#define ROWNEXT(L) \
	ADDQ R12, R8; \
	ADDQ $4, BX; \
	DECQ DX; \
	JNZ  L

// STORE4 writes X's four lanes to the outputs of activation rows 0..3 of
// the current weight row. Uses AX.
#define STORE4(X) \
	VMOVSS     X, (BX); \
	VEXTRACTPS $1, X, (BX)(R11*1); \
	VEXTRACTPS $2, X, (BX)(R11*2); \
	LEAQ       (BX)(R11*2), AX; \
	VEXTRACTPS $3, X, (AX)(R11*1)

// Q4DOT leaves in DST the scaled int32 products of one chunk (sub-blocks
// 2p and 2p+1: low nibbles in Y0, high nibbles in Y1) with the activations
// at A0 and A1 (32 each), the scales broadcast in Y10 and Y11. Uses Y2.
#define Q4DOT(A0, A1, DST) \
	VPMADDUBSW A0, Y0, Y2; \
	VPMADDWD   Y10, Y2, Y2; \
	VPMADDUBSW A1, Y1, DST; \
	VPMADDWD   Y11, DST, DST; \
	VPADDD     Y2, DST, DST

// Q4CHUNK leaves in RP the integer sums of chunk p (64 elements: nibbles
// at QS(SI), activations at XO in each row, scales picked from Y14 by
// tWordBcast+BC and +BC+32) for the four activation rows: RP's low lane
// holds the sums of the low four int32 lanes for rows 0..3, its high lane
// those of the high four. Y15 holds 0x0f bytes. Uses Y0..Y5, Y10, Y11.
#define Q4CHUNK(QS, XO, BC, RP) \
	VMOVDQU QS(SI), Y0; \
	VPSHUFB tWordBcast<>+BC(SB), Y14, Y10; \
	VPSHUFB tWordBcast<>+BC+32(SB), Y14, Y11; \
	VPSRLW  $4, Y0, Y1; \
	VPAND   Y15, Y1, Y1; \
	VPAND   Y15, Y0, Y0; \
	Q4DOT(XO(DI), XO+32(DI), Y3); \
	Q4DOT(XO(DI)(R9*1), XO+32(DI)(R9*1), Y4); \
	VPHADDD Y4, Y3, Y3; \
	Q4DOT(XO(DI)(R9*2), XO+32(DI)(R9*2), Y4); \
	Q4DOT(XO(DI)(R10*1), XO+32(DI)(R10*1), Y5); \
	VPHADDD Y5, Y4, Y4; \
	VPHADDD Y4, Y3, RP

// func tileQ4KAVX2(a *tileArgs, rows int, gemm bool)
TEXT ·tileQ4KAVX2(SB), NOSPLIT, $0-17
	TILEARGS
	VMOVDQU tb0f<>(SB), Y15

q4trow:
	ROWSTART
	VXORPS Y12, Y12, Y12 // [acc | accMin], one lane per activation row

q4tblock:
	// The scales s0..s7 and minimums m0..m7 as bytes in X1 (scaleMinK4).
	VMOVDQU   4(SI), X1
	VPSHUFB   tkscB<>(SB), X1, X5
	VPSHUFB   tkscA<>(SB), X1, X1
	VPSRLVD   tkscShift<>(SB), X1, X1
	VPAND     tkscMask<>(SB), X1, X1
	VPSRLD    $2, X5, X5
	VPAND     tb30<>(SB), X5, X5
	VPOR      X5, X1, X1
	VPMOVZXBW X1, Y1
	VPERMQ    $0x44, Y1, Y14 // scales in both lanes
	VPERMQ    $0xee, Y1, Y13 // minimums in both lanes
	VPSHUFB   tMinDup<>(SB), Y13, Y13

	Q4CHUNK(16, 4, 0, Y6)
	Q4CHUNK(80, 132, 128, Y8)
	VPERM2I128 $0x20, Y8, Y6, Y0
	VPERM2I128 $0x31, Y8, Y6, Y1
	VPADDD     Y1, Y0, Y6 // [i0 | i2]
	Q4CHUNK(48, 68, 64, Y7)
	Q4CHUNK(112, 196, 192, Y8)
	VPERM2I128 $0x20, Y8, Y7, Y0
	VPERM2I128 $0x31, Y8, Y7, Y1
	VPADDD     Y1, Y0, Y7 // [i1 | i3]

	// The minimums' sums of each chunk: lane l of row j's vpmaddwd is
	// m_l·(bsum[2l]+bsum[2l+1]), chunk c its lanes 2c and 2c+1. Y10 gets
	// [c0 | c2] and Y11 [c1 | c3], one int32 per activation row.
	VPMADDWD   260(DI), Y13, Y0
	VPMADDWD   260(DI)(R9*1), Y13, Y1
	VPHADDD    Y1, Y0, Y0 // [r0c0, r0c1, r1c0, r1c1 | r0c2, r0c3, r1c2, r1c3]
	VPMADDWD   260(DI)(R9*2), Y13, Y1
	VPMADDWD   260(DI)(R10*1), Y13, Y2
	VPHADDD    Y2, Y1, Y1 // the same for rows 2 and 3
	VPUNPCKLDQ Y1, Y0, Y2 // [r0c0, r2c0, r0c1, r2c1 | ...]
	VPUNPCKHDQ Y1, Y0, Y3 // [r1c0, r3c0, r1c1, r3c1 | ...]
	VPUNPCKLDQ Y3, Y2, Y10
	VPUNPCKHDQ Y3, Y2, Y11

	// Y13 = [d·x.d | dmin·x.d] for the four activation rows.
	VPBROADCASTW 0(SI), X0
	VPBROADCASTW 2(SI), X1
	VPBLENDD     $0x0c, X1, X0, X0
	VCVTPH2PS    X0, Y0
	VMOVSS       (DI), X1
	VINSERTPS    $0x10, (DI)(R9*1), X1, X1
	VINSERTPS    $0x20, (DI)(R9*2), X1, X1
	VINSERTPS    $0x30, (DI)(R10*1), X1, X1
	VINSERTF128  $1, X1, Y1, Y1
	VMULPS       Y1, Y0, Y13

	CMPB gemm+16(FP), $0
	JEQ  q4tgemv

	// gemm: [isum | msum] of each chunk, in chunk order.
	VPERM2I128  $0x20, Y10, Y6, Y0 // chunk 0
	VPERM2I128  $0x20, Y11, Y7, Y1 // chunk 1
	VPERM2I128  $0x31, Y10, Y6, Y2 // chunk 2
	VPERM2I128  $0x31, Y11, Y7, Y3 // chunk 3
	VCVTDQ2PS   Y0, Y0
	VCVTDQ2PS   Y1, Y1
	VCVTDQ2PS   Y2, Y2
	VCVTDQ2PS   Y3, Y3
	VFMADD231PS Y0, Y13, Y12
	VFMADD231PS Y1, Y13, Y12
	VFMADD231PS Y2, Y13, Y12
	VFMADD231PS Y3, Y13, Y12
	JMP         q4tnext

q4tgemv:
	// gemv: the whole super-block's sums.
	VPADDD       Y7, Y6, Y6
	VPADDD       Y11, Y10, Y10
	VEXTRACTI128 $1, Y6, X0
	VPADDD       X0, X6, X6
	VEXTRACTI128 $1, Y10, X1
	VPADDD       X1, X10, X10
	VINSERTI128  $1, X10, Y6, Y6
	VCVTDQ2PS    Y6, Y6
	VFMADD231PS  Y6, Y13, Y12

q4tnext:
	ADDQ $144, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q4tblock

	VEXTRACTF128 $1, Y12, X0
	VSUBPS       X0, X12, X12 // acc - accMin
	STORE4(X12)
	ROWNEXT(q4trow)
	VZEROUPPER
	RET

// Q6DOT adds to L0..L3 the scaled products of the 32 unsigned quants in
// Y0 with the activations at offset XO of the four rows, the scales
// broadcast at S(SP). Uses Y1, Y2, Y12.
#define Q6DOT(XO, S) \
	VMOVDQU    S(SP), Y12; \
	VPMADDUBSW XO(DI), Y0, Y1; \
	VPMADDWD   Y12, Y1, Y1; \
	VPADDD     Y1, Y4, Y4; \
	VPMADDUBSW XO(DI)(R9*1), Y0, Y2; \
	VPMADDWD   Y12, Y2, Y2; \
	VPADDD     Y2, Y5, Y5; \
	VPMADDUBSW XO(DI)(R9*2), Y0, Y1; \
	VPMADDWD   Y12, Y1, Y1; \
	VPADDD     Y1, Y6, Y6; \
	VPMADDUBSW XO(DI)(R10*1), Y0, Y2; \
	VPMADDWD   Y12, Y2, Y2; \
	VPADDD     Y2, Y7, Y7

// Q6HALF4 adds the scaled products of one half (128 elements) of a Q6_K
// super-block to the lanes Y4..Y7 of the four activation rows: low nibbles
// at QL(SI) and QL+32(SI), high bits at QH(SI), activations at XO, scales
// at S(SP)..S+96(SP). Y15 holds 0x0f bytes, Y14 0x30 bytes. Uses Y0..Y3,
// Y12.
#define Q6HALF4(QL, QH, XO, S) \
	VMOVDQU QH(SI), Y3; \
	VPAND   QL(SI), Y15, Y0; \
	VPSLLW  $4, Y3, Y1; \
	VPAND   Y14, Y1, Y1; \
	VPOR    Y1, Y0, Y0; \
	Q6DOT(XO, S); \
	VPAND   QL+32(SI), Y15, Y0; \
	VPSLLW  $2, Y3, Y1; \
	VPAND   Y14, Y1, Y1; \
	VPOR    Y1, Y0, Y0; \
	Q6DOT(XO+32, S+32); \
	VMOVDQU QL(SI), Y0; \
	VPSRLW  $4, Y0, Y0; \
	VPAND   Y15, Y0, Y0; \
	VPAND   Y14, Y3, Y1; \
	VPOR    Y1, Y0, Y0; \
	Q6DOT(XO+64, S+64); \
	VMOVDQU QL+32(SI), Y0; \
	VPSRLW  $4, Y0, Y0; \
	VPAND   Y15, Y0, Y0; \
	VPSRLW  $2, Y3, Y1; \
	VPAND   Y14, Y1, Y1; \
	VPOR    Y1, Y0, Y0; \
	Q6DOT(XO+96, S+96)

// Q6BSUM starts the lanes L of the activation row at A's block with
// -32·(sc[2l]·bsum[2l] + sc[2l+1]·bsum[2l+1]), the scales as int16 in Y1.
// Uses Y0.
#define Q6BSUM(A, L) \
	VPMADDWD A, Y1, Y0; \
	VPSLLD   $5, Y0, Y0; \
	VPXOR    L, L, L; \
	VPSUBD   Y0, L, L

// Q6FMA scales row j's lanes L by d·x.d (the weights' d in X3, x.d at A)
// into its accumulators ACC with one fused multiply-add per lane. Uses
// X0.
#define Q6FMA(A, L, ACC) \
	VMULSS       A, X3, X0; \
	VBROADCASTSS X0, Y0; \
	VCVTDQ2PS    L, L; \
	VFMADD231PS  L, Y0, ACC

// HSUM8T leaves in X0 the sum of ACC's eight float32 lanes in hsum8's
// order: high half onto low half, lanes 0+2 and 1+3, then the two. Uses
// X1.
#define HSUM8T(ACC, XACC) \
	VEXTRACTF128 $1, ACC, X0; \
	VADDPS       X0, XACC, X0; \
	VMOVHLPS     X0, X0, X1; \
	VADDPS       X1, X0, X0; \
	VMOVSHDUP    X0, X1; \
	VADDSS       X1, X0, X0

// func tileQ6KAVX2(a *tileArgs, rows int)
//
// Frame: the sixteen groups' scales, broadcast in pairs (group 2k over the
// low lane, 2k+1 over the high lane) as int16 words, at 0..255(SP).
TEXT ·tileQ6KAVX2(SB), NOSPLIT, $256-16
	TILEARGS
	VMOVDQU tb0f<>(SB), Y15
	VMOVDQU tb30<>(SB), Y14

q6trow:
	ROWSTART
	VXORPS Y8, Y8, Y8 // the accumulators of activation rows 0..3
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

q6tblock:
	VPMOVSXBW 192(SI), Y1 // the 16 scales as int16
	Q6BSUM(260(DI), Y4)
	Q6BSUM(260(DI)(R9*1), Y5)
	Q6BSUM(260(DI)(R9*2), Y6)
	Q6BSUM(260(DI)(R10*1), Y7)
	VPERMQ    $0x44, Y1, Y2
	VPERMQ    $0xee, Y1, Y3
	VPSHUFB   tPairShuf<>+0(SB), Y2, Y0
	VMOVDQU   Y0, 0(SP)
	VPSHUFB   tPairShuf<>+32(SB), Y2, Y0
	VMOVDQU   Y0, 32(SP)
	VPSHUFB   tPairShuf<>+64(SB), Y2, Y0
	VMOVDQU   Y0, 64(SP)
	VPSHUFB   tPairShuf<>+96(SB), Y2, Y0
	VMOVDQU   Y0, 96(SP)
	VPSHUFB   tPairShuf<>+0(SB), Y3, Y0
	VMOVDQU   Y0, 128(SP)
	VPSHUFB   tPairShuf<>+32(SB), Y3, Y0
	VMOVDQU   Y0, 160(SP)
	VPSHUFB   tPairShuf<>+64(SB), Y3, Y0
	VMOVDQU   Y0, 192(SP)
	VPSHUFB   tPairShuf<>+96(SB), Y3, Y0
	VMOVDQU   Y0, 224(SP)

	Q6HALF4(0, 128, 4, 0)
	Q6HALF4(64, 160, 132, 128)

	MOVWLZX   208(SI), AX
	VMOVD     AX, X3
	VCVTPH2PS X3, X3
	Q6FMA((DI), Y4, Y8)
	Q6FMA((DI)(R9*1), Y5, Y9)
	Q6FMA((DI)(R9*2), Y6, Y10)
	Q6FMA((DI)(R10*1), Y7, Y11)

	ADDQ $210, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q6tblock

	HSUM8T(Y8, X8)
	VMOVSS X0, (BX)
	HSUM8T(Y9, X9)
	VMOVSS X0, (BX)(R11*1)
	HSUM8T(Y10, X10)
	VMOVSS X0, (BX)(R11*2)
	HSUM8T(Y11, X11)
	LEAQ   (BX)(R11*2), AX
	VMOVSS X0, (AX)(R11*1)
	ROWNEXT(q6trow)
	VZEROUPPER
	RET
