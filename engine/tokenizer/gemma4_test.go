package tokenizer

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"saji/engine/gguf"
	"saji/engine/tokenizer/g4vocab"
	"saji/internal/refdata"
)

// gemma4Once writes the synthetic Gemma 4 vocabulary once per test run.
var gemma4Once struct {
	sync.Mutex
	v  Vocab
	tk *Tokenizer
}

// openGemma4 returns the tokenizer of g4vocab's synthetic Gemma 4
// vocabulary, read back from the GGUF file it writes.
func openGemma4(t testing.TB) *Tokenizer {
	tk, _ := gemma4Vocab(t)
	return tk
}

// gemma4Vocab returns the tokenizer of g4vocab's synthetic Gemma 4
// vocabulary and the vocabulary as read from its GGUF file.
func gemma4Vocab(t testing.TB) (*Tokenizer, Vocab) {
	t.Helper()
	gemma4Once.Lock()
	defer gemma4Once.Unlock()
	if gemma4Once.tk != nil {
		return gemma4Once.tk, gemma4Once.v
	}
	path := filepath.Join(t.TempDir(), "gemma4.vocab.gguf")
	if err := g4vocab.Write(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := VocabFromGGUF(f)
	if err != nil {
		t.Fatalf("read the gemma4 vocabulary: %v", err)
	}
	tk, err := New(v)
	if err != nil {
		t.Fatalf("build the gemma4 tokenizer: %v", err)
	}
	gemma4Once.tk, gemma4Once.v = tk, v
	return tk, v
}

// gemma4Ref is llama.cpp's tokenization of the synthetic Gemma 4
// vocabulary, in the repository's own testdata.
var gemma4Ref = filepath.Join("..", "..", "testdata", "tokenizer", "gemma4-synth.tok.json")

// g4File is the schema of testdata/tokenizer/gemma4-synth.tok.json, which
// testdata/tokdump/tokdump.cpp writes (see internal/tools/g4tokref): texts
// as hex, and the pieces of the add-and-parse ids.
type g4File struct {
	Model tokVocab `json:"model"`
	Cases []struct {
		tokCase
		TextHex   string   `json:"text_hex"`
		PiecesHex []string `json:"pieces_hex"`
	} `json:"cases"`
}

// TestConformanceGemma4 compares the "gemma4" tokenizer with llama.cpp's
// on the synthetic Gemma 4 vocabulary: the special ids and flags (add_bos
// forced on), the end-of-generation set, every text in the four encoding
// modes, the pieces of the add-and-parse ids, the detokenized plain ids,
// and the streaming decoder against the pieces.
func TestConformanceGemma4(t *testing.T) {
	tk := openGemma4(t)
	var f g4File
	readJSON(t, gemma4Ref, &f)
	checkVocab(t, tk, f.Model)
	if tk.Model() != BPE || tk.Pre() != "gemma4" || tk.AddSpacePrefix() {
		t.Errorf("model %v pre %q add_space_prefix %v, want BPE gemma4 false", tk.Model(), tk.Pre(), tk.AddSpacePrefix())
	}
	if len(f.Cases) < 128 {
		t.Fatalf("%d cases, want the recorded 128", len(f.Cases))
	}
	bad, reported := 0, 0
	for _, c := range f.Cases {
		raw, err := hex.DecodeString(c.TextHex)
		if err != nil {
			t.Fatal(err)
		}
		bad += checkCase(t, tk, c.tokCase, string(raw), &reported)
		checkPieces(t, tk, c.ID, c.AddAndParseSpecial, c.PiecesHex)
		var pieces, stream strings.Builder
		d := tk.NewDecoder(DecoderOptions{})
		for _, id := range c.Plain {
			pieces.WriteString(tk.TokenToPiece(id, false))
			part, err := d.Add(id)
			if err != nil {
				t.Fatal(err)
			}
			stream.WriteString(part)
		}
		stream.WriteString(d.Flush())
		if p := pieces.String(); utf8.ValidString(p) && stream.String() != p {
			t.Errorf("%s: stream %q, pieces %q", c.ID, stream.String(), p)
		}
	}
	t.Logf("%d cases x 4 modes + detokenization (%d mismatches), pieces and streaming", len(f.Cases), bad)
}

// checkPieces compares the pieces of ids (special tokens rendered) with
// llama.cpp's, as hex.
func checkPieces(t *testing.T, tk *Tokenizer, id string, ids []int32, want []string) {
	t.Helper()
	if len(ids) != len(want) {
		t.Errorf("%s: %d pieces for %d ids", id, len(want), len(ids))
		return
	}
	for i, tok := range ids {
		if got := hex.EncodeToString([]byte(tk.TokenToPiece(tok, true))); got != want[i] {
			t.Errorf("%s: piece of %d = %s, want %s", id, tok, got, want[i])
		}
	}
}

// TestGemma4Vocab checks what the loader makes of the vocabulary's
// metadata: the "gemma4" model reads merges, takes its specials from the
// file alone, and forces BOS on.
func TestGemma4Vocab(t *testing.T) {
	tk := openGemma4(t)
	if tk.UNK() != g4vocab.UNK || tk.PAD() != g4vocab.PAD || tk.BOS() != g4vocab.BOS || tk.EOS() != g4vocab.EOS {
		t.Errorf("unk %d pad %d bos %d eos %d", tk.UNK(), tk.PAD(), tk.BOS(), tk.EOS())
	}
	if !tk.AddBOS() {
		t.Error("add_bos is false; llama.cpp forces it on for Gemma 4")
	}
	if id, ok := tk.TokenID("</s>"); !ok || tk.IsEOG(id) || !tk.IsNormal(id) {
		t.Errorf("</s> (%d) should be a normal token outside the end-of-generation set", id)
	}
	// Without special ids in the file there are none (no gpt2 defaults).
	v := Vocab{Model: "gemma4", Tokens: []string{"a", "b", "ab"}, Merges: []string{"a b"}}
	nt, err := New(v)
	if err != nil {
		t.Fatal(err)
	}
	if nt.BOS() != -1 || nt.EOS() != -1 || !nt.AddBOS() {
		t.Errorf("bare gemma4: bos %d eos %d add_bos %v, want -1 -1 true", nt.BOS(), nt.EOS(), nt.AddBOS())
	}
	if got := nt.Encode("ab a", true, false); !slices.Equal(got, []int32{2, 0}) {
		// "ab" merges; the escaped space is no token and has no byte
		// token, so it is dropped as llama.cpp drops it.
		t.Errorf("encode: %v, want [2 0]", got)
	}
}

// TestGemma4GGUFErrors checks that a "gemma4" file without merges is an
// error, as in llama.cpp, rather than a tokenizer that cannot merge.
func TestGemma4GGUFErrors(t *testing.T) {
	w := gguf.NewWriter()
	for _, kv := range []struct {
		k string
		v any
	}{{gguf.KeyTokenizerModel, "gemma4"}, {gguf.KeyTokens, []string{"a", "b"}}} {
		if err := w.Set(kv.k, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "nomerges.gguf")
	if err := w.WriteFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil {
		t.Error("a gemma4 vocabulary without merges loaded")
	}
}

// TestGemma4PreOnGPT2 checks that a "gpt2" vocabulary with the "gemma4" or
// "granite-embed-multi-311m" pre-tokenizer tokenizes as the "gemma4" model
// does: llama.cpp gives both the same pre-tokenizer type, and the models
// differ only in their default special ids.
func TestGemma4PreOnGPT2(t *testing.T) {
	ref, v := gemma4Vocab(t)
	var cases g4File
	readJSON(t, gemma4Ref, &cases)
	for _, pre := range []string{"gemma4", "granite-embed-multi-311m"} {
		v.Model, v.Pre = "gpt2", pre
		tk, err := New(v)
		if err != nil {
			t.Fatalf("%s: %v", pre, err)
		}
		if !tk.AddBOS() || tk.BOS() != ref.BOS() {
			t.Errorf("%s: add_bos %v bos %d", pre, tk.AddBOS(), tk.BOS())
		}
		for _, c := range cases.Cases {
			raw, _ := hex.DecodeString(c.TextHex)
			if got, want := tk.Encode(string(raw), true, true), ref.Encode(string(raw), true, true); !slices.Equal(got, want) {
				t.Errorf("%s %s: %s", pre, c.ID, idsDiff(got, want))
			}
		}
	}
}

// gemma4DerivedRef is llama.cpp's tokenization of the Gemma 4 vocabulary
// derived from Llama 3's (writeDerivedGemma4).
var gemma4DerivedRef = filepath.Join("..", "..", "testdata", "tokenizer", "gemma4-llama3-derived.tok.json")

// writeDerivedGemma4 writes at path a full-size vocabulary of Gemma 4's
// kind derived from the shared data's Llama-3 BPE vocabulary: g4vocab's
// special tokens and 256 byte tokens, then Llama 3's regular tokens and
// merges mapped from GPT-2's byte alphabet to raw UTF-8 with U+2581 for
// spaces (those that are not whole UTF-8 characters left out, so that
// byte fallback happens), about 128,000 tokens and 280,000 merges.
func writeDerivedGemma4(t testing.TB, path string) {
	t.Helper()
	f, err := gguf.Open(refdata.Path(t, "vocab/llama3-bpe-full.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	llamaTokens, err := f.Tokens()
	if err != nil {
		t.Fatal(err)
	}
	llamaMerges, err := f.Merges()
	if err != nil {
		t.Fatal(err)
	}
	conv := func(s string) (string, bool) {
		raw, ok := decodeByteLevel(s)
		if !ok || !utf8.ValidString(raw) {
			return "", false
		}
		return strings.ReplaceAll(raw, " ", spmSpace), true
	}
	w, err := g4vocab.Writer()
	if err != nil {
		t.Fatal(err)
	}
	base, _ := gemma4Vocab(t)
	var tokens []string
	var types []int32
	seen := map[string]bool{}
	for id := range int32(base.NumTokens()) {
		if base.TokenType(id) == TypeNormal {
			break // the special and byte tokens come first
		}
		tokens = append(tokens, base.Text(id))
		types = append(types, int32(base.TokenType(id)))
		seen[base.Text(id)] = true
	}
	for _, s := range llamaTokens[:128000] {
		if c, ok := conv(s); ok && !seen[c] {
			seen[c] = true
			tokens = append(tokens, c)
			types = append(types, int32(TypeNormal))
		}
	}
	var merges []string
	for _, m := range llamaMerges {
		l, r, ok := strings.Cut(m, " ")
		if !ok {
			continue
		}
		if a, ok := conv(l); ok {
			if b, ok := conv(r); ok {
				merges = append(merges, a+" "+b)
			}
		}
	}
	for _, kv := range []struct {
		k string
		v any
	}{{gguf.KeyTokens, tokens}, {gguf.KeyTokenType, types}, {gguf.KeyMerges, merges}} {
		if err := w.Set(kv.k, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
}

// derivedOnce builds the derived vocabulary's tokenizer once per test run.
var derivedOnce struct {
	sync.Mutex
	tk *Tokenizer
}

// openDerivedGemma4 returns the tokenizer of the derived vocabulary
// (writeDerivedGemma4), read back from its GGUF file.
func openDerivedGemma4(t testing.TB) *Tokenizer {
	t.Helper()
	derivedOnce.Lock()
	defer derivedOnce.Unlock()
	if derivedOnce.tk == nil {
		path := filepath.Join(t.TempDir(), "derived.vocab.gguf")
		writeDerivedGemma4(t, path)
		tk, err := Open(path)
		if err != nil {
			t.Fatalf("open the derived gemma4 vocabulary: %v", err)
		}
		derivedOnce.tk = tk
	}
	return derivedOnce.tk
}

// derivedTexts are the texts recorded for the derived vocabulary: 16 KiB
// of mixedText in pieces of about 1 KiB.
func derivedTexts() []string {
	text := mixedText(16 << 10)
	var out []string
	for len(text) > 0 {
		n := min(len(text), 1<<10)
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// TestConformanceGemma4Derived compares the "gemma4" tokenizer with
// llama.cpp's on a full-size vocabulary of its kind (writeDerivedGemma4)
// over 16 KiB of mixed text. With G4TOK_WRITE=DIR it writes the vocabulary
// and the texts (hex, one a line) into DIR instead, for tokdump (see
// testdata/README.md).
func TestConformanceGemma4Derived(t *testing.T) {
	if dir := os.Getenv("G4TOK_WRITE"); dir != "" {
		writeDerivedGemma4(t, filepath.Join(dir, "gemma4-llama3-derived.vocab.gguf"))
		var b strings.Builder
		for _, s := range derivedTexts() {
			b.WriteString(hex.EncodeToString([]byte(s)) + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, "gemma4-llama3-derived.hex"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	tk := openDerivedGemma4(t)
	var f g4File
	readJSON(t, gemma4DerivedRef, &f)
	checkVocab(t, tk, f.Model)
	texts := derivedTexts()
	if len(f.Cases) != len(texts) {
		t.Fatalf("%d cases, %d texts", len(f.Cases), len(texts))
	}
	bad, reported := 0, 0
	for i, c := range f.Cases {
		if c.TextHex != hex.EncodeToString([]byte(texts[i])) {
			t.Fatalf("%s: the text is not the recorded one (mixedText changed: regenerate)", c.ID)
		}
		bad += checkCase(t, tk, c.tokCase, texts[i], &reported)
		checkPieces(t, tk, c.ID, c.AddAndParseSpecial, c.PiecesHex)
	}
	t.Logf("%d tokens, %d cases x 4 modes + detokenization and pieces, %d mismatches", tk.NumTokens(), len(f.Cases), bad)
}

// TestGemma4WordSplitting checks that encodeBPE, which cuts Gemma 4's lines
// at the spaces no merge can cross, gives llama.cpp's result of merging
// each whole line, on the synthetic and the derived vocabulary.
func TestGemma4WordSplitting(t *testing.T) {
	text := mixedText(64 << 10)
	if testing.Short() {
		text = text[:8<<10]
	}
	for _, tk := range []*Tokenizer{openGemma4(t), openDerivedGemma4(t)} {
		checkGemma4Splitting(t, tk, text+" \xe2\x96 \xe2 \xff\xfe  x\n\n  \n")
		t.Logf("%d tokens: %d joiner prefixes", tk.NumTokens(), len(tk.spmJoin))
	}
}

// checkGemma4Splitting compares Gemma 4's word-by-word merge of text with
// the merge of its whole lines.
func checkGemma4Splitting(t *testing.T, tk *Tokenizer, text string) {
	t.Helper()
	var sb strings.Builder
	escapeSpaces(&sb, text)
	esc := sb.String()
	st := &encodeState{cache: map[string]uint64{}}
	words := tk.encodeBPE(esc, nil, st)
	var whole []int32
	c := &st.cp
	c.decode(esc)
	lo := 0
	for _, e := range pretokenize(tk.bpe.stages, c, st) {
		whole = tk.encodeWord(c.text[c.offs[lo]:c.offs[e]], whole, st)
		lo = int(e)
	}
	if !slices.Equal(words, whole) {
		t.Errorf("%d tokens, %q: word-by-word merge differs: %s", tk.NumTokens(), trim(text), idsDiff(words, whole))
	}
}
