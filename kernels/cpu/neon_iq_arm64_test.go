package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"saji/kernels/quant"
)

// TestNEONIQ compares the kernels of the IQ2 and IQ3 types, in both forms,
// with decodeK+dotK bit for bit, over 1 to 40 super-blocks (past one batch of
// lanes) of random weights (and quantized ones for IQ3_S) against
// quantized, raw and extreme activations.
func TestNEONIQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, dot := range neonVariants() {
		k := newKernelSet(variantName(dot))
		addNEONIQ(k, dot)
		testNEONIQ(t, rng, k, variantName(dot))
	}
}

// testNEONIQ runs TestNEONIQ's cases on the kernels of k.
func testNEONIQ(t *testing.T, rng *rand.Rand, k *kernelSet, form string) {
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
					what := fmt.Sprintf("%v/%s/%d blocks/%s/quantized=%v", typ, form, nb, kind, quantized)
					sameBits(t, what, kern(w, x, false), dotK(&r, x, false))
				}
			}
		}
		if got := kern(nil, nil, false); got != 0 {
			t.Errorf("%v/%s: empty row gives %g", typ, form, got)
		}
	}
}
