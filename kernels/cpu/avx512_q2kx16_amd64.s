#include "textflag.h"
#include "x16_amd64.h"

// The sixteen-row Q2_K kernels (avx512_q2kx16_amd64.go). Every int32 lane
// is one weight row. A sub-block's sum goes into the row's integer sum
// times its scale with vpdpwssd (the sum's low int16 against the scale's
// zero-extended dword), its minimums times the activations' sum of the
// sub-block likewise (bsum[G], the low half of the dword at 260+2G).

// Q2AHEAD is how far ahead of the super-block in use (four super-blocks)
// each sub-block prefetches its share of the weights.
#define Q2AHEAD 5376

// Q2PLANES(G) loads sub-block G's quants of the sixteen rows as four
// planes of unsigned bytes (Z16-Z19: elements 4p..4p+3 of each row in
// plane p), its scales into Z22 and its minimums into Z23 as
// zero-extended dwords (for G = 15, the minimums in the high int16).
#define Q2PLANES(G) \
	PREFETCHT0 Q2AHEAD+84*G(SI); \
	PREFETCHT0 Q2AHEAD+84*G+64(SI); \
	VMOVDQU64 320+64*G(SI), Z20; \
	VPANDD    Z20, Z30, Z16; \
	VPSRLW    $2, Z20, Z17; \
	VPANDD    Z17, Z30, Z17; \
	VPSRLW    $4, Z20, Z18; \
	VPANDD    Z18, Z30, Z18; \
	VPSRLW    $6, Z20, Z19; \
	VPANDD    Z19, Z30, Z19; \
	VPMOVZXBD 64+16*G(SI), Z20; \
	VPANDD    Z20, Z31, Z22; \
	VPSRLD    $4, Z20, Z23

// Q2ROW(G, XA, IS, MS) adds sub-block G (Q2PLANES) against the
// activation row at XA to the rows' integer sums IS and minimums' sums MS
// (bsum[G] the low half of the dword at 260+2G). Z21 is scratch.
#define Q2ROW(G, XA, IS, MS) \
	VPXORD        Z21, Z21, Z21; \
	VPDPBUSD.BCST 4+16*G XA, Z16, Z21; \
	VPDPBUSD.BCST 8+16*G XA, Z17, Z21; \
	VPDPBUSD.BCST 12+16*G XA, Z18, Z21; \
	VPDPBUSD.BCST 16+16*G XA, Z19, Z21; \
	VPDPWSSD      Z22, Z21, IS; \
	VPDPWSSD.BCST 260+2*G XA, Z23, MS

// Q2ROWLAST(XA, IS, MS) is Q2ROW(15, ...) with the minimums in the high
// int16 (Q2PLANES(15) then VPSLLD $16 on Z23), against bsum[15], the high
// half of the dword at 288.
#define Q2ROWLAST(XA, IS, MS) \
	VPXORD        Z21, Z21, Z21; \
	VPDPBUSD.BCST 4+16*15 XA, Z16, Z21; \
	VPDPBUSD.BCST 8+16*15 XA, Z17, Z21; \
	VPDPBUSD.BCST 12+16*15 XA, Z18, Z21; \
	VPDPBUSD.BCST 16+16*15 XA, Z19, Z21; \
	VPDPWSSD      Z22, Z21, IS; \
	VPDPWSSD.BCST 288 XA, Z23, MS

// Q2FLOAT(IS, MS, ACC, MIN, XA) adds one activation row's chunk sums, IS
// and the minimums' MS, scaled by [d, dmin] (Z24, Z25) times the row's
// x.d at XA, to ACC and MIN with one fused multiply-add each, and clears
// IS and MS for the next chunk. Z26, Z27 are scratch.
#define Q2FLOAT(IS, MS, ACC, MIN, XA) \
	VCVTDQ2PS   IS, IS; \
	VCVTDQ2PS   MS, MS; \
	VMULPS.BCST XA, Z24, Z26; \
	VMULPS.BCST XA, Z25, Z27; \
	VFMADD231PS IS, Z26, ACC; \
	VFMADD231PS MS, Z27, MIN; \
	VPXORD      IS, IS, IS; \
	VPXORD      MS, MS, MS

// Q2FLUSH ends a chunk of the four activation rows (dotK's gemm order: one
// per 128 elements).
#define Q2FLUSH \
	VCVTPH2PS 0(SI), Z24; \
	VCVTPH2PS 32(SI), Z25; \
	Q2FLOAT(Z0, Z4, Z8, Z12, (DI)); \
	Q2FLOAT(Z1, Z5, Z9, Z13, (DI)(R9*1)); \
	Q2FLOAT(Z2, Z6, Z10, Z14, (DI)(R9*2)); \
	Q2FLOAT(Z3, Z7, Z11, Z15, (DI)(R10*1))

