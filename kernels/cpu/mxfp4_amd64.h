// Shared by avx2_mxfp4_amd64.s and avx512_mxfp4_amd64.s.

// The MXFP4 tiles (AVX2, and AVX-512 VNNI on the same registers). Two weight rows share a register: the 16 quant
// bytes of one block of row a and of row b make [a | b], whose low and
// high nibbles become the quants of elements 0-15 and 16-31 of both rows,
// multiplied by the activation's halves broadcast to both lanes. The
// nibbles are looked up as levels + 12 (unsigned, for vpmaddubsw), and
// 12·x is taken off the 16-bit sums, so the integer sums are exact (16-bit
// sums of two products stay within ±6144). Three vphaddd leave one int32
// block sum per output, and each output then takes the oracle's one fused
// multiply-add per block by E8M0Half(e)·x.d, in block order, in its own
// float lane.

// mxlut12 holds quant.FP4Levels + 12 twice, once per 128-bit lane.
DATA mxlut12<>+0(SB)/8, $0x181412100f0e0d0c
DATA mxlut12<>+8(SB)/8, $0x00040608090a0b0c
DATA mxlut12<>+16(SB)/8, $0x181412100f0e0d0c
DATA mxlut12<>+24(SB)/8, $0x00040608090a0b0c
GLOBL mxlut12<>(SB), RODATA|NOPTR, $32

// mxnib holds bytes 0x0f.
DATA mxnib<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mxnib<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mxnib<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mxnib<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL mxnib<>(SB), RODATA|NOPTR, $32

// mxorder puts lanes [0 2 4 6 | 1 3 5 7] back in order (vpermps indices).
DATA mxorder<>+0(SB)/8, $0x0000000400000000
DATA mxorder<>+8(SB)/8, $0x0000000500000001
DATA mxorder<>+16(SB)/8, $0x0000000600000002
DATA mxorder<>+24(SB)/8, $0x0000000700000003
GLOBL mxorder<>(SB), RODATA|NOPTR, $32

// mxdw spreads [d0 d2 d1 d3] to [d0 d2 d0 d2 | d1 d3 d1 d3].
DATA mxdw<>+0(SB)/8, $0x0000000100000000
DATA mxdw<>+8(SB)/8, $0x0000000100000000
DATA mxdw<>+16(SB)/8, $0x0000000300000002
DATA mxdw<>+24(SB)/8, $0x0000000300000002
GLOBL mxdw<>(SB), RODATA|NOPTR, $32

// MXSETUP sets Y15 to 16-bit ones and Y12 to bytes 12.
#define MXSETUP \
	VPCMPEQW     Y15, Y15, Y15   \
	VPSRLW       $15, Y15, Y15   \
	MOVL         $0x0c0c0c0c, AX \
	VMOVD        AX, X12         \
	VPBROADCASTD X12, Y12

// MXPAIR(MA, MB, XLO, LO, HI) sets LO (whose xmm half is XLO) and HI to
// the quants (levels + 12) of the low and high nibbles of the blocks at MA
// and MB: [a | b]. Y13 holds mxlut12.
#define MXPAIR(MA, MB, XLO, LO, HI) \
	VMOVDQU     MA, XLO          \
	VINSERTI128 $1, MB, LO, LO   \
	VPSRLW      $4, LO, HI       \
	VPAND       mxnib<>(SB), LO, LO \
	VPAND       mxnib<>(SB), HI, HI \
	VPSHUFB     LO, Y13, LO      \
	VPSHUFB     HI, Y13, HI

// MXACT(XA) sets Y4 and Y5 to the two halves of the quants of the
// activation block at XA, each broadcast to both lanes, and Y6 to 12·x in
// 16-bit pair sums. Y7 is scratch.
#define MXACT(XA) \
	VBROADCASTI128 8 XA, Y4  \
	VBROADCASTI128 24 XA, Y5 \
	VPMADDUBSW     Y4, Y12, Y6 \
	VPMADDUBSW     Y5, Y12, Y7 \
	VPADDW         Y7, Y6, Y6

// MXDOT(LO, HI, R, T) sets R to the int32 lanes of the products of the
// row pair LO/HI with the activation in Y4, Y5, Y6: [a | b], four lanes
// each.
#define MXDOT(LO, HI, R, T) \
	VPMADDUBSW Y4, LO, R  \
	VPMADDUBSW Y5, HI, T  \
	VPADDW     T, R, R    \
	VPSUBW     Y6, R, R   \
	VPMADDWD   Y15, R, R

