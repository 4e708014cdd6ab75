package cpu

import "math"

// logF is logf as glibc (2.28 and later, from ARM's optimized routines)
// computes it, which ggml's scalar operations call (softplus: logf(1 +
// expf(x))): x = 2^k·z with z near 1, log z = log c + log(z/c) for the c
// of z's sixteenth of the interval, a cubic in z/c − 1, all in float64,
// rounded once. Go's math.Log rounded to float32 differs from it in the
// last bit for a few inputs in a thousand (near 1 more often), which a
// recurrent state carries to every later token. Inputs at or below zero,
// infinities and NaN are math.Log's.
func logF(x float32) float32 {
	ix := math.Float32bits(x)
	switch {
	case x != x || x <= 0 || ix >= 0x7f800000:
		return float32(math.Log(float64(x)))
	case ix < 0x00800000: // subnormal: normalize
		ix = math.Float32bits(x*0x1p23) - 23<<23
	}
	const (
		ln2        = 0x1.62e42fefa39efp-1
		a0, a1, a2 = -0x1.00ea348b88334p-2, 0x1.5575b0be00b6ap-2, -0x1.ffffef20a4123p-2
		off        = 0x3f330000 // z's interval: [off, 2·off) in bits
	)
	tmp := ix - off
	i := (tmp >> (23 - 4)) % 16
	k := int32(tmp) >> 23
	z := float64(math.Float32frombits(ix - (tmp & 0xff800000)))
	c := logFTable[i]
	// The explicit conversions keep each product rounded (Go fuses them
	// on arm64 otherwise); glibc's x86-64 builds with and without fused
	// multiply-adds gave the same bits on four million inputs.
	r := float64(z*c[0]) - 1
	y0 := c[1] + float64(float64(k)*ln2)
	r2 := float64(r * r)
	y := float64(a1*r) + a2
	y = float64(a0*r2) + y
	y = float64(y*r2) + (y0 + r)
	return float32(y)
}

// logFTable holds glibc's logf table: for each sixteenth i of z's interval,
// 1/c and log c of a c near its centre.
var logFTable = [16][2]float64{
	{0x1.661ec79f8f3bep+0, -0x1.57bf7808caadep-2},
	{0x1.571ed4aaf883dp+0, -0x1.2bef0a7c06ddbp-2},
	{0x1.49539f0f010bp+0, -0x1.01eae7f513a67p-2},
	{0x1.3c995b0b80385p+0, -0x1.b31d8a68224e9p-3},
	{0x1.30d190c8864a5p+0, -0x1.6574f0ac07758p-3},
	{0x1.25e227b0b8eap+0, -0x1.1aa2bc79c81p-3},
	{0x1.1bb4a4a1a343fp+0, -0x1.a4e76ce8c0e5ep-4},
	{0x1.12358f08ae5bap+0, -0x1.1973c5a611cccp-4},
	{0x1.0953f419900a7p+0, -0x1.252f438e10c1ep-5},
	{0x1p+0, 0},
	{0x1.e608cfd9a47acp-1, 0x1.aa5aa5df25984p-5},
	{0x1.ca4b31f026aap-1, 0x1.c5e53aa362eb4p-4},
	{0x1.b2036576afce6p-1, 0x1.526e57720db08p-3},
	{0x1.9c2d163a1aa2dp-1, 0x1.bc2860d22477p-3},
	{0x1.886e6037841edp-1, 0x1.1058bc8a07ee1p-2},
	{0x1.767dcf5534862p-1, 0x1.4043057b6ee09p-2},
}
