//go:build !amd64 && !arm64

package cpu

// attnDots sets out[c] = q·k[c·ldk:][:len(q)] for c < len(out).
func attnDots(out, q, k []float32, ldk int) { attnDotsGo(out, q, k, ldk) }

// attnAcc adds Σ_c p[c]·v[c·ldv:][:len(acc)] to acc.
func attnAcc(acc, v, p []float32, ldv int) { attnAccGo(acc, v, p, ldv) }

// widenF16 sets the rows rows of n values of dst to the F16 values of
// rows of src stride bytes apart.
func widenF16(dst []float32, src []byte, n, stride, rows int) {
	for r := range rows {
		widenF16Go(dst[r*n:(r+1)*n], src[r*stride:])
	}
}

// dequantQ8 sets the rows rows of n (a multiple of 32) values of dst to
// the values of rows of Q8_0 blocks stride bytes apart in src.
func dequantQ8(dst []float32, src []byte, n, stride, rows int) {
	for r := range rows {
		dequantQ8Row(dst[r*n:(r+1)*n], src[r*stride:])
	}
}

// prefetchRows does nothing on this architecture.
func prefetchRows(p *byte, stride, n, size int) {}

// f16Acc sets acc[i] = roundF16(fma32(v[i], vs, acc[i])) for the F16
// values v.
func f16Acc(acc []float32, v []byte, vs float32) { f16AccGo(acc, v, vs) }

// f16Scale sets acc[i] = roundF16(acc[i]·ms).
func f16Scale(acc []float32, ms float32) { f16ScaleGo(acc, ms) }

// f16AccCells is f16AccCellsGo.
func f16AccCells(acc []float32, v []byte, off []int, ms, vs []float32) {
	f16AccCellsGo(acc, v, off, ms, vs)
}

// seqDots64 sets out[c] = Σ_i q[i]·kt[64i+c] for the 64 cells of a
// transposed key tile, each a chain of fused multiply-adds in element order.
func seqDots64(out *[64]float32, q, kt []float32) { seqDots64Go(out, q, kt) }

// f16AccCells4 reports false: there is no four-row kernel here.
func f16AccCells4(acc []float32, vd int, v []byte, off []int, ms, vs *[oneRowTokens][oneRowCells]float32, g, j0 int) bool {
	return false
}
