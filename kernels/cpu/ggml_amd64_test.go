//go:build linux || darwin

package cpu

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"

	"saji/kernels/quant"
)

// ggmlTraitsCPU is the start of ggml's struct ggml_type_traits_cpu
// (ggml-cpu.h), up to the fields the test reads.
type ggmlTraitsCPU struct {
	fromFloat  uintptr // void (const float *x, void *y, int64_t k)
	vecDot     uintptr // void (int n, float *s, size_t bs, const void *x, size_t bx, const void *y, size_t by, int nrc)
	vecDotType int32
}

// ggmlTraits is ggml's struct ggml_type_traits (ggml.h), up to the fields
// the test reads.
type ggmlTraits struct {
	_            [40]byte // type_name, blck_size, blck_size_interleave, type_size, is_quantized
	toFloat      uintptr  // void (const void *x, float *y, int64_t k)
	fromFloatRef uintptr  // void (const float *x, void *y, int64_t k)
}

// ggmlLib opens the library $SAJI_GGML_CPU names, or skips t.
func ggmlLib(t *testing.T) uintptr {
	t.Helper()
	lib := os.Getenv("SAJI_GGML_CPU")
	if lib == "" {
		t.Skip("set SAJI_GGML_CPU to llama.cpp's libggml-cpu shared library to compare with ggml")
	}
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestConvertMatchesGgml decodes random blocks of the IQ2 and IQ3 types
// with quant.Dequantize and with ggml's to_float (libggml-base, reached
// through $SAJI_GGML_CPU's library), and encodes normal values to IQ3_S
// with quant.Quantize and ggml's reference quantizer: the floats and the
// bytes must be identical.
func TestConvertMatchesGgml(t *testing.T) {
	h := ggmlLib(t)
	var traits func(typ int32) *ggmlTraits
	purego.RegisterLibFunc(&traits, h, "ggml_get_type_traits")
	rng := rand.New(rand.NewPCG(7, 8))
	for _, typ := range iqTypes {
		const nb = 64
		w := kRawWeights(rng, typ, nb, 1)
		got, want := make([]float32, nb*quant.QK_K), make([]float32, nb*quant.QK_K)
		if err := quant.Dequantize(typ, w, got); err != nil {
			t.Fatal(err)
		}
		purego.SyscallN(traits(int32(typ)).toFloat, uintptr(unsafe.Pointer(&w[0])), uintptr(unsafe.Pointer(&want[0])), uintptr(len(want)))
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v: element %d is %g, ggml's %g", typ, i, got[i], want[i])
			}
		}
	}
	x := randn(rng, 64*quant.QK_K, 1)
	got, want := make([]byte, 64*110), make([]byte, 64*110)
	if err := quant.Quantize(quant.TypeIQ3_S, x, got); err != nil {
		t.Fatal(err)
	}
	var initQuant func(typ int32)
	purego.RegisterLibFunc(&initQuant, h, "ggml_quantize_init")
	initQuant(int32(quant.TypeIQ3_S))
	purego.SyscallN(traits(int32(quant.TypeIQ3_S)).fromFloatRef, uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&want[0])), uintptr(len(x)))
	if string(got) != string(want) {
		t.Error("IQ3_S: Saji's bytes differ from ggml's quantize_row_iq3_s_ref")
	}
}

// TestDotMatchesGgml compares the x86-64 K-quant-style dot products (the Q8_K
// activations, the oracle and the SIMD kernels) with ggml's own CPU
// functions, called in the llama.cpp build's libggml-cpu that
// $SAJI_GGML_CPU names (as llama.cpp's x86-64 AVX-512 build computes a
// matrix product of these types: quantize_row_q8_K, then vec_dot row by
// row). Random weight blocks and activations; every result must be equal
// bit for bit. It is skipped when $SAJI_GGML_CPU is not set.
func TestDotMatchesGgml(t *testing.T) {
	h := ggmlLib(t)
	var (
		cpuInit func()
		traits  func(typ int32) *ggmlTraitsCPU
	)
	purego.RegisterLibFunc(&cpuInit, h, "ggml_cpu_init")
	purego.RegisterLibFunc(&traits, h, "ggml_get_type_traits_cpu")
	cpuInit()
	q8k := traits(int32(quant.TypeQ8_K))
	k := detectKernels()
	rng := rand.New(rand.NewPCG(5, 6))
	types := append([]quant.Type{quant.TypeQ3_K, quant.TypeQ5_K, quant.TypeQ6_K}, iqTypes...)
	for _, typ := range types {
		tr := traits(int32(typ))
		if quant.Type(tr.vecDotType) != quant.TypeQ8_K {
			t.Fatalf("%v: ggml multiplies it with %v", typ, quant.Type(tr.vecDotType))
		}
		for _, n := range []int{256, 4096} {
			const rows = 64
			nb := n / quant.QK_K
			w := kRawWeights(rng, typ, rows*nb, 0.05)
			x := randn(rng, n, 1)
			want := make([]q8KBlock, nb) // the Go struct has Q8_K's C layout
			purego.SyscallN(q8k.fromFloat, uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&want[0])), uintptr(n))
			xq := make([]q8KBlock, nb)
			quantizeQ8K(x, xq, false)
			if !sameQ8K(xq, want) {
				t.Errorf("%v n=%d: Saji's Q8_K activations differ from ggml's", typ, n)
			}
			rs := nb * typ.TypeSize()
			var bad, badSIMD int
			var worst float64
			for r := range rows {
				row := w[r*rs : (r+1)*rs]
				var s float32
				purego.SyscallN(tr.vecDot, uintptr(n), uintptr(unsafe.Pointer(&s)), 0,
					uintptr(unsafe.Pointer(&row[0])), 0, uintptr(unsafe.Pointer(&want[0])), 0, 1)
				if got := oracleK(typ, row, want, false); math.Float32bits(got) != math.Float32bits(s) {
					bad++
					worst = max(worst, math.Abs(float64(got-s)))
				}
				if dot := k.dotQ8K(typ); dot != nil && math.Float32bits(dot(row, want, false)) != math.Float32bits(s) {
					badSIMD++
				}
			}
			if bad > 0 || badSIMD > 0 {
				t.Errorf("%v n=%d: %d of %d rows differ from ggml's vec_dot (max %.3g), %d on %s", typ, n, bad, rows, worst, badSIMD, k.name)
			}
		}
	}
}

// sameQ8K reports whether two rows of Q8_K blocks hold the same bytes.
func sameQ8K(a, b []q8KBlock) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
