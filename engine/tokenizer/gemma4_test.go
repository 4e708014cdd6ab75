package tokenizer

import (
	"context"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"saji/engine/gguf"
	"saji/engine/tokenizer/g4vocab"
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
		for i, id := range c.AddAndParseSpecial {
			if got := hex.EncodeToString([]byte(tk.TokenToPiece(id, true))); got != c.PiecesHex[i] {
				t.Errorf("%s: piece of %d = %s, want %s", c.ID, id, got, c.PiecesHex[i])
			}
		}
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
