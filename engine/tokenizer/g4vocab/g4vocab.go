// Package g4vocab writes a small synthetic vocabulary of Gemma 4's kind
// (tokenizer.ggml.model "gemma4"): SPM-style BPE over raw UTF-8 with U+2581
// for spaces, merges, <0xNN> byte-fallback tokens, newline-run tokens and
// Gemma's special tokens. No real Gemma 4 vocabulary is in the reference
// data; this one is small enough to write at test time, and llama.cpp's
// tokenization of it is recorded in testdata/tokenizer (see the README
// there). The vocabulary is deterministic: its merges are learnt by plain
// BPE training over a fixed text, so every call writes the same file.
package g4vocab

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"saji/engine/gguf"
	"saji/engine/synth"
)

// Ids of the special tokens.
const (
	PAD = 0
	EOS = 1
	BOS = 2
	UNK = 3
)

// The token types of GGUF's tokenizer.ggml.token_type.
const (
	typeNormal      = 1
	typeUnknown     = 2
	typeControl     = 3
	typeUserDefined = 4
	typeByte        = 6
)

// specials are the first tokens, in id order, with their types.
var specials = []struct {
	text string
	typ  int32
}{
	{"<pad>", typeControl},
	{"<eos>", typeControl},
	{"<bos>", typeControl},
	{"<unk>", typeUnknown},
	{"<mask>", typeControl},
	{"<|turn>", typeControl},
	{"<turn|>", typeControl},
	{"<|tool_response>", typeControl},
	{"<start_of_turn>", typeControl},
	{"<end_of_turn>", typeControl},
	{"</s>", typeControl},
	{"<unused0>", typeControl},
	{"<|image|>", typeUserDefined},
}

// newlineTokens are whole runs of newlines and tabs. No merge builds them:
// llama.cpp takes a run of newlines that is a token whole.
var newlineTokens = []string{"\n", "\n\n", "\n\n\n", "\n\n\n\n", "\t", "\t\t"}

// corpus is the text the merges are learnt from.
const corpus = `The quick brown fox jumps over the lazy dog. The dog sleeps in the sun, and the fox runs into the forest.
Once upon a time there was a little girl who lived in a village near the forest. She liked to read stories about the stars.
It's a nice day, isn't it? We're going to the market; they've bought apples, bread and cheese for 3 or 4 people.
func main() { fmt.Println("hello, world") } // print the greeting
for i := 0; i < len(items); i++ { total += items[i] * 2 }
def tokenize(text): return [token for token in text.split(" ") if token]
Hello world! Hello there. How are you? I am fine, thank you, and you?
The model reads the prompt, then writes the answer one token at a time until it reaches the end of the turn.
今日は良い天気です。東京は日本の首都です。我们在学习语言模型。
Ça va très bien, merci. Die Straße ist schön. Él está en la cafetería.
Numbers: 12345 67890 2026-12-05 3.14159 100% $42.00
`

// numMerges is the number of merges learnt from the corpus.
const numMerges = 400

// Writer returns a GGUF writer holding the vocabulary's tokenizer
// metadata and general.architecture "gemma4". tokenizer.ggml.add_bos_token
// is false, as some Gemma 4 files say: llama.cpp adds BOS all the same.
func Writer() (*gguf.Writer, error) {
	tokens, types, merges := build()
	w := gguf.NewWriter()
	for _, kv := range []struct {
		k string
		v any
	}{
		{gguf.KeyArchitecture, "gemma4"},
		{gguf.KeyTokenizerModel, "gemma4"},
		{gguf.KeyTokenizerPre, "gemma4"},
		{gguf.KeyTokens, tokens},
		{gguf.KeyTokenType, types},
		{gguf.KeyMerges, merges},
		{gguf.KeyBOSTokenID, uint32(BOS)},
		{gguf.KeyEOSTokenID, uint32(EOS)},
		{gguf.KeyUNKTokenID, uint32(UNK)},
		{gguf.KeyPADTokenID, uint32(PAD)},
		{gguf.KeyAddBOSToken, false},
		{gguf.KeyAddEOSToken, false},
	} {
		if err := w.Set(kv.k, kv.v); err != nil {
			return nil, fmt.Errorf("g4vocab: %w", err)
		}
	}
	return w, nil
}

