package cpu

import (
	"fmt"
	"math"

	"saji/kernels"
	"saji/kernels/quant"
)

// Attention computes causal attention of q over kv as ggml does without
// flash attention: scores q·k (q rounded to F16 when the keys are F16),
// optional softcap, scale, a softmax with float64 sum, and the
// probability-weighted sum of the values (probabilities rounded to F16 when
// the values are F16).
func (b *Backend) Attention(dst, q kernels.Tensor, kv kernels.KV, pos []int32, p kernels.AttentionParams) error {
	d, err := b.f32(dst, "attention destination")
	if err != nil {
		return err
	}
	qs, err := b.f32(q, "attention queries")
	if err != nil {
		return err
	}
	kt, err := b.own(kv.K)
	if err != nil {
		return err
	}
	vt, err := b.own(kv.V)
	if err != nil {
		return err
	}
	nh, nkv, hd, vd := p.Heads, p.KVHeads, p.HeadDim, p.ValueDim
	if nh <= 0 || nkv <= 0 || nh%nkv != 0 || hd <= 0 || vd <= 0 ||
		qs.cols() != nh*hd || qs.rows() != len(pos) || d.cols() != nh*vd || d.rows() != len(pos) ||
		kt.cols() != nkv*hd || vt.cols() != nkv*vd || kv.Len < 0 || kv.Len > kt.rows() || kv.Len > vt.rows() ||
		(kv.Cells != nil && len(kv.Cells) < kv.Len) {
		return fmt.Errorf("cpu: attention of q %v over k %v, v %v (%d cells) into %v: %w", qs.shape, kt.shape, vt.shape, kv.Len, d.shape, kernels.ErrShape)
	}
	if d == qs {
		return fmt.Errorf("cpu: attention destination aliases the queries: %w", kernels.ErrShape)
	}
	for _, c := range kv.Cells[:min(len(kv.Cells), kv.Len)] {
		if c < 0 || int(c) >= kt.rows() || int(c) >= vt.rows() {
			return fmt.Errorf("cpu: attention: cell row %d out of range: %w", c, kernels.ErrShape)
		}
	}
	keys, err := rowReader(kt)
	if err != nil {
		return err
	}
	values, err := rowReader(vt)
	if err != nil {
		return err
	}
	group := nh / nkv
	b.parallel(len(pos)*nh, func(lo, hi int) {
		kbuf := make([]float32, hd)
		vbuf := make([]float32, vd)
		qh := make([]float32, hd)
		scores := make([]float32, kv.Len)
		acc := make([]float64, vd)
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
				s := dotF32s(qh, kbuf)
				if p.Softcap > 0 {
					s = tanh32(s*(1/p.Softcap)) * p.Softcap
				}
				s *= p.Scale
				scores[c] = s
				maxs = max(maxs, s)
			}
			var sum float64
			for c := first; c <= last; c++ {
				e := float32(math.Exp(float64(scores[c] - maxs)))
				scores[c] = e
				sum += float64(e)
			}
			inv := float32(1 / sum)
			clear(acc)
			for c := first; c <= last; c++ {
				pr := scores[c] * inv
				if vt.typ == quant.TypeF16 {
					pr = roundF16(pr)
				}
				values(kv.Row(c), kh*vd, vbuf)
				for i, v := range vbuf {
					acc[i] += float64(pr) * float64(v)
				}
			}
			for i, v := range acc {
				out[i] = float32(v)
			}
		}
	})
	return nil
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
	}
	return nil, fmt.Errorf("cpu: attention over a %v cache is not supported (F32 or F16)", t.typ)
}
