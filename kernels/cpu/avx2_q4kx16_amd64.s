#include "textflag.h"
#include "avxvnni_amd64.h"
#include "x16_amd64.h"

// The sixteen-row Q4_K kernels on AVX2 and AVX-VNNI
// (avx2_q4kx16_amd64.go): the layout of avx512_q4kx16_amd64.go read as
// two halves of eight rows, a ymm's int32 lane each. A quad of pair C
// (chunk C: sub-blocks 2C and 2C+1) is 64 bytes at 320+64·C+256·q of the
// super-block, rows 0-7 in the first 32 and rows 8-15 in the next; its
// low nibbles are sub-block 2C's quants, its high nibbles sub-block
// 2C+1's, and each multiplies four activations broadcast from memory
// (vpmaddubsw). A pair sum is at most 2·15·128 in magnitude, so the eight
// quads of a sub-block add up in int16 words exactly (at most 30720)
// before vpmaddwd widens them. The AVX-VNNI kernels add the products to
// int32 lanes with vpdpbusd instead.

// q4x0f is 0x0f in every byte, q4xf0 0xf0; q4xOnes 1 in every int16
// word.
DATA q4x0f<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA q4x0f<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA q4x0f<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA q4x0f<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL q4x0f<>(SB), RODATA|NOPTR, $32

DATA q4xf0<>+0(SB)/8, $0xf0f0f0f0f0f0f0f0
DATA q4xf0<>+8(SB)/8, $0xf0f0f0f0f0f0f0f0
DATA q4xf0<>+16(SB)/8, $0xf0f0f0f0f0f0f0f0
DATA q4xf0<>+24(SB)/8, $0xf0f0f0f0f0f0f0f0
GLOBL q4xf0<>(SB), RODATA|NOPTR, $32

DATA q4xOnes<>+0(SB)/8, $0x0001000100010001
DATA q4xOnes<>+8(SB)/8, $0x0001000100010001
DATA q4xOnes<>+16(SB)/8, $0x0001000100010001
DATA q4xOnes<>+24(SB)/8, $0x0001000100010001
GLOBL q4xOnes<>(SB), RODATA|NOPTR, $32

// Q4XAHEAD is how far ahead of the super-block in use (four super-blocks
// of the one stream) the decode kernels prefetch the weights: without it
// they streamed 17-24 GB/s over a 38 MB matrix, with it 37-38, and in
// llama-1b's decode half or one and a half times as far measured slower.
#define Q4XAHEAD 9472

// Q4QUAD16(C, Q, OP) is quad Q of pair C for the sixteen rows: the
// products with sub-block 2C's activations into Y0 (rows 0-7) and Y2
// (rows 8-15), with 2C+1's into Y1 and Y3, OP (VPADDW, or a move for
// the first quad) adding them. Uses Y4-Y9.
#define Q4QUAD16(C, Q, OP) \
	PREFETCHT0   Q4XAHEAD+320+64*C+256*Q(SI); \
	VMOVDQU      320+64*C+256*Q(SI), Y6; \
	VMOVDQU      352+64*C+256*Q(SI), Y8; \
	VPBROADCASTD 4+64*C+4*Q(DI), Y4; \
	VPBROADCASTD 36+64*C+4*Q(DI), Y5; \
	VPSRLW       $4, Y6, Y7; \
	VPSRLW       $4, Y8, Y9; \
	VPAND        q4x0f<>(SB), Y6, Y6; \
	VPAND        q4x0f<>(SB), Y7, Y7; \
	VPAND        q4x0f<>(SB), Y8, Y8; \
	VPAND        q4x0f<>(SB), Y9, Y9; \
	VPMADDUBSW   Y4, Y6, Y6; \
	VPMADDUBSW   Y5, Y7, Y7; \
	VPMADDUBSW   Y4, Y8, Y8; \
	VPMADDUBSW   Y5, Y9, Y9; \
	OP(Y6, Y0); \
	OP(Y7, Y1); \
	OP(Y8, Y2); \
	OP(Y9, Y3)

#define Q4ADDW(S, D) VPADDW S, D, D
#define Q4MOVW(S, D) VMOVDQA S, D

// Q4WIDEN(LO, HI) widens a sub-block pair's int16 sums to int32 lanes;
// Q4SHIFT(LO, HI) shifts the AVX-VNNI kernels' high sums (sixteen times
// over: their nibbles masked in place) back.
#define Q4WIDEN(LO, HI) \
	VPMADDWD q4xOnes<>(SB), LO, LO; \
	VPMADDWD q4xOnes<>(SB), HI, HI