// gemmQ2KX16AVX512(a *tileArgs, rows int): rows (a multiple of sixteen)
// × 4 outputs in dotK's gemm order for Q2_K (dotRepackedK over 128-element
// chunks): SI the packed blocks, DI activation row 0's super-block, CX
// super-blocks left, BX the outputs, DX rows left; Z0-Z3 the integer sums
// and Z4-Z7 the minimums' sums of the four activation rows, Z8-Z11 acc,
// Z12-Z15 accMin.
TEXT ·gemmQ2KX16AVX512(SB), NOSPLIT, $0-16
	X16ARGS
	MOVL         $0x03030303, AX
	VPBROADCASTD AX, Z30

q2mgroup:
	X16GROUP
	X16ZERO0TO7

q2mblock:
	Q2PLANES(0)
	Q2ROW(0, (DI), Z0, Z4)
	Q2ROW(0, (DI)(R9*1), Z1, Z5)
	Q2ROW(0, (DI)(R9*2), Z2, Z6)
	Q2ROW(0, (DI)(R10*1), Z3, Z7)
	Q2PLANES(1)
	Q2ROW(1, (DI), Z0, Z4)
	Q2ROW(1, (DI)(R9*1), Z1, Z5)
	Q2ROW(1, (DI)(R9*2), Z2, Z6)
	Q2ROW(1, (DI)(R10*1), Z3, Z7)
	Q2PLANES(2)
	Q2ROW(2, (DI), Z0, Z4)
	Q2ROW(2, (DI)(R9*1), Z1, Z5)
	Q2ROW(2, (DI)(R9*2), Z2, Z6)
	Q2ROW(2, (DI)(R10*1), Z3, Z7)
	Q2PLANES(3)
	Q2ROW(3, (DI), Z0, Z4)
	Q2ROW(3, (DI)(R9*1), Z1, Z5)
	Q2ROW(3, (DI)(R9*2), Z2, Z6)
	Q2ROW(3, (DI)(R10*1), Z3, Z7)
	Q2PLANES(4)
	Q2ROW(4, (DI), Z0, Z4)
	Q2ROW(4, (DI)(R9*1), Z1, Z5)
	Q2ROW(4, (DI)(R9*2), Z2, Z6)
	Q2ROW(4, (DI)(R10*1), Z3, Z7)
	Q2PLANES(5)
	Q2ROW(5, (DI), Z0, Z4)
	Q2ROW(5, (DI)(R9*1), Z1, Z5)
	Q2ROW(5, (DI)(R9*2), Z2, Z6)
	Q2ROW(5, (DI)(R10*1), Z3, Z7)
	Q2PLANES(6)
	Q2ROW(6, (DI), Z0, Z4)
	Q2ROW(6, (DI)(R9*1), Z1, Z5)
	Q2ROW(6, (DI)(R9*2), Z2, Z6)
	Q2ROW(6, (DI)(R10*1), Z3, Z7)
	Q2PLANES(7)
	Q2ROW(7, (DI), Z0, Z4)
	Q2ROW(7, (DI)(R9*1), Z1, Z5)
	Q2ROW(7, (DI)(R9*2), Z2, Z6)
	Q2ROW(7, (DI)(R10*1), Z3, Z7)
	Q2FLUSH
	Q2PLANES(8)
	Q2ROW(8, (DI), Z0, Z4)
	Q2ROW(8, (DI)(R9*1), Z1, Z5)
	Q2ROW(8, (DI)(R9*2), Z2, Z6)
	Q2ROW(8, (DI)(R10*1), Z3, Z7)
	Q2PLANES(9)
	Q2ROW(9, (DI), Z0, Z4)
	Q2ROW(9, (DI)(R9*1), Z1, Z5)
	Q2ROW(9, (DI)(R9*2), Z2, Z6)
	Q2ROW(9, (DI)(R10*1), Z3, Z7)
	Q2PLANES(10)
	Q2ROW(10, (DI), Z0, Z4)
	Q2ROW(10, (DI)(R9*1), Z1, Z5)
	Q2ROW(10, (DI)(R9*2), Z2, Z6)
	Q2ROW(10, (DI)(R10*1), Z3, Z7)
	Q2PLANES(11)
	Q2ROW(11, (DI), Z0, Z4)
	Q2ROW(11, (DI)(R9*1), Z1, Z5)
	Q2ROW(11, (DI)(R9*2), Z2, Z6)
	Q2ROW(11, (DI)(R10*1), Z3, Z7)
	Q2PLANES(12)
	Q2ROW(12, (DI), Z0, Z4)
	Q2ROW(12, (DI)(R9*1), Z1, Z5)
	Q2ROW(12, (DI)(R9*2), Z2, Z6)
	Q2ROW(12, (DI)(R10*1), Z3, Z7)
	Q2PLANES(13)
	Q2ROW(13, (DI), Z0, Z4)
	Q2ROW(13, (DI)(R9*1), Z1, Z5)
	Q2ROW(13, (DI)(R9*2), Z2, Z6)
	Q2ROW(13, (DI)(R10*1), Z3, Z7)
	Q2PLANES(14)
	Q2ROW(14, (DI), Z0, Z4)
	Q2ROW(14, (DI)(R9*1), Z1, Z5)
	Q2ROW(14, (DI)(R9*2), Z2, Z6)
	Q2ROW(14, (DI)(R10*1), Z3, Z7)
	Q2PLANES(15)
	VPSLLD $16, Z23, Z23
	Q2ROWLAST((DI), Z0, Z4)
	Q2ROWLAST((DI)(R9*1), Z1, Z5)
	Q2ROWLAST((DI)(R9*2), Z2, Z6)
	Q2ROWLAST((DI)(R10*1), Z3, Z7)
	Q2FLUSH
	ADDQ $1344, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q2mblock

	VSUBPS Z12, Z8, Z8
	VSUBPS Z13, Z9, Z9
	VSUBPS Z14, Z10, Z10
	VSUBPS Z15, Z11, Z11
	X16STORE4
	SUBQ $16, DX
	JNZ  q2mgroup
	VZEROUPPER
	RET

