package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// addAVX2K adds the AVX2 kernels for the K-quant weights, IQ4_XS and the
// IQ2 and IQ3 types. Each
// reproduces dotK's float order for its type bit for bit: the integer sums
// are exact, and the per-lane or per-chunk sums, their conversions to
// float32, the products and the fused multiply-adds are the oracle's.
func addAVX2K(k *kernelSet) {
	k.q8K[quant.TypeQ4_K] = kKernel(dotQ4KAVX2, quant.TypeQ4_K)
	k.q8K[quant.TypeQ6_K] = kKernel(dotQ6KAVX2, quant.TypeQ6_K)
	k.q8K[quant.TypeQ5_K] = kKernel(dotQ5KAVX2, quant.TypeQ5_K)
	k.q8K[quant.TypeQ3_K] = kKernel(dotQ3KAVX2, quant.TypeQ3_K)
	k.q8K[quant.TypeQ2_K] = kKernel(dotQ2KAVX2, quant.TypeQ2_K)
	k.q8K[quant.TypeIQ4_XS] = kKernel(dotIQ4XSAVX2, quant.TypeIQ4_XS)
	k.q8K[quant.TypeIQ3_S] = iqKernel(dotIQ3SAVX2, quant.TypeIQ3_S, unsafe.Pointer(&quant.IQ3SGrid[0]))
	k.q8K[quant.TypeIQ3_XXS] = iqKernel(dotIQ3XXSAVX2, quant.TypeIQ3_XXS, unsafe.Pointer(&quant.IQ3XXSGrid[0]))
	k.q8K[quant.TypeIQ2_XXS] = iqKernel(dotIQ2XXSAVX2, quant.TypeIQ2_XXS, unsafe.Pointer(&quant.IQ2XXSGrid[0]))
	k.q8K[quant.TypeIQ2_XS] = iqKernel(dotIQ2XSAVX2, quant.TypeIQ2_XS, unsafe.Pointer(&quant.IQ2XSGrid[0]))
	k.q8K[quant.TypeIQ2_S] = iqKernel(dotIQ2SAVX2, quant.TypeIQ2_S, unsafe.Pointer(&quant.IQ2SGrid[0]))
}

// iqSignMasks holds, for each 7-bit sign field of the IQ2_XXS, IQ2_XS and
// IQ3_XXS formats, the byte mask of its group of 8 (0xff where the
// element is negative), for the assembly kernels.
var iqSignMasks = func() (m [128]uint64) {
	for f := range m {
		s := quant.IQSigns(uint32(f))
		for j := range 8 {
			if s>>j&1 != 0 {
				m[f] |= 0xff << (8 * j)
			}
		}
	}
	return m
}()

// iqKernel wraps an IQ2 or IQ3 assembly kernel of type t, whose grid is
// at grid, as a q8K table entry (kKernel); it passes iqSignMasks too.
func iqKernel(dot func(w *byte, x *q8KBlock, n int, grid, signs unsafe.Pointer) float32, t quant.Type, grid unsafe.Pointer) func(w []byte, x []q8KBlock, gemm bool) float32 {
	signs := unsafe.Pointer(&iqSignMasks[0])
	return kKernel(func(w *byte, x *q8KBlock, n int, _ bool) float32 { return dot(w, x, n, grid, signs) }, t)
}

// kKernel wraps an assembly kernel over n super-blocks of type t as a
// q8K table entry: it checks that the row holds len(x) super-blocks and
// returns +0 for an empty row, as the oracle does.
func kKernel(dot func(w *byte, x *q8KBlock, n int, gemm bool) float32, t quant.Type) func(w []byte, x []q8KBlock, gemm bool) float32 {
	size := t.TypeSize()
	return func(w []byte, x []q8KBlock, gemm bool) float32 {
		if len(x) == 0 {
			return 0
		}
		_ = w[len(x)*size-1]
		return dot(&w[0], &x[0], len(x), gemm)
	}
}

