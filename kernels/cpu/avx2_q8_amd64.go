package cpu

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"saji/kernels/quant"
)

// addAVX2Q8 adds the AVX2 kernels for 32-block weights (Q8_0, Q4_0,
// IQ4_NL, MXFP4, Q5_0, Q4_1, Q5_1), F16, BF16 and F32 weights, and the activation quantizers. Each
// reproduces its pure-Go oracle bit for bit: the integer sums are exact and
// the float operations are the oracle's, in its order (see the assembly).
func addAVX2Q8(k *kernelSet) {
	k.q8[quant.TypeQ8_0] = q8Kernel(dotQ8_0AVX2, 34)
	k.q8[quant.TypeQ4_0] = q8Kernel(dotQ4_0AVX2, 18)
	k.q8[quant.TypeIQ4_NL] = q8Kernel(dotIQ4NLAVX2, 18)
	k.q8[quant.TypeMXFP4] = q8Kernel(func(w *byte, x *q8Block, n int) float32 {
		return dotMXFP4AVX2(w, x, n, &e8m0HalfTable)
	}, 17)
	k.q8[quant.TypeQ5_0] = q8Kernel(dotQ5_0AVX2, 22)
	k.q8[quant.TypeQ4_1] = q8Kernel(dotQ4_1AVX2, 20)
	k.q8[quant.TypeQ5_1] = q8Kernel(dotQ5_1AVX2, 24)
	k.f32Vec, k.f32Tiny = f32VecAVX2, f32TinyAVX2
	k.f16Vec, k.f16Tiny = f16VecAVX2, f16TinyAVX2
	k.bf16Vec, k.bf16Tiny = bf16VecAVX2, bf16TinyAVX2
	k.f16Body, k.bf16Body = dotF16VecAVX2, dotBF16VecAVX2
	k.f16Body4 = dotF16Vec4AVX2
	k.f16Rows, k.bf16Rows = dotF16RowsAVX2, dotBF16RowsAVX2
	k.f16RowsH = dotF16RowsHAVX2
	k.quantQ8, k.quantQ8K = quantQ8AVX2Go, quantQ8KAVX2Go
}

// hasF16C reports whether the CPU has the F16C conversions and the OS saves
// the AVX registers they use (x/sys/cpu's HasF16C is the CPUID bit alone;
// HasAVX includes the OS check).
func hasF16C() bool { return cpu.X86.HasF16C && cpu.X86.HasAVX }

// q8Kernel wraps an assembly dot product over n blocks of size bytes into
// the kernelSet's form, checking the lengths so the assembly never reads
// past a slice.
func q8Kernel(dot func(w *byte, x *q8Block, n int) float32, size int) func(w []byte, x []q8Block) float32 {
	return func(w []byte, x []q8Block) float32 {
		if len(x) == 0 {
			return 0
		}
		_ = w[len(x)*size-1]
		return dot(&w[0], &x[0], len(x))
	}
}

// f32VecAVX2 is dotVec(w, x, false).
func f32VecAVX2(w, x []float32) float32 { return f32VecAsm(w, x, dotF32VecAVX2) }

// f32VecAsm is dotVec(w, x, false) with the first len(x)&^63 products summed
// by the assembly dot.
func f32VecAsm(w, x []float32, dot func(w, x *float32, n int) float32) float32 {
	n := len(x)
	if n == 0 {
		return 0
	}
	_ = w[n-1]
	np := n &^ 63
	sum := dot(&w[0], &x[0], np)
	for i := np; i < n; i++ {
		sum = fma32(w[i], x[i], sum)
	}
	return sum
}

// f32TinyAVX2 is dotTiny(w, x); len(x) is a multiple of 16.
func f32TinyAVX2(w, x []float32) float32 {
	n := len(x) &^ 15
	if n == 0 {
		return 0
	}
	_ = w[n-1]
	return dotF32TinyAVX2(&w[0], &x[0], n)
}

