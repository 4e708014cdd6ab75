package model

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"saji/engine/gguf"
	"saji/kernels"
	"saji/kernels/quant"
)

// Gemma 4 (llama.cpp's src/models/gemma4.cpp) keeps Gemma 3's layer
// (gemma3.go: scaled embeddings, RMSNorm before and after attention and
// the feed-forward network, q and k norms, GEGLU, sliding-window layers)
// and adds:
//   - per-layer embeddings (PLE): a second embedding table gives each
//     token a short vector for every layer, mixed with a projection of the
//     token's embedding; each layer gates its output by its vector and
//     adds the result back through a projection and a norm;
//   - heads of different lengths in sliding and global layers, with their
//     own KV head counts, and "proportional" rope on the global layers
//     (rope_freqs.weight turns most pairs' rotation off);
//   - values RMS-normed per head without a weight, and for layers without
//     attn_v the keys as values; no scaling of the queries (the norms
//     do it);
//   - KV shared across layers: the last shared_kv_layers layers compute
//     queries only and attend over the cache of the last earlier layer of
//     their kind (sliding or global);
//   - an optional scalar per layer (layer_output_scale);
//   - in the mixture-of-experts variant (26B-A4B), a router on the
//     unweighted norm of the layer's input, experts with a per-expert
//     output scale, and the dense feed-forward network beside them as a
//     shared expert, each with its own norms.

func init() { register("gemma4", loadGemma4) }

// gemma4Layer is one Gemma 4 layer.
type gemma4Layer struct {
	attnNorm, postAttnNorm kernels.Tensor
	wq, wk, wv, wo         kernels.Tensor // wv nil: the keys are the values
	qNorm, kNorm           kernels.Tensor
	vNorm                  kernels.Tensor // ones, a head long: RMSNorm per head without a weight
	ffnNorm, postFFNNorm   kernels.Tensor
	ffn                    denseFFN
	moe                    *gemma4MoE // nil: dense
	// pleGate, pleProj and plePostNorm mix the layer's per-layer input
	// into its output (nil without per-layer embeddings).
	pleGate, pleProj, plePostNorm kernels.Tensor
	outScale                      float32 // layer_output_scale, 0 for none
	shared                        bool    // attends over an earlier layer's cache
	rope                          kernels.RopeParams
	attn                          kernels.AttentionParams
}

// gemma4MoE is a layer's mixture of experts, beside its dense network.
type gemma4MoE struct {
	*moeFFN
	// inpScale weighs the router's input ([n_embd]); downScale scales each
	// expert's output (nil: none).
	inpScale  kernels.Tensor
	downScale []float32
	// preNorm2 norms the experts' input; postNorm1 and postNorm2 the dense
	// network's and the experts' outputs before they are summed.
	preNorm2, postNorm1, postNorm2 kernels.Tensor
	ffn                            int // one expert's feed-forward length
}

type gemma4 struct {
	base
	layers     []gemma4Layer
	embedScale float32
	// plEmbd is per_layer_token_embd viewed as rows of plDim (row
	// token·n_layer+i is the token's vector for layer i); plProj holds
	// each layer's rows of per_layer_model_proj, plNorm their norm.
	plEmbd kernels.Tensor
	plProj []kernels.Tensor
	plNorm kernels.Tensor
	plDim  int
}

// gemma4HParams are Gemma 4's keys beyond the common ones.
type gemma4HParams struct {
	swa                 []bool // per layer: sliding window
	kvHeads             []int  // per layer
	headSWA, ropeDimSWA int    // sliding layers' head length and rotating dimensions
	sharedKV            int    // the last sharedKV layers reuse earlier caches
	plDim               int    // embedding_length_per_layer_input (0: no PLE)
}

