package cpu

import "saji/kernels/quant"

// The AVX-512 VNNI kernels for 32-block weights against Q8_0 activations
// use 512-bit registers without changing any output's arithmetic, so every
// output equals the AVX2 kernel's, and the oracle's (dot32), bit for bit.
// VPDPBUSD gives the sum of four byte products in one instruction; its
// operands are unsigned by signed bytes, so one side is offset (by 128,
// or for Q4_0 taken as its unsigned nibbles, offset 8) and the offset
// times the other side's sums taken off, which keeps every integer sum
// exact.
//
// Q8_0 (whose oracle keeps eight float lanes per output): each zmm holds
// two outputs, one per 256-bit half, and each half does for its output
// exactly what the AVX2 kernel's ymm does (eight int32 lanes of four
// products per block, one fused multiply-add per lane by d_w·d_x, hsum8
// at the end).
//
// Q4_0, IQ4_NL, Q4_1, Q5_0 and Q5_1 (whose oracle takes one integer dot
// per block and one fused multiply-add, or for the last three the unfused
// d and m terms): each zmm lane holds one output, sixteen weight
// rows to a register, their quants transposed per block so that eight
// VPDPBUSD against the activation's dwords (broadcast from memory) give
// each lane its block's whole integer dot.

// addAVX512Q8 adds the AVX-512 VNNI tiles for Q8_0 weights (4×9 and 4×8
// for prompts, 4×2 to 4×7 for small batches and the rows after the last
// tile, and 4×8 over the set's four-row layout) and for Q4_0, IQ4_NL,
// Q4_1, Q5_0 and Q5_1 weights (16×8 and 16×1). The AVX2 tiles stay for
// batches too small for the new ones; the single-row kernels stay AVX2's
// (they finish the tiles' edges).
//
// Q8_0 decode keeps the 256-bit kernels of the set below (AVX-VNNI's where
// the CPU has it, else AVX2's), in the four-row layout (rows of up to
// q80InterleaveCols values) and in the file's. Decode reads each weight
// byte once, so memory sets its pace, and the zmm decode kernel this set
// had (two rows to a register, over eight rows interleaved block by block
// and over the file's layout) read llama-1b Q8_0 at one thread 10-20%
// slower: 15.6-18.7 t/s against 18.1-20.0 (medians of three alternating
// runs), and at two threads 28.2 against 30.9. The 4×8 prompt tile reads
// the four-row layout within the noise of the eight-row one (pp128 at one
// thread 114.9 against 114.4 and 116.0 against 121.7, at two 222 against
// 225).
func addAVX512Q8(k *kernelSet) {
	for _, tk := range []tileKernel{
		{mr: 4, nr: 9, fn: tileQ8_0x4x9AVX512},
		{mr: 4, nr: 8, fn: tileQ8_0x4x8AVX512},
		{mr: 4, nr: 7, fn: tileQ8_0x4x7AVX512},
		{mr: 4, nr: 6, fn: tileQ8_0x4x6AVX512},
		{mr: 4, nr: 5, fn: tileQ8_0x4x5AVX512},
		{mr: 4, nr: 4, fn: tileQ8_0x4x4AVX512},
		{mr: 4, nr: 3, fn: tileQ8_0x4x3AVX512},
		{mr: 4, nr: 2, fn: tileQ8_0x4x2AVX512},
	} {
		setTile(k, quant.TypeQ8_0, tk)
	}
	// The four-row layout of the set below, with its decode kernel, and
	// the 4×8 tile for prompts.
	if packed, ok := k.packed[quant.TypeQ8_0]; ok {
		packed.tile, packed.tileRows, packed.tileGroup, packed.tileScales = tilePackedQ80Z, 8, 0, nil
		k.packed[quant.TypeQ8_0] = packed
	}
	k.tiles[quant.TypeQ4_0] = append(k.tiles[quant.TypeQ4_0], q4Tiles(tileQ4_0x16x8AVX512, gemvQ4_0x16AVX512, &q4Lut, q4Off)...)
	k.tiles[quant.TypeIQ4_NL] = append(k.tiles[quant.TypeIQ4_NL], q4Tiles(tileIQ4NLx16x8AVX512, gemvIQ4NLx16AVX512, &iq4Lut, iq4Off)...)
	k.tiles[quant.TypeQ4_1] = append(k.tiles[quant.TypeQ4_1],
		tileKernel{mr: 16, nr: 8, fn: func(a *tileArgs) { tileQ4_1x16x8AVX512(a, &q4Lut) }},
		tileKernel{mr: 16, nr: 1, fn: func(a *tileArgs) { gemvQ4_1x16AVX512(a, &q4Lut) }})
	k.tiles[quant.TypeQ5_1] = append(k.tiles[quant.TypeQ5_1],
		tileKernel{mr: 16, nr: 8, fn: func(a *tileArgs) { tileQ5_1x16x8AVX512(a, &q4Lut) }},
		tileKernel{mr: 16, nr: 1, fn: func(a *tileArgs) { gemvQ5_1x16AVX512(a, &q4Lut) }})
	k.tiles[quant.TypeQ5_0] = append(k.tiles[quant.TypeQ5_0], q4Tiles(tileQ5_0x16x8AVX512, gemvQ5_0x16AVX512, &q4Lut, q5Off)...)
}

