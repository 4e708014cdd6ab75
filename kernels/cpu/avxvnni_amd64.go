package cpu

import "saji/kernels/quant"

// The AVX-VNNI kernels are the AVX2 ones with the integer products
// accumulated by VEX vpdpwssd and vpdpbusd (avxvnni_amd64.h): for Q4_K,
// Q5_K and Q6_K each vpmaddwd of int16 products by scales and the vpaddd
// after it become one vpdpwssd; for Q8_0 and IQ4_NL the vpmaddubsw and
// vpmaddwd of ones become one vpdpbusd (the Q8_0 prompt tile also drops
// vpsignb: it offsets the activations by 128 and takes 128 times the
// weights' sums off); Q4_0 multiplies the unsigned nibbles and takes 8
// times the activations' sums off. Every int32 lane holds the AVX2
// kernel's integer, so every output is the AVX2 kernel's (and the
// oracle's) bit for bit, in fewer instructions.

// addAVXVNNIKernels adds the AVX-VNNI kernels over the AVX2 ones: the
// single-row kernels for Q4_K, Q5_K, Q6_K, Q8_0, Q4_0 and IQ4_NL, the
// prompt and decode tiles for Q4_K, Q6_K and Q8_0, each in the place of
// the AVX2 tile of its shape, and those of Q8_0 over AVX2's four-row
// layout (Repack), on by default as on AVX2, and those of Q4_K's
// sixteen-row layout (avx2_q4kx16_amd64.go).
func addAVXVNNIKernels(k *kernelSet) {
	k.q8K[quant.TypeQ4_K] = kKernel(dotQ4KVNNI, quant.TypeQ4_K)
	k.q8K[quant.TypeQ5_K] = kKernel(dotQ5KVNNI, quant.TypeQ5_K)
	k.q8K[quant.TypeQ6_K] = kKernel(dotQ6KVNNI, quant.TypeQ6_K)
	k.q8[quant.TypeQ8_0] = q8Kernel(dotQ8_0VNNI, 34)
	k.q8[quant.TypeQ4_0] = q8Kernel(dotQ4_0VNNI, 18)
	k.q8[quant.TypeIQ4_NL] = q8Kernel(dotIQ4NLVNNI, 18)
	setTile(k, quant.TypeQ4_K, tileKernel{mr: tileRowsK, nr: 4, fn: tileQ4KV})
	setTile(k, quant.TypeQ4_K, tileKernel{mr: gemvRows, nr: 1, fn: gemvQ4KV})
	setTile(k, quant.TypeQ6_K, tileKernel{mr: tileRowsK, nr: 4, fn: tileQ6KV})
	setTile(k, quant.TypeQ6_K, decodeKernel(gemvRows, gemvRowsK(gemvQ6KVNNI)))
	setTile(k, quant.TypeQ8_0, tileKernel{mr: 2, nr: 4, fn: tileQ8_0x2x4VNNI, group: q8TileGroup, scales: q8PairScales})
	setTile(k, quant.TypeQ8_0, decodeKernel(gemvRows, gemvQ80RowsV))
	k.packed[quant.TypeQ4_K] = q4KX16VNNI
	k.packed[quant.TypeQ8_0] = q80Layout(gemvPackedQ80V, tilePackedQ80V)
}

// gemvPackedQ80V is gemvPackedQ80 with the AVX-VNNI kernel.
func gemvPackedQ80V(a *tileArgs, rows int) { gemvInterleaved(a, rows, q80Bytes, gemvQ80StepVNNI) }

// tilePackedQ80V is tilePackedQ80 with the AVX-VNNI tile.
func tilePackedQ80V(a *tileArgs) { tileQ8_0x2x4StepVNNI(a, q80Bytes, interleaveRows*q80Bytes, 2) }

// tileQ4KV is tileQ4K with the AVX-VNNI kernels.
func tileQ4KV(a *tileArgs) { tileQ4KWith(a, tileQ4KVNNI, dotQ4KVNNI) }

// tileQ6KV is tileQ6K with the AVX-VNNI kernel.
func tileQ6KV(a *tileArgs) { kTile(a, tileRowsK, 4, tileQ6KVNNI) }

// gemvQ4KV is gemvQ4K with the AVX-VNNI kernels.
func gemvQ4KV(a *tileArgs) { gemvQ4KWith(a, gemvQ4KVNNI, dotQ4KVNNI) }

// gemvQ80RowsV is gemvQ80Rows with the AVX-VNNI kernel.
func gemvQ80RowsV(a *tileArgs, rows int) { gemvOrZero(a, rows, gemvQ80VNNI) }

// vnniChecks is the number of register combinations vnniMacroCheck runs
// for each VNNI macro.
const vnniChecks = 16

// vnniMacroCheck runs VNNI_DPBUSD and then VNNI_DPWSSD on vnniChecks
// register combinations each, every one from the accumulator in[2], the
// first source in[0] and the second in[1], into out in that order.
//
//go:noescape
func vnniMacroCheck(in *[3][32]byte, out *[2 * vnniChecks][32]byte)

// dotQ4KVNNI is dotQ4KAVX2 with vpdpwssd.
//
//go:noescape
func dotQ4KVNNI(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotQ6KVNNI is dotQ6KAVX2 with vpdpwssd.
//
//go:noescape
func dotQ6KVNNI(w *byte, x *q8KBlock, n int, gemm bool) float32

// dotQ5KVNNI is dotQ5KAVX2 with vpdpwssd.
//
//go:noescape
func dotQ5KVNNI(w *byte, x *q8KBlock, n int, gemm bool) float32

// tileQ4KVNNI is tileQ4KAVX2 with vpdpwssd.
//
//go:noescape
func tileQ4KVNNI(a *tileArgs, rows int, gemm bool)

// tileQ6KVNNI is tileQ6KAVX2 with vpdpwssd.
//
//go:noescape
func tileQ6KVNNI(a *tileArgs, rows int)

// gemvQ4KVNNI is gemvQ4KAVX2 with vpdpwssd.
//
//go:noescape
func gemvQ4KVNNI(a *tileArgs, rows int)

// gemvQ6KVNNI is gemvQ6KAVX2 with vpdpwssd.
//
//go:noescape
func gemvQ6KVNNI(a *tileArgs, rows int)

// dotQ8_0VNNI is dotQ8_0AVX2 with vpdpbusd.
//
//go:noescape
func dotQ8_0VNNI(w *byte, x *q8Block, n int) float32

// gemvQ80VNNI is gemvQ80AVX2 with vpdpbusd.
func gemvQ80VNNI(a *tileArgs, rows int) {
	gemvQ80StepVNNI(a, rows, q80Bytes, gemvRows*a.wstride)
}

// gemvQ80StepVNNI is gemvQ80StepAVX2 with vpdpbusd.
//
//go:noescape
func gemvQ80StepVNNI(a *tileArgs, rows, bstep, gstep int)

// tileQ8_0x2x4VNNI computes what tileQ8_0x2x4AVX2 does with vpdpbusd:
// each activation block made unsigned once (x+128) and every lane sum
// started from -128·Σw, so no product needs vpsignb (see the assembly).
func tileQ8_0x2x4VNNI(a *tileArgs) { tileQ8_0x2x4StepVNNI(a, a.wstride, q80Bytes, 1) }

// tileQ8_0x2x4StepVNNI is tileQ8_0x2x4StepAVX2 with the AVX-VNNI tile.
//
//go:noescape
func tileQ8_0x2x4StepVNNI(a *tileArgs, rstep, bstep, pairs int)

// dotQ4_0VNNI is dotQ4_0AVX2 with vpdpbusd.
//
//go:noescape
func dotQ4_0VNNI(w *byte, x *q8Block, n int) float32

// dotIQ4NLVNNI is dotIQ4NLAVX2 with vpdpbusd.
//
//go:noescape
func dotIQ4NLVNNI(w *byte, x *q8Block, n int) float32
