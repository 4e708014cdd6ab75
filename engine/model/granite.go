package model

import "errors"

// Granite 3.x (llama.cpp's src/models/granite.cpp): the Llama layer under
// four multipliers. The embeddings are multiplied by embedding_scale, each
// residual branch (attention and feed-forward output) by residual_scale
// before it is added, the scores q·k by attention.scale instead of
// 1/√head, and the logits are divided by logit_scale (the one required
// key). rope.scaling.finetuned false turns the rotation off in every layer.

func init() { register("granite", loadLlama(llamaVariant{tune: tuneGranite})) }

// tuneGranite sets Granite's multipliers.
func tuneGranite(ld *loader, m *llama) {
	hp := m.hp
	if hp.logitScale == 0 {
		ld.fail(errors.New("hyperparameter logit_scale is missing or 0"))
		return
	}
	m.embedScale, m.resScale = hp.embedScale, hp.resScale
	m.outScale = 1 / hp.logitScale
	if hp.attnScale != 0 {
		m.attn.Scale = hp.attnScale
	}
	for i := range m.layers {
		m.layers[i].noRope = m.layers[i].noRope || hp.noRope
	}
}
