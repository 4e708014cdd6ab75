package quant

import "math"

// Shared machinery of the K-quant reference quantizers (Q2_K ... Q6_K).
//
// Byte compatibility with ggml depends on doing every step in the same
// float32 arithmetic, in the same order. Two Go rules matter here:
//   - Go may fuse x*y + z into one FMA instruction on arm64 (never on
//     amd64). ggml's reference code is built without FMA, so every product
//     that is then added to or subtracted from is wrapped in an explicit
//     float32(...) conversion, which the spec says forbids fusion.
//     Fusion can also happen across statements (a product kept in a
//     variable and added later, or passed to an inlined function), so
//     such products are rounded explicitly where they are made.
//   - Sums are accumulated in ggml's order; nothing is reassociated.

// kqGroupMaxEps is ggml's GROUP_MAX_EPS: a group whose largest magnitude is
// below it counts as all zero.
const kqGroupMaxEps float32 = 1e-15

// kqNearestInt rounds x to the nearest integer, ties to even, exactly as
// ggml's nearest_int does: adding 1.5·2^23 pushes the fraction out of the
// float32 mantissa (the addition itself rounds to even), and the low 23
// bits of the sum then hold the integer offset by 2^22. For |x| < 2^22 this
// equals nearestInt; beyond that ggml's result wraps around, and the
// callers clamp it, so the wrap is reproduced too for degenerate inputs
// (such as a quotient by a tiny slope).
//
// The explicit float32(x) matters: after inlining, x is often a product,
// and without the conversion Go on arm64 would fuse it with the addition.
func kqNearestInt(x float32) int32 {
	v := float32(x) + 12582912
	return int32(math.Float32bits(v)&0x007fffff) - 0x00400000
}

// kqClamp limits v to [lo, hi].
func kqClamp(v, lo, hi int32) int32 {
	return max(lo, min(hi, v))
}

// kqAbs returns |x|.
func kqAbs(x float32) float32 {
	return math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
}

// kqSqrt is a correctly rounded float32 square root, like sqrtf: the
// float64 root rounded to float32 is never double-rounded wrongly.
func kqSqrt(x float32) float32 {
	return float32(math.Sqrt(float64(x)))
}

// kqAbsMax returns the element of x with the largest magnitude (the first
// one on ties) and that magnitude.
func kqAbsMax(x []float32) (maxv, amax float32) {
	for _, v := range x {
		if a := kqAbs(v); a > amax {
			amax, maxv = a, v
		}
	}
	return maxv, amax
}

// makeQXQuants finds a symmetric scale for x on the signed grid
// [-nmax, nmax-1] and writes the levels, offset by nmax, to L. It is
// ggml's make_qx_quants with rmse_type 1: the error is weighted by qw
// (importance weights) or, when qw is nil, by x², the starting scale
// -nmax/max is refined by a
// least-squares fit, and 18 nearby scales (nmax ± 0.1·k) are tried, keeping
// the one whose fit explains the most of x. Returns the scale (negative
// when the largest-magnitude element is positive; the grid is asymmetric).
func makeQXQuants(x, qw []float32, nmax int32, L []uint8) float32 {
	maxv, amax := kqAbsMax(x)
	if amax < kqGroupMaxEps {
		clear(L[:len(x)])
		return 0
	}
	fnmax := float32(nmax)
	iscale := -fnmax / maxv
	var sumlx, suml2 float32
	for i, v := range x {
		l := kqClamp(kqNearestInt(iscale*v), -nmax, nmax-1)
		L[i] = uint8(l + nmax)
		w := weightOf(qw, x, i)
		fl := float32(l)
		sumlx += float32(w * v * fl)
		suml2 += float32(w * fl * fl)
	}
	var scale float32
	if suml2 != 0 {
		scale = sumlx / suml2
	}
	best := scale * sumlx
	const tenth float32 = 0.1
	for is := int32(-9); is <= 9; is++ {
		if is == 0 {
			continue
		}
		iscale = -(fnmax + float32(tenth*float32(is))) / maxv
		sumlx, suml2 = 0, 0
		for i, v := range x {
			l := kqClamp(kqNearestInt(iscale*v), -nmax, nmax-1)
			w := weightOf(qw, x, i)
			fl := float32(l)
			sumlx += float32(w * v * fl)
			suml2 += float32(w * fl * fl)
		}
		if suml2 > 0 && sumlx*sumlx > best*suml2 {
			for i, v := range x {
				l := kqClamp(kqNearestInt(iscale*v), -nmax, nmax-1)
				L[i] = uint8(l + nmax)
			}
			scale = sumlx / suml2
			best = scale * sumlx
		}
	}
	return scale
}

