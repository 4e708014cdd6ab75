package cpu

import "saji/kernels/quant"

// addAVX512MXFP4 replaces the AVX2 MXFP4 prompt tile with its AVX-512
// VNNI form (the same tile, whose integer products are vpdpbusd's):
// 1.15-1.18× the AVX2 tile by thread CPU time on cache-resident rows. The
// decode tile stays AVX2's: gemvMXFP4AVX512, 1.09× on cached rows, was no
// faster decoding gpt-oss-20b (7.5 against 8.0 tokens/s, 2 threads), whose
// rows stream from memory.
func addAVX512MXFP4(k *kernelSet) {
	if k.packed == nil {
		k.packed = map[quant.Type]packedKernel{}
	}
	k.packed[quant.TypeMXFP4] = mxfp4X16
	tks := k.tiles[quant.TypeMXFP4]
	for i := range tks {
		if tks[i].nr == mxTileCols {
			tks[i].fn = func(a *tileArgs) { mxTile(a, mxTileRows, mxTileCols, tileMXFP4AVX512) }
		}
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
