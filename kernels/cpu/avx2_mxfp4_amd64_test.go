package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels/quant"
)

// TestAVX2MXFP4Dot checks the AVX2 MXFP4 kernel against dot32 bit for bit,
// on quantized rows, random blocks with exponents about 2^-7 (and over the
// whole E8M0 range, where products overflow to infinities and NaNs),
// extreme activations, and zeros.
func TestAVX2MXFP4Dot(t *testing.T) {
	k := avx2Kernels(t)
	rng := rand.New(rand.NewPCG(5, 6))
	dot := k.q8[quant.TypeMXFP4]
	raw := func(nb int, lo, hi int) []byte {
		w := make([]byte, 17*nb)
		for i := range w {
			w[i] = byte(rng.Uint32())
		}
		for b := range nb {
			w[17*b] = byte(lo + rng.IntN(hi-lo+1))
		}
		return w
	}
	for _, nb := range blockCounts {
		w := make([]byte, 17*nb)
		if err := quant.Quantize(quant.TypeMXFP4, randn(rng, 32*nb, 0.02), w); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			w    []byte
			x    []q8Block
		}{
			{"quantized", w, q8Acts(rng, nb, false)},
			{"raw", raw(nb, 115, 125), q8Acts(rng, nb, false)},
			{"wide", raw(nb, 0, 255), q8Acts(rng, nb, false)},
			{"extreme", raw(nb, 120, 140), extremeActs(rng, nb, false)},
			{"zero", make([]byte, 17*nb), q8Acts(rng, nb, false)},
		} {
			var r row32
			r.reset(32 * nb)
			decode32(quant.TypeMXFP4, c.w, &r)
			want, got := dot32(&r, c.x), dot(c.w, c.x)
			if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
				t.Errorf("%d/%s: got %g, want %g", nb, c.name, got, want)
			}
		}
	}
}
