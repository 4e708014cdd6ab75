// The parts the AVX2 and the AVX-VNNI Q8_0 prompt tiles (two weight rows
// by four activation rows, avx2_ftile_amd64.s and avxvnni_dot_amd64.s)
// share: the chunks of blocks whose scale products they compute ahead,
// and the outputs' stores.
//
// Per block the scale products d_x(j)·d_w(i) (computed as d_x·d_w, the
// oracle's product) are computed eight at a time, for a chunk of up to
// q8Chunk blocks ahead of the chunk's integer products, and kept on the
// stack: block t's at 32t + 4(4i+j). Each output then broadcasts its own
// from memory (a load) rather than shuffling it out of a register, and the
// stores are long done when the broadcasts read them: reading a product
// stored by the same block's vector store measured 15% slower than
// shuffling, as the load waits for the store.
//
// The scales come widened ahead where the matrix product gives them
// (tileArgs.xd and wd, tileKernel.scales): one load of the four
// activation rows' and one of the two weight rows' per block. Without
// them the tile gathers the activation rows' from their blocks and widens
// the weight rows' from F16 itself, which took 8-10% of its time
// (BenchmarkVNNIQ8_0, tile2x4 against tile2x4/scaled).
//
// Registers: SI weight row 0 (R12 the bytes to row 1), DI activation
// row 0 (R9 xstride, R10 3·xstride), CX blocks left, BX the outputs (R11
// 4·ostride); R14 counts the chunk's blocks and R8 indexes its scale
// products; AX holds the block step while the chunk's blocks run (a
// register, not the frame's slot: 3% faster), and AX and DX are scratch
// before, as are X11, X13 and X14.

// q8Chunk is the most blocks whose scale products the stack holds (the
// frame's first 32·q8Chunk bytes).
#define q8Chunk 16

// The frame's slots after the scale products: the bytes from one block
// of a weight row to the next (34 in the file's layout); the next block's
// widened scales (tileArgs.xd, xdstride and wd); the pairs of weight rows
// left, and the current pair's first row. Q8FRAME fills them. The frame
// is 560 bytes.
#define q8BStep 512(SP)
#define q8XD 520(SP)
#define q8XDStride 528(SP)
#define q8WD 536(SP)
#define q8Left 544(SP)
#define q8Row0 552(SP)

// Q8FRAME reads the tile's arguments after a, (rstep, bstep, pairs int):
// it sets R12 to rstep, the bytes from the first weight row of a pair to
// the second, and stores bstep, pairs and the widened scales in the
// frame's slots. Uses DX; after FTARGS.
#define Q8FRAME \
	MOVQ 64(AX), DX; \
	MOVQ DX, q8XD; \
	MOVQ 72(AX), DX; \
	MOVQ DX, q8XDStride; \
	MOVQ 80(AX), DX; \
	MOVQ DX, q8WD; \
	MOVQ rstep+8(FP), R12; \
	MOVQ bstep+16(FP), DX; \
	MOVQ DX, q8BStep; \
	MOVQ pairs+24(FP), DX; \
	MOVQ DX, q8Left

// Q8PAIR0 starts a pair of weight rows at SI: R13 its second row, and the
// eight accumulators cleared.
#define Q8PAIR0 \
	MOVQ SI, q8Row0; \
	LEAQ (SI)(R12*1), R13; \
	Q8ZERO

// Q8NEXTPAIR(PAIR, END), after a pair's outputs are stored, goes to END
// when no pair is left, and otherwise back to PAIR for the pair 2·rstep
// bytes after it: the same activation rows and blocks, the outputs of
// the next two weight rows, and the widened weight scales that follow
// the pair's (q8WD has moved past them).
#define Q8NEXTPAIR(PAIR, END) \
	DECQ q8Left; \
	JZ   END; \
	MOVQ a+0(FP), AX; \
	MOVQ 16(AX), DI; \
	MOVQ 32(AX), CX; \
	MOVQ 64(AX), DX; \
	MOVQ DX, q8XD; \
	MOVQ q8Row0, SI; \
	LEAQ (SI)(R12*2), SI; \
	ADDQ $8, BX; \
	JMP  PAIR

// Q8SCALE(W, P) stores at P the scale products of the block of the
// weight row at W with the four activation rows' (d_x in X13). Uses X14.
#define Q8SCALE(W, P) \
	VPBROADCASTW W, X14; \
	VCVTPH2PS    X14, X14; \
	VMULPS       X13, X14, X14; \
	VMOVUPS      X14, P

// Q8CHUNK(GATHER, WIDE, WLOOP, DONE) starts a chunk of R14 = min(CX,
// q8Chunk) blocks, taking them from CX: it stores their scale products,
// sets R8 to the first's and AX to the block step. With widened scales
// (q8XD not nil) it multiplies them a block at a time from q8WD's two
// weight rows' (made [d_w0 ×4, d_w1 ×4] by vpermps) and q8XD's four
// activation rows', and moves both on; otherwise it gathers and widens
// them from the blocks.
// GATHER, WIDE, WLOOP and DONE are the tile's labels.
#define Q8CHUNK(GATHER, WIDE, WLOOP, DONE) \
	MOVQ    $q8Chunk, R14; \
	CMPQ    CX, R14; \
	CMOVQLT CX, R14; \
	SUBQ    R14, CX; \
	XORQ    R8, R8; \
	MOVQ    q8XD, DX; \
	TESTQ   DX, DX; \
	JNZ     WIDE; \
	MOVQ    SI, AX; \
	MOVQ    DI, DX; \
GATHER: \
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
	JNZ  GATHER; \
	JMP  DONE; \
WIDE: \
	MOVQ    q8WD, AX; \
	VMOVDQU q8Pairs<>(SB), Y11; \
WLOOP: \
	VMOVSD         (AX), X14; \
	VPERMPS        Y14, Y11, Y14; \
	VBROADCASTF128 (DX), Y13; \
	VMULPS         Y13, Y14, Y14; \
	VMOVUPS        Y14, 0(SP)(R8*1); \
	ADDQ           $8, AX; \
	ADDQ           q8XDStride, DX; \
	ADDQ           $32, R8; \
	DECQ           R14; \
	JNZ            WLOOP; \
	MOVQ           AX, q8WD; \
	MOVQ           DX, q8XD; \
DONE: \
	MOVQ R8, R14; \
	SHRQ $5, R14; \
	XORQ R8, R8; \
	MOVQ q8BStep, AX

// Q8NEXT moves to the chunk's next block: the weight rows at SI and R13
// (AX the block step), the activation rows at DI, the scale products at
// R8.
#define Q8NEXT \
	ADDQ AX, SI; \
	ADDQ AX, R13; \
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

// q8Pairs is vpermps's index for [d_w0 ×4, d_w1 ×4] from [d_w0, d_w1].
DATA q8Pairs<>+0(SB)/8, $0
DATA q8Pairs<>+8(SB)/8, $0
DATA q8Pairs<>+16(SB)/8, $0x0000000100000001
DATA q8Pairs<>+24(SB)/8, $0x0000000100000001
GLOBL q8Pairs<>(SB), RODATA|NOPTR, $32
