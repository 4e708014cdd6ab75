package quant

import (
	"encoding/binary"
	"math"
)

// This file holds the plain float types and ggml's original block formats,
// the ones with 32 elements per block and a single scale (Q4_0, Q5_0, Q8_0),
// or a scale and a minimum (Q4_1, Q5_1), or a scale and a sum (Q8_1).
//
// All multi-byte fields are little-endian. Quantizers mirror ggml's
// quantize_row_*_ref in float32 arithmetic, step for step: where ggml rounds
// an intermediate product to float32 before adding, the Go code does so
// explicitly with a float32 conversion, so that no architecture fuses the
// two into one FMA and changes the last bit.

// qk32 is the block size of the simple formats and of IQ4_NL.
const qk32 = 32

// F32: 4 bytes per element, IEEE 754 single precision.

func dequantizeF32(src []byte, dst []float32) {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
	}
}

func quantizeF32(src []float32, dst []byte) {
	for i, v := range src {
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
	}
}

// F16: 2 bytes per element, IEEE 754 half precision.

func dequantizeF16(src []byte, dst []float32) {
	for i := range dst {
		dst[i] = F16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

func quantizeF16(src []float32, dst []byte) {
	for i, v := range src {
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToF16(v))
	}
}

// BF16: 2 bytes per element, the top half of a float32.

func dequantizeBF16(src []byte, dst []float32) {
	for i := range dst {
		dst[i] = BF16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

func quantizeBF16(src []float32, dst []byte) {
	for i, v := range src {
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToBF16(v))
	}
}

// loadHalf reads the float16 at b[0:2].
func loadHalf(b []byte) float32 { return F16ToF32(binary.LittleEndian.Uint16(b)) }

// storeHalf stores f rounded to float16 at b[0:2].
func storeHalf(b []byte, f float32) { binary.LittleEndian.PutUint16(b, F32ToF16(f)) }

// largestSigned returns the element of largest magnitude, keeping its sign; the
// first one wins a tie, and 0 is returned for an all-zero block.
func largestSigned(x []float32) float32 {
	var amax, vmax float32
	for _, v := range x {
		if a := absF32(v); amax < a {
			amax, vmax = a, v
		}
	}
	return vmax
}

// largestAbs returns the largest magnitude in x.
func largestAbs(x []float32) float32 {
	var amax float32
	for _, v := range x {
		// ggml's MAX(a, b) is a > b ? a : b, which a NaN does not stick to.
		if a := absF32(v); !(amax > a) {
			amax = a
		}
	}
	return amax
}

// rangeOf returns the smallest and largest element of x (NaNs ignored).
func rangeOf(x []float32) (lo, hi float32) {
	lo, hi = math.MaxFloat32, -math.MaxFloat32
	for _, v := range x {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

func absF32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// invOrZero returns 1/d, or 0 when d is zero, as ggml's "d ? 1.0f/d : 0.0f".
func invOrZero(d float32) float32 {
	if d == 0 {
		return 0
	}
	return 1 / d
}

// cTruncInt8 converts like C's (int8_t)f for the small values quantizers
// produce: toward zero, keeping the low byte.
func cTruncInt8(f float32) int8 { return int8(int32(f)) }

// cRoundInt8 rounds half away from zero (C's roundf) and converts to int8.
func cRoundInt8(f float32) int8 { return int8(int32(math.Round(float64(f)))) }

// Q4_0: 18 bytes per 32 elements.
//
//	d  float16  scale
//	qs [16]byte element j in the low nibble of qs[j], element j+16 in the
//	            high nibble; value = (q - 8) * d
//
// The scale maps the element of largest magnitude to -8, so that sign
// gets the extra level of the asymmetric range [-8, 7].

func dequantizeQ4_0(src []byte, dst []float32) {
	for b := range len(dst) / qk32 {
		blk, y := src[18*b:18*b+18], dst[qk32*b:qk32*b+qk32]
		d := loadHalf(blk)
		for j, q := range blk[2:18] {
			y[j] = float32(int(q&0x0f)-8) * d
			y[j+16] = float32(int(q>>4)-8) * d
		}
	}
}

func quantizeQ4_0(src []float32, dst []byte) {
	for b := range len(src) / qk32 {
		x, blk := src[qk32*b:qk32*b+qk32], dst[18*b:18*b+18]
		d := largestSigned(x) / -8
		id := invOrZero(d)
		storeHalf(blk, d)
		for j := range 16 {
			// q = trunc(x/d + 8.5), at most 15.
			q0 := min(15, cTruncInt8(float32(x[j]*id)+8.5))
			q1 := min(15, cTruncInt8(float32(x[j+16]*id)+8.5))
			blk[2+j] = byte(q0) | byte(q1)<<4
		}
	}
}

// Q4_1: 20 bytes per 32 elements.
//
//	d  float16  scale
//	m  float16  minimum
//	qs [16]byte nibbles as in Q4_0; value = q*d + m
//
// The block's range [min, max] is split into 15 steps.

func dequantizeQ4_1(src []byte, dst []float32) {
	for b := range len(dst) / qk32 {
		blk, y := src[20*b:20*b+20], dst[qk32*b:qk32*b+qk32]
		d, m := loadHalf(blk), loadHalf(blk[2:])
		for j, q := range blk[4:20] {
			y[j] = float32(float32(q&0x0f)*d) + m
			y[j+16] = float32(float32(q>>4)*d) + m
		}
	}
}

func quantizeQ4_1(src []float32, dst []byte) {
	for b := range len(src) / qk32 {
		x, blk := src[qk32*b:qk32*b+qk32], dst[20*b:20*b+20]
		lo, hi := rangeOf(x)
		d := (hi - lo) / 15
		id := invOrZero(d)
		storeHalf(blk, d)
		storeHalf(blk[2:], lo)
		for j := range 16 {
			q0 := min(15, cTruncInt8(float32((x[j]-lo)*id)+0.5))
			q1 := min(15, cTruncInt8(float32((x[j+16]-lo)*id)+0.5))
			blk[4+j] = byte(q0) | byte(q1)<<4
		}
	}
}

// Q5_0: 22 bytes per 32 elements.
//
//	d  float16  scale
//	qh uint32   bit j is the fifth (high) bit of element j
//	qs [16]byte low four bits, nibbles as in Q4_0; value = (q - 16) * d
//
// The scale maps the element of largest magnitude to -16.

func dequantizeQ5_0(src []byte, dst []float32) {
	for b := range len(dst) / qk32 {
		blk, y := src[22*b:22*b+22], dst[qk32*b:qk32*b+qk32]
		d := loadHalf(blk)
		qh := binary.LittleEndian.Uint32(blk[2:])
		for j, q := range blk[6:22] {
			h0 := int(qh>>j&1) << 4
			h1 := int(qh>>(j+16)&1) << 4
			y[j] = float32((int(q&0x0f)|h0)-16) * d
			y[j+16] = float32((int(q>>4)|h1)-16) * d
		}
	}
}

func quantizeQ5_0(src []float32, dst []byte) {
	for b := range len(src) / qk32 {
		x, blk := src[qk32*b:qk32*b+qk32], dst[22*b:22*b+22]
		d := largestSigned(x) / -16
		id := invOrZero(d)
		storeHalf(blk, d)
		var qh uint32
		for j := range 16 {
			q0 := uint8(min(31, cTruncInt8(float32(x[j]*id)+16.5)))
			q1 := uint8(min(31, cTruncInt8(float32(x[j+16]*id)+16.5)))
			blk[6+j] = q0&0x0f | q1<<4
			qh |= uint32(q0>>4) << j
			qh |= uint32(q1>>4) << (j + 16)
		}
		binary.LittleEndian.PutUint32(blk[2:], qh)
	}
}

// Q5_1: 24 bytes per 32 elements.
//
//	d  float16  scale
//	m  float16  minimum
//	qh uint32   fifth bits as in Q5_0
//	qs [16]byte low four bits as in Q4_0; value = q*d + m
//
// The block's range [min, max] is split into 31 steps.

func dequantizeQ5_1(src []byte, dst []float32) {
	for b := range len(dst) / qk32 {
		blk, y := src[24*b:24*b+24], dst[qk32*b:qk32*b+qk32]
		d, m := loadHalf(blk), loadHalf(blk[2:])
		qh := binary.LittleEndian.Uint32(blk[4:])
		for j, q := range blk[8:24] {
			q0 := uint32(q&0x0f) | (qh>>j&1)<<4
			q1 := uint32(q>>4) | (qh>>(j+16)&1)<<4
			y[j] = float32(float32(q0)*d) + m
			y[j+16] = float32(float32(q1)*d) + m
		}
	}
}

func quantizeQ5_1(src []float32, dst []byte) {
	for b := range len(src) / qk32 {
		x, blk := src[qk32*b:qk32*b+qk32], dst[24*b:24*b+24]
		lo, hi := rangeOf(x)
		d := (hi - lo) / 31
		id := invOrZero(d)
		storeHalf(blk, d)
		storeHalf(blk[2:], lo)
		var qh uint32
		for j := range 16 {
			// No clamp here in ggml: (x-min)/d is at most 31 plus rounding.
			q0 := uint8(int32(float32((x[j]-lo)*id) + 0.5))
			q1 := uint8(int32(float32((x[j+16]-lo)*id) + 0.5))
			blk[8+j] = q0&0x0f | q1<<4
			qh |= uint32(q0>>4&1) << j
			qh |= uint32(q1>>4&1) << (j + 16)
		}
		binary.LittleEndian.PutUint32(blk[4:], qh)
	}
}

// Q8_0: 34 bytes per 32 elements.
//
//	d  float16  scale
//	qs [32]int8 value = q * d
//
// The scale maps the largest magnitude to 127; quants round half away from
// zero.

func dequantizeQ8_0(src []byte, dst []float32) {
	for b := range len(dst) / qk32 {
		blk, y := src[34*b:34*b+34], dst[qk32*b:qk32*b+qk32]
		d := loadHalf(blk)
		for j, q := range blk[2:34] {
			y[j] = float32(int8(q)) * d
		}
	}
}

func quantizeQ8_0(src []float32, dst []byte) {
	for b := range len(src) / qk32 {
		x, blk := src[qk32*b:qk32*b+qk32], dst[34*b:34*b+34]
		d := largestAbs(x) / 127
		id := invOrZero(d)
		storeHalf(blk, d)
		for j, v := range x {
			blk[2+j] = byte(cRoundInt8(v * id))
		}
	}
}

// Q8_1: 36 bytes per 32 elements.
//
//	d  float16  scale
//	s  float16  d * sum(qs), used by dot products with Q4_1/Q5_1
//	qs [32]int8 value = q * d
//
// The quants are those of Q8_0.

func dequantizeQ8_1(src []byte, dst []float32) {
	for b := range len(dst) / qk32 {
		blk, y := src[36*b:36*b+36], dst[qk32*b:qk32*b+qk32]
		d := loadHalf(blk)
		for j, q := range blk[4:36] {
			y[j] = float32(int8(q)) * d
		}
	}
}

func quantizeQ8_1(src []float32, dst []byte) {
	for b := range len(src) / qk32 {
		x, blk := src[qk32*b:qk32*b+qk32], dst[36*b:36*b+36]
		d := largestAbs(x) / 127
		id := invOrZero(d)
		storeHalf(blk, d)
		sum := 0
		for j, v := range x {
			q := cRoundInt8(v * id)
			blk[4+j] = byte(q)
			sum += int(q)
		}
		storeHalf(blk[2:], float32(sum)*d)
	}
}
