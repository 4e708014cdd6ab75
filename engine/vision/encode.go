package vision

import (
	"context"
	"fmt"
	"image"
	"math"
	"sync"

	"saji/kernels"
	"saji/kernels/quant"
)

// Encode returns a picture's embeddings: rows of Embd() values, row after
// row, for the language model to read at the image's positions (Tokens()
// rows, or that many for each square of a LLaVA 1.6 picture).
func (p *Projector) Encode(ctx context.Context, img image.Image) ([]float32, error) {
	if img == nil || img.Bounds().Empty() {
		return nil, fmt.Errorf("vision: an empty picture")
	}
	inputs, err := p.Preprocess(ToRGB(img))
	if err != nil {
		return nil, err
	}
	p.runs.Add(1)
	var out []float32
	for _, pixels := range inputs {
		emb, err := p.EncodePixels(ctx, pixels)
		if err != nil {
			return nil, err
		}
		out = append(out, emb...)
	}
	return out, nil
}

// Pixels is one input of the encoder: a W × H picture's normalized
// values, one plane per channel (Preprocess).
type Pixels struct {
	W, H   int
	Values []float32
}

// EncodePixels runs the encoder and projector over one input
// (Preprocess): a square of the encoder's size, or for Pixtral a picture
// of whole merges of patches.
func (p *Projector) EncodePixels(ctx context.Context, px Pixels) ([]float32, error) {
	hp := p.hp
	ps := hp.patchSize
	switch {
	case len(px.Values) != 3*px.W*px.H || px.W <= 0 || px.H <= 0:
		return nil, fmt.Errorf("vision: %d input values for a %d×%d picture", len(px.Values), px.W, px.H)
	case !p.dynamic() && (px.W != hp.imageSize || px.H != hp.imageSize):
		return nil, fmt.Errorf("vision: a %d×%d input for the %d-pixel square", px.W, px.H, hp.imageSize)
	case px.W%(ps*hp.merge) != 0 || px.H%(ps*hp.merge) != 0:
		return nil, fmt.Errorf("vision: a %d×%d input is not whole merges of %d-pixel patches", px.W, px.H, ps)
	}
	o := &ops{b: p.backend}
	defer o.release()
	if isQwenVL(p.typ) {
		return o.result(p.qwenEncode(o, px.Values, px.W, px.H, ctx.Err))
	}
	nx, ny := px.W/ps, px.H/ps
	n := nx * ny

	// Patch embedding: the convolution with stride = kernel = patch size,
	// as a product of each patch's values (ggml's im2col order: channel,
	// row, column) by the kernel.
	x := o.matmul(o.host(patches(px.Values, px.W, px.H, ps), 3*ps*ps, n), p.patch, p.patchB)
	if p.typ == "pixtral" {
		posH, posW := patchPositions(nx, ny)
		x = o.norm(x, p.preNorm, hp.eps)
		for i := range p.blocks {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			x = p.pixtralBlock(o, &p.blocks[i], x, n, posH, posW)
			o.keep(x)
		}
		return o.result(p.pixtral(o, x, nx, ny))
	}

	x, rows := p.embed(o, x, n)
	for i := range p.blocks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = p.block(o, &p.blocks[i], x, rows)
		o.keep(x)
	}
	if p.postW != nil {
		x = o.layerNorm(x, p.postW, p.postB, hp.eps)
	}
	var y kernels.Tensor
	switch p.typ {
	case "mlp":
		y = p.llava(o, x, n)
	case "idefics3":
		y = p.idefics3(o, x, nx)
	default:
		y = p.gemma3(o, x, nx)
	}
	return o.result(y)
}

// result reads the embeddings y to the host, or returns the first error
// of the encoding.
func (o *ops) result(y kernels.Tensor) ([]float32, error) {
	emb := o.read(y)
	if o.err != nil {
		return nil, fmt.Errorf("vision: encoding: %w", o.err)
	}
	return emb, nil
}

// embed returns the encoder's input rows and their count: the n patch
// embeddings x, then the class embedding where the encoder has one (after
// the patches, where llama.cpp's LLaVA graph concatenates it), plus the
// position embeddings, through the pre-layernorm where there is one.
func (p *Projector) embed(o *ops, x kernels.Tensor, n int) (kernels.Tensor, int) {
	embd := p.hp.embd
	h := o.read(x)
	if o.err != nil {
		return nil, 0
	}
	h = append(h, p.class...)
	rows := len(h) / embd
	for i := range h {
		h[i] += p.pos[i]
	}
	if p.preW != nil {
		layerNorm(h, embd, p.preW, p.preB, p.hp.eps)
	}
	return o.host(h, embd, rows), rows
}

