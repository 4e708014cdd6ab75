package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The AVX2 kernels for Q8_0 weights interleaved by four rows (Repack):
// the file layout's Q8_0 decode kernel and prompt tile with the
// interleaved layout's steps, the arithmetic, and so every output bit,
// unchanged.

// addAVX2Repack adds the AVX2 kernels for repacked weights (Repack):
// Q8_0's four-row layout's decode kernel and prompt tile, and Q4_K's
// sixteen-row layout (avx2_q4kx16_amd64.go), so that the product reads
// the layouts whole.
func addAVX2Repack(k *kernelSet) {
	if k.packed == nil {
		k.packed = map[quant.Type]packedKernel{}
	}
	k.packed[quant.TypeQ4_K] = q4KX16AVX2
	k.packed[quant.TypeQ8_0] = q80Layout(gemvPackedQ80, tilePackedQ80)
}

// q80Layout is Q8_0's four-row layout with the decode kernel gemv and
// the 2×4 prompt tile tile (in groups of q8TileGroup weight rows, as the
// file layout's tile, and with its scales widened ahead).
func q80Layout(gemv func(a *tileArgs, rows int), tile func(a *tileArgs)) packedKernel {
	k := interleavedKernel(quant.TypeQ8_0, interleaveRows, gemv, tile, 4)
	k.tileGroup = q8TileGroup
	k.tileScales = packedQ80Scales
	k.maxCols = q80InterleaveCols
	return k
}

// q80InterleaveCols is the longest Q8_0 rows (in values) that Repack
// interleaves by four by default. The four-row layout's decode kernel
// reads one stream, the file's layout four, one a row: the one stream
// pays on short rows, the four on long ones. BenchmarkRepackGemv (one and
// two threads, 512 MB of weights in huge pages) measured the interleaved
// layout 1.21-1.34 times as fast as the file's at 2048 values a row,
// 1.00-1.25 at 4096 and 0.90-0.96 at 8192, on AVX2 and AVX-VNNI (whose
// decode kernels the AVX-512 set runs too). So llama-1b Q8_0's
// feed-forward down projection (k = 8192) stays in the file's layout:
// AVX2 decode at one thread went 16.9 -> 18.3 t/s (five alternating
// rounds), AVX-VNNI's stayed within the noise (17.7-17.9 -> 17.8-18.0).
const q80InterleaveCols = 4096

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
