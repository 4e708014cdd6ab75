#include "textflag.h"

// AVX2 kernels for 32-block weights, F16/BF16/F32 weights and the
// activation quantizers. Every float operation is the oracle's (dot.go,
// simd.go, actquant.go), in its order, so results match it bit for bit.

// HSUM8(Y, X, T) leaves in the low lane of X (the xmm half of Y) the sum
// of Y's eight lanes in hsum8's order: high half onto low half, then lanes
// 0+2 and 1+3, then the two. T is scratch.
#define HSUM8(Y, X, T) \
	VEXTRACTF128 $1, Y, T \
	VADDPS       T, X, X  \
	VMOVHLPS     X, X, T  \
	VADDPS       T, X, X  \
	VMOVSHDUP    X, T     \
	VADDSS       T, X, X

// IHSUM(Y, X, T) leaves in the low lane of X the sum of Y's eight int32s.
#define IHSUM(Y, X, T) \
	VEXTRACTI128 $1, Y, T   \
	VPADDD       T, X, X    \
	VPSHUFD      $0x4E, X, T \
	VPADDD       T, X, X    \
	VPSHUFD      $0xB1, X, T \
	VPADDD       T, X, X

// SDOT(W, A, ONES, T) sets W to eight int32 lanes, lane l the sum of the
// products of the signed bytes 4l..4l+3 of W and A (|W|·sign(W)A, so the
// unsigned-by-signed vpmaddubsw never overflows: |W| ≤ 128, |A| ≤ 127).
// ONES holds 16-bit ones.
#define SDOT(W, A, ONES, T) \
	VPSIGNB    W, A, A    \
	VPSIGNB    W, W, T    \
	VPMADDUBSW A, T, T    \
	VPMADDWD   ONES, T, W

// VECROWS(LD, XF, XS, ROW, LOOP, DONE) is the body of a dotVec kernel
// over rows rows (rows > 0) of two-byte weights wstride bytes apart
// against one activation row (float32 or F16 values: XF and XS as
// VECSTEP's), each row's sum stored at out[r] as the one-row kernel
// returns it; the rows are read one after another, one stream. It is
// defined before the file's first function, whose arguments vet would
// otherwise check its argument names against.
#define VECROWS(LD, XF, XS, ROW, LOOP, DONE) \
	MOVQ w+0(FP), R8 \
	MOVQ wstride+8(FP), R9 \
	MOVQ x+16(FP), R10 \
	MOVQ n+24(FP), R11 \
	MOVQ out+32(FP), BX \
	MOVQ rows+40(FP), DX \
ROW: \
	MOVQ R8, SI \
	MOVQ R10, DI \
	MOVQ R11, CX \
	VECZERO \
	SHRQ $6, CX \
	JZ   DONE \
LOOP: \
	VECSTEP(LD, 16, XF, XS) \
	ADDQ $128, SI \
	ADDQ $(8*XS), DI \
	DECQ CX \
	JNZ  LOOP \
DONE: \
	VECSUM \
	VMOVSS X0, (BX) \
	ADDQ R9, R8 \
	ADDQ $4, BX \
	DECQ DX \
	JNZ  ROW \
	VZEROUPPER \
	RET

// func dotQ8_0AVX2(w *byte, x *q8Block, n int) float32
TEXT ·dotQ8_0AVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS   Y0, Y0, Y0
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15
	CMPQ     CX, $2
	JB       q80one

q80two:
	VMOVDQU 2(SI), Y1
	VMOVDQU 8(DI), Y2
	VMOVDQU 36(SI), Y3
	VMOVDQU 48(DI), Y4
	SDOT(Y1, Y2, Y15, Y5)
	SDOT(Y3, Y4, Y15, Y6)
	VCVTDQ2PS    Y1, Y1
	VCVTDQ2PS    Y3, Y3
	VPBROADCASTW (SI), X7
	VCVTPH2PS    X7, Y7
	VBROADCASTSS (DI), Y9
	VMULPS       Y9, Y7, Y7
	VFMADD231PS  Y1, Y7, Y0
	VPBROADCASTW 34(SI), X8
	VCVTPH2PS    X8, Y8
	VBROADCASTSS 40(DI), Y9
	VMULPS       Y9, Y8, Y8
	VFMADD231PS  Y3, Y8, Y0
	ADDQ         $68, SI
	ADDQ         $80, DI
	SUBQ         $2, CX
	CMPQ         CX, $2
	JAE          q80two

q80one:
	TESTQ CX, CX
	JZ    q80done
	VMOVDQU 2(SI), Y1
	VMOVDQU 8(DI), Y2
	SDOT(Y1, Y2, Y15, Y5)
	VCVTDQ2PS    Y1, Y1
	VPBROADCASTW (SI), X7
	VCVTPH2PS    X7, Y7
	VBROADCASTSS (DI), Y9
	VMULPS       Y9, Y7, Y7
	VFMADD231PS  Y1, Y7, Y0

