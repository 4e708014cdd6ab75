//go:build !amd64 && !arm64

package hardware

// cpuFeatures lists no features: the kernels have no SIMD path here.
func cpuFeatures() []string { return nil }
