package cpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels/quant"
)

// avx2Kernels returns the AVX2 kernel set, skipping the test on CPUs
// without it.
func avx2Kernels(tb testing.TB) *kernelSet {
	tb.Helper()
	k := detectKernels()
	if k == nil {
		tb.Skip("no AVX2/FMA/F16C")
	}
	return k
}

// blockCounts are the row lengths in blocks the differential tests run:
// one block up to 16 Ki elements, odd counts included.
var blockCounts = []int{1, 2, 3, 5, 8, 17, 64, 127, 512}

// q8Acts returns nb Q8_0 (or Q8_1) blocks quantized from random normal
// activations with the oracle.
func q8Acts(rng *rand.Rand, nb int, sums bool) []q8Block {
	x := randn(rng, 32*nb, 1)
	out := make([]q8Block, nb)
	quantizeQ8(x, out, sums)
	return out
}

// extremeActs returns nb blocks of ±127 quants with large scales (and,
// with sums, Q8_1's F16 sums).
func extremeActs(rng *rand.Rand, nb int, sums bool) []q8Block {
	out := make([]q8Block, nb)
	for b := range out {
		out[b].d = roundF16(float32(1 + rng.IntN(200)))
		var s int32
		for i := range out[b].q {
			out[b].q[i] = int8(127 - 254*rng.IntN(2))
			s += int32(out[b].q[i])
		}
		if sums {
			out[b].s = roundF16(out[b].d * float32(s))
		}
	}
	return out
}

// rawBlocks returns nb random blocks of t (random quants, including Q8_0's
// -128, and finite F16 scales and minimums of either sign about scale).
func rawBlocks(rng *rand.Rand, t quant.Type, nb int, scale float64) []byte {
	bs := t.TypeSize()
	w := make([]byte, nb*bs)
	for i := range w {
		w[i] = byte(rng.Uint32())
	}
	for b := range nb {
		binary.LittleEndian.PutUint16(w[b*bs:], quant.F32ToF16(float32(rng.NormFloat64()*scale)))
		if t == quant.TypeQ4_1 || t == quant.TypeQ5_1 {
			binary.LittleEndian.PutUint16(w[b*bs+2:], quant.F32ToF16(float32(rng.NormFloat64()*scale)))
		}
	}
	return w
}

func TestAVX2Q8Dots(t *testing.T) {
	k := avx2Kernels(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range []quant.Type{quant.TypeQ8_0, quant.TypeQ4_0, quant.TypeIQ4_NL, quant.TypeQ5_0, quant.TypeQ4_1, quant.TypeQ5_1} {
		_, sums, _ := dotKindOf(typ)
		dot := k.q8[typ]
		if dot == nil {
			t.Fatalf("%v: no kernel", typ)
		}
		for _, nb := range blockCounts {
			cases := []struct {
				name string
				w    []byte
				x    []q8Block
			}{
				{"quantized", nil, q8Acts(rng, nb, sums)},
				{"raw", rawBlocks(rng, typ, nb, 0.01), q8Acts(rng, nb, sums)},
				{"extreme", rawBlocks(rng, typ, nb, 3e4), extremeActs(rng, nb, sums)},
				{"zero", make([]byte, nb*typ.TypeSize()), q8Acts(rng, nb, sums)},
			}
			w := make([]byte, nb*typ.TypeSize())
			if err := quant.Quantize(typ, randn(rng, 32*nb, 0.02), w); err != nil {
				t.Fatal(err)
			}
			cases[0].w = w
			for _, c := range cases {
				var r row32
				r.reset(32 * nb)
				decode32(typ, c.w, &r)
				want := dot32(&r, c.x)
				got := dot(c.w, c.x)
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Errorf("%v/%d/%s: got %g, want %g", typ, nb, c.name, got, want)
				}
			}
		}
	}
}

