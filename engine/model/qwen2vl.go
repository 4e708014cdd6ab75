package model

import "fmt"

// Qwen2-VL and Qwen2.5-VL's language model (llama.cpp's
// src/models/qwen2vl.cpp): Qwen2's layer, rotated by M-RoPE. Each token
// has four positions (time, height, width, extra) and the head's NeoX
// pairs take them section by section (rope.dimension_sections, in pairs:
// 16, 24, 24, 0 for heads of 128). Text has its position in all four, so
// that its rotation is Qwen2's; a picture's tokens share one time
// position and take their row and column on the picture's grid beside
// it (Batch.Rope), which is what the vision projector's embeddings were
// trained to be read at.
//
// Qwen3-VL's (src/models/qwen3vl.cpp, qwen3vlmoe.cpp) is Qwen3's layer,
// dense or with experts, rotated by IMRoPE (the sections' pairs in turn:
// time, height, width, time, ...), with deepstack: a picture's input
// vector holds, after the embedding the first layer reads, one more for
// each of the first n_deepstack_layers layers, added to the hidden state
// after that layer (Config.Deepstack).

func init() {
	register("qwen2vl", loadLlama(llamaVariant{neox: true, tune: tuneMRoPE(false)}))
	register("qwen3vl", loadLlama(llamaVariant{neox: true, headNorm: true, tune: tuneMRoPE(true)}))
	register("qwen3vlmoe", loadLlama(llamaVariant{neox: true, headNorm: true, moe: true, tune: tuneMRoPE(true)}))
}

// tuneMRoPE returns the tuning of a model rotated by M-RoPE (interleaved:
// IMRoPE). It reads the rope's sections (one to four counts of pairs) and
// the deepstack layers (at most the model's), and marks the model as
// rotating by four positions.
func tuneMRoPE(interleaved bool) func(ld *loader, m *llama) {
	return func(ld *loader, m *llama) {
		m.rope.Interleaved = interleaved
		ds, err := ld.f.Uint("%s.n_deepstack_layers")
		deep := ld.orDefault(ds, err, 0)
		if deep > m.hp.Layers {
			ld.fail(fmt.Errorf("hyperparameter %s.n_deepstack_layers is %d, above the %d layers", m.hp.Arch, deep, m.hp.Layers))
			return
		}
		m.hp.Deepstack = deep
		readSections(ld, m)
	}
}

// readSections reads the rope's sections into m and marks it M-RoPE.
func readSections(ld *loader, m *llama) {
	s, err := ld.f.Int32s("%s.rope.dimension_sections")
	if err != nil || len(s) == 0 || len(s) > 4 {
		ld.fail(fmt.Errorf("hyperparameter %s.rope.dimension_sections: want 1 to 4 counts (%d given): %v", m.hp.Arch, len(s), err))
		return
	}
	sum := 0
	for i, v := range s {
		if v < 0 || v > int32(m.hp.HeadDim) {
			ld.fail(fmt.Errorf("hyperparameter %s.rope.dimension_sections %v: section %d out of range", m.hp.Arch, s, i))
			return
		}
		m.rope.Sections[i] = int(v)
		if i < 3 {
			sum += int(v)
		}
	}
	if sum == 0 {
		ld.fail(fmt.Errorf("hyperparameter %s.rope.dimension_sections %v: no time, height or width section", m.hp.Arch, s))
		return
	}
	m.hp.MRoPE = true
}
