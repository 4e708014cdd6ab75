// Shared by the sixteen-row kernels (avx512_q4kx16_amd64.s,
// avx512_mxfp4x16_amd64.s, avx512_q6kx16_amd64.s, avx2_q4kx16_amd64.s).

// X16ARGS loads a *tileArgs at a+0(FP) and the row count (X16ARGSGP), and
// sets Z31 to 0x0f in every byte (the low nibbles' mask).
#define X16ARGS \
	X16ARGSGP; \
	MOVQ         $0x0f0f0f0f, R12; \
	VPBROADCASTD R12, Z31

// X16ARGSGP loads a *tileArgs at a+0(FP) and the row count: SI the packed
// weights (one stream over every group), R13 activation row 0, R9 the
// bytes from one activation row to the next and R10 three times that,
// R14 the blocks per row, BX the outputs, R11 the bytes from one
// activation row's outputs to the next, DX the rows.
#define X16ARGSGP \
	MOVQ         a+0(FP), AX; \
	MOVQ         0(AX), SI; \
	MOVQ         16(AX), R13; \
	MOVQ         24(AX), R9; \
	LEAQ         (R9)(R9*2), R10; \
	MOVQ         32(AX), R14; \
	MOVQ         40(AX), BX; \
	MOVQ         48(AX), R11; \
	SHLQ         $2, R11; \
	MOVQ         rows+8(FP), DX

// X16STORE4 stores acc - accMin (ACC minus MIN, four activation rows:
// Z8-Z11 minus Z12-Z15 when MIN is set, else Z8-Z11) at BX, BX+R11, ...,
// and moves BX to the next group's outputs. AX is scratch.
#define X16STORE4 \
	MOVQ    BX, AX; \
	VMOVUPS Z8, (AX); \
	ADDQ    R11, AX; \
	VMOVUPS Z9, (AX); \
	ADDQ    R11, AX; \
	VMOVUPS Z10, (AX); \
	ADDQ    R11, AX; \
	VMOVUPS Z11, (AX); \
	ADDQ    $64, BX

// X16ZERO0TO7 and X16ZERO8TO15 clear Z0-Z7 and Z8-Z15.
#define X16ZERO0TO7 \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7

#define X16ZERO8TO15 \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15

// X16GROUP starts a group: DI at activation row 0's first super-block, CX
// the super-blocks, the accumulators Z8-Z15 zero.
#define X16GROUP \
	MOVQ R13, DI; \
	MOVQ R14, CX; \
	X16ZERO8TO15

// X16LANES8 adds the eight integer lanes Z0-Z7 of the super-block (the
// lane kernels: Q6_K, Q3_K), converted and scaled by d (F16 at 0(SI))
// times x.d (0(DI)), to their accumulators Z8-Z15, one fused multiply-add
// per lane. Z16 is scratch.
#define X16LANES8 \
	VCVTPH2PS   0(SI), Z16; \
	VMULPS.BCST 0(DI), Z16, Z16; \
	VCVTDQ2PS   Z0, Z0; \
	VFMADD231PS Z0, Z16, Z8; \
	VCVTDQ2PS   Z1, Z1; \
	VFMADD231PS Z1, Z16, Z9; \
	VCVTDQ2PS   Z2, Z2; \
	VFMADD231PS Z2, Z16, Z10; \
	VCVTDQ2PS   Z3, Z3; \
	VFMADD231PS Z3, Z16, Z11; \
	VCVTDQ2PS   Z4, Z4; \
	VFMADD231PS Z4, Z16, Z12; \
	VCVTDQ2PS   Z5, Z5; \
	VFMADD231PS Z5, Z16, Z13; \
	VCVTDQ2PS   Z6, Z6; \
	VFMADD231PS Z6, Z16, Z14; \
	VCVTDQ2PS   Z7, Z7; \
	VFMADD231PS Z7, Z16, Z15

// X16HSUM8 leaves in Z8 the hsum8 of the accumulators Z8-Z15 (lanes l
// and l+4, then 0+2 and 1+3, then the two), row by row.
#define X16HSUM8 \
	VADDPS Z12, Z8, Z8; \
	VADDPS Z13, Z9, Z9; \
	VADDPS Z14, Z10, Z10; \
	VADDPS Z15, Z11, Z11; \
	VADDPS Z10, Z8, Z8; \
	VADDPS Z11, Z9, Z9; \
	VADDPS Z9, Z8, Z8