// halfRow returns n random normal weights as F16 (or BF16) bytes and
// their widened values.
func halfRow(rng *rand.Rand, n int, bf bool) ([]byte, []float32) {
	w := make([]byte, 2*n)
	f := make([]float32, n)
	for i, v := range randn(rng, n, 1) {
		h := quant.F32ToF16(v)
		if bf {
			h = quant.F32ToBF16(v)
			f[i] = quant.BF16ToF32(h)
		} else {
			f[i] = quant.F16ToF32(h)
		}
		binary.LittleEndian.PutUint16(w[2*i:], h)
	}
	return w, f
}

func TestAVX2FloatDots(t *testing.T) {
	k := avx2Kernels(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 15, 16, 48, 63, 64, 65, 100, 128, 200, 4096 + 17, 16384} {
		x := randn(rng, n, 1)
		w := randn(rng, n, 1)
		tiny := n%16 == 0
		if got, want := k.f32Vec(w, x), dotVec(w, x, false); math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("f32Vec/%d: got %g, want %g", n, got, want)
		}
		if tiny {
			if got, want := k.f32Tiny(w, x), dotTiny(w, x); math.Float32bits(got) != math.Float32bits(want) {
				t.Errorf("f32Tiny/%d: got %g, want %g", n, got, want)
			}
		}
		for _, bf := range []bool{false, true} {
			vec, tinyK, name, round := k.f16Vec, k.f16Tiny, "f16", roundF16
			if bf {
				vec, tinyK, name, round = k.bf16Vec, k.bf16Tiny, "bf16", roundBF16
			}
			wb, wf := halfRow(rng, n, bf)
			xr := make([]float32, n)
			for i, v := range x {
				xr[i] = round(v)
			}
			if got, want := vec(wb, xr), dotVec(wf, xr, true); math.Float32bits(got) != math.Float32bits(want) {
				t.Errorf("%sVec/%d: got %g, want %g", name, n, got, want)
			}
			if tiny {
				if got, want := tinyK(wb, xr), dotTiny(wf, xr); math.Float32bits(got) != math.Float32bits(want) {
					t.Errorf("%sTiny/%d: got %g, want %g", name, n, got, want)
				}
			}
		}
	}
}

// TestF16Body4 checks each x86 set's four-row F16 dot (f16Body4) against
// its one-row kernel (f16Body) on each row, bit for bit, on rows of 0 to
// 2048 values (multiples of 64) and activation rows far apart.
func TestF16Body4(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, name := range KernelSets() {
		k := buildSet(name)
		if k.f16Body4 == nil {
			t.Errorf("%s: no f16Body4", name)
			continue
		}
		for _, n := range []int{0, 64, 128, 2048} {
			wb, _ := halfRow(rng, max(n, 1), false)
			stride := n + 40
			x := randn(rng, 4*stride, 100)
			for i := range x {
				x[i] = roundF16(x[i])
			}
			var got [4]float32
			k.f16Body4(&wb[0], &x[0], 4*stride, n, &got)
			for r := range got {
				want := float32(0)
				if n > 0 {
					want = k.f16Body(&wb[0], &x[r*stride], n)
				}
				if math.Float32bits(got[r]) != math.Float32bits(want) {
					t.Errorf("%s: f16Body4 of %d, row %d: %g, f16Body %g", name, n, r, got[r], want)
				}
			}
		}
	}
}

