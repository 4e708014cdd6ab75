#include "textflag.h"
#include "x16_amd64.h"

// The sixteen-row Q6_K decode kernel (avx512_q6kx16_amd64.go). Every int32
// lane of Z0-Z7 is one weight row's integer lane l of dotQ6K for the
// current super-block, every float lane of Z8-Z15 its accumulator.

// Q6LANE(Q, OFF, SC, L) adds quad Q's products (Q: the sixteen rows' four
// unsigned 6-bit quants each) with the four activations at OFF(DI), times
// the rows' scales SC (int16 pairs (s, s)), to lane register L.
#define Q6LANE(Q, OFF, SC, L) \
	VPBROADCASTD OFF(DI), Z26; \
	VPMADDUBSW   Z26, Q, Z27; \
	VPDPWSSD     SC, Z27, L

// Q6AHEAD is how far ahead of the super-block in use each chunk
// prefetches its share of the weights (seven lines).
#define Q6AHEAD 13440

// Q6CHUNK(C, LC) adds chunk C (its 32 elements of every row: quads (C, 0)
// to (C, 7)) to Z0-Z7, and lane C's share of the block sums' term, -32
// times the scaled sums of sub-blocks 2C and 2C+1, to LC.
#define Q6CHUNK(C, LC) \
	PREFETCHT0    Q6AHEAD+448*C(SI); \
	PREFETCHT0    Q6AHEAD+448*C+64(SI); \
	PREFETCHT0    Q6AHEAD+448*C+128(SI); \
	PREFETCHT0    Q6AHEAD+448*C+192(SI); \
	PREFETCHT0    Q6AHEAD+448*C+256(SI); \
	PREFETCHT0    Q6AHEAD+448*C+320(SI); \
	PREFETCHT0    Q6AHEAD+448*C+384(SI); \
	VPMOVSXBW     32+32*C(SI), Z16; \
	VPSHUFB       Z29, Z16, Z17; \
	VPSHUFB       Z28, Z16, Z18; \
	VPXORD        Z19, Z19, Z19; \
	VPDPWSSD.BCST 260+4*C(DI), Z16, Z19; \
	VPSLLD        $5, Z19, Z19; \
	VPSUBD        Z19, LC, LC; \
	Q6HALF(C, 0, Z0, Z4, Z1, Z5); \
	Q6HALF(C, 1, Z2, Z6, Z3, Z7)

// Q6HALF(C, P, L0, L4, L1, L5) adds quads (C, 2P), (C, 2P+4), (C, 2P+1)
// and (C, 2P+5), the ones whose high bits share qh vector P, to lanes
// L0, L4, L1 and L5. Z17 and Z18 hold sub-blocks 2C's and 2C+1's scales.
#define Q6HALF(C, P, L0, L4, L1, L5) \
	VMOVDQU64  288+384*C+256+64*P(SI), Z20; \
	VPSLLW     $4, Z20, Z21; \
	VPANDD     Z30, Z21, Z21; \
	VPSLLW     $2, Z20, Z22; \
	VPANDD     Z30, Z22, Z22; \
	VPANDD     Z30, Z20, Z23; \
	VPSRLW     $2, Z20, Z24; \
	VPANDD     Z30, Z24, Z24; \
	VPTERNLOGD $0xf8, 288+384*C+128*P(SI), Z31, Z21; \
	VPSRLW     $4, 288+384*C+128*P(SI), Z25; \
	VPTERNLOGD $0xf8, Z25, Z31, Z22; \
	VPTERNLOGD $0xf8, 288+384*C+128*P+64(SI), Z31, Z23; \
	VPSRLW     $4, 288+384*C+128*P+64(SI), Z25; \
	VPTERNLOGD $0xf8, Z25, Z31, Z24; \
	Q6LANE(Z21, 4+32*C+8*P, Z17, L0); \
	Q6LANE(Z22, 4+32*C+8*P+16, Z18, L4); \
	Q6LANE(Z23, 4+32*C+8*P+4, Z17, L1); \
	Q6LANE(Z24, 4+32*C+8*P+20, Z18, L5)

