package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/chat"
	"saji/engine/gguf"
	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/internal/refdata"
)

// qwenModel writes the tiny synthetic model with Qwen2.5's chat template
// (Hermes-style tool calls) from the reference data.
func qwenModel(t *testing.T) *runner.Model {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(refdata.Dir(t), "templates", "Qwen-Qwen2.5-7B-Instruct.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w, err := synth.MiniVocab("llama")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Set(gguf.KeyChatTemplate, string(src)); err != nil {
		t.Fatal(err)
	}
	vp := filepath.Join(dir, "vocab.gguf")
	if err := w.WriteFile(context.Background(), vp); err != nil {
		t.Fatal(err)
	}
	vocab, err := gguf.Open(vp)
	if err != nil {
		t.Fatal(err)
	}
	defer vocab.Close()
	shape, _ := synth.LookupShape("tiny")
	ft, _ := synth.ParseFileType("q8_0")
	mp := filepath.Join(dir, "qwen.gguf")
	if err := synth.Write(context.Background(), mp, synth.Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: 2, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	m, err := runner.Load(context.Background(), mp, runner.LoadOptions{Name: "qwen", Threads: 2, Scheduler: scheduler.Config{Context: 1024}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const weatherTool = `{"type":"function","function":{"name":"get_weather","description":"Weather of a city",
	"parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}`

// TestTools renders tool definitions and tool-call history through the
// template, checks tool_choice, and converts parsed calls to the API's
// shape.
func TestTools(t *testing.T) {
	m := qwenModel(t)
	if f := chat.DetectToolFormat(m.Info.Template); f != chat.ToolHermes {
		t.Fatalf("Qwen2.5's template: format %v", f)
	}
	// The definitions and an earlier call reach the prompt.
	var g runner.Request
	if _, err := tools(m, &g, json.RawMessage(`[`+weatherTool+`]`), nil); err != nil {
		t.Fatal(err)
	}
	var msgs []oaiMessage
	if err := json.Unmarshal([]byte(`[{"role":"user","content":"weather in Paris?"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"sunny"}]`), &msgs); err != nil {
		t.Fatal(err)
	}
	g.Messages = chatMessages(msgs)
	toks, err := m.Prompt(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := m.Tokenizer().Detokenize(toks, false, true)
	for _, want := range []string{"get_weather", "<tool_call>", `"city": "Paris"`, "<tool_response>", "sunny"} {
		if !strings.Contains(text, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, text)
		}
	}
	cases := []struct {
		tools, choice string
		ok            bool
		n             int
	}{
		{`[` + weatherTool + `]`, `"auto"`, true, 1},
		{`[` + weatherTool + `]`, `"none"`, true, 0},
		{`[` + weatherTool + `]`, `{"type":"function","function":{"name":"get_weather"}}`, true, 1},
		{`[` + weatherTool + `]`, `{"type":"function","function":{"name":"other"}}`, false, 0},
		{`[` + weatherTool + `]`, `"always"`, false, 0},
		{`[{"type":"function"}]`, ``, false, 0},
		{`{}`, ``, false, 0},
		{``, `"auto"`, true, 0},
	}
	for _, c := range cases {
		var g runner.Request
		_, err := tools(m, &g, json.RawMessage(c.tools), json.RawMessage(c.choice))
		if (err == nil) != c.ok || len(g.Tools) != c.n {
			t.Errorf("tools %s, choice %s: %d tools, %v", c.tools, c.choice, len(g.Tools), err)
		}
	}
	calls := oaiToolCalls([]chat.ToolCall{{ID: "call_x", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}, true)
	if b, _ := json.Marshal(calls); string(b) != `[{"index":0,"id":"call_x","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]` {
		t.Errorf("tool calls %s", b)
	}

	// Through the API: a request with tools is accepted, streamed or not,
	// and a model without a tool format refuses tools.
	s := New(Config{})
	s.Runner().Add(m)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	defer s.Close()
	body := `{"model":"qwen","messages":[{"role":"user","content":"weather in Paris?"}],"tools":[` + weatherTool + `],"max_tokens":4}`
	if status, v := post(t, hs.URL+"/v1/chat/completions", body); status != 200 {
		t.Errorf("tools: %d %v", status, v)
	}
	resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(strings.Replace(body, `"max_tokens":4`, `"max_tokens":4,"stream":true`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	evs := events(t, resp.Body)
	resp.Body.Close()
	if len(evs) == 0 || evs[len(evs)-1] != "[DONE]" {
		t.Errorf("streamed tools: %v", evs)
	}
	status, v := post(t, hs.URL+"/api/chat", `{"model":"qwen","messages":[{"role":"user","content":"weather?"}],"tools":[`+weatherTool+`],"stream":false,"options":{"num_predict":4}}`)
	if status != 200 || v["message"] == nil {
		t.Errorf("ollama tools: %d %v", status, v)
	}
	// Ollama's tool-call arguments reach the template in their order.
	var om []ollamaMessage
	if err := json.Unmarshal([]byte(`[{"role":"user","content":"weather?"},
		{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"zeta":1,"alpha":2}}}]}]`), &om); err != nil {
		t.Fatal(err)
	}
	cms, err := ollamaMessages(om)
	if err != nil {
		t.Fatal(err)
	}
	toks, err = m.Prompt(context.Background(), runner.Request{Messages: cms})
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := m.Tokenizer().Detokenize(toks, false, true); !strings.Contains(text, `"zeta": 1, "alpha": 2`) {
		t.Errorf("Ollama's tool-call arguments out of order:\n%s", text)
	}
	if _, err := ollamaMessages([]ollamaMessage{{Role: "assistant", ToolCalls: []ollamaToolCall{{}}}}); err != nil {
		t.Errorf("a call without arguments: %v", err)
	}
	_, tiny := newTestServer(t, Config{})
	if status, _ := post(t, tiny.URL+"/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"tools":[`+weatherTool+`]}`); status != 400 {
		t.Errorf("tools for a model without a tool format: status %d", status)
	}
}
