package cpu

import (
	"math"

	"saji/kernels"
)

// The floating-point order of ggml's x86-64 AVX-512 kernels, replicated so
// that sums come out bit for bit as in llama.cpp. This matters more than it
// seems: activations are rounded (to F16, or quantized to 8 bits) before each
// matrix product, and a difference in the last bit of a sum can flip one of
// those roundings and move the logits by 1e-3 to 1e-1.

// fma32 is kernels.FMA32, a float32 fused multiply-add.
func fma32(a, b, c float32) float32 { return kernels.FMA32(a, b, c) }

// reduce16 is kernels.Reduce16, _mm512_reduce_add_ps's order.
func reduce16(l *[16]float32) float32 { return kernels.Reduce16(l) }

// dotTiny is llamafile's tinyBLAS dot product (ggml's F32 and F16 matrix
// products of two or more rows): lane i%16 accumulates a[i]·b[i] with fused
// multiply-adds, then the lanes are reduced. len(a) must be a multiple of 16.
func dotTiny(a, b []float32) float32 {
	var acc [16]float32
	for i := 0; i < len(a); i += 16 {
		x, y := a[i:i+16], b[i:i+16]
		for l := range 16 {
			acc[l] = fma32(x[l], y[l], acc[l])
		}
	}
	return reduce16(&acc)
}

// dotVec is ggml_vec_dot_f32 (and _f16 on widened values): four 16-lane
// accumulators over each 64 elements, added 0+2, 1+3, then together and
// reduced; the elements after the last full 64 are added one by one, in
// float32 with fused multiply-adds (wide is false; GCC contracts ggml's
// loop) or float64 (wide, as ggml_vec_dot_f16 does).
func dotVec(a, b []float32, wide bool) float32 {
	var acc [4][16]float32
	np := len(a) &^ 63
	for i := 0; i < np; i += 64 {
		for j := range 4 {
			x, y := a[i+16*j:i+16*j+16], b[i+16*j:i+16*j+16]
			for l := range 16 {
				acc[j][l] = fma32(x[l], y[l], acc[j][l])
			}
		}
	}
	for l := range 16 {
		acc[0][l] += acc[2][l]
		acc[1][l] += acc[3][l]
		acc[0][l] += acc[1][l]
	}
	sum := reduce16(&acc[0])
	if wide {
		s := float64(sum)
		for i := np; i < len(a); i++ {
			s += float64(a[i] * b[i])
		}
		return float32(s)
	}
	for i := np; i < len(a); i++ {
		sum = fma32(a[i], b[i], sum) // contracted by GCC
	}
	return sum
}

// expV is ggml_v_expf, the AVX-512 exponential (max error about 1.5 ulp)
// that ggml's softmax and SiLU use on full vectors of 16.
func expV(x float32) float32 {
	const r = 0x1.8p23
	z := fma32(x, 0x1.715476p+0, r)
	n := z - r
	b := fma32(-n, 0x1.7f7d1cp-20, fma32(-n, 0x1.62e4p-1, x))
	u := b * b
	j := fma32(
		fma32(fma32(0x1.0e4020p-7, b, 0x1.573e2ep-5), u, fma32(0x1.555e66p-3, b, 0x1.fffdb6p-2)),
		u,
		fma32(0x1.ffffecp-1, b, 1))
	if abs32(n) > 192 || n != n {
		if n <= 0 {
			return 0
		}
		return float32(math.Inf(1))
	}
	return float32(math.Ldexp(float64(j), int(n)))
}

// siluRow sets y[i] = silu(x[i])·g[i] as ggml_vec_swiglu_f32 does: full
// vectors of 16 through expV, the rest through expf.
func siluRow(y, x, g []float32) {
	n := len(x) &^ 15
	for i := range n {
		y[i] = x[i] / (1 + expV(-x[i])) * g[i]
	}
	for i := n; i < len(x); i++ {
		y[i] = x[i] / (1 + expF(-x[i])) * g[i]
	}
}
