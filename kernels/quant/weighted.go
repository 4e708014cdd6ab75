package quant

import (
	"encoding/binary"
	"fmt"
)

// This file holds the quantizers ggml uses when llama-quantize is given an
// importance matrix (quantize_<type> with quant_weights, in llama.cpp's
// ggml/src/ggml-quants.c): the same block formats, fitted so that each
// column's error counts by its importance.

// weightedCodecs are the weighted quantizers, by type. Each takes one row
// src and the importance weights qw of its elements.
var weightedCodecs = map[Type]func(src, qw []float32, dst []byte){
	TypeQ4_0:    quantizeQ4_0Weighted,
	TypeQ4_1:    quantizeQ4_1Weighted,
	TypeQ5_0:    quantizeQ5_0Weighted,
	TypeQ5_1:    quantizeQ5_1Weighted,
	TypeQ2_K:    quantizeQ2KWeighted,
	TypeQ3_K:    quantizeQ3KWeighted,
	TypeQ4_K:    quantizeQ4KWeighted,
	TypeQ5_K:    quantizeQ5KWeighted,
	TypeQ6_K:    quantizeQ6KWeighted,
	TypeIQ4_NL:  quantizeIQ4NLWeighted,
	TypeIQ4_XS:  quantizeIQ4XSWeighted,
	TypeIQ2_XXS: quantizeIQ2XXSWeighted,
	TypeIQ2_XS:  quantizeIQ2XSWeighted,
	TypeIQ2_S:   quantizeIQ2SWeighted,
	TypeIQ3_XXS: quantizeIQ3XXSWeighted,
	TypeIQ1_S:   quantizeIQ1SWeighted,
	TypeIQ1_M:   quantizeIQ1MWeighted,
	TypeIQ3_S:   func(src, qw []float32, dst []byte) { quantizeIQ3S(src, dst, qw) },
}

// unweightedTypes are the types whose ggml quantizer ignores importance
// weights.
var unweightedTypes = map[Type]bool{
	TypeF32: true, TypeF16: true, TypeBF16: true, TypeQ8_0: true,
	TypeMXFP4: true, TypeTQ1_0: true, TypeTQ2_0: true,
}

// QuantizeWeighted encodes one row src as type t into dst with ggml's
// algorithm for an importance matrix, so the bytes match llama-quantize's
// given the same weights: weights holds one importance per element of the
// row (nil: Quantize). Types whose ggml quantizer ignores the weights
// (Q8_0, MXFP4, the ternary and float types) are quantized as by
// Quantize.
func QuantizeWeighted(t Type, src, weights []float32, dst []byte) error {
	if weights == nil || unweightedTypes[t] {
		return Quantize(t, src, dst)
	}
	if _, err := check(t, len(src), len(dst)); err != nil {
		return err
	}
	if len(weights) != len(src) {
		return fmt.Errorf("quant: %d importance weights for a row of %d", len(weights), len(src))
	}
	q, ok := weightedCodecs[t]
	if !ok {
		return fmt.Errorf("quant: quantizing to %v with an importance matrix is not implemented", t)
	}
	q(src, weights, dst)
	return nil
}

// QuantizableWeighted reports whether QuantizeWeighted handles t.
func QuantizableWeighted(t Type) bool {
	return unweightedTypes[t] && Quantizable(t) || weightedCodecs[t] != nil
}

