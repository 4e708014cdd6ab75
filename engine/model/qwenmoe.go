package model

// The Qwen mixtures of experts (llama.cpp's src/models/qwen2moe.cpp and
// qwen3moe.cpp) are Qwen2 and Qwen3 with every feed-forward network a
// mixture of experts: a softmax router over expert_count experts, of which
// expert_used_count run per token. Qwen3-MoE normalizes the chosen
// weights; Qwen2-MoE does not, and adds a shared expert that every token
// runs, scaled by the sigmoid of its own gate. The forward pass is the
// Llama family's (llama.go).

func init() {
	register("qwen2moe", loadLlama(llamaVariant{neox: true, moe: true, shared: true}))
	register("qwen3moe", loadLlama(llamaVariant{neox: true, headNorm: true, moe: true}))
}
