package cpu

// expNEON sets dst[i] = expV(src[i]) for i < n&^3, bit for bit.
//
//go:noescape
func expNEON(dst, src *float32, n int)

// siluNEON sets y[i] = x[i]/(1+expV(-x[i]))·gate[i] for i < n&^3, bit for
// bit as siluRow computes its full vectors.
//
//go:noescape
func siluNEON(y, x, gate *float32, n int)

// expRowFast sets dst[i] = expV(src[i]) (len(dst) == len(src)).
func expRowFast(dst, src []float32) {
	n := 0
	if attnNEON {
		n = len(src) &^ 3
	}
	if n > 0 {
		_ = dst[n-1]
		expNEON(&dst[0], &src[0], n)
	}
	for i := n; i < len(src); i++ {
		dst[i] = expV(src[i])
	}
}

// siluRowFast is siluRow, with its full vectors of 16 computed by NEON:
// the same values bit for bit.
func siluRowFast(y, x, g []float32) {
	n := len(x) &^ 15
	if n == 0 || !attnNEON {
		siluRow(y, x, g)
		return
	}
	_, _ = y[n-1], g[n-1]
	siluNEON(&y[0], &x[0], &g[0], n)
	for i := n; i < len(x); i++ {
		y[i] = x[i] / (1 + expF(-x[i])) * g[i]
	}
}
