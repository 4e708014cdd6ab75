package cpu

import "saji/kernels/quant"

// The AVX-512 K-quant kernels put two independent outputs side by side in
// the two 256-bit halves of a zmm register (two weight rows against one
// activation row), each half doing what the AVX2 kernel's ymm does for its
// output; the single-row kernels put 64 consecutive quants of one row in
// a zmm instead, whose halves' int32 lanes they add before the float
// part. The quants are multiplied with vpmaddubsw and the scaled int16
// pairs summed into int32 lanes with the VNNI vpdpwssd (vpmaddwd and the
// add in one). The integer sums are exact whatever the instruction; the
// float part keeps, per output, the oracle's conversions, products and
// fused multiply-adds, so every output equals the AVX2 kernel's (and
// dotK's) bit for bit.

// addAVX512K adds the AVX-512 K-quant kernels over the AVX2 ones.
func addAVX512K(k *kernelSet) {
	k.q8K[quant.TypeQ4_K] = kKernel(dotQ4KAVX512, quant.TypeQ4_K)
	k.q8K[quant.TypeQ6_K] = kKernel(dotQ6KAVX512, quant.TypeQ6_K)
	k.q8K[quant.TypeQ5_K] = kKernel(dotQ5KAVX512, quant.TypeQ5_K)
	k.q8K[quant.TypeQ2_K] = kKernel(dotQ2KAVX512, quant.TypeQ2_K)
	k.q8K[quant.TypeIQ4_XS] = kKernel(dotIQ4XSAVX512, quant.TypeIQ4_XS)
	k.q8K[quant.TypeQ3_K] = kKernel(dotQ3KAVX512, quant.TypeQ3_K)
	setTile(k, quant.TypeQ4_K, tileKernel{mr: tileRowsK, nr: 4, fn: tileQ4K512})
	setTile(k, quant.TypeQ4_K, tileKernel{mr: gemvRows, nr: 1, fn: gemvQ4K512})
	setTile(k, quant.TypeQ6_K, tileKernel{mr: tileRowsK, nr: 4, fn: tileQ6K512})
	setTile(k, quant.TypeQ6_K, decodeKernel(gemvRows, gemvRowsK(gemvQ6KAVX512)))
	setTile(k, quant.TypeQ5_K, tileKernel{mr: tileRowsK, nr: 4, fn: tileQ5K512})
	setTile(k, quant.TypeQ5_K, tileKernel{mr: gemvRows, nr: 1, fn: gemvQ5K512})
	if k.packed == nil {
		k.packed = map[quant.Type]packedKernel{}
	}
	k.packed[quant.TypeQ4_K] = q4KX16
	k.packed[quant.TypeQ6_K] = q6KX16
	k.packed[quant.TypeQ2_K] = q2KX16
	k.packed[quant.TypeQ3_K] = q3KX16
}

// tileQ4K512 computes a tileRowsK×4 tile of Q4_K outputs as tileQ4K does,
// with tileQ4KAVX512 for the tiles of one order.
func tileQ4K512(a *tileArgs) { tileQ4KWith(a, tileQ4KAVX512, dotQ4KAVX512) }

// tileQ4KAVX512 computes rows (a multiple of four) × 4 Q4_K outputs as
// dotQ4KAVX2 computes each. Per group of four weight rows and
// super-block, each 64-element chunk of two weight rows is unpacked once
// into one zmm and multiplied with the four activation rows (vpmaddubsw,
// then vpmaddwd and vpdpwssd with the sub-blocks' scales); the sixteen
// outputs' eight-lane sums are folded into one vector of sixteen exact
// chunk sums, and the minimums' sums are one vpmaddwd of the rows'
// minimums with the activations' pair sums. With gemm each chunk's sums
// are converted and scaled into the accumulators with a fused
// multiply-add, in chunk order; without, the four chunks are added as
// integers first. a.n must be at least 1.
//
//go:noescape
func tileQ4KAVX512(a *tileArgs, rows int, gemm bool)

// tileQ6K512 computes a tileRowsK×4 tile of Q6_K outputs.
func tileQ6K512(a *tileArgs) { kTile(a, tileRowsK, 4, tileQ6KAVX512) }

// tileQ6KAVX512 computes rows (a multiple of four) × 4 Q6_K outputs as
// dotQ6KAVX2 computes each: eight int32 lanes per output and super-block,
// started at -32 times the scaled block sums, then the products of the
// unsigned 6-bit quants (vpmaddubsw, vpdpwssd with the group scales), one
// fused multiply-add per lane by d·x.d, hsum8's order at the end. Two
// weight rows share each zmm, and each unpacked pair serves the four
// activation rows. a.n must be at least 1.
//
//go:noescape
func tileQ6KAVX512(a *tileArgs, rows int)

// gemvQ4K512 computes gemvRows Q4_K outputs for one activation row, as
// gemvQ4K does.
func gemvQ4K512(a *tileArgs) { gemvQ4KWith(a, gemvQ4KAVX512, dotQ4KAVX512) }

