package model

import (
	"context"
	"errors"
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

//
// nemotron_h_moe (Nemotron 3) is the same with mixtures of experts in place
// of the feed-forward networks: a sigmoid router whose selection adds
// exp_probs_b, k experts of squared ReLU (up and down, no gate) weighed
// by the router's probabilities (normalized where expert_weights_norm
// says, times expert_weights_scale), plus a shared expert of squared ReLU.

func init() {
	register("nemotron_h", loadNemotronH)
	register("nemotron_h_moe", loadNemotronH)
}

// nemotronHLayer is one layer: a Mamba-2 mixer (ssm set), attention (attn
// set) or a feed-forward network (dense, or experts: moe set).
type nemotronHLayer struct {
	norm       kernels.Tensor
	ssm        *mamba2
	attn       *hybridAttention
	up, down   kernels.Tensor
	bUp, bDown kernels.Tensor // optional biases
	moe        *moeFFN        // instead of up and down (nemotron_h_moe)
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
	r := ld.nemotronHRouter(&m.hp)
	if ld.err != nil {
		return nil, ld.err
	}
	e := hp.Embd
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
		case ffn[i] > 0 && m.hp.Experts > 0:
			v, err := ld.f.Uint("%s.expert_feed_forward_length")
			nff := ld.orDefault(v, err, ffn[i])
			l.moe = ld.nemotronHMoE(b, p, m.hp, r, nff)
			m.hp.FFN = max(m.hp.FFN, nff)
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
			a := ld.hybridAttention(b, p, hp)
			l.attn = &a
			m.kDims[i], m.vDims[i] = hp.KVHeads*hp.HeadDim, hp.KVHeads*hp.ValueDim
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
		case l.attn != nil:
			h = g.attention(h, l.attn, st.layer(i), m.attn, nil, nil)
		case l.moe != nil:
			h = g.moeReluSqr(h, l.moe)
		default:
			h = g.linear(g.reluSqr(g.linear(h, l.up, l.bUp)), l.down, l.bDown)
		}
		x = g.add(h, x)
	}
	return m.head(g, x, st, eps)
}

// nemotronHRouter reads the expert counts into hp and returns the
// router of nemotron_h_moe's layers: sigmoid gating, the weights
// normalized where expert_weights_norm says and scaled by
// expert_weights_scale. A file with a latent projection of the experts'
// inputs (moe_latent_size) is refused.
func (ld *loader) nemotronHRouter(hp *hparams) router {
	ld.expertHParams(hp, hp.Arch == "nemotron_h_moe")
	if ld.err != nil || hp.Experts == 0 {
		return router{}
	}
	v, err := ld.f.Uint("%s.expert_shared_feed_forward_length")
	hp.SharedFFN = ld.required("expert_shared_feed_forward_length", v, err)
	v, err = ld.f.Uint("%s.moe_latent_size")
	if ld.orDefault(v, err, 0) > 0 {
		ld.fail(errors.New("hyperparameter moe_latent_size: experts on a latent projection are not supported"))
	}
	return router{used: hp.ExpertsUsed, gating: gateSigmoid, norm: ld.boolOr("%s.expert_weights_norm", false),
		scale: ld.floatOr("%s.expert_weights_scale", 0)}
}

// nemotronHMoE loads layer prefix p's experts (up and down, no gate) of
// nff values (expert_feed_forward_length, or the layer's
// feed_forward_length), their router and selection bias, and the shared
// expert (up and down).
func (ld *loader) nemotronHMoE(b kernels.Backend, p string, hp hparams, r router, nff int) *moeFFN {
	n, e, sh := hp.Experts, hp.Embd, hp.SharedFFN
	f := &moeFFN{
		router:   r,
		gateInp:  ld.tensor(b, p+"ffn_gate_inp.weight", e, n),
		probBias: ld.floats(p+"exp_probs_b.bias", n),
		up:       ld.experts(b, p+"ffn_up_exps.weight", e, nff, n),
		down:     ld.experts(b, p+"ffn_down_exps.weight", nff, e, n),
		shared: &denseFFN{
			up:   ld.tensor(b, p+"ffn_up_shexp.weight", e, sh),
			down: ld.tensor(b, p+"ffn_down_shexp.weight", sh, e),
		},
	}
	if !ld.has(p + "exp_probs_b.bias") {
		ld.fail(fmt.Errorf("tensor %sexp_probs_b.bias is missing", p))
	}
	return f
}

// moeReluSqr runs the rows of x (normed) through nemotron_h_moe's
// experts of f and its shared expert: each row's k experts
// down(relu(up·x)²), weighed and summed, plus the shared expert's.
func (g *graph) moeReluSqr(x kernels.Tensor, f *moeFFN) kernels.Tensor {
	logits := g.host(g.linear(x, f.gateInp, nil))
	if g.err != nil {
		return nil
	}
	ids, weights := f.route(logits, len(f.up), f.probBias)
	y := g.experts(g.reluSqr(g.experts(x, f.up, nil, ids)), f.down, nil, ids)
	out := g.weighted(y, weights, f.used)
	return g.add(out, g.linear(g.reluSqr(g.linear(x, f.shared.up, nil)), f.shared.down, nil))
}

// reluSqr returns relu(x)² (ggml_relu then ggml_sqr), as the backend's
// ReLU GLU with x as gate and up.
func (g *graph) reluSqr(x kernels.Tensor) kernels.Tensor {
	y := g.new(kernels.Cols(x), kernels.Rows(x))
	if g.err == nil {
		g.fail(g.b.GLU(y, x, x, kernels.ReLU))
	}
	return y
}
