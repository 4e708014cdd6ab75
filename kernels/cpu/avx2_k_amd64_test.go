package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels/quant"
)

// kTypes are the weight types addAVX2K (and addAVX2TQ, addAVX2IQ1 and
// the IQ2/IQ3 kernels) cover, in the order they matter.
var kTypes = []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ5_K, quant.TypeQ3_K, quant.TypeQ2_K, quant.TypeIQ4_XS,
	quant.TypeTQ1_0, quant.TypeTQ2_0, quant.TypeIQ1_S, quant.TypeIQ1_M,
	quant.TypeIQ3_S, quant.TypeIQ3_XXS, quant.TypeIQ2_XXS, quant.TypeIQ2_XS, quant.TypeIQ2_S}

// avx2KSet returns a kernel set holding only the K-quant kernels, or skips
// when the CPU lacks AVX2, FMA or F16C.
func avx2KSet(tb testing.TB) *kernelSet {
	tb.Helper()
	if detectKernels() == nil {
		tb.Skip("no AVX2/FMA/F16C")
	}
	k := newKernelSet("avx2")
	addAVX2K(k)
	addAVX2TQ(k)
	addAVX2IQ1(k)
	return k
}

// kWeights quantizes nb super-blocks of normal values of standard
// deviation scale to t. For the types Saji cannot quantize (the IQ1, IQ2
// and IQ3 types but IQ3_S) it returns random blocks with values of about
// that size (scales up to scale/64 for IQ1_S and IQ1_M, scale/32 others).
func kWeights(tb testing.TB, rng *rand.Rand, t quant.Type, nb int, scale float64) []byte {
	tb.Helper()
	if !quant.Quantizable(t) {
		if t == quant.TypeIQ1_S || t == quant.TypeIQ1_M {
			return kRawWeights(rng, t, nb, scale/64)
		}
		return kRawWeights(rng, t, nb, scale/32)
	}
	w := make([]byte, nb*t.TypeSize())
	if err := quant.Quantize(t, randn(rng, nb*quant.QK_K, scale), w); err != nil {
		tb.Fatal(err)
	}
	return w
}

// kActs quantizes nb blocks of normal activations.
func kActs(rng *rand.Rand, nb int, grouped bool) []q8KBlock {
	x := make([]q8KBlock, nb)
	quantizeQ8K(randn(rng, nb*quant.QK_K, 1), x, grouped)
	return x
}

// kExtremeActs returns blocks of ±127 quants (all +127, all -127, or
// random signs, by block) with consistent sums, and a zero block.
func kExtremeActs(rng *rand.Rand, nb int) []q8KBlock {
	x := make([]q8KBlock, nb)
	for b := range x {
		blk := &x[b]
		blk.d = float32(rng.Float64() * 4)
		for i := range blk.q {
			switch {
			case b%4 == 0:
				blk.q[i] = 127
			case b%4 == 1:
				blk.q[i] = -127
			case b%4 == 2:
				blk.q[i] = int8(127 - 254*int(rng.Uint32()&1))
			}
		}
		if b%4 == 3 {
			blk.d = 0
		}
		for g := range blk.bsum {
			var s int16
			for _, q := range blk.q[16*g : 16*g+16] {
				s += int16(q)
			}
			blk.bsum[g] = s
		}
	}
	return x
}

// oracleK is dotK after decodeK.
func oracleK(t quant.Type, w []byte, x []q8KBlock, gemm bool) float32 {
	var r rowK
	r.reset(len(x) * quant.QK_K)
	decodeK(t, w, &r)
	return dotK(&r, x, gemm)
}

