#include "textflag.h"
#include "mxfp4_amd64.h"

// The AVX-512 VNNI forms of the MXFP4 tiles: MXACT and MXDOT with the
// EVEX vpdpbusd on 256-bit registers, which sums four products of the
// unsigned quants (levels + 12) and the signed activations into each int32
// lane, from a start of -12·x in the same lanes; the rest of each tile,
// and every float operation, is the AVX2 tile's.

// MXACTVNNI(XA) sets Y4 and Y5 to the two halves of the quants of the
// activation block at XA, each broadcast to both lanes, and Y6 to -12·x in
// int32 sums of four. Y7 is scratch.
#define MXACTVNNI(XA) \
	VBROADCASTI128 8 XA, Y4  \
	VBROADCASTI128 24 XA, Y5 \
	VPXOR          Y7, Y7, Y7 \
	VPXOR          Y6, Y6, Y6 \
	VPDPBUSD       Y4, Y12, Y7 \
	VPDPBUSD       Y5, Y12, Y7 \
	VPSUBD         Y7, Y6, Y6

// MXDOTVNNI(LO, HI, R, T) is MXDOT with vpdpbusd (T is unused).
#define MXDOTVNNI(LO, HI, R, T) \
	VMOVDQU  Y6, R     \
	VPDPBUSD Y4, LO, R \
	VPDPBUSD Y5, HI, R

// func gemvMXFP4AVX512(a *tileArgs, rows int, scales *[256]float32)
TEXT ·gemvMXFP4AVX512(SB), NOSPLIT, $0-24
	MXGEMV(MXACTVNNI, MXDOTVNNI, mxgvgroup, mxgvblock)

// func tileMXFP4AVX512(a *tileArgs, rows int, scales *[256]float32)
TEXT ·tileMXFP4AVX512(SB), NOSPLIT, $32-24
	MXTILE(MXACTVNNI, MXDOTVNNI, mxtlgroup, mxtlblock)
