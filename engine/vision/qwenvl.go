package vision

import (
	"fmt"
	"math"

	"saji/kernels"
)

// Qwen2-VL's and Qwen2.5-VL's projectors (clip.projector_type
// "qwen2vl_merger" and "qwen2.5vl_merger"), as llama.cpp's
// clip_graph_qwen2vl builds them:
//
//   - the picture keeps its aspect: it is scaled to whole 2 × 2 merges of
//     patches, between 8 and 4096 of them (mtmd's dyn_size preprocessing,
//     as Pixtral's: dynSize);
//   - two patch embeddings (the video model's two frames, a still picture
//     read twice) are summed; the patches are read in 2 × 2 blocks, the
//     blocks row after row, with no position embeddings;
//   - each block's queries and keys turn by ggml's vision M-RoPE: the
//     first half of each head's pairs by the patch's row, the second by
//     its column, each at the frequencies of a rope of a quarter head;
//   - Qwen2-VL's blocks have LayerNorms and a plain feed-forward layer;
//     Qwen2.5-VL's have RMSNorms and a gated one (SiLU), and attend
//     within windows of 112 pixels (the patches regrouped window by
//     window) except in every n_wa_pattern-th block, which attends over
//     the whole picture;
//   - the merger concatenates each 2 × 2 block after the post-norm and
//     runs mm.0, GELU, mm.2; the embeddings come back in the picture's
//     order, the merged grid row after row.
//
// Qwen3-VL's (qwen3vl_merger, clip_graph_qwen3vl) is Qwen2-VL's with a
// patch bias, learned position embeddings (a square grid of them,
// bilinearly resized to the picture's patches, corners aligned), one
// projection for q, k and v, GELU feed-forward layers, and deepstack:
// after some blocks, a merger of their own (a LayerNorm over the four
// merged patches, fc1, GELU, fc2) makes embeddings that go after the main
// ones in each output vector, which the language model adds to its
// hidden state after its first layers.
//
// The language model reads them between <|vision_start|> and
// <|vision_end|>, on the merged grid by M-RoPE (Part's Rows and Cols).

// The projector types of Qwen2-VL, Qwen2.5-VL and Qwen3-VL.
const (
	typQwen2VL  = "qwen2vl_merger"
	typQwen25VL = "qwen2.5vl_merger"
	typQwen3VL  = "qwen3vl_merger"
)

// qwenMinTokens and qwenMaxTokens are the bounds mtmd puts on the merges
// of a Qwen-VL picture (set_limit_image_tokens(8, 4096)).
const qwenMinTokens, qwenMaxTokens = 8, 4096

// qwenWindow is the side of Qwen2.5-VL's attention windows in pixels
// (llama.cpp's default attn_window_size, which it does not read from the
// file for this type).
const qwenWindow = 112

// qwenRopeBase is the base of the encoder's vision M-RoPE.
const qwenRopeBase = 10000

// isQwenVL reports whether typ is one of Qwen-VL's projector types.
func isQwenVL(typ string) bool { return typ == typQwen2VL || typ == typQwen25VL || typ == typQwen3VL }

// deepstackMerger is one of Qwen3-VL's deepstack mergers: a LayerNorm
// over four merged patches (host weights), fc1, GELU, fc2.
type deepstackMerger struct {
	normW, normB         []float32
	fc1, fc1B, fc2, fc2B kernels.Tensor
}

// qwenVL reads Qwen-VL's hyperparameters: the merge, the norms, the
// window pattern (required for Qwen2.5-VL, as llama.cpp requires it) and
// the picture's bounds.
func (hp *hparams) qwenVL(ld *loader, typ string) {
	hp.merge = ld.intOr("clip.vision.spatial_merge_size", 2)
	hp.rms = typ == typQwen25VL
	if typ == typQwen25VL {
		hp.windowPattern = ld.int("clip.vision.n_wa_pattern")
	}
	hp.dynBounds(qwenMinTokens, qwenMaxTokens)
}

