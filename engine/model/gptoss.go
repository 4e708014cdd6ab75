package model

import (
	"context"
	"fmt"

	"saji/kernels"
)

// gpt-oss (llama.cpp's src/models/openai-moe.cpp): pre-norm layers of
// grouped-query attention with biases on q, k, v and the output, a learned
// sink logit per head, NeoX rotation with YaRN, sliding-window layers
// alternating with global ones; and a mixture of experts whose router has a
// bias, weighs the chosen experts by the softmax of their logits alone,
// and whose experts have biases and gpt-oss's clamped SwiGLU.

func init() { register("gpt-oss", loadGPTOSS) }

type gptOSSLayer struct {
	attnNorm, postAttnNorm kernels.Tensor
	wq, wk, wv, wo         kernels.Tensor
	bq, bk, bv, bo         kernels.Tensor
	moe                    *moeFFN
	rope                   kernels.RopeParams
	attn                   kernels.AttentionParams
}

type gptOSS struct {
	base
	layers []gptOSSLayer
}

func loadGPTOSS(ld *loader) (arch, error) {
	m := &gptOSS{base: ld.loadBase()}
	hp := m.hp
	if ld.err != nil {
		return nil, ld.err
	}
	ld.expertHParams(&m.hp, true)
	v, err := ld.f.Uint("%s.expert_feed_forward_length")
	nff := ld.required(hp.Arch+".expert_feed_forward_length", v, err)
	v, err = ld.f.SlidingWindow()
	window := ld.required(hp.Arch+".attention.sliding_window", v, err)
	v, err = ld.f.Uint("%s.attention.sliding_window_pattern")
	period := ld.orDefault(v, err, 2)
	swaBase := ld.floatOr("%s.rope.freq_base_swa", hp.ropeBase)
	if ld.err != nil {
		return nil, ld.err
	}
	m.hp.FFN = nff
	r := router{used: m.hp.ExpertsUsed, gating: gateSoftmaxWeight}
	qDim, kvDim, vDim := hp.Heads*hp.HeadDim, hp.KVHeads*hp.HeadDim, hp.KVHeads*hp.ValueDim
	for i := range hp.Layers {
		b := m.backends[i]
		p := fmt.Sprintf("blk.%d.", i)
		l := gptOSSLayer{
			attnNorm:     ld.tensor(b, p+"attn_norm.weight", hp.Embd),
			wq:           ld.tensor(b, p+"attn_q.weight", hp.Embd, qDim),
			wk:           ld.tensor(b, p+"attn_k.weight", hp.Embd, kvDim),
			wv:           ld.tensor(b, p+"attn_v.weight", hp.Embd, vDim),
			wo:           ld.tensor(b, p+"attn_output.weight", hp.Heads*hp.ValueDim, hp.Embd),
			bq:           ld.optional(b, p+"attn_q.bias", qDim),
			bk:           ld.optional(b, p+"attn_k.bias", kvDim),
			bv:           ld.optional(b, p+"attn_v.bias", vDim),
			bo:           ld.tensor(b, p+"attn_output.bias", hp.Embd),
			postAttnNorm: ld.tensor(b, p+"post_attention_norm.weight", hp.Embd),
			moe:          ld.moe(b, p, m.hp, r, nff, 0),
			rope:         hp.rope(true),
			attn: kernels.AttentionParams{
				Heads: hp.Heads, KVHeads: hp.KVHeads, HeadDim: hp.HeadDim, ValueDim: hp.ValueDim,
				Scale: invSqrt(hp.HeadDim), Sinks: ld.floats(p+"attn_sinks.weight", hp.Heads),
			},
		}
		for _, bias := range []string{"ffn_gate_inp.bias", "ffn_up_exps.bias", "ffn_gate_exps.bias", "ffn_down_exps.bias"} {
			if ld.err == nil && !ld.has(p+bias) {
				ld.fail(fmt.Errorf("tensor %s%s is missing", p, bias))
			}
		}
		// Layer i slides unless it is the last of its period, as
		// llama.cpp's set_swa_pattern has it.
		if period == 0 || i%period < period-1 {
			l.attn.Window, l.rope.Base = window, swaBase
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
func (m *gptOSS) forward(ctx context.Context, st *step) ([]float32, error) {
	g, tokens, pos := m.graph(), st.tokens, st.pos
	eps := m.hp.eps
	x := g.embed(m.tokEmbd, tokens)
	for i, l := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = g.on(m.backends[i], x)

		h := g.norm(x, l.attnNorm, eps)
		q := g.rope(g.linear(h, l.wq, l.bq), pos, l.rope)
		k := g.rope(g.linear(h, l.wk, l.bk), pos, l.rope)
		v := g.linear(h, l.wv, l.bv)
		a := g.attend(q, k, v, st.layer(i), l.attn)
		x = g.add(x, g.linear(a, l.wo, l.bo))

		h = g.norm(x, l.postAttnNorm, eps)
		x = g.add(x, g.moe(h, l.moe, kernels.SwiGLUOAI))
	}
	return m.head(g, x, st, eps)
}
