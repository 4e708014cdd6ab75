package cpu

import (
	"reflect"
	"testing"

	"golang.org/x/sys/cpu"

	"saji/kernels/quant"
)

// TestAVX512WithoutAVXVNNI runs the matrix product's differential tests on
// the AVX-512 set as a CPU with AVX-512 VNNI and no AVX-VNNI (Zen 4, Ice
// Lake) builds it, on a CPU that has both: there Q8_0's decode kernels
// and Q4_0's and IQ4_NL's single-row kernels are AVX2's, beside the
// AVX-512 tiles, a mix no set of this CPU runs otherwise.
func TestAVX512WithoutAVXVNNI(t *testing.T) {
	kernelSetFor(t, setAVX512)
	if !cpu.X86.HasAVXVNNI {
		t.Skip("cpu lacks avx_vnni: the AVX-512 set's own tests run this mix")
	}
	was := avxVNNI
	avxVNNI = false
	t.Cleanup(func() { avxVNNI = was })

	k, avx2 := buildSet(setAVX512), buildSet(setAVX2)
	code := func(f any) uintptr { return reflect.ValueOf(f).Pointer() }
	for _, typ := range []quant.Type{quant.TypeQ8_0, quant.TypeQ4_0, quant.TypeIQ4_NL} {
		if code(k.q8[typ]) != code(avx2.q8[typ]) {
			t.Errorf("%v: the single-row kernel is not AVX2's", typ)
		}
	}
	if code(k.packed[quant.TypeQ8_0].gemv) != code(avx2.packed[quant.TypeQ8_0].gemv) {
		t.Error("Q8_0: the four-row layout's decode kernel is not AVX2's")
	}
	if testing.Short() {
		t.Skip("the differential tests run without -short")
	}
	t.Setenv("SAJI_SIMD", setAVX512)
	t.Run("MatMulSIMD", TestMatMulSIMD)
	t.Run("AVX512Q8MatMul", TestAVX512Q8MatMul)
	t.Run("RepackMatMul", TestRepackMatMul)
}