// checkQwenVL refuses Qwen-VL hyperparameters the encoder cannot run
// with.
func (hp *hparams) checkQwenVL() error {
	switch {
	case (hp.embd/hp.heads)%4 != 0:
		return fmt.Errorf("%w: the vision M-RoPE needs heads of a multiple of 4 values, not %d", ErrUnsupported, hp.embd/hp.heads)
	case hp.merge != 2:
		return fmt.Errorf("%w: the Qwen-VL merger joins 2 × 2 patches, not a spatial merge size of %d", ErrUnsupported, hp.merge)
	case hp.patchSize*hp.merge > maxPixtralMerge:
		// As Pixtral's: the bounds on the merges bound the pixels.
		return fmt.Errorf("%w: merges of %d×%d-pixel patches are wider than %d pixels", ErrUnsupported, hp.merge, hp.patchSize, maxPixtralMerge)
	case hp.windowPattern < 0 || hp.windowPattern > hp.layers:
		return fmt.Errorf("%w: a window attention pattern of %d over %d blocks", ErrUnsupported, hp.windowPattern, hp.layers)
	}
	return nil
}

// loadQwenVL reads Qwen-VL's tensors.
func (p *Projector) loadQwenVL(ld *loader) error {
	hp := p.hp
	gated := ld.has("v.blk.0.ffn_gate.weight")
	switch {
	case gated && hp.quickGELU:
		return fmt.Errorf("%w: gated quick GELU (neither clip.use_gelu nor clip.use_silu) is not implemented", ErrUnsupported)
	case !gated && hp.silu:
		return fmt.Errorf("%w: SiLU feed-forward layers without a gate are not implemented", ErrUnsupported)
	case p.typ != typQwen3VL && ld.has("v.patch_embd.bias"):
		return fmt.Errorf("%w: a patch embedding bias, which the Qwen2-VL and Qwen2.5-VL encoders do not have", ErrUnsupported)
	}
	in := hp.patchSize * hp.patchSize * 3
	p.patch = ld.weight("v.patch_embd.weight", in, hp.embd)
	p.patch1 = ld.weight("v.patch_embd.weight.1", in, hp.embd)
	if p.typ == typQwen3VL {
		p.patchB = ld.weight("v.patch_embd.bias", hp.embd)
		n := ld.rows("v.position_embd.weight", hp.embd)
		side := int(math.Sqrt(float64(n)))
		if side*side != n {
			ld.fail(fmt.Errorf("v.position_embd.weight holds %d positions, not a square grid", n))
		}
		p.posSide, p.pos = side, ld.floats("v.position_embd.weight", hp.embd*n)
	}
	p.preW, p.preB, p.preNorm = p.loadNorm(ld, "v.pre_ln", false)
	for i := range hp.layers {
		n := func(s string) string { return fmt.Sprintf("v.blk.%d.%s", i, s) }
		up, down := ld.ffnNames(i, hp.embd)
		blk := block{
			wo: ld.weight(n("attn_out.weight"), hp.embd, hp.embd), bo: ld.optional(n("attn_out.bias"), hp.embd),
			up: ld.weight(n(up+".weight"), hp.embd, hp.ffn), upB: ld.optional(n(up+".bias"), hp.ffn),
			down: ld.weight(n(down+".weight"), hp.ffn, hp.embd), downB: ld.optional(n(down+".bias"), hp.embd),
		}
		if ld.has(n("attn_qkv.weight")) {
			// One projection for q, k and v (Qwen3-VL's): its rows in
			// three parts, each product the same as the whole one's.
			w := ld.splitRows(n("attn_qkv.weight"), hp.embd, hp.embd, hp.embd, hp.embd)
			b := ld.splitRows(n("attn_qkv.bias"), hp.embd, 1, 1, 1)
			blk.wq, blk.wk, blk.wv, blk.bq, blk.bk, blk.bv = w[0], w[1], w[2], b[0], b[1], b[2]
		} else {
			blk.wq, blk.bq = ld.weight(n("attn_q.weight"), hp.embd, hp.embd), ld.weight(n("attn_q.bias"), hp.embd)
			blk.wk, blk.bk = ld.weight(n("attn_k.weight"), hp.embd, hp.embd), ld.weight(n("attn_k.bias"), hp.embd)
			blk.wv, blk.bv = ld.weight(n("attn_v.weight"), hp.embd, hp.embd), ld.weight(n("attn_v.bias"), hp.embd)
		}
		blk.ln1w, blk.ln1b, blk.rms1 = p.loadNorm(ld, n("ln1"), true)
		blk.ln2w, blk.ln2b, blk.rms2 = p.loadNorm(ld, n("ln2"), true)
		if gated {
			blk.gate, blk.gateB = ld.weight(n("ffn_gate.weight"), hp.embd, hp.ffn), ld.optional(n("ffn_gate.bias"), hp.ffn)
		}
		p.blocks = append(p.blocks, blk)
	}
	p.postW, p.postB, p.postNorm = p.loadNorm(ld, "v.post_ln", false)
	p.loadMLP(ld, "mm.0", 4*hp.embd, true)
	for i := range p.blocks {
		if d := fmt.Sprintf("v.deepstack.%d.", i); ld.has(d + "fc1.weight") {
			merged := 4 * hp.embd
			hidden := ld.rows(d+"fc1.weight", merged)
			p.blocks[i].ds = &deepstackMerger{
				normW: ld.floats(d+"norm.weight", merged), normB: ld.floats(d+"norm.bias", merged),
				fc1: ld.weight(d+"fc1.weight", merged, hidden), fc1B: ld.weight(d+"fc1.bias", hidden),
				fc2: ld.weight(d+"fc2.weight", hidden, p.lmEmbd), fc2B: ld.weight(d+"fc2.bias", p.lmEmbd),
			}
			p.deepstack++
		}
	}
	if ld.err != nil {
		return fmt.Errorf("vision: loading the %s projector: %w", p.typ, ld.err)
	}
	return nil
}

