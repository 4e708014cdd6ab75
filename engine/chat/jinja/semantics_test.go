package jinja

import (
	"context"
	"errors"
	"testing"

	"saji/engine/chat/internal/corpus"
)

// renderCase is a template rendered with JSON variables: the output
// wanted, or the kind of error when err is not zero.
type renderCase struct {
	src, ctx, want string
	err            ErrorKind
}

// checkRenders renders each case and compares it with what it wants.
func checkRenders(t *testing.T, cases []renderCase) {
	t.Helper()
	for i, c := range cases {
		tmpl, err := Parse(c.src, Options{Now: corpus.FixedNow})
		var out string
		if err == nil {
			var vars Value
			if vars, err = DecodeJSON([]byte(c.ctx)); err != nil {
				t.Fatalf("case %d: bad context: %v", i, err)
			}
			out, err = tmpl.Render(context.Background(), vars)
		}
		if c.err != 0 {
			var e *Error
			if !errors.As(err, &e) || e.Kind != c.err {
				t.Errorf("case %d %q: got %q, %v; want a %v error", i, c.src, out, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("case %d %q: %v", i, c.src, err)
		} else if out != c.want {
			t.Errorf("case %d %q:\n got %q\nwant %q", i, c.src, out, c.want)
		}
	}
}

// TestSemantics checks rendering details (value printing, operators,
// filters, tests, methods, scoping, whitespace control) against outputs
// recorded from jinja2.
func TestSemantics(t *testing.T) { checkRenders(t, semanticsCases) }
