#include "textflag.h"

// The AVX2 dot products of TQ1_0 and TQ2_0 weights with Q8_K activations,
// in dotTQ's float order: the integer lanes are exact, each is scaled with
// one fused multiply-add per super-block, and the lanes are added as hsum8.

// TQSETUP(DONE) clears the float lanes Y8, sets Y14 to 16-bit ones, loads
// the arguments (w *byte, x *q8KBlock, n int) into SI, DI and CX, and
// jumps to DONE if n is 0.
#define TQSETUP(DONE) \
	VXORPS   Y8, Y8, Y8    \
	VPCMPEQW Y14, Y14, Y14 \
	VPSRLW   $15, Y14, Y14 \
	MOVQ     w+0(FP), SI   \
	MOVQ     x+8(FP), DI   \
	MOVQ     n+16(FP), CX  \
	TESTQ    CX, CX        \
	JZ       DONE

// TQEND(D) finishes a super-block whose trit products are in Y4's 16-bit
// lanes and whose float16 scale is at D(SI): eight int32 lanes, less the
// activation group sums 2l and 2l+1, scaled by d = d_x·d_w into Y8 with one
// fused multiply-add each. Y14 holds 16-bit ones.
#define TQEND(D) \
	VPMADDWD     Y14, Y4, Y4   \
	VMOVDQU      260(DI), Y5   \
	VPMADDWD     Y14, Y5, Y5   \
	VPSUBD       Y5, Y4, Y4    \
	VCVTDQ2PS    Y4, Y4        \
	MOVWLZX      D(SI), AX     \
	VMOVD        AX, X6        \
	VCVTPH2PS    X6, X6        \
	VMULSS       (DI), X6, X6  \
	VBROADCASTSS X6, Y6        \
	VFMADD231PS  Y4, Y6, Y8

// TQSUM leaves in X8's low lane the sum of Y8's lanes, added as hsum8.
#define TQSUM \
	VEXTRACTF128 $1, Y8, X1 \
	VADDPS       X1, X8, X8 \
	VMOVHLPS     X8, X8, X1 \
	VADDPS       X1, X8, X8 \
	VMOVSHDUP    X8, X1     \
	VADDSS       X1, X8, X8

// TQ2STEP(SHIFT, OFFX) adds to Y4 (16-bit lanes) the vpmaddubsw products
// of the trits at bits SHIFT, SHIFT+1 of the 32 weight bytes in Y0 with
// the activations at OFFX(DI). Y15 holds bytes 3.
#define TQ2STEP(SHIFT, OFFX) \
	VPSRLW     $SHIFT, Y0, Y1 \
	VPAND      Y15, Y1, Y1    \
	VPMADDUBSW OFFX(DI), Y1, Y1 \
	VPADDW     Y1, Y4, Y4

// func dotTQ2AVX2(w *byte, x *q8KBlock, n int, gemm bool) float32
TEXT ·dotTQ2AVX2(SB), NOSPLIT, $0-36
	MOVL         $0x03030303, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, Y15
	TQSETUP(tq2done)

tq2loop:
	VPXOR   Y4, Y4, Y4
	VMOVDQU 0(SI), Y0
	TQ2STEP(0, 4)
	TQ2STEP(2, 36)
	TQ2STEP(4, 68)
	TQ2STEP(6, 100)
	VMOVDQU 32(SI), Y0
	TQ2STEP(0, 132)
	TQ2STEP(2, 164)
	TQ2STEP(4, 196)
	TQ2STEP(6, 228)
	TQEND(64)
	ADDQ         $66, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          tq2loop

tq2done:
	TQSUM
	VMOVSS       X8, ret+32(FP)
	VZEROUPPER
	RET

