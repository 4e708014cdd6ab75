#include "textflag.h"
#include "q8tile_amd64.h"

// AVX2 tile kernels for Q8_0 and float (F16, BF16, F32) weights: several
// weight rows against several activation rows per call (see
// avx2_ftile_amd64.go). Each takes a *tileArgs (w @0, wstride @8, x @16,
// xstride @24, n @32, out @40, ostride @48) and keeps one accumulator set
// per output in registers for the whole row, so every output sees the
// single-row kernel's float operations in its order, while each weight
// vector is loaded (and widened) once for all activation rows and each
// activation vector once for all weight rows.

// fOnes16 holds 16-bit ones (vpmaddwd's pair sums).
DATA fOnes16<>+0(SB)/8, $0x0001000100010001
DATA fOnes16<>+8(SB)/8, $0x0001000100010001
DATA fOnes16<>+16(SB)/8, $0x0001000100010001
DATA fOnes16<>+24(SB)/8, $0x0001000100010001
GLOBL fOnes16<>(SB), RODATA|NOPTR, $32

// FHSUM8(Y, X, T) leaves in the low lane of X (the xmm half of Y) the sum
// of Y's eight lanes in hsum8's order: high half onto low half, then lanes
// 0+2 and 1+3, then the two. T is scratch.
#define FHSUM8(Y, X, T) \
	VEXTRACTF128 $1, Y, T \
	VADDPS       T, X, X  \
	VMOVHLPS     X, X, T  \
	VADDPS       T, X, X  \
	VMOVSHDUP    X, T     \
	VADDSS       T, X, X

// FTARGS loads the tile description: SI the first weight row, R12 wstride,
// DI the first activation row, R9 xstride, R10 3·xstride, CX n, BX the
// first output, R11 4·ostride.
#define FTARGS \
	MOVQ a+0(FP), AX; \
	MOVQ 0(AX), SI; \
	MOVQ 8(AX), R12; \
	MOVQ 16(AX), DI; \
	MOVQ 24(AX), R9; \
	LEAQ (R9)(R9*2), R10; \
	MOVQ 32(AX), CX; \
	MOVQ 40(AX), BX; \
	MOVQ 48(AX), R11; \
	SHLQ $2, R11

// ZERO12 clears the twelve accumulators Y0-Y11.
#define ZERO12 \
	Q8ZERO; \
	VXORPS Y8, Y8, Y8; \
	VXORPS Y9, Y9, Y9; \
	VXORPS Y10, Y10, Y10; \
	VXORPS Y11, Y11, Y11

// WSP2 sets AX to the scales of two blocks of widenScalePairs's two rows
// (SI row 0's block, R10 row 1's, R9 the block step), word 2b+r block
// b's of row r, and moves both rows two blocks on: scalar loads and
// shifts, 0.37 ns a scale where vpinsrw from memory took 0.65. Uses DX
// and R11.
#define WSP2 \
	MOVWLZX (SI), AX;          \
	MOVWLZX (R10), DX;         \
	SHLL    $16, DX;           \
	ORL     DX, AX;            \
	MOVWLZX (SI)(R9*1), DX;    \
	MOVWLZX (R10)(R9*1), R11;  \
	SHLL    $16, R11;          \
	ORL     R11, DX;           \
	SHLQ    $32, DX;           \
	ORQ     DX, AX;            \
	LEAQ    (SI)(R9*2), SI;    \
	LEAQ    (R10)(R9*2), R10

// ---------------------------------------------------------------------
// Q8_0: two weight rows by four activation rows (q8tile_amd64.h). Per
// block each weight row's quants are loaded once (Y10, Y11) and made
// unsigned (|w|: Y8, Y9). Each activation block is loaded once (Y13) for
// both weight rows; it takes the weight's signs (vpsignb), then
// vpmaddubsw and vpmaddwd give the eight int32 lanes of four products
// (the single-row kernel's SDOT), which are converted and accumulated
// with one fused multiply-add by the scale product, broadcast from the
// chunk's products on the stack. Output (i, j) accumulates in Y(4i+j);
// hsum8 at the end. Weight row 0 is at SI, row 1 at R13 = SI+rstep;
// Y12 holds 16-bit ones.

