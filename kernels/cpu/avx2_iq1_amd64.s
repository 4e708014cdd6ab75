#include "textflag.h"

// The AVX2 dot product of IQ1_S weights with Q8_K activations, in
// dotLanesK's float order: eight exact integer lanes of the scaled grid
// products and an exact integer sum of the shifts' terms per super-block,
// each scaled by d_x·d_w with fused multiply-adds; hsum8 of the lanes plus
// 1/8 of the shifts' float sum.

// IQ1HSUM(Y, X) leaves in X's low lane the sum of Y's eight lanes in
// hsum8's order. X2 is scratch.
#define IQ1HSUM(Y, X) \
	VEXTRACTF128 $1, Y, X2 \
	VADDPS       X2, X, X  \
	VMOVHLPS     X, X, X2  \
	VADDPS       X2, X, X  \
	VMOVSHDUP    X, X2     \
	VADDSS       X2, X, X

// IQ1ARGS(DONE) loads the arguments (w *byte, x *q8KBlock, n int, grid
// *[2048]uint64) into SI, DI, CX and R8, and jumps to DONE if n is 0.
#define IQ1ARGS(DONE) \
	MOVQ  grid+24(FP), R8 \
	MOVQ  w+0(FP), SI     \
	MOVQ  x+8(FP), DI     \
	MOVQ  n+16(FP), CX    \
	TESTQ CX, CX          \
	JZ    DONE

// IQ1GRID(QS, SH, X) loads into the low quadword of X the grid entry of
// index qs (the byte at QS(SI)) | bits SH..SH+2 of DX << 8, from the grid
// at R8.
#define IQ1GRID(QS, SH, X) \
	MOVBLZX QS(SI), AX \
	MOVL    DX, BX     \
	SHRL    $(SH), BX  \
	ANDL    $7, BX     \
	SHLL    $8, BX     \
	ORL     BX, AX     \
	VMOVQ   (R8)(AX*8), X

// IQ1GATHER(QS, SH) sets Y3 to the grid entries of four groups of 8 (a
// group of 32): group L's index from the byte at QS+L(SI) and bits
// SH·L..SH·L+2 of DX.
#define IQ1GATHER(QS, SH) \
	IQ1GRID(QS, 0, X3)            \
	IQ1GRID(QS+1, SH, X4)         \
	VPUNPCKLQDQ  X4, X3, X3       \
	IQ1GRID(QS+2, 2*SH, X4)       \
	IQ1GRID(QS+3, 3*SH, X5)       \
	VPUNPCKLQDQ  X5, X4, X4       \
	VINSERTI128  $1, X4, Y3, Y3

// IQ1GROUP(IB) adds group of 32 number IB to the lanes in Y2 (int32) and
// the shifts' sum in R10: its grid values (vpsignb trick for vpmaddubsw)
// times the activations, scaled with vpmaddwd by 2s+1; and the activation
// sums of its two groups of 16 times ±(2s+1).
#define IQ1GROUP(IB) \
	MOVWLZX      34+2*IB(SI), DX  \
	IQ1GATHER(2+4*IB, 3)          \
	VMOVDQU      4+32*IB(DI), Y4  \
	VPSIGNB      Y3, Y4, Y4       \
	VPSIGNB      Y3, Y3, Y3       \
	VPMADDUBSW   Y4, Y3, Y3       \
	MOVL         DX, BX           \
	SHRL         $12, BX          \
	ANDL         $7, BX           \
	LEAL         1(BX)(BX*1), BX  \
	VMOVD        BX, X5           \
	VPBROADCASTW X5, Y5           \
	VPMADDWD     Y5, Y3, Y3       \
	VPADDD       Y3, Y2, Y2       \
	MOVWLSX      260+4*IB(DI), AX \
	MOVWLSX      262+4*IB(DI), R9 \
	ADDL         R9, AX           \
	IMULL        BX, AX           \
	MOVL         AX, R9           \
	NEGL         R9               \
	TESTL        $0x8000, DX      \
	CMOVLNE      R9, AX           \
	ADDL         AX, R10

// func dotIQ1SAVX2(w *byte, x *q8KBlock, n int, grid *[2048]uint64) float32
TEXT ·dotIQ1SAVX2(SB), NOSPLIT, $0-36
	VXORPS Y0, Y0, Y0 // the eight float lanes
	VXORPS X1, X1, X1 // the shifts' float sum
	IQ1ARGS(iq1sdone)

iq1sloop:
	VPXOR  Y2, Y2, Y2
	XORL   R10, R10
	IQ1GROUP(0)
	IQ1GROUP(1)
	IQ1GROUP(2)
	IQ1GROUP(3)
	IQ1GROUP(4)
	IQ1GROUP(5)
	IQ1GROUP(6)
	IQ1GROUP(7)
	// d = d_x·d_w; lanes and the shifts' sum scaled with fused
	// multiply-adds.
	MOVWLZX      (SI), AX
	VMOVD        AX, X6
	VCVTPH2PS    X6, X6
	VMULSS       (DI), X6, X6
	VBROADCASTSS X6, Y7
	VCVTDQ2PS    Y2, Y2
	VFMADD231PS  Y2, Y7, Y0
	VCVTSI2SSL   R10, X8, X8
	VFMADD231SS  X8, X6, X1
	ADDQ         $50, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          iq1sloop

iq1sdone:
	IQ1HSUM(Y0, X0)
	MOVL         $0x3e000000, AX // 0.125
	VMOVD        AX, X2
	VMULSS       X2, X1, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, ret+32(FP)
	VZEROUPPER
	RET

