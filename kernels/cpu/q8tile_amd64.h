// The parts the AVX2 and the AVX-VNNI Q8_0 prompt tiles (two weight rows
// by four activation rows, avx2_ftile_amd64.s and avxvnni_dot_amd64.s)
// share: the chunks of blocks whose scale products they compute ahead,
// and the outputs' stores.
//
// Per block the scale products d_x(j)·d_w(i) (computed as d_x·d_w, the
// oracle's product) are computed four at a time, for a chunk of up to
// q8Chunk blocks ahead of the chunk's integer products, and kept on the
// stack: block t's at 32t + 4(4i+j). Each output then broadcasts its own
// from memory (a load) rather than shuffling it out of a register, and the
// stores are long done when the broadcasts read them: reading a product
// stored by the same block's vector store measured 15% slower than
// shuffling, as the load waits for the store.
//
// Registers: SI weight row 0 (R12 wstride), DI activation row 0 (R9
// xstride, R10 3·xstride), CX blocks left, BX the outputs (R11
// 4·ostride); R14 counts the chunk's blocks and R8 indexes its scale
// products; AX and DX are scratch, as are X13 and X14 before the chunk's
// products start.

// q8Chunk is the most blocks whose scale products the stack holds (the
// frame's first 32·q8Chunk bytes).
#define q8Chunk 16

// q8BStep is the frame's slot after the scale products for the bytes from
// one block of a weight row to the next (34 in the file's layout), which
// each tile stores there first (Q8BSTEP).
#define q8BStep 512(SP)

// Q8BSTEP stores the tile's block step (its argument after a) in q8BStep.
// Uses AX.
#define Q8BSTEP \
	MOVQ bstep+8(FP), AX; \
	MOVQ AX, q8BStep

// Q8SCALE(W, P) stores at P the scale products of the block of the
// weight row at W with the four activation rows' (d_x in X13). Uses X14.
#define Q8SCALE(W, P) \
	VPBROADCASTW W, X14; \
	VCVTPH2PS    X14, X14; \
	VMULPS       X13, X14, X14; \
	VMOVUPS      X14, P

// Q8CHUNK(SCALE) starts a chunk of R14 = min(CX, q8Chunk) blocks, taking
// them from CX: it stores their scale products (SCALE is the loop's
// label) and sets R8 to the first's.
#define Q8CHUNK(SCALE) \
	MOVQ    $q8Chunk, R14; \
	CMPQ    CX, R14; \
	CMOVQLT CX, R14; \
	SUBQ    R14, CX; \
	MOVQ    SI, AX; \
	MOVQ    DI, DX; \
	XORQ    R8, R8; \
SCALE: \
	VMOVSS    (DX), X13; \
	VINSERTPS $0x10, (DX)(R9*1), X13, X13; \
	VINSERTPS $0x20, (DX)(R9*2), X13, X13; \
	VINSERTPS $0x30, (DX)(R10*1), X13, X13; \
	Q8SCALE((AX), 0(SP)(R8*1)); \
	Q8SCALE((AX)(R12*1), 16(SP)(R8*1)); \
	ADDQ q8BStep, AX; \
	ADDQ $40, DX; \
	ADDQ $32, R8; \
	DECQ R14; \
	JNZ  SCALE; \
	MOVQ R8, R14; \
	SHRQ $5, R14; \
	XORQ R8, R8

// Q8NEXT moves to the chunk's next block: the weight rows at SI and R13,
// the activation rows at DI, the scale products at R8.
#define Q8NEXT \
	ADDQ q8BStep, SI; \
	ADDQ q8BStep, R13; \
	ADDQ $40, DI; \
	ADDQ $32, R8

// Q8OUT(ACC, XACC, OFF) stores hsum8(ACC) at OFF, in hsum8's order: high
// half onto low half, lanes 0+2 and 1+3, then the two. Uses X15.
#define Q8OUT(ACC, XACC, OFF) \
	VEXTRACTF128 $1, ACC, X15; \
	VADDPS       X15, XACC, XACC; \
	VMOVHLPS     XACC, XACC, X15; \
	VADDPS       X15, XACC, XACC; \
	VMOVSHDUP    XACC, X15; \
	VADDSS       X15, XACC, XACC; \
	VMOVSS       XACC, OFF

// Q8OUTS stores the eight outputs, output (i, j) from Y(4i+j). Uses AX.
#define Q8OUTS \
	LEAQ (R11)(R11*2), AX; \
	ADDQ BX, AX; \
	Q8OUT(Y0, X0, 0(BX)); \
	Q8OUT(Y1, X1, 0(BX)(R11*1)); \
	Q8OUT(Y2, X2, 0(BX)(R11*2)); \
	Q8OUT(Y3, X3, 0(AX)); \
	Q8OUT(Y4, X4, 4(BX)); \
	Q8OUT(Y5, X5, 4(BX)(R11*1)); \
	Q8OUT(Y6, X6, 4(BX)(R11*2)); \
	Q8OUT(Y7, X7, 4(AX))

// Q8ZERO clears the eight accumulators, Y0-Y7.
#define Q8ZERO \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7
