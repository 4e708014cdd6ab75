package cpu

import (
	"math"
	"testing"
)

// TestLogF checks logF against glibc 2.36's logf on inputs where Go's
// math.Log rounded to float32 differs from it (softplus's 1 + e^x), and
// the special cases.
func TestLogF(t *testing.T) {
	for _, c := range []struct{ x, want uint32 }{
		{0x3f807ec0, 0x3b7d02d0}, // logf(1.0038681) = 0.0038606413
		{0x3f81b6d2, 0x3c59f43a}, // logf(1.0133917) = 0.013302857
		{0x3f84ab46, 0x3d12bfaa}, // logf(1.0364769) = 0.035827316
		{0x3f81a3f8, 0x3c50a670}, // logf(1.0128164) = 0.012734994
		{0x3f805412, 0x3b27ece1}, // logf(1.0025656) = 0.0025623369
		{0x3f839ac7, 0x3ce3817a}, // logf(1.0281609) = 0.0277717
		{0x3f811657, 0x3c0a950a}, // logf(1.0084943) = 0.008458385
		{0x3f82ee05, 0x3cb96426}, // logf(1.0228888) = 0.022630762
		{0x3f800000, 0x00000000}, // logf(1) = 0
	} {
		x := math.Float32frombits(c.x)
		if got := logF(x); math.Float32bits(got) != c.want {
			t.Errorf("logF(%g) = %g (%#08x), want %g (%#08x)", x, got, math.Float32bits(got), math.Float32frombits(c.want), c.want)
		}
	}
	for _, x := range []float32{0, -1, float32(math.Inf(1)), float32(math.NaN())} {
		got, want := logF(x), float32(math.Log(float64(x)))
		if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Errorf("logF(%g) = %g, want %g", x, got, want)
		}
	}
}
