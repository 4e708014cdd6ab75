package cpu

import "golang.org/x/sys/cpu"

// attnAVX2 reports whether the attention kernels below can run.
var attnAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C

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

// f16ToF32AVX2 widens n (a multiple of 8) F16 values at src into dst.
//
//go:noescape
func f16ToF32AVX2(dst *float32, src *byte, n int)

// q8ToF32AVX2 dequantizes blocks Q8_0 blocks at src into dst.
//
//go:noescape
func q8ToF32AVX2(dst *float32, src *byte, blocks int)

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

// attnAcc adds Σ_c p[c]·v[c·ldv:][:len(acc)] to acc.
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

// widenF16 sets dst to the len(dst) F16 values at the start of src.
func widenF16(dst []float32, src []byte) {
	n := 0
	if attnAVX2 && len(dst) >= 8 {
		n = len(dst) &^ 7
		_ = src[2*n-1]
		f16ToF32AVX2(&dst[0], &src[0], n)
	}
	widenF16Go(dst[n:], src[2*n:])
}

// dequantQ8 sets dst (a multiple of 32 long) to the values of the Q8_0
// blocks at the start of src.
func dequantQ8(dst []float32, src []byte) {
	if attnAVX2 && len(dst) >= 32 {
		blocks := len(dst) / 32
		_ = src[34*blocks-1]
		q8ToF32AVX2(&dst[0], &src[0], blocks)
		return
	}
	dequantQ8Row(dst, src)
}
