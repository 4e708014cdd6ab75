package sample

import (
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"saji/engine/tokenizer"
	"saji/internal/refdata"
)

var (
	benchPiecesOnce sync.Once
	benchPieces     []string
)

// llama3Pieces returns the text of every token of the Llama 3 vocabulary
// (128256 tokens) when the reference data is there, else 128k
// synthesized pieces.
func llama3Pieces(b *testing.B) []string {
	benchPiecesOnce.Do(func() {
		if path := refdata.Path(b, "vocab/llama3-bpe-full.gguf"); fileExists(path) {
			if tk, err := tokenizer.Open(path); err == nil {
				benchPieces = make([]string, tk.NumTokens())
				for i := range benchPieces {
					if !tk.IsControl(int32(i)) {
						benchPieces[i] = tk.TokenToPiece(int32(i), false)
					}
				}
				return
			}
		}
		benchPieces = synthPieces(benchVocab)
	})
	return benchPieces
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// synthPieces makes n token texts that look like a BPE vocabulary's:
// words with and without a leading space, punctuation runs, digits, and
// some multi-byte characters.
func synthPieces(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	const letters = "etaoinshrdlcumwfgypbvkjxqz"
	punct := []string{"{", "}", "\":", "\",", "\"", ",", ":", " {", "[", "]", "\\n", "\n", "  ", ".", "-", "_", "'", "(", ")", "é", "日本", "🦀"}
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		var s strings.Builder
		switch k := r.IntN(10); {
		case k < 7:
			if r.IntN(2) == 0 {
				s.WriteByte(' ')
			}
			for range 1 + r.IntN(9) {
				s.WriteByte(letters[min(r.IntN(26), r.IntN(26))])
			}
		case k < 8:
			for range 1 + r.IntN(3) {
				s.WriteByte(byte('0' + r.IntN(10)))
			}
		default:
			for range 1 + r.IntN(3) {
				s.WriteString(punct[r.IntN(len(punct))])
			}
		}
		if !seen[s.String()] {
			seen[s.String()] = true
			out = append(out, s.String())
		}
	}
	return out
}

// BenchmarkGrammarMask masks a 128k vocabulary (Llama 3's when the
// reference data is there) at one step of a JSON schema's output: cold
// is a step from a state never seen (a new constraint each time, as at
// a request's first step or a new place in the schema), warm a step from
// a state seen before whose mask is no longer kept (the transitions
// cached: a walk of table lookups), kept the same step again (as in a
// long string).
func BenchmarkGrammarMask(b *testing.B) {
	pieces := llama3Pieces(b)
	trie := NewTokenTrie(pieces)
	schema, err := os.ReadFile("testdata/schemas/zod-person.json")
	if err != nil {
		b.Fatal(err)
	}
	g := compileSchema(b, schema)
	allow := make([]uint64, (len(pieces)+63)/64)
	for _, bc := range []struct{ name, prefix string }{
		{"start", ``},
		{"mid-object", `{"name": "Ada", `},
		{"mid-string", `{"name": "Ad`},
		{"mid-number", `{"name": "Ada", "age": 3`},
	} {
		// at returns a new constraint after the case's prefix.
		at := func(b *testing.B) *GrammarConstraint {
			c := NewGrammarConstraint(g)
			if err := c.Advance(bc.prefix); err != nil {
				b.Fatal(err)
			}
			return c
		}
		b.Run(bc.name+"/cold", func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				c := at(b)
				b.StartTimer()
				c.Mask(trie, allow)
			}
		})
		for _, m := range []struct {
			name string
			mask func(*GrammarConstraint)
		}{
			{"warm", func(c *GrammarConstraint) { c.walkTrie(trie, allow) }},
			{"kept", func(c *GrammarConstraint) { c.Mask(trie, allow) }},
		} {
			b.Run(bc.name+"/"+m.name, func(b *testing.B) {
				c := at(b)
				m.mask(c)
				for b.Loop() {
					m.mask(c)
				}
			})
		}
	}
}

// BenchmarkTokenTrie builds the trie of a 128k vocabulary (once per model).
func BenchmarkTokenTrie(b *testing.B) {
	pieces := llama3Pieces(b)
	for b.Loop() {
		NewTokenTrie(pieces)
	}
}

// BenchmarkSchemaCompile compiles a zod schema to a grammar and parses
// it: the work of a structured request before its first step.
func BenchmarkSchemaCompile(b *testing.B) {
	schema, err := os.ReadFile("testdata/schemas/zod-event.json")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		src, err := SchemaGrammar(schema)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ParseGrammar(src); err != nil {
			b.Fatal(err)
		}
	}
}
