// Shared by the AVX2 and AVX-VNNI decode tiles (avx2_gemv_amd64.s,
// avxvnni_dot_amd64.s): a *tileArgs (w @0, wstride @8, x @16, n @32, out
// @40) and the number of weight rows, run over the weight rows in groups
// against one activation row. Registers: R8 the current group's first
// weight row, R12 wstride, R10 3·wstride, R13 the activation row, R14 n,
// BX the group's first output, DX the weight rows left, SI and DI the
// weight and activation cursors, CX the super-blocks left; with steps,
// R11 the block step and AX the group step.

// GEMVARGS loads the tile description at a+0(FP) and the weight row count.
#define GEMVARGS \
	MOVQ a+0(FP), AX; \
	MOVQ 0(AX), R8; \
	MOVQ 8(AX), R12; \
	LEAQ (R12)(R12*2), R10; \
	MOVQ 16(AX), R13; \
	MOVQ 32(AX), R14; \
	MOVQ 40(AX), BX; \
	MOVQ rows+8(FP), DX

// GEMVSTEPARGS is GEMVARGS and the block and group steps: R11 and AX.
#define GEMVSTEPARGS \
	GEMVARGS; \
	MOVQ bstep+16(FP), R11; \
	MOVQ gstep+24(FP), AX

// GROUPSTART points SI, DI and CX at the group's first super-block, the
// activation row and the super-block count.
#define GROUPSTART \
	MOVQ R8, SI; \
	MOVQ R13, DI; \
	MOVQ R14, CX

// GROUPNEXT moves to the next four weight rows (the group step AX on) and
// their outputs and loops to L while rows remain.
#define GROUPNEXT(L) \
	ADDQ AX, R8; \
	ADDQ $16, BX; \
	SUBQ $4, DX; \
	JNZ  L

// PREFETCH7 prefetches the seven cache lines from P on.
#define PREFETCH7(P) \
	PREFETCHT0 0(P); \
	PREFETCHT0 64(P); \
	PREFETCHT0 128(P); \
	PREFETCHT0 192(P); \
	PREFETCHT0 256(P); \
	PREFETCHT0 320(P); \
	PREFETCHT0 384(P)

// PREFETCH9 prefetches the nine cache lines from P on.
#define PREFETCH9(P) \
	PREFETCH7(P); \
	PREFETCHT0 448(P); \
	PREFETCHT0 512(P)

// Q6PREFETCH is the least distance, in bytes, from the Q6_K row pair a
// decode tile reads to the pair it prefetches meanwhile.
#define Q6PREFETCH 8192

// Q6AHEAD(L) sets R10 to the distance from a Q6_K row pair to the pair
// it prefetches: the fewest whole pairs (2·wstride bytes each) that reach
// Q6PREFETCH bytes, so that short rows prefetch as far ahead as long ones
// (the next pair, 3.4 KB on at llama-1b's rows of 2048, came too late:
// its output matrix streamed at 18.7 GB/s against 22.5 with three pairs,
// on one thread). With a wstride of 0 it is 0. L is a label for the
// loop. Uses AX.
#define Q6AHEAD(L) \
	LEAQ (R12)(R12*1), AX; \
	MOVQ AX, R10; \
	TESTQ AX, AX; \
	JZ   5(PC); \
L: \
	CMPQ R10, $Q6PREFETCH; \
	JGE  3(PC); \
	ADDQ AX, R10; \
	JMP  L