// gemma4Keys reads Gemma 4's own hyperparameters as llama.cpp's
// load_arch_hparams does.
func (ld *loader) gemma4Keys(hp *hparams) gemma4HParams {
	var g gemma4HParams
	f := ld.f
	g.swa = make([]bool, hp.Layers)
	key, _ := f.ArchKey("%s.attention.sliding_window_pattern")
	if v, ok := f.Value(key); ok && v.IsArray() {
		b, err := v.AsBools()
		if err != nil || len(b) != hp.Layers {
			ld.fail(fmt.Errorf("hyperparameter %s must hold %d bools", key, hp.Layers))
			return g
		}
		copy(g.swa, b)
	} else if ok {
		b, err := v.AsBool()
		if err != nil {
			ld.fail(fmt.Errorf("hyperparameter %s: %w", key, err))
			return g
		}
		for i := range g.swa {
			g.swa[i] = b
		}
	}
	kv, err := f.LayerUints(gguf.KeyHeadCountKV)
	if err != nil {
		ld.fail(fmt.Errorf("hyperparameter attention.head_count_kv: %w", err))
		return g
	}
	for _, n := range kv {
		if n == 0 || int(n) > hp.Heads || hp.Heads%int(n) != 0 {
			ld.fail(fmt.Errorf("%d heads are not a multiple of %d KV heads", hp.Heads, n))
			return g
		}
		g.kvHeads = append(g.kvHeads, int(n))
	}
	if hp.window <= 0 {
		ld.fail(fmt.Errorf("hyperparameter %s.attention.sliding_window is missing", hp.Arch))
	}
	u := func(k string) (uint64, error) { return f.Uint(k) }
	v, err := u("%s.attention.key_length_swa")
	g.headSWA = ld.required("attention.key_length_swa", v, err)
	v, err = u("%s.attention.value_length_swa")
	if vl := ld.required("attention.value_length_swa", v, err); vl != g.headSWA || hp.ValueDim != hp.HeadDim {
		ld.fail(fmt.Errorf("gemma4 needs keys and values of one length (%d/%d, %d/%d)", hp.HeadDim, hp.ValueDim, g.headSWA, vl))
	}
	v, err = u("%s.rope.dimension_count_swa")
	g.ropeDimSWA = ld.orDefault(v, err, hp.ropeDims)
	if g.ropeDimSWA > g.headSWA || g.ropeDimSWA%2 != 0 {
		ld.fail(fmt.Errorf("rope dimension count %d does not fit sliding heads of %d", g.ropeDimSWA, g.headSWA))
	}
	v, err = u("%s.attention.shared_kv_layers")
	g.sharedKV = ld.orDefault(v, err, 0)
	v, err = u("%s.embedding_length_per_layer_input")
	if ld.err == nil && err != nil {
		ld.fail(fmt.Errorf("hyperparameter %s.embedding_length_per_layer_input: %w", hp.Arch, err))
	}
	g.plDim = ld.orDefault(v, err, 0)
	if hp.finalSoftcap == 0 {
		hp.finalSoftcap = 30 // llama.cpp's default
	}
	return g
}

// kvSource returns the layer whose cache layer i attends over, with
// llama.cpp's rule for shared KV (its layer_reuse_cb): a layer from
// n_layer - shared_kv_layers on reads the last KV layer of its kind, which
// must be global then sliding from the end.
func (g gemma4HParams) kvSource(i, layers int) int {
	first := layers - g.sharedKV
	if g.sharedKV == 0 || i < first {
		return i
	}
	if g.swa[i] {
		return first - 2
	}
	return first - 1
}

