package model

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/synth"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// denseShapes are the tiny synthetic shapes of the dense architectures
// beyond the Llama family, with the magnitude their logits cannot exceed
// (Gemma 2's final softcap; 0: no bound), and how far a token's logits
// may move between a batch and a run alone: GELU's FP16 table (Gemma 2)
// turns a last-bit difference of the matrix products' order into 1e-4.
var denseShapes = []struct {
	shape      string
	bound, tol float64
}{
	{"tiny-gemma2", 10, 1e-3},
	{"tiny-mistral3", 0, 1e-4},
	{"tiny-smollm3", 0, 1e-4},
	{"tiny-granite", 0, 1e-4},
	{"tiny-olmo2", 0, 1e-4},
	{"tiny-gemma4", 10, 1e-3},
}

// writeSynth writes a synthetic model of the named shape with the mini
// vocabulary and opens it.
func writeSynth(t *testing.T, shape, typ string, seed uint64) *gguf.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), shape+".gguf")
	if err := synth.WriteShape(context.Background(), p, shape, typ, seed); err != nil {
		t.Fatal(err)
	}
	return openFile(t, p)
}

// openFile opens the GGUF file at path until the test ends.
func openFile(t *testing.T, path string) *gguf.File {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestDenseArchs writes each dense architecture's tiny model and checks,
// on the oracle and the SIMD kernels, that its logits are finite, differ
// between tokens and stay within the softcap, that a second run gives the
// same bits, and that a prompt run token by token through the cache gives
// the logits of the prompt run at once (F32 weights take tinyBLAS's order
// for a batch, as in llama.cpp, hence a tolerance). llama.cpp's own figures
// for these models are TestConformance's (testdata/ref/tiny-*.json).
func TestDenseArchs(t *testing.T) {
	tokens := []int32{1, 260, 261, 262, 263, 264, 265, 266, 50, 100, 150, 200, 7, 8, 9, 10, 11, 12, 13, 14}
	pos := span(0, len(tokens))
	ctx := context.Background()
	for _, c := range denseShapes {
		t.Run(c.shape, func(t *testing.T) {
			f := writeSynth(t, c.shape, "f32", 3)
			for _, b := range []*cpu.Backend{cpu.NewReference(2), cpu.New(2)} {
				m, err := Load(ctx, f, Options{Backend: b})
				if err != nil {
					t.Fatal(err)
				}
				vocab := m.Config().Vocab
				run := func() []float32 {
					cache, err := m.NewCache(32, quant.TypeF32)
					if err != nil {
						t.Fatal(err)
					}
					out, err := m.Forward(ctx, tokens, pos, cache, true)
					if err != nil {
						t.Fatal(err)
					}
					return out
				}
				all := run()
				for i, v := range run() {
					if v != all[i] {
						t.Fatalf("%s: logit %d is %g, then %g", b.Kernels(), i, all[i], v)
					}
				}
				checkSane(t, all, vocab, c.bound)
				cache, err := m.NewCache(32, quant.TypeF32)
				if err != nil {
					t.Fatal(err)
				}
				worst := 0.0
				for i, tok := range tokens {
					one, err := m.Forward(ctx, []int32{tok}, []int32{int32(i)}, cache, false)
					if err != nil {
						t.Fatal(err)
					}
					for j, v := range one {
						worst = max(worst, math.Abs(float64(v-all[i*vocab+j])))
					}
				}
				if worst > c.tol {
					t.Errorf("%s: token by token differs from the batch by %.2g", b.Kernels(), worst)
				}
			}
		})
	}
}

// checkSane checks that logits are finite, within bound (if any), and not
// flat: each row spreads over more than 0.1.
func checkSane(t *testing.T, logits []float32, vocab int, bound float64) {
	t.Helper()
	for r := 0; r < len(logits)/vocab; r++ {
		row := logits[r*vocab : (r+1)*vocab]
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range row {
			x := float64(v)
			if math.IsNaN(x) || math.IsInf(x, 0) || (bound > 0 && math.Abs(x) > bound) {
				t.Fatalf("row %d: logit %g", r, x)
			}
			lo, hi = min(lo, x), max(hi, x)
		}
		if hi-lo < 0.1 {
			t.Fatalf("row %d: logits span only [%g, %g]", r, lo, hi)
		}
	}
}

// TestDenseForwardBatch runs the dense architectures' reference prompts as
// a continuously batched mix over a paged cache (Gemma 2's sliding-window
// group among them) and checks each sequence against its run alone.
func TestDenseForwardBatch(t *testing.T) {
	for _, c := range []struct {
		model string
		kv    quant.Type
		exact bool
	}{
		{"tiny-gemma2-q8_0", quant.TypeF16, true},
		{"tiny-mistral3-f32", quant.TypeF32, false},
		{"tiny-smollm3-f32", quant.TypeQ8_0, false},
		{"tiny-granite-f32", quant.TypeF16, false},
		{"tiny-olmo2-f32", quant.TypeF32, false},
		{"tiny-gemma4-q8_0", quant.TypeF16, true},
		{"tiny-gemma4moe-f32", quant.TypeQ8_0, false},
	} {
		t.Run(c.model, func(t *testing.T) {
			if raceEnabled {
				t.Skip("the race detector slows the forward pass tenfold")
			}
			ref, m, _ := loadRef(t, c.model, cpu.New(2))
			testForwardBatch(t, m, ref, c.kv, c.exact)
		})
	}
}

// TestDenseLoadErrors checks that hyperparameters out of place fail the
// load with the key's name.
func TestDenseLoadErrors(t *testing.T) {
	for _, c := range []struct {
		shape, key string
		value      any
		want       string
	}{
		{"tiny-granite", "granite.logit_scale", float32(0), "logit_scale"},
		{"tiny-granite", "granite.embedding_scale", "twelve", "embedding_scale"},
		{"tiny-mistral3", "mistral3.rope.scaling.original_context_length", uint32(0), "original_context_length"},
		{"tiny-mistral3", "mistral3.rope.scaling.type", "ntk", "rope.scaling.type"},
		{"tiny-gemma2", "gemma2.attention.sliding_window_pattern", "two", "sliding_window_pattern"},
		{"tiny-gemma2", "gemma2.attn_logit_softcapping", "fifty", "attn_logit_softcapping"},
		{"tiny-gemma4", "gemma4.attention.key_length_swa", uint32(0), "key_length_swa"},
		{"tiny-gemma4", "gemma4.attention.shared_kv_layers", uint32(5), "shared KV"},
		{"tiny-gemma4", "gemma4.attention.sliding_window_pattern", []bool{true}, "sliding_window_pattern"},
		{"tiny-gemma4", "gemma4.attention.head_count_kv", []uint32{2, 2, 3, 2, 2, 1}, "KV heads"},
	} {
		t.Run(c.key, func(t *testing.T) {
			f := withKey(t, writeSynth(t, c.shape, "q8_0", 1), c.key, c.value)
			_, err := Load(context.Background(), f, Options{Threads: 1})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("load: %v, want an error naming %s", err, c.want)
			}
			if _, err := Describe(f); err == nil {
				t.Error("describe: no error")
			}
		})
	}
	// OLMo 3's per-layer pattern is not a period: the default (every
	// fourth layer global) applies, as in llama.cpp.
	f := withKey(t, writeSynth(t, "tiny-olmo2", "q8_0", 1), "olmo2.attention.sliding_window", uint32(16))
	f = withKey(t, f, "olmo2.attention.sliding_window_pattern", []bool{true, false})
	d, err := Describe(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{16, 16}; !slices.Equal(d.Windows, want) {
		t.Errorf("olmo2 with a pattern array: windows %v, want %v", d.Windows, want)
	}
	// OLMo 2 has no tied output.
	f = writeSynth(t, "tiny-olmo2", "q8_0", 1)
	if _, err := Load(context.Background(), withoutTensor(t, f, "output.weight"), Options{Threads: 1}); err == nil ||
		!strings.Contains(err.Error(), "output.weight") {
		t.Errorf("olmo2 without output.weight: %v", err)
	}
}

// withKey returns f with metadata key set to v (replaced if present).
func withKey(t *testing.T, f *gguf.File, key string, v any) *gguf.File {
	t.Helper()
	return rewrite(t, f, func(w *gguf.Writer) {
		if err := w.Set(key, v); err != nil {
			t.Fatal(err)
		}
	}, "")
}

// withoutTensor returns f without the tensor called name.
func withoutTensor(t *testing.T, f *gguf.File, name string) *gguf.File {
	t.Helper()
	return rewrite(t, f, nil, name)
}

// rewrite copies f's metadata and tensors (but drop) into a new file,
// calling edit on the writer before it is encoded.
func rewrite(t *testing.T, f *gguf.File, edit func(w *gguf.Writer), drop string) *gguf.File {
	t.Helper()
	w := gguf.NewWriter()
	for _, kv := range f.KVs() {
		if err := w.Set(kv.Key, kv.Value); err != nil {
			t.Fatal(err)
		}
	}
	for _, ti := range f.Tensors() {
		if ti.Name == drop {
			continue
		}
		data, err := f.Data(ti)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddTensor(ti.Name, ti.Type, ti.Shape, data); err != nil {
			t.Fatal(err)
		}
	}
	if edit != nil {
		edit(w)
	}
	p := filepath.Join(t.TempDir(), "edited.gguf")
	if err := w.WriteFile(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return openFile(t, p)
}
