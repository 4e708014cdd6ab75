package cpu

import "saji/kernels/quant"

// The AVX2 decode kernels for weights interleaved by four rows (Repack):
// the decode tiles of avx2_gemv_amd64.go with the interleaved layout's
// steps, the arithmetic, and so every output bit, unchanged.

// addAVX2Repack adds the AVX2 decode kernels for weights interleaved by
// four rows (Repack): Q4_K and Q8_0.
func addAVX2Repack(k *kernelSet) {
	if k.packed == nil {
		k.packed = map[quant.Type]packedKernel{}
	}
	k.packed[quant.TypeQ4_K] = interleavedKernel(quant.TypeQ4_K, gemvPackedQ4K)
	k.packed[quant.TypeQ8_0] = interleavedKernel(quant.TypeQ8_0, gemvPackedQ80)
}

// gemvPackedQ4K computes rows (a multiple of four) Q4_K outputs against one
// activation row in dotQ4KAVX2's gemv order from interleaved weights: a.w
// the first group, a.wstride a row's bytes. a.n must be at least 1.
func gemvPackedQ4K(a *tileArgs, rows int) {
	p := *a
	p.wstride = quant.TypeQ4_K.TypeSize()
	gemvQ4KStepAVX2(&p, rows, interleaveRows*p.wstride, interleaveRows*a.wstride)
}

// gemvPackedQ80 computes rows (a multiple of four) Q8_0 outputs against one
// activation row as dotQ8_0AVX2 does each, from interleaved weights: a.w
// the first group, a.wstride a row's bytes. a.n must be at least 1.
func gemvPackedQ80(a *tileArgs, rows int) {
	p := *a
	p.wstride = quant.TypeQ8_0.TypeSize()
	gemvQ80StepAVX2(&p, rows, interleaveRows*p.wstride, interleaveRows*a.wstride)
}
