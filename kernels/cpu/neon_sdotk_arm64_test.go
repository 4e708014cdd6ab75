package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"

	"saji/kernels/quant"
)

// TestNEONSDOTK compares the SDOT-only super-block kernels (TQ1_0, TQ2_0,
// IQ1_S, IQ1_M)
// with decodeK+dotK bit for bit, over 1 to 64 super-blocks and quantized
// (the TQ types), raw and extreme inputs.
func TestNEONSDOTK(t *testing.T) {
	if !cpu.ARM64.HasASIMDDP {
		t.Skip("no dot-product extension")
	}
	k := newKernelSet("test")
	addNEONTQ(k, true)
	addNEONIQ1(k, true)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, typ := range []quant.Type{quant.TypeTQ1_0, quant.TypeTQ2_0, quant.TypeIQ1_S, quant.TypeIQ1_M} {
		kern := k.q8K[typ]
		for _, nb := range []int{1, 2, 3, 17, 64} {
			for _, kind := range neonKinds {
				w := make([]byte, typ.TypeSize()*nb)
				if kind == "quant" && (typ == quant.TypeTQ1_0 || typ == quant.TypeTQ2_0) {
					if err := quant.Quantize(typ, randn(rng, quant.QK_K*nb, 1), w); err != nil {
						t.Fatal(err)
					}
				} else {
					for i := range w {
						w[i] = byte(rng.Uint32())
					}
					if typ == quant.TypeTQ1_0 || typ == quant.TypeTQ2_0 {
						bs := typ.TypeSize()
						for b := range nb {
							w[bs*b+bs-1] = 0x20 // d about 2^-7
						}
					}
					refRawBlocks(typ, w)
				}
				x := actQ8K(rng, nb, kind, false)
				var r rowK
				r.reset(quant.QK_K * nb)
				decodeK(typ, w, &r)
				sameBits(t, fmt.Sprintf("%v/%d blocks/%s", typ, nb, kind), kern(w, x, false), dotK(&r, x, false))
			}
		}
	}
}
