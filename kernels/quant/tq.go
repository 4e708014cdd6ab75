package quant

import "math"

// The ternary formats (BitNet b1.58 and TriLM models) store each element
// as a trit t in {0, 1, 2} for the value d*(t-1), with one float16 scale d
// per super-block of 256.

// TQ2_0: 66 bytes per 256 elements.
//
//	qs [64]byte two bits per trit: bits 2l..2l+1 of qs[32c+m] hold
//	            element 128c + 32l + m
//	d  float16  scale
//
// TQ1_0: 54 bytes per 256 elements, five trits to a byte (3^5 = 243).
//
//	qs [48]byte bytes 0-31: trit n of qs[m] is element 32n + m; bytes
//	            32-47: trit n of qs[32+m] is element 160 + 16n + m
//	qh [4]byte  trit n of qh[j] is element 240 + 4n + j (four trits)
//	d  float16  scale
//
// A byte holds its trits as a fixed-point fraction: byte b stands for
// b/256 ≈ Σ t_n 3^-(n+1), so trit n is the integer part of three times the
// fraction after multiplying by 3^n (in 8-bit arithmetic).

// tq1Trit returns trit n of a TQ1_0 byte.
func tq1Trit(b byte, n int) byte {
	q := b * [5]byte{1, 3, 9, 27, 81}[n]
	return byte(uint16(q) * 3 >> 8)
}

// TQ1Trits decodes the trits of one TQ1_0 block (54 bytes) into t, one per
// element, in element order.
func TQ1Trits(blk []byte, t *[QK_K]byte) {
	for n := range 5 {
		for m := range 32 {
			t[32*n+m] = tq1Trit(blk[m], n)
		}
		for m := range 16 {
			t[160+16*n+m] = tq1Trit(blk[32+m], n)
		}
	}
	for n := range 4 {
		for j := range 4 {
			t[240+4*n+j] = tq1Trit(blk[48+j], n)
		}
	}
}

// TQ2Trits decodes the trits of one TQ2_0 block (66 bytes) into t.
func TQ2Trits(blk []byte, t *[QK_K]byte) {
	for c := range 2 {
		for l := range 4 {
			for m := range 32 {
				t[128*c+32*l+m] = blk[32*c+m] >> (2 * l) & 3
			}
		}
	}
}

func dequantizeTQ1_0(src []byte, dst []float32) {
	dequantizeTernary(src, dst, 54, TQ1Trits)
}

func dequantizeTQ2_0(src []byte, dst []float32) {
	dequantizeTernary(src, dst, 66, TQ2Trits)
}

// dequantizeTernary decodes blocks of size bs whose scale is their last two
// bytes.
func dequantizeTernary(src []byte, dst []float32, bs int, trits func([]byte, *[QK_K]byte)) {
	var t [QK_K]byte
	for b := range len(dst) / QK_K {
		blk, y := src[bs*b:bs*(b+1)], dst[QK_K*b:QK_K*(b+1)]
		trits(blk, &t)
		d := loadHalf(blk[bs-2:])
		for i, v := range t {
			y[i] = float32(int(v)-1) * d
		}
	}
}

// quantizeTQ1_0 follows ggml's quantize_row_tq1_0_ref: the scale is the
// largest magnitude, each element rounds (half away from zero) to -1, 0 or
// 1 of it, and each byte stores its trits as the fraction Σ t_n 3^(4-n)/243
// rounded up to 256ths.
func quantizeTQ1_0(src []float32, dst []byte) {
	for b := range len(src) / QK_K {
		x, blk := src[QK_K*b:QK_K*(b+1)], dst[54*b:54*(b+1)]
		id := tqScale(x, blk[52:])
		pack := func(first, stride, count int) byte {
			var q byte
			for n := range count {
				q = q*3 + tqTrit(x[first+n*stride], id)
			}
			if count == 4 {
				q *= 3 // the first trit goes to the most significant place
			}
			return byte((int(q)*256 + 242) / 243)
		}
		for m := range 32 {
			blk[m] = pack(m, 32, 5)
		}
		for m := range 16 {
			blk[32+m] = pack(160+m, 16, 5)
		}
		for j := range 4 {
			blk[48+j] = pack(240+j, 4, 4)
		}
	}
}

// quantizeTQ2_0 follows ggml's quantize_row_tq2_0_ref: trits as in TQ1_0,
// two bits each.
func quantizeTQ2_0(src []float32, dst []byte) {
	for b := range len(src) / QK_K {
		x, blk := src[QK_K*b:QK_K*(b+1)], dst[66*b:66*(b+1)]
		id := tqScale(x, blk[64:])
		for c := range 2 {
			for m := range 32 {
				var q byte
				for l := range 4 {
					q += tqTrit(x[128*c+32*l+m], id) & 3 << (2 * l)
				}
				blk[32*c+m] = q
			}
		}
	}
}

// tqScale stores the scale of the super-block x (its largest magnitude)
// as float16 at d and returns its inverse, 0 for an all-zero block.
func tqScale(x []float32, d []byte) float32 {
	amax := largestAbs(x)
	storeHalf(d, amax)
	return invOrZero(amax)
}

// tqTrit returns the trit of v for the inverse scale id: lroundf(v·id)+1,
// kept to its low byte as ggml's 8-bit arithmetic does (a NaN, which
// lroundf turns into the smallest long, gives 1).
func tqTrit(v, id float32) byte {
	f := float64(v * id)
	if f != f || math.Abs(f) >= 1<<63 {
		lmin := int64(math.MinInt64)
		return byte(lmin + 1)
	}
	return byte(int64(math.Round(f)) + 1)
}
