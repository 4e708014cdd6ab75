package runner

import (
	"context"
	"strings"
	"testing"

	"saji/engine/chat"
	"saji/engine/synth"
)

// templateModel returns the tiny model of a runner of its own, with the
// chat template src.
func templateModel(t *testing.T, src string) *Model {
	t.Helper()
	m, err := tinyRunner(t, Config{}).Model("tiny")
	if err != nil {
		t.Fatal(err)
	}
	if m.tmpl, err = chat.Parse(src); err != nil {
		t.Fatal(err)
	}
	return m
}

// hiChat returns a chat of one user message and the tokens of its
// prompt on m.
func hiChat(t *testing.T, m *Model) ([]chat.Message, []int32) {
	t.Helper()
	msgs := []chat.Message{{Role: "user", Content: "hi"}}
	toks, err := m.Prompt(context.Background(), Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	return msgs, toks
}

// runScripted runs the tokens of reply through the generation loop of a
// stream that Start made for req, as if the model wrote them, and returns
// the pieces' text and reasoning.
func runScripted(t *testing.T, m *Model, req Request, reply string, stop []string) (text, reasoning string) {
	t.Helper()
	req.MaxTokens = 1
	s, err := m.Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	split := s.split
	s.Close()
	events, stopper := scripted(t, m, reply, true, stop)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var tb, rb strings.Builder
	if _, err := m.run(ctx, cancel, events, stopper, split, 1, func(p Piece) error {
		tb.WriteString(p.Text)
		rb.WriteString(p.Reasoning)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return tb.String(), rb.String()
}

// TestReasoningPieces checks the split of a <think> reply through Start
// and the generation loop: a prompt that opens the block starts the reply
// in it, one that closes it (enable_thinking false) does not, counted
// tokens split as messages do, RawReasoning and a raw prompt keep the text
// whole, and a stop string applies to the text before the split.
func TestReasoningPieces(t *testing.T) {
	m := templateModel(t, synth.ThinkingTemplate)
	msgs, toks := hiChat(t, m)
	off := false
	for _, c := range []struct {
		name            string
		req             Request
		reply           string
		stop            []string
		text, reasoning string
	}{
		{"opened by the prompt", Request{Messages: msgs}, "Let me see.\n</think>\n\nIt is 4.", nil, "It is 4.", "Let me see."},
		{"counted tokens", Request{Tokens: toks}, "Hmm.</think>Yes", nil, "Yes", "Hmm."},
		{"thinking off", Request{Messages: msgs, Think: &off}, "It is 4.", nil, " It is 4.", ""}, // the vocabulary's space prefix
		{"thinking off, block anyway", Request{Messages: msgs, Think: &off}, "<think>a</think>b", nil, "b", "a"},
		{"raw reasoning", Request{Messages: msgs, RawReasoning: true}, "a</think>b", nil, " a</think>b", ""},
		{"raw prompt", Request{Prompt: "<think>\n"}, "a</think>b", nil, " a</think>b", ""},
		{"stop string in the answer", Request{Messages: msgs}, "why</think>the cat STOP sat", []string{"STOP"}, "the cat ", "why"},
		{"stop string in the reasoning", Request{Messages: msgs}, "the STOP cat</think>sat", []string{"STOP"}, "", "the"},
		{"JSON from the first token", Request{Messages: msgs, JSON: true}, `{"a": 1}`, nil, ` {"a": 1}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, reasoning := runScripted(t, m, c.req, c.reply, c.stop)
			if text != c.text || reasoning != c.reasoning {
				t.Errorf("text %q, reasoning %q; want %q, %q", text, reasoning, c.text, c.reasoning)
			}
		})
	}
}

// TestThinkingControls checks that Think and ReasoningEffort reach the
// template as enable_thinking and reasoning_effort, and that a client's
// own template variables win over them.
func TestThinkingControls(t *testing.T) {
	m := templateModel(t, synth.ThinkingTemplate)
	msgs := []chat.Message{{Role: "user", Content: "hi"}}
	on, off := true, false
	for _, c := range []struct {
		name string
		req  Request
		end  string
	}{
		{"default", Request{Messages: msgs}, "<|im_start|>assistant\n<think>\n"},
		{"on", Request{Messages: msgs, Think: &on}, "<|im_start|>assistant\n<think>\n"},
		{"off", Request{Messages: msgs, Think: &off}, "<think>\n\n</think>\n\n"},
		{"effort", Request{Messages: msgs, ReasoningEffort: "high"}, "effort high\n<think>\n"},
		{"kwargs win", Request{Messages: msgs, Think: &off, ReasoningEffort: "high",
			TemplateExtra: map[string]any{"enable_thinking": true, "reasoning_effort": "low"}}, "effort low\n<think>\n"},
	} {
		toks, err := m.Prompt(context.Background(), c.req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.tok.Detokenize(toks, false, true)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(got, c.end) {
			t.Errorf("%s: the prompt ends %q, want %q", c.name, got[max(0, len(got)-40):], c.end)
		}
	}
}
