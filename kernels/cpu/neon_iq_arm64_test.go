package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"

	"saji/kernels/quant"
)

// TestNEONIQ compares the SDOT kernels of the IQ2 and IQ3 types with
// decodeK+dotK bit for bit, over 1 to 40 super-blocks (past one batch of
// lanes) of random weights (and quantized ones for IQ3_S) against
// quantized, raw and extreme activations.
func TestNEONIQ(t *testing.T) {
	if !cpu.ARM64.HasASIMDDP {
		t.Skip("no dot-product extension")
	}
	k := newKernelSet("neon+dotprod")
	addNEONIQ(k)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, typ := range iqTypes {
		kern := k.q8K[typ]
		for _, nb := range []int{1, 2, 15, 16, 17, 40} {
			for _, kind := range neonKinds {
				for _, quantized := range []bool{false, quant.Quantizable(typ)} {
					w := kRawWeights(rng, typ, nb, 1)
					if quantized {
						if err := quant.Quantize(typ, randn(rng, nb*quant.QK_K, 1), w); err != nil {
							t.Fatal(err)
						}
					}
					x := actQ8K(rng, nb, kind, false)
					var r rowK
					r.reset(quant.QK_K * nb)
					decodeK(typ, w, &r)
					what := fmt.Sprintf("%v/%d blocks/%s/quantized=%v", typ, nb, kind, quantized)
					sameBits(t, what, kern(w, x, false), dotK(&r, x, false))
				}
			}
		}
		if got := kern(nil, nil, false); got != 0 {
			t.Errorf("%v: empty row gives %g", typ, got)
		}
	}
}
