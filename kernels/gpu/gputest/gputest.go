// Package gputest is test support for the GPU backends' tests: the same
// tensors on a GPU backend and the CPU oracle.
//
// The CUDA and Metal test suites put each operand on both backends
// (Backends.F32, Typed, Weight), run an operation on each side and read
// both results back (Backends.Read) to compare them; the helpers here are
// the part of that they share. Each suite keeps its own tolerances and
// comparisons.
package gputest

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/gpu"
	"saji/kernels/quant"
)

// Pair is one tensor on both backends of a Backends: G on the GPU, C on
// the CPU.
type Pair struct{ G, C kernels.Tensor }

// Backends is the pair of backends a test compares: a GPU backend and the
// CPU backend that is its oracle.
type Backends struct {
	G *gpu.Backend
	C *cpu.Backend
}

// F32 puts vals (nil: zeros), of shape, on both backends as an F32
// tensor.
func (bs Backends) F32(t testing.TB, vals []float32, shape ...int) Pair {
	t.Helper()
	return bs.Typed(t, quant.TypeF32, vals, shape...)
}

// Typed puts vals (nil: zeros) on both backends as a new tensor of typ
// (F32, F16, Q8_0), converted by each backend's Write.
func (bs Backends) Typed(t testing.TB, typ quant.Type, vals []float32, shape ...int) Pair {
	t.Helper()
	var p Pair
	for i, b := range []kernels.Backend{bs.G, bs.C} {
		x, err := b.New(typ, shape...)
		if err != nil {
			t.Fatal(err)
		}
		if vals != nil {
			if err := b.Write(x, vals); err != nil {
				t.Fatal(err)
			}
		}
		if i == 0 {
			p.G = x
		} else {
			p.C = x
		}
	}
	return p
}

// Weight puts the bytes of a weight of typ on both backends.
func (bs Backends) Weight(t testing.TB, typ quant.Type, data []byte, shape ...int) Pair {
	t.Helper()
	g, err := bs.G.Weight(typ, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	c, err := bs.C.Weight(typ, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	return Pair{g, c}
}

// Read returns the values of both sides of p.
func (bs Backends) Read(t testing.TB, p Pair) (g, c []float32) {
	t.Helper()
	n := kernels.Cols(p.G) * kernels.Rows(p.G)
	g, c = make([]float32, n), make([]float32, n)
	if err := bs.G.Read(p.G, g); err != nil {
		t.Fatal(err)
	}
	if err := bs.C.Read(p.C, c); err != nil {
		t.Fatal(err)
	}
	return g, c
}

// RandFloats returns n values of r uniform in [-scale, scale).
func RandFloats(r *rand.Rand, n int, scale float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = (2*r.Float32() - 1) * scale
	}
	return v
}

// Quantize returns vals (a whole number of blocks) in typ's block layout,
// as quant.Quantize makes it.
func Quantize(t testing.TB, typ quant.Type, vals []float32) []byte {
	t.Helper()
	n, err := typ.RowSize(int64(len(vals)))
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, n)
	if err := quant.Quantize(typ, vals, data); err != nil {
		t.Fatal(err)
	}
	return data
}

// Dequantize returns the n values of data in typ's block layout.
func Dequantize(t testing.TB, typ quant.Type, data []byte, n int) []float32 {
	t.Helper()
	v := make([]float32, n)
	if err := quant.Dequantize(typ, data, v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Q8_0Activations returns x (a whole number of 32-value blocks) as the
// Q8_0 activation blocks of quantize_q8_0 and of the CPU backend's matrix
// product (ggml's): d = max|x|/127 rounded to F16, q = x·(127/max|x|)
// rounded half to even. quant.Quantize's Q8_0, the weight format, rounds
// otherwise.
func Q8_0Activations(x []float32) []byte {
	out := make([]byte, 0, len(x)/32*34)
	for b := 0; b+32 <= len(x); b += 32 {
		xb := x[b : b+32]
		var amax float32
		for _, v := range xb {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		var id float32
		if amax != 0 {
			id = 127 / amax
		}
		out = binary.LittleEndian.AppendUint16(out, quant.F32ToF16(amax/127))
		for _, v := range xb {
			out = append(out, byte(int8(math.RoundToEven(float64(v*id)))))
		}
	}
	return out
}

// Upload returns a buffer of dev holding data, freed when t ends.
func Upload(t testing.TB, dev gpu.Device, data []byte) gpu.Buf {
	t.Helper()
	b, err := dev.Alloc(len(data))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Free(b) })
	if err := dev.Upload(b, 0, data); err != nil {
		t.Fatal(err)
	}
	return b
}

// MatMul returns the product on b of the weight data (of typ, shape
// [k, m]) by x (shape [k, n]): b.MatMul's [m, n] values.
func MatMul(t testing.TB, b kernels.Backend, typ quant.Type, data []byte, x []float32, k, m, n int) []float32 {
	t.Helper()
	w, err := b.Weight(typ, []int{k, m}, data)
	if err != nil {
		t.Fatal(err)
	}
	xt, err := b.New(quant.TypeF32, k, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Write(xt, x); err != nil {
		t.Fatal(err)
	}
	dst, err := b.New(quant.TypeF32, m, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.MatMul(dst, w, xt); err != nil {
		t.Fatal(err)
	}
	out := make([]float32, m*n)
	if err := b.Read(dst, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// ProductMagnitude is Σ_l |w[i][l]·x[j][l]| for each dst[j][i] of the
// product of w (m rows of k) by x (n rows of k), in float64: the scale of
// the rounding error of a float32 sum of those products in any order.
func ProductMagnitude(w, x []float32, k, m, n int) []float64 {
	mag := make([]float64, m*n)
	for j := range n {
		for i := range m {
			a := 0.0
			for l := range k {
				a += math.Abs(float64(w[i*k+l]) * float64(x[j*k+l]))
			}
			mag[j*m+i] = a
		}
	}
	return mag
}

// RopeCases are ropes with sections for the backends' rope tests: Qwen2-VL's
// M-RoPE, Qwen3-VL's IMRoPE (whose last pairs take the extra position)
// and Qwen2-VL's encoder's vision mode.
var RopeCases = []struct {
	Name  string
	Heads int
	P     kernels.RopeParams
}{
	{"mrope qwen2-vl", 2, kernels.RopeParams{HeadDim: 128, Dims: 128, Base: 1e6, Neox: true, Sections: [4]int{16, 24, 24, 0}}},
	{"imrope qwen3-vl", 2, kernels.RopeParams{HeadDim: 128, Dims: 128, Base: 5e6, Neox: true, Sections: [4]int{24, 20, 20, 0}, Interleaved: true}},
	{"vision qwen2-vl", 3, kernels.RopeParams{HeadDim: 80, Dims: 40, Base: 10000, Sections: [4]int{20, 20, 20, 20}, Vision: true}},
}

// RopePositions returns the positions a rope of p takes for rows at pos:
// pos itself, or for a rope with sections four runs of them, as a
// picture's tokens have them: the time, the height and width beside it,
// and the extra position 1.
func RopePositions(p kernels.RopeParams, pos []int32) []int32 {
	if !p.Multi() {
		return pos
	}
	n := len(pos)
	out := make([]int32, 4*n)
	for i, v := range pos {
		out[i], out[n+i], out[2*n+i], out[3*n+i] = v, v+int32(i%3), v+int32(i%5), 1
	}
	return out
}
