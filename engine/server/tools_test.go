package server

import (
	"context"
	"encoding/json"
	"fmt"
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
	return templateModel(t, "Qwen-Qwen2.5-7B-Instruct.jinja", "qwen", 1024)
}

// templateModel writes the tiny synthetic model with a chat template of
// the reference data, named name, with a context of n.
func templateModel(t *testing.T, template, name string, n int) *runner.Model {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(refdata.Dir(t), "templates", template))
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
	mp := filepath.Join(dir, name+".gguf")
	if err := synth.Write(context.Background(), mp, synth.Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: 2, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	m, err := runner.Load(context.Background(), mp, runner.LoadOptions{Name: name, Threads: 2, Scheduler: scheduler.Config{Context: n}})
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
	if err := tools(&g, json.RawMessage(`[`+weatherTool+`]`), nil, nil); err != nil {
		t.Fatal(err)
	}
	var msgs []oaiMessage
	if err := json.Unmarshal([]byte(`[{"role":"user","content":"weather in Paris?"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"sunny"}]`), &msgs); err != nil {
		t.Fatal(err)
	}
	var err error
	if g.Messages, err = chatMessages(msgs, newImageReader(context.Background(), false)); err != nil {
		t.Fatal(err)
	}
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
		{``, `"required"`, false, 0},
	}
	for _, c := range cases {
		var g runner.Request
		err := tools(&g, json.RawMessage(c.tools), json.RawMessage(c.choice), nil)
		if (err == nil) != c.ok || len(g.Tools) != c.n {
			t.Errorf("tools %s, choice %s: %d tools, %v", c.tools, c.choice, len(g.Tools), err)
		}
	}
	calls := oaiToolCalls([]chat.ToolCall{{ID: "call_x", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}, true)
	if b, _ := json.Marshal(calls); string(b) != `[{"index":0,"id":"call_x","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]` {
		t.Errorf("tool calls %s", b)
	}

	// Through the API: a request with tools is accepted, streamed or not.
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
	cms, err := ollamaMessages(om, newImageReader(context.Background(), false))
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
	if _, err := ollamaMessages([]ollamaMessage{{Role: "assistant", ToolCalls: []ollamaToolCall{{}}}}, newImageReader(context.Background(), false)); err != nil {
		t.Errorf("a call without arguments: %v", err)
	}
}

// clockTool's arguments are few and closed (an enum and a boolean), so
// that a random model's constrained call ends within a few tokens.
const clockTool = `{"type":"function","function":{"name":"get_time","description":"The time in a zone",
	"parameters":{"type":"object","properties":{"zone":{"enum":["utc","cet","pst"]},"dst":{"type":"boolean"}},"required":["zone","dst"]}}}`

