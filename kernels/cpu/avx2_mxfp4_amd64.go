package cpu

import "saji/kernels/quant"

// The AVX2 MXFP4 tiles: a decode tile of eight weight rows against one
// activation row, and a prompt tile of four weight rows against four
// activation rows, whose weight blocks are unpacked once for the four.
// Each output keeps the oracle's float operations (one fused multiply-add
// per block by the product of the scales, in block order), so each equals
// dot32 and the single-row kernel bit for bit.

// Rows of the MXFP4 tiles: mxGemvRows for decode, mxTileRows by
// mxTileCols activation rows for prompts.
const (
	mxGemvRows = 8
	mxTileRows = 4
	mxTileCols = 4
)

// addAVX2MXFP4 adds the AVX2 MXFP4 tiles.
func addAVX2MXFP4(k *kernelSet) {
	k.tiles[quant.TypeMXFP4] = append(k.tiles[quant.TypeMXFP4],
		tileKernel{mr: mxGemvRows, nr: 1, fn: func(a *tileArgs) { mxTile(a, mxGemvRows, 1, gemvMXFP4AVX2) }},
		tileKernel{mr: mxTileRows, nr: mxTileCols, fn: func(a *tileArgs) { mxTile(a, mxTileRows, mxTileCols, tileMXFP4AVX2) }})
}

// mxTile computes an mr×nr tile of MXFP4 outputs with the assembly asm,
// or +0s (the oracle's empty sums) for rows of no blocks.
func mxTile(a *tileArgs, mr, nr int, asm func(a *tileArgs, rows int, scales *[256]float32)) {
	if a.n == 0 {
		tileSingleK(a, mr, nr, nil)
		return
	}
	asm(a, mr, &e8m0HalfTable)
}

// gemvMXFP4AVX2 computes rows (a multiple of eight) MXFP4 outputs against
// one activation row (Q8_0 blocks), two weight rows to a register: per
// block the exact integer sums of eight rows, one int32 lane each, then
// per row one fused multiply-add by E8M0Half(e)·x.d into its float lane.
// a.n must be at least 1.
//
//go:noescape
func gemvMXFP4AVX2(a *tileArgs, rows int, scales *[256]float32)

// tileMXFP4AVX2 computes rows (a multiple of four) by four MXFP4 outputs,
// as gemvMXFP4AVX2 computes each; each block of the four weight rows is
// unpacked once for the four activation rows. a.n must be at least 1.
//
//go:noescape
func tileMXFP4AVX2(a *tileArgs, rows int, scales *[256]float32)
