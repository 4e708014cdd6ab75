package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"saji/engine/chat"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/engine/tokenizer"
)

// TestToolPieces feeds the tokens of replies with tool calls through a
// stream that parses them: the pieces' Text is the content alone, and the
// Result has the calls.
func TestToolPieces(t *testing.T) {
	r := tinyRunner(t, Config{})
	m, err := r.Model("tiny")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		f       chat.ToolFormat
		reply   string
		stop    []string
		content string
		calls   string
	}{
		{"hermes", chat.ToolHermes, "Let me look.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>", nil, " Let me look.", `f {"a":1};`}, // the tokenizer adds a space
		{"qwen3-coder", chat.ToolQwen3Coder, "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>", nil, "", `f {"a":1};`},
		{"generic", chat.ToolGeneric, `{"tool_calls": [{"name": "f", "arguments": {}}, {"name": "g", "arguments": {"b": "x"}}]}`, nil, "", `f {};g {"b":"x"};`},
		{"no call", chat.ToolHermes, "Just <b>text</b>.", nil, " Just <b>text</b>.", ""},
		{"stop string before a call", chat.ToolHermes, "Hi STOP <tool_call>{\"name\": \"f\"}</tool_call>", []string{"STOP"}, " Hi ", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			events, stopper := scripted(t, m, c.reply, false, c.stop)
			ctx, cancel := context.WithCancel(context.Background())
			s := &Stream{m: m, ctx: ctx, cancel: cancel, events: events, stopper: stopper, tools: chat.NewToolStream(c.f), prompt: 1}
			var content strings.Builder
			res, err := s.Run(func(p Piece) error {
				content.WriteString(p.Text)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if content.String() != c.content {
				t.Errorf("text %q, want %q", content.String(), c.content)
			}
			var calls string
			for _, tc := range res.ToolCalls {
				calls += fmt.Sprintf("%s %s;", tc.Name, tc.Arguments)
			}
			if calls != c.calls {
				t.Errorf("tool calls %q, want %q", calls, c.calls)
			}
		})
	}
}

// TestToolStart checks how Start handles a chat's tools: the tiny model's
// ChatML has no tool format, so its tools are described in the system
// turn (not passed to the template) and the reply constrained; bad tools
// and choices are client errors.
func TestToolStart(t *testing.T) {
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(context.Background(), path, LoadOptions{Name: "tiny", Threads: 2, Scheduler: scheduler.Config{Context: 1024, MaxSeqs: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if f := m.ToolFormat(); f != chat.ToolGeneric {
		t.Fatalf("ChatML's tool format %v", f)
	}
	tool := json.RawMessage(`{"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{"zone":{"type":"string"}}}}}`)
	msgs := []chat.Message{{Role: "user", Content: "hi"}}
	toks, err := m.Prompt(context.Background(), Request{Messages: msgs, Tools: []any{tool}})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := m.tok.Detokenize(toks, false, true)
	if !strings.Contains(text, "system") || !strings.Contains(text, `"name":"get_time"`) || !strings.Contains(text, `"tool_call"`) {
		t.Errorf("the generic tools prompt is missing:\n%s", text)
	}
	s, err := m.Start(context.Background(), Request{Messages: msgs, Tools: []any{tool}, ToolChoice: chat.ToolChoice{Required: true}, MaxTokens: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.tools == nil {
		t.Error("a chat with tools is not parsed for calls")
	}
	s.Close()
	s, err = m.Start(context.Background(), Request{Prompt: "hi", Tools: []any{tool}, MaxTokens: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.tools != nil {
		t.Error("a raw completion is parsed for calls")
	}
	s.Close()
	for name, req := range map[string]Request{
		"bad tool":       {Messages: msgs, Tools: []any{json.RawMessage(`{"type":"function","function":{}}`)}},
		"unknown choice": {Messages: msgs, Tools: []any{tool}, ToolChoice: chat.ToolChoice{Name: "other"}},
	} {
		if _, err := m.Start(context.Background(), req); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: %v, want a bad request", name, err)
		}
	}
	// The plan's grammar: the generic reply's JSON always, a call when
	// one is required; a grammar or response format asked for as well is
	// refused, but for the generic format, whose response it shapes.
	for _, c := range []struct {
		name   string
		f      chat.ToolFormat
		choice chat.ToolChoice
		req    Request
		want   string // in the grammar; "" for none
		bad    bool
	}{
		{"hermes auto", chat.ToolHermes, chat.ToolChoice{}, Request{}, "", false},
		{"hermes required", chat.ToolHermes, chat.ToolChoice{Required: true}, Request{}, `"<tool_call>\n"`, false},
		{"hermes required and grammar", chat.ToolHermes, chat.ToolChoice{Required: true}, Request{Grammar: `root ::= "x"`}, "", true},
		{"hermes required and json", chat.ToolHermes, chat.ToolChoice{Required: true}, Request{JSON: true}, "", true},
		{"hermes auto and json", chat.ToolHermes, chat.ToolChoice{}, Request{JSON: true}, "", false},
		{"generic auto", chat.ToolGeneric, chat.ToolChoice{}, Request{}, `"\"response\""`, false},
		{"generic and json", chat.ToolGeneric, chat.ToolChoice{ResponseSchema: json.RawMessage(`{"type":"object"}`)}, Request{JSON: true}, `"\"response\""`, false},
	} {
		p := &toolPlan{format: c.f, tools: mustParseTools(t, string(tool)), choice: c.choice}
		req := c.req
		err := p.constrain(&req)
		if c.bad != errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.bad {
			continue
		}
		if c.want == "" && req.Grammar != c.req.Grammar || c.want != "" && !strings.Contains(req.Grammar, c.want) {
			t.Errorf("%s: grammar\n%s", c.name, req.Grammar)
		}
		if c.want != "" && req.JSON {
			t.Errorf("%s: a JSON format left with the tools' grammar", c.name)
		}
	}
}

// scripted returns the events of a generation in which the model writes
// reply (with its special tokens when special), and the stopper of stop
// strings, for the generation loop.
func scripted(t *testing.T, m *Model, reply string, special bool, stop []string) (<-chan scheduler.Event, *sample.Stopper) {
	t.Helper()
	toks := m.tok.Encode(reply, false, special)
	events := make(chan scheduler.Event, len(toks)+1)
	for _, id := range toks {
		events <- scheduler.Event{Token: id}
	}
	events <- scheduler.Event{Done: true, Finish: scheduler.FinishStop}
	close(events)
	stopper, err := sample.NewStopper(m.tok.NewDecoder(tokenizer.DecoderOptions{Continue: true}), nil, stop)
	if err != nil {
		t.Fatal(err)
	}
	return events, stopper
}

// mustParseTools parses tool definitions for tests.
func mustParseTools(t *testing.T, defs ...string) []chat.Tool {
	t.Helper()
	var raw []any
	for _, d := range defs {
		raw = append(raw, json.RawMessage(d))
	}
	tools, err := chat.ParseTools(raw)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}
