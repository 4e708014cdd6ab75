package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// runGGUF runs 'gguf args...' and returns its output.
func runGGUF(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newGGUFCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

// writeTestModel writes a small model with a long array and a nested one.
func writeTestModel(t *testing.T) string {
	t.Helper()
	w := gguf.NewWriter()
	tokens := make([]string, 40)
	for i := range tokens {
		tokens[i] = string(rune('a' + i%26))
	}
	inner, _ := gguf.NewArray([]int32{1, 2})
	nested, _ := gguf.NewArray([]gguf.Value{inner})
	for _, kv := range []struct {
		k string
		v any
	}{
		{"general.architecture", "llama"},
		{"general.name", "Test Model"},
		{"general.file_type", uint32(15)},
		{"llama.context_length", uint32(2048)},
		{"llama.embedding_length", uint32(32)},
		{"llama.block_count", uint32(1)},
		{"llama.attention.head_count", uint32(4)},
		{"llama.attention.head_count_kv", uint32(2)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"test.nan", float32(0) / zero32()},
		{"test.nested", nested},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.bos_token_id", uint32(1)},
		{"tokenizer.ggml.eos_token_id", uint32(2)},
	} {
		if err := w.Set(kv.k, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AddTensor("token_embd.weight", quant.TypeF32, []int64{32, 40}, make([]byte, 32*40*4)); err != nil {
		t.Fatal(err)
	}
	if err := w.AddTensor("output_norm.weight", quant.TypeF16, []int64{32}, make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "test.gguf")
	if err := w.WriteFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	return path
}

func zero32() float32 { return 0 }

func TestGGUFSummary(t *testing.T) {
	path := writeTestModel(t)
	out, err := runGGUF(t, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"file:", "test.gguf",
		"GGUF version:", "3",
		"architecture:", "llama",
		"name:", "Test Model",
		"parameters:", "1.31 K",
		"file type:", "Q4_K_M (Q4_K - Medium)",
		"context length:", "2048",
		"layers:", "1",
		"attention heads:", "4 (2 KV)",
		"tokenizer:", "llama, 40 tokens, BOS 1, EOS 2",
		"tensors:", "F32", "1 tensors, 5.1 kB",
		"F16", "1 tensors, 64 B",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "token_embd.weight") {
		t.Error("tensor list shown without --full")
	}
	out, err = runGGUF(t, path, "--full")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"general.name = \"Test Model\"", "token_embd.weight", "[32 40]", "test.nested = [[1, 2]]"} {
		if !strings.Contains(out, want) {
			t.Errorf("--full output lacks %q:\n%s", want, out)
		}
	}
}

func TestGGUFJSON(t *testing.T) {
	path := writeTestModel(t)
	for _, full := range []bool{false, true} {
		args := []string{path, "--json"}
		if full {
			args = append(args, "--full")
		}
		out, err := runGGUF(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Version  int                        `json:"version"`
			Metadata map[string]json.RawMessage `json:"metadata"`
			Tensors  []struct {
				Name   string  `json:"name"`
				Type   string  `json:"type"`
				Shape  []int64 `json:"shape"`
				Offset uint64  `json:"offset"`
				Size   int64   `json:"size"`
			} `json:"tensors"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("invalid JSON: %v\n%s", err, out)
		}
		if doc.Version != 3 || len(doc.Metadata) != 15 || len(doc.Tensors) != 2 {
			t.Fatalf("version %d, %d keys, %d tensors", doc.Version, len(doc.Metadata), len(doc.Tensors))
		}
		if tt := doc.Tensors[1]; tt.Name != "output_norm.weight" || tt.Type != "F16" || tt.Offset != 5120 || tt.Size != 64 || len(tt.Shape) != 1 {
			t.Errorf("tensor 1 = %+v", tt)
		}
		for key, want := range map[string]string{
			"general.name":                           `"Test Model"`,
			"llama.attention.layer_norm_rms_epsilon": `1e-05`,
			"test.nan":                               `"NaN"`,
			"test.nested":                            `[[1,2]]`,
		} {
			var c bytes.Buffer
			_ = json.Compact(&c, doc.Metadata[key])
			if got := c.String(); got != want {
				t.Errorf("%s = %s, want %s", key, got, want)
			}
		}
		var c bytes.Buffer
		_ = json.Compact(&c, doc.Metadata["tokenizer.ggml.tokens"])
		tokens := c.String()
		summarised := strings.HasPrefix(tokens, `{"type":"array","element_type":"string","length":40,"head":["a",`)
		if summarised == full {
			t.Errorf("full=%v: tokens = %s", full, tokens)
		}
		// Keys appear in file order.
		if i, j := strings.Index(out, "general.architecture"), strings.Index(out, "tokenizer.ggml.eos_token_id"); i < 0 || j < i {
			t.Error("metadata not in file order")
		}
	}
}

func TestGGUFErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := runGGUF(t, filepath.Join(dir, "missing.gguf"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "gguf: ") {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.gguf")
	if err := os.WriteFile(bad, []byte("GGUF\x03\x00\x00\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runGGUF(t, bad); !errors.Is(err, gguf.ErrFormat) || !strings.Contains(err.Error(), "bad.gguf") {
		t.Errorf("invalid file: %v", err)
	}
	if _, err := runGGUF(t, dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
	if _, err := runGGUF(t); err == nil {
		t.Error("no argument accepted")
	}
}

func TestGGUFStories(t *testing.T) {
	path := refdata.Path(t, "models/stories260K.gguf")
	out, err := runGGUF(t, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"architecture:", "llama", "parameters:", "292.80 K", "context length:", "2048",
		"layers:", "5", "8 (4 KV)", "512 tokens", "BOS 1, EOS 2", "tensors:", "48", "F32", "48 tensors"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = runGGUF(t, path, "--json")
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid([]byte(out)) {
		t.Fatal("invalid JSON")
	}
	lines := strings.SplitN(out, "\n", 41)
	t.Logf("first lines of --json:\n%s", strings.Join(lines[:min(40, len(lines))], "\n"))
}
