package cpu

import (
	"fmt"
	"math"

	"saji/kernels"
	"saji/kernels/quant"
)

// Attention computes causal attention of q over kv. Over an F32 cache it
// follows ggml without flash attention (llama.cpp's most exact setting):
// scores q·k, optional softcap, scale, a softmax with float64 sum (a sink
// joins its maximum and its sum, as in ggml_soft_max_add_sinks), and the
// probability-weighted sum of the values. Over an F16 cache it follows
// ggml's flash-attention kernel (llama.cpp's default setting, see
// flash.go). Mixed F32/F16 caches use the first path with F16 rounding,
// Q8_0 caches the first path over their dequantized values. Backends with
// SIMD kernels compute the same values for F32 and F16 caches with them
// (attn_exact.go), and the others by a tiled online softmax (attn_fast.go).
func (b *Backend) Attention(dst, q kernels.Tensor, kv kernels.KV, pos []int32, p kernels.AttentionParams) error {
	return b.AttentionSeqs(dst, q, []kernels.SeqKV{{KV: kv, Pos: pos}}, p)
}

// attend computes attention for one sequence whose operands
// kernels.CheckAttention accepted: the rows of qs and d are its queries
// and results.
func (b *Backend) attend(d, qs *tensor, kv kernels.KV, pos []int32, p kernels.AttentionParams) error {
	kt, err := b.own(kv.K)
	if err != nil {
		return err
	}
	vt, err := b.own(kv.V)
	if err != nil {
		return err
	}
	nh, nkv, hd, vd := p.Heads, p.KVHeads, p.HeadDim, p.ValueDim
	keys, err := rowReader(kt)
	if err != nil {
		return err
	}
	values, err := rowReader(vt)
	if err != nil {
		return err
	}
	group := nh / nkv
	switch {
	case b.k == nil:
	case kt.typ == quant.TypeF32 && vt.typ == quant.TypeF32:
		b.exactAttention(d, qs, kt, vt, kv, pos, p)
		return nil
	case isF16(kt, vt):
		b.exactFlash(d, qs, kt, vt, kv, pos, p)
		return nil
	default:
		b.fastAttention(d, qs, kt, vt, kv, pos, p)
		return nil
	}
	if isF16(kt, vt) {
		b.flashAttention(d, qs, keys, values, kv, pos, p)
		return nil
	}
	// llama.cpp attends over n_kv cells, the used ones padded to a multiple
	// of 256 (at most the cache size); the padding cells are masked and add
	// exact zeros, but they decide which sums run in full vectors.
	cells := paddedCells(kv, kt.rows())
	batch := len(pos) >= 2
	b.parallel(len(pos)*nh, func(lo, hi int) {
		kbuf := make([]float32, hd)
		vbuf := make([]float32, vd)
		qh := make([]float32, hd)
		scores := make([]float32, kv.Len)
		var lanes [4][16][]float32 // value accumulators by cell lane
		for a := range lanes {
			for l := range lanes[a] {
				lanes[a][l] = make([]float32, vd)
			}
		}
		for w := lo; w < hi; w++ {
			j, h := w/nh, w%nh
			kh := h / group
			copy(qh, qs.f[j*nh*hd+h*hd:j*nh*hd+(h+1)*hd])
			if kt.typ == quant.TypeF16 {
				for i, v := range qh {
					qh[i] = roundF16(v)
				}
			}
			// Visible cells: positions first..last.
			last := min(int(pos[j]), kv.Len-1)
			first := 0
			if p.Window > 0 {
				first = max(0, int(pos[j])-p.Window+1)
			}
			out := d.f[j*nh*vd+h*vd : j*nh*vd+(h+1)*vd]
			if last < first {
				clear(out)
				continue
			}
			maxs := float32(math.Inf(-1))
			for c := first; c <= last; c++ {
				keys(kv.Row(c), kh*hd, kbuf)
				s := dotVec(qh, kbuf, kt.typ == quant.TypeF16)
				if p.Softcap > 0 {
					s = tanh32(s*(1/p.Softcap)) * p.Softcap
				}
				s *= p.Scale
				scores[c] = s
				maxs = max(maxs, s)
			}
			if p.Sinks != nil {
				maxs = max(maxs, p.Sinks[h])
			}
			sum := softmaxSum(scores, first, last, cells, maxs)
			if p.Sinks != nil {
				sum += float64(expF(p.Sinks[h] - maxs))
			}
			inv := float32(1 / sum)
			// The weighted sum of the values: ggml's tinyBLAS for a batch of
			// queries, ggml_vec_dot_f32 for one.
			for a := range lanes {
				for l := range lanes[a] {
					clear(lanes[a][l])
				}
			}
			np := cells &^ 63
			var tail []float32
			for c := first; c <= last; c++ {
				pr := scores[c] * inv
				if vt.typ == quant.TypeF16 {
					pr = roundF16(pr)
				}
				values(kv.Row(c), kh*vd, vbuf)
				var acc []float32
				switch {
				case batch:
					acc = lanes[0][c%16]
				case c < np:
					acc = lanes[(c/16)%4][c%16]
				default:
					if len(tail) == 0 {
						tail = make([]float32, vd)
					}
					for i, v := range vbuf {
						tail[i] += pr * v
					}
					continue
				}
				for i, v := range vbuf {
					acc[i] = fma32(pr, v, acc[i])
				}
			}
			var l16 [16]float32
			for i := range out {
				if !batch {
					for l := range 16 {
						x0 := lanes[0][l][i] + lanes[2][l][i]
						x1 := lanes[1][l][i] + lanes[3][l][i]
						l16[l] = x0 + x1
					}
				} else {
					for l := range 16 {
						l16[l] = lanes[0][l][i]
					}
				}
				out[i] = reduce16(&l16)
				if len(tail) > 0 {
					out[i] += tail[i]
				}
			}
		}
	})
	return nil
}

