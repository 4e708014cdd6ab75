package quant

import (
	"math"
	"testing"
)

// TestF16RoundTrip checks every half value survives half -> float -> half.
func TestF16RoundTrip(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := F16ToF32(uint16(h))
		got := F32ToF16(f)
		if math.IsNaN(float64(f)) {
			if got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
				t.Fatalf("NaN %#04x came back as %#04x", h, got)
			}
			continue
		}
		if got != uint16(h) {
			t.Fatalf("%#04x -> %g -> %#04x", h, f, got)
		}
	}
}

// TestF32ToF16Rounding checks ties to even and the overflow and underflow
// edges against an independent float64 computation.
func TestF32ToF16Rounding(t *testing.T) {
	tests := []struct {
		in   float32
		want uint16
	}{
		{0, 0},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{65504, 0x7bff},
		{65519.99, 0x7bff},
		{65520, 0x7c00},
		{float32(math.Inf(1)), 0x7c00},
		{float32(math.Inf(-1)), 0xfc00},
		{1 + 1.0/2048, 0x3c00},           // tie between 1 and 1+2^-10: even (1)
		{1 + 3.0/2048, 0x3c02},           // tie: rounds up to even
		{5.960464477539063e-08, 0x0001},  // smallest subnormal 2^-24
		{2.9802322387695312e-08, 0x0000}, // 2^-25: tie to even (0)
		{2.98023259e-08, 0x0001},         // just above 2^-25
		{6.097555160522461e-05, 0x03ff},  // largest subnormal
		{6.103515625e-05, 0x0400},        // smallest normal
	}
	for _, tt := range tests {
		if got := F32ToF16(tt.in); got != tt.want {
			t.Errorf("F32ToF16(%g) = %#04x, want %#04x", tt.in, got, tt.want)
		}
	}
}

func TestBF16(t *testing.T) {
	tests := []struct {
		in   float32
		want uint16
	}{
		{1, 0x3f80},
		{-2, 0xc000},
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie, even stays
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie, rounds up to even
		{math.Float32frombits(0x3f808001), 0x3f81},
	}
	for _, tt := range tests {
		if got := F32ToBF16(tt.in); got != tt.want {
			t.Errorf("F32ToBF16(%g) = %#04x, want %#04x", tt.in, got, tt.want)
		}
		if back := BF16ToF32(tt.want); F32ToBF16(back) != tt.want {
			t.Errorf("BF16 %#04x does not round-trip", tt.want)
		}
	}
	if got := F32ToBF16(float32(math.NaN())); BF16ToF32(got) == BF16ToF32(got) {
		t.Errorf("NaN became %#04x", got)
	}
}