q80done:
	HSUM8(Y0, X0, X1)
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// Q4SCALE(OFFW, OFFX) accumulates into X0, with one scalar fused
// multiply-add, the block dot in the low lane of X1 (int32) times the
// product of the F16 weight scale at OFFW(SI) and the activation scale at
// OFFX(DI).
#define Q4SCALE(OFFW, OFFX) \
	VCVTDQ2PS   X1, X1       \
	MOVWLZX     OFFW(SI), AX \
	VMOVD       AX, X6       \
	VCVTPH2PS   X6, X6       \
	VMULSS      OFFX(DI), X6, X6 \
	VFMADD231SS X6, X1, X0

// NIBBLES(OFFW) loads the 16 bytes of quants at OFFW(SI) into Y1 as 32
// nibbles, the low ones in the low half. Y14 holds bytes 0x0f.
#define NIBBLES(OFFW) \
	VMOVDQU     OFFW(SI), X1   \
	VPSRLW      $4, X1, X2     \
	VINSERTI128 $1, X2, Y1, Y1 \
	VPAND       Y14, Y1, Y1

// Q4SETUP sets X0 to zero, Y15 to 16-bit ones and Y14 to bytes 0x0f.
#define Q4SETUP \
	VXORPS       X0, X0, X0    \
	VPCMPEQW     Y15, Y15, Y15 \
	VPSRLW       $15, Y15, Y15 \
	MOVL         $0x0f0f0f0f, AX \
	VMOVD        AX, X14       \
	VPBROADCASTD X14, Y14

// iq4lut holds iq4Levels twice, once per 128-bit lane, for vpshufb.
DATA iq4lut<>+0(SB)/8, $0xf6eaddcfbfad9881
DATA iq4lut<>+8(SB)/8, $0x7159453526190d01
DATA iq4lut<>+16(SB)/8, $0xf6eaddcfbfad9881
DATA iq4lut<>+24(SB)/8, $0x7159453526190d01
GLOBL iq4lut<>(SB), RODATA|NOPTR, $32

// Q40CONV and IQ4CONV turn the nibbles in R into Q4_0's or IQ4_NL's
// signed quants; Y13 holds 8s or iq4lut.
#define Q40CONV(R) VPSUBB Y13, R, R
#define IQ4CONV(R) VPSHUFB R, Y13, R

// Q4BLK(CONV, OFFW, OFFX, R, XR, T, XT, T2) sets R to the eight int32
// lanes of the products of the quants at OFFW(SI) (CONV'd nibbles) and
// the activations at OFFX(DI).
#define Q4BLK(CONV, OFFW, OFFX, R, XR, T, XT, T2) \
	VMOVDQU     OFFW(SI), XR \
	VPSRLW      $4, XR, XT   \
	VINSERTI128 $1, XT, R, R \
	VPAND       Y14, R, R    \
	CONV(R)                  \
	VMOVDQU     OFFX(DI), T  \
	SDOT(R, T, Y15, T2)

// Q4DOTS(CONV, B, BS) sets X1's four lanes to the integer dots of four
// blocks of BS bytes, whose quants (CONV'd nibbles) start at B(SI),
// B+BS(SI), ..., with their activations, summed across lanes together
// with vphaddd and converted to float32.
#define Q4DOTS(CONV, B, BS) \
	Q4BLK(CONV, B, 8, Y1, X1, Y2, X2, Y9)          \
	Q4BLK(CONV, B+BS, 48, Y3, X3, Y4, X4, Y10)     \
	Q4BLK(CONV, B+2*BS, 88, Y5, X5, Y6, X6, Y11)   \
	Q4BLK(CONV, B+3*BS, 128, Y7, X7, Y8, X8, Y12)  \
	VPHADDD      Y3, Y1, Y1                        \
	VPHADDD      Y7, Y5, Y5                        \
	VPHADDD      Y5, Y1, Y1                        \
	VEXTRACTI128 $1, Y1, X2                        \
	VPADDD       X2, X1, X1                        \
	VCVTDQ2PS    X1, X1

// ACT4(OFF, X) sets X to the float32 at OFF in four activation blocks.
#define ACT4(OFF, X) \
	VMOVSS    OFF(DI), X                  \
	VINSERTPS $0x10, OFF+40(DI), X, X     \
	VINSERTPS $0x20, OFF+80(DI), X, X     \
	VINSERTPS $0x30, OFF+120(DI), X, X

// FMA4 multiplies the four weight scales in X2 by the activation scales
// in X3, then accumulates into X0 the lanes of X1 times those of X2, one
// scalar fused multiply-add per lane, in lane order.
#define FMA4 \
	VMULPS       X3, X2, X2                    \
	VFMADD231SS  X2, X1, X0                    \
	VMOVSHDUP    X1, X4                        \
	VMOVSHDUP    X2, X5                        \
	VFMADD231SS  X5, X4, X0                    \
	VMOVHLPS     X1, X1, X4                    \
	VMOVHLPS     X2, X2, X5                    \
	VFMADD231SS  X5, X4, X0                    \
	VPERMILPS    $0xff, X1, X4                 \
	VPERMILPS    $0xff, X2, X5                 \
	VFMADD231SS  X5, X4, X0