// makeQPQuants fits the non-negative values x (a block's sub-block scales
// or mins) on the levels 0..nmax, weighted by qw: ggml's make_qp_quants.
// It tries scales around max/nmax, keeps the one of least weighted squared
// error, then for up to five passes moves single levels to those the
// current least-squares fit prefers. The levels go to L; it returns the
// fitted scale.
func makeQPQuants(x []float32, nmax int32, L []uint8, qw []float32) float32 {
	var maxv float32
	for _, v := range x {
		maxv = max(maxv, v)
	}
	if maxv < kqGroupMaxEps {
		clear(L[:len(x)])
		return 0
	}
	fnmax := float32(nmax)
	iscale := fnmax / maxv
	for i, v := range x {
		L[i] = uint8(kqNearestInt(iscale * v))
	}
	scale := 1 / iscale
	var bestMSE float32
	for i, v := range x {
		diff := v - float32(scale*float32(L[i]))
		bestMSE += float32(qw[i] * diff * diff)
	}
	const tenth float32 = 0.1
	for is := int32(-4); is <= 4; is++ {
		if is == 0 {
			continue
		}
		iscaleIs := (float32(tenth*float32(is)) + fnmax) / maxv
		scaleIs := 1 / iscaleIs
		var mse float32
		for i, v := range x {
			l := min(nmax, kqNearestInt(iscaleIs*v))
			diff := v - float32(scaleIs*float32(l))
			mse += float32(qw[i] * diff * diff)
		}
		if mse < bestMSE {
			bestMSE, iscale = mse, iscaleIs
		}
	}
	var sumlx, suml2 float32
	for i, v := range x {
		l := min(nmax, kqNearestInt(iscale*v))
		L[i] = uint8(l)
		fl := float32(l)
		sumlx += float32(qw[i] * v * fl)
		suml2 += float32(qw[i] * fl * fl)
	}
	for range 5 {
		changed := 0
		for i, v := range x {
			w := qw[i]
			old := float32(L[i])
			slx := sumlx - float32(w*v*old)
			sl2 := suml2 - float32(w*old*old)
			if !(slx > 0 && sl2 > 0) {
				continue
			}
			nl := min(nmax, kqNearestInt(v*sl2/slx))
			if nl == int32(L[i]) {
				continue
			}
			fl := float32(nl)
			slx += float32(w * v * fl)
			sl2 += float32(w * fl * fl)
			if slx*slx*suml2 > sumlx*sumlx*sl2 {
				L[i] = uint8(nl)
				sumlx, suml2 = slx, sl2
				changed++
			}
		}
		if changed == 0 {
			break
		}
	}
	if suml2 > 0 {
		return sumlx / suml2
	}
	return 0
}

// kqMeanSquare returns the mean square of a super-block's values; ggml
// adds it (or twice it) to each value's square in the importance weights.
func kqMeanSquare(x []float32) float32 {
	var sumX2 float32
	for _, v := range x {
		sumX2 += float32(v * v)
	}
	return sumX2 / QK_K
}

// importanceWeights sets the weights of the values xs,
// qw·sqrt(sigma2 + x²), ggml's weights under an importance matrix, and
// returns their sum.
func importanceWeights(xs, qw []float32, sigma2 float32, weights []float32) float32 {
	for l, v := range xs {
		weights[l] = qw[l] * kqSqrt(sigma2+float32(v*v))
	}
	var sumw float32
	for _, w := range weights[:len(xs)] {
		sumw += w
	}
	return sumw
}

// kqFitWeighted32 is kqFitSubblocks32 for an importance matrix: each
// value's weight is qw·sqrt(sigma2 + x²), the fit searches 37 grid
// densities from nmax-0.9, and the sub-block scales and mins are then
// coded on 6 bits by makeQPQuants, weighted by each sub-block's total
// weight, into the header h (d, dmin, the packed scales). clampCodes
// limits the codes to 63 (Q5_K does; Q4_K stores them as they come).
func kqFitWeighted32(x, qw []float32, nmax int32, clampCodes bool, L *[QK_K]uint8, h []byte) {
	var (
		weights, sw  [32]float32
		laux         [32]uint8
		scales, mins [8]float32
		ls, lm       [8]uint8
	)
	sigma2 := 2 * kqMeanSquare(x)
	for j := range 8 {
		xs := x[32*j : 32*j+32]
		sw[j] = importanceWeights(xs, qw[32*j:32*j+32], sigma2, weights[:])
		scales[j], mins[j] = makeQKX2Quants(xs, weights[:], nmax, L[32*j:32*j+32], laux[:], -0.9, 0.05, 36, false)
	}
	d := makeQPQuants(scales[:], 63, ls[:], sw[:8])
	m := makeQPQuants(mins[:], 63, lm[:], sw[:8])
	if clampCodes {
		for j := range 8 {
			ls[j], lm[j] = min(63, ls[j]), min(63, lm[j])
		}
	}
	putScaleMinK4(h[4:16], &ls, &lm)
	kqStoreF16(h[0:], F32ToF16(d))
	kqStoreF16(h[2:], F32ToF16(m))
}

