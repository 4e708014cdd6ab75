#include "textflag.h"

// zRowIdx gathers lanes 0, 4, 8 and 12 into the low four (ZROW).
DATA zRowIdx<>+0(SB)/4, $0
DATA zRowIdx<>+4(SB)/4, $4
DATA zRowIdx<>+8(SB)/4, $8
DATA zRowIdx<>+12(SB)/4, $12
DATA zRowIdx<>+16(SB)/8, $0
DATA zRowIdx<>+24(SB)/8, $0
DATA zRowIdx<>+32(SB)/8, $0
DATA zRowIdx<>+40(SB)/8, $0
DATA zRowIdx<>+48(SB)/8, $0
DATA zRowIdx<>+56(SB)/8, $0
GLOBL zRowIdx<>(SB), RODATA|NOPTR, $64

// AVX-512 kernels for float (F16, BF16, F32) weights (see
// avx512_float_amd64.go): register tiles of four weight rows against six
// activation rows and single-row dotVec kernels. One zmm holds one output's
// sixteen lanes (dotTiny's, or one of dotVec's four accumulators), so
// every output sees the oracle's fused multiply-adds in its order.
//
// The tiles take a *tileArgs (w @0, wstride @8, x @16, xstride @24, n @32
// values, out @40, ostride @48). Registers: Z(6i+j) accumulates output
// (i, j); Z24-Z27 hold the widened weights of the current sixteen values
// of rows 0-3, Z28 one activation vector. SI is weight row 0 (R12
// wstride, R13 3·wstride), DI activation row 0 and R8 activation row 3
// (R9 xstride), CX the chunks of 16, BX the outputs (R11 4·ostride).

// Weight loads: sixteen weights at ADDR widened to float32 in Z.
#define ZLD32(ADDR, Z) VMOVUPS ADDR, Z
#define ZLD16(ADDR, Z) VCVTPH2PS ADDR, Z
#define ZLDBF16(ADDR, Z) \
	VPMOVZXWD ADDR, Z; \
	VPSLLD    $16, Z, Z

// ZCOL(XLD, XADDR, A0, A1, A2, A3) accumulates activation vector XADDR
// (loaded by XLD: ZLD32 for float32 activations, ZLD16 for F16) times the
// four weight vectors into A0-A3 (weight rows 0-3).
#define ZCOL(XLD, XADDR, A0, A1, A2, A3) \
	XLD(XADDR, Z28); \
	VFMADD231PS Z28, Z24, A0; \
	VFMADD231PS Z28, Z25, A1; \
	VFMADD231PS Z28, Z26, A2; \
	VFMADD231PS Z28, Z27, A3

// ZCHUNK5(LD, XLD) accumulates one chunk of sixteen values for the
// outputs of the first five activation rows (a 4×5 tile's 20), the
// weights loaded by LD and the activations by XLD.
#define ZCHUNK5(LD, XLD) \
	LD(0(SI), Z24); \
	LD(0(SI)(R12*1), Z25); \
	LD(0(SI)(R12*2), Z26); \
	LD(0(SI)(R13*1), Z27); \
	ZCOL(XLD, 0(DI), Z0, Z6, Z12, Z18); \
	ZCOL(XLD, 0(DI)(R9*1), Z1, Z7, Z13, Z19); \
	ZCOL(XLD, 0(DI)(R9*2), Z2, Z8, Z14, Z20); \
	ZCOL(XLD, 0(R8), Z3, Z9, Z15, Z21); \
	ZCOL(XLD, 0(R8)(R9*1), Z4, Z10, Z16, Z22)

// ZCHUNK(LD, XLD) is ZCHUNK5 and the sixth activation row: one chunk for
// all 24 outputs of a 4×6 tile.
#define ZCHUNK(LD, XLD) \
	ZCHUNK5(LD, XLD); \
	ZCOL(XLD, 0(R8)(R9*2), Z5, Z11, Z17, Z23)

