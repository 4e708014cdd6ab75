package quant

// Q2_K: 256 values in 16 sub-blocks of 16, each x ≈ d·sc·q - dmin·m with a
// 2-bit level q in 0..3 and 4-bit sub-block scale sc and min m. 84 bytes:
//
//	scales [16]  sub-block j: sc in the low nibble, m in the high nibble
//	qs     [64]  levels; see kqPack2Bits for the order
//	d      fp16  super-scale of the sc codes
//	dmin   fp16  super-scale of the m codes
const (
	q2kScales = 0
	q2kQs     = 16
	q2kD      = 80
	q2kDmin   = 82
	q2kSize   = 84
)

func dequantizeQ2_K(src []byte, dst []float32) {
	for b := 0; len(dst) > 0; b++ {
		blk := src[b*q2kSize : (b+1)*q2kSize]
		y := dst[:QK_K]
		dst = dst[QK_K:]
		d := kqLoadF16(blk[q2kD:])
		dmin := kqLoadF16(blk[q2kDmin:])
		for i := range QK_K {
			half, r := i/128, i%128 // 128-value half and position within it
			shift := 2 * (r / 32)   // which bit pair of the byte
			l := r % 32             // byte within the half's 32 bytes
			sc := blk[q2kScales+i/16]
			q := (blk[q2kQs+32*half+l] >> shift) & 3
			dl := d * float32(sc&0x0f)
			ml := float32(dmin * float32(sc>>4)) // rounded: subtracted below
			y[i] = float32(dl*float32(q)) - ml
		}
	}
}

func quantizeQ2_K(src []float32, dst []byte) {
	var (
		L       [QK_K]uint8
		laux    [16]uint8
		weights [16]float32
		scales  [QK_K / 16]float32
		mins    [QK_K / 16]float32
	)
	const q4scale float32 = 15
	for b := 0; len(src) > 0; b++ {
		x := src[:QK_K]
		src = src[QK_K:]
		blk := dst[b*q2kSize : (b+1)*q2kSize]

		// Fit each sub-block with a min, minimising the weighted absolute
		// error (weights |x|).
		var maxScale, maxMin float32
		for j := range QK_K / 16 {
			xs := x[16*j : 16*j+16]
			for l, v := range xs {
				weights[l] = kqAbs(v)
			}
			scales[j], mins[j] = makeQKX2Quants(xs, weights[:], 3, L[16*j:16*j+16], laux[:], -0.5, 0.1, 15, true)
			if scales[j] > maxScale {
				maxScale = scales[j]
			}
			if mins[j] > maxMin {
				maxMin = mins[j]
			}
		}

		// Quantize the sub-block scales and mins to 4 bits.
		sc := blk[q2kScales : q2kScales+16]
		if maxScale > 0 {
			iscale := q4scale / maxScale
			for j := range sc {
				sc[j] = uint8(kqNearestInt(iscale * scales[j]))
			}
			kqStoreF16(blk[q2kD:], F32ToF16(maxScale/q4scale))
		} else {
			clear(sc)
			kqStoreF16(blk[q2kD:], F32ToF16(0))
		}
		if maxMin > 0 {
			iscale := q4scale / maxMin
			for j := range sc {
				sc[j] |= uint8(kqNearestInt(iscale*mins[j]) << 4)
			}
			kqStoreF16(blk[q2kDmin:], F32ToF16(maxMin/q4scale))
		} else {
			kqStoreF16(blk[q2kDmin:], F32ToF16(0))
		}

		q2kRequantizePack(x, blk, &L)
	}
}

// q2kRequantizePack recomputes the levels of x against the scales and
// mins stored in the Q2_K block blk (a sub-block whose scale code is 0
// keeps the levels of its fit, in L) and packs them.
func q2kRequantizePack(x []float32, blk []byte, L *[QK_K]uint8) {
	sc := blk[q2kScales : q2kScales+16]
	d := kqLoadF16(blk[q2kD:])
	dmin := kqLoadF16(blk[q2kDmin:])
	for j := range QK_K / 16 {
		dj := d * float32(sc[j]&0x0f)
		if dj == 0 {
			continue
		}
		mj := float32(dmin * float32(sc[j]>>4)) // rounded: added to x below
		for i := 16 * j; i < 16*j+16; i++ {
			L[i] = uint8(kqClamp(kqNearestInt((x[i]+mj)/dj), 0, 3))
		}
	}
	kqPack2Bits(blk[q2kQs:q2kQs+64], L[:])
}
