#include "textflag.h"

// The AVX2 dot product of TQ2_0 weights with Q8_K activations, in dotTQ's
// float order: the integer lanes are exact, each is scaled with one fused
// multiply-add per super-block, and the lanes are added as hsum8.

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
	VXORPS       Y8, Y8, Y8     // the eight float lanes
	VPCMPEQW     Y14, Y14, Y14
	VPSRLW       $15, Y14, Y14  // 16-bit ones
	MOVL         $0x03030303, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, Y15
	MOVQ         w+0(FP), SI
	MOVQ         x+8(FP), DI
	MOVQ         n+16(FP), CX
	TESTQ        CX, CX
	JZ           tq2done

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
	// Eight int32 lanes, less the group sums 2l and 2l+1.
	VPMADDWD     Y14, Y4, Y4
	VMOVDQU      260(DI), Y5
	VPMADDWD     Y14, Y5, Y5
	VPSUBD       Y5, Y4, Y4
	VCVTDQ2PS    Y4, Y4
	// d = d_x·d_w, then one fused multiply-add per lane.
	MOVWLZX      64(SI), AX
	VMOVD        AX, X6
	VCVTPH2PS    X6, X6
	VMULSS       (DI), X6, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS  Y4, Y6, Y8
	ADDQ         $66, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          tq2loop

tq2done:
	VEXTRACTF128 $1, Y8, X1
	VADDPS       X1, X8, X8
	VMOVHLPS     X8, X8, X1
	VADDPS       X1, X8, X8
	VMOVSHDUP    X8, X1
	VADDSS       X1, X8, X8
	VMOVSS       X8, ret+32(FP)
	VZEROUPPER
	RET
