package runner

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/engine/tokenizer/g4vocab"
)

// TestLoadGemma4Vocabulary loads a Gemma 4 model whose vocabulary is Gemma
// 4's own kind (tokenizer.ggml.model "gemma4", as real files have), which
// was refused as unsupported before the tokenizer knew it, and generates
// from it.
func TestLoadGemma4Vocabulary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny-gemma4-g4vocab.gguf")
	ctx := context.Background()
	if err := g4vocab.WriteModel(ctx, path, 1); err != nil {
		t.Fatal(err)
	}
	m, err := Load(ctx, path, LoadOptions{Name: "g4", Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 1}})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	defer m.Close()
	tk := m.Tokenizer()
	if tk.Pre() != "gemma4" || tk.BOS() != g4vocab.BOS {
		t.Fatalf("tokenizer pre %q bos %d", tk.Pre(), tk.BOS())
	}
	toks, err := m.Prompt(ctx, Request{Prompt: "Hello world\n\n"})
	if err != nil {
		t.Fatal(err)
	}
	if want := tk.Encode("Hello world\n\n", true, true); !slices.Equal(toks, want) || toks[0] != g4vocab.BOS {
		t.Fatalf("prompt %v, want %v starting with BOS", toks, want)
	}
	res, err := m.Generate(ctx, Request{Tokens: toks, MaxTokens: 4, Sampling: sample.Greedy(), IgnoreEOS: true},
		func(Piece) error { return nil })
	if err != nil || res.CompletionTokens != 4 {
		t.Fatalf("generate: %+v, %v", res, err)
	}
}
