package quant

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// iqTypes are the IQ2 and IQ3 types DecodeIQ handles.
var iqTypes = []Type{TypeIQ2_XXS, TypeIQ2_XS, TypeIQ2_S, TypeIQ3_XXS, TypeIQ3_S}

func TestIQGridTables(t *testing.T) {
	// Spot values of ggml's tables (ggml-common.h): the first, a middle
	// and the last entry of each.
	widen := func(g []uint32) []uint64 {
		w := make([]uint64, len(g))
		for i, v := range g {
			w[i] = uint64(v)
		}
		return w
	}
	for _, c := range []struct {
		name string
		got  []uint64
		want [3]uint64
	}{
		{"iq2xxs", IQ2XXSGrid[:], [3]uint64{0x0808080808080808, 0x082b2b0808082b08, 0x2b2b2b1908081908}},
		{"iq2xs", IQ2XSGrid[:], [3]uint64{0x0808080808080808, 0x190808080808192b, 0x2b2b2b2b2b2b2b2b}},
		{"iq2s", IQ2SGrid[:], [3]uint64{0x0808080808080808, 0x19080819082b1919, 0x2b2b2b2b2b2b2b2b}},
		{"iq3xxs", widen(IQ3XXSGrid[:]), [3]uint64{0x04040404, 0x141c3e04, 0x3e341c04}},
		{"iq3s", widen(IQ3SGrid[:]), [3]uint64{0x01010101, 0x05090507, 0x0f0f0101}},
	} {
		n := len(c.got)
		if got := [3]uint64{c.got[0], c.got[n/2], c.got[n-1]}; got != c.want {
			t.Errorf("%s: entries 0, %d, %d are %#x, want %#x", c.name, n/2, n-1, got, c.want)
		}
	}
}

func TestIQSigns(t *testing.T) {
	// ggml's ksigns_iq2xs, first and last rows.
	want := map[uint32]uint8{0: 0, 1: 129, 2: 130, 3: 3, 7: 135, 15: 15, 120: 120, 121: 249, 126: 126, 127: 255}
	for f, w := range want {
		if got := IQSigns(f); got != w {
			t.Errorf("IQSigns(%d) = %d, want %d", f, got, w)
		}
	}
	if got := IQSigns(0x80 | 1); got != 129 {
		t.Errorf("IQSigns ignores bits above 7: got %d", got)
	}
}

// iqBlockRef decodes one super-block with a direct transcription of the
// layouts in iq23.go, element by element, for comparison with DecodeIQ
// and the dequantizer.
func iqBlockRef(typ Type, blk []byte) []float64 {
	d := float64(loadHalf(blk))
	u16 := func(o int) uint32 { return uint32(binary.LittleEndian.Uint16(blk[o:])) }
	u32 := func(o int) uint32 { return binary.LittleEndian.Uint32(blk[o:]) }
	parity := func(s uint32) bool {
		n := 0
		for ; s != 0; s &= s - 1 {
			n++
		}
		return n%2 == 1
	}
	sevenBit := func(f uint32, j int) bool {
		f &= 127
		if j == 7 {
			return parity(f)
		}
		return f>>j&1 == 1
	}
	y := make([]float64, QK_K)
	for i := range QK_K {
		ib, k, j := i/32, i/8, i%8
		var mag byte
		var neg bool
		var s uint32
		switch typ {
		case TypeIQ2_XXS:
			aux := u32(2 + 8*ib + 4)
			mag = byte(IQ2XXSGrid[blk[2+8*ib+k%4]] >> (8 * j))
			neg = sevenBit(aux>>(7*(k%4)), j)
			s = aux >> 28
		case TypeIQ2_XS:
			v := u16(2 + 2*k)
			mag = byte(IQ2XSGrid[v&511] >> (8 * j))
			neg = sevenBit(v>>9, j)
			s = uint32(blk[66+ib]) >> (4 * (i % 32 / 16)) & 15
		case TypeIQ2_S:
			idx := uint32(blk[2+k]) + 256*(uint32(blk[66+ib])>>(2*(k%4))&3)
			mag = byte(IQ2SGrid[idx] >> (8 * j))
			neg = blk[34+k]>>j&1 == 1
			s = uint32(blk[74+ib]) >> (4 * (i % 32 / 16)) & 15
		case TypeIQ3_XXS:
			aux := u32(66 + 4*ib)
			mag = byte(IQ3XXSGrid[blk[2+i/4]] >> (8 * (i % 4)))
			neg = sevenBit(aux>>(7*(k%4)), j)
			s = aux >> 28
		case TypeIQ3_S:
			idx := uint32(blk[2+i/4]) + 256*(uint32(blk[66+ib])>>(i%32/4)&1)
			mag = byte(IQ3SGrid[idx] >> (8 * (i % 4)))
			neg = blk[74+k]>>j&1 == 1
			s = uint32(blk[106+i/64]) >> (4 * (i % 64 / 32)) & 15
		}
		v := d * float64(2*s+1) * float64(mag) * float64(GridScale(typ))
		if neg {
			v = -v
		}
		y[i] = v
	}
	return y
}

