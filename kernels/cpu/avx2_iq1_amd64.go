package cpu

import "saji/kernels/quant"

// addAVX2IQ1 adds the AVX2 kernels for IQ1_S and IQ1_M weights.
func addAVX2IQ1(k *kernelSet) {
	s := func(w *byte, x *q8KBlock, n int, _ bool) float32 { return dotIQ1SAVX2(w, x, n, &quant.IQ1SGrid) }
	m := func(w *byte, x *q8KBlock, n int, _ bool) float32 { return dotIQ1MAVX2(w, x, n, &quant.IQ1SGrid) }
	k.q8K[quant.TypeIQ1_S] = kKernel(s, quant.TypeIQ1_S)
	k.q8K[quant.TypeIQ1_M] = kKernel(m, quant.TypeIQ1_M)
}

// dotIQ1SAVX2 is dotLanesK over n IQ1_S super-blocks at w and n Q8_K
// blocks at x, the grid entries looked up in grid (quant.IQ1SGrid): per
// super-block, eight int32 lanes of the grid values' vpmaddubsw products
// with the activations, scaled by 2s+1 with vpmaddwd, and the integer sum
// of the shifts' terms, each scaled by d_x·d_w with a fused multiply-add;
// hsum8 of the lanes plus 1/8 of the shifts' float sum.
//
//go:noescape
func dotIQ1SAVX2(w *byte, x *q8KBlock, n int, grid *[2048]uint64) float32

// dotIQ1MAVX2 is dotIQ1M over n IQ1_M super-blocks at w and n Q8_K blocks
// at x, the grid entries looked up in grid: per super-block, eight int32
// lanes of the grid values' vpmaddubsw products with the activations and
// eight of the shifts' signs times the activations, both scaled by 2s+1
// with vpmaddwd, each scaled by d_x·d_w with a fused multiply-add into
// float lanes of its own; hsum8 of the first plus 1/8 of the second's,
// fused.
//
//go:noescape
func dotIQ1MAVX2(w *byte, x *q8KBlock, n int, grid *[2048]uint64) float32
