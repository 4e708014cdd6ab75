package cpu

import "golang.org/x/sys/cpu"

// attnAVX2 reports whether the attention kernels below can run, and
// attnAVX512 whether the AVX-512 ones can too: where the CPU has them and
// SAJI_SIMD neither turns SIMD off nor forces a set without AVX-512
// (simdForced).
var (
	attnAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C && !simdDisabled()
	attnAVX512 = attnAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && (simdForced() == "" || simdForced() == setAVX512)
)

// attnDotsAVX2 sets out[c] = Σ_i q[i]·k[c·ldk+i] (i < hd, a multiple of 8)
// for c < n.
//
//go:noescape
func attnDotsAVX2(out, q, k *float32, hd, ldk, n int)

// attnAccAVX2 adds Σ_c p[c]·v[c·ldv+i] (c < n) to acc[i] for i < vd (a
// multiple of 8).
//
//go:noescape
func attnAccAVX2(acc, v, p *float32, vd, ldv, n int)

// f16ToF32AVX2 widens rows rows of n (a multiple of 8) F16 values, stride
// bytes apart from src, into consecutive rows of dst.
//
//go:noescape
func f16ToF32AVX2(dst *float32, src *byte, n, stride, rows int)

// q8ToF32AVX2 dequantizes rows rows of blocks Q8_0 blocks, stride bytes
// apart from src, into consecutive rows of dst.
//
//go:noescape
func q8ToF32AVX2(dst *float32, src *byte, blocks, stride, rows int)

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
	if attnAVX2 && len(q)%8 == 0 {
		attnDotsAVX2(&out[0], &q[0], &k[0], len(q), ldk, n)
		return
	}
	attnDotsGo(out, q, k, ldk)
}

