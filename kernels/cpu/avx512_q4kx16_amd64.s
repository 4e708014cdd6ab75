#include "textflag.h"
#include "x16_amd64.h"

// The sixteen-row Q4_K kernels (avx512_q4kx16_amd64.go). Every int32 lane
// is one weight row. A quad of sub-block pair C (chunk C: sub-blocks 2C
// and 2C+1) is 64 bytes at 320+64·C+256·q of the super-block: its low
// nibbles are masked into the quants of sub-block 2C, its high nibbles
// masked in place (sixteen times their value, so no shift) into those of
// sub-block 2C+1, and each multiplies four activations broadcast from
// memory (vpdpbusd). The high sums are shifted back before their scales.

// Q4PAIRS16(OFF, DST, T) sets DST to the sixteen rows' 6-bit minimums at
// OFF(SI) as int16 pairs (m, m), for vpdpwssd against a pair of the
// activations' sixteen-element sums: m times their sum. T is scratch.
#define Q4PAIRS16(OFF, DST, T) \
	VPMOVZXBD OFF(SI), DST; \
	VPSLLD    $16, DST, T; \
	VPORD     T, DST, DST

// Q4MINS1(SB) adds sub-block SB's minimums times the activations' sum of
// it (DI) to Z16.
#define Q4MINS1(SB) \
	Q4PAIRS16(192+16*SB, Z20, Z21); \
	VPDPWSSD.BCST 260+4*SB(DI), Z20, Z16

// Q4QUAD1(C, LO, HI) adds one quad of pair C (at R8, its activations at
// R9) to LO (sub-block 2C) and HI (2C+1, sixteen times over).
#define Q4QUAD1(C, LO, HI) \
	VPANDD        64*C(R8), Z31, Z8; \
	VPANDD        64*C(R8), Z30, Z9; \
	VPDPBUSD.BCST 4+64*C(R9), Z8, LO; \
	VPDPBUSD.BCST 36+64*C(R9), Z9, HI

// Q4GAHEAD is how far ahead of the super-block in use (four super-blocks
// of the one stream) the decode kernel prefetches the weights.
#define Q4GAHEAD 9472

// gemvQ4KX16AVX512(a *tileArgs, rows int): SI the packed blocks, DI the
// activation super-block, CX super-blocks left, BX the outputs, DX rows
// left; Z0-Z7 the eight sub-blocks' sums, Z16 the minimums' sum, Z28 acc,
// Z29 accMin, Z30 the high nibbles' mask, Z31 the low ones'.
TEXT ·gemvQ4KX16AVX512(SB), NOSPLIT, $0-16
	X16ARGS
	VPSLLW $4, Z31, Z30

x16group:
	MOVQ   R13, DI
	MOVQ   R14, CX
	VPXORD Z28, Z28, Z28
	VPXORD Z29, Z29, Z29

x16block:
	X16ZERO0TO7
	LEAQ   320(SI), R8
	MOVQ   DI, R9
	MOVQ   $8, R12

