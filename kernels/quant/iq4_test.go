package quant

import (
	"math"
	"strings"
	"testing"
)

func TestIQ4KnownBlocks(t *testing.T) {
	// IQ4_XS input: eight groups of 32, the five patterns then ramp, const
	// and zero again.
	var mixed []float32
	for _, g := range [][]float32{blkZero, blkConst, blkRamp, blkOutlier, blkNegMax, blkRamp, blkConst, blkZero} {
		mixed = append(mixed, g...)
	}
	checkKnownBlocks(t, []knownBlock{
		// zero: scale 0, and every element takes the level nearest 0,
		// index 8 (level 1; level -10 is farther).
		{TypeIQ4_NL, "zero", blkZero, "0000 88888888888888888888888888888888"},
		// const 0.5: every element takes level 113 (index 15), whose
		// least-squares scale is 0.5/113 (0x1c88). The tries that map 0.5
		// to level -127 fit exactly as well, and a tie keeps the first.
		{TypeIQ4_NL, "const", blkConst, "881c ffffffffffffffffffffffffffffffff"},
		{TypeIQ4_NL, "ramp", blkRamp, "fa27 809091a1b1b2c2c3d3d4e4e5e5f6f6f7"},
		{TypeIQ4_NL, "outlier", blkOutlier, "aa31 8888888888888888888f888888888888"},
		{TypeIQ4_NL, "negmax", blkNegMax, "002b b8b8b8b809c9c9c9c9cacadadadadbdb"},

		// All zero: the largest group scale is 0, so d = -0/32 = -0
		// (0x8000); each group's 6-bit scale is then 0 + 32, stored as low
		// nibble 0 and high bits 2 (scales_h 0xaaaa); elements take index 8.
		{TypeIQ4_XS, "zero", make([]float32, QK_K), "0080 aaaa 00000000" + strings.Repeat("88", 128)},
		{TypeIQ4_XS, "mixed", mixed, "aa9d 1695 f00aa60f" +
			"88888888888888888888888888888888" +
			"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee" +
			"809191a1a2b2b2c3c3d4d4e5e5e6f7f7" +
			"8888888888888888888f888888888888" +
			"b8b8b8b809c9c9c9c9cacadadadadbdb" +
			"809191a1a2b2b2c3c3d4d4e5e5e6f7f7" +
			"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee" +
			"88888888888888888888888888888888"},
	})
}

// iq4LevelsRef is kvalues_iq4nl, restated here so the decoding tests do not
// depend on the table under test.
var iq4LevelsRef = [16]float32{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

func TestIQ4KnownDequant(t *testing.T) {
	// IQ4_NL: d = 1, byte j holds index j (element j) and 15-j (element
	// j+16).
	nl := []byte{0x00, 0x3c}
	for j := range 16 {
		nl = append(nl, byte(j)|byte(15-j)<<4)
	}
	got := make([]float32, 32)
	if err := Dequantize(TypeIQ4_NL, nl, got); err != nil {
		t.Fatal(err)
	}
	for j := range 16 {
		if got[j] != iq4LevelsRef[j] || got[j+16] != iq4LevelsRef[15-j] {
			t.Fatalf("IQ4_NL element %d/%d = %g/%g, want %g/%g", j, j+16, got[j], got[j+16], iq4LevelsRef[j], iq4LevelsRef[15-j])
		}
	}

	// IQ4_XS: d = 0.5; group g has the 6-bit scale 32 + 7*(g-4) (in
	// 4..53, so both scales_h bits vary), making dl = 0.5 * 7*(g-4); every
	// element of group g has index (g + j) % 16.
	xs := make([]byte, 136)
	xs[0], xs[1] = 0x00, 0x38
	var sh uint16
	for g := range 8 {
		s := 32 + 7*(g-4)
		xs[4+g/2] |= byte(s&0x0f) << (4 * (g % 2))
		sh |= uint16(s>>4) << (2 * g)
		for j := range 16 {
			xs[8+16*g+j] = byte((g+j)%16) | byte((g+j+16)%16)<<4
		}
	}
	xs[2], xs[3] = byte(sh), byte(sh>>8)
	got = make([]float32, QK_K)
	if err := Dequantize(TypeIQ4_XS, xs, got); err != nil {
		t.Fatal(err)
	}
	for g := range 8 {
		dl := 0.5 * float32(7*(g-4))
		for j := range 32 {
			if want := dl * iq4LevelsRef[(g+j)%16]; got[32*g+j] != want {
				t.Fatalf("IQ4_XS group %d element %d = %g, want %g", g, j, got[32*g+j], want)
			}
		}
	}
}

// TestIQ4Nearest checks the level search against brute force on a fine
// grid that includes every midpoint between levels.
func TestIQ4Nearest(t *testing.T) {
	for i := -1200; i <= 1200; i++ {
		x := float32(i) / 8
		best := 0
		for k, v := range iq4LevelsRef {
			dk, db := math.Abs(float64(x-v)), math.Abs(float64(x-iq4LevelsRef[best]))
			if dk < db || dk == db { // a tie goes to the larger level
				best = k
			}
		}
		if got := iq4Nearest(x); int(got) != best {
			t.Fatalf("iq4Nearest(%g) = %d (%g), want %d (%g)", x, got, iq4LevelsRef[got], best, iq4LevelsRef[best])
		}
	}
	if got := iq4Nearest(float32(math.NaN())); got != 15 {
		t.Errorf("iq4Nearest(NaN) = %d, want 15 as in ggml", got)
	}
}

// TestIQ4XSScales checks the structure of encoded IQ4_XS blocks: group
// scales span the 6-bit range with the largest at code 0 (-32), and the
// decoded values stay within the range the scales allow.
func TestIQ4XSScales(t *testing.T) {
	x := simpleGaussian(11, 64*QK_K, 1)
	q, y := encodeDecode(t, TypeIQ4_XS, x)
	for b := range 64 {
		blk := q[136*b : 136*b+136]
		d := loadHalf(blk)
		sh := uint16(blk[2]) | uint16(blk[3])<<8
		sawMin := false
		for g := range 8 {
			s := int(blk[4+g/2]>>(4*(g%2)))&0x0f | int(sh>>(2*g)&3)<<4
			if s == 0 {
				sawMin = true
			}
			dl := d * float32(s-32)
			for j := 32 * g; j < 32*g+32; j++ {
				if v := y[QK_K*b+j]; math.Abs(float64(v)) > 127*math.Abs(float64(dl)) {
					t.Fatalf("block %d element %d: %g exceeds 127*|dl| = %g", b, j, v, 127*dl)
				}
			}
		}
		if !sawMin {
			t.Errorf("block %d: no group uses scale code 0 (-32*d), the one the largest group scale maps to", b)
		}
	}
}
