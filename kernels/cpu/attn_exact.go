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

// attnAhead is how many cells ahead the cell-by-cell loops prefetch.
const attnAhead = 12

// exactAttention is the oracle's F32-cache attention (Attention's first
// path, both caches F32) with SIMD kernels, equal to it bit for bit. A work
// item is one token and one KV head: the query heads of the group read each
// key and value row once, each with its own scores and accumulators.
func (b *Backend) exactAttention(d, qs, kt, vt *tensor, kv kernels.KV, pos []int32, p kernels.AttentionParams) {
	nh, nkv, hd, vd := p.Heads, p.KVHeads, p.HeadDim, p.ValueDim
	group := nh / nkv
	kcols, vcols := kt.cols(), vt.cols()
	cells := paddedCells(kv, kt.rows())
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
	b.parallel(len(pos)*nkv, func(lo, hi int) {
		scores := make([]float32, group*kv.Len)
		lanes := make([]float32, group*nacc*vd)
		tails := make([]float32, group*vd)
		qh := make([][]float32, group)
		for w := lo; w < hi; w++ {
			j, kh := w/nkv, w%nkv
			h0 := kh * group
			for g := range qh {
				qh[g] = qs.f[(j*nh+h0+g)*hd : (j*nh+h0+g+1)*hd]
			}
			last := min(int(pos[j]), kv.Len-1)
			first := 0
			if p.Window > 0 {
				first = max(0, int(pos[j])-p.Window+1)
			}
			if last < first {
				clear(d.f[(j*nh+h0)*vd : (j*nh+h0+group)*vd])
				continue
			}
			for c := first; c <= last; c++ {
				if !batch && c+attnAhead <= last {
					prefetchTile(kt, kv, kh*hd, hd, c+attnAhead, c+attnAhead)
				}
				r := kv.Row(c)
				krow := kt.f[r*kcols+kh*hd : r*kcols+(kh+1)*hd]
				for g, q := range qh {
					s := dot(krow, q)
					if p.Softcap > 0 {
						s = tanh32(s*(1/p.Softcap)) * p.Softcap
					}
					scores[g*kv.Len+c] = s * p.Scale
				}
			}
			for g := range group {
				sc := scores[g*kv.Len : (g+1)*kv.Len]
				maxs := float32(math.Inf(-1))
				for _, s := range sc[first : last+1] {
					maxs = max(maxs, s)
				}
				if p.Sinks != nil {
					maxs = max(maxs, p.Sinks[h0+g])
				}
				sum := softmaxSumFast(sc, first, last, cells, maxs)
				if p.Sinks != nil {
					sum += float64(expF(p.Sinks[h0+g] - maxs))
				}
				inv := float32(1 / sum)
				for c := first; c <= last; c++ {
					sc[c] *= inv
				}
			}
			clear(lanes)
			// Cell c's fused multiply-adds go to accumulator c%nacc of
			// each row, in cell order.
			for c := first; c <= min(last, np-1); c++ {
				if !batch && c+attnAhead <= last {
					prefetchTile(vt, kv, kh*vd, vd, c+attnAhead, c+attnAhead)
				}
				r, a := kv.Row(c), c%nacc
				vrow := vt.f[r*vcols+kh*vd : r*vcols+(kh+1)*vd]
				for g := range group {
					l := (g*nacc + a) * vd
					attnAcc(lanes[l:l+vd], vrow, scores[g*kv.Len+c:g*kv.Len+c+1], 0)
				}
			}
			hasTail := last >= np
			if hasTail {
				clear(tails)
			}
			for c := max(first, np); c <= last; c++ {
				r := kv.Row(c)
				vrow := vt.f[r*vcols+kh*vd : r*vcols+(kh+1)*vd]
				for g := range group {
					pc, tail := scores[g*kv.Len+c], tails[g*vd:(g+1)*vd]
					for i, v := range vrow {
						tail[i] += pc * v
					}
				}
			}
			var l16 [16]float32
			for g := range group {
				out := d.f[(j*nh+h0+g)*vd : (j*nh+h0+g+1)*vd]
				ln := lanes[g*nacc*vd : (g+1)*nacc*vd]
				for i := range out {
					if !batch {
						for l := range 16 {
							x0 := ln[l*vd+i] + ln[(32+l)*vd+i]
							x1 := ln[(16+l)*vd+i] + ln[(48+l)*vd+i]
							l16[l] = x0 + x1
						}
					} else {
						for l := range 16 {
							l16[l] = ln[l*vd+i]
						}
					}
					out[i] = reduce16(&l16)
					if hasTail {
						out[i] += tails[g*vd+i]
					}
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

// flashRow is one query row's state in exactFlash.
type flashRow struct {
	q, out      []float32
	first, last int
	m, sum      float32
	acc         []float32
}

// exactFlash is the oracle's F16-cache attention (ggml's flash-attention
// kernels, flash.go) with SIMD kernels, equal to it bit for bit. A work
// item is a few tokens and one KV head: the query rows of the group (and,
// for the tiled kernel, of the tokens) share each key and value row, or
// each tile, which is read once; each row's float operations are the
// oracle's, in its order.
func (b *Backend) exactFlash(d, qs, kt, vt *tensor, kv kernels.KV, pos []int32, p kernels.AttentionParams) {
	nh, nkv, hd, vd := p.Heads, p.KVHeads, p.HeadDim, p.ValueDim
	group := nh / nkv
	n := len(pos)
	cells := paddedCells(kv, kt.rows())
	tiled := useTiledFlash(n, vd)
	tq := 1
	if tiled {
		// A work item widens and transposes every tile of keys and values
		// it sees once for all its rows: the more rows, the less that costs
		// each (a picture's 4096 patches over 4096 cells spent a third of
		// attention's time on it with 16), as long as every thread has
		// items to take.
		tq = max(1, min(n, 4*faTile/group))
		for tq > max(1, 16/group) && (n+tq-1)/tq*nkv < 4*b.threads {
			tq /= 2
		}
	} else {
		tq = max(1, min(n, oneRowTokens/group))
	}
	blocks := (n + tq - 1) / tq
	b.parallel(blocks*nkv, func(lo, hi int) {
		rows := make([]flashRow, 0, tq*group)
		accs := make([]float32, tq*group*vd)
		q16 := make([]float32, tq*group*hd)
		kw := make([]float32, hd)
		var kbuf, vbuf, kT []float32 // the tiled kernel's tiles only
		if tiled {
			kbuf, vbuf, kT = make([]float32, faTile*hd), make([]float32, faTile*vd), make([]float32, hd*faTile)
		}
		var kq [2][faTile]float32
		for w := lo; w < hi; w++ {
			blk, kh := w%blocks, w/blocks
			rows = rows[:0]
			for j := blk * tq; j < min(n, (blk+1)*tq); j++ {
				last := min(int(pos[j]), kv.Len-1)
				first := 0
				if p.Window > 0 {
					first = max(0, int(pos[j])-p.Window+1)
				}
				for h := kh * group; h < (kh+1)*group; h++ {
					r := len(rows)
					acc := accs[r*vd : (r+1)*vd]
					clear(acc)
					rows = append(rows, flashRow{
						q: qs.f[(j*nh+h)*hd : (j*nh+h+1)*hd], out: d.f[(j*nh+h)*vd : (j*nh+h+1)*vd],
						first: first, last: last, m: float32(math.Inf(-1)), acc: acc,
					})
				}
			}
			if tiled {
				b.flashTiledItem(rows, kt, vt, kv, kh, cells, p, kbuf, vbuf, kT, &kq)
			} else {
				b.flashOneRowItem(rows, kt, vt, kv, kh, p, q16, kw)
			}
			for i := range rows {
				r := &rows[i]
				if r.last < r.first {
					clear(r.out)
					continue
				}
				addSink(headSink(p, kh*group+i%group), &r.m, &r.sum, r.acc)
				inv := float32(0)
				if r.sum != 0 {
					inv = 1 / r.sum
				}
				for x, a := range r.acc {
					r.out[x] = a * inv
				}
			}
		}
	})
}

// oneRowTokens is the number of query rows (tokens times the query heads
// of a KV head) a work item of the one-row kernel takes: each key and
// value row is read once for all of them, from L1, rather than once for
// each (a picture's 4096 patches each read a head's 1.2 MB of keys and
// values otherwise).
const oneRowTokens = 16

// oneRowCells is the run of cells flashOneRowItem takes each step through.
const oneRowCells = 32

// flashOneRowItem runs flashOneRow for the rows (a few tokens' query heads
// of KV head kh) over the cells in order, reading each key and value row
// once for all of them (each row takes the cells it sees, in order, so
// its arithmetic is flashOneRow's). Each key row is widened to F32 once
// for all the rows, whose dot products are then dotVec's on it (the F16
// kernel's order: the same sum), or, where the set has f16Body4 and the
// head has no tail past its 64s, read as F16 by it four rows a call.
func (b *Backend) flashOneRowItem(rows []flashRow, kt, vt *tensor, kv kernels.KV, kh int, p kernels.AttentionParams, q16, kw []float32) {
	if len(rows) > oneRowTokens {
		// More query heads to a KV head than the scratch holds (multi-query
		// attention): the rows are independent, so they go oneRowTokens at
		// a time.
		for i := 0; i < len(rows); i += oneRowTokens {
			b.flashOneRowItem(rows[i:min(len(rows), i+oneRowTokens)], kt, vt, kv, kh, p, q16, kw)
		}
		return
	}
	first, last := math.MaxInt, -1
	for i := range rows {
		if rows[i].first <= rows[i].last {
			first, last = min(first, rows[i].first), max(last, rows[i].last)
		}
	}
	if first > last {
		return
	}
	hd, vd := p.HeadDim, p.ValueDim
	scale, softcap := p.Scale, p.Softcap
	if softcap > 0 {
		scale /= softcap
	}
	for g := range rows {
		for i, v := range rows[g].q {
			q16[g*hd+i] = roundF16(v)
		}
	}
	// The dot product: the SIMD F32 kernel's whole steps of 64 (dotVec's
	// accumulators) and dotVec's tail in float64, on the widened key.
	body := b.k.f32Vec
	np := hd &^ 63
	krb, vrb := kt.rowBytes(), vt.rowBytes()
	// With no tail (hd a multiple of 64) the same sums come from the F16
	// key row itself, four query rows a call (f16Body4: each sum the bits
	// of the one-row kernel on the widened row), not a widening and a call
	// a row: a third of a decode step's attention samples at 2048 cells.
	// Sets without it take the F16 row by f16Body, a call a row.
	body4, body16 := b.k.f16Body4, b.k.f16Body
	if body == nil || np != hd {
		body4, body16 = nil, nil
	}
	if len(rows)%4 != 0 {
		body4 = nil
	}
	// The cells go in runs of oneRowCells: first every row's dot products
	// of the run's keys, then each row's running maximum, exponentials and
	// sum over the run in order, then its value sums over the run in one
	// f16AccCells call, which keeps the row's accumulator in registers for
	// the run, not a load, a store and a Go call a cell (a quarter of a
	// decode step's attention samples at 2048 cells), or, on AVX-512, four
	// rows' in one f16AccCells4 call, each value row widened once for the
	// four and their chains of roundings overlapping (a fifth of the rest).
	var (
		dots   [oneRowCells][oneRowTokens]float32
		off    [oneRowCells]int
		ms, vs [oneRowTokens][oneRowCells]float32
		// quad[i]: rows 4i to 4i+3 see the same cells and their
		// accumulators follow each other (a token's query heads), so their
		// value sums can go together.
		quad [oneRowTokens / 4]bool
	)
	for g := 0; g+4 <= len(rows); g += 4 {
		quad[g/4] = sameCells(rows[g:g+4]) && contiguous(rows[g:g+4], vd)
	}
	for c0 := first; c0 <= last; c0 += oneRowCells {
		c1 := min(last, c0+oneRowCells-1)
		for c := c0; c <= c1; c++ {
			// The rows attnAhead cells on, four at a time.
			if c%4 == 0 && c+attnAhead <= last {
				e := min(last, c+attnAhead+3)
				prefetchTile(kt, kv, kh*hd, hd, c+attnAhead, e)
				prefetchTile(vt, kv, kh*vd, vd, c+attnAhead, e)
			}
			r := kv.Row(c)
			krow := kt.data[r*krb+2*kh*hd : r*krb+2*(kh+1)*hd]
			off[c-c0] = r*vrb + 2*kh*vd
			d := &dots[c-c0]
			if body4 != nil {
				for g := 0; g < len(rows); g += 4 {
					body4(&krow[0], &q16[g*hd], 4*hd, hd, (*[4]float32)(d[g:g+4]))
				}
				continue
			}
			if body16 == nil {
				widenF16(kw, krow, hd, 0, 1)
			}
			for g := range rows {
				if c < rows[g].first || c > rows[g].last {
					continue
				}
				q := q16[g*hd : (g+1)*hd]
				switch {
				case body16 != nil:
					d[g] = body16(&krow[0], &q[0], hd)
				case body != nil:
					s := float64(0)
					if np > 0 {
						s = float64(body(kw[:np], q[:np]))
					}
					for i := np; i < hd; i++ {
						s += float64(kw[i] * q[i])
					}
					d[g] = float32(s)
				default:
					d[g] = dotVec(kw, q, true)
				}
			}
		}
		// Each row's scales and weights for the run go into its own line
		// of ms and vs, which the value sums below read (four lines at a
		// time for four rows together).
		for c := c0; c <= c1; c++ {
			for g := range rows {
				row := &rows[g]
				if c < row.first || c > row.last {
					continue
				}
				x := dots[c-c0][g] * scale
				if softcap > 0 {
					x = softcap * tanh32(x)
				}
				m, v := float32(1), float32(1)
				if x > row.m {
					old := row.m
					row.m = x
					m = expF(old - row.m)
				} else {
					v = expF(x - row.m)
				}
				ms[g][c-c0], vs[g][c-c0] = m, v
				row.sum = fma32(row.sum, m, v)
			}
		}
		for g := 0; g < len(rows); g++ {
			row := &rows[g]
			lo, hi := max(c0, row.first), min(c1, row.last)
			if lo > hi {
				continue
			}
			// Four rows of a quad go together where the set has the
			// kernel, their chains overlapping.
			if g%4 == 0 && g+4 <= len(rows) && quad[g/4] &&
				f16AccCells4(row.acc[:4*vd:4*vd], vd, vt.data, off[lo-c0:hi-c0+1], &ms, &vs, g, lo-c0) {
				g += 3
				continue
			}
			f16AccCells(row.acc, vt.data, off[lo-c0:hi-c0+1], ms[g][lo-c0:hi-c0+1], vs[g][lo-c0:hi-c0+1])
		}
	}
}

// sameCells reports whether the rows see the same cells.
func sameCells(rows []flashRow) bool {
	for i := 1; i < len(rows); i++ {
		if rows[i].first != rows[0].first || rows[i].last != rows[0].last {
			return false
		}
	}
	return true
}

// contiguous reports whether the rows' accumulators (vd values each)
// follow each other in memory.
func contiguous(rows []flashRow, vd int) bool {
	if len(rows) > 0 && cap(rows[0].acc) < len(rows)*vd {
		return false
	}
	for i := 1; i < len(rows); i++ {
		if cap(rows[i-1].acc) < 2*vd || &rows[i-1].acc[:2*vd][vd] != &rows[i].acc[0] {
			return false
		}
	}
	return true
}

// flashTiledItem runs flashTiledRow for the rows over tiles of 64 cells,
// each tile's keys widened and transposed once for all rows (whose dot
// products then run 64 cells to the vector) and its values widened once.
func (b *Backend) flashTiledItem(rows []flashRow, kt, vt *tensor, kv kernels.KV, kh, cells int, p kernels.AttentionParams,
	kbuf, vbuf, kT []float32, kq *[2][faTile]float32) {
	hd, vd := p.HeadDim, p.ValueDim
	scale, softcap := p.Scale, p.Softcap
	if softcap > 0 {
		scale /= softcap
	}
	for t := 0; t < cells; t += faTile {
		// The tile's cells that some row sees.
		ulo, uhi := math.MaxInt, -1
		for i := range rows {
			r := &rows[i]
			if lo, hi := max(t, r.first), min(t+faTile-1, r.last); lo <= hi {
				ulo, uhi = min(ulo, lo), max(uhi, hi)
			}
		}
		if ulo > uhi {
			continue
		}
		keys, ldk := loadTile(kbuf, kt, kv, kh*hd, hd, ulo, uhi)
		clear(kT)
		for c := ulo; c <= uhi; c++ {
			kr := keys[(c-ulo)*ldk : (c-ulo)*ldk+hd]
			for i, v := range kr {
				kT[i*faTile+c-t] = v
			}
		}
		vals, ldv := loadTile(vbuf, vt, kv, kh*vd, vd, ulo, uhi)
		for i := 0; i < len(rows); i++ {
			r := &rows[i]
			lo, hi := max(t, r.first), min(t+faTile-1, r.last)
			if lo > hi {
				continue
			}
			if i+1 < len(rows) {
				// Two rows that see the same cells of the tile (every row
				// where nothing masks it): their dot products and value sums
				// side by side.
				if r1 := &rows[i+1]; max(t, r1.first) == lo && min(t+faTile-1, r1.last) == hi {
					seqDots64x2(&kq[0], &kq[1], r.q, r1.q, kT)
					p0 := r.tileWeights(&kq[0], lo-t, hi-t, scale, softcap)
					p1 := r1.tileWeights(&kq[1], lo-t, hi-t, scale, softcap)
					attnAcc2(r.acc, r1.acc, vals[(lo-ulo)*ldv:], p0, p1, ldv)
					i++
					continue
				}
			}
			seqDots64(&kq[0], r.q, kT)
			attnAcc(r.acc, vals[(lo-ulo)*ldv:], r.tileWeights(&kq[0], lo-t, hi-t, scale, softcap), ldv)
		}
	}
}

// scaleMax64Go multiplies a tile's 64 scores by scale and returns their
// maximum.
func scaleMax64Go(kq *[64]float32, scale float32) float32 {
	m := float32(math.Inf(-1))
	for c, v := range kq {
		kq[c] = v * scale
		m = max(m, kq[c])
	}
	return m
}

// expShift64Go sets kq[c] = expV(kq[c] - m) as expRowFast computes it.
func expShift64Go(kq *[64]float32, m float32) {
	for c := range kq {
		kq[c] -= m
	}
	expRowFast(kq[:], kq[:])
}

// tileWeights takes the row's scores of a tile's cells (kq, its dot
// products; the row sees cells lo to hi of the tile) into its online
// softmax: scaled (and capped), the running maximum and the sum of
// weights updated, and the accumulator rescaled, as ggml's tiled kernel
// does. It returns the weights of cells lo to hi.
func (r *flashRow) tileWeights(kq *[faTile]float32, lo, hi int, scale, softcap float32) []float32 {
	inf := float32(math.Inf(-1))
	for c := range lo {
		kq[c] = inf
	}
	for c := hi + 1; c < faTile; c++ {
		kq[c] = inf
	}
	tileMax := inf
	seen := kq[lo : hi+1]
	switch {
	case lo == 0 && hi == faTile-1 && softcap == 0:
		tileMax = scaleMax64(kq, scale)
	case softcap > 0:
		for c, v := range seen {
			x := tanh32(v*scale) * softcap
			seen[c] = x
			tileMax = max(tileMax, x)
		}
	default:
		for c, v := range seen {
			x := v * scale
			seen[c] = x
			tileMax = max(tileMax, x)
		}
	}
	mNew := max(r.m, tileMax)
	if mNew > r.m {
		ms := expF(r.m - mNew)
		for x := range r.acc {
			r.acc[x] *= ms
		}
		r.sum *= ms
	}
	r.m = mNew
	expShift64(kq, mNew)
	var s64 float64
	for g := 0; g < faTile; g += 16 {
		s64 += float64(reduce16((*[16]float32)(kq[g : g+16])))
	}
	r.sum = float32(float64(r.sum) + s64)
	return seen
}
