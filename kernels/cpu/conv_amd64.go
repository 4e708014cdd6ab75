package cpu

// fmaAVX2 sets y[i] = a[i]·b[i] + y[i], fused, for i < n (a multiple of
// 8): the values of fmaRow bit for bit.
//
//go:noescape
func fmaAVX2(y, a, b *float32, n int)

// fmaRowFast is fmaRow with its full vectors of 8 computed by AVX2.
func fmaRowFast(y, a, b []float32) {
	n := len(y) &^ 7
	if !ewAVX2 || n == 0 {
		fmaRow(y, a, b)
		return
	}
	_, _ = a[n-1], b[n-1]
	fmaAVX2(&y[0], &a[0], &b[0], n)
	fmaRange(y, a, b, n)
}