// tilePackedQ80Z computes a group's four Q8_0 rows against eight
// activation rows as tileQ8_0x4x8AVX512 does, from weights interleaved by
// four rows: a.w the group, a.wstride a row's bytes. It prefetches the
// next group's bytes, as the file layout's tile prefetches the next four
// rows, so that a group's first pass does not wait on memory.
func tilePackedQ80Z(a *tileArgs) {
	p := *a
	p.wstride = q80Bytes
	group := interleaveRows * q80Bytes
	tileQ8_0x4x8StepAVX512(&p, group, group*a.n, group)
}

// tileQ8_0x4x8AVX512 computes 4×8 Q8_0 outputs (a.n blocks of 34 bytes
// per weight row, q8Block activations) as dotQ8_0AVX2 computes each, two
// weight rows to a zmm. With no blocks every output is +0.
func tileQ8_0x4x8AVX512(a *tileArgs) { tileQ8_0x4x8StepAVX512(a, q80Bytes, 4*a.wstride, 4*q80Bytes) }

// tileQ8_0x4x8StepAVX512 is tileQ8_0x4x8AVX512 with each row's blocks
// bstep bytes apart, prefetching the bytes from pahead on (from row 0's
// first block), pstep bytes a block.
//
//go:noescape
func tileQ8_0x4x8StepAVX512(a *tileArgs, bstep, pahead, pstep int)

// tileQ8_0x4xCAVX512, C = 2..7 and 9, are tileQ8_0x4x8AVX512 for 4×C
// outputs: a batch of up to nine activation rows in one call per four
// weight rows, and a longer batch's rows after its last full tile in one
// more, while those weight rows are in cache.
//
//go:noescape
func tileQ8_0x4x2AVX512(a *tileArgs)

//go:noescape
func tileQ8_0x4x3AVX512(a *tileArgs)

//go:noescape
func tileQ8_0x4x4AVX512(a *tileArgs)

//go:noescape
func tileQ8_0x4x5AVX512(a *tileArgs)

//go:noescape
func tileQ8_0x4x6AVX512(a *tileArgs)

//go:noescape
func tileQ8_0x4x7AVX512(a *tileArgs)

//go:noescape
func tileQ8_0x4x9AVX512(a *tileArgs)

// q4Lut and iq4Lut are the unsigned levels the Q4_0 and IQ4_NL tiles look
// their nibbles up in: q+8 for Q4_0 (the nibble itself) and level+128 for
// IQ4_NL (iq4Levels), so that the signed quant is u - q4Off (iq4Off).
var q4Lut, iq4Lut = func() (q, iq [16]byte) {
	for n := range q {
		q[n] = byte(n)
		iq[n] = byte(int(iq4Levels[n]) + 128)
	}
	return q, iq
}()

