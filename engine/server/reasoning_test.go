package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"saji/engine/chat"
	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/synth"
)

// thinkingModel writes a tiny model with the mini vocabulary, the markers
// of synth.ThinkingTemplate as tokens of their own, and that template, and
// returns it.
func thinkingModel(t *testing.T) *runner.Model {
	t.Helper()
	mp := filepath.Join(t.TempDir(), "thinker.gguf")
	if err := synth.WriteChat(context.Background(), mp, "q8_0", synth.ThinkingTemplate,
		[]string{"<|im_start|>", "<|im_end|>", "<think>", "</think>"}, 5); err != nil {
		t.Fatal(err)
	}
	m, err := runner.Load(context.Background(), mp, runner.LoadOptions{Name: "thinker", Threads: 2, Scheduler: scheduler.Config{Context: 256}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// thinkingServer serves thinkingModel, and the tiny model (no reasoning
// format) beside it.
func thinkingServer(t *testing.T) (*httptest.Server, *runner.Model) {
	t.Helper()
	m := thinkingModel(t)
	s, hs := newTestServer(t, Config{})
	s.Runner().Add(m)
	return hs, m
}

// chatReply is what a chat answer carries, whole or streamed.
type chatReply struct {
	content, reasoning string
	order              []string // "reasoning" and "content", each where its first text came
}

// openAIChat posts an OpenAI chat request (extra: more JSON fields) and
// returns its message, reading the stream when stream is set.
func openAIChat(t *testing.T, url, extra string, stream bool) chatReply {
	t.Helper()
	body := `{"model":"thinker","messages":[{"role":"user","content":"hi"}],"max_tokens":10,"temperature":0` + extra
	if stream {
		body += `,"stream":true`
	}
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body+"}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%s: status %d", body, resp.StatusCode)
	}
	var r chatReply
	note := func(field, text string) {
		if text != "" && !slices.Contains(r.order, field) {
			r.order = append(r.order, field)
		}
	}
	if !stream {
		var v struct {
			Choices []struct {
				Message map[string]any `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || len(v.Choices) != 1 {
			t.Fatalf("%s: %v", body, err)
		}
		r.content, _ = v.Choices[0].Message["content"].(string)
		r.reasoning, _ = v.Choices[0].Message["reasoning_content"].(string)
		if _, ok := v.Choices[0].Message["reasoning_content"]; ok && r.reasoning == "" {
			t.Errorf("%s: an empty reasoning_content", body)
		}
		return r
	}
	for _, ev := range events(t, resp.Body) {
		if ev == "[DONE]" {
			break
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					Reasoning string `json:"reasoning_content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(ev), &c); err != nil {
			t.Fatalf("%s: chunk %s: %v", body, ev, err)
		}
		for _, ch := range c.Choices {
			note("reasoning", ch.Delta.Reasoning)
			note("content", ch.Delta.Content)
			r.reasoning += ch.Delta.Reasoning
			r.content += ch.Delta.Content
		}
	}
	return r
}

// ollamaChat posts an Ollama /api/chat or /api/generate request (extra:
// more JSON fields) and returns the answer and the thinking, reading the
// NDJSON lines when stream is set; a status other than 200 is returned
// with the error.
func ollamaChat(t *testing.T, url, path, extra string, stream bool) (chatReply, int, string) {
	t.Helper()
	body := `{"model":"thinker","options":{"num_predict":10,"temperature":0},"stream":` + fmt.Sprint(stream) + extra
	if path == "/api/chat" {
		body += `,"messages":[{"role":"user","content":"the cat"}]}`
	} else {
		body += `,"prompt":"the cat"}`
	}
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	type line struct {
		Message *struct {
			Content  string `json:"content"`
			Thinking string `json:"thinking"`
		} `json:"message"`
		Response string `json:"response"`
		Thinking string `json:"thinking"`
		Error    string `json:"error"`
	}
	var r chatReply
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: line %s: %v", body, sc.Text(), err)
		}
		if resp.StatusCode != 200 {
			return r, resp.StatusCode, l.Error
		}
		content, thinking := l.Response, l.Thinking
		if l.Message != nil {
			content, thinking = l.Message.Content, l.Message.Thinking
		}
		for _, f := range []struct{ name, text string }{{"reasoning", thinking}, {"content", content}} {
			if f.text != "" && !slices.Contains(r.order, f.name) {
				r.order = append(r.order, f.name)
			}
		}
		r.content += content
		r.reasoning += thinking
	}
	return r, resp.StatusCode, ""
}

