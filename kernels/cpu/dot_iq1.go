package cpu

import "saji/kernels/quant"

// decodeIQ1 decodes one IQ1_S or IQ1_M block into its grid values q, the
// odd scales 2s+1 of its groups of 16, the signs of the shifts of its
// groups of 8 and its scale d; for IQ1_S, whose shift is one per group of
// 32, also each group's scale times its shift's sign (mn, as dotLanesK
// takes the group terms).
func decodeIQ1(t quant.Type, blk []byte, q []int8, sc, mn []int32, delta []int8, d *float32) {
	var b quant.IQ1Block
	quant.DecodeIQ1(t, blk, &b)
	copy(q, b.Grid[:])
	copy(sc, b.Scale[:])
	copy(delta, b.Sign[:])
	*d = b.D
	if t == quant.TypeIQ1_S {
		for g := range mn {
			mn[g] = sc[g] * int32(delta[2*g])
		}
	}
}

// dotIQ1M follows ggml_vec_dot_iq1_m_q8_K (AVX2, as GCC builds it): two
// sets of eight integer lanes by element index modulo 32 as in dotLanesK,
// one of the scaled grid products, one of the scaled shift signs times
// the activations; d_x·d_w scales each into its float lanes with fused
// multiply-adds, and the result is the first's hsum8 plus 1/8 of the
// second's, fused.
func dotIQ1M(r *rowK, x []q8KBlock) float32 {
	var acc, acc2 [8]float32
	for b := range x {
		xb := &x[b]
		q, sc := r.q[quant.QK_K*b:quant.QK_K*(b+1)], r.sc[16*b:16*b+16]
		delta := r.delta[32*b : 32*b+32]
		var lanes, shifts [8]int32
		for e, v := range q {
			y := sc[e/16] * int32(xb.q[e])
			lanes[e%32/4] += int32(v) * y
			shifts[e%32/4] += int32(delta[e/8]) * y
		}
		d := xb.d * r.d[b]
		for l := range 8 {
			acc[l] = fma32(d, float32(lanes[l]), acc[l])
			acc2[l] = fma32(d, float32(shifts[l]), acc2[l])
		}
	}
	return fma32(hsum8(&acc2), 0.125, hsum8(&acc))
}