// Write writes the vocabulary (Writer's file) at path.
func Write(ctx context.Context, path string) error {
	w, err := Writer()
	if err != nil {
		return err
	}
	if err := w.WriteFile(ctx, path); err != nil {
		return fmt.Errorf("g4vocab: %w", err)
	}
	return nil
}

// build returns the token texts, their types and the merges: the special
// tokens, the 256 byte tokens, the newline runs, every character of the
// corpus (spaces as U+2581), then one token per merge.
func build() (tokens []string, types []int32, merges []string) {
	have := map[string]bool{}
	add := func(s string, typ int32) {
		tokens = append(tokens, s)
		types = append(types, typ)
		have[s] = true
	}
	for _, s := range specials {
		add(s.text, s.typ)
	}
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), typeByte)
	}
	for _, s := range newlineTokens {
		add(s, typeNormal)
	}

	// Words: the corpus with spaces escaped, cut before each U+2581.
	var words [][]string
	for _, line := range strings.Split(corpus, "\n") {
		line = strings.ReplaceAll(line, " ", "▁")
		for _, w := range strings.SplitAfter(strings.ReplaceAll(line, "▁", "\x00▁"), "\x00") {
			w = strings.TrimSuffix(w, "\x00")
			if w == "" {
				continue
			}
			var syms []string
			for _, r := range w {
				syms = append(syms, string(r))
			}
			words = append(words, syms)
		}
	}
	var chars []string
	for _, w := range words {
		for _, c := range w {
			if !have[c] && !slices.Contains(chars, c) {
				chars = append(chars, c)
			}
		}
	}
	slices.Sort(chars)
	for _, c := range chars {
		add(c, typeNormal)
	}

	// Learn merges: the most frequent adjacent pair, the smallest pair on
	// ties, merged everywhere, until numMerges are learnt.
	type pair struct{ a, b string }
	for len(merges) < numMerges {
		counts := map[pair]int{}
		for _, w := range words {
			for i := 1; i < len(w); i++ {
				counts[pair{w[i-1], w[i]}]++
			}
		}
		var best pair
		n := 0
		for p, c := range counts {
			if c > n || c == n && (p.a < best.a || p.a == best.a && p.b < best.b) {
				best, n = p, c
			}
		}
		if n < 2 {
			break
		}
		merges = append(merges, best.a+" "+best.b)
		if m := best.a + best.b; !have[m] {
			add(m, typeNormal)
		}
		for k, w := range words {
			out := w[:0:0]
			for i := 0; i < len(w); i++ {
				if i+1 < len(w) && w[i] == best.a && w[i+1] == best.b {
					out = append(out, best.a+best.b)
					i++
					continue
				}
				out = append(out, w[i])
			}
			words[k] = out
		}
	}
	return tokens, types, merges
}

// WriteModel writes synth's tiny-gemma4 shape at path (F32, weights from
// seed) with this vocabulary: a Gemma 4 model whose tokenizer is Gemma 4's
// kind, as real files are.
func WriteModel(ctx context.Context, path string, seed uint64) error {
	shape, err := synth.LookupShape("tiny-gemma4")
	if err != nil {
		return fmt.Errorf("g4vocab: %w", err)
	}
	vp := path + ".vocab.gguf"
	if err := Write(ctx, vp); err != nil {
		return err
	}
	defer os.Remove(vp)
	vocab, err := gguf.Open(vp)
	if err != nil {
		return fmt.Errorf("g4vocab: %w", err)
	}
	defer vocab.Close()
	if err := synth.Write(ctx, path, synth.Options{Shape: shape, FileType: gguf.FileTypeAllF32, Vocab: vocab, Seed: seed, Threads: 2}); err != nil {
		return fmt.Errorf("g4vocab: %w", err)
	}
	return nil
}