// ZZERO24 clears the 24 accumulators.
#define ZZERO24 \
	VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; VPXORD Z5, Z5, Z5; VPXORD Z6, Z6, Z6; VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; VPXORD Z9, Z9, Z9; VPXORD Z10, Z10, Z10; VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; VPXORD Z13, Z13, Z13; VPXORD Z14, Z14, Z14; VPXORD Z15, Z15, Z15; \
	VPXORD Z16, Z16, Z16; VPXORD Z17, Z17, Z17; VPXORD Z18, Z18, Z18; VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20; VPXORD Z21, Z21, Z21; VPXORD Z22, Z22, Z22; VPXORD Z23, Z23, Z23

// ZOUT(Z, Y, X, OFF) stores reduce16 of Z's lanes at OFF: the high eight
// lanes onto the low eight, then hsum8 (high four onto low four, lanes 0+2
// and 1+3, then the two). Only EVEX forms, which reach Z16-Z31.
#define ZOUT(Z, Y, X, OFF) \
	VEXTRACTF64X4 $1, Z, Y29; \
	VADDPS        Y29, Y, Y; \
	VEXTRACTF32X4 $1, Y, X29; \
	VADDPS        X29, X, X; \
	VMOVHLPS      X, X, X29; \
	VADDPS        X29, X, X; \
	VMOVSHDUP     X, X29; \
	VADDSS        X29, X, X; \
	VMOVSS        X, OFF

// ZROW(A0, A1, A2, A3, ADDR) stores one activation row's four outputs
// (weight rows 0-3, accumulated in A0-A3) at ADDR, four floats side by
// side: each reduce16 of ZOUT, add for add with the same operands in the
// same order, but the four reductions share their vectors (two outputs'
// sixteen lanes to eight a register, then four outputs' eight lanes to
// four, then the two last steps within each 128-bit lane). That takes
// nine shuffles and five adds for four outputs where ZOUT takes four and
// four for one. Z30 holds zRowIdx; Z24-Z27 are scratch.
#define ZROW(A0, A1, A2, A3, ADDR) \
	VSHUFF64X2 $0x44, A1, A0, Z24; \
	VSHUFF64X2 $0xee, A1, A0, Z25; \
	VADDPS     Z25, Z24, Z24; \
	VSHUFF64X2 $0x44, A3, A2, Z25; \
	VSHUFF64X2 $0xee, A3, A2, Z26; \
	VADDPS     Z26, Z25, Z25; \
	VSHUFF32X4 $0x88, Z25, Z24, Z26; \
	VSHUFF32X4 $0xdd, Z25, Z24, Z27; \
	VADDPS     Z27, Z26, Z26; \
	VSHUFPS    $0xee, Z26, Z26, Z27; \
	VADDPS     Z27, Z26, Z26; \
	VMOVSHDUP  Z26, Z27; \
	VADDPS     Z27, Z26, Z26; \
	VPERMPS    Z26, Z30, Z26; \
	VMOVUPS    X26, ADDR

// ZOUT5 reduces and stores the outputs of the first five activation rows;
// activation row j's outputs are j·ostride floats from BX (R14 = BX +
// 3·4·ostride).
#define ZOUT5 \
	LEAQ      (R11)(R11*2), R14; \
	ADDQ      BX, R14; \
	VMOVDQU32 zRowIdx<>(SB), Z30; \
	ZROW(Z0, Z6, Z12, Z18, 0(BX)); \
	ZROW(Z1, Z7, Z13, Z19, 0(BX)(R11*1)); \
	ZROW(Z2, Z8, Z14, Z20, 0(BX)(R11*2)); \
	ZROW(Z3, Z9, Z15, Z21, 0(R14)); \
	ZROW(Z4, Z10, Z16, Z22, 0(R14)(R11*1))