// loadNorm reads the norm called name: a LayerNorm's weight and bias on
// the host, or (hp.rms) an RMSNorm's weight. A norm not required may be
// missing (all nil).
func (p *Projector) loadNorm(ld *loader, name string, required bool) (w, b []float32, rms kernels.Tensor) {
	if !required && !ld.has(name+".weight") {
		return nil, nil, nil
	}
	if p.hp.rms {
		return nil, nil, ld.weight(name+".weight", p.hp.embd)
	}
	return ld.floats(name+".weight", p.hp.embd), ld.floats(name+".bias", p.hp.embd), nil
}

// qwenNorm applies a norm loadNorm read: RMSNorm or LayerNorm.
func (p *Projector) qwenNorm(o *ops, x kernels.Tensor, w, b []float32, rms kernels.Tensor) kernels.Tensor {
	if rms != nil {
		return o.norm(x, rms, p.hp.eps)
	}
	return o.layerNorm(x, w, b, p.hp.eps)
}

// qwenLayout is the order in which the encoder reads a picture's patches:
// order[r] is the patch (in the picture's row-major order) of encoder
// row r; units[u] the merged unit (in the merged grid's row-major order)
// of the encoder's u-th group of 4 rows; windows the ranges of encoder
// rows (whole groups) that attend to each other in a windowed block.
type qwenLayout struct {
	order, units []int
	windows      [][2]int
}

// qwenOrder returns the reading order of nx × ny patches: 2 × 2 blocks
// row after row, and with windows of win units a side (0: none) the
// blocks regrouped window by window, each window's row after row (mtmd's
// inv_window_idx).
func qwenOrder(nx, ny, win int) qwenLayout {
	pw, ph := nx/2, ny/2
	var l qwenLayout
	if win <= 0 {
		win = max(pw, ph)
	}
	for y := 0; y < ph; y += win {
		for x := 0; x < pw; x += win {
			start := len(l.units)
			for dy := range min(win, ph-y) {
				for dx := range min(win, pw-x) {
					l.units = append(l.units, (y+dy)*pw+x+dx)
				}
			}
			l.windows = append(l.windows, [2]int{4 * start, 4 * len(l.units)})
		}
	}
	for _, u := range l.units {
		by, bx := u/pw, u%pw
		for k := range 4 {
			l.order = append(l.order, (2*by+k/2)*nx+2*bx+k%2)
		}
	}
	return l
}

