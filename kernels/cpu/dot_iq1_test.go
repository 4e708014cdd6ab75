package cpu

import (
	"fmt"
	"math"
	"testing"

	"saji/kernels/quant"
)

// TestMatMulIQ1 checks IQ1_S and IQ1_M products (on random blocks: Saji
// cannot quantize to them) against float64 products of the dequantized
// weights with the activations as the backend quantizes them, on both
// kernel sets, and reports the largest difference relative to Σ|w·x|.
func TestMatMulIQ1(t *testing.T) {
	const k, m = 1024, 6
	for _, typ := range []quant.Type{quant.TypeIQ1_S, quant.TypeIQ1_M} {
		for _, n := range []int{1, 5} {
			w, x := refInputs(typ, k, m, n, uint64(n))
			wd := make([]float32, k*m)
			if err := quant.Dequantize(typ, w, wd); err != nil {
				t.Fatal(err)
			}
			xq := activationsAsComputed(typ, x, k, n)
			for _, b := range []*Backend{NewReference(2), New(2)} {
				t.Run(fmt.Sprintf("%v/n=%d/%s", typ, n, b.Kernels()), func(t *testing.T) {
					wt, err := b.Weight(typ, []int{k, m}, w)
					if err != nil {
						t.Fatal(err)
					}
					dst := newF32(t, b, m, n)
					if err := b.MatMul(dst, wt, f32(t, b, x, k, n)); err != nil {
						t.Fatal(err)
					}
					got := read(t, dst)
					var worst float64
					for j := range n {
						for i := range m {
							var exact, scale float64
							for l := range k {
								p := float64(wd[i*k+l]) * float64(xq[j*k+l])
								exact += p
								scale += math.Abs(p)
							}
							d := math.Abs(float64(got[j*m+i])-exact) / scale
							worst = max(worst, d)
							if d > 1e-5 {
								t.Errorf("row %d col %d: %g, exact %g (relative diff %.2e)", i, j, got[j*m+i], exact, d)
							}
						}
					}
					t.Logf("largest |diff|/Σ|w·x| %.2e", worst)
				})
			}
		}
	}
}
