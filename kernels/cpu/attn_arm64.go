package cpu

// attnNEON reports whether the attention and element-wise NEON kernels
// can run: unless SAJI_SIMD=off, NEON and the F16 conversions being part
// of every arm64 CPU.
var attnNEON = !simdDisabled()

// attnDotsNEON sets out[c] = Σ_i q[i]·k[c·ldk+i] (i < hd, a multiple of 8)
// for c < n.
//
//go:noescape
func attnDotsNEON(out, q, k *float32, hd, ldk, n int)

// attnAccNEON adds Σ_c p[c]·v[c·ldv+i] (c < n) to acc[i] for i < vd (a
// multiple of 8).
//
//go:noescape
func attnAccNEON(acc, v, p *float32, vd, ldv, n int)

// f16ToF32NEON widens rows rows of n (a multiple of 8) F16 values, stride
// bytes apart from src, into consecutive rows of dst.
//
//go:noescape
func f16ToF32NEON(dst *float32, src *byte, n, stride, rows int)

// q8ToF32NEON dequantizes rows rows of blocks Q8_0 blocks, stride bytes
// apart from src, into consecutive rows of dst.
//
//go:noescape
func q8ToF32NEON(dst *float32, src *byte, blocks, stride, rows int)

// prefetchRows asks the caches for the first size bytes (size > 0) of n
// rows stride bytes apart from p.
//
//go:noescape
func prefetchRows(p *byte, stride, n, size int)

// attnDots sets out[c] = q·k[c·ldk:][:len(q)] for c < len(out).
func attnDots(out, q, k []float32, ldk int) {
	n := len(out)
	if n == 0 {
		return
	}
	_ = k[(n-1)*ldk+len(q)-1]
	if attnNEON && len(q)%8 == 0 {
		attnDotsNEON(&out[0], &q[0], &k[0], len(q), ldk, n)
		return
	}
	attnDotsGo(out, q, k, ldk)
}

// attnAcc adds Σ_c p[c]·v[c·ldv:][:len(acc)] to acc.
func attnAcc(acc, v, p []float32, ldv int) {
	n := len(p)
	if n == 0 {
		return
	}
	_ = v[(n-1)*ldv+len(acc)-1]
	if attnNEON && len(acc)%8 == 0 {
		attnAccNEON(&acc[0], &v[0], &p[0], len(acc), ldv, n)
		return
	}
	attnAccGo(acc, v, p, ldv)
}

// widenF16 sets the rows rows of n values of dst to the F16 values of
// rows of src stride bytes apart.
func widenF16(dst []float32, src []byte, n, stride, rows int) {
	if rows == 0 || n == 0 {
		return
	}
	_, _ = dst[rows*n-1], src[(rows-1)*stride+2*n-1]
	if attnNEON && n%8 == 0 {
		f16ToF32NEON(&dst[0], &src[0], n, stride, rows)
		return
	}
	for r := range rows {
		widenF16Go(dst[r*n:(r+1)*n], src[r*stride:])
	}
}

// dequantQ8 sets the rows rows of n (a multiple of 32) values of dst to
// the values of rows of Q8_0 blocks stride bytes apart in src.
func dequantQ8(dst []float32, src []byte, n, stride, rows int) {
	if rows == 0 || n == 0 {
		return
	}
	_, _ = dst[rows*n-1], src[(rows-1)*stride+n/32*34-1]
	if attnNEON {
		q8ToF32NEON(&dst[0], &src[0], n/32, stride, rows)
		return
	}
	for r := range rows {
		dequantQ8Row(dst[r*n:(r+1)*n], src[r*stride:])
	}
}

// f16AccNEON sets acc[i] = roundF16(fma(v[i], vs, acc[i])) for the n (a
// multiple of 8) F16 values at v.
//
//go:noescape
func f16AccNEON(acc *float32, v *byte, vs float32, n int)

// f16ScaleNEON sets acc[i] = roundF16(acc[i]·ms) for i < n (a multiple of
// 8).
//
//go:noescape
func f16ScaleNEON(acc *float32, ms float32, n int)

// seqDots64NEON sets out[c] = Σ_i q[i]·kt[64i+c] (i < hd) for c < 64, each
// as fused multiply-adds in element order.
//
//go:noescape
func seqDots64NEON(out, q, kt *float32, hd int)

// f16Acc sets acc[i] = roundF16(fma32(v[i], vs, acc[i])) for the F16
// values v.
func f16Acc(acc []float32, v []byte, vs float32) {
	n := len(acc)
	_ = v[2*n-1]
	if attnNEON && n%8 == 0 {
		f16AccNEON(&acc[0], &v[0], vs, n)
		return
	}
	f16AccGo(acc, v, vs)
}

// f16AccCells is f16AccCellsGo (its f16Acc and f16Scale by NEON).
func f16AccCells(acc []float32, v []byte, off []int, ms, vs []float32) {
	f16AccCellsGo(acc, v, off, ms, vs)
}

// f16Scale sets acc[i] = roundF16(acc[i]·ms).
func f16Scale(acc []float32, ms float32) {
	if attnNEON && len(acc)%8 == 0 && len(acc) > 0 {
		f16ScaleNEON(&acc[0], ms, len(acc))
		return
	}
	f16ScaleGo(acc, ms)
}

// seqDots64 sets out[c] = Σ_i q[i]·kt[64i+c] for the 64 cells of a
// transposed key tile, each a chain of fused multiply-adds in element order.
func seqDots64(out *[64]float32, q, kt []float32) {
	if attnNEON && len(q) > 0 {
		_ = kt[64*len(q)-1]
		seqDots64NEON(&out[0], &q[0], &kt[0], len(q))
		return
	}
	seqDots64Go(out, q, kt)
}

// f16AccCells4 reports false: there is no four-row kernel here.
func f16AccCells4(acc []float32, vd int, v []byte, off []int, ms, vs *[oneRowTokens][oneRowCells]float32, g, j0 int) bool {
	return false
}