// halfVec is dotVec(widen(w), x, true) for a row of 16-bit weights whose
// first len(x)&^63 elements the assembly dot sums.
func halfVec(w []byte, x []float32, dot func(w *byte, x *float32, n int) float32, widen func(uint16) float32) float32 {
	n := len(x)
	if n == 0 {
		return 0
	}
	_ = w[2*n-1]
	np := n &^ 63
	s := float64(dot(&w[0], &x[0], np))
	for i := np; i < n; i++ {
		a := widen(uint16(w[2*i]) | uint16(w[2*i+1])<<8)
		s += float64(a * x[i])
	}
	return float32(s)
}

// f16VecAVX2 is dotVec(widen(w), x, true) for F16 weights.
func f16VecAVX2(w []byte, x []float32) float32 {
	return halfVec(w, x, dotF16VecAVX2, quant.F16ToF32)
}

// bf16VecAVX2 is dotVec(widen(w), x, true) for BF16 weights.
func bf16VecAVX2(w []byte, x []float32) float32 {
	return halfVec(w, x, dotBF16VecAVX2, quant.BF16ToF32)
}

// f16TinyAVX2 is dotTiny(widen(w), x) for F16 weights.
func f16TinyAVX2(w []byte, x []float32) float32 {
	n := len(x) &^ 15
	if n == 0 {
		return 0
	}
	_ = w[2*n-1]
	return dotF16TinyAVX2(&w[0], &x[0], n)
}

// bf16TinyAVX2 is dotTiny(widen(w), x) for BF16 weights.
func bf16TinyAVX2(w []byte, x []float32) float32 {
	n := len(x) &^ 15
	if n == 0 {
		return 0
	}
	_ = w[2*n-1]
	return dotBF16TinyAVX2(&w[0], &x[0], n)
}

// quantQ8AVX2Go is quantizeQ8 (NaN inputs aside: VMAXPS does not propagate
// them as Go's max does).
func quantQ8AVX2Go(x []float32, out []q8Block, sums bool) {
	if len(out) == 0 {
		return
	}
	_ = x[32*len(out)-1]
	quantQ8AVX2(&x[0], &out[0], len(out), sums)
}

// quantQ8KAVX2Go is quantizeQ8K (NaN inputs aside).
func quantQ8KAVX2Go(x []float32, out []q8KBlock, grouped bool) {
	if len(out) == 0 {
		return
	}
	_ = x[quant.QK_K*len(out)-1]
	quantQ8KAVX2(&x[0], &out[0], len(out), grouped)
}

// The assembly reads the activation blocks at fixed offsets.
var (
	_ [40 - unsafe.Sizeof(q8Block{})]byte
	_ [unsafe.Sizeof(q8Block{}) - 40]byte
	_ [8 - unsafe.Offsetof(q8Block{}.q)]byte
	_ [292 - unsafe.Sizeof(q8KBlock{})]byte
	_ [unsafe.Sizeof(q8KBlock{}) - 292]byte
	_ [260 - unsafe.Offsetof(q8KBlock{}.bsum)]byte
)

// dotQ8_0AVX2 is dot32 for n Q8_0 blocks (34 bytes each) at w: eight
// int32 lanes of four products per block (vpsignb, vpmaddubsw, vpmaddwd),
// one vfmadd231ps per block with the scale product d_w·d_x, then hsum8.
//
//go:noescape
func dotQ8_0AVX2(w *byte, x *q8Block, n int) float32

// dotQ4_0AVX2 is dot32 for n Q4_0 blocks (18 bytes each): the integer dot
// of each block, converted to float32 and accumulated with one scalar
// fused multiply-add by d_w·d_x, in block order.
//
//go:noescape
func dotQ4_0AVX2(w *byte, x *q8Block, n int) float32

// dotIQ4NLAVX2 is dotQ4_0AVX2 for IQ4_NL blocks, the nibbles looked up in
// iq4Levels with vpshufb.
//
//go:noescape
func dotIQ4NLAVX2(w *byte, x *q8Block, n int) float32