// iqRandomBlocks returns n random super-blocks of typ whose scale d is a
// float16 in [1/8, 2].
func iqRandomBlocks(r *rand.Rand, typ Type, n int) []byte {
	bs := typ.TypeSize()
	b := make([]byte, n*bs)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for k := range n {
		storeHalf(b[k*bs:], float32(0.125+1.875*r.Float64()))
	}
	return b
}

func TestIQDequantizeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 19))
	for _, typ := range iqTypes {
		const n = 16
		src := iqRandomBlocks(r, typ, n)
		got := make([]float32, n*QK_K)
		if err := Dequantize(typ, src, got); err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		var maxDiff float64
		for b := range n {
			want := iqBlockRef(typ, src[b*typ.TypeSize():])
			for i, w := range want {
				// The float32 result rounds the exact value once or twice
				// (the group scale, then the element).
				diff := math.Abs(float64(got[b*QK_K+i]) - w)
				maxDiff = max(maxDiff, diff)
				if diff > math.Abs(w)*0x1p-22 {
					t.Fatalf("%v block %d element %d: got %g, want %g", typ, b, i, got[b*QK_K+i], w)
				}
			}
		}
		t.Logf("%v: max |diff| vs the float64 reference %.3g", typ, maxDiff)
	}
}

func TestIQKnownBlocks(t *testing.T) {
	// IQ3_S, d = 1: group 0 of 8 takes indices 5 and 256+5 (qh bit 1),
	// the other groups index 0; element 1 of group 0 is negative; the
	// first 32 elements have s = 2 (ls 5), the next 32 s = 15 (ls 31).
	blk := make([]byte, TypeIQ3_S.TypeSize())
	storeHalf(blk, 1)
	blk[2], blk[3] = 5, 5
	blk[66] = 2
	blk[74] = 2
	blk[106] = 2 | 15<<4
	y := make([]float32, QK_K)
	if err := Dequantize(TypeIQ3_S, blk, y); err != nil {
		t.Fatal(err)
	}
	// IQ3SGrid[5] = 0x01010301, IQ3SGrid[261] = 0x05090f0b.
	want := []float32{5, -15, 5, 5, 55, 75, 45, 25, 5, 5}
	for i, w := range want {
		if y[i] != w {
			t.Errorf("IQ3_S element %d = %g, want %g", i, y[i], w)
		}
	}
	if y[32] != 31 || y[64] != 1 {
		t.Errorf("IQ3_S elements 32, 64 = %g, %g, want 31, 1", y[32], y[64])
	}

	// IQ2_XXS, d = 2: group 0 takes index 1 (0x080808080808082b), sign
	// field 1 (bits 0 and 7 set by parity), s = 3: db = 2·3.5/4 = 1.75.
	blk = make([]byte, TypeIQ2_XXS.TypeSize())
	storeHalf(blk, 2)
	blk[2] = 1
	binary.LittleEndian.PutUint32(blk[6:], 1|3<<28)
	if err := Dequantize(TypeIQ2_XXS, blk, y); err != nil {
		t.Fatal(err)
	}
	want = []float32{-75.25, 14, 14, 14, 14, 14, 14, -14, 14}
	for i, w := range want {
		if y[i] != w {
			t.Errorf("IQ2_XXS element %d = %g, want %g", i, y[i], w)
		}
	}
}

func TestIQQuantizable(t *testing.T) {
	for _, typ := range iqTypes {
		want := typ == TypeIQ3_S
		if !Supported(typ) || Quantizable(typ) != want {
			t.Errorf("%v: Supported %v, Quantizable %v; want true, %v", typ, Supported(typ), Quantizable(typ), want)
		}
		x := make([]float32, QK_K)
		if err := Quantize(typ, x, make([]byte, typ.TypeSize())); (err == nil) != want {
			t.Errorf("%v: Quantize gives %v", typ, err)
		}
	}
	if err := Dequantize(TypeIQ3_S, make([]byte, 109), make([]float32, QK_K)); err == nil {
		t.Error("Dequantize accepted a short IQ3_S block")
	}
}