// weightOf returns the weight of element i of x: qw[i], or x[i]² when qw
// is nil.
func weightOf(qw, x []float32, i int) float32 {
	if qw != nil {
		return qw[i]
	}
	return x[i] * x[i]
}

// makeQ3Quants finds a symmetric scale for x on the grid [-nmax, nmax-1]
// by ggml's make_q3_quants with do_rmse: start from -nmax/max, then for up
// to five passes move single elements to the level that the current
// least-squares fit (weighted by x²) prefers, keeping a move only when it
// improves the fit. The levels, offset by nmax, go to L; an all-zero group
// leaves L all 0 (not nmax), as in ggml. Returns the fitted scale.
func makeQ3Quants(x []float32, nmax int32, L []int8) float32 {
	maxv, amax := kqAbsMax(x)
	if amax < kqGroupMaxEps {
		clear(L[:len(x)])
		return 0
	}
	iscale := float32(-nmax) / maxv
	var sumlx, suml2 float32
	for i, v := range x {
		l := kqClamp(kqNearestInt(iscale*v), -nmax, nmax-1)
		L[i] = int8(l)
		w := v * v
		fl := float32(l)
		sumlx += float32(w * v * fl)
		suml2 += float32(w * fl * fl)
	}
	for range 5 {
		changed := 0
		for i, v := range x {
			w := v * v
			old := float32(L[i])
			slx := sumlx - float32(w*v*old)
			if slx <= 0 {
				continue
			}
			sl2 := suml2 - float32(w*old*old)
			nl := kqClamp(kqNearestInt(v*sl2/slx), -nmax, nmax-1)
			if nl == int32(L[i]) {
				continue
			}
			fl := float32(nl)
			slx += float32(w * v * fl)
			sl2 += float32(w * fl * fl)
			if sl2 > 0 && slx*slx*suml2 > sumlx*sumlx*sl2 {
				L[i] = int8(nl)
				sumlx, suml2 = slx, sl2
				changed++
			}
		}
		if changed == 0 {
			break
		}
	}
	for i := range x {
		L[i] += int8(nmax)
	}
	if suml2 > 0 {
		return sumlx / suml2
	}
	return 0
}

// makeQKX2Quants fits x ≈ scale·L + min with L in [0, nmax] and min <= 0,
// minimising the weighted squared (or, with useMAD, absolute) error. It is
// ggml's make_qkx2_quants: start from the min/max range, then try the
// nstep+1 grid densities (nmax + rmin + rdelta·k)/(max-min), each with a
// closed-form weighted least-squares fit of scale and min, keeping the best.
// The levels go to L (laux is scratch of the same length). Returns the
// scale and the negated min, which is >= 0 (ggml's the_min).
func makeQKX2Quants(x, weights []float32, nmax int32, L, laux []uint8,
	rmin, rdelta float32, nstep int, useMAD bool) (scale, negMin float32) {
	n := len(x)
	minv, maxv := x[0], x[0]
	sumW := weights[0]
	sumX := sumW * x[0]
	for i := 1; i < n; i++ {
		if x[i] < minv {
			minv = x[i]
		}
		if x[i] > maxv {
			maxv = x[i]
		}
		w := weights[i]
		sumW += w
		sumX += float32(w * x[i])
	}
	if minv > 0 {
		minv = 0
	}
	if maxv == minv {
		clear(L[:n])
		return 0, -minv
	}
	errOf := func(diff float32) float32 {
		if useMAD {
			return kqAbs(diff)
		}
		return diff * diff
	}
	fnmax := float32(nmax)
	iscale := fnmax / (maxv - minv)
	scale = 1 / iscale
	var bestErr float32
	for i, v := range x {
		l := kqClamp(kqNearestInt(iscale*(v-minv)), 0, nmax)
		L[i] = uint8(l)
		diff := float32(scale*float32(l)) + minv - v
		bestErr += float32(weights[i] * errOf(diff))
	}
	if nstep < 1 {
		return scale, -minv
	}
	for is := 0; is <= nstep; is++ {
		iscale = (rmin + float32(rdelta*float32(is)) + fnmax) / (maxv - minv)
		var sumL, sumL2, sumXL float32
		for i, v := range x {
			l := kqClamp(kqNearestInt(iscale*(v-minv)), 0, nmax)
			laux[i] = uint8(l)
			w := weights[i]
			fl := float32(l)
			sumL += float32(w * fl)
			sumL2 += float32(w * fl * fl)
			sumXL += float32(w * fl * v)
		}
		d := float32(sumW*sumL2) - float32(sumL*sumL)
		if !(d > 0) {
			continue
		}
		thisScale := (float32(sumW*sumXL) - float32(sumX*sumL)) / d
		thisMin := (float32(sumL2*sumX) - float32(sumL*sumXL)) / d
		if thisMin > 0 {
			thisMin = 0
			thisScale = sumXL / sumL2
		}
		var curErr float32
		for i, v := range x {
			diff := float32(thisScale*float32(laux[i])) + thisMin - v
			curErr += float32(weights[i] * errOf(diff))
		}
		if curErr < bestErr {
			copy(L[:n], laux[:n])
			bestErr = curErr
			scale, minv = thisScale, thisMin
		}
	}
	return scale, -minv
}

