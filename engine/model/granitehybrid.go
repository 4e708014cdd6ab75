package model

import (
	"context"
	"fmt"

	"saji/kernels"
)

// Granite 4 hybrid (llama.cpp's src/models/granite-hybrid.cpp): pre-norm
// layers that are either Mamba-2 mixers or grouped-query attention, each
// followed by a SwiGLU feed-forward network or a mixture of experts with a
// shared expert, under Granite's multipliers (granite.go): embedding_scale
// on the embeddings, residual_scale on each branch before it is added,
// attention.scale on the scores and logit_scale dividing the logits, each
// optional here. A layer whose attention.head_count_kv entry is 0 is a
// Mamba-2 mixer (mamba2 below); rope.scaling.finetuned false (Granite 4's
// attention without positions) turns the rotation off.

func init() { register("granitehybrid", loadGraniteHybrid) }

// graniteHybridLayer is one layer: a Mamba-2 mixer (ssm set) or attention,
// then a dense feed-forward network or a mixture of experts (moe set).
type graniteHybridLayer struct {
	attnNorm, ffnNorm kernels.Tensor
	ssm               *mamba2
	attn              hybridAttention
	ffn               denseFFN
	moe               *moeFFN
}

// hybridAttention is the attention layer of Granite 4 and Nemotron-H:
// grouped-query attention with optional biases, no norms.
type hybridAttention struct {
	wq, wk, wv, wo kernels.Tensor
	bq, bk, bv, bo kernels.Tensor // optional biases
}

// hybridAttention loads layer prefix p's attention on backend b.
func (ld *loader) hybridAttention(b kernels.Backend, p string, hp hparams) hybridAttention {
	e, qDim, kvDim, vDim := hp.Embd, hp.Heads*hp.HeadDim, hp.KVHeads*hp.HeadDim, hp.KVHeads*hp.ValueDim
	return hybridAttention{
		wq: ld.tensor(b, p+"attn_q.weight", e, qDim),
		wk: ld.tensor(b, p+"attn_k.weight", e, kvDim),
		wv: ld.tensor(b, p+"attn_v.weight", e, vDim),
		wo: ld.tensor(b, p+"attn_output.weight", hp.Heads*hp.ValueDim, e),
		bq: ld.optional(b, p+"attn_q.bias", qDim),
		bk: ld.optional(b, p+"attn_k.bias", kvDim),
		bv: ld.optional(b, p+"attn_v.bias", vDim),
		bo: ld.optional(b, p+"attn_output.bias", e),
	}
}

// attention returns the attention of the normed rows h over the layer's
// cache kv, q and k rotated by rope unless it is nil.
func (g *graph) attention(h kernels.Tensor, a *hybridAttention, kv layerKV, p kernels.AttentionParams, pos []int32, rope *kernels.RopeParams) kernels.Tensor {
	q := g.linear(h, a.wq, a.bq)
	k := g.linear(h, a.wk, a.bk)
	v := g.linear(h, a.wv, a.bv)
	if rope != nil {
		q = g.rope(q, pos, *rope)
		k = g.rope(k, pos, *rope)
	}
	return g.linear(g.attend(q, k, v, kv, p), a.wo, a.bo)
}

type graniteHybrid struct {
	base
	layers []graniteHybridLayer
	rope   kernels.RopeParams
	attn   kernels.AttentionParams
	noRope bool
	// embedScale and resScale multiply the embeddings and each residual
	// branch (0 for none).
	embedScale, resScale float32
}