// TestToolChoiceGeneric checks that a template without a tool format
// (the tiny model's ChatML) takes tools in the generic JSON format, and
// that tool_choice "required" and a named function make even a model of
// random weights call the right tool with valid arguments, in both
// dialects, streamed or not.
func TestToolChoiceGeneric(t *testing.T) {
	srv, hs := newTestServerContext(t, Config{}, 2048)
	m, err := srv.Runner().Model("tiny")
	if err != nil {
		t.Fatal(err)
	}
	if f := m.ToolFormat(); f != chat.ToolGeneric {
		t.Fatalf("the tiny model's format: %v", f)
	}
	for i, c := range []struct {
		tools, choice, want string
	}{
		{`[` + flagTool + `,` + clockTool + `]`, `"required"`, ""},
		{`[` + weatherTool + `,` + clockTool + `]`, `{"type":"function","function":{"name":"get_time"}}`, "get_time"},
	} {
		for _, stream := range []bool{false, true} {
			body := fmt.Sprintf(`{"model":"tiny","messages":[{"role":"user","content":"what time is it?"}],"tools":%s,"tool_choice":%s,"parallel_tool_calls":false,"max_tokens":1200,"seed":%d,"temperature":0.8,"stream":%v}`,
				c.tools, c.choice, i+1, stream)
			calls, finish := chatCalls(t, hs.URL+"/v1/chat/completions", body, stream)
			if finish != "tool_calls" || len(calls) == 0 {
				t.Fatalf("%s (stream %v): finish %q, calls %+v", c.choice, stream, finish, calls)
			}
			for _, call := range calls {
				checkToolCall(t, call.Function.Name, call.Function.Arguments, c.want)
			}
		}
	}
	// Ollama: no tool_choice, but the generic format still parses a call
	// when the model writes one; a named choice is OpenAI's only.
	status, v := post(t, hs.URL+"/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"tools":[`+clockTool+`],"stream":false,"options":{"num_predict":1200,"seed":5}}`)
	if status != 200 || v["message"] == nil {
		t.Fatalf("ollama tools: %d %v", status, v)
	}
	if tcs, ok := v["message"].(map[string]any)["tool_calls"].([]any); ok {
		for _, tc := range tcs {
			f := tc.(map[string]any)["function"].(map[string]any)
			b, _ := json.Marshal(f["arguments"])
			checkToolCall(t, f["name"].(string), string(b), "get_time")
		}
	}
	// A response format asked for with generic tools shapes the response:
	// the reply is a call or JSON of the schema.
	schema := `{"type":"object","properties":{"answer":{"enum":["yes","no"]}},"required":["answer"]}`
	for seed := 1; seed <= 4; seed++ {
		status, v := post(t, hs.URL+"/v1/chat/completions", fmt.Sprintf(`{"model":"tiny","messages":[{"role":"user","content":"hi"}],"tools":[`+clockTool+`],"parallel_tool_calls":false,`+
			`"response_format":{"type":"json_schema","json_schema":{"name":"a","schema":%s}},"max_tokens":1200,"seed":%d,"temperature":0.8}`, schema, seed))
		if status != 200 {
			t.Fatalf("generic tools with a response format: %d %v", status, v)
		}
		choice := v["choices"].([]any)[0].(map[string]any)
		msg := choice["message"].(map[string]any)
		if tcs, ok := msg["tool_calls"].([]any); ok {
			f := tcs[0].(map[string]any)["function"].(map[string]any)
			checkToolCall(t, f["name"].(string), f["arguments"].(string), "get_time")
			continue
		}
		var a map[string]any
		content, _ := msg["content"].(string)
		if choice["finish_reason"] == "stop" && content != "" && (json.Unmarshal([]byte(content), &a) != nil || a["answer"] != "yes" && a["answer"] != "no") {
			t.Errorf("seed %d: the response %q does not match its schema", seed, content)
		}
		t.Logf("seed %d: %s %q", seed, choice["finish_reason"], content)
	}
}

// checkToolCall checks that a call is of a known tool (want, when set),
// with arguments that match its schema.
func checkToolCall(t *testing.T, name, args, want string) {
	t.Helper()
	if want != "" && name != want {
		t.Errorf("called %q, want %q", name, want)
	}
	var a map[string]any
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		t.Fatalf("%s: arguments %q: %v", name, args, err)
	}
	switch name {
	case "get_time":
		zone, _ := a["zone"].(string)
		_, isBool := a["dst"].(bool)
		if !strings.Contains("utc cet pst", zone) || zone == "" || !isBool || len(a) != 2 {
			t.Errorf("get_time arguments %s do not match its schema", args)
		}
	case "set_flag":
		if _, ok := a["on"].(bool); !ok || len(a) != 1 {
			t.Errorf("set_flag arguments %s do not match its schema", args)
		}
	case "get_weather":
		if _, ok := a["city"].(string); !ok || len(a) != 1 {
			t.Errorf("get_weather arguments %s do not match its schema", args)
		}
	default:
		t.Errorf("a call of an unknown tool %q", name)
	}
}

// chatCalls posts a chat request, streamed or not, and returns the tool
// calls of its reply and its finish reason.
func chatCalls(t *testing.T, url, body string, stream bool) ([]oaiToolCall, string) {
	t.Helper()
	if stream {
		return streamedCalls(t, url, body)
	}
	status, v := post(t, url, body)
	if status != 200 {
		t.Fatalf("%d %v", status, v)
	}
	choice := v["choices"].([]any)[0].(map[string]any)
	finish, _ := choice["finish_reason"].(string)
	var calls []oaiToolCall
	b, _ := json.Marshal(choice["message"].(map[string]any)["tool_calls"])
	json.Unmarshal(b, &calls)
	return calls, finish
}

// streamedCalls posts a streamed chat request and returns the tool calls
// of its deltas (joined by index) and its finish reason.
func streamedCalls(t *testing.T, url, body string) ([]oaiToolCall, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var calls []oaiToolCall
	finish := ""
	for _, ev := range events(t, resp.Body) {
		if ev == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []oaiToolCall `json:"tool_calls"`
				} `json:"delta"`
				Finish *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(ev), &c); err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index == nil {
					t.Fatalf("a streamed call without an index: %q", ev)
				}
				for len(calls) <= *tc.Index {
					calls = append(calls, oaiToolCall{})
				}
				d := &calls[*tc.Index]
				if tc.ID != "" {
					d.ID, d.Type = tc.ID, tc.Type
				}
				d.Function.Name += tc.Function.Name
				d.Function.Arguments += tc.Function.Arguments
			}
			if ch.Finish != nil {
				finish = *ch.Finish
			}
		}
	}
	return calls, finish
}

