package runner

import (
	"fmt"
	"sync"

	"saji/engine/sample"
	"saji/engine/scheduler"
)

// Structured output: OpenAI's response_format (json_object, json_schema)
// and Ollama's format ("json" or a schema) are enforced by constrained
// decoding. At every step the scheduler masks the tokens whose text would
// not continue a valid JSON value (of the schema), and the end only comes
// once the value is complete.

// jsonTokens adapts a JSON recognizer to the scheduler's token constraint
// through the text of every vocabulary token.
type jsonTokens struct {
	c      *sample.JSONConstraint
	pieces []string // "" for tokens that never appear in JSON text (control tokens)
}

func (j *jsonTokens) Allowed(id int32) bool {
	if int(id) >= len(j.pieces) {
		return false
	}
	p := j.pieces[id]
	return p != "" && j.c.Allows(p)
}

func (j *jsonTokens) Accept(id int32) error {
	if int(id) >= len(j.pieces) || j.pieces[id] == "" {
		return fmt.Errorf("runner: token %d has no text for the JSON constraint", id)
	}
	return j.c.Advance(j.pieces[id])
}

func (j *jsonTokens) Complete() bool { return j.c.Complete() }

// piecesOnce computes the text of every token once per model.
type piecesOnce struct {
	once   sync.Once
	pieces []string
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

// constraint returns the scheduler constraint of a structured request, or
// nil for free text.
func (m *Model) constraint(req Request) (scheduler.Constraint, error) {
	if !req.JSON {
		return nil, nil
	}
	c, err := sample.NewJSONConstraint(req.JSONSchema)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return &jsonTokens{c: c, pieces: m.tokenPieces()}, nil
}
