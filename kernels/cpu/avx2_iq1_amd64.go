package cpu

import "saji/kernels/quant"

// addAVX2IQ1 adds the AVX2 kernel for IQ1_S weights.
func addAVX2IQ1(k *kernelSet) {
	dot := func(w *byte, x *q8KBlock, n int, _ bool) float32 { return dotIQ1SAVX2(w, x, n, &quant.IQ1SGrid) }
	k.q8K[quant.TypeIQ1_S] = kKernel(dot, quant.TypeIQ1_S)
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
