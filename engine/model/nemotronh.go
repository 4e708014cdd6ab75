package model

import (
	"context"
	"fmt"

	"saji/kernels"
)

// Nemotron-H (llama.cpp's src/models/nemotron-h.cpp): pre-norm layers of
// one kind each, Mamba-2 mixers (granitehybrid.go's mamba2), attention
// without rotation, or a feed-forward network of squared ReLU
// (down(relu(up·x)²), no gate), each added to the residual stream. The
// per-layer arrays attention.head_count_kv and feed_forward_length say
// which: a layer with neither KV heads nor a feed-forward length is a
// Mamba-2 mixer, one with no feed-forward length attention, the others
// feed-forward networks. Only the attention layers keep keys and values.

func init() { register("nemotron_h", loadNemotronH) }

// nemotronHLayer is one layer: a Mamba-2 mixer (ssm set), attention (wq
// set) or a feed-forward network.
type nemotronHLayer struct {
	norm           kernels.Tensor
	ssm            *mamba2
	wq, wk, wv, wo kernels.Tensor
	bq, bk, bv, bo kernels.Tensor // optional biases
	up, down       kernels.Tensor
	bUp, bDown     kernels.Tensor // optional biases
}

type nemotronH struct {
	base
	layers []nemotronHLayer
	attn   kernels.AttentionParams
}

// loadNemotronH reads a Nemotron-H model.
func loadNemotronH(ld *loader) (arch, error) {
	m := &nemotronH{base: ld.loadBase()}
	hp := m.hp
	if ld.err != nil {
		return nil, ld.err
	}
	ssm := ld.mamba2HParams()
	ffn := ld.layerFFN(hp.Layers)
	if ld.err != nil {
		return nil, ld.err
	}
	e := hp.Embd
	qDim, kvDim, vDim := hp.Heads*hp.HeadDim, hp.KVHeads*hp.HeadDim, hp.KVHeads*hp.ValueDim
	m.kDims, m.vDims = make([]int, hp.Layers), make([]int, hp.Layers)
	for i := range hp.Layers {
		b := m.backends[i]
		p := fmt.Sprintf("blk.%d.", i)
		l := nemotronHLayer{norm: ld.tensor(b, p+"attn_norm.weight", e)}
		kvh := hp.KVHeads
		if hp.layerKVHeads != nil {
			kvh = hp.layerKVHeads[i]
		}
		switch {
		case ffn[i] > 0:
			l.up = ld.tensor(b, p+"ffn_up.weight", e, ffn[i])
			l.down = ld.tensor(b, p+"ffn_down.weight", ffn[i], e)
			l.bUp = ld.optional(b, p+"ffn_up.bias", ffn[i])
			l.bDown = ld.optional(b, p+"ffn_down.bias", e)
			m.hp.FFN = max(m.hp.FFN, ffn[i])
		case kvh == 0:
			l.ssm = ld.mamba2(b, p, e, ssm)
			m.recurrent = append(m.recurrent, RecurrentLayer{Layer: i, States: ssm.states()})
		default:
			l.wq = ld.tensor(b, p+"attn_q.weight", e, qDim)
			l.wk = ld.tensor(b, p+"attn_k.weight", e, kvDim)
			l.wv = ld.tensor(b, p+"attn_v.weight", e, vDim)
			l.wo = ld.tensor(b, p+"attn_output.weight", hp.Heads*hp.ValueDim, e)
			l.bq = ld.optional(b, p+"attn_q.bias", qDim)
			l.bk = ld.optional(b, p+"attn_k.bias", kvDim)
			l.bv = ld.optional(b, p+"attn_v.bias", vDim)
			l.bo = ld.optional(b, p+"attn_output.bias", e)
			m.kDims[i], m.vDims[i] = kvDim, vDim
		}
		m.layers = append(m.layers, l)
	}
	m.attn = kernels.AttentionParams{Heads: hp.Heads, KVHeads: hp.KVHeads, HeadDim: hp.HeadDim, ValueDim: hp.ValueDim,
		Scale: invSqrt(hp.HeadDim)}
	if hp.attnScale != 0 {
		m.attn.Scale = hp.attnScale
	}
	if ld.err != nil {
		return nil, ld.err
	}
	return m, nil
}

// layerFFN returns each layer's feed-forward length: the file's
// feed_forward_length array (0 for a layer without one), or its single
// value for every layer.
func (ld *loader) layerFFN(layers int) []int {
	const key = "%s.feed_forward_length"
	out := make([]int, layers)
	if !ld.isArray(key) {
		v, err := ld.f.FeedForwardLength()
		n := ld.orDefault(v, err, 0)
		for i := range out {
			out[i] = n
		}
		return out
	}
	ns, err := ld.f.Uint32s(key)
	switch {
	case err != nil:
		ld.fail(fmt.Errorf("hyperparameter feed_forward_length: %w", err))
	case len(ns) != layers:
		ld.fail(fmt.Errorf("hyperparameter feed_forward_length has %d layers' lengths, the model %d layers", len(ns), layers))
	default:
		for i, n := range ns {
			if n > 1<<30 {
				ld.fail(fmt.Errorf("hyperparameter feed_forward_length = %d is out of range", n))
				return out
			}
			out[i] = int(n)
		}
	}
	return out
}

// forward runs a step through the model.
func (m *nemotronH) forward(ctx context.Context, st *step) ([]float32, error) {
	g, eps := m.graph(), m.hp.eps
	x := g.embed(m.tokEmbd, st.tokens)
	for i, l := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = g.on(m.backends[i], x)

		h := g.norm(x, l.norm, eps)
		switch {
		case l.ssm != nil:
			h = g.mamba2(h, l.ssm, st.recurrentLayer(i), eps)
		case l.wq != nil:
			q := g.linear(h, l.wq, l.bq)
			k := g.linear(h, l.wk, l.bk)
			v := g.linear(h, l.wv, l.bv)
			h = g.linear(g.attend(q, k, v, st.layer(i), m.attn), l.wo, l.bo)
		default:
			h = g.linear(g.reluSqr(g.linear(h, l.up, l.bUp)), l.down, l.bDown)
		}
		x = g.add(h, x)
	}
	return m.head(g, x, st, eps)
}

// reluSqr returns relu(x)² (ggml_relu then ggml_sqr), computed on the host:
// no backend has the activation, and the squares are exact products.
func (g *graph) reluSqr(x kernels.Tensor) kernels.Tensor {
	v := g.host(x)
	if g.err != nil {
		return nil
	}
	for i, a := range v {
		if a > 0 {
			v[i] = a * a
		} else {
			v[i] = 0
		}
	}
	y := g.new(kernels.Cols(x), kernels.Rows(x))
	if g.err == nil {
		g.fail(g.b.Write(y, v))
	}
	return y
}
