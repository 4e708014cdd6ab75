package cpu

import "saji/kernels/quant"

// mxfp4DotSDOT sets *sum to the dot product of n MXFP4 weight blocks (17
// bytes each at w) with Q8_0 activations, one fused multiply-add per block
// as dot32: the nibbles index tab (quant.FP4Levels) through TBL, the
// exponent bytes scales (e8m0HalfTable).
//
//go:noescape
func mxfp4DotSDOT(w *byte, x *q8Block, n int, sum *float32, tab *[16]int8, scales *[256]float32)

// mxfp4DotNEON is mxfp4DotSDOT without the dot-product extension.
//
//go:noescape
func mxfp4DotNEON(w *byte, x *q8Block, n int, sum *float32, tab *[16]int8, scales *[256]float32)

// addNEONMXFP4 adds the MXFP4 kernel to k, the SDOT form if dot is set.
func addNEONMXFP4(k *kernelSet, dot bool) {
	k.q8[quant.TypeMXFP4] = func(w []byte, x []q8Block) float32 {
		var sum float32
		n := len(x)
		if n == 0 {
			return 0
		}
		_ = w[17*n-1]
		if dot {
			mxfp4DotSDOT(&w[0], &x[0], n, &sum, &quant.FP4Levels, &e8m0HalfTable)
		} else {
			mxfp4DotNEON(&w[0], &x[0], n, &sum, &quant.FP4Levels, &e8m0HalfTable)
		}
		return sum
	}
}