#define Q4SHIFT(LO, HI) VPSRAD $4, HI, HI

// Q4SCALE16(C, OP, W) widens pair C's sums (Q4QUAD16, W: Q4WIDEN, or
// Q4SHIFT after Q4QUADV) and adds them times their sub-blocks' scales to
// Y10 (rows 0-7) and Y11 (rows 8-15), OP (Q4ADDD, or Q4MOVD for the
// first pair) adding them. Uses Y6-Y9.
#define Q4SCALE16(C, OP, W) \
	W(Y0, Y1); \
	W(Y2, Y3); \
	VPMOVZXBD 64+32*C(SI), Y6; \
	VPMOVZXBD 80+32*C(SI), Y7; \
	VPMOVZXBD 72+32*C(SI), Y8; \
	VPMOVZXBD 88+32*C(SI), Y9; \
	VPMULLD   Y6, Y0, Y0; \
	VPMULLD   Y7, Y1, Y1; \
	VPMULLD   Y8, Y2, Y2; \
	VPMULLD   Y9, Y3, Y3; \
	VPADDD    Y1, Y0, Y0; \
	VPADDD    Y3, Y2, Y2; \
	OP(Y0, Y10); \
	OP(Y2, Y11)

#define Q4ADDD(S, D) VPADDD S, D, D
#define Q4MOVD(S, D) VMOVDQA S, D

// Q4PAIR16(C, OP) is pair C of the super-block: its eight quads, then
// its scaled sums added to Y10 and Y11 (OP as Q4SCALE16's).
#define Q4PAIR16(C, OP) \
	Q4QUAD16(C, 0, Q4MOVW); \
	Q4QUAD16(C, 1, Q4ADDW); \
	Q4QUAD16(C, 2, Q4ADDW); \
	Q4QUAD16(C, 3, Q4ADDW); \
	Q4QUAD16(C, 4, Q4ADDW); \
	Q4QUAD16(C, 5, Q4ADDW); \
	Q4QUAD16(C, 6, Q4ADDW); \
	Q4QUAD16(C, 7, Q4ADDW); \
	Q4SCALE16(C, OP, Q4WIDEN)

// Q4QUADV(C, Q) is Q4QUAD16 on AVX-VNNI: the products added to int32
// lanes Y0-Y3 by vpdpbusd, the high nibbles masked in place.
#define Q4QUADV(C, Q) \
	PREFETCHT0   Q4XAHEAD+320+64*C+256*Q(SI); \
	VMOVDQU      320+64*C+256*Q(SI), Y6; \
	VMOVDQU      352+64*C+256*Q(SI), Y8; \
	VPBROADCASTD 4+64*C+4*Q(DI), Y4; \
	VPBROADCASTD 36+64*C+4*Q(DI), Y5; \
	VPAND        q4xf0<>(SB), Y6, Y7; \
	VPAND        q4x0f<>(SB), Y6, Y6; \
	VPAND        q4xf0<>(SB), Y8, Y9; \
	VPAND        q4x0f<>(SB), Y8, Y8; \
	VNNI_DPBUSD(4, 6, 0); \
	VNNI_DPBUSD(5, 7, 1); \
	VNNI_DPBUSD(4, 8, 2); \
	VNNI_DPBUSD(5, 9, 3)

// Q4PAIRV(C, OP) is Q4PAIR16 on AVX-VNNI.
#define Q4PAIRV(C, OP) \
	VPXOR Y0, Y0, Y0; \
	VPXOR Y1, Y1, Y1; \
	VPXOR Y2, Y2, Y2; \
	VPXOR Y3, Y3, Y3; \
	Q4QUADV(C, 0); \
	Q4QUADV(C, 1); \
	Q4QUADV(C, 2); \
	Q4QUADV(C, 3); \
	Q4QUADV(C, 4); \
	Q4QUADV(C, 5); \
	Q4QUADV(C, 6); \
	Q4QUADV(C, 7); \
	Q4SCALE16(C, OP, Q4SHIFT)