// loadGraniteHybrid reads a Granite 4 hybrid model: the per-layer KV head
// counts say which layers are Mamba-2 mixers, expert_count whether the
// feed-forward networks are mixtures of experts (with a shared expert of
// expert_shared_feed_forward_length).
func loadGraniteHybrid(ld *loader) (arch, error) {
	m := &graniteHybrid{base: ld.loadBase()}
	hp := m.hp
	if ld.err != nil {
		return nil, ld.err
	}
	ssm := ld.mamba2HParams()
	ld.expertHParams(&m.hp, false)
	nff := ld.ffnRows()
	if m.hp.Experts > 0 {
		v, err := ld.f.FeedForwardLength()
		nff = ld.required("feed_forward_length", v, err)
		v, err = ld.f.Uint("%s.expert_shared_feed_forward_length")
		m.hp.SharedFFN = ld.orDefault(v, err, 0)
	}
	m.hp.FFN = nff
	if ld.err != nil {
		return nil, ld.err
	}
	e := hp.Embd
	r := router{used: m.hp.ExpertsUsed, gating: gateSoftmax, norm: true}
	for i := range hp.Layers {
		b := m.backends[i]
		p := fmt.Sprintf("blk.%d.", i)
		l := graniteHybridLayer{
			attnNorm: ld.tensor(b, p+"attn_norm.weight", e),
			ffnNorm:  ld.tensor(b, p+"ffn_norm.weight", e),
		}
		if hp.layerKVHeads != nil && hp.layerKVHeads[i] == 0 {
			l.ssm = ld.mamba2(b, p, e, ssm)
			m.recurrent = append(m.recurrent, RecurrentLayer{Layer: i, States: ssm.states()})
		} else {
			l.attn = ld.hybridAttention(b, p, hp)
		}
		if m.hp.Experts > 0 {
			l.moe = ld.moe(b, p, m.hp, r, nff, 0)
			if sh := m.hp.SharedFFN; sh > 0 && l.moe != nil {
				shared := ld.gatedFFN(b, p, "_shexp", e, sh)
				l.moe.shared = &shared
			}
		} else {
			l.ffn = ld.gatedFFN(b, p, "", e, nff)
		}
		m.layers = append(m.layers, l)
	}
	m.rope = hp.rope(false)
	m.rope.Factors = ld.floats("rope_freqs.weight", hp.ropeDims/2)
	m.noRope = hp.noRope
	m.attn = kernels.AttentionParams{Heads: hp.Heads, KVHeads: hp.KVHeads, HeadDim: hp.HeadDim, ValueDim: hp.ValueDim,
		Scale: invSqrt(hp.HeadDim)}
	if hp.attnScale != 0 {
		m.attn.Scale = hp.attnScale
	}
	m.embedScale, m.resScale = hp.embedScale, hp.resScale
	if hp.logitScale != 0 {
		m.outScale = 1 / hp.logitScale
	}
	if ld.err != nil {
		return nil, ld.err
	}
	return m, nil
}

// forward runs a step through the model.
func (m *graniteHybrid) forward(ctx context.Context, st *step) ([]float32, error) {
	g, eps := m.graph(), m.hp.eps
	x := g.embed(m.tokEmbd, st.tokens)
	if m.embedScale != 0 {
		x = g.scale(x, m.embedScale)
	}
	for i, l := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = g.on(m.backends[i], x)

		h := g.norm(x, l.attnNorm, eps)
		if l.ssm != nil {
			h = g.mamba2(h, l.ssm, st.recurrentLayer(i), eps)
		} else {
			rope := &m.rope
			if m.noRope {
				rope = nil
			}
			h = g.attention(h, &l.attn, st.layer(i), m.attn, st.pos, rope)
		}
		if x = m.outputsOnly(g, g.add(m.residual(g, h), x), st, i); x == nil {
			break
		}

		h = g.norm(x, l.ffnNorm, eps)
		if l.moe != nil {
			h = g.moe(h, l.moe, kernels.SiLU)
		} else {
			h = g.ffn(h, &l.ffn, kernels.SiLU)
		}
		x = g.add(m.residual(g, h), x)
	}
	return m.head(g, x, st, eps)
}

// residual scales a residual branch by resScale, if any.
func (m *graniteHybrid) residual(g *graph, x kernels.Tensor) kernels.Tensor {
	if m.resScale == 0 {
		return x
	}
	return g.scale(x, m.resScale)
}

