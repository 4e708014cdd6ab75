package model

import (
	"context"
	"fmt"

	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// Qwen3.5 (llama.cpp's src/models/qwen35.cpp and qwen35moe.cpp): layers
// that are gated delta nets (linear attention) except every
// full_attention_interval-th, a gated full attention. Each layer norms its
// input (attn_norm), adds its mixer's output to the residual, then norms
// that (post_attention_norm) into a SwiGLU feed-forward network, or in
// qwen35moe a mixture of experts beside a shared expert gated by the
// sigmoid of its own projection.
//
// A delta-net layer projects q, k and v in one matrix (attn_qkv) through a
// causal depthwise convolution of ssm.conv_kernel taps and a SiLU, whose
// window is part of the layer's state; q and k have ssm.group_count heads
// and v ssm.time_step_rank heads, all ssm.state_size long, value head h
// reading key head h mod group_count. The gated delta rule
// (kernels.Backend.GatedDeltaNet) L2-normalizes q and k, takes the decay's
// log softplus(α + dt_bias)·ssm_a from ssm_alpha and the update strength
// sigmoid(β) from ssm_beta, and keeps each value head's state matrix. Its
// output, RMS-normed per head (ssm_norm) and gated by SiLU(z) of attn_gate,
// goes through ssm_out.
//
// An attention layer's attn_q makes, per head, the query then an output
// gate: the query and the key are RMS-normed per head and rotated (IMRoPE
// with text positions, which is NeoX rope over rope.dimension_count
// dimensions), and the attention's output is multiplied by the sigmoid of
// the gate before attn_output.
//
// Qwen3-Next (llama.cpp's src/models/qwen3next.cpp) is Qwen3.5 with
// experts, rope over the text positions alone, β and α in one projection
// (ssm_ba: per key head, its value heads' β then their α) and value
// head h reading key head h/(value heads/key heads): q and k are repeated
// head by head to the value heads first, as llama.cpp's graph does. Files
// from before attn_qkv and attn_gate (one interleaved ssm_in) are refused.
//
// Here the convolution runs as three, over the q, k and v channels (it is
// depthwise, so the split changes nothing), each with its own window: the
// projections need not be split by columns.

func init() {
	register("qwen35", loadQwen35)
	register("qwen35moe", loadQwen35)
	register("qwen3next", loadQwen35)
}

// qwen35Layer is one layer: a delta net (inQ set) or attention.
type qwen35Layer struct {
	attnNorm, postNorm kernels.Tensor
	ffn                denseFFN
	moe                *moeFFN
	// Delta net: the q, k and v parts of attn_qkv and of the convolution's
	// taps (kernels.Backend.ShortConv's layout), the gate z, β and α
	// projections, the output norm and projection.
	inQ, inK, inV, tapsQ, tapsK, tapsV kernels.Tensor
	z, beta, alpha, ssmNorm, ssmOut    kernels.Tensor
	dn                                 kernels.DeltaNetParams
	// Qwen3-Next: β and α in one projection, and the key heads repeated
	// to the value heads (dn then has as many of each).
	ba     kernels.Tensor
	kHeads int
	// Attention: attn_q makes each head's query then its gate.
	wq, wk, wv, wo, qNorm, kNorm kernels.Tensor
	attn                         kernels.AttentionParams
}

type qwen35 struct {
	base
	layers []qwen35Layer
	rope   kernels.RopeParams
}

// qwen35Net is the delta net's size: key and value heads of dim values,
// and the convolution's taps.
type qwen35Net struct {
	kHeads, vHeads, dim, taps int
}

// deltaNetHParams reads the delta net's keys (llama.cpp's ssm.*): the
// convolution's kernel, the heads and their length. The inner size must
// be the value heads' total, as llama.cpp's state assumes.
func (ld *loader) deltaNetHParams() qwen35Net {
	get := func(name string) int {
		v, err := ld.f.Uint("%s." + name)
		return ld.required(name, v, err)
	}
	n := qwen35Net{taps: get("ssm.conv_kernel"), dim: get("ssm.state_size"),
		vHeads: get("ssm.time_step_rank"), kHeads: get("ssm.group_count")}
	inner := get("ssm.inner_size")
	switch {
	case ld.err != nil:
	case n.taps < 2:
		ld.fail(fmt.Errorf("hyperparameter ssm.conv_kernel = %d: a convolution needs at least 2 taps", n.taps))
	case n.kHeads <= 0 || n.vHeads%n.kHeads != 0:
		ld.fail(fmt.Errorf("hyperparameters ssm.time_step_rank = %d, ssm.group_count = %d: value heads must be a multiple of key heads", n.vHeads, n.kHeads))
	case inner != n.vHeads*n.dim:
		ld.fail(fmt.Errorf("hyperparameter ssm.inner_size = %d, not %d value heads of %d", inner, n.vHeads, n.dim))
	}
	return n
}

// loadQwen35 reads a Qwen3.5 model, dense or with experts: the layers
// before the last full_attention_interval-th of each period are delta
// nets. Multi-token prediction layers beyond nextn_predict_layers' count
// are not run (nor read).
func loadQwen35(ld *loader) (arch, error) {
	m := &qwen35{base: ld.loadBase()}
	if ld.err != nil {
		return nil, ld.err
	}
	val, err := ld.f.Uint("%s.nextn_predict_layers")
	if nextn := ld.orDefault(val, err, 0); nextn > 0 && nextn < m.hp.Layers {
		m.hp.Layers -= nextn
		m.backends = m.backends[:m.hp.Layers]
	}
	val, err = ld.f.Uint("%s.full_attention_interval")
	interval := ld.orDefault(val, err, 4)
	if ld.err == nil && interval <= 0 {
		ld.fail(fmt.Errorf("hyperparameter full_attention_interval = %d", interval))
	}
	net := ld.deltaNetHParams()
	hp := &m.hp
	next := hp.Arch == "qwen3next"
	nff, r := 0, router{}
	if hp.Arch == "qwen35moe" || next {
		nff, r = ld.llamaFFN(hp, llamaVariant{moe: true, shared: true})
		r.norm, r.scale = true, ld.floatOr("%s.expert_weights_scale", 0)
	} else {
		hp.FFN = ld.ffnRows()
		nff = hp.FFN
	}
	if ld.err != nil {
		return nil, ld.err
	}
	e, hd := hp.Embd, hp.HeadDim
	qDim, kvDim := hp.Heads*hd, hp.KVHeads*hd
	key, value := net.kHeads*net.dim, net.vHeads*net.dim
	scale := hp.attnScale
	if scale == 0 {
		scale = invSqrt(hd)
	}
	for i := range hp.Layers {
		b := m.backends[i]
		p := fmt.Sprintf("blk.%d.", i)
		l := qwen35Layer{
			attnNorm: ld.tensor(b, p+"attn_norm.weight", e),
			postNorm: ld.tensor(b, p+"post_attention_norm.weight", e),
		}
		if (i+1)%interval != 0 {
			in := p + "attn_qkv.weight"
			if ld.has(p+"ssm_in.weight") && !ld.has(in) {
				ld.fail(fmt.Errorf("tensor %sssm_in.weight: Qwen3-Next's interleaved projection of GGUF files before attn_qkv is not supported (convert the model again)", p))
			}
			if _, s, ok := ld.shapeOf(in); ok && !sameDims(s, []int{e, 2*key + value}) {
				ld.fail(fmt.Errorf("tensor %s has shape %v, want %v", in, s, []int{e, 2*key + value}))
			}
			l.inQ = ld.rowRange(b, in, e, 0, key)
			l.inK = ld.rowRange(b, in, e, key, key)
			l.inV = ld.rowRange(b, in, e, 2*key, value)
			taps := ld.convTapsSplit(b, p+"ssm_conv1d.weight", net.taps, key, key, value)
			if len(taps) == 3 {
				l.tapsQ, l.tapsK, l.tapsV = taps[0], taps[1], taps[2]
			}
			l.z = ld.tensor(b, p+"attn_gate.weight", e, value)
			if next {
				l.ba = ld.tensor(b, p+"ssm_ba.weight", e, 2*net.vHeads)
				l.kHeads = net.kHeads
			} else {
				l.beta = ld.tensor(b, p+"ssm_beta.weight", e, net.vHeads)
				l.alpha = ld.tensor(b, p+"ssm_alpha.weight", e, net.vHeads)
			}
			l.ssmNorm = ld.tensor(b, p+"ssm_norm.weight", net.dim)
			l.ssmOut = ld.tensor(b, p+"ssm_out.weight", value, e)
			l.dn = kernels.DeltaNetParams{Heads: net.vHeads, KHeads: net.kHeads, HeadDim: net.dim, NormEps: hp.eps,
				A: ld.floats(p+"ssm_a", net.vHeads), DtBias: ld.floats(p+"ssm_dt.bias", net.vHeads), BetaLogits: true}
			if next {
				l.dn.KHeads = net.vHeads
			}
			if ld.err == nil && !ld.describe && l.dn.A == nil {
				ld.fail(fmt.Errorf("tensor %sssm_a is missing", p))
			}
			w := net.taps - 1
			m.recurrent = append(m.recurrent, RecurrentLayer{Layer: i, States: []StateSpec{
				{Name: "conv_q", Rows: w, Cols: key}, {Name: "conv_k", Rows: w, Cols: key}, {Name: "conv_v", Rows: w, Cols: value},
				{Name: "delta", Rows: net.vHeads * net.dim, Cols: net.dim},
			}})
		} else {
			l.wq = ld.tensor(b, p+"attn_q.weight", e, 2*qDim)
			l.wk = ld.tensor(b, p+"attn_k.weight", e, kvDim)
			l.wv = ld.tensor(b, p+"attn_v.weight", e, kvDim)
			l.wo = ld.tensor(b, p+"attn_output.weight", qDim, e)
			l.qNorm = ld.tensor(b, p+"attn_q_norm.weight", hd)
			l.kNorm = ld.tensor(b, p+"attn_k_norm.weight", hd)
			l.attn = kernels.AttentionParams{Heads: hp.Heads, KVHeads: hp.KVHeads, HeadDim: hd, ValueDim: hp.ValueDim, Scale: scale}
		}
		if hp.Experts > 0 {
			l.moe = ld.moe(b, p, *hp, r, nff, hp.SharedFFN)
			if l.moe != nil {
				l.moe.sigmoidGate = true
			}
		} else {
			l.ffn = ld.gatedFFN(b, p, "", e, nff)
		}
		m.layers = append(m.layers, l)
	}
	m.rope = hp.rope(true)
	if ld.err != nil {
		return nil, ld.err
	}
	return m, nil
}

// convTapsSplit reads a convolution's weight of k taps for each channel
// ([k, channels]: LFM2's shortconv.conv, Qwen3.5's ssm_conv1d) as one F32
// tensor of k rows per part, parts being consecutive channel counts
// (Backend.ShortConv's layout: row j holds each channel's j-th tap).
// Describing, it checks the shape only.
func (ld *loader) convTapsSplit(b kernels.Backend, name string, k int, parts ...int) []kernels.Tensor {
	c := 0
	for _, n := range parts {
		c += n
	}
	if _, s, ok := ld.shapeOf(name); ok && !sameDims(s, []int{k, c}) {
		ld.fail(fmt.Errorf("tensor %s has shape %v, want %v", name, s, []int{k, c}))
	}
	if !ld.has(name) {
		ld.fail(fmt.Errorf("tensor %s is missing", name))
	}
	w := ld.floats(name, k*c)
	if w == nil || ld.err != nil {
		return nil
	}
	var out []kernels.Tensor
	from := 0
	for _, n := range parts {
		taps := make([]float32, k*n)
		for ch := range n {
			for j := range k {
				taps[j*n+ch] = w[(from+ch)*k+j]
			}
		}
		t, err := b.New(quant.TypeF32, n, k)
		if err == nil {
			err = b.Write(t, taps)
		}
		if err != nil {
			ld.fail(fmt.Errorf("tensor %s: %w", name, err))
			return nil
		}
		out = append(out, t)
		from += n
	}
	return out
}

// forward runs a step through the model.
func (m *qwen35) forward(ctx context.Context, st *step) ([]float32, error) {
	g, pos, eps := m.graph(), st.pos, m.hp.eps
	x := g.embed(m.tokEmbd, st.tokens)
	for i, l := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = g.on(m.backends[i], x)

		h := g.norm(x, l.attnNorm, eps)
		if l.inQ != nil {
			h = g.deltaNetLayer(h, &l, st.recurrentLayer(i), eps)
		} else {
			q, gate := g.queryGate(g.linear(h, l.wq, nil), l.attn.Heads, l.attn.HeadDim)
			q = g.norm(q, l.qNorm, eps)
			k := g.norm(g.linear(h, l.wk, nil), l.kNorm, eps)
			v := g.linear(h, l.wv, nil)
			q = g.rope(q, pos, m.rope)
			k = g.rope(k, pos, m.rope)
			h = g.linear(g.mul(g.attend(q, k, v, st.layer(i), l.attn), gate), l.wo, nil)
		}
		x = g.add(x, h)
		h = g.norm(x, l.postNorm, eps)
		if l.moe != nil {
			h = g.moe(h, l.moe, kernels.SiLU)
		} else {
			h = g.ffn(h, &l.ffn, kernels.SiLU)
		}
		x = g.add(h, x)
	}
	return m.head(g, x, st, eps)
}

