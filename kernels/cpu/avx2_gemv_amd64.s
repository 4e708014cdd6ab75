#include "textflag.h"
#include "gemv_amd64.h"

// AVX2 decode tiles: mr weight rows against one activation row per call
// (see avx2_gemv_amd64.go; gemv_amd64.h describes the arguments and
// registers). The Q8_0 tile also takes the block step and the group step
// (bytes from a row's block to its next, from a group of four rows to the
// next), for the four-row Q8_0 layout. They run over the weight rows in
// groups of four (the Q6_K tile in pairs): per super-block the
// activation-side work (block sums, scale) is done once for the group and
// the rows' integer sums are reduced and scaled together, each output
// keeping the single-row kernel's float operations. Row r of a group is
// at SI + r·wstride.

// gb0f is 0x0f in every byte; gb30 0x30; gOnes16 1 in every int16 word.
DATA gb0f<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA gb0f<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA gb0f<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA gb0f<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL gb0f<>(SB), RODATA|NOPTR, $32

DATA gb30<>+0(SB)/8, $0x3030303030303030
DATA gb30<>+8(SB)/8, $0x3030303030303030
DATA gb30<>+16(SB)/8, $0x3030303030303030
DATA gb30<>+24(SB)/8, $0x3030303030303030
GLOBL gb30<>(SB), RODATA|NOPTR, $32

DATA gOnes16<>+0(SB)/8, $0x0001000100010001
DATA gOnes16<>+8(SB)/8, $0x0001000100010001
DATA gOnes16<>+16(SB)/8, $0x0001000100010001
DATA gOnes16<>+24(SB)/8, $0x0001000100010001
GLOBL gOnes16<>(SB), RODATA|NOPTR, $32

// gWordBcast+32j spreads int16 word j of each lane over the lane.
DATA gWordBcast<>+0(SB)/8, $0x0100010001000100
DATA gWordBcast<>+8(SB)/8, $0x0100010001000100
DATA gWordBcast<>+16(SB)/8, $0x0100010001000100
DATA gWordBcast<>+24(SB)/8, $0x0100010001000100
DATA gWordBcast<>+32(SB)/8, $0x0302030203020302
DATA gWordBcast<>+40(SB)/8, $0x0302030203020302
DATA gWordBcast<>+48(SB)/8, $0x0302030203020302
DATA gWordBcast<>+56(SB)/8, $0x0302030203020302
DATA gWordBcast<>+64(SB)/8, $0x0504050405040504
DATA gWordBcast<>+72(SB)/8, $0x0504050405040504
DATA gWordBcast<>+80(SB)/8, $0x0504050405040504
DATA gWordBcast<>+88(SB)/8, $0x0504050405040504
DATA gWordBcast<>+96(SB)/8, $0x0706070607060706
DATA gWordBcast<>+104(SB)/8, $0x0706070607060706
DATA gWordBcast<>+112(SB)/8, $0x0706070607060706
DATA gWordBcast<>+120(SB)/8, $0x0706070607060706
DATA gWordBcast<>+128(SB)/8, $0x0908090809080908
DATA gWordBcast<>+136(SB)/8, $0x0908090809080908
DATA gWordBcast<>+144(SB)/8, $0x0908090809080908
DATA gWordBcast<>+152(SB)/8, $0x0908090809080908
DATA gWordBcast<>+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA gWordBcast<>+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA gWordBcast<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA gWordBcast<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA gWordBcast<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA gWordBcast<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA gWordBcast<>+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA gWordBcast<>+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA gWordBcast<>+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA gWordBcast<>+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA gWordBcast<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA gWordBcast<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL gWordBcast<>(SB), RODATA|NOPTR, $256

// gkscA, gkscB, gkscShift and gkscMask split the 12 packed bytes of the
// Q4_K scales and minimums (scaleMinK4) of one weight row per 128-bit lane
// into s0..s7, m0..m7: gkscA picks b0..3, b8..11, b4..7, b8..11 (shifted
// by gkscShift and masked by gkscMask: the low bits), gkscB picks b0..3
// and b4..7 into the second and fourth words (their top two bits, shifted
// right by 2 and masked by 0x30, are the high bits of s4..7 and m4..7).
DATA gkscA<>+0(SB)/8, $0x0b0a090803020100
DATA gkscA<>+8(SB)/8, $0x0b0a090807060504
DATA gkscA<>+16(SB)/8, $0x0b0a090803020100
DATA gkscA<>+24(SB)/8, $0x0b0a090807060504
GLOBL gkscA<>(SB), RODATA|NOPTR, $32

