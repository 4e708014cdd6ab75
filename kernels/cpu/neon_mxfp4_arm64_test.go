package cpu

import (
	"math/rand/v2"
	"testing"

	"saji/kernels/quant"
)

// TestNEONMXFP4 checks the MXFP4 kernel, in both forms, against dot32 bit
// for bit.
func TestNEONMXFP4(t *testing.T) {
	for _, dot := range neonVariants() {
		k := newKernelSet("test")
		addNEONMXFP4(k, dot)
		checkMXFP4Kernel(t, variantName(dot), k.q8[quant.TypeMXFP4], func(rng *rand.Rand, nb int) []q8Block {
			return actQ8(rng, nb, "max", false)
		})
	}
}