// gemvQ2KX16AVX512(a *tileArgs, rows int): SI the packed blocks, DI the
// activation super-block, CX super-blocks left, BX the outputs, DX rows
// left; Z0 the integer sums, Z1 the minimums' sum, Z28 acc, Z29 accMin.
// Z30 holds 0x03 in every byte, Z31 0x0f.
TEXT ·gemvQ2KX16AVX512(SB), NOSPLIT, $0-16
	X16ARGS
	MOVL         $0x03030303, AX
	VPBROADCASTD AX, Z30

q2group:
	MOVQ   R13, DI
	MOVQ   R14, CX
	VPXORD Z28, Z28, Z28
	VPXORD Z29, Z29, Z29

q2block:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	Q2PLANES(0)
	Q2ROW(0, (DI), Z0, Z1)
	Q2PLANES(1)
	Q2ROW(1, (DI), Z0, Z1)
	Q2PLANES(2)
	Q2ROW(2, (DI), Z0, Z1)
	Q2PLANES(3)
	Q2ROW(3, (DI), Z0, Z1)
	Q2PLANES(4)
	Q2ROW(4, (DI), Z0, Z1)
	Q2PLANES(5)
	Q2ROW(5, (DI), Z0, Z1)
	Q2PLANES(6)
	Q2ROW(6, (DI), Z0, Z1)
	Q2PLANES(7)
	Q2ROW(7, (DI), Z0, Z1)
	Q2PLANES(8)
	Q2ROW(8, (DI), Z0, Z1)
	Q2PLANES(9)
	Q2ROW(9, (DI), Z0, Z1)
	Q2PLANES(10)
	Q2ROW(10, (DI), Z0, Z1)
	Q2PLANES(11)
	Q2ROW(11, (DI), Z0, Z1)
	Q2PLANES(12)
	Q2ROW(12, (DI), Z0, Z1)
	Q2PLANES(13)
	Q2ROW(13, (DI), Z0, Z1)
	Q2PLANES(14)
	Q2ROW(14, (DI), Z0, Z1)
	Q2PLANES(15)
	VPSLLD $16, Z23, Z23
	Q2ROWLAST((DI), Z0, Z1)

	// [d, dmin]·x.d, one fused multiply-add each.
	VCVTDQ2PS   Z0, Z0
	VCVTDQ2PS   Z1, Z1
	VCVTPH2PS   0(SI), Z24
	VCVTPH2PS   32(SI), Z25
	VMULPS.BCST 0(DI), Z24, Z24
	VMULPS.BCST 0(DI), Z25, Z25
	VFMADD231PS Z0, Z24, Z28
	VFMADD231PS Z1, Z25, Z29

	ADDQ $1344, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q2block

	VSUBPS  Z29, Z28, Z28
	VMOVUPS Z28, (BX)
	ADDQ    $64, BX
	SUBQ    $16, DX
	JNZ     q2group
	VZEROUPPER
	RET