// loadGemma4 loads a Gemma 4 model, dense or with experts.
func loadGemma4(ld *loader) (arch, error) {
	m := &gemma4{base: ld.loadBase()}
	hp := &m.hp
	if ld.err != nil {
		return nil, ld.err
	}
	ld.expertHParams(hp, false)
	g4 := ld.gemma4Keys(hp)
	if ld.err != nil {
		return nil, ld.err
	}
	if g4.sharedKV > 0 && (g4.sharedKV > hp.Layers-2 || g4.swa[hp.Layers-g4.sharedKV-1] || !g4.swa[hp.Layers-g4.sharedKV-2]) {
		return nil, fmt.Errorf("%d shared KV layers of %d need a sliding then a global layer before them", g4.sharedKV, hp.Layers)
	}
	m.softcap = hp.finalSoftcap
	m.embedScale = float32(math.Sqrt(float64(float32(hp.Embd))))
	swaBase := hp.swaBase
	if swaBase == 0 {
		swaBase = 10000
	}
	var factors []float32
	for _, s := range g4.swa {
		if !s {
			if !ld.has("rope_freqs.weight") {
				return nil, fmt.Errorf("tensor rope_freqs.weight is missing")
			}
			factors = ld.floats("rope_freqs.weight", hp.ropeDims/2)
			break
		}
	}
	m.plDim = g4.plDim
	if n := g4.plDim; n > 0 {
		m.plEmbd = ld.perLayerEmbd(n, hp.Layers, hp.Vocab)
		m.plNorm = ld.tensor(ld.backend, "per_layer_proj_norm.weight", n)
		for i := range hp.Layers {
			m.plProj = append(m.plProj, ld.rowRange(ld.backend, "per_layer_model_proj.weight", hp.Embd, i*n, n))
		}
	}
	m.windows = make([]int, hp.Layers)
	m.kDims, m.vDims, m.kvFrom = make([]int, hp.Layers), make([]int, hp.Layers), make([]int, hp.Layers)
	for i := range hp.Layers {
		b := m.backends[i]
		p := fmt.Sprintf("blk.%d.", i)
		hd, kvh := hp.HeadDim, g4.kvHeads[i]
		rope := hp.rope(true)
		rope.Factors = factors
		if g4.swa[i] {
			hd = g4.headSWA
			m.windows[i] = hp.window
			rope = kernels.RopeParams{HeadDim: hd, Dims: g4.ropeDimSWA, Base: swaBase, FreqScale: 1, Neox: true, YaRN: hp.ropeYaRN}
		}
		m.kDims[i], m.vDims[i] = kvh*hd, kvh*hd
		m.kvFrom[i] = g4.kvSource(i, hp.Layers)
		l := gemma4Layer{
			attnNorm:     ld.tensor(b, p+"attn_norm.weight", hp.Embd),
			wq:           ld.tensor(b, p+"attn_q.weight", hp.Embd, hp.Heads*hd),
			qNorm:        ld.tensor(b, p+"attn_q_norm.weight", hd),
			wo:           ld.tensor(b, p+"attn_output.weight", hp.Heads*hd, hp.Embd),
			postAttnNorm: ld.tensor(b, p+"post_attention_norm.weight", hp.Embd),
			ffnNorm:      ld.tensor(b, p+"ffn_norm.weight", hp.Embd),
			postFFNNorm:  ld.tensor(b, p+"post_ffw_norm.weight", hp.Embd),
			shared:       m.kvFrom[i] != i,
			rope:         rope,
			attn: kernels.AttentionParams{Heads: hp.Heads, KVHeads: kvh, HeadDim: hd, ValueDim: hd,
				Scale: 1, Window: m.windows[i]},
		}
		if s := m.kvFrom[i]; l.shared && (m.windows[s] != m.windows[i] || m.kDims[s] != m.kDims[i]) {
			return nil, fmt.Errorf("layer %d cannot share the cache of layer %d: their attention differs", i, s)
		} else if l.shared && m.backends[s] != b {
			return nil, fmt.Errorf("layer %d shares the cache of layer %d, which is on another device (%s, %s): place them together", i, s, b.Name(), m.backends[s].Name())
		}
		if !l.shared {
			l.wk = ld.tensor(b, p+"attn_k.weight", hp.Embd, kvh*hd)
			l.wv = ld.optional(b, p+"attn_v.weight", hp.Embd, kvh*hd)
			l.kNorm = ld.tensor(b, p+"attn_k_norm.weight", hd)
			l.vNorm = ld.ones(b, hd)
		}
		nff := 0
		if _, s, ok := ld.shapeOf(p + "ffn_up.weight"); ok && len(s) == 2 {
			nff = s[1]
		}
		l.ffn = ld.gatedFFN(b, p, "", hp.Embd, nff)
		if i == 0 {
			hp.FFN = nff
		}
		if ld.has(p + "ffn_gate_inp.weight") {
			l.moe = ld.gemma4MoE(b, p, *hp)
			if l.moe != nil {
				// As Config has it: one expert's length, and the dense
				// network as the shared expert.
				hp.FFN, hp.SharedFFN = l.moe.ffn, nff
			}
		}
		if g4.plDim > 0 {
			l.pleGate = ld.tensor(b, p+"inp_gate.weight", hp.Embd, g4.plDim)
			l.pleProj = ld.tensor(b, p+"proj.weight", g4.plDim, hp.Embd)
			l.plePostNorm = ld.tensor(b, p+"post_norm.weight", hp.Embd)
		}
		if s := ld.floats(p+"layer_output_scale.weight", 1); s != nil {
			l.outScale = s[0]
		}
		m.layers = append(m.layers, l)
	}
	hp.KVHeads = g4.kvHeads[len(g4.kvHeads)-1]
	for i, s := range g4.swa {
		if !s {
			hp.KVHeads = g4.kvHeads[i]
			break
		}
	}
	if ld.err != nil {
		return nil, ld.err
	}
	return m, nil
}

