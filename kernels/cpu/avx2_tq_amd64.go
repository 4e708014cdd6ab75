package cpu

import "saji/kernels/quant"

// addAVX2TQ adds the AVX2 kernels for TQ1_0 and TQ2_0 weights.
func addAVX2TQ(k *kernelSet) {
	k.q8K[quant.TypeTQ1_0] = kKernel(dotTQ1AVX2, quant.TypeTQ1_0)
	k.q8K[quant.TypeTQ2_0] = kKernel(dotTQ2AVX2, quant.TypeTQ2_0)
}

// dotTQ2AVX2 is dotTQ over n TQ2_0 super-blocks at w and n Q8_K blocks at
// x: per super-block, the trits' vpmaddubsw products with the activations
// summed in 16-bit lanes, widened to eight int32 lanes (lane l: elements
// whose index modulo 32 is in [4l, 4l+4)) less the sums of activation
// groups 2l and 2l+1, scaled by d_x·d_w with one fused multiply-add per
// lane; the lanes are added as hsum8. gemm is ignored.
//
//go:noescape
func dotTQ2AVX2(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotTQ1AVX2 is dotTQ2AVX2 for TQ1_0 super-blocks, the trits taken out of
// their bytes 16 bits at a time: trit n of byte b is (b·3^n mod 256)·3 >> 8
// (vpmullw, masks and shifts, even and odd bytes apart).
//
//go:noescape
func dotTQ1AVX2(w *byte, x *q8KBlock, n int, gemm bool) float32
