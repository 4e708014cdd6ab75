package quant

import "encoding/binary"

// The 4-bit non-linear formats store, per element, a 4-bit index into a
// fixed table of 16 levels that are denser near zero (fitted to the bell
// shape of trained weights), times a scale.

// iq4Levels are the 16 signed levels that IQ4_NL and IQ4_XS indices select
// (ggml's kvalues_iq4nl).
var iq4Levels = [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

// iq4Tries is the number of alternative scales tried on each side of the
// first guess when no importance matrix is given (ggml's ntry = 7).
const iq4Tries = 7

// iq4GroupMaxEps is the magnitude below which a 32-element group is treated
// as all zero (ggml's GROUP_MAX_EPS).
const iq4GroupMaxEps = 1e-15

// IQ4_NL: 18 bytes per 32 elements.
//
//	d  float16  scale
//	qs [16]byte element j's level index in the low nibble of qs[j],
//	            element j+16's in the high nibble; value = d * level[q]

func dequantizeIQ4_NL(src []byte, dst []float32) {
	for b := range len(dst) / qk32 {
		blk, y := src[18*b:18*b+18], dst[qk32*b:qk32*b+qk32]
		d := loadHalf(blk)
		for j, q := range blk[2:18] {
			y[j] = d * float32(iq4Levels[q&0x0f])
			y[j+16] = d * float32(iq4Levels[q>>4])
		}
	}
}

func quantizeIQ4_NL(src []float32, dst []byte) { quantizeIQ4NLWeighted(src, nil, dst) }

// quantizeIQ4NLWeighted is quantizeIQ4_NL with the importance weights qw
// (one per element of src; nil for none), as ggml's quantize_iq4_nl.
func quantizeIQ4NLWeighted(src, qw []float32, dst []byte) {
	var (
		idx [qk32]uint8
		w   [qk32]float32
	)
	for b := range len(src) / qk32 {
		x, blk := src[qk32*b:qk32*b+qk32], dst[18*b:18*b+18]
		scale := iq4GroupScale(x, iq4Weights(x, x, qw, qk32*b, w[:]))
		storeHalf(blk, scale)
		// The indices are chosen again for the final (unrounded) scale.
		id := invOrZero(scale)
		for j, v := range x {
			idx[j] = iq4Nearest(float32(id * v))
		}
		iq4Pack(blk[2:18], idx[:])
	}
}

// IQ4_XS: 136 bytes per 256 elements, in eight groups of 32.
//
//	d        float16   super-block scale
//	scales_h uint16    bits 2g and 2g+1: high two bits of group g's scale
//	scales_l [4]byte   low nibble of byte g/2 (g even) or high nibble
//	                   (g odd): low four bits of group g's scale
//	qs       [128]byte 16 bytes per group, nibbles as in IQ4_NL
//
// Group g's 6-bit scale s (0..63) gives dl = d * (s - 32), and
// value = dl * level[q].

func dequantizeIQ4_XS(src []byte, dst []float32) {
	for b := range len(dst) / QK_K {
		blk, y := src[136*b:136*b+136], dst[QK_K*b:QK_K*b+QK_K]
		d := loadHalf(blk)
		sh := binary.LittleEndian.Uint16(blk[2:])
		for g := range QK_K / 32 {
			ls := int(blk[4+g/2]>>(4*(g%2)))&0x0f | int(sh>>(2*g)&3)<<4
			dl := d * float32(ls-32)
			qs, yg := blk[8+16*g:8+16*g+16], y[32*g:32*g+32]
			for j, q := range qs {
				yg[j] = dl * float32(iq4Levels[q&0x0f])
				yg[j+16] = dl * float32(iq4Levels[q>>4])
			}
		}
	}
}

func quantizeIQ4_XS(src []float32, dst []byte) { quantizeIQ4XSWeighted(src, nil, dst) }

// quantizeIQ4XSWeighted is quantizeIQ4_XS with the importance weights qw
// (one per element of src; nil for none), as ggml's quantize_iq4_xs.
func quantizeIQ4XSWeighted(src, qw []float32, dst []byte) {
	var (
		scales [QK_K / 32]float32
		idx    [QK_K]uint8
		w      [32]float32
	)
	for b := range len(src) / QK_K {
		x, blk := src[QK_K*b:QK_K*b+QK_K], dst[136*b:136*b+136]
		clear(blk)

		// Best float scale of each group, and the one of largest magnitude.
		var maxScale, amaxScale float32
		for g := range scales {
			xg := x[32*g : 32*g+32]
			s := iq4GroupScale(xg, iq4Weights(x, xg, qw, QK_K*b+32*g, w[:]))
			scales[g] = s
			if a := absF32(s); a > amaxScale {
				amaxScale, maxScale = a, s
			}
		}

		// The super-block scale maps the largest group scale to -32, the end
		// of the 6-bit range [-32, 31] with the extra level. An all-zero
		// super-block gets -0 here, as in ggml.
		d := -maxScale / 32
		storeHalf(blk, d)
		id := invOrZero(d)
		var sh uint16
		for g, s := range scales {
			l := min(31, max(-32, nearestInt(id*s)))
			// Indices are chosen for the group scale as stored (d * l, with
			// d before float16 rounding).
			idl := invOrZero(d * float32(l))
			for j, v := range x[32*g : 32*g+32] {
				idx[32*g+j] = iq4Nearest(float32(idl * v))
			}
			u := uint8(l + 32)
			blk[4+g/2] |= (u & 0x0f) << (4 * (g % 2))
			sh |= uint16(u>>4) << (2 * g)
		}
		binary.LittleEndian.PutUint16(blk[2:], sh)
		iq4Pack(blk[8:136], idx[:])
	}
}

// iq4Weights returns the weights of the group xg of the super-block sb
// under the importance weights qw (from element off of the row), as
// ggml's IQ4 quantizer makes them: qw·sqrt(sigma2 + x²), with sigma2
// twice the super-block's mean square. It returns nil when qw is nil.
func iq4Weights(sb, xg, qw []float32, off int, w []float32) []float32 {
	if qw == nil {
		return nil
	}
	var sigma2 float32
	for _, v := range sb {
		sigma2 += float32(v * v)
	}
	sigma2 *= 2 / float32(len(sb))
	importanceWeights(xg, qw[off:off+len(xg)], sigma2, w)
	return w[:len(xg)]
}

// iq4GroupScale returns the scale that ggml's IQ4 quantizer picks for the
// 32 elements x: the least-squares scale, weighted by w (nil: by x²), of
// the best of 2*iq4Tries+2 candidate assignments of levels. It returns 0
// for a group that is (nearly) all zero.
func iq4GroupScale(x, w []float32) float32 {
	vmax := largestSigned(x)
	if absF32(vmax) < iq4GroupMaxEps {
		return 0
	}

	// fit quantizes x with the invOrZero scale id and returns the weighted
	// sums Σw·q·x and Σw·q² that give the best scale for that assignment.
	fit := func(id float32) (sumqx, sumq2 float32) {
		for i, v := range x {
			q := float32(iq4Levels[iq4Nearest(float32(id*v))])
			wi := weightOf(w, x, i)
			sumqx += float32(wi * q * v)
			sumq2 += float32(wi * q * q)
		}
		return sumqx, sumq2
	}

	// First guess: the largest magnitude maps to the outermost level's
	// magnitude, 127.
	d := -vmax / float32(iq4Levels[0])
	sumqx, sumq2 := fit(1 / d)
	d = 0
	if sumq2 > 0 {
		d = sumqx / sumq2
	}
	best := d * sumqx

	// Then map the largest element to each level offset -7..7 from the
	// outermost one, keeping the scale that explains the most energy.
	for try := -iq4Tries; try <= iq4Tries; try++ {
		sumqx, sumq2 := fit(float32(try+int(iq4Levels[0])) / vmax)
		if sumq2 > 0 && sumqx*sumqx > best*sumq2 {
			d = sumqx / sumq2
			best = d * sumqx
		}
	}
	return d
}

// iq4Nearest returns the index of the level nearest to x; a tie goes to the
// larger level, and values beyond the ends clamp to them.
//
// Callers pass a product as float32(a * b): once this function is inlined,
// Go on arm64 would otherwise fuse the product into the subtractions below
// (an FMA), skipping the float32 rounding that ggml does, and pick another
// level near a midpoint.
func iq4Nearest(x float32) uint8 {
	if x <= float32(iq4Levels[0]) {
		return 0
	}
	if x >= float32(iq4Levels[15]) {
		return 15
	}
	lo, hi := 0, 15
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if x < float32(iq4Levels[mid]) {
			hi = mid
		} else {
			lo = mid
		}
	}
	if x-float32(iq4Levels[hi-1]) < float32(iq4Levels[hi])-x {
		return uint8(hi - 1)
	}
	return uint8(hi)
}

// iq4Pack stores 4-bit indices, 32 at a time: index j of each group of 32
// in the low nibble of byte j, index j+16 in the high nibble.
func iq4Pack(dst []byte, idx []uint8) {
	for g := range len(idx) / 32 {
		for j := range 16 {
			dst[16*g+j] = idx[32*g+j] | idx[32*g+16+j]<<4
		}
	}
}
