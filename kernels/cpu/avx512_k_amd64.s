#include "textflag.h"

// AVX-512 VNNI kernels for the K-quants (see avx512_k_amd64.go).
//
// tileQ4KAVX512 takes a *tileArgs (w @0, wstride @8, x @16, xstride @24, n
// @32, out @40, ostride @48) and runs over its weight rows in groups of
// four against four activation rows: sixteen outputs, whose float
// accumulators live in one zmm each for the scales and the minimums, lane
// 4w+x for weight row w and activation row x.
//
// Registers: R8 the group's first weight row, R12 wstride, R11
// 3·wstride, R13 the first activation row, R9 xstride, R10 3·xstride, R14
// n, BX the group's first output, DX the weight rows left, SI and DI the
// weight and activation cursors, CX the super-blocks left. R15 is left
// alone (dynamic linking takes it).
// Z31 holds 0x0f bytes; Z30 and Z29 the sixteen acc and accMin; Z28 and
// Z27 d·x.d and dmin·x.d of the current super-block; Z26 and Z25 the
// scales of rows 0, 1 and 2, 3 as int16 words ([s_r | s_r | s_r' | s_r'],
// eight words per 128-bit lane); Z24 and Z23 the gemv order's integer sums
// of the super-block; Z22 the minimums of row w as words in 128-bit lane
// w; Z21 the activations' pair sums (zPTIdx). The other kernels say
// what their registers hold where they begin.