// Q4FOUR(CONV) accumulates four blocks into X0: their integer dots, then
// one scalar fused multiply-add each, in block order, by the product of
// the scales.
#define Q4FOUR(CONV) \
	Q4DOTS(CONV, 2, 18)                        \
	MOVWLZX      (SI), AX                      \
	VMOVD        AX, X2                        \
	VPINSRW      $1, 18(SI), X2, X2            \
	VPINSRW      $2, 36(SI), X2, X2            \
	VPINSRW      $3, 54(SI), X2, X2            \
	VCVTPH2PS    X2, X2                        \
	ACT4(0, X3)                                \
	FMA4

// Q4ONE(CONV) accumulates one block into X0.
#define Q4ONE(CONV) \
	Q4BLK(CONV, 2, 8, Y1, X1, Y2, X2, Y5) \
	IHSUM(Y1, X1, X5)                     \
	Q4SCALE(0, 0)

// Q4LOOP(FOUR, ONE, CONV, BS, L4, L1, DONE) runs the blocks of BS bytes,
// four at a time with FOUR(CONV), then one with ONE(CONV), and goes on at
// DONE with the sum in X0.
#define Q4LOOP(FOUR, ONE, CONV, BS, L4, L1, DONE) \
	CMPQ CX, $4         \
	JB   L1             \
L4:                     \
	FOUR(CONV)          \
	ADDQ $4*BS, SI      \
	ADDQ $160, DI       \
	SUBQ $4, CX         \
	CMPQ CX, $4         \
	JAE  L4             \
L1:                     \
	TESTQ CX, CX        \
	JZ   DONE           \
	ONE(CONV)           \
	ADDQ $BS, SI        \
	ADDQ $40, DI        \
	DECQ CX             \
	JMP  L1             \
DONE:

// func dotQ4_0AVX2(w *byte, x *q8Block, n int) float32
TEXT ·dotQ4_0AVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	Q4SETUP
	MOVL         $0x08080808, AX
	VMOVD        AX, X13
	VPBROADCASTD X13, Y13
	Q4LOOP(Q4FOUR, Q4ONE, Q40CONV, 18, q40four, q40one, q40done)
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func dotIQ4NLAVX2(w *byte, x *q8Block, n int) float32
TEXT ·dotIQ4NLAVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	Q4SETUP
	VMOVDQU iq4lut<>(SB), Y13
	Q4LOOP(Q4FOUR, Q4ONE, IQ4CONV, 18, iq4four, iq4one, iq4done)
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// Weight loads: eight weights at OFF(SI) widened to float32 in Y.
#define LDF32(OFF, Y) VMOVUPS OFF(SI), Y
#define LDF16(OFF, Y) VCVTPH2PS OFF(SI), Y
#define LDBF16(OFF, Y) \
	VPMOVZXWD OFF(SI), Y \
	VPSLLD    $16, Y, Y

// VECZERO clears the eight accumulators Y0-Y7 (four of 16 lanes).
#define VECZERO \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7

// Activation products of the dotVec kernels: ACC += W times the eight
// activations OFF bytes from DI, float32 ones (XF32, read by the fused
// multiply-add) or F16 ones (XF16, widened into T first).
#define XF32(OFF, W, ACC, T) VFMADD231PS OFF(DI), W, ACC
#define XF16(OFF, W, ACC, T) \
	VCVTPH2PS   OFF(DI), T \
	VFMADD231PS T, W, ACC

// VECSTEP(LD, S, XF, XS) accumulates 64 products: weights loaded with LD
// at S-byte steps from SI, activations taken by XF at XS-byte steps from
// DI; accumulator j holds elements 16j..16j+15 in Y(2j) and Y(2j+1).
#define VECSTEP(LD, S, XF, XS) \
	LD(0, Y8)    \
	XF(0, Y8, Y0, Y12) \
	LD(S, Y9)    \
	XF(XS, Y9, Y1, Y13) \
	LD(2*S, Y10) \
	XF(2*XS, Y10, Y2, Y14) \
	LD(3*S, Y11) \
	XF(3*XS, Y11, Y3, Y15) \
	LD(4*S, Y8)  \
	XF(4*XS, Y8, Y4, Y12) \
	LD(5*S, Y9)  \
	XF(5*XS, Y9, Y5, Y13) \
	LD(6*S, Y10) \
	XF(6*XS, Y10, Y6, Y14) \
	LD(7*S, Y11) \
	XF(7*XS, Y11, Y7, Y15)

// VECSUM combines the accumulators as dotVec does (0+=2, 1+=3, 0+=1) and
// reduces them as reduce16 does, leaving the sum in X0.
#define VECSUM \
	VADDPS Y4, Y0, Y0 \
	VADDPS Y5, Y1, Y1 \
	VADDPS Y6, Y2, Y2 \
	VADDPS Y7, Y3, Y3 \
	VADDPS Y2, Y0, Y0 \
	VADDPS Y3, Y1, Y1 \
	VADDPS Y1, Y0, Y0 \
	HSUM8(Y0, X0, X1)

