package synth

import (
	"slices"
	"strings"
)

// The dense architectures beyond the Llama family's three: tiny shapes for
// conformance tests (rows of 256, Scaled weights), each with keys chosen so
// that its twist shows in the logits of a short prompt: a small window and
// softcaps for Gemma 2, a temperature that starts at position 8 for
// Mistral 3, a layer without rotation for SmolLM3, multipliers far from 1
// for Granite.

func init() {
	registerArch("gemma2", archSpec{
		keys: func(s Shape) map[string]any {
			return map[string]any{
				"attention.sliding_window": uint32(s.Window),
				"attn_logit_softcapping":   float32(5),
				"final_logit_softcapping":  float32(10),
			}
		},
		tensors: func(s Shape, vocab int) []TensorSpec {
			return edit(s.llamaTensors(vocab), nil, map[string][]TensorSpec{
				"attn_output.weight": {{Name: "post_attention_norm.weight", Shape: []int64{int64(s.Embd)}, Ones: true}},
				"ffn_down.weight":    {{Name: "post_ffw_norm.weight", Shape: []int64{int64(s.Embd)}, Ones: true}},
			})
		},
	})
	registerArch("mistral3", archSpec{
		keys: func(Shape) map[string]any {
			return map[string]any{
				"attention.temperature_scale":          float32(0.1),
				"rope.scaling.original_context_length": uint32(8),
				"rope.scaling.type":                    "yarn",
				"rope.scaling.factor":                  float32(16),
				"rope.scaling.yarn_beta_fast":          float32(32),
				"rope.scaling.yarn_beta_slow":          float32(1),
				"rope.scaling.yarn_log_multiplier":     float32(1),
			}
		},
	})
	registerArch("smollm3", archSpec{})
	// Qwen2-VL's language model: Qwen2's tensors, and M-RoPE's sections
	// scaled from the real 16, 24, 24, 0 of 64 pairs to the head's.
	registerArch("qwen2vl", archSpec{
		keys: func(s Shape) map[string]any {
			pairs := s.HeadDim() / 2
			t := pairs / 4
			return map[string]any{"rope.dimension_sections": []int32{int32(t), int32((pairs - t) / 2), int32((pairs - t) / 2), 0}}
		},
	})
	// Qwen3-VL's: Qwen3's tensors, IMRoPE's sections scaled from the real
	// 24, 20, 20, 0 of 64 pairs, and the deepstack layers.
	registerArch("qwen3vl", archSpec{
		keys: func(s Shape) map[string]any {
			pairs := s.HeadDim() / 2
			t := pairs * 24 / 64
			return map[string]any{
				"rope.dimension_sections": []int32{int32(t), int32((pairs - t) / 2), int32((pairs - t) / 2), 0},
				"n_deepstack_layers":      uint32(s.Deepstack),
			}
		},
	})
	registerArch("granite", archSpec{
		keys: func(Shape) map[string]any {
			return map[string]any{
				"embedding_scale": float32(12),
				"residual_scale":  float32(0.22),
				"attention.scale": float32(0.015625),
				"logit_scale":     float32(8),
			}
		},
	})
	registerArch("olmo2", archSpec{
		tensors: func(s Shape, vocab int) []TensorSpec {
			e, q, kv := int64(s.Embd), int64(s.Heads*s.HeadDim()), int64(s.KVHeads*s.HeadDim())
			return edit(s.llamaTensors(vocab), []string{"attn_norm.weight", "ffn_norm.weight"}, map[string][]TensorSpec{
				"attn_v.weight": {
					{Name: "attn_q_norm.weight", Shape: []int64{q}, Ones: true},
					{Name: "attn_k_norm.weight", Shape: []int64{kv}, Ones: true},
				},
				"attn_output.weight": {{Name: "post_attention_norm.weight", Shape: []int64{e}, Ones: true}},
				"ffn_down.weight":    {{Name: "post_ffw_norm.weight", Shape: []int64{e}, Ones: true}},
			})
		},
	})
	addShapes(
		Shape{Name: "tiny-gemma2", Arch: "gemma2", Embd: 256, Layers: 4, Heads: 4, KVHeads: 2, FFN: 512,
			Tied: true, Window: 16, RopeBase: 10000, Context: 8192, Eps: 1e-6, Scaled: true},
		Shape{Name: "tiny-mistral3", Arch: "mistral3", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
			RopeBase: 1000000, Context: 32768, Eps: 1e-5, Scaled: true},
		Shape{Name: "tiny-smollm3", Arch: "smollm3", Embd: 256, Layers: 4, Heads: 4, KVHeads: 1, FFN: 512,
			Tied: true, RopeBase: 2000000, Context: 65536, Eps: 1e-6, Scaled: true},
		Shape{Name: "tiny-granite", Arch: "granite", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
			Tied: true, RopeBase: 10000000, Context: 131072, Eps: 1e-5, Scaled: true},
		Shape{Name: "tiny-olmo2", Arch: "olmo2", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
			RopeBase: 500000, Context: 4096, Eps: 1e-6, Scaled: true},
	)
}

// edit returns ts without the tensors whose names end in one of drop, and
// with the tensors after[suffix] following each tensor whose name ends in
// suffix, named in its block.
func edit(ts []TensorSpec, drop []string, after map[string][]TensorSpec) []TensorSpec {
	var out []TensorSpec
	for _, t := range ts {
		block, name := "", t.Name
		if rest, ok := strings.CutPrefix(t.Name, "blk."); ok {
			n, tail, _ := strings.Cut(rest, ".")
			block, name = "blk."+n+".", tail
		}
		if slices.Contains(drop, name) {
			continue
		}
		out = append(out, t)
		for _, a := range after[name] {
			a.Name = block + a.Name
			out = append(out, a)
		}
	}
	return out
}
