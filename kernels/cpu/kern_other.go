//go:build !amd64 && !arm64

package cpu

// This architecture has no SIMD kernels.
var kernelSetNames []string

// simdAliases is empty: there is no set to name.
var simdAliases = map[string]string{}

// lacks says that no set runs here.
func lacks(name string) string { return "no SIMD kernels on this architecture" }

// archSet is never called: no set runs here.
func archSet(string) *kernelSet { return nil }
