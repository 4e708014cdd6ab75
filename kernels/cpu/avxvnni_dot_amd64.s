#include "textflag.h"
#include "avxvnni_amd64.h"
#include "q8tile_amd64.h"
#include "gemv_amd64.h"

// AVX-VNNI kernels: the AVX2 kernels (avx2_k_amd64.s, avx2_tile_amd64.s,
// avx2_gemv_amd64.s, avx2_q8_amd64.s, avx2_ftile_amd64.s) with, for Q4_K
// and Q6_K, each vpmaddwd of scales and its vpaddd into the int32 lanes
// fused into one VEX vpdpwssd (VNNI_DPWSSD), and for Q8_0 the vpmaddubsw
// and vpmaddwd of ones fused into one vpdpbusd (VNNI_DPBUSD). The products
// are the same integers in the same lanes, added exactly, so every lane,
// and so every float operation after it, is the AVX2 kernel's (and the
// oracle's). Register arguments of the VNNI macros are Y register numbers.

// vb0f is 0x0f in every byte, vb30 0x30, vb10 0x10.
DATA vb0f<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA vb0f<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA vb0f<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA vb0f<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL vb0f<>(SB), RODATA|NOPTR, $32

DATA vb30<>+0(SB)/8, $0x3030303030303030
DATA vb30<>+8(SB)/8, $0x3030303030303030
DATA vb30<>+16(SB)/8, $0x3030303030303030
DATA vb30<>+24(SB)/8, $0x3030303030303030
GLOBL vb30<>(SB), RODATA|NOPTR, $32

DATA vb10<>+0(SB)/8, $0x1010101010101010
DATA vb10<>+8(SB)/8, $0x1010101010101010
DATA vb10<>+16(SB)/8, $0x1010101010101010
DATA vb10<>+24(SB)/8, $0x1010101010101010
GLOBL vb10<>(SB), RODATA|NOPTR, $32

// vOnes16 is 1 in every int16 word.
DATA vOnes16<>+0(SB)/8, $0x0001000100010001
DATA vOnes16<>+8(SB)/8, $0x0001000100010001
DATA vOnes16<>+16(SB)/8, $0x0001000100010001
DATA vOnes16<>+24(SB)/8, $0x0001000100010001
GLOBL vOnes16<>(SB), RODATA|NOPTR, $32

DATA vb80<>+0(SB)/8, $0x8080808080808080
DATA vb80<>+8(SB)/8, $0x8080808080808080
DATA vb80<>+16(SB)/8, $0x8080808080808080
DATA vb80<>+24(SB)/8, $0x8080808080808080
GLOBL vb80<>(SB), RODATA|NOPTR, $32