// VECEND is VECSUM, returning the sum.
#define VECEND \
	VECSUM \
	VMOVSS X0, ret+24(FP) \
	VZEROUPPER \
	RET

// func dotF32VecAVX2(w *float32, x *float32, n int) float32
TEXT ·dotF32VecAVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	VECZERO
	SHRQ $6, CX
	JZ   f32vdone

f32vloop:
	VECSTEP(LDF32, 32, XF32, 32)
	ADDQ $256, SI
	ADDQ $256, DI
	DECQ CX
	JNZ  f32vloop

f32vdone:
	VECEND

// func dotF16VecAVX2(w *byte, x *float32, n int) float32
TEXT ·dotF16VecAVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	VECZERO
	SHRQ $6, CX
	JZ   f16vdone

f16vloop:
	VECSTEP(LDF16, 16, XF32, 32)
	ADDQ $128, SI
	ADDQ $256, DI
	DECQ CX
	JNZ  f16vloop

f16vdone:
	VECEND

// func dotF16Vec4AVX2(w *byte, x *float32, xstride, n int, out *[4]float32)
//
// dotF16VecAVX2 of the weight row at w against four activation rows
// xstride bytes apart from x, one after another in one call: out[r] the
// sum of row r, bit for bit.
TEXT ·dotF16Vec4AVX2(SB), NOSPLIT, $0-40
	MOVQ x+8(FP), R8
	MOVQ out+32(FP), R12
	MOVQ $4, R11

f16v4row:
	MOVQ w+0(FP), SI
	MOVQ R8, DI
	MOVQ n+24(FP), CX
	VECZERO
	SHRQ $6, CX
	JZ   f16v4sum

f16v4loop:
	VECSTEP(LDF16, 16, XF32, 32)
	ADDQ $128, SI
	ADDQ $256, DI
	DECQ CX
	JNZ  f16v4loop

f16v4sum:
	VECSUM
	VMOVSS X0, (R12)
	ADDQ   $4, R12
	ADDQ   xstride+16(FP), R8
	DECQ   R11
	JNZ    f16v4row
	VZEROUPPER
	RET

// func dotBF16VecAVX2(w *byte, x *float32, n int) float32
TEXT ·dotBF16VecAVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	VECZERO
	SHRQ $6, CX
	JZ   bf16vdone

bf16vloop:
	VECSTEP(LDBF16, 16, XF32, 32)
	ADDQ $128, SI
	ADDQ $256, DI
	DECQ CX
	JNZ  bf16vloop

bf16vdone:
	VECEND

// TINYSTEP(LD, S) accumulates 16 products into Y0 (lanes 0-7) and Y1
// (lanes 8-15).
#define TINYSTEP(LD, S) \
	LD(0, Y8) \
	VFMADD231PS 0(DI), Y8, Y0 \
	LD(S, Y9) \
	VFMADD231PS 32(DI), Y9, Y1

// TINYEND reduces the 16 lanes as reduce16 does and returns the sum.
#define TINYEND \
	VADDPS Y1, Y0, Y0 \
	HSUM8(Y0, X0, X1) \
	VMOVSS X0, ret+24(FP) \
	VZEROUPPER \
	RET

// func dotF32TinyAVX2(w *float32, x *float32, n int) float32
TEXT ·dotF32TinyAVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	SHRQ   $4, CX
	JZ     f32tdone

f32tloop:
	TINYSTEP(LDF32, 32)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  f32tloop

f32tdone:
	TINYEND

// func dotF16TinyAVX2(w *byte, x *float32, n int) float32
TEXT ·dotF16TinyAVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	SHRQ   $4, CX
	JZ     f16tdone

f16tloop:
	TINYSTEP(LDF16, 16)
	ADDQ $32, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  f16tloop

f16tdone:
	TINYEND

// func dotBF16TinyAVX2(w *byte, x *float32, n int) float32
TEXT ·dotBF16TinyAVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	SHRQ   $4, CX
	JZ     bf16tdone

bf16tloop:
	TINYSTEP(LDBF16, 16)
	ADDQ $32, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  bf16tloop

bf16tdone:
	TINYEND

// PACK32(A, B, C, D) packs the int32 lanes of A, B, C, D (saturating to
// int8, which is ggml's min(127, ·) for the values quantizers produce) into
// A's 32 bytes in order. Y13 holds the vpermd indices 0,4,1,5,2,6,3,7.
#define PACK32(A, B, C, D) \
	VPACKSSDW B, A, A \
	VPACKSSDW D, C, C \
	VPACKSSWB C, A, A \
	VPERMD    A, Y13, A

// HMAX(X, T) leaves in the low lane of X (an xmm register) the largest of
// its four lanes; T is scratch.
#define HMAX(X, T) \
	VMOVHLPS X, X, T        \
	VMAXPS   T, X, X        \
	VPSHUFD  $0xb1, X, T    \
	VMAXPS   T, X, X

