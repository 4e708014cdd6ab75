package model

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"saji/engine/gguf"
	"saji/kernels"
	"saji/kernels/cpu"
)

// Mixture of experts (llama.cpp's build_moe_ffn in src/llama-graph.cpp): a
// router scores every expert for each token, the k best run their gated
// feed-forward networks on the token, and their outputs are summed with
// the router's weights. The experts stay in the file's 3-D *_exps tensors,
// each viewed as a 2-D weight; the router runs on the host, since its
// choices decide which weights the layer reads.

// maxExperts is the most experts a layer may have (llama.cpp's
// LLAMA_MAX_EXPERTS).
const maxExperts = 1024

// gating is how a router turns its logits into expert weights.
type gating int

const (
	// gateSoftmax weighs each expert by the softmax of all the logits.
	gateSoftmax gating = iota
	// gateSigmoid weighs each expert by the sigmoid of its logit.
	gateSigmoid
	// gateSoftmaxWeight selects by the raw logits and weighs the chosen
	// experts by the softmax of their logits alone (gpt-oss).
	gateSoftmaxWeight
)

// router says how a layer picks and weighs its experts.
type router struct {
	// used is the number of experts per token (k).
	used   int
	gating gating
	// norm divides each token's k weights by their sum.
	norm bool
	// scale multiplies the weights; 0 and 1 leave them.
	scale float32
}

// route picks the experts of each token from the router's logits (experts
// values per token) and returns their ids, k per token from the best, and
// their weights, in llama.cpp's order of operations: gating, selection
// bias (added for the choice only), top k, the softmax of the chosen
// logits (gateSoftmaxWeight), normalization (the sum clamped at F16's
// smallest normal), scale. Logits are overwritten with the probabilities.
//
// ggml sorts with std::sort, whose order of equal scores is unspecified;
// here equal scores go by expert id, as std::sort leaves them in rows of
// up to 16 experts.
func (r router) route(logits []float32, experts int, bias []float32) (ids []int32, weights []float32) {
	tokens := len(logits) / experts
	ids, weights = make([]int32, tokens*r.used), make([]float32, tokens*r.used)
	order := make([]int32, experts)
	score := make([]float32, experts)
	for t := range tokens {
		p := logits[t*experts : (t+1)*experts]
		switch r.gating {
		case gateSoftmax:
			cpu.SoftMax(p)
		case gateSigmoid:
			for i, v := range p {
				p[i] = cpu.Sigmoid(v)
			}
		}
		copy(score, p)
		if bias != nil {
			for i := range score {
				score[i] += bias[i]
			}
		}
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(score[b], score[a]) })
		id, w := ids[t*r.used:(t+1)*r.used], weights[t*r.used:(t+1)*r.used]
		copy(id, order)
		for i, e := range id {
			w[i] = p[e]
		}
		if r.gating == gateSoftmaxWeight {
			cpu.SoftMax(w)
		}
		if r.norm {
			var sum float64
			for _, v := range w {
				sum += float64(v)
			}
			s := max(float32(sum), 6.103515625e-5)
			for i := range w {
				w[i] /= s
			}
		}
		if r.scale != 0 && r.scale != 1 {
			for i := range w {
				w[i] *= r.scale
			}
		}
	}
	return ids, weights
}

// moeFFN is one layer's mixture of experts.
type moeFFN struct {
	router
	// gateInp is the router's weight ([n_embd, n_expert]), gateInpBias its
	// optional bias; probBias is the optional selection bias (exp_probs_b).
	gateInp, gateInpBias kernels.Tensor
	probBias             []float32
	// up, gate and down are the experts' weights, one 2-D view each.
	up, gate, down []kernels.Tensor
	// gateUp is gate ++ up when they share type and shape (for one
	// expert product of both), else nil.
	gateUp []kernels.Tensor
	// upBias, gateBias and downBias are optional per-expert biases
	// ([n, n_expert]: row e is expert e's).
	upBias, gateBias, downBias kernels.Tensor
	// shared is the optional shared expert, which every token runs, scaled
	// by the sigmoid of sharedGate·x (Qwen2-MoE) or, without sharedGate,
	// added as it is (Granite 4).
	shared     *denseFFN
	sharedGate kernels.Tensor
	// sigmoidGate takes the shared expert's gate through ggml_sigmoid
	// (Qwen3.5-MoE, Qwen3-Next) instead of Qwen2-MoE's silu(x)/x.
	sigmoidGate bool
}

