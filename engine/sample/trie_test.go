package sample

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
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
		again := make([]uint64, len(allow))
		c.Mask(trie, again) // from the kept masks
		if !slices.Equal(again, allow) {
			t.Fatalf("after %q: a kept mask differs", step)
		}
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

// TestRandomWalks generates documents of JSON schemas by picking random
// allowed tokens, as a sampler under the mask would: the walk never gets
// stuck (some token is always allowed until the document is complete),
// and every complete document is valid JSON.
func TestRandomWalks(t *testing.T) {
	pieces := synthPieces(3000)
	for b := range 256 { // byte tokens, as BPE and byte-fallback vocabularies have
		pieces = append(pieces, string([]byte{byte(b)}))
	}
	trie := NewTokenTrie(pieces)
	allow := make([]uint64, (len(pieces)+63)/64)
	schemas := []string{`{"type": "object"}`, `{}`, personSchema, listSchema}
	for _, name := range []string{"zod-person", "zod-event", "zod-union", "zod-tree", "pydantic-person", "pydantic-owner", "pydantic-tree"} {
		raw, err := os.ReadFile("testdata/schemas/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		schemas = append(schemas, string(raw))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, schema := range schemas {
		schema := strings.Join(strings.Fields(schema), " ")
		complete := 0
		for walk := range 6 {
			c := mustConstraint(t, schema)
			var text strings.Builder
			var ids []int32
			for step := 0; step < 300; step++ {
				c.Mask(trie, allow)
				ids = ids[:0]
				for id := range pieces {
					if allow[id>>6]&(1<<(id&63)) != 0 {
						ids = append(ids, int32(id))
					}
				}
				if c.Complete() && (len(ids) == 0 || r.IntN(4) == 0) {
					break
				}
				if len(ids) == 0 {
					t.Fatalf("%.40s walk %d: stuck after %q", schema, walk, text.String())
				}
				// Favour short tokens, so that documents end.
				id := ids[r.IntN(len(ids))]
				for range 2 {
					if alt := ids[r.IntN(len(ids))]; len(pieces[alt]) < len(pieces[id]) {
						id = alt
					}
				}
				if err := c.Advance(pieces[id]); err != nil {
					t.Fatalf("a masked-in token refused: %v", err)
				}
				text.WriteString(pieces[id])
			}
			if c.Complete() {
				complete++
				if !json.Valid([]byte(text.String())) {
					t.Fatalf("%.40s: complete but not JSON: %q", schema, text.String())
				}
			}
		}
		t.Logf("%.40s: %d of 6 walks complete", schema, complete)
	}
}
