package cpu

import "saji/kernels/quant"

// mxfp4Dot sets *sum to the dot product of n MXFP4 weight blocks (17 bytes
// each at w) with Q8_0 activations, one fused multiply-add per block as
// dot32: the nibbles index tab (quant.FP4Levels) through TBL, the
// exponent bytes scales (e8m0HalfTable). With sdot it uses the
// dot-product extension, otherwise only base Advanced SIMD.
//
//go:noescape
func mxfp4Dot(w *byte, x *q8Block, n int, sum *float32, tab *[16]int8, scales *[256]float32, sdot bool)

// addNEONMXFP4 adds the MXFP4 kernel to k, the SDOT form if dot is set.
func addNEONMXFP4(k *kernelSet, dot bool) {
	k.q8[quant.TypeMXFP4] = func(w []byte, x []q8Block) float32 {
		var sum float32
		if n := len(x); n > 0 {
			_ = w[17*n-1]
			mxfp4Dot(&w[0], &x[0], n, &sum, &quant.FP4Levels, &e8m0HalfTable, dot)
		}
		return sum
	}
}
