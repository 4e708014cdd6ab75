package cpu

import (
	"math"

	"saji/kernels"
	"saji/kernels/quant"
)

// The fast attention (backends with SIMD kernels) is a tiled online
// softmax: for a work item of a few tokens and one KV head, the cells are
// read in tiles of attnTile, each tile's keys and values once (widened from
// F16 or dequantized from Q8_0 into a small buffer, or read in place from
// an F32 cache), for every query head of the group and every token of the
// item. Each query row keeps a running maximum m, a running sum of
// exp(s-m) and an F32 accumulator of the weighted values, rescaled when m
// grows; no score matrix is built.
//
// It computes attention in F32 over the cache's values: queries are not
// rounded to F16 and the accumulators are F32. Its results are within
// about 1e-6 (relative to the values' magnitude) of the oracle over an F32
// cache holding the same values; from the oracle over an F16 cache (ggml's
// flash attention, F16 queries and accumulator) they differ by that
// kernel's F16 roundings, about 1e-3.

// attnTile is the number of cells read at a time.
const attnTile = 32

// attnRow is the state of one query row (one token, one head).
type attnRow struct {
	q, out      []float32
	first, last int // visible cells
	m, sum      float32
	acc         []float32
}

// attnScratch holds one thread's buffers.
type attnScratch struct {
	k, v, s []float32
	rows    []attnRow
	acc     []float32
}

// attnChunk is the number of cells a work item covers when a small batch
// splits the cells between items (flash decoding), so that a decode step
// has more items than KV heads. The split depends on the batch only, never
// on the number of threads, so the results do not either.
const attnChunk = 256

// fastAttention is Attention for backends with SIMD kernels. The operands
// are checked by Attention.
func (b *Backend) fastAttention(d, qs, kt, vt *tensor, kv kernels.KV, pos []int32, p kernels.AttentionParams) {
	nh, nkv, hd, vd := p.Heads, p.KVHeads, p.HeadDim, p.ValueDim
	group := nh / nkv
	n := len(pos)
	// Tokens per work item: enough query rows to reuse each tile, few
	// enough that the items keep the threads busy.
	tq := 1
	if n > 1 {
		tq = max(1, min(n, 16/group))
	}
	blocks := (n + tq - 1) / tq
	chunks := 1
	if blocks*nkv < 64 {
		hi := 0
		for _, q := range pos {
			hi = max(hi, min(int(q), kv.Len-1))
		}
		chunks = hi/attnChunk + 1
	}
	rowsPer := tq * group
	var parts []float32 // per item and row: m, sum, acc
	if chunks > 1 {
		parts = make([]float32, blocks*nkv*chunks*rowsPer*(vd+2))
	}
	// Items run KV head major, then token block, then chunk, so that a
	// thread's contiguous share streams through consecutive cells of one
	// head and mixes early and late tokens of a causal batch.
	b.parallel(blocks*nkv*chunks, func(lo, hi int) {
		s := &attnScratch{
			k: make([]float32, attnTile*hd), v: make([]float32, attnTile*vd), s: make([]float32, attnTile),
			rows: make([]attnRow, 0, rowsPer), acc: make([]float32, rowsPer*vd),
		}
		for w := lo; w < hi; w++ {
			ch, blk, kh := w%chunks, w/chunks%blocks, w/chunks/blocks
			cLo, cHi := 0, math.MaxInt
			if chunks > 1 {
				cLo, cHi = ch*attnChunk, (ch+1)*attnChunk-1
			}
			s.rows = s.rows[:0]
			for j := blk * tq; j < min(n, (blk+1)*tq); j++ {
				last := min(int(pos[j]), kv.Len-1, cHi)
				first := cLo
				if p.Window > 0 {
					first = max(first, int(pos[j])-p.Window+1)
				}
				for h := kh * group; h < (kh+1)*group; h++ {
					r := len(s.rows)
					s.rows = append(s.rows, attnRow{
						q:     qs.f[(j*nh+h)*hd : (j*nh+h+1)*hd],
						out:   d.f[(j*nh+h)*vd : (j*nh+h+1)*vd],
						first: first, last: last,
						m:   float32(math.Inf(-1)),
						acc: s.acc[r*vd : (r+1)*vd],
					})
				}
			}
			attendItem(s, kt, vt, kv, kh, p)
			for i := range s.rows {
				r := &s.rows[i]
				if parts == nil {
					addSink(headSink(p, kh*group+i%group), &r.m, &r.sum, r.acc)
					r.finish(r.out)
					continue
				}
				part := parts[(w*rowsPer+i)*(vd+2):][:vd+2]
				part[0], part[1] = r.m, r.sum
				copy(part[2:], r.acc)
			}
		}
	})
	if parts == nil {
		return
	}
	// Merge each row's chunks: rescale to the largest maximum and add.
	b.parallel(n*nkv, func(lo, hi int) {
		for w := lo; w < hi; w++ {
			j, kh := w/nkv, w%nkv
			blk := j / tq
			for g := range group {
				i := (j-blk*tq)*group + g
				out := d.f[(j*nh+kh*group+g)*vd:][:vd]
				item := (kh*blocks + blk) * chunks
				m := float32(math.Inf(-1))
				for ch := range chunks {
					part := parts[((item+ch)*rowsPer+i)*(vd+2):]
					if part[1] != 0 {
						m = max(m, part[0])
					}
				}
				clear(out)
				var sum float32
				if p.Sinks != nil {
					// The sink joins the merge as a chunk without values.
					s := p.Sinks[kh*group+g]
					m = max(m, s)
					sum = expF(s - m)
				}
				for ch := range chunks {
					part := parts[((item+ch)*rowsPer+i)*(vd+2):][:vd+2]
					if part[1] == 0 {
						continue
					}
					f := expF(part[0] - m)
					sum += part[1] * f
					for x, a := range part[2:] {
						out[x] += a * f
					}
				}
				if sum == 0 {
					continue
				}
				inv := 1 / sum
				for x := range out {
					out[x] *= inv
				}
			}
		}
	})
}

