package cpu

import "saji/kernels/quant"

// iq3sLanesSDOT writes, for each of n IQ3_S super-blocks at w (110 bytes
// each) against the Q8_K blocks at x, the eight int32 lanes of dotLanesK
// (lane l: the scaled products of the elements whose index modulo 32 is in
// [4l, 4l+4)) to lanes[8b:8b+8]. grid is quant.IQ3SGrid. It needs the
// dot-product extension.
//
//go:noescape
func iq3sLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid *uint32)

// iqLanesBlocks is how many super-blocks an IQ kernel's lanes are
// gathered for at a time.
const iqLanesBlocks = 16

// iq3sKernelSDOT is dotK for IQ3_S rows: the integer lanes from the
// assembly, each super-block's lanes scaled into the float32 accumulators
// with the oracle's fused multiply-adds, then added as hsum8.
func iq3sKernelSDOT(w []byte, x []q8KBlock, _ bool) float32 {
	const size = 110
	var (
		acc   [8]float32
		lanes [8 * iqLanesBlocks]int32
	)
	if len(x) > 0 {
		_ = w[size*len(x)-1]
	}
	for b0 := 0; b0 < len(x); b0 += iqLanesBlocks {
		n := min(iqLanesBlocks, len(x)-b0)
		iq3sLanesSDOT(&w[size*b0], &x[b0], n, &lanes[0], &quant.IQ3SGrid[0])
		for b := range n {
			d := x[b0+b].d * f16at(w[size*(b0+b):])
			for l := range 8 {
				acc[l] = fma32(d, float32(lanes[8*b+l]), acc[l])
			}
		}
	}
	return quant.GridScale(quant.TypeIQ3_S) * hsum8(&acc)
}
