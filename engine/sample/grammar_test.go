package sample

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// feed advances c through text byte by byte and returns the offset of the
// first byte refused, or -1.
func feed(c *GrammarConstraint, text string) int {
	for i := 0; i < len(text); i++ {
		if err := c.Advance(text[i : i+1]); err != nil {
			return i
		}
	}
	return -1
}

// matchGrammar reports whether g accepts the whole of text, and where it
// refused a byte (-1 when none).
func matchGrammar(t *testing.T, g *Grammar, text string) (complete bool, at int) {
	t.Helper()
	c := NewGrammarConstraint(g)
	if at := feed(c, text); at >= 0 {
		return false, at
	}
	return c.Complete(), -1
}

func TestParseGrammarErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`root ::= "a`, "1:10: unterminated string literal"},
		{"root ::= [a-", "1:10: unterminated character class"},
		{"root ::= foo", "1:10: undefined rule \"foo\""},
		{"rot ::= \"a\"", "no rule named root"},
		{"root ::= \"a\"\nroot ::= \"b\"", "2:1: rule \"root\" defined twice"},
		{"root = \"a\"", "1:6: expecting ::= after \"root\""},
		{"root ::= (\"a\"", "1:14: expecting ')' to close the group opened at 1:10"},
		{"root ::= *", "1:10: '*' repeats nothing"},
		{"root ::= \"a\"{3,2}", "1:13: repetition {3,2}"},
		{"root ::= \"a\"{5000}", "repetition of 5000 is more than 2000"},
		{"root ::= \"a\"{2", "expecting '}'"},
		{`root ::= "\q"`, "1:11: unknown escape \\q"},
		{`root ::= "\x4"`, "escape \\x needs 2 hex digits"},
		{`root ::= [z-a]`, "reversed"},
		{"root ::= <think>", "token references"},
		{"root ::= \"a\" )", "1:14: expecting a newline or the end"},
		{"root ::= root \"a\"", "rule \"root\" is left-recursive"},
		{"root ::= x\nx ::= y? x \"a\"\ny ::= \"b\"", "rule \"x\" is left-recursive"},
		{"root ::= (\"\" | \"a\")* root", "left-recursive"},
		{"root ::= \"a\" \xff", "not valid UTF-8"},
	} {
		_, err := ParseGrammar(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestGrammarMatch(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		ok        []string // complete sentences
		prefix    []string // valid prefixes, not complete
		bad       map[string]int
	}{
		{name: "literal", src: `root ::= "héllo" " " "w\x6frld\n"`,
			ok: []string{"héllo world\n"}, prefix: []string{"", "h", "h\xc3", "héllo wor"},
			bad: map[string]int{"hello": 1, "h\xc3\xa8": 2, "héllo world\n!": 13}},
		{name: "alternation and groups", src: "root ::= (\"a\" | \"bc\")+ end\nend ::= \"!\" | # nothing\n  \"?\"",
			ok: []string{"a!", "abcbc?", "bca?"}, prefix: []string{"a", "b", "abc"},
			bad: map[string]int{"!": 0, "ac": 1, "a!!": 2}},
		{name: "classes", src: `root ::= [a-c0-9_] [^"\\\x00-\x1F] [\u00e0-\u00ff]`,
			ok: []string{"a'à", "9zÿ", "_ é"}, prefix: []string{"a", "ab", "ab\xc3"},
			bad: map[string]int{"d": 0, "a\"": 1, "a\n": 1, "aa\xc4": 2, "aaz": 2, "\xe0": 0, "\xf0": 0, "\xc3": 0}},
		{name: "dot", src: `root ::= "<" .* ">"`,
			ok: []string{"<>", "<a\n𝄞>", "<>>"}, prefix: []string{"<", "<\xf0\x9d"},
			bad: map[string]int{">": 0, "<\xff": 1, "<\xc0\x80": 1, "<\xed\xa0\x80": 2}},
		{name: "bounded repetition", src: `root ::= [0-9]{2,4} "x"{0,1} ("ab"){2}`,
			ok: []string{"12abab", "1234xabab", "123abab"}, prefix: []string{"1", "12", "12x", "12xab"},
			bad: map[string]int{"1a": 1, "12345": 4, "12xx": 3, "12ababab": 6}},
		{name: "exact and open repetition", src: `root ::= "a"{3} "b"{2,}`,
			ok: []string{"aaabb", "aaabbbbbb"}, prefix: []string{"aa", "aaab"},
			bad: map[string]int{"aab": 2, "aaaa": 3}},
		{name: "recursion", src: "root ::= item\nitem ::= \"(\" item* \")\"",
			ok: []string{"()", "(()(()))"}, prefix: []string{"(", "(()"},
			bad: map[string]int{")": 0, "())": 2}},
		{name: "nullable root", src: `root ::= "a"?`, ok: []string{"", "a"}, bad: map[string]int{"aa": 1, "b": 0}},
		{name: "crlf and comments", src: "# a comment\r\nroot ::= x # trailing\r\n\r\nx ::= \"y\"\r\n",
			ok: []string{"y"}},
	} {
		g, err := ParseGrammar(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for _, s := range tc.ok {
			if ok, at := matchGrammar(t, g, s); !ok {
				t.Errorf("%s: %q not accepted (refused at %d)", tc.name, s, at)
			}
		}
		for _, s := range tc.prefix {
			if ok, at := matchGrammar(t, g, s); ok || at >= 0 {
				t.Errorf("%s: prefix %q: complete %v, refused at %d", tc.name, s, ok, at)
			}
		}
		for s, want := range tc.bad {
			if _, at := matchGrammar(t, g, s); at != want {
				t.Errorf("%s: %q refused at %d, want %d", tc.name, s, at, want)
			}
		}
	}
}

// TestGrammarAllowsKeepsState checks that Allows changes nothing and that
// a refused Advance leaves the state as it was.
func TestGrammarAllowsKeepsState(t *testing.T) {
	g, err := ParseGrammar(`root ::= "ab" | "ac"`)
	if err != nil {
		t.Fatal(err)
	}
	c := NewGrammarConstraint(g)
	if !c.Allows("ab") || !c.Allows("ac") || c.Allows("ad") || c.Allows("abc") {
		t.Fatal("Allows")
	}
	if err := c.Advance("ad"); err == nil {
		t.Fatal("Advance(ad) accepted")
	}
	if err := c.Advance("a"); err != nil {
		t.Fatal(err)
	}
	if c.Complete() || !c.Allows("c") {
		t.Fatal("after a")
	}
	if err := c.Advance("c"); err != nil || !c.Complete() || !c.Done() {
		t.Fatal("after ac", err)
	}
}

// TestGrammarLimits checks that deep nesting is refused, not grown
// without bound, and that the caches are rebuilt without losing the
// state.
func TestGrammarLimits(t *testing.T) {
	g, err := ParseGrammar("root ::= item\nitem ::= \"(\" item? \")\"")
	if err != nil {
		t.Fatal(err)
	}
	c := NewGrammarConstraint(g)
	deep := strings.Repeat("(", gMaxDepth+10)
	if at := feed(c, deep); at < 0 || at > gMaxDepth {
		t.Fatalf("nesting of %d accepted up to %d", len(deep), at)
	}
	// Many distinct states: every depth of nesting is one.
	c = NewGrammarConstraint(g)
	n := gMaxDepth / 2
	if at := feed(c, strings.Repeat("(", n)+strings.Repeat(")", n)); at >= 0 || !c.Complete() {
		t.Fatalf("balanced text refused at %d", at)
	}
	c.states = append(c.states, make([]dstate, gMaxStates)...) // force a rebuild
	c.compact()
	if len(c.states) > 10 || !c.Complete() {
		t.Fatalf("after a rebuild: %d states, complete %v", len(c.states), c.Complete())
	}
	// An exponential grammar is refused rather than expanded.
	src := "root ::= a0\n"
	for i := range 40 {
		src += "a" + strconv.Itoa(i) + " ::= a" + strconv.Itoa(i+1) + " | a" + strconv.Itoa(i+1) + " \"x\"\n"
	}
	src += "a40 ::= \"y\"\n"
	g, err = ParseGrammar(src)
	if err != nil {
		t.Fatal(err)
	}
	c = NewGrammarConstraint(g)
	if c.Allows("y") {
		t.Log("an exponential grammar was expanded within the limits")
	}
}

// TestLlamaCppGrammars parses llama.cpp's example grammars (read from the
// peer checkout when it is there) and matches samples of a few.
func TestLlamaCppGrammars(t *testing.T) {
	dir := os.Getenv("SAJI_LLAMA_GRAMMARS")
	if dir == "" {
		dir = "/work/llama.cpp/grammars"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.gbnf"))
	if len(files) == 0 {
		t.Skip("llama.cpp's grammars are not at", dir)
	}
	samples := map[string]struct{ ok, bad []string }{
		"json.gbnf":       {[]string{`{"a": [1, 2.5e3, "x\n"], "b": {"c": null}}`, `{}`}, []string{`[1]`, `{"a" 1}`, `{'a': 1}`}},
		"json_arr.gbnf":   {[]string{"[\n {\"a\": 1}]", "[\n]"}, []string{`{}`}},
		"arithmetic.gbnf": {[]string{"1+2=3\n", "(a*b)=c\n"}, []string{"1+=2\n"}},
		"chess.gbnf":      {[]string{"1. e4 e5\n2. Nf3 Nc6\n"}, []string{"1. e9 e5\n"}},
		"list.gbnf":       {[]string{"- milk\n- eggs\n"}, []string{"* milk\n"}},
		"japanese.gbnf":   {nil, nil},
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ParseGrammar(string(src))
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		s := samples[filepath.Base(f)]
		for _, text := range s.ok {
			if ok, at := matchGrammar(t, g, text); !ok {
				t.Errorf("%s: %q not accepted (refused at %d)", filepath.Base(f), text, at)
			}
		}
		for _, text := range s.bad {
			if ok, _ := matchGrammar(t, g, text); ok {
				t.Errorf("%s: %q accepted", filepath.Base(f), text)
			}
		}
	}
}
