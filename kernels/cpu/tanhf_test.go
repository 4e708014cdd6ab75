package cpu

import (
	"math"
	"testing"
)

// glibcTanh holds inputs and glibc 2.36's tanhf of them (x86-64), as bits:
// every branch of tanh32 and expm1F, and inputs where the correctly
// rounded result differs from glibc's (3e-8, 0.3, 0.99, ±6.x).
var glibcTanh = [][2]uint32{
	{0x00000000, 0x00000000}, // 0
	{0x80000000, 0x80000000}, // -0
	{0x1e3ce508, 0x1e3ce508}, // 1e-20
	{0x3300d959, 0x3300d95a}, // 3e-8
	{0x3a83126f, 0x3a83126c}, // 0.001
	{0x3dcccccd, 0x3dcc1ebc}, // 0.1
	{0x3e99999a, 0x3e9526ed}, // 0.3
	{0xbebd70a4, 0xbeb53e67}, // -0.37
	{0x3f000000, 0x3eec9a9f}, // 0.5
	{0x3f400000, 0x3f22991f}, // 0.75
	{0x3f7d70a4, 0x3f41e27e}, // 0.99
	{0x3f800000, 0x3f42f7d6}, // 1
	{0x3fd9999a, 0x3f6f76f8}, // 1.7
	{0x40200000, 0x3f7c92c1}, // 2.5
	{0x40866666, 0x3f7fe288}, // 4.2
	{0xc0dbb3ad, 0xbf7fffdc}, // -6.86568308
	{0xc0d25896, 0xbf7fffbe}, // -6.57331371
	{0x40c712d0, 0x3f7fff7c}, // 6.22104645
	{0x41180000, 0x3f800000}, // 9.5
	{0x41af3333, 0x3f800000}, // 21.9
	{0x41c80000, 0x3f800000}, // 25
	{0xff800000, 0xbf800000}, // -Inf
}

// TestTanh32 checks tanh32 against glibc's tanhf, bit for bit, and that it
// stays within three units in the last place of the true tanh elsewhere
// (glibc errs by up to about two).
func TestTanh32(t *testing.T) {
	for _, c := range glibcTanh {
		x := math.Float32frombits(c[0])
		if got := math.Float32bits(tanh32(x)); got != c[1] {
			t.Errorf("tanh32(%g) = %g (%#08x), glibc %g (%#08x)", x, math.Float32frombits(got), got, math.Float32frombits(c[1]), c[1])
		}
	}
	if y := tanh32(float32(math.NaN())); y == y {
		t.Errorf("tanh32(NaN) = %g", y)
	}
	for b := uint32(0); b < 0x41c00000; b += 4099 {
		for _, x := range []float32{math.Float32frombits(b), -math.Float32frombits(b)} {
			got, want := float64(tanh32(x)), math.Tanh(float64(x))
			w := float32(math.Abs(want))
			if ulp := float64(math.Nextafter32(w, 2) - w); math.Abs(got-want) > 3*ulp {
				t.Fatalf("tanh32(%g) = %g, tanh %g", x, got, want)
			}
		}
	}
}