// MXARGS(ROWS) loads a tile's arguments: DI the *tileArgs, ROWS the rows,
// R8 the scale table, R10 the first weight row, R9 the weight stride, BX
// three strides, R11 the outputs.
#define MXARGS(ROWS) \
	MOVQ a+0(FP), DI       \
	MOVQ rows+8(FP), ROWS  \
	MOVQ scales+16(FP), R8 \
	MOVQ 0(DI), R10        \
	MOVQ 8(DI), R9         \
	LEAQ (R9)(R9*2), BX    \
	MOVQ 40(DI), R11

// MXSCALES(M0, M1, M2, M3, X) sets the lanes of X to E8M0Half of the
// bytes at M0..M3, from the table at R8.
#define MXSCALES(M0, M1, M2, M3, X) \
	MOVBLZX   M0, AX                      \
	VMOVSS    (R8)(AX*4), X               \
	MOVBLZX   M1, AX                      \
	VINSERTPS $0x10, (R8)(AX*4), X, X     \
	MOVBLZX   M2, AX                      \
	VINSERTPS $0x20, (R8)(AX*4), X, X     \
	MOVBLZX   M3, AX                      \
	VINSERTPS $0x30, (R8)(AX*4), X, X

// MXAHEAD is how far ahead of its current block the decode tile prefetches
// each of its eight weight rows, which stream from memory side by side.
#define MXAHEAD 512

// MXGEMV(ACT, DOT, LGROUP, LBLOCK) is the body of a decode tile,
// func(a *tileArgs, rows int, scales *[256]float32), with ACT and DOT
// (MXACT and MXDOT or their VNNI forms) for the integer products and
// LGROUP, LBLOCK its labels. Registers: SI rows 0-3 and DX rows 4-7 of the
// current block, R9 the weight stride, BX three strides, R12 the
// activation block, CX the blocks left, R10 the group's first row, R11 its
// outputs, R13 the rows left.
#define MXGEMV(ACT, DOT, LGROUP, LBLOCK) \
	MXARGS(R13) \
	MXSETUP \
	VMOVDQU mxlut12<>(SB), Y13 \
LGROUP: \
	VXORPS Y11, Y11, Y11 \
	MOVQ   R10, SI \
	LEAQ   (R10)(R9*4), DX \
	MOVQ   16(DI), R12 \
	MOVQ   32(DI), CX \
LBLOCK: \
	PREFETCHT0 MXAHEAD(SI) \
	PREFETCHT0 MXAHEAD(SI)(R9*1) \
	PREFETCHT0 MXAHEAD(SI)(R9*2) \
	PREFETCHT0 MXAHEAD(SI)(BX*1) \
	PREFETCHT0 MXAHEAD(DX) \
	PREFETCHT0 MXAHEAD(DX)(R9*1) \
	PREFETCHT0 MXAHEAD(DX)(R9*2) \
	PREFETCHT0 MXAHEAD(DX)(BX*1) \
	ACT((R12)) \
	MXPAIR(1(SI), 1(SI)(R9*1), X9, Y9, Y8) \
	DOT(Y9, Y8, Y0, Y10) \
	MXPAIR(1(SI)(R9*2), 1(SI)(BX*1), X9, Y9, Y8) \
	DOT(Y9, Y8, Y1, Y10) \
	MXPAIR(1(DX), 1(DX)(R9*1), X9, Y9, Y8) \
	DOT(Y9, Y8, Y2, Y10) \
	MXPAIR(1(DX)(R9*2), 1(DX)(BX*1), X9, Y9, Y8) \
	DOT(Y9, Y8, Y3, Y10) \
	VPHADDD Y1, Y0, Y0 \
	VPHADDD Y3, Y2, Y2 \
	VPHADDD Y2, Y0, Y0 \
	VCVTDQ2PS Y0, Y0 \
	MXSCALES((SI), (SI)(R9*2), (DX), (DX)(R9*2), X1) \
	MXSCALES((SI)(R9*1), (SI)(BX*1), (DX)(R9*1), (DX)(BX*1), X2) \
	VINSERTF128  $1, X2, Y1, Y1 \
	VBROADCASTSS (R12), Y2 \
	VMULPS       Y2, Y1, Y1 \
	VFMADD231PS  Y1, Y0, Y11 \
	ADDQ $17, SI \
	ADDQ $17, DX \
	ADDQ $40, R12 \
	DECQ CX \
	JNZ  LBLOCK \
	VMOVDQU mxorder<>(SB), Y0 \
	VPERMPS Y11, Y0, Y11 \
	VMOVUPS Y11, (R11) \
	ADDQ    $32, R11 \
	LEAQ    (R10)(R9*8), R10 \
	SUBQ    $8, R13 \
	JNZ     LGROUP \
	VZEROUPPER \
	RET