// gemma3 is Gemma 3's projector over the side × side patch rows of x:
// average pooling over merge × merge patches, RMSNorm, and the projection
// to the language model's width.
func (p *Projector) gemma3(o *ops, x kernels.Tensor, side int) kernels.Tensor {
	hp := p.hp
	h := o.read(x)
	if o.err != nil {
		return nil
	}
	out := side / hp.merge
	pooled := avgPool(h, hp.embd, side, hp.merge)
	y := o.norm(o.host(pooled, hp.embd, out*out), p.softNorm, hp.eps)
	return o.matmul(y, p.inProj, nil)
}

// idefics3 is SmolVLM's projector over the side × side patch rows of x:
// the pixel shuffle (pixelShuffle) and one linear layer.
func (p *Projector) idefics3(o *ops, x kernels.Tensor, side int) kernels.Tensor {
	m := p.hp.merge
	h := o.read(x)
	if o.err != nil {
		return nil
	}
	out := side / m
	return o.matmul(o.host(pixelShuffle(h, p.hp.embd, side, m), p.hp.embd*m*m, out*out), p.fc, nil)
}

// pixelShuffle folds each m × m window of a side × side grid of patch
// rows (embd values each, row after row) into one row of m·m·embd
// values, as llama.cpp's build_patch_merge_permute lays them out: the
// window's rows one after the other, each its patches left to right; the
// windows row after row.
func pixelShuffle(h []float32, embd, side, m int) []float32 {
	out := side / m
	res := make([]float32, 0, len(h))
	for wy := range out {
		for wx := range out {
			for dy := range m {
				row := (wy*m + dy) * side
				res = append(res, h[(row+wx*m)*embd:(row+wx*m+m)*embd]...)
			}
		}
	}
	return res
}

// llava is LLaVA's MLP projector (mm.0, GELU, mm.2) over n of the rows of
// x: those llama.cpp's graph selects, from the second row on when there
// is a class embedding. (Its class row comes last, so the selection
// leaves out the first patch and takes the class row, and each patch has
// its neighbour's position embedding: llama.cpp's numbers at the
// reference commit, which Saji matches; upstream issue #25814, fixed by
// putting the class row first, PR #25844, not merged.)
func (p *Projector) llava(o *ops, x kernels.Tensor, n int) kernels.Tensor {
	embd := p.hp.embd
	if p.class != nil {
		h := o.read(x)
		if o.err != nil {
			return nil
		}
		x = o.host(h[embd:(n+1)*embd], embd, n)
	}
	return p.mlp(o, x)
}

// mlp is the two-layer MLP projector: mm0, GELU, mm2 (LLaVA's, and
// Pixtral's after its merger).
func (p *Projector) mlp(o *ops, x kernels.Tensor) kernels.Tensor {
	return o.matmul(o.gelu(o.matmul(x, p.mm0, p.mm0B)), p.mm2, p.mm2B)
}

// block runs one ViT block over the n patch rows of x.
func (p *Projector) block(o *ops, l *block, x kernels.Tensor, n int) kernels.Tensor {
	hp := p.hp
	h := o.layerNorm(x, l.ln1w, l.ln1b, hp.eps)
	q := o.matmul(h, l.wq, l.bq)
	k := o.matmul(h, l.wk, l.bk)
	v := o.matmul(h, l.wv, l.bv)
	a := o.attend(q, k, v, n, hp.heads, hp.embd/hp.heads)
	x = o.add(x, o.matmul(a, l.wo, l.bo))
	h = o.layerNorm(x, l.ln2w, l.ln2b, hp.eps)
	h = o.matmul(h, l.up, l.upB)
	if hp.quickGELU {
		h = o.quickGELU(h)
	} else {
		h = o.gelu(h)
	}
	return o.add(x, o.matmul(h, l.down, l.downB))
}

// patches lays the patches of a planar w × h picture out as rows of
// 3·ps·ps values, row after row of patches: channel, then row, then
// column within the patch.
func patches(pixels []float32, w, h, ps int) []float32 {
	nx, ny := w/ps, h/ps
	row := 3 * ps * ps
	out := make([]float32, nx*ny*row)
	for py := range ny {
		for px := range nx {
			dst := out[(py*nx+px)*row:]
			i := 0
			for c := range 3 {
				plane := pixels[c*w*h:]
				for ky := range ps {
					src := plane[(py*ps+ky)*w+px*ps:]
					copy(dst[i:i+ps], src[:ps])
					i += ps
				}
			}
		}
	}
	return out
}

// avgPool averages the rows of h (a side × side grid of patches, embd
// values each, row after row) over k × k windows, as ggml's pool_2d does:
// the sum divided by k².
func avgPool(h []float32, embd, side, k int) []float32 {
	out := side / k
	res := make([]float32, out*out*embd)
	for oy := range out {
		for ox := range out {
			dst := res[(oy*out+ox)*embd : (oy*out+ox+1)*embd]
			for c := range dst {
				var s float32
				for ky := range k {
					for kx := range k {
						s += h[((oy*k+ky)*side+ox*k+kx)*embd+c]
					}
				}
				dst[c] = s / float32(k*k)
			}
		}
	}
	return res
}

