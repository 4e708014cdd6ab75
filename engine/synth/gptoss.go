package synth

import "fmt"

// gpt-oss (llama.cpp's openai-moe): attention with biases and sink logits,
// sliding-window layers alternating with global ones, YaRN, and a mixture
// of experts with biases on the router and on every expert.

func init() {
	registerArch("gpt-oss", archSpec{keys: gptOSSKeys, tensors: gptOSSTensors})
	addShapes(
		// gpt-oss-20b: 24 layers of 2880, 64 query heads and 8 KV heads of
		// 64, 32 experts of 2880 with 4 per token, windows of 128.
		Shape{Name: "gpt-oss-20b", Arch: "gpt-oss", Embd: 2880, Layers: 24, Heads: 64, KVHeads: 8, Head: 64,
			FFN: 2880, Experts: 32, ExpertsUsed: 4, ExpertFFN: 2880, Window: 128,
			RopeBase: 150000, Context: 131072, Eps: 1e-5},
		// A small model for conformance tests: windows of 16, so that a
		// prompt slides past them.
		Shape{Name: "tiny-gpt-oss", Arch: "gpt-oss", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, Head: 64,
			FFN: 256, Experts: 4, ExpertsUsed: 2, ExpertFFN: 256, Window: 16,
			RopeBase: 150000, Context: 131072, Eps: 1e-5, Scaled: true},
	)
}

// gptOSSKeys are gpt-oss's keys beyond the common ones: the window and
// the YaRN scaling of the released models (factor 32 over 4096 tokens).
func gptOSSKeys(s Shape) map[string]any {
	return map[string]any{
		"attention.sliding_window":             uint32(s.Window),
		"rope.scaling.type":                    "yarn",
		"rope.scaling.factor":                  float32(32),
		"rope.scaling.original_context_length": uint32(4096),
	}
}

// gptOSSTensors lists a gpt-oss model's tensors in llama.cpp's convert
// order.
func gptOSSTensors(s Shape, vocab int) []TensorSpec {
	e, v, h := int64(s.Embd), int64(vocab), int64(s.Heads)
	q, kv := int64(s.Heads*s.HeadDim()), int64(s.KVHeads*s.HeadDim())
	n, ff := int64(s.Experts), int64(s.ExpertFFN)
	out := []TensorSpec{{Name: "token_embd.weight", Shape: []int64{e, v}}}
	for i := range s.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		out = append(out,
			TensorSpec{Name: p + "attn_norm.weight", Shape: []int64{e}, Ones: true},
			TensorSpec{Name: p + "attn_q.weight", Shape: []int64{e, q}},
			TensorSpec{Name: p + "attn_q.bias", Shape: []int64{q}},
			TensorSpec{Name: p + "attn_k.weight", Shape: []int64{e, kv}},
			TensorSpec{Name: p + "attn_k.bias", Shape: []int64{kv}},
			TensorSpec{Name: p + "attn_v.weight", Shape: []int64{e, kv}},
			TensorSpec{Name: p + "attn_v.bias", Shape: []int64{kv}},
			TensorSpec{Name: p + "attn_output.weight", Shape: []int64{q, e}},
			TensorSpec{Name: p + "attn_output.bias", Shape: []int64{e}},
			TensorSpec{Name: p + "attn_sinks.weight", Shape: []int64{h}},
			TensorSpec{Name: p + "post_attention_norm.weight", Shape: []int64{e}, Ones: true},
			TensorSpec{Name: p + "ffn_gate_inp.weight", Shape: []int64{e, n}},
			TensorSpec{Name: p + "ffn_gate_inp.bias", Shape: []int64{n}},
			TensorSpec{Name: p + "ffn_gate_exps.weight", Shape: []int64{e, ff, n}},
			TensorSpec{Name: p + "ffn_gate_exps.bias", Shape: []int64{ff, n}},
			TensorSpec{Name: p + "ffn_up_exps.weight", Shape: []int64{e, ff, n}},
			TensorSpec{Name: p + "ffn_up_exps.bias", Shape: []int64{ff, n}},
			TensorSpec{Name: p + "ffn_down_exps.weight", Shape: []int64{ff, e, n}},
			TensorSpec{Name: p + "ffn_down_exps.bias", Shape: []int64{e, n}})
	}
	return append(out,
		TensorSpec{Name: "output_norm.weight", Shape: []int64{e}, Ones: true},
		TensorSpec{Name: "output.weight", Shape: []int64{e, v}})
}
