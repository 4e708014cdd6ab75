package quant

// Q4_K: 256 values in 8 sub-blocks of 32, each x ≈ d·sc·q - dmin·m with a
// 4-bit level q in 0..15 and 6-bit sub-block scale sc and min m. 144 bytes:
//
//	d      fp16  super-scale of the sc codes
//	dmin   fp16  super-scale of the m codes
//	scales [12]  the 8 (sc, m) pairs, packed as scaleMinK4 describes
//	qs     [128] levels: each 64 values share 32 bytes, the first 32 values
//	             in the low nibbles and the next 32 in the high nibbles
const (
	q4kD      = 0
	q4kDmin   = 2
	q4kScales = 4
	q4kQs     = 16
	q4kSize   = 144
)

func dequantizeQ4_K(src []byte, dst []float32) {
	for b := 0; len(dst) > 0; b++ {
		blk := src[b*q4kSize : (b+1)*q4kSize]
		y := dst[:QK_K]
		dst = dst[QK_K:]
		d := kqLoadF16(blk[q4kD:])
		dmin := kqLoadF16(blk[q4kDmin:])
		for j := range 8 {
			sc, m := scaleMinK4(j, blk[q4kScales:])
			dj := d * float32(sc)
			mj := float32(dmin * float32(m)) // rounded: subtracted below
			qs := blk[q4kQs+32*(j/2) : q4kQs+32*(j/2)+32]
			shift := 4 * (j % 2)
			for l, q := range qs {
				y[32*j+l] = float32(dj*float32((q>>shift)&0x0f)) - mj
			}
		}
	}
}

// kqFitSubblocks32 fits each 32-value sub-block of a Q4_K or Q5_K block
// with a scale and min on levels 0..nmax, weighting each value by
// rms(sub-block) + |x| as ggml does, and leaves the levels in L.
func kqFitSubblocks32(x []float32, nmax int32, rmin float32, nstep int,
	L *[QK_K]uint8, scales, mins *[8]float32) {
	var weights [32]float32
	var laux [32]uint8
	for j := range 8 {
		xs := x[32*j : 32*j+32]
		var sumX2 float32
		for _, v := range xs {
			sumX2 += float32(v * v)
		}
		avX := kqSqrt(sumX2 / 32)
		for l, v := range xs {
			weights[l] = avX + kqAbs(v)
		}
		scales[j], mins[j] = makeQKX2Quants(xs, weights[:], nmax, L[32*j:32*j+32], laux[:], rmin, 0.1, nstep, false)
	}
}

// kqRequantize32 recomputes the levels (0..nmax) of each sub-block against
// the scales and mins as stored in the Q4_K/Q5_K header h (d, dmin and the
// packed scales). A sub-block whose scale decodes to 0 keeps its levels.
func kqRequantize32(x []float32, h []byte, nmax int32, L *[QK_K]uint8) {
	d := kqLoadF16(h[0:])
	dmin := kqLoadF16(h[2:])
	for j := range 8 {
		sc, m := scaleMinK4(j, h[4:16])
		dj := d * float32(sc)
		if dj == 0 {
			continue
		}
		mj := float32(dmin * float32(m)) // rounded: added to x below
		for i := 32 * j; i < 32*j+32; i++ {
			L[i] = uint8(kqClamp(kqNearestInt((x[i]+mj)/dj), 0, nmax))
		}
	}
}

func quantizeQ4_K(src []float32, dst []byte) {
	var (
		L            [QK_K]uint8
		scales, mins [8]float32
	)
	for b := 0; len(src) > 0; b++ {
		x := src[:QK_K]
		src = src[QK_K:]
		blk := dst[b*q4kSize : (b+1)*q4kSize]

		kqFitSubblocks32(x, 15, -1, 20, &L, &scales, &mins)
		quantizeScalesMinsK4(blk, &scales, &mins)
		kqRequantize32(x, blk, 15, &L)
		packQ4K(blk, &L)
	}
}

// packQ4K stores the levels L in the block's qs.
func packQ4K(blk []byte, L *[QK_K]uint8) {
	for j := 0; j < QK_K; j += 64 {
		q := blk[q4kQs+j/2 : q4kQs+j/2+32]
		for l := range q {
			q[l] = L[j+l] | L[j+l+32]<<4
		}
	}
}