// denseFFN is a gated feed-forward network.
type denseFFN struct{ gate, up, down kernels.Tensor }

// expertHParams reads the expert counts into h, with llama.cpp's checks:
// a model with experts needs expert_used_count in [1, expert_count], and
// at most maxExperts experts. required says the architecture cannot run
// without experts.
func (ld *loader) expertHParams(h *hparams, required bool) {
	count := func(key string) int {
		v, err := ld.f.Uint(key)
		if errors.Is(err, gguf.ErrNotFound) {
			return 0
		}
		if err != nil {
			ld.fail(fmt.Errorf("hyperparameter %s: %w", key, err))
			return 0
		}
		if v > maxExperts {
			k, _ := ld.f.ArchKey(key)
			ld.fail(fmt.Errorf("hyperparameter %s = %d is out of range (at most %d experts)", k, v, maxExperts))
			return 0
		}
		return int(v)
	}
	h.Experts = count(gguf.KeyExpertCount)
	h.ExpertsUsed = count(gguf.KeyExpertUsedCount)
	switch {
	case ld.err != nil:
	case h.Experts == 0 && required:
		ld.fail(fmt.Errorf("hyperparameter %s.expert_count is missing or 0: %s needs experts", h.Arch, h.Arch))
	case h.Experts > 0 && (h.ExpertsUsed == 0 || h.ExpertsUsed > h.Experts):
		ld.fail(fmt.Errorf("hyperparameter %s.expert_used_count = %d is out of range [1, %d]", h.Arch, h.ExpertsUsed, h.Experts))
	}
}

// experts wraps the 3-D tensor called name ([cols, rows, n] in ggml order)
// as n 2-D weights of [cols, rows] on backend b, each a view of its part
// of the mapped data. When describing, it checks the shape only.
func (ld *loader) experts(b kernels.Backend, name string, cols, rows, n int) []kernels.Tensor {
	if ld.err != nil {
		return nil
	}
	ti, shape, ok := ld.shapeOf(name)
	if !ok {
		ld.fail(fmt.Errorf("tensor %s is missing (the model claims %d experts)", name, n))
		return nil
	}
	if !sameDims(shape, []int{cols, rows, n}) && !(n == 1 && sameDims(shape, []int{cols, rows})) {
		ld.fail(fmt.Errorf("tensor %s has shape %v, want %v", name, shape, []int{cols, rows, n}))
		return nil
	}
	if !ti.Type.Known() || ti.Type.BlockSize() == 0 || cols%ti.Type.BlockSize() != 0 {
		ld.fail(fmt.Errorf("tensor %s: type %v does not fit rows of %d", name, ti.Type, cols))
		return nil
	}
	data, ok := ld.data(ti)
	if !ok {
		return nil
	}
	stride := rows * cols / ti.Type.BlockSize() * ti.Type.TypeSize()
	out := make([]kernels.Tensor, n)
	for e := range out {
		t, err := b.Weight(ti.Type, []int{cols, rows}, data[e*stride:(e+1)*stride])
		if err == nil {
			t, err = repack(b, t, &ld.releases)
		}
		if err != nil {
			ld.fail(fmt.Errorf("tensor %s, expert %d: %w", name, e, err))
			return nil
		}
		out[e] = t
	}
	return out
}

