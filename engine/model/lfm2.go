package model

import (
	"context"
	"fmt"

	"saji/kernels"
)

// LFM2 (llama.cpp's src/models/lfm2.cpp): pre-norm layers that are either
// gated short convolutions or grouped-query attention, each followed by a
// SwiGLU feed-forward network. A layer whose attention.head_count_kv entry
// is 0 is a convolution: in_proj makes three rows of the hidden size, B, C
// and x; B⊙x runs through a causal depthwise convolution of
// shortconv.l_cache taps over the sequence's last l_cache-1 inputs (the
// layer's recurrent state), C gates its output and out_proj brings it
// back. Attention layers normalize each query and key head before a NeoX
// rotation; with attention.sliding_window they are all local. The output
// norm is the file's token_embd_norm.

func init() { register("lfm2", loadLFM2) }

// lfm2Layer is one layer: a convolution (inProj set) or attention.
type lfm2Layer struct {
	attnNorm, ffnNorm kernels.Tensor
	ffn               denseFFN
	// Convolution: in_proj's three parts, the taps (K rows of the hidden
	// size, the transpose of the file's conv weight) and out_proj.
	inB, inC, inX, taps, outProj kernels.Tensor
	// Attention.
	wq, wk, wv, wo, qNorm, kNorm kernels.Tensor
	attn                         kernels.AttentionParams
}

type lfm2 struct {
	base
	layers []lfm2Layer
	rope   kernels.RopeParams
}

// loadLFM2 reads an LFM2 model: the per-layer KV head counts say which
// layers are convolutions, shortconv.l_cache their kernel size.
func loadLFM2(ld *loader) (arch, error) {
	ld.outNorm = "token_embd_norm.weight"
	m := &lfm2{base: ld.loadBase()}
	hp := m.hp
	if ld.err != nil {
		return nil, ld.err
	}
	val, err := ld.f.Uint("%s.shortconv.l_cache")
	k := ld.required("shortconv.l_cache", val, err)
	if ld.err == nil && k < 2 {
		ld.fail(fmt.Errorf("hyperparameter shortconv.l_cache = %d: a convolution needs at least 2 taps", k))
	}
	if ld.err != nil {
		return nil, ld.err
	}
	e := hp.Embd
	qDim, kvDim := hp.Heads*hp.HeadDim, hp.KVHeads*hp.HeadDim
	nff := ld.ffnRows()
	m.hp.FFN = nff
	m.windows = make([]int, hp.Layers)
	for i := range hp.Layers {
		b := m.backends[i]
		p := fmt.Sprintf("blk.%d.", i)
		l := lfm2Layer{
			attnNorm: ld.tensor(b, p+"attn_norm.weight", e),
			ffnNorm:  ld.tensor(b, p+"ffn_norm.weight", e),
			ffn:      ld.gatedFFN(b, p, "", e, nff),
		}
		if hp.layerKVHeads != nil && hp.layerKVHeads[i] == 0 {
			in := p + "shortconv.in_proj.weight"
			if _, s, ok := ld.shapeOf(in); ok && !sameDims(s, []int{e, 3 * e}) {
				ld.fail(fmt.Errorf("tensor %s has shape %v, want %v", in, s, []int{e, 3 * e}))
			}
			l.inB = ld.rowRange(b, in, e, 0, e)
			l.inC = ld.rowRange(b, in, e, e, e)
			l.inX = ld.rowRange(b, in, e, 2*e, e)
			l.taps = ld.convTaps(b, p+"shortconv.conv.weight", k, e)
			l.outProj = ld.tensor(b, p+"shortconv.out_proj.weight", e, e)
			m.recurrent = append(m.recurrent, RecurrentLayer{Layer: i, States: []StateSpec{{Name: "conv", Rows: k - 1, Cols: e}}})
		} else {
			l.wq = ld.tensor(b, p+"attn_q.weight", e, qDim)
			l.wk = ld.tensor(b, p+"attn_k.weight", e, kvDim)
			l.wv = ld.tensor(b, p+"attn_v.weight", e, kvDim)
			l.wo = ld.tensor(b, p+"attn_output.weight", qDim, e)
			l.qNorm = ld.tensor(b, p+"attn_q_norm.weight", hp.HeadDim)
			l.kNorm = ld.tensor(b, p+"attn_k_norm.weight", hp.HeadDim)
			m.windows[i] = hp.window
			l.attn = kernels.AttentionParams{Heads: hp.Heads, KVHeads: hp.KVHeads, HeadDim: hp.HeadDim, ValueDim: hp.ValueDim,
				Scale: invSqrt(hp.HeadDim), Window: hp.window}
		}
		m.layers = append(m.layers, l)
	}
	m.rope = hp.rope(true)
	if ld.err != nil {
		return nil, ld.err
	}
	return m, nil
}

// convTaps reads a short convolution's weight (a row of k taps for each of
// c channels) as an F32 tensor of k rows of c on backend b, the layout of
// kernels.Backend.ShortConv. Describing, it checks the shape only.
func (ld *loader) convTaps(b kernels.Backend, name string, k, c int) kernels.Tensor {
	if t := ld.convTapsSplit(b, name, k, c); len(t) == 1 {
		return t[0]
	}
	return nil
}

// forward runs a step through the model.
func (m *lfm2) forward(ctx context.Context, st *step) ([]float32, error) {
	g, pos, eps := m.graph(), st.pos, m.hp.eps
	x := g.embed(m.tokEmbd, st.tokens)
	for i, l := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = g.on(m.backends[i], x)

		h := g.norm(x, l.attnNorm, eps)
		if l.inB != nil {
			s := st.recurrentLayer(i)
			bx := g.mul(g.linear(h, l.inB, nil), g.linear(h, l.inX, nil))
			y := g.mul(g.linear(h, l.inC, nil), g.shortConv(bx, l.taps, s.states[0], s.seqs))
			h = g.linear(y, l.outProj, nil)
		} else {
			q := g.norm(g.linear(h, l.wq, nil), l.qNorm, eps)
			k := g.norm(g.linear(h, l.wk, nil), l.kNorm, eps)
			v := g.linear(h, l.wv, nil)
			q = g.rope(q, pos, m.rope)
			k = g.rope(k, pos, m.rope)
			h = g.linear(g.attend(q, k, v, st.layer(i), l.attn), l.wo, nil)
		}
		if x = m.outputsOnly(g, g.add(x, h), st, i); x == nil {
			break
		}
		x = g.add(x, g.ffn(g.norm(x, l.ffnNorm, eps), &l.ffn, kernels.SiLU))
	}
	return m.head(g, x, st, eps)
}
