package hub

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseCard(t *testing.T) {
	long := strings.Repeat("word ", 200)
	tests := []struct {
		name string
		md   string
		want Card
	}{
		{"plain", "Hello world.", Card{Summary: "Hello world."}},
		{"front matter", "---\nlicense: mit\nbase_model: Qwen/Qwen2.5-7B\n---\n\nA model.\n", Card{Summary: "A model.", License: "mit", BaseModel: "Qwen/Qwen2.5-7B"}},
		{"quoted and listed", "---\r\nlicense: 'apache-2.0' # comment\r\nbase_model:\r\n  - \"a/b\"\r\n  - c/d\r\n---\r\nText.", Card{Summary: "Text.", License: "apache-2.0", BaseModel: "a/b"}},
		{"flow list", "---\nbase_model: [x/y, z/w]\nlicense: other\nlicense_name: foo\n---\nT.", Card{Summary: "T.", License: "other", BaseModel: "x/y"}},
		{"unclosed front matter", "---\nlicense: mit\nno end", Card{Summary: "license: mit no end"}},
		{"markdown stripped", "# Title\n\n[![badge](https://b/b.svg)](https://x) ![img](i.png)\n\nA **bold** _model_ with `code`, [a link](https://x) and <a href=\"u\">html</a>.\nSecond line &amp; more.\n\n## Next\n\nSecond paragraph.",
			Card{Summary: "A bold _model_ with code, a link and html. Second line & more.\n\nSecond paragraph."}},
		{"code, tables, quotes and comments skipped", "<!-- hidden -->\n```\ncode here\n```\n| a | b |\n|---|---|\n> quote\n\n    indented code\n\nProse.", Card{Summary: "Prose."}},
		{"lists", "Intro:\n- one item\n- two item\n\nEnd.", Card{Summary: "Intro:\n\none item\n\ntwo item\n\nEnd."}},
		{"only headings", "# A\n## B\n", Card{}},
		{"empty", "", Card{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseCard(tt.md); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	got := ParseCard("# T\n\n" + long + "\n\nmore")
	if len(got.Summary) > summaryLen+len("…") || !strings.HasSuffix(got.Summary, "word…") {
		t.Errorf("long summary: %d bytes: %q", len(got.Summary), got.Summary)
	}
	// Cut on a rune boundary even without spaces.
	got = ParseCard(strings.Repeat("é", 1000))
	if !utf8.ValidString(got.Summary) || len(got.Summary) > summaryLen+len("…") {
		t.Errorf("unicode cut: %q", got.Summary)
	}
}