// permidx holds the vpermd indices of PACK32.
DATA permidx<>+0(SB)/8, $0x0000000400000000
DATA permidx<>+8(SB)/8, $0x0000000500000001
DATA permidx<>+16(SB)/8, $0x0000000600000002
DATA permidx<>+24(SB)/8, $0x0000000700000003
GLOBL permidx<>(SB), RODATA|NOPTR, $32

// PERMSETUP sets Y13 to the vpermd indices of PACK32 and Y15 to the mask
// clearing float signs.
#define PERMSETUP \
	VMOVDQU  permidx<>(SB), Y13 \
	VPCMPEQD Y15, Y15, Y15      \
	VPSRLD   $1, Y15, Y15

// func quantQ8AVX2(x *float32, out *q8Block, n int, sums bool)
TEXT ·quantQ8AVX2(SB), NOSPLIT, $0-25
	MOVQ    x+0(FP), SI
	MOVQ    out+8(FP), DI
	MOVQ    n+16(FP), CX
	MOVBLZX sums+24(FP), DX
	PERMSETUP
	MOVL    $0x42fe0000, AX // 127
	VMOVD   AX, X14
	TESTQ   CX, CX
	JZ      q8done

q8loop:
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VANDPS  Y15, Y0, Y4
	VANDPS  Y15, Y1, Y5
	VMAXPS  Y5, Y4, Y4
	VANDPS  Y15, Y2, Y5
	VMAXPS  Y5, Y4, Y4
	VANDPS  Y15, Y3, Y5
	VMAXPS  Y5, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VMAXPS  X5, X4, X4
	HMAX(X4, X5)            // amax in X4
	VDIVSS  X14, X4, X5     // d = amax/127
	VDIVSS  X4, X14, X6     // 127/amax
	VXORPS  X7, X7, X7
	VCMPSS  $4, X7, X4, X8  // amax != 0
	VANDPS  X8, X6, X6      // id
	VCVTPS2PH $0, X5, X7
	VCVTPH2PS X7, X7
	VMOVSS  X7, 0(DI)
	VBROADCASTSS X6, Y6
	VMULPS  Y6, Y0, Y0
	VMULPS  Y6, Y1, Y1
	VMULPS  Y6, Y2, Y2
	VMULPS  Y6, Y3, Y3
	VCVTPS2DQ Y0, Y0
	VCVTPS2DQ Y1, Y1
	VCVTPS2DQ Y2, Y2
	VCVTPS2DQ Y3, Y3
	TESTQ   DX, DX
	JZ      q8pack
	VPADDD  Y1, Y0, Y8
	VPADDD  Y3, Y2, Y9
	VPADDD  Y9, Y8, Y8
	IHSUM(Y8, X8, X9)
	VCVTDQ2PS X8, X8
	VMULSS  X8, X5, X8      // d·Σq
	VCVTPS2PH $0, X8, X8
	VCVTPH2PS X8, X8
	VMOVSS  X8, 4(DI)

q8pack:
	PACK32(Y0, Y1, Y2, Y3)
	VMOVDQU Y0, 8(DI)
	ADDQ    $128, SI
	ADDQ    $40, DI
	DECQ    CX
	JNZ     q8loop

q8done:
	VZEROUPPER
	RET

// func quantQ8KAVX2(x *float32, out *q8KBlock, n int, grouped bool)
TEXT ·quantQ8KAVX2(SB), NOSPLIT, $0-25
	MOVQ    x+0(FP), SI
	MOVQ    out+8(FP), DI
	MOVQ    n+16(FP), CX
	MOVBLZX grouped+24(FP), DX
	PERMSETUP
	VPCMPEQW Y11, Y11, Y11
	VPSRLW   $15, Y11, Y11  // 16-bit ones
	VPCMPEQB Y12, Y12, Y12
	VPABSB   Y12, Y12       // bytes of 1
	TESTQ   CX, CX
	JZ      qkdone

qkblock:
	// max|x| over the 256 values, into every lane of Y0
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	XORQ    AX, AX

qkamax:
	VANDPS  (SI)(AX*1), Y15, Y2
	VMAXPS  Y2, Y0, Y0
	VANDPS  32(SI)(AX*1), Y15, Y3
	VMAXPS  Y3, Y1, Y1
	ADDQ    $64, AX
	CMPQ    AX, $1024
	JB      qkamax
	VMAXPS  Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS  X1, X0, X0
	HMAX(X0, X1)
	VPSHUFD $0, X0, X0
	VINSERTF128 $1, X0, Y0, Y0
	VXORPS  X1, X1, X1
	VUCOMISS X1, X0
	JEQ     qkzero

	// maxv: the first value of magnitude amax, in X3
	XORQ    AX, AX

qkfind:
	VANDPS  (SI)(AX*4), Y15, Y2
	VCMPPS  $0, Y0, Y2, Y2
	VMOVMSKPS Y2, BX
	TESTL   BX, BX
	JNZ     qkfound
	ADDQ    $8, AX
	CMPQ    AX, $256
	JB      qkfind
	VMOVAPS X0, X3          // not reached but for NaNs
	JMP     qkgrouped

