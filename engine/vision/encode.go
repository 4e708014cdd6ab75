package vision

import (
	"context"
	"fmt"
	"image"
	"math"

	"saji/kernels"
	"saji/kernels/quant"
)

// Encode returns a picture's embeddings: Tokens() rows of Embd() values,
// row after row, for the language model to read at the image's positions.
func (p *Projector) Encode(ctx context.Context, img image.Image) ([]float32, error) {
	if img == nil || img.Bounds().Empty() {
		return nil, fmt.Errorf("vision: an empty picture")
	}
	return p.EncodePixels(ctx, p.Preprocess(ToRGB(img)))
}

// EncodePixels runs the encoder and projector over preprocessed pixels
// (Preprocess).
func (p *Projector) EncodePixels(ctx context.Context, pixels []float32) ([]float32, error) {
	hp := p.hp
	if len(pixels) != 3*hp.imageSize*hp.imageSize {
		return nil, fmt.Errorf("vision: %d input values for a %d-pixel square", len(pixels), hp.imageSize)
	}
	p.runs.Add(1)
	o := &ops{b: p.backend}
	defer o.release()
	side := hp.imageSize / hp.patchSize
	n := side * side

	// Patch embedding: the convolution with stride = kernel = patch size,
	// as a product of each patch's values (ggml's im2col order: channel,
	// row, column) by the kernel.
	x := o.matmul(o.host(patches(pixels, hp.imageSize, hp.patchSize), 3*hp.patchSize*hp.patchSize, n), p.patch, p.patchB)
	x = o.add(x, o.host(p.pos, hp.embd, n))
	for i := range p.blocks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = p.block(o, &p.blocks[i], x, n)
	}
	if p.postW != nil {
		x = o.layerNorm(x, p.postW, p.postB, hp.eps)
	}
	// Gemma 3: average pooling over merge × merge patches, RMSNorm, and
	// the projection to the language model's width.
	h := o.read(x)
	if o.err != nil {
		return nil, o.err
	}
	out := side / hp.merge
	pooled := avgPool(h, hp.embd, side, hp.merge)
	y := o.norm(o.host(pooled, hp.embd, out*out), p.softNorm, hp.eps)
	y = o.matmul(y, p.inProj, nil)
	emb := o.read(y)
	if o.err != nil {
		return nil, fmt.Errorf("vision: encoding: %w", o.err)
	}
	return emb, nil
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
	h = o.gelu(o.matmul(h, l.up, l.upB))
	return o.add(x, o.matmul(h, l.down, l.downB))
}

