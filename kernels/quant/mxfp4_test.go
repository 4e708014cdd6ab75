package quant

import (
	"math"
	"testing"
)

// mxfp4Blocks are the MXFP4 known-vector inputs: the shared blocks, and
// blocks that probe the exponent (a value just below a power of two, which
// log2f rounds up to it; subnormal, huge and infinite magnitudes), ties
// between levels, and a NaN. The expected bytes are the output of ggml's
// quantize_row_mxfp4_ref (through ggml_quantize_chunk) at the pinned
// llama.cpp commit.
var mxfp4Blocks = []struct {
	name string
	in   []float32
	want string
}{
	// All zero: exponent byte 0, every code 0 (+0 wins the tie with -0).
	{"zero", blkZero, "00 00000000000000000000000000000000"},
	// 0.5 everywhere: amax 0.5 gives e = -1-2+127 = 124 (0x7c), half-scale
	// 2^-4, so 0.5 is level 8 (code 6).
	{"const", blkConst, "7c 66666666666666666666666666666666"},
	{"ramp", blkRamp, "7f 0e0e1d1d2d2d3c3c4c4b4b5a5a595960"},
	{"outlier", blkOutlier, "81 00000000000000000006000000000000"},
	{"negmax", blkNegMax, "7f 40404041f15151525252525353636364"},
	{"ties", tieBlock, "83 07000000000000000000000000000000"},
	{"midpoints", mxfp4Midpoints, "7f 0700000109020a030b040c050d060e00"},
	{"below2^10", mxfp4Set(blkRamp, 0, math.Nextafter32(1024, 0)), "87 06000000000000000000000000000000"},
	{"subnormal", mxfp4Scaled(blkRamp, 1e-40), "fa 00000000000000000000000000000000"},
	{"huge", mxfp4Scaled(blkRamp, 7e37), "fc 0f1f2f2f3e4e4e5e5d6d6c6c6b7a7a79"},
	{"inf", mxfp4Set(blkRamp, 3, float32(math.Inf(1))), "00 00000000000000000000000000000000"},
	{"nan", mxfp4Set(blkRamp, 5, float32(math.NaN())), "7f 0e0e1d1d2d203c3c4c4b4b5a5a595960"},
}

// mxfp4Midpoints has largest magnitude 6 (half-scale 0.5, levels 0, 0.5,
// 1, 1.5, 2, 3, 4, 6) and values midway between neighbouring levels.
var mxfp4Midpoints = append([]float32{6, 0.25, -0.25, 0.75, -0.75, 1.25, -1.25, 1.75, -1.75, 2.5, -2.5, 3.5, -3.5, 5, -5}, make([]float32, 17)...)

// mxfp4Set returns a copy of x with element j set to v.
func mxfp4Set(x []float32, j int, v float32) []float32 {
	y := append([]float32(nil), x...)
	y[j] = v
	return y
}

// mxfp4Scaled returns x times f.
func mxfp4Scaled(x []float32, f float32) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = v * f
	}
	return y
}

func TestMXFP4KnownBlocks(t *testing.T) {
	cases := make([]knownBlock, len(mxfp4Blocks))
	for i, c := range mxfp4Blocks {
		cases[i] = knownBlock{TypeMXFP4, c.name, c.in, c.want}
	}
	checkKnownBlocks(t, cases)
}

// TestMXFP4Dequantize decodes a hand-built block: exponent 130 (half-scale
// 4), element j the code j%16 in the low nibbles, 15-j%16 in the high ones.
func TestMXFP4Dequantize(t *testing.T) {
	blk := make([]byte, 17)
	blk[0] = 130
	for j := range 16 {
		blk[1+j] = byte(j) | byte(15-j)<<4
	}
	want := []float32{0, 4, 8, 12, 16, 24, 32, 48, 0, -4, -8, -12, -16, -24, -32, -48}
	y := make([]float32, 32)
	if err := Dequantize(TypeMXFP4, blk, y); err != nil {
		t.Fatal(err)
	}
	for j := range 16 {
		if y[j] != want[j] || y[j+16] != want[15-j] {
			t.Errorf("elements %d, %d = %g, %g, want %g, %g", j, j+16, y[j], y[j+16], want[j], want[15-j])
		}
	}
}

func TestE8M0Half(t *testing.T) {
	for _, c := range []struct {
		e    uint8
		want float64
	}{{0, 0x1p-128}, {1, 0x1p-127}, {2, 0x1p-126}, {127, 0.5}, {128, 1}, {254, 0x1p126}, {255, 0x1p127}} {
		if got := E8M0Half(c.e); float64(got) != c.want {
			t.Errorf("E8M0Half(%d) = %g, want %g", c.e, got, c.want)
		}
	}
}
