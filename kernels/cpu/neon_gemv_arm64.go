package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The SDOT tile kernels (neon_gemv_arm64.s) compute, for Q8_0, four
// weight rows against one activation row (decode: each activation load
// serves four weight rows) or two (prompts), and for Q6_K two weight rows
// against four activation rows (prompts: each unpacked weight vector
// serves four activation rows), and for Q4_K four weight rows against four
// activation rows (prompts; the SMMLA tile replaces it in neon+i8mm).
// SDOT sums four adjacent products into a
// 32-bit lane, the lanes of the single-row kernels and the oracle, so
// each output keeps its eight lanes, its float conversions and fused
// multiply-adds, and equals the single-row kernel bit for bit; hsum8 runs
// in Go on the lanes the assembly returns.

// addSDOTTiles adds the SDOT tile kernels to k.
func addSDOTTiles(k *kernelSet) {
	k.tiles[quant.TypeQ8_0] = []tileKernel{{mr: 4, nr: 1, fn: tileQ80x1}, {mr: 4, nr: 2, fn: tileQ80x2}}
	k.tiles[quant.TypeQ6_K] = []tileKernel{{mr: 2, nr: 4, fn: tileQ6K2x4}}
	k.tiles[quant.TypeQ4_K] = []tileKernel{{mr: 4, nr: 4, fn: tileQ4KSDOT}}
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

// q4KSDOTIdx holds the TBL indices with which the Q4_K SDOT kernels spread
// the scales and minimums of four weight rows, decoded as q4KByte says,
// into int32 vectors of sub-block s's scales of rows 0-3 (entries s), and
// into the int16 minimum vectors of q4KIdx (entries 8+c).
var q4KSDOTIdx = func() (t [12][16]byte) {
	for s := range 8 {
		t[s] = q4KLanes(4, func(l int) int { return l }, func(int) int { return s })
	}
	copy(t[8:], q4KIdx[16:])
	return t
}()

// tileQ4KGemmSDOT computes Q4_K weight rows 0-3 (wstride bytes apart, n
// >= 1 super-blocks each) against Q8_K activation rows 0-3 (xstride bytes
// apart) as dotRepackedK does each output with chunks of 64, leaving the
// sums in scr.acc[4j+i] and scr.accMin[4j+i] for weight row i and
// activation row j (it adds to both: zero them first).
//
//go:noescape
func tileQ4KGemmSDOT(w *byte, wstride int, x *q8KBlock, xstride int, n int, scr *q4KScratch, idx *[12][16]byte)

// tileQ4KGemvSDOT is tileQ4KGemmSDOT with whole super-blocks as chunks.
//
//go:noescape
func tileQ4KGemvSDOT(w *byte, wstride int, x *q8KBlock, xstride int, n int, scr *q4KScratch, idx *[12][16]byte)

// tileQ4KSDOT computes a 4×4 tile of Q4_K outputs, the activation rows in
// one order as tileQ4K says.
func tileQ4KSDOT(a *tileArgs) {
	var scr q4KScratch
	x := (*q8KBlock)(a.x)
	switch {
	case a.n == 0:
	case a.gemm&15 == 15:
		tileQ4KGemmSDOT(a.w, a.wstride, x, a.xstride, a.n, &scr, &q4KSDOTIdx)
	case a.gemm&15 == 0:
		tileQ4KGemvSDOT(a.w, a.wstride, x, a.xstride, a.n, &scr, &q4KSDOTIdx)
	default:
		q4KSingle(a, &scr)
	}
	for o := range 16 {
		scr.acc[o] -= scr.accMin[o]
	}
	storeRows(a, &scr.acc)
}

// storeRows stores a 4×4 tile's outputs res[4j+i] in the tile a.
func storeRows(a *tileArgs, res *[16]float32) {
	for j := range 4 {
		for i := range 4 {
			*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*(j*a.ostride+i))) = res[4*j+i]
		}
	}
}

// q4KSingle sets scr.acc[4j+i] to output (i, j) of a 4×4 Q4_K tile
// computed by the single-row kernel, for tiles that mix gemm and gemv rows.
func q4KSingle(a *tileArgs, scr *q4KScratch) {
	dot := q4KKernel(true)
	for j := range 4 {
		xs := unsafe.Slice((*q8KBlock)(unsafe.Add(a.x, j*a.xstride)), a.n)
		for i := range 4 {
			w := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(a.w), i*a.wstride)), 144*a.n)
			scr.acc[4*j+i] = dot(w, xs, a.gemm&(1<<j) != 0)
		}
	}
}
