#include "textflag.h"

// AVX2 dot products of K-quant weight rows with Q8_K activations. Each
// kernel takes (w *byte, x *q8KBlock, n int, gemm bool) with n ≥ 1 and
// returns the float32 that dotK computes. Q8_K blocks: d at 0, q[256] at 4,
// bsum[16] (int16) at 260, 292 bytes in all.
//
// The integer parts use vpmaddubsw (unsigned quants times signed
// activations, pairs into int16: never saturating for these ranges) and
// vpmaddwd (int16 scales, pairs into int32), so int32 lane l of a chunk of
// 32 elements holds the elements whose index modulo 32 is in [4l, 4l+4),
// which is the lane order dotQ6K and dotLanesK follow.

// Byte constants.
DATA kb0f<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA kb0f<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA kb0f<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA kb0f<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL kb0f<>(SB), RODATA|NOPTR, $32

DATA kb30<>+0(SB)/8, $0x3030303030303030
DATA kb30<>+8(SB)/8, $0x3030303030303030
DATA kb30<>+16(SB)/8, $0x3030303030303030
DATA kb30<>+24(SB)/8, $0x3030303030303030
GLOBL kb30<>(SB), RODATA|NOPTR, $32

DATA kb10<>+0(SB)/8, $0x1010101010101010
DATA kb10<>+8(SB)/8, $0x1010101010101010
DATA kb10<>+16(SB)/8, $0x1010101010101010
DATA kb10<>+24(SB)/8, $0x1010101010101010
GLOBL kb10<>(SB), RODATA|NOPTR, $32

DATA kb03<>+0(SB)/8, $0x0303030303030303
DATA kb03<>+8(SB)/8, $0x0303030303030303
DATA kb03<>+16(SB)/8, $0x0303030303030303
DATA kb03<>+24(SB)/8, $0x0303030303030303
GLOBL kb03<>(SB), RODATA|NOPTR, $32

DATA kb04<>+0(SB)/8, $0x0404040404040404
DATA kb04<>+8(SB)/8, $0x0404040404040404
DATA kb04<>+16(SB)/8, $0x0404040404040404
DATA kb04<>+24(SB)/8, $0x0404040404040404
GLOBL kb04<>(SB), RODATA|NOPTR, $32

DATA kb20<>+0(SB)/8, $0x2020202020202020
DATA kb20<>+8(SB)/8, $0x2020202020202020
GLOBL kb20<>(SB), RODATA|NOPTR, $16

