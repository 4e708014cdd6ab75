package sample

import (
	"testing"
)

// TestMaskMatchesAllows checks a vocabulary walk against asking Allows
// of every token, at several places of a grammar.
func TestMaskMatchesAllows(t *testing.T) {
	pieces := synthPieces(5000)
	pieces = append(pieces, "", "{", "{\"", "\"", "\"n", "\"name", "\"name\":", " \"", "a", "ab", "abc", "ab", "\xc3", "\xa9", "é\"", "}", "1", "12", "\xf0\x9f", "\x80", "\xe0", "\xf0", "\xe0\xa0", "\xc2", "\xed\x9f")
	trie := NewTokenTrie(pieces)
	if trie.Vocab() != len(pieces) {
		t.Fatalf("Vocab %d", trie.Vocab())
	}
	c := schemaConstraint(t, `{"type": "object", "properties": {"name": {"type": "string"}, "n": {"type": "integer"}}, "required": ["name"]}`)
	allow := make([]uint64, (len(pieces)+63)/64)
	for _, step := range []string{"", "{", "\"name", "\": \"", "ab", "\xc3", "\xa9", "\"", ", ", "\"n\":", "1"} {
		if err := c.Advance(step); err != nil {
			t.Fatalf("%q: %v", step, err)
		}
		c.Mask(trie, allow)
		n := 0
		for id, p := range pieces {
			want := p != "" && c.Allows(p)
			got := allow[id>>6]&(1<<(id&63)) != 0
			if got != want {
				t.Fatalf("after %q: token %d %q: mask %v, Allows %v", step, id, p, got, want)
			}
			if got {
				n++
			}
		}
		t.Logf("after %q: %d tokens allowed", step, n)
	}
}
