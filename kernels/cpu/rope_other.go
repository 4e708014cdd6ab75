//go:build !arm64

package cpu

// ropeHead rotates the first nd elements of one head x into y (no SIMD
// form on this architecture).
func ropeHead(y, x, cs []float32, nd int, neox bool) { ropePairs(y, x, cs, 0, nd, neox) }
