package cpu

import (
	"encoding/binary"

	"saji/kernels/quant"
)

// Quantized weight rows are decoded once per row into integer quants and
// per-group scales (the form ggml's vec_dot kernels compute with), then dotted
// with each quantized activation row. Integer sums are exact, so the results
// equal ggml's up to the order of the final float additions.

// dotKind is how a weight type multiplies activations.
type dotKind int

const (
	dotF32  dotKind = iota // F32 weights, F32 activations
	dotF16                 // F16 weights, activations rounded to F16
	dotBF16                // BF16 weights, activations rounded to BF16
	dotQ8                  // 32-blocks with Q8_0 (or Q8_1) activations
	dotQ8K                 // 256-blocks with Q8_K activations
)

// dotKindOf returns the kind of t and, for dotQ8, whether the activations
// need Q8_1's sums. ok is false for types without a CPU matrix product.
func dotKindOf(t quant.Type) (k dotKind, sums, ok bool) {
	switch t {
	case quant.TypeF32:
		return dotF32, false, true
	case quant.TypeF16:
		return dotF16, false, true
	case quant.TypeBF16:
		return dotBF16, false, true
	case quant.TypeQ4_0, quant.TypeQ5_0, quant.TypeQ8_0, quant.TypeIQ4_NL, quant.TypeMXFP4:
		return dotQ8, false, true
	case quant.TypeQ4_1, quant.TypeQ5_1:
		return dotQ8, true, true
	case quant.TypeQ2_K, quant.TypeQ3_K, quant.TypeQ4_K, quant.TypeQ5_K, quant.TypeQ6_K, quant.TypeIQ4_XS,
		quant.TypeTQ1_0, quant.TypeTQ2_0, quant.TypeIQ1_S, quant.TypeIQ1_M,
		quant.TypeIQ2_XXS, quant.TypeIQ2_XS, quant.TypeIQ2_S, quant.TypeIQ3_XXS, quant.TypeIQ3_S:
		return dotQ8K, false, true
	}
	return 0, false, false
}

