#include "textflag.h"

// RoPE's rotation in NEON (rope_arm64.go says what it computes). As in
// neon_arm64.s, each NEON instruction is a WORD with its ARM syntax in the
// comment (encodings from llvm-mc -triple=aarch64).

// ropeNEON(y, x, cs *float32, n int, half int)
//
// x0: y, x1: x, x2: cs (cos, sin interleaved), x3: pairs left (a multiple
// of 4), x4: half. Per 4 pairs v0, v1 hold the first and second elements,
// v2, v3 the cosines and sines, v4, v5 the rotated elements.
TEXT ·ropeNEON(SB), NOSPLIT, $0-40
	MOVD y+0(FP), R0
	MOVD x+8(FP), R1
	MOVD cs+16(FP), R2
	MOVD n+24(FP), R3
	MOVD half+32(FP), R4
	CBZ R3, ropeNEON_done
	CBZ R4, ropeNEON_pairs
	// NeoX: element k pairs with element k+half.
	LSL $2, R4, R4
	ADD R4, R1, R5
	ADD R4, R0, R6
ropeNEON_neox:
	WORD $0x4cdf7820 // ld1 {v0.4s}, [x1], #16
	WORD $0x4cdf78a1 // ld1 {v1.4s}, [x5], #16
	WORD $0x4cdf8842 // ld2 {v2.4s, v3.4s}, [x2], #32
	WORD $0x6e23dc24 // fmul v4.4s, v1.4s, v3.4s
	WORD $0x6ea0f884 // fneg v4.4s, v4.4s
	WORD $0x4e22cc04 // fmla v4.4s, v0.4s, v2.4s
	WORD $0x6e22dc25 // fmul v5.4s, v1.4s, v2.4s
	WORD $0x4e23cc05 // fmla v5.4s, v0.4s, v3.4s
	WORD $0x4c9f7804 // st1 {v4.4s}, [x0], #16
	WORD $0x4c9f78c5 // st1 {v5.4s}, [x6], #16
	SUBS $4, R3
	BNE ropeNEON_neox
	RET
ropeNEON_pairs:
	// Adjacent pairs.
	WORD $0x4cdf8820 // ld2 {v0.4s, v1.4s}, [x1], #32
	WORD $0x4cdf8842 // ld2 {v2.4s, v3.4s}, [x2], #32
	WORD $0x6e23dc24 // fmul v4.4s, v1.4s, v3.4s
	WORD $0x6ea0f884 // fneg v4.4s, v4.4s
	WORD $0x4e22cc04 // fmla v4.4s, v0.4s, v2.4s
	WORD $0x6e22dc25 // fmul v5.4s, v1.4s, v2.4s
	WORD $0x4e23cc05 // fmla v5.4s, v0.4s, v3.4s
	WORD $0x4c9f8804 // st2 {v4.4s, v5.4s}, [x0], #32
	SUBS $4, R3
	BNE ropeNEON_pairs
ropeNEON_done:
	RET