DATA gkscB<>+0(SB)/8, $0x0302010080808080
DATA gkscB<>+8(SB)/8, $0x0706050480808080
DATA gkscB<>+16(SB)/8, $0x0302010080808080
DATA gkscB<>+24(SB)/8, $0x0706050480808080
GLOBL gkscB<>(SB), RODATA|NOPTR, $32

DATA gkscShift<>+0(SB)/8, $0
DATA gkscShift<>+8(SB)/8, $0x0000000400000000
DATA gkscShift<>+16(SB)/8, $0
DATA gkscShift<>+24(SB)/8, $0x0000000400000000
GLOBL gkscShift<>(SB), RODATA|NOPTR, $32

DATA gkscMask<>+0(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA gkscMask<>+8(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA gkscMask<>+16(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA gkscMask<>+24(SB)/8, $0x0f0f0f0f3f3f3f3f
GLOBL gkscMask<>(SB), RODATA|NOPTR, $32

// Q4SCALES2 decodes the scales and minimums of two rows
// (R0 and R1: the two rows' block addresses, (SI) or (SI)(R12*1) etc.): SCA and SCB
// get the scales s0..s7 of each row as int16 words in both lanes, M the
// int32 lanes m_j·(bsum[2j]+bsum[2j+1]) of the first row (low lane) and
// the second (high lane), the activations' pair sums in Y13. Uses Y4, Y5.
#define Q4SCALES2(R0, R1, SCA, SCB, M) \
	VMOVDQU     4 R0, X4; \
	VINSERTI128 $1, 4 R1, Y4, Y4; \
	VPSHUFB     gkscB<>(SB), Y4, Y5; \
	VPSHUFB     gkscA<>(SB), Y4, Y4; \
	VPSRLVD     gkscShift<>(SB), Y4, Y4; \
	VPAND       gkscMask<>(SB), Y4, Y4; \
	VPSRLD      $2, Y5, Y5; \
	VPAND       gb30<>(SB), Y5, Y5; \
	VPOR        Y5, Y4, Y4; \
	VPUNPCKHBW  Y14, Y4, M; \
	VPMADDWD    Y13, M, M; \
	VPUNPCKLBW  Y14, Y4, Y4; \
	VPERMQ      $0x44, Y4, SCA; \
	VPERMQ      $0xee, Y4, SCB

// Q4SUB adds to ACC the scaled products of sub-block 2p (HI empty: low
// nibbles) or 2p+1 (high nibbles) of one row, the nibbles in Y5 (the
// pair's 32 bytes, shifted right by 4 for the high nibbles), the
// activations at XO(DI), the row's scales in S picked by gWordBcast+BC.
// Y15 holds 0x0f bytes. Uses Y6, Y7.
#define Q4SUB(XO, BC, S, ACC) \
	VPAND      Y15, Y5, Y6; \
	VPMADDUBSW XO(DI), Y6, Y6; \
	VPSHUFB    gWordBcast<>+BC(SB), S, Y7; \
	VPMADDWD   Y7, Y6, Y6; \
	VPADDD     Y6, ACC, ACC

// Q4ROWPAIR adds to ACC the scaled products of sub-blocks 2p and 2p+1 of
// the row whose block is at R (nibbles at QS R).
#define Q4ROWPAIR(R, QS, XO, BC, S, ACC) \
	VMOVDQU QS R, Y5; \
	Q4SUB(XO, BC, S, ACC); \
	VPSRLW  $4, Y5, Y5; \
	Q4SUB(XO+32, BC+32, S, ACC)

// Q4PAIR4 adds sub-blocks 2p and 2p+1 of the four rows to Y8..Y11.
#define Q4PAIR4(QS, XO, BC) \
	Q4ROWPAIR((SI), QS, XO, BC, Y0, Y8); \
	Q4ROWPAIR((SI)(R12*1), QS, XO, BC, Y1, Y9); \
	Q4ROWPAIR((SI)(R12*2), QS, XO, BC, Y2, Y10); \
	Q4ROWPAIR((SI)(R10*1), QS, XO, BC, Y3, Y11)

// func gemvQ4KAVX2(a *tileArgs, rows int)
//
// Y12 holds [acc, accMin] of rows 0..3 as [a0, m0, a1, m1 | a2, m2, a3, m3].
TEXT ·gemvQ4KAVX2(SB), NOSPLIT, $0-16
	GEMVARGS
	MOVQ R12, AX
	SHLQ $2, AX // the group step: four rows
	VMOVDQU gb0f<>(SB), Y15
	VPXOR   Y14, Y14, Y14

q4grow:
	GROUPSTART
	LEAQ   (R8)(AX*1), R9 // the next group, prefetched as this one runs
	VXORPS Y12, Y12, Y12

q4gblock:
	PREFETCH9(R9)
	// Y13: the activations' sums of each 32 elements as int16 words,
	// bsum[2j]+bsum[2j+1] for j = 0..7, in both lanes.
	VMOVDQU   260(DI), Y13
	VPMADDWD  gOnes16<>(SB), Y13, Y13
	VPACKSSDW Y13, Y13, Y13
	VPERMQ    $0x88, Y13, Y13

	Q4SCALES2((SI), (SI)(R12*1), Y0, Y1, Y8)
	Q4SCALES2((SI)(R12*2), (SI)(R10*1), Y2, Y3, Y9)

	// The minimums' sums [m0, m1, m2, m3] in X13.
	VPHADDD      Y9, Y8, Y13 // [r0 01, r0 23, r2 01, r2 23 | r1 .., r3 ..]
	VPHADDD      Y13, Y13, Y13 // [r0, r2, r0, r2 | r1, r3, r1, r3]
	VEXTRACTI128 $1, Y13, X4
	VPUNPCKLDQ   X4, X13, X13

	// The integer sums of the four rows in Y8..Y11.
	VPXOR Y8, Y8, Y8
	VPXOR Y9, Y9, Y9
	VPXOR Y10, Y10, Y10
	VPXOR Y11, Y11, Y11
	Q4PAIR4(16, 4, 0)
	Q4PAIR4(48, 68, 64)
	Q4PAIR4(80, 132, 128)
	Q4PAIR4(112, 196, 192)
	VPHADDD      Y9, Y8, Y8
	VPHADDD      Y11, Y10, Y10
	VPHADDD      Y10, Y8, Y8
	VEXTRACTI128 $1, Y8, X9
	VPADDD       X9, X8, X8 // [i0, i1, i2, i3]

	// [isum, msum] of each row as float32, times [d, dmin]·x.d.
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

	ADDQ $144, SI
	ADDQ $292, DI
	ADDQ $576, R9
	DECQ CX
	JNZ  q4gblock

	VMOVSHDUP    Y12, Y0
	VSUBPS       Y0, Y12, Y0 // acc - accMin in lanes 0, 2, 4, 6
	VEXTRACTF128 $1, Y0, X1
	VSHUFPS      $0x88, X1, X0, X0
	VMOVUPS      X0, (BX)
	GROUPNEXT(q4grow)
	VZEROUPPER
	RET

// gPairShuf+32c broadcasts word 2c of each lane over the low lane and word
// 2c+1 over the high lane: the scales of Q6_K groups 2c and 2c+1 of 16
// (of one half of a super-block).
DATA gPairShuf<>+0(SB)/8, $0x0100010001000100
DATA gPairShuf<>+8(SB)/8, $0x0100010001000100
DATA gPairShuf<>+16(SB)/8, $0x0302030203020302
DATA gPairShuf<>+24(SB)/8, $0x0302030203020302
DATA gPairShuf<>+32(SB)/8, $0x0504050405040504
DATA gPairShuf<>+40(SB)/8, $0x0504050405040504
DATA gPairShuf<>+48(SB)/8, $0x0706070607060706
DATA gPairShuf<>+56(SB)/8, $0x0706070607060706
DATA gPairShuf<>+64(SB)/8, $0x0908090809080908
DATA gPairShuf<>+72(SB)/8, $0x0908090809080908
DATA gPairShuf<>+80(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA gPairShuf<>+88(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA gPairShuf<>+96(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA gPairShuf<>+104(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA gPairShuf<>+112(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA gPairShuf<>+120(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL gPairShuf<>(SB), RODATA|NOPTR, $128

// Q6LO leaves in Q the 6-bit quants of chunk 0 or 1 of a half (low
// nibbles at QL R, high bits from QH shifted left by N). Y15 holds 0x0f
// bytes, Y14 0x30 bytes. Uses T.
#define Q6LO(QL, R, QH, N, Q, T) \
	VPAND  QL R, Y15, Q; \
	VPSLLW $N, QH, T; \
	VPAND  Y14, T, T; \
	VPOR   T, Q, Q

// Q6HI2 leaves in Q the quants of chunk 2 (high nibbles at QL R, high bits
// QH & 0x30).
#define Q6HI2(QL, R, QH, Q, T) \
	VMOVDQU QL R, Q; \
	VPSRLW  $4, Q, Q; \
	VPAND   Y15, Q, Q; \
	VPAND   Y14, QH, T; \
	VPOR    T, Q, Q

// Q6HI3 leaves in Q the quants of chunk 3 (high nibbles at QL R, high bits
// from QH shifted right by 2).
#define Q6HI3(QL, R, QH, Q, T) \
	VMOVDQU QL R, Q; \
	VPSRLW  $4, Q, Q; \
	VPAND   Y15, Q, Q; \
	VPSRLW  $2, QH, T; \
	VPAND   Y14, T, T; \
	VPOR    T, Q, Q

// Q6ACC scales the products of the quants in Q with the activations in Y5
// by the group scales in S picked by gPairShuf+PS and adds them to L (OP
// VPADDD), or with OP VPSUBD sets L to them less L. Uses T.
#define Q6ACC(Q, PS, S, OP, L, T) \
	VPMADDUBSW Y5, Q, Q; \
	VPSHUFB    gPairShuf<>+PS(SB), S, T; \
	VPMADDWD   T, Q, Q; \
	OP         L, Q, L

// Q6HALF2 adds half H (128 elements: ql at QL, qh at QH, activations at
// XO) of the super-block of rows 0 (at (SI)) and 1 (at (SI)(R12*1)) to
// their lanes Y6 and Y7, the rows' scales for the half in Y10 and Y11, the
// high bits in Y8 and Y9; OP0 is the first chunk's operation. Uses Y0..Y3,
// Y5.
#define Q6HALF2(QL, QH, XO, OP0) \
	VMOVDQU QH(SI), Y8; \
	VMOVDQU QH(SI)(R12*1), Y9; \
	VMOVDQU XO(DI), Y5; \
	Q6LO(QL, (SI), Y8, 4, Y0, Y1); \
	Q6ACC(Y0, 0, Y10, OP0, Y6, Y1); \
	Q6LO(QL, (SI)(R12*1), Y9, 4, Y2, Y3); \
	Q6ACC(Y2, 0, Y11, OP0, Y7, Y3); \
	VMOVDQU XO+32(DI), Y5; \
	Q6LO(QL+32, (SI), Y8, 2, Y0, Y1); \
	Q6ACC(Y0, 32, Y10, VPADDD, Y6, Y1); \
	Q6LO(QL+32, (SI)(R12*1), Y9, 2, Y2, Y3); \
	Q6ACC(Y2, 32, Y11, VPADDD, Y7, Y3); \
	VMOVDQU XO+64(DI), Y5; \
	Q6HI2(QL, (SI), Y8, Y0, Y1); \
	Q6ACC(Y0, 64, Y10, VPADDD, Y6, Y1); \
	Q6HI2(QL, (SI)(R12*1), Y9, Y2, Y3); \
	Q6ACC(Y2, 64, Y11, VPADDD, Y7, Y3); \
	VMOVDQU XO+96(DI), Y5; \
	Q6HI3(QL+32, (SI), Y8, Y0, Y1); \
	Q6ACC(Y0, 96, Y10, VPADDD, Y6, Y1); \
	Q6HI3(QL+32, (SI)(R12*1), Y9, Y2, Y3); \
	Q6ACC(Y2, 96, Y11, VPADDD, Y7, Y3)

// Q6FMAG scales the lanes L of the row at R by d·x.d (its F16 d at 208 R,
// x.d at (DI)) into its accumulators ACC with one fused multiply-add per
// lane. Uses AX, Y0.
#define Q6FMAG(R, L, ACC) \
	MOVWLZX      208 R, AX; \
	VMOVD        AX, X0; \
	VCVTPH2PS    X0, X0; \
	VMULSS       (DI), X0, X0; \
	VBROADCASTSS X0, Y0; \
	VCVTDQ2PS    L, L; \
	VFMADD231PS  L, Y0, ACC

// HSUM8G leaves in X0 the sum of ACC's eight float32 lanes in hsum8's
// order: high half onto low half, lanes 0+2 and 1+3, then the two. Uses
// X1.
#define HSUM8G(ACC, XACC) \
	VEXTRACTF128 $1, ACC, X0; \
	VADDPS       X0, XACC, X0; \
	VMOVHLPS     X0, X0, X1; \
	VADDPS       X1, X0, X0; \
	VMOVSHDUP    X0, X1; \
	VADDSS       X1, X0, X0

// func gemvQ6KAVX2(a *tileArgs, rows int)
//
// The weight rows go in pairs, interleaved chunk by chunk so that each
// activation vector is loaded once for the two; Y12 and Y13 are the two
// rows' float32 accumulators.
TEXT ·gemvQ6KAVX2(SB), NOSPLIT, $0-16
	GEMVARGS
	Q6AHEAD(q6gahead)
	VMOVDQU gb0f<>(SB), Y15
	VMOVDQU gb30<>(SB), Y14

q6grow:
	GROUPSTART
	LEAQ   (R8)(R10*1), R9 // a pair Q6AHEAD on, prefetched as this one runs
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13

q6gblock:
	PREFETCH7(R9)
	// The lanes start as 32·(sc[2l]·bsum[2l] + sc[2l+1]·bsum[2l+1]), to be
	// taken off the first chunk's products.
	VPMOVSXBW 192(SI), Y0
	VPMOVSXBW 192(SI)(R12*1), Y1
	VPMADDWD  260(DI), Y0, Y6
	VPSLLD    $5, Y6, Y6
	VPMADDWD  260(DI), Y1, Y7
	VPSLLD    $5, Y7, Y7
	VPERMQ    $0x44, Y0, Y10
	VPERMQ    $0x44, Y1, Y11
	Q6HALF2(0, 128, 4, VPSUBD)
	VPMOVSXBW 192(SI), Y0
	VPMOVSXBW 192(SI)(R12*1), Y1
	VPERMQ    $0xee, Y0, Y10
	VPERMQ    $0xee, Y1, Y11
	Q6HALF2(64, 160, 132, VPADDD)
	Q6FMAG((SI), Y6, Y12)
	Q6FMAG((SI)(R12*1), Y7, Y13)

	ADDQ $210, SI
	ADDQ $292, DI
	ADDQ $420, R9
	DECQ CX
	JNZ  q6gblock

	HSUM8G(Y12, X12)
	VMOVSS X0, (BX)
	HSUM8G(Y13, X13)
	VMOVSS X0, 4(BX)
	LEAQ   (R8)(R12*2), R8
	ADDQ   $8, BX
	SUBQ   $2, DX
	JNZ    q6grow
	VZEROUPPER
	RET

// Q80ROW adds to ACC the eight int32 lanes of one Q8_0 block of the row at
// R (d at 0 R, quants at 2 R) with the activations in Y12, scaled by d·x.d
// (x.d broadcast in Y13) with one fused multiply-add per lane; the lanes
// are |w|·sign(w)x summed in fours (vpmaddubsw never overflows). Y15 holds
// int16 ones. Uses Y0..Y3.
#define Q80ROW(R, ACC) \
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

// func gemvQ80StepAVX2(a *tileArgs, rows, bstep, gstep int)
//
// Y8..Y11 are the four rows' float32 accumulators.
TEXT ·gemvQ80StepAVX2(SB), NOSPLIT, $0-32
	GEMVSTEPARGS
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15

q80grow:
	GROUPSTART
	LEAQ   (R8)(AX*1), R9 // the next group, prefetched as this one runs
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

q80gblock:
	PREFETCHT0   0(R9)
	PREFETCHT0   64(R9)
	PREFETCHT0   128(R9)
	VMOVDQU      8(DI), Y12
	VBROADCASTSS (DI), Y13
	Q80ROW((SI), Y8)
	Q80ROW((SI)(R12*1), Y9)
	Q80ROW((SI)(R12*2), Y10)
	Q80ROW((SI)(R10*1), Y11)
	ADDQ         R11, SI
	ADDQ         $40, DI
	ADDQ         $136, R9
	DECQ         CX
	JNZ          q80gblock

	HSUM8G(Y8, X8)
	VMOVSS X0, (BX)
	HSUM8G(Y9, X9)
	VMOVSS X0, 4(BX)
	HSUM8G(Y10, X10)
	VMOVSS X0, 8(BX)
	HSUM8G(Y11, X11)
	VMOVSS X0, 12(BX)
	GROUPNEXT(q80grow)
	VZEROUPPER
	RET