// scaleMinK4 unpacks the 6-bit scale and min of sub-block j (0..7) from the
// 12 packed bytes q of a Q4_K or Q5_K block (ggml's get_scale_min_k4).
// Sub-blocks 0-3 keep their scale in the low 6 bits of q[j] and their min in
// the low 6 bits of q[j+4]. Sub-blocks 4-7 keep the low 4 bits of scale and
// min in the two nibbles of q[j+4] and the top 2 bits of each in the spare
// top bits of q[j-4] (scale) and q[j] (min).
func scaleMinK4(j int, q []byte) (sc, m uint8) {
	if j < 4 {
		return q[j] & 63, q[j+4] & 63
	}
	sc = q[j+4]&0x0f | (q[j-4]>>6)<<4
	m = q[j+4]>>4 | (q[j]>>6)<<4
	return sc, m
}

// PutScaleMinK4 packs the 6-bit scales ls and mins lm of the 8 sub-blocks
// of a Q4_K or Q5_K block into q (12 zeroed bytes) as the file holds them:
// for layouts that keep them unpacked and give the file's bytes back.
func PutScaleMinK4(q []byte, ls, lm *[8]uint8) { putScaleMinK4(q, ls, lm) }

// putScaleMinK4 packs the 6-bit scales ls and mins lm of the 8 sub-blocks
// into q (12 bytes) in the layout scaleMinK4 reads.
func putScaleMinK4(q []byte, ls, lm *[8]uint8) {
	for j := range 8 {
		if j < 4 {
			q[j] = ls[j]
			q[j+4] = lm[j]
		} else {
			q[j+4] = ls[j]&0x0f | (lm[j]&0x0f)<<4
			q[j-4] |= (ls[j] >> 4) << 6
			q[j] |= (lm[j] >> 4) << 6
		}
	}
}

// quantizeScalesMinsK4 turns the float scales and mins of the 8 sub-blocks
// of a Q4_K or Q5_K block into 6-bit codes relative to their maxima, stores
// them packed into q[4:16] and the two fp16 super-scales (d, dmin) into
// q[0:4].
func quantizeScalesMinsK4(q []byte, scales, mins *[8]float32) {
	var maxScale, maxMin float32
	for j := range 8 {
		if scales[j] > maxScale {
			maxScale = scales[j]
		}
		if mins[j] > maxMin {
			maxMin = mins[j]
		}
	}
	var invScale, invMin float32
	if maxScale > 0 {
		invScale = 63 / maxScale
	}
	if maxMin > 0 {
		invMin = 63 / maxMin
	}
	var ls, lm [8]uint8
	for j := range 8 {
		// ggml stores the rounded value in a uint8 before clamping; the
		// truncation is kept for fidelity (it only matters for a negative
		// scale, which the fit does not normally produce).
		ls[j] = min(63, uint8(kqNearestInt(invScale*scales[j])))
		lm[j] = min(63, uint8(kqNearestInt(invMin*mins[j])))
	}
	putScaleMinK4(q[4:16], &ls, &lm)
	kqStoreF16(q[0:], F32ToF16(maxScale/63))
	kqStoreF16(q[2:], F32ToF16(maxMin/63))
}

// kqLoadF16 reads a little-endian fp16 value as float32.
func kqLoadF16(b []byte) float32 {
	return F16ToF32(uint16(b[0]) | uint16(b[1])<<8)
}

// kqStoreF16 writes the fp16 bits h little-endian.
func kqStoreF16(b []byte, h uint16) {
	b[0] = byte(h)
	b[1] = byte(h >> 8)
}

// kqPack2Bits stores 256 2-bit levels into 64 bytes the way Q2_K and Q3_K
// do: in each half of 128 values, byte l holds values l, l+32, l+64 and
// l+96 in bits 0-1, 2-3, 4-5 and 6-7.
func kqPack2Bits(qs []byte, L []uint8) {
	for j := 0; j < QK_K; j += 128 {
		for l := range 32 {
			qs[j/4+l] = L[j+l] | L[j+l+32]<<2 | L[j+l+64]<<4 | L[j+l+96]<<6
		}
	}
}
