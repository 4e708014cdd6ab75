package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"saji/engine/chat"
)

// TestHarmonyPieces feeds the tokens of a harmony reply through the
// generation loop: the pieces' Text is the final channel alone and their
// Reasoning the analysis channel, the markers in neither, a stop string in
// the answer ends the text before it, and the Result has the reply's tool
// calls.
func TestHarmonyPieces(t *testing.T) {
	r := tinyRunner(t, Config{})
	m, err := r.Model("tiny")
	if err != nil {
		t.Fatal(err)
	}
	const answer = "<|channel|>analysis<|message|>Think first.<|end|><|start|>assistant<|channel|>final<|message|>The answer é. STOP more"
	const call = "<|channel|>analysis<|message|>Call it.<|end|><|start|>assistant to=functions.f<|channel|>commentary json<|message|>{\"a\":1}"
	for _, c := range []struct {
		name, reply        string
		stop               []string
		content, reasoning string
		call               string
	}{
		{"whole", answer, nil, "The answer é. STOP more", "Think first.", ""},
		{"stop string", answer, []string{"STOP"}, "The answer é. ", "Think first.", ""},
		{"stop string in a marker", answer, []string{"<|end|>"}, "", "Think first.", ""},
		{"tool call", call, nil, "", "Call it.", `f {"a":1}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			events, stopper := scripted(t, m, c.reply, false, c.stop)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var content, reasoning strings.Builder
			res, err := m.run(ctx, cancel, events, stopper, new(chat.Harmony), 1, func(p Piece) error {
				content.WriteString(p.Text)
				reasoning.WriteString(p.Reasoning)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if content.String() != c.content || reasoning.String() != c.reasoning {
				t.Errorf("text %q, reasoning %q; want %q, %q", content.String(), reasoning.String(), c.content, c.reasoning)
			}
			var call string
			for _, tc := range res.ToolCalls {
				call += fmt.Sprintf("%s %s", tc.Name, tc.Arguments)
			}
			if call != c.call {
				t.Errorf("tool calls %q, want %q", call, c.call)
			}
		})
	}
}

// TestHarmonyStart checks that a chat on a model whose template writes
// harmony is split, by messages or by the tokens Model.Prompt counted,
// and that a raw completion is not.
func TestHarmonyStart(t *testing.T) {
	m := templateModel(t, `{% for m in messages %}<|start|>{{ m.role }}<|channel|>final<|message|>{{ m.content }}<|end|>{% endfor %}<|start|>assistant`)
	if !m.tmpl.Harmony() {
		t.Fatal("a template with channels is not harmony")
	}
	msgs, toks := hiChat(t, m)
	for _, c := range []struct {
		name  string
		req   Request
		split bool
	}{
		{"messages", Request{Messages: msgs}, true},
		{"counted tokens", Request{Tokens: toks}, true},
		{"raw prompt", Request{Prompt: "hi"}, false},
	} {
		c.req.MaxTokens = 1
		s, err := m.Start(context.Background(), c.req)
		if err != nil {
			t.Fatal(err)
		}
		if (s.split != nil) != c.split {
			t.Errorf("%s: split %v, want %v", c.name, s.split != nil, c.split)
		}
		s.Close()
	}
}