x16quad:
	PREFETCHT0 Q4GAHEAD(R8)
	PREFETCHT0 Q4GAHEAD+64(R8)
	PREFETCHT0 Q4GAHEAD+128(R8)
	PREFETCHT0 Q4GAHEAD+192(R8)
	Q4QUAD1(0, Z0, Z1)
	Q4QUAD1(1, Z2, Z3)
	Q4QUAD1(2, Z4, Z5)
	Q4QUAD1(3, Z6, Z7)
	ADDQ $256, R8
	ADDQ $4, R9
	DECQ R12
	JNZ  x16quad

	// The odd sub-blocks' sums back to scale, each sub-block's times its
	// scales, added.
	VPSRAD    $4, Z1, Z1
	VPSRAD    $4, Z3, Z3
	VPSRAD    $4, Z5, Z5
	VPSRAD    $4, Z7, Z7
	VPMOVZXBD 64(SI), Z16
	VPMULLD   Z16, Z0, Z0
	VPMOVZXBD 80(SI), Z17
	VPMULLD   Z17, Z1, Z1
	VPMOVZXBD 96(SI), Z18
	VPMULLD   Z18, Z2, Z2
	VPMOVZXBD 112(SI), Z19
	VPMULLD   Z19, Z3, Z3
	VPMOVZXBD 128(SI), Z20
	VPMULLD   Z20, Z4, Z4
	VPMOVZXBD 144(SI), Z21
	VPMULLD   Z21, Z5, Z5
	VPMOVZXBD 160(SI), Z22
	VPMULLD   Z22, Z6, Z6
	VPMOVZXBD 176(SI), Z23
	VPMULLD   Z23, Z7, Z7
	VPADDD    Z1, Z0, Z0
	VPADDD    Z3, Z2, Z2
	VPADDD    Z5, Z4, Z4
	VPADDD    Z7, Z6, Z6
	VPADDD    Z2, Z0, Z0
	VPADDD    Z6, Z4, Z4
	VPADDD    Z4, Z0, Z0

	// The minimums times the activations' sums, sub-block by sub-block.
	PREFETCHT0 Q4GAHEAD(SI)
	PREFETCHT0 Q4GAHEAD+64(SI)
	PREFETCHT0 Q4GAHEAD+128(SI)
	PREFETCHT0 Q4GAHEAD+192(SI)
	PREFETCHT0 Q4GAHEAD+256(SI)
	VPXORD Z16, Z16, Z16
	Q4MINS1(0)
	Q4MINS1(1)
	Q4MINS1(2)
	Q4MINS1(3)
	Q4MINS1(4)
	Q4MINS1(5)
	Q4MINS1(6)
	Q4MINS1(7)

	// [d, dmin]·x.d, one fused multiply-add each.
	VCVTDQ2PS   Z0, Z0
	VCVTDQ2PS   Z16, Z16
	VCVTPH2PS   0(SI), Z24
	VCVTPH2PS   32(SI), Z25
	VMULPS.BCST 0(DI), Z24, Z24
	VMULPS.BCST 0(DI), Z25, Z25
	VFMADD231PS Z0, Z24, Z28
	VFMADD231PS Z16, Z25, Z29

	ADDQ $2368, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  x16block

	VSUBPS  Z29, Z28, Z28
	VMOVUPS Z28, (BX)
	ADDQ    $64, BX
	SUBQ    $16, DX
	JNZ     x16group
	VZEROUPPER
	RET

// Q4CHUNK16(C, L) sums pair C over its eight quads (loop label L) for the
// four activation rows (DI, DI+R9, DI+2·R9, DI+R10): Z0-Z3 sub-block 2C's,
// Z4-Z7 sub-block 2C+1's (shifted back); Z18 and Z19 get the two
// sub-blocks' scales. R8, AX, R12, Z22 and Z23 are scratch.
#define Q4CHUNK16(C, L) \
	X16ZERO0TO7; \
	LEAQ          320+64*C(SI), R8; \
	MOVQ          DI, AX; \
	MOVQ          $8, R12; \
L: \
	VPANDD        (R8), Z31, Z22; \
	VPANDD        (R8), Z30, Z23; \
	VPDPBUSD.BCST 4+64*C(AX), Z22, Z0; \
	VPDPBUSD.BCST 4+64*C(AX)(R9*1), Z22, Z1; \
	VPDPBUSD.BCST 4+64*C(AX)(R9*2), Z22, Z2; \
	VPDPBUSD.BCST 4+64*C(AX)(R10*1), Z22, Z3; \
	VPDPBUSD.BCST 36+64*C(AX), Z23, Z4; \
	VPDPBUSD.BCST 36+64*C(AX)(R9*1), Z23, Z5; \
	VPDPBUSD.BCST 36+64*C(AX)(R9*2), Z23, Z6; \
	VPDPBUSD.BCST 36+64*C(AX)(R10*1), Z23, Z7; \
	ADDQ          $256, R8; \
	ADDQ          $4, AX; \
	DECQ          R12; \
	JNZ           L; \
	VPSRAD        $4, Z4, Z4; \
	VPSRAD        $4, Z5, Z5; \
	VPSRAD        $4, Z6, Z6; \
	VPSRAD        $4, Z7, Z7; \
	VPMOVZXBD     64+32*C(SI), Z18; \
	VPMOVZXBD     80+32*C(SI), Z19