// ZFINAL reduces the 24 accumulators of a 4×6 tile, stores the outputs
// and returns.
#define ZFINAL \
	ZOUT5; \
	ZROW(Z5, Z11, Z17, Z23, 0(R14)(R11*2)); \
	VZEROUPPER; \
	RET

// ZFINAL5 is ZFINAL for a 4×5 tile: the first five activation rows.
#define ZFINAL5 \
	ZOUT5; \
	VZEROUPPER; \
	RET

// ZTILE(CHUNK, FINAL, LD, XLD, S, XS, LOOP, DONE) is the body of a 4×6
// (ZCHUNK, ZFINAL) or 4×5 (ZCHUNK5, ZFINAL5) tile kernel, S the bytes of
// sixteen weights and XS of sixteen activations.
#define ZTILE(CHUNK, FINAL, LD, XLD, S, XS, LOOP, DONE) \
	MOVQ a+0(FP), AX; \
	MOVQ 0(AX), SI; \
	MOVQ 8(AX), R12; \
	LEAQ (R12)(R12*2), R13; \
	MOVQ 16(AX), DI; \
	MOVQ 24(AX), R9; \
	LEAQ (R9)(R9*2), R8; \
	ADDQ DI, R8; \
	MOVQ 32(AX), CX; \
	MOVQ 40(AX), BX; \
	MOVQ 48(AX), R11; \
	SHLQ $2, R11; \
	ZZERO24; \
	SHRQ $4, CX; \
	JZ   DONE; \
LOOP: \
	CHUNK(LD, XLD); \
	ADDQ $S, SI; \
	ADDQ $XS, DI; \
	ADDQ $XS, R8; \
	DECQ CX; \
	JNZ  LOOP; \
DONE: \
	FINAL

// ---------------------------------------------------------------------
// Single-row kernels: dotVec's four accumulators of sixteen lanes (one zmm
// each) over each 64 values, and dotTiny's one. Each takes (w, x, n) with
// n a multiple of 64 (Vec) or 16 (Tiny) and returns the reduced sum.

// ZVECSUM(LD, S, LOOP, DONE) leaves in Z0 the sixteen lanes of a dotVec
// sum of CX values (a multiple of 64) of weights at SI and activations at
// DI, S the bytes of sixteen weights: accumulator j (Zj) takes values
// 16j..16j+15 of each 64; at the end 0 += 2, 1 += 3, 0 += 1.
#define ZVECSUM(LD, S, LOOP, DONE) \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	SHRQ   $6, CX; \
	JZ     DONE; \
LOOP: \
	LD(0(SI), Z4); \
	LD(S(SI), Z5); \
	LD(2*S(SI), Z6); \
	LD(3*S(SI), Z7); \
	VFMADD231PS 0(DI), Z4, Z0; \
	VFMADD231PS 64(DI), Z5, Z1; \
	VFMADD231PS 128(DI), Z6, Z2; \
	VFMADD231PS 192(DI), Z7, Z3; \
	ADDQ $(4*S), SI; \
	ADDQ $256, DI; \
	DECQ CX; \
	JNZ  LOOP; \
DONE: \
	VADDPS Z2, Z0, Z0; \
	VADDPS Z3, Z1, Z1; \
	VADDPS Z1, Z0, Z0

// ZVEC(LD, S, LOOP, DONE) is the body of a dotVec kernel: ZVECSUM, then
// reduce16.
#define ZVEC(LD, S, LOOP, DONE) \
	MOVQ w+0(FP), SI; \
	MOVQ x+8(FP), DI; \
	MOVQ n+16(FP), CX; \
	ZVECSUM(LD, S, LOOP, DONE); \
	ZOUT(Z0, Y0, X0, ret+24(FP)); \
	VZEROUPPER; \
	RET

