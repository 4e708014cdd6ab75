package model

import (
	"cmp"
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
// before attention, and the logits may be soft-capped. Gemma 2 (gemma2.go)
// is the same layer without the q and k norms and with soft-capped
// attention scores.

func init() {
	register("gemma3", loadGemma(gemmaVariant{headNorm: true, period: 6, layers27B: 62}))
}

// gemmaVariant is what distinguishes Gemma 2 from Gemma 3, and llama.cpp's
// defaults for keys a file may lack.
type gemmaVariant struct {
	headNorm bool // per-head RMSNorm of q and k (Gemma 3)
	// window is the sliding window when the file has none (0: no local
	// layers), period the sliding_window_pattern.
	window, period int
	// attnSoftcap and finalSoftcap are the softcaps when the file has none
	// (0: none).
	attnSoftcap, finalSoftcap float32
	// globalRopeSWA: local layers rotate with the global base (unless
	// rope.freq_base_swa says otherwise) and scale (Gemma 2), instead of
	// base 10000 and no scaling (Gemma 3).
	globalRopeSWA bool
	// tied models always take token_embd as the output (Gemma 2).
	tied bool
	// layers27B is the layer count of the 27B, which scales queries by
	// n_embd/n_head instead of the head length.
	layers27B int
}

type gemmaLayer struct {
	attnNorm, postAttnNorm kernels.Tensor
	wq, wk, wv, wo         kernels.Tensor
	qNorm, kNorm           kernels.Tensor // Gemma 3
	ffnNorm, postFFNNorm   kernels.Tensor
	ffnGate, ffnUp, down   kernels.Tensor
	rope                   kernels.RopeParams
	attn                   kernels.AttentionParams
}

type gemma struct {
	base
	layers     []gemmaLayer
	embedScale float32
	queryScale float32
}

func loadGemma(v gemmaVariant) loaderFunc {
	return func(ld *loader) (arch, error) {
		m := &gemma{base: ld.loadBase()}
		hp := m.hp
		if ld.err != nil {
			return nil, ld.err
		}
		if hp.window == 0 {
			hp.window = v.window
		}
		m.windows = hp.swaLayers(v.period)
		swaBase, swaScale := hp.swaBase, float32(1)
		if v.globalRopeSWA {
			swaScale = hp.ropeScale
			if swaBase == 0 {
				swaBase = hp.ropeBase
			}
		} else if swaBase == 0 {
			swaBase = 10000
		}
		attnSoftcap := cmp.Or(hp.attnSoftcap, v.attnSoftcap)
		m.softcap = cmp.Or(hp.finalSoftcap, v.finalSoftcap)
		if v.tied {
			m.output = m.tokEmbd
		}
		m.embedScale = float32(math.Sqrt(float64(float32(hp.Embd))))
		m.hp.Vectors = v.headNorm // Gemma 3 reads a picture's embeddings
		m.queryScale = invSqrt(hp.HeadDim)
		if hp.Layers == v.layers27B {
			m.queryScale = invSqrt(hp.Embd / hp.Heads)
		}
		qDim, kvDim, vDim := hp.Heads*hp.HeadDim, hp.KVHeads*hp.HeadDim, hp.KVHeads*hp.ValueDim
		nff := ld.ffnRows()
		m.hp.FFN = nff
		for i := range hp.Layers {
			b := m.backends[i]
			p := fmt.Sprintf("blk.%d.", i)
			l := gemmaLayer{
				attnNorm:     ld.tensor(b, p+"attn_norm.weight", hp.Embd),
				wq:           ld.tensor(b, p+"attn_q.weight", hp.Embd, qDim),
				wk:           ld.tensor(b, p+"attn_k.weight", hp.Embd, kvDim),
				wv:           ld.tensor(b, p+"attn_v.weight", hp.Embd, vDim),
				wo:           ld.tensor(b, p+"attn_output.weight", hp.Heads*hp.ValueDim, hp.Embd),
				postAttnNorm: ld.tensor(b, p+"post_attention_norm.weight", hp.Embd),
				ffnNorm:      ld.tensor(b, p+"ffn_norm.weight", hp.Embd),
				ffnGate:      ld.tensor(b, p+"ffn_gate.weight", hp.Embd, nff),
				ffnUp:        ld.tensor(b, p+"ffn_up.weight", hp.Embd, nff),
				down:         ld.tensor(b, p+"ffn_down.weight", nff, hp.Embd),
				postFFNNorm:  ld.tensor(b, p+"post_ffw_norm.weight", hp.Embd),
			}
			if v.headNorm {
				l.qNorm = ld.tensor(b, p+"attn_q_norm.weight", hp.HeadDim)
				l.kNorm = ld.tensor(b, p+"attn_k_norm.weight", hp.HeadDim)
			}
			l.rope = kernels.RopeParams{HeadDim: hp.HeadDim, Dims: hp.ropeDims, Base: hp.ropeBase, FreqScale: hp.ropeScale, Neox: true}
			l.attn = kernels.AttentionParams{
				Heads: hp.Heads, KVHeads: hp.KVHeads, HeadDim: hp.HeadDim, ValueDim: hp.ValueDim,
				Scale: 1, Softcap: attnSoftcap, Window: m.windows[i],
			}
			if l.attn.Window > 0 {
				l.rope.Base, l.rope.FreqScale = swaBase, swaScale
			}
			m.layers = append(m.layers, l)
		}
		if ld.err != nil {
			return nil, ld.err
		}
		return m, nil
	}
}

// forward runs a step through the model.
func (m *gemma) forward(ctx context.Context, st *step) ([]float32, error) {
	g, pos := m.graph(), st.pos
	eps := m.hp.eps
	x := m.input(g, st, m.embedScale)
	for i, l := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x = g.on(m.backends[i], x)

		h := g.norm(x, l.attnNorm, eps)
		q := g.linear(h, l.wq, nil)
		k := g.linear(h, l.wk, nil)
		v := g.linear(h, l.wv, nil)
		if l.qNorm != nil {
			q = g.norm(q, l.qNorm, eps)
			k = g.norm(k, l.kNorm, eps)
		}
		q = g.scale(g.rope(q, pos, l.rope), m.queryScale)
		k = g.rope(k, pos, l.rope)
		a := g.attend(q, k, v, st.layer(i), l.attn)
		x = g.add(x, g.norm(g.linear(a, l.wo, nil), l.postAttnNorm, eps))
		if x = m.outputsOnly(g, x, st, i); x == nil {
			break
		}

		h = g.norm(x, l.ffnNorm, eps)
		h = g.glu(g.linear(h, l.ffnGate, nil), g.linear(h, l.ffnUp, nil), kernels.GELU)
		x = g.add(x, g.norm(g.linear(h, l.down, nil), l.postFFNNorm, eps))
	}
	return m.head(g, x, st, eps)
}
