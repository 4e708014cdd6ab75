package jinja

import (
	"context"
	"encoding/json"
	"testing"
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