// TestReasoningOpenAI drives the reasoning of a model whose template
// opens a <think> block through the OpenAI dialect: the reply the model
// writes (reasoning_format "none" shows it whole) comes back split, whole
// and streamed (the reasoning first), as chat.SplitReasoning splits it;
// enable_thinking false, reasoning_effort "none" and a model without a
// reasoning format leave the content as written; /v1/completions never
// splits; a bad control is a 400.
func TestReasoningOpenAI(t *testing.T) {
	hs, m := thinkingServer(t)
	format := chat.ReasoningFormat{Start: "<think>", End: "</think>"}
	// Biases and penalties that make the model write " cat", then
	// "</think>", then alternate: a reply that both thinks and answers.
	cat, _ := m.Tokenizer().TokenID("▁cat")
	end, _ := m.Tokenizer().TokenID("</think>")
	bias := fmt.Sprintf(`,"logit_bias":{"%d":20,"%d":18},"presence_penalty":2,"frequency_penalty":2`, cat, end)
	raw := openAIChat(t, hs.URL, bias+`,"reasoning_format":"none"`, false)
	if raw.reasoning != "" || raw.content == "" {
		t.Fatalf("reasoning_format none: %+v", raw)
	}
	content, reasoning, _ := chat.SplitReasoning(format, "<think>\n", raw.content)
	t.Logf("the model writes %q: reasoning %q, answer %q", raw.content, reasoning, content)
	if reasoning == "" || content == "" {
		t.Fatal("the reply does not both think and answer")
	}
	for _, stream := range []bool{false, true} {
		got := openAIChat(t, hs.URL, bias, stream)
		if got.content != content || got.reasoning != reasoning {
			t.Errorf("stream %v: content %q, reasoning %q; want %q, %q", stream, got.content, got.reasoning, content, reasoning)
		}
		if stream && content != "" && !slices.Equal(got.order, []string{"reasoning", "content"}) {
			t.Errorf("streamed in the order %v", got.order)
		}
	}
	// Thinking turned off: the prompt closes the block, nothing is split
	// out of the reply (which then has no block).
	for _, extra := range []string{`,"chat_template_kwargs":{"enable_thinking":false}`, `,"reasoning_effort":"none"`} {
		got := openAIChat(t, hs.URL, extra, false)
		if got.reasoning != "" || got.content == "" {
			t.Errorf("%s: %+v", extra, got)
		}
	}
	// The tiny model has no reasoning format; the raw completion never
	// splits.
	if status, v := post(t, hs.URL+"/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"max_tokens":3}`); status != 200 ||
		v["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["reasoning_content"] != nil {
		t.Errorf("a model without reasoning: %d %v", status, v)
	}
	status, v := post(t, hs.URL+"/v1/completions", `{"model":"thinker","prompt":"<think>\n","max_tokens":10,"temperature":0`+bias+`}`)
	if status != 200 {
		t.Fatalf("completion: %d %v", status, v)
	}
	if text := v["choices"].([]any)[0].(map[string]any)["text"]; text != raw.content {
		t.Errorf("completion %q, want the reply as written %q", text, raw.content)
	}
	for _, bad := range []string{`"reasoning_effort":"extreme"`, `"reasoning_format":"weird"`, `"chat_template_kwargs":[1]`,
		`"chat_template_kwargs":{"enable_thinking":"yes"}`} {
		status, v := post(t, hs.URL+"/v1/chat/completions", `{"model":"thinker","messages":[{"role":"user","content":"hi"}],`+bad+`}`)
		e, _ := v["error"].(map[string]any)
		if status != 400 || e == nil || e["message"] == "" || e["param"] == nil {
			t.Errorf("%s: %d %v", bad, status, v)
		}
	}
}

// TestReasoningOllama drives the same model through the Ollama dialect:
// /api/chat's message.thinking and /api/generate's thinking, whole and
// streamed, think absent (true for a model that thinks, as in Ollama),
// true and a level; think false turns thinking off and leaves the reply
// as written; think true on a model that does not think is refused; a bad
// think is a 400; the capability is in /api/show.
func TestReasoningOllama(t *testing.T) {
	hs, _ := thinkingServer(t)
	for _, path := range []string{"/api/chat", "/api/generate"} {
		for _, stream := range []bool{false, true} {
			for _, think := range []string{``, `,"think":true`, `,"think":"high"`} {
				got, status, msg := ollamaChat(t, hs.URL, path, think, stream)
				if status != 200 || got.reasoning == "" {
					t.Errorf("%s stream %v%s: %d %s %+v", path, stream, think, status, msg, got)
				}
				if stream && got.content != "" && !slices.Equal(got.order, []string{"reasoning", "content"}) {
					t.Errorf("%s%s: streamed in the order %v", path, think, got.order)
				}
			}
			got, status, _ := ollamaChat(t, hs.URL, path, `,"think":false`, stream)
			if status != 200 || got.reasoning != "" || got.content == "" {
				t.Errorf("%s stream %v, think false: %d %+v", path, stream, status, got)
			}
		}
	}
	for _, c := range []struct {
		body, msg string
	}{
		{`{"model":"tiny","prompt":"hi","think":true}`, `"tiny" does not support thinking`},
		{`{"model":"thinker","prompt":"hi","think":"extreme"}`, `invalid think value: "extreme"`},
		{`{"model":"thinker","prompt":"hi","think":3}`, `think must be a boolean or string`},
	} {
		status, v := post(t, hs.URL+"/api/generate", c.body)
		if msg, _ := v["error"].(string); status != 400 || !strings.HasPrefix(msg, c.msg) {
			t.Errorf("%s: %d %v", c.body, status, v)
		}
	}
	if status, _ := post(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":"hi","think":false,"stream":false,"options":{"num_predict":2}}`); status != 200 {
		t.Errorf("think false on a model that does not think: %d", status)
	}
	for _, c := range []struct {
		model    string
		thinking bool
	}{{"thinker", true}, {"tiny", false}} {
		_, v := post(t, hs.URL+"/api/show", `{"model":"`+c.model+`"}`)
		caps, _ := v["capabilities"].([]any)
		if slices.Contains(caps, any("thinking")) != c.thinking {
			t.Errorf("%s: capabilities %v", c.model, caps)
		}
	}
}

// TestReasoningHistory checks that the reasoning a client sends back
// (OpenAI's reasoning_content or reasoning, Ollama's thinking) reaches
// the template.
func TestReasoningHistory(t *testing.T) {
	m := thinkingModel(t)
	var om []oaiMessage
	if err := json.Unmarshal([]byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":"Hello","reasoning_content":"A greeting."},{"role":"user","content":"again"}]`), &om); err != nil {
		t.Fatal(err)
	}
	var alias []oaiMessage // vLLM's and OpenRouter's name
	if err := json.Unmarshal([]byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":"Hello","reasoning":"A greeting."},{"role":"user","content":"again"}]`), &alias); err != nil {
		t.Fatal(err)
	}
	var ol []ollamaMessage
	if err := json.Unmarshal([]byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":"Hello","thinking":"A greeting."},{"role":"user","content":"again"}]`), &ol); err != nil {
		t.Fatal(err)
	}
	olm, err := ollamaMessages(ol, newImageReader(context.Background(), false))
	if err != nil {
		t.Fatal(err)
	}
	oam, err := chatMessages(om, newImageReader(context.Background(), false))
	if err != nil {
		t.Fatal(err)
	}
	aliased, err := chatMessages(alias, newImageReader(context.Background(), false))
	if err != nil {
		t.Fatal(err)
	}
	for name, msgs := range map[string][]chat.Message{"openai": oam, "reasoning": aliased, "ollama": olm} {
		toks, err := m.Prompt(context.Background(), runner.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		text, _ := m.Tokenizer().Detokenize(toks, false, true)
		if !strings.Contains(text, "A greeting.") {
			t.Errorf("%s: the prompt lacks the reasoning:\n%s", name, text)
		}
	}
}

// TestOAIThinking checks how the OpenAI dialect's thinking controls set
// a generation's.
func TestOAIThinking(t *testing.T) {
	for _, c := range []struct {
		body   string
		think  string // "on", "off" or "" (unset)
		effort string
		raw    bool
		extra  string
	}{
		{`{}`, "", "", false, ""},
		{`{"reasoning_effort":"high"}`, "", "high", false, ""},
		{`{"reasoning_effort":"minimal"}`, "", "low", false, ""},
		{`{"reasoning_effort":"none"}`, "off", "", false, ""},
		{`{"reasoning_format":"none"}`, "", "", true, ""},
		{`{"reasoning_format":"deepseek"}`, "", "", false, ""},
		{`{"chat_template_kwargs":{"enable_thinking":false,"custom":1}}`, "", "", false, `custom=1 enable_thinking=false`},
	} {
		var th oaiThinking
		if err := json.Unmarshal([]byte(c.body), &th); err != nil {
			t.Fatal(err)
		}
		g := runner.Request{TemplateExtra: map[string]any{"kept": true}}
		if err := th.apply(&g); err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		think := ""
		if g.Think != nil {
			think = map[bool]string{true: "on", false: "off"}[*g.Think]
		}
		var extra []string
		for k, v := range g.TemplateExtra {
			if k != "kept" {
				extra = append(extra, fmt.Sprintf("%s=%s", k, v))
			}
		}
		slices.Sort(extra)
		if think != c.think || g.ReasoningEffort != c.effort || g.RawReasoning != c.raw || strings.Join(extra, " ") != c.extra || g.TemplateExtra["kept"] != true {
			t.Errorf("%s: think %q, effort %q, raw %v, extra %v", c.body, think, g.ReasoningEffort, g.RawReasoning, g.TemplateExtra)
		}
	}
}