// TestAVX2KDots checks each K-quant kernel bit for bit against the oracle:
// quantized normal weights and activations (both quantizer tie rules),
// random weight bytes with large scales, ±127 and zero activations, over
// row lengths of 1 to 64 super-blocks, with gemm off and on.
func TestAVX2KDots(t *testing.T) {
	skipUnderRace(t)
	k := avx2KSet(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, typ := range kTypes {
		testKDots(t, rng, typ, k.q8K[typ])
	}
}

// testKDots runs TestAVX2KDots' cases on the single-row kernel dot of
// type typ.
func testKDots(t *testing.T, rng *rand.Rand, typ quant.Type, dot func(w []byte, x []q8KBlock, gemm bool) float32) {
	counts := []int{1, 2, 3, 5, 16, 17, 64}
	if dot == nil {
		t.Fatalf("%v: no kernel", typ)
	}
	cases := []struct {
		name string
		w    func(nb int) []byte
		x    func(nb int, grouped bool) []q8KBlock
	}{
		{"normal", func(nb int) []byte { return kWeights(t, rng, typ, nb, 1) },
			func(nb int, g bool) []q8KBlock { return kActs(rng, nb, g) }},
		{"small", func(nb int) []byte { return kWeights(t, rng, typ, nb, 1e-3) },
			func(nb int, g bool) []q8KBlock { return kActs(rng, nb, g) }},
		{"raw", func(nb int) []byte { return kRawWeights(rng, typ, nb, 2) },
			func(nb int, g bool) []q8KBlock { return kActs(rng, nb, g) }},
		{"raw-large", func(nb int) []byte { return kRawWeights(rng, typ, nb, 30000) },
			func(nb int, _ bool) []q8KBlock { return kExtremeActs(rng, nb) }},
		{"extreme", func(nb int) []byte { return kRawWeights(rng, typ, nb, 1) },
			func(nb int, _ bool) []q8KBlock { return kExtremeActs(rng, nb) }},
		{"zero", func(nb int) []byte { return make([]byte, nb*typ.TypeSize()) },
			func(nb int, g bool) []q8KBlock { return kActs(rng, nb, g) }},
	}
	for _, c := range cases {
		for _, nb := range counts {
			for _, gemm := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/%s/%d/gemm=%v", typ, c.name, nb, gemm), func(t *testing.T) {
					for rep := range 3 {
						w, x := c.w(nb), c.x(nb, gemm)
						got, want := dot(w, x, gemm), oracleK(typ, w, x, gemm)
						if math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("rep %d: got %v (%#x), want %v (%#x)", rep, got, math.Float32bits(got), want, math.Float32bits(want))
						}
					}
				})
			}
		}
	}
	if got := dot(nil, nil, false); math.Float32bits(got) != 0 {
		t.Errorf("%v: empty row gives %v, want +0", typ, got)
	}
}

// BenchmarkSIMDK compares, per K-quant type at k = 4096, the oracle
// (decodeK + dotK) with the AVX2 kernel, for one activation row (decode)
// and for eight rows against the same weight row (prompt-style reuse).
// The GB/s figure counts the weight row's bytes once per weight row.
func BenchmarkSIMDK(b *testing.B) {
	k := avx2KSet(b)
	const cols = 4096
	nb := cols / quant.QK_K
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range kTypes {
		w := kWeights(b, rng, typ, nb, 1)
		for _, rows := range []int{1, 8} {
			xs := make([][]q8KBlock, rows)
			for j := range xs {
				xs[j] = kActs(rng, nb, false)
			}
			suffix := ""
			if rows > 1 {
				suffix = fmt.Sprintf("x%d", rows)
			}
			b.Run(fmt.Sprintf("%v/go%s", typ, suffix), func(b *testing.B) {
				var r rowK
				r.reset(cols)
				b.SetBytes(int64(len(w)))
				var s float32
				for b.Loop() {
					decodeK(typ, w, &r)
					for _, x := range xs {
						s += dotK(&r, x, false)
					}
				}
				_ = s
			})
			b.Run(fmt.Sprintf("%v/avx2%s", typ, suffix), func(b *testing.B) {
				dot := k.q8K[typ]
				b.SetBytes(int64(len(w)))
				var s float32
				for b.Loop() {
					for _, x := range xs {
						s += dot(w, x, false)
					}
				}
				_ = s
			})
		}
	}
}
