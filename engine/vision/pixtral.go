package vision

import (
	"fmt"
	"math"

	"saji/kernels"
)

// Pixtral's projector (clip.projector_type "pixtral": Pixtral 12B, and
// Mistral Small 3.1 and its successors with their patch merger), as
// llama.cpp's clip_graph_pixtral builds it:
//
//   - the picture keeps its aspect: it is scaled to whole merges of
//     patches (patch size × spatial_merge_size) and to between 8 and 1024
//     of them (mtmd's dyn_size preprocessing, bilinear, black around it
//     where the rounded sides change the aspect);
//   - the encoder reads every patch of it, with no position embeddings:
//     the pre-norm and the blocks' norms are RMSNorms, the queries and
//     keys of each head turn by a 2-D rope (the first half of the head
//     by the patch's row, the second by its column, at frequencies
//     interleaved between the halves), and the feed-forward layers are
//     gated (SiLU, or GELU where the file says use_gelu);
//   - the patch merger (where the file has one) RMS-norms the patches and
//     projects each merge × merge window, unfolded channel by channel, to
//     the encoder's width; the projector is mm.1, GELU, mm.2;
//   - each row of the picture's embeddings but the last is followed by
//     the [IMG_BREAK] token's embedding (v.token_embd.img_break), and the
//     prompt has [IMG_END] after them.

// pixtralMinTokens and pixtralMaxTokens are the bounds mtmd puts on the
// merges of a Pixtral picture (set_limit_image_tokens(8, 1024)).
const pixtralMinTokens, pixtralMaxTokens = 8, 1024

// maxPixtralMerge bounds the side of a Pixtral merge in pixels (real
// files: 28, merges of 2 × 2 patches of 14).
const maxPixtralMerge = 64

// pixtral reads Pixtral's hyperparameters: the merge (1 for Pixtral 12B)
// and, as llama.cpp fixes them, the rope base and the picture's bounds.
func (hp *hparams) pixtral(ld *loader) {
	hp.merge = ld.intOr("clip.vision.spatial_merge_size", 1)
	hp.ropeTheta = 10000
	hp.dynBounds(pixtralMinTokens, pixtralMaxTokens)
}

// dynBounds sets the pixel bounds of dyn_size preprocessing from mtmd's
// bounds on a picture's merges (set_limit_image_tokens).
func (hp *hparams) dynBounds(minTokens, maxTokens int) {
	area := hp.patchSize * hp.patchSize * hp.merge * hp.merge
	hp.minPixels, hp.maxPixels = minTokens*area, maxTokens*area
}

// checkPixtral refuses Pixtral hyperparameters the encoder cannot run
// with.
func (hp *hparams) checkPixtral() error {
	switch {
	case (hp.embd/hp.heads)%4 != 0:
		return fmt.Errorf("%w: the 2-D rope needs heads of a multiple of 4 values, not %d", ErrUnsupported, hp.embd/hp.heads)
	case hp.quickGELU:
		return fmt.Errorf("%w: the pixtral encoder's gated quick GELU (neither clip.use_gelu nor clip.use_silu) is not implemented", ErrUnsupported)
	case hp.merge < 1 || hp.merge > 8:
		return fmt.Errorf("%w: the pixtral spatial merge size is %d", ErrUnsupported, hp.merge)
	case hp.patchSize*hp.merge > maxPixtralMerge:
		// The bounds on a picture's merges bound its pixels by this
		// squared: a hostile file cannot make a picture of gigabytes.
		return fmt.Errorf("%w: pixtral merges of %d×%d-pixel patches are wider than %d pixels", ErrUnsupported, hp.merge, hp.patchSize, maxPixtralMerge)
	}
	return nil
}