// gemma4MoE loads layer prefix p's experts and their norms.
func (ld *loader) gemma4MoE(b kernels.Backend, p string, hp hparams) *gemma4MoE {
	if hp.Experts == 0 {
		ld.fail(fmt.Errorf("tensor %sffn_gate_inp.weight needs %s.expert_count", p, hp.Arch))
		return nil
	}
	v, err := ld.f.Uint("%s.expert_feed_forward_length")
	nff := ld.required("expert_feed_forward_length", v, err)
	r := router{used: hp.ExpertsUsed, gating: gateSoftmax, norm: true}
	var f *moeFFN
	if ld.has(p + "ffn_gate_up_exps.weight") {
		// As converted from Hugging Face: each expert's gate rows, then its
		// up rows, in one matrix.
		f = &moeFFN{
			router:  r,
			gateInp: ld.tensor(b, p+"ffn_gate_inp.weight", hp.Embd, hp.Experts),
			down:    ld.experts(b, p+"ffn_down_exps.weight", nff, hp.Embd, hp.Experts),
		}
		f.gate, f.up = ld.fusedExperts(b, p+"ffn_gate_up_exps.weight", hp.Embd, nff, hp.Experts)
		f.gateUp = append(append([]kernels.Tensor(nil), f.gate...), f.up...)
	} else {
		f = ld.moe(b, p, hp, r, nff, 0)
	}
	return &gemma4MoE{
		ffn:       nff,
		moeFFN:    f,
		inpScale:  ld.tensor(b, p+"ffn_gate_inp.scale", hp.Embd),
		downScale: ld.floats(p+"ffn_down_exps.scale", hp.Experts),
		preNorm2:  ld.tensor(b, p+"pre_ffw_norm_2.weight", hp.Embd),
		postNorm1: ld.tensor(b, p+"post_ffw_norm_1.weight", hp.Embd),
		postNorm2: ld.tensor(b, p+"post_ffw_norm_2.weight", hp.Embd),
	}
}

// fusedExperts wraps the 3-D tensor called name ([cols, 2·rows, n]: each
// expert's gate rows, then its up rows) as n gate and n up weights of
// [cols, rows], views of the mapped data. When describing, it checks the
// shape only.
func (ld *loader) fusedExperts(b kernels.Backend, name string, cols, rows, n int) (gate, up []kernels.Tensor) {
	if ld.err != nil {
		return nil, nil
	}
	ti, shape, _ := ld.shapeOf(name)
	if !sameDims(shape, []int{cols, 2 * rows, n}) && !(n == 1 && sameDims(shape, []int{cols, 2 * rows})) {
		ld.fail(fmt.Errorf("tensor %s has shape %v, want %v", name, shape, []int{cols, 2 * rows, n}))
		return nil, nil
	}
	if !ti.Type.Known() || ti.Type.BlockSize() == 0 || cols%ti.Type.BlockSize() != 0 {
		ld.fail(fmt.Errorf("tensor %s: type %v does not fit rows of %d", name, ti.Type, cols))
		return nil, nil
	}
	data, ok := ld.data(ti)
	if !ok {
		return nil, nil
	}
	half := rows * cols / ti.Type.BlockSize() * ti.Type.TypeSize()
	wrap := func(e, part int) kernels.Tensor {
		at := (2*e + part) * half
		t, err := b.Weight(ti.Type, []int{cols, rows}, data[at:at+half])
		if err == nil {
			t, err = repack(b, t, &ld.releases)
		}
		if err != nil {
			ld.fail(fmt.Errorf("tensor %s, expert %d: %w", name, e, err))
		}
		return t
	}
	for e := range n {
		gate, up = append(gate, wrap(e, 0)), append(up, wrap(e, 1))
	}
	if ld.err != nil {
		return nil, nil
	}
	return gate, up
}

// perLayerEmbd wraps per_layer_token_embd.weight ([n·layers, vocab]) as
// rows of n values, layers rows per token, so that a lookup reads one
// layer's vector for each token.
func (ld *loader) perLayerEmbd(n, layers, vocab int) kernels.Tensor {
	ti, _, ok := ld.checked("per_layer_token_embd.weight", n*layers, vocab)
	if !ok {
		return nil
	}
	return ld.wrap(ld.backend, ti, []int{n, layers * vocab}, 0, layers*vocab)
}

// ones returns an F32 vector of n ones on b: the weight of a norm without
// one, which multiplies exactly by 1.
func (ld *loader) ones(b kernels.Backend, n int) kernels.Tensor {
	if ld.err != nil || ld.describe {
		return nil
	}
	data := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(1))
	}
	t, err := b.Weight(quant.TypeF32, []int{n}, data)
	ld.fail(err)
	return t
}

