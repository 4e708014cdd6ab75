package cpu

import "golang.org/x/sys/cpu"

// detectKernels returns the SIMD kernels this x86-64 CPU can run: AVX2
// with FMA and F16C, or nil.
func detectKernels() *kernelSet {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA || !hasF16C() {
		return nil
	}
	k := newKernelSet("avx2")
	addAVX2Q8(k)
	addAVX2TQ(k)
	addAVX2IQ1(k)
	addAVX2K(k)
	addAVX2Tiles(k)
	addAVX2FloatTiles(k)
	addAVX2Gemv(k)
	return k
}
