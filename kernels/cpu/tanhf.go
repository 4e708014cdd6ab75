package cpu

import "math"

// tanh32 is tanhf as glibc computes it up to 2.40 (fdlibm's algorithm, on
// expm1f), which ggml calls for its tanh operation, the attention softcap
// and the GELU table: glibc's result differs from the correctly rounded
// one in the last bit for about one input in six hundred, and a last bit
// of a soft-capped attention score moves a model's logits by 1e-4 once
// GELU's F16 table rounds it. Checked equal to glibc 2.36's tanhf for
// every float32 of magnitude below 32 (beyond 22 both give ±1).
func tanh32(x float32) float32 {
	ix := math.Float32bits(x) & 0x7fffffff
	var z float32
	switch {
	case ix > 0x7f800000: // NaN
		return x
	case ix >= 0x41b00000: // |x| >= 22, and ±Inf
		z = 1
	case ix < 0x24000000: // |x| < 2^-55
		return x * (1 + x)
	case ix >= 0x3f800000: // |x| >= 1
		t := expm1F(2 * abs32(x))
		z = 1 - 2/(t+2)
	default:
		t := expm1F(-2 * abs32(x))
		z = -t / (t + 2)
	}
	if x < 0 {
		return -z
	}
	return z
}

// expm1F is expm1f as glibc computes it up to 2.40 (fdlibm's): x reduced
// to r = x - k·ln2 with ln2 in two parts, e^r - 1 from a rational
// approximation in r, and 2^k put back into the exponent, all in float32
// (each product rounded on its own, never fused). Inputs above 88.7 are
// not handled: tanh32 never passes them.
func expm1F(x float32) float32 {
	const (
		ln2Hi  float32 = 6.9313812256e-01
		ln2Lo  float32 = 9.0580006145e-06
		invLn2 float32 = 1.4426950216e+00
		q1     float32 = -3.3333335072e-02
		q2     float32 = 1.5873016091e-03
		q3     float32 = -7.9365076090e-05
		q4     float32 = 4.0082177293e-06
		q5     float32 = -2.0109921195e-07
	)
	hx := math.Float32bits(x)
	neg := hx&0x80000000 != 0
	hx &= 0x7fffffff
	switch {
	case hx > 0x7f800000: // NaN
		return x
	case hx >= 0x4195b844 && neg: // x <= -27·ln2
		return -1
	case hx < 0x33000000: // |x| < 2^-25
		return x
	}
	var hi, lo, c float32
	var k int32
	if hx > 0x3eb17218 { // |x| > ln2/2
		switch {
		case hx < 0x3f851592 && !neg: // |x| < 1.5·ln2
			hi, lo, k = x-ln2Hi, ln2Lo, 1
		case hx < 0x3f851592:
			hi, lo, k = x+ln2Hi, -ln2Lo, -1
		default:
			half := float32(0.5)
			if neg {
				half = -0.5
			}
			k = int32(float32(invLn2*x) + half)
			t := float32(k)
			hi, lo = x-float32(t*ln2Hi), float32(t*ln2Lo)
		}
		x = hi - lo
		c = (hi - x) - lo
	}
	hfx := float32(0.5 * x)
	hxs := float32(x * hfx)
	r1 := 1 + float32(hxs*(q1+float32(hxs*(q2+float32(hxs*(q3+float32(hxs*(q4+float32(hxs*q5)))))))))
	t := 3 - float32(r1*hfx)
	e := float32(hxs * ((r1 - t) / (6 - float32(x*t))))
	if k == 0 {
		return x - (float32(x*e) - hxs)
	}
	e = float32(x*(e-c)) - c
	e -= hxs
	// scale adds k to the exponent of y.
	scale := func(y float32) float32 { return math.Float32frombits(math.Float32bits(y) + uint32(k)<<23) }
	switch {
	case k == -1:
		return float32(0.5*(x-e)) - 0.5
	case k == 1 && x < -0.25:
		return -2 * (e - (x + 0.5))
	case k == 1:
		return 1 + float32(2*(x-e))
	case k <= -2 || k > 56:
		return scale(1-(e-x)) - 1
	case k < 23:
		return scale(math.Float32frombits(0x3f800000-(0x1000000>>k)) - (e - x)) // 1-2^-k - (e-x)
	default:
		return scale(x - (e + math.Float32frombits(uint32(0x7f-k)<<23)) + 1) // x - (e+2^-k) + 1
	}
}
