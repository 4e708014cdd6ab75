package quant

// Q3_K: 256 values in 16 sub-blocks of 16, each x ≈ d·(sc-32)·(q-4) with a
// 3-bit level q in 0..7 and a 6-bit sub-block scale sc. 110 bytes:
//
//	hmask  [32]  bit 2 of the levels: value i in bit i/32 of byte i%32
//	qs     [64]  bits 0-1 of the levels; see kqPack2Bits for the order
//	scales [12]  the 16 6-bit scales: low nibbles of scales 0-7 and 8-15
//	             in the low and high nibbles of bytes 0-7; the top 2 bits
//	             of scale j in bits 2·(j/4) of byte 8 + j%4
//	d      fp16  super-scale
const (
	q3kHmask  = 0
	q3kQs     = 32
	q3kScales = 96
	q3kD      = 108
	q3kSize   = 110
)

// q3kScale decodes the signed scale of sub-block j from the packed bytes.
func q3kScale(sc []byte, j int) int8 {
	var lo uint8
	if j < 8 {
		lo = sc[j] & 0x0f
	} else {
		lo = sc[j-8] >> 4
	}
	hi := (sc[8+j%4] >> (2 * (j / 4))) & 3
	return int8(lo|hi<<4) - 32
}

func dequantizeQ3_K(src []byte, dst []float32) {
	for b := 0; len(dst) > 0; b++ {
		blk := src[b*q3kSize : (b+1)*q3kSize]
		y := dst[:QK_K]
		dst = dst[QK_K:]
		d := kqLoadF16(blk[q3kD:])
		sc := blk[q3kScales : q3kScales+12]
		for i := range QK_K {
			half, r := i/128, i%128
			shift := 2 * (r / 32)
			l := r % 32
			q := int8((blk[q3kQs+32*half+l] >> shift) & 3)
			if blk[q3kHmask+i%32]&(1<<(i/32)) == 0 {
				q -= 4
			}
			dl := d * float32(q3kScale(sc, i/16))
			y[i] = dl * float32(q)
		}
	}
}

func quantizeQ3_K(src []float32, dst []byte) {
	var (
		L      [QK_K]int8
		scales [QK_K / 16]float32
	)
	for b := 0; len(src) > 0; b++ {
		x := src[:QK_K]
		src = src[QK_K:]
		blk := dst[b*q3kSize : (b+1)*q3kSize]

		// Fit each sub-block; remember the scale of largest magnitude
		// with its sign.
		var maxScale, amax float32
		for j := range QK_K / 16 {
			scales[j] = makeQ3Quants(x[16*j:16*j+16], 4, L[16*j:16*j+16])
			if a := kqAbs(scales[j]); a > amax {
				amax, maxScale = a, scales[j]
			}
		}

		// Quantize the scales to 6 bits, signed, relative to maxScale.
		sc := blk[q3kScales : q3kScales+12]
		clear(sc)
		if maxScale != 0 {
			iscale := -32 / maxScale
			for j := range QK_K / 16 {
				// int8 first, as ggml stores it, then clamp.
				l := int8(kqNearestInt(iscale * scales[j]))
				l = max(-32, min(31, l)) + 32
				putQ3KScale(sc, j, uint8(l))
			}
			kqStoreF16(blk[q3kD:], F32ToF16(1/iscale))
		} else {
			kqStoreF16(blk[q3kD:], F32ToF16(0))
		}

		q3kRequantizePack(x, blk, &L)
	}
}

// putQ3KScale stores the 6-bit code l (the scale plus 32) of sub-block j
// in the packed scales sc, which start cleared.
func putQ3KScale(sc []byte, j int, l uint8) {
	if j < 8 {
		sc[j] = l & 0x0f
	} else {
		sc[j-8] |= (l & 0x0f) << 4
	}
	sc[8+j%4] |= (l >> 4) << (2 * (j / 4))
}

// q3kRequantizePack recomputes the levels of x against the scales stored
// in the Q3_K block blk (a sub-block whose scale is 0 keeps the levels of
// its fit, in L offset by 4) and stores them in the high-bit mask and the
// 2-bit codes.
func q3kRequantizePack(x []float32, blk []byte, L *[QK_K]int8) {
	sc := blk[q3kScales : q3kScales+12]
	d := kqLoadF16(blk[q3kD:])
	for j := range QK_K / 16 {
		dj := d * float32(q3kScale(sc, j))
		if dj == 0 {
			continue
		}
		for i := 16 * j; i < 16*j+16; i++ {
			L[i] = int8(kqClamp(kqNearestInt(x[i]/dj), -4, 3) + 4)
		}
	}

	// Split the 3-bit levels into the high-bit mask and 2-bit codes.
	hmask := blk[q3kHmask : q3kHmask+32]
	clear(hmask)
	var low [QK_K]uint8
	for i, l := range L {
		if l > 3 {
			hmask[i%32] |= 1 << (i / 32)
			l -= 4
		}
		low[i] = uint8(l)
	}
	kqPack2Bits(blk[q3kQs:q3kQs+64], low[:])
}
