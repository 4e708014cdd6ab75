package model

import (
	"context"
	"fmt"
	"math"
	"slices"

	"saji/kernels"
)

// The Llama family: pre-norm decoder layers of grouped-query attention and
// a SwiGLU feed-forward network, with RMSNorm and rotary embeddings
// (llama.cpp's src/models/llama.cpp, qwen2.cpp and qwen3.cpp). Qwen2 adds
// biases to q, k and v and rotates in NeoX halves; Qwen3 drops the biases
// and normalizes each query and key head before the rotation. Mistral 3,
// SmolLM3 and Granite (mistral3.go, smollm3.go, granite.go) are the Llama
// layer with a twist each: a temperature on the queries of far positions,
// layers without rotation, and multipliers on the embeddings, the residual
// branches, the attention scores and the logits.

func init() {
	register("llama", loadLlama(llamaVariant{}))
	register("qwen2", loadLlama(llamaVariant{neox: true}))
	register("qwen3", loadLlama(llamaVariant{neox: true, headNorm: true}))
}

// llamaVariant is what distinguishes the members of the family.
type llamaVariant struct {
	neox     bool // NeoX rotation (halves) instead of adjacent pairs
	headNorm bool // RMSNorm of each q and k head (Qwen3)
	// moe makes every layer's feed-forward network a mixture of experts
	// (expert_count is required); a llama file with an expert_count is
	// one too (Mixtral). shared adds a shared expert (Qwen2-MoE).
	moe, shared bool
	// noRopeStep, when above 0, leaves every noRopeStep-th layer without
	// rotation (SmolLM3).
	noRopeStep int
	// tune, when not nil, reads the architecture's own hyperparameters
	// into the loaded model.
	tune func(ld *loader, m *llama)
}

type llamaLayer struct {
	attnNorm       kernels.Tensor
	wq, wk, wv, wo kernels.Tensor
	bq, bk, bv, bo kernels.Tensor // optional biases (Qwen2)
	qNorm, kNorm   kernels.Tensor // Qwen3
	ffnNorm        kernels.Tensor
	ffn            denseFFN
	moe            *moeFFN // instead of ffn in a mixture of experts
	noRope         bool    // the layer does not rotate q and k
}

type llama struct {
	base
	layers []llamaLayer
	rope   kernels.RopeParams
	attn   kernels.AttentionParams
	// embedScale and resScale multiply the embeddings and each residual
	// branch (Granite; 0 for none).
	embedScale, resScale float32
	// temp and tempFloor scale the queries at position p by
	// 1 + temp·ln(⌊p/tempFloor⌋+1) (Mistral 3; 0 for none).
	temp      float32
	tempFloor int
}

func loadLlama(v llamaVariant) loaderFunc {
	return func(ld *loader) (arch, error) {
		m := &llama{base: ld.loadBase()}
		m.hp.Vectors = true // LLaVA's language models read a picture's embeddings
		hp := m.hp
		if ld.err != nil {
			return nil, ld.err
		}
		qDim, kvDim, vDim := hp.Heads*hp.HeadDim, hp.KVHeads*hp.HeadDim, hp.KVHeads*hp.ValueDim
		nff, r := ld.llamaFFN(&m.hp, v)
		for i := range hp.Layers {
			b := m.backends[i]
			p := fmt.Sprintf("blk.%d.", i)
			l := llamaLayer{
				attnNorm: ld.tensor(b, p+"attn_norm.weight", hp.Embd),
				wq:       ld.tensor(b, p+"attn_q.weight", hp.Embd, qDim),
				wk:       ld.tensor(b, p+"attn_k.weight", hp.Embd, kvDim),
				wv:       ld.tensor(b, p+"attn_v.weight", hp.Embd, vDim),
				wo:       ld.tensor(b, p+"attn_output.weight", hp.Heads*hp.ValueDim, hp.Embd),
				bq:       ld.optional(b, p+"attn_q.bias", qDim),
				bk:       ld.optional(b, p+"attn_k.bias", kvDim),
				bv:       ld.optional(b, p+"attn_v.bias", vDim),
				bo:       ld.optional(b, p+"attn_output.bias", hp.Embd),
				ffnNorm:  ld.tensor(b, p+"ffn_norm.weight", hp.Embd),
			}
			if m.hp.Experts > 0 {
				l.moe = ld.moe(b, p, m.hp, r, nff, m.hp.SharedFFN)
			} else {
				l.ffn = ld.gatedFFN(b, p, "", hp.Embd, nff)
			}
			if v.headNorm {
				l.qNorm = ld.tensor(b, p+"attn_q_norm.weight", hp.HeadDim)
				l.kNorm = ld.tensor(b, p+"attn_k_norm.weight", hp.HeadDim)
			}
			l.noRope = v.noRopeStep > 0 && (i+1)%v.noRopeStep == 0
			m.layers = append(m.layers, l)
		}
		m.rope = hp.rope(v.neox)
		m.rope.Factors = ld.floats("rope_freqs.weight", hp.ropeDims/2)
		m.attn = kernels.AttentionParams{
			Heads: hp.Heads, KVHeads: hp.KVHeads, HeadDim: hp.HeadDim, ValueDim: hp.ValueDim,
			Scale: invSqrt(hp.HeadDim),
		}
		if v.tune != nil {
			v.tune(ld, m)
		}
		if ld.err != nil {
			return nil, ld.err
		}
		return m, nil
	}
}