qkfound:
	BSFL    BX, BX
	ADDQ    BX, AX
	VMOVSS  (SI)(AX*4), X3

qkgrouped:
	// grouped: a negative maxv gives way to +amax if present
	TESTQ   DX, DX
	JZ      qkscale
	VUCOMISS X1, X3
	JAE     qkscale
	XORQ    AX, AX
	VXORPS  Y4, Y4, Y4

qkpos:
	VCMPPS  $0, (SI)(AX*4), Y0, Y2
	VORPS   Y2, Y4, Y4
	ADDQ    $8, AX
	CMPQ    AX, $256
	JB      qkpos
	VMOVMSKPS Y4, BX
	TESTL   BX, BX
	JZ      qkscale
	VMOVAPS X0, X3

qkscale:
	MOVL    $0xc2fe0000, AX // -127
	VMOVD   AX, X4
	VDIVSS  X3, X4, X4      // iscale = -127/maxv
	MOVL    $0x3f800000, AX // 1
	VMOVD   AX, X5
	VDIVSS  X4, X5, X5      // d = 1/iscale
	VMOVSS  X5, 0(DI)
	VBROADCASTSS X4, Y4
	MOVQ    SI, R8
	LEAQ    4(DI), R9
	LEAQ    260(DI), R10
	MOVQ    $8, R11

qkquant:
	VMULPS  0(R8), Y4, Y0
	VMULPS  32(R8), Y4, Y1
	VMULPS  64(R8), Y4, Y2
	VMULPS  96(R8), Y4, Y3
	VCVTPS2DQ Y0, Y0
	VCVTPS2DQ Y1, Y1
	VCVTPS2DQ Y2, Y2
	VCVTPS2DQ Y3, Y3
	PACK32(Y0, Y1, Y2, Y3)
	VMOVDQU Y0, (R9)
	// bsum of the two groups of 16: byte pairs, then quads, then the
	// four quads of each half
	VPMADDUBSW Y0, Y12, Y5
	VPMADDWD   Y11, Y5, Y5
	VEXTRACTI128 $1, Y5, X6
	VPHADDD    X6, X5, X5
	VPHADDD    X5, X5, X5
	VPACKSSDW  X5, X5, X5
	VMOVD      X5, (R10)
	ADDQ    $128, R8
	ADDQ    $32, R9
	ADDQ    $4, R10
	DECQ    R11
	JNZ     qkquant
	JMP     qknext

qkzero:
	VPXOR   Y1, Y1, Y1
	VMOVDQU Y1, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y1, 64(DI)
	VMOVDQU Y1, 96(DI)
	VMOVDQU Y1, 128(DI)
	VMOVDQU Y1, 160(DI)
	VMOVDQU Y1, 192(DI)
	VMOVDQU Y1, 224(DI)
	VMOVDQU Y1, 256(DI)
	MOVL    $0, 288(DI)

qknext:
	ADDQ    $1024, SI
	ADDQ    $292, DI
	DECQ    CX
	JNZ     qkblock

qkdone:
	VZEROUPPER
	RET

// The other 32-block types (Q5_0, Q4_1, Q5_1) follow dot32's generic
// path: per block, sum += float32(dot)·(d_w·d_x) + m_w·s_x, each operation
// rounded on its own (Go does not fuse them for GOAMD64 below v3). Four
// blocks share the cross-lane sums and the products; the additions into
// the sum stay in block order.

// qhidx, qhbits and the constants set by Q32SETUP expand Q5's 32 high bits
// into bytes: byte k gets qh's byte k/8, keeps bit k%8, and becomes 0x10
// where that bit is set.
DATA qhidx<>+0(SB)/8, $0x0000000000000000
DATA qhidx<>+8(SB)/8, $0x0101010101010101
DATA qhidx<>+16(SB)/8, $0x0202020202020202
DATA qhidx<>+24(SB)/8, $0x0303030303030303
GLOBL qhidx<>(SB), RODATA|NOPTR, $32

DATA qhbits<>+0(SB)/8, $0x8040201008040201
DATA qhbits<>+8(SB)/8, $0x8040201008040201
DATA qhbits<>+16(SB)/8, $0x8040201008040201
DATA qhbits<>+24(SB)/8, $0x8040201008040201
GLOBL qhbits<>(SB), RODATA|NOPTR, $32

// Q32SETUP sets X0 to zero, Y15 to 16-bit ones, Y14 to bytes 0x0f, Y13 to
// bytes 16, Y12 and Y11 to qhidx and qhbits, Y10 to bytes 0x10.
#define Q32SETUP \
	Q4SETUP                     \
	MOVL         $0x10101010, AX \
	VMOVD        AX, X13        \
	VPBROADCASTD X13, Y13       \
	VMOVDQA      Y13, Y10       \
	VMOVDQU      qhidx<>(SB), Y12 \
	VMOVDQU      qhbits<>(SB), Y11