// Q4PSUMS(XA) leaves at 0(SP) the activation row's (at XA) sums of each
// 32 elements as int16 words, bsum[2j]+bsum[2j+1]: pairs (j, j+1) of
// sub-blocks as dwords at 0, 4, 16 and 20. Uses Y4.
#define Q4PSUMS(XA) \
	VMOVDQU   260 XA, Y4; \
	VPMADDWD  q4xOnes<>(SB), Y4, Y4; \
	VPACKSSDW Y4, Y4, Y4; \
	VMOVDQU   Y4, 0(SP)

// Q4MINPAIR(T, POFF, OP) adds the minimums of sub-blocks 2T and 2T+1
// times the activations' sums of them (the dword at POFF(SP)) to Y0
// (rows 0-7) and Y1 (rows 8-15), OP as Q4SCALE16's. Uses Y4, Y6, Y7.
#define Q4MINPAIR(T, POFF, OP) \
	VMOVQ        192+32*T(SI), X6; \
	VPUNPCKLBW   208+32*T(SI), X6, X6; \
	VMOVQ        200+32*T(SI), X7; \
	VPUNPCKLBW   216+32*T(SI), X7, X7; \
	VPMOVZXBW    X6, Y6; \
	VPMOVZXBW    X7, Y7; \
	VPBROADCASTD POFF(SP), Y4; \
	VPMADDWD     Y4, Y6, Y6; \
	VPMADDWD     Y4, Y7, Y7; \
	OP(Y6, Y0); \
	OP(Y7, Y1)

// Q4MINS16 sets Y0 and Y1 to the sixteen rows' minimums times the
// activations' sums (Q4PSUMS at 0(SP)).
#define Q4MINS16 \
	Q4MINPAIR(0, 0, Q4MOVD); \
	Q4MINPAIR(1, 4, Q4ADDD); \
	Q4MINPAIR(2, 16, Q4ADDD); \
	Q4MINPAIR(3, 20, Q4ADDD)

// Q4GEMV(P, LG, LB) is the decode kernel's body, its pairs on P
// (Q4PAIR16 or Q4PAIRV), LG and LB its group and super-block loops' labels: SI the packed blocks, DI the
// activation super-block, CX super-blocks left, BX the outputs, DX rows
// left; Y10 and Y11 the super-block's integer sums and Y0, Y1 its
// minimums' (rows 0-7, 8-15), Y12, Y13 acc and Y14, Y15 accMin.
#define Q4GEMV(P, LG, LB) \
	X16ARGSGP; \
LG: \
	MOVQ         R13, DI; \
	MOVQ         R14, CX; \
	VXORPS       Y12, Y12, Y12; \
	VXORPS       Y13, Y13, Y13; \
	VXORPS       Y14, Y14, Y14; \
	VXORPS       Y15, Y15, Y15; \
LB: \
	P(0, Q4MOVD); \
	P(1, Q4ADDD); \
	P(2, Q4ADDD); \
	P(3, Q4ADDD); \
	PREFETCHT0   Q4XAHEAD(SI); \
	PREFETCHT0   Q4XAHEAD+64(SI); \
	PREFETCHT0   Q4XAHEAD+128(SI); \
	PREFETCHT0   Q4XAHEAD+192(SI); \
	PREFETCHT0   Q4XAHEAD+256(SI); \
	Q4PSUMS((DI)); \
	Q4MINS16; \
	VBROADCASTSS 0(DI), Y4; \
	VCVTPH2PS    0(SI), Y6; \
	VCVTPH2PS    16(SI), Y7; \
	VCVTPH2PS    32(SI), Y8; \
	VCVTPH2PS    48(SI), Y9; \
	VMULPS       Y4, Y6, Y6; \
	VMULPS       Y4, Y7, Y7; \
	VMULPS       Y4, Y8, Y8; \
	VMULPS       Y4, Y9, Y9; \
	VCVTDQ2PS    Y10, Y10; \
	VCVTDQ2PS    Y11, Y11; \
	VCVTDQ2PS    Y0, Y0; \
	VCVTDQ2PS    Y1, Y1; \
	VFMADD231PS  Y10, Y6, Y12; \
	VFMADD231PS  Y11, Y7, Y13; \
	VFMADD231PS  Y0, Y8, Y14; \
	VFMADD231PS  Y1, Y9, Y15; \
	ADDQ         $2368, SI; \
	ADDQ         $292, DI; \
	DECQ         CX; \
	JNZ          LB; \
	VSUBPS       Y14, Y12, Y12; \
	VSUBPS       Y15, Y13, Y13; \
	VMOVUPS      Y12, (BX); \
	VMOVUPS      Y13, 32(BX); \
	ADDQ         $64, BX; \
	SUBQ         $16, DX; \
	JNZ          LG; \
	VZEROUPPER; \
	RET

