package cli

import (
	"bytes"
	"strings"
	"testing"

	"saji/internal/refdata"
)

// runWithInput runs the root command with args and stdin.
func runWithInput(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := NewRootCommand(Options{})
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestTokenize(t *testing.T) {
	// The 512-token SentencePiece vocabulary of stories260K; the expected
	// ids are llama.cpp's (testdata/tokenizer/tok512-spm.vocab.tok.json).
	model := refdata.Path(t, "vocab/tok512-spm.vocab.gguf")
	tests := []struct {
		name  string
		stdin string
		flags []string
		want  string
	}{
		{"plain", "Hello World", nil, "346 306 414 410 448 304 341\n"},
		{"special adds BOS", "Hello World", []string{"--special"}, "1 346 306 414 410 448 304 341\n"},
		{"special text not parsed", "<s>", nil, "410 504 419 505\n"},
		{"parse special", "<s>", []string{"--parse-special"}, "1\n"},
		{"both: a second BOS", "<s>", []string{"--special", "--parse-special"}, "1 1\n"},
		{"empty input", "", nil, "\n"},
		{"pieces", "\n", []string{"--pieces", "--special"}, "1\t\"<s>\"\n" + "410\t\" \"\n" + "13\t\"\\n\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runWithInput(t, tt.stdin, append([]string{"tokenize", "-m", model}, tt.flags...)...)
			if err != nil {
				t.Fatal(err)
			}
			if out != tt.want {
				t.Errorf("output %q, want %q", out, tt.want)
			}
		})
	}
}

func TestTokenizeErrors(t *testing.T) {
	model := refdata.Path(t, "vocab/tok512-spm.vocab.gguf")
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"no model", "x", []string{"tokenize"}, "model is required"},
		{"missing file", "x", []string{"tokenize", "-m", model + ".missing"}, "no such file"},
		{"invalid UTF-8", "ab\xffc", []string{"tokenize", "-m", model}, "offset 2"},
		{"stray argument", "x", []string{"tokenize", "-m", model, "extra"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runWithInput(t, tt.stdin, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
