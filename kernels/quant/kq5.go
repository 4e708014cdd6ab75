package quant

// Q5_K: 256 values in 8 sub-blocks of 32, each x ≈ d·sc·q - dmin·m with a
// 5-bit level q in 0..31 and 6-bit sub-block scale sc and min m. 176 bytes:
//
//	d      fp16  super-scale of the sc codes
//	dmin   fp16  super-scale of the m codes
//	scales [12]  the 8 (sc, m) pairs, packed as scaleMinK4 describes
//	qh     [32]  bit 4 of the levels: value i in bit i/32 of byte i%32
//	qs     [128] bits 0-3, laid out as Q4_K's levels
const (
	q5kD      = 0
	q5kDmin   = 2
	q5kScales = 4
	q5kQh     = 16
	q5kQs     = 48
	q5kSize   = 176
)

func dequantizeQ5_K(src []byte, dst []float32) {
	for b := 0; len(dst) > 0; b++ {
		blk := src[b*q5kSize : (b+1)*q5kSize]
		y := dst[:QK_K]
		dst = dst[QK_K:]
		d := kqLoadF16(blk[q5kD:])
		dmin := kqLoadF16(blk[q5kDmin:])
		qh := blk[q5kQh : q5kQh+32]
		for j := range 8 {
			sc, m := scaleMinK4(j, blk[q5kScales:])
			dj := d * float32(sc)
			mj := float32(dmin * float32(m)) // rounded: subtracted below
			qs := blk[q5kQs+32*(j/2) : q5kQs+32*(j/2)+32]
			shift := 4 * (j % 2)
			for l, q := range qs {
				v := (q >> shift) & 0x0f
				if qh[l]&(1<<j) != 0 {
					v += 16
				}
				y[32*j+l] = float32(dj*float32(v)) - mj
			}
		}
	}
}

func quantizeQ5_K(src []float32, dst []byte) {
	var (
		L            [QK_K]uint8
		scales, mins [8]float32
	)
	for b := 0; len(src) > 0; b++ {
		x := src[:QK_K]
		src = src[QK_K:]
		blk := dst[b*q5kSize : (b+1)*q5kSize]

		kqFitSubblocks32(x, 31, -0.5, 15, &L, &scales, &mins)
		quantizeScalesMinsK4(blk, &scales, &mins)
		kqRequantize32(x, blk, 31, &L)
		packQ5K(blk, &L)
	}
}

// packQ5K stores the levels L (0..31) in the block's qh and qs; it
// changes L.
func packQ5K(blk []byte, L *[QK_K]uint8) {
	qh := blk[q5kQh : q5kQh+32]
	clear(qh)
	for i, l := range L {
		if l > 15 {
			qh[i%32] |= 1 << (i / 32)
			l -= 16
		}
		L[i] = l
	}
	for j := 0; j < QK_K; j += 64 {
		q := blk[q5kQs+j/2 : q5kQs+j/2+32]
		for l := range q {
			q[l] = L[j+l] | L[j+l+32]<<4
		}
	}
}
