package cpu

import "golang.org/x/sys/cpu"

// ewAVX2 reports whether the element-wise AVX2 kernels can run: where the
// CPU has them and SAJI_SIMD does not turn SIMD off.
var ewAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && !simdDisabled()

// siluAVX2 sets y[i] = x[i]/(1+expV(-x[i]))·gate[i] for i < n&^7, bit for
// bit as siluRow computes its full vectors.
//
//go:noescape
func siluAVX2(y, x, gate *float32, n int)

// expRowFast sets dst[i] = expV(src[i]) (len(dst) == len(src)).
func expRowFast(dst, src []float32) {
	n := 0
	if ewAVX2 && len(src) >= 8 {
		n = len(src) &^ 7
		expShiftAVX2(&dst[0], &src[0], 0, n) // x - 0 is x, whatever x
	}
	for i := n; i < len(src); i++ {
		dst[i] = expV(src[i])
	}
}

// siluRowFast is siluRow, with its full vectors of 16 computed by AVX2:
// the same values bit for bit.
func siluRowFast(y, x, g []float32) {
	n := len(x) &^ 15
	if !ewAVX2 || n == 0 {
		siluRow(y, x, g)
		return
	}
	siluAVX2(&y[0], &x[0], &g[0], n)
	for i := n; i < len(x); i++ {
		y[i] = x[i] / (1 + expF(-x[i])) * g[i]
	}
}

// scaleMax64 multiplies a tile's 64 scores by scale and returns their
// maximum (the products are scaleMax64Go's; a NaN score makes the
// attention row NaN either way).
func scaleMax64(kq *[64]float32, scale float32) float32 {
	if ewAVX2 {
		return scaleMaxAVX2(&kq[0], scale, len(kq))
	}
	return scaleMax64Go(kq, scale)
}

// expShift64 sets kq[c] = expV(kq[c] - m), expRowFast's values.
func expShift64(kq *[64]float32, m float32) {
	if ewAVX2 {
		expShiftAVX2(&kq[0], &kq[0], m, len(kq))
		return
	}
	expShift64Go(kq, m)
}

// expShiftAVX2 sets dst[i] = expV(src[i] - shift) for i < n&^7, bit for
// bit.
//
//go:noescape
func expShiftAVX2(dst, src *float32, shift float32, n int)

// scaleMaxAVX2 multiplies the n values (a multiple of 8, at least 8) at x
// by scale in place and returns their maximum.
//
//go:noescape
func scaleMaxAVX2(x *float32, scale float32, n int) float32