// dotQ6KAVX2 is dotQ6K over n Q6_K super-blocks at w and n Q8_K blocks at
// x: per super-block, eight int32 lanes of vpmaddubsw/vpmaddwd products of
// the unsigned 6-bit quants, less 32 times the scaled block sums, scaled by
// d with one fused multiply-add per lane; the lanes are added as hsum8.
// gemm is ignored, as it is by dotK for the types without repacked
// kernels (also for dotQ5KAVX2 and dotQ3KAVX2).
//
//go:noescape
func dotQ6KAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotQ5KAVX2 is dotLanesK for n Q5_K super-blocks: the lanes as in
// dotQ6KAVX2 on the unsigned 5-bit quants, and the minimums' integer sum
// of each super-block scaled into a separate float32 accumulator with a
// fused multiply-add, added after hsum8.
//
//go:noescape
func dotQ5KAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotQ3KAVX2 is dotLanesK for n Q3_K super-blocks. The quants, -4..3, are
// multiplied as q+4 (unsigned) and 4·x is taken off each pair of products
// before scaling, so each lane holds exactly the oracle's integer.
//
//go:noescape
func dotQ3KAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotQ4KAVX2 is dotRepackedK for n Q4_K super-blocks: the scaled integer
// sums and the minimums' sums of each chunk (the super-block, or with gemm
// each 64 elements) scaled into two float32 accumulators with fused
// multiply-adds, subtracted at the end.
//
//go:noescape
func dotQ4KAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotQ2KAVX2 is dotRepackedK for n Q2_K super-blocks, as dotQ4KAVX2 with
// chunks of 128 elements for gemm.
//
//go:noescape
func dotQ2KAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotIQ4XSAVX2 is dotK for n IQ4_XS super-blocks: the exact integer sum of
// each super-block times the rounded d·x.d, added to one float32 sum. The
// oracle's minimum term is zero for IQ4_XS and, as its sum is never -0,
// leaves the sum unchanged.
//
//go:noescape
func dotIQ4XSAVX2(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotIQ3SAVX2 is dotK for n IQ3_S super-blocks, grid being quant.IQ3SGrid
// and signs iqSignMasks: per super-block, eight int32 lanes of
// vpmaddubsw/vpmaddwd products of the grid magnitudes (looked up one by
// one: a gather is slower on AMD's cores) with the activations (negated
// where the sign bit is set) and the odd scales, scaled by d with one
// fused multiply-add per lane; the lanes are added as hsum8 and multiplied
// by the type's quant.GridScale. The other IQ2 and IQ3 kernels are the
// same for their layouts.
//
//go:noescape
func dotIQ3SAVX2(w *byte, x *q8KBlock, n int, grid, signs unsafe.Pointer) float32

// dotIQ3XXSAVX2 is dotK for n IQ3_XXS super-blocks, grid being
// quant.IQ3XXSGrid.
//
//go:noescape
func dotIQ3XXSAVX2(w *byte, x *q8KBlock, n int, grid, signs unsafe.Pointer) float32

// dotIQ2XXSAVX2 is dotK for n IQ2_XXS super-blocks, grid being
// quant.IQ2XXSGrid.
//
//go:noescape
func dotIQ2XXSAVX2(w *byte, x *q8KBlock, n int, grid, signs unsafe.Pointer) float32

// dotIQ2XSAVX2 is dotK for n IQ2_XS super-blocks, grid being
// quant.IQ2XSGrid.
//
//go:noescape
func dotIQ2XSAVX2(w *byte, x *q8KBlock, n int, grid, signs unsafe.Pointer) float32

// dotIQ2SAVX2 is dotK for n IQ2_S super-blocks, grid being
// quant.IQ2SGrid.
//
//go:noescape
func dotIQ2SAVX2(w *byte, x *q8KBlock, n int, grid, signs unsafe.Pointer) float32
