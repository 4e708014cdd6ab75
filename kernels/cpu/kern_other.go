//go:build !amd64 && !arm64

package cpu

// detectKernels returns nil: this architecture has no SIMD kernels.
func detectKernels() *kernelSet { return nil }
