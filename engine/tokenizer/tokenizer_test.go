package tokenizer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// spmVocab is a tiny SPM vocabulary: <unk>, <s>, </s>, the 256 byte tokens,
// the given pieces (with their scores) and optional user-defined tokens.
func spmVocab(pieces map[string]float32, user ...string) Vocab {
	v := Vocab{Model: "llama", Tokens: []string{"<unk>", "<s>", "</s>"},
		Types: []TokenType{TypeUnknown, TypeControl, TypeControl}, Scores: []float32{0, 0, 0}}
	for b := 0; b < 256; b++ {
		v.Tokens = append(v.Tokens, fmt.Sprintf("<0x%02X>", b))
		v.Types = append(v.Types, TypeByte)
		v.Scores = append(v.Scores, 0)
	}
	keys := make([]string, 0, len(pieces))
	for k := range pieces {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v.Tokens = append(v.Tokens, k)
		v.Types = append(v.Types, TypeNormal)
		v.Scores = append(v.Scores, pieces[k])
	}
	for _, u := range user {
		v.Tokens = append(v.Tokens, u)
		v.Types = append(v.Types, TypeUserDefined)
		v.Scores = append(v.Scores, 0)
	}
	return v
}

// bpeVocab is a tiny byte-level BPE vocabulary: the 256 single bytes, the
// given extra tokens and merges (both written as raw text, "left right"
// for merges), and <|end|> as a control token.
func bpeVocab(pre string, extra []string, merges []string) Vocab {
	v := Vocab{Model: "gpt2", Pre: pre}
	for b := 0; b < 256; b++ {
		v.Tokens = append(v.Tokens, encodeByteLevel(string([]byte{byte(b)})))
		v.Types = append(v.Types, TypeNormal)
	}
	for _, e := range extra {
		v.Tokens = append(v.Tokens, encodeByteLevel(e))
		v.Types = append(v.Types, TypeNormal)
	}
	v.Tokens = append(v.Tokens, "<|end|>")
	v.Types = append(v.Types, TypeControl)
	for _, m := range merges {
		l, r, _ := strings.Cut(m, "|")
		v.Merges = append(v.Merges, encodeByteLevel(l)+" "+encodeByteLevel(r))
	}
	return v
}

func mustNew(t *testing.T, v Vocab) *Tokenizer {
	t.Helper()
	tk, err := New(v)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// texts renders ids as their vocabulary texts, for readable comparisons.
func texts(tk *Tokenizer, ids []int32) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = tk.Text(id)
	}
	return out
}

