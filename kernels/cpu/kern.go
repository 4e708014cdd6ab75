package cpu

import (
	"os"

	"saji/kernels/quant"
)

// kernelSet holds the SIMD kernels for the running CPU. Every kernel has a
// pure-Go counterpart in this package (the oracle: decode32/dot32,
// decodeK/dotK, dotVec, dotTiny, quantizeQ8, quantizeQ8K) whose results it
// reproduces; a nil kernel falls back to that counterpart. Kernels read the
// weights' bytes as they are in the file: no repacking, no copy.
type kernelSet struct {
	// name says which instruction sets the kernels use ("avx2",
	// "neon+dotprod", ...); it is shown by saji bench.
	name string

	// q8 holds, by weight type, the dot product of one weight row (the raw
	// bytes of len(x) blocks of 32) with Q8_0 (Q8_1 for Q4_1/Q5_1)
	// activations: the same value as dot32 after decode32.
	q8 map[quant.Type]func(w []byte, x []q8Block) float32

	// q8K holds, by weight type, the dot product of one weight row (the raw
	// bytes of len(x) super-blocks of 256) with Q8_K activations: the same
	// value as dotK after decodeK, gemm as there.
	q8K map[quant.Type]func(w []byte, x []q8KBlock, gemm bool) float32

	// f16Vec and f16Tiny are dotVec(widen(w), x, true) and
	// dotTiny(widen(w), x) for a row of F16 weights; bf16Vec and bf16Tiny
	// the same for BF16; f32Vec and f32Tiny are dotVec(w, x, false) and
	// dotTiny(w, x). len(x) is the row length (a multiple of 16 for the
	// tiny forms).
	f16Vec, f16Tiny, bf16Vec, bf16Tiny func(w []byte, x []float32) float32
	f32Vec, f32Tiny                    func(w, x []float32) float32

	// quantQ8 and quantQ8K are quantizeQ8 and quantizeQ8K.
	quantQ8  func(x []float32, out []q8Block, sums bool)
	quantQ8K func(x []float32, out []q8KBlock, grouped bool)
}

// newKernelSet returns an empty set called name, ready for an
// architecture's kernels to be added.
func newKernelSet(name string) *kernelSet {
	return &kernelSet{
		name: name,
		q8:   map[quant.Type]func(w []byte, x []q8Block) float32{},
		q8K:  map[quant.Type]func(w []byte, x []q8KBlock, gemm bool) float32{},
	}
}

// simdDisabled reports whether SAJI_SIMD=off asks for the pure-Go kernels.
func simdDisabled() bool { return os.Getenv("SAJI_SIMD") == "off" }

// Kernels returns the name of the kernel set the backend runs: "go" for the
// pure-Go oracle, otherwise the SIMD instruction sets in use.
func (b *Backend) Kernels() string {
	if b.k == nil {
		return "go"
	}
	return b.k.name
}

// dotQ8 returns the SIMD kernel for t's rows against Q8_0/Q8_1
// activations, or nil.
func (k *kernelSet) dotQ8(t quant.Type) func(w []byte, x []q8Block) float32 {
	if k == nil {
		return nil
	}
	return k.q8[t]
}

// dotQ8K returns the SIMD kernel for t's rows against Q8_K activations, or
// nil.
func (k *kernelSet) dotQ8K(t quant.Type) func(w []byte, x []q8KBlock, gemm bool) float32 {
	if k == nil {
		return nil
	}
	return k.q8K[t]
}

// f32Dot returns the SIMD form of floatDot(n, cols, false), or nil.
func (k *kernelSet) f32Dot(n, cols int) func(w, x []float32) float32 {
	if k == nil {
		return nil
	}
	if n >= 2 && cols%16 == 0 {
		return k.f32Tiny
	}
	return k.f32Vec
}

// halfDot returns the SIMD kernel for an F16 (kind dotF16) or BF16 weight
// row against activations already rounded to the weight type, in the
// order floatDot(n, cols, true) picks, or nil.
func (k *kernelSet) halfDot(kind dotKind, n, cols int) func(w []byte, x []float32) float32 {
	if k == nil {
		return nil
	}
	tiny := n >= 2 && cols%16 == 0
	switch {
	case kind == dotF16 && tiny:
		return k.f16Tiny
	case kind == dotF16:
		return k.f16Vec
	case tiny:
		return k.bf16Tiny
	}
	return k.bf16Vec
}
