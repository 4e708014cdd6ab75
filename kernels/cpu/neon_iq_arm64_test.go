package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"

	"saji/kernels/quant"
)

// TestNEONIQ compares the SDOT IQ3_S kernel with decodeK+dotK bit for bit,
// over 1 to 40 super-blocks (past one batch of lanes) of random and
// quantized weights against quantized, raw and extreme activations.
func TestNEONIQ(t *testing.T) {
	if !cpu.ARM64.HasASIMDDP {
		t.Skip("no dot-product extension")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, nb := range []int{1, 2, 15, 16, 17, 40} {
		for _, kind := range neonKinds {
			for _, quantized := range []bool{false, true} {
				w := kRawWeights(rng, quant.TypeIQ3_S, nb, 1)
				if quantized {
					w = make([]byte, nb*quant.TypeIQ3_S.TypeSize())
					if err := quant.Quantize(quant.TypeIQ3_S, randn(rng, nb*quant.QK_K, 1), w); err != nil {
						t.Fatal(err)
					}
				}
				x := actQ8K(rng, nb, kind, false)
				var r rowK
				r.reset(quant.QK_K * nb)
				decodeK(quant.TypeIQ3_S, w, &r)
				what := fmt.Sprintf("IQ3_S/%d blocks/%s/quantized=%v", nb, kind, quantized)
				sameBits(t, what, iq3sKernelSDOT(w, x, false), dotK(&r, x, false))
			}
		}
	}
	if got := iq3sKernelSDOT(nil, nil, false); got != 0 {
		t.Errorf("empty row: %g", got)
	}
}
