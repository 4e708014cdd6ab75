package cpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels/quant"
)

// iqTypes are the IQ2 and IQ3 weight types, IQ3 first (the most common).
var iqTypes = []quant.Type{quant.TypeIQ3_S, quant.TypeIQ3_XXS, quant.TypeIQ2_XXS, quant.TypeIQ2_XS, quant.TypeIQ2_S}

// kHalfOffsets are the offsets of each type's F16 super-block scales (d,
// and dmin where the type has one).
var kHalfOffsets = map[quant.Type][]int{
	quant.TypeQ2_K:   {80, 82},
	quant.TypeQ3_K:   {108},
	quant.TypeQ4_K:   {0, 2},
	quant.TypeQ5_K:   {0, 2},
	quant.TypeQ6_K:   {208},
	quant.TypeIQ4_XS: {0},
	quant.TypeTQ1_0:  {52},
	quant.TypeTQ2_0:  {64},
	quant.TypeIQ1_S:  {0},

	quant.TypeIQ2_XXS: {0},
	quant.TypeIQ2_XS:  {0},
	quant.TypeIQ2_S:   {0},
	quant.TypeIQ3_XXS: {0},
	quant.TypeIQ3_S:   {0},
}

// kRawWeights fills nb super-blocks of t with random bytes (every quant,
// scale and minimum pattern), then sets the F16 scales to finite values of
// magnitude up to maxD (IQ1_M's, spread over four words, to about 2^-7).
func kRawWeights(rng *rand.Rand, t quant.Type, nb int, maxD float64) []byte {
	bs := t.TypeSize()
	w := make([]byte, nb*bs)
	for i := range w {
		w[i] = byte(rng.Uint32())
	}
	for b := range nb {
		for _, off := range kHalfOffsets[t] {
			d := (2*rng.Float64() - 1) * maxD
			binary.LittleEndian.PutUint16(w[b*bs+off:], f32ToF16(float32(d)))
		}
	}
	if t == quant.TypeIQ1_M {
		refRawBlocks(t, w)
	}
	return w
}

// f32ToF16 rounds x to F16 through quant's F16 weights (one value).
func f32ToF16(x float32) uint16 {
	var b [2]byte
	if err := quant.Quantize(quant.TypeF16, []float32{x}, b[:]); err != nil {
		panic(err)
	}
	return binary.LittleEndian.Uint16(b[:])
}

// TestIQMatMul checks the matrix product of each IQ2 and IQ3 type, on the
// oracle and on the SIMD kernels, against float64 products of the
// dequantized weights with the activations as the backend quantizes them
// (Q8_K): the integer sums are exact, so the difference is only the float
// rounding of a few hundred additions. The SIMD kernels must give the
// oracle's results bit for bit.
func TestIQMatMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 3))
	for _, typ := range iqTypes {
		for _, s := range []struct{ k, m, n int }{{256, 7, 1}, {1024, 12, 5}, {2048, 5, 9}} {
			t.Run(fmt.Sprintf("%v/%dx%dx%d", typ, s.k, s.m, s.n), func(t *testing.T) {
				data := kRawWeights(rng, typ, s.m*s.k/quant.QK_K, 1.0/64)
				x := randn(rng, s.k*s.n, 1)
				wd := make([]float32, s.k*s.m)
				if err := quant.Dequantize(typ, data, wd); err != nil {
					t.Fatal(err)
				}
				xq := activationsAsComputed(typ, x, s.k, s.n)
				var oracle []float32
				for _, b := range []*Backend{NewReference(2), New(2)} {
					wt, err := b.Weight(typ, []int{s.k, s.m}, data)
					if err != nil {
						t.Fatal(err)
					}
					dst := newF32(t, b, s.m, s.n)
					if err := b.MatMul(dst, wt, f32(t, b, x, s.k, s.n)); err != nil {
						t.Fatal(err)
					}
					got := read(t, dst)
					var worst float64
					for j := range s.n {
						for i := range s.m {
							var exact, scale float64
							for l := range s.k {
								p := float64(wd[i*s.k+l]) * float64(xq[j*s.k+l])
								exact += p
								scale += math.Abs(p)
							}
							d := math.Abs(float64(got[j*s.m+i]) - exact)
							worst = max(worst, d/scale)
							if d > 1e-6*scale {
								t.Errorf("%s: row %d col %d: %g, exact %g (diff %.2e, scale %.2e)", b.Kernels(), i, j, got[j*s.m+i], exact, d, scale)
							}
						}
					}
					t.Logf("%s: max |diff| / Σ|w·x| = %.2e", b.Kernels(), worst)
					if oracle == nil {
						oracle = got
						continue
					}
					for i, v := range got {
						if math.Float32bits(v) != math.Float32bits(oracle[i]) {
							t.Errorf("%s: output %d is %g, the oracle's %g", b.Kernels(), i, v, oracle[i])
						}
					}
				}
			})
		}
	}
}

// TestIQGetRows checks that embedding rows of the IQ2 and IQ3 types are
// looked up as quant.Dequantize decodes them.
func TestIQGetRows(t *testing.T) {
	const k, m = 512, 5
	rng := rand.New(rand.NewPCG(4, 4))
	for _, typ := range iqTypes {
		b := New(2)
		data := kRawWeights(rng, typ, m*k/quant.QK_K, 1)
		wt, err := b.Weight(typ, []int{k, m}, data)
		if err != nil {
			t.Fatal(err)
		}
		dst := newF32(t, b, k, 3)
		ids := []int32{4, 0, 4}
		if err := b.GetRows(dst, wt, ids); err != nil {
			t.Fatal(err)
		}
		all := make([]float32, k*m)
		if err := quant.Dequantize(typ, data, all); err != nil {
			t.Fatal(err)
		}
		got := read(t, dst)
		for r, id := range ids {
			for i := range k {
				if math.Float32bits(got[r*k+i]) != math.Float32bits(all[int(id)*k+i]) {
					t.Fatalf("%v: row %d element %d: %g, want %g", typ, r, i, got[r*k+i], all[int(id)*k+i])
				}
			}
		}
	}
}
