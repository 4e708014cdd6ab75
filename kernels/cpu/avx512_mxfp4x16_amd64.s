#include "textflag.h"
#include "x16_amd64.h"

// zMXLevels12 is the sixteen doubled E2M1 levels plus 12 (unsigned bytes,
// for vpdpbusd), in each 128-bit lane for vpshufb.
DATA zMXLevels12<>+0(SB)/8, $0x181412100f0e0d0c
DATA zMXLevels12<>+8(SB)/8, $0x00040608090a0b0c
DATA zMXLevels12<>+16(SB)/8, $0x181412100f0e0d0c
DATA zMXLevels12<>+24(SB)/8, $0x00040608090a0b0c
DATA zMXLevels12<>+32(SB)/8, $0x181412100f0e0d0c
DATA zMXLevels12<>+40(SB)/8, $0x00040608090a0b0c
DATA zMXLevels12<>+48(SB)/8, $0x181412100f0e0d0c
DATA zMXLevels12<>+56(SB)/8, $0x00040608090a0b0c
GLOBL zMXLevels12<>(SB), RODATA|NOPTR, $64

// MXX16CONST loads the constants beside X16ARGS's mask: Z30 the levels,
// Z29 twelve in every byte, Z28 1, Z27 2 and Z26 0x200000 in every dword.
#define MXX16CONST \
	VMOVDQU64 zMXLevels12<>(SB), Z30; \
	MOVQ $0x0c0c0c0c, R12; \
	VPBROADCASTD R12, Z29; \
	MOVQ $1, R12; \
	VPBROADCASTD R12, Z28; \
	MOVQ $2, R12; \
	VPBROADCASTD R12, Z27; \
	MOVQ $0x200000, R12; \
	VPBROADCASTD R12, Z26

// MXX16SCALE sets Z5 to the sixteen rows' E8M0Half scales of the block at
// SI: (e-1)<<23 as float bits, 0x200000<<e where e < 2. Z4, Z6 and K1 are
// scratch.
#define MXX16SCALE \
	VPMOVZXBD 0(SI), Z4; \
	VPSUBD    Z28, Z4, Z5; \
	VPSLLD    $23, Z5, Z5; \
	VPSLLVD   Z4, Z26, Z6; \
	VPCMPUD   $1, Z27, Z4, K1; \
	VMOVDQA32 Z6, K1, Z5

// MXQUAD(XA, IS, TW) adds, for the quad at R8 (four bytes of each row:
// elements 4q..4q+3 in the low nibbles, 16+4q.. in the high) and one
// activation row whose block is at XA (AX-relative, moving 4 bytes a
// quad), the levels plus 12 times the activations to IS and 12 times the
// activations to TW; Z2 and Z3 hold the looked-up levels.
#define MXQUAD(XA, IS, TW) \
	VPDPBUSD.BCST 8 XA, Z3, IS; \
	VPDPBUSD.BCST 24 XA, Z2, IS; \
	VPDPBUSD.BCST 8 XA, Z29, TW; \
	VPDPBUSD.BCST 24 XA, Z29, TW

// MXLEVELS looks the quad at R8 up: Z3 its low nibbles' levels plus 12, Z2
// its high nibbles'.
#define MXLEVELS \
	VMOVDQU64 (R8), Z2; \
	VPANDD    Z31, Z2, Z3; \
	VPSRLW    $4, Z2, Z2; \
	VPANDD    Z31, Z2, Z2; \
	VPSHUFB   Z3, Z30, Z3; \
	VPSHUFB   Z2, Z30, Z2

// MXROW(IS, TW, ACC, XA) adds one activation row's block sum (IS less
// TW), times E8M0Half(e)·x.d (Z5 times the row's scale at XA), to ACC
// with one fused multiply-add; Z7 is scratch.
#define MXROW(IS, TW, ACC, XA) \
	VPSUBD      TW, IS, IS; \
	VCVTDQ2PS   IS, IS; \
	VMULPS.BCST XA, Z5, Z7; \
	VFMADD231PS IS, Z7, ACC

// gemvMXFP4X16AVX512(a *tileArgs, rows int): SI the packed blocks, DI the
// activation block, CX blocks left, BX the outputs, DX rows left; Z12 the
// block's sums of levels plus 12, Z16 twelve times its activations' sum,
// Z8 the sixteen rows' accumulators.
TEXT ·gemvMXFP4X16AVX512(SB), NOSPLIT, $0-16
	X16ARGS
	MXX16CONST

mx1group:
	MOVQ   R13, DI
	MOVQ   R14, CX
	VPXORD Z8, Z8, Z8

mx1block:
	VPXORD Z12, Z12, Z12
	VPXORD Z16, Z16, Z16
	LEAQ   16(SI), R8
	MOVQ   DI, AX
	MOVQ   $4, R12

mx1quad:
	MXLEVELS
	MXQUAD((AX), Z12, Z16)
	ADDQ $64, R8
	ADDQ $4, AX
	DECQ R12
	JNZ  mx1quad

	MXX16SCALE
	MXROW(Z12, Z16, Z8, (DI))
	ADDQ $272, SI
	ADDQ $40, DI
	DECQ CX
	JNZ  mx1block

	VMOVUPS Z8, (BX)
	ADDQ    $64, BX
	SUBQ    $16, DX
	JNZ     mx1group
	VZEROUPPER
	RET

// tileMXFP4X16AVX512(a *tileArgs, rows int): gemvMXFP4X16AVX512 for four
// activation rows (DI, DI+R9, DI+2·R9, DI+R10): Z12-Z15 their sums, Z16-Z19
// their twelve-times sums, Z8-Z11 their accumulators.
TEXT ·tileMXFP4X16AVX512(SB), NOSPLIT, $0-16
	X16ARGS
	MXX16CONST

mx4group:
	MOVQ   R13, DI
	MOVQ   R14, CX
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11

mx4block:
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	LEAQ   16(SI), R8
	MOVQ   DI, AX
	MOVQ   $4, R12

mx4quad:
	MXLEVELS
	MXQUAD((AX), Z12, Z16)
	MXQUAD((AX)(R9*1), Z13, Z17)
	MXQUAD((AX)(R9*2), Z14, Z18)
	MXQUAD((AX)(R10*1), Z15, Z19)
	ADDQ $64, R8
	ADDQ $4, AX
	DECQ R12
	JNZ  mx4quad

	MXX16SCALE
	MXROW(Z12, Z16, Z8, (DI))
	MXROW(Z13, Z17, Z9, (DI)(R9*1))
	MXROW(Z14, Z18, Z10, (DI)(R9*2))
	MXROW(Z15, Z19, Z11, (DI)(R10*1))
	ADDQ $272, SI
	ADDQ $40, DI
	DECQ CX
	JNZ  mx4block

	X16STORE4
	SUBQ $16, DX
	JNZ  mx4group
	VZEROUPPER
	RET