// func gemvQ6KX16AVX512(a *tileArgs, rows int)
//
// SI the packed blocks, DI the activation super-block, CX super-blocks
// left, BX the outputs, DX rows left; Z28 and Z29 pick each row's odd and
// even scale of a pair into both words, Z30 is 0x30 and Z31 0x0f in every
// byte.
TEXT ·gemvQ6KX16AVX512(SB), NOSPLIT, $0-16
	X16ARGS
	MOVL            $0x30303030, AX
	VPBROADCASTD    AX, Z30
	VBROADCASTI32X4 x16Q6Even<>(SB), Z29
	VBROADCASTI32X4 x16Q6Odd<>(SB), Z28

q6x16group:
	X16GROUP

q6x16block:
	X16ZERO0TO7
	Q6CHUNK(0, Z0)
	Q6CHUNK(1, Z1)
	Q6CHUNK(2, Z2)
	Q6CHUNK(3, Z3)
	Q6CHUNK(4, Z4)
	Q6CHUNK(5, Z5)
	Q6CHUNK(6, Z6)
	Q6CHUNK(7, Z7)

	X16LANES8

	ADDQ $3360, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q6x16block

	X16HSUM8
	VMOVUPS Z8, (BX)
	ADDQ    $64, BX
	SUBQ    $16, DX
	JNZ     q6x16group
	VZEROUPPER
	RET

// x16Q6Even and x16Q6Odd are vpshufb controls that copy word 0 (even)
// or word 1 (odd) of each dword into both of its words.
DATA x16Q6Even<>+0(SB)/8, $0x0504050401000100
DATA x16Q6Even<>+8(SB)/8, $0x0d0c0d0c09080908
GLOBL x16Q6Even<>(SB), RODATA|NOPTR, $16
DATA x16Q6Odd<>+0(SB)/8, $0x0706070603020302
DATA x16Q6Odd<>+8(SB)/8, $0x0f0e0f0e0b0a0b0a
GLOBL x16Q6Odd<>(SB), RODATA|NOPTR, $16

// The prompt tile: a group's sixteen rows × four activation rows (DI,
// DI+R9, DI+2·R9, DI+R10) in two passes over each super-block, lanes 0-3
// (the quads of the low nibbles) then 4-7 (the high), so that each
// unpacked quad serves the four activation rows: Z0-Z15 hold the pass's
// integer lanes, lane m of activation row j in Z(4j+m), and the float
// accumulators are on the stack, lane l of activation row j at
// 64·(8j+l)(SP).

// Q6TQUAD(Q, OFF, A0, A1, A2, A3) adds quad Q's products with the four
// activations at OFF of each activation row, times the scales in Z17, to
// A0 (activation row 0) ... A3 (row 3).
#define Q6TQUAD(Q, OFF, A0, A1, A2, A3) \
	VPBROADCASTD OFF(DI), Z22; \
	VPMADDUBSW   Z22, Q, Z23; \
	VPDPWSSD     Z17, Z23, A0; \
	VPBROADCASTD OFF(DI)(R9*1), Z22; \
	VPMADDUBSW   Z22, Q, Z23; \
	VPDPWSSD     Z17, Z23, A1; \
	VPBROADCASTD OFF(DI)(R9*2), Z22; \
	VPMADDUBSW   Z22, Q, Z23; \
	VPDPWSSD     Z17, Z23, A2; \
	VPBROADCASTD OFF(DI)(R10*1), Z22; \
	VPMADDUBSW   Z22, Q, Z23; \
	VPDPWSSD     Z17, Z23, A3

// Q6TCORR1(OFF, A) adds -32 times the scale pair in Z16 times the block
// sums' pair at OFF to A.
#define Q6TCORR1(OFF, A) \
	VPXORD        Z24, Z24, Z24; \
	VPDPWSSD.BCST OFF, Z16, Z24; \
	VPSLLD        $5, Z24, Z24; \
	VPSUBD        Z24, A, A

// Q6TCORR(C, A0, A1, A2, A3) adds lane C's share of the block sums' term
// (pair C of the scales, in Z16) for each activation row to A0 ... A3.
#define Q6TCORR(C, A0, A1, A2, A3) \
	Q6TCORR1(260+4*C(DI), A0); \
	Q6TCORR1(260+4*C(DI)(R9*1), A1); \
	Q6TCORR1(260+4*C(DI)(R9*2), A2); \
	Q6TCORR1(260+4*C(DI)(R10*1), A3)