// loadPixtral reads Pixtral's tensors.
func (p *Projector) loadPixtral(ld *loader) error {
	hp := p.hp
	p.patch = ld.weight("v.patch_embd.weight", hp.patchSize*hp.patchSize*3, hp.embd)
	p.patchB = ld.optional("v.patch_embd.bias", hp.embd)
	p.preNorm = ld.weight("v.pre_ln.weight", hp.embd)
	for i := range hp.layers {
		n := func(s string) string { return fmt.Sprintf("v.blk.%d.%s", i, s) }
		p.blocks = append(p.blocks, block{
			rms1: ld.weight(n("ln1.weight"), hp.embd), rms2: ld.weight(n("ln2.weight"), hp.embd),
			wq: ld.weight(n("attn_q.weight"), hp.embd, hp.embd), bq: ld.optional(n("attn_q.bias"), hp.embd),
			wk: ld.weight(n("attn_k.weight"), hp.embd, hp.embd), bk: ld.optional(n("attn_k.bias"), hp.embd),
			wv: ld.weight(n("attn_v.weight"), hp.embd, hp.embd), bv: ld.optional(n("attn_v.bias"), hp.embd),
			wo: ld.weight(n("attn_out.weight"), hp.embd, hp.embd), bo: ld.optional(n("attn_out.bias"), hp.embd),
			gate: ld.weight(n("ffn_gate.weight"), hp.embd, hp.ffn),
			up:   ld.weight(n("ffn_up.weight"), hp.embd, hp.ffn), upB: ld.optional(n("ffn_up.bias"), hp.ffn),
			down: ld.weight(n("ffn_down.weight"), hp.ffn, hp.embd), downB: ld.optional(n("ffn_down.bias"), hp.embd),
		})
	}
	if ld.has("mm.patch_merger.weight") {
		p.inputNorm = ld.weight("mm.input_norm.weight", hp.embd)
		p.merger = ld.weight("mm.patch_merger.weight", hp.embd*hp.merge*hp.merge, hp.embd)
	} else if hp.merge != 1 {
		ld.fail(fmt.Errorf("a spatial merge size of %d without mm.patch_merger.weight", hp.merge))
	}
	p.loadMLP(ld, "mm.1", hp.embd, false)
	p.imgBreak = ld.floats("v.token_embd.img_break", p.lmEmbd)
	if ld.err != nil {
		return fmt.Errorf("vision: loading the pixtral projector: %w", ld.err)
	}
	return nil
}

// dynSize returns the size mtmd's dyn_size preprocessing (Pixtral's and
// Qwen-VL's) scales a w × h picture to (calc_size_preserved_ratio), its
// sides whole merges of patches: each side rounded to the
// nearest whole merge (at least one); then, beyond maxPixels, both sides
// scaled down to fit and rounded down, or, below minPixels, scaled up to
// it and rounded up. The arithmetic is float32, as mtmd's.
func (hp *hparams) dynSize(w, h int) (int, int) {
	align := hp.patchSize * hp.merge
	f := float32(align)
	round := func(x float32) int { return int(math.Round(float64(x/f))) * align }
	floor := func(x float32) int { return int(math.Floor(float64(x/f))) * align }
	ceil := func(x float32) int { return int(ceil32(x/f)) * align }
	fw, fh := float32(w), float32(h)
	wb, hb := max(align, round(fw)), max(align, round(fh))
	switch {
	case wb*hb > hp.maxPixels:
		beta := float32(math.Sqrt(float64(fh * fw / float32(hp.maxPixels))))
		hb, wb = max(align, floor(fh/beta)), max(align, floor(fw/beta))
	case wb*hb < hp.minPixels:
		beta := float32(math.Sqrt(float64(float32(hp.minPixels) / (fh * fw))))
		hb, wb = ceil(fh*beta), ceil(fw*beta)
	}
	return wb, hb
}

// pixtralTokens returns the positions a w × h picture takes: its merged
// embeddings and an [IMG_BREAK] after each row but the last.
func (hp *hparams) pixtralTokens(w, h int) int {
	wb, hb := hp.dynSize(w, h)
	m := hp.patchSize * hp.merge
	cols, rows := wb/m, hb/m
	return cols*rows + rows - 1
}

// pixtralBlock runs one of Pixtral's blocks over the n patch rows of x,
// whose rows and columns in the picture are posH and posW.
func (p *Projector) pixtralBlock(o *ops, l *block, x kernels.Tensor, n int, posH, posW []int32) kernels.Tensor {
	hp := p.hp
	dim := hp.embd / hp.heads
	h := o.norm(x, l.rms1, hp.eps)
	q := o.rope2D(o.matmul(h, l.wq, l.bq), n, hp.heads, dim, posH, posW, hp.ropeTheta)
	k := o.rope2D(o.matmul(h, l.wk, l.bk), n, hp.heads, dim, posH, posW, hp.ropeTheta)
	v := o.matmul(h, l.wv, l.bv)
	a := o.attend(q, k, v, n, hp.heads, dim)
	x = o.add(x, o.matmul(a, l.wo, l.bo))
	h = o.norm(x, l.rms2, hp.eps)
	up := o.matmul(h, l.up, l.upB)
	g := o.matmul(h, l.gate, nil)
	act := kernels.SiLU
	if !hp.silu {
		act = kernels.GELU
	}
	if o.err == nil {
		o.fail(o.b.GLU(g, g, up, act))
	}
	return o.add(x, o.matmul(g, l.down, l.downB))
}