// quantizeQ4KWeighted is ggml's quantize_row_q4_K_impl with importance
// weights.
func quantizeQ4KWeighted(src, qw []float32, dst []byte) {
	kqWeighted32(src, qw, dst, q4kSize, 15, packQ4K)
}

// quantizeQ5KWeighted is ggml's quantize_row_q5_K_impl with importance
// weights.
func quantizeQ5KWeighted(src, qw []float32, dst []byte) {
	kqWeighted32(src, qw, dst, q5kSize, 31, packQ5K)
}

// kqWeighted32 quantizes a row to Q4_K (nmax 15) or Q5_K (nmax 31), blocks
// of size bytes, under the importance weights qw, storing the levels with
// pack.
func kqWeighted32(src, qw []float32, dst []byte, size int, nmax int32, pack func([]byte, *[QK_K]uint8)) {
	var L [QK_K]uint8
	for b := 0; len(src) > 0; b++ {
		x := src[:QK_K]
		src = src[QK_K:]
		blk := dst[b*size : (b+1)*size]
		kqFitWeighted32(x, qw[b*QK_K:], nmax, nmax == 31, &L, blk)
		kqRequantize32(x, blk, nmax, &L)
		pack(blk, &L)
	}
}

// quantizeQ3KWeighted is ggml's quantize_row_q3_K_impl with importance
// weights, row by row: each sub-block fitted by makeQXQuants under the
// weights, the 16 scales coded on 6 bits by makeQXQuants weighted by each
// sub-block's total weight.
func quantizeQ3KWeighted(src, qw []float32, dst []byte) {
	var (
		L       [QK_K]int8
		lu      [16]uint8
		ls      [QK_K / 16]uint8
		weights [16]float32
		scales  [QK_K / 16]float32
		sw      [QK_K / 16]float32
	)
	for b := 0; len(src) > 0; b++ {
		x := src[:QK_K]
		src = src[QK_K:]
		blk := dst[b*q3kSize : (b+1)*q3kSize]
		w := qw[b*QK_K:]
		sigma2 := 2 * kqMeanSquare(x)
		for j := range QK_K / 16 {
			xs := x[16*j : 16*j+16]
			sw[j] = importanceWeights(xs, w[16*j:16*j+16], sigma2, weights[:])
			scales[j] = makeQXQuants(xs, weights[:], 4, lu[:])
			for l, v := range lu {
				L[16*j+l] = int8(v)
			}
		}
		sc := blk[q3kScales : q3kScales+12]
		clear(sc)
		d := makeQXQuants(scales[:], sw[:], 32, ls[:])
		for j, l := range ls {
			putQ3KScale(sc, j, l)
		}
		kqStoreF16(blk[q3kD:], F32ToF16(d))
		q3kRequantizePack(x, blk, &L)
	}
}

// quantizeQ2KWeighted is ggml's quantize_row_q2_K_impl, row by row: each
// sub-block fitted with a min under the weights (squared error, 37 grid
// densities), the scales and mins coded on 4 bits by makeQPQuants weighted
// by each sub-block's total weight.
func quantizeQ2KWeighted(src, qw []float32, dst []byte) {
	var (
		L            [QK_K]uint8
		laux         [16]uint8
		ls, lm       [QK_K / 16]uint8
		weights      [16]float32
		scales, mins [QK_K / 16]float32
		sw           [QK_K / 16]float32
	)
	for b := 0; len(src) > 0; b++ {
		x := src[:QK_K]
		src = src[QK_K:]
		blk := dst[b*q2kSize : (b+1)*q2kSize]
		w := qw[b*QK_K:]
		sigma2 := kqMeanSquare(x)
		for j := range QK_K / 16 {
			xs := x[16*j : 16*j+16]
			sw[j] = importanceWeights(xs, w[16*j:16*j+16], sigma2, weights[:])
			scales[j], mins[j] = makeQKX2Quants(xs, weights[:], 3, L[16*j:16*j+16], laux[:], -0.9, 0.05, 36, false)
		}
		dm := makeQPQuants(scales[:], 15, ls[:], sw[:])
		mm := makeQPQuants(mins[:], 15, lm[:], sw[:])
		kqStoreF16(blk[q2kD:], F32ToF16(dm))
		kqStoreF16(blk[q2kDmin:], F32ToF16(mm))
		sc := blk[q2kScales : q2kScales+16]
		for j := range sc {
			sc[j] = ls[j] | lm[j]<<4
		}
		q2kRequantizePack(x, blk, &L)
	}
}

