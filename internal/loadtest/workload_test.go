package loadtest

import (
	"slices"
	"strings"
	"testing"

	"saji/engine/tokenizer"
	"saji/internal/refdata"
)

func TestSyntheticWords(t *testing.T) {
	s := Synthetic{Requests: 20, PromptLen: 30, SharedPrefix: 50, OutputLen: 16, Seed: 1}
	a, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Build()
	if !slices.Equal(a, b) {
		t.Error("the same seed gave two workloads")
	}
	s.Seed = 2
	if c, _ := s.Build(); slices.Equal(a, c) {
		t.Error("two seeds gave the same workload")
	}
	prefix, _ := SharedPrefixText(50, 1, nil)
	if n := len(strings.Fields(prefix)); n != 50 {
		t.Fatalf("prefix of %d words, want 50", n)
	}
	for i, it := range a {
		if !strings.HasPrefix(it.Prompt, prefix+" ") {
			t.Errorf("prompt %d lacks the shared prefix", i)
		}
		if n := len(strings.Fields(it.Prompt)); n != 80 {
			t.Errorf("prompt %d has %d words, want 80", i, n)
		}
		if it.PromptTokens != 0 || it.OutputLen != 16 {
			t.Errorf("prompt %d: %d tokens, output %d", i, it.PromptTokens, it.OutputLen)
		}
	}
	if a[0].Prompt == a[1].Prompt {
		t.Error("two prompts are the same")
	}
}

func TestSyntheticTokenizer(t *testing.T) {
	tk := wordTokenizer{n: 100}
	its, err := Synthetic{Requests: 5, PromptLen: 12, SharedPrefix: 8, OutputLen: 4, Seed: 3, Tokenizer: tk}.Build()
	if err != nil {
		t.Fatal(err)
	}
	prefix, err := SharedPrefixText(8, 3, tk)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tk.Encode(prefix, false, false)); n != 8 {
		t.Fatalf("prefix of %d tokens, want 8", n)
	}
	for i, it := range its {
		if n := len(tk.Encode(it.Prompt, false, false)); n != 20 || it.PromptTokens != 20 {
			t.Errorf("prompt %d: %d tokens (recorded %d), want 20", i, n, it.PromptTokens)
		}
		if !strings.HasPrefix(it.Prompt, prefix) {
			t.Errorf("prompt %d lacks the shared prefix", i)
		}
		if strings.Contains(it.Prompt, "<s>") || strings.Contains(it.Prompt, "w0 ") {
			t.Errorf("prompt %d has a control token: %q", i, it.Prompt)
		}
	}
}

// TestSyntheticRealVocab builds prompts with real vocabularies, whose
// re-encoding merges and splits tokens, and checks the lengths are exact.
func TestSyntheticRealVocab(t *testing.T) {
	for _, name := range []string{"vocab/ggml-vocab-llama-spm.gguf", "vocab/ggml-vocab-gpt-2.gguf"} {
		t.Run(name, func(t *testing.T) {
			tk, err := tokenizer.Open(refdata.Path(t, name))
			if err != nil {
				t.Fatal(err)
			}
			its, err := Synthetic{Requests: 4, PromptLen: 64, SharedPrefix: 32, OutputLen: 8, Seed: 9, Tokenizer: tk}.Build()
			if err != nil {
				t.Fatal(err)
			}
			prefix, _ := SharedPrefixText(32, 9, tk)
			for i, it := range its {
				if n := len(tk.Encode(it.Prompt, false, false)); n != 96 || it.PromptTokens != n {
					t.Errorf("prompt %d: %d tokens (recorded %d), want 96", i, n, it.PromptTokens)
				}
				if !strings.HasPrefix(it.Prompt, prefix) {
					t.Errorf("prompt %d lacks the shared prefix", i)
				}
			}
		})
	}
}

func TestSyntheticErrors(t *testing.T) {
	for _, s := range []Synthetic{
		{Requests: 1, PromptLen: 0, OutputLen: 1},
		{Requests: 1, PromptLen: 4, OutputLen: 0},
		{Requests: -1, PromptLen: 4, OutputLen: 1},
		{Requests: 1, PromptLen: 4, OutputLen: 1, Tokenizer: wordTokenizer{n: 1}},
	} {
		if _, err := s.Build(); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}

func TestReadDataset(t *testing.T) {
	in := `{"prompt": "w1 w2 w3", "output_len": 5, "id": "extra fields are ignored"}

{"prompt": "w4"}
`
	its, err := ReadDataset(strings.NewReader(in), "d.jsonl", DatasetOptions{OutputLen: 9, SharedPrefix: "w7 w8", Tokenizer: wordTokenizer{n: 10}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{{Prompt: "w7 w8 w1 w2 w3", PromptTokens: 5, OutputLen: 5}, {Prompt: "w7 w8 w4", PromptTokens: 3, OutputLen: 9}}
	if !slices.Equal(its, want) {
		t.Errorf("items %+v, want %+v", its, want)
	}
}

func TestReadDatasetErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not JSON", "{\"prompt\":\"a\"}\n{oops\n", "d.jsonl:2:"},
		{"no prompt", "{\"output_len\": 3}\n", "d.jsonl:1: no \"prompt\""},
		{"empty prompt", "\n\n{\"prompt\": \"\"}\n", "d.jsonl:3: no \"prompt\""},
		{"bad output_len", "{\"prompt\":\"a\",\"output_len\":0}\n", "d.jsonl:1: output_len 0"},
		{"wrong type", "{\"prompt\":5}\n", "d.jsonl:1:"},
		{"array", "[\"a\"]\n", "d.jsonl:1:"},
		{"two values", "{\"prompt\":\"a\"} {\"prompt\":\"b\"}\n", "d.jsonl:1: more than one"},
		{"empty file", "\n", "has no prompts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadDataset(strings.NewReader(tt.in), "d.jsonl", DatasetOptions{OutputLen: 4})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := ReadDatasetFile("/nonexistent/d.jsonl", DatasetOptions{OutputLen: 4}); err == nil {
		t.Error("a missing file gave no error")
	}
}

func TestRepeat(t *testing.T) {
	its := []Item{{Prompt: "a"}, {Prompt: "b"}}
	got := Repeat(its, 5)
	var ps []string
	for _, it := range got {
		ps = append(ps, it.Prompt)
	}
	if strings.Join(ps, "") != "ababa" {
		t.Errorf("Repeat gave %q", ps)
	}
	if Repeat(nil, 3) != nil {
		t.Error("Repeat of nothing gave items")
	}
}
