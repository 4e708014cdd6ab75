package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The AVX-512 float tiles compute 16 weight rows against 6 activation rows
// per call, as four register tiles of 4×6 outputs stacked over the weight
// rows. One zmm holds one output's sixteen lanes, exactly dotTiny's (lane
// l accumulates elements l, l+16, ... with fused multiply-adds, reduce16
// at the end), so every output equals the oracle and the AVX2 kernels bit
// for bit; the 32 registers hold 24 outputs, four weight vectors and one
// activation vector, so each widened weight serves six activation rows and
// each activation load four weight rows. The 16 weight rows stay in L1 and
// L2 while the matrix product passes every block of 6 activation rows by
// them, which measured 25-30% faster than a lone 4×6 tile.
//
// Blocking over k as well (the register tiles taking turns over panels of
// 256 to 2048 values, their lanes kept in memory between panels, which
// keeps each output's order) measured no faster on Llama-3.2-1B's shapes
// (k = 2048 and 8192, 128 activation rows): the 16 weight rows and 6
// activation rows fit L2 whole, and L2 feeds the tiles fast enough.

// zGroups is the number of 4×6 register tiles, stacked over the weight
// rows, in an AVX-512 float tile.
const zGroups = 4

// addAVX512Float adds the AVX-512 float tiles (16×6) for F16, BF16 and
// F32 weights and the single-row dotVec kernels (decode). The single-row
// dotTiny kernels stay AVX2's: one chain of fused multiply-adds bounds
// them whatever the register width. Decode tiles of four weight rows
// against one activation row (each activation vector loaded once for the
// four) were faster alone but slower in two-thread decode of llama-1b F16
// (tg32 0.7-0.9× on the shared machine), and were left out.
func addAVX512Float(k *kernelSet) {
	for _, t := range []quant.Type{quant.TypeF16, quant.TypeBF16, quant.TypeF32} {
		k.tiles[t] = append(k.tiles[t], zFloatTile(t))
	}
	k.f16Vec, k.bf16Vec, k.f32Vec = f16VecAVX512, bf16VecAVX512, f32VecAVX512
	k.f16Body, k.bf16Body = dotF16VecAVX512, dotBF16VecAVX512
	k.f16Rows, k.bf16Rows = dotF16RowsAVX512, dotBF16RowsAVX512
	// AVX2's F16-activation rows kernel (f16RowsH) measured no faster
	// than these rows kernels, whose activation loads are their fused
	// multiply-adds' operands: llama-1b F16 tg64 10.3 -> 10.2 t/s at one
	// thread and 20.3 -> 20.5 at two (five alternating rounds each).
	k.f16RowsH = nil
	k.f16Body4 = dotF16Vec4AVX512
	k.f16Body6, k.narrowF16 = dotF16Vec2x3AVX512, narrowF16
	k.f16TileH = &tileKernel{mr: 4 * zGroups, nr: 6, fn: zTileH, overlap: true,
		short: &tileKernel{mr: 4 * zGroups, nr: 5, fn: zTileH5}}
	k.f16TileHCol = 2*4 + 4*6
}

// narrowF16 sets dst to src's values as F16 (two bytes each), rounded to
// the nearest.
func narrowF16(dst []byte, src []float32) { narrowHalf(dst, src, narrowF16AVX512, 16) }

// narrowHalf sets dst to src's values as F16, rounded to the nearest: the
// first values in multiples of lanes by kern, the rest one by one.
func narrowHalf(dst []byte, src []float32, kern func(dst *byte, src *float32, n int), lanes int) {
	n := len(src) / lanes * lanes
	_ = dst[2*len(src)-1]
	if n > 0 {
		kern(&dst[0], &src[0], n)
	}
	for i := n; i < len(src); i++ {
		h := quant.F32ToF16(src[i])
		dst[2*i], dst[2*i+1] = byte(h), byte(h>>8)
	}
}

// f16VecAVX512 is dotVec(widen(w), x, true) for F16 weights.
func f16VecAVX512(w []byte, x []float32) float32 {
	return halfVec(w, x, dotF16VecAVX512, quant.F16ToF32)
}

// bf16VecAVX512 is dotVec(widen(w), x, true) for BF16 weights.
func bf16VecAVX512(w []byte, x []float32) float32 {
	return halfVec(w, x, dotBF16VecAVX512, quant.BF16ToF32)
}

// f32VecAVX512 is dotVec(w, x, false).
func f32VecAVX512(w, x []float32) float32 { return f32VecAsm(w, x, dotF32VecAVX512) }

// dotF16VecAVX512 returns dotVec's sum of the first n (a multiple of 64)
// products of F16 weights at w and x, before its tail: four accumulators
// of sixteen lanes, combined and reduced as dotVec does.
//
//go:noescape
func dotF16VecAVX512(w *byte, x *float32, n int) float32

// dotF16RowsAVX512 sets out[r] to dotF16VecAVX512 of weight row r (at w
// + r·wstride) and x for r < rows (rows > 0): decode's weight rows in one
// call, read as one stream, not a Go call a row (6% of llama-1b F16's
// decode samples went to the calls around each row's kernel).
//
//go:noescape
func dotF16RowsAVX512(w *byte, wstride int, x *float32, n int, out *float32, rows int)

// dotBF16RowsAVX512 is dotF16RowsAVX512 for BF16 weights.
//
//go:noescape
func dotBF16RowsAVX512(w *byte, wstride int, x *float32, n int, out *float32, rows int)

