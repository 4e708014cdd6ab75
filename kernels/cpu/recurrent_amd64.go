package cpu

// ssmRowsAVX512 is ssmRowsGo for rows rows of nc (a multiple of 64)
// values, with AVX-512.
//
//go:noescape
func ssmRowsAVX512(st, bg, cg, x, y *float32, dA, d float32, nc, rows int)

// ssmRowsAVX2 is ssmRowsGo for rows rows of nc (a multiple of 64) values,
// with AVX2.
//
//go:noescape
func ssmRowsAVX2(st, bg, cg, x, y *float32, dA, d float32, nc, rows int)

// deltaRowsAVX512 is deltaRowsGo for n rows of n (a multiple of 64)
// values, with AVX-512.
//
//go:noescape
func deltaRowsAVX512(st, k, q, v, out *float32, decay, beta, scale float32, n int)

// deltaRowsAVX2 is deltaRowsGo for n rows of n (a multiple of 64) values,
// with AVX2.
//
//go:noescape
func deltaRowsAVX2(st, k, q, v, out *float32, decay, beta, scale float32, n int)

// ssmRowsFunc returns the form of ssmRowsGo that k runs: the AVX-512 or
// AVX2 kernel for the sets that have them, for state rows of a multiple
// of 64 values (the others take the oracle).
func (k *kernelSet) ssmRowsFunc() func(st, bg, cg, x, y []float32, dA, d float32) {
	if k == nil {
		return ssmRowsGo
	}
	asm := ssmRowsAVX2
	if k.name == setAVX512 {
		asm = ssmRowsAVX512
	}
	return func(st, bg, cg, x, y []float32, dA, d float32) {
		nc, rows := len(bg), len(y)
		if nc%64 != 0 || rows == 0 {
			ssmRowsGo(st, bg, cg, x, y, dA, d)
			return
		}
		_, _, _ = st[rows*nc-1], cg[nc-1], x[rows-1]
		asm(&st[0], &bg[0], &cg[0], &x[0], &y[0], dA, d, nc, rows)
	}
}

// deltaRowsFunc returns the form of deltaRowsGo that k runs for heads of
// n values: the AVX-512 or AVX2 kernel for the sets that have them where
// n is a multiple of 64, else the oracle.
func (k *kernelSet) deltaRowsFunc(n int) func(st, k, q, v, out []float32, decay, beta, scale float32) {
	if k == nil || n%64 != 0 {
		return deltaRowsGo
	}
	asm := deltaRowsAVX2
	if k.name == setAVX512 {
		asm = deltaRowsAVX512
	}
	return func(st, kv, q, v, out []float32, decay, beta, scale float32) {
		n := len(kv)
		_, _, _, _ = st[n*n-1], q[n-1], v[n-1], out[n-1]
		asm(&st[0], &kv[0], &q[0], &v[0], &out[0], decay, beta, scale, n)
	}
}