// iq4Levels are the 16 levels of IQ4_NL and IQ4_XS (ggml's kvalues_iq4nl).
var iq4Levels = [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

func f16at(b []byte) float32 { return quant.F16ToF32(binary.LittleEndian.Uint16(b)) }

// row32 is a decoded row of 32-element blocks: value i = d[i/32]·q[i] + m[i/32].
type row32 struct {
	typ  quant.Type
	q    []int8
	d, m []float32
}

func (r *row32) reset(n int) {
	r.q = grow(r.q, n)
	r.d = grow(r.d, n/32)
	r.m = grow(r.m, n/32)
}

// decode32 decodes one row of a 32-block type.
func decode32(t quant.Type, src []byte, r *row32) {
	bs := t.TypeSize()
	r.typ = t
	for b := range len(r.d) {
		blk := src[b*bs : (b+1)*bs]
		q := r.q[32*b : 32*b+32]
		r.d[b] = f16at(blk)
		r.m[b] = 0
		switch t {
		case quant.TypeQ8_0:
			for i, v := range blk[2:34] {
				q[i] = int8(v)
			}
		case quant.TypeQ4_0:
			for i, v := range blk[2:18] {
				q[i], q[i+16] = int8(v&15)-8, int8(v>>4)-8
			}
		case quant.TypeQ4_1:
			r.m[b] = f16at(blk[2:])
			for i, v := range blk[4:20] {
				q[i], q[i+16] = int8(v&15), int8(v>>4)
			}
		case quant.TypeQ5_0:
			qh := binary.LittleEndian.Uint32(blk[2:])
			for i, v := range blk[6:22] {
				q[i] = int8(uint32(v&15)|(qh>>i&1)<<4) - 16
				q[i+16] = int8(uint32(v>>4)|(qh>>(i+16)&1)<<4) - 16
			}
		case quant.TypeQ5_1:
			r.m[b] = f16at(blk[2:])
			qh := binary.LittleEndian.Uint32(blk[4:])
			for i, v := range blk[8:24] {
				q[i] = int8(uint32(v&15) | (qh>>i&1)<<4)
				q[i+16] = int8(uint32(v>>4) | (qh>>(i+16)&1)<<4)
			}
		case quant.TypeIQ4_NL:
			for i, v := range blk[2:18] {
				q[i], q[i+16] = iq4Levels[v&15], iq4Levels[v>>4]
			}
		case quant.TypeMXFP4:
			decodeMXFP4(blk, q, &r.d[b])
		}
	}
}

// dot32 is the dot product of a decoded row with Q8_0/Q8_1 activations,
// with the float operations of the kernel ggml's x86-64 build uses for the
// type: for Q8_0 (ggml_vec_dot_q8_0_q8_0 and llamafile's tinyBLAS) eight
// lanes of four-element integer sums, each scaled and accumulated with a
// fused multiply-add, then added pairwise; for Q4_0, IQ4_NL and MXFP4 (the
// repacked 8x8 kernels) one fused multiply-add per block.
func dot32(r *row32, x []q8Block) float32 {
	switch r.typ {
	case quant.TypeQ8_0:
		var acc [8]float32
		for b := range x {
			d := r.d[b] * x[b].d
			q, xq := r.q[32*b:32*b+32], &x[b].q
			for l := range 8 {
				var p int32
				for k := 4 * l; k < 4*l+4; k++ {
					p += int32(q[k]) * int32(xq[k])
				}
				acc[l] = fma32(d, float32(p), acc[l])
			}
		}
		return hsum8(&acc)
	case quant.TypeQ4_0, quant.TypeIQ4_NL, quant.TypeMXFP4:
		var sum float32
		for b := range x {
			sum = fma32(float32(blockDot(r.q[32*b:32*b+32], &x[b].q)), r.d[b]*x[b].d, sum)
		}
		return sum
	}
	var sum float32
	for b := range x {
		sumi := blockDot(r.q[32*b:32*b+32], &x[b].q)
		// The conversions keep each product rounded on its own: without
		// them the compiler may fuse a multiply into the addition (it does
		// on arm64, and on amd64 from GOAMD64=v3), and the SIMD kernels
		// follow the unfused order.
		sum += float32(float32(sumi)*(r.d[b]*x[b].d)) + float32(r.m[b]*x[b].s)
	}
	return sum
}

// blockDot is the integer dot product of 32 quants.
func blockDot(q []int8, xq *[32]int8) int32 {
	var s int32
	for i := range 32 {
		s += int32(q[i]) * int32(xq[i])
	}
	return s
}

// hsum8 adds eight lanes as ggml's hsum_float_8 does: high half to low
// half, then lanes 0+2 and 1+3, then the two.
func hsum8(a *[8]float32) float32 {
	r0, r1, r2, r3 := a[0]+a[4], a[1]+a[5], a[2]+a[6], a[3]+a[7]
	return (r0 + r2) + (r1 + r3)
}

// rowK is a decoded row of 256-element super-blocks in groups of 16: value
// i = d·sc[g]·q[i] - dmin·mn[g] for the group g = i/16 of super-block i/256
// (for IQ1_S and IQ1_M, d·sc[g]·(q[i] + delta[i/8]/8), and for IQ1_S
// mn[g] = sc[g]·delta[2g]).
type rowK struct {
	typ     quant.Type
	q       []int8
	sc, mn  []int32
	d, dmin []float32
	delta   []int8
}

func (r *rowK) reset(n int) {
	r.q = grow(r.q, n)
	r.sc = grow(r.sc, n/16)
	r.mn = grow(r.mn, n/16)
	r.d = grow(r.d, n/quant.QK_K)
	r.dmin = grow(r.dmin, n/quant.QK_K)
	r.delta = grow(r.delta, n/8)
}

// decodeK decodes one row of a K-quant, IQ4_XS, or an IQ2 or IQ3 type
// (whose q are the signed grid magnitudes and sc the odd group scales, as
// quant.DecodeIQ gives them; the type's constant factor is applied by
// dotK).
func decodeK(t quant.Type, src []byte, r *rowK) {
	bs := t.TypeSize()
	r.typ = t
	for b := range len(r.d) {
		blk := src[b*bs : (b+1)*bs]
		q := r.q[quant.QK_K*b : quant.QK_K*(b+1)]
		sc, mn := r.sc[16*b:16*b+16], r.mn[16*b:16*b+16]
		r.dmin[b] = 0
		clear(mn)
		switch t {
		case quant.TypeQ2_K: // scales[16], qs[64], d, dmin
			r.d[b], r.dmin[b] = f16at(blk[80:]), f16at(blk[82:])
			for g := range 16 {
				sc[g], mn[g] = int32(blk[g]&15), int32(blk[g]>>4)
			}
			for i := range quant.QK_K {
				half, l := i/128, i%128
				q[i] = int8(blk[16+32*half+l%32] >> (2 * (l / 32)) & 3)
			}
		case quant.TypeQ3_K: // hmask[32], qs[64], scales[12], d
			r.d[b] = f16at(blk[108:])
			for g := range 16 {
				sc[g] = int32(q3kScale(blk[96:108], g))
			}
			for i := range quant.QK_K {
				half, l := i/128, i%128
				v := int8(blk[32+32*half+l%32] >> (2 * (l / 32)) & 3)
				if blk[i%32]&(1<<(i/32)) == 0 {
					v -= 4
				}
				q[i] = v
			}
		case quant.TypeQ4_K, quant.TypeQ5_K: // d, dmin, scales[12], (qh[32],) qs[128]
			r.d[b], r.dmin[b] = f16at(blk), f16at(blk[2:])
			qs, qh := blk[16:144], []byte(nil)
			if t == quant.TypeQ5_K {
				qs, qh = blk[48:176], blk[16:48]
			}
			for j := range 8 {
				s, m := scaleMinK4(j, blk[4:16])
				sc[2*j], sc[2*j+1] = int32(s), int32(s)
				mn[2*j], mn[2*j+1] = int32(m), int32(m)
				shift := 4 * (j % 2)
				for l, v := range qs[32*(j/2) : 32*(j/2)+32] {
					x := v >> shift & 15
					if qh != nil && qh[l]&(1<<j) != 0 {
						x += 16
					}
					q[32*j+l] = int8(x)
				}
			}
		case quant.TypeQ6_K: // ql[128], qh[64], scales[16] int8, d
			r.d[b] = f16at(blk[208:])
			for g := range 16 {
				sc[g] = int32(int8(blk[192+g]))
			}
			for i := range quant.QK_K {
				half, l := i/128, i%128
				lo := blk[64*half+l%64] >> (4 * (l / 64)) & 15
				hi := blk[128+32*half+l%32] >> (2 * (l / 32)) & 3
				q[i] = int8(lo|hi<<4) - 32
			}
		case quant.TypeTQ1_0, quant.TypeTQ2_0:
			decodeTQ(t, blk, q, sc, &r.d[b])
		case quant.TypeIQ1_S, quant.TypeIQ1_M:
			decodeIQ1(t, blk, q, sc, mn, r.delta[32*b:32*b+32], &r.d[b])
		case quant.TypeIQ4_XS: // d, scales_h u16, scales_l[4], qs[128]
			r.d[b] = f16at(blk)
			sh := binary.LittleEndian.Uint16(blk[2:])
			for g := range 8 {
				ls := int32(blk[4+g/2]>>(4*(g%2))&15) | int32(sh>>(2*g)&3)<<4
				sc[2*g], sc[2*g+1] = ls-32, ls-32
				for i, v := range blk[8+16*g : 24+16*g] {
					q[32*g+i], q[32*g+i+16] = iq4Levels[v&15], iq4Levels[v>>4]
				}
			}
		case quant.TypeIQ2_XXS, quant.TypeIQ2_XS, quant.TypeIQ2_S, quant.TypeIQ3_XXS, quant.TypeIQ3_S:
			r.d[b] = quant.DecodeIQ(t, blk, q, sc)
		}
	}
}

// q3kScale decodes the signed 6-bit scale of group j of a Q3_K block.
func q3kScale(sc []byte, j int) int8 {
	var lo uint8
	if j < 8 {
		lo = sc[j] & 15
	} else {
		lo = sc[j-8] >> 4
	}
	hi := sc[8+j%4] >> (2 * (j / 4)) & 3
	return int8(lo|hi<<4) - 32
}

// scaleMinK4 decodes the 6-bit scale and min of sub-block j of a Q4_K or
// Q5_K block from its 12 packed bytes.
func scaleMinK4(j int, q []byte) (sc, m uint8) {
	if j < 4 {
		return q[j] & 63, q[j+4] & 63
	}
	return q[j+4]&15 | (q[j-4]>>6)<<4, q[j+4]>>4 | (q[j]>>6)<<4
}

// dotK is the dot product of a decoded row with Q8_K activations, in the
// float order of the kernel ggml's x86-64 build uses for the type where
// Saji replicates it (Q2_K to Q6_K), and as one scaled integer sum per
// super-block otherwise. gemm tells whether ggml computes this activation
// row in a group of four (the repacked kernels' gemm) or alone (gemv).
func dotK(r *rowK, x []q8KBlock, gemm bool) float32 {
	switch r.typ {
	case quant.TypeQ6_K:
		return dotQ6K(r, x)
	case quant.TypeTQ1_0, quant.TypeTQ2_0:
		return dotTQ(r, x)
	case quant.TypeIQ1_M:
		return dotIQ1M(r, x)
	case quant.TypeQ3_K, quant.TypeQ5_K, quant.TypeIQ1_S:
		return dotLanesK(r, x)
	case quant.TypeIQ2_XXS, quant.TypeIQ2_XS, quant.TypeIQ2_S, quant.TypeIQ3_XXS, quant.TypeIQ3_S:
		// ggml_vec_dot_iq*_q8_K (AVX2) scale the sum of the lanes last.
		return quant.GridScale(r.typ) * dotLanesK(r, x)
	case quant.TypeQ4_K, quant.TypeQ2_K:
		chunk := quant.QK_K
		if gemm {
			chunk = 64
			if r.typ == quant.TypeQ2_K {
				chunk = 128
			}
		}
		return dotRepackedK(r, x, chunk)
	}
	var sum float32
	for b := range x {
		xb := &x[b]
		var isum, msum int32
		for g := range 16 {
			var s int32
			q, xq := r.q[quant.QK_K*b+16*g:quant.QK_K*b+16*g+16], xb.q[16*g:16*g+16]
			for i := range 16 {
				s += int32(q[i]) * int32(xq[i])
			}
			isum += r.sc[16*b+g] * s
			msum += r.mn[16*b+g] * int32(xb.bsum[g])
		}
		sum += r.d[b]*xb.d*float32(isum) - r.dmin[b]*xb.d*float32(msum)
	}
	return sum
}

// dotQ6K follows ggml_vec_dot_q6_K_q8_K (AVX2): eight integer lanes per
// super-block, lane l holding the products of the elements whose index
// modulo 32 is in [4l, 4l+4) on the unsigned 6-bit quants, less 32 times
// the scaled sums of groups 2l and 2l+1; each lane is scaled and
// accumulated with a fused multiply-add, then the lanes are added.
func dotQ6K(r *rowK, x []q8KBlock) float32 {
	var acc [8]float32
	for b := range x {
		xb := &x[b]
		q, sc := r.q[quant.QK_K*b:quant.QK_K*(b+1)], r.sc[16*b:16*b+16]
		var lanes [8]int32
		for e := range quant.QK_K {
			lanes[e%32/4] += sc[e/16] * (int32(q[e]) + 32) * int32(xb.q[e])
		}
		d := xb.d * r.d[b]
		for l := range 8 {
			lanes[l] -= 32 * (sc[2*l]*int32(xb.bsum[2*l]) + sc[2*l+1]*int32(xb.bsum[2*l+1]))
			acc[l] = fma32(d, float32(lanes[l]), acc[l])
		}
	}
	return hsum8(&acc)
}

// dotLanesK follows ggml_vec_dot_q3_K_q8_K, _q5_K_q8_K and _iq1_s_q8_K
// (AVX2, as GCC builds them), and the IQ2 and IQ3 types' kernels up to
// their constant factor: the scaled products go to eight integer lanes by
// element index modulo 32 as in dotQ6K, each lane is scaled by d with a
// fused multiply-add per super-block, and the group terms Σ mn·bsum
// (Q5_K's minimums, IQ1_S's shifts) are accumulated apart, in float32,
// scaled by -d_x·dmin (Q5_K) or d (IQ1_S, whose shift is 1/8 of the sum),
// and added last (the other types' sum is never -0, so adding their zero
// group terms changes nothing).
func dotLanesK(r *rowK, x []q8KBlock) float32 {
	var acc [8]float32
	var mins float32
	for b := range x {
		xb := &x[b]
		lanes := scaledLanes(r, b, xb)
		d := xb.d * r.d[b]
		for l := range 8 {
			acc[l] = fma32(d, float32(lanes[l]), acc[l])
		}
		if r.typ == quant.TypeQ5_K || r.typ == quant.TypeIQ1_S {
			var m int32
			for g := range 16 {
				m += r.mn[16*b+g] * int32(xb.bsum[g])
			}
			c := -xb.d * r.dmin[b]
			if r.typ == quant.TypeIQ1_S {
				c = d
			}
			mins = fma32(c, float32(m), mins)
		}
	}
	if r.typ == quant.TypeIQ1_S {
		return hsum8(&acc) + float32(0.125*mins)
	}
	return hsum8(&acc) + mins
}

// scaledLanes returns the eight integer lanes of super-block b of r with
// the activations xb that ggml's AVX2 kernels keep: lane l the scaled
// products sc·q·x of the elements whose index modulo 32 is in [4l, 4l+4).
func scaledLanes(r *rowK, b int, xb *q8KBlock) (lanes [8]int32) {
	q, sc := r.q[quant.QK_K*b:quant.QK_K*(b+1)], r.sc[16*b:16*b+16]
	for e := range quant.QK_K {
		lanes[e%32/4] += sc[e/16] * int32(q[e]) * int32(xb.q[e])
	}
	return lanes
}

// dotRepackedK follows ggml's repacked Q4_K and Q2_K kernels for x86
// (ggml_gemm/gemv_q4_K_8x8_q8_K, _q2_K_8x8_q8_K): integer sums over chunks
// of chunk elements (64 or 128 in the gemm, the whole super-block in the
// gemv), each scaled with a fused multiply-add into one accumulator for the
// scales and one for the minimums, subtracted at the end.
func dotRepackedK(r *rowK, x []q8KBlock, chunk int) float32 {
	var acc, accMin float32
	for b := range x {
		xb := &x[b]
		for c := 0; c < quant.QK_K; c += chunk {
			var isum, msum int32
			for g := c / 16; g < (c+chunk)/16; g++ {
				var s int32
				q, xq := r.q[quant.QK_K*b+16*g:quant.QK_K*b+16*g+16], xb.q[16*g:16*g+16]
				for i := range 16 {
					s += int32(q[i]) * int32(xq[i])
				}
				isum += r.sc[16*b+g] * s
				msum += r.mn[16*b+g] * int32(xb.bsum[g])
			}
			acc = fma32(float32(isum), r.d[b]*xb.d, acc)
			accMin = fma32(float32(msum), r.dmin[b]*xb.d, accMin)
		}
	}
	return acc - accMin
}

// grow returns s resized to n, reusing its storage when large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
