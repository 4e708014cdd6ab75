package synth

// Mixture-of-experts shapes: the Llama family with experts instead of a
// dense feed-forward network (llama.cpp's qwen3moe, qwen2moe, and llama
// with ffn_*_exps as Mixtral has them).

func init() {
	addShapes(
		// Qwen3-30B-A3B (and Qwen3-Coder-30B-A3B): 128 experts of 768, 8
		// per token, 4 KV heads of 128.
		Shape{Name: "qwen3-30b-a3b", Arch: "qwen3moe", Embd: 2048, Layers: 48, Heads: 32, KVHeads: 4, Head: 128,
			FFN: 6144, Experts: 128, ExpertsUsed: 8, ExpertFFN: 768, HeadNorm: true,
			RopeBase: 1000000, Context: 40960, Eps: 1e-6},
		// Small models for conformance tests, as the shared tiny models are
		// made: rows of 256, weights of std 1/√fan-in.
		Shape{Name: "tiny-qwen3moe", Arch: "qwen3moe", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, Head: 128,
			FFN: 1024, Experts: 8, ExpertsUsed: 4, ExpertFFN: 256, HeadNorm: true, Tied: true,
			RopeBase: 1000000, Context: 4096, Eps: 1e-6, Scaled: true},
		Shape{Name: "tiny-qwen2moe", Arch: "qwen2moe", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2,
			FFN: 512, Experts: 4, ExpertsUsed: 2, ExpertFFN: 256, SharedFFN: 512, QKVBias: true,
			RopeBase: 1000000, Context: 4096, Eps: 1e-6, Scaled: true},
		Shape{Name: "tiny-mixtral", Arch: "llama", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2,
			FFN: 512, Experts: 8, ExpertsUsed: 2,
			RopeBase: 1000000, Context: 4096, Eps: 1e-5, Scaled: true},
	)
}

// expertTensors lists layer p's mixture of experts in llama.cpp's convert
// order: the router, the experts' 3-D gate, up and down weights (one
// matrix per expert, of ExpertFFN, or FFN when 0), and the shared expert
// with its gate vector when SharedFFN is set.
func (s Shape) expertTensors(p string) []TensorSpec {
	e, n, ff := int64(s.Embd), int64(s.Experts), int64(s.ExpertFFN)
	if ff == 0 {
		ff = int64(s.FFN)
	}
	out := []TensorSpec{
		{Name: p + "ffn_gate_inp.weight", Shape: []int64{e, n}},
		{Name: p + "ffn_gate_exps.weight", Shape: []int64{e, ff, n}},
		{Name: p + "ffn_down_exps.weight", Shape: []int64{ff, e, n}},
		{Name: p + "ffn_up_exps.weight", Shape: []int64{e, ff, n}},
	}
	if sh := int64(s.SharedFFN); sh > 0 {
		out = append(out,
			TensorSpec{Name: p + "ffn_gate_inp_shexp.weight", Shape: []int64{e}},
			TensorSpec{Name: p + "ffn_gate_shexp.weight", Shape: []int64{e, sh}},
			TensorSpec{Name: p + "ffn_down_shexp.weight", Shape: []int64{sh, e}},
			TensorSpec{Name: p + "ffn_up_shexp.weight", Shape: []int64{e, sh}})
	}
	return out
}
