package cpu

import (
	"math"

	"saji/kernels/quant"
)

// The activation formats of quantized matrix products, held as Go values
// rather than bytes since they never leave the backend.

// q8Block is a Q8_0 or Q8_1 block of 32 activations: value = d·q. Its
// layout (40 bytes: d at 0, s at 4, q at 8) is read by the assembly kernels.
type q8Block struct {
	d float32 // the F16 scale, widened
	s float32 // Q8_1 only: F16(d·Σq), used with the minimum of Q4_1/Q5_1
	q [32]int8
}

// q8KBlock is a Q8_K block of 256 activations: value = d·q, with the sums of
// each 16 quants (bsum, at most 16·127 in magnitude) for the minimums of the
// K-quants. Its layout (292 bytes: d at 0, q at 4, bsum at 260) is read by
// the assembly kernels.
type q8KBlock struct {
	d    float32
	q    [quant.QK_K]int8
	bsum [quant.QK_K / 16]int16
}

// roundF16 rounds x to the nearest F16 value.
func roundF16(x float32) float32 { return quant.F16ToF32(quant.F32ToF16(x)) }

// roundHalves sets dst[i] to src[i] rounded to the half type of a product
// of kind dotF16 (F16) or dotBF16 (BF16): its activations. F16 rounds as
// f16Scale by 1, an exact scaling whose results round to F16, in SIMD
// where the machine has it; each element equals roundF16's.
func roundHalves(kind dotKind, dst, src []float32) {
	if kind == dotF16 {
		copy(dst, src)
		f16Scale(dst, 1)
		return
	}
	for i, v := range src {
		dst[i] = roundBF16(v)
	}
}

// roundBF16 rounds x to the nearest BF16 value.
func roundBF16(x float32) float32 { return quant.BF16ToF32(quant.F32ToBF16(x)) }

// quantizeQ8 quantizes x (a multiple of 32 long) into Q8_0 blocks, or Q8_1
// blocks when sums is set, as ggml's AVX quantize_row_q8_0/q8_1 do: the
// scale d = max|x|/127 is stored as F16, the quants are x·(127/max|x|)
// rounded half to even (the reference C code differs: it multiplies by 1/d
// and rounds half away from zero).
func quantizeQ8(x []float32, out []q8Block, sums bool) {
	for b := range out {
		xb := x[32*b : 32*b+32]
		var amax float32
		for _, v := range xb {
			amax = max(amax, abs32(v))
		}
		d := amax / 127
		var id float32
		if amax != 0 {
			id = 127 / amax
		}
		blk := &out[b]
		blk.d = roundF16(d)
		var sum int32
		for i, v := range xb {
			q := int8(math.RoundToEven(float64(v * id)))
			blk.q[i] = q
			sum += int32(q)
		}
		if sums {
			blk.s = roundF16(d * float32(sum))
		}
	}
}

// quantizeQ8K quantizes x (a multiple of 256 long) into Q8_K blocks as
// ggml's quantize_row_q8_K does: the value of largest magnitude (the first
// one, on ties) maps to -127, and the quants round half to even. With
// grouped set, a tie between +max and -max resolves to +max, as in ggml's
// AVX2 quantize_mat_q8_K_4x8 for the repacked kernels.
func quantizeQ8K(x []float32, out []q8KBlock, grouped bool) {
	for b := range out {
		xb := x[quant.QK_K*b : quant.QK_K*(b+1)]
		blk := &out[b]
		var amax, maxv float32
		for _, v := range xb {
			if a := abs32(v); a > amax {
				amax, maxv = a, v
			}
		}
		if grouped && maxv < 0 {
			for _, v := range xb {
				if v == amax {
					maxv = amax
					break
				}
			}
		}
		if amax == 0 {
			*blk = q8KBlock{}
			continue
		}
		iscale := -127 / maxv
		for i, v := range xb {
			blk.q[i] = int8(min(127, math.RoundToEven(float64(iscale*v))))
		}
		for g := range blk.bsum {
			var s int16
			for _, q := range blk.q[16*g : 16*g+16] {
				s += int16(q)
			}
			blk.bsum[g] = s
		}
		blk.d = 1 / iscale
	}
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }
