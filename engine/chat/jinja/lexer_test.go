package jinja

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// tokensString describes tokens as kind, text or number, one per token.
func tokensString(toks []token) string {
	var parts []string
	for _, t := range toks {
		switch t.kind {
		case tData, tName, tString:
			parts = append(parts, fmt.Sprintf("%s %q", t.kind, t.str))
		case tInt, tFloat:
			parts = append(parts, fmt.Sprintf("%s %v", t.kind, t.num))
		default:
			parts = append(parts, t.kind.String())
		}
	}
	return strings.Join(parts, ", ")
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"data only", "plain text", `template data "plain text"`},
		{"print", "a {{ x }} b",
			`template data "a ", begin of print statement, name "x", end of print statement, template data " b", end of template`},
		{"trim_blocks drops the newline after a block", "{% if a %}\nx{% endif %}",
			`begin of statement block, name "if", name "a", end of statement block, template data "x", begin of statement block, name "endif", end of statement block, end of template`},
		{"lstrip_blocks strips a block's indent", "a\n  {% if b %}c{% endif %}",
			`template data "a\n", begin of statement block, name "if", name "b", end of statement block, template data "c", begin of statement block, name "endif", end of statement block, end of template`},
		{"- strips whitespace around a tag", "a \n {{- x -}} \n b",
			`template data "a", begin of print statement, name "x", end of print statement, template data "b", end of template`},
		{"+ keeps the indent lstrip_blocks would strip", "a\n  {%+ if b %}{% endif %}",
			`template data "a\n  ", begin of statement block, name "if", name "b", end of statement block, begin of statement block, name "endif", end of statement block, end of template`},
		{"numbers", "{{ 1 2.5 1e3 0x1F 0o17 0b101 1_000 }}",
			`begin of print statement, integer 1, float 2.5, float 1000, integer 31, integer 15, integer 5, integer 1000, end of print statement, end of template`},
		{"strings", `{{ 'a\'b' "c\n" '\x41\u00e9' }}`,
			`begin of print statement, string "a'b", string "c\n", string "Aé", end of print statement, end of template`},
		{"operators, longest first", "{{ a**b//c!=d<=e~f|g }}",
			`begin of print statement, name "a", '**', name "b", '//', name "c", '!=', name "d", '<=', name "e", '~', name "f", '|', name "g", end of print statement, end of template`},
		{"comments vanish", "a{# c #}b",
			`template data "a", template data "b", end of template`},
		{"raw blocks are data", "{% raw %}{{ x }}{% endraw %}",
			`template data "{{ x }}", end of template`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toks, err := tokenize(normalizeSource(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := tokensString(toks); !strings.HasPrefix(got, tt.want) {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestTokenizeErrors(t *testing.T) {
	tests := []struct {
		src  string
		line int
		msg  string
	}{
		{"{{ 'abc }}", 1, "unexpected char"},
		{"a\n{{ 1 $ 2 }}", 2, "unexpected char"},
		{"{# never closed", 1, "comment"},
		{"{% raw %}x", 1, "raw"},
		{`{{ '\N{DIGIT ONE}' }}`, 1, `\N{...}`},
	}
	for _, tt := range tests {
		_, err := tokenize(normalizeSource(tt.src))
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindSyntax {
			t.Errorf("%q: got %v, want a syntax error", tt.src, err)
			continue
		}
		if e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%q: got %q at line %d, want %q at line %d", tt.src, e.Msg, e.Line, tt.msg, tt.line)
		}
	}
}

func TestUnescapePy(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain`, "plain"},
		{`a\nb\tc\\d`, "a\nb\tc\\d"},
		{`\'\"`, `'"`},
		{`\x41\101\u00e9\U0001F600`, "AAé😀"},
		{`\ud800`, "\uFFFD"},
		{`\q`, `\q`},
		{"a\\\nb", "ab"},
	}
	for _, tt := range tests {
		got, err := unescapePy(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("unescapePy(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`\x4`, `\u12`, `\U00110000`, `\`} {
		if _, err := unescapePy(bad); err == nil {
			t.Errorf("unescapePy(%q): no error", bad)
		}
	}
}

func TestNormalizeSource(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\r\nb\rc\n", "a\nb\nc"},
		{"a\n\n", "a\n"},
		{"a\xffb", "a\uFFFDb"},
	}
	for _, tt := range tests {
		if got := normalizeSource(tt.in); got != tt.want {
			t.Errorf("normalizeSource(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