// gemvQ4KX16AVX2(a *tileArgs, rows int): Q4GEMV on vpmaddubsw, each
// super-block's [d, dmin]·x.d applied with one fused multiply-add each.
TEXT ·gemvQ4KX16AVX2(SB), NOSPLIT, $32-16
	Q4GEMV(Q4PAIR16, q4x8group, q4x8block)

// gemvQ4KX16VNNI(a *tileArgs, rows int): Q4GEMV on vpdpbusd.
TEXT ·gemvQ4KX16VNNI(SB), NOSPLIT, $32-16
	Q4GEMV(Q4PAIRV, q4xvgroup, q4xvblock)

// gemmQ4KX16AVX2's frame: the four activation rows' pair sums (Q4PSUMS)
// at 32j, acc of half h (rows 8h..8h+7) and activation row j at
// 128+128h+32j, accMin at 384+128h+32j.

// Q4GQUAD(C, Q, H, OP) is quad Q of pair C for half H's eight rows and
// the four activation rows (DI, DI+R9, DI+2·R9, DI+R10): activation row
// j's products with sub-block 2C into Y(2j), with 2C+1 into Y(2j+1), OP
// adding them (Q4ADDW, or Q4MOVW for the first quad). Uses Y8-Y11.
#define Q4GQUAD(C, Q, H, OP) \
	VMOVDQU      320+64*C+256*Q+32*H(SI), Y8; \
	VPSRLW       $4, Y8, Y9; \
	VPAND        q4x0f<>(SB), Y8, Y8; \
	VPAND        q4x0f<>(SB), Y9, Y9; \
	VPBROADCASTD 4+64*C+4*Q(DI), Y10; \
	VPBROADCASTD 36+64*C+4*Q(DI), Y11; \
	VPMADDUBSW   Y10, Y8, Y10; \
	VPMADDUBSW   Y11, Y9, Y11; \
	OP(Y10, Y0); \
	OP(Y11, Y1); \
	VPBROADCASTD 4+64*C+4*Q(DI)(R9*1), Y10; \
	VPBROADCASTD 36+64*C+4*Q(DI)(R9*1), Y11; \
	VPMADDUBSW   Y10, Y8, Y10; \
	VPMADDUBSW   Y11, Y9, Y11; \
	OP(Y10, Y2); \
	OP(Y11, Y3); \
	VPBROADCASTD 4+64*C+4*Q(DI)(R9*2), Y10; \
	VPBROADCASTD 36+64*C+4*Q(DI)(R9*2), Y11; \
	VPMADDUBSW   Y10, Y8, Y10; \
	VPMADDUBSW   Y11, Y9, Y11; \
	OP(Y10, Y4); \
	OP(Y11, Y5); \
	VPBROADCASTD 4+64*C+4*Q(DI)(R10*1), Y10; \
	VPBROADCASTD 36+64*C+4*Q(DI)(R10*1), Y11; \
	VPMADDUBSW   Y10, Y8, Y10; \
	VPMADDUBSW   Y11, Y9, Y11; \
	OP(Y10, Y6); \
	OP(Y11, Y7)

// Q4GQUADV(C, Q, H) is Q4GQUAD on AVX-VNNI: the products added to int32
// lanes Y0-Y7 by vpdpbusd, the high nibbles masked in place.
#define Q4GQUADV(C, Q, H) \
	VMOVDQU      320+64*C+256*Q+32*H(SI), Y8; \
	VPAND        q4xf0<>(SB), Y8, Y9; \
	VPAND        q4x0f<>(SB), Y8, Y8; \
	VPBROADCASTD 4+64*C+4*Q(DI), Y10; \
	VPBROADCASTD 36+64*C+4*Q(DI), Y11; \
	VNNI_DPBUSD(10, 8, 0); \
	VNNI_DPBUSD(11, 9, 1); \
	VPBROADCASTD 4+64*C+4*Q(DI)(R9*1), Y10; \
	VPBROADCASTD 36+64*C+4*Q(DI)(R9*1), Y11; \
	VNNI_DPBUSD(10, 8, 2); \
	VNNI_DPBUSD(11, 9, 3); \
	VPBROADCASTD 4+64*C+4*Q(DI)(R9*2), Y10; \
	VPBROADCASTD 36+64*C+4*Q(DI)(R9*2), Y11; \
	VNNI_DPBUSD(10, 8, 4); \
	VNNI_DPBUSD(11, 9, 5); \
	VPBROADCASTD 4+64*C+4*Q(DI)(R10*1), Y10; \
	VPBROADCASTD 36+64*C+4*Q(DI)(R10*1), Y11; \
	VNNI_DPBUSD(10, 8, 6); \
	VNNI_DPBUSD(11, 9, 7)

// Q4GQUADS(C, H) and Q4GQUADSV(C, H) run the eight quads of pair C for
// half H, on AVX2 and on AVX-VNNI.
#define Q4GQUADS(C, H) \
	Q4GQUAD(C, 0, H, Q4MOVW); \
	Q4GQUAD(C, 1, H, Q4ADDW); \
	Q4GQUAD(C, 2, H, Q4ADDW); \
	Q4GQUAD(C, 3, H, Q4ADDW); \
	Q4GQUAD(C, 4, H, Q4ADDW); \
	Q4GQUAD(C, 5, H, Q4ADDW); \
	Q4GQUAD(C, 6, H, Q4ADDW); \
	Q4GQUAD(C, 7, H, Q4ADDW)

#define Q4GQUADSV(C, H) \
	VPXOR Y0, Y0, Y0; \
	VPXOR Y1, Y1, Y1; \
	VPXOR Y2, Y2, Y2; \
	VPXOR Y3, Y3, Y3; \
	VPXOR Y4, Y4, Y4; \
	VPXOR Y5, Y5, Y5; \
	VPXOR Y6, Y6, Y6; \
	VPXOR Y7, Y7, Y7; \
	Q4GQUADV(C, 0, H); \
	Q4GQUADV(C, 1, H); \
	Q4GQUADV(C, 2, H); \
	Q4GQUADV(C, 3, H); \
	Q4GQUADV(C, 4, H); \
	Q4GQUADV(C, 5, H); \
	Q4GQUADV(C, 6, H); \
	Q4GQUADV(C, 7, H)

// Q4GROW(LO, HI, XA, J, POFF, H, W) adds one activation row's (J, at XA)
// part of a chunk in the gemm order to its acc and accMin: the scaled
// sum of the chunk's two sub-blocks (LO, HI, widened by W as in
// Q4SCALE16; Y8, Y9 the scales), its minimums' sum (Y10 the minimum pairs, the activations'
// pair sums at POFF+32J(SP)), converted and scaled by [d, dmin] (Y11,
// Y12) times x.d with one fused multiply-add each. Uses Y13-Y15.
#define Q4GROW(LO, HI, XA, J, POFF, H, W) \
	W(LO, HI); \
	VPMULLD      Y8, LO, LO; \
	VPMULLD      Y9, HI, HI; \
	VPADDD       HI, LO, LO; \
	VPBROADCASTD POFF+32*J(SP), Y13; \
	VPMADDWD     Y10, Y13, Y13; \
	VCVTDQ2PS    LO, LO; \
	VCVTDQ2PS    Y13, Y13; \
	VBROADCASTSS XA, Y14; \
	VMULPS       Y14, Y11, Y15; \
	VMULPS       Y14, Y12, Y14; \
	VFMADD213PS  128+128*H+32*J(SP), Y15, LO; \
	VFMADD213PS  384+128*H+32*J(SP), Y14, Y13; \
	VMOVUPS      LO, 128+128*H+32*J(SP); \
	VMOVUPS      Y13, 384+128*H+32*J(SP)

// Q4GCHUNK(C, H, POFF, QS, W) is chunk C of the super-block for half H:
// its eight quads (QS: Q4GQUADS or Q4GQUADSV), then each activation
// row's part in the gemm order (W as in Q4SCALE16).
#define Q4GCHUNK(C, H, POFF, QS, W) \
	QS(C, H); \
	VPMOVZXBD  64+32*C+8*H(SI), Y8; \
	VPMOVZXBD  80+32*C+8*H(SI), Y9; \
	VMOVQ      192+32*C+8*H(SI), X10; \
	VPUNPCKLBW 208+32*C+8*H(SI), X10, X10; \
	VPMOVZXBW  X10, Y10; \
	VCVTPH2PS  16*H(SI), Y11; \
	VCVTPH2PS  32+16*H(SI), Y12; \
	Q4GROW(Y0, Y1, (DI), 0, POFF, H, W); \
	Q4GROW(Y2, Y3, (DI)(R9*1), 1, POFF, H, W); \
	Q4GROW(Y4, Y5, (DI)(R9*2), 2, POFF, H, W); \
	Q4GROW(Y6, Y7, (DI)(R10*1), 3, POFF, H, W)

// Q4GHALF(H, QS, W) is half H's part of the super-block.
#define Q4GHALF(H, QS, W) \
	Q4GCHUNK(0, H, 0, QS, W); \
	Q4GCHUNK(1, H, 4, QS, W); \
	Q4GCHUNK(2, H, 16, QS, W); \
	Q4GCHUNK(3, H, 20, QS, W)

// Q4GPSUMS(XA, J) stores activation row J's (at XA) pair sums at 32J(SP)
// as Q4PSUMS does. Uses Y4.
#define Q4GPSUMS(XA, J) \
	VMOVDQU   260 XA, Y4; \
	VPMADDWD  q4xOnes<>(SB), Y4, Y4; \
	VPACKSSDW Y4, Y4, Y4; \
	VMOVDQU   Y4, 32*J(SP)

// Q4GOUT(H, J) stores acc - accMin of half H and activation row J at
// AX + 32·H. Uses Y0.
#define Q4GOUT(H, J) \
	VMOVUPS 128+128*H+32*J(SP), Y0; \
	VSUBPS  384+128*H+32*J(SP), Y0, Y0; \
	VMOVUPS Y0, 32*H(AX)

// Q4GEMM(QS, W, LG, LZ, LB) is the prompt kernel's body, its quads on
// QS and their sums widened by W (Q4GQUADS and Q4WIDEN, or Q4GQUADSV and
// Q4SHIFT), LG, LZ and LB its loops' labels: SI the packed blocks, DI
// activation row 0's super-block, CX super-blocks left, BX the outputs,
// DX rows left; the sums and accumulators in the frame.
#define Q4GEMM(QS, W, LG, LZ, LB) \
	X16ARGSGP; \
LG: \
	MOVQ    R13, DI; \
	MOVQ    R14, CX; \
	VXORPS  Y0, Y0, Y0; \
	MOVQ    $128, AX; \
LZ: \
	VMOVUPS Y0, (SP)(AX*1); \
	ADDQ    $32, AX; \
	CMPQ    AX, $640; \
	JLT     LZ; \
LB: \
	Q4GPSUMS((DI), 0); \
	Q4GPSUMS((DI)(R9*1), 1); \
	Q4GPSUMS((DI)(R9*2), 2); \
	Q4GPSUMS((DI)(R10*1), 3); \
	Q4GHALF(0, QS, W); \
	Q4GHALF(1, QS, W); \
	ADDQ    $2368, SI; \
	ADDQ    $292, DI; \
	DECQ    CX; \
	JNZ     LB; \
	MOVQ    BX, AX; \
	Q4GOUT(0, 0); \
	Q4GOUT(1, 0); \
	ADDQ    R11, AX; \
	Q4GOUT(0, 1); \
	Q4GOUT(1, 1); \
	ADDQ    R11, AX; \
	Q4GOUT(0, 2); \
	Q4GOUT(1, 2); \
	ADDQ    R11, AX; \
	Q4GOUT(0, 3); \
	Q4GOUT(1, 3); \
	ADDQ    $64, BX; \
	SUBQ    $16, DX; \
	JNZ     LG; \
	VZEROUPPER; \
	RET

// gemmQ4KX16AVX2(a *tileArgs, rows int) is gemmQ4KX16AVX512 on AVX2
// (Q4GEMM on vpmaddubsw).
TEXT ·gemmQ4KX16AVX2(SB), NOSPLIT, $640-16
	Q4GEMM(Q4GQUADS, Q4WIDEN, q4x8mgroup, q4x8mzero, q4x8mblock)

// gemmQ4KX16VNNI(a *tileArgs, rows int) is gemmQ4KX16AVX2 on AVX-VNNI
// (Q4GEMM on vpdpbusd).
TEXT ·gemmQ4KX16VNNI(SB), NOSPLIT, $640-16
	Q4GEMM(Q4GQUADSV, Q4SHIFT, q4xvmgroup, q4xvmzero, q4xvmblock)
