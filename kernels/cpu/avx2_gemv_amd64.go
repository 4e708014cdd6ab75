package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The AVX2 decode tiles compute several weight rows against one activation
// row in one call. Decode streams every weight once, so there is no weight
// reuse to gain; what a group of rows shares is the activation side of
// each super-block (its block sums, its scale, its quants' loads), the
// reductions at the end of each super-block (done for four rows at once)
// and the call itself, and the rows give the core independent chains of
// work. Every output keeps the single-row kernel's integer sums and float
// operations, so each equals it (and the oracle) bit for bit.

// gemvRows is the number of weight rows one decode tile call covers; the
// assembly runs over them in groups of four.
const gemvRows = 4

// addAVX2Gemv adds the AVX2 tile kernels for one activation row (decode).
func addAVX2Gemv(k *kernelSet) {
	k.tiles[quant.TypeQ4_K] = append(k.tiles[quant.TypeQ4_K], tileKernel{mr: gemvRows, nr: 1, fn: gemvQ4K})
	k.tiles[quant.TypeQ6_K] = append(k.tiles[quant.TypeQ6_K], decodeKernel(gemvRows, gemvRowsK(gemvQ6KAVX2)))
	k.tiles[quant.TypeQ8_0] = append(k.tiles[quant.TypeQ8_0], decodeKernel(gemvRows, gemvQ80Rows))
}

// gemvQ4K computes gemvRows Q4_K outputs for one activation row. The
// matrix product only asks a batch of one to three rows, which takes the
// gemv order; a gemm row is computed by the single-row kernel.
func gemvQ4K(a *tileArgs) { gemvQ4KWith(a, gemvQ4KAVX2, dotQ4KAVX2) }

// gemvQ4KWith computes gemvRows Q4_K outputs as gemvQ4K describes, with
// the decode tile kernel gemv and the single-row kernel dot.
func gemvQ4KWith(a *tileArgs, gemv func(a *tileArgs, rows int), dot func(w *byte, x *q8KBlock, n int, gemm bool) float32) {
	if a.n == 0 || a.gemm&1 != 0 {
		tileSingleK(a, gemvRows, 1, dot)
		return
	}
	gemv(a, gemvRows)
}

// gemvQ4KAVX2 computes rows (a multiple of four) Q4_K outputs against one
// activation row in dotQ4KAVX2's gemv order: per weight row and
// super-block the exact integer sums of the scaled products and of the
// minimums times the activations' block sums, converted to float32 and
// scaled by [d, dmin]·x.d into [acc, accMin] with one fused multiply-add,
// acc - accMin at the end. a.n must be at least 1.
//
//go:noescape
func gemvQ4KAVX2(a *tileArgs, rows int)

// gemvRowsK returns the K-quant decode kernel kern as a tileKernel.rows:
// kTile over rows weight rows and one activation row.
func gemvRowsK(kern func(a *tileArgs, rows int)) func(a *tileArgs, rows int) {
	return func(a *tileArgs, rows int) { kTile(a, rows, 1, kern) }
}

// gemvQ6KAVX2 computes rows (a multiple of two) Q6_K outputs against one
// activation row as dotQ6KAVX2 computes each: eight int32 lanes per
// super-block, one fused multiply-add per lane by d·x.d, hsum8 at the
// end. Two weight rows run together, sharing each activation load. a.n
// must be at least 1.
//
//go:noescape
func gemvQ6KAVX2(a *tileArgs, rows int)

// gemvQ80Rows computes rows (a multiple of four) Q8_0 outputs for one
// activation row.
func gemvQ80Rows(a *tileArgs, rows int) { gemvOrZero(a, rows, gemvQ80AVX2) }

// gemvOrZero runs the decode kernel gemv over rows weight rows, or sets
// their outputs (a.out on) to 0 where the rows have no blocks, which the
// kernels need at least one of.
func gemvOrZero(a *tileArgs, rows int, gemv func(a *tileArgs, rows int)) {
	if a.n == 0 {
		clear(unsafe.Slice(a.out, rows))
		return
	}
	gemv(a, rows)
}

// gemvQ80AVX2 computes rows (a multiple of four) Q8_0 outputs against one
// activation row (Q8_0 blocks) as dotQ8_0AVX2 computes each: eight int32
// lanes per block scaled by d·x.d into eight float32 accumulators with one
// fused multiply-add per lane, hsum8 at the end. Each activation block is
// loaded once for the four rows. a.n must be at least 1.
func gemvQ80AVX2(a *tileArgs, rows int) {
	gemvQ80StepAVX2(a, rows, quant.TypeQ8_0.TypeSize(), gemvRows*a.wstride)
}

// gemvQ80StepAVX2 is gemvQ80AVX2 with row r's block b at a.w +
// r·a.wstride + b·bstep and each group of four rows gstep bytes after the
// one before: the file's layout, or Q8_0 rows interleaved by four
// (Repack, gemvPackedQ80).
//
//go:noescape
func gemvQ80StepAVX2(a *tileArgs, rows, bstep, gstep int)
