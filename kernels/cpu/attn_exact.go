package cpu

import (
	"math"

	"saji/kernels"
)

// The SIMD backends' attention over F32 and F16 caches follows the oracle's
// float order exactly, as the matrix products do: llama.cpp rounds
// activations before each matrix product, so a last-bit difference here can
// move tiny models' logits by 1e-1, beyond the SIMD conformance tolerance.
// The oracle's structure vectorizes well enough: its dot products are the
// kernel set's f32Vec/f16Vec, its exponentials expRowFast, and its value
// sums, fused multiply-adds in cell order into accumulators chosen by cell
// index, are attnAcc over the cells of each accumulator (strided rows). Q8_0
// and mixed caches, which have no llama.cpp order to follow, take the tiled
// online softmax (attn_fast.go).

// exactAttention is the oracle's F32-cache attention (Attention's first
// path, both caches F32) with SIMD kernels, equal to it bit for bit.
func (b *Backend) exactAttention(d, qs, kt, vt *tensor, kv kernels.KV, pos []int32, p kernels.AttentionParams) {
	nh, hd, vd := p.Heads, p.HeadDim, p.ValueDim
	group := nh / p.KVHeads
	kcols, vcols := kt.cols(), vt.cols()
	cells := min(kt.rows(), max(256, (kv.Len+255)/256*256))
	batch := len(pos) >= 2
	dot := b.k.f32Vec
	if dot == nil {
		dot = func(w, x []float32) float32 { return dotVec(w, x, false) }
	}
	// Accumulator of cell c: c%16 for a batch, c%64 below np for one query.
	nacc, np := 64, cells&^63
	if batch {
		nacc, np = 16, cells
	}
	b.parallel(len(pos)*nh, func(lo, hi int) {
		scores := make([]float32, kv.Len)
		lanes := make([]float32, nacc*vd)
		tail := make([]float32, vd)
		pr := make([]float32, kv.Len/nacc+1)
		for w := lo; w < hi; w++ {
			j, h := w/nh, w%nh
			kh := h / group
			qh := qs.f[j*nh*hd+h*hd : j*nh*hd+(h+1)*hd]
			out := d.f[j*nh*vd+h*vd : j*nh*vd+(h+1)*vd]
			last := min(int(pos[j]), kv.Len-1)
			first := 0
			if p.Window > 0 {
				first = max(0, int(pos[j])-p.Window+1)
			}
			if last < first {
				clear(out)
				continue
			}
			maxs := float32(math.Inf(-1))
			for c := first; c <= last; c++ {
				r := kv.Row(c)
				s := dot(kt.f[r*kcols+kh*hd:r*kcols+(kh+1)*hd], qh)
				if p.Softcap > 0 {
					s = tanh32(s*(1/p.Softcap)) * p.Softcap
				}
				s *= p.Scale
				scores[c] = s
				maxs = max(maxs, s)
			}
			inv := float32(1 / softmaxSumFast(scores, first, last, cells, maxs))
			for c := first; c <= last; c++ {
				scores[c] *= inv
			}
			clear(lanes)
			// Each accumulator takes its cells in order: one strided pass.
			for a := range nacc {
				c0 := first + ((a-first)%nacc+nacc)%nacc
				acc := lanes[a*vd : (a+1)*vd]
				n := 0
				for c := c0; c <= last && c < np; c += nacc {
					pr[n] = scores[c]
					n++
				}
				if n == 0 {
					continue
				}
				if kv.Cells == nil {
					attnAcc(acc, vt.f[c0*vcols+kh*vd:], pr[:n], nacc*vcols)
					continue
				}
				for i := range n {
					r := kv.Row(c0 + i*nacc)
					attnAcc(acc, vt.f[r*vcols+kh*vd:], pr[i:i+1], 0)
				}
			}
			hasTail := false
			for c := max(first, np); c <= last; c++ {
				if !hasTail {
					clear(tail)
					hasTail = true
				}
				r := kv.Row(c)
				pc := scores[c]
				for i, v := range vt.f[r*vcols+kh*vd : r*vcols+(kh+1)*vd] {
					tail[i] += pc * v
				}
			}
			var l16 [16]float32
			for i := range out {
				if !batch {
					for l := range 16 {
						x0 := lanes[l*vd+i] + lanes[(32+l)*vd+i]
						x1 := lanes[(16+l)*vd+i] + lanes[(48+l)*vd+i]
						l16[l] = x0 + x1
					}
				} else {
					for l := range 16 {
						l16[l] = lanes[l*vd+i]
					}
				}
				out[i] = reduce16(&l16)
				if hasTail {
					out[i] += tail[i]
				}
			}
		}
	})
}

