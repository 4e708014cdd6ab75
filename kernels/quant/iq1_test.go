package quant

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"
)

// iq1RawBlocks returns nb blocks of t filled with bytes of a fixed
// splitmix64 sequence, their float16 scales set to 2^-7·(1 + m/1024) for
// a random mantissa m (for IQ1_M, through the top nibbles of its scales).
func iq1RawBlocks(t Type, nb int) []byte {
	s := uint64(0x9e3779b97f4a7c15)
	w := make([]byte, nb*t.TypeSize())
	for i := range w {
		s += 0x9e3779b97f4a7c15
		z := (s ^ s>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		w[i] = byte(z ^ z>>31)
	}
	bs := t.TypeSize()
	for b := range nb {
		blk := w[b*bs : (b+1)*bs]
		if t == TypeIQ1_S {
			blk[1] = 0x20 | blk[1]&3
		} else {
			blk[55] = blk[55]&0x0f | 0x20
			blk[53] &= 0x3f
		}
	}
	return w
}

// iq1Golden holds the SHA-256 of ggml's dequantize_row_iq1_s and _iq1_m
// output (float32 little-endian) for iq1RawBlocks(t, 64), at the pinned
// llama.cpp commit.
var iq1Golden = map[Type]string{
	TypeIQ1_S: "056ebd63df93b8208af5838e6d43890ba7deceaf6e03d1bd1e3b7a9ec34b3355",
	TypeIQ1_M: "7c1cc564db4fd2aa1f482275a066bb0f9624c14cdeaf9bc0d298df63d8c7cbb0",
}

func TestIQ1Golden(t *testing.T) {
	for typ, want := range iq1Golden {
		w := iq1RawBlocks(typ, 64)
		y := make([]float32, 64*QK_K)
		if err := Dequantize(typ, w, y); err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for _, v := range y {
			h.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)))
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			t.Errorf("%v: hash %s, want %s", typ, got, want)
		}
	}
}

// TestIQ1Dequantize decodes a hand-built IQ1_S block: d = 1, group of 32
// number 0 with s = 2 (scale 5), δ negative and grid index 0x7ff for its
// first group of 8 (the last grid entry); the rest zero bytes (index 0,
// all -1; s = 0, δ positive).
func TestIQ1Dequantize(t *testing.T) {
	blk := make([]byte, 50)
	blk[1] = 0x3c // d = 1
	blk[2] = 0xff
	binary.LittleEndian.PutUint16(blk[34:], 0x8000|2<<12|7)
	y := make([]float32, QK_K)
	if err := Dequantize(TypeIQ1_S, blk, y); err != nil {
		t.Fatal(err)
	}
	for e, v := range y {
		want := float32(-1 + 0.125) // index 0: all -1, scale 1, δ +1/8
		switch {
		case e < 8:
			want = 5 * (float32(int8(IQ1SGrid[0x7ff]>>(8*e))) - 0.125)
		case e < 32:
			want = 5 * (-1 - 0.125)
		}
		if v != want {
			t.Errorf("element %d = %g, want %g", e, v, want)
		}
	}
	if err := Quantize(TypeIQ1_S, make([]float32, QK_K), blk); err == nil {
		t.Error("quantizing to IQ1_S without an importance matrix succeeded")
	}
}