// ZROWS(LD, S, ROW, LOOP, DONE) is the body of a dotVec kernel over rows
// weight rows (rows > 0) wstride bytes apart against one activation row,
// each row's sum stored at out[r] as ZVEC returns it. The rows are read
// one after another, one stream the hardware prefetchers follow.
#define ZROWS(LD, S, ROW, LOOP, DONE) \
	MOVQ w+0(FP), R8; \
	MOVQ wstride+8(FP), R9; \
	MOVQ x+16(FP), R10; \
	MOVQ n+24(FP), R11; \
	MOVQ out+32(FP), BX; \
	MOVQ rows+40(FP), DX; \
ROW: \
	MOVQ R8, SI; \
	MOVQ R10, DI; \
	MOVQ R11, CX; \
	ZVECSUM(LD, S, LOOP, DONE); \
	ZOUT(Z0, Y0, X0, (BX)); \
	ADDQ R9, R8; \
	ADDQ $4, BX; \
	DECQ DX; \
	JNZ  ROW; \
	VZEROUPPER; \
	RET

// func dotF16RowsAVX512(w *byte, wstride int, x *float32, n int, out *float32, rows int)
TEXT ·dotF16RowsAVX512(SB), NOSPLIT, $0-48
	ZROWS(ZLD16, 32, f16rrow, f16rloop, f16rdone)

// func dotBF16RowsAVX512(w *byte, wstride int, x *float32, n int, out *float32, rows int)
TEXT ·dotBF16RowsAVX512(SB), NOSPLIT, $0-48
	ZROWS(ZLDBF16, 32, bf16rrow, bf16rloop, bf16rdone)

// func tileF16x4x6AVX512(a *tileArgs)
TEXT ·tileF16x4x6AVX512(SB), NOSPLIT, $0-8
	ZTILE(ZCHUNK, ZFINAL, ZLD16, ZLD32, 32, 64, f16zloop, f16zdone)

// func tileF16x4x6HAVX512(a *tileArgs)
TEXT ·tileF16x4x6HAVX512(SB), NOSPLIT, $0-8
	ZTILE(ZCHUNK, ZFINAL, ZLD16, ZLD16, 32, 32, f16hzloop, f16hzdone)

// func tileBF16x4x6AVX512(a *tileArgs)
TEXT ·tileBF16x4x6AVX512(SB), NOSPLIT, $0-8
	ZTILE(ZCHUNK, ZFINAL, ZLDBF16, ZLD32, 32, 64, bf16zloop, bf16zdone)

// func tileF32x4x6AVX512(a *tileArgs)
TEXT ·tileF32x4x6AVX512(SB), NOSPLIT, $0-8
	ZTILE(ZCHUNK, ZFINAL, ZLD32, ZLD32, 64, 64, f32zloop, f32zdone)

// func tileF16x4x5AVX512(a *tileArgs)
TEXT ·tileF16x4x5AVX512(SB), NOSPLIT, $0-8
	ZTILE(ZCHUNK5, ZFINAL5, ZLD16, ZLD32, 32, 64, f16z5loop, f16z5done)

// func tileF16x4x5HAVX512(a *tileArgs)
TEXT ·tileF16x4x5HAVX512(SB), NOSPLIT, $0-8
	ZTILE(ZCHUNK5, ZFINAL5, ZLD16, ZLD16, 32, 32, f16hz5loop, f16hz5done)

// func tileBF16x4x5AVX512(a *tileArgs)
TEXT ·tileBF16x4x5AVX512(SB), NOSPLIT, $0-8
	ZTILE(ZCHUNK5, ZFINAL5, ZLDBF16, ZLD32, 32, 64, bf16z5loop, bf16z5done)

// func tileF32x4x5AVX512(a *tileArgs)
TEXT ·tileF32x4x5AVX512(SB), NOSPLIT, $0-8
	ZTILE(ZCHUNK5, ZFINAL5, ZLD32, ZLD32, 64, 64, f32z5loop, f32z5done)

// func dotF16VecAVX512(w *byte, x *float32, n int) float32
TEXT ·dotF16VecAVX512(SB), NOSPLIT, $0-28
	ZVEC(ZLD16, 32, f16vloop, f16vdone)

