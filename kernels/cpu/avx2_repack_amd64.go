package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The AVX2 kernels for weights interleaved by four rows (Repack): the
// decode and prompt tiles of avx2_gemv_amd64.go and avx2_tile_amd64.go
// with the interleaved layout's steps, the arithmetic, and so every
// output bit, unchanged.

// addAVX2Repack adds the AVX2 kernels for weights interleaved by four rows
// (Repack): Q4_K's and Q8_0's decode kernels and prompt tiles, so that
// the product reads the layouts whole. Q8_0's layout is on by default
// (see repack.go), Q4_K's opt-in.
func addAVX2Repack(k *kernelSet) {
	if k.packed == nil {
		k.packed = map[quant.Type]packedKernel{}
	}
	k.packed[quant.TypeQ4_K] = optIn(interleavedKernel(quant.TypeQ4_K, interleaveRows, gemvPackedQ4K, tilePackedQ4K, 4))
	k.packed[quant.TypeQ8_0] = q80Layout(gemvPackedQ80, tilePackedQ80)
}

// q80Layout is Q8_0's four-row layout with the decode kernel gemv and
// the 2×4 prompt tile tile (in groups of q8TileGroup weight rows, as the
// file layout's tile, and with its scales widened ahead).
func q80Layout(gemv func(a *tileArgs, rows int), tile func(a *tileArgs)) packedKernel {
	k := interleavedKernel(quant.TypeQ8_0, interleaveRows, gemv, tile, 4)
	k.tileGroup = q8TileGroup
	k.tileScales = packedQ80Scales
	return k
}

// packedQ80Scales is tileKernel.scales for Q8_0 weights interleaved by
// four rows (a.w the first group, a.wstride a row's bytes): each group's
// rows 0-1 and then 2-3, the pairs tilePackedQ80 takes in turn.
func packedQ80Scales(a tileArgs, rows int, wd *float32) {
	for g := range rows / interleaveRows {
		w := unsafe.Add(unsafe.Pointer(a.w), g*interleaveRows*a.wstride)
		for p := range 2 {
			dst := unsafe.Add(unsafe.Pointer(wd), 4*(g*interleaveRows+2*p)*a.n)
			widenScalePairs((*float32)(dst), (*byte)(unsafe.Add(w, 2*p*q80Bytes)), q80Bytes, interleaveRows*q80Bytes, a.n)
		}
	}
}

// gemvInterleaved runs the decode kernel step, whose arguments after rows
// are the block step and the group step, over rows (a multiple of four)
// weight rows interleaved by four, blocks of blockBytes: a.w the first
// group, a.wstride a row's bytes.
func gemvInterleaved(a *tileArgs, rows, blockBytes int, step func(a *tileArgs, rows, bstep, gstep int)) {
	p := *a
	p.wstride = blockBytes
	step(&p, rows, interleaveRows*blockBytes, interleaveRows*a.wstride)
}

// optIn returns k taken only with SAJI_REPACK=on (which layouts, and
// why: repack.go).
func optIn(k packedKernel) packedKernel {
	k.optIn = true
	return k
}

// gemvPackedQ4K computes rows (a multiple of four) Q4_K outputs against one
// activation row in dotQ4KAVX2's gemv order from interleaved weights: a.w
// the first group, a.wstride a row's bytes. a.n must be at least 1.
func gemvPackedQ4K(a *tileArgs, rows int) { gemvInterleaved(a, rows, q4KBytes, gemvQ4KStepAVX2) }

// tilePackedQ4K computes a group's four Q4_K rows against four activation
// rows as tileQ4K does from the file's layout, from interleaved weights:
// a.w the group, a.wstride a row's bytes.
func tilePackedQ4K(a *tileArgs) { tileInterleavedQ4K(a, false) }

// tileInterleavedQ4K is tilePackedQ4K on the AVX2 tile kernel, or with
// vnni the AVX-VNNI one. The four activation rows take one order, gemm
// or gemv, as the matrix product groups them; a tile that mixes the two,
// which the product never asks for, takes each row's outputs from a tile
// run in its order.
func tileInterleavedQ4K(a *tileArgs, vnni bool) {
	// The kernels are called directly, not through a function value,
	// so that p and the rest stay on the stack: a tile call that
	// allocated cost prompts 8% in the garbage collector.
	tile := func(p *tileArgs, gemm bool) {
		const bstep = interleaveRows * q4KBytes
		if vnni {
			tileQ4KStepVNNI(p, interleaveRows, gemm, bstep)
		} else {
			tileQ4KStepAVX2(p, interleaveRows, gemm, bstep)
		}
	}
	p := *a
	p.wstride = q4KBytes
	switch {
	case a.n == 0:
		tileSingleK(a, interleaveRows, 4, nil)
	case a.gemm&15 == 0:
		tile(&p, false)
	case a.gemm&15 == 15:
		tile(&p, true)
	default:
		var both [2][4 * interleaveRows]float32
		for o := range both {
			q := p
			q.out, q.ostride = &both[o][0], interleaveRows
			tile(&q, o == 1)
		}
		for j := range 4 {
			o := a.gemm >> j & 1
			for i := range interleaveRows {
				*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*(j*a.ostride+i))) = both[o][j*interleaveRows+i]
			}
		}
	}
}

// tilePackedQ80 computes a group's four Q8_0 rows against four activation
// rows as tileQ8_0x2x4AVX2 does, from weights interleaved by four rows
// (a.w the group): rows 0-1, then rows 2-3.
func tilePackedQ80(a *tileArgs) {
	tileQ8_0x2x4StepAVX2(a, q80Bytes, interleaveRows*q80Bytes, 2)
}

// gemvPackedQ80 computes rows (a multiple of four) Q8_0 outputs against one
// activation row as dotQ8_0AVX2 does each, from interleaved weights: a.w
// the first group, a.wstride a row's bytes. a.n must be at least 1.
func gemvPackedQ80(a *tileArgs, rows int) { gemvInterleaved(a, rows, q80Bytes, gemvQ80StepAVX2) }