// rowSigma2 returns the mean square of a row's values, which the 32-value
// formats add to each value's square in the importance weights.
func rowSigma2(x []float32) float32 {
	var sumX2 float32
	for _, v := range x {
		sumX2 += float32(v * v)
	}
	return sumX2 / float32(len(x))
}

// quantizeQ4_0Weighted is ggml's quantize_row_q4_0_impl: each block's
// scale fitted by makeQXQuants under the weights.
func quantizeQ4_0Weighted(src, qw []float32, dst []byte) { qWeighted32(src, qw, dst, 4, false) }

// quantizeQ5_0Weighted is ggml's quantize_row_q5_0_impl.
func quantizeQ5_0Weighted(src, qw []float32, dst []byte) { qWeighted32(src, qw, dst, 5, false) }

// quantizeQ4_1Weighted is ggml's quantize_row_q4_1_impl: each block's
// scale and min fitted under the weights.
func quantizeQ4_1Weighted(src, qw []float32, dst []byte) { qWeighted32(src, qw, dst, 4, true) }

// quantizeQ5_1Weighted is ggml's quantize_row_q5_1_impl.
func quantizeQ5_1Weighted(src, qw []float32, dst []byte) { qWeighted32(src, qw, dst, 5, true) }

// qWeighted32 quantizes a row to Q4_0 or Q5_0 (bits 4 or 5; a symmetric
// scale), or with withMin to Q4_1 or Q5_1 (a scale and a min), under the
// importance weights qw, each weight qw·sqrt(sigma2 + x²) with sigma2 the
// row's mean square.
func qWeighted32(src, qw []float32, dst []byte, bits int, withMin bool) {
	var (
		weights [qk32]float32
		L, laux [qk32]uint8
	)
	nmax := int32(1)<<bits - 1
	head := 2 // the fp16 scale, and with withMin the fp16 min
	if withMin {
		head = 4
	}
	size := head + 16 + 4*(bits-4) // the levels, and Q5's fifth bits
	sigma2 := rowSigma2(src)
	for b := range len(src) / qk32 {
		x, blk := src[qk32*b:qk32*b+qk32], dst[size*b:size*(b+1)]
		importanceWeights(x, qw[qk32*b:], sigma2, weights[:])
		if withMin {
			d, negMin := makeQKX2Quants(x, weights[:], nmax, L[:], laux[:], -0.9, 0.05, 36, false)
			storeHalf(blk, d)
			storeHalf(blk[2:], -negMin)
		} else {
			storeHalf(blk, makeQXQuants(x, weights[:], (nmax+1)/2, L[:]))
		}
		if bits == 5 {
			pack5Bits(blk[head:head+4], blk[head+4:], &L)
			continue
		}
		for j := range 16 {
			blk[head+j] = L[j] | L[j+16]<<4
		}
	}
}

// pack5Bits stores 32 5-bit levels as Q5_0 and Q5_1 do: the fifth bits in
// the little-endian uint32 qh, the low nibbles in qs as Q4_0 does.
func pack5Bits(qh, qs []byte, L *[qk32]uint8) {
	var h uint32
	for j := range 16 {
		qs[j] = L[j]&0x0f | (L[j+16]&0x0f)<<4
		h |= uint32(L[j]>>4&1) << j
		h |= uint32(L[j+16]>>4&1) << (j + 16)
	}
	binary.LittleEndian.PutUint32(qh, h)
}
