package cpu

import "golang.org/x/sys/cpu"

// ewAVX2 reports whether the element-wise AVX2 kernels can run.
var ewAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// expAVX2 sets dst[i] = expV(src[i]) for i < n&^7, bit for bit.
//
//go:noescape
func expAVX2(dst, src *float32, n int)

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
		expAVX2(&dst[0], &src[0], n)
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
