package cpu

// addAVX2Q8 adds the AVX2 kernels for 32-block weights (Q8_0, Q4_0,
// IQ4_NL, ...), F16, BF16 and F32 weights, and the activation quantizers.
func addAVX2Q8(k *kernelSet) {}

// hasF16C reports whether the CPU has the F16C conversions.
func hasF16C() bool { return true }
