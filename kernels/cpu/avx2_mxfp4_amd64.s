#include "textflag.h"
#include "mxfp4_amd64.h"

// func gemvMXFP4AVX2(a *tileArgs, rows int, scales *[256]float32)
TEXT ·gemvMXFP4AVX2(SB), NOSPLIT, $0-24
	MXGEMV(MXACT, MXDOT, mxgvgroup, mxgvblock)

// func tileMXFP4AVX2(a *tileArgs, rows int, scales *[256]float32)
TEXT ·tileMXFP4AVX2(SB), NOSPLIT, $32-24
	MXTILE(MXACT, MXDOT, mxtlgroup, mxtlblock)