// Q8PAIR(W, U, P, ACC) accumulates the current block of the weight row
// whose quants are in W (their |q| in U) times the activation block in
// Y13 into ACC, with the scale product at P.
#define Q8PAIR(W, U, P, ACC) \
	VPSIGNB      W, Y13, Y14; \
	VPMADDUBSW   Y14, U, Y14; \
	VPMADDWD     Y12, Y14, Y14; \
	VCVTDQ2PS    Y14, Y14; \
	VBROADCASTSS P, Y15; \
	VFMADD231PS  Y14, Y15, ACC

// Q8COL(XQ, J, A0, A1) accumulates the current block of activation row J
// (quants at XQ) into A0 (weight row 0) and A1 (weight row 1).
#define Q8COL(XQ, J, A0, A1) \
	VMOVDQU XQ, Y13; \
	Q8PAIR(Y10, Y8, 4*J(SP)(R8*1), A0); \
	Q8PAIR(Y11, Y9, 16+4*J(SP)(R8*1), A1)

// func tileQ8_0x2x4StepAVX2(a *tileArgs, rstep, bstep, pairs int)
TEXT ·tileQ8_0x2x4StepAVX2(SB), NOSPLIT, $560-32
	FTARGS
	Q8FRAME
	VMOVDQU fOnes16<>(SB), Y12

q8tpair:
	Q8PAIR0
	TESTQ CX, CX
	JZ    q8tdone

q8tchunk:
	Q8CHUNK(q8tgather, q8twide, q8twloop, q8tscaled)

q8tloop:
	VMOVDQU 2(SI), Y10
	VMOVDQU 2(R13), Y11
	VPABSB  Y10, Y8
	VPABSB  Y11, Y9
	Q8COL(8(DI), 0, Y0, Y4)
	Q8COL(8(DI)(R9*1), 1, Y1, Y5)
	Q8COL(8(DI)(R9*2), 2, Y2, Y6)
	Q8COL(8(DI)(R10*1), 3, Y3, Y7)
	Q8NEXT
	DECQ  R14
	JNZ   q8tloop
	TESTQ CX, CX
	JNZ   q8tchunk

q8tdone:
	Q8OUTS
	Q8NEXTPAIR(q8tpair, q8tend)

q8tend:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------
// Float weights: two weight rows by three activation rows, dotTiny's 16
// lanes per output (two accumulators: elements 16c..16c+7 and
// 16c+8..16c+15 of each chunk c). Each eight weights are widened once for
// the three activation rows and each eight activations loaded (F16 ones
// widened) once for the two weight rows. Output (i, j) accumulates in
// Y(6i+2j) (low eight lanes) and Y(6i+2j+1) (high eight); at the end the
// two are added and reduced with hsum8 (reduce16). Weight row 1 is at
// SI+R12.

// Loads: eight weights (or activations) at ADDR widened to float32 in Y.
#define FLD32(ADDR, Y) VMOVUPS ADDR, Y
#define FLD16(ADDR, Y) VCVTPH2PS ADDR, Y
#define FLDBF16(ADDR, Y) \
	VPMOVZXWD ADDR, Y; \
	VPSLLD    $16, Y, Y

// FHALF(LD, XLD, WO, XO, H0..H5) accumulates eight lanes (half H of the
// 16) of the current chunk: weights at WO bytes into each weight row
// (loaded by LD), activations at XO bytes into each activation row
// (loaded by XLD: FLD32 for float32 activations, FLD16 for F16 ones,
// widened once for the two weight rows).
#define FHALF(LD, XLD, WO, XO, H0, H1, H2, H3, H4, H5) \
	LD(WO(SI), Y12); \
	LD(WO(SI)(R12*1), Y13); \
	XLD(XO(DI), Y14); \
	VFMADD231PS Y14, Y12, H0; \
	VFMADD231PS Y14, Y13, H3; \
	XLD(XO(DI)(R9*1), Y15); \
	VFMADD231PS Y15, Y12, H1; \
	VFMADD231PS Y15, Y13, H4; \
	XLD(XO(DI)(R9*2), Y14); \
	VFMADD231PS Y14, Y12, H2; \
	VFMADD231PS Y14, Y13, H5