// Q6TSCALES(C, CTRL) loads pair C of the scales into Z16 and the pass's
// scale of each row (CTRL: Z29 the even sub-block's, Z28 the odd one's)
// into Z17.
#define Q6TSCALES(C, CTRL) \
	VPMOVSXBW 32+32*C(SI), Z16; \
	VPSHUFB   CTRL, Z16, Z17

// Q6TLO(C, P, A0, A1, A2, A3, B0, B1, B2, B3) adds the low pass's quads
// whose high bits are in qh vector P of chunk C: quad (C, 2P) to lane 2P
// (A0-A3) and (C, 2P+1) to lane 2P+1 (B0-B3) of every activation row.
#define Q6TLO(C, P, A0, A1, A2, A3, B0, B1, B2, B3) \
	VMOVDQU64  288+384*C+256+64*P(SI), Z18; \
	VPSLLW     $4, Z18, Z19; \
	VPANDD     Z30, Z19, Z19; \
	VPANDD     Z30, Z18, Z20; \
	VPTERNLOGD $0xf8, 288+384*C+128*P(SI), Z31, Z19; \
	VPTERNLOGD $0xf8, 288+384*C+128*P+64(SI), Z31, Z20; \
	Q6TQUAD(Z19, 4+32*C+8*P, A0, A1, A2, A3); \
	Q6TQUAD(Z20, 4+32*C+8*P+4, B0, B1, B2, B3)

// Q6THI(C, P, A0, A1, A2, A3, B0, B1, B2, B3) is Q6TLO for the high pass:
// quads (C, 2P+4) and (C, 2P+5) to the pass's lanes 2P and 2P+1.
#define Q6THI(C, P, A0, A1, A2, A3, B0, B1, B2, B3) \
	VMOVDQU64  288+384*C+256+64*P(SI), Z18; \
	VPSLLW     $2, Z18, Z19; \
	VPANDD     Z30, Z19, Z19; \
	VPSRLW     $2, Z18, Z20; \
	VPANDD     Z30, Z20, Z20; \
	VPSRLW     $4, 288+384*C+128*P(SI), Z21; \
	VPTERNLOGD $0xf8, Z21, Z31, Z19; \
	VPSRLW     $4, 288+384*C+128*P+64(SI), Z21; \
	VPTERNLOGD $0xf8, Z21, Z31, Z20; \
	Q6TQUAD(Z19, 4+32*C+8*P+16, A0, A1, A2, A3); \
	Q6TQUAD(Z20, 4+32*C+8*P+20, B0, B1, B2, B3)

// Q6TLOCHUNK(C) and Q6THICHUNK(C) add chunk C's quads to the low and the
// high pass's lanes.
#define Q6TLOCHUNK(C) \
	Q6TSCALES(C, Z29); \
	Q6TLO(C, 0, Z0, Z4, Z8, Z12, Z1, Z5, Z9, Z13); \
	Q6TLO(C, 1, Z2, Z6, Z10, Z14, Z3, Z7, Z11, Z15)

#define Q6THICHUNK(C) \
	Q6TSCALES(C, Z28); \
	Q6THI(C, 0, Z0, Z4, Z8, Z12, Z1, Z5, Z9, Z13); \
	Q6THI(C, 1, Z2, Z6, Z10, Z14, Z3, Z7, Z11, Z15)

// Q6TFMA(X, D, L, OFF) scales activation row X's (at X(DI)) lanes L by
// d·x.d (D, the rows' d in Z25) into the float accumulators at OFF(SP).
#define Q6TFMA1(Z, OFF) \
	VCVTDQ2PS   Z, Z; \
	VFMADD213PS OFF(SP), Z26, Z; \
	VMOVUPS     Z, OFF(SP)

#define Q6TFMA(XD, A0, A1, A2, A3, OFF) \
	VMULPS.BCST XD, Z25, Z26; \
	Q6TFMA1(A0, OFF); \
	Q6TFMA1(A1, OFF+64); \
	Q6TFMA1(A2, OFF+128); \
	Q6TFMA1(A3, OFF+192)

