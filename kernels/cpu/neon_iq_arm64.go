package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The IQ2 and IQ3 kernels (neon_iq_arm64.s) write, for each of n
// super-blocks at w against the Q8_K blocks at x, the eight int32 lanes of
// dotLanesK (lane l: the scaled products of the elements whose index
// modulo 32 is in [4l, 4l+4)) to lanes[8b:8b+8]. grid is the type's table
// (quant.IQ3SGrid, ...). The *SDOT forms need the dot-product extension;
// the *NEON forms give the same lanes with base NEON.

//go:noescape
func iq3sLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer)

//go:noescape
func iq3xxsLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer)

//go:noescape
func iq2xxsLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer)

//go:noescape
func iq2xsLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer)

//go:noescape
func iq2sLanesSDOT(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer)

//go:noescape
func iq3sLanesNEON(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer)

//go:noescape
func iq3xxsLanesNEON(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer)

//go:noescape
func iq2xxsLanesNEON(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer)

//go:noescape
func iq2xsLanesNEON(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer)

//go:noescape
func iq2sLanesNEON(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer)

// iqLanesFunc is the signature of the lane kernels.
type iqLanesFunc func(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer)

// iqLanesBlocks is how many super-blocks an IQ kernel's lanes are
// gathered for at a time.
const iqLanesBlocks = 16

// addNEONIQ adds the kernels of the IQ2 and IQ3 types, the SDOT forms if
// dot is set.
func addNEONIQ(k *kernelSet, dot bool) {
	kernels := []struct {
		t          quant.Type
		sdot, neon iqLanesFunc
		grid       unsafe.Pointer
	}{
		{quant.TypeIQ3_S, iq3sLanesSDOT, iq3sLanesNEON, unsafe.Pointer(&quant.IQ3SGrid[0])},
		{quant.TypeIQ3_XXS, iq3xxsLanesSDOT, iq3xxsLanesNEON, unsafe.Pointer(&quant.IQ3XXSGrid[0])},
		{quant.TypeIQ2_XXS, iq2xxsLanesSDOT, iq2xxsLanesNEON, unsafe.Pointer(&quant.IQ2XXSGrid[0])},
		{quant.TypeIQ2_XS, iq2xsLanesSDOT, iq2xsLanesNEON, unsafe.Pointer(&quant.IQ2XSGrid[0])},
		{quant.TypeIQ2_S, iq2sLanesSDOT, iq2sLanesNEON, unsafe.Pointer(&quant.IQ2SGrid[0])},
	}
	for _, kk := range kernels {
		lanes := kk.neon
		if dot {
			lanes = kk.sdot
		}
		k.q8K[kk.t] = iqKernelNEON(kk.t, lanes, kk.grid)
	}
}

// iqKernelNEON returns dotK for rows of t: the integer lanes from the
// assembly (lanesFn), each super-block's lanes scaled into the float32 accumulators
// with the oracle's fused multiply-adds, added as hsum8 and multiplied by
// the type's factor.
func iqKernelNEON(t quant.Type, lanesFn iqLanesFunc, grid unsafe.Pointer) func(w []byte, x []q8KBlock, gemm bool) float32 {
	size, scale := t.TypeSize(), quant.GridScale(t)
	return func(w []byte, x []q8KBlock, _ bool) float32 {
		var (
			acc   [8]float32
			lanes [8 * iqLanesBlocks]int32
		)
		if len(x) > 0 {
			_ = w[size*len(x)-1]
		}
		for b0 := 0; b0 < len(x); b0 += iqLanesBlocks {
			n := min(iqLanesBlocks, len(x)-b0)
			lanesFn(&w[size*b0], &x[b0], n, &lanes[0], grid)
			for b := range n {
				d := x[b0+b].d * f16at(w[size*(b0+b):])
				for l := range 8 {
					acc[l] = fma32(d, float32(lanes[8*b+l]), acc[l])
				}
			}
		}
		return scale * hsum8(&acc)
	}
}