// ops runs the encoder's operations on a backend, keeping the first error
// so that a block reads as straight-line code, and frees its activations
// at the end.
type ops struct {
	b      kernels.Backend
	err    error
	allocs []kernels.Tensor
	ones   kernels.Tensor
	// kv16 holds attention's F16 keys and values, reused by every block
	// of the encoding.
	kv16 [2]kernels.Tensor
}

func (o *ops) fail(err error) {
	if o.err == nil && err != nil {
		o.err = err
	}
}

// release gives the activations back to a recycling backend.
func (o *ops) release() {
	if r, ok := o.b.(kernels.Recycler); ok {
		r.Recycle(o.allocs...)
	}
	o.allocs = nil
}

// keep gives every activation but x (and GELU's gate of ones, attention's
// F16 keys and values) back to a
// recycling backend: at the end of a block, so that the next block's
// results take the memory of this one's instead of fresh pages.
func (o *ops) keep(x kernels.Tensor) {
	r, ok := o.b.(kernels.Recycler)
	if !ok {
		return
	}
	kept := o.allocs[:0]
	var done []kernels.Tensor
	for _, t := range o.allocs {
		if t == x || t == o.ones || t == o.kv16[0] || t == o.kv16[1] {
			kept = append(kept, t)
		} else {
			done = append(done, t)
		}
	}
	r.Recycle(done...)
	clear(o.allocs[len(kept):])
	o.allocs = kept
}

// new allocates an F32 activation (typ F16 for attention's keys and
// values).
func (o *ops) new(typ quant.Type, cols, rows int) kernels.Tensor {
	if o.err != nil {
		return nil
	}
	t, err := o.b.New(typ, cols, rows)
	o.fail(err)
	if err == nil {
		o.allocs = append(o.allocs, t)
	}
	return t
}

// host writes rows × cols host values to a new activation.
func (o *ops) host(v []float32, cols, rows int) kernels.Tensor {
	t := o.new(quant.TypeF32, cols, rows)
	if o.err == nil {
		o.fail(o.b.Write(t, v))
	}
	return t
}

// read copies x to the host.
func (o *ops) read(x kernels.Tensor) []float32 {
	if o.err != nil {
		return nil
	}
	out := make([]float32, kernels.Cols(x)*kernels.Rows(x))
	o.fail(o.b.Read(x, out))
	return out
}

// matmul returns x·wᵀ (+ bias).
func (o *ops) matmul(x, w, bias kernels.Tensor) kernels.Tensor {
	if o.err != nil {
		return nil
	}
	y := o.new(quant.TypeF32, kernels.Rows(w), kernels.Rows(x))
	if o.err == nil {
		o.fail(o.b.MatMul(y, w, x))
	}
	if bias != nil && o.err == nil {
		o.fail(o.b.Add(y, y, bias))
	}
	return y
}

// add returns a + b.
func (o *ops) add(a, b kernels.Tensor) kernels.Tensor {
	y := o.new(quant.TypeF32, kernels.Cols(a), kernels.Rows(a))
	if o.err == nil {
		o.fail(o.b.Add(y, a, b))
	}
	return y
}

// norm is RMSNorm with weight w.
func (o *ops) norm(x, w kernels.Tensor, eps float32) kernels.Tensor {
	y := o.new(quant.TypeF32, kernels.Cols(x), kernels.Rows(x))
	if o.err == nil {
		o.fail(o.b.RMSNorm(y, x, w, eps))
	}
	return y
}

// gelu applies ggml's GELU to x in place: the gated kernel with a gate of
// ones.
func (o *ops) gelu(x kernels.Tensor) kernels.Tensor {
	if o.err != nil {
		return nil
	}
	cols, rows := kernels.Cols(x), kernels.Rows(x)
	if o.ones == nil || kernels.Cols(o.ones) != cols || kernels.Rows(o.ones) != rows {
		ones := make([]float32, cols*rows)
		for i := range ones {
			ones[i] = 1
		}
		o.ones = o.host(ones, cols, rows)
	}
	if o.err == nil {
		o.fail(o.b.GLU(x, x, o.ones, kernels.GELU))
	}
	return x
}

// quickGELU applies ggml's quick GELU to x in place, on the host: the
// input rounded to F16 and looked up in a table of F16 results of
// x·sigmoid(1.702x), as ggml's CPU backend evaluates it.
func (o *ops) quickGELU(x kernels.Tensor) kernels.Tensor {
	h := o.read(x)
	if o.err != nil {
		return nil
	}
	table := quickGELUTable()
	for i, v := range h {
		h[i] = quant.F16ToF32(table[quant.F32ToF16(v)])
	}
	o.fail(o.b.Write(x, h))
	return x
}