// deltaNetLayer runs a Qwen3.5 delta-net layer's mixer on h (normed) with
// the layer's states s: the convolved and SiLU'd q, k and v through the
// gated delta rule, the per-head norm gated by SiLU(z), and ssm_out.
func (g *graph) deltaNetLayer(h kernels.Tensor, l *qwen35Layer, s layerState, eps float32) kernels.Tensor {
	q := g.silu(g.shortConv(g.linear(h, l.inQ, nil), l.tapsQ, s.states[0], s.seqs))
	k := g.silu(g.shortConv(g.linear(h, l.inK, nil), l.tapsK, s.states[1], s.seqs))
	v := g.silu(g.shortConv(g.linear(h, l.inV, nil), l.tapsV, s.states[2], s.seqs))
	z := g.linear(h, l.z, nil)
	var beta, alpha kernels.Tensor
	if l.ba != nil {
		beta, alpha = g.betaAlpha(g.linear(h, l.ba, nil), l.kHeads, l.dn.Heads/l.kHeads)
		q, k = g.repeatHeads(q, l.kHeads, l.dn.Heads/l.kHeads), g.repeatHeads(k, l.kHeads, l.dn.Heads/l.kHeads)
	} else {
		beta, alpha = g.linear(h, l.beta, nil), g.linear(h, l.alpha, nil)
	}
	o := g.deltaNet(q, k, v, alpha, beta, s.states[3], s.seqs, l.dn)
	return g.linear(g.glu(z, g.norm(o, l.ssmNorm, eps), kernels.SiLU), l.ssmOut, nil)
}

