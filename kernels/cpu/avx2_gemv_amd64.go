package cpu

// addAVX2Gemv adds the AVX2 tile kernels for one to three activation rows
// (decode).
func addAVX2Gemv(k *kernelSet) {}