// Q4STORE4 stores the group's acc - accMin of the four activation rows.
#define Q4STORE4 \
	VSUBPS Z12, Z8, Z8; \
	VSUBPS Z13, Z9, Z9; \
	VSUBPS Z14, Z10, Z10; \
	VSUBPS Z15, Z11, Z11; \
	X16STORE4

// Q4SCALE(LO, HI) sets LO to the scaled sum of a chunk's two sub-blocks
// (Q4CHUNK16) for one activation row.
#define Q4SCALE(LO, HI) \
	VPMULLD Z18, LO, LO; \
	VPMULLD Z19, HI, HI; \
	VPADDD  HI, LO, LO

// Q4FLOAT(IS, MS, ACC, MIN, XA, T, U) adds one activation row's integer
// sums, IS and the minimums' MS, scaled by [d, dmin] (Z16, Z17) times the
// row's x.d at XA, to ACC and MIN with one fused multiply-add each; T and
// U are scratch.
#define Q4FLOAT(IS, MS, ACC, MIN, XA, T, U) \
	VCVTDQ2PS   IS, IS; \
	VCVTDQ2PS   MS, MS; \
	VMULPS.BCST XA, Z16, T; \
	VMULPS.BCST XA, Z17, U; \
	VFMADD231PS IS, T, ACC; \
	VFMADD231PS MS, U, MIN

// Q4GEMMROW(C, LO, HI, ACC, MIN, XA) is chunk C's part of one activation
// row (at XA) in the gemm order: its scaled sum and its minimums' sum
// (Z20, Z21: the chunk's minimum pairs) converted and scaled into ACC and
// MIN. Z24 is scratch.
#define Q4GEMMROW(C, LO, HI, ACC, MIN, XA) \
	Q4SCALE(LO, HI); \
	VPXORD        Z24, Z24, Z24; \
	VPDPWSSD.BCST 260+8*C XA, Z20, Z24; \
	VPDPWSSD.BCST 264+8*C XA, Z21, Z24; \
	Q4FLOAT(LO, Z24, ACC, MIN, XA, Z25, Z26)

// Q4GEMM(C, L) is chunk C of gemmQ4KX16AVX512's super-block.
#define Q4GEMM(C, L) \
	Q4CHUNK16(C, L); \
	Q4PAIRS16(192+32*C, Z20, Z24); \
	Q4PAIRS16(208+32*C, Z21, Z24); \
	Q4GEMMROW(C, Z0, Z4, Z8, Z12, (DI)); \
	Q4GEMMROW(C, Z1, Z5, Z9, Z13, (DI)(R9*1)); \
	Q4GEMMROW(C, Z2, Z6, Z10, Z14, (DI)(R9*2)); \
	Q4GEMMROW(C, Z3, Z7, Z11, Z15, (DI)(R10*1))

// gemmQ4KX16AVX512(a *tileArgs, rows int): SI the packed blocks, DI
// activation row 0's super-block, CX super-blocks left, BX the outputs,
// DX rows left; Z8-Z11 acc and Z12-Z15 accMin of the four activation
// rows, Z16 d, Z17 dmin, Z30 and Z31 the nibbles' masks.
TEXT ·gemmQ4KX16AVX512(SB), NOSPLIT, $0-16
	X16ARGS
	VPSLLW $4, Z31, Z30

x16mgroup:
	X16GROUP

x16mblock:
	VCVTPH2PS 0(SI), Z16
	VCVTPH2PS 32(SI), Z17
	Q4GEMM(0, x16mc0)
	Q4GEMM(1, x16mc1)
	Q4GEMM(2, x16mc2)
	Q4GEMM(3, x16mc3)
	ADDQ      $2368, SI
	ADDQ      $292, DI
	DECQ      CX
	JNZ       x16mblock

	Q4STORE4
	SUBQ   $16, DX
	JNZ    x16mgroup
	VZEROUPPER
	RET

// Q4AHEAD is how far ahead of the super-block in use (four super-blocks
// of the one stream) the tile prefetches the weights, ten lines a chunk:
// for a few activation rows the weights are read from memory once, and
// without it the loads wait on memory instead of overlapping the
// arithmetic.
#define Q4AHEAD 9472