// tq1mul holds, per 16-bit lane, the powers of 3 that bring trit n of each
// byte to the top of it for TQ1_0's bytes 32-47 (trits 0 and 1, 2 and 3,
// 4 and, in the high half, the four trits of qh repeated: 1, 3, 9, 27 for
// bytes 0-3, 4-7 ...).
DATA tq1mul<>+0(SB)/8, $0x0001000100010001
DATA tq1mul<>+8(SB)/8, $0x0001000100010001
DATA tq1mul<>+16(SB)/8, $0x0003000300030003
DATA tq1mul<>+24(SB)/8, $0x0003000300030003
DATA tq1mul<>+32(SB)/8, $0x0009000900090009
DATA tq1mul<>+40(SB)/8, $0x0009000900090009
DATA tq1mul<>+48(SB)/8, $0x001b001b001b001b
DATA tq1mul<>+56(SB)/8, $0x001b001b001b001b
DATA tq1mul<>+64(SB)/8, $0x0051005100510051
DATA tq1mul<>+72(SB)/8, $0x0051005100510051
DATA tq1mul<>+80(SB)/8, $0x0003000300010001
DATA tq1mul<>+88(SB)/8, $0x001b001b00090009
GLOBL tq1mul<>(SB), RODATA|NOPTR, $96

// TQ1HALF(SRC, MUL, T) sets T's 16-bit lanes to the trit of the low bytes
// of SRC's lanes for the powers of 3 in MUL: (b·3^n mod 256)·3 >> 8.
// Y12 holds 16-bit 0x00ff, Y11 16-bit 3.
#define TQ1HALF(SRC, MUL, T) \
	VPMULLW MUL, SRC, T \
	VPAND   Y12, T, T   \
	VPMULLW Y11, T, T   \
	VPSRLW  $8, T, T

// TQ1STEP(MUL, OFFX) adds to Y4 (16-bit lanes) the vpmaddubsw products of
// the trits of the 32 bytes in Y0 for the powers of 3 in MUL with the
// activations at OFFX(DI): even bytes and odd bytes apart.
#define TQ1STEP(MUL, OFFX) \
	TQ1HALF(Y0, MUL, Y1)         \
	VPSRLW     $8, Y0, Y2        \
	TQ1HALF(Y2, MUL, Y2)         \
	VPSLLW     $8, Y2, Y2        \
	VPOR       Y2, Y1, Y1        \
	VPMADDUBSW OFFX(DI), Y1, Y1  \
	VPADDW     Y1, Y4, Y4

// func dotTQ1AVX2(w *byte, x *q8KBlock, n int, gemm bool) float32
TEXT ·dotTQ1AVX2(SB), NOSPLIT, $0-36
	VPCMPEQW     Y12, Y12, Y12
	VPSRLW       $8, Y12, Y12   // 16-bit 0x00ff
	LEAQ         tq1mul<>(SB), R8
	TQSETUP(tq1done)
	VPADDW       Y14, Y14, Y11
	VPADDW       Y14, Y11, Y11  // 16-bit 3

tq1loop:
	VPXOR          Y4, Y4, Y4
	// Bytes 0-31: trit n of byte m is element 32n+m.
	VMOVDQU        0(SI), Y0
	VPBROADCASTW   0(R8), Y9    // 1
	TQ1STEP(Y9, 4)
	VPBROADCASTW   16(R8), Y9   // 3
	TQ1STEP(Y9, 36)
	VPBROADCASTW   32(R8), Y9   // 9
	TQ1STEP(Y9, 68)
	VPBROADCASTW   48(R8), Y9   // 27
	TQ1STEP(Y9, 100)
	VPBROADCASTW   64(R8), Y9   // 81
	TQ1STEP(Y9, 132)
	// Bytes 32-47 in both halves: trits 0 and 1, then 2 and 3 are
	// elements 160-191 and 192-223.
	VBROADCASTI128 32(SI), Y0
	TQ1STEP(0(R8), 164)
	TQ1STEP(32(R8), 196)
	// Trit 4 of bytes 32-47 and the trits of qh: elements 224-255.
	VPBROADCASTD   48(SI), X1
	VINSERTI128    $1, X1, Y0, Y0
	TQ1STEP(64(R8), 228)
	TQEND(52)
	ADDQ           $54, SI
	ADDQ           $292, DI
	DECQ           CX
	JNZ            tq1loop

tq1done:
	TQSUM
	VMOVSS       X8, ret+32(FP)
	VZEROUPPER
	RET
