#include "textflag.h"

// The AVX2 dot product of MXFP4 weights with Q8_0 activations. Its float
// operations are dot32's for MXFP4, in its order (one scalar fused
// multiply-add per block, in block order), so results match it bit for
// bit.

// fp4lut holds quant.FP4Levels twice, once per 128-bit lane, for vpshufb.
DATA fp4lut<>+0(SB)/8, $0x0c08060403020100
DATA fp4lut<>+8(SB)/8, $0xf4f8fafcfdfeff00
DATA fp4lut<>+16(SB)/8, $0x0c08060403020100
DATA fp4lut<>+24(SB)/8, $0xf4f8fafcfdfeff00
GLOBL fp4lut<>(SB), RODATA|NOPTR, $32

// MXBLK(OFFW, OFFX, R, XR, T, XT, T2) sets R to eight int32 lanes whose sum
// is the integer dot of the block whose quants start at OFFW(SI) with the
// activations at OFFX(DI): the nibbles looked up in fp4lut (Y13), then
// |w|·sign(w)x with vpmaddubsw and vpmaddwd (Y15 holds 16-bit ones).
#define MXBLK(OFFW, OFFX, R, XR, T, XT, T2) \
	VMOVDQU     OFFW(SI), XR \
	VPSRLW      $4, XR, XT   \
	VINSERTI128 $1, XT, R, R \
	VPAND       Y14, R, R    \
	VPSHUFB     R, Y13, R    \
	VMOVDQU     OFFX(DI), T  \
	VPSIGNB     R, T, T      \
	VPSIGNB     R, R, T2     \
	VPMADDUBSW  T, T2, T2    \
	VPMADDWD    Y15, T2, R

// MXSCALE(OFFW, X) loads the half-scale of the E8M0 byte at OFFW(SI) into
// X's low lane, from the table of half-scales at R8.
#define MXSCALE(OFFW, X) \
	MOVBLZX OFFW(SI), AX \
	VMOVSS  (R8)(AX*4), X

// MXINS(OFFW, IMM, X) inserts the half-scale of the E8M0 byte at OFFW(SI)
// into lane IMM>>4 of X.
#define MXINS(OFFW, IMM, X) \
	MOVBLZX   OFFW(SI), AX \
	VINSERTPS IMM, (R8)(AX*4), X, X

// func dotMXFP4AVX2(w *byte, x *q8Block, n int, scales *[256]float32) float32
TEXT ·dotMXFP4AVX2(SB), NOSPLIT, $0-36
	MOVQ         w+0(FP), SI
	MOVQ         x+8(FP), DI
	MOVQ         n+16(FP), CX
	VXORPS       X0, X0, X0
	VPCMPEQW     Y15, Y15, Y15
	VPSRLW       $15, Y15, Y15
	MOVL         $0x0f0f0f0f, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	VMOVDQU      fp4lut<>(SB), Y13
	MOVQ         scales+24(FP), R8
	CMPQ         CX, $4
	JB           mxone

mxfour:
	MXBLK(1, 8, Y1, X1, Y2, X2, Y9)
	MXBLK(18, 48, Y3, X3, Y4, X4, Y10)
	MXBLK(35, 88, Y5, X5, Y6, X6, Y11)
	MXBLK(52, 128, Y7, X7, Y8, X8, Y12)
	// Lane b of X1: block b's integer dot.
	VPHADDD      Y3, Y1, Y1
	VPHADDD      Y7, Y5, Y5
	VPHADDD      Y5, Y1, Y1
	VEXTRACTI128 $1, Y1, X2
	VPADDD       X2, X1, X1
	VCVTDQ2PS    X1, X1
	// Lane b of X2: block b's weight scale times its activation scale.
	MXSCALE(0, X2)
	MXINS(17, $0x10, X2)
	MXINS(34, $0x20, X2)
	MXINS(51, $0x30, X2)
	VMOVSS       (DI), X3
	VINSERTPS    $0x10, 40(DI), X3, X3
	VINSERTPS    $0x20, 80(DI), X3, X3
	VINSERTPS    $0x30, 120(DI), X3, X3
	VMULPS       X3, X2, X2
	// One fused multiply-add per block, in block order.
	VFMADD231SS  X2, X1, X0
	VMOVSHDUP    X1, X4
	VMOVSHDUP    X2, X5
	VFMADD231SS  X5, X4, X0
	VMOVHLPS     X1, X1, X4
	VMOVHLPS     X2, X2, X5
	VFMADD231SS  X5, X4, X0
	VPERMILPS    $0xff, X1, X4
	VPERMILPS    $0xff, X2, X5
	VFMADD231SS  X5, X4, X0
	ADDQ         $68, SI
	ADDQ         $160, DI
	SUBQ         $4, CX
	CMPQ         CX, $4
	JAE          mxfour

mxone:
	TESTQ        CX, CX
	JZ           mxdone
	MXBLK(1, 8, Y1, X1, Y2, X2, Y9)
	VEXTRACTI128 $1, Y1, X5
	VPADDD       X5, X1, X1
	VPSHUFD      $0x4E, X1, X5
	VPADDD       X5, X1, X1
	VPSHUFD      $0xB1, X1, X5
	VPADDD       X5, X1, X1
	VCVTDQ2PS    X1, X1
	MXSCALE(0, X6)
	VMULSS       (DI), X6, X6
	VFMADD231SS  X6, X1, X0
	ADDQ         $17, SI
	ADDQ         $40, DI
	DECQ         CX
	JMP          mxone

mxdone:
	VMOVSS       X0, ret+32(FP)
	VZEROUPPER
	RET