// quantInputs returns rows of nb·size floats that exercise the quantizers:
// random normals at several scales, zero blocks, ties of +max and -max in
// either order, and values on rounding midpoints.
func quantInputs(rng *rand.Rand, nb, size int) map[string][]float32 {
	n := nb * size
	in := map[string][]float32{
		"normal": randn(rng, n, 1),
		"tiny":   randn(rng, n, 1e-30),
		"huge":   randn(rng, n, 1e30),
		"zero":   make([]float32, n),
	}
	mixed := randn(rng, n, 1)
	for b := 0; b < nb; b += 2 {
		clear(mixed[b*size : (b+1)*size])
	}
	in["mixed"] = mixed
	for _, name := range []string{"tie+-", "tie-+", "tie--"} {
		x := randn(rng, n, 1)
		for b := range nb {
			i, j := b*size+rng.IntN(size/2), b*size+size/2+rng.IntN(size/2)
			switch name {
			case "tie+-":
				x[i], x[j] = 5, -5
			case "tie-+":
				x[i], x[j] = -5, 5
			default:
				x[i], x[j] = -5, -5
			}
		}
		in[name] = x
	}
	// integers and half-integers against a maximum of 127: the quants are
	// the values themselves, rounded half to even.
	half := make([]float32, n)
	for i := range half {
		half[i] = float32(rng.IntN(253)-126) / 2
		if i%size == 0 {
			half[i] = -127
		}
	}
	in["midpoints"] = half
	return in
}

func TestAVX2QuantQ8(t *testing.T) {
	k := avx2Kernels(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, nb := range blockCounts {
		for name, x := range quantInputs(rng, nb, 32) {
			for _, sums := range []bool{false, true} {
				want := make([]q8Block, nb)
				got := make([]q8Block, nb)
				quantizeQ8(x, want, sums)
				k.quantQ8(x, got, sums)
				for b := range want {
					if !sameQ8(&got[b], &want[b]) {
						t.Errorf("%d/%s/sums=%v block %d: got %+v, want %+v", nb, name, sums, b, got[b], want[b])
						break
					}
				}
			}
		}
	}
}

func sameQ8(a, b *q8Block) bool {
	return math.Float32bits(a.d) == math.Float32bits(b.d) && math.Float32bits(a.s) == math.Float32bits(b.s) && a.q == b.q
}

func TestAVX2QuantQ8K(t *testing.T) {
	k := avx2Kernels(t)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, nb := range []int{1, 2, 3, 16, 64} {
		for name, x := range quantInputs(rng, nb, quant.QK_K) {
			for _, grouped := range []bool{false, true} {
				want := make([]q8KBlock, nb)
				got := make([]q8KBlock, nb)
				for b := range got { // stale contents must be overwritten
					got[b].d, got[b].q[3], got[b].bsum[5] = 1, 9, 9
				}
				quantizeQ8K(x, want, grouped)
				k.quantQ8K(x, got, grouped)
				for b := range want {
					if math.Float32bits(got[b].d) != math.Float32bits(want[b].d) || got[b].q != want[b].q || got[b].bsum != want[b].bsum {
						t.Errorf("%d/%s/grouped=%v block %d: got d=%g bsum=%v, want d=%g bsum=%v", nb, name, grouped, b, got[b].d, got[b].bsum, want[b].d, want[b].bsum)
						break
					}
				}
			}
		}
	}
}

func TestHasF16C(t *testing.T) {
	// Every CPU with AVX2 and FMA that Go's x/sys/cpu has seen has F16C;
	// the check is that the detection runs and agrees with that.
	if detectKernels() != nil && !hasF16C() {
		t.Fatal("kernels detected without F16C")
	}
}

// BenchmarkSIMDQ8 compares the oracle (decode32 then dot32) with the AVX2
// kernel on one row of 4096 weights; the GB/s are of weight bytes.
func BenchmarkSIMDQ8(b *testing.B) {
	k := avx2Kernels(b)
	const n = 4096
	rng := rand.New(rand.NewPCG(9, 10))
	for _, typ := range []quant.Type{quant.TypeQ8_0, quant.TypeQ4_0, quant.TypeIQ4_NL, quant.TypeQ5_0, quant.TypeQ4_1, quant.TypeQ5_1} {
		_, sums, _ := dotKindOf(typ)
		w := make([]byte, n/32*typ.TypeSize())
		if err := quant.Quantize(typ, randn(rng, n, 0.02), w); err != nil {
			b.Fatal(err)
		}
		x := q8Acts(rng, n/32, sums)
		b.Run(fmt.Sprintf("%v/go", typ), func(b *testing.B) {
			var r row32
			r.reset(n)
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				decode32(typ, w, &r)
				dot32(&r, x)
			}
		})
		b.Run(fmt.Sprintf("%v/avx2", typ), func(b *testing.B) {
			dot := k.q8[typ]
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				dot(w, x)
			}
		})
	}
}