// softmaxSumFast is softmaxSum with the full vectors' exponentials by
// expRowFast: the same values.
func softmaxSumFast(scores []float32, first, last, nkv int, maxs float32) float64 {
	full := nkv &^ 15
	for c := first; c <= last; c++ {
		scores[c] -= maxs
	}
	if e := min(last, full-1); e >= first {
		expRowFast(scores[first:e+1], scores[first:e+1])
	}
	var sum float64
	for g := first &^ 15; g <= last; g += 16 {
		if g >= full {
			for c := max(g, first); c <= min(g+15, last); c++ {
				scores[c] = expF(scores[c])
				sum += float64(scores[c])
			}
			continue
		}
		var l16 [16]float32
		for c := max(g, first); c <= min(g+15, last); c++ {
			l16[c-g] = scores[c]
		}
		sum += float64(reduce16(&l16))
	}
	return sum
}

// exactFlash is the oracle's F16-cache attention (ggml's flash-attention
// kernels, flash.go) with SIMD kernels, equal to it bit for bit.
func (b *Backend) exactFlash(d, qs, kt, vt *tensor, kv kernels.KV, pos []int32, p kernels.AttentionParams) {
	nh, hd, vd := p.Heads, p.HeadDim, p.ValueDim
	group := nh / p.KVHeads
	cells := min(kt.rows(), max(256, (kv.Len+255)/256*256))
	tiled := useTiledFlash(len(pos), vd)
	dot := b.k.f16Vec
	b.parallel(len(pos)*nh, func(lo, hi int) {
		q16 := make([]float32, hd)
		kw := make([]float32, hd)
		acc := make([]float32, vd)
		kbuf, vbuf, kq := make([]float32, faTile*hd), make([]float32, faTile*vd), make([]float32, faTile)
		for w := lo; w < hi; w++ {
			j, h := w/nh, w%nh
			kh := h / group
			q := qs.f[j*nh*hd+h*hd : j*nh*hd+(h+1)*hd]
			out := d.f[j*nh*vd+h*vd : j*nh*vd+(h+1)*vd]
			last := min(int(pos[j]), kv.Len-1)
			first := 0
			if p.Window > 0 {
				first = max(0, int(pos[j])-p.Window+1)
			}
			if last < first {
				clear(out)
				continue
			}
			scale, softcap := p.Scale, p.Softcap
			if softcap > 0 {
				scale /= softcap
			}
			clear(acc)
			var sum float32
			m := float32(math.Inf(-1))
			if tiled {
				for t := 0; t < cells; t += faTile {
					tlo, thi := max(t, first), min(t+faTile-1, last)
					if tlo > thi {
						continue
					}
					keys, ldk := loadTile(kbuf, kt, kv, kh*hd, hd, tlo, thi)
					sc := kq[tlo-t : thi-t+1]
					seqDots(sc, q, keys, ldk)
					tileMax := float32(math.Inf(-1))
					for c := range kq {
						if c < tlo-t || c > thi-t {
							kq[c] = float32(math.Inf(-1))
							continue
						}
						x := kq[c] * scale
						if softcap > 0 {
							x = tanh32(x) * softcap
						}
						kq[c] = x
						tileMax = max(tileMax, x)
					}
					mNew := max(m, tileMax)
					if mNew > m {
						ms := expF(m - mNew)
						for i := range acc {
							acc[i] *= ms
						}
						sum *= ms
					}
					m = mNew
					for c := range kq {
						kq[c] -= m
					}
					expRowFast(kq, kq)
					var s64 float64
					for g := 0; g < faTile; g += 16 {
						s64 += float64(reduce16((*[16]float32)(kq[g : g+16])))
					}
					sum = float32(float64(sum) + s64)
					vals, ldv := loadTile(vbuf, vt, kv, kh*vd, vd, tlo, thi)
					attnAcc(acc, vals, sc, ldv)
				}
			} else {
				for i, v := range q {
					q16[i] = roundF16(v)
				}
				krb, vrb := kt.rowBytes(), vt.rowBytes()
				for c := first; c <= last; c++ {
					r := kv.Row(c)
					krow := kt.data[r*krb+2*kh*hd : r*krb+2*(kh+1)*hd]
					var x float32
					if dot != nil {
						x = dot(krow, q16)
					} else {
						widenF16Go(kw, krow)
						x = dotVec(kw, q16, true)
					}
					x *= scale
					if softcap > 0 {
						x = softcap * tanh32(x)
					}
					ms, vs := float32(1), float32(1)
					if x > m {
						old := m
						m = x
						ms = expF(old - m)
						f16Scale(acc, ms)
					} else {
						vs = expF(x - m)
					}
					f16Acc(acc, vt.data[r*vrb+2*kh*vd:r*vrb+2*(kh+1)*vd], vs)
					sum = fma32(sum, ms, vs)
				}
			}
			inv := float32(0)
			if sum != 0 {
				inv = 1 / sum
			}
			for i, a := range acc {
				out[i] = a * inv
			}
		}
	})
}
