package kernels

import "testing"

// TestYarnCorrDims checks the correction dims against figures computed by
// hand from ggml's formula, dims·ln(orig/(2π·β))/(2·ln base), floored for
// beta fast and ceiled for beta slow, within [0, dims-1].
func TestYarnCorrDims(t *testing.T) {
	for _, c := range []struct {
		dims, orig        int
		base, fast, slow  float32
		wantLow, wantHigh float32
	}{
		// gpt-oss: 64·ln(4096/(2π·32))/(2·ln 150000) = 8.09, and 17.40 for β 1.
		{64, 4096, 150000, 32, 1, 8, 18},
		// 16·ln(64/(2π·32))/(2·ln 10000) = -0.99 (clamped to 0), and 2.02.
		{16, 64, 10000, 32, 1, 0, 3},
		// Qwen3 with YaRN: 128·ln(32768/(2π·32))/(2·ln 1e6) = 23.3, and 39.6.
		{128, 32768, 1e6, 32, 1, 23, 40},
		// The high dim is cut at dims-1, the low one only at 0:
		// 8·ln(2^30/2π)/(2·ln 2) = 109.4.
		{8, 1 << 30, 2, 1, 0.5, 109, 7},
	} {
		low, high := yarnCorrDims(c.dims, c.orig, c.base, c.fast, c.slow)
		if low != c.wantLow || high != c.wantHigh {
			t.Errorf("%+v: corr dims %g, %g", c, low, high)
		}
	}
}