// pairShuf+32c (c = 0..3) spreads int16 words 2c and 2c+1 of a register
// holding the same eight words in both 128-bit lanes: word 2c over the
// low lane, word 2c+1 over the high lane. With the 16 group scales of a
// super-block split into words 0..7 and 8..15, it gives the scales of the
// two groups of 16 in one chunk of 32.
DATA pairShuf<>+0(SB)/8, $0x0100010001000100
DATA pairShuf<>+8(SB)/8, $0x0100010001000100
DATA pairShuf<>+16(SB)/8, $0x0302030203020302
DATA pairShuf<>+24(SB)/8, $0x0302030203020302
DATA pairShuf<>+32(SB)/8, $0x0504050405040504
DATA pairShuf<>+40(SB)/8, $0x0504050405040504
DATA pairShuf<>+48(SB)/8, $0x0706070607060706
DATA pairShuf<>+56(SB)/8, $0x0706070607060706
DATA pairShuf<>+64(SB)/8, $0x0908090809080908
DATA pairShuf<>+72(SB)/8, $0x0908090809080908
DATA pairShuf<>+80(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA pairShuf<>+88(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA pairShuf<>+96(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA pairShuf<>+104(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA pairShuf<>+112(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA pairShuf<>+120(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL pairShuf<>(SB), RODATA|NOPTR, $128

// wordBcast+32j (j = 0..7) spreads int16 word j over the whole register
// (which holds the same eight words in both lanes): the scale of Q4_K and
// Q5_K sub-block j.
DATA wordBcast<>+0(SB)/8, $0x0100010001000100
DATA wordBcast<>+8(SB)/8, $0x0100010001000100
DATA wordBcast<>+16(SB)/8, $0x0100010001000100
DATA wordBcast<>+24(SB)/8, $0x0100010001000100
DATA wordBcast<>+32(SB)/8, $0x0302030203020302
DATA wordBcast<>+40(SB)/8, $0x0302030203020302
DATA wordBcast<>+48(SB)/8, $0x0302030203020302
DATA wordBcast<>+56(SB)/8, $0x0302030203020302
DATA wordBcast<>+64(SB)/8, $0x0504050405040504
DATA wordBcast<>+72(SB)/8, $0x0504050405040504
DATA wordBcast<>+80(SB)/8, $0x0504050405040504
DATA wordBcast<>+88(SB)/8, $0x0504050405040504
DATA wordBcast<>+96(SB)/8, $0x0706070607060706
DATA wordBcast<>+104(SB)/8, $0x0706070607060706
DATA wordBcast<>+112(SB)/8, $0x0706070607060706
DATA wordBcast<>+120(SB)/8, $0x0706070607060706
DATA wordBcast<>+128(SB)/8, $0x0908090809080908
DATA wordBcast<>+136(SB)/8, $0x0908090809080908
DATA wordBcast<>+144(SB)/8, $0x0908090809080908
DATA wordBcast<>+152(SB)/8, $0x0908090809080908
DATA wordBcast<>+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA wordBcast<>+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA wordBcast<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA wordBcast<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA wordBcast<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA wordBcast<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA wordBcast<>+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA wordBcast<>+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA wordBcast<>+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA wordBcast<>+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA wordBcast<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA wordBcast<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL wordBcast<>(SB), RODATA|NOPTR, $256

// minDup turns eight int16 words m0..m7 (in both lanes) into m0, m0, m1,
// m1, ..., m7, m7: the minimum of each group of 16 of a Q4_K or Q5_K
// super-block, to multiply with the activations' 16 block sums.
DATA minDup<>+0(SB)/8, $0x0302030201000100
DATA minDup<>+8(SB)/8, $0x0706070605040504
DATA minDup<>+16(SB)/8, $0x0b0a0b0a09080908
DATA minDup<>+24(SB)/8, $0x0f0e0f0e0d0c0d0c
GLOBL minDup<>(SB), RODATA|NOPTR, $32

// HSUM8 leaves in X0 the sum of Y0's eight float32 lanes in hsum8's
// order: high half onto low half, lanes 0+2 and 1+3, then the two.
#define HSUM8 \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VMOVHLPS     X0, X0, X1; \
	VADDPS       X1, X0, X0; \
	VMOVSHDUP    X0, X1; \
	VADDSS       X1, X0, X0

// DSCALE leaves in X9 lane 0 the float32 product d·x.d of the super-block's
// F16 scale at OFF(SI) and the activations' scale at 0(DI). Uses AX, X8.
#define DSCALE(OFF) \
	VMOVSS    (DI), X8; \
	MOVWLZX   OFF(SI), AX; \
	VMOVD     AX, X9; \
	VCVTPH2PS X9, X9; \
	VMULSS    X8, X9, X9

// DDMIN leaves in X9 the float32 products [d·x.d, dmin·x.d, 0, 0] of the
// super-block's F16 d and dmin at OFF(SI) and OFF+2(SI) with the
// activations' scale at 0(DI). Uses AX, X8.
#define DDMIN(OFF) \
	VBROADCASTSS (DI), X8; \
	MOVL         OFF(SI), AX; \
	VMOVD        AX, X9; \
	VCVTPH2PS    X9, X9; \
	VMULPS       X8, X9, X9

// LANESFMA scales the int32 lanes of Y11 by X9's lane 0 into the float32
// accumulators Y0 with one fused multiply-add per lane.
#define LANESFMA \
	VBROADCASTSS X9, Y10; \
	VCVTDQ2PS    Y11, Y11; \
	VFMADD231PS  Y11, Y10, Y0

// NEXTBLOCK steps SI by SIZE and DI by one Q8_K block and loops to L while
// blocks remain.
#define NEXTBLOCK(SIZE, L) \
	ADDQ $SIZE, SI; \
	ADDQ $292, DI; \
	DECQ CX; \
	JNZ  L

// kscA, kscB, kscShift and kscMask split the 12 packed bytes b0..b11 of
// the Q4_K/Q5_K scales and minimums: kscA picks b0..3, b8..11, b4..7,
// b8..11 (the low bits of s0..3, s4..7, m0..3, m4..7: shifted right by
// kscShift and masked by kscMask), kscB picks b0..3 and b4..7 into the
// second and fourth words (their top two bits are the high bits of s4..7
// and m4..7).
DATA kscA<>+0(SB)/8, $0x0b0a090803020100
DATA kscA<>+8(SB)/8, $0x0b0a090807060504
GLOBL kscA<>(SB), RODATA|NOPTR, $16

DATA kscB<>+0(SB)/8, $0x0302010080808080
DATA kscB<>+8(SB)/8, $0x0706050480808080
GLOBL kscB<>(SB), RODATA|NOPTR, $16

DATA kscShift<>+0(SB)/8, $0
DATA kscShift<>+8(SB)/8, $0x0000000400000000
GLOBL kscShift<>(SB), RODATA|NOPTR, $16

DATA kscMask<>+0(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA kscMask<>+8(SB)/8, $0x0f0f0f0f3f3f3f3f
GLOBL kscMask<>(SB), RODATA|NOPTR, $16

// SPLITSCALES leaves in X1 the bytes s0..s7, m0..m7 of the Q4_K/Q5_K
// packed 6-bit scales and minimums at OFF(SI) (as scaleMinK4 decodes
// them). Reads 16 bytes. Uses X5.
#define SPLITSCALES(OFF) \
	VMOVDQU OFF(SI), X1; \
	VPSHUFB kscB<>(SB), X1, X5; \
	VPSHUFB kscA<>(SB), X1, X1; \
	VPSRLVD kscShift<>(SB), X1, X1; \
	VPAND   kscMask<>(SB), X1, X1; \
	VPSRLD  $2, X5, X5; \
	VPAND   kb30<>(SB), X5, X5; \
	VPOR    X5, X1, X1

// KSCALES decodes the Q4_K/Q5_K scales and minimums at OFF(SI): Y3 holds
// the scales s0..s7 as int16 words in both lanes, Y2 the int32 lanes
// m_j·(bsum[2j]+bsum[2j+1]) of the minimums with the activations' sums.
#define KSCALES(OFF) \
	SPLITSCALES(OFF); \
	VPMOVZXBW X1, Y1; \
	VPERMQ    $0x44, Y1, Y3; \
	VPERMQ    $0xee, Y1, Y4; \
	VPSHUFB   minDup<>(SB), Y4, Y4; \
	VPMADDWD  260(DI), Y4, Y2

// SCALED multiplies the unsigned quants in Q with the 32 activations at
// XO(DI), scales the int16 pairs by the words in SC shuffled by SH into
// int32 lanes and adds them to ACC. Uses Y10.
#define SCALED(Q, XO, SH, SC, ACC) \
	VPMADDUBSW XO(DI), Q, Q; \
	VPSHUFB    SH, SC, Y10; \
	VPMADDWD   Y10, Q, Q; \
	VPADDD     Q, ACC, ACC

// Q6HALF adds to Y11 the scaled products of one half (128 elements) of a
// Q6_K super-block: low nibbles at QL(SI) and QL+32(SI), high bits at
// QH(SI), activations from XO(DI), scales in SC (words 0..7 of this half).
// Y15 holds 0x0f bytes, Y14 0x30 bytes.
#define Q6HALF(QL, QH, XO, SC) \
	VMOVDQU QL(SI), Y5; \
	VMOVDQU QL+32(SI), Y6; \
	VMOVDQU QH(SI), Y7; \
	VPAND   Y15, Y5, Y8; \
	VPSLLW  $4, Y7, Y9; \
	VPAND   Y14, Y9, Y9; \
	VPOR    Y9, Y8, Y8; \
	SCALED(Y8, XO, pairShuf<>+0(SB), SC, Y11); \
	VPAND   Y15, Y6, Y8; \
	VPSLLW  $2, Y7, Y9; \
	VPAND   Y14, Y9, Y9; \
	VPOR    Y9, Y8, Y8; \
	SCALED(Y8, XO+32, pairShuf<>+32(SB), SC, Y11); \
	VPSRLW  $4, Y5, Y8; \
	VPAND   Y15, Y8, Y8; \
	VPAND   Y14, Y7, Y9; \
	VPOR    Y9, Y8, Y8; \
	SCALED(Y8, XO+64, pairShuf<>+64(SB), SC, Y11); \
	VPSRLW  $4, Y6, Y8; \
	VPAND   Y15, Y8, Y8; \
	VPSRLW  $2, Y7, Y9; \
	VPAND   Y14, Y9, Y9; \
	VPOR    Y9, Y8, Y8; \
	SCALED(Y8, XO+96, pairShuf<>+96(SB), SC, Y11)

// func dotQ6KAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32
TEXT ·dotQ6KAVX2(SB), NOSPLIT, $0-36
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    n+16(FP), CX
	VXORPS  Y0, Y0, Y0
	VMOVDQU kb0f<>(SB), Y15
	VMOVDQU kb30<>(SB), Y14

q6loop:
	VPMOVSXBW 192(SI), Y1    // the 16 scales as int16
	VPMADDWD  260(DI), Y1, Y2 // lane l: sc[2l]·bsum[2l] + sc[2l+1]·bsum[2l+1]
	VPSLLD    $5, Y2, Y2
	VPERMQ    $0x44, Y1, Y3
	VPERMQ    $0xee, Y1, Y4
	VPXOR     Y11, Y11, Y11
	Q6HALF(0, 128, 4, Y3)
	Q6HALF(64, 160, 132, Y4)
	VPSUBD    Y2, Y11, Y11
	DSCALE(208)
	LANESFMA
	NEXTBLOCK(210, q6loop)

	HSUM8
	VZEROUPPER
	VMOVSS X0, ret+32(FP)
	RET

// Q5PAIR adds to Y11 the scaled products of sub-blocks 2p and 2p+1 of a
// Q5_K super-block: low nibbles at QS(SI), the fifth bits in Y7 (bits 2p
// and 2p+1 of each byte, moved to bit 4 by SH0 $N0 and SH1 $N1; bits
// crossing into the neighbouring byte are masked off), activations from
// XO(DI), scales in Y3 picked by wordBcast+BC. Y15 holds 0x0f bytes, Y14
// 0x10 bytes.
#define Q5PAIR(QS, XO, BC, SH0, N0, SH1, N1) \
	VMOVDQU QS(SI), Y5; \
	VPAND   Y15, Y5, Y8; \
	SH0     $N0, Y7, Y9; \
	VPAND   Y14, Y9, Y9; \
	VPOR    Y9, Y8, Y8; \
	SCALED(Y8, XO, wordBcast<>+BC(SB), Y3, Y11); \
	VPSRLW  $4, Y5, Y8; \
	VPAND   Y15, Y8, Y8; \
	SH1     $N1, Y7, Y9; \
	VPAND   Y14, Y9, Y9; \
	VPOR    Y9, Y8, Y8; \
	SCALED(Y8, XO+32, wordBcast<>+BC+32(SB), Y3, Y11)

// IHSUM2 leaves in X2's lanes the sum of Y2's eight int32 lanes. Uses X5.
#define IHSUM2 \
	VEXTRACTI128 $1, Y2, X5; \
	VPADDD       X5, X2, X2; \
	VPSHUFD      $0x4e, X2, X5; \
	VPADDD       X5, X2, X2; \
	VPSHUFD      $0xb1, X2, X5; \
	VPADDD       X5, X2, X2

// func dotQ5KAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32
TEXT ·dotQ5KAVX2(SB), NOSPLIT, $0-36
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    n+16(FP), CX
	VXORPS  Y0, Y0, Y0
	VXORPS  X12, X12, X12 // the minimums' accumulator
	VMOVDQU kb0f<>(SB), Y15
	VMOVDQU kb10<>(SB), Y14

q5loop:
	KSCALES(4)
	VMOVDQU 16(SI), Y7 // qh
	VPXOR   Y11, Y11, Y11
	Q5PAIR(48, 4, 0, VPSLLW, 4, VPSLLW, 3)
	Q5PAIR(80, 68, 64, VPSLLW, 2, VPSLLW, 1)
	Q5PAIR(112, 132, 128, VPSRLW, 0, VPSRLW, 1)
	Q5PAIR(144, 196, 192, VPSRLW, 2, VPSRLW, 3)
	DDMIN(0)
	LANESFMA
	IHSUM2
	VCVTDQ2PS    X2, X2
	VMOVSHDUP    X9, X5           // dmin·x.d
	VFNMADD231SS X2, X5, X12      // mins = fma(-dmin·x.d, m, mins)
	NEXTBLOCK(176, q5loop)

	HSUM8
	VADDSS X12, X0, X0
	VZEROUPPER
	VMOVSS X0, ret+32(FP)
	RET

// Q3CHUNK adds to Y11 the scaled products of chunk C (32 elements) of a
// Q3_K super-block: the low two bits from Y5 (this half's qs) shifted right
// by LS, the high bit from Y7 (hmask, bit C) moved to bit 2 by SH $N, the
// activations at XO(DI), the scales in SC picked by pairShuf+PS. The quants
// are q+4 in 0..7; 4·x is taken off each pair before scaling. Y15 holds 0x03
// bytes, Y14 0x04 bytes.
#define Q3CHUNK(LS, SH, N, XO, PS, SC) \
	VPSRLW     $LS, Y5, Y8; \
	VPAND      Y15, Y8, Y8; \
	SH         $N, Y7, Y9; \
	VPAND      Y14, Y9, Y9; \
	VPOR       Y9, Y8, Y8; \
	VPMADDUBSW XO(DI), Y8, Y8; \
	VPMADDUBSW XO(DI), Y14, Y9; \
	VPSUBW     Y9, Y8, Y8; \
	VPSHUFB    pairShuf<>+PS(SB), SC, Y10; \
	VPMADDWD   Y10, Y8, Y8; \
	VPADDD     Y8, Y11, Y11

// func dotQ3KAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32
TEXT ·dotQ3KAVX2(SB), NOSPLIT, $0-36
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    n+16(FP), CX
	VXORPS  Y0, Y0, Y0
	VMOVDQU kb03<>(SB), Y15
	VMOVDQU kb04<>(SB), Y14

q3loop:
	// The 16 signed 6-bit scales (q3kScale): low nibbles from bytes 96..103,
	// high bit pairs from bytes 104..107.
	MOVL      96(SI), AX
	MOVL      100(SI), BX
	MOVL      104(SI), DX
	MOVL      AX, R8
	ANDL      $0x0f0f0f0f, R8
	MOVL      DX, R9
	SHLL      $4, R9
	ANDL      $0x30303030, R9
	ORL       R9, R8          // scales 0..3
	MOVL      BX, R10
	ANDL      $0x0f0f0f0f, R10
	MOVL      DX, R9
	SHLL      $2, R9
	ANDL      $0x30303030, R9
	ORL       R9, R10         // scales 4..7
	SHRL      $4, AX
	ANDL      $0x0f0f0f0f, AX
	MOVL      DX, R9
	ANDL      $0x30303030, R9
	ORL       R9, AX          // scales 8..11
	SHRL      $4, BX
	ANDL      $0x0f0f0f0f, BX
	SHRL      $2, DX
	ANDL      $0x30303030, DX
	ORL       DX, BX          // scales 12..15
	SHLQ      $32, R10
	ORQ       R10, R8
	SHLQ      $32, BX
	ORQ       BX, AX
	VMOVQ     R8, X1
	VPINSRQ   $1, AX, X1, X1
	VPSUBB    kb20<>(SB), X1, X1
	VPMOVSXBW X1, Y1
	VPERMQ    $0x44, Y1, Y3
	VPERMQ    $0xee, Y1, Y4
	VMOVDQU   (SI), Y7        // hmask
	VPXOR     Y11, Y11, Y11
	VMOVDQU   32(SI), Y5
	Q3CHUNK(0, VPSLLW, 2, 4, 0, Y3)
	Q3CHUNK(2, VPSLLW, 1, 36, 32, Y3)
	Q3CHUNK(4, VPSRLW, 0, 68, 64, Y3)
	Q3CHUNK(6, VPSRLW, 1, 100, 96, Y3)
	VMOVDQU   64(SI), Y5
	Q3CHUNK(0, VPSRLW, 2, 132, 0, Y4)
	Q3CHUNK(2, VPSRLW, 3, 164, 32, Y4)
	Q3CHUNK(4, VPSRLW, 4, 196, 64, Y4)
	Q3CHUNK(6, VPSRLW, 5, 228, 96, Y4)
	DSCALE(108)
	LANESFMA
	NEXTBLOCK(110, q3loop)

	HSUM8
	VXORPS X1, X1, X1
	VADDSS X1, X0, X0 // + dotLanesK's mins, zero for Q3_K
	VZEROUPPER
	VMOVSS X0, ret+32(FP)
	RET

// Q4PAIR leaves in ACC the scaled int32 products of sub-blocks 2p and 2p+1
// of a Q4_K super-block: nibbles at QS(SI), activations from XO(DI),
// scales in Y3 picked by wordBcast+BC. Y15 holds 0x0f bytes. Uses Y8, Y9.
#define Q4PAIR(QS, XO, BC, ACC) \
	VMOVDQU    QS(SI), Y5; \
	VPAND      Y15, Y5, Y8; \
	VPMADDUBSW XO(DI), Y8, Y8; \
	VPSHUFB    wordBcast<>+BC(SB), Y3, Y10; \
	VPMADDWD   Y10, Y8, ACC; \
	VPSRLW     $4, Y5, Y9; \
	VPAND      Y15, Y9, Y9; \
	SCALED(Y9, XO+32, wordBcast<>+BC+32(SB), Y3, ACC)

// SCALED4 adds to Y11 the scaled int32 products of sub-blocks 2p and 2p+1
// of a Q4_K super-block, as Q4PAIR. Uses Y8, Y9.
#define SCALED4(QS, XO, BC) \
	VMOVDQU QS(SI), Y5; \
	VPAND   Y15, Y5, Y8; \
	SCALED(Y8, XO, wordBcast<>+BC(SB), Y3, Y11); \
	VPSRLW  $4, Y5, Y9; \
	VPAND   Y15, Y9, Y9; \
	SCALED(Y9, XO+32, wordBcast<>+BC+32(SB), Y3, Y11)

// func dotQ4KAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32
TEXT ·dotQ4KAVX2(SB), NOSPLIT, $0-36
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    n+16(FP), CX
	MOVBLZX gemm+24(FP), R11
	VXORPS  X0, X0, X0 // [acc, accMin, 0, 0]
	VMOVDQU kb0f<>(SB), Y15
	TESTQ   R11, R11
	JNZ     q4gemm

	// gemv: one chunk per super-block.
q4loop:
	KSCALES(4)
	Q4PAIR(16, 4, 0, Y11)
	SCALED4(48, 68, 64)
	SCALED4(80, 132, 128)
	SCALED4(112, 196, 192)
	VPHADDD      Y2, Y11, Y11 // [i, i, m, m] in each lane
	VEXTRACTI128 $1, Y11, X6
	VPADDD       X6, X11, X11
	VPHADDD      X11, X11, X11 // [isum, msum, isum, msum]
	VCVTDQ2PS    X11, X11
	DDMIN(0)
	VFMADD231PS  X11, X9, X0
	NEXTBLOCK(144, q4loop)
	JMP          q4done

q4gemm:
	KSCALES(4)
	Q4PAIR(16, 4, 0, Y6)
	Q4PAIR(48, 68, 64, Y7)
	Q4PAIR(80, 132, 128, Y11)
	Q4PAIR(112, 196, 192, Y12)
	// [isum of each 64 elements] in X6, [msum of each 64] in X2.
	VPHADDD      Y7, Y6, Y6
	VPHADDD      Y12, Y11, Y11
	VPHADDD      Y11, Y6, Y6
	VEXTRACTI128 $1, Y6, X7
	VPADDD       X7, X6, X6
	VPHADDD      Y2, Y2, Y2
	VPERMQ       $0x08, Y2, Y2
	DDMIN(0)
	VPUNPCKLDQ   X2, X6, X7 // [i0, m0, i1, m1]
	VPUNPCKHDQ   X2, X6, X8 // [i2, m2, i3, m3]
	VCVTDQ2PS    X7, X7
	VCVTDQ2PS    X8, X8
	VFMADD231PS  X7, X9, X0
	VMOVHLPS     X7, X7, X7
	VFMADD231PS  X7, X9, X0
	VFMADD231PS  X8, X9, X0
	VMOVHLPS     X8, X8, X8
	VFMADD231PS  X8, X9, X0
	NEXTBLOCK(144, q4gemm)

q4done:
	VMOVSHDUP X0, X1
	VSUBSS    X1, X0, X0 // acc - accMin
	VZEROUPPER
	VMOVSS    X0, ret+32(FP)
	RET

// Q2HALF leaves in ACC the scaled int32 products of one half (128
// elements) of a Q2_K super-block: quants at QS(SI), activations from
// XO(DI), scales in SC (words 0..7 of this half). Y15 holds 0x03 bytes.
#define Q2HALF(QS, XO, SC, ACC) \
	VMOVDQU    QS(SI), Y5; \
	VPAND      Y15, Y5, Y8; \
	VPMADDUBSW XO(DI), Y8, Y8; \
	VPSHUFB    pairShuf<>+0(SB), SC, Y10; \
	VPMADDWD   Y10, Y8, ACC; \
	VPSRLW     $2, Y5, Y8; \
	VPAND      Y15, Y8, Y8; \
	SCALED(Y8, XO+32, pairShuf<>+32(SB), SC, ACC); \
	VPSRLW     $4, Y5, Y8; \
	VPAND      Y15, Y8, Y8; \
	SCALED(Y8, XO+64, pairShuf<>+64(SB), SC, ACC); \
	VPSRLW     $6, Y5, Y8; \
	VPAND      Y15, Y8, Y8; \
	SCALED(Y8, XO+96, pairShuf<>+96(SB), SC, ACC)

// func dotQ2KAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32
TEXT ·dotQ2KAVX2(SB), NOSPLIT, $0-36
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    n+16(FP), CX
	MOVBLZX gemm+24(FP), R11
	VXORPS  X0, X0, X0 // [acc, accMin, 0, 0]
	VMOVDQU kb03<>(SB), Y15
	VMOVDQU kb0f<>(SB), Y14

q2loop:
	VMOVDQU      (SI), X1 // scale nibbles, minimum nibbles
	VPAND        X14, X1, X2
	VPSRLW       $4, X1, X1
	VPAND        X14, X1, X1
	VPMOVZXBW    X2, Y2
	VPMOVZXBW    X1, Y1
	VPMADDWD     260(DI), Y1, Y1 // lanes 0..3: first half's minimums, 4..7: second's
	VPERMQ       $0x44, Y2, Y3
	VPERMQ       $0xee, Y2, Y4
	Q2HALF(16, 4, Y3, Y11)
	Q2HALF(48, 132, Y4, Y12)
	// [isum0, msum0, isum1, msum1] in X6.
	VMOVDQA      X1, X6
	VEXTRACTI128 $1, Y1, X7
	VPHADDD      Y6, Y11, Y11
	VPHADDD      Y7, Y12, Y12
	VPHADDD      Y12, Y11, Y11
	VEXTRACTI128 $1, Y11, X6
	VPADDD       X11, X6, X6
	DDMIN(80)
	TESTQ        R11, R11
	JNZ          q2gemm
	VPSHUFD      $0x4e, X6, X7
	VPADDD       X7, X6, X6 // [isum, msum, ...]
	VCVTDQ2PS    X6, X6
	VFMADD231PS  X6, X9, X0
	NEXTBLOCK(84, q2loop)
	JMP          q2done

q2gemm:
	VCVTDQ2PS   X6, X6
	VFMADD231PS X6, X9, X0
	VMOVHLPS    X6, X6, X6
	VFMADD231PS X6, X9, X0
	NEXTBLOCK(84, q2loop)

q2done:
	VMOVSHDUP X0, X1
	VSUBSS    X1, X0, X0 // acc - accMin
	VZEROUPPER
	VMOVSS    X0, ret+32(FP)
	RET

// iq4Lut holds the 16 IQ4 levels (iq4Levels) in both lanes.
DATA iq4Lut<>+0(SB)/8, $0xf6eaddcfbfad9881
DATA iq4Lut<>+8(SB)/8, $0x7159453526190d01
DATA iq4Lut<>+16(SB)/8, $0xf6eaddcfbfad9881
DATA iq4Lut<>+24(SB)/8, $0x7159453526190d01
GLOBL iq4Lut<>(SB), RODATA|NOPTR, $32

// SPREAD spreads the low fields of R over the bytes of R (each step doubles
// the field count: OR with R shifted by S, masked by M). Uses BX.
#define SPREAD(R, S, M) \
	MOVQ R, BX; \
	SHLQ $S, BX; \
	ORQ  BX, R; \
	ANDQ M, R

// XSSUB adds to Y11 the scaled products of one IQ4_XS sub-block of 32
// whose levels are in W, with the activations at XO(DI) and the scale
// picked from Y3 by wordBcast+BC. The levels are signed: their magnitudes
// multiply the activations with the levels' signs. Uses Y12, Y13.
#define XSSUB(W, XO, BC) \
	VMOVDQU    XO(DI), Y12; \
	VPSIGNB    W, Y12, Y12; \
	VPABSB     W, W; \
	VPMADDUBSW Y12, W, W; \
	VPSHUFB    wordBcast<>+BC(SB), Y3, Y13; \
	VPMADDWD   Y13, W, W; \
	VPADDD     W, Y11, Y11

// XSPAIR adds to Y11 the scaled products of IQ4_XS sub-blocks 2p and 2p+1
// (nibbles at QS(SI): 16 bytes each, low nibbles the first 16 elements).
// Y15 holds 0x0f bytes, Y14 the levels.
#define XSPAIR(QS, XO, BC) \
	VMOVDQU    QS(SI), Y5; \
	VPAND      Y15, Y5, Y6; \
	VPSRLW     $4, Y5, Y7; \
	VPAND      Y15, Y7, Y7; \
	VPERM2I128 $0x20, Y7, Y6, Y8; \
	VPERM2I128 $0x31, Y7, Y6, Y9; \
	VPSHUFB    Y8, Y14, Y8; \
	VPSHUFB    Y9, Y14, Y9; \
	XSSUB(Y8, XO, BC); \
	XSSUB(Y9, XO+32, BC+32)

// func dotIQ4XSAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32
TEXT ·dotIQ4XSAVX2(SB), NOSPLIT, $0-36
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    n+16(FP), CX
	VXORPS  X0, X0, X0 // sum
	VMOVDQU kb0f<>(SB), Y15
	VMOVDQU iq4Lut<>(SB), Y14
	MOVQ    $0x0000ffff0000ffff, R8
	MOVQ    $0x00ff00ff00ff00ff, R9
	MOVQ    $0x0f0f0f0f0f0f0f0f, R10
	MOVQ    $0x000000ff000000ff, R11
	MOVQ    $0x000f000f000f000f, R12
	MOVQ    $0x0303030303030303, R13

xsloop:
	// The eight 6-bit scales: low nibbles from scales_l at 4, high bit pairs
	// from scales_h at 2, spread to one byte each, less 32.
	MOVL      4(SI), AX
	SPREAD(AX, 16, R8)
	SPREAD(AX, 8, R9)
	SPREAD(AX, 4, R10)
	MOVWLZX   2(SI), DX
	SPREAD(DX, 24, R11)
	SPREAD(DX, 12, R12)
	SPREAD(DX, 6, R13)
	SHLQ      $4, DX
	ORQ       DX, AX
	VMOVQ     AX, X1
	VPSUBB    kb20<>(SB), X1, X1
	VPMOVSXBW X1, X1
	VPERMQ    $0x44, Y1, Y3
	VPXOR     Y11, Y11, Y11
	XSPAIR(8, 4, 0)
	XSPAIR(40, 68, 64)
	XSPAIR(72, 132, 128)
	XSPAIR(104, 196, 192)
	VEXTRACTI128 $1, Y11, X5
	VPADDD       X5, X11, X11
	VPSHUFD      $0x4e, X11, X5
	VPADDD       X5, X11, X11
	VPSHUFD      $0xb1, X11, X5
	VPADDD       X5, X11, X11
	VCVTDQ2PS    X11, X11
	DSCALE(0)
	VMULSS       X11, X9, X9 // d·x.d·isum
	VADDSS       X9, X0, X0
	NEXTBLOCK(136, xsloop)

	VZEROUPPER
	VMOVSS X0, ret+32(FP)
	RET

// The IQ2 and IQ3 kernels take (w *byte, x *q8KBlock, n int, grid, signs)
// with grid the type's table of magnitudes (quant.IQ3SGrid, ...) and signs
// iqSignMasks, and return
// dotK's float32: per super-block, the eight int32 lanes of dotLanesK
// (each 32-element chunk: grid magnitudes looked up by index, the
// activations negated where the sign bit is set, vpmaddubsw, then
// vpmaddwd with the odd group scales), scaled by d with one fused
// multiply-add per lane, the lanes added as hsum8 and the sum multiplied
// by the type's constant factor.

// iqSignShuf and iqBitSel turn a 32-bit sign word (bit i for element i of
// a chunk), broadcast to every dword, into a byte mask: byte i keeps byte
// i/8 of the word (iqSignShuf), then is compared with bit i%8 (iqBitSel).
DATA iqSignShuf<>+0(SB)/8, $0x0000000000000000
DATA iqSignShuf<>+8(SB)/8, $0x0101010101010101
DATA iqSignShuf<>+16(SB)/8, $0x0202020202020202
DATA iqSignShuf<>+24(SB)/8, $0x0303030303030303
GLOBL iqSignShuf<>(SB), RODATA|NOPTR, $32

DATA iqBitSel<>+0(SB)/8, $0x8040201008040201
DATA iqBitSel<>+8(SB)/8, $0x8040201008040201
DATA iqBitSel<>+16(SB)/8, $0x8040201008040201
DATA iqBitSel<>+24(SB)/8, $0x8040201008040201
GLOBL iqBitSel<>(SB), RODATA|NOPTR, $32

// iq2xsSignShuf is iqSignShuf for signs held in bytes 0, 2, 4, 6 (the low
// bytes of the four IQ2_XS words of a chunk).
DATA iq2xsSignShuf<>+0(SB)/8, $0x0000000000000000
DATA iq2xsSignShuf<>+8(SB)/8, $0x0202020202020202
DATA iq2xsSignShuf<>+16(SB)/8, $0x0404040404040404
DATA iq2xsSignShuf<>+24(SB)/8, $0x0606060606060606
GLOBL iq2xsSignShuf<>(SB), RODATA|NOPTR, $32

// iqParity holds, for each nibble value i, 0x80 if i has an odd number of
// set bits, else 0.
DATA iqParity<>+0(SB)/8, $0x8000008000808000
DATA iqParity<>+8(SB)/8, $0x0080800080000080
GLOBL iqParity<>(SB), RODATA|NOPTR, $16

// iq3sShift moves bit k of an IQ3_S qh byte to bit 8 of dword k (shifted
// left by 8-k); iq2sShift moves bits 2k, 2k+1 of an IQ2_S qh byte to bits
// 8, 9 of dword k (shifted left by 8-2k).
DATA iq3sShift<>+0(SB)/8, $0x0000000700000008
DATA iq3sShift<>+8(SB)/8, $0x0000000500000006
DATA iq3sShift<>+16(SB)/8, $0x0000000300000004
DATA iq3sShift<>+24(SB)/8, $0x0000000100000002
GLOBL iq3sShift<>(SB), RODATA|NOPTR, $32

DATA iq2sShift<>+0(SB)/8, $0x0000000600000008
DATA iq2sShift<>+8(SB)/8, $0x0000000200000004
GLOBL iq2sShift<>(SB), RODATA|NOPTR, $16

// SIGNMASK leaves in Y4 0xff in the bytes whose bit of the 32-bit sign
// word in R is set, 0 elsewhere. Y13 holds iqSignShuf, Y12 iqBitSel.
#define SIGNMASK(R) \
	VMOVD        R, X4; \
	VPBROADCASTD X4, Y4; \
	VPSHUFB      Y13, Y4, Y4; \
	VPAND        Y12, Y4, Y4; \
	VPCMPEQB     Y12, Y4, Y4

// SIGN64(S, R) leaves in R the byte mask of the 7-bit sign field at bits
// S..S+6 of DX, from the table of sign masks at R9. Uses AX.
#define SIGN64(S, R) \
	MOVL DX, AX; \
	SHRL $S, AX; \
	ANDL $127, AX; \
	MOVQ (R9)(AX*8), R

// SCALE1 leaves in Y6 the odd scale 2s+1 of the 4-bit field s in AX (bits
// SH..SH+3) in every int16 word.
#define SCALE1(SH) \
	SHRL         $SH, AX; \
	ANDL         $15, AX; \
	LEAL         1(AX)(AX*1), AX; \
	VMOVD        AX, X6; \
	VPBROADCASTW X6, Y6

// SCALES16 leaves in Y7 and Y8 the odd scales of the 16 groups of 16 of
// an IQ2_XS or IQ2_S super-block, from the 4-bit fields in the nibbles of
// the eight bytes at OFF(SI) (low nibble first) as int16 words: groups 0..7
// in both 128-bit lanes of Y7, groups 8..15 in both lanes of Y8, so that
// pairShuf+32(c%4) spreads the two of chunk c over its halves. Uses X6.
#define SCALES16(OFF) \
	VMOVQ       OFF(SI), X6; \
	VPSRLW      $4, X6, X7; \
	VPAND       kb0f<>(SB), X6, X6; \
	VPAND       kb0f<>(SB), X7, X7; \
	VPUNPCKLBW  X7, X6, X6; \
	VPADDB      X6, X6, X6; \
	VPCMPEQB    X7, X7, X7; \
	VPSUBB      X7, X6, X6; \
	VPMOVZXBW   X6, Y6; \
	VPERMQ      $0x44, Y6, Y7; \
	VPERMQ      $0xee, Y6, Y8

// IQCHUNK adds to Y11 the scaled products of one chunk of 32: magnitudes
// in G (clobbered), activations at XO(DI), signs in Y4, scales in Y6.
#define IQCHUNK(G, XO) \
	VMOVDQU    XO(DI), Y5; \
	VPXOR      Y4, Y5, Y5; \
	VPSUBB     Y4, Y5, Y5; \
	VPMADDUBSW Y5, G, G; \
	VPMADDWD   Y6, G, G; \
	VPADDD     G, Y11, Y11

// IQSTART loads an IQ kernel's arguments (w to SI, x to DI, n to CX, grid
// to R8), clears the float32 accumulators Y0 and loads the sign constants:
// SHUF (iqSignShuf, or iq2xsSignShuf) to Y13, iqBitSel to Y12, and the
// sign masks (iqSignMasks) to R9.
#define IQSTART(SHUF) \
	MOVQ    signs+32(FP), R9; \
	MOVQ    w+0(FP), SI; \
	MOVQ    x+8(FP), DI; \
	MOVQ    n+16(FP), CX; \
	MOVQ    grid+24(FP), R8; \
	VXORPS  Y0, Y0, Y0; \
	VMOVDQU SHUF, Y13; \
	VMOVDQU iqBitSel<>(SB), Y12

// IQSUM leaves in X0 the lanes of Y0 added as hsum8, times the float32
// whose bits are K, and clears the upper halves of the registers.
#define IQSUM(K) \
	HSUM8; \
	MOVL       $K, AX; \
	VMOVD      AX, X1; \
	VMULSS     X1, X0, X0; \
	VZEROUPPER

// LOOK4 leaves in X the four 32-bit grid entries (at R8) whose indices are
// loaded by LD (MOVBLZX for bytes, MOVL for dwords) from OFF(B) on, ST
// bytes apart. It replaces a gather, which is slower on some CPUs. Uses
// AX.
#define LOOK4(OFF, B, LD, ST, X) \
	LD      OFF(B), AX; \
	MOVL    (R8)(AX*4), AX; \
	VMOVD   AX, X; \
	LD      OFF+ST(B), AX; \
	MOVL    (R8)(AX*4), AX; \
	VPINSRD $1, AX, X, X; \
	LD      OFF+2*ST(B), AX; \
	MOVL    (R8)(AX*4), AX; \
	VPINSRD $2, AX, X, X; \
	LD      OFF+3*ST(B), AX; \
	MOVL    (R8)(AX*4), AX; \
	VPINSRD $3, AX, X, X

// LOOKQ4 leaves in Y2 the four 64-bit grid entries (at R8) whose indices
// are loaded by LD from OFF(B) on, ST bytes apart, as LOOK4 does. Uses AX
// and X3.
#define LOOKQ4(OFF, B, LD, ST) \
	LD          OFF(B), AX; \
	MOVQ        (R8)(AX*8), AX; \
	VMOVQ       AX, X2; \
	LD          OFF+ST(B), AX; \
	MOVQ        (R8)(AX*8), AX; \
	VPINSRQ     $1, AX, X2, X2; \
	LD          OFF+2*ST(B), AX; \
	MOVQ        (R8)(AX*8), AX; \
	VMOVQ       AX, X3; \
	LD          OFF+3*ST(B), AX; \
	MOVQ        (R8)(AX*8), AX; \
	VPINSRQ     $1, AX, X3, X3; \
	VINSERTI128 $1, X3, Y2, Y2

// HIGHBITS ors into the grid indices IDX (dwords; X or Y registers) their
// high bits from the byte at QH(SI): broadcast to V (X2 or Y2), shifted
// left by the counts in SH and masked by MASK (of the same width). Uses AX.
#define HIGHBITS(QH, V, SH, MASK, IDX) \
	MOVBLZX      QH(SI), AX; \
	VMOVD        AX, X2; \
	VPBROADCASTD X2, V; \
	VPSLLVD      SH, V, V; \
	VPAND        MASK, V, V; \
	VPOR         V, IDX, IDX

// AUXCHUNK finishes a chunk of IQ3_XXS or IQ2_XXS, whose magnitudes are
// in Y2 and whose word of four 7-bit sign fields and 4-bit scale (bits
// 28..31) is in DX, with IQCHUNK.
#define AUXCHUNK(XO) \
	SIGN64(0, R10); \
	SIGN64(7, R11); \
	VMOVQ       R10, X4; \
	VPINSRQ     $1, R11, X4, X4; \
	SIGN64(14, R10); \
	SIGN64(21, R11); \
	VMOVQ       R10, X5; \
	VPINSRQ     $1, R11, X5, X5; \
	VINSERTI128 $1, X5, Y4, Y4; \
	MOVL DX, AX; \
	SCALE1(28); \
	IQCHUNK(Y2, XO)

// IQ3SCHUNK: chunk c of an IQ3_S super-block, with QS = 2+8c, QH = 66+c,
// SG = 74+4c, SC = 106+c/2, SH = 4·(c%2), XO = 4+32c. Y14 holds
// iq3sShift, Y15 dwords of 256, R8 the grid.
#define IQ3SCHUNK(QS, QH, SG, SC, SH, XO) \
	VPMOVZXBD    QS(SI), Y1; \
	HIGHBITS(QH, Y2, Y14, Y15, Y1); \
	VMOVDQU      Y1, (SP); \
	LOOK4(0, SP, MOVL, 4, X2); \
	LOOK4(16, SP, MOVL, 4, X3); \
	VINSERTI128  $1, X3, Y2, Y2; \
	MOVL         SG(SI), AX; \
	SIGNMASK(AX); \
	MOVBLZX      SC(SI), AX; \
	SCALE1(SH); \
	IQCHUNK(Y2, XO)

// func dotIQ3SAVX2(w *byte, x *q8KBlock, n int, grid, signs unsafe.Pointer) float32
TEXT ·dotIQ3SAVX2(SB), NOSPLIT, $32-44
	IQSTART(iqSignShuf<>(SB))
	VMOVDQU      iq3sShift<>(SB), Y14
	MOVL         $256, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, Y15

iq3sloop:
	VPXOR Y11, Y11, Y11
	IQ3SCHUNK(2, 66, 74, 106, 0, 4)
	IQ3SCHUNK(10, 67, 78, 106, 4, 36)
	IQ3SCHUNK(18, 68, 82, 107, 0, 68)
	IQ3SCHUNK(26, 69, 86, 107, 4, 100)
	IQ3SCHUNK(34, 70, 90, 108, 0, 132)
	IQ3SCHUNK(42, 71, 94, 108, 4, 164)
	IQ3SCHUNK(50, 72, 98, 109, 0, 196)
	IQ3SCHUNK(58, 73, 102, 109, 4, 228)
	DSCALE(0)
	LANESFMA
	NEXTBLOCK(110, iq3sloop)

	IQSUM(0x3f800000) // 1
	VMOVSS X0, ret+40(FP)
	RET

// IQ3XXSCHUNK: chunk c of an IQ3_XXS super-block, with QS = 2+8c, AUX =
// 66+4c (the signs and scale), XO = 4+32c. R8 holds the grid.
#define IQ3XXSCHUNK(QS, AUX, XO) \
	LOOK4(QS, SI, MOVBLZX, 1, X2); \
	LOOK4(QS+4, SI, MOVBLZX, 1, X3); \
	VINSERTI128 $1, X3, Y2, Y2; \
	MOVL       AUX(SI), DX; \
	AUXCHUNK(XO)

// func dotIQ3XXSAVX2(w *byte, x *q8KBlock, n int, grid, signs unsafe.Pointer) float32
TEXT ·dotIQ3XXSAVX2(SB), NOSPLIT, $0-44
	IQSTART(iqSignShuf<>(SB))

iq3xxsloop:
	VPXOR Y11, Y11, Y11
	IQ3XXSCHUNK(2, 66, 4)
	IQ3XXSCHUNK(10, 70, 36)
	IQ3XXSCHUNK(18, 74, 68)
	IQ3XXSCHUNK(26, 78, 100)
	IQ3XXSCHUNK(34, 82, 132)
	IQ3XXSCHUNK(42, 86, 164)
	IQ3XXSCHUNK(50, 90, 196)
	IQ3XXSCHUNK(58, 94, 228)
	DSCALE(0)
	LANESFMA
	NEXTBLOCK(98, iq3xxsloop)

	IQSUM(0x3e800000) // 0.25
	VMOVSS X0, ret+40(FP)
	RET

// IQ2XXSCHUNK: chunk c of an IQ2_XXS super-block, with IDX = 2+8c (four
// grid indices, then the signs and scale), XO = 4+32c. R8 holds the grid.
#define IQ2XXSCHUNK(IDX, XO) \
	LOOKQ4(IDX, SI, MOVBLZX, 1); \
	MOVL       IDX+4(SI), DX; \
	AUXCHUNK(XO)

// func dotIQ2XXSAVX2(w *byte, x *q8KBlock, n int, grid, signs unsafe.Pointer) float32
TEXT ·dotIQ2XXSAVX2(SB), NOSPLIT, $0-44
	IQSTART(iqSignShuf<>(SB))

iq2xxsloop:
	VPXOR Y11, Y11, Y11
	IQ2XXSCHUNK(2, 4)
	IQ2XXSCHUNK(10, 36)
	IQ2XXSCHUNK(18, 68)
	IQ2XXSCHUNK(26, 100)
	IQ2XXSCHUNK(34, 132)
	IQ2XXSCHUNK(42, 164)
	IQ2XXSCHUNK(50, 196)
	IQ2XXSCHUNK(58, 228)
	DSCALE(0)
	LANESFMA
	NEXTBLOCK(66, iq2xxsloop)

	IQSUM(0x3e000000) // 0.125
	VMOVSS X0, ret+40(FP)
	RET

// IQ2XSCHUNK: chunk c of an IQ2_XS super-block, with QS = 2+8c (four
// uint16 of grid index and signs), SC = pairShuf+32(c%4) and H = Y7 (c < 4)
// or Y8 (the scales), XO = 4+32c. X15 holds dwords of 511, X14 iqParity,
// Y13 iq2xsSignShuf, Y12 iqBitSel, R8 the grid. The sign fields (the words
// shifted right by 9) get their parity bit from the low nibble of f ^ f>>4,
// then byte 2l of the words, the signs of group l, spreads over its 8
// bytes.
#define IQ2XSCHUNK(QS, SC, H, XO) \
	VMOVQ        QS(SI), X1; \
	VPSRLW       $9, X1, X2; \
	VPSRLW       $4, X2, X4; \
	VPXOR        X2, X4, X4; \
	VPSHUFB      X4, X14, X4; \
	VPOR         X4, X2, X2; \
	VPBROADCASTQ X2, Y4; \
	VPSHUFB      Y13, Y4, Y4; \
	VPAND        Y12, Y4, Y4; \
	VPCMPEQB     Y12, Y4, Y4; \
	VPMOVZXWD    X1, X1; \
	VPAND        X15, X1, X1; \
	VMOVDQU      X1, (SP); \
	LOOKQ4(0, SP, MOVL, 4); \
	VPSHUFB      SC, H, Y6; \
	IQCHUNK(Y2, XO)

// func dotIQ2XSAVX2(w *byte, x *q8KBlock, n int, grid, signs unsafe.Pointer) float32
TEXT ·dotIQ2XSAVX2(SB), NOSPLIT, $16-44
	IQSTART(iq2xsSignShuf<>(SB))
	VMOVDQU      iqParity<>(SB), X14
	MOVL         $511, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, X15

iq2xsloop:
	VPXOR    Y11, Y11, Y11
	SCALES16(66)
	IQ2XSCHUNK(2, pairShuf<>+0(SB), Y7, 4)
	IQ2XSCHUNK(10, pairShuf<>+32(SB), Y7, 36)
	IQ2XSCHUNK(18, pairShuf<>+64(SB), Y7, 68)
	IQ2XSCHUNK(26, pairShuf<>+96(SB), Y7, 100)
	IQ2XSCHUNK(34, pairShuf<>+0(SB), Y8, 132)
	IQ2XSCHUNK(42, pairShuf<>+32(SB), Y8, 164)
	IQ2XSCHUNK(50, pairShuf<>+64(SB), Y8, 196)
	IQ2XSCHUNK(58, pairShuf<>+96(SB), Y8, 228)
	DSCALE(0)
	LANESFMA
	NEXTBLOCK(74, iq2xsloop)

	IQSUM(0x3e000000) // 0.125
	VMOVSS X0, ret+40(FP)
	RET

// IQ2SCHUNK: chunk c of an IQ2_S super-block, with QS = 2+4c, SG = 34+4c,
// QH = 66+c, SC and H the scales as in IQ2XSCHUNK, XO = 4+32c. X14 holds
// iq2sShift, X15 dwords of 0x300, R8 the grid.
#define IQ2SCHUNK(QS, SG, QH, SC, H, XO) \
	VPMOVZXBD    QS(SI), X1; \
	HIGHBITS(QH, X2, X14, X15, X1); \
	VMOVDQU      X1, (SP); \
	LOOKQ4(0, SP, MOVL, 4); \
	MOVL         SG(SI), AX; \
	SIGNMASK(AX); \
	VPSHUFB      SC, H, Y6; \
	IQCHUNK(Y2, XO)

// func dotIQ2SAVX2(w *byte, x *q8KBlock, n int, grid, signs unsafe.Pointer) float32
TEXT ·dotIQ2SAVX2(SB), NOSPLIT, $16-44
	IQSTART(iqSignShuf<>(SB))
	VMOVDQU      iq2sShift<>(SB), X14
	MOVL         $0x300, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, X15

iq2sloop:
	VPXOR    Y11, Y11, Y11
	SCALES16(74)
	IQ2SCHUNK(2, 34, 66, pairShuf<>+0(SB), Y7, 4)
	IQ2SCHUNK(6, 38, 67, pairShuf<>+32(SB), Y7, 36)
	IQ2SCHUNK(10, 42, 68, pairShuf<>+64(SB), Y7, 68)
	IQ2SCHUNK(14, 46, 69, pairShuf<>+96(SB), Y7, 100)
	IQ2SCHUNK(18, 50, 70, pairShuf<>+0(SB), Y8, 132)
	IQ2SCHUNK(22, 54, 71, pairShuf<>+32(SB), Y8, 164)
	IQ2SCHUNK(26, 58, 72, pairShuf<>+64(SB), Y8, 196)
	IQ2SCHUNK(30, 62, 73, pairShuf<>+96(SB), Y8, 228)
	DSCALE(0)
	LANESFMA
	NEXTBLOCK(82, iq2sloop)

	IQSUM(0x3e000000) // 0.125
	VMOVSS X0, ret+40(FP)
	RET