// moe loads layer prefix p's mixture of experts on backend b: the router,
// the experts of nff values (and their optional biases), the optional
// selection bias, and with sharedFFN above 0 the shared expert and its
// gate.
func (ld *loader) moe(b kernels.Backend, p string, hp hparams, r router, nff, sharedFFN int) *moeFFN {
	n, e := hp.Experts, hp.Embd
	f := &moeFFN{
		router:      r,
		gateInp:     ld.tensor(b, p+"ffn_gate_inp.weight", e, n),
		gateInpBias: ld.optional(b, p+"ffn_gate_inp.bias", n),
		probBias:    ld.floats(p+"exp_probs_b.bias", n),
		up:          ld.experts(b, p+"ffn_up_exps.weight", e, nff, n),
		gate:        ld.experts(b, p+"ffn_gate_exps.weight", e, nff, n),
		down:        ld.experts(b, p+"ffn_down_exps.weight", nff, e, n),
		upBias:      ld.optional(b, p+"ffn_up_exps.bias", nff, n),
		gateBias:    ld.optional(b, p+"ffn_gate_exps.bias", nff, n),
		downBias:    ld.optional(b, p+"ffn_down_exps.bias", e, n),
	}
	if len(f.gate) > 0 && len(f.up) == len(f.gate) && f.gate[0].Type() == f.up[0].Type() &&
		sameDims(f.gate[0].Shape(), f.up[0].Shape()) {
		f.gateUp = append(append([]kernels.Tensor(nil), f.gate...), f.up...)
	}
	if sharedFFN > 0 {
		f.sharedGate = ld.tensor(b, p+"ffn_gate_inp_shexp.weight", e)
		shared := ld.gatedFFN(b, p, "_shexp", e, sharedFFN)
		f.shared = &shared
	}
	return f
}

// moe runs the rows of x (normed) through the experts of f and returns
// the weighted sum of each row's k expert outputs (plus the gated shared
// expert's).
func (g *graph) moe(x kernels.Tensor, f *moeFFN, act kernels.Activation) kernels.Tensor {
	logits := g.host(g.linear(x, f.gateInp, f.gateInpBias))
	if g.err != nil {
		return nil
	}
	ids, weights := f.route(logits, len(f.up), f.probBias)
	gate, up := g.gateUp(x, f, ids)
	out := g.weighted(g.experts(g.glu(gate, up, act), f.down, f.downBias, ids), weights, f.used)
	switch {
	case f.shared != nil && f.sharedGate == nil:
		out = g.add(out, g.ffn(x, f.shared, act)) // Granite 4: not gated
	case f.shared != nil:
		s := g.host(g.linear(x, f.sharedGate, nil))
		for i, v := range s {
			if f.sigmoidGate {
				s[i] = cpu.Sigmoid(v)
			} else {
				s[i] = cpu.SiLU(v) / v // Qwen2-MoE's sigmoid: silu(x)/x
			}
		}
		out = g.add(out, g.scaleRows(g.ffn(x, f.shared, act), s))
	}
	return out
}

// weighted returns the sum of each token's k expert outputs (the rows of
// y, k a token) multiplied by their weights, in llama.cpp's order: the
// products, then the sum from the first expert.
func (g *graph) weighted(y kernels.Tensor, weights []float32, k int) kernels.Tensor {
	y = g.scaleRows(y, weights)
	out := g.rows(y, slotRows(len(weights)/k, k, 0))
	for s := 1; s < k; s++ {
		out = g.add(out, g.rows(y, slotRows(len(weights)/k, k, s)))
	}
	return out
}

