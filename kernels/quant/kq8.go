package quant

import (
	"encoding/binary"
	"math"
)

// Q8_K: 256 values x ≈ d·q with int8 q; ggml uses it only for the
// activations in K-quant dot products, never in files. 292 bytes:
//
//	d     float32  scale
//	qs    [256]    int8 levels
//	bsums [16]     int16 little-endian: the sum of each 16 levels
const (
	q8kD     = 0
	q8kQs    = 4
	q8kBsums = 260
	q8kSize  = 292
)

func dequantizeQ8_K(src []byte, dst []float32) {
	for b := 0; len(dst) > 0; b++ {
		blk := src[b*q8kSize : (b+1)*q8kSize]
		y := dst[:QK_K]
		dst = dst[QK_K:]
		d := math.Float32frombits(binary.LittleEndian.Uint32(blk[q8kD:]))
		for i := range y {
			y[i] = d * float32(int8(blk[q8kQs+i]))
		}
	}
}

func quantizeQ8_K(src []float32, dst []byte) {
	for b := 0; len(src) > 0; b++ {
		x := src[:QK_K]
		src = src[QK_K:]
		blk := dst[b*q8kSize : (b+1)*q8kSize]

		maxv, amax := kqAbsMax(x)
		if amax == 0 {
			// ggml leaves bsums untouched here; Saji zeroes them, which
			// is what they sum to.
			clear(blk)
			continue
		}
		// -127, not -128, so that the levels stay symmetric (ggml needs
		// that for its IQ2 dot products).
		iscale := -127 / maxv
		qs := blk[q8kQs : q8kQs+QK_K]
		for i, v := range x {
			qs[i] = uint8(min(127, kqNearestInt(iscale*v)))
		}
		for j := range QK_K / 16 {
			var sum int16
			for _, q := range qs[16*j : 16*j+16] {
				sum += int16(int8(q))
			}
			binary.LittleEndian.PutUint16(blk[q8kBsums+2*j:], uint16(sum))
		}
		binary.LittleEndian.PutUint32(blk[q8kD:], math.Float32bits(1/iscale))
	}
}
