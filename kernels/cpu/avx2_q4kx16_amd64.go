package cpu

// The sixteen-row Q4_K layout (avx512_q4kx16_amd64.go) on AVX2 and
// AVX-VNNI: the same bytes, read as two halves of eight rows, and the
// same arithmetic, so every output is the oracle's float. In the file's
// layout a ymm holds 32 quants of one row, and each 32-element sub-block
// needs its scale spread over it before the sums; here a ymm holds four
// consecutive quants of each of eight rows, one vpmaddubsw against four
// activations broadcast from memory serves the eight, the sums stay per
// row in the lanes, and a sub-block's scales are one vpmulld by eight
// bytes of the layout. On Zen 5 (one thread, throwaway benchmarks) the
// decode kernel ran at 47 GB/s of weights from cache against 27 for the
// file layout's four-row kernel, and the prompt kernel at 14.7 against
// 8.3 for the file layout's tile (k = 2048, 64 rows, four activation
// rows).

// q4KX16AVX2 and q4KX16VNNI are the sixteen-row layout's packed kernel
// on AVX2 and on AVX-VNNI.
var q4KX16AVX2, q4KX16VNNI = q4KX16With(gemvQ4KX16A2, tileQ4KX16A2), q4KX16With(gemvQ4KX16V, tileQ4KX16V)

// q4KX16With is the sixteen-row layout's packed kernel with the decode
// kernel gemv and the prompt tile tile.
func q4KX16With(gemv func(a *tileArgs, rows int), tile func(a *tileArgs)) packedKernel {
	k := q4KX16
	k.gemv, k.tile = gemv, tile
	return k
}

// gemvQ4KX16A2 computes rows (a multiple of sixteen) outputs for one
// activation row from the sixteen-row layout on AVX2.
func gemvQ4KX16A2(a *tileArgs, rows int) {
	if x16NoBlocks(a, rows) {
		return
	}
	gemvQ4KX16AVX2(a, rows)
}

// tileQ4KX16A2 computes a group's sixteen rows × 4 activation rows from
// the sixteen-row layout on AVX2 (x16Tile; gemv-order rows, which the
// product leaves to the decode kernel, one by one).
func tileQ4KX16A2(a *tileArgs) {
	x16Tile(a, gemmQ4KX16AVX2, nil, gemvQ4KX16A2)
}

// gemvQ4KX16V is gemvQ4KX16A2 on AVX-VNNI.
func gemvQ4KX16V(a *tileArgs, rows int) {
	if x16NoBlocks(a, rows) {
		return
	}
	gemvQ4KX16VNNI(a, rows)
}

// tileQ4KX16V is tileQ4KX16A2 on AVX-VNNI.
func tileQ4KX16V(a *tileArgs) {
	x16Tile(a, gemmQ4KX16VNNI, nil, gemvQ4KX16V)
}

// gemvQ4KX16AVX2 is gemvQ4KX16AVX512 on AVX2: rows (a multiple of
// sixteen) Q4_K outputs against one activation row (a.x, a.n
// super-blocks) from weights in the sixteen-row layout at a.w, into
// a.out[0:rows], in the oracle's gemv order. a.n must be at least 1.
//
//go:noescape
func gemvQ4KX16AVX2(a *tileArgs, rows int)

// gemmQ4KX16AVX2 is gemmQ4KX16AVX512 on AVX2: rows (a multiple of
// sixteen) × 4 Q4_K outputs in the oracle's gemm order (dotRepackedK over
// 64-element chunks) from weights in the sixteen-row layout at a.w and
// four activation rows at a.x, a.xstride bytes apart, into a.out
// (a.ostride floats from one activation row's outputs to the next). a.n
// must be at least 1.
//
//go:noescape
func gemmQ4KX16AVX2(a *tileArgs, rows int)

// gemvQ4KX16VNNI is gemvQ4KX16AVX2 on AVX-VNNI (vpdpbusd).
//
//go:noescape
func gemvQ4KX16VNNI(a *tileArgs, rows int)

// gemmQ4KX16VNNI is gemmQ4KX16AVX2 on AVX-VNNI (vpdpbusd).
//
//go:noescape
func gemmQ4KX16VNNI(a *tileArgs, rows int)