// gemvQ4KAVX512 computes rows (a multiple of four) Q4_K outputs against
// one activation row in dotQ4KAVX2's gemv order. Two weight rows share
// each zmm; each super-block's scaled products accumulate in eight int32
// lanes per row (vpdpwssd), the minimums' sums are one vpmaddwd of the
// four rows' minimums with the activations' pair sums, and both are
// reduced and scaled by [d, dmin]·x.d into [acc, accMin] with one fused
// multiply-add per super-block. a.n must be at least 1.
//
//go:noescape
func gemvQ4KAVX512(a *tileArgs, rows int)

// gemvQ6KAVX512 computes rows (a multiple of four) Q6_K outputs against
// one activation row as dotQ6KAVX2 computes each, two weight rows per
// zmm as in tileQ6KAVX512, each activation chunk loaded once for the four
// rows. a.n must be at least 1.
//
//go:noescape
func gemvQ6KAVX512(a *tileArgs, rows int)

// dotQ4KAVX512 is dotQ4KAVX2 (dotRepackedK for n Q4_K super-blocks) with
// each 64-element chunk in one zmm: its 32 nibble bytes in both halves,
// shifted and masked into the chunk's quants in order, multiplied with
// the 64 activations (vpmaddubsw) and the two sub-blocks' scales
// (vpdpwssd). With gemm the four chunks' sums are reduced together and
// scaled chunk by chunk into [acc, accMin] with fused multiply-adds; without,
// the super-block's sums are scaled with one.
//
//go:noescape
func dotQ4KAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotQ6KAVX512 is dotQ6KAVX2 with two 32-element chunks in each zmm: per
// super-block the halves' eight int32 lanes are added, the block sums'
// term taken off, and each lane scaled by d·x.d with one fused
// multiply-add; the lanes are added as hsum8. gemm is ignored.
//
//go:noescape
func dotQ6KAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotQ5KAVX512 is dotQ5KAVX2 (dotLanesK for n Q5_K super-blocks) with each
// 64-element chunk in one zmm as in dotQ4KAVX512, the fifth bits added from
// qh; the two halves' eight int32 lanes are added per super-block and
// scaled by d·x.d with one fused multiply-add each, the minimums' integer
// sum by -dmin·x.d into a separate accumulator, added after hsum8.
//
//go:noescape
func dotQ5KAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32

// tileQ5K512 computes a tileRowsK×4 tile of Q5_K outputs.
func tileQ5K512(a *tileArgs) { kTile(a, tileRowsK, 4, tileQ5KAVX512) }

// tileQ5KAVX512 computes rows (a multiple of four) × 4 Q5_K outputs as
// dotQ5KAVX512 computes each: eight int32 lanes per output and
// super-block (two weight rows per zmm, each unpacked sub-block serving
// the four activation rows), scaled by d·x.d with one fused multiply-add
// per lane; the minimums' integer sums of the sixteen outputs, one
// vector, scaled by -dmin·x.d into their own accumulators; hsum8 of the
// lanes plus the minimums' sum at the end. a.n must be at least 1.
//
//go:noescape
func tileQ5KAVX512(a *tileArgs, rows int)

// gemvQ5K512 computes gemvRows Q5_K outputs for one activation row.
func gemvQ5K512(a *tileArgs) { kTile(a, gemvRows, 1, gemvQ5KAVX512) }

// gemvQ5KAVX512 computes rows (a multiple of four) Q5_K outputs against
// one activation row as dotQ5KAVX512 computes each, two weight rows per
// zmm as in tileQ5KAVX512, each activation sub-block loaded once for the
// four rows. a.n must be at least 1.
//
//go:noescape
func gemvQ5KAVX512(a *tileArgs, rows int)

// dotQ2KAVX512 is dotQ2KAVX2 (dotRepackedK for n Q2_K super-blocks, chunks
// of 128 with gemm) with each 64 quants in one zmm: the 32 quant bytes of
// a half in both 256-bit halves, shifted per half and masked, multiplied
// with the 64 activations and the four groups' scales (vpdpwssd).
//
//go:noescape
func dotQ2KAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotIQ4XSAVX512 is dotIQ4XSAVX2 (the exact integer sum of each IQ4_XS
// super-block times the rounded d·x.d, added to one float32 sum) with two
// sub-blocks' 64 quants per zmm: the levels are looked up plus 128, so
// that vpdpbusd multiplies them (unsigned) with the activations, each
// sub-block's int32 lanes are scaled with vpmulld, and 128 times the
// scaled activation sums is taken off.
//
//go:noescape
func dotIQ4XSAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotQ3KAVX512 is dotQ3KAVX2 (dotLanesK for n Q3_K super-blocks) with two
// 32-element chunks per zmm: the quants taken as q+4 (unsigned), 4·x
// taken off each pair of products before scaling, the halves' lanes added
// per super-block before the float part.
//
//go:noescape
func dotQ3KAVX512(w *byte, x *q8KBlock, n int, gemm bool) float32
