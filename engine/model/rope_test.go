package model

import (
	"context"
	"math"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/internal/refdata"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
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
			h.ctxOrig = h.ContextTrain // as commonHParams reads it
			if v, ok := c.keys["rope.scaling.original_context_length"]; ok {
				h.ctxOrig = int(v.(uint32))
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

// TestYaRNMatchesLlamaCpp runs tiny-qwen3-f32 with YaRN scaling keys
// added (rope.scaling.type yarn, factor 4, original context 64: the ramp
// falls over the pairs 0 to 11 of its 128-dim heads), written at test
// time, over 20 tokens, and compares the last token's logits with
// llama.cpp's (commit 3f545bec, CPU, F32 cache without flash attention,
// n_ctx 256, one llama_decode of the same tokens): its first 8 logits and
// its top 5. Saji's differ from them by 1e-6 at most; without YaRN the
// logits move by up to 2.8.
func TestYaRNMatchesLlamaCpp(t *testing.T) {
	src, err := gguf.Open(refdata.Path(t, "models/tiny-qwen3-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	w := gguf.NewWriter()
	for _, kv := range src.KVs() {
		if err := w.Set(kv.Key, kv.Value); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range map[string]any{"rope.scaling.type": "yarn", "rope.scaling.factor": float32(4), "rope.scaling.original_context_length": uint32(64)} {
		if err := w.Set("qwen3."+k, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, ti := range src.Tensors() {
		d, err := src.Data(ti)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddTensor(ti.Name, ti.Type, ti.Shape, d); err != nil {
			t.Fatal(err)
		}
	}
	f := openWritten(t, w)
	m, err := Load(context.Background(), f, Options{Backend: cpu.NewReference(2)})
	if err != nil {
		t.Fatal(err)
	}
	toks := []int32{10, 200, 33, 500, 7, 901, 42, 77, 300, 12, 5, 600, 11, 99, 250, 1000, 3, 450, 800, 64}
	pos := make([]int32, len(toks))
	for i := range pos {
		pos[i] = int32(i)
	}
	c, err := m.NewCache(256, quant.TypeF32)
	if err != nil {
		t.Fatal(err)
	}
	logits, err := m.Forward(context.Background(), toks, pos, c, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]float64{0: -0.504076719, 1: -1.11273694, 2: 1.48526704, 3: 1.30160999, 4: -2.6175499, 5: 2.39956427,
		6: -1.31080127, 7: 2.40819407, 1128: 4.73355532, 541: 4.6916256, 71: 4.66080332, 253: 4.59098244, 710: 4.47840309}
	for i, v := range want {
		if d := math.Abs(float64(logits[i]) - v); d > 1e-5 {
			t.Errorf("logit %d: %g, llama.cpp %g", i, logits[i], v)
		}
	}
}
