package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels/quant"
)

// mxfp4Case is a row of MXFP4 weights and its activations.
type mxfp4Case struct {
	name string
	w    []byte
	x    []q8Block
}

// mxfp4Cases returns the rows the SIMD MXFP4 kernels are checked on, of nb
// blocks: quantized weights, random blocks with exponents about 2^-7 (and
// over the whole E8M0 range, where products overflow to infinities and
// NaNs), extreme activations (if extreme is set), and zeros.
func mxfp4Cases(rng *rand.Rand, nb int, extreme func(*rand.Rand, int) []q8Block) []mxfp4Case {
	raw := func(lo, hi int) []byte {
		w := make([]byte, 17*nb)
		for i := range w {
			w[i] = byte(rng.Uint32())
		}
		for b := range nb {
			w[17*b] = byte(lo + rng.IntN(hi-lo+1))
		}
		return w
	}
	acts := func() []q8Block {
		x := make([]q8Block, nb)
		quantizeQ8(randn(rng, 32*nb, 1), x, false)
		return x
	}
	w := make([]byte, 17*nb)
	if err := quant.Quantize(quant.TypeMXFP4, randn(rng, 32*nb, 0.02), w); err != nil {
		panic(err)
	}
	return []mxfp4Case{
		{"quantized", w, acts()},
		{"raw", raw(115, 125), acts()},
		{"wide", raw(0, 255), acts()},
		{"extreme", raw(120, 140), extreme(rng, nb)},
		{"zero", make([]byte, 17*nb), acts()},
	}
}

// checkMXFP4Kernel compares kern with decode32+dot32 bit for bit on
// mxfp4Cases of 1 to 512 blocks (NaNs match any NaN).
func checkMXFP4Kernel(t *testing.T, name string, kern func([]byte, []q8Block) float32, extreme func(*rand.Rand, int) []q8Block) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, nb := range []int{1, 2, 3, 5, 8, 17, 64, 127, 512} {
		for _, c := range mxfp4Cases(rng, nb, extreme) {
			var r row32
			r.reset(32 * nb)
			decode32(quant.TypeMXFP4, c.w, &r)
			want, got := dot32(&r, c.x), kern(c.w, c.x)
			if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
				t.Errorf("%s/%d blocks/%s: got %g, want %g", name, nb, c.name, got, want)
			}
		}
	}
}