// forward runs a step through the model.
func (m *llama) forward(ctx context.Context, st *step) ([]float32, error) {
	g, pos := m.graph(), st.pos
	eps := m.hp.eps
	// The input vectors of a picture (LLaVA's) stand in for the negative
	// tokens; Granite's multiplier scales them too, as llama.cpp scales
	// its input embeddings.
	x := m.input(g, st, 0)
	if m.embedScale != 0 {
		x = g.scale(x, m.embedScale)
	}
	temps := m.temperatures(pos)
	for i, l := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = g.on(m.backends[i], x)

		h := g.norm(x, l.attnNorm, eps)
		q := g.linear(h, l.wq, l.bq)
		k := g.linear(h, l.wk, l.bk)
		v := g.linear(h, l.wv, l.bv)
		if l.qNorm != nil {
			q = g.norm(q, l.qNorm, eps)
			k = g.norm(k, l.kNorm, eps)
		}
		if !l.noRope {
			q = g.rope(q, st.rotations(m.rope), m.rope)
			k = g.rope(k, st.rotations(m.rope), m.rope)
		}
		if temps != nil {
			q = g.scaleRows(q, temps)
		}
		a := g.attend(q, k, v, st.layer(i), m.attn)
		x = g.add(x, m.residual(g, g.linear(a, l.wo, l.bo)))
		if x = m.outputsOnly(g, x, st, i); x == nil {
			break
		}

		h = g.norm(x, l.ffnNorm, eps)
		if l.moe != nil {
			x = g.add(x, m.residual(g, g.moe(h, l.moe, kernels.SiLU)))
		} else {
			x = g.add(x, m.residual(g, g.ffn(h, &l.ffn, kernels.SiLU)))
		}
		x = m.addDeepstack(g, x, st, i)
	}
	return m.head(g, x, st, eps)
}

// llamaFFN reads the feed-forward hyperparameters of a member of the
// family into hp and returns the feed-forward length of a dense layer or
// of one expert, and the router of a mixture of experts. A dense layer's
// length is its weights' (ffn_up); llama.cpp's Mixtral experts take
// feed_forward_length, its Qwen MoE experts expert_feed_forward_length or
// else feed_forward_length/k, and the shared expert
// expert_shared_feed_forward_length or else feed_forward_length. Every
// one of them softmaxes the router's logits over all experts; Mixtral and
// Qwen3-MoE normalize the k weights, Qwen2-MoE does not.
func (ld *loader) llamaFFN(hp *hparams, v llamaVariant) (int, router) {
	ld.expertHParams(hp, v.moe)
	if ld.err != nil {
		return 0, router{}
	}
	nff := 0
	if hp.Experts == 0 {
		if _, s, ok := ld.shapeOf("blk.0.ffn_up.weight"); ok && len(s) == 2 {
			nff = s[1]
		}
		hp.FFN = nff
		return nff, router{}
	}
	val, err := ld.f.FeedForwardLength()
	nff = ld.orDefault(val, err, 0)
	if v.moe {
		val, err = ld.f.Uint("%s.expert_feed_forward_length")
		nffExp := ld.orDefault(val, err, nff/hp.ExpertsUsed)
		if v.shared {
			val, err = ld.f.Uint("%s.expert_shared_feed_forward_length")
			hp.SharedFFN = ld.orDefault(val, err, nff)
		}
		nff = nffExp
	}
	if nff == 0 && ld.err == nil {
		ld.fail(fmt.Errorf("hyperparameter %s.expert_feed_forward_length (or feed_forward_length) is missing or 0", hp.Arch))
	}
	hp.FFN = nff
	return nff, router{used: hp.ExpertsUsed, gating: gateSoftmax, norm: !v.shared}
}

// residual scales a residual branch by resScale, if any.
func (m *llama) residual(g *graph, x kernels.Tensor) kernels.Tensor {
	if m.resScale == 0 {
		return x
	}
	return g.scale(x, m.resScale)
}

// temperatures returns the query temperature of each position, as
// llama.cpp's llm_graph_input_attn_temp computes it, or nil when every
// one is 1 (no temperature, or positions below tempFloor).
func (m *llama) temperatures(pos []int32) []float32 {
	if m.temp == 0 || !slices.ContainsFunc(pos, func(p int32) bool { return int(p) >= m.tempFloor }) {
		return nil
	}
	t := make([]float32, len(pos))
	for j, p := range pos {
		f := math.Floor(float64(float32(p) / float32(m.tempFloor)))
		t[j] = float32(float64(math.Log(f+1)*float64(m.temp)) + 1) // not fused, as on x86-64
	}
	return t
}