// NIB(OFF, R, XR, XT) loads the 16 bytes at OFF(SI) into R as 32 nibbles.
#define NIB(OFF, R, XR, XT) \
	VMOVDQU     OFF(SI), XR  \
	VPSRLW      $4, XR, XT   \
	VINSERTI128 $1, XT, R, R \
	VPAND       Y14, R, R

// HIGH(OFF, R, T) ors into R the fifth bits from the 32 bits at OFF(SI).
#define HIGH(OFF, R, T) \
	VPBROADCASTD OFF(SI), T \
	VPSHUFB      Y12, T, T  \
	VPAND        Y11, T, T  \
	VPCMPEQB     Y11, T, T  \
	VPAND        Y10, T, T  \
	VPOR         T, R, R

// UDOT(R, OFFX) sets R to the eight int32 lanes of the products of its
// unsigned quants with the activations at OFFX(DI).
#define UDOT(R, OFFX) \
	VPMADDUBSW OFFX(DI), R, R \
	VPMADDWD   Y15, R, R

// Q50(B, OFFX, R, XR, T, XT, T2): the int32 lanes of the Q5_0 block at
// B(SI) (d, qh, qs[16]) with the activations at OFFX(DI).
#define Q50(B, OFFX, R, XR, T, XT, T2) \
	NIB(B+6, R, XR, XT)    \
	HIGH(B+2, R, T)        \
	VPSUBB  Y13, R, R      \
	VMOVDQU OFFX(DI), T    \
	SDOT(R, T, Y15, T2)

// Q41(B, ...): the same for a Q4_1 block (d, m, qs[16]).
#define Q41(B, OFFX, R, XR, T, XT, T2) \
	NIB(B+4, R, XR, XT) \
	UDOT(R, OFFX)

// Q51(B, ...): the same for a Q5_1 block (d, m, qh, qs[16]).
#define Q51(B, OFFX, R, XR, T, XT, T2) \
	NIB(B+8, R, XR, XT) \
	HIGH(B+4, R, T)     \
	UDOT(R, OFFX)

// F16X4(OFF, BS, X) sets X to the four F16 values at OFF(SI), OFF+BS(SI),
// ... widened.
#define F16X4(OFF, BS, X) \
	MOVWLZX   OFF(SI), AX                 \
	VMOVD     AX, X                       \
	VPINSRW   $1, OFF+BS(SI), X, X        \
	VPINSRW   $2, OFF+2*BS(SI), X, X      \
	VPINSRW   $3, OFF+3*BS(SI), X, X      \
	VCVTPH2PS X, X

// MIN4(OFF, BS, X) and NOMIN4 set X to the weight minimums of four blocks
// (zero for Q5_0).
#define MIN4(OFF, BS, X) F16X4(OFF, BS, X)
#define NOMIN4(OFF, BS, X) VXORPS X, X, X

// G32FOUR(QM, BS, MIN) accumulates four blocks of size BS into X0.
#define G32FOUR(QM, BS, MIN) \
	QM(0, 8, Y1, X1, Y2, X2, Y4)         \
	QM(BS, 48, Y3, X3, Y2, X2, Y4)       \
	QM(2*BS, 88, Y5, X5, Y2, X2, Y4)     \
	QM(3*BS, 128, Y7, X7, Y2, X2, Y4)    \
	VPHADDD      Y3, Y1, Y1              \
	VPHADDD      Y7, Y5, Y5              \
	VPHADDD      Y5, Y1, Y1              \
	VEXTRACTI128 $1, Y1, X2              \
	VPADDD       X2, X1, X1              \
	VCVTDQ2PS    X1, X1                  \
	F16X4(0, BS, X2)                     \
	ACT4(0, X3)                          \
	VMULPS       X3, X2, X2              \
	VMULPS       X2, X1, X1              \
	MIN(2, BS, X4)                       \
	ACT4(4, X5)                          \
	VMULPS       X5, X4, X4              \
	VADDPS       X4, X1, X1              \
	VADDSS       X1, X0, X0              \
	VMOVSHDUP    X1, X2                  \
	VADDSS       X2, X0, X0              \
	VMOVHLPS     X1, X1, X2              \
	VADDSS       X2, X0, X0              \
	VPERMILPS    $0xff, X1, X2           \
	VADDSS       X2, X0, X0

// MIN1(X) and NOMIN1(X) set X's low lane to one block's minimum (or zero).
#define MIN1(X) \
	MOVWLZX   2(SI), AX \
	VMOVD     AX, X     \
	VCVTPH2PS X, X
#define NOMIN1(X) VXORPS X, X, X

// G32ONE(QM, MIN) accumulates one block into X0.
#define G32ONE(QM, MIN) \
	QM(0, 8, Y1, X1, Y2, X2, Y4) \
	IHSUM(Y1, X1, X5)            \
	VCVTDQ2PS X1, X1             \
	MOVWLZX   (SI), AX           \
	VMOVD     AX, X2             \
	VCVTPH2PS X2, X2             \
	VMULSS    (DI), X2, X2       \
	VMULSS    X2, X1, X1         \
	MIN(X4)                      \
	VMULSS    4(DI), X4, X4      \
	VADDSS    X4, X1, X1         \
	VADDSS    X1, X0, X0

