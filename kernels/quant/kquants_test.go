package quant

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"testing"
)

// kTypes lists the K-quant formats with a bound on the relative RMS error
// of a round trip of N(0,1) data, about 1.2 times the measured figure
// (0.298, 0.152, 0.072, 0.036, 0.018 and 0.0069).
var kTypes = []struct {
	typ    Type
	relRMS float64
}{
	{TypeQ2_K, 0.35},
	{TypeQ3_K, 0.18},
	{TypeQ4_K, 0.085},
	{TypeQ5_K, 0.043},
	{TypeQ6_K, 0.021},
	{TypeQ8_K, 0.0082},
}

// roundTrip quantizes x as t and decodes it again.
func roundTrip(t *testing.T, typ Type, x []float32) (q []byte, y []float32) {
	t.Helper()
	size, err := typ.RowSize(int64(len(x)))
	if err != nil {
		t.Fatal(err)
	}
	q = make([]byte, size)
	if err := Quantize(typ, x, q); err != nil {
		t.Fatal(err)
	}
	y = make([]float32, len(x))
	if err := Dequantize(typ, q, y); err != nil {
		t.Fatal(err)
	}
	return q, y
}

// relRMSErr returns sqrt(Σ(x-y)² / Σx²).
func relRMSErr(x, y []float32) float64 {
	var num, den float64
	for i := range x {
		d := float64(x[i]) - float64(y[i])
		num += d * d
		den += float64(x[i]) * float64(x[i])
	}
	return math.Sqrt(num / den)
}

// TestKQNearestInt checks that ggml's rounding trick agrees with plain
// round-half-to-even over the range the quantizers rely on, negatives and
// ties included.
func TestKQNearestInt(t *testing.T) {
	vals := []float32{0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997,
		3.5000002, -127.5, 127.5, 31.5, -32.5, 4194303, -4194303, 4194302.5}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		vals = append(vals, float32(r.NormFloat64()*100), float32(r.Float64()*8e6-4e6))
	}
	for _, v := range vals {
		if got, want := kqNearestInt(v), nearestInt(v); got != want {
			t.Errorf("kqNearestInt(%v) = %d, nearestInt = %d", v, got, want)
		}
	}
}

// kqCase builds one 256-value test block.
type kqCase struct {
	name string
	x    func(i int) float32
}

var kqCases = []kqCase{
	{"zero", func(int) float32 { return 0 }},
	{"constant", func(int) float32 { return 0.75 }},
	{"negative constant", func(int) float32 { return -1.25 }},
	{"ramp", func(i int) float32 { return float32(i-128) / 64 }},
	{"outlier", func(i int) float32 {
		if i == 77 {
			return 100
		}
		return float32(i%7-3) / 8
	}},
	{"all negative", func(i int) float32 { return -0.5 - float32(i%13)/10 }},
}

// kqTiny gives values far below the smallest fp16 scale: every format but
// Q8_K (whose scale is a float32) must flush them to zero, as ggml does.
func kqTiny(i int) float32 { return float32(i%5-2) * 1e-20 }

// TestKQuantKnownVectors round-trips hand-made blocks: an all-zero block
// must encode to zero bytes and decode to zeros, and every other block must
// decode within a per-format fraction of its range.
func TestKQuantKnownVectors(t *testing.T) {
	// Worst-case error as a fraction of the block's largest magnitude; the
	// measured worst cases (ramp or all negative) are 0.149, 0.116, 0.030,
	// 0.014, 0.015 and, for Q8_K, its half step 1/254.
	tol := map[Type]float64{
		TypeQ2_K: 0.2, TypeQ3_K: 0.15, TypeQ4_K: 0.04,
		TypeQ5_K: 0.02, TypeQ6_K: 0.02, TypeQ8_K: 0.004,
	}
	for _, kt := range kTypes {
		for _, c := range kqCases {
			t.Run(kt.typ.String()+"/"+c.name, func(t *testing.T) {
				x := make([]float32, QK_K)
				var amax float64
				for i := range x {
					x[i] = c.x(i)
					amax = max(amax, math.Abs(float64(x[i])))
				}
				q, y := roundTrip(t, kt.typ, x)
				if amax == 0 {
					for i, b := range q {
						if b != 0 {
							t.Fatalf("byte %d = %#x, want all zero", i, b)
						}
					}
				}
				var worst float64
				for i := range x {
					if math.IsNaN(float64(y[i])) || math.IsInf(float64(y[i]), 0) {
						t.Fatalf("y[%d] = %v", i, y[i])
					}
					e := math.Abs(float64(x[i] - y[i]))
					if e > tol[kt.typ]*amax {
						t.Fatalf("y[%d] = %v, want %v ± %.3g", i, y[i], x[i], tol[kt.typ]*amax)
					}
					worst = max(worst, e)
				}
				if amax > 0 {
					t.Logf("worst error %.3g of the largest magnitude", worst/amax)
				}
			})
		}
	}
}

