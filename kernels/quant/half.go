package quant

import "math"

// F16ToF32 converts an IEEE 754 half-precision value (as its bits) to float32.
// Every half value, subnormals and infinities included, is represented
// exactly.
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0: // signed zero
		return math.Float32frombits(sign)
	default: // subnormal: mant * 2^-24
		f := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
}

// F32ToF16 converts f to half precision, rounding to nearest with ties to
// even as ggml (and the F16C instruction) do. Values too large become
// infinity; NaN becomes a quiet NaN with the sign kept.
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	abs := b & 0x7fffffff
	switch {
	case abs > 0x7f800000: // NaN
		return sign | 0x7e00
	case abs >= 0x477ff000: // rounds to or beyond 65520: infinity
		return sign | 0x7c00
	case abs >= 0x38800000: // normal half (>= 2^-14)
		// Re-bias the exponent and round the 13 dropped mantissa bits.
		v := abs - (112 << 23)
		v += 0xfff + (v>>13)&1
		return sign | uint16(v>>13)
	case abs < 0x33000000: // below half the smallest subnormal: zero
		return sign
	default: // subnormal half
		exp := abs >> 23
		mant := abs&0x7fffff | 0x800000
		shift := 126 - exp // 14..24 for this range
		half := uint32(1) << (shift - 1)
		q := mant >> shift
		rem := mant & (1<<shift - 1)
		if rem > half || rem == half && q&1 == 1 {
			q++
		}
		return sign | uint16(q)
	}
}

// BF16ToF32 converts a bfloat16 value (as its bits) to float32 exactly.
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F32ToBF16 converts f to bfloat16 with round to nearest, ties to even, as
// ggml does; NaN stays a (quiet) NaN.
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 64
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// nearestInt rounds x to the nearest integer with ties to even, the way
// ggml's nearest_int does for the magnitudes quantizers produce
// (|x| < 2^22).
func nearestInt(x float32) int32 {
	return int32(math.RoundToEven(float64(x)))
}
