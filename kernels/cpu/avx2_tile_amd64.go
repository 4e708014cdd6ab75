package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The AVX2 tile kernels compute mr weight rows against nr activation rows
// in one call. Each weight chunk is loaded and unpacked once for all nr
// activation rows (the work that bounds prompt processing), and every
// output keeps the integer lanes, float conversions, products and fused
// multiply-adds of the single-row kernel, so each equals it (and the
// oracle) bit for bit; only the register blocking differs. The assembly
// runs over the mr weight rows itself, so mr only sets how much work one
// call does.

// tileRowsK is the number of weight rows one K-quant tile call covers.
const tileRowsK = 4

// addAVX2Tiles registers the AVX2 tile kernels.
func addAVX2Tiles(k *kernelSet) {
	k.tiles[quant.TypeQ4_K] = []tileKernel{{mr: tileRowsK, nr: 4, fn: tileQ4K}}
	k.tiles[quant.TypeQ6_K] = []tileKernel{{mr: tileRowsK, nr: 4, fn: tileQ6K}}
}

// tileQ4K computes a tileRowsK×4 tile of Q4_K outputs. The four activation
// rows take one order, gemm (chunks of 64) or gemv (whole super-blocks),
// which is how the matrix product groups them (in fours from row 0); a
// tile that mixes the two, which the matrix product never asks for, is
// computed one output at a time by the single-row kernel.
func tileQ4K(a *tileArgs) { tileQ4KWith(a, tileQ4KAVX2, dotQ4KAVX2) }

// tileQ4KWith computes a tileRowsK×4 tile of Q4_K outputs as tileQ4K
// describes, with the tile kernel tile and the single-row kernel dot.
func tileQ4KWith(a *tileArgs, tile func(a *tileArgs, rows int, gemm bool), dot func(w *byte, x *q8KBlock, n int, gemm bool) float32) {
	switch {
	case a.n == 0:
		tileSingleK(a, tileRowsK, 4, nil)
	case a.gemm&15 == 0:
		tile(a, tileRowsK, false)
	case a.gemm&15 == 15:
		tile(a, tileRowsK, true)
	default:
		tileSingleK(a, tileRowsK, 4, dot)
	}
}

// tileQ6K computes a tileRowsK×4 tile of Q6_K outputs.
func tileQ6K(a *tileArgs) { kTile(a, tileRowsK, 4, tileQ6KAVX2) }

// kTile computes an mr×nr tile of K-quant outputs with kern, which needs
// at least one super-block; with none every output is +0, as the oracle
// gives.
func kTile(a *tileArgs, mr, nr int, kern func(a *tileArgs, rows int)) {
	if a.n == 0 {
		tileSingleK(a, mr, nr, nil)
		return
	}
	kern(a, mr)
}

// tileSingleK computes an mr×nr tile of K-quant outputs one output at a
// time with the single-row kernel dot, each activation row j in the order
// of gemm bit j; with no super-blocks every output is +0, as the oracle
// gives (dot may then be nil).
func tileSingleK(a *tileArgs, mr, nr int, dot func(w *byte, x *q8KBlock, n int, gemm bool) float32) {
	if a.n == 0 {
		for j := range nr {
			for i := range mr {
				*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*(j*a.ostride+i))) = 0
			}
		}
		return
	}
	for j := range nr {
		x := (*q8KBlock)(unsafe.Add(a.x, j*a.xstride))
		for i := range mr {
			w := (*byte)(unsafe.Add(unsafe.Pointer(a.w), i*a.wstride))
			*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*(j*a.ostride+i))) = dot(w, x, a.n, a.gemm&(1<<j) != 0)
		}
	}
}

// tileQ4KAVX2 computes rows×4 Q4_K outputs as dotQ4KAVX2 does each: per
// weight row and super-block the integer sums of each 64 elements for the
// four activation rows are reduced together, the minimums' sums likewise,
// and with gemm each chunk's pair is scaled into [acc | accMin] lanes (one
// lane per activation row) with a fused multiply-add; without gemm the
// chunks are first added as integers. a.n must be at least 1.
//
//go:noescape
func tileQ4KAVX2(a *tileArgs, rows int, gemm bool)

// tileQ6KAVX2 computes rows×4 Q6_K outputs as dotQ6KAVX2 does each: eight
// int32 lanes per activation row and super-block, one fused multiply-add
// per lane into that row's accumulators, hsum8 at the end. Each unpacked
// weight vector serves the four activation rows. a.n must be at least 1.
//
//go:noescape
func tileQ6KAVX2(a *tileArgs, rows int)