// MXACTPAIR(ACT, DOT, XA, XB, ACC) accumulates into ACC the outputs of the four
// weight rows (Y0/Y1 rows 0 and 1, Y2/Y3 rows 2 and 3) against the
// activation blocks at XA and XB: lanes [r0 r2 r0 r2 | r1 r3 r1 r3] by
// [a a b b | a a b b]. The weight scales are at 0(SP) in that order.
#define MXACTPAIR(ACT, DOT, XA, XB, ACC) \
	ACT(XA)                         \
	DOT(Y0, Y1, Y8, Y9)             \
	DOT(Y2, Y3, Y9, Y13)            \
	VPHADDD      Y9, Y8, Y8           \
	ACT(XB)                         \
	DOT(Y0, Y1, Y9, Y13)            \
	DOT(Y2, Y3, Y13, Y14)           \
	VPHADDD      Y13, Y9, Y9          \
	VPHADDD      Y9, Y8, Y8           \
	VCVTDQ2PS    Y8, Y8               \
	VBROADCASTSS XA, Y4               \
	VBROADCASTSS XB, Y5               \
	VBLENDPS     $0xcc, Y5, Y4, Y4    \
	VMULPS       0(SP), Y4, Y4        \
	VFMADD231PS  Y4, Y8, ACC

// MXSTORE(ACC, XACC, O1, O2) stores the four outputs of each of ACC's two
// activation rows (lanes [r0 r2 r0 r2 | r1 r3 r1 r3]) at O1 and O2.
#define MXSTORE(ACC, XACC, O1, O2) \
	VPERMPS      ACC, Y4, ACC   \
	VEXTRACTF128 $1, ACC, X5    \
	VMOVUPS      XACC, O1       \
	VMOVUPS      X5, O2

// MXTILE(ACT, DOT, LGROUP, LBLOCK) is the body of a prompt tile of four
// weight rows by four activation rows, func(a *tileArgs, rows int, scales
// *[256]float32), whose frame holds 32 bytes. Registers: SI the block of
// weight row 0, R9 the weight stride, BX three strides, R12 the block of
// activation row 0, R13 the activation stride, DX three, R15 the output
// stride in bytes, CX the blocks left, R10 the group's first row, R11 its
// outputs, R14 the rows left.
#define MXTILE(ACT, DOT, LGROUP, LBLOCK) \
	MXARGS(R14) \
	MOVQ 24(DI), R13 \
	LEAQ (R13)(R13*2), DX \
	MOVQ 48(DI), R15 \
	SHLQ $2, R15 \
	MXSETUP \
LGROUP: \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11 \
	MOVQ   R10, SI \
	MOVQ   16(DI), R12 \
	MOVQ   32(DI), CX \
LBLOCK: \
	MXSCALES((SI), (SI)(R9*2), (SI)(R9*1), (SI)(BX*1), X4) \
	VMOVDQU   mxdw<>(SB), Y5 \
	VPERMPS   Y4, Y5, Y4 \
	VMOVUPS   Y4, 0(SP) \
	VMOVDQU mxlut12<>(SB), Y13 \
	MXPAIR(1(SI), 1(SI)(R9*1), X0, Y0, Y1) \
	MXPAIR(1(SI)(R9*2), 1(SI)(BX*1), X2, Y2, Y3) \
	MXACTPAIR(ACT, DOT, (R12), (R12)(R13*1), Y10) \
	MXACTPAIR(ACT, DOT, (R12)(R13*2), (R12)(DX*1), Y11) \
	ADDQ $17, SI \
	ADDQ $40, R12 \
	DECQ CX \
	JNZ  LBLOCK \
	VMOVDQU mxorder<>(SB), Y4 \
	MXSTORE(Y10, X10, (R11), (R11)(R15*1)) \
	LEAQ    (R11)(R15*2), AX \
	MXSTORE(Y11, X11, (AX), (AX)(R15*1)) \
	ADDQ    $16, R11 \
	LEAQ    (R10)(R9*4), R10 \
	SUBQ    $4, R14 \
	JNZ     LGROUP \
	VZEROUPPER \
	RET
