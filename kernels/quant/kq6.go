package quant

// Q6_K: 256 values in 16 sub-blocks of 16, each x ≈ d·sc·(q-32) with a
// 6-bit level q in 0..63 and a signed 8-bit sub-block scale sc. 210 bytes:
//
//	ql     [128] bits 0-3 of the levels. In each half of 128 values, byte l
//	             (0..63) holds value l in its low nibble and value l+64 in
//	             its high nibble
//	qh     [64]  bits 4-5. In each half, byte l (0..31) holds values l,
//	             l+32, l+64 and l+96 in bits 0-1, 2-3, 4-5 and 6-7
//	scales [16]  int8 sub-block scales
//	d      fp16  super-scale
const (
	q6kQl     = 0
	q6kQh     = 128
	q6kScales = 192
	q6kD      = 208
	q6kSize   = 210
)

func dequantizeQ6_K(src []byte, dst []float32) {
	for b := 0; len(dst) > 0; b++ {
		blk := src[b*q6kSize : (b+1)*q6kSize]
		y := dst[:QK_K]
		dst = dst[QK_K:]
		d := kqLoadF16(blk[q6kD:])
		for i := range QK_K {
			half, r := i/128, i%128
			lo := (blk[q6kQl+64*half+r%64] >> (4 * (r / 64))) & 0x0f
			hi := (blk[q6kQh+32*half+r%32] >> (2 * (r / 32))) & 3
			q := int8(lo|hi<<4) - 32
			sc := int8(blk[q6kScales+i/16])
			y[i] = d * float32(sc) * float32(q)
		}
	}
}

func quantizeQ6_K(src []float32, dst []byte) { quantizeQ6KWeighted(src, nil, dst) }

// quantizeQ6KWeighted is quantizeQ6_K with the importance weights qw (one
// per element of src; nil for none) weighting each sub-block's fit, as
// ggml's quantize_row_q6_K_impl does.
func quantizeQ6KWeighted(src, qw []float32, dst []byte) {
	var (
		L      [QK_K]uint8
		scales [QK_K / 16]float32
	)
	for b := 0; len(src) > 0; b++ {
		x := src[:QK_K]
		src = src[QK_K:]
		blk := dst[b*q6kSize : (b+1)*q6kSize]

		// Fit each sub-block; remember the scale of largest magnitude
		// with its sign.
		var maxScale, maxAbs float32
		for j := range QK_K / 16 {
			var w []float32
			if qw != nil {
				w = qw[QK_K*b+16*j : QK_K*b+16*j+16]
			}
			scales[j] = makeQXQuants(x[16*j:16*j+16], w, 32, L[16*j:16*j+16])
			if a := kqAbs(scales[j]); a > maxAbs {
				maxAbs, maxScale = a, scales[j]
			}
		}
		if maxAbs < kqGroupMaxEps {
			clear(blk)
			continue
		}

		// Quantize the scales to int8 relative to maxScale; ggml clamps
		// only the top (the bottom cannot go below -128).
		iscale := -128 / maxScale
		kqStoreF16(blk[q6kD:], F32ToF16(1/iscale))
		sc := blk[q6kScales : q6kScales+16]
		for j := range sc {
			sc[j] = uint8(min(127, kqNearestInt(iscale*scales[j])))
		}

		// Requantize against the stored scales; a zero scale keeps the
		// levels of the fit.
		d := kqLoadF16(blk[q6kD:])
		for j := range QK_K / 16 {
			dj := d * float32(int8(sc[j]))
			if dj == 0 {
				continue
			}
			for i := 16 * j; i < 16*j+16; i++ {
				L[i] = uint8(kqClamp(kqNearestInt(x[i]/dj), -32, 31) + 32)
			}
		}

		for h := range 2 {
			ql := blk[q6kQl+64*h : q6kQl+64*h+64]
			qh := blk[q6kQh+32*h : q6kQh+32*h+32]
			v := L[128*h : 128*h+128]
			for l := range 32 {
				ql[l] = v[l]&0x0f | (v[l+64]&0x0f)<<4
				ql[l+32] = v[l+32]&0x0f | (v[l+96]&0x0f)<<4
				qh[l] = v[l]>>4 | (v[l+32]>>4)<<2 | (v[l+64]>>4)<<4 | (v[l+96]>>4)<<6
			}
		}
	}
}
