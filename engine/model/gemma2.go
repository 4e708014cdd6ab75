package model

// Gemma 2 (llama.cpp's src/models/gemma2.cpp): the Gemma 3 layer
// (gemma3.go) without the q and k norms. Attention scores are soft-capped
// (attn_logit_softcapping, 50 by default) before the softmax, and so are
// the logits (final_logit_softcapping, 30). Layers alternate between a
// sliding window (4096 by default) and global attention, both rotating
// with the same base; the output matrix is always the embeddings.

func init() {
	register("gemma2", loadGemma(gemmaVariant{
		window: 4096, period: 2, attnSoftcap: 50, finalSoftcap: 30,
		globalRopeSWA: true, tied: true, layers27B: 46,
	}))
}
