package cpu

import "saji/kernels/quant"

// decodeTQ decodes one TQ1_0 or TQ2_0 block into its values t-1 (-1, 0 or
// 1), unit group scales and its float16 scale.
func decodeTQ(t quant.Type, blk []byte, q []int8, sc []int32, d *float32) {
	var trits [quant.QK_K]byte
	if t == quant.TypeTQ1_0 {
		quant.TQ1Trits(blk, &trits)
	} else {
		quant.TQ2Trits(blk, &trits)
	}
	for i, v := range trits {
		q[i] = int8(v) - 1
	}
	for g := range sc {
		sc[g] = 1
	}
	*d = f16at(blk[len(blk)-2:])
}

// dotTQ follows ggml_vec_dot_tq1_0_q8_K and _tq2_0_q8_K (AVX2, as GCC
// builds them): per super-block, eight integer lanes, lane l holding the
// products of the trits t (0, 1 or 2) of the elements whose index modulo
// 32 is in [4l, 4l+4) with their activations, less the sums of
// activation groups 2l and 2l+1 (which makes the total Σ(t-1)·x); each
// lane is scaled by d_x·d_w with a fused multiply-add, then the lanes are
// added as hsum8 does.
func dotTQ(r *rowK, x []q8KBlock) float32 {
	var acc [8]float32
	for b := range x {
		xb := &x[b]
		q := r.q[quant.QK_K*b : quant.QK_K*(b+1)]
		var lanes [8]int32
		for e, v := range q {
			lanes[e%32/4] += (int32(v) + 1) * int32(xb.q[e])
		}
		d := xb.d * r.d[b]
		for l := range 8 {
			lanes[l] -= int32(xb.bsum[2*l]) + int32(xb.bsum[2*l+1])
			acc[l] = fma32(d, float32(lanes[l]), acc[l])
		}
	}
	return hsum8(&acc)
}