// FCHUNK(LD, XLD, S, XS) accumulates one chunk of 16 elements, S the
// bytes of eight weights, XS of eight activations.
#define FCHUNK(LD, XLD, S, XS) \
	FHALF(LD, XLD, 0, 0, Y0, Y2, Y4, Y6, Y8, Y10); \
	FHALF(LD, XLD, S, XS, Y1, Y3, Y5, Y7, Y9, Y11)

// FOUT(LO, HI, XLO, OFF) stores reduce16 of the lanes LO (0..7) and HI
// (8..15) at OFF.
#define FOUT(LO, HI, XLO, OFF) \
	VADDPS HI, LO, LO; \
	FHSUM8(LO, XLO, X15); \
	VMOVSS XLO, OFF

// FEND stores the six outputs and returns.
#define FEND \
	FOUT(Y0, Y1, X0, 0(BX)); \
	FOUT(Y2, Y3, X2, 0(BX)(R11*1)); \
	FOUT(Y4, Y5, X4, 0(BX)(R11*2)); \
	FOUT(Y6, Y7, X6, 4(BX)); \
	FOUT(Y8, Y9, X8, 4(BX)(R11*1)); \
	FOUT(Y10, Y11, X10, 4(BX)(R11*2)); \
	VZEROUPPER; \
	RET

// FTILE(LD, XLD, S, XS, LOOP, DONE) is the body of a 2×3 float tile
// kernel.
#define FTILE(LD, XLD, S, XS, LOOP, DONE) \
	FTARGS; \
	ZERO12; \
	SHRQ $4, CX; \
	JZ   DONE; \
LOOP: \
	FCHUNK(LD, XLD, S, XS); \
	ADDQ $(2*S), SI; \
	ADDQ $(2*XS), DI; \
	DECQ CX; \
	JNZ  LOOP; \
DONE: \
	FEND

// func tileF32x2x3AVX2(a *tileArgs)
TEXT ·tileF32x2x3AVX2(SB), NOSPLIT, $0-8
	FTILE(FLD32, FLD32, 32, 32, f32tloop, f32tdone)

// func tileF16x2x3AVX2(a *tileArgs)
TEXT ·tileF16x2x3AVX2(SB), NOSPLIT, $0-8
	FTILE(FLD16, FLD32, 16, 32, f16tloop, f16tdone)

// func tileBF16x2x3AVX2(a *tileArgs)
TEXT ·tileBF16x2x3AVX2(SB), NOSPLIT, $0-8
	FTILE(FLDBF16, FLD32, 16, 32, bf16tloop, bf16tdone)

// func tileF16x2x3HAVX2(a *tileArgs)
TEXT ·tileF16x2x3HAVX2(SB), NOSPLIT, $0-8
	FTILE(FLD16, FLD16, 16, 16, f16htloop, f16htdone)

// func narrowF16AVX2(dst *byte, src *float32, n int)
TEXT ·narrowF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ   narrowdone

narrowloop:
	VMOVUPS   0(SI), Y0
	VCVTPS2PH $0, Y0, 0(DI)
	ADDQ      $32, SI
	ADDQ      $16, DI
	DECQ      CX
	JNZ       narrowloop

narrowdone:
	VZEROUPPER
	RET

// func widenScalePairs(dst *float32, w *byte, rstep, bstep, nb int)
TEXT ·widenScalePairs(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ rstep+16(FP), R8
	MOVQ bstep+24(FP), R9
	MOVQ nb+32(FP), CX
	LEAQ (SI)(R8*1), R10
	CMPQ CX, $4
	JLT  wsptail

wsploop:
	// Four blocks of both rows: eight halves, widened at once.
	WSP2
	VMOVQ     AX, X0
	WSP2
	VPINSRQ   $1, AX, X0, X0
	VCVTPH2PS X0, Y1
	VMOVUPS   Y1, (DI)
	ADDQ      $32, DI
	SUBQ      $4, CX
	CMPQ      CX, $4
	JGE       wsploop

wsptail:
	TESTQ CX, CX
	JZ    wspdone

wsponeloop:
	VPINSRW   $0, (SI), X0, X0
	VPINSRW   $1, (R10), X0, X0
	VCVTPH2PS X0, X1
	VMOVSD    X1, (DI)
	ADDQ      R9, SI
	ADDQ      R9, R10
	ADDQ      $8, DI
	DECQ      CX
	JNZ       wsponeloop

wspdone:
	VZEROUPPER
	RET