// Q4TILE(C, L) is chunk C of tileQ4KX16AVX512's super-block: each
// activation row's scaled sums added to Z24-Z27.
#define Q4TILE(C, L) \
	PREFETCHT0 Q4AHEAD+640*C(SI); \
	PREFETCHT0 Q4AHEAD+640*C+64(SI); \
	PREFETCHT0 Q4AHEAD+640*C+128(SI); \
	PREFETCHT0 Q4AHEAD+640*C+192(SI); \
	PREFETCHT0 Q4AHEAD+640*C+256(SI); \
	PREFETCHT0 Q4AHEAD+640*C+320(SI); \
	PREFETCHT0 Q4AHEAD+640*C+384(SI); \
	PREFETCHT0 Q4AHEAD+640*C+448(SI); \
	PREFETCHT0 Q4AHEAD+640*C+512(SI); \
	PREFETCHT0 Q4AHEAD+640*C+576(SI); \
	Q4CHUNK16(C, L); \
	Q4SCALE(Z0, Z4); \
	VPADDD Z0, Z24, Z24; \
	Q4SCALE(Z1, Z5); \
	VPADDD Z1, Z25, Z25; \
	Q4SCALE(Z2, Z6); \
	VPADDD Z2, Z26, Z26; \
	Q4SCALE(Z3, Z7); \
	VPADDD Z3, Z27, Z27

// Q4MINS4(SB) adds sub-block SB's minimums times the four activation
// rows' sums of it to Z0-Z3.
#define Q4MINS4(SB) \
	Q4PAIRS16(192+16*SB, Z20, Z21); \
	VPDPWSSD.BCST 260+4*SB(DI), Z20, Z0; \
	VPDPWSSD.BCST 260+4*SB(DI)(R9*1), Z20, Z1; \
	VPDPWSSD.BCST 260+4*SB(DI)(R9*2), Z20, Z2; \
	VPDPWSSD.BCST 260+4*SB(DI)(R10*1), Z20, Z3

// tileQ4KX16AVX512(a *tileArgs, rows int): gemmQ4KX16AVX512 in the gemv
// order (each super-block's integer sums scaled once): Z24-Z27 hold the
// four activation rows' scaled sums over the super-block, Z0-Z3 then
// their minimums' sums over its eight sub-blocks.
TEXT ·tileQ4KX16AVX512(SB), NOSPLIT, $0-16
	X16ARGS
	VPSLLW $4, Z31, Z30

x16vgroup:
	X16GROUP

x16vblock:
	VPXORD    Z24, Z24, Z24
	VPXORD    Z25, Z25, Z25
	VPXORD    Z26, Z26, Z26
	VPXORD    Z27, Z27, Z27
	Q4TILE(0, x16vc0)
	Q4TILE(1, x16vc1)
	Q4TILE(2, x16vc2)
	Q4TILE(3, x16vc3)
	VPXORD    Z0, Z0, Z0
	VPXORD    Z1, Z1, Z1
	VPXORD    Z2, Z2, Z2
	VPXORD    Z3, Z3, Z3
	Q4MINS4(0)
	Q4MINS4(1)
	Q4MINS4(2)
	Q4MINS4(3)
	Q4MINS4(4)
	Q4MINS4(5)
	Q4MINS4(6)
	Q4MINS4(7)
	VCVTPH2PS 0(SI), Z16
	VCVTPH2PS 32(SI), Z17
	Q4FLOAT(Z24, Z0, Z8, Z12, (DI), Z18, Z19)
	Q4FLOAT(Z25, Z1, Z9, Z13, (DI)(R9*1), Z18, Z19)
	Q4FLOAT(Z26, Z2, Z10, Z14, (DI)(R9*2), Z18, Z19)
	Q4FLOAT(Z27, Z3, Z11, Z15, (DI)(R10*1), Z18, Z19)
	ADDQ      $2368, SI
	ADDQ      $292, DI
	DECQ      CX
	JNZ       x16vblock

	Q4STORE4
	SUBQ   $16, DX
	JNZ    x16vgroup
	VZEROUPPER
	RET