// TestKQuantTiny checks the flush to zero of values below fp16's range.
func TestKQuantTiny(t *testing.T) {
	x := make([]float32, QK_K)
	for i := range x {
		x[i] = kqTiny(i)
	}
	for _, kt := range kTypes {
		_, y := roundTrip(t, kt.typ, x)
		for i := range y {
			if kt.typ == TypeQ8_K {
				if e := math.Abs(float64(x[i] - y[i])); e > 1e-22 {
					t.Fatalf("Q8_K: y[%d] = %v, want %v", i, y[i], x[i])
				}
			} else if y[i] != 0 {
				t.Fatalf("%v: y[%d] = %v, want 0", kt.typ, i, y[i])
			}
		}
	}
}

// TestKQuantOutlierExact checks that the symmetric formats hit a lone large
// value almost exactly: their scale is fitted around the largest magnitude.
func TestKQuantOutlierExact(t *testing.T) {
	x := make([]float32, QK_K)
	for i := range x {
		x[i] = float32(i%7-3) / 8
	}
	x[77] = 100
	for _, typ := range []Type{TypeQ3_K, TypeQ6_K, TypeQ8_K} {
		_, y := roundTrip(t, typ, x)
		if math.Abs(float64(y[77])-100) > 0.1 {
			t.Errorf("%v: outlier decodes to %v, want ≈100", typ, y[77])
		}
	}
}

// TestKQuantRoundTripGaussian bounds the round-trip error on N(0,1) data
// and logs the measured figure.
func TestKQuantRoundTripGaussian(t *testing.T) {
	n := 64 * QK_K
	if testing.Short() {
		n = 8 * QK_K
	}
	r := rand.New(rand.NewPCG(42, 7))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	for _, kt := range kTypes {
		_, y := roundTrip(t, kt.typ, x)
		e := relRMSErr(x, y)
		t.Logf("%v: rel RMS error %.4f", kt.typ, e)
		if e > kt.relRMS {
			t.Errorf("%v: rel RMS error %.4f > %.4f", kt.typ, e, kt.relRMS)
		}
	}
}

// TestKQuantBlocksIndependent checks determinism: quantizing twice gives the
// same bytes, and each block's bytes depend only on its own values.
func TestKQuantBlocksIndependent(t *testing.T) {
	x := kqTestInput(4)
	for _, kt := range kTypes {
		q1, _ := roundTrip(t, kt.typ, x)
		q2, _ := roundTrip(t, kt.typ, x)
		if string(q1) != string(q2) {
			t.Fatalf("%v: two runs differ", kt.typ)
		}
		bs := kt.typ.TypeSize()
		for b := range 4 {
			one, _ := roundTrip(t, kt.typ, x[b*QK_K:(b+1)*QK_K])
			if string(one) != string(q1[b*bs:(b+1)*bs]) {
				t.Fatalf("%v: block %d differs when quantized alone", kt.typ, b)
			}
		}
	}
}