// forward runs a step through the model.
func (m *gemma4) forward(ctx context.Context, st *step) ([]float32, error) {
	g, tokens, pos := m.graph(), st.tokens, st.pos
	eps := m.hp.eps
	x := g.scale(g.embed(m.tokEmbd, tokens), m.embedScale)
	pl := m.perLayerInputs(g, x, tokens)
	for i, l := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = g.on(m.backends[i], x)

		h := g.norm(x, l.attnNorm, eps)
		q := g.rope(g.norm(g.linear(h, l.wq, nil), l.qNorm, eps), pos, l.rope)
		var a kernels.Tensor
		if l.shared {
			a = g.attend(q, nil, nil, st.layer(i), l.attn)
		} else {
			k := g.linear(h, l.wk, nil)
			v := k
			if l.wv != nil {
				v = g.linear(h, l.wv, nil)
			}
			k = g.rope(g.norm(k, l.kNorm, eps), pos, l.rope)
			a = g.attend(q, k, g.norm(v, l.vNorm, eps), st.layer(i), l.attn)
		}
		x = g.add(g.norm(g.linear(a, l.wo, nil), l.postAttnNorm, eps), x)

		h = g.ffn(g.norm(x, l.ffnNorm, eps), &l.ffn, kernels.GELU)
		if l.moe != nil {
			h = g.add(g.norm(h, l.moe.postNorm1, eps), m.experts(g, x, l.moe))
		}
		x = g.add(g.norm(h, l.postFFNNorm, eps), x)

		if pl != nil {
			h = g.glu(g.linear(x, l.pleGate, nil), g.here(pl[i]), kernels.GELU)
			x = g.add(x, g.norm(g.linear(h, l.pleProj, nil), l.plePostNorm, eps))
		}
		if l.outScale != 0 {
			x = g.scale(x, l.outScale)
		}
	}
	return m.head(g, x, st, eps)
}

// perLayerInputs returns each layer's per-layer input for the tokens
// (llama.cpp's project_per_layer_inputs): the token's vector for the layer
// scaled by √n, plus the normed projection of the scaled embeddings x
// scaled by 1/√n_embd, the sum scaled by 1/√2. They are held until the end
// of the pass. Nil without per-layer embeddings.
func (m *gemma4) perLayerInputs(g *graph, x kernels.Tensor, tokens []int32) []kernels.Tensor {
	if m.plDim == 0 {
		return nil
	}
	layers := len(m.layers)
	ids := make([]int32, len(tokens))
	out := make([]kernels.Tensor, layers)
	for i := range out {
		for j, t := range tokens {
			ids[j] = t*int32(layers) + int32(i)
		}
		e := g.scale(g.embed(m.plEmbd, ids), float32(math.Sqrt(float64(float32(m.plDim)))))
		p := g.norm(g.scale(g.linear(x, m.plProj[i], nil), invSqrt(m.hp.Embd)), m.plNorm, m.hp.eps)
		out[i] = g.hold(g.scale(g.add(p, e), invSqrt(2)))
	}
	return out
}

// experts runs a layer's mixture of experts on the layer's input x (after
// attention): the router reads x's unweighted norm scaled by 1/√n_embd
// and by inpScale, the experts the x normed by preNorm2; each expert's
// output is scaled by its downScale, then by the router's weight.
func (m *gemma4) experts(g *graph, x kernels.Tensor, f *gemma4MoE) kernels.Tensor {
	eps := m.hp.eps
	r := g.norm(x, nil, eps)
	r = g.mul(g.scale(r, invSqrt(m.hp.Embd)), f.inpScale)
	logits := g.host(g.linear(r, f.gateInp, nil))
	if g.err != nil {
		return nil
	}
	ids, weights := f.route(logits, len(f.up), nil)
	h := g.norm(x, f.preNorm2, eps)
	gate, up := g.gateUp(h, f.moeFFN, ids)
	y := g.experts(g.glu(gate, up, kernels.GELU), f.down, nil, ids)
	if f.downScale != nil {
		s := make([]float32, len(ids))
		for j, e := range ids {
			s[j] = f.downScale[e]
		}
		y = g.scaleRows(y, s)
	}
	y = g.scaleRows(y, weights)
	tokens := len(weights) / f.used
	out := g.rows(y, slotRows(tokens, f.used, 0))
	for s := 1; s < f.used; s++ {
		out = g.add(out, g.rows(y, slotRows(tokens, f.used, s)))
	}
	return g.norm(out, f.postNorm2, eps)
}