// Mamba-2 (llama.cpp's build_mamba2_layer in src/models/mamba-base.cpp),
// the mixer of Granite 4's and Nemotron-H's recurrent layers. ssm_in
// projects each token to z (d_inner), x (d_inner), B and C (n_group
// groups of d_state each) and dt (a value per head); x, B and C run
// through a causal depthwise convolution of ssm.conv_kernel taps over the
// sequence's last taps-1 inputs (its conv state), plus ssm_conv1d.bias,
// then SiLU; the selective scan (kernels.Backend.SSMScan, with the decay
// ssm_a, the dt bias and the skip weight ssm_d) reads x with dt, B and C
// against the sequence's SSM state; its output is gated by SiLU(z),
// normalized in n_group groups (RMSNorm, each group with its part of
// ssm_norm) and projected back by ssm_out. The convolution is depthwise,
// so x, B and C each run their own, with a conv state each: the values
// are llama.cpp's, the memory the same.

// mamba2Dims are a Mamba-2 mixer's sizes.
type mamba2Dims struct {
	// taps is ssm.conv_kernel, inner ssm.inner_size, state
	// ssm.state_size, heads ssm.time_step_rank (the heads of the scan)
	// and groups ssm.group_count.
	taps, inner, state, heads, groups int
}

// states returns the states a mixer keeps per sequence: the convolution
// windows of x, B and C, and the scan's state.
func (d mamba2Dims) states() []StateSpec {
	bc := d.groups * d.state
	return []StateSpec{
		{Name: "conv", Rows: d.taps - 1, Cols: d.inner},
		{Name: "conv_b", Rows: d.taps - 1, Cols: bc},
		{Name: "conv_c", Rows: d.taps - 1, Cols: bc},
		{Name: "ssm", Rows: d.inner, Cols: d.state},
	}
}

// mamba2HParams reads the mixer's sizes, with llama.cpp's checks: heads
// and groups dividing the inner size, heads a multiple of groups.
func (ld *loader) mamba2HParams() mamba2Dims {
	get := func(key, name string) int {
		v, err := ld.f.Uint(key)
		return ld.required(name, v, err)
	}
	d := mamba2Dims{
		taps:   get("%s.ssm.conv_kernel", "ssm.conv_kernel"),
		inner:  get("%s.ssm.inner_size", "ssm.inner_size"),
		state:  get("%s.ssm.state_size", "ssm.state_size"),
		heads:  get("%s.ssm.time_step_rank", "ssm.time_step_rank"),
		groups: get("%s.ssm.group_count", "ssm.group_count"),
	}
	switch {
	case ld.err != nil:
	case d.taps < 2:
		ld.fail(fmt.Errorf("hyperparameter ssm.conv_kernel = %d: a convolution needs at least 2 taps", d.taps))
	case d.inner%d.heads != 0 || d.inner%d.groups != 0 || d.heads%d.groups != 0:
		ld.fail(fmt.Errorf("hyperparameters ssm.inner_size %d, ssm.time_step_rank %d and ssm.group_count %d: the heads and groups must divide the inner size, the groups the heads",
			d.inner, d.heads, d.groups))
	}
	return d
}

// mamba2 is one layer's Mamba-2 mixer.
type mamba2 struct {
	dims mamba2Dims
	// The rows of ssm_in that make z, x, B, C and dt.
	inZ, inX, inB, inC, inDt kernels.Tensor
	// The convolutions' taps (kernels.Backend.ShortConv's layout) and
	// optional biases of x, B and C.
	convX, convB, convC kernels.Tensor
	biasX, biasB, biasC kernels.Tensor
	a                   kernels.Tensor // −exp(A_log) per head
	scan                kernels.SSMScanParams
	// norm is ssm_norm; with several groups normOnes (a group of ones)
	// normalizes each group and norm multiplies.
	norm, normOnes kernels.Tensor
	out            kernels.Tensor
}

