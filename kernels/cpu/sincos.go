package cpu

import "math"

// sinCos32 returns sinf(x) and cosf(x) as glibc (2.28 and later) computes
// them on x86-64, so that rotary embeddings match llama.cpp's bit for bit:
// Go's float64 sin/cos rounded to float32 differ from glibc's in the last
// bit for about 1.5% of the angles RoPE uses, and a last-bit difference can
// later flip an activation's rounding.
//
// glibc evaluates in float64: |x| < π/4 directly by polynomial; |x| < 120
// after subtracting the nearest multiple of π/2, found with a 2^24-scaled
// multiply and an integer round (glibc's non-intrinsic path on x86-64).
// Larger arguments, which RoPE does not produce at the positions tested,
// fall back to Go's math.
func sinCos32(x float32) (sin, cos float32) {
	ax := abs32(x)
	switch {
	case top12(ax) < top12(pio4f):
		if top12(ax) < top12(0x1p-12) {
			return x, 1
		}
		d := float64(x)
		return sinCosPoly(d, d*d, &sincosTab[0], 0), sinCosPoly(d, d*d, &sincosTab[0], 1)
	case top12(ax) < top12(120):
		d := float64(x)
		r := d * sincosTab[0].hpiInv
		n := int((int32(r) + 0x800000) >> 24)
		d -= float64(n) * sincosTab[0].hpi
		p := &sincosTab[0]
		if n&2 != 0 {
			p = &sincosTab[1]
		}
		s := sincosSign[n&3]
		return sinCosPoly(d*s, d*d, p, n), sinCosPoly(d*s, d*d, p, n^1)
	}
	return float32(math.Sin(float64(x))), float32(math.Cos(float64(x)))
}

// pio4f is π/4 rounded to float32.
const pio4f float32 = 0x1.921fb6p-1

// top12 is the top 12 bits of a float32 without its sign.
func top12(x float32) uint32 { return math.Float32bits(x) >> 20 & 0x7ff }

var sincosSign = [4]float64{1, -1, -1, 1}

// sincosCoef holds the polynomials of glibc's sinf/cosf (ARM's optimized
// routines); the second row negates the cosine polynomial for quadrants 2
// and 3.
type sincosCoef struct {
	hpiInv, hpi        float64
	c0, c1, c2, c3, c4 float64
	s1, s2, s3         float64
}

var sincosTab = [2]sincosCoef{
	{0x1.45F306DC9C883p+23, 0x1.921FB54442D18p0,
		1, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5, -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16,
		-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
	{0x1.45F306DC9C883p+23, 0x1.921FB54442D18p0,
		-1, 0x1.ffffffd0c621cp-2, -0x1.55553e1068f19p-5, 0x1.6c087e89a359dp-10, -0x1.99343027bf8c3p-16,
		-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
}

// sinCosPoly evaluates the sine (n even) or cosine (n odd) polynomial of a
// reduced argument x with x2 = x², in float64, rounding the result once.
func sinCosPoly(x, x2 float64, p *sincosCoef, n int) float32 {
	if n&1 == 0 {
		x3 := x * x2
		s1 := p.s2 + x2*p.s3
		x7 := x3 * x2
		s := x + x3*p.s1
		return float32(s + x7*s1)
	}
	x4 := x2 * x2
	c2 := p.c3 + x2*p.c4
	c1 := p.c0 + x2*p.c1
	x6 := x4 * x2
	c := c1 + x4*p.c2
	return float32(c + x6*c2)
}
