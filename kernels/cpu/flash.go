package cpu

import (
	"math"

	"saji/kernels"
	"saji/kernels/quant"
)

// Attention over an F16 cache follows ggml's flash-attention kernel, which
// is what llama.cpp runs with its default settings (F16 cache, flash
// attention on): an online softmax over the cells in order. Batches of 64
// queries or more with value heads a multiple of 16 long take ggml's tiled
// variant (F32 queries, tiles of 64 cells, F32 accumulation); the others,
// and every single-token step, take the one-row variant (F16 queries, F16
// value accumulator).

// faTile is ggml's flash-attention tile size, in queries and in cells.
const faTile = 64

// useTiledFlash reports whether ggml takes the tiled kernel for a batch of
// n queries with value heads of vd.
func useTiledFlash(n, vd int) bool { return n >= faTile && vd%16 == 0 }

// flashRow computes one query head's attention over cells first..last:
// q (F32, hd long) against the F16 cache rows, into out (vd long).
// The scratch slices are reused across calls.
type flashScratch struct {
	q16, k, v []float32
	acc       []float32
	kq        []float32
}

func newFlashScratch(hd, vd int) *flashScratch {
	return &flashScratch{
		q16: make([]float32, hd), k: make([]float32, hd), v: make([]float32, vd),
		acc: make([]float32, vd), kq: make([]float32, faTile),
	}
}

// flashOneRow is ggml_compute_forward_flash_attn_ext_f16_one_chunk for one
// query head: q rounded to F16, scores by ggml_vec_dot_f16, and the values
// accumulated in F16 with the running maximum's rescaling.
func flashOneRow(out, q []float32, keys, values func(r, off int, dst []float32), kv kernels.KV,
	koff, voff, first, last int, p kernels.AttentionParams, sink []float32, s *flashScratch) {
	for i, v := range q {
		s.q16[i] = roundF16(v)
	}
	scale, softcap := p.Scale, p.Softcap
	if softcap > 0 {
		scale /= softcap
	}
	acc := s.acc // holds F16 values
	clear(acc)
	var sum float32
	m := float32(math.Inf(-1))
	for c := first; c <= last; c++ {
		keys(kv.Row(c), koff, s.k)
		x := dotVec(s.k, s.q16, true) * scale
		if softcap > 0 {
			x = softcap * tanh32(x)
		}
		ms, vs := float32(1), float32(1)
		if x > m {
			old := m
			m = x
			ms = expF(old - m)
			for i, a := range acc {
				acc[i] = roundF16(a * ms)
			}
		} else {
			vs = expF(x - m)
		}
		values(kv.Row(c), voff, s.v)
		for i, v := range s.v {
			acc[i] = roundF16(fma32(v, vs, acc[i]))
		}
		sum = fma32(sum, ms, vs)
	}
	addSink(sink, &m, &sum, acc)
	inv := float32(0)
	if sum != 0 {
		inv = 1 / sum
	}
	for i, a := range acc {
		out[i] = a * inv
	}
}

// flashTiledRow is ggml_compute_forward_flash_attn_ext_tiled for one query
// head: F32 queries, cells in tiles of 64 (skipped when none is visible),
// scores and value sums as sequential fused multiply-adds, each tile's
// exponentials summed as ggml_vec_soft_max_f32 does.
func flashTiledRow(out, q []float32, keys, values func(r, off int, dst []float32), kv kernels.KV,
	koff, voff, first, last, cells int, p kernels.AttentionParams, sink []float32, s *flashScratch) {
	scale, softcap := p.Scale, p.Softcap
	if softcap > 0 {
		scale /= softcap
	}
	acc := s.acc
	clear(acc)
	var sum float32
	m := float32(math.Inf(-1))
	inf := float32(math.Inf(-1))
	for t := 0; t < cells; t += faTile {
		lo, hi := max(t, first), min(t+faTile-1, last)
		if lo > hi {
			continue
		}
		kq := s.kq
		tileMax := inf
		for c := t; c < t+faTile; c++ {
			if c < lo || c > hi {
				kq[c-t] = inf
				continue
			}
			keys(kv.Row(c), koff, s.k)
			var x float32
			for i, kv := range s.k {
				x = fma32(q[i], kv, x)
			}
			x *= scale
			if softcap > 0 {
				x = tanh32(x) * softcap
			}
			kq[c-t] = x
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
		sum = float32(float64(sum) + softmaxTile(kq, m))
		for c := lo; c <= hi; c++ {
			values(kv.Row(c), voff, s.v)
			pr := kq[c-t]
			for i, v := range s.v {
				acc[i] = fma32(pr, v, acc[i])
			}
		}
	}
	addSink(sink, &m, &sum, acc)
	inv := float32(0)
	if sum != 0 {
		inv = 1 / sum
	}
	for i, a := range acc {
		out[i] = a * inv
	}
}

// softmaxTile exponentiates a tile of 64 scores in place (minus m) and
// returns their sum as ggml_vec_soft_max_f32 does: vectors of 16 through
// expV, each summed in float32 and added in float64.
func softmaxTile(kq []float32, m float32) float64 {
	var sum float64
	for g := 0; g < len(kq); g += 16 {
		var l16 [16]float32
		for i := range 16 {
			kq[g+i] = expV(kq[g+i] - m)
			l16[i] = kq[g+i]
		}
		sum += float64(reduce16(&l16))
	}
	return sum
}

// headSink returns head h's sink as a slice of one, or nil without sinks.
func headSink(p kernels.AttentionParams, h int) []float32 {
	if p.Sinks == nil {
		return nil
	}
	return p.Sinks[h : h+1]
}

// addSink joins a sink (a slice of one, or nil for none) to an online
// softmax's running maximum m, sum and value accumulator acc, as ggml's
// flash attention does after the last cell: a logit with a weight and no
// value. acc's values are scaled in F32 (an F16 accumulator is widened
// first).
func addSink(sink []float32, m, sum *float32, acc []float32) {
	if sink == nil {
		return
	}
	s := sink[0]
	ms, vs := float32(1), float32(1)
	if s > *m {
		ms = expF(*m - s)
		*m = s
		for i := range acc {
			acc[i] *= ms
		}
	} else {
		vs = expF(s - *m)
	}
	*sum = fma32(*sum, ms, vs)
}

// isF16 reports whether both cache tensors hold F16.
func isF16(k, v *tensor) bool { return k.typ == quant.TypeF16 && v.typ == quant.TypeF16 }

// flashAttention runs the flash-attention kernels for every token and head.
func (b *Backend) flashAttention(d, qs *tensor, keys, values func(r, off int, dst []float32), kv kernels.KV, pos []int32, p kernels.AttentionParams) {
	nh, hd, vd := p.Heads, p.HeadDim, p.ValueDim
	group := nh / p.KVHeads
	cells := paddedCells(kv, kv.K.(*tensor).rows())
	tiled := useTiledFlash(len(pos), vd)
	b.parallel(len(pos)*nh, func(lo, hi int) {
		s := newFlashScratch(hd, vd)
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
			sink := headSink(p, h)
			if tiled {
				flashTiledRow(out, q, keys, values, kv, kh*hd, kh*vd, first, last, cells, p, sink, s)
			} else {
				flashOneRow(out, q, keys, values, kv, kh*hd, kh*vd, first, last, p, sink, s)
			}
		}
	})
}
