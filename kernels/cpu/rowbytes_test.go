package cpu

import (
	"bytes"
	"testing"

	"saji/kernels/quant"
)

// TestRowBytes: rows copied out as bytes and into another tensor hold the
// same values, and bad rows and lengths are refused.
func TestRowBytes(t *testing.T) {
	b := New(1)
	for _, typ := range []quant.Type{quant.TypeF32, quant.TypeF16, quant.TypeQ8_0} {
		src, _ := b.New(typ, 64, 4)
		dst, _ := b.New(typ, 64, 4)
		vals := make([]float32, 64*4)
		for i := range vals {
			vals[i] = float32(i%17) - 8
		}
		if err := b.Write(src, vals); err != nil {
			t.Fatal(err)
		}
		raw, err := b.RowBytes(src, []int32{2, 0}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.SetRowBytes(dst, []int32{1, 3}, raw); err != nil {
			t.Fatal(err)
		}
		back, _ := b.RowBytes(dst, []int32{1, 3}, nil)
		if !bytes.Equal(raw, back) {
			t.Errorf("%v: rows differ after a copy", typ)
		}
		want, got := make([]float32, 64*4), make([]float32, 64*4)
		if err := b.Read(src, want); err != nil {
			t.Fatal(err)
		}
		if err := b.Read(dst, got); err != nil {
			t.Fatal(err)
		}
		if got[64] != want[128] || got[3*64+5] != want[5] {
			t.Errorf("%v: row 1 starts %v, want %v", typ, got[64], want[128])
		}
		if _, err := b.RowBytes(src, []int32{4}, nil); err == nil {
			t.Errorf("%v: reading row 4 of 4 succeeded", typ)
		}
		if err := b.SetRowBytes(dst, []int32{1}, raw); err == nil {
			t.Errorf("%v: two rows' bytes for one row were taken", typ)
		}
	}
}
