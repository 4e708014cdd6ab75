package model

import (
	"context"
	"fmt"

	"saji/kernels"
)

// OLMo 2 (llama.cpp's src/models/olmo2.cpp): no norm before attention or
// the feed-forward network; instead RMSNorm after each, on the branch
// before it joins the residual stream. q and k are normalized over the
// whole row (all heads together, one weight of n_embd and of the KV row),
// not per head; rotation is NeoX; there are no biases and the output
// matrix is separate. With attention.sliding_window (OLMo 3), every layer
// but each fourth is local and rotates without rope scaling.

func init() { register("olmo2", loadOlmo2) }

type olmo2Layer struct {
	wq, wk, wv, wo       kernels.Tensor
	qNorm, kNorm         kernels.Tensor
	postAttnNorm         kernels.Tensor
	ffnGate, ffnUp, down kernels.Tensor
	postFFNNorm          kernels.Tensor
	rope                 kernels.RopeParams
	attn                 kernels.AttentionParams
}

type olmo2 struct {
	base
	layers []olmo2Layer
}

func loadOlmo2(ld *loader) (arch, error) {
	m := &olmo2{base: ld.loadBase()}
	hp := m.hp
	if ld.err != nil {
		return nil, ld.err
	}
	if !ld.has("output.weight") {
		return nil, fmt.Errorf("tensor output.weight is missing")
	}
	m.windows = hp.swaLayers(4)
	qDim, kvDim, vDim := hp.Heads*hp.HeadDim, hp.KVHeads*hp.HeadDim, hp.KVHeads*hp.ValueDim
	nff := ld.ffnRows()
	m.hp.FFN = nff
	for i := range hp.Layers {
		b := m.backends[i]
		p := fmt.Sprintf("blk.%d.", i)
		l := olmo2Layer{
			wq:           ld.tensor(b, p+"attn_q.weight", hp.Embd, qDim),
			wk:           ld.tensor(b, p+"attn_k.weight", hp.Embd, kvDim),
			wv:           ld.tensor(b, p+"attn_v.weight", hp.Embd, vDim),
			wo:           ld.tensor(b, p+"attn_output.weight", hp.Heads*hp.ValueDim, hp.Embd),
			qNorm:        ld.tensor(b, p+"attn_q_norm.weight", qDim),
			kNorm:        ld.tensor(b, p+"attn_k_norm.weight", kvDim),
			postAttnNorm: ld.tensor(b, p+"post_attention_norm.weight", hp.Embd),
			ffnGate:      ld.tensor(b, p+"ffn_gate.weight", hp.Embd, nff),
			ffnUp:        ld.tensor(b, p+"ffn_up.weight", hp.Embd, nff),
			down:         ld.tensor(b, p+"ffn_down.weight", nff, hp.Embd),
			postFFNNorm:  ld.tensor(b, p+"post_ffw_norm.weight", hp.Embd),
			rope:         kernels.RopeParams{HeadDim: hp.HeadDim, Dims: hp.ropeDims, Base: hp.ropeBase, FreqScale: hp.ropeScale, Neox: true},
			attn: kernels.AttentionParams{Heads: hp.Heads, KVHeads: hp.KVHeads, HeadDim: hp.HeadDim, ValueDim: hp.ValueDim,
				Scale: invSqrt(hp.HeadDim), Window: m.windows[i]},
		}
		if l.attn.Window > 0 {
			l.rope.FreqScale = 1 // the global base still: llama.cpp's graph ignores rope.freq_base_swa
		}
		m.layers = append(m.layers, l)
	}
	if ld.err != nil {
		return nil, ld.err
	}
	return m, nil
}

// forward runs a step through the model.
func (m *olmo2) forward(ctx context.Context, st *step) ([]float32, error) {
	g, tokens, pos := m.graph(), st.tokens, st.pos
	eps := m.hp.eps
	x := g.embed(m.tokEmbd, tokens)
	for i, l := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = g.on(m.backends[i], x)

		q := g.norm(g.linear(x, l.wq, nil), l.qNorm, eps)
		k := g.norm(g.linear(x, l.wk, nil), l.kNorm, eps)
		v := g.linear(x, l.wv, nil)
		q = g.rope(q, pos, l.rope)
		k = g.rope(k, pos, l.rope)
		a := g.attend(q, k, v, st.layer(i), l.attn)
		x = g.add(x, g.norm(g.linear(a, l.wo, nil), l.postAttnNorm, eps))
		if x = m.outputsOnly(g, x, st, i); x == nil {
			break
		}

		h := g.glu(g.linear(x, l.ffnGate, nil), g.linear(x, l.ffnUp, nil), kernels.SiLU)
		x = g.add(x, g.norm(g.linear(h, l.down, nil), l.postFFNNorm, eps))
	}
	return m.head(g, x, st, eps)
}
