package jinja

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestErrors(t *testing.T) {
	tmpl, err := Parse("line one\n{% if x %}\n{{ raise_exception('boom: ' ~ x) }}\n{% endif %}", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmpl.Render(context.Background(), map[string]any{"x": 3})
	msg, ok := RaisedMessage(err)
	if !ok || msg != "boom: 3" || !errors.Is(err, ErrTemplateRaised) {
		t.Fatalf("got %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Line != 3 {
		t.Errorf("line %d, want 3 (%v)", e.Line, err)
	}
	_, err = Parse("ok\n{% for x in %}", Options{})
	if !errors.As(err, &e) || e.Kind != KindSyntax || e.Line != 2 || !strings.HasPrefix(err.Error(), "jinja: syntax error") {
		t.Errorf("syntax error: %v", err)
	}
	if _, err := Parse("{{ x|nosuchfilter }}", Options{}); err == nil {
		t.Error("unknown filter outside an if parsed")
	}
	tmpl, err = Parse("{% if x %}{{ x|nosuchfilter }}{% endif %}ok", Options{})
	if err != nil {
		t.Fatalf("unknown filter in an if should fail at run time only: %v", err)
	}
	if out, err := tmpl.Render(context.Background(), nil); err != nil || out != "ok" {
		t.Errorf("got %q, %v", out, err)
	}
	if _, err := tmpl.Render(context.Background(), map[string]any{"x": 1}); !errors.As(err, &e) || e.Kind != KindRuntime {
		t.Errorf("got %v, want a runtime error", err)
	}
}
