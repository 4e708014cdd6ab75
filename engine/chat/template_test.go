package chat

import (
	"context"
	"encoding/json"
	"errors"
	"saji/engine/chat/jinja"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrentRenders shares one parsed template between goroutines
// (run under -race).
func TestConcurrentRenders(t *testing.T) {
	tmpl, err := Parse(`{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{{ m.content|upper }}{{ [1, 2]|map('string')|join }}{% endfor %}{{ ns.n }}`)
	if err != nil {
		t.Fatal(err)
	}
	r := longConversation(20)
	want, err := tmpl.RenderMessages(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				out, err := tmpl.RenderMessages(context.Background(), r)
				if err != nil || out != want {
					t.Errorf("concurrent render differs: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestVarsWithTokens(t *testing.T) {
	tests := []struct {
		name, json, bos, eos, want, wantBOS string
	}{
		{"after add_generation_prompt", `{"messages": [], "add_generation_prompt": true, "x": 1}`, "<s>", "</s>",
			"messages,add_generation_prompt,bos_token,eos_token,x", "<s>"},
		{"at the end without add_generation_prompt", `{"messages": []}`, "<s>", "</s>", "messages,bos_token,eos_token", "<s>"},
		{"the context's tokens win", `{"bos_token": "B", "add_generation_prompt": false}`, "<s>", "</s>",
			"bos_token,add_generation_prompt,eos_token", "B"},
		{"empty tokens are not added", `{"a": 1}`, "", "", "a", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := DecodeVars([]byte(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			v = v.WithTokens(tt.bos, tt.eos)
			var keys []string
			for _, k := range v.d.Keys() {
				keys = append(keys, k.(string))
			}
			if got := strings.Join(keys, ","); got != tt.want {
				t.Errorf("keys %s, want %s", got, tt.want)
			}
			if b, _ := v.d.Get("bos_token"); b != nil && b != tt.wantBOS || b == nil && tt.wantBOS != "" {
				t.Errorf("bos_token %v, want %q", b, tt.wantBOS)
			}
		})
	}
	if _, err := DecodeVars([]byte(`[1, 2]`)); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("a list: got %v", err)
	}
	if _, err := DecodeVars([]byte(`{"a": `)); err == nil {
		t.Error("truncated JSON decoded")
	}
}

func TestRenderPlainValues(t *testing.T) {
	tmpl, err := Parse(`{{ d|tojson }}|{{ m|tojson }}|{{ x is defined }}`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		vars any
		want string
	}{
		{"a map: keys sorted", map[string]any{"d": map[string]any{"b": 1, "a": 2}, "m": []any{"x"}}, `{"a": 2, "b": 1}|["x"]|False`},
		{"JSON text: keys in order", json.RawMessage(`{"d": {"b": 1, "a": 2}, "m": null, "x": 0}`), `{"b": 1, "a": 2}|null|True`},
		{"a map holding JSON text", map[string]any{"d": json.RawMessage(`{"b": 1, "a": 2}`), "m": 1}, `{"b": 1, "a": 2}|1|False`},
		{"Vars", mustVars(t, `{"d": {"b": 1, "a": 2}, "m": "y"}`), `{"b": 1, "a": 2}|"y"|False`},
	}
	for _, tt := range tests {
		out, err := tmpl.Render(context.Background(), tt.vars)
		if err != nil || out != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, out, err, tt.want)
		}
	}
	if out, err := tmpl.Render(context.Background(), Vars{}); err == nil {
		t.Errorf("zero Vars: got %q, want an undefined error", out)
	}
}

// mustVars decodes template variables or fails the test.
func mustVars(t *testing.T, s string) Vars {
	t.Helper()
	v, err := DecodeVars([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRenderDeadline: a chat template that loops forever fails with a
// limit error at its render deadline, both through RenderMessages (each
// request) and Capabilities (the probe at load).
func TestRenderDeadline(t *testing.T) {
	src := `{% for i in range(10**12) %}{% set x = i %}{% endfor %}{{ messages[0].content }}`
	tmpl, err := ParseWithOptions(src, Options{Limits: jinja.Limits{MaxIterations: 1 << 62, MaxRenderTime: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = tmpl.RenderMessages(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}}})
	if !errors.Is(err, jinja.ErrLimitExceeded) {
		t.Errorf("RenderMessages: got %v, want a limit error", err)
	}
	if _, err := Capabilities(context.Background(), tmpl); err == nil {
		t.Error("Capabilities: got no error")
	}
	if d := time.Since(start); d > 30*time.Second { // without the deadline it runs for hours
		t.Errorf("took %v", d)
	}
}
