package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"

	"saji/kernels/quant"
)

// TestNEONTQ2 compares the TQ2_0 kernel with decodeK+dotK bit for bit,
// over 1 to 64 super-blocks and quantized, raw and extreme inputs.
func TestNEONTQ2(t *testing.T) {
	if !cpu.ARM64.HasASIMDDP {
		t.Skip("no dot-product extension")
	}
	k := newKernelSet("test")
	addNEONTQ(k, true)
	kern := k.q8K[quant.TypeTQ2_0]
	rng := rand.New(rand.NewPCG(7, 8))
	for _, nb := range []int{1, 2, 3, 17, 64} {
		for _, kind := range neonKinds {
			w := make([]byte, 66*nb)
			if kind == "quant" {
				if err := quant.Quantize(quant.TypeTQ2_0, randn(rng, quant.QK_K*nb, 1), w); err != nil {
					t.Fatal(err)
				}
			} else {
				for i := range w {
					w[i] = byte(rng.Uint32())
				}
				for b := range nb {
					w[66*b+64], w[66*b+65] = byte(rng.Uint32()), 0x20 // d about 2^-7
				}
			}
			x := actQ8K(rng, nb, kind, false)
			var r rowK
			r.reset(quant.QK_K * nb)
			decodeK(quant.TypeTQ2_0, w, &r)
			sameBits(t, fmt.Sprintf("TQ2_0/%d blocks/%s", nb, kind), kern(w, x, false), dotK(&r, x, false))
		}
	}
}
