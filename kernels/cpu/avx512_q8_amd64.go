package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The AVX-512 VNNI kernels for Q8_0 weights use 512-bit registers without
// changing any output's arithmetic: each zmm holds two outputs, one per
// 256-bit half, and each half does for its output exactly what the AVX2
// kernel's ymm does (eight int32 lanes of four products per block, one
// fused multiply-add per lane by d_w·d_x, hsum8 at the end). VPDPBUSD
// gives a lane's four products in one instruction; its operands are
// unsigned by signed bytes, so one side is offset by 128 (XOR 0x80) and
// 128 times the other side's lane sums taken off, which keeps every lane
// the exact integer the AVX2 kernel computes. So every output equals the
// AVX2 kernel's, and the oracle's (dot32), bit for bit.

// gemvRowsZ is the number of weight rows one AVX-512 decode tile call
// covers; the assembly runs over them in groups of eight.
const gemvRowsZ = 8

// addAVX512Q8 adds the AVX-512 VNNI kernels for Q8_0 weights: a 4×8
// prompt tile and an 8-row decode tile. The AVX2 tiles stay for batches
// too small for the new ones.
func addAVX512Q8(k *kernelSet) {
	k.tiles[quant.TypeQ8_0] = append(k.tiles[quant.TypeQ8_0],
		tileKernel{mr: 4, nr: 8, fn: tileQ8_0x4x8AVX512},
		tileKernel{mr: gemvRowsZ, nr: 1, fn: gemvQ80Z})
}

// gemvQ80Z computes gemvRowsZ Q8_0 outputs for one activation row.
func gemvQ80Z(a *tileArgs) {
	if a.n == 0 {
		for i := range gemvRowsZ {
			*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*i)) = 0
		}
		return
	}
	gemvQ80AVX512(a, gemvRowsZ)
}

// tileQ8_0x4x8AVX512 computes 4×8 Q8_0 outputs (a.n blocks of 34 bytes
// per weight row, q8Block activations) as dotQ8_0AVX2 computes each, two
// weight rows to a zmm. With no blocks every output is +0.
//
//go:noescape
func tileQ8_0x4x8AVX512(a *tileArgs)

// gemvQ80AVX512 computes rows (a multiple of eight) Q8_0 outputs against
// one activation row as dotQ8_0AVX2 computes each, two weight rows to a
// zmm; each activation block is loaded once for the eight rows of a
// group. a.n must be at least 1.
//
//go:noescape
func gemvQ80AVX512(a *tileArgs, rows int)
