package kernels

import "math"

// FMA32 is a float32 fused multiply-add, a·b + c rounded once, as GCC
// contracts llama.cpp's float expressions (through float64, which holds
// a·b exactly; the second rounding to float32 differs from a true single
// rounding only in vanishingly rare double-rounding cases).
func FMA32(a, b, c float32) float32 {
	return float32(math.FMA(float64(a), float64(b), float64(c)))
}

// Reduce16 sums 16 lanes as _mm512_reduce_add_ps does: halves of 8, then
// of 4, then pairs (0+2, 1+3), then the last two.
func Reduce16(l *[16]float32) float32 {
	var t [8]float32
	for i := range 8 {
		t[i] = l[i] + l[i+8]
	}
	u0, u1, u2, u3 := t[0]+t[4], t[1]+t[5], t[2]+t[6], t[3]+t[7]
	return (u0 + u2) + (u1 + u3)
}
