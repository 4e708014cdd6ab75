package cpu

import "saji/kernels/quant"

// decodeMXFP4 decodes one MXFP4 block (e, qs[16]) into its 32 doubled E2M1
// levels and the halved E8M0 scale that goes with them (ggml's integer
// form of the format, which its dot products compute with).
func decodeMXFP4(blk []byte, q []int8, d *float32) {
	*d = quant.E8M0Half(blk[0])
	for i, v := range blk[1:17] {
		q[i], q[i+16] = quant.FP4Levels[v&15], quant.FP4Levels[v>>4]
	}
}

// e8m0HalfTable is quant.E8M0Half for every byte, for the SIMD kernels.
var e8m0HalfTable = func() (t [256]float32) {
	for e := range t {
		t[e] = quant.E8M0Half(uint8(e))
	}
	return t
}()
