package cpu

import "saji/kernels/quant"

// tq2DotSDOT accumulates n TQ2_0 super-blocks (66 bytes each at w) times
// Q8_K activations into eight float lanes as dotTQ does, with the
// dot-product extension.
//
//go:noescape
func tq2DotSDOT(w *byte, x *q8KBlock, n int, acc *[8]float32)

// addNEONTQ adds the TQ2_0 kernel to k where the CPU has the dot-product
// extension (without it the pure-Go kernel runs).
func addNEONTQ(k *kernelSet, dot bool) {
	if !dot {
		return
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