// deltaNet runs the gated delta rule over the sequences of the step,
// each from and to its slot of states.
func (g *graph) deltaNet(q, k, v, alpha, beta, states kernels.Tensor, seqs []kernels.ConvSeq, p kernels.DeltaNetParams) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	y := g.new(kernels.Cols(v), kernels.Rows(v))
	if g.err == nil {
		g.fail(g.b.GatedDeltaNet(y, q, k, v, alpha, beta, states, recurrentSeqs(seqs), p))
	}
	return y
}

// queryGate splits the output of a gated attention's query projection,
// each head's query followed by its gate, into the queries and the
// sigmoid of the gates (ggml_sigmoid, on the host).
func (g *graph) queryGate(qg kernels.Tensor, heads, hd int) (q, gate kernels.Tensor) {
	all := g.host(qg)
	if g.err != nil {
		return nil, nil
	}
	n := kernels.Rows(qg)
	qs, gs := make([]float32, n*heads*hd), make([]float32, n*heads*hd)
	for r := range n {
		for h := range heads {
			src := all[(r*heads+h)*2*hd:]
			dst := (r*heads + h) * hd
			copy(qs[dst:dst+hd], src[:hd])
			for j, v := range src[hd : 2*hd] {
				gs[dst+j] = cpu.Sigmoid(v)
			}
		}
	}
	return g.upload(qs, heads*hd, n), g.upload(gs, heads*hd, n)
}

