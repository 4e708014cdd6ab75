package tokenizer

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"saji/engine/gguf"
)

// ggufOf writes metadata to an in-memory GGUF file and opens it.
func ggufOf(t *testing.T, kv map[string]any) *gguf.File {
	t.Helper()
	w := gguf.NewWriter()
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := w.Set(k, kv[k]); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.Encode(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// tinySPMKV is the metadata of a small SPM vocabulary.
func tinySPMKV() map[string]any {
	return map[string]any{
		gguf.KeyArchitecture:      "llama",
		gguf.KeyName:              "tiny",
		gguf.KeyTokenizerModel:    "llama",
		gguf.KeyTokens:            []string{"<unk>", "<s>", "</s>", "▁", "a", "▁a"},
		gguf.KeyScores:            []float32{0, 0, 0, -1, -2, -0.5},
		gguf.KeyTokenType:         []int32{2, 3, 3, 1, 1, 1},
		gguf.KeyBOSTokenID:        uint32(1),
		gguf.KeyEOSTokenID:        uint32(2),
		gguf.KeyUNKTokenID:        uint32(0),
		gguf.KeyPADTokenID:        uint32(0xFFFFFFFF), // "none" in many converters: ignored
		gguf.KeyAddBOSToken:       true,
		gguf.KeyAddEOSToken:       true,
		keyNormalizerLowercase:    false,
		gguf.KeyAddSpacePrefix:    true,
		gguf.KeyRemoveExtraSpaces: false,
	}
}

func TestFromGGUF(t *testing.T) {
	tk, err := FromGGUF(ggufOf(t, tinySPMKV()))
	if err != nil {
		t.Fatal(err)
	}
	if got := tk.Encode("a a", true, false); !slices.Equal(got, []int32{1, 5, 5, 2}) {
		t.Errorf("Encode = %v, want [1 5 5 2]", got)
	}
	if tk.PAD() != -1 || !tk.AddEOS() || tk.Model() != SPM || tk.NumTokens() != 6 {
		t.Errorf("pad %d add_eos %v model %v n %d", tk.PAD(), tk.AddEOS(), tk.Model(), tk.NumTokens())
	}

	// Integer scores are accepted, as llama.cpp does.
	kv := tinySPMKV()
	kv[gguf.KeyScores] = []int32{0, 0, 0, -1, -2, 0}
	if _, err := FromGGUF(ggufOf(t, kv)); err != nil {
		t.Errorf("int32 scores: %v", err)
	}
}

func TestFromGGUFErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(kv map[string]any)
		is   error
		want string
	}{
		{"no model key", func(kv map[string]any) { delete(kv, gguf.KeyTokenizerModel) }, gguf.ErrNotFound, "tokenizer.ggml.model"},
		{"no vocabulary", func(kv map[string]any) { kv[gguf.KeyTokenizerModel] = "none" }, ErrNoVocab, "none"},
		{"no tokens", func(kv map[string]any) { delete(kv, gguf.KeyTokens) }, gguf.ErrNotFound, "token list"},
		{"tokens not strings", func(kv map[string]any) { kv[gguf.KeyTokens] = []int32{1, 2} }, gguf.ErrType, "token list"},
		{"short scores", func(kv map[string]any) { kv[gguf.KeyScores] = []float32{0} }, nil, "1 scores for 6 tokens"},
		{"scores not numbers", func(kv map[string]any) { kv[gguf.KeyScores] = []string{"x"} }, gguf.ErrType, "scores"},
		{"scores a scalar", func(kv map[string]any) { kv[gguf.KeyScores] = float32(1) }, nil, "want an array"},
		{"short types", func(kv map[string]any) { kv[gguf.KeyTokenType] = []int32{1, 1} }, nil, "2 token types"},
		{"types not integers", func(kv map[string]any) { kv[gguf.KeyTokenType] = []float32{1} }, gguf.ErrType, "token_type"},
		{"bad special id type", func(kv map[string]any) { kv[gguf.KeyBOSTokenID] = "one" }, gguf.ErrType, "bos_token_id"},
		{"bad bool", func(kv map[string]any) { kv[gguf.KeyAddBOSToken] = uint8(1) }, gguf.ErrType, "add_bos_token"},
		{"BPE without merges", func(kv map[string]any) { kv[gguf.KeyTokenizerModel] = "gpt2" }, gguf.ErrNotFound, "merges"},
		{"unsupported model", func(kv map[string]any) { kv[gguf.KeyTokenizerModel] = "t5" }, ErrUnsupported, "t5"},
		{"unsupported pre", func(kv map[string]any) {
			kv[gguf.KeyTokenizerModel], kv[gguf.KeyTokenizerPre], kv[gguf.KeyMerges] = "gpt2", "kimi-k2", []string{"a b"}
		}, ErrUnsupported, "kimi-k2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kv := tinySPMKV()
			tt.edit(kv)
			_, err := FromGGUF(ggufOf(t, kv))
			if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("error %v, want %q (is %v)", err, tt.want, tt.is)
			}
		})
	}
}

func TestOpenMissing(t *testing.T) {
	if _, err := Open(t.TempDir() + "/missing.gguf"); err == nil {
		t.Error("Open of a missing file succeeded")
	}
}
