package model

import (
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/kernels"
)

// TestRopeScaling checks the rope scaling keys as llama.cpp reads them:
// linear scaling (the default type), none, yarn with gpt-oss's keys
// (factor 32, original context 4096: the attention factor, the mscale
// 1+0.1·ln 32 times the inverse of the kernel's same correction, rounds to
// exactly 1 in float32, as for factor 4), yarn without an
// original context (the training one), an attention factor alone, and
// the errors for an unknown type, a negative factor and a yarn without
// any context length.
func TestRopeScaling(t *testing.T) {
	for _, c := range []struct {
		name  string
		keys  map[string]any
		scale float32
		yarn  kernels.YaRN
		err   string
	}{
		{name: "plain", scale: 1},
		{name: "linear default", keys: map[string]any{"rope.scaling.factor": float32(4)}, scale: 0.25},
		{name: "old key", keys: map[string]any{"rope.scale_linear": float32(2)}, scale: 0.5},
		{name: "none", keys: map[string]any{"rope.scaling.type": "none", "rope.scaling.factor": float32(4)}, scale: 1},
		{name: "gpt-oss", keys: map[string]any{"rope.scaling.type": "yarn", "rope.scaling.factor": float32(32),
			"rope.scaling.original_context_length": uint32(4096)}, scale: 1.0 / 32,
			yarn: kernels.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigContext: 4096}},
		{name: "qwen3 yarn", keys: map[string]any{"rope.scaling.type": "yarn", "rope.scaling.factor": float32(4),
			"rope.scaling.attn_factor": float32(0.5)}, scale: 0.25,
			yarn: kernels.YaRN{ExtFactor: 1, AttnFactor: 0.5, BetaFast: 32, BetaSlow: 1, OrigContext: 128}},
		{name: "attn factor", keys: map[string]any{"rope.scaling.attn_factor": float32(1.25)}, scale: 1,
			yarn: kernels.YaRN{AttnFactor: 1.25}},
		{name: "unknown type", keys: map[string]any{"rope.scaling.type": "dynamic"}, err: `rope.scaling.type "dynamic"`},
		{name: "negative factor", keys: map[string]any{"rope.scaling.factor": float32(-2)}, err: "rope.scaling.factor -2"},
		{name: "yarn without context", keys: map[string]any{"rope.scaling.type": "yarn", "rope.scaling.factor": float32(4),
			"context_length": uint32(0)}, err: "original_context_length"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ld := &loader{f: ropeFile(t, c.keys), arch: "llama"}
			h := hparams{Config: Config{ContextTrain: 128}}
			if v, ok := c.keys["context_length"]; ok {
				h.ContextTrain = int(v.(uint32))
			}
			ld.ropeScaling(&h)
			if c.err != "" {
				if ld.err == nil || !strings.Contains(ld.err.Error(), c.err) {
					t.Fatalf("error %v, want one naming %q", ld.err, c.err)
				}
				return
			}
			if ld.err != nil {
				t.Fatal(ld.err)
			}
			if h.ropeScale != c.scale || h.ropeYaRN != c.yarn {
				t.Errorf("scale %g, yarn %+v; want %g, %+v", h.ropeScale, h.ropeYaRN, c.scale, c.yarn)
			}
		})
	}
}

// ropeFile returns a GGUF file of architecture llama holding keys (each
// prefixed with the architecture).
func ropeFile(t *testing.T, keys map[string]any) *gguf.File {
	t.Helper()
	w := gguf.NewWriter()
	if err := w.Set("general.architecture", "llama"); err != nil {
		t.Fatal(err)
	}
	for k, v := range keys {
		if err := w.Set("llama."+k, v); err != nil {
			t.Fatal(err)
		}
	}
	return openWritten(t, w)
}
