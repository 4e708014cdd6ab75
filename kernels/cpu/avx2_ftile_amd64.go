package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The AVX2 tile kernels for Q8_0 and float weights compute a few weight
// rows against a few activation rows in one call, every output in its own
// registers for the whole row: each weight vector is loaded (for Q8_0 made
// unsigned, for F16/BF16 widened) once for all activation rows, each
// activation vector once for all weight rows, and the eight (Q8_0) or
// twelve (float) independent accumulator chains hide the fused multiply-add latency that bounds the
// single-row kernels. Every output keeps the single-row kernel's integer
// lanes, conversions, products and fused multiply-adds in its order, so it
// equals that kernel (and the oracle: dot32 for Q8_0, dotTiny for the
// float types) bit for bit.

// addAVX2FloatTiles adds the AVX2 tile kernels for Q8_0 and float weights:
// 2×4 for Q8_0 (against Q8_0 activation blocks) and 2×3 for F16, BF16 and
// F32 (against float32 activation rows, a.n values, a multiple of 16: the
// tinyBLAS order the matrix product takes for batches of two rows or
// more; the rows after the last full three go to one more tile over the
// last three, its speed several times the single-row kernel's). The F32
// tiles are registered for the day the matrix product's F32 branch takes
// tiles; it does not yet.
func addAVX2FloatTiles(k *kernelSet) {
	k.tiles[quant.TypeQ8_0] = append(k.tiles[quant.TypeQ8_0], tileKernel{mr: 2, nr: 4, fn: tileQ8_0x2x4AVX2, group: q8TileGroup, scales: q8PairScales})
	k.tiles[quant.TypeF16] = append(k.tiles[quant.TypeF16], tileKernel{mr: 2, nr: 3, fn: tileF16x2x3AVX2, group: floatTileGroup, overlap: true})
	k.tiles[quant.TypeBF16] = append(k.tiles[quant.TypeBF16], tileKernel{mr: 2, nr: 3, fn: tileBF16x2x3AVX2, group: floatTileGroup, overlap: true})
	k.tiles[quant.TypeF32] = append(k.tiles[quant.TypeF32], tileKernel{mr: 2, nr: 3, fn: tileF32x2x3AVX2, group: floatTileGroup, overlap: true})
	k.f16TileH = &tileKernel{mr: 2, nr: 3, fn: tileF16x2x3HAVX2, group: floatTileGroup, overlap: true}
	k.f16TileHCol = 2*2 + 4*3
	k.narrowF16 = func(dst []byte, src []float32) { narrowHalf(dst, src, narrowF16AVX2, 8) }
}

// q8TileGroup is the group of the 256-bit Q8_0 tiles (tileKernel.group):
// per block they read four activation blocks (160 bytes) and two weight
// blocks (68), so sixteen weight rows (35 KB at Llama-3.2-1B's rows of
// 2048) stay in L1 while each four activation rows pass them. Whole matrix
// products of 2048×2048 Q8_0 weights by 128 rows measured 5-7% faster
// than with the activation rows passing each two weight rows
// (BenchmarkVNNIMatMul).
const q8TileGroup = 16

// floatTileGroup is the group of the AVX2 float tiles (tileKernel.group):
// their float32 activation rows are 8 KB at Llama-3.2-1B's 2048, so a
// prompt of 128 rows is 1 MB, a whole L2, and passing them all by each two
// weight rows read them from L3. Passing each three by 32 weight rows
// instead took llama-1b F16 pp128 (SAJI_SIMD=avx2, one thread) from 38-40
// to 46-47 t/s; 16 and 64 rows measured 44-46.
const floatTileGroup = 32

// q8PairScales is tileKernel.scales for the 2×4 Q8_0 tiles on the file's
// layout: rows weight rows at a.w, a.wstride apart, by pairs.
func q8PairScales(a tileArgs, rows int, wd *float32) {
	for p := range rows / 2 {
		dst := (*float32)(unsafe.Add(unsafe.Pointer(wd), 4*2*p*a.n))
		widenScalePairs(dst, (*byte)(unsafe.Add(unsafe.Pointer(a.w), 2*p*a.wstride)), a.wstride, q80Bytes, a.n)
	}
}

// widenScalePairs widens the F16 scales of nb Q8_0 blocks of two weight
// rows into dst, block by block (tileArgs.wd): block b's of row r, at
// w + r·rstep + b·bstep, to dst[2b+r].
//
//go:noescape
func widenScalePairs(dst *float32, w *byte, rstep, bstep, nb int)

// tileQ8_0x2x4AVX2 computes 2×4 Q8_0 outputs (a.n blocks of 34 bytes per
// weight row, q8Block activations) as dotQ8_0AVX2 computes each: eight
// int32 lanes of four products per block, one fused multiply-add per lane
// and block by d_w·d_x (computed as d_x·d_w, the same product), hsum8
// at the end. With no blocks every output is +0.
func tileQ8_0x2x4AVX2(a *tileArgs) { tileQ8_0x2x4StepAVX2(a, a.wstride, q80Bytes, 1) }

// tileQ8_0x2x4StepAVX2 is tileQ8_0x2x4AVX2 for pairs pairs of weight rows
// laid out otherwise: a pair's second row rstep bytes after its first
// (a.wstride is not read), each row's blocks bstep bytes apart, the next
// pair 2·rstep bytes on, its outputs the next two weight rows' (and its
// widened scales, with a.xd set, the next in a.wd's).
//
//go:noescape
func tileQ8_0x2x4StepAVX2(a *tileArgs, rstep, bstep, pairs int)

// tileF16x2x3AVX2 computes 2×3 outputs of F16 weights against float32
// activations (a.n values, a multiple of 16) as dotF16TinyAVX2 computes
// each: sixteen lanes of fused multiply-adds, then reduce16.
//
//go:noescape
func tileF16x2x3AVX2(a *tileArgs)

// tileBF16x2x3AVX2 is tileF16x2x3AVX2 for BF16 weights (widened by a
// 16-bit shift), each output equal to dotBF16TinyAVX2's.
//
//go:noescape
func tileBF16x2x3AVX2(a *tileArgs)

// tileF32x2x3AVX2 is tileF16x2x3AVX2 for F32 weights, each output equal to
// dotF32TinyAVX2's.
//
//go:noescape
func tileF32x2x3AVX2(a *tileArgs)

// tileF16x2x3HAVX2 is tileF16x2x3AVX2 against F16 activations (a.x the
// first of three rows of a.n F16 values, a.xstride bytes apart), widened
// as they are loaded: each output the same bits as tileF16x2x3AVX2's on
// the activations widened first, from half the bytes.
//
//go:noescape
func tileF16x2x3HAVX2(a *tileArgs)

// narrowF16AVX2 writes the first n (a multiple of 8) values of src to dst
// as F16, rounded to the nearest.
//
//go:noescape
func narrowF16AVX2(dst *byte, src *float32, n int)