// gateUp returns the gate and up projections of the experts ids of the
// rows of x. Where the backend has ExpertMatMul and the gate and up
// experts share type and shape, they are one product over the 2n experts
// gate ++ up, each row of x taking its k gate experts then its k up
// experts, whose rows are then split: the rows of x are converted to the
// experts' dot-product format once and the threads meet once, not twice.
// Every output is the same product as alone.
func (g *graph) gateUp(x kernels.Tensor, f *moeFFN, ids []int32) (gate, up kernels.Tensor) {
	em, ok := g.b.(kernels.ExpertMatMul)
	if !ok || g.err != nil || f.gateUp == nil {
		return g.experts(x, f.gate, f.gateBias, ids), g.experts(x, f.up, f.upBias, ids)
	}
	n, k := len(f.gate), len(ids)/kernels.Rows(x)
	both := make([]int32, 2*len(ids))
	gateRows, upRows := make([]int32, len(ids)), make([]int32, len(ids))
	for r, e := range ids {
		t, s := r/k, r%k
		gateRows[r], upRows[r] = int32(2*k*t+s), int32(2*k*t+k+s)
		both[gateRows[r]], both[upRows[r]] = e, e+int32(n)
	}
	y := g.new(kernels.Rows(f.gate[0]), len(both))
	if g.err != nil {
		return nil, nil
	}
	g.fail(em.MatMulExperts(y, f.gateUp, x, both))
	gate, up = g.rows(y, gateRows), g.rows(y, upRows)
	if f.gateBias != nil && g.err == nil {
		g.fail(g.b.Add(gate, gate, g.rows(f.gateBias, ids)))
	}
	if f.upBias != nil && g.err == nil {
		g.fail(g.b.Add(up, up, g.rows(f.upBias, ids)))
	}
	return gate, up
}

// slotRows returns the rows of slot s of each of tokens tokens in rows
// of k slots per token: s, k+s, 2k+s, ...
func slotRows(tokens, k, s int) []int32 {
	rows := make([]int32, tokens)
	for t := range rows {
		rows[t] = int32(t*k + s)
	}
	return rows
}

// experts returns rows whose row r is expert ids[r] of ws times row
// r/per of x, per being len(ids)/Rows(x) (plus the expert's row of bias):
// through the backend's ExpertMatMul where it has one, and otherwise per
// chosen expert, gathering its rows, multiplying them and scattering the
// results.
func (g *graph) experts(x kernels.Tensor, ws []kernels.Tensor, bias kernels.Tensor, ids []int32) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	y := g.new(kernels.Rows(ws[0]), len(ids))
	if g.err != nil {
		return nil
	}
	if em, ok := g.b.(kernels.ExpertMatMul); ok {
		g.fail(em.MatMulExperts(y, ws, x, ids))
	} else {
		g.expertsByOps(y, ws, x, ids)
	}
	if bias != nil && g.err == nil {
		g.fail(g.b.Add(y, y, g.rows(bias, ids)))
	}
	return y
}

// expertsByOps is experts built from GetRows, MatMul and SetRows, for
// backends without ExpertMatMul.
func (g *graph) expertsByOps(y kernels.Tensor, ws []kernels.Tensor, x kernels.Tensor, ids []int32) {
	per := len(ids) / kernels.Rows(x)
	rows := make([][]int32, len(ws))
	for r, e := range ids {
		if e < 0 || int(e) >= len(ws) {
			g.fail(fmt.Errorf("model: expert %d out of range [0, %d)", e, len(ws)))
			return
		}
		rows[e] = append(rows[e], int32(r))
	}
	for e, out := range rows {
		if len(out) == 0 {
			continue
		}
		src := make([]int32, len(out))
		for i, r := range out {
			src[i] = r / int32(per)
		}
		ye := g.linear(g.rows(x, src), ws[e], nil)
		if g.err == nil {
			g.fail(g.b.SetRows(y, ye, out))
		}
	}
}

// host reads x's values to the host.
func (g *graph) host(x kernels.Tensor) []float32 {
	if g.err != nil {
		return nil
	}
	out := make([]float32, kernels.Cols(x)*kernels.Rows(x))
	if err := x.Backend().Read(x, out); err != nil {
		g.fail(fmt.Errorf("model: reading activations: %w", err))
		return nil
	}
	return out
}

// idleParams returns the parameters of f that a token leaves idle: the
// experts beyond the used it runs, in every layer (0 for a dense model).
func idleParams(f *gguf.File, experts, used int) int64 {
	var idle int64
	for _, t := range f.Tensors() {
		if experts > 0 && strings.Contains(t.Name, "_exps.") {
			idle += t.Elements() / int64(experts) * int64(experts-used)
		}
	}
	return idle
}
