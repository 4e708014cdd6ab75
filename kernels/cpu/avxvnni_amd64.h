// AVX-VNNI instructions for Go's assembler, which encodes VPDPBUSD and
// VPDPWSSD only in their EVEX (AVX-512) form: these macros write the VEX
// form (VEX.256.66.0F38.W0 50 /r and 52 /r) byte by byte, which runs on
// CPUs with AVX-VNNI and no AVX-512 (Alder Lake and later Intel client
// cores). The operands are register numbers 0..15 of Y registers, in Go's
// order (sources first, destination last):
//
//	VNNI_DPBUSD(S, U, D): YD's int32 lane l += Σ_{k<4} YU.u8[4l+k]·YS.s8[4l+k]
//	VNNI_DPWSSD(S, U, D): YD's int32 lane l += Σ_{k<2} YU.s16[2l+k]·YS.s16[2l+k]
//
// as Go would write VPDPBUSD YS, YU, YD. D goes in ModRM.reg (its bit 3 as
// VEX.R, inverted), U in VEX.vvvv (inverted) and S in ModRM.rm (its bit 3
// as VEX.B, inverted). Neither saturates. TestVNNIMacros checks both on
// every register in every position.

// VNNI_VEX emits the three-byte VEX prefix (map 0F38, W0, 256-bit, 66),
// opcode OP and register-direct ModRM for Y registers S, U and D.
#define VNNI_VEX(OP, S, U, D) \
	BYTE $0xC4; \
	BYTE $(0xE2 ^ (((D) & 8) << 4) ^ (((S) & 8) << 2)); \
	BYTE $(((15 - (U)) << 3) | 5); \
	BYTE $(OP); \
	BYTE $(0xC0 | (((D) & 7) << 3) | ((S) & 7))

// VNNI_DPBUSD adds to YD's int32 lanes the sums of four products of YU's
// unsigned bytes with YS's signed bytes (vpdpbusd ymmD, ymmU, ymmS).
#define VNNI_DPBUSD(S, U, D) VNNI_VEX(0x50, S, U, D)

// VNNI_DPWSSD adds to YD's int32 lanes the sums of two products of YU's
// int16 words with YS's (vpdpwssd ymmD, ymmU, ymmS).
#define VNNI_DPWSSD(S, U, D) VNNI_VEX(0x52, S, U, D)