// qwenEncode runs Qwen-VL's encoder and merger over the nx × ny patches
// of the planar picture values: the embeddings of the merged grid, row
// after row.
func (p *Projector) qwenEncode(o *ops, values []float32, w, h int, stop func() error) kernels.Tensor {
	hp := p.hp
	ps := hp.patchSize
	nx, ny := w/ps, h/ps
	n := nx * ny
	win := 0
	if hp.windowPattern > 0 {
		win = qwenWindow / ps / 2
	}
	l := qwenOrder(nx, ny, win)
	raw := patches(values, w, h, ps)
	in := 3 * ps * ps
	rows := make([]float32, len(raw))
	for r, src := range l.order {
		copy(rows[r*in:(r+1)*in], raw[src*in:(src+1)*in])
	}
	x := o.host(rows, in, n)
	x = o.add(o.matmul(x, p.patch, nil), o.matmul(x, p.patch1, nil))
	if p.patchB != nil && o.err == nil {
		o.fail(o.b.Add(x, x, p.patchB))
	}
	if p.pos != nil {
		// The learned positions, resized to the picture's patches, in the
		// encoder's order.
		grid := p.pos
		if nx != p.posSide || ny != p.posSide {
			grid = resizeAlignCorners(p.pos, hp.embd, p.posSide, nx, ny)
		}
		e := hp.embd
		pos := make([]float32, n*e)
		for r, src := range l.order {
			copy(pos[r*e:(r+1)*e], grid[src*e:(src+1)*e])
		}
		x = o.add(x, o.host(pos, e, n))
	}
	if p.preW != nil || p.preNorm != nil {
		x = p.qwenNorm(o, x, p.preW, p.preB, p.preNorm)
	}
	// Four positions per row for the vision M-RoPE: row, column, row,
	// column.
	pos := make([]int32, 4*n)
	for r, src := range l.order {
		y, c := int32(src/nx), int32(src%nx)
		pos[r], pos[n+r], pos[2*n+r], pos[3*n+r] = y, c, y, c
	}
	var deep [][]float32 // the deepstack mergers' embeddings
	for i := range p.blocks {
		if err := stop(); err != nil {
			o.fail(err)
			return nil
		}
		ranges := l.windows
		if hp.windowPattern == 0 || (i+1)%hp.windowPattern == 0 {
			ranges = [][2]int{{0, n}} // the whole picture
		}
		x = p.qwenBlock(o, &p.blocks[i], x, n, pos, ranges)
		if ds := p.blocks[i].ds; ds != nil {
			deep = append(deep, p.deepstackFeatures(o, ds, x, n))
		}
		o.keep(x)
	}
	if p.postW != nil || p.postNorm != nil {
		x = p.qwenNorm(o, x, p.postW, p.postB, p.postNorm)
	}
	// The merger: each block's four rows as one.
	merged := o.read(x)
	if o.err != nil {
		return nil
	}
	y := o.read(p.mlp(o, o.host(merged, 4*hp.embd, n/4)))
	if o.err != nil {
		return nil
	}
	// Each output vector: the main embedding, then the deepstack
	// mergers' in order; the vectors in the picture's order.
	lm, width := p.lmEmbd, p.Embd()
	out := make([]float32, n/4*width)
	for u, src := range l.units {
		dst := out[src*width : (src+1)*width]
		copy(dst, y[u*lm:(u+1)*lm])
		for k, d := range deep {
			copy(dst[(k+1)*lm:(k+2)*lm], d[u*lm:(u+1)*lm])
		}
	}
	return o.host(out, width, n/4)
}

// deepstackFeatures runs deepstack merger ds over the n patch rows x of
// its block's output: each four rows as one, LayerNorm, fc1, GELU, fc2.
func (p *Projector) deepstackFeatures(o *ops, ds *deepstackMerger, x kernels.Tensor, n int) []float32 {
	h := o.read(x)
	if o.err != nil {
		return nil
	}
	merged := 4 * p.hp.embd
	layerNorm(h, merged, ds.normW, ds.normB, p.hp.eps)
	y := o.matmul(o.gelu(o.matmul(o.host(h, merged, n/4), ds.fc1, ds.fc1B)), ds.fc2, ds.fc2B)
	return o.read(y)
}

