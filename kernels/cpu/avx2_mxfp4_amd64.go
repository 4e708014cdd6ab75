package cpu

import "saji/kernels/quant"

// addAVX2MXFP4 adds the AVX2 kernel for MXFP4 weights.
func addAVX2MXFP4(k *kernelSet) {
	k.q8[quant.TypeMXFP4] = q8Kernel(func(w *byte, x *q8Block, n int) float32 {
		return dotMXFP4AVX2(w, x, n, &e8m0HalfTable)
	}, 17)
}

// dotMXFP4AVX2 is dot32 for n MXFP4 blocks (17 bytes each) at w: the
// integer dot of each block (the nibbles looked up in quant.FP4Levels with
// vpshufb), converted to float32 and accumulated with one scalar fused
// multiply-add by the product of the scales (the weights' looked up in
// scales, e8m0HalfTable), in block order.
//
//go:noescape
func dotMXFP4AVX2(w *byte, x *q8Block, n int, scales *[256]float32) float32
