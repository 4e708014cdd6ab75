//go:build !amd64

package cpu

// The tiled flash attention's steps that amd64 has in assembly, in Go.

// seqDots64x2 is seqDots64 for two query rows against one key tile.
func seqDots64x2(out0, out1 *[64]float32, q0, q1, kt []float32) {
	seqDots64(out0, q0, kt)
	seqDots64(out1, q1, kt)
}

// attnAcc2 is attnAcc for two rows' weights over the same values.
func attnAcc2(acc0, acc1, v, p0, p1 []float32, ldv int) {
	attnAcc(acc0, v, p0, ldv)
	attnAcc(acc1, v, p1, ldv)
}

// scaleMax64 multiplies a tile's 64 scores by scale and returns their
// maximum.
func scaleMax64(kq *[64]float32, scale float32) float32 { return scaleMax64Go(kq, scale) }

// expShift64 sets kq[c] = expV(kq[c] - m), expRowFast's values.
func expShift64(kq *[64]float32, m float32) { expShift64Go(kq, m) }
