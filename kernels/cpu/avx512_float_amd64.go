package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The AVX-512 float tiles compute 16 weight rows against 6 activation rows
// per call, as four register tiles of 4×6 outputs. One zmm holds one
// output's sixteen lanes, exactly dotTiny's (lane l accumulates elements
// l, l+16, ... with fused multiply-adds, reduce16 at the end), so every
// output equals the oracle and the AVX2 kernels bit for bit; the 32
// registers hold 24 outputs, four weight vectors and one activation
// vector, so each widened weight serves six activation rows and each
// activation load four weight rows.
//
// The row is cut into panels of zPanel values (k-blocking): the four
// register tiles run over one panel in turn, their lanes kept in memory
// between panels and reduced once after the last, which leaves each
// output's order unchanged. A panel of the six activation rows (12 KiB)
// then stays in L1 for the 16 weight rows, and the 16 weight rows (a
// panel of them 16 KiB for F16) stay in L1 and L2 while the matrix
// product passes every activation row by them.

// zPanel is the number of values per row that the register tiles of an
// AVX-512 float tile run over before the next tile takes its turn: a
// multiple of 16.
const zPanel = 512

// zGroups is the number of 4×6 register tiles, stacked over the weight
// rows, in an AVX-512 float tile.
const zGroups = 4

// addAVX512Float adds the AVX-512 float tiles (16×6) for F16, BF16 and
// F32 weights, the single-row dotVec kernels and the decode tiles (4×1,
// dotVec's order). The single-row dotTiny kernels stay AVX2's: one chain
// of fused multiply-adds bounds them whatever the register width.
func addAVX512Float(k *kernelSet) {
	for _, t := range []quant.Type{quant.TypeF16, quant.TypeBF16, quant.TypeF32} {
		k.tiles[t] = append(k.tiles[t], zFloatTile(t))
	}
	k.f16Vec, k.bf16Vec, k.f32Vec = f16VecAVX512, bf16VecAVX512, f32VecAVX512
	for _, t := range []quant.Type{quant.TypeF16, quant.TypeBF16, quant.TypeF32} {
		k.vecTiles[t] = zVecTile(t)
	}
}

// zVecTile returns the AVX-512 decode tile for weights of type t (F16,
// BF16 or F32): four weight rows against one activation row, each output
// as the single-row dotVec kernel computes it.
func zVecTile(t quant.Type) tileKernel {
	return tileKernel{mr: 4, nr: 1, fn: func(a *tileArgs) { zVec(a, t) }}
}

// zVec computes four outputs of t's weights against one activation row
// (a.n values) in dotVec's order. Rows with a tail after the last 64
// values (which dotVec sums one by one) go to the single-row kernels.
func zVec(a *tileArgs, t quant.Type) {
	x := (*float32)(a.x)
	if a.n%64 == 0 {
		switch t {
		case quant.TypeF16:
			gemvF16x4AVX512(a.w, a.wstride, x, a.n, a.out)
		case quant.TypeBF16:
			gemvBF16x4AVX512(a.w, a.wstride, x, a.n, a.out)
		default:
			gemvF32x4AVX512(a.w, a.wstride, x, a.n, a.out)
		}
		return
	}
	xs := unsafe.Slice(x, a.n)
	out := unsafe.Slice(a.out, 4)
	for r := range out {
		w := unsafe.Add(unsafe.Pointer(a.w), r*a.wstride)
		switch t {
		case quant.TypeF16:
			out[r] = f16VecAVX512(unsafe.Slice((*byte)(w), 2*a.n), xs)
		case quant.TypeBF16:
			out[r] = bf16VecAVX512(unsafe.Slice((*byte)(w), 2*a.n), xs)
		default:
			out[r] = f32VecAVX512(unsafe.Slice((*float32)(w), a.n), xs)
		}
	}
}

// gemvF16x4AVX512 sets out[0..3] to dotVec's sums (no tail: n is a
// multiple of 64) of the four F16 weight rows at w, wstride bytes apart,
// against x.
//
//go:noescape
func gemvF16x4AVX512(w *byte, wstride int, x *float32, n int, out *float32)

// gemvBF16x4AVX512 is gemvF16x4AVX512 for BF16 weights.
//
//go:noescape
func gemvBF16x4AVX512(w *byte, wstride int, x *float32, n int, out *float32)