// betaAlpha splits Qwen3-Next's joint projection of β and α (per key head,
// its r value heads' β then their α) into β and α of the value heads in
// order, on the host.
func (g *graph) betaAlpha(ba kernels.Tensor, kHeads, r int) (beta, alpha kernels.Tensor) {
	all := g.host(ba)
	if g.err != nil {
		return nil, nil
	}
	n, nv := kernels.Rows(ba), kHeads*r
	bs, as := make([]float32, n*nv), make([]float32, n*nv)
	for t := range n {
		for h := range kHeads {
			src := all[(t*kHeads+h)*2*r:]
			copy(bs[t*nv+h*r:][:r], src[:r])
			copy(as[t*nv+h*r:][:r], src[r:2*r])
		}
	}
	return g.upload(bs, nv, n), g.upload(as, nv, n)
}

// repeatHeads returns x's heads (kHeads per row) each repeated r times in
// a row, on the host: ggml_repeat_4d of the heads as Qwen3-Next's graph
// does before the delta net.
func (g *graph) repeatHeads(x kernels.Tensor, kHeads, r int) kernels.Tensor {
	if r == 1 {
		return x
	}
	all := g.host(x)
	if g.err != nil {
		return nil
	}
	n, hd := kernels.Rows(x), kernels.Cols(x)/kHeads
	out := make([]float32, 0, len(all)*r)
	for t := range n {
		for h := range kHeads {
			head := all[(t*kHeads+h)*hd:][:hd]
			for range r {
				out = append(out, head...)
			}
		}
	}
	return g.upload(out, kHeads*r*hd, n)
}

// upload returns a new activation of rows rows of cols values holding
// vals.
func (g *graph) upload(vals []float32, cols, rows int) kernels.Tensor {
	t := g.new(cols, rows)
	if g.err == nil {
		g.fail(g.b.Write(t, vals))
	}
	return t
}
