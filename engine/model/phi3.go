package model

import (
	"context"
	"fmt"

	"saji/kernels"
)

// Phi-3 (llama.cpp's src/models/phi3.cpp): the Llama layer with fused
// weights. attn_qkv holds the q, k and v projections one after another, and
// ffn_up holds the gate and the up projection; both are split here into
// row ranges of the same mapped tensor, which multiply exactly as the fused
// matrix would. Queries are scaled before attention; rotation is NeoX, with
// the short rope factors when the file has them.

func init() { register("phi3", loadPhi3) }

type phi3Layer struct {
	attnNorm             kernels.Tensor
	wq, wk, wv, wo       kernels.Tensor
	bq, bk, bv, bo       kernels.Tensor
	ffnNorm              kernels.Tensor
	ffnGate, ffnUp, down kernels.Tensor
}

type phi3 struct {
	base
	layers     []phi3Layer
	rope       kernels.RopeParams
	attn       kernels.AttentionParams
	queryScale float32
}

func loadPhi3(ld *loader) (arch, error) {
	m := &phi3{base: ld.loadBase()}
	hp := m.hp
	if ld.err != nil {
		return nil, ld.err
	}
	qDim, kvDim, vDim := hp.Heads*hp.HeadDim, hp.KVHeads*hp.HeadDim, hp.KVHeads*hp.ValueDim
	nff := 0
	if _, s, ok := ld.shapeOf("blk.0.ffn_up.weight"); ok && len(s) == 2 {
		nff = s[1] / 2
	}
	for i := range hp.Layers {
		b := m.backends[i]
		p := fmt.Sprintf("blk.%d.", i)
		l := phi3Layer{
			attnNorm: ld.tensor(b, p+"attn_norm.weight", hp.Embd),
			wo:       ld.tensor(b, p+"attn_output.weight", qDim, hp.Embd),
			bo:       ld.optional(b, p+"attn_output.bias", hp.Embd),
			ffnNorm:  ld.tensor(b, p+"ffn_norm.weight", hp.Embd),
			down:     ld.tensor(b, p+"ffn_down.weight", nff, hp.Embd),
		}
		if ld.has(p + "attn_qkv.weight") {
			name := p + "attn_qkv.weight"
			l.wq = ld.rowRange(b, name, hp.Embd, 0, qDim)
			l.wk = ld.rowRange(b, name, hp.Embd, qDim, kvDim)
			l.wv = ld.rowRange(b, name, hp.Embd, qDim+kvDim, vDim)
			if bias := p + "attn_qkv.bias"; ld.has(bias) {
				l.bq = ld.rowRange(b, bias, 0, 0, qDim)
				l.bk = ld.rowRange(b, bias, 0, qDim, kvDim)
				l.bv = ld.rowRange(b, bias, 0, qDim+kvDim, vDim)
			}
		} else {
			l.wq = ld.tensor(b, p+"attn_q.weight", hp.Embd, qDim)
			l.wk = ld.tensor(b, p+"attn_k.weight", hp.Embd, kvDim)
			l.wv = ld.tensor(b, p+"attn_v.weight", hp.Embd, vDim)
		}
		// ffn_up is [gate; up]: the first half of its rows goes through SiLU.
		l.ffnGate = ld.rowRange(b, p+"ffn_up.weight", hp.Embd, 0, nff)
		l.ffnUp = ld.rowRange(b, p+"ffn_up.weight", hp.Embd, nff, nff)
		m.layers = append(m.layers, l)
	}
	m.hp.FFN = nff
	m.outBias = ld.optional(ld.backend, "output.bias", hp.Vocab)
	m.rope = kernels.RopeParams{
		HeadDim: hp.HeadDim, Dims: hp.ropeDims, Base: hp.ropeBase, FreqScale: hp.ropeScale, Neox: true,
		Factors: ld.floats("rope_factors_short.weight", hp.ropeDims/2),
	}
	m.attn = kernels.AttentionParams{
		Heads: hp.Heads, KVHeads: hp.KVHeads, HeadDim: hp.HeadDim, ValueDim: hp.ValueDim, Scale: 1,
	}
	m.queryScale = invSqrt(hp.HeadDim)
	if ld.err != nil {
		return nil, ld.err
	}
	return m, nil
}

// forward runs a step through the model.
func (m *phi3) forward(ctx context.Context, st *step) ([]float32, error) {
	g, tokens, pos := m.graph(), st.tokens, st.pos
	eps := m.hp.eps
	x := g.embed(m.tokEmbd, tokens)
	for i, l := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = g.on(m.backends[i], x)

		h := g.norm(x, l.attnNorm, eps)
		q := g.rope(g.linear(h, l.wq, l.bq), pos, m.rope)
		k := g.rope(g.linear(h, l.wk, l.bk), pos, m.rope)
		v := g.linear(h, l.wv, l.bv)
		q = g.scale(q, m.queryScale)
		a := g.attend(q, k, v, st.layer(i), m.attn)
		x = g.add(x, g.linear(a, l.wo, l.bo))
		if x = m.outputsOnly(g, x, st, i); x == nil {
			break
		}

		h = g.norm(x, l.ffnNorm, eps)
		h = g.glu(g.linear(h, l.ffnGate, nil), g.linear(h, l.ffnUp, nil), kernels.SiLU)
		x = g.add(x, g.linear(h, l.down, nil))
	}
	return m.head(g, x, st, eps)
}
