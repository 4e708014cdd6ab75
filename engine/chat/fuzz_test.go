package chat

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"saji/engine/chat/jinja"
	"saji/internal/refdata"
)

// templateHang is how long one render may take before it counts as a hang:
// far past the default render deadline (jinja.DefaultLimits), so that a
// loaded machine does not count, only a loop that never checks it.
const templateHang = time.Minute

// optionalTemplates lets FuzzTemplate seed from the reference templates
// without being skipped where they are absent: its Skip only records the
// fact (Fatal, under CI, still fails).
type optionalTemplates struct {
	testing.TB
	absent bool
}

func (o *optionalTemplates) Skip(args ...any) { o.absent = true; o.TB.Log(args...) }

// FuzzTemplate runs arbitrary template sources down the path a model's
// template takes, with the real limits (chat.Parse's defaults): parsed as
// at load, probed by Capabilities as at load, then rendered for a
// conversation with tools as at a request. Nothing panics, every failure
// is a *jinja.Error, and no render runs far past its deadline. The
// seeds are the reference templates and, under testdata/fuzz, the
// hostile shapes of issue #23.
func FuzzTemplate(f *testing.F) {
	if testing.Short() {
		f.Skip("renders every reference template several times: the tests without -short run the seeds")
	}
	f.Add(ChatMLSource)
	f.Add(`{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}{% if m.tool_calls %}{{ m.tool_calls|tojson }}{% endif %}{% endfor %}{% if tools %}{{ tools|tojson(indent=2) }}{% endif %}{% if add_generation_prompt %}[assistant]{% endif %}`)
	o := &optionalTemplates{TB: f}
	dir := refdata.Dir(o)
	if !o.absent {
		paths, _ := filepath.Glob(filepath.Join(dir, "templates", "*.jinja"))
		for _, p := range paths {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(string(src))
			}
		}
	}
	req := fuzzRequest()
	f.Fuzz(func(t *testing.T, src string) {
		check := func(what string, err error, start time.Time) {
			t.Helper()
			if d := time.Since(start); d > templateHang {
				t.Fatalf("%s took %v: past the render deadline of %v", what, d, jinja.DefaultLimits().MaxRenderTime)
			}
			var e *jinja.Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("%s: error %T %v is not a *jinja.Error", what, err, err)
			}
		}
		start := time.Now()
		tmpl, err := Parse(src)
		check("parse", err, start)
		if err != nil {
			return
		}
		start = time.Now()
		// Capabilities renders a few probes, each with its own deadline.
		_, err = Capabilities(context.Background(), tmpl)
		if d := time.Since(start); d > 10*templateHang {
			t.Fatalf("the capabilities probe took %v", d)
		}
		var e *jinja.Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("capabilities: error %T %v is not a *jinja.Error", err, err)
		}
		start = time.Now()
		out, err := tmpl.RenderMessages(context.Background(), req)
		check("render", err, start)
		if err == nil && len(out) > jinja.DefaultLimits().MaxOutputBytes {
			t.Fatalf("output of %d bytes beyond the limit", len(out))
		}
	})
}

// fuzzRequest is the conversation FuzzTemplate renders: every kind of
// message a request can carry, and a tool.
func fuzzRequest() Request {
	return Request{
		Messages: []Message{
			{Role: "system", Content: "Be brief."},
			{Role: "user", Parts: []ContentPart{{Type: "text", Text: "What is 6 times 7?"}}},
			{Role: "assistant", NullContent: true, ReasoningContent: "Multiply.",
				ToolCalls: []ToolCall{{ID: "c1", Type: "function", Name: "mul", Arguments: map[string]any{"a": 6, "b": 7}}}},
			{Role: "tool", ToolCallID: "c1", Name: "mul", Content: "42"},
			{Role: "assistant", Content: "42."},
			{Role: "user", Content: "Thanks."},
		},
		Tools: []any{map[string]any{"type": "function", "function": map[string]any{"name": "mul", "description": "Multiplies.",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "integer"}}}}}},
		AddGenerationPrompt: true,
		BOSToken:            "<s>",
		EOSToken:            "</s>",
		Extra:               map[string]any{"enable_thinking": false},
	}
}