// softmaxSum exponentiates scores[first..last] in place (minus maxs) and
// returns their sum as ggml_vec_soft_max_f32 computes it over nkv cells:
// vectors of 16 cells through expV, each summed in float32 and added in
// float64, and the cells after the last full vector through expf.
func softmaxSum(scores []float32, first, last, nkv int, maxs float32) float64 {
	var sum float64
	full := nkv &^ 15
	for g := first &^ 15; g <= last; g += 16 {
		var l16 [16]float32
		for c := max(g, first); c <= min(g+15, last); c++ {
			if c < full {
				scores[c] = expV(scores[c] - maxs)
				l16[c-g] = scores[c]
			} else {
				scores[c] = expF(scores[c] - maxs)
				sum += float64(scores[c])
			}
		}
		if g < full {
			sum += float64(reduce16(&l16))
		}
	}
	return sum
}

// rowReader returns a function that copies len(dst) values of row r of t,
// starting at column off, into dst as float32.
func rowReader(t *tensor) (func(r, off int, dst []float32), error) {
	n := t.cols()
	switch t.typ {
	case quant.TypeF32:
		return func(r, off int, dst []float32) { copy(dst, t.f[r*n+off:]) }, nil
	case quant.TypeF16:
		return func(r, off int, dst []float32) {
			src := t.data[2*(r*n+off):]
			for i := range dst {
				dst[i] = quant.F16ToF32(uint16(src[2*i]) | uint16(src[2*i+1])<<8)
			}
		}, nil
	case quant.TypeQ8_0:
		// Attention checks that off and len(dst) are whole blocks.
		return func(r, off int, dst []float32) { dequantQ8Row(dst, t.row(r)[off/32*34:]) }, nil
	}
	return nil, fmt.Errorf("cpu: attention over a %v cache is not supported (F32, F16 or Q8_0)", t.typ)
}

// dequantQ8Row sets dst (a multiple of 32 long) to the values of the Q8_0
// blocks at the start of src: each block's quants times its F16 scale.
func dequantQ8Row(dst []float32, src []byte) {
	for b := 0; b < len(dst)/32; b++ {
		blk, y := src[34*b:34*b+34], dst[32*b:32*b+32]
		d := quant.F16ToF32(uint16(blk[0]) | uint16(blk[1])<<8)
		for j, q := range blk[2:34] {
			y[j] = float32(int8(q)) * d
		}
	}
}

// paddedCells is the number of cells llama.cpp attends over for kv: the
// used ones padded to a multiple of 256, but at most the cache's size (rows
// when kv does not say).
func paddedCells(kv kernels.KV, rows int) int {
	size := rows
	if kv.Size > 0 {
		size = kv.Size
	}
	return min(size, max(256, (kv.Len+255)/256*256))
}

// AttentionSeqs runs attention for each sequence of a mixed batch over
// its rows of q and dst (views, not copies).
func (b *Backend) AttentionSeqs(dst, q kernels.Tensor, seqs []kernels.SeqKV, p kernels.AttentionParams) error {
	d, err := b.f32(dst, "attention destination")
	if err != nil {
		return err
	}
	qs, err := b.f32(q, "attention queries")
	if err != nil {
		return err
	}
	if err := kernels.CheckAttention(d, qs, seqs, p); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	if len(seqs) == 1 {
		if len(seqs[0].Pos) == 0 {
			return nil
		}
		return b.attend(d, qs, seqs[0].KV, seqs[0].Pos, p)
	}
	r := 0
	for i, s := range seqs {
		k := len(s.Pos)
		if k == 0 {
			continue
		}
		if err := b.attend(d.rowView(r, k), qs.rowView(r, k), s.KV, s.Pos, p); err != nil {
			return fmt.Errorf("cpu: sequence %d of the batch: %w", i, err)
		}
		r += k
	}
	return nil
}