// gemvF32x4AVX512 is gemvF16x4AVX512 for F32 weights.
//
//go:noescape
func gemvF32x4AVX512(w *byte, wstride int, x *float32, n int, out *float32)

// f16VecAVX512 is dotVec(widen(w), x, true) for F16 weights.
func f16VecAVX512(w []byte, x []float32) float32 {
	return halfVec(w, x, dotF16VecAVX512, quant.F16ToF32)
}

// bf16VecAVX512 is dotVec(widen(w), x, true) for BF16 weights.
func bf16VecAVX512(w []byte, x []float32) float32 {
	return halfVec(w, x, dotBF16VecAVX512, quant.BF16ToF32)
}

// f32VecAVX512 is dotVec(w, x, false).
func f32VecAVX512(w, x []float32) float32 {
	n := len(x)
	if n == 0 {
		return 0
	}
	_ = w[n-1]
	np := n &^ 63
	sum := dotF32VecAVX512(&w[0], &x[0], np)
	for i := np; i < n; i++ {
		sum = fma32(w[i], x[i], sum)
	}
	return sum
}

// dotF16VecAVX512 returns dotVec's sum of the first n (a multiple of 64)
// products of F16 weights at w and x, before its tail: four accumulators
// of sixteen lanes, combined and reduced as dotVec does.
//
//go:noescape
func dotF16VecAVX512(w *byte, x *float32, n int) float32

// dotBF16VecAVX512 is dotF16VecAVX512 for BF16 weights.
//
//go:noescape
func dotBF16VecAVX512(w *byte, x *float32, n int) float32

// dotF32VecAVX512 is dotF16VecAVX512 for F32 weights.
//
//go:noescape
func dotF32VecAVX512(w *float32, x *float32, n int) float32

// zFloatTile returns the AVX-512 float tile for weights of type t (F16,
// BF16 or F32).
func zFloatTile(t quant.Type) tileKernel {
	fn := func(a *tileArgs) { zTile(a, t) }
	return tileKernel{mr: 4 * zGroups, nr: 6, fn: fn, overlap: true}
}

// zTile computes the 4·zGroups × 6 outputs of a tile of t's weights
// against float32 activations (a.n values, a multiple of 16), panel by
// panel.
func zTile(a *tileArgs, t quant.Type) {
	size := 2
	if t == quant.TypeF32 {
		size = 4
	}
	var acc [zGroups][384]float32
	sub := *a
	for p := 0; ; p += zPanel {
		sub.n = min(zPanel, a.n-p)
		flags := 0
		if p > 0 {
			flags |= zContinue
		}
		if p+sub.n >= a.n {
			flags |= zFinal
		}
		sub.x = unsafe.Add(a.x, 4*p)
		for g := range zGroups {
			sub.w = (*byte)(unsafe.Add(unsafe.Pointer(a.w), 4*g*a.wstride+p*size))
			sub.out = (*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*4*g))
			switch t {
			case quant.TypeF16:
				tileF16x4x6AVX512(&sub, &acc[g], flags)
			case quant.TypeBF16:
				tileBF16x4x6AVX512(&sub, &acc[g], flags)
			default:
				tileF32x4x6AVX512(&sub, &acc[g], flags)
			}
		}
		if flags&zFinal != 0 {
			return
		}
	}
}

// The flags of the 4×6 register tiles.
const (
	zContinue = 1 // continue the lanes in acc (else start from zero)
	zFinal    = 2 // reduce the lanes and store the outputs (else store the lanes in acc)
)

// tileF16x4x6AVX512 accumulates 4×6 outputs of F16 weights against
// float32 activations over a.n values (a multiple of 16), sixteen lanes
// per output in dotTiny's order, starting from zero or from acc (flags
// zContinue) and ending in acc or, reduced, in the outputs (zFinal).
// Output (i, j)'s lanes are acc[16·(6i+j):].
//
//go:noescape
func tileF16x4x6AVX512(a *tileArgs, acc *[384]float32, flags int)

// tileBF16x4x6AVX512 is tileF16x4x6AVX512 for BF16 weights.
//
//go:noescape
func tileBF16x4x6AVX512(a *tileArgs, acc *[384]float32, flags int)

// tileF32x4x6AVX512 is tileF16x4x6AVX512 for F32 weights.
//
//go:noescape
func tileF32x4x6AVX512(a *tileArgs, acc *[384]float32, flags int)
