package cpu

// addAVX2K adds the AVX2 kernels for the K-quant weights.
func addAVX2K(k *kernelSet) {}
