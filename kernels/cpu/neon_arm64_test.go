package cpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"

	"saji/kernels/quant"
)

// neonVariants are the kernel forms this CPU can run: plain NEON always,
// SDOT where the CPU has the dot-product extension (calling it elsewhere
// would fault).
func neonVariants() []bool {
	if cpu.ARM64.HasASIMDDP {
		return []bool{false, true}
	}
	return []bool{false}
}

func variantName(dot bool) string {
	if dot {
		return "sdot"
	}
	return "neon"
}

// sameBits fails t unless got and want are the same float32 bit for bit.
func sameBits(t *testing.T, what string, got, want float32) {
	t.Helper()
	if math.Float32bits(got) != math.Float32bits(want) {
		t.Errorf("%s: got %g (%#08x), oracle %g (%#08x)", what, got, math.Float32bits(got), want, math.Float32bits(want))
	}
}

// randF16 returns a random finite F16 scale of magnitude about mag.
func randF16(rng *rand.Rand, mag float64) uint16 {
	return quant.F32ToF16(float32(rng.NormFloat64() * mag))
}

// weightRow returns a row of nb blocks of t: quantized normal floats
// ("quant"), random bytes with random finite F16 scales ("raw", every bit
// pattern of the quants and packed scales), or extreme values ("max": all
// quant bytes 0xff or 0x80 alternating and the largest F16 scales).
func weightRow(t *testing.T, rng *rand.Rand, typ quant.Type, nb int, kind string) []byte {
	t.Helper()
	bs, n := typ.TypeSize(), nb*typ.BlockSize()
	w := make([]byte, nb*bs)
	if kind == "quant" {
		if err := quant.Quantize(typ, randn(rng, n, 1), w); err != nil {
			t.Fatal(err)
		}
		return w
	}
	for b := range nb {
		blk := w[b*bs : (b+1)*bs]
		for i := range blk {
			blk[i] = byte(rng.Uint32())
			if kind == "max" {
				blk[i] = []byte{0xff, 0x80, 0x7f, 0x3f}[i%4]
			}
		}
		var f16s []int // offsets of the F16 scales
		switch typ {
		case quant.TypeQ8_0, quant.TypeQ4_0, quant.TypeIQ4_NL, quant.TypeQ5_0:
			f16s = []int{0}
		case quant.TypeQ4_1, quant.TypeQ5_1:
			f16s = []int{0, 2}
		case quant.TypeQ4_K:
			f16s = []int{0, 2}
		case quant.TypeQ6_K:
			f16s = []int{208}
		case quant.TypeQ5_K:
			f16s = []int{0, 2}
		case quant.TypeQ3_K:
			f16s = []int{108}
		case quant.TypeQ2_K:
			f16s = []int{80, 82}
		case quant.TypeIQ4_XS:
			f16s = []int{0}
		}
		for _, o := range f16s {
			h := randF16(rng, 0.01)
			if kind == "max" {
				h = 0x7bff // 65504
			}
			binary.LittleEndian.PutUint16(blk[o:], h)
		}
	}
	return w
}

// actQ8 returns nb Q8_0 (Q8_1 with sums) activation blocks: quantized
// normal floats, or raw quants over the whole int8 range, or all ±127.
func actQ8(rng *rand.Rand, nb int, kind string, sums bool) []q8Block {
	x := make([]q8Block, nb)
	if kind == "quant" {
		quantizeQ8(randn(rng, 32*nb, 1), x, sums)
		return x
	}
	for b := range x {
		x[b].d, x[b].s = float32(rng.NormFloat64()), float32(rng.NormFloat64())
		for i := range x[b].q {
			x[b].q[i] = int8(rng.Uint32())
			if kind == "max" {
				x[b].q[i] = []int8{127, -127, -128, 127}[(i+b)%4]
			}
		}
	}
	return x
}

// actQ8K returns nb Q8_K activation blocks as actQ8 does, grouped or not.
func actQ8K(rng *rand.Rand, nb int, kind string, grouped bool) []q8KBlock {
	x := make([]q8KBlock, nb)
	if kind == "quant" {
		quantizeQ8K(randn(rng, quant.QK_K*nb, 1), x, grouped)
		return x
	}
	for b := range x {
		x[b].d = float32(rng.NormFloat64())
		for i := range x[b].q {
			x[b].q[i] = int8(rng.Uint32())
			if kind == "max" {
				x[b].q[i] = []int8{-128, 127, -127, -128}[(i+b)%4]
			}
		}
		for g := range x[b].bsum {
			var s int16
			for _, q := range x[b].q[16*g : 16*g+16] {
				s += int16(q)
			}
			x[b].bsum[g] = s
		}
	}
	return x
}

var neonKinds = []string{"quant", "raw", "max"}

