package cpu

import "saji/kernels/quant"

// tq2DotSDOT accumulates n TQ2_0 super-blocks (66 bytes each at w) times
// Q8_K activations into eight float lanes as dotTQ does, with the
// dot-product extension.
//
//go:noescape
func tq2DotSDOT(w *byte, x *q8KBlock, n int, acc *[8]float32)

// tq1DotSDOT is tq2DotSDOT for TQ1_0 super-blocks (54 bytes each); qhmul
// is tq1QhMul.
//
//go:noescape
func tq1DotSDOT(w *byte, x *q8KBlock, n int, acc *[8]float32, qhmul *[16]byte)

// tq1QhMul holds the powers of 3 that bring each trit of TQ1_0's four qh
// bytes, replicated four times, to the top of its byte.
var tq1QhMul = [16]byte{1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27}

// addNEONTQ adds the TQ1_0 and TQ2_0 kernels to k where the CPU has the
// dot-product extension (without it the pure-Go kernels run).
func addNEONTQ(k *kernelSet, dot bool) {
	if !dot {
		return
	}
	k.q8K[quant.TypeTQ1_0] = func(w []byte, x []q8KBlock, _ bool) float32 {
		var acc [8]float32
		if n := len(x); n > 0 {
			_ = w[54*n-1]
			tq1DotSDOT(&w[0], &x[0], n, &acc, &tq1QhMul)
		}
		return hsum8(&acc)
	}
	k.q8K[quant.TypeTQ2_0] = func(w []byte, x []q8KBlock, _ bool) float32 {
		var acc [8]float32
		if n := len(x); n > 0 {
			_ = w[66*n-1]
			tq2DotSDOT(&w[0], &x[0], n, &acc)
		}
		return hsum8(&acc)
	}
}
