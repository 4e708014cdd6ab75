package cpu

import "saji/kernels/quant"

// iq1sDotSDOT accumulates n IQ1_S super-blocks (50 bytes each at w) times
// Q8_K activations as dotLanesK does, with the dot-product extension: the
// eight float lanes in out[:8], the float sum of the shifts' terms in
// out[8]. grid is quant.IQ1SGrid.
//
//go:noescape
func iq1sDotSDOT(w *byte, x *q8KBlock, n int, out *[9]float32, grid *[2048]uint64)

// iq1mDotSDOT accumulates n IQ1_M super-blocks (56 bytes each at w) times
// Q8_K activations as dotIQ1M does, with the dot-product extension: the
// grid products' eight float lanes in out[:8], the shifts' in out[8:].
//
//go:noescape
func iq1mDotSDOT(w *byte, x *q8KBlock, n int, out *[16]float32, grid *[2048]uint64)

// addNEONIQ1 adds the IQ1_S and IQ1_M kernels to k where the CPU has the
// dot-product extension (without it the pure-Go kernels run).
func addNEONIQ1(k *kernelSet, dot bool) {
	if !dot {
		return
	}
	k.q8K[quant.TypeIQ1_S] = func(w []byte, x []q8KBlock, _ bool) float32 {
		var out [9]float32
		if n := len(x); n > 0 {
			_ = w[50*n-1]
			iq1sDotSDOT(&w[0], &x[0], n, &out, &quant.IQ1SGrid)
		}
		lanes := [8]float32(out[:8])
		return hsum8(&lanes) + float32(0.125*out[8])
	}
	k.q8K[quant.TypeIQ1_M] = func(w []byte, x []q8KBlock, _ bool) float32 {
		var out [16]float32
		if n := len(x); n > 0 {
			_ = w[56*n-1]
			iq1mDotSDOT(&w[0], &x[0], n, &out, &quant.IQ1SGrid)
		}
		grid, shifts := [8]float32(out[:8]), [8]float32(out[8:])
		return fma32(hsum8(&shifts), 0.125, hsum8(&grid))
	}
}
