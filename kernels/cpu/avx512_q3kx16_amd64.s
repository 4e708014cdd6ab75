#include "textflag.h"
#include "x16_amd64.h"

// The sixteen-row Q3_K decode kernel (avx512_q3kx16_amd64.go). Every int32
// lane of Z0-Z7 is one weight row's integer lane l of dotLanesK for the
// current super-block, every float lane of Z8-Z15 its accumulator.

// Q3QUAD(C, L, U, S, LANE) adds quad (C, L) (U: the sixteen rows' four
// u = q + 4 each) times the rows' scales S (int16 pairs (s, s)) to LANE:
// the int16 pairs of u against the quad's activations, less those of 4
// against them. Z21 and Z22 are scratch.
#define Q3QUAD(C, L, U, S, LANE) \
	VPBROADCASTD 4+32*C+4*(L)(DI), Z21; \
	VPMADDUBSW   Z21, U, Z22; \
	VPMADDUBSW   Z21, Z31, Z21; \
	VPSUBW       Z21, Z22, Z22; \
	VPDPWSSD     S, Z22, LANE

// Q3PAIR(C, V, LO, HI) adds quads (C, V) and (C, V+4), the low and high
// nibbles of chunk C's vector V, to lanes LO (Z(V)) and HI (Z(V+4)), with
// sub-block 2C's scales (Z17) and 2C+1's (Z18). Z19 and Z20 are scratch.
#define Q3PAIR(C, V, LO, HI) \
	VMOVDQU64 288+256*C+64*V(SI), Z19; \
	VPSRLW    $4, Z19, Z20; \
	VPANDD    Z19, Z30, Z19; \
	VPANDD    Z20, Z30, Z20; \
	Q3QUAD(C, V, Z19, Z17, LO); \
	Q3QUAD(C, V+4, Z20, Z18, HI)

// Q3AHEAD is how far ahead of the super-block in use (four super-blocks)
// each chunk prefetches its share of the weights (five lines).
#define Q3AHEAD 9344

// Q3CHUNK(C) adds chunk C's eight quads to lanes Z0-Z7.
#define Q3CHUNK(C) \
	PREFETCHT0 Q3AHEAD+320*C(SI); \
	PREFETCHT0 Q3AHEAD+320*C+64(SI); \
	PREFETCHT0 Q3AHEAD+320*C+128(SI); \
	PREFETCHT0 Q3AHEAD+320*C+192(SI); \
	PREFETCHT0 Q3AHEAD+320*C+256(SI); \
	VPMOVSXBW 32+32*C(SI), Z16; \
	VPSHUFB   Z29, Z16, Z17; \
	VPSHUFB   Z28, Z16, Z18; \
	Q3PAIR(C, 0, Z0, Z4); \
	Q3PAIR(C, 1, Z1, Z5); \
	Q3PAIR(C, 2, Z2, Z6); \
	Q3PAIR(C, 3, Z3, Z7)

// func gemvQ3KX16AVX512(a *tileArgs, rows int)
//
// SI the packed blocks, DI the activation super-block, CX super-blocks
// left, BX the outputs, DX rows left; Z28 and Z29 pick each row's odd and
// even scale of a pair into both words, Z30 is 0x0f and Z31 0x04 in every
// byte, Z27 zero.
TEXT ·gemvQ3KX16AVX512(SB), NOSPLIT, $0-16
	X16ARGS
	MOVL            $0x0f0f0f0f, AX
	VPBROADCASTD    AX, Z30
	MOVL            $0x04040404, AX
	VPBROADCASTD    AX, Z31
	VBROADCASTI32X4 x16Q3Even<>(SB), Z29
	VBROADCASTI32X4 x16Q3Odd<>(SB), Z28
	VPXORD          Z27, Z27, Z27

q3x16group:
	X16GROUP

q3x16block:
	X16ZERO0TO7
	Q3CHUNK(0)
	Q3CHUNK(1)
	Q3CHUNK(2)
	Q3CHUNK(3)
	Q3CHUNK(4)
	Q3CHUNK(5)
	Q3CHUNK(6)
	Q3CHUNK(7)

	X16LANES8

	ADDQ $2336, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q3x16block

	// plus dotLanesK's group terms, +0.
	X16HSUM8
	VADDPS  Z27, Z8, Z8
	VMOVUPS Z8, (BX)
	ADDQ    $64, BX
	SUBQ    $16, DX
	JNZ     q3x16group
	VZEROUPPER
	RET

// x16Q3Even and x16Q3Odd are vpshufb controls that copy word 0 (even)
// or word 1 (odd) of each dword into both of its words.
DATA x16Q3Even<>+0(SB)/8, $0x0504050401000100
DATA x16Q3Even<>+8(SB)/8, $0x0d0c0d0c09080908
GLOBL x16Q3Even<>(SB), RODATA|NOPTR, $16
DATA x16Q3Odd<>+0(SB)/8, $0x0706070603020302
DATA x16Q3Odd<>+8(SB)/8, $0x0f0e0f0e0b0a0b0a
GLOBL x16Q3Odd<>(SB), RODATA|NOPTR, $16