// The AVX2 dot product of IQ1_M weights with Q8_K activations, in
// dotIQ1M's float order: per super-block, eight exact integer lanes of the
// scaled grid products and eight of the scaled shift signs times the
// activations, each scaled by d_x·d_w with fused multiply-adds into float
// lanes of their own; hsum8 of the first plus 1/8 of the second's, fused.

// IQ1MSIGN(L, X) loads into the low quadword of X eight bytes of the sign
// of group of 8 number L's shift (bit 4L+3 of DX): 1, or -1 if set. R11
// holds bytes of 1, R12 -1.
#define IQ1MSIGN(L, X) \
	MOVQ    R11, AX          \
	BTL     $(4*L+3), DX     \
	CMOVQCS R12, AX          \
	VMOVQ   AX, X

// IQ1MSCALE(SC, SH, X) sets the eight words of X to 2s+1 for the 3-bit s
// at bit SH of the scale word at SC(SI).
#define IQ1MSCALE(SC, SH, X) \
	MOVWLZX      SC(SI), AX      \
	SHRL         $(SH), AX       \
	ANDL         $7, AX          \
	LEAL         1(AX)(AX*1), AX \
	VMOVD        AX, X           \
	VPBROADCASTW X, X

// IQ1MGROUP(IB, SC, SH) adds group of 32 number IB (its two groups of 16
// scaled by the 3-bit fields at bits SH and SH+3 of the word at SC(SI)) to
// the grid lanes in Y1 and the shift lanes in Y2.
#define IQ1MGROUP(IB, SC, SH) \
	MOVWLZX     32+2*IB(SI), DX  \
	IQ1GATHER(4*IB, 4)           \
	IQ1MSIGN(0, X5)              \
	IQ1MSIGN(1, X6)              \
	VPUNPCKLQDQ X6, X5, X5       \
	IQ1MSIGN(2, X6)              \
	IQ1MSIGN(3, X7)              \
	VPUNPCKLQDQ X7, X6, X6       \
	VINSERTI128 $1, X6, Y5, Y5   \
	VMOVDQU     4+32*IB(DI), Y4  \
	VPSIGNB     Y5, Y4, Y6       \
	VPMADDUBSW  Y6, Y13, Y6      \
	VPSIGNB     Y3, Y4, Y4       \
	VPSIGNB     Y3, Y3, Y3       \
	VPMADDUBSW  Y4, Y3, Y3       \
	IQ1MSCALE(SC, SH, X7)        \
	IQ1MSCALE(SC, SH+3, X8)      \
	VINSERTI128 $1, X8, Y7, Y7   \
	VPMADDWD    Y7, Y3, Y3       \
	VPADDD      Y3, Y1, Y1       \
	VPMADDWD    Y7, Y6, Y6       \
	VPADDD      Y6, Y2, Y2

// IQ1MHALF(OFF, SH, MASK) ors into AX the bits MASK of the word at OFF(SI)
// shifted right by SH: a part of the super-block's float16 scale.
#define IQ1MHALF(OFF, SH, MASK) \
	MOVWLZX OFF(SI), BX \
	SHRL    $(SH), BX   \
	ANDL    $(MASK), BX \
	ORL     BX, AX

// func dotIQ1MAVX2(w *byte, x *q8KBlock, n int, grid *[2048]uint64) float32
TEXT ·dotIQ1MAVX2(SB), NOSPLIT, $0-36
	VXORPS       Y0, Y0, Y0   // the grid products' float lanes
	VXORPS       Y10, Y10, Y10 // the shifts' float lanes
	MOVQ         $0x0101010101010101, R11
	MOVQ         $-1, R12
	VPCMPEQB     Y13, Y13, Y13
	VPABSB       Y13, Y13     // bytes of 1
	IQ1ARGS(iq1mdone)

iq1mloop:
	VPXOR        Y1, Y1, Y1
	VPXOR        Y2, Y2, Y2
	IQ1MGROUP(0, 48, 0)
	IQ1MGROUP(1, 48, 6)
	IQ1MGROUP(2, 50, 0)
	IQ1MGROUP(3, 50, 6)
	IQ1MGROUP(4, 52, 0)
	IQ1MGROUP(5, 52, 6)
	IQ1MGROUP(6, 54, 0)
	IQ1MGROUP(7, 54, 6)
	// d = d_x times the float16 in the scale words' top nibbles.
	XORL         AX, AX
	IQ1MHALF(48, 12, 0x000f)
	IQ1MHALF(50, 8, 0x00f0)
	IQ1MHALF(52, 4, 0x0f00)
	IQ1MHALF(54, 0, 0xf000)
	VMOVD        AX, X9
	VCVTPH2PS    X9, X9
	VMULSS       (DI), X9, X9
	VBROADCASTSS X9, Y9
	VCVTDQ2PS    Y1, Y1
	VFMADD231PS  Y1, Y9, Y0
	VCVTDQ2PS    Y2, Y2
	VFMADD231PS  Y2, Y9, Y10
	ADDQ         $56, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          iq1mloop

iq1mdone:
	IQ1HSUM(Y0, X0)
	IQ1HSUM(Y10, X10)
	MOVL         $0x3e000000, AX // 0.125
	VMOVD        AX, X2
	VFMADD231SS  X2, X10, X0
	VMOVSS       X0, ret+32(FP)
	VZEROUPPER
	RET
