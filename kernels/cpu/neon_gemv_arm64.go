package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The SDOT tile kernels (neon_gemv_arm64.s) compute several outputs per
// call: for Q8_0 four weight rows against one activation row (decode: each
// activation load serves four weight rows) or two (prompts); for Q6_K two
// weight rows against four activation rows (prompts: each unpacked weight
// vector serves four activation rows); for Q4_K four weight rows against
// one activation row or four (the SMMLA tile replaces the latter in
// neon+i8mm), the scales of the four rows decoded at once. SDOT sums four
// adjacent products into a 32-bit lane: for Q8_0 and Q6_K the lanes of the
// single-row kernels and the oracle, so each output keeps its eight
// lanes, float conversions and fused multiply-adds (hsum8 runs in Go on
// the lanes the assembly returns); Q4_K's oracle scales whole integer
// sums, which any grouping gives exactly. Every output equals the
// single-row kernel's bit for bit.

// addSDOTTiles adds the SDOT tile kernels to k.
func addSDOTTiles(k *kernelSet) {
	k.tiles[quant.TypeQ8_0] = []tileKernel{{mr: 4, nr: 1, fn: tileQ80x1}, {mr: 4, nr: 2, fn: tileQ80x2}}
	k.tiles[quant.TypeQ6_K] = []tileKernel{{mr: 2, nr: 4, fn: tileQ6K2x4}}
	k.tiles[quant.TypeQ4_K] = []tileKernel{{mr: 4, nr: 1, fn: tileQ4K4x1}, {mr: 4, nr: 4, fn: tileQ4K4x4}}
}

// tileQ80x1SDOT accumulates Q8_0 weight rows 0-3 (wstride bytes apart, n
// >= 1 blocks each) times Q8_0 activation row 0 into eight lanes per
// output as dot32 does, output (i, 0) in res[i].
//
//go:noescape
func tileQ80x1SDOT(w *byte, wstride int, x *q8Block, xstride int, n int, res *[4][8]float32)

// tileQ80x2SDOT is tileQ80x1SDOT for activation rows 0 and 1 (xstride
// bytes apart), output (i, j) in res[2i+j].
//
//go:noescape
func tileQ80x2SDOT(w *byte, wstride int, x *q8Block, xstride int, n int, res *[8][8]float32)

// tileQ80x1 computes a 4×1 tile of Q8_0 outputs.
func tileQ80x1(a *tileArgs) {
	var res [4][8]float32
	if a.n > 0 {
		tileQ80x1SDOT(a.w, a.wstride, (*q8Block)(a.x), a.xstride, a.n, &res)
	}
	storeLanes(a, 1, res[:])
}

// tileQ80x2 computes a 4×2 tile of Q8_0 outputs.
func tileQ80x2(a *tileArgs) {
	var res [8][8]float32
	if a.n > 0 {
		tileQ80x2SDOT(a.w, a.wstride, (*q8Block)(a.x), a.xstride, a.n, &res)
	}
	storeLanes(a, 2, res[:])
}

// storeLanes stores the outputs of a 4×nr tile whose output (i, j) is
// hsum8 of lanes[nr·i+j].
func storeLanes(a *tileArgs, nr int, lanes [][8]float32) {
	for j := range nr {
		for i := range 4 {
			*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*(j*a.ostride+i))) = hsum8(&lanes[nr*i+j])
		}
	}
}

// q6KScratch is the memory the Q6_K tile keeps: each output's eight float
// lanes (acc[4i+j] for weight row i, activation row j) and, per
// super-block, the weight rows' scales widened to int32 ([2][16]int32,
// read by the assembly only).
type q6KScratch struct {
	_   [2][16]int32
	acc [8][8]float32
}

// tileQ6K2x4SDOT accumulates Q6_K weight rows 0-1 (wstride bytes apart, n
// >= 1 super-blocks each) times Q8_K activation rows 0-3 (xstride bytes
// apart) into eight lanes per output as dotQ6K does, in scr.acc (which it
// adds to: zero it first).
//
//go:noescape
func tileQ6K2x4SDOT(w *byte, wstride int, x *q8KBlock, xstride int, n int, scr *q6KScratch)

// tileQ6K2x4 computes a 2×4 tile of Q6_K outputs.
func tileQ6K2x4(a *tileArgs) {
	var scr q6KScratch
	if a.n > 0 {
		tileQ6K2x4SDOT(a.w, a.wstride, (*q8KBlock)(a.x), a.xstride, a.n, &scr)
	}
	for j := range 4 {
		for i := range 2 {
			*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*(j*a.ostride+i))) = hsum8(&scr.acc[4*i+j])
		}
	}
}

// tileQ4KSDOT is tileQ4KI8MM with SDOT, output (i, j) in scr.acc[4j+i].
//
//go:noescape
func tileQ4KSDOT(w *byte, wstride int, x *q8KBlock, xstride int, n int, gemm int, scr *q4KScratch, idx *[28][16]byte)

// tileQ4Kx1SDOT is tileQ4KSDOT for activation row 0 alone.
//
//go:noescape
func tileQ4Kx1SDOT(w *byte, wstride int, x *q8KBlock, xstride int, n int, gemm int, scr *q4KScratch, idx *[28][16]byte)

// tileQ4K4x4 computes a 4×4 tile of Q4_K outputs with SDOT.
func tileQ4K4x4(a *tileArgs) { q4KTile(a, 4, tileQ4KSDOT, sdotSlot) }

// tileQ4K4x1 computes a 4×1 tile of Q4_K outputs with SDOT.
func tileQ4K4x1(a *tileArgs) { q4KTile(a, 1, tileQ4Kx1SDOT, sdotSlot) }

// sdotSlot is where the SDOT Q4_K kernels leave output (weight row i,
// activation row j).
func sdotSlot(i, j int) int { return 4*j + i }
