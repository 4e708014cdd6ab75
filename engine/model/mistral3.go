package model

import (
	"errors"

	"saji/engine/gguf"
)

// Mistral 3 (Ministral 3 and Mistral Small 3.x as llama.cpp's
// src/models/mistral3.cpp loads them): the Llama layer, with Llama 4's
// attention temperature. Given attention.temperature_scale β, the queries
// at position p are multiplied by 1 + β·ln(⌊p/n⌋+1) before attention,
// where n is rope.scaling.original_context_length; positions below n are
// unchanged.
//
// TODO(yarn): Ministral 3 files rotate with YaRN (rope.scaling.type yarn,
// with yarn_beta_fast, yarn_beta_slow and yarn_log_multiplier). Until
// kernels.RopeParams has YaRN (helper "oss") and the Llama family reads
// it, such files are refused at load rather than run with the wrong
// rotation; then this check goes.

func init() { register("mistral3", loadLlama(llamaVariant{tune: tuneMistral3})) }

// tuneMistral3 sets the query temperature.
func tuneMistral3(ld *loader, m *llama) {
	if ld.stringOr(gguf.KeyRopeScalingType, "") == "yarn" {
		ld.fail(errors.New("hyperparameter rope.scaling.type: YaRN rotation is not supported yet"))
	}
	m.temp, m.tempFloor = m.hp.attnTemp, m.hp.ctxOrig
	if m.temp != 0 && m.tempFloor == 0 {
		ld.fail(errors.New("hyperparameter rope.scaling.original_context_length must be above 0 with attention.temperature_scale"))
	}
}
