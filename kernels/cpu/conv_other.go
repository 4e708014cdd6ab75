//go:build !amd64

package cpu

// fmaRowFast is fmaRow (no SIMD form on this architecture).
func fmaRowFast(y, a, b []float32) { fmaRow(y, a, b) }
