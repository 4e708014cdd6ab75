package cpu

import (
	"math"
	"math/big"
)

// expF is expf as glibc (2.27 and later, from ARM's optimized routines)
// computes it, which ggml uses for scalar exponentials (tails of vectorised
// loops, the flash-attention rescaling): x·32/ln2 split into an integer k
// and a remainder r, 2^(k/32) from a table, and a cubic in r, all in
// float64, rounded once. Go's math.Exp rounded to float32 differs from it
// in the last bit for a few inputs in a thousand.
func expF(x float32) float32 {
	switch {
	case x != x:
		return x
	case x > 0x1.62e42ep6:
		return float32(math.Inf(1))
	case x < -0x1.9fe368p6:
		return 0
	}
	const (
		n       = 32
		invLn2N = 0x1.71547652b82fep+0 * n
		shift   = 0x1.8p+52
		c0      = 0x1.c6af84b912394p-5 / n / n / n
		c1      = 0x1.ebfce50fac4f3p-3 / n / n
		c2      = 0x1.62e42ff0c52d6p-1 / n
	)
	z := invLn2N * float64(x)
	kd := z + shift // rounds z to an integer, ties to even
	ki := math.Float64bits(kd)
	kd -= shift
	r := z - kd
	s := math.Float64frombits(exp2Table[ki%n] + ki<<(52-5))
	y := (c0*r+c1)*(r*r) + (c2*r + 1)
	return float32(y * s)
}

// exp2Table holds 2^(i/32) as float64 bits, less i/32 in the exponent
// field (glibc's __exp2f_data table), computed exactly once at start-up.
var exp2Table = func() (t [32]uint64) {
	const prec = 256
	root := new(big.Float).SetPrec(prec).SetInt64(2)
	for range 5 {
		root.Sqrt(root) // 2^(1/32)
	}
	p := new(big.Float).SetPrec(prec).SetInt64(1)
	for i := range t {
		f, _ := p.Float64()
		t[i] = math.Float64bits(f) - uint64(i)<<52/32
		p.Mul(p, root)
	}
	return t
}()
