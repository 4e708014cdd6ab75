package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The IQ2 and IQ3 kernels (neon_iq_arm64.s) write, for each of n
// super-blocks at w against the Q8_K blocks at x, the eight int32 lanes of
// dotLanesK (lane l: the scaled products of the elements whose index
// modulo 32 is in [4l, 4l+4)) to lanes[8b:8b+8]. grid is the type's table
// (quant.IQ3SGrid, ...). They need the dot-product extension.

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

// iqLanesBlocks is how many super-blocks an IQ kernel's lanes are
// gathered for at a time.
const iqLanesBlocks = 16

// addNEONIQ adds the SDOT kernels of the IQ2 and IQ3 types.
func addNEONIQ(k *kernelSet) {
	k.q8K[quant.TypeIQ3_S] = iqKernelSDOT(quant.TypeIQ3_S, iq3sLanesSDOT, unsafe.Pointer(&quant.IQ3SGrid[0]))
	k.q8K[quant.TypeIQ3_XXS] = iqKernelSDOT(quant.TypeIQ3_XXS, iq3xxsLanesSDOT, unsafe.Pointer(&quant.IQ3XXSGrid[0]))
	k.q8K[quant.TypeIQ2_XXS] = iqKernelSDOT(quant.TypeIQ2_XXS, iq2xxsLanesSDOT, unsafe.Pointer(&quant.IQ2XXSGrid[0]))
	k.q8K[quant.TypeIQ2_XS] = iqKernelSDOT(quant.TypeIQ2_XS, iq2xsLanesSDOT, unsafe.Pointer(&quant.IQ2XSGrid[0]))
	k.q8K[quant.TypeIQ2_S] = iqKernelSDOT(quant.TypeIQ2_S, iq2sLanesSDOT, unsafe.Pointer(&quant.IQ2SGrid[0]))
}

// iqKernelSDOT returns dotK for rows of t: the integer lanes from the
// assembly, each super-block's lanes scaled into the float32 accumulators
// with the oracle's fused multiply-adds, added as hsum8 and multiplied by
// the type's factor.
func iqKernelSDOT(t quant.Type, lanesFn func(w *byte, x *q8KBlock, n int, lanes *int32, grid unsafe.Pointer), grid unsafe.Pointer) func(w []byte, x []q8KBlock, gemm bool) float32 {
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