// quickGELUTable is ggml's table of quick GELU over every F16 value.
var quickGELUTable = sync.OnceValue(func() *[1 << 16]uint16 {
	var t [1 << 16]uint16
	for i := range t {
		f := quant.F16ToF32(uint16(i))
		e := float32(math.Exp(float64(-1.702 * f)))
		t[i] = quant.F32ToF16(f * float32(1/(1+e)))
	}
	return &t
})

// layerNorm is LayerNorm with weight w and bias b, on the host, as ggml's
// norm computes it: the mean and variance summed in float64, the scale
// 1/√(variance+eps) in float32.
func (o *ops) layerNorm(x kernels.Tensor, w, b []float32, eps float32) kernels.Tensor {
	h := o.read(x)
	if o.err != nil {
		return nil
	}
	cols := kernels.Cols(x)
	layerNorm(h, cols, w, b, eps)
	return o.host(h, cols, kernels.Rows(x))
}

// layerNorm normalizes each row of cols values of h in place, in the
// order of ggml's norm on an AVX-512 build: the mean from a float64 sum
// rounded to float32, the variance from float64 sums of 16-lane float32
// sums of the squared deviations (ggml_vec_cvar_f32; the last values one
// by one), the scale 1/√(variance+eps) in float32.
func layerNorm(h []float32, cols int, w, b []float32, eps float32) {
	for r := 0; r+cols <= len(h); r += cols {
		row := h[r : r+cols]
		var sum float64
		for _, v := range row {
			sum += float64(v)
		}
		mean := float32(sum) / float32(cols)
		var sum2 float64
		var lanes [16]float32
		i := 0
		for ; i+16 <= cols; i += 16 {
			for j := range lanes {
				d := row[i+j] - mean
				row[i+j], lanes[j] = d, d*d
			}
			sum2 += float64(kernels.Reduce16(&lanes))
		}
		for ; i < cols; i++ {
			d := row[i] - mean
			row[i] = d
			sum2 += float64(d * d)
		}
		scale := 1 / float32(math.Sqrt(float64(float32(sum2/float64(cols))+eps)))
		for i := range row {
			row[i] = row[i] * scale * w[i]
			if b != nil {
				row[i] += b[i]
			}
		}
	}
}

// attend is full (not causal) multi-head attention of n rows over each
// other.
func (o *ops) attend(q, k, v kernels.Tensor, n, heads, dim int) kernels.Tensor {
	return o.attendRanges(q, k, v, n, heads, dim, [][2]int{{0, n}})
}

// attendRanges is multi-head attention of the n rows within each range
// of rows (consecutive, in order; Qwen2.5-VL's windows, the block-diagonal
// mask of its windowed blocks): each row over every row of its range,
// not causally. The keys and values go through F16, as llama.cpp's clip
// graph casts them for flash attention; every query row sees every cell
// of its range by standing at its last position.
func (o *ops) attendRanges(q, k, v kernels.Tensor, n, heads, dim int, ranges [][2]int) kernels.Tensor {
	if o.err != nil {
		return nil
	}
	cells := make([]int32, n)
	for i := range cells {
		cells[i] = int32(i)
	}
	if o.kv16[0] == nil || kernels.Cols(o.kv16[0]) != heads*dim || kernels.Rows(o.kv16[0]) != n {
		o.kv16 = [2]kernels.Tensor{o.new(quant.TypeF16, heads*dim, n), o.new(quant.TypeF16, heads*dim, n)}
	}
	k16, v16 := o.kv16[0], o.kv16[1]
	if o.err == nil {
		o.fail(o.b.SetRows(k16, k, cells))
	}
	if o.err == nil {
		o.fail(o.b.SetRows(v16, v, cells))
	}
	seqs := make([]kernels.SeqKV, len(ranges))
	for i, r := range ranges {
		lo, hi := r[0], r[1]
		pos := make([]int32, hi-lo)
		for j := range pos {
			pos[j] = int32(hi - lo - 1)
		}
		kv := kernels.KV{K: k16, V: v16, Len: hi - lo, Cells: cells[lo:hi], Size: hi - lo}
		if lo == 0 && hi == n {
			kv.Cells = nil // all of them, in order: the contiguous path
		}
		seqs[i] = kernels.SeqKV{KV: kv, Pos: pos}
	}
	y := o.new(quant.TypeF32, heads*dim, n)
	if o.err == nil {
		p := kernels.AttentionParams{Heads: heads, KVHeads: heads, HeadDim: dim, ValueDim: dim,
			Scale: 1 / float32(math.Sqrt(float64(dim)))}
		o.fail(o.b.AttentionSeqs(y, q, seqs, p))
	}
	return y
}