// mamba2 loads layer prefix p's mixer on backend b for hidden size e.
func (ld *loader) mamba2(b kernels.Backend, p string, e int, d mamba2Dims) *mamba2 {
	bc := d.groups * d.state
	in := p + "ssm_in.weight"
	proj := 2*d.inner + 2*bc + d.heads
	if _, s, ok := ld.shapeOf(in); ok && !sameDims(s, []int{e, proj}) {
		ld.fail(fmt.Errorf("tensor %s has shape %v, want %v", in, s, []int{e, proj}))
	}
	conv, convBias := p+"ssm_conv1d.weight", p+"ssm_conv1d.bias"
	ch := d.inner + 2*bc
	if _, s, ok := ld.shapeOf(convBias); ok && !sameDims(s, []int{ch}) {
		ld.fail(fmt.Errorf("tensor %s has shape %v, want %v", convBias, s, []int{ch}))
	}
	x := &mamba2{
		dims: d,
		inZ:  ld.rowRange(b, in, e, 0, d.inner),
		inX:  ld.rowRange(b, in, e, d.inner, d.inner),
		inB:  ld.rowRange(b, in, e, 2*d.inner, bc),
		inC:  ld.rowRange(b, in, e, 2*d.inner+bc, bc),
		inDt: ld.rowRange(b, in, e, 2*d.inner+2*bc, d.heads),
		a:    ld.tensor(b, p+"ssm_a", 1, d.heads),
		scan: kernels.SSMScanParams{Heads: d.heads, HeadDim: d.inner / d.heads, StateDim: d.state, Groups: d.groups,
			DtBias: ld.floats(p+"ssm_dt.bias", d.heads), D: ld.floats(p+"ssm_d", d.heads)},
		out: ld.tensor(b, p+"ssm_out.weight", d.inner, e),
	}
	if taps := ld.convTapsSplit(b, conv, d.taps, d.inner, bc, bc); len(taps) == 3 {
		x.convX, x.convB, x.convC = taps[0], taps[1], taps[2]
	}
	if ld.has(convBias) {
		x.biasX = ld.rowRange(b, convBias, ch, 0, d.inner)
		x.biasB = ld.rowRange(b, convBias, ch, d.inner, bc)
		x.biasC = ld.rowRange(b, convBias, ch, d.inner+bc, bc)
	}
	if !ld.has(p+"ssm_dt.bias") || !ld.has(p+"ssm_d") {
		ld.fail(fmt.Errorf("tensor %sssm_dt.bias or %sssm_d is missing", p, p))
	}
	// The norm's weight, a row of inner_size/group_count per group, is
	// one row of inner_size here, which multiplies every token's row.
	if ti, _, ok := ld.checked(p+"ssm_norm.weight", d.inner/d.groups, d.groups); ok {
		x.norm = ld.wrap(b, ti, []int{d.inner}, 0, 1)
	}
	if d.groups > 1 {
		x.normOnes = ld.ones(b, d.inner/d.groups)
	}
	return x
}

// mamba2 runs the mixer l over the rows of h (normed), with the layer's
// states s.
func (g *graph) mamba2(h kernels.Tensor, l *mamba2, s layerState, eps float32) kernels.Tensor {
	conv := func(w, bias, taps, state kernels.Tensor) kernels.Tensor {
		y := g.shortConv(g.linear(h, w, nil), taps, state, s.seqs)
		if bias != nil {
			y = g.add(y, bias)
		}
		return g.silu(y)
	}
	x := conv(l.inX, l.biasX, l.convX, s.states[0])
	bm := conv(l.inB, l.biasB, l.convB, s.states[1])
	cm := conv(l.inC, l.biasC, l.convC, s.states[2])
	y := g.ssmScan(x, g.linear(h, l.inDt, nil), l.a, bm, cm, s.states[3], s.seqs, l.scan)
	y = g.glu(g.linear(h, l.inZ, nil), y, kernels.SiLU)
	if l.normOnes != nil {
		y = g.mul(g.norm(y, l.normOnes, eps), l.norm)
	} else {
		y = g.norm(y, l.norm, eps)
	}
	return g.linear(y, l.out, nil)
}

// ssmScan runs Mamba-2's selective scan of x with dt, the decays a and B
// and C over each sequence's state in states.
func (g *graph) ssmScan(x, dt, a, b, c, states kernels.Tensor, seqs []kernels.ConvSeq, p kernels.SSMScanParams) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	y := g.new(kernels.Cols(x), kernels.Rows(x))
	if g.err == nil {
		g.fail(g.b.SSMScan(y, x, dt, a, b, c, states, recurrentSeqs(seqs), p))
	}
	return y
}