func TestSPM(t *testing.T) {
	tk := mustNew(t, spmVocab(map[string]float32{
		"▁": -1, "a": -5, "b": -5, "c": -5, "▁a": -3, "▁ab": -2, "ab": -4, "bc": -1, "▁▁": -1,
	}, "<u>"))
	tests := []struct {
		text        string
		add, parse  bool
		want        []string
		wantDetok   string
		detokIsText bool
	}{
		{"ab", false, false, []string{"▁ab"}, "ab", true},
		{"ab", true, false, []string{"<s>", "▁ab"}, " ab", false}, // llama.cpp keeps the space after a removed BOS
		{"abc", false, false, []string{"▁a", "bc"}, "abc", true},  // "bc" (-1) merges before "▁a"+"b"
		{"", true, false, []string{"<s>"}, "", false},
		{"", false, false, []string{}, "", true},
		{"é", false, false, []string{"▁", "<0xC3>", "<0xA9>"}, "é", true},
		{" a", false, false, []string{"▁▁", "a"}, " a", true},
		{"<s>ab", false, true, []string{"<s>", "▁ab"}, " ab", false},
		{"<s>ab", true, true, []string{"<s>", "<s>", "▁ab"}, " ab", false}, // llama.cpp adds a second BOS
		{"<s>", false, false, []string{"▁", "<0x3C>", "<0x73>", "<0x3E>"}, "<s>", true},
		{"a<u>b", false, false, []string{"▁a", "<u>", "▁", "b"}, "a<u> b", false}, // user-defined: always parsed
	}
	for _, tt := range tests {
		got := texts(tk, tk.Encode(tt.text, tt.add, tt.parse))
		if !slices.Equal(got, tt.want) {
			t.Errorf("Encode(%q, %v, %v) = %q, want %q", tt.text, tt.add, tt.parse, got, tt.want)
		}
		ids := tk.Encode(tt.text, tt.add, tt.parse)
		s, err := tk.Detokenize(ids, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if s != tt.wantDetok {
			t.Errorf("Detokenize(Encode(%q)) = %q, want %q", tt.text, s, tt.wantDetok)
		}
		if tt.detokIsText && s != tt.text {
			t.Errorf("round trip of %q gave %q", tt.text, s)
		}
	}
	if tk.BOS() != 1 || tk.EOS() != 2 || tk.UNK() != 0 || !tk.AddBOS() || tk.AddEOS() || !tk.AddSpacePrefix() {
		t.Errorf("defaults: bos %d eos %d unk %d add_bos %v add_eos %v prefix %v",
			tk.BOS(), tk.EOS(), tk.UNK(), tk.AddBOS(), tk.AddEOS(), tk.AddSpacePrefix())
	}
	if !slices.Equal(tk.EOGs(), []int32{2}) {
		t.Errorf("EOGs = %v, want [2]", tk.EOGs())
	}
}

func TestSPMStripFlags(t *testing.T) {
	v := spmVocab(map[string]float32{"▁": -1, "a": -5, "b": -5, "▁a": -3, "▁ab": -2}, "<|x|>")
	plain := mustNew(t, v)
	v.Name = "Phi3 mini" // llama.cpp: special tokens swallow the whitespace after them
	phi := mustNew(t, v)
	for _, text := range []string{"</s>  ab", "<|x|>\n\tab"} {
		want := texts(phi, phi.Encode(strings.Join(strings.Fields(text), ""), false, true))
		if got := texts(phi, phi.Encode(text, false, true)); !slices.Equal(got, want) {
			t.Errorf("phi3 %q: %q, want %q", text, got, want)
		}
		if got := texts(plain, plain.Encode(text, false, true)); slices.Equal(got, want) {
			t.Errorf("plain %q: whitespace was stripped: %q", text, got)
		}
	}
	if phi.Attr(1)&AttrRStrip != 0 || phi.Attr(2)&AttrRStrip == 0 {
		t.Errorf("phi3 strip flags: <s> %v, </s> %v", phi.Attr(1), phi.Attr(2))
	}
}

func TestBPE(t *testing.T) {
	tk := mustNew(t, bpeVocab("gpt-2",
		[]string{"he", "hel", "hell", "hello", " w", " wo", " wor", " world", "bc", "xyz", "aa"},
		[]string{"h|e", "he|l", "hel|l", "hell|o", " |w", " w|o", " wo|r", " wor|ld", "l|d",
			"b|c", "a|b", "x|y", "xy|z", "a|a"}))
	tests := []struct {
		text string
		want []string
	}{
		{"hello world", []string{"hello", "Ġworld"}},
		{"abc", []string{"a", "bc"}},                             // "b c" ranks before "a b"
		{"aaa", []string{"aa", "a"}},                             // equal ranks: leftmost first
		{"xyz", []string{"xyz"}},                                 // through "xy", which is not a token
		{"xy", []string{"x", "y"}},                               // "xy" is no token: its bytes
		{"é", []string{"Ã", "©"}},                                // bytes of U+00E9 in GPT-2's alphabet
		{"a\xffb", []string{"a", "ï", "¿", "½", "b"}},            // malformed UTF-8 reads as U+FFFD
		{"<|end|>", []string{"<", "|", "e", "n", "d", "|", ">"}}, // control text without parse_special
	}
	for _, tt := range tests {
		if got := texts(tk, tk.Encode(tt.text, false, false)); !slices.Equal(got, tt.want) {
			t.Errorf("Encode(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	if got := texts(tk, tk.Encode("<|end|>", false, true)); !slices.Equal(got, []string{"<|end|>"}) {
		t.Errorf("parse_special: %q", got)
	}
	if got := tk.Encode("hi", true, false); !slices.Equal(got, tk.Encode("hi", false, false)) {
		t.Errorf("BPE without add_bos metadata adds nothing: %v", got)
	}
	// <|end|> is an end-of-generation text; id 11 is the default BOS/EOS.
	if end, _ := tk.TokenID("<|end|>"); !slices.Equal(tk.EOGs(), []int32{11, end}) {
		t.Errorf("EOGs = %v", tk.EOGs())
	}
	s, err := tk.Detokenize(tk.Encode("hello world !", false, false), false, false)
	if err != nil || s != "hello world!" { // clean-up removes the space before "!"
		t.Errorf("Detokenize = %q, %v", s, err)
	}
}

func TestWPM(t *testing.T) {
	v := Vocab{Model: "bert", Tokens: []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "▁hello", "▁world", "▁,", "▁!",
		"▁un", "aff", "able", "▁cafe", "▁中", "▁文"},
		Types: []TokenType{TypeControl, TypeUnknown, TypeControl, TypeControl},
		IDs:   map[Special]uint32{SpecialUNK: 1, SpecialBOS: 2, SpecialSEP: 3, SpecialPAD: 0}}
	for len(v.Types) < len(v.Tokens) {
		v.Types = append(v.Types, TypeNormal)
	}
	tk := mustNew(t, v)
	tests := []struct {
		text string
		add  bool
		want []string
	}{
		{"Hello, WORLD! unaffable", false, []string{"▁hello", "▁,", "▁world", "▁!", "▁un", "aff", "able"}},
		{"Hello", true, []string{"[CLS]", "▁hello", "[SEP]"}},
		{"Café  中文", false, []string{"▁cafe", "▁中", "▁文"}},
		{"hellx world", false, []string{"[UNK]", "▁world"}},
		{" \t\n", false, nil},
	}
	for _, tt := range tests {
		if got := texts(tk, tk.Encode(tt.text, tt.add, false)); !slices.Equal(got, tt.want) && len(got)+len(tt.want) > 0 {
			t.Errorf("Encode(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	s, _ := tk.Detokenize(tk.Encode("Hello, world!", false, false), false, false)
	if s != " hello, world!" {
		t.Errorf("Detokenize = %q", s)
	}
}

func TestNewErrors(t *testing.T) {
	good := spmVocab(map[string]float32{"a": -1})
	tests := []struct {
		name string
		edit func(v *Vocab)
		is   error
		want string
	}{
		{"no model", func(v *Vocab) { v.Model = "" }, nil, "no tokenizer model"},
		{"no vocab", func(v *Vocab) { v.Model = "none" }, ErrNoVocab, "no vocabulary"},
		{"unsupported model", func(v *Vocab) { v.Model = "t5" }, ErrUnsupported, `"t5"`},
		{"unknown model", func(v *Vocab) { v.Model = "zzz" }, nil, `unknown tokenizer model "zzz"`},
		{"unsupported pre", func(v *Vocab) { v.Model, v.Pre = "gpt2", "tekken" }, ErrUnsupported, `"tekken"`},
		{"unknown pre", func(v *Vocab) { v.Model, v.Pre = "gpt2", "zzz" }, nil, `unknown pre-tokenizer type "zzz"`},
		{"no tokens", func(v *Vocab) { v.Tokens = nil }, nil, "no tokens"},
		{"short scores", func(v *Vocab) { v.Scores = v.Scores[:10] }, nil, "10 scores"},
		{"short types", func(v *Vocab) { v.Types = v.Types[:10] }, nil, "10 token types"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := good
			v.Tokens, v.Scores, v.Types = slices.Clone(v.Tokens), slices.Clone(v.Scores), slices.Clone(v.Types)
			tt.edit(&v)
			_, err := New(v)
			if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("error %v, want %q (is %v)", err, tt.want, tt.is)
			}
		})
	}
}

// TestMalformedButUsable covers metadata llama.cpp accepts: special ids out
// of range (ignored), merges naming strings that are not tokens or not in
// the byte alphabet, empty and duplicate token texts.
func TestMalformedButUsable(t *testing.T) {
	v := bpeVocab("llama-bpe", []string{"ab", "ab"}, []string{"a|b", "q|"})
	v.Merges = append(v.Merges, "nospace", "Ä  x", "\u4e00 \u4e01")
	v.Tokens = append(v.Tokens, "")
	v.Types = append(v.Types, TypeNormal)
	v.IDs = map[Special]uint32{SpecialBOS: 1 << 30, SpecialEOS: 5}
	tk := mustNew(t, v)
	if got := tk.Encode("ab", false, false); len(got) != 1 || got[0] != 257 {
		t.Errorf("duplicate text: %v, want the last id 257", got)
	}
	if tk.BOS() != 11 || tk.EOS() != 5 {
		t.Errorf("bos %d eos %d", tk.BOS(), tk.EOS())
	}
	if got := tk.Text(int32(len(v.Tokens) - 1)); !strings.HasPrefix(got, "[EMPTY_") {
		t.Errorf("empty token text became %q", got)
	}
	if _, err := tk.Detokenize([]int32{0, int32(tk.NumTokens())}, false, false); err == nil {
		t.Error("Detokenize accepted an id out of range")
	}
	if _, err := tk.Detokenize([]int32{-1}, false, false); err == nil {
		t.Error("Detokenize accepted -1")
	}
	if tk.TokenToPiece(-1, true) != "" || tk.TokenToPiece(1<<20, true) != "" || tk.Text(-5) != "" || tk.Attr(1<<20) != AttrUndefined {
		t.Error("invalid ids should give empty results")
	}
}

func TestCleanSpaces(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a , b .", "a, b."},
		{" ?", "?"},
		{"it ' s", "it's"},
		{"' era", "' era"},
		{" ' era", "'era"},
		{"we 're and they 've and I 'm and she 's", "we're and they've and I'm and she's"},
		{"don 't and I 'd and we 'll", "don 't and I 'd and we 'll"},
		{"a  ,", "a ,"},
	}
	for _, tt := range tests {
		if got := string(cleanSpaces([]byte(tt.in))); got != tt.want {
			t.Errorf("cleanSpaces(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecoder(t *testing.T) {
	tk := mustNew(t, spmVocab(map[string]float32{"▁": -1, "a": -5, "▁a": -3}))
	ids := tk.Encode("a 🦙é a", false, false)
	var got strings.Builder
	d := tk.NewDecoder(DecoderOptions{})
	for _, id := range ids {
		s, err := d.Add(id)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(s) {
			t.Fatalf("partial UTF-8 emitted: %q", s)
		}
		got.WriteString(s)
	}
	got.WriteString(d.Flush())
	if got.String() != "a 🦙é a" {
		t.Errorf("streamed %q", got.String())
	}

	// Continue keeps the leading space; invalid bytes become U+FFFD.
	d = tk.NewDecoder(DecoderOptions{Continue: true})
	a, _ := tk.TokenID("▁a")
	ff, _ := tk.TokenID("<0xFF>")
	e2, _ := tk.TokenID("<0xE2>")
	var out []string
	for _, id := range []int32{a, ff, a, e2} {
		s, _ := d.Add(id)
		out = append(out, s)
	}
	if want := []string{" a", "\uFFFD", " a", ""}; !slices.Equal(out, want) || d.Pending() != 1 {
		t.Errorf("stream %q (pending %d), want %q", out, d.Pending(), want)
	}
	if s := d.Flush(); s != "\uFFFD" {
		t.Errorf("Flush = %q", s)
	}
	if _, err := d.Add(-1); err == nil {
		t.Error("Add(-1) succeeded")
	}
	// Control tokens render only with Special.
	d = tk.NewDecoder(DecoderOptions{Special: true})
	if s, _ := d.Add(tk.EOS()); s != "</s>" {
		t.Errorf("special: %q", s)
	}
}

func TestUnicodeTables(t *testing.T) {
	tests := []struct {
		r    rune
		want uint16
	}{
		{'a', cfLetter}, {'Z', cfLetter}, {'7', cfNumber}, {' ', cfSeparator | cfWhitespace},
		{'\n', cfControl | cfWhitespace}, {'$', cfSymbol}, {'_', cfPunct}, {0x85, cfControl | cfWhitespace},
		{0xA0, cfSeparator | cfWhitespace}, {0x3000, cfSeparator | cfWhitespace}, {0x200B, cfControl},
		{0x0301, cfMark}, {0x4E2D, cfLetter}, {0x1F999, cfSymbol}, {0xBD, cfNumber}, {0xD800, cfControl},
		{0x0378, cfUndefined}, {0x31EF, cfSymbol}, {0x2FFC, cfSymbol}, {0x2EBF0, cfLetter},
		{0x2EE5D, cfLetter}, {0x2EE5E, cfUndefined}, {0x10FFFF, cfUndefined}, {0x110000, cfUndefined},
	}
	for _, tt := range tests {
		if got := cptFlags(tt.r); got != tt.want {
			t.Errorf("cptFlags(%#x) = %#x, want %#x", tt.r, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, want rune }{{'é', 'e'}, {'Å', 'A'}, {'한', 0x1112}, {'Ǻ', 'A'}, {'ǅ', 'ǅ'}, {'a', 'a'}, {'中', '中'}} {
		if got := nfdFirst(tt.in); got != tt.want {
			t.Errorf("nfdFirst(%q) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}

// TestUnicodeVersion guards the Unicode 15.1 additions in unicode151: they
// fill the gap between Go's tables and llama.cpp's. When Go moves to a
// newer Unicode, characters assigned after 15.1 must be kept undefined (as
// llama.cpp has them) and unicode151 may go.
func TestUnicodeVersion(t *testing.T) {
	if v := unicode.Version; v != "15.0.0" {
		t.Fatalf("Go's Unicode tables are %s; update unicode151 in unicode.go to match llama.cpp's Unicode 15.1 data", v)
	}
}

func TestDecodeRune(t *testing.T) {
	tests := []struct {
		in   string
		want []rune
	}{
		{"a\u00e9\u4e2d\U0001F999", []rune{'a', 0xE9, 0x4E2D, 0x1F999}},
		{"\xC0\x80", []rune{0}},                                      // overlong: accepted as llama.cpp does
		{"\xED\xA0\x80", []rune{0xD800}},                             // surrogate: accepted
		{"\xff\xfe", []rune{0xFFFD, 0xFFFD}},                         // invalid lead bytes
		{"\xE4\xB8", []rune{0xFFFD, 0xFFFD}},                         // truncated
		{"\xF4\x90\x80\x80", []rune{0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD}}, // above U+10FFFF
	}
	for _, tt := range tests {
		if got := decodeCodepoints(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("decode(%q) = %U, want %U", tt.in, got, tt.want)
		}
	}
	if got := string(appendRune(nil, 0xD800)); got != "\xED\xA0\x80" {
		t.Errorf("appendRune(0xD800) = %q", got)
	}
}

// TestPreTokenizers shows how each pre-tokenizer splits a sample text.
func TestPreTokenizers(t *testing.T) {
	const text = "Hello world's 1234567 <b>ok</b>!!\n\n  x  \t"
	tests := []struct {
		kind preKind
		want []string
	}{
		{preGPT2, []string{"Hello", " world", "'s", " 1234567", " <", "b", ">", "ok", "</", "b", ">!!", "\n\n ", " x", "  \t"}},
		{preLlama3, []string{"Hello", " world", "'s", " ", "123", "456", "7", " <", "b", ">ok", "</", "b", ">!!\n\n", " ", " x", "  \t"}},
		{preQwen2, []string{"Hello", " world", "'s", " ", "1", "2", "3", "4", "5", "6", "7", " <", "b", ">ok", "</", "b", ">!!\n\n", " ", " x", "  \t"}},
		{preStarCoder, []string{"Hello", " world", "'s", " ", "1", "2", "3", "4", "5", "6", "7", " <", "b", ">", "ok", "</", "b", ">!!", "\n\n ", " x", "  \t"}},
		{preFalcon, []string{"Hello", " world", "'", "s", " ", "123", "456", "7", " ", "<", "b", ">", "ok", "</", "b", ">!!", "\n\n ", " x", "  \t"}},
	}
	for _, tt := range tests {
		var c codepoints
		c.decode(text)
		st := &encodeState{}
		ends := pretokenize(stagesOf(tt.kind), &c, st)
		var got []string
		lo := 0
		for _, e := range ends {
			got = append(got, c.text[c.offs[lo]:c.offs[e]])
			lo = int(e)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("kind %d:\n got %q\nwant %q", tt.kind, got, tt.want)
		}
	}
}

// TestConcurrentEncode encodes from several goroutines at once with one
// tokenizer (run it with -race).
func TestConcurrentEncode(t *testing.T) {
	tk := mustNew(t, bpeVocab("llama-bpe", []string{"he", "hel", "hell", "hello"}, []string{"h|e", "he|l", "hel|l", "hell|o"}))
	want := tk.Encode("hello hello, hello!", true, true)
	done := make(chan []int32)
	for range 8 {
		go func() {
			var got []int32
			for range 50 {
				got = tk.Encode("hello hello, hello!", true, true)
			}
			done <- got
		}()
	}
	for range 8 {
		if got := <-done; !slices.Equal(got, want) {
			t.Errorf("concurrent Encode = %v, want %v", got, want)
		}
	}
}

func TestSplitLong(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  []string
	}{
		{"abc", 3, []string{"abc"}},
		{"abcdefg", 3, []string{"abc", "def", "g"}},
		{"aé中🦙b", 4, []string{"aé", "中", "🦙", "b"}},
		{"\x80\x80\x80\x80\x80", 2, []string{"\x80\x80", "\x80\x80", "\x80"}},
	}
	for _, tt := range tests {
		if got := splitLong(tt.in, tt.limit); !slices.Equal(got, tt.want) {
			t.Errorf("splitLong(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}
