package cpu

import "saji/kernels/quant"

// addAVX512MXFP4 replaces the AVX2 MXFP4 tiles with their AVX-512 VNNI
// forms: the same tiles, whose integer products are vpdpbusd's.
func addAVX512MXFP4(k *kernelSet) {
	k.tiles[quant.TypeMXFP4] = []tileKernel{
		{mr: mxGemvRows, nr: 1, fn: func(a *tileArgs) { mxTile(a, mxGemvRows, 1, gemvMXFP4AVX512) }},
		{mr: mxTileRows, nr: mxTileCols, fn: func(a *tileArgs) { mxTile(a, mxTileRows, mxTileCols, tileMXFP4AVX512) }},
	}
}

// gemvMXFP4AVX512 is gemvMXFP4AVX2 with vpdpbusd.
//
//go:noescape
func gemvMXFP4AVX512(a *tileArgs, rows int, scales *[256]float32)

// tileMXFP4AVX512 is tileMXFP4AVX2 with vpdpbusd.
//
//go:noescape
func tileMXFP4AVX512(a *tileArgs, rows int, scales *[256]float32)
