//go:build !amd64

package cpu

// attnDots sets out[c] = q·k[c·ldk:][:len(q)] for c < len(out).
func attnDots(out, q, k []float32, ldk int) { attnDotsGo(out, q, k, ldk) }

// attnAcc adds Σ_c p[c]·v[c·ldv:][:len(acc)] to acc.
func attnAcc(acc, v, p []float32, ldv int) { attnAccGo(acc, v, p, ldv) }

// widenF16 sets dst to the len(dst) F16 values at the start of src.
func widenF16(dst []float32, src []byte) { widenF16Go(dst, src) }

// dequantQ8 sets dst (a multiple of 32 long) to the values of the Q8_0
// blocks at the start of src.
func dequantQ8(dst []float32, src []byte) { dequantQ8Row(dst, src) }
