package vision

import (
	"fmt"
	"math"

	"saji/kernels"
	"saji/kernels/quant"
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
// The language model reads them between <|vision_start|> and
// <|vision_end|>, on the merged grid by M-RoPE (Part's Rows and Cols).

// The projector types of Qwen2-VL and Qwen2.5-VL.
const (
	typQwen2VL  = "qwen2vl_merger"
	typQwen25VL = "qwen2.5vl_merger"
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
func isQwenVL(typ string) bool { return typ == typQwen2VL || typ == typQwen25VL }

// qwenVL reads Qwen-VL's hyperparameters: the merge, the norms, the
// window pattern (required for Qwen2.5-VL, as llama.cpp requires it) and
// the picture's bounds.
func (hp *hparams) qwenVL(ld *loader, typ string) {
	hp.merge = ld.intOr("clip.vision.spatial_merge_size", 2)
	hp.rms = typ == typQwen25VL
	if typ == typQwen25VL {
		hp.windowPattern = ld.int("clip.vision.n_wa_pattern")
	}
	area := hp.patchSize * hp.patchSize * hp.merge * hp.merge
	hp.minPixels, hp.maxPixels = qwenMinTokens*area, qwenMaxTokens*area
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
	case ld.has("v.patch_embd.bias"):
		return fmt.Errorf("%w: a patch embedding bias, which the Qwen-VL encoder does not have", ErrUnsupported)
	}
	in := hp.patchSize * hp.patchSize * 3
	p.patch = ld.weight("v.patch_embd.weight", in, hp.embd)
	p.patch1 = ld.weight("v.patch_embd.weight.1", in, hp.embd)
	p.preW, p.preB, p.preNorm = p.loadNorm(ld, "v.pre_ln", false)
	for i := range hp.layers {
		n := func(s string) string { return fmt.Sprintf("v.blk.%d.%s", i, s) }
		up, down := ld.ffnNames(i, hp.embd)
		blk := block{
			wq: ld.weight(n("attn_q.weight"), hp.embd, hp.embd), bq: ld.weight(n("attn_q.bias"), hp.embd),
			wk: ld.weight(n("attn_k.weight"), hp.embd, hp.embd), bk: ld.weight(n("attn_k.bias"), hp.embd),
			wv: ld.weight(n("attn_v.weight"), hp.embd, hp.embd), bv: ld.weight(n("attn_v.bias"), hp.embd),
			wo: ld.weight(n("attn_out.weight"), hp.embd, hp.embd), bo: ld.optional(n("attn_out.bias"), hp.embd),
			up: ld.weight(n(up+".weight"), hp.embd, hp.ffn), upB: ld.optional(n(up+".bias"), hp.ffn),
			down: ld.weight(n(down+".weight"), hp.ffn, hp.embd), downB: ld.optional(n(down+".bias"), hp.embd),
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
// of the encoder's u-th group of 4 rows; windows the ranges of those
// groups that attend to each other in a windowed block (nil: none).
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
			l.windows = append(l.windows, [2]int{start, len(l.units)})
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
	for i := range p.blocks {
		if err := stop(); err != nil {
			o.fail(err)
			return nil
		}
		windows := l.windows
		if hp.windowPattern == 0 || (i+1)%hp.windowPattern == 0 {
			windows = nil
		}
		x = p.qwenBlock(o, &p.blocks[i], x, n, pos, windows)
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
	lm := p.lmEmbd
	out := make([]float32, len(y))
	for u, src := range l.units {
		copy(out[src*lm:(src+1)*lm], y[u*lm:(u+1)*lm])
	}
	return o.host(out, lm, n/4)
}

// qwenBlock runs one of Qwen-VL's blocks over the n patch rows of x,
// whose vision M-RoPE positions are pos (four runs of n); windows, when
// not nil, are the ranges of 4-row groups that attend among themselves.
func (p *Projector) qwenBlock(o *ops, l *block, x kernels.Tensor, n int, pos []int32, windows [][2]int) kernels.Tensor {
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
	var a kernels.Tensor
	if windows == nil {
		a = o.attend(q, k, v, n, hp.heads, dim)
	} else {
		a = o.attendWindows(q, k, v, n, hp.heads, dim, windows)
	}
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

// attendWindows is attention of the n rows within each window: windows
// are ranges of 4-row groups, in order, each attending over its own rows
// only (the block-diagonal mask of Qwen2.5-VL's windowed blocks). The
// keys and values go through F16, as in attend.
func (o *ops) attendWindows(q, k, v kernels.Tensor, n, heads, dim int, windows [][2]int) kernels.Tensor {
	if o.err != nil {
		return nil
	}
	cells := make([]int32, n)
	for i := range cells {
		cells[i] = int32(i)
	}
	k16 := o.new(quant.TypeF16, heads*dim, n)
	v16 := o.new(quant.TypeF16, heads*dim, n)
	if o.err == nil {
		o.fail(o.b.SetRows(k16, k, cells))
	}
	if o.err == nil {
		o.fail(o.b.SetRows(v16, v, cells))
	}
	seqs := make([]kernels.SeqKV, len(windows))
	for i, w := range windows {
		lo, hi := 4*w[0], 4*w[1]
		pos := make([]int32, hi-lo)
		for j := range pos {
			pos[j] = int32(hi - lo - 1)
		}
		seqs[i] = kernels.SeqKV{KV: kernels.KV{K: k16, V: v16, Len: hi - lo, Cells: cells[lo:hi], Size: hi - lo}, Pos: pos}
	}
	y := o.new(quant.TypeF32, heads*dim, n)
	if o.err == nil {
		p := kernels.AttentionParams{Heads: heads, KVHeads: heads, HeadDim: dim, ValueDim: dim,
			Scale: 1 / float32(math.Sqrt(float64(dim)))}
		o.fail(o.b.AttentionSeqs(y, q, seqs, p))
	}
	return y
}

// qwenGrid returns the merged grid of a w × h picture: its columns and
// rows of embeddings.
func (hp *hparams) qwenGrid(w, h int) (cols, rows int) {
	wb, hb := hp.dynSize(w, h)
	m := hp.patchSize * hp.merge
	return wb / m, hb / m
}