// dotMXFP4AVX2 is dotIQ4NLAVX2 for n MXFP4 blocks (17 bytes each), the
// nibbles looked up in quant.FP4Levels and the weight scales in scales
// (e8m0HalfTable).
//
//go:noescape
func dotMXFP4AVX2(w *byte, x *q8Block, n int, scales *[256]float32) float32

// dotQ5_0AVX2 is dot32 for n Q5_0 blocks (22 bytes each), in dot32's
// generic order: sum += float32(dot)·(d_w·d_x) + m_w·s_x per block, each
// operation rounded apart (the oracle as Go compiles it for GOAMD64 v1 and
// v2, which have no fused multiply-add).
//
//go:noescape
func dotQ5_0AVX2(w *byte, x *q8Block, n int) float32

// dotQ4_1AVX2 is dotQ5_0AVX2 for Q4_1 blocks (20 bytes) and Q8_1
// activations.
//
//go:noescape
func dotQ4_1AVX2(w *byte, x *q8Block, n int) float32

// dotQ5_1AVX2 is dotQ5_0AVX2 for Q5_1 blocks (24 bytes) and Q8_1
// activations.
//
//go:noescape
func dotQ5_1AVX2(w *byte, x *q8Block, n int) float32

// dotF32VecAVX2 is dotVec(w, x, false) without the tail: n is a multiple
// of 64; eight ymm accumulators (four of 16 lanes) combined and reduced as
// the oracle does.
//
//go:noescape
func dotF32VecAVX2(w, x *float32, n int) float32

// dotF16VecAVX2 is dotF32VecAVX2 on F16 weights widened with vcvtph2ps.
//
//go:noescape
func dotF16VecAVX2(w *byte, x *float32, n int) float32

// dotF16Vec4AVX2 is dotF16VecAVX2 for four activation rows, at x and
// xstride bytes apart, in one call: out[r] is row r's sum, bit for bit
// (decode attention's four query rows of a key row, not a Go call each).
//
//go:noescape
func dotF16Vec4AVX2(w *byte, x *float32, xstride, n int, out *[4]float32)

// dotF16RowsAVX2 sets out[r] to dotF16VecAVX2 of weight row r (at w +
// r·wstride) and x for r < rows (rows > 0), as dotF16RowsAVX512 does.
//
//go:noescape
func dotF16RowsAVX2(w *byte, wstride int, x *float32, n int, out *float32, rows int)

// dotF16RowsHAVX2 is dotF16RowsAVX2 against F16 activations at x, widened
// as they are loaded: each out[r] the same bits as dotF16RowsAVX2's on
// the activations widened first, from half the bytes.
//
//go:noescape
func dotF16RowsHAVX2(w *byte, wstride int, x *byte, n int, out *float32, rows int)

// dotBF16RowsAVX2 is dotF16RowsAVX2 for BF16 weights.
//
//go:noescape
func dotBF16RowsAVX2(w *byte, wstride int, x *float32, n int, out *float32, rows int)

// dotBF16VecAVX2 is dotF32VecAVX2 on BF16 weights widened by a shift.
//
//go:noescape
func dotBF16VecAVX2(w *byte, x *float32, n int) float32

// dotF32TinyAVX2 is dotTiny(w, x) for n a multiple of 16: two ymm
// accumulators (16 lanes), then reduce16.
//
//go:noescape
func dotF32TinyAVX2(w, x *float32, n int) float32

// dotF16TinyAVX2 is dotF32TinyAVX2 on F16 weights.
//
//go:noescape
func dotF16TinyAVX2(w *byte, x *float32, n int) float32

// dotBF16TinyAVX2 is dotF32TinyAVX2 on BF16 weights.
//
//go:noescape
func dotBF16TinyAVX2(w *byte, x *float32, n int) float32

// quantQ8AVX2 is quantizeQ8 of 32·n floats at x into n blocks at out.
//
//go:noescape
func quantQ8AVX2(x *float32, out *q8Block, n int, sums bool)

// quantQ8KAVX2 is quantizeQ8K of 256·n floats at x into n blocks at out.
//
//go:noescape
func quantQ8KAVX2(x *float32, out *q8KBlock, n int, grouped bool)
