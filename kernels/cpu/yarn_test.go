package cpu

import (
	"math"
	"testing"

	"saji/kernels"
)

// TestRopeYaRNPeer checks YaRN rope bit for bit against outputs of
// llama.cpp's CPU backend (commit 3f545bec, ggml_rope_ext with n_dims 16,
// n_ctx_orig 64, freq_base 1e4, freq_scale 0.25, ext_factor 1, attn_factor
// 1, beta_fast 32, beta_slow 1) for heads of 16 values x[i] = (i%7-3)/4
// over two heads and positions 0, 1, 7, 100: the second head at position
// 100 in NeoX mode and the first at position 7 in normal mode.
func TestRopeYaRNPeer(t *testing.T) {
	const hd = 16
	pos := []int32{0, 1, 7, 100}
	x := make([]float32, 2*hd*len(pos))
	for i := range x {
		x[i] = float32(i%7-3) * 0.25
	}
	for _, c := range []struct {
		neox     bool
		row, off int
		want     []uint32
	}{
		{true, 3, hd, []uint32{0xbf8328a3, 0xbebd0899, 0xbda55e5e, 0xbe4f2d53, 0x3e0a3242, 0x3f000630, 0x3f60036d, 0xbf597534,
			0xbd6fa6d4, 0x3f04bc02, 0x3e8bc20e, 0x3e4d0b9b, 0x3f1f3e1c, 0x3f6571b3, 0xbf55156b, 0xbf1377e4}},
		{false, 2, 0, []uint32{0xbe780112, 0xbf16b0d9, 0xbe91299c, 0xbcd031bc, 0x3e77c7ea, 0x3f7f5695, 0xbf523887, 0xbf1d9d0f,
			0xbe91b8e5, 0xbba339bf, 0x3e902117, 0x3f122547, 0x3f5affc4, 0xbf5a3be3, 0xbf11b447, 0xbe91e7e6}},
	} {
		for _, b := range []*Backend{New(1), NewReference(1)} {
			p := kernels.RopeParams{HeadDim: hd, Dims: hd, Base: 10000, FreqScale: 0.25, Neox: c.neox,
				YaRN: kernels.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigContext: 64}}
			d := newF32(t, b, 2*hd, len(pos))
			if err := b.Rope(d, f32(t, b, x, 2*hd, len(pos)), pos, p); err != nil {
				t.Fatal(err)
			}
			got := read(t, d)[c.row*2*hd+c.off:][:hd]
			for i, w := range c.want {
				if math.Float32bits(got[i]) != w {
					t.Errorf("neox %v element %d: %g, llama.cpp %g", c.neox, i, got[i], math.Float32frombits(w))
				}
			}
		}
	}
}
