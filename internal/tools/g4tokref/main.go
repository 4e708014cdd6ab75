// Command g4tokref records llama.cpp's tokenization of Saji's synthetic
// Gemma 4 vocabulary (engine/tokenizer/g4vocab) over a fixed list of
// texts, for engine/tokenizer's conformance test. It writes the tiny-gemma4
// model with that vocabulary and the texts (hex, one a line) into a
// scratch folder, runs tokdump (testdata/tokdump/tokdump.cpp, built
// against libllama) on them, and leaves its JSON at -out.
//
// Usage: go run ./internal/tools/g4tokref -tokdump PATH/TO/tokdump [-out testdata/tokenizer/gemma4-synth.tok.json]
package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"saji/engine/tokenizer/g4vocab"
)

// texts are the recorded cases, before 80 random ones (randomTexts):
// spaces, newline runs, tabs, multi-byte UTF-8, code, special-token text,
// and bytes that are not UTF-8.
var texts = []string{
	"",
	" ",
	"  ",
	"   ",
	"\t",
	"\t\t",
	"\n",
	"\n\n",
	"\n\n\n",
	"\n\n\n\n\n\n",
	" \n",
	"\n \n",
	"Hello world",
	" Hello world",
	"Hello world ",
	"  Hello  world  ",
	"Hello\nworld",
	"Hello\n\nworld\n\n\n",
	"\n\nHello",
	"The quick brown fox jumps over the lazy dog.",
	"the forest, the stars and the sun",
	"It's a nice day, isn't it? We're going.",
	"Hello , world . How are you ?",
	"Numbers: 12345 67890 3.14159 100%",
	"func main() {\n\tfmt.Println(\"hello, world\")\n}\n",
	"for i := 0; i < n; i++ {\n\t\ttotal += items[i]\n}",
	"def f(x):\n    return x * 2\n\n\n",
	"今日は良い天気です。",
	"我们在学习语言模型",
	"Ça va très bien. Die Straße ist schön.",
	"🦙 llamas and 🔥 fire 👍🏽",
	"naïve café résumé Ωμέγα Привет мир",
	"Ὀδυσσεύς ∑ ∞ ≠ ☃",
	"<bos>Hello<eos>",
	"<start_of_turn>user\nHi there<end_of_turn>\n<start_of_turn>model\n",
	"<|turn>user\nWhat is 2+2?<turn|>\n<|turn>model\n",
	"<|image|> describe this picture",
	"text with </s> and <unused0> and <mask>",
	"<|tool_response>{\"ok\": true}<turn|>",
	"a\rb\r\nc",
	"\x00\x01\x7f",
	"bad \xff\xfe bytes \xc3",
	"truncated \xe4\xbb",
	"a" + strings.Repeat(" ", 9) + "b",
	strings.Repeat("the ", 40),
	strings.Repeat("\n", 12) + "end",
	"Zürich Ärger Öl",
	"x\u00a0y\u2009z\u3000w",
}

// randomTexts returns n texts drawn from pieces that exercise the merges,
// the newline split, byte fallback and special tokens, the same on every
// run.
func randomTexts(n int) []string {
	pieces := []string{"the", " the", " fox", "Hello", " world", "ing", " ", "  ", "\n", "\n\n", "\n\n\n", "\t",
		"\r\n", ".", ",", "?", "'s", "12", "3.14", "今日", "は", "語", "🦙", "👍🏽", "é", "ß", "\u00a0", "\u2581",
		"<bos>", "<eos>", "<start_of_turn>", "<end_of_turn>", "<|turn>", "<turn|>", "<|image|>", "</s>",
		"<0x41>", "\xff", "\xe4", "\x80", "{", "}", "()", "fmt.Println", "    "}
	r := rand.New(rand.NewPCG(24, 4))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 1 + r.IntN(16) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		out[i] = b.String()
	}
	return out
}

func main() {
	tokdump := flag.String("tokdump", "", "the tokdump program (required)")
	out := flag.String("out", "testdata/tokenizer/gemma4-synth.tok.json", "the JSON to write")
	flag.Parse()
	if *tokdump == "" {
		fmt.Fprintln(os.Stderr, "usage: g4tokref -tokdump PATH [-out FILE]")
		os.Exit(2)
	}
	if err := run(context.Background(), *tokdump, *out); err != nil {
		fmt.Fprintln(os.Stderr, "g4tokref:", err)
		os.Exit(1)
	}
}

// run writes the model and the texts into a scratch folder and runs
// tokdump on them.
func run(ctx context.Context, tokdump, out string) error {
	dir, err := os.MkdirTemp("", "g4tokref")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	model := filepath.Join(dir, "tiny-gemma4-g4vocab.gguf")
	if err := g4vocab.WriteModel(ctx, model, 1); err != nil {
		return err
	}
	var b strings.Builder
	for _, t := range append(slices.Clone(texts), randomTexts(80)...) {
		b.WriteString(hex.EncodeToString([]byte(t)) + "\n")
	}
	in := filepath.Join(dir, "texts.hex")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, tokdump, model, in, out)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}