// Q6TPASSEND(H) scales the pass's lanes (H: 0 low, 256 high) into the
// float accumulators, activation row by activation row.
#define Q6TPASSEND(H) \
	VCVTPH2PS 0(SI), Z25; \
	Q6TFMA(0(DI), Z0, Z1, Z2, Z3, H); \
	Q6TFMA(0(DI)(R9*1), Z4, Z5, Z6, Z7, 512+H); \
	Q6TFMA(0(DI)(R9*2), Z8, Z9, Z10, Z11, 1024+H); \
	Q6TFMA(0(DI)(R10*1), Z12, Z13, Z14, Z15, 1536+H)

// Q6THSUM(OFF, DST) adds activation row's eight float lanes at OFF(SP)
// as hsum8 does into DST. Z16 is scratch.
#define Q6THSUM(OFF, DST) \
	VMOVUPS OFF(SP), DST; \
	VADDPS  OFF+256(SP), DST, DST; \
	VMOVUPS OFF+64(SP), Z16; \
	VADDPS  OFF+320(SP), Z16, Z16; \
	VMOVUPS OFF+128(SP), Z17; \
	VADDPS  OFF+384(SP), Z17, Z17; \
	VMOVUPS OFF+192(SP), Z18; \
	VADDPS  OFF+448(SP), Z18, Z18; \
	VADDPS  Z17, DST, DST; \
	VADDPS  Z18, Z16, Z16; \
	VADDPS  Z16, DST, DST

// func tileQ6KX16AVX512(a *tileArgs, rows int)
//
// SI the packed blocks, DI activation row 0's super-block, CX super-blocks
// left, BX the outputs, DX rows left.
TEXT ·tileQ6KX16AVX512(SB), $2048-16
	X16ARGS
	MOVL            $0x30303030, AX
	VPBROADCASTD    AX, Z30
	VBROADCASTI32X4 x16Q6Even<>(SB), Z29
	VBROADCASTI32X4 x16Q6Odd<>(SB), Z28

q6x16tgroup:
	MOVQ   R13, DI
	MOVQ   R14, CX
	VPXORD Z0, Z0, Z0
	MOVQ   SP, AX
	MOVQ   $32, R8

q6x16tzero:
	VMOVUPS Z0, (AX)
	ADDQ    $64, AX
	DECQ    R8
	JNZ     q6x16tzero

q6x16tblock:
	X16ZERO0TO7
	X16ZERO8TO15
	Q6TLOCHUNK(0)
	Q6TCORR(0, Z0, Z4, Z8, Z12)
	Q6TLOCHUNK(1)
	Q6TCORR(1, Z1, Z5, Z9, Z13)
	Q6TLOCHUNK(2)
	Q6TCORR(2, Z2, Z6, Z10, Z14)
	Q6TLOCHUNK(3)
	Q6TCORR(3, Z3, Z7, Z11, Z15)
	Q6TLOCHUNK(4)
	Q6TLOCHUNK(5)
	Q6TLOCHUNK(6)
	Q6TLOCHUNK(7)
	Q6TPASSEND(0)

	X16ZERO0TO7
	X16ZERO8TO15
	Q6THICHUNK(0)
	Q6THICHUNK(1)
	Q6THICHUNK(2)
	Q6THICHUNK(3)
	Q6THICHUNK(4)
	Q6TCORR(4, Z0, Z4, Z8, Z12)
	Q6THICHUNK(5)
	Q6TCORR(5, Z1, Z5, Z9, Z13)
	Q6THICHUNK(6)
	Q6TCORR(6, Z2, Z6, Z10, Z14)
	Q6THICHUNK(7)
	Q6TCORR(7, Z3, Z7, Z11, Z15)
	Q6TPASSEND(256)

	ADDQ $3360, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q6x16tblock

	Q6THSUM(0, Z8)
	Q6THSUM(512, Z9)
	Q6THSUM(1024, Z10)
	Q6THSUM(1536, Z11)
	X16STORE4
	SUBQ $16, DX
	JNZ  q6x16tgroup
	VZEROUPPER
	RET