// func dotBF16VecAVX512(w *byte, x *float32, n int) float32
TEXT ·dotBF16VecAVX512(SB), NOSPLIT, $0-28
	ZVEC(ZLDBF16, 32, bf16vloop, bf16vdone)

// func dotF32VecAVX512(w *float32, x *float32, n int) float32
TEXT ·dotF32VecAVX512(SB), NOSPLIT, $0-28
	ZVEC(ZLD32, 64, f32vloop, f32vdone)

// ZVEC4ROW(OFF, A0, A1, A2, A3) accumulates one activation row at OFF
// (an addressing form of DI) times the four weight vectors Z16-Z19 into
// A0-A3, as ZVEC's loop does for its one row.
#define ZVEC4ROW(R0, R1, R2, R3, A0, A1, A2, A3) \
	VFMADD231PS R0, Z16, A0; \
	VFMADD231PS R1, Z17, A1; \
	VFMADD231PS R2, Z18, A2; \
	VFMADD231PS R3, Z19, A3

// func dotF16Vec4AVX512(w *byte, x *float32, xstride int, n int, out *[4]float32)
TEXT ·dotF16Vec4AVX512(SB), NOSPLIT, $0-40
	MOVQ   w+0(FP), SI
	MOVQ   x+8(FP), DI
	MOVQ   xstride+16(FP), R9
	MOVQ   n+24(FP), CX
	MOVQ   out+32(FP), R11
	LEAQ   (R9)(R9*2), R10
	VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4; VPXORD Z5, Z5, Z5; VPXORD Z6, Z6, Z6; VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8; VPXORD Z9, Z9, Z9; VPXORD Z10, Z10, Z10; VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12; VPXORD Z13, Z13, Z13; VPXORD Z14, Z14, Z14; VPXORD Z15, Z15, Z15
	SHRQ   $6, CX
	JZ     f16v4done

f16v4loop:
	VCVTPH2PS 0(SI), Z16
	VCVTPH2PS 32(SI), Z17
	VCVTPH2PS 64(SI), Z18
	VCVTPH2PS 96(SI), Z19
	ZVEC4ROW(0(DI), 64(DI), 128(DI), 192(DI), Z0, Z1, Z2, Z3)
	ZVEC4ROW(0(DI)(R9*1), 64(DI)(R9*1), 128(DI)(R9*1), 192(DI)(R9*1), Z4, Z5, Z6, Z7)
	ZVEC4ROW(0(DI)(R9*2), 64(DI)(R9*2), 128(DI)(R9*2), 192(DI)(R9*2), Z8, Z9, Z10, Z11)
	ZVEC4ROW(0(DI)(R10*1), 64(DI)(R10*1), 128(DI)(R10*1), 192(DI)(R10*1), Z12, Z13, Z14, Z15)
	ADDQ $128, SI
	ADDQ $256, DI
	DECQ CX
	JNZ  f16v4loop

f16v4done:
	VADDPS Z2, Z0, Z0
	VADDPS Z3, Z1, Z1
	VADDPS Z1, Z0, Z0
	VADDPS Z6, Z4, Z4
	VADDPS Z7, Z5, Z5
	VADDPS Z5, Z4, Z4
	VADDPS Z10, Z8, Z8
	VADDPS Z11, Z9, Z9
	VADDPS Z9, Z8, Z8
	VADDPS Z14, Z12, Z12
	VADDPS Z15, Z13, Z13
	VADDPS Z13, Z12, Z12
	VMOVDQU32 zRowIdx<>(SB), Z30
	ZROW(Z0, Z4, Z8, Z12, 0(R11))
	VZEROUPPER
	RET

