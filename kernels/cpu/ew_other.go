//go:build !amd64 && !arm64

package cpu

// expRowFast sets dst[i] = expV(src[i]) (len(dst) == len(src)).
func expRowFast(dst, src []float32) {
	for i, v := range src {
		dst[i] = expV(v)
	}
}

// siluRowFast is siluRow (no SIMD form on this architecture).
func siluRowFast(y, x, g []float32) { siluRow(y, x, g) }
