#include "textflag.h"

// The AVX2 decode tiles of avx2_gemv_amd64.s with the block step and the
// group step as arguments, so that the same code reads weights in the
// file's layout (row r's block b at w + r·wstride + b·blockBytes) or
// interleaved by four rows (at w + (4b + r)·blockBytes: wstride
// blockBytes, block step 4·blockBytes). The arithmetic is the original
// kernels', instruction for instruction; only the addresses differ. Each
// takes a *tileArgs (w @0, wstride @8, x @16, n @32, out @40), the number
// of weight rows (a multiple of four), the block step and the group step
// (bytes from one group of four rows to the next).
//
// Registers: R8 the current group's first weight row, R12 wstride, R10
// 3·wstride, R11 the block step, AX the group step, R13 the activation
// row, R14 n, BX the group's first output, DX the weight rows left, SI and
// DI the weight and activation cursors, CX the super-blocks left, R9 the
// next group's bytes, prefetched as this group runs.

// rb0f is 0x0f in every byte; rb30 0x30; rOnes16 1 in every int16 word.
DATA rb0f<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA rb0f<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA rb0f<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA rb0f<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL rb0f<>(SB), RODATA|NOPTR, $32

DATA rb30<>+0(SB)/8, $0x3030303030303030
DATA rb30<>+8(SB)/8, $0x3030303030303030
DATA rb30<>+16(SB)/8, $0x3030303030303030
DATA rb30<>+24(SB)/8, $0x3030303030303030
GLOBL rb30<>(SB), RODATA|NOPTR, $32

DATA rOnes16<>+0(SB)/8, $0x0001000100010001
DATA rOnes16<>+8(SB)/8, $0x0001000100010001
DATA rOnes16<>+16(SB)/8, $0x0001000100010001
DATA rOnes16<>+24(SB)/8, $0x0001000100010001
GLOBL rOnes16<>(SB), RODATA|NOPTR, $32

// rWordBcast+32j spreads int16 word j of each lane over the lane.
DATA rWordBcast<>+0(SB)/8, $0x0100010001000100
DATA rWordBcast<>+8(SB)/8, $0x0100010001000100
DATA rWordBcast<>+16(SB)/8, $0x0100010001000100
DATA rWordBcast<>+24(SB)/8, $0x0100010001000100
DATA rWordBcast<>+32(SB)/8, $0x0302030203020302
DATA rWordBcast<>+40(SB)/8, $0x0302030203020302
DATA rWordBcast<>+48(SB)/8, $0x0302030203020302
DATA rWordBcast<>+56(SB)/8, $0x0302030203020302
DATA rWordBcast<>+64(SB)/8, $0x0504050405040504
DATA rWordBcast<>+72(SB)/8, $0x0504050405040504
DATA rWordBcast<>+80(SB)/8, $0x0504050405040504
DATA rWordBcast<>+88(SB)/8, $0x0504050405040504
DATA rWordBcast<>+96(SB)/8, $0x0706070607060706
DATA rWordBcast<>+104(SB)/8, $0x0706070607060706
DATA rWordBcast<>+112(SB)/8, $0x0706070607060706
DATA rWordBcast<>+120(SB)/8, $0x0706070607060706
DATA rWordBcast<>+128(SB)/8, $0x0908090809080908
DATA rWordBcast<>+136(SB)/8, $0x0908090809080908
DATA rWordBcast<>+144(SB)/8, $0x0908090809080908
DATA rWordBcast<>+152(SB)/8, $0x0908090809080908
DATA rWordBcast<>+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA rWordBcast<>+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA rWordBcast<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA rWordBcast<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA rWordBcast<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA rWordBcast<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA rWordBcast<>+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA rWordBcast<>+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA rWordBcast<>+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA rWordBcast<>+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA rWordBcast<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA rWordBcast<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL rWordBcast<>(SB), RODATA|NOPTR, $256

// rkscA, rkscB, rkscShift and rkscMask split the packed Q4_K scales and
// minimums of one weight row per 128-bit lane, as gkscA.. do in
// avx2_gemv_amd64.s.
DATA rkscA<>+0(SB)/8, $0x0b0a090803020100
DATA rkscA<>+8(SB)/8, $0x0b0a090807060504
DATA rkscA<>+16(SB)/8, $0x0b0a090803020100
DATA rkscA<>+24(SB)/8, $0x0b0a090807060504
GLOBL rkscA<>(SB), RODATA|NOPTR, $32

DATA rkscB<>+0(SB)/8, $0x0302010080808080
DATA rkscB<>+8(SB)/8, $0x0706050480808080
DATA rkscB<>+16(SB)/8, $0x0302010080808080
DATA rkscB<>+24(SB)/8, $0x0706050480808080
GLOBL rkscB<>(SB), RODATA|NOPTR, $32

DATA rkscShift<>+0(SB)/8, $0
DATA rkscShift<>+8(SB)/8, $0x0000000400000000
DATA rkscShift<>+16(SB)/8, $0
DATA rkscShift<>+24(SB)/8, $0x0000000400000000
GLOBL rkscShift<>(SB), RODATA|NOPTR, $32