// TestNEONDetect checks that detectKernels picks the form the CPU runs.
func TestNEONDetect(t *testing.T) {
	k := detectKernels()
	want := "neon"
	if cpu.ARM64.HasASIMDDP {
		want = "neon+dotprod"
	}
	if cpu.ARM64.HasASIMDDP && cpu.ARM64.HasI8MM {
		want = "neon+i8mm"
	}
	if k == nil || k.name != want {
		t.Fatalf("detectKernels: got %v, want %q", k, want)
	}
	for _, typ := range []quant.Type{quant.TypeQ8_0, quant.TypeQ4_0, quant.TypeIQ4_NL, quant.TypeQ4_1, quant.TypeQ5_0, quant.TypeQ5_1} {
		if k.q8[typ] == nil {
			t.Errorf("no %v kernel", typ)
		}
	}
	for _, typ := range neonKTypes {
		if k.q8K[typ] == nil {
			t.Errorf("no %v kernel", typ)
		}
	}
}

// TestNEONQ8 compares the 32-block kernels (Q8_0, Q4_0, IQ4_NL, Q4_1,
// Q5_0, Q5_1), in both forms, with decode32+dot32 bit for bit, over 1 to
// 512 blocks (16 Ki elements) and quantized, raw and extreme inputs.
func TestNEONQ8(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	blocks := []int{1, 2, 3, 7, 33, 512}
	types := []quant.Type{quant.TypeQ8_0, quant.TypeQ4_0, quant.TypeIQ4_NL, quant.TypeQ5_0, quant.TypeQ4_1, quant.TypeQ5_1}
	for _, typ := range types {
		_, sums, _ := dotKindOf(typ)
		for _, dot := range neonVariants() {
			var kern func([]byte, []q8Block) float32
			switch typ {
			case quant.TypeQ8_0:
				kern = q80Kernel(dot)
			case quant.TypeQ4_0, quant.TypeIQ4_NL:
				kern = q40Kernel(dot, typ == quant.TypeIQ4_NL)
			default:
				kern = q5Kernel(dot, typ)
			}
			for _, nb := range blocks {
				for _, kind := range neonKinds {
					w := weightRow(t, rng, typ, nb, kind)
					x := actQ8(rng, nb, kind, sums)
					var r row32
					r.reset(32 * nb)
					decode32(typ, w, &r)
					what := fmt.Sprintf("%v/%s/%d blocks/%s", typ, variantName(dot), nb, kind)
					sameBits(t, what, kern(w, x), dot32(&r, x))
				}
			}
		}
	}
}

// neonKTypes are the super-block types with NEON kernels.
var neonKTypes = []quant.Type{quant.TypeQ2_K, quant.TypeQ3_K, quant.TypeQ4_K, quant.TypeQ5_K, quant.TypeQ6_K, quant.TypeIQ4_XS}

// neonKKernel returns the NEON kernel for typ, in the SDOT form if dot.
func neonKKernel(typ quant.Type, dot bool) func([]byte, []q8KBlock, bool) float32 {
	return map[quant.Type]func(bool) func([]byte, []q8KBlock, bool) float32{
		quant.TypeQ2_K: q2KKernel, quant.TypeQ3_K: q3KKernel, quant.TypeQ4_K: q4KKernel,
		quant.TypeQ5_K: q5KKernel, quant.TypeQ6_K: q6KKernel, quant.TypeIQ4_XS: iq4xsKernel,
	}[typ](dot)
}

// TestNEONQ8K compares the K-quant kernels (Q2_K to Q6_K, IQ4_XS), in both forms and
// for gemm and gemv, with decodeK+dotK bit for bit, over 1 to 64
// super-blocks (16 Ki elements) and quantized, raw and extreme inputs.
func TestNEONQ8K(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	blocks := []int{1, 2, 3, 5, 33, 64}
	for _, typ := range neonKTypes {
		for _, dot := range neonVariants() {
			kern := neonKKernel(typ, dot)
			for _, nb := range blocks {
				for _, kind := range neonKinds {
					for _, gemm := range []bool{false, true} {
						w := weightRow(t, rng, typ, nb, kind)
						x := actQ8K(rng, nb, kind, gemm)
						var r rowK
						r.reset(quant.QK_K * nb)
						decodeK(typ, w, &r)
						what := fmt.Sprintf("%v/%s/%d blocks/%s/gemm=%v", typ, variantName(dot), nb, kind, gemm)
						sameBits(t, what, kern(w, x, gemm), dotK(&r, x, gemm))
					}
				}
			}
		}
	}
}

