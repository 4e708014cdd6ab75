package model

import (
	"context"
	"fmt"
	"math"

	"saji/kernels"
)

// Gemma 3 (llama.cpp's src/models/gemma3.cpp): embeddings scaled by
// √n_embd; RMSNorm before and after both attention and the feed-forward
// network; per-head RMSNorm of q and k; a GEGLU feed-forward network; and
// interleaved sliding-window layers (every layer but each pattern-th is
// local, with its own rope base) under global ones. Queries are scaled
// before attention, and the logits may be soft-capped.

func init() { register("gemma3", loadGemma3) }

type gemma3Layer struct {
	attnNorm, postAttnNorm kernels.Tensor
	wq, wk, wv, wo         kernels.Tensor
	qNorm, kNorm           kernels.Tensor
	ffnNorm, postFFNNorm   kernels.Tensor
	ffnGate, ffnUp, down   kernels.Tensor
	rope                   kernels.RopeParams
	attn                   kernels.AttentionParams
}

type gemma3 struct {
	base
	layers     []gemma3Layer
	embedScale float32
	queryScale float32
}

func loadGemma3(ld *loader) (arch, error) {
	m := &gemma3{base: ld.loadBase()}
	hp := m.hp
	if ld.err != nil {
		return nil, ld.err
	}
	window, err := ld.f.SlidingWindow()
	if err != nil {
		window = 0 // no sliding window: every layer is global
	}
	v, err := ld.f.Uint("%s.attention.sliding_window_pattern")
	period := ld.orDefault(v, err, 6)
	swaBase := ld.floatOr("%s.rope.freq_base_swa", 10000)
	m.softcap = ld.floatOr("%s.final_logit_softcapping", 0)
	m.embedScale = float32(math.Sqrt(float64(float32(hp.Embd))))
	// Gemma 3 27B (62 layers) scales queries by n_embd/n_head, the others
	// by the head length.
	m.queryScale = invSqrt(hp.HeadDim)
	if hp.Layers == 62 {
		m.queryScale = invSqrt(hp.Embd / hp.Heads)
	}
	qDim, kvDim, vDim := hp.Heads*hp.HeadDim, hp.KVHeads*hp.HeadDim, hp.KVHeads*hp.ValueDim
	nff := 0
	if _, s, ok := ld.shapeOf("blk.0.ffn_up.weight"); ok && len(s) == 2 {
		nff = s[1]
	}
	m.hp.FFN = nff
	for i := range hp.Layers {
		b := m.backends[i]
		p := fmt.Sprintf("blk.%d.", i)
		l := gemma3Layer{
			attnNorm:     ld.tensor(b, p+"attn_norm.weight", hp.Embd),
			wq:           ld.tensor(b, p+"attn_q.weight", hp.Embd, qDim),
			wk:           ld.tensor(b, p+"attn_k.weight", hp.Embd, kvDim),
			wv:           ld.tensor(b, p+"attn_v.weight", hp.Embd, vDim),
			wo:           ld.tensor(b, p+"attn_output.weight", hp.Heads*hp.ValueDim, hp.Embd),
			qNorm:        ld.tensor(b, p+"attn_q_norm.weight", hp.HeadDim),
			kNorm:        ld.tensor(b, p+"attn_k_norm.weight", hp.HeadDim),
			postAttnNorm: ld.tensor(b, p+"post_attention_norm.weight", hp.Embd),
			ffnNorm:      ld.tensor(b, p+"ffn_norm.weight", hp.Embd),
			ffnGate:      ld.tensor(b, p+"ffn_gate.weight", hp.Embd, nff),
			ffnUp:        ld.tensor(b, p+"ffn_up.weight", hp.Embd, nff),
			down:         ld.tensor(b, p+"ffn_down.weight", nff, hp.Embd),
			postFFNNorm:  ld.tensor(b, p+"post_ffw_norm.weight", hp.Embd),
		}
		// Layer i is local (sliding window) unless it is the last of its
		// period, as llama.cpp's set_swa_pattern has it.
		local := window > 0 && (period == 0 || i%period < period-1)
		l.rope = kernels.RopeParams{HeadDim: hp.HeadDim, Dims: hp.ropeDims, Base: hp.ropeBase, FreqScale: hp.ropeScale, Neox: true}
		l.attn = kernels.AttentionParams{
			Heads: hp.Heads, KVHeads: hp.KVHeads, HeadDim: hp.HeadDim, ValueDim: hp.ValueDim, Scale: 1,
		}
		if local {
			l.rope.Base, l.rope.FreqScale = swaBase, 1
			l.attn.Window = int(window)
		}
		m.layers = append(m.layers, l)
		m.windows = append(m.windows, l.attn.Window)
	}
	if ld.err != nil {
		return nil, ld.err
	}
	return m, nil
}

// forward runs a step through the model.
func (m *gemma3) forward(ctx context.Context, st *step) ([]float32, error) {
	g, tokens, pos := m.graph(), st.tokens, st.pos
	eps := m.hp.eps
	x := g.scale(g.embed(m.tokEmbd, tokens), m.embedScale)
	for i, l := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = g.on(m.backends[i], x)

		h := g.norm(x, l.attnNorm, eps)
		q := g.norm(g.linear(h, l.wq, nil), l.qNorm, eps)
		k := g.norm(g.linear(h, l.wk, nil), l.kNorm, eps)
		v := g.linear(h, l.wv, nil)
		q = g.scale(g.rope(q, pos, l.rope), m.queryScale)
		k = g.rope(k, pos, l.rope)
		a := g.attend(q, k, v, st.layer(i), l.attn)
		x = g.add(x, g.norm(g.linear(a, l.wo, nil), l.postAttnNorm, eps))

		h = g.norm(x, l.ffnNorm, eps)
		h = g.glu(g.linear(h, l.ffnGate, nil), g.linear(h, l.ffnUp, nil), kernels.GELU)
		x = g.add(x, g.norm(g.linear(h, l.down, nil), l.postFFNNorm, eps))
	}
	return m.head(g, x, st, eps)
}
