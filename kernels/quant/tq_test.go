package quant

import (
	"math"
	"testing"
)

// tqSpecial is a super-block of halves of ±2 (exact ties between trits),
// with v at elements 7 and 250.
func tqSpecial(v float32) []float32 {
	x := make([]float32, QK_K)
	for i := range x {
		x[i] = float32(i%5-2) / 2
	}
	x[7], x[250] = v, v
	return x
}

// TestTQKnownBlocks checks blocks with ties, a NaN (which rounds like the
// trit 1 and drops out of the scale) and an infinite scale against the
// bytes of ggml's quantize_row_tq1_0_ref and quantize_row_tq2_0_ref.
func TestTQKnownBlocks(t *testing.T) {
	nan, inf := tqSpecial(float32(math.NaN())), tqSpecial(float32(math.Inf(-1)))
	checkKnownBlocks(t, []knownBlock{
		{TypeTQ1_0, "nan", nan, "323f95bbbf323f95bbbf323f95bbbf323f95bbbf323f95bbbf323f95bbbf323f1236a2e5b01236a2e5b01236a2e5b012501a66c8003c"},
		{TypeTQ2_0, "nan", nan, "24488992222448899222244889922224488992222448899222244889922224489222244889922224488992222448899222244889922224488992622448899222003c"},
		{TypeTQ1_0, "inf", inf, "8080808080808080808080808080808080808080808080808080808080808080808080808080808080808080808080807f7f7f7f007c"},
		{TypeTQ2_0, "inf", inf, "55555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555555007c"},
	})
}

// TestTQDequantize decodes hand-built blocks: TQ2_0 with trit (i/32)%3 at
// element i, and TQ1_0 bytes whose trits are known.
func TestTQDequantize(t *testing.T) {
	blk := make([]byte, 66)
	for c := range 2 {
		for l := range 4 {
			for m := range 32 {
				blk[32*c+m] |= byte((4*c+l)%3) << (2 * l)
			}
		}
	}
	blk[64], blk[65] = 0x00, 0x40 // d = 2
	y := make([]float32, QK_K)
	if err := Dequantize(TypeTQ2_0, blk, y); err != nil {
		t.Fatal(err)
	}
	for i, v := range y {
		if want := float32(2 * ((i/32)%3 - 1)); v != want {
			t.Fatalf("TQ2_0 element %d = %g, want %g", i, v, want)
		}
	}

	// TQ1_0: byte 0x80 holds trits 1,1,1,1,1 (0.5 = Σ 3^-(n+1) to 8
	// bits); 243·b/256 rounded up gives trits 2,0,0,0,0 for 0xab (5-trit
	// 162 = 2·81) and 0,0,0,0,2 for 0x03 (2), 1,0,0,0 for 0x56 (4-trit 27
	// shifted up: 81).
	blk = make([]byte, 54)
	for i := range 48 {
		blk[i] = 0x80
	}
	blk[0], blk[33], blk[48] = 0xab, 0x03, 0x56
	blk[52], blk[53] = 0x00, 0x3c // d = 1
	if err := Dequantize(TypeTQ1_0, blk, y); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, QK_K) // 0x80: zeros
	for i := 240; i < 256; i++ {
		want[i] = -1 // qh bytes 0: trits 0
	}
	want[0] = 1              // element 32n+m, n=0, m=0: trit 2
	for n := 1; n < 5; n++ { // the other trits of byte 0 are 0
		want[32*n] = -1
	}
	for n := range 4 { // byte 33: trits 0,0,0,0,2 at 160+16n+1
		want[160+16*n+1] = -1
	}
	want[160+16*4+1] = 1
	want[240] = 0 // qh[0]: trits 1,0,0,0 at 240+4n
	for i := range want {
		if y[i] != want[i] {
			t.Errorf("TQ1_0 element %d = %g, want %g", i, y[i], want[i])
		}
	}
}
