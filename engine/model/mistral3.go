package model

import "errors"

// Mistral 3 (Ministral 3 and Mistral Small 3.x as llama.cpp's
// src/models/mistral3.cpp loads them): the Llama layer, with Llama 4's
// attention temperature. Given attention.temperature_scale β, the queries
// at position p are multiplied by 1 + β·ln(⌊p/n⌋+1) before attention,
// where n is rope.scaling.original_context_length; positions below n are
// unchanged. Ministral 3 files rotate with YaRN, with their own betas and
// log multiplier (the loader's ropeScaling reads them).

func init() { register("mistral3", loadLlama(llamaVariant{tune: tuneMistral3})) }

// tuneMistral3 sets the query temperature.
func tuneMistral3(ld *loader, m *llama) {
	m.temp, m.tempFloor = m.hp.attnTemp, m.hp.ctxOrig
	if m.temp != 0 && m.tempFloor == 0 {
		ld.fail(errors.New("hyperparameter rope.scaling.original_context_length must be above 0 with attention.temperature_scale"))
	}
}
