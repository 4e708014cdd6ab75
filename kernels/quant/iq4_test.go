package quant

import (
	"encoding/binary"
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

// TestIQ4FusionSensitiveBlocks encodes blocks of the reference models'
// weights on which a fused multiply-add in the level search (id*x - level
// computed without rounding id*x first, as arm64 does when the product is
// passed to an inlined function) picks a different level than ggml. The
// expected bytes are llama-quantize's (IQ4_NL) and ggml's C reference
// (IQ4_XS). The input is float32 little-endian.
func TestIQ4FusionSensitiveBlocks(t *testing.T) {
	tests := []struct {
		name string
		typ  Type
		in   string
		want string
	}{
		{"qwen2 token_embd.weight block 6249", TypeIQ4_NL,
			"00008c3d0060aa3d00e0cd3d00000a3e000018be0060eb3d00c0363d00a0ef3c0020283d0000483e0060dcbd0060583d00805ebc00c0de3d0000e5bc0060123e" +
				"00c0a53c008057bd0040b5bd00e0b5bd00c01dbd00003abe008002be00a0333e0000553c0080bfbd0080dcbc008054bd008094bc00807f3d00a0833d00200e3c",
			"ad9675b4c3c2aef3d61676c09db599535972",
		},
		{"llama3-bpe token_embd.weight block 1251", TypeIQ4_XS,
			"004067be0060cc3f00800fbe00a0f83f00a0233e008059bf006023bf008015bf00801c3f004001bf00a04d3f00a049bf0080713f00c0c8bf00809dbf00400940" +
				"00c08e3f00809dbf0000883e00e06c3f00a054bf00607abf00802fbe00a084bf00a0e2be000043bf00204cbe00002e3f00c068bf006040bd00e0eabe0080a53f" +
				"00c07c3f0080ea3e00e0113f00600bbc00002bc00020f33e00008f3c00c0473d004087bf0080f5be002010bf00c02b3f00e0b13f00a0803f00009c3f00002b3f" +
				"00e0243f00c09dbe00805f3d00804ebf008017bf0060b93e0060b9bf0040993e0000673f000075bf0080ec3c0080a83f0060a33e0020f33e00e01abf00e00040" +
				"0080a3be00a0833e00e0fe3e00e0e23e0080f63f00a0df3f00a0ffbe00403f3e00e09cbf00c0423e00805abf004098bf00201cbf00007b3f0020703e0060efbf" +
				"004044bf0040a4bd00a09a3d00203cbf00608f3f00a0883f00e012bf008010bf0020cbbf0060723f00e0cabe00e02bbf0000be3d0000adbd00400c3f00a04a3f" +
				"0060863f00e015be0040723e008097bf008045bd0060563e0020303f0000aebf004098bf00c0e3be004011c000e065bf00c0bb3e00609bbf00a04fbf00600c40" +
				"00c0793f00e0153f00808fbe004064bf00801f3f00a05b3d00c005bf00c035bf0060153f0080c93f0080d1be004044bf00e08b3f0040843f0060ac3f00801640" +
				"000036bc00c003bf0040a63e00c02c3f0060c93f00e064be00601bbf006087bf00006a3f00c0043f0060ffbf0060d73d00c009bf0020e7bf00209abd00c0fbbf" +
				"004093bf0020de3f00c0c3bf0060b8bf00a0bdbe00608e3e0060f13f0080eb3e000076bf002099bf0000c2bf00a05fbf0040263e00e0073f00208cbf00208dbe" +
				"0020cf3d008097be00c008c000c00bbe00c088be0040054000a0c23e00a0ffbd0000bbbf00a0b6be00c0fe3e0040813f0000a9bf00c0a93c004080bf0040213f" +
				"0080123f00a0c8be00802b3f008069bf0080133f00c0eebe00a05d3e0080043f0080023e00605dbf0000d3bf00e030bf00205bbf00e02bbf0040dcbf0080df3e" +
				"0060ba3f0000103f0060833f00c05dbf00c0adbf00a03e3d00c0a53e0000ba3e00c06d3e00609e3f00002f3d00a06dbf0020b2bd00e07f3f0060debe0060bc3f" +
				"0020e43e00a0d83e00204a3f00c05cbf000039bf0040063f00c08abe006047bf0040fa3e0080153e00601e3e0020303f0020b53e0080c43f0000a2be0060163e" +
				"00e097be00c01c3f00a0a6be0060d3bf004053bf00e0a2bf00a0b5be0020883f0000f33f00c00a4000e05bbf0060d83f0080e2bf0020e3bf00a0bcbf00008f3f" +
				"000052bf00c085bf00c065bf00c05ebf00e0e9be00e073bf0040bdbf0040f63e0060ffbe00209f3f00e0e03e006088bf006084bf004076bf00c056bf0040b8be",
			"6e91f3f00be9698239d27941c7cc9bcba5ba945bc48ead30ac7a8a58609a3898b44686db9dac5ceaca8775b63031bab7ed37acbd7b83574f445997bc5887a5bd" +
				"5c2aafbb464d3b0128f51a1b6f97f5a33c2b103895b03760b866b047b76f9aa792461a5c425813ab505432ddcf48a6d55671783d5902ab70c9d5cacfacceea53" +
				"a0206cd1dfcfcea3",
		},
		{"gemma3 token_embd.weight block 849", TypeIQ4_NL,
			"0080283d008063bf00a0193f0020243e0000ac3f00803abe0080c3bf00604b3e00a0bbbd00804dbf0080bdbf00a019c00020db3d0020babf0020ae3d0080e7be" +
				"0080823f00a065bf00a08ebe00406d3f0040aebe0040463f00c044bf0040083f004012be0080d63e000082bf0000a7bf008029bf00a01d3f000007c000e0bdbe",
			"e024c8447bc96db752a977a4423058b21866",
		},
		{"gemma3 blk.1.ffn_up.weight block 3439", TypeIQ4_NL,
			"006006bd0020f6bd0040713d00c0ab3d00c0d43b00201ebd0000ca3c0040c33d0000e1bc00e0563a00e0ae3d00c046bc008001ba00405f3d00a0a23d0060063e" +
				"00a0bf3d0040de3c00008c3d00e0603c0040e7bc0080fd3c00a025bd00008fbb00c078bd0080823c00e0253d0080d13d00c09e3d00c05abb00e0673c0080a5bc",
			"44942b6f3472a75bb682ca785219288472a0",
		},
	}
	for _, tt := range tests {
		raw := mustHex(t, tt.in)
		x := make([]float32, len(raw)/4)
		for i := range x {
			x[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		checkKnownBlocks(t, []knownBlock{{tt.typ, tt.name, x, tt.want}})
	}
}
