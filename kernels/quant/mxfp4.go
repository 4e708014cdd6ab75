package quant

import "math"

// MXFP4 (the OCP microscaling format, as gpt-oss ships its experts): 17
// bytes per 32 elements.
//
//	e  byte     E8M0 scale: the power of two 2^(e-127)
//	qs [16]byte element j's 4-bit E2M1 code in the low nibble of qs[j],
//	            element j+16's in the high nibble
//
// ggml keeps the E2M1 values doubled, as integers (FP4Levels), and halves
// the scale to match (E8M0Half), so value = E8M0Half(e) * FP4Levels[code].

// FP4Levels are the 16 E2M1 values doubled (ggml's kvalues_fp4, alias
// kvalues_mxfp4, defined in ggml-common.h): codes 0-7 are 0, 0.5, 1, 1.5,
// 2, 3, 4, 6 times two, codes 8-15 the same negated. It is part of the file
// format; do not modify it.
var FP4Levels = [16]int8{0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}

// E8M0Half returns half the value of the E8M0 scale e, 2^(e-128), as
// ggml_e8m0_to_fp32_half does: exact for every e (subnormal for e < 2),
// and 2^127 for e = 255, which MXFP4 files must not hold.
func E8M0Half(e uint8) float32 {
	if e < 2 {
		return math.Float32frombits(0x00200000 << e)
	}
	return math.Float32frombits(uint32(e-1) << 23)
}

func dequantizeMXFP4(src []byte, dst []float32) {
	for b := range len(dst) / qk32 {
		blk, y := src[17*b:17*b+17], dst[qk32*b:qk32*b+qk32]
		d := E8M0Half(blk[0])
		for j, q := range blk[1:17] {
			y[j] = d * float32(FP4Levels[q&0x0f])
			y[j+16] = d * float32(FP4Levels[q>>4])
		}
	}
}

// quantizeMXFP4 follows ggml's quantize_row_mxfp4_ref: the exponent puts
// the largest magnitude in the top binade of the E2M1 range (4 to 6 times
// the scale, before halving), and each element takes the nearest level,
// the lower code on a tie.
func quantizeMXFP4(src []float32, dst []byte) {
	for b := range len(src) / qk32 {
		x, blk := src[qk32*b:qk32*b+qk32], dst[17*b:17*b+17]
		// ggml's "amax < |v|" passes over NaNs, unlike largestAbs.
		var amax float32
		for _, v := range x {
			if a := absF32(v); amax < a {
				amax = a
			}
		}
		e := mxfp4Exponent(amax)
		blk[0] = e
		d := E8M0Half(e)
		for j := range 16 {
			blk[1+j] = mxfp4Nearest(x[j], d) | mxfp4Nearest(x[j+16], d)<<4
		}
	}
}

// mxfp4Exponent returns the E8M0 exponent ggml picks for a block whose
// largest magnitude is amax: floor(log2(amax)) - 2 + 127, with log2
// rounded to float32 first as log2f does (so a value just below a power of
// two may count as that power), converted to a byte as x86-64 does (through
// int32, keeping the low byte). An all-zero block gets 0.
func mxfp4Exponent(amax float32) uint8 {
	if !(amax > 0) {
		return 0
	}
	l := float32(math.Log2(float64(amax)))
	v := float32(math.Floor(float64(l))) - 2 + 127
	if !(v > math.MinInt32 && v < math.MaxInt32) { // x86-64's cvttss2si
		return 0
	}
	return uint8(int32(v))
}

// mxfp4Nearest returns the code whose level times d is nearest to x; the
// first code wins a tie, so +0 (code 0) is preferred to -0 (code 8).
// Products of a level and a power of two are exact, so there is no
// rounding to keep apart from the subtraction.
func mxfp4Nearest(x, d float32) uint8 {
	best, bestErr := uint8(0), absF32(float32(FP4Levels[0])*d-x)
	for i := 1; i < 16; i++ {
		if err := absF32(float32(FP4Levels[i])*d - x); err < bestErr {
			best, bestErr = uint8(i), err
		}
	}
	return best
}