// toolFamilies are a reference template of each tool-call format.
var toolFamilies = []struct {
	template string
	format   chat.ToolFormat
}{
	{"Qwen-Qwen2.5-7B-Instruct.jinja", chat.ToolHermes},
	{"meta-llama-Llama-3.1-8B-Instruct.jinja", chat.ToolLlama3},
	{"mistralai-Mistral-Nemo-Instruct-2407.jinja", chat.ToolMistral},
	{"Qwen3.5-4B.jinja", chat.ToolQwen3Coder},
	{"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja", chat.ToolDeepSeekR1},
	{"deepseek-ai-DeepSeek-V3.1.jinja", chat.ToolDeepSeekV31},
	{"lcpptest-ibm-granite-granite-3.0-8b-instruct.jinja", chat.ToolGranite},
	{"poolside-Laguna-XS.2.jinja", chat.ToolGLM45},
	// Command R7B's preamble is 6000 tokens of the mini vocabulary, too
	// slow here: engine/chat's tests cover its format.
	{"meetkai-functionary-medium-v3.1.jinja", chat.ToolFunctionaryV31},
	{"meetkai-functionary-medium-v3.2.jinja", chat.ToolFunctionaryV32},
	{"openai-gpt-oss-120b.jinja", chat.ToolHarmony},
	{"google-gemma-2-2b-it.jinja", chat.ToolGeneric},
}

// TestToolFamilies serves a model with a template of each tool-call
// format and checks that both dialects take tools, streamed or not.
func TestToolFamilies(t *testing.T) {
	s := New(Config{})
	defer s.Close()
	for i, fam := range toolFamilies {
		m := templateModel(t, fam.template, fmt.Sprintf("m%d", i), 8192)
		if f := m.ToolFormat(); f != fam.format {
			t.Errorf("%s: format %v, want %v", fam.template, f, fam.format)
		}
		s.Runner().Add(m)
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	for i, fam := range toolFamilies {
		t.Run(fam.format.String(), func(t *testing.T) {
			if raceEnabled && i > 0 {
				t.Skip("the race detector: one family shows the server's concurrency; each family's parsing and grammar are single-threaded (60 s under it)")
			}
			model := fmt.Sprintf("m%d", i)
			body := `{"model":"` + model + `","messages":[{"role":"user","content":"what time is it?"}],"tools":[` + clockTool + `],"max_tokens":8}`
			if status, v := post(t, hs.URL+"/v1/chat/completions", body); status != 200 {
				t.Errorf("openai: %d %v", status, v)
			}
			if _, finish := streamedCalls(t, hs.URL+"/v1/chat/completions", strings.Replace(body, `"max_tokens":8`, `"max_tokens":8,"stream":true`, 1)); finish == "" {
				t.Error("openai streamed: no finish reason")
			}
			status, v := post(t, hs.URL+"/api/chat", `{"model":"`+model+`","messages":[{"role":"user","content":"hi"}],"tools":[`+clockTool+`],"stream":false,"options":{"num_predict":8}}`)
			if status != 200 || v["message"] == nil {
				t.Errorf("ollama: %d %v", status, v)
			}
			// tool_choice required and named: even random weights call a
			// tool of the request (the named one) with valid arguments.
			for j, c := range []struct {
				choice, want string
				stream       bool
			}{
				{`"required"`, "", false},
				{`{"type":"function","function":{"name":"get_time"}}`, "get_time", true},
			} {
				body := fmt.Sprintf(`{"model":"%s","messages":[{"role":"user","content":"what time is it?"}],"tools":[%s,%s],"tool_choice":%s,`+
					`"parallel_tool_calls":false,"max_tokens":1500,"seed":%d,"temperature":0.8,"stream":%v}`, model, flagTool, clockTool, c.choice, i*2+j+1, c.stream)
				calls, finish := chatCalls(t, hs.URL+"/v1/chat/completions", body, c.stream)
				if finish != "tool_calls" || len(calls) != 1 {
					t.Errorf("%s (stream %v): finish %q, calls %+v", c.choice, c.stream, finish, calls)
					continue
				}
				checkToolCall(t, calls[0].Function.Name, calls[0].Function.Arguments, c.want)
			}
		})
	}
}

// flagTool is a second tool whose arguments are closed (a boolean).
const flagTool = `{"type":"function","function":{"name":"set_flag","description":"Sets the flag","parameters":{"type":"object","properties":{"on":{"type":"boolean"}},"required":["on"]}}}`