// finish writes the row's attention output, acc/sum, to out (zeros when
// the row saw no cell).
func (r *attnRow) finish(out []float32) {
	if r.sum == 0 {
		clear(out)
		return
	}
	inv := 1 / r.sum
	for j, a := range r.acc {
		out[j] = a * inv
	}
}

// attendItem runs the online softmax of s.rows over the cells of KV head
// kh, leaving each row's maximum, sum and accumulator in the row.
func attendItem(s *attnScratch, kt, vt *tensor, kv kernels.KV, kh int, p kernels.AttentionParams) {
	hd, vd := p.HeadDim, p.ValueDim
	lo, hi := math.MaxInt, -1
	for i := range s.rows {
		r := &s.rows[i]
		clear(r.acc)
		if r.first <= r.last {
			lo, hi = min(lo, r.first), max(hi, r.last)
		}
	}
	scale, softcap := p.Scale, p.Softcap
	for t0 := lo; t0 <= hi; t0 += attnTile {
		t1 := min(t0+attnTile-1, hi)
		used := false
		for i := range s.rows {
			r := &s.rows[i]
			used = used || (r.first <= t1 && r.last >= t0 && r.first <= r.last)
		}
		if !used { // a gap between sliding windows
			continue
		}
		if t1 < hi {
			next := min(t1+attnTile, hi)
			prefetchTile(kt, kv, kh*hd, hd, t1+1, next)
			prefetchTile(vt, kv, kh*vd, vd, t1+1, next)
		}
		keys, ldk := loadTile(s.k, kt, kv, kh*hd, hd, t0, t1)
		vals, ldv := loadTile(s.v, vt, kv, kh*vd, vd, t0, t1)
		for i := range s.rows {
			r := &s.rows[i]
			c0, c1 := max(t0, r.first), min(t1, r.last)
			if c0 > c1 {
				continue
			}
			sc := s.s[:c1-c0+1]
			attnDots(sc, r.q, keys[(c0-t0)*ldk:], ldk)
			tileMax := float32(math.Inf(-1))
			for c, x := range sc {
				if softcap > 0 {
					x = tanh32(x*(1/softcap)) * softcap
				}
				x *= scale
				sc[c] = x
				tileMax = max(tileMax, x)
			}
			if tileMax > r.m {
				if r.sum != 0 {
					f := expF(r.m - tileMax)
					for j := range r.acc {
						r.acc[j] *= f
					}
					r.sum *= f
				}
				r.m = tileMax
			}
			for c := range sc {
				sc[c] -= r.m
			}
			expRowFast(sc, sc)
			var sum float32
			for _, e := range sc {
				sum += e
			}
			r.sum += sum
			attnAcc(r.acc, vals[(c0-t0)*ldv:], sc, ldv)
		}
	}
}

// loadTile returns cells t0..t1 of the cache t (columns off..off+n of each
// row) as F32 rows ld apart: in place for an F32 cache, otherwise widened
// or dequantized into buf, in one pass over each run of consecutive rows.
func loadTile(buf []float32, t *tensor, kv kernels.KV, off, n, t0, t1 int) ([]float32, int) {
	rb := t.rowBytes()
	start := off * t.typ.TypeSize() / t.typ.BlockSize()
	for c := t0; c <= t1; {
		// The run of cells c..e in consecutive rows.
		r0, e := kv.Row(c), c
		for e < t1 && kv.Row(e+1) == r0+e+1-c {
			e++
		}
		if t.typ == quant.TypeF32 && c == t0 && e == t1 {
			cols := t.cols()
			return t.f[r0*cols+off : (r0+t1-t0)*cols+off+n], cols
		}
		dst, src := buf[(c-t0)*n:(e-t0+1)*n], t.data[r0*rb+start:]
		switch t.typ {
		case quant.TypeF32:
			for i := range e - c + 1 {
				copy(dst[i*n:(i+1)*n], t.f[(r0+i)*t.cols()+off:])
			}
		case quant.TypeF16:
			widenF16(dst, src, n, rb, e-c+1)
		case quant.TypeQ8_0:
			dequantQ8(dst, src, n, rb, e-c+1)
		}
		c = e + 1
	}
	return buf, n
}

// prefetchTile prefetches columns off..off+n of the rows of cells t0..t1 of
// the cache t.
func prefetchTile(t *tensor, kv kernels.KV, off, n, t0, t1 int) {
	rb := t.rowBytes()
	start, size := off*t.typ.TypeSize()/t.typ.BlockSize(), n*t.typ.TypeSize()/t.typ.BlockSize()
	if kv.Cells == nil {
		prefetchRows(&t.data[t0*rb+start], rb, t1-t0+1, size)
		return
	}
	for c := t0; c <= t1; c++ {
		prefetchRows(&t.data[int(kv.Cells[c])*rb+start], 0, 1, size)
	}
}