// BenchmarkSIMDFloat compares dotVec and dotTiny (on widened weights for
// F16/BF16, widening included) with the AVX2 kernels at 4096 elements.
func BenchmarkSIMDFloat(b *testing.B) {
	k := avx2Kernels(b)
	const n = 4096
	rng := rand.New(rand.NewPCG(11, 12))
	x := randn(rng, n, 1)
	w32 := randn(rng, n, 1)
	wh, _ := halfRow(rng, n, false)
	wb, _ := halfRow(rng, n, true)
	wf := make([]float32, n)
	b.Run("F32vec/go", func(b *testing.B) {
		b.SetBytes(4 * n)
		for b.Loop() {
			dotVec(w32, x, false)
		}
	})
	b.Run("F32vec/avx2", func(b *testing.B) {
		b.SetBytes(4 * n)
		for b.Loop() {
			k.f32Vec(w32, x)
		}
	})
	b.Run("F32tiny/go", func(b *testing.B) {
		b.SetBytes(4 * n)
		for b.Loop() {
			dotTiny(w32, x)
		}
	})
	b.Run("F32tiny/avx2", func(b *testing.B) {
		b.SetBytes(4 * n)
		for b.Loop() {
			k.f32Tiny(w32, x)
		}
	})
	for _, c := range []struct {
		name      string
		w         []byte
		widen     func(uint16) float32
		vec, tiny func(w []byte, x []float32) float32
	}{
		{"F16", wh, quant.F16ToF32, k.f16Vec, k.f16Tiny},
		{"BF16", wb, quant.BF16ToF32, k.bf16Vec, k.bf16Tiny},
	} {
		b.Run(c.name+"vec/go", func(b *testing.B) {
			b.SetBytes(2 * n)
			for b.Loop() {
				for i := range wf {
					wf[i] = c.widen(binary.LittleEndian.Uint16(c.w[2*i:]))
				}
				dotVec(wf, x, true)
			}
		})
		b.Run(c.name+"vec/avx2", func(b *testing.B) {
			b.SetBytes(2 * n)
			for b.Loop() {
				c.vec(c.w, x)
			}
		})
		b.Run(c.name+"tiny/avx2", func(b *testing.B) {
			b.SetBytes(2 * n)
			for b.Loop() {
				c.tiny(c.w, x)
			}
		})
	}
}

// BenchmarkSIMDQuant compares the activation quantizers with the oracle
// on a row of 4096 floats.
func BenchmarkSIMDQuant(b *testing.B) {
	k := avx2Kernels(b)
	const n = 4096
	x := randn(rand.New(rand.NewPCG(13, 14)), n, 1)
	q8 := make([]q8Block, n/32)
	q8k := make([]q8KBlock, n/quant.QK_K)
	b.Run("Q8_1/go", func(b *testing.B) {
		b.SetBytes(4 * n)
		for b.Loop() {
			quantizeQ8(x, q8, true)
		}
	})
	b.Run("Q8_1/avx2", func(b *testing.B) {
		b.SetBytes(4 * n)
		for b.Loop() {
			k.quantQ8(x, q8, true)
		}
	})
	b.Run("Q8_K/go", func(b *testing.B) {
		b.SetBytes(4 * n)
		for b.Loop() {
			quantizeQ8K(x, q8k, false)
		}
	})
	b.Run("Q8_K/avx2", func(b *testing.B) {
		b.SetBytes(4 * n)
		for b.Loop() {
			k.quantQ8K(x, q8k, false)
		}
	})
}
