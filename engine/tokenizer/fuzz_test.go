package tokenizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzVocabs are the vocabularies FuzzRoundTrip exercises.
var fuzzVocabs = []string{
	"vocab/ggml-vocab-llama-spm.gguf", // SPM with byte fallback
	"vocab/tok512-spm.vocab.gguf",     // a small SPM vocabulary: mostly byte fallback
	"vocab/llama3-bpe-full.gguf",      // Llama-3 BPE
	"vocab/ggml-vocab-deepseek-llm.gguf",
	"vocab/ggml-vocab-bert-bge.gguf", // WPM: lossy, checked for panics only
}

var fuzzSeeds = []string{
	"", " ", "Hello world", "  leading and trailing  ", "\n\n\t \r\n", "I'm here, aren't you? 'S 'LL",
	"1234567890 3.14159 -42", "naïve café Ελληνικά русский 中文 日本語 한국어 العربية हिन्दी",
	"🦙🚀 😶‍🌫️ 👍🏽", "<s>hi</s><unk>", "<|begin_of_text|><|eot_id|>", "\u2581x", "\x00\x01\x7f",
	"\xff\xfe\xc0\x80", "\xed\xa0\x80", "\xe4\xb8", "a\u3000b\u00a0c\u2028d", "\u0301\u0301a",
	"<start_of_turn>user\n\n\nhi<end_of_turn>", "<|image|> x\n\n", "<0x41>\t\t\n\n\n\n\n",
}

// FuzzRoundTrip encodes arbitrary strings with several vocabularies (and
// the synthetic and derived Gemma 4 ones, whose word-by-word merge must
// equal the merge of whole lines): no panics, every id in range, and decoding
// gives the text back wherever the vocabulary can represent it (SPM with
// byte fallback: text without U+2581 that is valid UTF-8 or has no spaces;
// byte-level BPE: any valid UTF-8; Gemma 4's BPE: valid UTF-8 without
// U+2581).
func FuzzRoundTrip(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	vocabs := fuzzTokenizers(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, tk := range vocabs {
			checkRoundTrip(t, tk, s)
		}
	})
}

// fuzzTokenizers opens the fuzzed vocabularies: fuzzVocabs and the
// synthetic and derived Gemma 4 ones.
func fuzzTokenizers(t testing.TB) []*Tokenizer {
	vocabs := make([]*Tokenizer, 0, len(fuzzVocabs)+2)
	for _, rel := range fuzzVocabs {
		vocabs = append(vocabs, openRef(t, rel))
	}
	return append(vocabs, openGemma4(t), openDerivedGemma4(t))
}

func checkRoundTrip(t *testing.T, tk *Tokenizer, s string) {
	t.Helper()
	for _, mode := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		ids := tk.Encode(s, mode[0], mode[1])
		if err := tk.checkIDs(ids); err != nil {
			t.Fatalf("%s %q: %v", tk.pre, s, err)
		}
		if _, err := tk.Detokenize(ids, true, true); err != nil {
			t.Fatal(err)
		}
	}
	if tk.bpe != nil && tk.bpe.raw {
		checkGemma4Splitting(t, tk, s)
	}
	ids := tk.Encode(s, false, false)
	got, _ := tk.Detokenize(ids, false, false)
	var pieces strings.Builder
	for _, id := range ids {
		pieces.WriteString(tk.TokenToPiece(id, false))
	}
	switch {
	case tk.Model() == SPM && tk.spmBytes[0] >= 0 && !strings.Contains(s, spmSpace) &&
		(utf8.ValidString(s) || !strings.Contains(s, " ")):
		// (A malformed lead byte can swallow part of an escaped space.)
		if got != s {
			t.Fatalf("SPM round trip of %q gave %q (ids %v)", s, got, ids)
		}
	case tk.Model() == BPE && utf8.ValidString(s) && !(tk.escapeWS && strings.Contains(s, spmSpace)):
		// (Gemma 4's U+2581 in the text decodes as a space.)
		if pieces.String() != s {
			t.Fatalf("BPE pieces of %q gave %q (ids %v)", s, pieces.String(), ids)
		}
		want := s
		if tk.cleanSpaces {
			want = string(cleanSpaces([]byte(s)))
		}
		if got != want {
			t.Fatalf("BPE round trip of %q gave %q, want %q", s, got, want)
		}
	}
	// The streaming decoder never emits broken UTF-8 and, without clean-up,
	// agrees with Detokenize.
	d := tk.NewDecoder(DecoderOptions{})
	var stream strings.Builder
	for _, id := range ids {
		part, err := d.Add(id)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(part) {
			t.Fatalf("decoder emitted invalid UTF-8 %q", part)
		}
		stream.WriteString(part)
	}
	stream.WriteString(d.Flush())
	if !tk.cleanSpaces && utf8.ValidString(got) && stream.String() != got {
		t.Fatalf("stream %q != detokenized %q", stream.String(), got)
	}
}

// TestFuzzSeeds runs the fuzz checks on the seeds and on random strings, so
// that plain `go test` covers them.
func TestFuzzSeeds(t *testing.T) {
	vocabs := fuzzTokenizers(t)
	inputs := slices.Clone(fuzzSeeds)
	r := rand.New(rand.NewPCG(3, 4))
	n := 200
	if testing.Short() {
		n = 20
	}
	alphabet := []string{"a", "Z", " ", "  ", "\n", "\t", "'s", "1", "23", ".", "!", "é", "中", "🦙", "\u200d",
		"\u00a0", "\u2581", "<s>", "</s>", "<|eot_id|>", "\xff", "\xe4", "\x80", "ab", "the", "\r\n"}
	for range n {
		var b strings.Builder
		for range r.IntN(24) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		inputs = append(inputs, b.String())
	}
	for _, s := range inputs {
		for _, tk := range vocabs {
			checkRoundTrip(t, tk, s)
		}
	}
}

// TestSPMWordSplitting checks that encodeSPM, which merges word by word,
// gives llama.cpp's result of merging the whole fragment at once.
func TestSPMWordSplitting(t *testing.T) {
	text := mixedText(64 << 10)
	if testing.Short() {
		text = text[:8<<10]
	}
	for _, rel := range []string{"vocab/ggml-vocab-llama-spm.gguf", "vocab/ggml-vocab-baichuan.gguf", "vocab/tok512-spm.vocab.gguf"} {
		tk := openRef(t, rel)
		var sb strings.Builder
		sb.WriteString(spmSpace)
		escapeSpaces(&sb, text+" \xe2\x96 \xe2 \xff\xfe  x")
		esc := sb.String()
		st := &encodeState{cache: map[string]uint64{}}
		whole := tk.mergeSPM(esc, nil, st)
		words := tk.encodeSPM(esc, nil, st)
		if !slices.Equal(words, whole) {
			t.Errorf("%s: word-by-word merge differs: %s", rel, idsDiff(words, whole))
		}
		t.Logf("%s: %d joiner prefixes", rel, len(tk.spmJoin))
	}
}