// kqTestInput returns nblocks blocks of pseudo-random, roughly normal values
// with varied block scales, a few outliers, an all-negative block and a
// near-constant block. It uses integer arithmetic only, so the values are
// the same on every architecture.
func kqTestInput(nblocks int) []float32 {
	s := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 { // splitmix64
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	x := make([]float32, nblocks*QK_K)
	for b := range nblocks {
		scale := float32(int(next()%64)+1) / 32 // 1/32 .. 2
		for i := range QK_K {
			// Sum of four 16-bit uniforms, centred: about N(0, 1)·37837,
			// an integer below 2^24, so the conversion is exact.
			var sum int64
			for range 4 {
				sum += int64(next() & 0xffff)
			}
			v := float32(sum-2*0xffff) / 37837 * scale
			switch b % 4 {
			case 1:
				v = -kqAbs(v) - 0.01 // all negative
			case 2:
				v = 0.5 + v/1024 // nearly constant
			}
			x[b*QK_K+i] = v
		}
		if b%4 == 3 {
			x[b*QK_K+int(next()%QK_K)] = 40 * scale // outlier
		}
	}
	return x
}

// kqGolden holds the SHA-256 of the quantized bytes followed by the decoded
// float32 bits of kqTestInput(256), per format. The values were produced by
// this code on amd64, whose quantized bytes equal llama-quantize's on the
// reference models; the test pins them on every architecture (run it under
// GOARCH=arm64 too: Go may contract float arithmetic there).
var kqGolden = map[Type]string{
	TypeQ2_K: "7c2a54007b39afc13571c2c3e36f8c7e8a41675681a2fb1c110afa6b077396c9",
	TypeQ3_K: "cd01175a207853b32a7894bfe7edec555eab390ab9abdafe91148adf1698dadc",
	TypeQ4_K: "0c60989582c3384f3fbe7b0f42bf33ccb11a76292a3cf3b84fc567552fae8859",
	TypeQ5_K: "b6e6f5d97fdf0bd060634c43b00b3451c5bf4beeec5735552927d4b9605d2d00",
	TypeQ6_K: "729e755bee325233c3d534773f00bab0e693a37e3b0ccdfc9298f5eed146264b",
	TypeQ8_K: "620f3e267abaae8f547c57e8295b5b26ea3d72d3ea8ac38cd62708931174b44f",
}

// TestKQuantGolden checks the bytes and decoded values of a fixed input
// against recorded hashes, so that every architecture gives the same.
func TestKQuantGolden(t *testing.T) {
	x := kqTestInput(256)
	for _, kt := range kTypes {
		q, y := roundTrip(t, kt.typ, x)
		h := sha256.New()
		h.Write(q)
		buf := make([]byte, 4*len(y))
		for i, v := range y {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		h.Write(buf)
		got := hex.EncodeToString(h.Sum(nil))
		if want := kqGolden[kt.typ]; got != want {
			t.Errorf("%v: hash %s, want %s", kt.typ, got, want)
		}
	}
}

// f16 returns the fp16 bits of v, which must be exactly representable.
func f16(t *testing.T, v float32) [2]byte {
	t.Helper()
	h := F32ToF16(v)
	if F16ToF32(h) != v {
		t.Fatalf("%v is not an fp16 value", v)
	}
	return [2]byte{byte(h), byte(h >> 8)}
}

// TestKQuantDecodeLayout decodes hand-built blocks. Each sets a few scale
// and level bits by the layout in ggml-common.h and lists the values they
// must produce; every other value must equal the block's baseline (its
// sub-block's value for level 0), so a bit read from the wrong place shows.
func TestKQuantDecodeLayout(t *testing.T) {
	type check struct {
		i    int
		want float32
	}
	tests := []struct {
		name     string
		typ      Type
		build    func(t *testing.T, b []byte)
		baseline func(i int) float32
		checks   []check
	}{
		{
			name: "Q2_K", typ: TypeQ2_K,
			build: func(t *testing.T, b []byte) {
				d, dmin := f16(t, 0.5), f16(t, 0.25)
				copy(b[80:], d[:])
				copy(b[82:], dmin[:])
				b[6] = 0x3a       // sub-block 6: scale 10, min 3
				b[10] = 0x01      // sub-block 10: scale 1, min 0
				b[16+5] = 2 << 6  // value 101 (sub-block 6): bits 6-7 of qs[5]
				b[16+33] = 3 << 2 // value 161: second half, bits 2-3 of qs[32+1]
			},
			baseline: func(i int) float32 {
				if i/16 == 6 {
					return -0.75
				}
				return 0
			},
			checks: []check{{101, 0.5*10*2 - 0.75}, {161, 0.5 * 1 * 3}},
		},
		{
			name: "Q3_K", typ: TypeQ3_K,
			build: func(t *testing.T, b []byte) {
				for i := range 32 {
					b[i] = 0xff // hmask: high bit set, so level = low bits
				}
				// Scale codes are value+32; code 32 has top bits 10.
				for i := 104; i < 108; i++ {
					b[i] = 0xaa
				}
				b[96+5] = 5 << 4 // scale 13 low nibble: code 37 (top bits 10)
				b[96+2] = 9      // scale 2 low nibble: code 25 = 0b01_1001
				b[104+2] = 0xa9  // scale 2 top bits (byte 8+2, bits 0-1) = 01
				d := f16(t, 0.25)
				copy(b[108:], d[:])
				b[32+32+20] = 3 << 4 // value 212 (sub-block 13): qs[32+20] bits 4-5
				b[20] &^= 1 << 6     // value 212: high bit clear, level 3-4 = -1
				b[32+32+21] = 2 << 4 // value 213: level 2
				b[32+8] = 1 << 2     // value 40 (sub-block 2): qs[8] bits 2-3
				b[1] &^= 1 << 1      // value 33: high bit clear, level -4
			},
			baseline: func(int) float32 { return 0 },
			checks: []check{
				{212, 0.25 * 5 * -1}, {213, 0.25 * 5 * 2},
				{40, 0.25 * -7 * 1}, {33, 0.25 * -7 * -4},
			},
		},
		{
			name: "Q4_K", typ: TypeQ4_K,
			build: func(t *testing.T, b []byte) {
				d, dmin := f16(t, 1), f16(t, 0.5)
				copy(b[0:], d[:])
				copy(b[2:], dmin[:])
				// Sub-block 1: scale 3, min 2; sub-block 5: scale 45
				// (0b10_1101), min 33 (0b10_0001).
				sc := b[4:16]
				sc[1] = 3 | 2<<6 // scale 1, and top bits of scale 5
				sc[5] = 2 | 2<<6 // min 1, and top bits of min 5
				sc[9] = 13 | 1<<4
				b[16+64+7] = 0x90 // value 167 (sub-block 5): high nibble
				b[16+3] = 0x5f    // value 35 (sub-block 1): 5; value 3: 15
			},
			baseline: func(i int) float32 {
				switch i / 32 {
				case 1:
					return -1
				case 5:
					return -16.5
				}
				return 0
			},
			checks: []check{{167, 45*9 - 16.5}, {35, 3*5 - 1}, {3, 0}},
		},
		{
			name: "Q5_K", typ: TypeQ5_K,
			build: func(t *testing.T, b []byte) {
				d, dmin := f16(t, 1), f16(t, 0.5)
				copy(b[0:], d[:])
				copy(b[2:], dmin[:])
				sc := b[4:16]
				sc[1] = 3 | 2<<6
				sc[5] = 2 | 2<<6
				sc[9] = 13 | 1<<4
				qh := b[16:48]
				qh[7] = 1<<5 | 1<<4 // value 167 (bit 5) and 135 (scale 0)
				qh[3] = 1 << 1      // value 35
				qh[4] = 1 << 1      // value 36
				b[48+64+7] = 0x90
				b[48+3] = 0x5f
			},
			baseline: func(i int) float32 {
				switch i / 32 {
				case 1:
					return -1
				case 5:
					return -16.5
				}
				return 0
			},
			checks: []check{{167, 45*25 - 16.5}, {35, 3*21 - 1}, {36, 3*16 - 1}, {3, 0}},
		},
		{
			name: "Q6_K", typ: TypeQ6_K,
			build: func(t *testing.T, b []byte) {
				d := f16(t, 0.5)
				copy(b[208:], d[:])
				m3 := int8(-3)
				b[192+10] = byte(m3)
				b[192+3] = 7
				b[192+5] = 1
				b[64+37] = 0x0a         // value 165 (second half, r=37): low nibble
				b[128+32+5] = 2 << 2    // value 165: qh bits 2-3
				b[50] = 0x0f            // value 50: low nibble
				b[18] = 0x30            // value 82 (r=82): high nibble of ql[18]
				b[128+18] = 3<<2 | 1<<4 // value 50: bits 2-3; value 82: bits 4-5
			},
			baseline: func(i int) float32 {
				switch i / 16 {
				case 10:
					return 0.5 * -3 * -32
				case 3:
					return 0.5 * 7 * -32
				case 5:
					return 0.5 * 1 * -32
				}
				return 0
			},
			checks: []check{{165, 0.5 * -3 * 10}, {50, 0.5 * 7 * 31}, {82, 0.5 * 1 * -13}},
		},
		{
			name: "Q8_K", typ: TypeQ8_K,
			build: func(t *testing.T, b []byte) {
				binary.LittleEndian.PutUint32(b, math.Float32bits(0.25))
				for i := range QK_K {
					b[4+i] = byte(int8(i - 128))
				}
			},
			baseline: func(i int) float32 { return 0.25 * float32(i-128) },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := make([]byte, tc.typ.TypeSize())
			tc.build(t, b)
			want := make([]float32, QK_K)
			for i := range want {
				want[i] = tc.baseline(i)
			}
			for _, c := range tc.checks {
				want[c.i] = c.want
			}
			y := make([]float32, QK_K)
			if err := Dequantize(tc.typ, b, y); err != nil {
				t.Fatal(err)
			}
			for i := range y {
				if y[i] != want[i] {
					t.Errorf("y[%d] = %v, want %v", i, y[i], want[i])
				}
			}
		})
	}
}

// TestQ8KBsums checks that Q8_K's block sums match its levels.
func TestQ8KBsums(t *testing.T) {
	x := kqTestInput(4)
	q, _ := roundTrip(t, TypeQ8_K, x)
	for b := range 4 {
		blk := q[b*292 : (b+1)*292]
		for j := range 16 {
			var sum int
			for _, v := range blk[4+16*j : 4+16*j+16] {
				sum += int(int8(v))
			}
			if got := int(int16(binary.LittleEndian.Uint16(blk[260+2*j:]))); got != sum {
				t.Errorf("block %d bsum %d = %d, want %d", b, j, got, sum)
			}
		}
	}
}