// ZV23(WOFF, XOFF, A00, A01, A02, A10, A11, A12) accumulates sixteen
// values, WOFF bytes into the two F16 weight rows at SI and SI+R8 and
// XOFF bytes into the three F16 activation rows at DI, DI+R9 and DI+2·R9,
// into output (r, c)'s accumulator Arc: each weight vector widened once
// for three rows, each activation vector once for two.
#define ZV23(WOFF, XOFF, A00, A01, A02, A10, A11, A12) \
	VCVTPH2PS   WOFF(SI), Z24; \
	VCVTPH2PS   WOFF(SI)(R8*1), Z25; \
	VCVTPH2PS   XOFF(DI), Z26; \
	VCVTPH2PS   XOFF(DI)(R9*1), Z27; \
	VCVTPH2PS   XOFF(DI)(R9*2), Z28; \
	VFMADD231PS Z26, Z24, A00; \
	VFMADD231PS Z27, Z24, A01; \
	VFMADD231PS Z28, Z24, A02; \
	VFMADD231PS Z26, Z25, A10; \
	VFMADD231PS Z27, Z25, A11; \
	VFMADD231PS Z28, Z25, A12

// ZV4OUT(A0, A1, A2, A3, Z0_, Y0_, X0_, OFF) combines one output's four
// accumulators as dotF16VecAVX512 does (A0 is Z0_) and stores the sum at
// OFF.
#define ZV4OUT(A1, A2, A3, Z0_, Y0_, X0_, OFF) \
	VADDPS A2, Z0_, Z0_; \
	VADDPS A3, A1, A1; \
	VADDPS A1, Z0_, Z0_; \
	ZOUT(Z0_, Y0_, X0_, OFF)

// func dotF16Vec2x3AVX512(w *byte, wstride int, x *byte, xstride int, n int, out *[6]float32)
TEXT ·dotF16Vec2x3AVX512(SB), NOSPLIT, $0-48
	MOVQ   w+0(FP), SI
	MOVQ   wstride+8(FP), R8
	MOVQ   x+16(FP), DI
	MOVQ   xstride+24(FP), R9
	MOVQ   n+32(FP), CX
	MOVQ   out+40(FP), R11
	VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4; VPXORD Z5, Z5, Z5; VPXORD Z6, Z6, Z6; VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8; VPXORD Z9, Z9, Z9; VPXORD Z10, Z10, Z10; VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12; VPXORD Z13, Z13, Z13; VPXORD Z14, Z14, Z14; VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16; VPXORD Z17, Z17, Z17; VPXORD Z18, Z18, Z18; VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20; VPXORD Z21, Z21, Z21; VPXORD Z22, Z22, Z22; VPXORD Z23, Z23, Z23
	SHRQ   $6, CX
	JZ     f16v23done

f16v23loop:
	ZV23(0, 0, Z0, Z4, Z8, Z12, Z16, Z20)
	ZV23(32, 32, Z1, Z5, Z9, Z13, Z17, Z21)
	ZV23(64, 64, Z2, Z6, Z10, Z14, Z18, Z22)
	ZV23(96, 96, Z3, Z7, Z11, Z15, Z19, Z23)
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  f16v23loop

f16v23done:
	ZV4OUT(Z1, Z2, Z3, Z0, Y0, X0, 0(R11))
	ZV4OUT(Z5, Z6, Z7, Z4, Y4, X4, 4(R11))
	ZV4OUT(Z9, Z10, Z11, Z8, Y8, X8, 8(R11))
	ZV4OUT(Z13, Z14, Z15, Z12, Y12, X12, 12(R11))
	ZV4OUT(Z17, Z18, Z19, Z16, Y16, X16, 16(R11))
	ZV4OUT(Z21, Z22, Z23, Z20, Y20, X20, 20(R11))
	VZEROUPPER
	RET

// func narrowF16AVX512(dst *byte, src *float32, n int)
TEXT ·narrowF16AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $4, CX
	JZ   narrowdone

narrowloop:
	VMOVUPS   0(SI), Z0
	VCVTPS2PH $0, Z0, 0(DI)
	ADDQ      $64, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       narrowloop

narrowdone:
	VZEROUPPER
	RET
