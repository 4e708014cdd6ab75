package cpu

import (
	"math/rand/v2"
	"testing"

	"saji/kernels/quant"
)

// TestAVX2MXFP4Dot checks the AVX2 MXFP4 kernel against dot32 bit for bit.
func TestAVX2MXFP4Dot(t *testing.T) {
	k := avx2Kernels(t)
	checkMXFP4Kernel(t, "avx2", k.q8[quant.TypeMXFP4], func(rng *rand.Rand, nb int) []q8Block {
		return extremeActs(rng, nb, false)
	})
}