// dotF16Vec4AVX512 is dotF16VecAVX512 for four activation rows, at x
// and xstride bytes apart, against one weight row, each in its own four
// accumulators: out[r] is row r's sum, the same bits as its own call.
//
//go:noescape
func dotF16Vec4AVX512(w *byte, x *float32, xstride, n int, out *[4]float32)

// dotF16Vec2x3AVX512 is dotF16VecAVX512 for two weight rows, at w and
// wstride bytes apart, against three F16 activation rows, at x and
// xstride bytes apart, each output in its own four accumulators: out[3r+c]
// is weight row r's sum with activation row c, the same bits as its own
// call. Each widened weight vector serves three rows and each widened
// activation vector two; F16 activations halve their traffic from L2,
// which bounded the F32 ones (1.9 times the float tiles' time per
// multiply-add on Qwen2.5-VL's ffn_down).
//
//go:noescape
func dotF16Vec2x3AVX512(w *byte, wstride int, x *byte, xstride, n int, out *[6]float32)

// narrowF16AVX512 writes the first n (a multiple of 16) values of src to
// dst as F16, rounded to the nearest.
//
//go:noescape
func narrowF16AVX512(dst *byte, src *float32, n int)

// dotBF16VecAVX512 is dotF16VecAVX512 for BF16 weights.
//
//go:noescape
func dotBF16VecAVX512(w *byte, x *float32, n int) float32

// dotF32VecAVX512 is dotF16VecAVX512 for F32 weights.
//
//go:noescape
func dotF32VecAVX512(w *float32, x *float32, n int) float32

// zFloatTile returns the AVX-512 float tile for weights of type t (F16,
// BF16 or F32), with its 16×5 tile for the blocks of five rows.
func zFloatTile(t quant.Type) tileKernel {
	six, five := zF32, zF32x5
	switch t {
	case quant.TypeF16:
		six, five = zF16, zF16x5
	case quant.TypeBF16:
		six, five = zBF16, zBF16x5
	}
	return tileKernel{mr: 4 * zGroups, nr: 6, fn: func(a *tileArgs) { zTile(a, six) }, overlap: true,
		short: &tileKernel{mr: 4 * zGroups, nr: 5, fn: func(a *tileArgs) { zTile(a, five) }}}
}

// zTileH is zTile for F16 weights against F16 activations.
func zTileH(a *tileArgs) { zTile(a, zF16H) }

// zTileH5 is zTileH for five activation rows.
func zTileH5(a *tileArgs) { zTile(a, zF16Hx5) }

// zKernel names a register tile kernel of four weight rows.
type zKernel int

const (
	zF16    zKernel = iota // tileF16x4x6AVX512
	zF16H                  // tileF16x4x6HAVX512
	zBF16                  // tileBF16x4x6AVX512
	zF32                   // tileF32x4x6AVX512
	zF16x5                 // tileF16x4x5AVX512
	zF16Hx5                // tileF16x4x5HAVX512
	zBF16x5                // tileBF16x4x5AVX512
	zF32x5                 // tileF32x4x5AVX512
)

// zTile computes the 4·zGroups weight rows of a tile, four at a time by
// the register tile k (called directly, so that its arguments stay on the
// stack).
func zTile(a *tileArgs, k zKernel) {
	sub := *a
	for g := range zGroups {
		sub.w = (*byte)(unsafe.Add(unsafe.Pointer(a.w), 4*g*a.wstride))
		sub.out = (*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*4*g))
		switch k {
		case zF16:
			tileF16x4x6AVX512(&sub)
		case zF16H:
			tileF16x4x6HAVX512(&sub)
		case zBF16:
			tileBF16x4x6AVX512(&sub)
		case zF32:
			tileF32x4x6AVX512(&sub)
		case zF16x5:
			tileF16x4x5AVX512(&sub)
		case zF16Hx5:
			tileF16x4x5HAVX512(&sub)
		case zBF16x5:
			tileBF16x4x5AVX512(&sub)
		default:
			tileF32x4x5AVX512(&sub)
		}
	}
}

// tileF16x4x6AVX512 computes 4×6 outputs of F16 weights against float32
// activations (a.n values, a multiple of 16) as dotTiny computes each:
// sixteen lanes of fused multiply-adds, then reduce16.
//
//go:noescape
func tileF16x4x6AVX512(a *tileArgs)

// tileF16x4x6HAVX512 is tileF16x4x6AVX512 for F16 activations (a.x,
// a.xstride bytes apart): the same values, widened as they are loaded, in
// half the bytes, so that a register tile's four weight rows and six
// activation rows fit L1 for rows of 2048.
//
//go:noescape
func tileF16x4x6HAVX512(a *tileArgs)

// tileF16x4x5AVX512 is tileF16x4x6AVX512 for five activation rows.
//
//go:noescape
func tileF16x4x5AVX512(a *tileArgs)

// tileF16x4x5HAVX512 is tileF16x4x6HAVX512 for five activation rows.
//
//go:noescape
func tileF16x4x5HAVX512(a *tileArgs)

// tileBF16x4x5AVX512 is tileBF16x4x6AVX512 for five activation rows.
//
//go:noescape
func tileBF16x4x5AVX512(a *tileArgs)

// tileF32x4x5AVX512 is tileF32x4x6AVX512 for five activation rows.
//
//go:noescape
func tileF32x4x5AVX512(a *tileArgs)

// tileBF16x4x6AVX512 is tileF16x4x6AVX512 for BF16 weights.
//
//go:noescape
func tileBF16x4x6AVX512(a *tileArgs)

// tileF32x4x6AVX512 is tileF16x4x6AVX512 for F32 weights.
//
//go:noescape
func tileF32x4x6AVX512(a *tileArgs)