// pixtral is Pixtral's projector over the nx × ny patch rows of x: the
// patch merger where there is one, mm.1, GELU, mm.2, and the [IMG_BREAK]
// embedding after each row but the last.
func (p *Projector) pixtral(o *ops, x kernels.Tensor, nx, ny int) kernels.Tensor {
	hp := p.hp
	m := 1
	if p.merger != nil {
		m = hp.merge
		h := o.read(o.norm(x, p.inputNorm, hp.eps))
		if o.err != nil {
			return nil
		}
		x = o.matmul(o.host(unfold(h, hp.embd, nx, ny, m), hp.embd*m*m, (nx/m)*(ny/m)), p.merger, nil)
	}
	y := o.read(p.mlp(o, x))
	if o.err != nil {
		return nil
	}
	cols, rows, lm := nx/m, ny/m, p.lmEmbd
	out := make([]float32, 0, (cols*rows+rows-1)*lm)
	for r := range rows {
		out = append(out, y[r*cols*lm:(r+1)*cols*lm]...)
		if r < rows-1 {
			out = append(out, p.imgBreak...)
		}
	}
	return o.host(out, lm, len(out)/lm)
}

// unfold gathers each m × m window of an nx × ny grid of patch rows
// (embd values each, row after row) into one row of embd·m·m values, as
// ggml's im2col lays them out for the patch merger (torch's unfold):
// channel by channel, each the window's values row after row; the
// windows row after row.
func unfold(h []float32, embd, nx, ny, m int) []float32 {
	cols, rows, mm := nx/m, ny/m, m*m
	out := make([]float32, cols*rows*embd*mm)
	for wy := range rows {
		for wx := range cols {
			dst := out[(wy*cols+wx)*embd*mm:][:embd*mm]
			for ky := range m {
				for kx := range m {
					src := h[((wy*m+ky)*nx+wx*m+kx)*embd:][:embd]
					for c, v := range src {
						dst[c*mm+ky*m+kx] = v
					}
				}
			}
		}
	}
	return out
}

// rope2D turns the queries or keys x (n rows of heads × dim values) by
// the 2-D rope of llama.cpp's build_rope_2d: in each head, the first
// half's pairs by the patch's row posH and the second half's by its
// column posW, both at the frequencies of a rope of dim/2 dimensions,
// the second half's scaled by θ^(-2/dim) (the odd frequencies of a rope
// of dim dimensions). Adjacent pairs turn (ggml's normal mode). Each half
// runs through the backend's Rope as rows of its own.
func (o *ops) rope2D(x kernels.Tensor, n, heads, dim int, posH, posW []int32, theta float32) kernels.Tensor {
	h := o.read(x)
	if o.err != nil {
		return nil
	}
	half, rows := dim/2, n*heads
	a, b := make([]float32, rows*half), make([]float32, rows*half)
	pa, pb := make([]int32, rows), make([]int32, rows)
	for i := range rows {
		head := h[i*dim:][:dim]
		copy(a[i*half:], head[:half])
		copy(b[i*half:], head[half:])
		pa[i], pb[i] = posH[i/heads], posW[i/heads]
	}
	odd := float32(math.Pow(float64(theta), float64(float32(-2)/float32(dim))))
	ta, tb := o.host(a, half, rows), o.host(b, half, rows)
	if o.err == nil {
		o.fail(o.b.Rope(ta, ta, pa, kernels.RopeParams{HeadDim: half, Dims: half, Base: theta}))
	}
	if o.err == nil {
		o.fail(o.b.Rope(tb, tb, pb, kernels.RopeParams{HeadDim: half, Dims: half, Base: theta, FreqScale: odd}))
	}
	a, b = o.read(ta), o.read(tb)
	if o.err != nil {
		return nil
	}
	for i := range rows {
		head := h[i*dim:][:dim]
		copy(head[:half], a[i*half:][:half])
		copy(head[half:], b[i*half:][:half])
	}
	o.fail(o.b.Write(x, h))
	return x
}

// patchPositions returns the row and column of each of the nx × ny
// patches, row after row (mtmd's pos_h and pos_w).
func patchPositions(nx, ny int) (posH, posW []int32) {
	posH, posW = make([]int32, nx*ny), make([]int32, nx*ny)
	for i := range posH {
		posH[i], posW[i] = int32(i/nx), int32(i%nx)
	}
	return posH, posW
}