// vPairShuf+32c (c = 0..3) spreads int16 words 2c and 2c+1 of a register
// holding the same eight words in both 128-bit lanes: word 2c over the
// low lane, word 2c+1 over the high lane. With the 16 group scales of a
// super-block split into words 0..7 and 8..15, it gives the scales of the
// two groups of 16 in one chunk of 32.
DATA vPairShuf<>+0(SB)/8, $0x0100010001000100
DATA vPairShuf<>+8(SB)/8, $0x0100010001000100
DATA vPairShuf<>+16(SB)/8, $0x0302030203020302
DATA vPairShuf<>+24(SB)/8, $0x0302030203020302
DATA vPairShuf<>+32(SB)/8, $0x0504050405040504
DATA vPairShuf<>+40(SB)/8, $0x0504050405040504
DATA vPairShuf<>+48(SB)/8, $0x0706070607060706
DATA vPairShuf<>+56(SB)/8, $0x0706070607060706
DATA vPairShuf<>+64(SB)/8, $0x0908090809080908
DATA vPairShuf<>+72(SB)/8, $0x0908090809080908
DATA vPairShuf<>+80(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA vPairShuf<>+88(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA vPairShuf<>+96(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA vPairShuf<>+104(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA vPairShuf<>+112(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA vPairShuf<>+120(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL vPairShuf<>(SB), RODATA|NOPTR, $128

// vWordBcast+32j (j = 0..7) spreads int16 word j over the whole register
// (which holds the same eight words in both lanes): the scale of Q4_K and
// Q5_K sub-block j.
DATA vWordBcast<>+0(SB)/8, $0x0100010001000100
DATA vWordBcast<>+8(SB)/8, $0x0100010001000100
DATA vWordBcast<>+16(SB)/8, $0x0100010001000100
DATA vWordBcast<>+24(SB)/8, $0x0100010001000100
DATA vWordBcast<>+32(SB)/8, $0x0302030203020302
DATA vWordBcast<>+40(SB)/8, $0x0302030203020302
DATA vWordBcast<>+48(SB)/8, $0x0302030203020302
DATA vWordBcast<>+56(SB)/8, $0x0302030203020302
DATA vWordBcast<>+64(SB)/8, $0x0504050405040504
DATA vWordBcast<>+72(SB)/8, $0x0504050405040504
DATA vWordBcast<>+80(SB)/8, $0x0504050405040504
DATA vWordBcast<>+88(SB)/8, $0x0504050405040504
DATA vWordBcast<>+96(SB)/8, $0x0706070607060706
DATA vWordBcast<>+104(SB)/8, $0x0706070607060706
DATA vWordBcast<>+112(SB)/8, $0x0706070607060706
DATA vWordBcast<>+120(SB)/8, $0x0706070607060706
DATA vWordBcast<>+128(SB)/8, $0x0908090809080908
DATA vWordBcast<>+136(SB)/8, $0x0908090809080908
DATA vWordBcast<>+144(SB)/8, $0x0908090809080908
DATA vWordBcast<>+152(SB)/8, $0x0908090809080908
DATA vWordBcast<>+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA vWordBcast<>+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA vWordBcast<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA vWordBcast<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA vWordBcast<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA vWordBcast<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA vWordBcast<>+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA vWordBcast<>+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA vWordBcast<>+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA vWordBcast<>+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA vWordBcast<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA vWordBcast<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL vWordBcast<>(SB), RODATA|NOPTR, $256

// vMinDup turns eight int16 words m0..m7 (in both lanes) into m0, m0, m1,
// m1, ..., m7, m7: the minimum of each group of 16 of a Q4_K or Q5_K
// super-block, to multiply with the activations' 16 block sums.
DATA vMinDup<>+0(SB)/8, $0x0302030201000100
DATA vMinDup<>+8(SB)/8, $0x0706070605040504
DATA vMinDup<>+16(SB)/8, $0x0b0a0b0a09080908
DATA vMinDup<>+24(SB)/8, $0x0f0e0f0e0d0c0d0c
GLOBL vMinDup<>(SB), RODATA|NOPTR, $32

// vkscA, vkscB, vkscShift and vkscMask split the 12 packed bytes b0..b11
// of the Q4_K scales and minimums in each 128-bit lane: vkscA picks
// b0..3, b8..11, b4..7, b8..11 (the low bits of s0..3, s4..7, m0..3,
// m4..7: shifted right by vkscShift and masked by vkscMask), vkscB picks
// b0..3 and b4..7 into the second and fourth words (their top two bits
// are the high bits of s4..7 and m4..7).
DATA vkscA<>+0(SB)/8, $0x0b0a090803020100
DATA vkscA<>+8(SB)/8, $0x0b0a090807060504
DATA vkscA<>+16(SB)/8, $0x0b0a090803020100
DATA vkscA<>+24(SB)/8, $0x0b0a090807060504
GLOBL vkscA<>(SB), RODATA|NOPTR, $32

DATA vkscB<>+0(SB)/8, $0x0302010080808080
DATA vkscB<>+8(SB)/8, $0x0706050480808080
DATA vkscB<>+16(SB)/8, $0x0302010080808080
DATA vkscB<>+24(SB)/8, $0x0706050480808080
GLOBL vkscB<>(SB), RODATA|NOPTR, $32

DATA vkscShift<>+0(SB)/8, $0
DATA vkscShift<>+8(SB)/8, $0x0000000400000000
DATA vkscShift<>+16(SB)/8, $0
DATA vkscShift<>+24(SB)/8, $0x0000000400000000
GLOBL vkscShift<>(SB), RODATA|NOPTR, $32
DATA vkscMask<>+0(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA vkscMask<>+8(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA vkscMask<>+16(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA vkscMask<>+24(SB)/8, $0x0f0f0f0f3f3f3f3f
GLOBL vkscMask<>(SB), RODATA|NOPTR, $32

// TARGS loads the tile description at a+0(FP): R8 the first weight row,
// R12 wstride, R13 the first activation row, R9 xstride, R10 3·xstride,
// R14 n, BX the first output, R11 4·ostride.
#define TARGS \
	MOVQ a+0(FP), AX; \
	MOVQ 0(AX), R8; \
	MOVQ 8(AX), R12; \
	MOVQ 16(AX), R13; \
	MOVQ 24(AX), R9; \
	LEAQ (R9)(R9*2), R10; \
	MOVQ 32(AX), R14; \
	MOVQ 40(AX), BX; \
	MOVQ 48(AX), R11; \
	SHLQ $2, R11

// TILEARGS loads the tile description (TARGS) and the weight row count.
#define TILEARGS \
	TARGS; \
	MOVQ rows+8(FP), DX

// FTARGS loads a Q8_0 tile description (TARGS): SI the first weight row,
// DI the first activation row, CX n.
#define FTARGS \
	TARGS; \
	MOVQ R8, SI; \
	MOVQ R13, DI; \
	MOVQ R14, CX

// Single-row kernels (avx2_k_amd64.s): (w *byte, x *q8KBlock, n int, gemm
// bool) with n ≥ 1. Q8_K blocks: d at 0, q[256] at 4, bsum[16] (int16) at
// 260, 292 bytes in all.

// HSUM8 leaves in X0 the sum of Y0's eight float32 lanes in hsum8's
// order: high half onto low half, lanes 0+2 and 1+3, then the two.
#define HSUM8 \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VMOVHLPS     X0, X0, X1; \
	VADDPS       X1, X0, X0; \
	VMOVSHDUP    X0, X1; \
	VADDSS       X1, X0, X0

// HSUM8R leaves in X0 the sum of ACC's eight float32 lanes (ACC not Y0
// or Y1; XACC its low half) in hsum8's order: high half onto low half,
// lanes 0+2 and 1+3, then the two. Uses X1.
#define HSUM8R(ACC, XACC) \
	VEXTRACTF128 $1, ACC, X0; \
	VADDPS       X0, XACC, X0; \
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

// KSCALES decodes the Q4_K scales and minimums at OFF(SI): Y3 holds the
// scales s0..s7 as int16 words in both lanes, Y2 the int32 lanes
// m_j·(bsum[2j]+bsum[2j+1]) of the minimums with the activations' sums.
// Uses Y1, Y4, Y5.
#define KSCALES(OFF) \
	VMOVDQU   OFF(SI), X1; \
	VPSHUFB   vkscB<>(SB), X1, X5; \
	VPSHUFB   vkscA<>(SB), X1, X1; \
	VPSRLVD   vkscShift<>(SB), X1, X1; \
	VPAND     vkscMask<>(SB), X1, X1; \
	VPSRLD    $2, X5, X5; \
	VPAND     vb30<>(SB), X5, X5; \
	VPOR      X5, X1, X1; \
	VPMOVZXBW X1, Y1; \
	VPERMQ    $0x44, Y1, Y3; \
	VPERMQ    $0xee, Y1, Y4; \
	VPSHUFB   vMinDup<>(SB), Y4, Y4; \
	VPMADDWD  260(DI), Y4, Y2

// SCALED multiplies the unsigned quants in Q (register number QN) with
// the 32 activations at XO(DI) and adds the int16 pairs, scaled by the
// words in SC shuffled by SH, to the int32 lanes of register number ACC.
// Uses Y10.
#define SCALED(Q, QN, XO, SH, SC, ACC) \
	VPMADDUBSW XO(DI), Q, Q; \
	VPSHUFB    SH, SC, Y10; \
	VNNI_DPWSSD(10, QN, ACC)

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
	SCALED(Y8, 8, XO, vPairShuf<>+0(SB), SC, 11); \
	VPAND   Y15, Y6, Y8; \
	VPSLLW  $2, Y7, Y9; \
	VPAND   Y14, Y9, Y9; \
	VPOR    Y9, Y8, Y8; \
	SCALED(Y8, 8, XO+32, vPairShuf<>+32(SB), SC, 11); \
	VPSRLW  $4, Y5, Y8; \
	VPAND   Y15, Y8, Y8; \
	VPAND   Y14, Y7, Y9; \
	VPOR    Y9, Y8, Y8; \
	SCALED(Y8, 8, XO+64, vPairShuf<>+64(SB), SC, 11); \
	VPSRLW  $4, Y6, Y8; \
	VPAND   Y15, Y8, Y8; \
	VPSRLW  $2, Y7, Y9; \
	VPAND   Y14, Y9, Y9; \
	VPOR    Y9, Y8, Y8; \
	SCALED(Y8, 8, XO+96, vPairShuf<>+96(SB), SC, 11)

// func dotQ6KVNNI(w *byte, x *q8KBlock, n int, gemm bool) float32
TEXT ·dotQ6KVNNI(SB), NOSPLIT, $0-36
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    n+16(FP), CX
	VXORPS  Y0, Y0, Y0
	VMOVDQU vb0f<>(SB), Y15
	VMOVDQU vb30<>(SB), Y14

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

// Q4PAIR leaves in ACC (register number ACCN) the scaled int32 products
// of sub-blocks 2p and 2p+1 of a Q4_K super-block: nibbles at QS(SI),
// activations from XO(DI), scales in Y3 picked by vWordBcast+BC. Y15
// holds 0x0f bytes. Uses Y5, Y8, Y9, Y10.
#define Q4PAIR(QS, XO, BC, ACC, ACCN) \
	VMOVDQU    QS(SI), Y5; \
	VPAND      Y15, Y5, Y8; \
	VPMADDUBSW XO(DI), Y8, Y8; \
	VPSHUFB    vWordBcast<>+BC(SB), Y3, Y10; \
	VPMADDWD   Y10, Y8, ACC; \
	VPSRLW     $4, Y5, Y9; \
	VPAND      Y15, Y9, Y9; \
	SCALED(Y9, 9, XO+32, vWordBcast<>+BC+32(SB), Y3, ACCN)

// SCALED4 adds to Y11 the scaled int32 products of sub-blocks 2p and 2p+1
// of a Q4_K super-block, as Q4PAIR. Uses Y5, Y8, Y9, Y10.
#define SCALED4(QS, XO, BC) \
	VMOVDQU QS(SI), Y5; \
	VPAND   Y15, Y5, Y8; \
	SCALED(Y8, 8, XO, vWordBcast<>+BC(SB), Y3, 11); \
	VPSRLW  $4, Y5, Y9; \
	VPAND   Y15, Y9, Y9; \
	SCALED(Y9, 9, XO+32, vWordBcast<>+BC+32(SB), Y3, 11)

// func dotQ4KVNNI(w *byte, x *q8KBlock, n int, gemm bool) float32
TEXT ·dotQ4KVNNI(SB), NOSPLIT, $0-36
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    n+16(FP), CX
	MOVBLZX gemm+24(FP), R11
	VXORPS  X0, X0, X0 // [acc, accMin, 0, 0]
	VMOVDQU vb0f<>(SB), Y15
	TESTQ   R11, R11
	JNZ     q4gemm

	// gemv: one chunk per super-block.
q4loop:
	KSCALES(4)
	Q4PAIR(16, 4, 0, Y11, 11)
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
	Q4PAIR(16, 4, 0, Y6, 6)
	Q4PAIR(48, 68, 64, Y7, 7)
	Q4PAIR(80, 132, 128, Y11, 11)
	Q4PAIR(112, 196, 192, Y12, 12)
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


// Q5PAIR adds to Y11 the scaled products of sub-blocks 2p and 2p+1 of a
// Q5_K super-block: low nibbles at QS(SI), the fifth bits in Y7 (bits 2p
// and 2p+1 of each byte, moved to bit 4 by SH0 $N0 and SH1 $N1; bits
// crossing into the neighbouring byte are masked off), activations from
// XO(DI), scales in Y3 picked by vWordBcast+BC. Y15 holds 0x0f bytes, Y14
// 0x10 bytes.
#define Q5PAIR(QS, XO, BC, SH0, N0, SH1, N1) \
	VMOVDQU QS(SI), Y5; \
	VPAND   Y15, Y5, Y8; \
	SH0     $N0, Y7, Y9; \
	VPAND   Y14, Y9, Y9; \
	VPOR    Y9, Y8, Y8; \
	SCALED(Y8, 8, XO, vWordBcast<>+BC(SB), Y3, 11); \
	VPSRLW  $4, Y5, Y8; \
	VPAND   Y15, Y8, Y8; \
	SH1     $N1, Y7, Y9; \
	VPAND   Y14, Y9, Y9; \
	VPOR    Y9, Y8, Y8; \
	SCALED(Y8, 8, XO+32, vWordBcast<>+BC+32(SB), Y3, 11)

// IHSUM2 leaves in X2's lanes the sum of Y2's eight int32 lanes. Uses X5.
#define IHSUM2 \
	VEXTRACTI128 $1, Y2, X5; \
	VPADDD       X5, X2, X2; \
	VPSHUFD      $0x4e, X2, X5; \
	VPADDD       X5, X2, X2; \
	VPSHUFD      $0xb1, X2, X5; \
	VPADDD       X5, X2, X2

// func dotQ5KVNNI(w *byte, x *q8KBlock, n int, gemm bool) float32
TEXT ·dotQ5KVNNI(SB), NOSPLIT, $0-36
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    n+16(FP), CX
	VXORPS  Y0, Y0, Y0
	VXORPS  X12, X12, X12 // the minimums' accumulator
	VMOVDQU vb0f<>(SB), Y15
	VMOVDQU vb10<>(SB), Y14

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

// Tile kernels (avx2_tile_amd64.s): a *tileArgs (w @0, wstride @8, x @16,
// xstride @24, n @32, out @40, ostride @48, gemm @56) and the number of
// weight rows, run over the weight rows against four activation rows.
// Registers: R8 the current weight row, R12 wstride, R13 the first
// activation row, R9 xstride, R10 3·xstride, R14 n, BX the current row's
// first output, R11 4·ostride, DX the weight rows left, SI and DI the
// weight and activation cursors, CX the super-blocks left.

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

// Q4DOT leaves in DST (register number DSTN) the scaled int32 products of
// one chunk (sub-blocks 2p and 2p+1: low nibbles in Y0, high nibbles in
// Y1) with the activations at A0 and A1 (32 each), the scales broadcast in
// Y10 and Y11. Uses Y2.
#define Q4DOT(A0, A1, DST, DSTN) \
	VPMADDUBSW A0, Y0, Y2; \
	VPMADDWD   Y10, Y2, DST; \
	VPMADDUBSW A1, Y1, Y2; \
	VNNI_DPWSSD(11, 2, DSTN)

// Q4CHUNK leaves in RP the integer sums of chunk p (64 elements: nibbles
// at QS(SI), activations at XO in each row, scales picked from Y14 by
// vWordBcast+BC and +BC+32) for the four activation rows: RP's low lane
// holds the sums of the low four int32 lanes for rows 0..3, its high lane
// those of the high four. Y15 holds 0x0f bytes. Uses Y0..Y5, Y10, Y11.
#define Q4CHUNK(QS, XO, BC, RP) \
	VMOVDQU QS(SI), Y0; \
	VPSHUFB vWordBcast<>+BC(SB), Y14, Y10; \
	VPSHUFB vWordBcast<>+BC+32(SB), Y14, Y11; \
	VPSRLW  $4, Y0, Y1; \
	VPAND   Y15, Y1, Y1; \
	VPAND   Y15, Y0, Y0; \
	Q4DOT(XO(DI), XO+32(DI), Y3, 3); \
	Q4DOT(XO(DI)(R9*1), XO+32(DI)(R9*1), Y4, 4); \
	VPHADDD Y4, Y3, Y3; \
	Q4DOT(XO(DI)(R9*2), XO+32(DI)(R9*2), Y4, 4); \
	Q4DOT(XO(DI)(R10*1), XO+32(DI)(R10*1), Y5, 5); \
	VPHADDD Y5, Y4, Y4; \
	VPHADDD Y4, Y3, RP

// func tileQ4KVNNI(a *tileArgs, rows int, gemm bool)
TEXT ·tileQ4KVNNI(SB), NOSPLIT, $0-17
	TILEARGS
	VMOVDQU vb0f<>(SB), Y15

q4trow:
	ROWSTART
	VXORPS Y12, Y12, Y12 // [acc | accMin], one lane per activation row

q4tblock:
	// The scales s0..s7 and minimums m0..m7 as bytes in X1 (scaleMinK4).
	VMOVDQU   4(SI), X1
	VPSHUFB   vkscB<>(SB), X1, X5
	VPSHUFB   vkscA<>(SB), X1, X1
	VPSRLVD   vkscShift<>(SB), X1, X1
	VPAND     vkscMask<>(SB), X1, X1
	VPSRLD    $2, X5, X5
	VPAND     vb30<>(SB), X5, X5
	VPOR      X5, X1, X1
	VPMOVZXBW X1, Y1
	VPERMQ    $0x44, Y1, Y14 // scales in both lanes
	VPERMQ    $0xee, Y1, Y13 // minimums in both lanes
	VPSHUFB   vMinDup<>(SB), Y13, Y13

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

// Q6DOT adds to the lanes Y4..Y7 of the four rows the scaled products of
// the 32 unsigned quants in Y0 with the activations at offset XO of the
// four rows, the scales broadcast at S(SP). Uses Y1, Y2, Y12.
#define Q6DOT(XO, S) \
	VMOVDQU    S(SP), Y12; \
	VPMADDUBSW XO(DI), Y0, Y1; \
	VNNI_DPWSSD(12, 1, 4); \
	VPMADDUBSW XO(DI)(R9*1), Y0, Y2; \
	VNNI_DPWSSD(12, 2, 5); \
	VPMADDUBSW XO(DI)(R9*2), Y0, Y1; \
	VNNI_DPWSSD(12, 1, 6); \
	VPMADDUBSW XO(DI)(R10*1), Y0, Y2; \
	VNNI_DPWSSD(12, 2, 7)

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

// func tileQ6KVNNI(a *tileArgs, rows int)
//
// Frame: the sixteen groups' scales, broadcast in pairs (group 2k over the
// low lane, 2k+1 over the high lane) as int16 words, at 0..255(SP).
TEXT ·tileQ6KVNNI(SB), NOSPLIT, $256-16
	TILEARGS
	VMOVDQU vb0f<>(SB), Y15
	VMOVDQU vb30<>(SB), Y14

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
	VPSHUFB   vPairShuf<>+0(SB), Y2, Y0
	VMOVDQU   Y0, 0(SP)
	VPSHUFB   vPairShuf<>+32(SB), Y2, Y0
	VMOVDQU   Y0, 32(SP)
	VPSHUFB   vPairShuf<>+64(SB), Y2, Y0
	VMOVDQU   Y0, 64(SP)
	VPSHUFB   vPairShuf<>+96(SB), Y2, Y0
	VMOVDQU   Y0, 96(SP)
	VPSHUFB   vPairShuf<>+0(SB), Y3, Y0
	VMOVDQU   Y0, 128(SP)
	VPSHUFB   vPairShuf<>+32(SB), Y3, Y0
	VMOVDQU   Y0, 160(SP)
	VPSHUFB   vPairShuf<>+64(SB), Y3, Y0
	VMOVDQU   Y0, 192(SP)
	VPSHUFB   vPairShuf<>+96(SB), Y3, Y0
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

	HSUM8R(Y8, X8)
	VMOVSS X0, (BX)
	HSUM8R(Y9, X9)
	VMOVSS X0, (BX)(R11*1)
	HSUM8R(Y10, X10)
	VMOVSS X0, (BX)(R11*2)
	HSUM8R(Y11, X11)
	LEAQ   (BX)(R11*2), AX
	VMOVSS X0, (AX)(R11*1)
	ROWNEXT(q6trow)
	VZEROUPPER
	RET

// Decode tiles: gemv_amd64.h describes their arguments and registers.

// Q4SCALES2 decodes the scales and minimums of two rows
// (R0 and R1: the two rows' block addresses, (SI) or (SI)(R12*1) etc.): SCA and SCB
// get the scales s0..s7 of each row as int16 words in both lanes, M the
// int32 lanes m_j·(bsum[2j]+bsum[2j+1]) of the first row (low lane) and
// the second (high lane), the activations' pair sums in Y13. Uses Y4, Y5.
#define Q4SCALES2(R0, R1, SCA, SCB, M) \
	VMOVDQU     4 R0, X4; \
	VINSERTI128 $1, 4 R1, Y4, Y4; \
	VPSHUFB     vkscB<>(SB), Y4, Y5; \
	VPSHUFB     vkscA<>(SB), Y4, Y4; \
	VPSRLVD     vkscShift<>(SB), Y4, Y4; \
	VPAND       vkscMask<>(SB), Y4, Y4; \
	VPSRLD      $2, Y5, Y5; \
	VPAND       vb30<>(SB), Y5, Y5; \
	VPOR        Y5, Y4, Y4; \
	VPUNPCKHBW  Y14, Y4, M; \
	VPMADDWD    Y13, M, M; \
	VPUNPCKLBW  Y14, Y4, Y4; \
	VPERMQ      $0x44, Y4, SCA; \
	VPERMQ      $0xee, Y4, SCB

// Q4SUB adds to the lanes of register number ACC the scaled products of
// sub-block 2p (low nibbles) or 2p+1 (high nibbles) of one row, the
// nibbles in Y5 (the pair's 32 bytes, shifted right by 4 for the high
// nibbles), the activations at XO(DI), the row's scales in S picked by
// vWordBcast+BC. Y15 holds 0x0f bytes. Uses Y6, Y7.
#define Q4SUB(XO, BC, S, ACC) \
	VPAND      Y15, Y5, Y6; \
	VPMADDUBSW XO(DI), Y6, Y6; \
	VPSHUFB    vWordBcast<>+BC(SB), S, Y7; \
	VNNI_DPWSSD(7, 6, ACC)

// Q4ROWPAIR adds to ACC the scaled products of sub-blocks 2p and 2p+1 of
// the row whose block is at R (nibbles at QS R) to the lanes of register
// number ACC.
#define Q4ROWPAIR(R, QS, XO, BC, S, ACC) \
	VMOVDQU QS R, Y5; \
	Q4SUB(XO, BC, S, ACC); \
	VPSRLW  $4, Y5, Y5; \
	Q4SUB(XO+32, BC+32, S, ACC)

// Q4PAIR4 adds sub-blocks 2p and 2p+1 of the four rows to Y8..Y11.
#define Q4PAIR4(QS, XO, BC) \
	Q4ROWPAIR((SI), QS, XO, BC, Y0, 8); \
	Q4ROWPAIR((SI)(R12*1), QS, XO, BC, Y1, 9); \
	Q4ROWPAIR((SI)(R12*2), QS, XO, BC, Y2, 10); \
	Q4ROWPAIR((SI)(R10*1), QS, XO, BC, Y3, 11)

// func gemvQ4KVNNI(a *tileArgs, rows int)
//
// Y12 holds [acc, accMin] of rows 0..3 as [a0, m0, a1, m1 | a2, m2, a3, m3].
TEXT ·gemvQ4KVNNI(SB), NOSPLIT, $0-16
	GEMVARGS
	MOVQ R12, AX
	SHLQ $2, AX // the group step: four rows
	VMOVDQU vb0f<>(SB), Y15
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
	VPMADDWD  vOnes16<>(SB), Y13, Y13
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

// Q6ACC adds to the lanes of register number L the products of the
// quants in Q (register number QN) with the activations in Y5, scaled by
// the group scales in S picked by vPairShuf+PS. Uses Y1.
#define Q6ACC(Q, QN, PS, S, L) \
	VPMADDUBSW Y5, Q, Q; \
	VPSHUFB    vPairShuf<>+PS(SB), S, Y1; \
	VNNI_DPWSSD(1, QN, L)

// Q6HALF2 adds half H (128 elements: ql at QL, qh at QH, activations at
// XO) of the super-block of rows 0 (at (SI)) and 1 (at (SI)(R12*1)) to
// their lanes Y6 and Y7, the rows' scales for the half in Y10 and Y11, the
// high bits in Y8 and Y9. Uses Y0..Y3, Y5.
#define Q6HALF2(QL, QH, XO) \
	VMOVDQU QH(SI), Y8; \
	VMOVDQU QH(SI)(R12*1), Y9; \
	VMOVDQU XO(DI), Y5; \
	Q6LO(QL, (SI), Y8, 4, Y0, Y1); \
	Q6ACC(Y0, 0, 0, Y10, 6); \
	Q6LO(QL, (SI)(R12*1), Y9, 4, Y2, Y3); \
	Q6ACC(Y2, 2, 0, Y11, 7); \
	VMOVDQU XO+32(DI), Y5; \
	Q6LO(QL+32, (SI), Y8, 2, Y0, Y1); \
	Q6ACC(Y0, 0, 32, Y10, 6); \
	Q6LO(QL+32, (SI)(R12*1), Y9, 2, Y2, Y3); \
	Q6ACC(Y2, 2, 32, Y11, 7); \
	VMOVDQU XO+64(DI), Y5; \
	Q6HI2(QL, (SI), Y8, Y0, Y1); \
	Q6ACC(Y0, 0, 64, Y10, 6); \
	Q6HI2(QL, (SI)(R12*1), Y9, Y2, Y3); \
	Q6ACC(Y2, 2, 64, Y11, 7); \
	VMOVDQU XO+96(DI), Y5; \
	Q6HI3(QL+32, (SI), Y8, Y0, Y1); \
	Q6ACC(Y0, 0, 96, Y10, 6); \
	Q6HI3(QL+32, (SI)(R12*1), Y9, Y2, Y3); \
	Q6ACC(Y2, 2, 96, Y11, 7)

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

// func gemvQ6KVNNI(a *tileArgs, rows int)
//
// The weight rows go in pairs, interleaved chunk by chunk so that each
// activation vector is loaded once for the two; Y12 and Y13 are the two
// rows' float32 accumulators.
TEXT ·gemvQ6KVNNI(SB), NOSPLIT, $0-16
	GEMVARGS
	Q6AHEAD(q6gahead)
	VMOVDQU vb0f<>(SB), Y15
	VMOVDQU vb30<>(SB), Y14

q6grow:
	GROUPSTART
	LEAQ   (R8)(R10*1), R9 // a pair Q6AHEAD on, prefetched as this one runs
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13

q6gblock:
	PREFETCH7(R9)
	// The lanes start as -32·(sc[2l]·bsum[2l] + sc[2l+1]·bsum[2l+1]).
	VPMOVSXBW 192(SI), Y0
	VPMOVSXBW 192(SI)(R12*1), Y1
	VPMADDWD  260(DI), Y0, Y2
	VPSLLD    $5, Y2, Y2
	VPMADDWD  260(DI), Y1, Y3
	VPSLLD    $5, Y3, Y3
	VPXOR     Y6, Y6, Y6
	VPSUBD    Y2, Y6, Y6
	VPXOR     Y7, Y7, Y7
	VPSUBD    Y3, Y7, Y7
	VPERMQ    $0x44, Y0, Y10
	VPERMQ    $0x44, Y1, Y11
	Q6HALF2(0, 128, 4)
	VPMOVSXBW 192(SI), Y0
	VPMOVSXBW 192(SI)(R12*1), Y1
	VPERMQ    $0xee, Y0, Y10
	VPERMQ    $0xee, Y1, Y11
	Q6HALF2(64, 160, 132)
	Q6FMAG((SI), Y6, Y12)
	Q6FMAG((SI)(R12*1), Y7, Y13)

	ADDQ $210, SI
	ADDQ $292, DI
	ADDQ $420, R9
	DECQ CX
	JNZ  q6gblock

	HSUM8R(Y12, X12)
	VMOVSS X0, (BX)
	HSUM8R(Y13, X13)
	VMOVSS X0, 4(BX)
	LEAQ   (R8)(R12*2), R8
	ADDQ   $8, BX
	SUBQ   $2, DX
	JNZ    q6grow
	VZEROUPPER
	RET


// Q8_0 kernels: the weights' quants made unsigned (|w|) and the
// activations given their signs (sign(w)·x), as the AVX2 kernels do, so
// that vpdpbusd's unsigned-by-signed products are the signed ones.

// SDOT(W, WN, A, AN, T, TN) sets W to eight int32 lanes, lane l the sum of
// the products of the signed bytes 4l..4l+3 of W and A. WN, AN and TN are
// the register numbers of W, A and the scratch T.
#define SDOT(W, WN, A, AN, T, TN) \
	VPSIGNB W, A, A; \
	VPSIGNB W, W, T; \
	VPXOR   W, W, W; \
	VNNI_DPBUSD(AN, TN, WN)

// Q80INTS leaves in W the eight int32 lanes of the block of weights at
// OFFW(SI) times the activations at OFFX(DI) (register numbers WN, and AN,
// TN for the scratch A and T).
#define Q80INTS(OFFW, OFFX, W, WN, A, AN, T, TN) \
	VMOVDQU OFFW+2(SI), W; \
	VMOVDQU OFFX+8(DI), A; \
	SDOT(W, WN, A, AN, T, TN)

// Q80FMA scales the int32 lanes in W of the block at OFFW(SI), OFFX(DI)
// by d_w·d_x into Y0 with one fused multiply-add per lane. Uses Y7, Y9.
#define Q80FMA(OFFW, OFFX, W) \
	VCVTDQ2PS    W, W; \
	VPBROADCASTW OFFW(SI), X7; \
	VCVTPH2PS    X7, Y7; \
	VBROADCASTSS OFFX(DI), Y9; \
	VMULPS       Y9, Y7, Y7; \
	VFMADD231PS  W, Y7, Y0

// func dotQ8_0VNNI(w *byte, x *q8Block, n int) float32
//
// Two blocks per step, as dotQ8_0AVX2, their integer work independent and
// their fused multiply-adds in block order.
TEXT ·dotQ8_0VNNI(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), SI
	MOVQ   x+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	CMPQ   CX, $2
	JB     q80one

q80two:
	Q80INTS(0, 0, Y1, 1, Y2, 2, Y5, 5)
	Q80INTS(34, 40, Y3, 3, Y4, 4, Y6, 6)
	Q80FMA(0, 0, Y1)
	Q80FMA(34, 40, Y3)
	ADDQ $68, SI
	ADDQ $80, DI
	SUBQ $2, CX
	CMPQ CX, $2
	JAE  q80two

q80one:
	TESTQ CX, CX
	JZ    q80done
	Q80INTS(0, 0, Y1, 1, Y2, 2, Y5, 5)
	Q80FMA(0, 0, Y1)

q80done:
	HSUM8
	VZEROUPPER
	VMOVSS X0, ret+24(FP)
	RET

// Q80ROW adds to ACC the eight int32 lanes of one Q8_0 block of the row at
// R (d at 0 R, quants at 2 R) with the activations in Y12, scaled by d·x.d
// (x.d broadcast in Y13) with one fused multiply-add per lane. Uses
// Y0..Y3.
#define Q80ROW(R, ACC) \
	VMOVDQU      2 R, Y0; \
	VPSIGNB      Y0, Y12, Y1; \
	VPSIGNB      Y0, Y0, Y2; \
	VPXOR        Y0, Y0, Y0; \
	VNNI_DPBUSD(1, 2, 0); \
	VCVTDQ2PS    Y0, Y2; \
	VPBROADCASTW 0 R, X3; \
	VCVTPH2PS    X3, Y3; \
	VMULPS       Y13, Y3, Y3; \
	VFMADD231PS  Y2, Y3, ACC

// func gemvQ80StepVNNI(a *tileArgs, rows, bstep, gstep int)
//
// Y8..Y11 are the four rows' float32 accumulators.
TEXT ·gemvQ80StepVNNI(SB), NOSPLIT, $0-32
	GEMVSTEPARGS

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

	HSUM8R(Y8, X8)
	VMOVSS X0, (BX)
	HSUM8R(Y9, X9)
	VMOVSS X0, 4(BX)
	HSUM8R(Y10, X10)
	VMOVSS X0, 8(BX)
	HSUM8R(Y11, X11)
	VMOVSS X0, 12(BX)
	GROUPNEXT(q80grow)
	VZEROUPPER
	RET

// Q8_0 prompt tile: two weight rows by four activation rows
// (q8tile_amd64.h). VPDPBUSD multiplies unsigned bytes by signed ones, so
// each activation block is made unsigned once (x XOR 0x80, that is x+128)
// and every lane sum starts from -128·Σw of its weight row's four quants,
// which leaves it exactly Σw·x, the AVX2 kernel's integer, with no
// per-product vpsignb.
//
// Output (i, j) accumulates in Y(4i+j). SI, R13: the weight rows; Y8, Y9:
// the block's weight quants of rows 0 and 1; Y10, Y11: their -128·Σw;
// Y12: the lane sums; Y13: the activation block, unsigned; Y14: the scale
// broadcast; Y15: 0x80 bytes.

// Q8DOT(W, C, P, ACC) accumulates the current block of the weight row
// whose quants are in register number W (-128·Σw in C) times the
// activation block in Y13 into ACC, with the scale product at P.
#define Q8DOT(W, C, P, ACC) \
	VMOVDQA      C, Y12; \
	VNNI_DPBUSD(W, 13, 12); \
	VCVTDQ2PS    Y12, Y12; \
	VBROADCASTSS P, Y14; \
	VFMADD231PS  Y12, Y14, ACC

// Q8COL(XQ, J, A0, A1) accumulates the current block of activation row J
// (quants at XQ) into A0 (weight row 0) and A1 (weight row 1).
#define Q8COL(XQ, J, A0, A1) \
	VPXOR XQ, Y15, Y13; \
	Q8DOT(8, Y10, 4*J(SP)(R8*1), A0); \
	Q8DOT(9, Y11, 16+4*J(SP)(R8*1), A1)

// Q8ROW(W, Q, QN, C, CN) loads the current block of the weight row at W:
// its quants into Q (register number QN) and -128·Σw of each lane into C
// (number CN). Uses Y12.
#define Q8ROW(W, Q, QN, C, CN) \
	VMOVDQU 2(W), Q; \
	VPXOR   C, C, C; \
	VNNI_DPBUSD(QN, 15, CN); \
	VPXOR   Y12, Y12, Y12; \
	VPSUBD  C, Y12, C

// func tileQ8_0x2x4StepVNNI(a *tileArgs, rstep, bstep, pairs int)
TEXT ·tileQ8_0x2x4StepVNNI(SB), NOSPLIT, $560-32
	FTARGS
	Q8FRAME

q8tpair:
	VMOVDQU vb80<>(SB), Y15 // again for each pair: Q8OUTS uses X15
	Q8PAIR0
	TESTQ CX, CX
	JZ    q8tdone

q8tchunk:
	Q8CHUNK(q8tgather, q8twide, q8twloop, q8tscaled)

q8tloop:
	Q8ROW(SI, Y8, 8, Y10, 10)
	Q8ROW(R13, Y9, 9, Y11, 11)
	Q8COL(8(DI), 0, Y0, Y4)
	Q8COL(8(DI)(R9*1), 1, Y1, Y5)
	Q8COL(8(DI)(R9*2), 2, Y2, Y6)
	Q8COL(8(DI)(R10*1), 3, Y3, Y7)
	Q8NEXT
	DECQ  R14
	JNZ   q8tloop
	TESTQ CX, CX
	JNZ   q8tchunk

q8tdone:
	Q8OUTS
	Q8NEXTPAIR(q8tpair, q8tend)

q8tend:
	VZEROUPPER
	RET

// Q4_0 and IQ4_NL single-row kernels (avx2_q8_amd64.s): per block eight
// int32 lanes of the signed quants (the nibbles less 8, or IQ4_NL's
// levels) times the activations, four blocks' lanes summed together with
// vphaddd, one scalar fused multiply-add per block in block order.

// iq4lut holds iq4Levels twice, once per 128-bit lane, for vpshufb.
DATA iq4lut<>+0(SB)/8, $0xf6eaddcfbfad9881
DATA iq4lut<>+8(SB)/8, $0x7159453526190d01
DATA iq4lut<>+16(SB)/8, $0xf6eaddcfbfad9881
DATA iq4lut<>+24(SB)/8, $0x7159453526190d01
GLOBL iq4lut<>(SB), RODATA|NOPTR, $32

// NIB4(OFFW, R, XR, XT) loads the 16 bytes of quants at OFFW(SI) into R
// as 32 nibbles, the low ones in the low half. Y14 holds 0x0f bytes.
#define NIB4(OFFW, R, XR, XT) \
	VMOVDQU     OFFW(SI), XR; \
	VPSRLW      $4, XR, XT; \
	VINSERTI128 $1, XT, R, R; \
	VPAND       Y14, R, R

// Q40BLK(OFFW, OFFX, R, RN, XR, T, TN, XT, T2, T2N) sets R to the eight
// int32 lanes of the products of the Q4_0 quants at OFFW(SI) with the
// activations at OFFX(DI), as the nibbles' products less 8 times the
// activations' sums (the same integer in each lane as (n-8)·x). Y13 holds
// 0x08 bytes. RN, TN and T2N are the register numbers of R, the scratch
// T and T2.
#define Q40BLK(OFFW, OFFX, R, RN, XR, T, TN, XT, T2, T2N) \
	NIB4(OFFW, R, XR, XT); \
	VMOVDQU OFFX(DI), T; \
	VPXOR   T2, T2, T2; \
	VNNI_DPBUSD(TN, RN, T2N); \
	VPXOR   R, R, R; \
	VNNI_DPBUSD(TN, 13, RN); \
	VPSUBD  R, T2, R

// IQ4BLK(OFFW, OFFX, R, RN, XR, T, TN, XT, T2, T2N) sets R to the eight
// int32 lanes of the products of the IQ4_NL quants at OFFW(SI) (the
// nibbles' levels, iq4lut in Y13) with the activations at OFFX(DI).
#define IQ4BLK(OFFW, OFFX, R, RN, XR, T, TN, XT, T2, T2N) \
	NIB4(OFFW, R, XR, XT); \
	VPSHUFB R, Y13, R; \
	VMOVDQU OFFX(DI), T; \
	SDOT(R, RN, T, TN, T2, T2N)

// Q4DOTS(BLK, B, BS) sets X1's four lanes to the integer dots (BLK:
// Q40BLK or IQ4BLK) of four blocks of BS bytes, whose quants start at
// B(SI), B+BS(SI), ..., with their activations, summed across lanes
// together with vphaddd and converted to float32.
#define Q4DOTS(BLK, B, BS) \
	BLK(B, 8, Y1, 1, X1, Y2, 2, X2, Y9, 9); \
	BLK(B+BS, 48, Y3, 3, X3, Y4, 4, X4, Y10, 10); \
	BLK(B+2*BS, 88, Y5, 5, X5, Y6, 6, X6, Y11, 11); \
	BLK(B+3*BS, 128, Y7, 7, X7, Y8, 8, X8, Y12, 12); \
	VPHADDD      Y3, Y1, Y1; \
	VPHADDD      Y7, Y5, Y5; \
	VPHADDD      Y5, Y1, Y1; \
	VEXTRACTI128 $1, Y1, X2; \
	VPADDD       X2, X1, X1; \
	VCVTDQ2PS    X1, X1

// FMA4 multiplies the four weight scales in X2 by the activation scales
// of the four blocks, then accumulates into X0 the lanes of X1 times
// those of X2, one scalar fused multiply-add per lane, in lane order.
// Uses X3..X5.
#define FMA4 \
	VMOVSS      0(DI), X3; \
	VINSERTPS   $0x10, 40(DI), X3, X3; \
	VINSERTPS   $0x20, 80(DI), X3, X3; \
	VINSERTPS   $0x30, 120(DI), X3, X3; \
	VMULPS      X3, X2, X2; \
	VFMADD231SS X2, X1, X0; \
	VMOVSHDUP   X1, X4; \
	VMOVSHDUP   X2, X5; \
	VFMADD231SS X5, X4, X0; \
	VMOVHLPS    X1, X1, X4; \
	VMOVHLPS    X2, X2, X5; \
	VFMADD231SS X5, X4, X0; \
	VPERMILPS   $0xff, X1, X4; \
	VPERMILPS   $0xff, X2, X5; \
	VFMADD231SS X5, X4, X0

// Q4FOUR(BLK) accumulates four blocks of 18 bytes into X0: their integer
// dots, then one scalar fused multiply-add each, in block order, by the
// product of the scales.
#define Q4FOUR(BLK) \
	Q4DOTS(BLK, 2, 18); \
	MOVWLZX   (SI), AX; \
	VMOVD     AX, X2; \
	VPINSRW   $1, 18(SI), X2, X2; \
	VPINSRW   $2, 36(SI), X2, X2; \
	VPINSRW   $3, 54(SI), X2, X2; \
	VCVTPH2PS X2, X2; \
	FMA4

// Q4ONE(BLK) accumulates one block into X0: the sum of its eight lanes
// (IHSUM's order), converted, times the product of the scales with one
// scalar fused multiply-add.
#define Q4ONE(BLK) \
	BLK(2, 8, Y1, 1, X1, Y2, 2, X2, Y5, 5); \
	VEXTRACTI128 $1, Y1, X5; \
	VPADDD       X5, X1, X1; \
	VPSHUFD      $0x4E, X1, X5; \
	VPADDD       X5, X1, X1; \
	VPSHUFD      $0xB1, X1, X5; \
	VPADDD       X5, X1, X1; \
	VCVTDQ2PS    X1, X1; \
	MOVWLZX      (SI), AX; \
	VMOVD        AX, X6; \
	VCVTPH2PS    X6, X6; \
	VMULSS       (DI), X6, X6; \
	VFMADD231SS  X6, X1, X0

// Q4LOOP(BLK, L4, L1, DONE) runs the blocks of 18 bytes four at a time,
// then one at a time, and goes on at DONE with the sum in X0.
#define Q4LOOP(BLK, L4, L1, DONE) \
	CMPQ CX, $4; \
	JB   L1; \
L4: \
	Q4FOUR(BLK); \
	ADDQ $72, SI; \
	ADDQ $160, DI; \
	SUBQ $4, CX; \
	CMPQ CX, $4; \
	JAE  L4; \
L1: \
	TESTQ CX, CX; \
	JZ    DONE; \
	Q4ONE(BLK); \
	ADDQ  $18, SI; \
	ADDQ  $40, DI; \
	DECQ  CX; \
	JMP   L1; \
DONE:

// Q4START loads the arguments, clears X0 and sets Y14 to 0x0f bytes.
#define Q4START \
	MOVQ    w+0(FP), SI; \
	MOVQ    x+8(FP), DI; \
	MOVQ    n+16(FP), CX; \
	VXORPS  X0, X0, X0; \
	VMOVDQU vb0f<>(SB), Y14

// func dotQ4_0VNNI(w *byte, x *q8Block, n int) float32
TEXT ·dotQ4_0VNNI(SB), NOSPLIT, $0-28
	Q4START
	MOVL         $0x08080808, AX
	VMOVD        AX, X13
	VPBROADCASTD X13, Y13
	Q4LOOP(Q40BLK, q40four, q40one, q40done)
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func dotIQ4NLVNNI(w *byte, x *q8Block, n int) float32
TEXT ·dotIQ4NLVNNI(SB), NOSPLIT, $0-28
	Q4START
	VMOVDQU iq4lut<>(SB), Y13
	Q4LOOP(IQ4BLK, iq4four, iq4one, iq4done)
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET
