package cpu

import "golang.org/x/sys/cpu"

// detectKernels returns the NEON kernels of this arm64 CPU: with the
// dot-product extension (SDOT) where the CPU has it ("neon+dotprod"),
// base Advanced SIMD otherwise ("neon").
func detectKernels() *kernelSet {
	if !cpu.ARM64.HasASIMD {
		return nil
	}
	dot := cpu.ARM64.HasASIMDDP
	name := "neon"
	if dot {
		name = "neon+dotprod"
	}
	k := newKernelSet(name)
	addNEON(k, dot)
	addNEONMXFP4(k, dot)
	addNEONTQ(k, dot)
	addNEONIQ1(k, dot)
	return k
}
