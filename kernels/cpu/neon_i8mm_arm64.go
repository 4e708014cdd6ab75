package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The i8mm tile kernels (neon_i8mm_arm64.s) compute a block of outputs at
// once with SMMLA, which multiplies two weight rows' eight quants by two
// activation rows' eight quants into a 2×2 tile of int32 sums. The integer
// sums are exact in any grouping, so SMMLA serves the types whose oracle
// scales one integer sum per block (Q4_0); the float steps keep the
// oracle's order for each output, four outputs to a vector, so every
// output equals the single-row kernels (and the oracle) bit for bit, as
// neon_arm64.go says for those. Types whose oracle keeps eight lanes of
// four-element sums per block (Q8_0, Q6_K) gain nothing from SMMLA, whose
// sums are of eight elements.

// addI8MM adds the i8mm tile kernels to k, over the dotprod set.
func addI8MM(k *kernelSet) {
	k.tiles[quant.TypeQ4_0] = []tileKernel{{mr: 4, nr: 4, fn: tileQ40}}
}

// tileQ40I8MM computes Q4_0 weight rows 0-3 (wstride bytes apart, n >= 1
// blocks each) against Q8_0 activation rows 0-3 (xstride bytes apart) as
// dot32 does each output, and stores output (i, j) at
// res[i8mmSlot(i, j)].
//
//go:noescape
func tileQ40I8MM(w *byte, wstride int, x *q8Block, xstride int, n int, res *[16]float32)

// i8mmSlot is where a 4×4 SMMLA kernel leaves output (weight row i,
// activation row j): the 2×2 tiles of weight pair i/2 by activation pair
// j/2 in the order (0,0), (0,1), (1,0), (1,1), each holding its outputs in
// SMMLA's lane order.
func i8mmSlot(i, j int) int { return 4*(2*(i/2)+j/2) + 2*(i%2) + j%2 }

// tileQ40 computes a 4×4 tile of Q4_0 outputs.
func tileQ40(a *tileArgs) {
	var res [16]float32
	if a.n > 0 {
		tileQ40I8MM(a.w, a.wstride, (*q8Block)(a.x), a.xstride, a.n, &res)
	}
	scatter4x4(a, &res)
}

// scatter4x4 stores a 4×4 kernel's outputs res in the tile a.
func scatter4x4(a *tileArgs, res *[16]float32) {
	for j := range 4 {
		for i := range 4 {
			*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*(j*a.ostride+i))) = res[i8mmSlot(i, j)]
		}
	}
}