// G32LOOP runs the blocks, four at a time, then one, and returns X0.
#define G32LOOP(QM, BS, MIN4M, MIN1M, L4, L1, DONE) \
	CMPQ CX, $4              \
	JB   L1                  \
L4:                          \
	G32FOUR(QM, BS, MIN4M)   \
	ADDQ $4*BS, SI           \
	ADDQ $160, DI            \
	SUBQ $4, CX              \
	CMPQ CX, $4              \
	JAE  L4                  \
L1:                          \
	TESTQ CX, CX             \
	JZ   DONE                \
	G32ONE(QM, MIN1M)        \
	ADDQ $BS, SI             \
	ADDQ $40, DI             \
	DECQ CX                  \
	JMP  L1                  \
DONE:                        \
	VMOVSS X0, ret+24(FP)    \
	VZEROUPPER               \
	RET

// func dotQ5_0AVX2(w *byte, x *q8Block, n int) float32
TEXT ·dotQ5_0AVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	Q32SETUP
	G32LOOP(Q50, 22, NOMIN4, NOMIN1, q50four, q50one, q50done)

// func dotQ4_1AVX2(w *byte, x *q8Block, n int) float32
TEXT ·dotQ4_1AVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	Q32SETUP
	G32LOOP(Q41, 20, MIN4, MIN1, q41four, q41one, q41done)

// func dotQ5_1AVX2(w *byte, x *q8Block, n int) float32
TEXT ·dotQ5_1AVX2(SB), NOSPLIT, $0-28
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ n+16(FP), CX
	Q32SETUP
	G32LOOP(Q51, 24, MIN4, MIN1, q51four, q51one, q51done)

// The MXFP4 kernel: the IQ4_NL kernel for 17-byte blocks whose scale is
// an E8M0 byte.

// fp4lut holds quant.FP4Levels twice, once per 128-bit lane, for vpshufb.
DATA fp4lut<>+0(SB)/8, $0x0c08060403020100
DATA fp4lut<>+8(SB)/8, $0xf4f8fafcfdfeff00
DATA fp4lut<>+16(SB)/8, $0x0c08060403020100
DATA fp4lut<>+24(SB)/8, $0xf4f8fafcfdfeff00
GLOBL fp4lut<>(SB), RODATA|NOPTR, $32

// MXSCALE(OFFW, IMM, X) inserts into lane IMM>>4 of X the half-scale of
// the E8M0 byte at OFFW(SI), from the table at R8.
#define MXSCALE(OFFW, IMM, X) \
	MOVBLZX   OFFW(SI), AX \
	VINSERTPS IMM, (R8)(AX*4), X, X

// MXFOUR(CONV) is Q4FOUR for MXFP4 blocks (e, qs[16]).
#define MXFOUR(CONV) \
	Q4DOTS(CONV, 1, 17)        \
	MXSCALE(0, $0x00, X2)      \
	MXSCALE(17, $0x10, X2)     \
	MXSCALE(34, $0x20, X2)     \
	MXSCALE(51, $0x30, X2)     \
	ACT4(0, X3)                \
	FMA4

// MXONE(CONV) is Q4ONE for one MXFP4 block.
#define MXONE(CONV) \
	Q4BLK(CONV, 1, 8, Y1, X1, Y2, X2, Y5) \
	IHSUM(Y1, X1, X5)                     \
	VCVTDQ2PS   X1, X1                    \
	MXSCALE(0, $0x00, X6)                 \
	VMULSS      (DI), X6, X6              \
	VFMADD231SS X6, X1, X0

// func dotMXFP4AVX2(w *byte, x *q8Block, n int, scales *[256]float32) float32
TEXT ·dotMXFP4AVX2(SB), NOSPLIT, $0-36
	MOVQ    scales+24(FP), R8
	Q4SETUP
	VMOVDQU fp4lut<>(SB), Y13
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    n+16(FP), CX
	Q4LOOP(MXFOUR, MXONE, IQ4CONV, 17, mxfour, mxone, mxdone)
	VMOVSS X0, ret+32(FP)
	VZEROUPPER
	RET

// func dotF16RowsAVX2(w *byte, wstride int, x *float32, n int, out *float32, rows int)
TEXT ·dotF16RowsAVX2(SB), NOSPLIT, $0-48
	VECROWS(LDF16, XF32, 32, f16rrow, f16rloop, f16rdone)

// func dotF16RowsHAVX2(w *byte, wstride int, x *byte, n int, out *float32, rows int)
TEXT ·dotF16RowsHAVX2(SB), NOSPLIT, $0-48
	VECROWS(LDF16, XF16, 16, f16hrrow, f16hrloop, f16hrdone)

// func dotBF16RowsAVX2(w *byte, wstride int, x *float32, n int, out *float32, rows int)
TEXT ·dotBF16RowsAVX2(SB), NOSPLIT, $0-48
	VECROWS(LDBF16, XF32, 32, bf16rrow, bf16rloop, bf16rdone)