// attnAcc adds Σ_c p[c]·v[c·ldv:][:len(acc)] to acc: for each cell in
// order, acc[i] = fma(p[c], v[c·ldv+i], acc[i]).
func attnAcc(acc, v, p []float32, ldv int) {
	n := len(p)
	if n == 0 {
		return
	}
	_ = v[(n-1)*ldv+len(acc)-1]
	if attnAVX2 && len(acc)%8 == 0 {
		attnAccAVX2(&acc[0], &v[0], &p[0], len(acc), ldv, n)
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
	if attnAVX2 && n%8 == 0 {
		f16ToF32AVX2(&dst[0], &src[0], n, stride, rows)
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
	if attnAVX2 {
		q8ToF32AVX2(&dst[0], &src[0], n/32, stride, rows)
		return
	}
	for r := range rows {
		dequantQ8Row(dst[r*n:(r+1)*n], src[r*stride:])
	}
}

// f16AccAVX2 sets acc[i] = roundF16(fma(v[i], vs, acc[i])) for the n (a
// multiple of 8) F16 values at v.
//
//go:noescape
func f16AccAVX2(acc *float32, v *byte, vs float32, n int)

// f16AccAVX512 is f16AccAVX2 sixteen values to a register (n a multiple
// of 16).
//
//go:noescape
func f16AccAVX512(acc *float32, v *byte, vs float32, n int)

// f16ScaleAVX2 sets acc[i] = roundF16(acc[i]·ms) for i < n (a multiple of
// 8).
//
//go:noescape
func f16ScaleAVX2(acc *float32, ms float32, n int)

// f16Acc sets acc[i] = roundF16(fma32(v[i], vs, acc[i])) for the F16
// values v.
func f16Acc(acc []float32, v []byte, vs float32) {
	n := len(acc)
	_ = v[2*n-1]
	if attnAVX512 && n%8 == 0 {
		// Sixteen lanes to a register, the last eight (if any) in AVX2's.
		m := n &^ 15
		if m > 0 {
			f16AccAVX512(&acc[0], &v[0], vs, m)
		}
		if m < n {
			f16AccAVX2(&acc[m], &v[2*m], vs, n-m)
		}
		return
	}
	if attnAVX2 && n%8 == 0 {
		f16AccAVX2(&acc[0], &v[0], vs, n)
		return
	}
	f16AccGo(acc, v, vs)
}

// f16AccCellsAVX2 is f16AccCells on 64 values (acc and the value rows at
// v+off[j]), for cells > 0 cells.
//
//go:noescape
func f16AccCellsAVX2(acc *float32, v *byte, off *int, ms, vs *float32, cells int)

// f16AccCells4AVX512 is f16AccCellsAVX2 for four rows: row r's 64
// accumulators at acc+r·astride bytes, its scales and weights at
// ms+r·sstride and vs+r·sstride bytes.
//
//go:noescape
func f16AccCells4AVX512(acc *float32, astride int, v *byte, off *int, ms, vs *float32, sstride, cells int)

// f16AccCells4 runs f16AccCells for rows g to g+3 over the same cells (at
// off): row g+r's accumulator acc[r·vd:][:vd], its scales and weights
// ms[g+r][j0:] and vs[g+r][j0:]. It reports false, having done nothing,
// where the AVX-512 kernel cannot run (vd not a multiple of 64).
func f16AccCells4(acc []float32, vd int, v []byte, off []int, ms, vs *[oneRowTokens][oneRowCells]float32, g, j0 int) bool {
	cells := len(off)
	if !attnAVX512 || vd%64 != 0 || cells == 0 {
		return false
	}
	_, _, _ = acc[4*vd-1], ms[g+3][j0+cells-1], vs[g+3][j0+cells-1]
	for _, o := range off {
		_ = v[o : o+2*vd]
	}
	for i := 0; i < vd; i += 64 {
		f16AccCells4AVX512(&acc[i], 4*vd, &v[2*i], &off[0], &ms[g][j0], &vs[g][j0], 4*oneRowCells, cells)
	}
	return true
}

// f16AccCells is f16AccCellsGo, 64 values at a time by AVX2 where acc's
// length is a multiple of 64.
func f16AccCells(acc []float32, v []byte, off []int, ms, vs []float32) {
	n := len(acc)
	if !attnAVX2 || n%64 != 0 || len(off) == 0 {
		f16AccCellsGo(acc, v, off, ms, vs)
		return
	}
	_, _ = ms[len(off)-1], vs[len(off)-1]
	for _, o := range off {
		_ = v[o : o+2*n]
	}
	for i := 0; i < n; i += 64 {
		f16AccCellsAVX2(&acc[i], &v[2*i], &off[0], &ms[0], &vs[0], len(off))
	}
}

// f16Scale sets acc[i] = roundF16(acc[i]·ms).
func f16Scale(acc []float32, ms float32) {
	if attnAVX2 && len(acc)%8 == 0 && len(acc) > 0 {
		f16ScaleAVX2(&acc[0], ms, len(acc))
		return
	}
	f16ScaleGo(acc, ms)
}

// seqDots64AVX2 sets out[c] = Σ_i q[i]·kt[64i+c] (i < hd) for c < 64, each
// as fused multiply-adds in element order.
//
//go:noescape
func seqDots64AVX2(out, q, kt *float32, hd int)

// seqDots64 sets out[c] = Σ_i q[i]·kt[64i+c] for the 64 cells of a
// transposed key tile (hd = len(q) rows of 64), each a chain of fused
// multiply-adds in element order.
func seqDots64(out *[64]float32, q, kt []float32) {
	if attnAVX2 && len(q) > 0 {
		_ = kt[64*len(q)-1]
		seqDots64AVX2(&out[0], &q[0], &kt[0], len(q))
		return
	}
	seqDots64Go(out, q, kt)
}

// seqDots64x2 is seqDots64 for two query rows against one key tile: on
// AVX-512 each row's 64 chains in four registers, both rows' eight chains
// side by side (one row's four are bound by their latency), the same bits.
func seqDots64x2(out0, out1 *[64]float32, q0, q1, kt []float32) {
	if !attnAVX512 || len(q0) == 0 || len(q1) != len(q0) {
		seqDots64(out0, q0, kt)
		seqDots64(out1, q1, kt)
		return
	}
	_ = kt[64*len(q0)-1]
	seqDots64x2AVX512(&out0[0], &out1[0], &q0[0], &q1[0], &kt[0], len(q0))
}

// attnAcc2 is attnAcc for two rows' weights over the same values, on
// AVX-512 both rows' chains side by side (value heads of 80, Qwen-VL's
// encoders', in five registers a row), the same bits.
func attnAcc2(acc0, acc1, v, p0, p1 []float32, ldv int) {
	n, d := len(p0), len(acc0)
	if !attnAVX512 || n == 0 || d%16 != 0 || len(p1) != n || len(acc1) != d {
		attnAcc(acc0, v, p0, ldv)
		attnAcc(acc1, v, p1, ldv)
		return
	}
	_ = v[(n-1)*ldv+d-1]
	off := 0
	if d%80 == 0 {
		for ; off < d; off += 80 {
			attnAcc2x80AVX512(&acc0[off], &acc1[off], &v[off], &p0[0], &p1[0], ldv, n)
		}
		return
	}
	for ; off+64 <= d; off += 64 {
		attnAcc2x64AVX512(&acc0[off], &acc1[off], &v[off], &p0[0], &p1[0], ldv, n)
	}
	for ; off < d; off += 16 {
		attnAcc2x16AVX512(&acc0[off], &acc1[off], &v[off], &p0[0], &p1[0], ldv, n)
	}
}

// seqDots64x2AVX512 is seqDots64AVX2 for two query rows, q0 into out0 and
// q1 into out1.
//
//go:noescape
func seqDots64x2AVX512(out0, out1, q0, q1, kt *float32, hd int)

// attnAcc2x80AVX512 adds Σ_c p0[c]·v[c·ldv:][:80] to acc0[:80] and the
// same with p1 to acc1, as attnAccAVX2 does, for c < n; attnAcc2x64AVX512
// and attnAcc2x16AVX512 do it for 64 and 16 values.
//
//go:noescape
func attnAcc2x80AVX512(acc0, acc1, v, p0, p1 *float32, ldv, n int)

//go:noescape
func attnAcc2x64AVX512(acc0, acc1, v, p0, p1 *float32, ldv, n int)

//go:noescape
func attnAcc2x16AVX512(acc0, acc1, v, p0, p1 *float32, ldv, n int)