// resizeAlignCorners resizes a side × side grid of vectors of embd
// values (row after row) to w × h, bilinearly with the corners aligned,
// as ggml's interpolate computes it (each value from the four around it,
// weighted in float32, the sum contracted into fused multiply-adds as GCC
// builds it).
func resizeAlignCorners(src []float32, embd, side, w, h int) []float32 {
	scale := func(out int) float32 {
		if out > 1 && side > 1 {
			return float32(out-1) / float32(side-1)
		}
		return float32(out) / float32(side)
	}
	sf0, sf1 := scale(w), scale(h)
	// at returns the two neighbours of output coordinate i and the
	// weight of the second.
	at := func(i int, sf float32) (int, int, float32) {
		c := float32(i) / sf
		lo := int(math.Floor(float64(c)))
		hi := min(max(lo+1, 0), side-1)
		lo = min(max(lo, 0), side-1)
		d := min(max(c-float32(lo), 0), 1)
		return lo, hi, d
	}
	out := make([]float32, w*h*embd)
	for i1 := range h {
		y0, y1, dy := at(i1, sf1)
		for i0 := range w {
			x0, x1, dx := at(i0, sf0)
			a, b := src[(y0*side+x0)*embd:][:embd], src[(y0*side+x1)*embd:][:embd]
			c, d := src[(y1*side+x0)*embd:][:embd], src[(y1*side+x1)*embd:][:embd]
			dst := out[(i1*w+i0)*embd:][:embd]
			for k := range dst {
				v := float32(float32(b[k]*dx) * (1 - dy))
				v = kernels.FMA32(float32(a[k]*(1-dx)), 1-dy, v)
				v = kernels.FMA32(float32(c[k]*(1-dx)), dy, v)
				dst[k] = kernels.FMA32(float32(d[k]*dx), dy, v)
			}
		}
	}
	return out
}

// qwenBlock runs one of Qwen-VL's blocks over the n patch rows of x,
// whose vision M-RoPE positions are pos (four runs of n); each of ranges
// (rows) attends among itself: the whole picture, or Qwen2.5-VL's windows.
func (p *Projector) qwenBlock(o *ops, l *block, x kernels.Tensor, n int, pos []int32, ranges [][2]int) kernels.Tensor {
	hp := p.hp
	dim := hp.embd / hp.heads
	rope := kernels.RopeParams{HeadDim: dim, Dims: dim / 2, Base: qwenRopeBase,
		Sections: [4]int{dim / 4, dim / 4, dim / 4, dim / 4}, Vision: true}
	h := p.qwenNorm(o, x, l.ln1w, l.ln1b, l.rms1)
	q := o.matmul(h, l.wq, l.bq)
	k := o.matmul(h, l.wk, l.bk)
	v := o.matmul(h, l.wv, l.bv)
	if o.err == nil {
		o.fail(o.b.Rope(q, q, pos, rope))
	}
	if o.err == nil {
		o.fail(o.b.Rope(k, k, pos, rope))
	}
	a := o.attendRanges(q, k, v, n, hp.heads, dim, ranges)
	x = o.add(x, o.matmul(a, l.wo, l.bo))
	h = p.qwenNorm(o, x, l.ln2w, l.ln2b, l.rms2)
	up := o.matmul(h, l.up, l.upB)
	switch {
	case l.gate != nil:
		g := o.matmul(h, l.gate, l.gateB)
		act := kernels.SiLU
		if !hp.silu {
			act = kernels.GELU
		}
		if o.err == nil {
			o.fail(o.b.GLU(g, g, up, act))
		}
		up = g
	case hp.quickGELU:
		up = o.quickGELU(up)
	default:
		up = o.gelu(up)
	}
	return o.add(x, o.matmul(up, l.down, l.downB))
}

// qwenGrid returns the merged grid of a w × h picture: its columns and
// rows of embeddings.
func (hp *hparams) qwenGrid(w, h int) (cols, rows int) {
	wb, hb := hp.dynSize(w, h)
	m := hp.patchSize * hp.merge
	return wb / m, hb / m
}