// TestNEONFloat compares the F32, F16 and BF16 kernels with dotVec and
// dotTiny on the widened weights bit for bit, over lengths with and without
// a tail after the last 64.
func TestNEONFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	lengths := []int{1, 15, 16, 48, 63, 64, 65, 127, 128, 200, 4096, 4097, 16384}
	for _, k := range lengths {
		w, x := randn(rng, k, 1), randn(rng, k, 1)
		if k == 16384 {
			w[3], x[5] = 3e38, -3e-38 // extremes
		}
		sameBits(t, fmt.Sprintf("f32Vec/%d", k), f32VecNEON(w, x), dotVec(w, x, false))
		if k%16 == 0 {
			sameBits(t, fmt.Sprintf("f32Tiny/%d", k), f32TinyNEON(w, x), dotTiny(w, x))
		}
		for _, bf := range []bool{false, true} {
			raw, wide, xr := make([]byte, 2*k), make([]float32, k), make([]float32, k)
			for i := range k {
				h := quant.F32ToF16(w[i])
				wide[i], xr[i] = quant.F16ToF32(h), roundF16(x[i])
				if bf {
					h = quant.F32ToBF16(w[i])
					wide[i], xr[i] = quant.BF16ToF32(h), roundBF16(x[i])
				}
				binary.LittleEndian.PutUint16(raw[2*i:], h)
			}
			name := map[bool]string{false: "f16", true: "bf16"}[bf]
			sameBits(t, fmt.Sprintf("%sVec/%d", name, k), halfVecNEON(bf)(raw, xr), dotVec(wide, xr, true))
			if k%16 == 0 {
				sameBits(t, fmt.Sprintf("%sTiny/%d", name, k), halfTinyNEON(bf)(raw, xr), dotTiny(wide, xr))
			}
		}
	}
}

// TestNEONQuant compares the activation quantizers with quantizeQ8 (with
// and without sums) and quantizeQ8K (grouped or not) field for field, on
// normal floats, rows with ties between +max and -max, all-zero blocks and
// tiny values (subnormal F16 scales).
func TestNEONQuant(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, nb := range []int{1, 3, 64} {
		for _, kind := range []string{"normal", "ties", "zero", "tiny"} {
			x := randn(rng, quant.QK_K*nb, 1)
			switch kind {
			case "ties":
				for b := range nb {
					x[quant.QK_K*b+5+b%7], x[quant.QK_K*b+40] = -7, 7
					x[quant.QK_K*b+100] = -7
				}
			case "zero":
				clear(x[:quant.QK_K])
			case "tiny":
				for i := range x {
					x[i] *= 1e-6
				}
			}
			for _, sums := range []bool{false, true} {
				n := 8 * nb
				got, want := make([]q8Block, n), make([]q8Block, n)
				quantizeQ8NEON(x, got, sums)
				quantizeQ8(x, want, sums)
				for b := range got {
					if got[b] != want[b] {
						t.Fatalf("quantizeQ8 %d blocks/%s/sums=%v: block %d: got %v, oracle %v", n, kind, sums, b, got[b], want[b])
					}
				}
			}
			for _, grouped := range []bool{false, true} {
				got, want := make([]q8KBlock, nb), make([]q8KBlock, nb)
				quantizeQ8KNEON(x, got, grouped)
				quantizeQ8K(x, want, grouped)
				for b := range got {
					if got[b] != want[b] {
						t.Fatalf("quantizeQ8K %d blocks/%s/grouped=%v: block %d differs:\ngot    %v\noracle %v", nb, kind, grouped, b, got[b], want[b])
					}
				}
			}
		}
	}
}

// BenchmarkSIMDNEON times one row of k=4096 per weight type: the oracle
// (decode+dot) against the NEON and SDOT kernels; the bytes are the weight
// row's.
func BenchmarkSIMDNEON(b *testing.B) {
	const k = 4096
	rng := rand.New(rand.NewPCG(7, 8))
	t := &testing.T{}
	for _, typ := range []quant.Type{quant.TypeQ8_0, quant.TypeQ4_0, quant.TypeIQ4_NL} {
		nb := k / 32
		w, x := weightRow(t, rng, typ, nb, "quant"), actQ8(rng, nb, "quant", false)
		b.Run(typ.String()+"/oracle", func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			var r row32
			r.reset(k)
			for b.Loop() {
				decode32(typ, w, &r)
				dot32(&r, x)
			}
		})
		for _, dot := range neonVariants() {
			kern := q80Kernel(dot)
			if typ != quant.TypeQ8_0 {
				kern = q40Kernel(dot, typ == quant.TypeIQ4_NL)
			}
			b.Run(typ.String()+"/"+variantName(dot), func(b *testing.B) {
				b.SetBytes(int64(len(w)))
				for b.Loop() {
					kern(w, x)
				}
			})
		}
	}
	for _, typ := range neonKTypes {
		nb := k / quant.QK_K
		w, x := weightRow(t, rng, typ, nb, "quant"), actQ8K(rng, nb, "quant", false)
		b.Run(typ.String()+"/oracle", func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			var r rowK
			r.reset(k)
			for b.Loop() {
				decodeK(typ, w, &r)
				dotK(&r, x, false)
			}
		})
		for _, dot := range neonVariants() {
			kern := neonKKernel(typ, dot)
			b.Run(typ.String()+"/"+variantName(dot), func(b *testing.B) {
				b.SetBytes(int64(len(w)))
				for b.Loop() {
					kern(w, x, false)
				}
			})
		}
	}
	w, x := randn(rng, k, 1), randn(rng, k, 1)
	b.Run("F32/oracle", func(b *testing.B) {
		b.SetBytes(4 * k)
		for b.Loop() {
			dotVec(w, x, false)
		}
	})
	b.Run("F32/neon", func(b *testing.B) {
		b.SetBytes(4 * k)
		for b.Loop() {
			f32VecNEON(w, x)
		}
	})
}
