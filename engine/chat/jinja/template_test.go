package jinja

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRenderGoValues(t *testing.T) {
	tmpl, err := Parse(`{{ a }}|{{ b|tojson }}|{{ c }}|{{ d.y }}{{ d.x }}|{{ e is none }}|{{ f }}|{{ g }}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{
		"a": int32(7),
		"b": map[string]any{"z": []string{"p", "q"}, "a": 1.5},
		"c": []int{1, 2},
		"d": struct{}{}, // not convertible
	}
	if _, err := tmpl.Render(context.Background(), vars); err == nil {
		t.Fatal("struct value converted")
	}
	delete(vars, "d")
	vars["d"] = map[string]string{"y": "Y", "x": "X"}
	vars["e"] = nil
	vars["f"] = json.Number("12")
	vars["g"] = uint64(1 << 63)
	out, err := tmpl.Render(context.Background(), vars)
	if err != nil {
		t.Fatal(err)
	}
	if want := `7|{"a": 1.5, "z": ["p", "q"]}|[1, 2]|YX|True|12|9.223372036854776e+18`; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if _, err := tmpl.Render(context.Background(), []int{1}); err == nil {
		t.Error("a list was accepted as variables")
	}
	// With no variables, b is undefined and tojson of it fails.
	if out, err := tmpl.Render(context.Background(), nil); err == nil {
		t.Errorf("nil vars: got %q, want an error", out)
	}
}

func TestDecodeJSON(t *testing.T) {
	v, err := DecodeJSON([]byte(` {"b": [1, 2.0, -0, 1e2, 12345678901234567890, "é", null, true], "a": {}} `))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := repr(v), `{'b': [1, 2.0, 0, 100.0, 1.2345678901234567e+19, 'é', None, True], 'a': {}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	for _, bad := range []string{``, `{`, `{"a": 1} x`, `[1,]`, strings.Repeat("[", 2000) + strings.Repeat("]", 2000)} {
		if _, err := DecodeJSON([]byte(bad)); err == nil {
			t.Errorf("%.20q: no error", bad)
		}
	}
}

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

func TestStrftimeNow(t *testing.T) {
	now := time.Date(2026, 3, 5, 9, 7, 3, 0, time.UTC)
	tmpl, err := Parse(`{{ strftime_now("%Y-%m-%d %H:%M:%S|%d %b %Y|%B %d, %Y|%-d %A %I%p %j|%y %e %%") }}`,
		Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tmpl.Render(context.Background(), nil)
	if want := "2026-03-05 09:07:03|05 Mar 2026|March 05, 2026|5 Thursday 09AM 064|26  5 %"; err != nil || out != want {
		t.Errorf("got %q, %v; want %q", out, err, want)
	}
	// The default clock is the real one.
	tmpl, _ = Parse(`{{ strftime_now("%Y") }}`, Options{})
	if out, err := tmpl.Render(context.Background(), nil); err != nil || out != time.Now().Format("2006") {
		t.Errorf("real clock: %q, %v", out, err)
	}
}