// patches lays the patches of a planar size × size picture out as rows of
// 3·ps·ps values: channel, then row, then column within the patch.
func patches(pixels []float32, size, ps int) []float32 {
	side := size / ps
	row := 3 * ps * ps
	out := make([]float32, side*side*row)
	for py := range side {
		for px := range side {
			dst := out[(py*side+px)*row:]
			i := 0
			for c := range 3 {
				plane := pixels[c*size*size:]
				for ky := range ps {
					src := plane[(py*ps+ky)*size+px*ps:]
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

// layerNorm normalizes each row of cols values of h in place.
func layerNorm(h []float32, cols int, w, b []float32, eps float32) {
	for r := 0; r+cols <= len(h); r += cols {
		row := h[r : r+cols]
		var sum float64
		for _, v := range row {
			sum += float64(v)
		}
		mean := float32(sum / float64(cols))
		var sum2 float64
		for i, v := range row {
			d := v - mean
			row[i] = d
			sum2 += float64(d * d)
		}
		scale := float32(1 / math.Sqrt(float64(float32(sum2/float64(cols))+eps)))
		for i := range row {
			row[i] = row[i] * scale * w[i]
			if b != nil {
				row[i] += b[i]
			}
		}
	}
}

// attend is full (not causal) multi-head attention of n rows over each
// other. The keys and values go through F16, as llama.cpp's clip graph
// casts them for flash attention; every query row sees every cell by
// standing at the last position.
//
// Heads whose length is not a multiple of 16 (SigLIP's 72) are padded with
// zeros to one (headPad): ggml's flash attention runs them one query at a
// time, with F16 queries and sums, which made the 896×896 encoder twice
// as slow as llama.cpp's; padded, they take its tiled kernel (16 queries
// against tiles of 64 cells, F32 sums), five times as fast, whose scores
// and weighted values are the same but for the zeros. Its results are the
// exact attention's to 1e-6, where the one-query kernel's F16 sums stray
// by 2e-3 over 200 cells and 2e-2 over 4096 (TestAttendPadded): on such
// heads Saji's embeddings are nearer the exact ones than libmtmd's, and
// differ from them by that much (4.6e-2 of their largest magnitude on the
// 896×896 encoder's first two blocks with random weights, against 2.8e-4
// with the one-query kernel). Heads of a multiple of 16 (the tiny
// projectors of the conformance figures) take the tiled kernel in both.
func (o *ops) attend(q, k, v kernels.Tensor, n, heads, dim int) kernels.Tensor {
	if o.err != nil {
		return nil
	}
	pd := headPad(dim)
	if pd == dim {
		return o.flash(q, k, v, n, heads, dim, dim)
	}
	qp := padHeads(o.read(q), heads, dim, pd)
	kp := padHeads(o.read(k), heads, dim, pd)
	vp := padHeads(o.read(v), heads, dim, pd)
	y := o.read(o.flash(o.host(qp, heads*pd, n), o.host(kp, heads*pd, n), o.host(vp, heads*pd, n), n, heads, pd, dim))
	if o.err != nil {
		return nil
	}
	return o.host(unpadHeads(y, heads, pd, dim), heads*dim, n)
}

// headPad is the head length attend pads heads of dim values to: the next
// multiple of 16.
func headPad(dim int) int { return (dim + 15) / 16 * 16 }

// padHeads returns the rows of x (heads heads of dim values each) with
// every head padded with zeros to pd values.
func padHeads(x []float32, heads, dim, pd int) []float32 {
	rows := len(x) / (heads * dim)
	out := make([]float32, rows*heads*pd)
	for r := range rows {
		for h := range heads {
			copy(out[(r*heads+h)*pd:], x[(r*heads+h)*dim:(r*heads+h+1)*dim])
		}
	}
	return out
}

// unpadHeads is padHeads undone: the first dim values of each head of pd.
func unpadHeads(x []float32, heads, pd, dim int) []float32 {
	rows := len(x) / (heads * pd)
	out := make([]float32, rows*heads*dim)
	for r := range rows {
		for h := range heads {
			copy(out[(r*heads+h)*dim:(r*heads+h+1)*dim], x[(r*heads+h)*pd:])
		}
	}
	return out
}

// flash runs the backend's attention of the n rows of q over the keys and
// values of k and v, heads of hd values each (of which the first dim are
// not padding: the scale is 1/√dim).
func (o *ops) flash(q, k, v kernels.Tensor, n, heads, hd, dim int) kernels.Tensor {
	rows := make([]int32, n)
	pos := make([]int32, n)
	for i := range rows {
		rows[i], pos[i] = int32(i), int32(n-1)
	}
	k16 := o.new(quant.TypeF16, heads*hd, n)
	v16 := o.new(quant.TypeF16, heads*hd, n)
	if o.err == nil {
		o.fail(o.b.SetRows(k16, k, rows))
	}
	if o.err == nil {
		o.fail(o.b.SetRows(v16, v, rows))
	}
	y := o.new(quant.TypeF32, heads*hd, n)
	if o.err == nil {
		p := kernels.AttentionParams{Heads: heads, KVHeads: heads, HeadDim: hd, ValueDim: hd,
			Scale: 1 / float32(math.Sqrt(float64(dim)))}
		o.fail(o.b.Attention(y, q, kernels.KV{K: k16, V: v16, Len: n, Size: n}, pos, p))
	}
	return y
}
