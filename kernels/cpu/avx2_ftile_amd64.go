package cpu

// addAVX2FloatTiles adds the AVX2 tile kernels for Q8_0 and float weights.
func addAVX2FloatTiles(k *kernelSet) {}