// The offsets of q4Lut and iq4Lut, and of Q5_0's five-bit quants.
const (
	q4Off  = 8
	iq4Off = 128
	q5Off  = 16
)

// q4Tiles returns the AVX-512 tiles for Q4_0 or IQ4_NL weights: tile
// (16×8, for prompts) and gemv (16×1, for decode), their nibbles' levels
// offset by off (and, for IQ4_NL, looked up in lut).
func q4Tiles(tile, gemv func(a *tileArgs, lut *[16]byte, off uint32), lut *[16]byte, off uint32) []tileKernel {
	return []tileKernel{
		{mr: 16, nr: 8, fn: func(a *tileArgs) { tile(a, lut, off) }},
		{mr: 16, nr: 1, fn: func(a *tileArgs) { gemv(a, lut, off) }},
	}
}

// tileQ4_0x16x8AVX512 computes 16×8 outputs of Q4_0 weights (a.n blocks
// of 18 bytes per weight row, q8Block activations), the nibbles taken as
// unsigned levels offset by off (lut unused), each as dot32 computes it:
// the exact integer dot of each block, converted to float32 and
// accumulated with one fused multiply-add by d_w·d_x, in block order.
// With no blocks every output is +0.
//
//go:noescape
func tileQ4_0x16x8AVX512(a *tileArgs, lut *[16]byte, off uint32)

// tileIQ4NLx16x8AVX512 is tileQ4_0x16x8AVX512 for IQ4_NL weights, the
// nibbles looked up in lut (levels offset by off).
//
//go:noescape
func tileIQ4NLx16x8AVX512(a *tileArgs, lut *[16]byte, off uint32)

// gemvQ4_0x16AVX512 is tileQ4_0x16x8AVX512 for one activation row: 16
// outputs.
//
//go:noescape
func gemvQ4_0x16AVX512(a *tileArgs, lut *[16]byte, off uint32)

// gemvIQ4NLx16AVX512 is tileIQ4NLx16x8AVX512 for one activation row.
//
//go:noescape
func gemvIQ4NLx16AVX512(a *tileArgs, lut *[16]byte, off uint32)

// tileQ4_1x16x8AVX512 computes 16×8 outputs of Q4_1 weights (a.n blocks of
// 20 bytes per weight row, Q8_1 activations) as dot32 computes each: the
// exact integer dot of each block, then sum += float32(dot)·(d_w·d_x) +
// m_w·s_x, each operation rounded apart, in block order. lut is any valid
// table (the setup loads one; the nibbles need none). With no blocks
// every output is +0.
//
//go:noescape
func tileQ4_1x16x8AVX512(a *tileArgs, lut *[16]byte)

// gemvQ4_1x16AVX512 is tileQ4_1x16x8AVX512 for one activation row: 16
// outputs.
//
//go:noescape
func gemvQ4_1x16AVX512(a *tileArgs, lut *[16]byte)

// tileQ5_1x16x8AVX512 is tileQ4_1x16x8AVX512 for Q5_1 weights (24-byte
// blocks: d, m, the fifth bits, the nibbles).
//
//go:noescape
func tileQ5_1x16x8AVX512(a *tileArgs, lut *[16]byte)

// gemvQ5_1x16AVX512 is tileQ5_1x16x8AVX512 for one activation row.
//
//go:noescape
func gemvQ5_1x16AVX512(a *tileArgs, lut *[16]byte)

// tileQ5_0x16x8AVX512 computes 16×8 outputs of Q5_0 weights (22-byte
// blocks: d, the fifth bits, the nibbles; the unsigned quants offset by
// off) in dot32's generic order, as tileQ4_1x16x8AVX512 does with a zero
// minimum. lut is any valid table.
//
//go:noescape
func tileQ5_0x16x8AVX512(a *tileArgs, lut *[16]byte, off uint32)

// gemvQ5_0x16AVX512 is tileQ5_0x16x8AVX512 for one activation row.
//
//go:noescape
func gemvQ5_0x16AVX512(a *tileArgs, lut *[16]byte, off uint32)
