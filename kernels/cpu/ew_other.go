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

// scaleMax64 multiplies a tile's 64 scores by scale and returns their
// maximum.
func scaleMax64(kq *[64]float32, scale float32) float32 { return scaleMax64Go(kq, scale) }

// expShift64 sets kq[c] = expV(kq[c] - m), expRowFast's values.
func expShift64(kq *[64]float32, m float32) { expShift64Go(kq, m) }
