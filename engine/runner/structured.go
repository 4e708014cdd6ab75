package runner

import (
	"fmt"
	"sync"

	"saji/engine/sample"
	"saji/engine/scheduler"
)

// Structured output: OpenAI's response_format (json_object, json_schema),
// llama-server's grammar and json_schema, and Ollama's format ("json" or a
// schema) are enforced by constrained decoding through a grammar (a JSON
// schema is compiled to one, sample.SchemaGrammar). At every step the
// scheduler masks the tokens whose text would not continue a sentence of
// the grammar, and the end only comes once the sentence is complete.

// grammarTokens adapts a grammar constraint to the scheduler's token
// constraint. The scheduler asks Allowed for every token of the
// vocabulary at each step: the first question after a change masks the
// whole vocabulary in one walk of the model's token trie, the others read
// the mask.
type grammarTokens struct {
	c      *sample.GrammarConstraint
	trie   *sample.TokenTrie
	pieces []string // "" for tokens that never appear in the text (control tokens)
	mask   []uint64 // bit id: token id may come next
	fresh  bool     // mask is of the current state
}

// Allowed reports whether token id may come next.
func (j *grammarTokens) Allowed(id int32) bool {
	if !j.fresh {
		j.c.Mask(j.trie, j.mask)
		j.fresh = true
	}
	if id < 0 || int(id) >= len(j.pieces) {
		return false
	}
	return j.mask[id>>6]&(1<<(id&63)) != 0
}

// Accept advances the grammar by token id's text.
func (j *grammarTokens) Accept(id int32) error {
	if id < 0 || int(id) >= len(j.pieces) || j.pieces[id] == "" {
		return fmt.Errorf("runner: token %d has no text for the grammar", id)
	}
	j.fresh = false
	return j.c.Advance(j.pieces[id])
}

// Complete reports whether the text so far is a whole sentence.
func (j *grammarTokens) Complete() bool { return j.c.Complete() }

// piecesOnce computes the text of every token, and their trie, once per
// model.
type piecesOnce struct {
	once     sync.Once
	pieces   []string
	trieOnce sync.Once
	trie     *sample.TokenTrie
}

// tokenPieces returns the bytes each token of the vocabulary writes, ""
// for control and other special tokens.
func (m *Model) tokenPieces() []string {
	m.pieces.once.Do(func() {
		n := m.tok.NumTokens()
		m.pieces.pieces = make([]string, n)
		for i := range n {
			id := int32(i)
			if m.tok.IsControl(id) {
				continue
			}
			m.pieces.pieces[i] = m.tok.TokenToPiece(id, false)
		}
	})
	return m.pieces.pieces
}

// tokenTrie returns the trie of the vocabulary's token texts.
func (m *Model) tokenTrie() *sample.TokenTrie {
	m.pieces.trieOnce.Do(func() { m.pieces.trie = sample.NewTokenTrie(m.tokenPieces()) })
	return m.pieces.trie
}

// jsonObject is the schema of json_object mode (and Ollama's "json"):
// any JSON object, as OpenAI means it.
const jsonObject = `{"type": "object"}`

// constraint returns the scheduler constraint of a structured request, or
// nil for free text.
func (m *Model) constraint(req Request) (scheduler.Constraint, error) {
	var src string
	switch {
	case req.Grammar != "" && req.JSON:
		return nil, fmt.Errorf("%w: a grammar and a JSON format together: give one", ErrBadRequest)
	case req.Grammar != "":
		src = req.Grammar
	case req.JSON:
		schema := []byte(req.JSONSchema)
		if len(schema) == 0 {
			schema = []byte(jsonObject)
		}
		var err error
		if src, err = sample.SchemaGrammar(schema); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
		}
	default:
		return nil, nil
	}
	g, err := sample.ParseGrammar(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	pieces := m.tokenPieces()
	return &grammarTokens{c: sample.NewGrammarConstraint(g), trie: m.tokenTrie(), pieces: pieces,
		mask: make([]uint64, (len(pieces)+63)/64)}, nil
}
