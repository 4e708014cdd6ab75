package cpu

import (
	"fmt"
	"os"
	"testing"
	"unsafe"

	"saji/kernels/quant"
)

// ggmlProducts are matrix products computed by llama.cpp's CPU backend
// (commit 3f545bec, x86-64 AVX-512 build, one thread, the CPU_REPACK buffer
// where ggml uses it) on weights and activations drawn from refLCG. Each
// was made by a 60-line C program against libggml (not in this
// repository): it fills W [k, m] with refLCG's f³ and quantizes it with
// ggml_quantize_chunk (or, for the types that need an importance matrix,
// fills the blocks with refLCG's bytes, fixing the scales as refRawBlocks
// does), fills X [k, n] with 3f, runs ggml_mul_mat(W, X) and prints the
// FNV-1a hashes of the weight bytes and of the outputs.
var ggmlProducts = []struct {
	typ              quant.Type
	k, m, n          int
	seed             uint64
	weights, outputs uint64
}{
	{quant.TypeMXFP4, 256, 16, 1, 1, 0xd02372f6e13d9afa, 0xa8d9115d3329a0a2},
	{quant.TypeMXFP4, 256, 16, 5, 2, 0x9fb4fb2ee0458b42, 0x521929d3e9a139f9},
	{quant.TypeMXFP4, 1024, 8, 4, 3, 0xbd80056cdb32f4bd, 0x90e3ab71e32b2bfc},
	{quant.TypeMXFP4, 2880, 8, 9, 4, 0x68ddba2e6b10df53, 0xaf342f3a068f9621},
	{quant.TypeTQ1_0, 256, 16, 1, 5, 0x1779b457a348522b, 0xae7a0b08e64bcc79},
	{quant.TypeTQ1_0, 512, 8, 5, 6, 0xfd1ecfa50af39ca3, 0x6e6a7f0d66bd6877},
	{quant.TypeTQ2_0, 256, 16, 1, 7, 0x32fa570a26c6a086, 0x12d4b9f03d28d88f},
	{quant.TypeTQ2_0, 1024, 8, 6, 8, 0x27b0e4f47c5a0f44, 0xf96020af94510b43},
	{quant.TypeTQ1_0, 2048, 4, 3, 9, 0xf4f83a7d42148129, 0x48328b9c64c2f1d0},
	{quant.TypeIQ1_S, 256, 16, 1, 10, 0x4509ab97a7aabfce, 0x72ce76ac631e2033},
	{quant.TypeIQ1_S, 1024, 8, 5, 11, 0xe2e5f6f1e1df5c3e, 0x7a6fe10841926ba1},
	{quant.TypeIQ1_M, 256, 16, 1, 12, 0xf4ecf67350a77c15, 0xe229fe0ea09ed939},
	{quant.TypeIQ1_M, 1024, 8, 5, 13, 0x7ddce2a01660010b, 0x31b3250a2d4983dd},
	{quant.TypeIQ1_M, 2048, 4, 2, 14, 0xe851440d72756748, 0x0b6070d72038850f},
}

// TestGGMLProducts recomputes ggmlProducts on the pure-Go oracle and on the
// SIMD kernels and checks both bit for bit.
func TestGGMLProducts(t *testing.T) {
	for _, c := range ggmlProducts {
		w, x := refInputs(c.typ, c.k, c.m, c.n, c.seed)
		for _, b := range []*Backend{NewReference(1), New(2)} {
			t.Run(fmt.Sprintf("%v/%dx%dx%d/%s", c.typ, c.k, c.m, c.n, b.Kernels()), func(t *testing.T) {
				if h := fnv1a(w); h != c.weights {
					t.Fatalf("weight bytes hash %016x, llama.cpp's %016x", h, c.weights)
				}
				wt, err := b.Weight(c.typ, []int{c.k, c.m}, w)
				if err != nil {
					t.Fatal(err)
				}
				dst := newF32(t, b, c.m, c.n)
				if err := b.MatMul(dst, wt, f32(t, b, x, c.k, c.n)); err != nil {
					t.Fatal(err)
				}
				y := read(t, dst)
				if os.Getenv("SAJI_DUMP_PRODUCTS") != "" {
					for _, v := range y {
						fmt.Printf("%.9g\n", v)
					}
				}
				if h := fnv1a(unsafe.Slice((*byte)(unsafe.Pointer(&y[0])), 4*len(y))); h != c.outputs {
					t.Errorf("outputs hash %016x, llama.cpp's %016x (first output %.9g)", h, c.outputs, y[0])
				}
			})
		}
	}
}

// refLCG is the generator of ggmlProducts' inputs: Knuth's MMIX linear
// congruential generator, read 24 bits at a time as floats in [-1, 1) or
// 8 bits at a time as bytes.
type refLCG uint64

func (s *refLCG) step() { *s = *s*6364136223846793005 + 1442695040888963407 }

func (s *refLCG) float() float32 {
	s.step()
	return float32(uint32(*s>>40))*(1.0/16777216)*2 - 1
}

func (s *refLCG) byte() byte {
	s.step()
	return byte(*s >> 56)
}

// refInputs returns ggmlProducts' weight bytes and activations.
func refInputs(typ quant.Type, k, m, n int, seed uint64) (w []byte, x []float32) {
	s := refLCG(seed)
	w = make([]byte, m*k/typ.BlockSize()*typ.TypeSize())
	if typ != quant.TypeIQ1_S && typ != quant.TypeIQ1_M {
		wf := make([]float32, k*m)
		for i := range wf {
			f := s.float()
			wf[i] = f * f * f
		}
		if err := quant.Quantize(typ, wf, w); err != nil {
			panic(err)
		}
	} else {
		for i := range w {
			w[i] = s.byte()
		}
		refRawBlocks(typ, w)
	}
	x = make([]float32, k*n)
	for i := range x {
		x[i] = s.float() * 3
	}
	return w, x
}

// refRawBlocks makes random blocks of typ usable: their float16 scales
// between 2^-7 and 2^-6.
func refRawBlocks(typ quant.Type, w []byte) {
	bs := typ.TypeSize()
	for b := 0; b < len(w); b += bs {
		blk := w[b : b+bs]
		switch typ {
		case quant.TypeIQ1_S: // d is the first half
			blk[1] = 0x20 | blk[1]&3
		case quant.TypeIQ1_M: // the scale is the top nibbles of the last four halves
			blk[55] = blk[55]&0x0f | 0x20
			blk[53] &= 0x3f
		}
	}
}

// fnv1a is the 64-bit FNV-1a hash of b.
func fnv1a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}