// zb0f and zb30 are 0x0f and 0x30 in every byte; zOnes16 is 1 in every
// int16 word.
DATA zb0f<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA zb0f<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA zb0f<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA zb0f<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA zb0f<>+32(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA zb0f<>+40(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA zb0f<>+48(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA zb0f<>+56(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL zb0f<>(SB), RODATA|NOPTR, $64

DATA zb30<>+0(SB)/8, $0x3030303030303030
DATA zb30<>+8(SB)/8, $0x3030303030303030
DATA zb30<>+16(SB)/8, $0x3030303030303030
DATA zb30<>+24(SB)/8, $0x3030303030303030
DATA zb30<>+32(SB)/8, $0x3030303030303030
DATA zb30<>+40(SB)/8, $0x3030303030303030
DATA zb30<>+48(SB)/8, $0x3030303030303030
DATA zb30<>+56(SB)/8, $0x3030303030303030
GLOBL zb30<>(SB), RODATA|NOPTR, $64

DATA zOnes16<>+0(SB)/8, $0x0001000100010001
DATA zOnes16<>+8(SB)/8, $0x0001000100010001
DATA zOnes16<>+16(SB)/8, $0x0001000100010001
DATA zOnes16<>+24(SB)/8, $0x0001000100010001
DATA zOnes16<>+32(SB)/8, $0x0001000100010001
DATA zOnes16<>+40(SB)/8, $0x0001000100010001
DATA zOnes16<>+48(SB)/8, $0x0001000100010001
DATA zOnes16<>+56(SB)/8, $0x0001000100010001
GLOBL zOnes16<>(SB), RODATA|NOPTR, $64

// zWordBcast+64g broadcasts int16 word g of each 128-bit lane over the
// lane.
DATA zWordBcast<>+0(SB)/8, $0x0100010001000100
DATA zWordBcast<>+8(SB)/8, $0x0100010001000100
DATA zWordBcast<>+16(SB)/8, $0x0100010001000100
DATA zWordBcast<>+24(SB)/8, $0x0100010001000100
DATA zWordBcast<>+32(SB)/8, $0x0100010001000100
DATA zWordBcast<>+40(SB)/8, $0x0100010001000100
DATA zWordBcast<>+48(SB)/8, $0x0100010001000100
DATA zWordBcast<>+56(SB)/8, $0x0100010001000100
DATA zWordBcast<>+64(SB)/8, $0x0302030203020302
DATA zWordBcast<>+72(SB)/8, $0x0302030203020302
DATA zWordBcast<>+80(SB)/8, $0x0302030203020302
DATA zWordBcast<>+88(SB)/8, $0x0302030203020302
DATA zWordBcast<>+96(SB)/8, $0x0302030203020302
DATA zWordBcast<>+104(SB)/8, $0x0302030203020302
DATA zWordBcast<>+112(SB)/8, $0x0302030203020302
DATA zWordBcast<>+120(SB)/8, $0x0302030203020302
DATA zWordBcast<>+128(SB)/8, $0x0504050405040504
DATA zWordBcast<>+136(SB)/8, $0x0504050405040504
DATA zWordBcast<>+144(SB)/8, $0x0504050405040504
DATA zWordBcast<>+152(SB)/8, $0x0504050405040504
DATA zWordBcast<>+160(SB)/8, $0x0504050405040504
DATA zWordBcast<>+168(SB)/8, $0x0504050405040504
DATA zWordBcast<>+176(SB)/8, $0x0504050405040504
DATA zWordBcast<>+184(SB)/8, $0x0504050405040504
DATA zWordBcast<>+192(SB)/8, $0x0706070607060706
DATA zWordBcast<>+200(SB)/8, $0x0706070607060706
DATA zWordBcast<>+208(SB)/8, $0x0706070607060706
DATA zWordBcast<>+216(SB)/8, $0x0706070607060706
DATA zWordBcast<>+224(SB)/8, $0x0706070607060706
DATA zWordBcast<>+232(SB)/8, $0x0706070607060706
DATA zWordBcast<>+240(SB)/8, $0x0706070607060706
DATA zWordBcast<>+248(SB)/8, $0x0706070607060706
DATA zWordBcast<>+256(SB)/8, $0x0908090809080908
DATA zWordBcast<>+264(SB)/8, $0x0908090809080908
DATA zWordBcast<>+272(SB)/8, $0x0908090809080908
DATA zWordBcast<>+280(SB)/8, $0x0908090809080908
DATA zWordBcast<>+288(SB)/8, $0x0908090809080908
DATA zWordBcast<>+296(SB)/8, $0x0908090809080908
DATA zWordBcast<>+304(SB)/8, $0x0908090809080908
DATA zWordBcast<>+312(SB)/8, $0x0908090809080908
DATA zWordBcast<>+320(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zWordBcast<>+328(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zWordBcast<>+336(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zWordBcast<>+344(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zWordBcast<>+352(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zWordBcast<>+360(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zWordBcast<>+368(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zWordBcast<>+376(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zWordBcast<>+384(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zWordBcast<>+392(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zWordBcast<>+400(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zWordBcast<>+408(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zWordBcast<>+416(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zWordBcast<>+424(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zWordBcast<>+432(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zWordBcast<>+440(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zWordBcast<>+448(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zWordBcast<>+456(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zWordBcast<>+464(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zWordBcast<>+472(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zWordBcast<>+480(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zWordBcast<>+488(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zWordBcast<>+496(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zWordBcast<>+504(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL zWordBcast<>(SB), RODATA|NOPTR, $512

// zMinWords zero-extends bytes 8..15 of each 128-bit lane (the
// minimums m0..m7 of one weight row) to int16 words.
DATA zMinWords<>+0(SB)/8, $0x800b800a80098008
DATA zMinWords<>+8(SB)/8, $0x800f800e800d800c
DATA zMinWords<>+16(SB)/8, $0x800b800a80098008
DATA zMinWords<>+24(SB)/8, $0x800f800e800d800c
DATA zMinWords<>+32(SB)/8, $0x800b800a80098008
DATA zMinWords<>+40(SB)/8, $0x800f800e800d800c
DATA zMinWords<>+48(SB)/8, $0x800b800a80098008
DATA zMinWords<>+56(SB)/8, $0x800f800e800d800c
GLOBL zMinWords<>(SB), RODATA|NOPTR, $64

// zkscA, zkscB, zkscShift and zkscMask are tkscA, tkscB, tkscShift and
// tkscMask (avx2_tile_amd64.s) in each 128-bit lane: they split the 12
// packed scale bytes of one Q4_K row per lane into s0..s7, m0..m7.
DATA zkscA<>+0(SB)/8, $0x0b0a090803020100
DATA zkscA<>+8(SB)/8, $0x0b0a090807060504
DATA zkscA<>+16(SB)/8, $0x0b0a090803020100
DATA zkscA<>+24(SB)/8, $0x0b0a090807060504
DATA zkscA<>+32(SB)/8, $0x0b0a090803020100
DATA zkscA<>+40(SB)/8, $0x0b0a090807060504
DATA zkscA<>+48(SB)/8, $0x0b0a090803020100
DATA zkscA<>+56(SB)/8, $0x0b0a090807060504
GLOBL zkscA<>(SB), RODATA|NOPTR, $64

DATA zkscB<>+0(SB)/8, $0x0302010080808080
DATA zkscB<>+8(SB)/8, $0x0706050480808080
DATA zkscB<>+16(SB)/8, $0x0302010080808080
DATA zkscB<>+24(SB)/8, $0x0706050480808080
DATA zkscB<>+32(SB)/8, $0x0302010080808080
DATA zkscB<>+40(SB)/8, $0x0706050480808080
DATA zkscB<>+48(SB)/8, $0x0302010080808080
DATA zkscB<>+56(SB)/8, $0x0706050480808080
GLOBL zkscB<>(SB), RODATA|NOPTR, $64

DATA zkscShift<>+0(SB)/8, $0x0000000000000000
DATA zkscShift<>+8(SB)/8, $0x0000000400000000
DATA zkscShift<>+16(SB)/8, $0x0000000000000000
DATA zkscShift<>+24(SB)/8, $0x0000000400000000
DATA zkscShift<>+32(SB)/8, $0x0000000000000000
DATA zkscShift<>+40(SB)/8, $0x0000000400000000
DATA zkscShift<>+48(SB)/8, $0x0000000000000000
DATA zkscShift<>+56(SB)/8, $0x0000000400000000
GLOBL zkscShift<>(SB), RODATA|NOPTR, $64

DATA zkscMask<>+0(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA zkscMask<>+8(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA zkscMask<>+16(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA zkscMask<>+24(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA zkscMask<>+32(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA zkscMask<>+40(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA zkscMask<>+48(SB)/8, $0x0f0f0f0f3f3f3f3f
DATA zkscMask<>+56(SB)/8, $0x0f0f0f0f3f3f3f3f
GLOBL zkscMask<>(SB), RODATA|NOPTR, $64

// zPTIdx gathers the packed activation pair sums (see tileQ4KAVX512)
// so that 128-bit lane c holds, in dword x, activation row x's pair sums
// of sub-blocks 2c and 2c+1.
DATA zPTIdx<>+0(SB)/8, $0x0000000800000000
DATA zPTIdx<>+8(SB)/8, $0x0000000a00000002
DATA zPTIdx<>+16(SB)/8, $0x0000000900000001
DATA zPTIdx<>+24(SB)/8, $0x0000000b00000003
DATA zPTIdx<>+32(SB)/8, $0x0000000c00000004
DATA zPTIdx<>+40(SB)/8, $0x0000000e00000006
DATA zPTIdx<>+48(SB)/8, $0x0000000d00000005
DATA zPTIdx<>+56(SB)/8, $0x0000000f00000007
GLOBL zPTIdx<>(SB), RODATA|NOPTR, $64

// zDIdx and zDminIdx spread [d0, dmin0, ..., d3, dmin3] over the 16
// outputs, lane 4w+x getting row w's d (dmin).
DATA zDIdx<>+0(SB)/8, $0x0000000000000000
DATA zDIdx<>+8(SB)/8, $0x0000000000000000
DATA zDIdx<>+16(SB)/8, $0x0000000200000002
DATA zDIdx<>+24(SB)/8, $0x0000000200000002
DATA zDIdx<>+32(SB)/8, $0x0000000400000004
DATA zDIdx<>+40(SB)/8, $0x0000000400000004
DATA zDIdx<>+48(SB)/8, $0x0000000600000006
DATA zDIdx<>+56(SB)/8, $0x0000000600000006
GLOBL zDIdx<>(SB), RODATA|NOPTR, $64

DATA zDminIdx<>+0(SB)/8, $0x0000000100000001
DATA zDminIdx<>+8(SB)/8, $0x0000000100000001
DATA zDminIdx<>+16(SB)/8, $0x0000000300000003
DATA zDminIdx<>+24(SB)/8, $0x0000000300000003
DATA zDminIdx<>+32(SB)/8, $0x0000000500000005
DATA zDminIdx<>+40(SB)/8, $0x0000000500000005
DATA zDminIdx<>+48(SB)/8, $0x0000000700000007
DATA zDminIdx<>+56(SB)/8, $0x0000000700000007
GLOBL zDminIdx<>(SB), RODATA|NOPTR, $64

// zTrIdx transposes 4×4 dwords: lane 4x+w from lane 4w+x.
DATA zTrIdx<>+0(SB)/8, $0x0000000400000000
DATA zTrIdx<>+8(SB)/8, $0x0000000c00000008
DATA zTrIdx<>+16(SB)/8, $0x0000000500000001
DATA zTrIdx<>+24(SB)/8, $0x0000000d00000009
DATA zTrIdx<>+32(SB)/8, $0x0000000600000002
DATA zTrIdx<>+40(SB)/8, $0x0000000e0000000a
DATA zTrIdx<>+48(SB)/8, $0x0000000700000003
DATA zTrIdx<>+56(SB)/8, $0x0000000f0000000b
GLOBL zTrIdx<>(SB), RODATA|NOPTR, $64

// ZARGS loads the tile description at a+0(FP) and the weight row count.
#define ZARGS \
	MOVQ a+0(FP), AX; \
	MOVQ 0(AX), R8; \
	MOVQ 8(AX), R12; \
	LEAQ (R12)(R12*2), R11; \
	MOVQ 16(AX), R13; \
	MOVQ 24(AX), R9; \
	LEAQ (R9)(R9*2), R10; \
	MOVQ 32(AX), R14; \
	MOVQ 40(AX), BX; \
	MOVQ rows+8(FP), DX

// ZOSTRIDE points the stores of a group's outputs at activation rows 1..3:
// CX gets 4·ostride (the super-blocks are done) and AX BX + 8·ostride.
#define ZOSTRIDE \
	MOVQ a+0(FP), AX; \
	MOVQ 48(AX), CX; \
	SHLQ $2, CX; \
	LEAQ (BX)(CX*2), AX

// Q4ZSCALES decodes the scales and minimums of the four weight rows at SI
// (scaleMinK4, one row per 128-bit lane): Z26 and Z25 get the scales of
// rows 0, 1 and 2, 3 as int16 words, eight per 128-bit lane ([s_r | s_r |
// s_r' | s_r']), Z22 the minimums of row r as words in 128-bit lane r.
// Uses Z1..Z3, Z5.
#define Q4ZSCALES \
	VMOVDQU       4(SI), X1; \
	VINSERTI32X4  $1, 4(SI)(R12*1), Z1, Z1; \
	VINSERTI32X4  $2, 4(SI)(R12*2), Z1, Z1; \
	VINSERTI32X4  $3, 4(SI)(R11*1), Z1, Z1; \
	VPSHUFB       zkscB<>(SB), Z1, Z5; \
	VPSHUFB       zkscA<>(SB), Z1, Z1; \
	VPSRLVD       zkscShift<>(SB), Z1, Z1; \
	VPANDD        zkscMask<>(SB), Z1, Z1; \
	VPSRLD        $2, Z5, Z5; \
	VPANDD        zb30<>(SB), Z5, Z5; \
	VPORD         Z5, Z1, Z1; \
	VPMOVZXBW     Y1, Z2; \
	VEXTRACTI64X4 $1, Z1, Y3; \
	VPMOVZXBW     Y3, Z3; \
	VSHUFI64X2    $0xa0, Z2, Z2, Z26; \
	VSHUFI64X2    $0xa0, Z3, Z3, Z25; \
	VPSHUFB       zMinWords<>(SB), Z1, Z22

// Q4ZSETUP prepares one super-block of the four weight rows (at SI) and
// four activation rows (at DI): the scales (Z26, Z25), minimums (Z22),
// activation pair sums (Z21) and the float factors (Z28, Z27). Uses
// Z0..Z5, Z20.
#define Q4ZSETUP \
	Q4ZSCALES; \
	VMOVDQU       260(DI), Y4; \
	VINSERTI64X4  $1, 260(DI)(R9*1), Z4, Z4; \
	VMOVDQU       260(DI)(R9*2), Y5; \
	VINSERTI64X4  $1, 260(DI)(R10*1), Z5, Z5; \
	VPMADDWD      zOnes16<>(SB), Z4, Z4; \
	VPMADDWD      zOnes16<>(SB), Z5, Z5; \
	VPACKSSDW     Z5, Z4, Z4; \
	VMOVDQU32     zPTIdx<>(SB), Z20; \
	VPERMD        Z4, Z20, Z21; \
	VMOVD         0(SI), X0; \
	VPINSRD       $1, 0(SI)(R12*1), X0, X0; \
	VPINSRD       $2, 0(SI)(R12*2), X0, X0; \
	VPINSRD       $3, 0(SI)(R11*1), X0, X0; \
	VCVTPH2PS     X0, Y0; \
	VMOVDQU32     zDIdx<>(SB), Z20; \
	VPERMPS       Z0, Z20, Z1; \
	VMOVDQU32     zDminIdx<>(SB), Z20; \
	VPERMPS       Z0, Z20, Z2; \
	VMOVSS        (DI), X3; \
	VINSERTPS     $0x10, (DI)(R9*1), X3, X3; \
	VINSERTPS     $0x20, (DI)(R9*2), X3, X3; \
	VINSERTPS     $0x30, (DI)(R10*1), X3, X3; \
	VSHUFF32X4    $0, Z3, Z3, Z3; \
	VMULPS        Z3, Z1, Z28; \
	VMULPS        Z3, Z2, Z27

// Q4ZW loads the nibbles of chunk QS of weight rows R0 and R1 (the pair's
// two rows in the low and high 256 bits): low nibbles to LO, high nibbles
// to HI (YLO is LO's low half).
#define Q4ZW(QS, R0, R1, YLO, LO, HI) \
	VMOVDQU      QS R0, YLO; \
	VINSERTI64X4 $1, QS R1, LO, LO; \
	VPSRLW       $4, LO, HI; \
	VPANDD       Z31, HI, HI; \
	VPANDD       Z31, LO, LO

// Q4ZDOT leaves in T the scaled products of one activation chunk (low
// half in Z8, high half in Z9, each in both 256-bit halves) with a weight
// pair's chunk (nibbles in LO and HI, scales as words in SL and SH): eight
// int32 lanes per weight row. Uses Z18.
#define Q4ZDOT(LO, HI, SL, SH, T) \
	VPMADDUBSW Z8, LO, T; \
	VPMADDWD   SL, T, T; \
	VPMADDUBSW Z9, HI, Z18; \
	VPDPWSSD   SH, Z18, T

// Q4ZX loads the chunk at XO of one activation row into Z8, Z9 and leaves
// the products of the two weight pairs in T0 and T1.
#define Q4ZX(XO, T0, T1) \
	VBROADCASTI64X4 XO, Z8; \
	VBROADCASTI64X4 32+XO, Z9; \
	Q4ZDOT(Z0, Z1, Z4, Z5, T0); \
	Q4ZDOT(Z2, Z3, Z6, Z7, T1)

// ZFOLD1 adds A and B (two outputs' eight lanes each) into C, which holds
// per 128-bit lane two partial sums of A's lane's output, then two of B's.
// Uses Z18, Z19.
#define ZFOLD1(A, B, C) \
	VPUNPCKLQDQ B, A, Z18; \
	VPUNPCKHQDQ B, A, Z19; \
	VPADDD      Z19, Z18, C

// ZFOLD2 adds the ZFOLD1 results A (rows x0, x1) and B (x2, x3) into C:
// per 128-bit lane one partial sum of each of the four activation rows.
// Uses Z18, Z19.
#define ZFOLD2(A, B, C) \
	VSHUFPS $0x88, B, A, Z18; \
	VSHUFPS $0xdd, B, A, Z19; \
	VPADDD  Z19, Z18, C

// Q4ZCHUNK leaves in Z18 the integer sums of chunk C (64 elements) of the
// sixteen outputs, lane 4w+x, and in Z19 their minimums' sums. Uses
// Z0..Z17, Z20.
#define Q4ZCHUNK(C) \
	Q4ZW(16+32*C, (SI), (SI)(R12*1), Y0, Z0, Z1); \
	Q4ZW(16+32*C, (SI)(R12*2), (SI)(R11*1), Y2, Z2, Z3); \
	VPSHUFB zWordBcast<>+128*C(SB), Z26, Z4; \
	VPSHUFB zWordBcast<>+128*C+64(SB), Z26, Z5; \
	VPSHUFB zWordBcast<>+128*C(SB), Z25, Z6; \
	VPSHUFB zWordBcast<>+128*C+64(SB), Z25, Z7; \
	Q4ZX(4+64*C(DI), Z10, Z11); \
	Q4ZX(4+64*C(DI)(R9*1), Z12, Z13); \
	ZFOLD1(Z10, Z12, Z14); \
	ZFOLD1(Z11, Z13, Z15); \
	Q4ZX(4+64*C(DI)(R9*2), Z10, Z11); \
	Q4ZX(4+64*C(DI)(R10*1), Z12, Z13); \
	ZFOLD1(Z10, Z12, Z16); \
	ZFOLD1(Z11, Z13, Z17); \
	ZFOLD2(Z14, Z16, Z14); \
	ZFOLD2(Z15, Z17, Z15); \
	VSHUFI64X2  $0x88, Z15, Z14, Z18; \
	VSHUFI64X2  $0xdd, Z15, Z14, Z19; \
	VPADDD      Z19, Z18, Z18; \
	VPSHUFD     $(0x55*C), Z22, Z19; \
	VSHUFI64X2  $(0x55*C), Z21, Z21, Z20; \
	VPMADDWD    Z20, Z19, Z19

// Q4ZGEMM scales chunk C's sums into the accumulators (gemm order).
#define Q4ZGEMM(C) \
	Q4ZCHUNK(C); \
	VCVTDQ2PS   Z18, Z18; \
	VCVTDQ2PS   Z19, Z19; \
	VFMADD231PS Z18, Z28, Z30; \
	VFMADD231PS Z19, Z27, Z29

// Q4ZGEMV adds chunk C's sums to the super-block's (gemv order).
#define Q4ZGEMV(C) \
	Q4ZCHUNK(C); \
	VPADDD Z18, Z24, Z24; \
	VPADDD Z19, Z23, Z23

// func tileQ4KAVX512(a *tileArgs, rows int, gemm bool)
TEXT ·tileQ4KAVX512(SB), NOSPLIT, $0-17
	ZARGS
	VMOVDQU64 zb0f<>(SB), Z31

q4zgroup:
	MOVQ   R8, SI
	MOVQ   R13, DI
	MOVQ   R14, CX
	VPXORD Z30, Z30, Z30
	VPXORD Z29, Z29, Z29
	CMPB   gemm+16(FP), $0
	JEQ    q4zgemv

q4zgemm:
	Q4ZSETUP
	Q4ZGEMM(0)
	Q4ZGEMM(1)
	Q4ZGEMM(2)
	Q4ZGEMM(3)
	ADDQ $144, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q4zgemm
	JMP  q4zstore

q4zgemv:
	Q4ZSETUP
	VPXORD      Z24, Z24, Z24
	VPXORD      Z23, Z23, Z23
	Q4ZGEMV(0)
	Q4ZGEMV(1)
	Q4ZGEMV(2)
	Q4ZGEMV(3)
	VCVTDQ2PS   Z24, Z24
	VCVTDQ2PS   Z23, Z23
	VFMADD231PS Z24, Z28, Z30
	VFMADD231PS Z23, Z27, Z29
	ADDQ        $144, SI
	ADDQ        $292, DI
	DECQ        CX
	JNZ         q4zgemv

q4zstore:
	// acc - accMin, transposed so that 128-bit lane x holds weight rows
	// 0..3 of activation row x.
	VSUBPS        Z29, Z30, Z0
	VMOVDQU32     zTrIdx<>(SB), Z20
	VPERMPS       Z0, Z20, Z0
	ZOSTRIDE
	VMOVUPS       X0, (BX)
	VEXTRACTF32X4 $1, Z0, (BX)(CX*1)
	VEXTRACTF32X4 $2, Z0, (BX)(CX*2)
	VEXTRACTF32X4 $3, Z0, (AX)(CX*1)
	LEAQ          (R8)(R12*4), R8
	ADDQ          $16, BX
	SUBQ          $4, DX
	JNZ           q4zgroup
	VZEROUPPER
	RET

// zPairShuf+64k broadcasts, in each 256-bit half, int16 word 2k of the
// half's low lane over that lane and word 2k+1 over the high lane: the
// scales of Q6_K groups 2k and 2k+1 of 16 (of one half of a super-block).
DATA zPairShuf<>+0(SB)/8, $0x0100010001000100
DATA zPairShuf<>+8(SB)/8, $0x0100010001000100
DATA zPairShuf<>+16(SB)/8, $0x0302030203020302
DATA zPairShuf<>+24(SB)/8, $0x0302030203020302
DATA zPairShuf<>+32(SB)/8, $0x0100010001000100
DATA zPairShuf<>+40(SB)/8, $0x0100010001000100
DATA zPairShuf<>+48(SB)/8, $0x0302030203020302
DATA zPairShuf<>+56(SB)/8, $0x0302030203020302
DATA zPairShuf<>+64(SB)/8, $0x0504050405040504
DATA zPairShuf<>+72(SB)/8, $0x0504050405040504
DATA zPairShuf<>+80(SB)/8, $0x0706070607060706
DATA zPairShuf<>+88(SB)/8, $0x0706070607060706
DATA zPairShuf<>+96(SB)/8, $0x0504050405040504
DATA zPairShuf<>+104(SB)/8, $0x0504050405040504
DATA zPairShuf<>+112(SB)/8, $0x0706070607060706
DATA zPairShuf<>+120(SB)/8, $0x0706070607060706
DATA zPairShuf<>+128(SB)/8, $0x0908090809080908
DATA zPairShuf<>+136(SB)/8, $0x0908090809080908
DATA zPairShuf<>+144(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zPairShuf<>+152(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zPairShuf<>+160(SB)/8, $0x0908090809080908
DATA zPairShuf<>+168(SB)/8, $0x0908090809080908
DATA zPairShuf<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zPairShuf<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zPairShuf<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zPairShuf<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zPairShuf<>+208(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zPairShuf<>+216(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zPairShuf<>+224(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zPairShuf<>+232(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zPairShuf<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zPairShuf<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL zPairShuf<>(SB), RODATA|NOPTR, $256

// zQ6DIdx and zQ6D2Idx spread d0..d3 over [d0 ×8 | d1 ×8] and
// [d2 ×8 | d3 ×8]; zLane0Idx gathers lane 0 of each 128-bit lane.
DATA zQ6DIdx<>+0(SB)/8, $0x0000000000000000
DATA zQ6DIdx<>+8(SB)/8, $0x0000000000000000
DATA zQ6DIdx<>+16(SB)/8, $0x0000000000000000
DATA zQ6DIdx<>+24(SB)/8, $0x0000000000000000
DATA zQ6DIdx<>+32(SB)/8, $0x0000000100000001
DATA zQ6DIdx<>+40(SB)/8, $0x0000000100000001
DATA zQ6DIdx<>+48(SB)/8, $0x0000000100000001
DATA zQ6DIdx<>+56(SB)/8, $0x0000000100000001
GLOBL zQ6DIdx<>(SB), RODATA|NOPTR, $64

DATA zQ6D2Idx<>+0(SB)/8, $0x0000000200000002
DATA zQ6D2Idx<>+8(SB)/8, $0x0000000200000002
DATA zQ6D2Idx<>+16(SB)/8, $0x0000000200000002
DATA zQ6D2Idx<>+24(SB)/8, $0x0000000200000002
DATA zQ6D2Idx<>+32(SB)/8, $0x0000000300000003
DATA zQ6D2Idx<>+40(SB)/8, $0x0000000300000003
DATA zQ6D2Idx<>+48(SB)/8, $0x0000000300000003
DATA zQ6D2Idx<>+56(SB)/8, $0x0000000300000003
GLOBL zQ6D2Idx<>(SB), RODATA|NOPTR, $64

DATA zLane0Idx<>+0(SB)/8, $0x0000000400000000
DATA zLane0Idx<>+8(SB)/8, $0x0000000c00000008
DATA zLane0Idx<>+16(SB)/8, $0x0000000000000000
DATA zLane0Idx<>+24(SB)/8, $0x0000000000000000
DATA zLane0Idx<>+32(SB)/8, $0x0000000000000000
DATA zLane0Idx<>+40(SB)/8, $0x0000000000000000
DATA zLane0Idx<>+48(SB)/8, $0x0000000000000000
DATA zLane0Idx<>+56(SB)/8, $0x0000000000000000
GLOBL zLane0Idx<>(SB), RODATA|NOPTR, $64

// ZGROUP8 points SI, DI and CX at the group's first super-block, the
// first activation row and the super-block count, and zeroes the float
// accumulators Z8..Z15.
#define ZGROUP8 \
	MOVQ   R8, SI; \
	MOVQ   R13, DI; \
	MOVQ   R14, CX; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15

// tileQ6KAVX512 registers: as tileQ4KAVX512 for the pointers and counts.
// Z0..Z7 hold the integer lanes of the current super-block and Z8..Z15
// the float accumulators, Z(4p+x) and Z(8+4p+x) for weight pair p (rows
// 2p and 2p+1, in the low and high 256 bits) and activation row x, eight
// lanes per output as dotQ6KAVX2 keeps them. Z31 holds 0x0f bytes, Z30
// 0x30 bytes; Z24 and Z29 the scales of pair 0 (groups 0..7 and 8..15,
// as words, each half's eight in both its lanes), Z25 and Z26 those of
// pair 1; Z27 and Z28 the pairs' scales times -32 as int16 words while
// the lanes start, then the current chunk's scales, then the pairs' d.

// Q6ZSCALES decodes the scales of the weight pair at R0, R1: the words
// -32·sc (NEG) and the sources LO and HI of the scale vectors. Uses Z16.
#define Q6ZSCALES(R0, R1, NEG, LO, HI) \
	VMOVDQU32    192 R0, X16; \
	VINSERTI32X4 $1, 192 R1, Y16, Y16; \
	VPMOVSXBW    Y16, Z16; \
	VSHUFI64X2   $0xa0, Z16, Z16, LO; \
	VSHUFI64X2   $0xf5, Z16, Z16, HI; \
	VPSLLW       $5, Z16, Z16; \
	VPXORD       NEG, NEG, NEG; \
	VPSUBW       Z16, NEG, NEG

// Q6ZLANES starts activation row x's lanes of both pairs (L0, L1) with
// -32 times the scaled block sums of the row at A.
#define Q6ZLANES(A, L0, L1) \
	VBROADCASTI64X4 260 A, Z18; \
	VPMADDWD        Z18, Z27, L0; \
	VPMADDWD        Z18, Z28, L1

// Q6ZSETUP prepares one super-block: the pairs' scales and lanes.
#define Q6ZSETUP \
	Q6ZSCALES((SI), (SI)(R12*1), Z27, Z24, Z29); \
	Q6ZSCALES((SI)(R12*2), (SI)(R11*1), Z28, Z25, Z26); \
	Q6ZLANES((DI), Z0, Z4); \
	Q6ZLANES((DI)(R9*1), Z1, Z5); \
	Q6ZLANES((DI)(R9*2), Z2, Z6); \
	Q6ZLANES((DI)(R10*1), Z3, Z7)

// ZPAIRD puts the pairs' d (F16 at OFF in each row's block), [d0 ×8 |
// d1 ×8] and [d2 ×8 | d3 ×8], in Z27 and Z28, through the values gathered
// at 0(SP). Uses AX, Z16, Z17.
#define ZPAIRD(OFF) \
	MOVWLZX   OFF(SI), AX; \
	MOVW      AX, 0(SP); \
	MOVWLZX   OFF(SI)(R12*1), AX; \
	MOVW      AX, 2(SP); \
	MOVWLZX   OFF(SI)(R12*2), AX; \
	MOVW      AX, 4(SP); \
	MOVWLZX   OFF(SI)(R11*1), AX; \
	MOVW      AX, 6(SP); \
	VCVTPH2PS 0(SP), X16; \
	VMOVDQU32 zQ6DIdx<>(SB), Z17; \
	VPERMPS   Z16, Z17, Z27; \
	VMOVDQU32 zQ6D2Idx<>(SB), Z17; \
	VPERMPS   Z16, Z17, Z28

// Q6ZQH loads the high bits of half H of the two pairs into Z21, Z22.
#define Q6ZQH(H) \
	VMOVDQU32    128+32*H(SI), Y21; \
	VINSERTI64X4 $1, 128+32*H(SI)(R12*1), Z21, Z21; \
	VMOVDQU32    128+32*H(SI)(R12*2), Y22; \
	VINSERTI64X4 $1, 128+32*H(SI)(R11*1), Z22, Z22

// Q6ZLOW leaves in Q the quants of a chunk made of low nibbles (ql at QL
// of rows R0, R1) and the high bits QH shifted left by N.
#define Q6ZLOW(QL, R0, R1, YQ, Q, QH, N) \
	VMOVDQU32    QL R0, YQ; \
	VINSERTI64X4 $1, QL R1, Q, Q; \
	VPSLLW       $N, QH, Z23; \
	VPANDD       Z30, Z23, Z23; \
	VPTERNLOGD   $0xec, Z31, Z23, Q

// Q6ZHIGH2 and Q6ZHIGH3 are Q6ZLOW for the chunks of high nibbles: the
// high bits unshifted (chunk 2) or shifted right by 2 (chunk 3).
#define Q6ZHIGH2(QL, R0, R1, YQ, Q, QH) \
	VMOVDQU32    QL R0, YQ; \
	VINSERTI64X4 $1, QL R1, Q, Q; \
	VPSRLW       $4, Q, Q; \
	VPANDD       Z30, QH, Z23; \
	VPTERNLOGD   $0xec, Z31, Z23, Q

#define Q6ZHIGH3(QL, R0, R1, YQ, Q, QH) \
	VMOVDQU32    QL R0, YQ; \
	VINSERTI64X4 $1, QL R1, Q, Q; \
	VPSRLW       $4, Q, Q; \
	VPSRLW       $2, QH, Z23; \
	VPANDD       Z30, Z23, Z23; \
	VPTERNLOGD   $0xec, Z31, Z23, Q

// Q6ZX multiplies the chunk at XO of one activation row with the quants
// of both pairs (Z16, Z17) and adds the scaled products to its lanes L0,
// L1, the scales in Z27 and Z28.
#define Q6ZX(XO, L0, L1) \
	VBROADCASTI64X4 XO, Z18; \
	VPMADDUBSW      Z18, Z16, Z19; \
	VPDPWSSD        Z27, Z19, L0; \
	VPMADDUBSW      Z18, Z17, Z20; \
	VPDPWSSD        Z28, Z20, L1

// Q6ZX4 adds chunk J of half H to the lanes of the four activation rows,
// the pairs' scale sources for the half in PA and PB.
#define Q6ZX4(H, J, PA, PB) \
	VPSHUFB zPairShuf<>+64*J(SB), PA, Z27; \
	VPSHUFB zPairShuf<>+64*J(SB), PB, Z28; \
	Q6ZX(4+128*H+32*J(DI), Z0, Z4); \
	Q6ZX(4+128*H+32*J(DI)(R9*1), Z1, Z5); \
	Q6ZX(4+128*H+32*J(DI)(R9*2), Z2, Z6); \
	Q6ZX(4+128*H+32*J(DI)(R10*1), Z3, Z7)

// Q6ZHALF adds half H (128 elements) of the super-block, the pairs' scale
// sources for the half in PA and PB.
#define Q6ZHALF(H, PA, PB) \
	Q6ZQH(H); \
	Q6ZLOW(64*H, (SI), (SI)(R12*1), Y16, Z16, Z21, 4); \
	Q6ZLOW(64*H, (SI)(R12*2), (SI)(R11*1), Y17, Z17, Z22, 4); \
	Q6ZX4(H, 0, PA, PB); \
	Q6ZLOW(64*H+32, (SI), (SI)(R12*1), Y16, Z16, Z21, 2); \
	Q6ZLOW(64*H+32, (SI)(R12*2), (SI)(R11*1), Y17, Z17, Z22, 2); \
	Q6ZX4(H, 1, PA, PB); \
	Q6ZHIGH2(64*H, (SI), (SI)(R12*1), Y16, Z16, Z21); \
	Q6ZHIGH2(64*H, (SI)(R12*2), (SI)(R11*1), Y17, Z17, Z22); \
	Q6ZX4(H, 2, PA, PB); \
	Q6ZHIGH3(64*H+32, (SI), (SI)(R12*1), Y16, Z16, Z21); \
	Q6ZHIGH3(64*H+32, (SI)(R12*2), (SI)(R11*1), Y17, Z17, Z22); \
	Q6ZX4(H, 3, PA, PB)

// Q6ZFMA scales activation row x's lanes (at A; L0, L1) by d·x.d into
// its accumulators ACC0, ACC1 with one fused multiply-add per lane.
#define Q6ZFMA(A, L0, L1, ACC0, ACC1) \
	VBROADCASTSS A, Z18; \
	VMULPS       Z18, Z27, Z19; \
	VCVTDQ2PS    L0, L0; \
	VFMADD231PS  L0, Z19, ACC0; \
	VMULPS       Z18, Z28, Z20; \
	VCVTDQ2PS    L1, L1; \
	VFMADD231PS  L1, Z20, ACC1

// ZHSUM4 adds the eight lanes of each of the four outputs of one
// activation row (ACC0: weight rows 0, 1; ACC1: rows 2, 3) in hsum8's
// order: high half onto low half, lanes 0+2 and 1+3, then the two, and
// leaves them in X18. Z24 holds zLane0Idx. Uses Z19.
#define ZHSUM4(ACC0, ACC1) \
	VSHUFF32X4 $0x88, ACC1, ACC0, Z18; \
	VSHUFF32X4 $0xdd, ACC1, ACC0, Z19; \
	VADDPS     Z19, Z18, Z18; \
	VPERMILPS  $0x4e, Z18, Z19; \
	VADDPS     Z19, Z18, Z18; \
	VPERMILPS  $0xb1, Z18, Z19; \
	VADDPS     Z19, Z18, Z18; \
	VPERMPS    Z18, Z24, Z18

// Q6ZSTORE adds the eight lanes of each of the four outputs of one
// activation row (ACC0: rows 0, 1; ACC1: rows 2, 3) in hsum8's order and
// writes them to DST. Z24 holds zLane0Idx. Uses Z18..Z20.
#define Q6ZSTORE(ACC0, ACC1, DST) \
	ZHSUM4(ACC0, ACC1); \
	VMOVUPS X18, DST

// func tileQ6KAVX512(a *tileArgs, rows int)
TEXT ·tileQ6KAVX512(SB), NOSPLIT, $8-16
	ZARGS
	VMOVDQU64 zb0f<>(SB), Z31
	VMOVDQU64 zb30<>(SB), Z30

q6zgroup:
	ZGROUP8

q6zblock:
	Q6ZSETUP
	Q6ZHALF(0, Z24, Z25)
	Q6ZHALF(1, Z29, Z26)
	ZPAIRD(208)
	Q6ZFMA((DI), Z0, Z4, Z8, Z12)
	Q6ZFMA((DI)(R9*1), Z1, Z5, Z9, Z13)
	Q6ZFMA((DI)(R9*2), Z2, Z6, Z10, Z14)
	Q6ZFMA((DI)(R10*1), Z3, Z7, Z11, Z15)
	ADDQ $210, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q6zblock

	VMOVDQU32 zLane0Idx<>(SB), Z24
	ZOSTRIDE
	Q6ZSTORE(Z8, Z12, (BX))
	Q6ZSTORE(Z9, Z13, (BX)(CX*1))
	Q6ZSTORE(Z10, Z14, (BX)(CX*2))
	Q6ZSTORE(Z11, Z15, (AX)(CX*1))
	LEAQ      (R8)(R12*4), R8
	ADDQ      $16, BX
	SUBQ      $4, DX
	JNZ       q6zgroup
	VZEROUPPER
	RET

// zGemvDIdx spreads [d0, dmin0, ..., d3, dmin3] over the 128-bit lanes,
// lane r getting [d_r, d_r, dmin_r, dmin_r].
DATA zGemvDIdx<>+0(SB)/8, $0x0000000000000000
DATA zGemvDIdx<>+8(SB)/8, $0x0000000100000001
DATA zGemvDIdx<>+16(SB)/8, $0x0000000200000002
DATA zGemvDIdx<>+24(SB)/8, $0x0000000300000003
DATA zGemvDIdx<>+32(SB)/8, $0x0000000400000004
DATA zGemvDIdx<>+40(SB)/8, $0x0000000500000005
DATA zGemvDIdx<>+48(SB)/8, $0x0000000600000006
DATA zGemvDIdx<>+56(SB)/8, $0x0000000700000007
GLOBL zGemvDIdx<>(SB), RODATA|NOPTR, $64

// Q4GZSETUP prepares one super-block of the four weight rows (at SI) for
// the activation row at DI: the scales (Z26, Z25) and minimums (Z22) as
// in Q4ZSETUP, and in Z23 the minimums times the activations' pair sums,
// four int32 lanes per row in 128-bit lane r. Uses Z1..Z5.
#define Q4GZSETUP \
	Q4ZSCALES; \
	VBROADCASTI64X4 260(DI), Z4; \
	VPMADDWD        zOnes16<>(SB), Z4, Z4; \
	VPACKSSDW       Z4, Z4, Z4; \
	VPERMQ          $0x88, Z4, Z4; \
	VPMADDWD        Z4, Z22, Z23

// Q4GZCHUNK adds the scaled products of chunk C of the four rows to Z20
// (rows 0, 1) and Z21 (rows 2, 3). Uses Z0..Z13.
#define Q4GZCHUNK(C) \
	Q4ZW(16+32*C, (SI), (SI)(R12*1), Y0, Z0, Z1); \
	Q4ZW(16+32*C, (SI)(R12*2), (SI)(R11*1), Y2, Z2, Z3); \
	VPSHUFB         zWordBcast<>+128*C(SB), Z26, Z4; \
	VPSHUFB         zWordBcast<>+128*C+64(SB), Z26, Z5; \
	VPSHUFB         zWordBcast<>+128*C(SB), Z25, Z6; \
	VPSHUFB         zWordBcast<>+128*C+64(SB), Z25, Z7; \
	VBROADCASTI64X4 4+64*C(DI), Z8; \
	VBROADCASTI64X4 36+64*C(DI), Z9; \
	VPMADDUBSW      Z8, Z0, Z10; \
	VPDPWSSD        Z4, Z10, Z20; \
	VPMADDUBSW      Z9, Z1, Z11; \
	VPDPWSSD        Z5, Z11, Z20; \
	VPMADDUBSW      Z8, Z2, Z12; \
	VPDPWSSD        Z6, Z12, Z21; \
	VPMADDUBSW      Z9, Z3, Z13; \
	VPDPWSSD        Z7, Z13, Z21

// func gemvQ4KAVX512(a *tileArgs, rows int)
//
// Z30 holds, in 128-bit lane r, [acc, acc, accMin, accMin] of row r; Z29
// zGemvDIdx; R9 the next group's weights, prefetched as this one runs.
TEXT ·gemvQ4KAVX512(SB), NOSPLIT, $0-16
	ZARGS
	VMOVDQU64 zb0f<>(SB), Z31
	VMOVDQU32 zGemvDIdx<>(SB), Z29

q4gzgroup:
	MOVQ   R8, SI
	MOVQ   R13, DI
	MOVQ   R14, CX
	LEAQ   (R8)(R12*4), R9
	VPXORD Z30, Z30, Z30

q4gzblock:
	PREFETCHT0 0(R9)
	PREFETCHT0 64(R9)
	PREFETCHT0 128(R9)
	PREFETCHT0 192(R9)
	PREFETCHT0 256(R9)
	PREFETCHT0 320(R9)
	PREFETCHT0 384(R9)
	PREFETCHT0 448(R9)
	PREFETCHT0 512(R9)
	Q4GZSETUP
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	Q4GZCHUNK(0)
	Q4GZCHUNK(1)
	Q4GZCHUNK(2)
	Q4GZCHUNK(3)

	// [isum, isum, msum, msum] of row r in 128-bit lane r.
	VSHUFI64X2  $0x88, Z21, Z20, Z0
	VSHUFI64X2  $0xdd, Z21, Z20, Z1
	VPADDD      Z1, Z0, Z0
	VPUNPCKLQDQ Z23, Z0, Z1
	VPUNPCKHQDQ Z23, Z0, Z2
	VPADDD      Z2, Z1, Z1
	VPSHUFD     $0xb1, Z1, Z2
	VPADDD      Z2, Z1, Z1
	VCVTDQ2PS   Z1, Z1

	// times [d, d, dmin, dmin]·x.d of each row.
	VMOVD        0(SI), X0
	VPINSRD      $1, 0(SI)(R12*1), X0, X0
	VPINSRD      $2, 0(SI)(R12*2), X0, X0
	VPINSRD      $3, 0(SI)(R11*1), X0, X0
	VCVTPH2PS    X0, Y0
	VPERMPS      Z0, Z29, Z2
	VBROADCASTSS (DI), Z3
	VMULPS       Z3, Z2, Z2
	VFMADD231PS  Z1, Z2, Z30

	ADDQ $144, SI
	ADDQ $292, DI
	ADDQ $576, R9
	DECQ CX
	JNZ  q4gzblock

	VPERMILPS $0x02, Z30, Z0
	VSUBPS    Z0, Z30, Z0 // acc - accMin in lane 0 of each 128-bit lane
	VMOVDQU32 zLane0Idx<>(SB), Z1
	VPERMPS   Z0, Z1, Z0
	VMOVUPS   X0, (BX)
	LEAQ      (R8)(R12*4), R8
	ADDQ      $16, BX
	SUBQ      $4, DX
	JNZ       q4gzgroup
	VZEROUPPER
	RET

// Q6GZSCALES decodes the scales of the weight pair at R0, R1 for the
// activation row at DI: its lanes L start at -32 times the scaled block
// sums (Z18 the block sums in both halves), its scales go to LO (groups
// 0..7) and HI (8..15) spread as in Q6ZSCALES' sources. Uses Z16, Z17.
#define Q6GZSCALES(R0, R1, L, LO, HI) \
	VMOVDQU32    192 R0, X16; \
	VINSERTI32X4 $1, 192 R1, Y16, Y16; \
	VPMOVSXBW    Y16, Z16; \
	VSHUFI64X2   $0xa0, Z16, Z16, LO; \
	VSHUFI64X2   $0xf5, Z16, Z16, HI; \
	VPSLLW       $5, Z16, Z16; \
	VPXORD       Z17, Z17, Z17; \
	VPSUBW       Z16, Z17, Z17; \
	VPMADDWD     Z18, Z17, L

// Q6GZX adds chunk J of the activation half at XO to the lanes of the two
// pairs (quants in Z16, Z17; scale sources PA, PB).
#define Q6GZX(XO, J, PA, PB) \
	VBROADCASTI64X4 XO(DI), Z18; \
	VPSHUFB         zPairShuf<>+64*J(SB), PA, Z10; \
	VPSHUFB         zPairShuf<>+64*J(SB), PB, Z11; \
	VPMADDUBSW      Z18, Z16, Z19; \
	VPDPWSSD        Z10, Z19, Z0; \
	VPMADDUBSW      Z18, Z17, Z20; \
	VPDPWSSD        Z11, Z20, Z1

// Q6GZHALF adds half H of the super-block of the four rows to Z0, Z1, the
// pairs' scale sources for the half in PA and PB.
#define Q6GZHALF(H, PA, PB) \
	Q6ZQH(H); \
	Q6ZLOW(64*H, (SI), (SI)(R12*1), Y16, Z16, Z21, 4); \
	Q6ZLOW(64*H, (SI)(R12*2), (SI)(R11*1), Y17, Z17, Z22, 4); \
	Q6GZX(4+128*H, 0, PA, PB); \
	Q6ZLOW(64*H+32, (SI), (SI)(R12*1), Y16, Z16, Z21, 2); \
	Q6ZLOW(64*H+32, (SI)(R12*2), (SI)(R11*1), Y17, Z17, Z22, 2); \
	Q6GZX(36+128*H, 1, PA, PB); \
	Q6ZHIGH2(64*H, (SI), (SI)(R12*1), Y16, Z16, Z21); \
	Q6ZHIGH2(64*H, (SI)(R12*2), (SI)(R11*1), Y17, Z17, Z22); \
	Q6GZX(68+128*H, 2, PA, PB); \
	Q6ZHIGH3(64*H+32, (SI), (SI)(R12*1), Y16, Z16, Z21); \
	Q6ZHIGH3(64*H+32, (SI)(R12*2), (SI)(R11*1), Y17, Z17, Z22); \
	Q6GZX(100+128*H, 3, PA, PB)

// func gemvQ6KAVX512(a *tileArgs, rows int)
//
// Z0 and Z1 hold the integer lanes of pairs 0 (rows 0, 1) and 1 (rows 2,
// 3) for the current super-block, Z2 and Z3 their float32 accumulators;
// Z4..Z7 the pairs' scale sources; R9 the next group's weights, prefetched
// as this one runs.
TEXT ·gemvQ6KAVX512(SB), NOSPLIT, $0-16
	ZARGS
	VMOVDQU64 zb0f<>(SB), Z31
	VMOVDQU64 zb30<>(SB), Z30

q6gzgroup:
	MOVQ   R8, SI
	MOVQ   R13, DI
	MOVQ   R14, CX
	LEAQ   (R8)(R12*4), R9
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

q6gzblock:
	PREFETCHT0 0(R9)
	PREFETCHT0 64(R9)
	PREFETCHT0 128(R9)
	PREFETCHT0 192(R9)
	PREFETCHT0 256(R9)
	PREFETCHT0 320(R9)
	PREFETCHT0 384(R9)
	PREFETCHT0 448(R9)
	PREFETCHT0 512(R9)
	PREFETCHT0 576(R9)
	PREFETCHT0 640(R9)
	PREFETCHT0 704(R9)
	PREFETCHT0 768(R9)
	PREFETCHT0 832(R9)
	VBROADCASTI64X4 260(DI), Z18
	Q6GZSCALES((SI), (SI)(R12*1), Z0, Z4, Z5)
	Q6GZSCALES((SI)(R12*2), (SI)(R11*1), Z1, Z6, Z7)
	Q6GZHALF(0, Z4, Z6)
	Q6GZHALF(1, Z5, Z7)

	// d·x.d of the pairs, one fused multiply-add per lane.
	MOVWLZX      208(SI), AX
	VMOVD        AX, X8
	VPINSRW      $1, 208(SI)(R12*1), X8, X8
	VPINSRW      $2, 208(SI)(R12*2), X8, X8
	VPINSRW      $3, 208(SI)(R11*1), X8, X8
	VCVTPH2PS    X8, X8
	VBROADCASTSS (DI), Z18
	VMOVDQU32    zQ6DIdx<>(SB), Z19
	VPERMPS      Z8, Z19, Z9
	VMULPS       Z18, Z9, Z9
	VCVTDQ2PS    Z0, Z0
	VFMADD231PS  Z0, Z9, Z2
	VMOVDQU32    zQ6D2Idx<>(SB), Z19
	VPERMPS      Z8, Z19, Z9
	VMULPS       Z18, Z9, Z9
	VCVTDQ2PS    Z1, Z1
	VFMADD231PS  Z1, Z9, Z3

	ADDQ $210, SI
	ADDQ $292, DI
	ADDQ $840, R9
	DECQ CX
	JNZ  q6gzblock

	VMOVDQU32 zLane0Idx<>(SB), Z24
	Q6ZSTORE(Z2, Z3, (BX))
	LEAQ      (R8)(R12*4), R8
	ADDQ      $16, BX
	SUBQ      $4, DX
	JNZ       q6gzgroup
	VZEROUPPER
	RET

// zQ4Shift is 0 in the low 16 words and 4 in the high 16: vpsrlvw by it
// turns 32 nibble bytes (in both halves) into the low nibbles, then the
// high ones.
DATA zQ4Shift<>+0(SB)/8, $0x0000000000000000
DATA zQ4Shift<>+8(SB)/8, $0x0000000000000000
DATA zQ4Shift<>+16(SB)/8, $0x0000000000000000
DATA zQ4Shift<>+24(SB)/8, $0x0000000000000000
DATA zQ4Shift<>+32(SB)/8, $0x0004000400040004
DATA zQ4Shift<>+40(SB)/8, $0x0004000400040004
DATA zQ4Shift<>+48(SB)/8, $0x0004000400040004
DATA zQ4Shift<>+56(SB)/8, $0x0004000400040004
GLOBL zQ4Shift<>(SB), RODATA|NOPTR, $64

// zQ4Pair+64c broadcasts int16 word 2c of each 128-bit lane over the low
// 256 bits and word 2c+1 over the high 256: the scales of Q4_K chunk c's
// two sub-blocks.
DATA zQ4Pair<>+0(SB)/8, $0x0100010001000100
DATA zQ4Pair<>+8(SB)/8, $0x0100010001000100
DATA zQ4Pair<>+16(SB)/8, $0x0100010001000100
DATA zQ4Pair<>+24(SB)/8, $0x0100010001000100
DATA zQ4Pair<>+32(SB)/8, $0x0302030203020302
DATA zQ4Pair<>+40(SB)/8, $0x0302030203020302
DATA zQ4Pair<>+48(SB)/8, $0x0302030203020302
DATA zQ4Pair<>+56(SB)/8, $0x0302030203020302
DATA zQ4Pair<>+64(SB)/8, $0x0504050405040504
DATA zQ4Pair<>+72(SB)/8, $0x0504050405040504
DATA zQ4Pair<>+80(SB)/8, $0x0504050405040504
DATA zQ4Pair<>+88(SB)/8, $0x0504050405040504
DATA zQ4Pair<>+96(SB)/8, $0x0706070607060706
DATA zQ4Pair<>+104(SB)/8, $0x0706070607060706
DATA zQ4Pair<>+112(SB)/8, $0x0706070607060706
DATA zQ4Pair<>+120(SB)/8, $0x0706070607060706
DATA zQ4Pair<>+128(SB)/8, $0x0908090809080908
DATA zQ4Pair<>+136(SB)/8, $0x0908090809080908
DATA zQ4Pair<>+144(SB)/8, $0x0908090809080908
DATA zQ4Pair<>+152(SB)/8, $0x0908090809080908
DATA zQ4Pair<>+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zQ4Pair<>+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zQ4Pair<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zQ4Pair<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zQ4Pair<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zQ4Pair<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zQ4Pair<>+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zQ4Pair<>+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zQ4Pair<>+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zQ4Pair<>+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zQ4Pair<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zQ4Pair<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL zQ4Pair<>(SB), RODATA|NOPTR, $256

// zQ6S01 broadcasts word i of 128-bit lane i over the lane, zQ6S23 word
// 4+i: the scales of the four groups of 16 of Q6_K chunks 0, 1 and 2, 3
// of a half.
DATA zQ6S01<>+0(SB)/8, $0x0100010001000100
DATA zQ6S01<>+8(SB)/8, $0x0100010001000100
DATA zQ6S01<>+16(SB)/8, $0x0302030203020302
DATA zQ6S01<>+24(SB)/8, $0x0302030203020302
DATA zQ6S01<>+32(SB)/8, $0x0504050405040504
DATA zQ6S01<>+40(SB)/8, $0x0504050405040504
DATA zQ6S01<>+48(SB)/8, $0x0706070607060706
DATA zQ6S01<>+56(SB)/8, $0x0706070607060706
GLOBL zQ6S01<>(SB), RODATA|NOPTR, $64

DATA zQ6S23<>+0(SB)/8, $0x0908090809080908
DATA zQ6S23<>+8(SB)/8, $0x0908090809080908
DATA zQ6S23<>+16(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zQ6S23<>+24(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA zQ6S23<>+32(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zQ6S23<>+40(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA zQ6S23<>+48(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA zQ6S23<>+56(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL zQ6S23<>(SB), RODATA|NOPTR, $64

// zQ6ShLo and zQ6ShHi shift the high bits of a Q6_K half (in both 256-bit
// halves) to bits 4 and 5 for chunks 0, 1 (left by 4, 2) and 2, 3 (right
// by 0, 2).
DATA zQ6ShLo<>+0(SB)/8, $0x0004000400040004
DATA zQ6ShLo<>+8(SB)/8, $0x0004000400040004
DATA zQ6ShLo<>+16(SB)/8, $0x0004000400040004
DATA zQ6ShLo<>+24(SB)/8, $0x0004000400040004
DATA zQ6ShLo<>+32(SB)/8, $0x0002000200020002
DATA zQ6ShLo<>+40(SB)/8, $0x0002000200020002
DATA zQ6ShLo<>+48(SB)/8, $0x0002000200020002
DATA zQ6ShLo<>+56(SB)/8, $0x0002000200020002
GLOBL zQ6ShLo<>(SB), RODATA|NOPTR, $64

DATA zQ6ShHi<>+0(SB)/8, $0x0000000000000000
DATA zQ6ShHi<>+8(SB)/8, $0x0000000000000000
DATA zQ6ShHi<>+16(SB)/8, $0x0000000000000000
DATA zQ6ShHi<>+24(SB)/8, $0x0000000000000000
DATA zQ6ShHi<>+32(SB)/8, $0x0002000200020002
DATA zQ6ShHi<>+40(SB)/8, $0x0002000200020002
DATA zQ6ShHi<>+48(SB)/8, $0x0002000200020002
DATA zQ6ShHi<>+56(SB)/8, $0x0002000200020002
GLOBL zQ6ShHi<>(SB), RODATA|NOPTR, $64

// SARGS loads a single-row kernel's arguments: the weights to SI, the
// activations to DI, the super-block count to CX.
#define SARGS \
	MOVQ w+0(FP), SI; \
	MOVQ x+8(FP), DI; \
	MOVQ n+16(FP), CX

// SDMIN puts [d, dmin]·x.d (the F16 pair at OFF(SI), x.d at (DI)) in
// X11's lanes 0 and 1. Uses X0 and T.
#define SDMIN(OFF, T) \
	VMOVD        OFF(SI), X0; \
	VCVTPH2PS    X0, X0; \
	VBROADCASTSS (DI), T; \
	VMULPS       T, X0, X11

// SDIFF leaves acc - accMin (X10's lanes 0 and 1) in X0 and leaves the
// AVX-512 state.
#define SDIFF \
	VMOVSHDUP X10, X0; \
	VSUBSS    X0, X10, X0; \
	VZEROUPPER

// Q4SCHUNK adds the scaled products of chunk C (64 elements) of one Q4_K
// row (at SI) with the activations at DI to ACC: the 32 nibble bytes in
// both halves, shifted by zQ4Shift (Z30) and masked (Z31) into the chunk's
// 64 quants in order, the scales from Z16 by zQ4Pair. Uses Z0..Z2.
#define Q4SCHUNK(C, ACC) \
	VBROADCASTI64X4 16+32*C(SI), Z0; \
	VPSRLVW         Z30, Z0, Z0; \
	VPANDD          Z31, Z0, Z0; \
	VPSHUFB         zQ4Pair<>+64*C(SB), Z16, Z1; \
	VPMADDUBSW      4+64*C(DI), Z0, Z2; \
	VPDPWSSD        Z1, Z2, ACC

// Q4SSETUP decodes one Q4_K super-block's scales into Z16 (s0..s7 as words
// in every 128-bit lane) and its chunks' minimums' sums into X3
// ([m_c] for c = 0..3), and puts [d, dmin]·x.d in X11's lanes 0 and 1.
// Uses X0..X5.
#define Q4SSETUP \
	VMOVDQU      4(SI), X1; \
	VPSHUFB      zkscB<>(SB), X1, X5; \
	VPSHUFB      zkscA<>(SB), X1, X1; \
	VPSRLVD      zkscShift<>(SB), X1, X1; \
	VPAND        zkscMask<>(SB), X1, X1; \
	VPSRLD       $2, X5, X5; \
	VPAND        zb30<>(SB), X5, X5; \
	VPOR         X5, X1, X1; \
	VPMOVZXBW    X1, X2; \
	VSHUFI32X4   $0, Z2, Z2, Z16; \
	VPSRLDQ      $8, X1, X3; \
	VPMOVZXBW    X3, X3; \
	VMOVDQU      260(DI), Y4; \
	VPMADDWD     zOnes16<>(SB), Y4, Y4; \
	VEXTRACTI128 $1, Y4, X5; \
	VPACKSSDW    X5, X4, X4; \
	VPMADDWD     X4, X3, X3; \
	SDMIN(0, X1)

// func dotQ4KAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32
//
// X10 holds [acc, accMin] in lanes 0 and 1.
TEXT ·dotQ4KAVX512(SB), NOSPLIT, $0-36
	SARGS
	VMOVDQU64 zb0f<>(SB), Z31
	VMOVDQU64 zQ4Shift<>(SB), Z30
	VXORPS    X10, X10, X10
	CMPB      gemm+24(FP), $0
	JNE       q4sgemm

q4sgemv:
	Q4SSETUP
	VPXORD Z12, Z12, Z12
	Q4SCHUNK(0, Z12)
	Q4SCHUNK(1, Z12)
	Q4SCHUNK(2, Z12)
	Q4SCHUNK(3, Z12)

	// [isum, msum] as float32, times [d, dmin]·x.d.
	VEXTRACTI64X4 $1, Z12, Y0
	VPADDD        Y0, Y12, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0x4e, X0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0xb1, X0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0x4e, X3, X1
	VPADDD        X1, X3, X3
	VPSHUFD       $0xb1, X3, X1
	VPADDD        X1, X3, X3
	VPUNPCKLDQ    X3, X0, X0
	VCVTDQ2PS     X0, X0
	VFMADD231PS   X0, X11, X10
	ADDQ          $144, SI
	ADDQ          $292, DI
	DECQ          CX
	JNZ           q4sgemv
	JMP           q4sdone

q4sgemm:
	Q4SSETUP
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	Q4SCHUNK(0, Z12)
	Q4SCHUNK(1, Z13)
	Q4SCHUNK(2, Z14)
	Q4SCHUNK(3, Z15)

	// [i0, i1, i2, i3]: the chunks' integer sums.
	VPUNPCKLQDQ   Z13, Z12, Z0
	VPUNPCKHQDQ   Z13, Z12, Z1
	VPADDD        Z1, Z0, Z0
	VPUNPCKLQDQ   Z15, Z14, Z1
	VPUNPCKHQDQ   Z15, Z14, Z2
	VPADDD        Z2, Z1, Z1
	VSHUFPS       $0x88, Z1, Z0, Z2
	VSHUFPS       $0xdd, Z1, Z0, Z4
	VPADDD        Z4, Z2, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0

	// [i_c, m_c] scaled into [acc, accMin] chunk by chunk.
	VPUNPCKLDQ  X3, X0, X1
	VPUNPCKHDQ  X3, X0, X2
	VCVTDQ2PS   X1, X1
	VCVTDQ2PS   X2, X2
	VFMADD231PS X1, X11, X10
	VMOVHLPS    X1, X1, X1
	VFMADD231PS X1, X11, X10
	VFMADD231PS X2, X11, X10
	VMOVHLPS    X2, X2, X2
	VFMADD231PS X2, X11, X10
	ADDQ        $144, SI
	ADDQ        $292, DI
	DECQ        CX
	JNZ         q4sgemm

q4sdone:
	SDIFF
	VMOVSS X0, ret+32(FP)
	RET

// Q6SHALF adds half H (128 elements) of one Q6_K row (at SI) times the
// activations at DI to Z12's lanes. Z31 holds 0x0f bytes, Z30 0x30 bytes,
// Z29 zQ6ShLo, Z28 zQ6ShHi; the scales as words in Y1. Uses Z3..Z7.
#define Q6SHALF(H) \
	VMOVDQU64       64*H(SI), Z3; \
	VBROADCASTI64X4 128+32*H(SI), Z4; \
	VPSLLVW         Z29, Z4, Z5; \
	VPANDD          Z30, Z5, Z5; \
	VPANDD          Z31, Z3, Z6; \
	VPORD           Z5, Z6, Z6; \
	VSHUFI32X4      $(0x55*H), Z1, Z1, Z7; \
	VPSHUFB         zQ6S01<>(SB), Z7, Z5; \
	VPMADDUBSW      4+128*H(DI), Z6, Z6; \
	VPDPWSSD        Z5, Z6, Z12; \
	VPSRLW          $4, Z3, Z3; \
	VPSRLVW         Z28, Z4, Z4; \
	VPANDD          Z30, Z4, Z4; \
	VPTERNLOGD      $0xec, Z31, Z4, Z3; \
	VPSHUFB         zQ6S23<>(SB), Z7, Z5; \
	VPMADDUBSW      68+128*H(DI), Z3, Z3; \
	VPDPWSSD        Z5, Z3, Z12

// func dotQ6KAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32
//
// Per half, chunks 0 and 1 go in one zmm (low nibbles of the half's 64 ql
// bytes) and chunks 2 and 3 in another (high nibbles); the two 256-bit
// halves of the lanes are added before the block sums are taken off. Y8
// holds the eight float32 accumulators.
TEXT ·dotQ6KAVX512(SB), NOSPLIT, $0-36
	SARGS
	VMOVDQU64 zb0f<>(SB), Z31
	VMOVDQU64 zb30<>(SB), Z30
	VMOVDQU64 zQ6ShLo<>(SB), Z29
	VMOVDQU64 zQ6ShHi<>(SB), Z28
	VXORPS    Y8, Y8, Y8

q6sblock:
	VPMOVSXBW 192(SI), Y1 // the 16 scales as int16
	VPMADDWD  260(DI), Y1, Y2
	VPSLLD    $5, Y2, Y2  // 32·(sc[2l]·bsum[2l] + sc[2l+1]·bsum[2l+1])
	VPXORD    Z12, Z12, Z12
	Q6SHALF(0)
	Q6SHALF(1)
	VEXTRACTI64X4 $1, Z12, Y0
	VPADDD        Y0, Y12, Y12
	VPSUBD        Y2, Y12, Y12

	MOVWLZX      208(SI), AX
	VMOVD        AX, X0
	VCVTPH2PS    X0, X0
	VMULSS       (DI), X0, X0
	VBROADCASTSS X0, Y0
	VCVTDQ2PS    Y12, Y12
	VFMADD231PS  Y12, Y0, Y8
	ADDQ         $210, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          q6sblock

	VEXTRACTF128 $1, Y8, X0
	VADDPS       X0, X8, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VZEROUPPER
	VMOVSS       X0, ret+32(FP)
	RET

// zb10 is 0x10 in every byte. zQ5Sh0..zQ5Sh3 shift the Q5_K fifth bits
// of chunk c's two sub-blocks (bits 2c and 2c+1 of each qh byte, in the
// low and high 256 bits) to bit 4: left by 4, 3 and 2, 1 for chunks 0 and
// 1, right by 0, 1 and 2, 3 for chunks 2 and 3.
DATA zb10<>+0(SB)/8, $0x1010101010101010
DATA zb10<>+8(SB)/8, $0x1010101010101010
DATA zb10<>+16(SB)/8, $0x1010101010101010
DATA zb10<>+24(SB)/8, $0x1010101010101010
DATA zb10<>+32(SB)/8, $0x1010101010101010
DATA zb10<>+40(SB)/8, $0x1010101010101010
DATA zb10<>+48(SB)/8, $0x1010101010101010
DATA zb10<>+56(SB)/8, $0x1010101010101010
GLOBL zb10<>(SB), RODATA|NOPTR, $64

DATA zQ5Sh0<>+0(SB)/8, $0x0004000400040004
DATA zQ5Sh0<>+8(SB)/8, $0x0004000400040004
DATA zQ5Sh0<>+16(SB)/8, $0x0004000400040004
DATA zQ5Sh0<>+24(SB)/8, $0x0004000400040004
DATA zQ5Sh0<>+32(SB)/8, $0x0003000300030003
DATA zQ5Sh0<>+40(SB)/8, $0x0003000300030003
DATA zQ5Sh0<>+48(SB)/8, $0x0003000300030003
DATA zQ5Sh0<>+56(SB)/8, $0x0003000300030003
GLOBL zQ5Sh0<>(SB), RODATA|NOPTR, $64

DATA zQ5Sh1<>+0(SB)/8, $0x0002000200020002
DATA zQ5Sh1<>+8(SB)/8, $0x0002000200020002
DATA zQ5Sh1<>+16(SB)/8, $0x0002000200020002
DATA zQ5Sh1<>+24(SB)/8, $0x0002000200020002
DATA zQ5Sh1<>+32(SB)/8, $0x0001000100010001
DATA zQ5Sh1<>+40(SB)/8, $0x0001000100010001
DATA zQ5Sh1<>+48(SB)/8, $0x0001000100010001
DATA zQ5Sh1<>+56(SB)/8, $0x0001000100010001
GLOBL zQ5Sh1<>(SB), RODATA|NOPTR, $64

DATA zQ5Sh2<>+0(SB)/8, $0x0000000000000000
DATA zQ5Sh2<>+8(SB)/8, $0x0000000000000000
DATA zQ5Sh2<>+16(SB)/8, $0x0000000000000000
DATA zQ5Sh2<>+24(SB)/8, $0x0000000000000000
DATA zQ5Sh2<>+32(SB)/8, $0x0001000100010001
DATA zQ5Sh2<>+40(SB)/8, $0x0001000100010001
DATA zQ5Sh2<>+48(SB)/8, $0x0001000100010001
DATA zQ5Sh2<>+56(SB)/8, $0x0001000100010001
GLOBL zQ5Sh2<>(SB), RODATA|NOPTR, $64

DATA zQ5Sh3<>+0(SB)/8, $0x0002000200020002
DATA zQ5Sh3<>+8(SB)/8, $0x0002000200020002
DATA zQ5Sh3<>+16(SB)/8, $0x0002000200020002
DATA zQ5Sh3<>+24(SB)/8, $0x0002000200020002
DATA zQ5Sh3<>+32(SB)/8, $0x0003000300030003
DATA zQ5Sh3<>+40(SB)/8, $0x0003000300030003
DATA zQ5Sh3<>+48(SB)/8, $0x0003000300030003
DATA zQ5Sh3<>+56(SB)/8, $0x0003000300030003
GLOBL zQ5Sh3<>(SB), RODATA|NOPTR, $64

// Q5SCHUNK adds the scaled products of chunk C of one Q5_K row to Z12: the
// nibbles as in Q4SCHUNK (at 48+32C), the fifth bits from Z17 (qh in both
// halves) shifted to bit 4 by SHOP with the counts at SHC. Z29 holds 0x10
// bytes. Uses Z0..Z2.
#define Q5SCHUNK(C, SHOP, SHC) \
	VBROADCASTI64X4 48+32*C(SI), Z0; \
	VPSRLVW         Z30, Z0, Z0; \
	SHOP            SHC<>(SB), Z17, Z2; \
	VPANDD          Z29, Z2, Z2; \
	VPTERNLOGD      $0xec, Z31, Z2, Z0; \
	VPSHUFB         zQ4Pair<>+64*C(SB), Z16, Z1; \
	VPMADDUBSW      4+64*C(DI), Z0, Z2; \
	VPDPWSSD        Z1, Z2, Z12

// func dotQ5KAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32
//
// Y8 holds the eight float32 accumulators, X9 the minimums' sum.
TEXT ·dotQ5KAVX512(SB), NOSPLIT, $0-36
	SARGS
	VMOVDQU64 zb0f<>(SB), Z31
	VMOVDQU64 zQ4Shift<>(SB), Z30
	VMOVDQU64 zb10<>(SB), Z29
	VXORPS    Y8, Y8, Y8
	VXORPS    X9, X9, X9

q5sblock:
	Q4SSETUP
	VBROADCASTI64X4 16(SI), Z17
	VPXORD          Z12, Z12, Z12
	Q5SCHUNK(0, VPSLLVW, zQ5Sh0)
	Q5SCHUNK(1, VPSLLVW, zQ5Sh1)
	Q5SCHUNK(2, VPSRLVW, zQ5Sh2)
	Q5SCHUNK(3, VPSRLVW, zQ5Sh3)
	VEXTRACTI64X4   $1, Z12, Y0
	VPADDD          Y0, Y12, Y12

	// lanes scaled by d·x.d, one fused multiply-add each; the minimums'
	// sum by -dmin·x.d into X9.
	VBROADCASTSS X11, Y0
	VCVTDQ2PS    Y12, Y12
	VFMADD231PS  Y12, Y0, Y8
	VPSHUFD      $0x4e, X3, X1
	VPADDD       X1, X3, X3
	VPSHUFD      $0xb1, X3, X1
	VPADDD       X1, X3, X3
	VCVTDQ2PS    X3, X3
	VMOVSHDUP    X11, X1
	VFNMADD231SS X3, X1, X9
	ADDQ         $176, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          q5sblock

	VEXTRACTF128 $1, Y8, X0
	VADDPS       X0, X8, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VADDSS       X9, X0, X0
	VZEROUPPER
	VMOVSS       X0, ret+32(FP)
	RET

// tileQ5KAVX512 registers: as tileQ6KAVX512 for the lanes (Z0..Z7) and
// the float accumulators (Z8..Z15). Z31 holds 0x0f bytes, Z30 0x10 bytes;
// Z29 the sixteen outputs' minimums' sums (lane 4w+x); Z26 and Z25 the
// scales (Q4ZSCALES); Z23 and Z24 the pairs' fifth bits (qh).

// Q5ZMINS adds the minimums' integer sums of the super-block, scaled by
// -dmin·x.d (Z27), to Z29, after Q4ZSETUP. Uses Z18..Z20.
#define Q5ZMINS \
	VPSHUFD      $0x00, Z22, Z18; \
	VSHUFI64X2   $0x00, Z21, Z21, Z19; \
	VPMADDWD     Z19, Z18, Z20; \
	VPSHUFD      $0x55, Z22, Z18; \
	VSHUFI64X2   $0x55, Z21, Z21, Z19; \
	VPMADDWD     Z19, Z18, Z18; \
	VPADDD       Z18, Z20, Z20; \
	VPSHUFD      $0xaa, Z22, Z18; \
	VSHUFI64X2   $0xaa, Z21, Z21, Z19; \
	VPMADDWD     Z19, Z18, Z18; \
	VPADDD       Z18, Z20, Z20; \
	VPSHUFD      $0xff, Z22, Z18; \
	VSHUFI64X2   $0xff, Z21, Z21, Z19; \
	VPMADDWD     Z19, Z18, Z18; \
	VPADDD       Z18, Z20, Z20; \
	VCVTDQ2PS    Z20, Z20; \
	VFNMADD231PS Z20, Z27, Z29

// Q5ZW loads the 32 nibble bytes of chunk C of the two pairs into Z16 and
// Z17 (rows 0, 1 and 2, 3 in the low and high 256 bits).
#define Q5ZW(C) \
	VMOVDQU32    48+32*C(SI), Y16; \
	VINSERTI64X4 $1, 48+32*C(SI)(R12*1), Z16, Z16; \
	VMOVDQU32    48+32*C(SI)(R12*2), Y17; \
	VINSERTI64X4 $1, 48+32*C(SI)(R11*1), Z17, Z17

// Q5ZBITS merges into the pairs' nibbles (Z16, Z17, high nibbles already
// shifted down) their fifth bits: qh (Z23, Z24) shifted by SHOP $N to bit
// 4. Uses Z19, Z20.
#define Q5ZBITS(SHOP, N) \
	SHOP       $N, Z23, Z19; \
	VPANDD     Z30, Z19, Z19; \
	VPTERNLOGD $0xec, Z31, Z19, Z16; \
	SHOP       $N, Z24, Z20; \
	VPANDD     Z30, Z20, Z20; \
	VPTERNLOGD $0xec, Z31, Z20, Z17

// Q5ZX adds the products of the pairs' sub-block (quants in Z16, Z17,
// scales in Z21, Z22) with the 32 activations at XO to the lanes L0, L1.
#define Q5ZX(XO, L0, L1) \
	VBROADCASTI64X4 XO, Z18; \
	VPMADDUBSW      Z18, Z16, Z19; \
	VPDPWSSD        Z21, Z19, L0; \
	VPMADDUBSW      Z18, Z17, Z20; \
	VPDPWSSD        Z22, Z20, L1

// Q5ZSUB adds one sub-block (activations at XO of each row, scales picked
// by zWordBcast+BC) of the pairs to the lanes of the four activation rows.
#define Q5ZSUB(XO, BC) \
	VPSHUFB zWordBcast<>+BC(SB), Z26, Z21; \
	VPSHUFB zWordBcast<>+BC(SB), Z25, Z22; \
	Q5ZX(XO(DI), Z0, Z4); \
	Q5ZX(XO(DI)(R9*1), Z1, Z5); \
	Q5ZX(XO(DI)(R9*2), Z2, Z6); \
	Q5ZX(XO(DI)(R10*1), Z3, Z7)

// Q5ZCHUNK adds chunk C (sub-blocks 2C and 2C+1) of the two pairs to the
// lanes, the fifth bits of sub-block 2C moved by SH0 $N0, of 2C+1 by SH1
// $N1.
#define Q5ZCHUNK(C, SH0, N0, SH1, N1) \
	Q5ZW(C); \
	Q5ZBITS(SH0, N0); \
	Q5ZSUB(4+64*C, 128*C); \
	Q5ZW(C); \
	VPSRLW $4, Z16, Z16; \
	VPSRLW $4, Z17, Z17; \
	Q5ZBITS(SH1, N1); \
	Q5ZSUB(36+64*C, 128*C+64)

// Q5ZSTORE writes the four outputs of activation row x: hsum8 of its
// accumulators (ACC0, ACC1) plus the minimums' sums of 128-bit lane X of
// Z29 transposed (in Z23). Z24 holds zLane0Idx. Uses Z18, Z19.
#define Q5ZSTORE(ACC0, ACC1, X, DST) \
	ZHSUM4(ACC0, ACC1); \
	VEXTRACTF32X4 $X, Z23, X19; \
	VADDPS        X19, X18, X18; \
	VMOVUPS       X18, DST

// func tileQ5KAVX512(a *tileArgs, rows int)
TEXT ·tileQ5KAVX512(SB), NOSPLIT, $8-16
	ZARGS
	VMOVDQU64 zb0f<>(SB), Z31
	VMOVDQU64 zb10<>(SB), Z30

q5zgroup:
	ZGROUP8
	VPXORD Z29, Z29, Z29

q5zblock:
	Q4ZSETUP
	Q5ZMINS
	VMOVDQU32    16(SI), Y23
	VINSERTI64X4 $1, 16(SI)(R12*1), Z23, Z23
	VMOVDQU32    16(SI)(R12*2), Y24
	VINSERTI64X4 $1, 16(SI)(R11*1), Z24, Z24
	VPXORD       Z0, Z0, Z0
	VPXORD       Z1, Z1, Z1
	VPXORD       Z2, Z2, Z2
	VPXORD       Z3, Z3, Z3
	VPXORD       Z4, Z4, Z4
	VPXORD       Z5, Z5, Z5
	VPXORD       Z6, Z6, Z6
	VPXORD       Z7, Z7, Z7
	Q5ZCHUNK(0, VPSLLW, 4, VPSLLW, 3)
	Q5ZCHUNK(1, VPSLLW, 2, VPSLLW, 1)
	Q5ZCHUNK(2, VPSRLW, 0, VPSRLW, 1)
	Q5ZCHUNK(3, VPSRLW, 2, VPSRLW, 3)
	ZPAIRD(0)
	Q6ZFMA((DI), Z0, Z4, Z8, Z12)
	Q6ZFMA((DI)(R9*1), Z1, Z5, Z9, Z13)
	Q6ZFMA((DI)(R9*2), Z2, Z6, Z10, Z14)
	Q6ZFMA((DI)(R10*1), Z3, Z7, Z11, Z15)
	ADDQ $176, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q5zblock

	VMOVDQU32 zTrIdx<>(SB), Z24
	VPERMPS   Z29, Z24, Z23 // lane 4x+w
	VMOVDQU32 zLane0Idx<>(SB), Z24
	ZOSTRIDE
	Q5ZSTORE(Z8, Z12, 0, (BX))
	Q5ZSTORE(Z9, Z13, 1, (BX)(CX*1))
	Q5ZSTORE(Z10, Z14, 2, (BX)(CX*2))
	Q5ZSTORE(Z11, Z15, 3, (AX)(CX*1))
	LEAQ      (R8)(R12*4), R8
	ADDQ      $16, BX
	SUBQ      $4, DX
	JNZ       q5zgroup
	VZEROUPPER
	RET

// zLane2Idx gathers lane 2 of each 128-bit lane.
DATA zLane2Idx<>+0(SB)/8, $0x0000000600000002
DATA zLane2Idx<>+8(SB)/8, $0x0000000e0000000a
DATA zLane2Idx<>+16(SB)/8, $0x0000000000000000
DATA zLane2Idx<>+24(SB)/8, $0x0000000000000000
DATA zLane2Idx<>+32(SB)/8, $0x0000000000000000
DATA zLane2Idx<>+40(SB)/8, $0x0000000000000000
DATA zLane2Idx<>+48(SB)/8, $0x0000000000000000
DATA zLane2Idx<>+56(SB)/8, $0x0000000000000000
GLOBL zLane2Idx<>(SB), RODATA|NOPTR, $64

// Q5GZX adds the products of the pairs' sub-block (quants in Z16, Z17,
// scales picked by zWordBcast+BC) with the 32 activations at XO(DI) to
// the pairs' lanes Z0, Z1.
#define Q5GZX(XO, BC) \
	VPSHUFB         zWordBcast<>+BC(SB), Z26, Z21; \
	VPSHUFB         zWordBcast<>+BC(SB), Z25, Z22; \
	VBROADCASTI64X4 XO(DI), Z18; \
	VPMADDUBSW      Z18, Z16, Z19; \
	VPDPWSSD        Z21, Z19, Z0; \
	VPMADDUBSW      Z18, Z17, Z20; \
	VPDPWSSD        Z22, Z20, Z1

// Q5GZCHUNK adds chunk C of the four rows to the pairs' lanes, the fifth
// bits moved as in Q5ZCHUNK.
#define Q5GZCHUNK(C, SH0, N0, SH1, N1) \
	Q5ZW(C); \
	Q5ZBITS(SH0, N0); \
	Q5GZX(4+64*C, 128*C); \
	Q5ZW(C); \
	VPSRLW $4, Z16, Z16; \
	VPSRLW $4, Z17, Z17; \
	Q5ZBITS(SH1, N1); \
	Q5GZX(36+64*C, 128*C+64)

// func gemvQ5KAVX512(a *tileArgs, rows int)
//
// Z0 and Z1 hold the pairs' integer lanes of the current super-block, Z8
// and Z9 their float32 accumulators, Z10 the minimums' sums (row r in
// lane 2 of 128-bit lane r); Z29 zGemvDIdx; R9 the next group's weights,
// prefetched as this one runs.
TEXT ·gemvQ5KAVX512(SB), NOSPLIT, $8-16
	ZARGS
	VMOVDQU64 zb0f<>(SB), Z31
	VMOVDQU64 zb10<>(SB), Z30
	VMOVDQU32 zGemvDIdx<>(SB), Z29

q5gzgroup:
	MOVQ   R8, SI
	MOVQ   R13, DI
	MOVQ   R14, CX
	LEAQ   (R8)(R12*4), R9
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10

q5gzblock:
	PREFETCHT0 0(R9)
	PREFETCHT0 64(R9)
	PREFETCHT0 128(R9)
	PREFETCHT0 192(R9)
	PREFETCHT0 256(R9)
	PREFETCHT0 320(R9)
	PREFETCHT0 384(R9)
	PREFETCHT0 448(R9)
	PREFETCHT0 512(R9)
	PREFETCHT0 576(R9)
	PREFETCHT0 640(R9)
	Q4GZSETUP

	// The minimums' sums of the rows, scaled by -dmin·x.d.
	VPSHUFD      $0x4e, Z23, Z0
	VPADDD       Z0, Z23, Z23
	VPSHUFD      $0xb1, Z23, Z0
	VPADDD       Z0, Z23, Z23
	VCVTDQ2PS    Z23, Z23
	VMOVD        0(SI), X0
	VPINSRD      $1, 0(SI)(R12*1), X0, X0
	VPINSRD      $2, 0(SI)(R12*2), X0, X0
	VPINSRD      $3, 0(SI)(R11*1), X0, X0
	VCVTPH2PS    X0, Y0
	VPERMPS      Z0, Z29, Z2
	VBROADCASTSS (DI), Z3
	VMULPS       Z3, Z2, Z2
	VFNMADD231PS Z23, Z2, Z10

	VMOVDQU32    16(SI), Y23
	VINSERTI64X4 $1, 16(SI)(R12*1), Z23, Z23
	VMOVDQU32    16(SI)(R12*2), Y24
	VINSERTI64X4 $1, 16(SI)(R11*1), Z24, Z24
	VPXORD       Z0, Z0, Z0
	VPXORD       Z1, Z1, Z1
	Q5GZCHUNK(0, VPSLLW, 4, VPSLLW, 3)
	Q5GZCHUNK(1, VPSLLW, 2, VPSLLW, 1)
	Q5GZCHUNK(2, VPSRLW, 0, VPSRLW, 1)
	Q5GZCHUNK(3, VPSRLW, 2, VPSRLW, 3)

	// The lanes scaled by d·x.d, one fused multiply-add each.
	ZPAIRD(0)
	VBROADCASTSS (DI), Z18
	VMULPS       Z18, Z27, Z19
	VCVTDQ2PS    Z0, Z0
	VFMADD231PS  Z0, Z19, Z8
	VMULPS       Z18, Z28, Z20
	VCVTDQ2PS    Z1, Z1
	VFMADD231PS  Z1, Z20, Z9

	ADDQ $176, SI
	ADDQ $292, DI
	ADDQ $704, R9
	DECQ CX
	JNZ  q5gzblock

	VMOVDQU32 zLane2Idx<>(SB), Z24
	VPERMPS   Z10, Z24, Z23
	VMOVDQU32 zLane0Idx<>(SB), Z24
	Q5ZSTORE(Z8, Z9, 0, (BX))
	LEAQ      (R8)(R12*4), R8
	ADDQ      $16, BX
	SUBQ      $4, DX
	JNZ       q5gzgroup
	VZEROUPPER
	RET

// zb03 is 3 in every byte; zQ2Sh01 and zQ2Sh23 shift the 32 quant bytes
// of a Q2_K half (in both 256-bit halves) so that bits 0, 1 and 2, 3
// (4, 5 and 6, 7) come first: the half's first (last) 64 quants in order.
DATA zb03<>+0(SB)/8, $0x0303030303030303
DATA zb03<>+8(SB)/8, $0x0303030303030303
DATA zb03<>+16(SB)/8, $0x0303030303030303
DATA zb03<>+24(SB)/8, $0x0303030303030303
DATA zb03<>+32(SB)/8, $0x0303030303030303
DATA zb03<>+40(SB)/8, $0x0303030303030303
DATA zb03<>+48(SB)/8, $0x0303030303030303
DATA zb03<>+56(SB)/8, $0x0303030303030303
GLOBL zb03<>(SB), RODATA|NOPTR, $64

DATA zQ2Sh01<>+0(SB)/8, $0x0000000000000000
DATA zQ2Sh01<>+8(SB)/8, $0x0000000000000000
DATA zQ2Sh01<>+16(SB)/8, $0x0000000000000000
DATA zQ2Sh01<>+24(SB)/8, $0x0000000000000000
DATA zQ2Sh01<>+32(SB)/8, $0x0002000200020002
DATA zQ2Sh01<>+40(SB)/8, $0x0002000200020002
DATA zQ2Sh01<>+48(SB)/8, $0x0002000200020002
DATA zQ2Sh01<>+56(SB)/8, $0x0002000200020002
GLOBL zQ2Sh01<>(SB), RODATA|NOPTR, $64

DATA zQ2Sh23<>+0(SB)/8, $0x0004000400040004
DATA zQ2Sh23<>+8(SB)/8, $0x0004000400040004
DATA zQ2Sh23<>+16(SB)/8, $0x0004000400040004
DATA zQ2Sh23<>+24(SB)/8, $0x0004000400040004
DATA zQ2Sh23<>+32(SB)/8, $0x0006000600060006
DATA zQ2Sh23<>+40(SB)/8, $0x0006000600060006
DATA zQ2Sh23<>+48(SB)/8, $0x0006000600060006
DATA zQ2Sh23<>+56(SB)/8, $0x0006000600060006
GLOBL zQ2Sh23<>(SB), RODATA|NOPTR, $64

// Q2SHALF adds the scaled products of half H (128 elements) of one Q2_K
// row (at SI) with the activations at DI to ACC: the quants of each 64 in
// one zmm, the groups' scales (words in Y1) spread by zQ6S01 and zQ6S23.
// Z31 holds 3 in every byte, Z30 zQ2Sh01, Z29 zQ2Sh23. Uses Z3..Z7.
#define Q2SHALF(H, ACC) \
	VBROADCASTI64X4 16+32*H(SI), Z3; \
	VPSRLVW         Z30, Z3, Z4; \
	VPANDD          Z31, Z4, Z4; \
	VPSRLVW         Z29, Z3, Z3; \
	VPANDD          Z31, Z3, Z3; \
	VSHUFI32X4      $(0x55*H), Z1, Z1, Z7; \
	VPSHUFB         zQ6S01<>(SB), Z7, Z5; \
	VPSHUFB         zQ6S23<>(SB), Z7, Z6; \
	VPMADDUBSW      4+128*H(DI), Z4, Z4; \
	VPDPWSSD        Z5, Z4, ACC; \
	VPMADDUBSW      68+128*H(DI), Z3, Z3; \
	VPDPWSSD        Z6, Z3, ACC

// Q2SSETUP decodes one Q2_K super-block's scales into Y1 (words) and its
// minimums times the activations' block sums into Y2 (eight int32 lanes,
// four per half), and puts [d, dmin]·x.d in X11's lanes 0 and 1. Uses
// X0, X3.
#define Q2SSETUP \
	VMOVDQU      0(SI), X0; \
	VPSRLW       $4, X0, X3; \
	VPAND        zb0f<>(SB), X0, X0; \
	VPAND        zb0f<>(SB), X3, X3; \
	VPMOVZXBW    X0, Y1; \
	VPMOVZXBW    X3, Y3; \
	VPMADDWD     260(DI), Y3, Y2; \
	SDMIN(80, X3)

// func dotQ2KAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32
//
// X10 holds [acc, accMin] in lanes 0 and 1.
TEXT ·dotQ2KAVX512(SB), NOSPLIT, $0-36
	SARGS
	VMOVDQU64 zb03<>(SB), Z31
	VMOVDQU64 zQ2Sh01<>(SB), Z30
	VMOVDQU64 zQ2Sh23<>(SB), Z29
	VXORPS    X10, X10, X10
	CMPB      gemm+24(FP), $0
	JNE       q2sgemm

q2sgemv:
	Q2SSETUP
	VPXORD Z12, Z12, Z12
	Q2SHALF(0, Z12)
	Q2SHALF(1, Z12)

	// [isum, msum] as float32, times [d, dmin]·x.d.
	VEXTRACTI64X4 $1, Z12, Y0
	VPADDD        Y0, Y12, Y0
	VEXTRACTI128  $1, Y0, X3
	VPADDD        X3, X0, X0
	VEXTRACTI128  $1, Y2, X3
	VPADDD        X3, X2, X3
	VINSERTI128   $1, X3, Y0, Y0 // isum's four lanes, then msum's
	VPSHUFD       $0x4e, Y0, Y3
	VPADDD        Y3, Y0, Y0
	VPSHUFD       $0xb1, Y0, Y3
	VPADDD        Y3, Y0, Y0
	VEXTRACTI128  $1, Y0, X3
	VPUNPCKLDQ    X3, X0, X0
	VCVTDQ2PS     X0, X0
	VFMADD231PS   X0, X11, X10
	ADDQ          $84, SI
	ADDQ          $292, DI
	DECQ          CX
	JNZ           q2sgemv
	JMP           q2sdone

q2sgemm:
	Q2SSETUP
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	Q2SHALF(0, Z12)
	Q2SHALF(1, Z13)

	// [i0, i1] and [m0, m1]: the halves' integer sums.
	VEXTRACTI64X4 $1, Z12, Y0
	VPADDD        Y0, Y12, Y12
	VEXTRACTI64X4 $1, Z13, Y0
	VPADDD        Y0, Y13, Y13
	VPHADDD       Y13, Y12, Y0 // [i0 i0 i1 i1 | i0 i0 i1 i1] partial
	VEXTRACTI128  $1, Y0, X3
	VPADDD        X3, X0, X0
	VPHADDD       X0, X0, X0   // [i0, i1, i0, i1]
	VEXTRACTI128  $1, Y2, X3
	VPHADDD       X3, X2, X3   // [m0 m0 m1 m1]
	VPHADDD       X3, X3, X3   // [m0, m1, m0, m1]
	VPUNPCKLDQ    X3, X0, X0   // [i0, m0, i1, m1]
	VCVTDQ2PS     X0, X0
	VFMADD231PS   X0, X11, X10
	VMOVHLPS      X0, X0, X0
	VFMADD231PS   X0, X11, X10
	ADDQ          $84, SI
	ADDQ          $292, DI
	DECQ          CX
	JNZ           q2sgemm

q2sdone:
	SDIFF
	VMOVSS X0, ret+32(FP)
	RET

// zIQ4Lut holds the 16 IQ4 levels (iq4Levels, ggml's kvalues_iq4nl)
// plus 128, as unsigned bytes, in each 128-bit lane.
DATA zIQ4Lut<>+0(SB)/8, $0x766a5d4f3f2d1801
DATA zIQ4Lut<>+8(SB)/8, $0xf1d9c5b5a6998d81
DATA zIQ4Lut<>+16(SB)/8, $0x766a5d4f3f2d1801
DATA zIQ4Lut<>+24(SB)/8, $0xf1d9c5b5a6998d81
DATA zIQ4Lut<>+32(SB)/8, $0x766a5d4f3f2d1801
DATA zIQ4Lut<>+40(SB)/8, $0xf1d9c5b5a6998d81
DATA zIQ4Lut<>+48(SB)/8, $0x766a5d4f3f2d1801
DATA zIQ4Lut<>+56(SB)/8, $0xf1d9c5b5a6998d81
GLOBL zIQ4Lut<>(SB), RODATA|NOPTR, $64

// zXSNib shifts each 128-bit lane's words by 0, 4, 0, 4: low nibbles in
// lanes 0 and 2, high nibbles in lanes 1 and 3.
DATA zXSNib<>+0(SB)/8, $0x0000000000000000
DATA zXSNib<>+8(SB)/8, $0x0000000000000000
DATA zXSNib<>+16(SB)/8, $0x0004000400040004
DATA zXSNib<>+24(SB)/8, $0x0004000400040004
DATA zXSNib<>+32(SB)/8, $0x0000000000000000
DATA zXSNib<>+40(SB)/8, $0x0000000000000000
DATA zXSNib<>+48(SB)/8, $0x0004000400040004
DATA zXSNib<>+56(SB)/8, $0x0004000400040004
GLOBL zXSNib<>(SB), RODATA|NOPTR, $64

// zXSLo and zXSHi shift dword g right by 4g and 2g: the IQ4_XS scales'
// low nibbles (scales_l) and high bit pairs (scales_h) of sub-block g.
DATA zXSLo<>+0(SB)/8, $0x0000000400000000
DATA zXSLo<>+8(SB)/8, $0x0000000c00000008
DATA zXSLo<>+16(SB)/8, $0x0000001400000010
DATA zXSLo<>+24(SB)/8, $0x0000001c00000018
GLOBL zXSLo<>(SB), RODATA|NOPTR, $32

DATA zXSHi<>+0(SB)/8, $0x0000000200000000
DATA zXSHi<>+8(SB)/8, $0x0000000600000004
DATA zXSHi<>+16(SB)/8, $0x0000000a00000008
DATA zXSHi<>+24(SB)/8, $0x0000000e0000000c
GLOBL zXSHi<>(SB), RODATA|NOPTR, $32

// zd20, zd0f and zd03 are 32, 15 and 3 in every dword.
DATA zd20<>+0(SB)/8, $0x0000002000000020
DATA zd20<>+8(SB)/8, $0x0000002000000020
DATA zd20<>+16(SB)/8, $0x0000002000000020
DATA zd20<>+24(SB)/8, $0x0000002000000020
GLOBL zd20<>(SB), RODATA|NOPTR, $32

DATA zd0f<>+0(SB)/8, $0x0000000f0000000f
DATA zd0f<>+8(SB)/8, $0x0000000f0000000f
DATA zd0f<>+16(SB)/8, $0x0000000f0000000f
DATA zd0f<>+24(SB)/8, $0x0000000f0000000f
GLOBL zd0f<>(SB), RODATA|NOPTR, $32

DATA zd03<>+0(SB)/8, $0x0000000300000003
DATA zd03<>+8(SB)/8, $0x0000000300000003
DATA zd03<>+16(SB)/8, $0x0000000300000003
DATA zd03<>+24(SB)/8, $0x0000000300000003
GLOBL zd03<>(SB), RODATA|NOPTR, $32

// zXSDup spreads dword k over the low 256 bits and dword k+1 over the
// high 256 bits of a zmm (with k at zXSDup+64·(k/2)).
DATA zXSDup<>+0(SB)/8, $0x0000000000000000
DATA zXSDup<>+8(SB)/8, $0x0000000000000000
DATA zXSDup<>+16(SB)/8, $0x0000000000000000
DATA zXSDup<>+24(SB)/8, $0x0000000000000000
DATA zXSDup<>+32(SB)/8, $0x0000000100000001
DATA zXSDup<>+40(SB)/8, $0x0000000100000001
DATA zXSDup<>+48(SB)/8, $0x0000000100000001
DATA zXSDup<>+56(SB)/8, $0x0000000100000001
DATA zXSDup<>+64(SB)/8, $0x0000000200000002
DATA zXSDup<>+72(SB)/8, $0x0000000200000002
DATA zXSDup<>+80(SB)/8, $0x0000000200000002
DATA zXSDup<>+88(SB)/8, $0x0000000200000002
DATA zXSDup<>+96(SB)/8, $0x0000000300000003
DATA zXSDup<>+104(SB)/8, $0x0000000300000003
DATA zXSDup<>+112(SB)/8, $0x0000000300000003
DATA zXSDup<>+120(SB)/8, $0x0000000300000003
DATA zXSDup<>+128(SB)/8, $0x0000000400000004
DATA zXSDup<>+136(SB)/8, $0x0000000400000004
DATA zXSDup<>+144(SB)/8, $0x0000000400000004
DATA zXSDup<>+152(SB)/8, $0x0000000400000004
DATA zXSDup<>+160(SB)/8, $0x0000000500000005
DATA zXSDup<>+168(SB)/8, $0x0000000500000005
DATA zXSDup<>+176(SB)/8, $0x0000000500000005
DATA zXSDup<>+184(SB)/8, $0x0000000500000005
DATA zXSDup<>+192(SB)/8, $0x0000000600000006
DATA zXSDup<>+200(SB)/8, $0x0000000600000006
DATA zXSDup<>+208(SB)/8, $0x0000000600000006
DATA zXSDup<>+216(SB)/8, $0x0000000600000006
DATA zXSDup<>+224(SB)/8, $0x0000000700000007
DATA zXSDup<>+232(SB)/8, $0x0000000700000007
DATA zXSDup<>+240(SB)/8, $0x0000000700000007
DATA zXSDup<>+248(SB)/8, $0x0000000700000007
GLOBL zXSDup<>(SB), RODATA|NOPTR, $256

// XSCHUNK adds the scaled products of sub-blocks 2K and 2K+1 of one IQ4_XS
// row (at SI) with the activations at DI to Z12: the 32 quant bytes as
// [b0..15, b0..15, b16..31, b16..31] shifted by zXSNib and masked to the
// nibbles in element order, looked up as level+128 (Z30), multiplied with
// the 64 activations (vpdpbusd: exact, unsaturated) and by the two
// sub-blocks' scales (Z16) spread by zXSDup. Z31 holds 0x0f bytes, Z29
// zXSNib. Uses Z0..Z2.
#define XSCHUNK(K) \
	VBROADCASTI64X4 8+32*K(SI), Z0; \
	VSHUFI64X2      $0x50, Z0, Z0, Z0; \
	VPSRLVW         Z29, Z0, Z0; \
	VPANDD          Z31, Z0, Z0; \
	VPSHUFB         Z0, Z30, Z0; \
	VPXORD          Z1, Z1, Z1; \
	VPDPBUSD        4+64*K(DI), Z0, Z1; \
	VMOVDQU32       zXSDup<>+64*K(SB), Z2; \
	VPERMD          Z16, Z2, Z2; \
	VPMULLD         Z2, Z1, Z1; \
	VPADDD          Z1, Z12, Z12

// func dotIQ4XSAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32
//
// X8 holds the sum.
TEXT ·dotIQ4XSAVX512(SB), NOSPLIT, $0-36
	SARGS
	VMOVDQU64 zb0f<>(SB), Z31
	VMOVDQU64 zIQ4Lut<>(SB), Z30
	VMOVDQU64 zXSNib<>(SB), Z29
	VXORPS    X8, X8, X8

xszblock:
	// The eight scales ls-32 as int32 in Y16 (and as int16 words, each
	// twice, in Y3), from scales_l at 4 and scales_h at 2.
	VPBROADCASTD 4(SI), Y0
	VPSRLVD      zXSLo<>(SB), Y0, Y0
	VPAND        zd0f<>(SB), Y0, Y0
	VPBROADCASTD 2(SI), Y1
	VPSRLVD      zXSHi<>(SB), Y1, Y1
	VPAND        zd03<>(SB), Y1, Y1
	VPSLLD       $4, Y1, Y1
	VPOR         Y1, Y0, Y0
	VPSUBD       zd20<>(SB), Y0, Y16
	VPACKSSDW    Y16, Y16, Y3
	VPUNPCKLWD   Y3, Y3, Y3

	VPXORD Z12, Z12, Z12
	XSCHUNK(0)
	XSCHUNK(1)
	XSCHUNK(2)
	XSCHUNK(3)

	// isum = the lanes' sum less 128·Σ sc·(bsum[2g]+bsum[2g+1]).
	VPMADDWD      260(DI), Y3, Y1
	VPSLLD        $7, Y1, Y1
	VEXTRACTI64X4 $1, Z12, Y0
	VPADDD        Y0, Y12, Y0
	VPSUBD        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0x4e, X0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0xb1, X0, X1
	VPADDD        X1, X0, X0
	VCVTDQ2PS     X0, X0

	// sum += d·x.d·isum.
	MOVWLZX   0(SI), AX
	VMOVD     AX, X1
	VCVTPH2PS X1, X1
	VMULSS    (DI), X1, X1
	VMULSS    X0, X1, X1
	VADDSS    X1, X8, X8
	ADDQ      $136, SI
	ADDQ      $292, DI
	DECQ      CX
	JNZ       xszblock

	VZEROUPPER
	VMOVSS X8, ret+32(FP)
	RET

// zb04 is 4 in every byte, zb20 32. zQ3Hi gathers the four bytes of the
// Q3_K scales' high bit pairs (bytes 8..11) into each dword, zQ3HiSh
// shifts dword k right by 2k: the high bits of scales 4k..4k+3.
DATA zb04<>+0(SB)/8, $0x0404040404040404
DATA zb04<>+8(SB)/8, $0x0404040404040404
DATA zb04<>+16(SB)/8, $0x0404040404040404
DATA zb04<>+24(SB)/8, $0x0404040404040404
DATA zb04<>+32(SB)/8, $0x0404040404040404
DATA zb04<>+40(SB)/8, $0x0404040404040404
DATA zb04<>+48(SB)/8, $0x0404040404040404
DATA zb04<>+56(SB)/8, $0x0404040404040404
GLOBL zb04<>(SB), RODATA|NOPTR, $64

DATA zb20<>+0(SB)/8, $0x2020202020202020
DATA zb20<>+8(SB)/8, $0x2020202020202020
GLOBL zb20<>(SB), RODATA|NOPTR, $16

DATA zQ3Hi<>+0(SB)/8, $0x0b0a09080b0a0908
DATA zQ3Hi<>+8(SB)/8, $0x0b0a09080b0a0908
GLOBL zQ3Hi<>(SB), RODATA|NOPTR, $16

DATA zQ3HiSh<>+0(SB)/8, $0x0000000200000000
DATA zQ3HiSh<>+8(SB)/8, $0x0000000600000004
GLOBL zQ3HiSh<>(SB), RODATA|NOPTR, $16

// zQ3L21, zQ3R01, zQ3R23 and zQ3R45 move the hmask bits of a Q3_K half's
// chunks (bit 4h+j, chunks j and j+1 in the low and high 256 bits) to
// bit 2: left by 2, 1 (half 0, chunks 0, 1), right by 0, 1 (half 0,
// chunks 2, 3), 2, 3 and 4, 5 (half 1).
DATA zQ3L21<>+0(SB)/8, $0x0002000200020002
DATA zQ3L21<>+8(SB)/8, $0x0002000200020002
DATA zQ3L21<>+16(SB)/8, $0x0002000200020002
DATA zQ3L21<>+24(SB)/8, $0x0002000200020002
DATA zQ3L21<>+32(SB)/8, $0x0001000100010001
DATA zQ3L21<>+40(SB)/8, $0x0001000100010001
DATA zQ3L21<>+48(SB)/8, $0x0001000100010001
DATA zQ3L21<>+56(SB)/8, $0x0001000100010001
GLOBL zQ3L21<>(SB), RODATA|NOPTR, $64

DATA zQ3R01<>+0(SB)/8, $0x0000000000000000
DATA zQ3R01<>+8(SB)/8, $0x0000000000000000
DATA zQ3R01<>+16(SB)/8, $0x0000000000000000
DATA zQ3R01<>+24(SB)/8, $0x0000000000000000
DATA zQ3R01<>+32(SB)/8, $0x0001000100010001
DATA zQ3R01<>+40(SB)/8, $0x0001000100010001
DATA zQ3R01<>+48(SB)/8, $0x0001000100010001
DATA zQ3R01<>+56(SB)/8, $0x0001000100010001
GLOBL zQ3R01<>(SB), RODATA|NOPTR, $64

DATA zQ3R23<>+0(SB)/8, $0x0002000200020002
DATA zQ3R23<>+8(SB)/8, $0x0002000200020002
DATA zQ3R23<>+16(SB)/8, $0x0002000200020002
DATA zQ3R23<>+24(SB)/8, $0x0002000200020002
DATA zQ3R23<>+32(SB)/8, $0x0003000300030003
DATA zQ3R23<>+40(SB)/8, $0x0003000300030003
DATA zQ3R23<>+48(SB)/8, $0x0003000300030003
DATA zQ3R23<>+56(SB)/8, $0x0003000300030003
GLOBL zQ3R23<>(SB), RODATA|NOPTR, $64

DATA zQ3R45<>+0(SB)/8, $0x0004000400040004
DATA zQ3R45<>+8(SB)/8, $0x0004000400040004
DATA zQ3R45<>+16(SB)/8, $0x0004000400040004
DATA zQ3R45<>+24(SB)/8, $0x0004000400040004
DATA zQ3R45<>+32(SB)/8, $0x0005000500050005
DATA zQ3R45<>+40(SB)/8, $0x0005000500050005
DATA zQ3R45<>+48(SB)/8, $0x0005000500050005
DATA zQ3R45<>+56(SB)/8, $0x0005000500050005
GLOBL zQ3R45<>(SB), RODATA|NOPTR, $64

// Q3SPAIR adds two 32-element chunks of one Q3_K row to Z12's lanes: the
// quants plus 4 from the low bit pairs (the half's qs in Z3 shifted by
// LSH and masked by Z31) and the hmask bits (Z17 moved to bit 2 by HOP
// with HSH, masked by Z30); the products with the activations at XO(DI),
// less 4 times the activations' pair sums, scaled by the groups' scales
// (Y1's words picked from Z7 by SPICK) into int32 lanes. Uses Z4..Z6.
#define Q3SPAIR(LSH, HOP, HSH, XO, SPICK) \
	VPSRLVW    LSH, Z3, Z4; \
	HOP        HSH<>(SB), Z17, Z5; \
	VPANDD     Z30, Z5, Z5; \
	VPTERNLOGD $0xec, Z31, Z5, Z4; \
	VPMADDUBSW XO(DI), Z4, Z4; \
	VPMADDUBSW XO(DI), Z30, Z5; \
	VPSUBW     Z5, Z4, Z4; \
	VPSHUFB    SPICK<>(SB), Z7, Z6; \
	VPDPWSSD   Z6, Z4, Z12

// func dotQ3KAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32
//
// Y8 holds the eight float32 accumulators; Z31 3 in every byte, Z30 4,
// Z28 zQ2Sh01, Z27 zQ2Sh23, Z17 the super-block's hmask in both halves.
TEXT ·dotQ3KAVX512(SB), NOSPLIT, $0-36
	SARGS
	VMOVDQU64 zb03<>(SB), Z31
	VMOVDQU64 zb04<>(SB), Z30
	VMOVDQU64 zQ2Sh01<>(SB), Z28
	VMOVDQU64 zQ2Sh23<>(SB), Z27
	VXORPS    Y8, Y8, Y8

q3sblock:
	// The 16 scales as int16 words in Y1 (q3kScale): the low nibbles of
	// bytes 0..7, then their high nibbles, with bit pairs of bytes 8..11.
	VMOVQ       96(SI), X0
	VPINSRD     $2, 104(SI), X0, X0
	VPSRLW      $4, X0, X1
	VPAND       zb0f<>(SB), X0, X2
	VPAND       zb0f<>(SB), X1, X1
	VPUNPCKLQDQ X1, X2, X2
	VPSHUFB     zQ3Hi<>(SB), X0, X3
	VPSRLVD     zQ3HiSh<>(SB), X3, X3
	VPAND       zb03<>(SB), X3, X3
	VPSLLW      $4, X3, X3
	VPOR        X3, X2, X2
	VPSUBB      zb20<>(SB), X2, X2
	VPMOVSXBW   X2, Y1

	VBROADCASTI64X4 0(SI), Z17
	VPXORD          Z12, Z12, Z12
	VBROADCASTI64X4 32(SI), Z3
	VSHUFI32X4      $0x00, Z1, Z1, Z7
	Q3SPAIR(Z28, VPSLLVW, zQ3L21, 4, zQ6S01)
	Q3SPAIR(Z27, VPSRLVW, zQ3R01, 68, zQ6S23)
	VBROADCASTI64X4 64(SI), Z3
	VSHUFI32X4      $0x55, Z1, Z1, Z7
	Q3SPAIR(Z28, VPSRLVW, zQ3R23, 132, zQ6S01)
	Q3SPAIR(Z27, VPSRLVW, zQ3R45, 196, zQ6S23)
	VEXTRACTI64X4   $1, Z12, Y0
	VPADDD          Y0, Y12, Y12

	MOVWLZX      108(SI), AX
	VMOVD        AX, X0
	VCVTPH2PS    X0, X0
	VMULSS       (DI), X0, X0
	VBROADCASTSS X0, Y0
	VCVTDQ2PS    Y12, Y12
	VFMADD231PS  Y12, Y0, Y8
	ADDQ         $110, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          q3sblock

	VEXTRACTF128 $1, Y8, X0
	VADDPS       X0, X8, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VZEROUPPER
	VMOVSS       X0, ret+32(FP)
	RET