DATA rkscMask<>+0(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA rkscMask<>+8(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA rkscMask<>+16(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA rkscMask<>+24(SB)/8, $0x0f0f0f0f3f3f3f3f
GLOBL rkscMask<>(SB), RODATA|NOPTR, $32

// RPARGS loads the tile description at a+0(FP), the row count and the
// steps.
#define RPARGS \
	MOVQ a+0(FP), AX; \
	MOVQ 0(AX), R8; \
	MOVQ 8(AX), R12; \
	LEAQ (R12)(R12*2), R10; \
	MOVQ 16(AX), R13; \
	MOVQ 32(AX), R14; \
	MOVQ 40(AX), BX; \
	MOVQ rows+8(FP), DX; \
	MOVQ bstep+16(FP), R11; \
	MOVQ gstep+24(FP), AX

// RPSTART points SI, DI and CX at the group's first block, the activation
// row and the block count, R9 at the next group.
#define RPSTART \
	MOVQ R8, SI; \
	MOVQ R13, DI; \
	MOVQ R14, CX; \
	LEAQ (R8)(AX*1), R9

// RPNEXT moves to the next four weight rows and their outputs and loops
// to L while rows remain.
#define RPNEXT(L) \
	ADDQ AX, R8; \
	ADDQ $16, BX; \
	SUBQ $4, DX; \
	JNZ  L

// RQ4SCALES2 is Q4SCALES2 of avx2_gemv_amd64.s: the scales of two rows
// as words in SCA and SCB, their minimums times the activations' pair sums
// (Y13) in M. Uses Y4, Y5.
#define RQ4SCALES2(R0, R1, SCA, SCB, M) \
	VMOVDQU     4 R0, X4; \
	VINSERTI128 $1, 4 R1, Y4, Y4; \
	VPSHUFB     rkscB<>(SB), Y4, Y5; \
	VPSHUFB     rkscA<>(SB), Y4, Y4; \
	VPSRLVD     rkscShift<>(SB), Y4, Y4; \
	VPAND       rkscMask<>(SB), Y4, Y4; \
	VPSRLD      $2, Y5, Y5; \
	VPAND       rb30<>(SB), Y5, Y5; \
	VPOR        Y5, Y4, Y4; \
	VPUNPCKHBW  Y14, Y4, M; \
	VPMADDWD    Y13, M, M; \
	VPUNPCKLBW  Y14, Y4, Y4; \
	VPERMQ      $0x44, Y4, SCA; \
	VPERMQ      $0xee, Y4, SCB

// RQ4SUB is Q4SUB: the scaled products of one sub-block into ACC.
#define RQ4SUB(XO, BC, S, ACC) \
	VPAND      Y15, Y5, Y6; \
	VPMADDUBSW XO(DI), Y6, Y6; \
	VPSHUFB    rWordBcast<>+BC(SB), S, Y7; \
	VPMADDWD   Y7, Y6, Y6; \
	VPADDD     Y6, ACC, ACC

// RQ4ROWPAIR is Q4ROWPAIR: sub-blocks 2p and 2p+1 of one row into ACC.
#define RQ4ROWPAIR(R, QS, XO, BC, S, ACC) \
	VMOVDQU QS R, Y5; \
	RQ4SUB(XO, BC, S, ACC); \
	VPSRLW  $4, Y5, Y5; \
	RQ4SUB(XO+32, BC+32, S, ACC)

// RQ4PAIR4 adds sub-blocks 2p and 2p+1 of the four rows to Y8..Y11.
#define RQ4PAIR4(QS, XO, BC) \
	RQ4ROWPAIR((SI), QS, XO, BC, Y0, Y8); \
	RQ4ROWPAIR((SI)(R12*1), QS, XO, BC, Y1, Y9); \
	RQ4ROWPAIR((SI)(R12*2), QS, XO, BC, Y2, Y10); \
	RQ4ROWPAIR((SI)(R10*1), QS, XO, BC, Y3, Y11)

// func gemvQ4KStepAVX2(a *tileArgs, rows, bstep, gstep int)
//
// gemvQ4KAVX2 with the steps as arguments. Y12 holds [acc, accMin] of rows
// 0..3 as [a0, m0, a1, m1 | a2, m2, a3, m3].
TEXT ·gemvQ4KStepAVX2(SB), NOSPLIT, $0-32
	RPARGS
	VMOVDQU rb0f<>(SB), Y15
	VPXOR   Y14, Y14, Y14

rq4grow:
	RPSTART
	VXORPS Y12, Y12, Y12

rq4gblock:
	PREFETCHT0 0(R9)
	PREFETCHT0 64(R9)
	PREFETCHT0 128(R9)
	PREFETCHT0 192(R9)
	PREFETCHT0 256(R9)
	PREFETCHT0 320(R9)
	PREFETCHT0 384(R9)
	PREFETCHT0 448(R9)
	PREFETCHT0 512(R9)
	VMOVDQU   260(DI), Y13
	VPMADDWD  rOnes16<>(SB), Y13, Y13
	VPACKSSDW Y13, Y13, Y13
	VPERMQ    $0x88, Y13, Y13

	RQ4SCALES2((SI), (SI)(R12*1), Y0, Y1, Y8)
	RQ4SCALES2((SI)(R12*2), (SI)(R10*1), Y2, Y3, Y9)

	VPHADDD      Y9, Y8, Y13
	VPHADDD      Y13, Y13, Y13
	VEXTRACTI128 $1, Y13, X4
	VPUNPCKLDQ   X4, X13, X13

	VPXOR Y8, Y8, Y8
	VPXOR Y9, Y9, Y9
	VPXOR Y10, Y10, Y10
	VPXOR Y11, Y11, Y11
	RQ4PAIR4(16, 4, 0)
	RQ4PAIR4(48, 68, 64)
	RQ4PAIR4(80, 132, 128)
	RQ4PAIR4(112, 196, 192)
	VPHADDD      Y9, Y8, Y8
	VPHADDD      Y11, Y10, Y10
	VPHADDD      Y10, Y8, Y8
	VEXTRACTI128 $1, Y8, X9
	VPADDD       X9, X8, X8

	VPUNPCKLDQ   X13, X8, X9
	VPUNPCKHDQ   X13, X8, X8
	VINSERTI128  $1, X8, Y9, Y9
	VCVTDQ2PS    Y9, Y9
	VMOVD        0(SI), X4
	VPINSRD      $1, 0(SI)(R12*1), X4, X4
	VPINSRD      $2, 0(SI)(R12*2), X4, X4
	VPINSRD      $3, 0(SI)(R10*1), X4, X4
	VCVTPH2PS    X4, Y4
	VBROADCASTSS (DI), Y5
	VMULPS       Y5, Y4, Y4
	VFMADD231PS  Y9, Y4, Y12

	ADDQ R11, SI
	ADDQ $292, DI
	ADDQ $576, R9
	DECQ CX
	JNZ  rq4gblock

	VMOVSHDUP    Y12, Y0
	VSUBPS       Y0, Y12, Y0
	VEXTRACTF128 $1, Y0, X1
	VSHUFPS      $0x88, X1, X0, X0
	VMOVUPS      X0, (BX)
	RPNEXT(rq4grow)
	VZEROUPPER
	RET

// RQ80ROW is Q80ROW of avx2_gemv_amd64.s: one Q8_0 block of the row at R
// against the activations in Y12 (x.d broadcast in Y13) into ACC. Y15
// holds int16 ones. Uses Y0..Y3.
#define RQ80ROW(R, ACC) \
	VMOVDQU      2 R, Y0; \
	VPSIGNB      Y0, Y12, Y1; \
	VPSIGNB      Y0, Y0, Y2; \
	VPMADDUBSW   Y1, Y2, Y2; \
	VPMADDWD     Y15, Y2, Y2; \
	VCVTDQ2PS    Y2, Y2; \
	VPBROADCASTW 0 R, X3; \
	VCVTPH2PS    X3, Y3; \
	VMULPS       Y13, Y3, Y3; \
	VFMADD231PS  Y2, Y3, ACC

// RHSUM8 is HSUM8G: ACC's eight lanes summed in hsum8's order into X0.
// Uses X1.
#define RHSUM8(ACC, XACC) \
	VEXTRACTF128 $1, ACC, X0; \
	VADDPS       X0, XACC, X0; \
	VMOVHLPS     X0, X0, X1; \
	VADDPS       X1, X0, X0; \
	VMOVSHDUP    X0, X1; \
	VADDSS       X1, X0, X0

// func gemvQ80StepAVX2(a *tileArgs, rows, bstep, gstep int)
//
// gemvQ80AVX2 with the steps as arguments. Y8..Y11 are the four rows'
// float32 accumulators.
TEXT ·gemvQ80StepAVX2(SB), NOSPLIT, $0-32
	RPARGS
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15

rq80grow:
	RPSTART
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

rq80gblock:
	PREFETCHT0   0(R9)
	PREFETCHT0   64(R9)
	PREFETCHT0   128(R9)
	VMOVDQU      8(DI), Y12
	VBROADCASTSS (DI), Y13
	RQ80ROW((SI), Y8)
	RQ80ROW((SI)(R12*1), Y9)
	RQ80ROW((SI)(R12*2), Y10)
	RQ80ROW((SI)(R10*1), Y11)
	ADDQ         R11, SI
	ADDQ         $40, DI
	ADDQ         $136, R9
	DECQ         CX
	JNZ          rq80gblock

	RHSUM8(Y8, X8)
	VMOVSS X0, (BX)
	RHSUM8(Y9, X9)
	VMOVSS X0, 4(BX)
	RHSUM8(Y10, X10)
	VMOVSS X0, 8(BX)
	RHSUM8(Y11, X11)
	VMOVSS X0, 12(BX)
	RPNEXT(rq80grow)
	VZEROUPPER
	RET
