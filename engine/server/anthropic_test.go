package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"saji/engine/chat"
	"saji/engine/runner"
)

// sseEvent is an event of a stream with named events.
type sseEvent struct {
	name string
	data map[string]any
}

// namedEvents reads a stream of named events (event: and data: lines).
func namedEvents(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	name := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "event: "); ok {
			name = n
			continue
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var v map[string]any
			if err := json.Unmarshal([]byte(d), &v); err != nil {
				t.Fatalf("event %s: %v: %s", name, err, d)
			}
			out = append(out, sseEvent{name, v})
			name = ""
		}
	}
	return out
}

// postHeaders sends body to url with headers and returns the response.
func postHeaders(t *testing.T, url, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// fakeRun stands in for Stream.Run: it emits pieces and ends with res.
func fakeRun(pieces []runner.Piece, res runner.Result) func(func(runner.Piece) error) (runner.Result, error) {
	return func(emit func(runner.Piece) error) (runner.Result, error) {
		for _, p := range pieces {
			if err := emit(p); err != nil {
				return res, err
			}
		}
		return res, nil
	}
}

// accumulateMessage builds a message from its stream as the Anthropic SDK
// does, checking the order of the events as it goes.
func accumulateMessage(t *testing.T, evs []sseEvent) map[string]any {
	t.Helper()
	var msg map[string]any
	var blocks []map[string]any
	var partial strings.Builder
	open, stopped := -1, false
	for i, ev := range evs {
		if ev.data["type"] != ev.name {
			t.Fatalf("event %d: name %s, type %v", i, ev.name, ev.data["type"])
		}
		index := -1
		if f, ok := ev.data["index"].(float64); ok {
			index = int(f)
		}
		switch ev.name {
		case "message_start":
			if i != 0 {
				t.Fatalf("message_start at %d", i)
			}
			msg = ev.data["message"].(map[string]any)
		case "ping":
		case "content_block_start":
			if open != -1 || index != len(blocks) {
				t.Fatalf("event %d: block %d starts with %d open and %d done", i, index, open, len(blocks))
			}
			blocks = append(blocks, ev.data["content_block"].(map[string]any))
			open = index
			partial.Reset()
		case "content_block_delta":
			if index != open {
				t.Fatalf("event %d: a delta of block %d while %d is open", i, index, open)
			}
			b, d := blocks[index], ev.data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				b["text"] = b["text"].(string) + d["text"].(string)
			case "thinking_delta":
				b["thinking"] = b["thinking"].(string) + d["thinking"].(string)
			case "signature_delta":
				b["signature"] = d["signature"]
			case "input_json_delta":
				partial.WriteString(d["partial_json"].(string))
			default:
				t.Fatalf("event %d: delta %v", i, d)
			}
		case "content_block_stop":
			if index != open {
				t.Fatalf("event %d: block %d stops while %d is open", i, index, open)
			}
			if b := blocks[index]; b["type"] == "tool_use" {
				var input any
				if err := json.Unmarshal([]byte(partial.String()), &input); err != nil {
					t.Fatalf("tool input %q: %v", partial.String(), err)
				}
				b["input"] = input
			}
			open = -1
		case "message_delta":
			d := ev.data["delta"].(map[string]any)
			msg["stop_reason"], msg["stop_sequence"] = d["stop_reason"], d["stop_sequence"]
			for k, v := range ev.data["usage"].(map[string]any) {
				msg["usage"].(map[string]any)[k] = v
			}
		case "message_stop":
			if i != len(evs)-1 || open != -1 {
				t.Fatalf("message_stop at %d of %d, block %d open", i, len(evs), open)
			}
			stopped = true
		default:
			t.Fatalf("event %d: %s", i, ev.name)
		}
	}
	if msg == nil || !stopped {
		t.Fatalf("no message_start or message_stop in %v", evs)
	}
	content := []any{}
	for _, b := range blocks {
		content = append(content, b)
	}
	msg["content"] = content
	return msg
}

// replyCase is a generation's pieces and end, and what each dialect makes
// of them.
type replyCase struct {
	name   string
	pieces []runner.Piece
	res    runner.Result
	blocks []string // the message's content blocks
	stop   string   // its stop_reason
	items  []string // the response's output items
	status string   // its status
}

// TestAgentReplies drives a generation's pieces through the writers of
// both dialects, whole and streamed: the streamed events, accumulated as
// the SDKs do, give what is written whole; a failure is an error either
// way.
func TestAgentReplies(t *testing.T) {
	call := chat.ToolCall{ID: "call_p", Type: "function", Name: "get_weather", Arguments: `{"city":"Paris"}`}
	tokens := func(n int) []runner.Token { return make([]runner.Token, n) }
	cases := []replyCase{
		{"text", []runner.Piece{{Text: "Hel"}, {Text: "lo"}}, runner.Result{Finish: "stop"},
			[]string{"text"}, "end_turn", []string{"message"}, "completed"},
		{"nothing", nil, runner.Result{Finish: "stop"}, []string{"text"}, "end_turn", nil, "completed"},
		{"cut short", []runner.Piece{{Text: "Hel"}}, runner.Result{Finish: "length"},
			[]string{"text"}, "max_tokens", []string{"message"}, "incomplete"},
		{"stop sequence", []runner.Piece{{Text: "Hel"}}, runner.Result{Finish: "stop", StopString: "lo"},
			[]string{"text"}, "stop_sequence", []string{"message"}, "completed"},
		{"reasoning", []runner.Piece{{Reasoning: "Hmm, ", Tokens: tokens(2)}, {Reasoning: "well.", Tokens: tokens(2)}, {Text: "Yes.", Tokens: tokens(1)}},
			runner.Result{Finish: "stop", CompletionTokens: 5},
			[]string{"thinking", "text"}, "end_turn", []string{"reasoning", "message"}, "completed"},
		{"tool call", []runner.Piece{{Text: "Let me look."}}, runner.Result{Finish: "stop", ToolCalls: []chat.ToolCall{call}},
			[]string{"text", "tool_use"}, "tool_use", []string{"message", "function_call"}, "completed"},
		{"two calls", []runner.Piece{{Reasoning: "Both."}}, runner.Result{Finish: "stop", ToolCalls: []chat.ToolCall{call, call}},
			[]string{"thinking", "tool_use", "tool_use"}, "tool_use", []string{"reasoning", "function_call", "function_call"}, "completed"},
		{"runner's calls", []runner.Piece{{Text: "ok"}}, runner.Result{Finish: "stop",
			ToolCalls: []chat.ToolCall{{ID: "call_abc", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}},
			[]string{"text", "tool_use"}, "tool_use", []string{"message", "function_call"}, "completed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkMessage(t, c)
			checkResponse(t, c)
		})
	}
	fail := func(emit func(runner.Piece) error) (runner.Result, error) {
		emit(runner.Piece{Text: "Hel"})
		return runner.Result{}, errors.New("the GPU fell over")
	}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	rec := httptest.NewRecorder()
	writeMessage(rec, r, fail, "m", 3, false)
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"type":"api_error"`) {
		t.Errorf("a failed message: %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	writeMessage(rec, r, fail, "m", 3, true)
	if evs := namedEvents(t, rec.Body); evs[len(evs)-1].name != "error" || evs[len(evs)-1].data["error"].(map[string]any)["type"] != "api_error" {
		t.Errorf("a failed message streamed: %v", evs)
	}
	rec = httptest.NewRecorder()
	writeResponse(rec, r, fail, &responsesRequest{}, "m")
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"type":"server_error"`) {
		t.Errorf("a failed response: %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	writeResponse(rec, r, fail, &responsesRequest{Stream: true}, "m")
	if final, _ := accumulateResponse(t, namedEvents(t, rec.Body)); final["status"] != "failed" || final["error"] == nil {
		t.Errorf("a failed response streamed: %v", final)
	}
}

// checkMessage writes c's message whole and streamed.
func checkMessage(t *testing.T, c replyCase) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/v1/messages", nil)
	rec := httptest.NewRecorder()
	writeMessage(rec, r, fakeRun(c.pieces, c.res), "m", 3, false)
	var whole map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &whole); err != nil || rec.Code != 200 {
		t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
	}
	var types []string
	for _, b := range whole["content"].([]any) {
		b := b.(map[string]any)
		types = append(types, b["type"].(string))
		if id, ok := b["id"].(string); ok && !strings.HasPrefix(id, "toolu_") {
			t.Errorf("tool_use id %q", id)
		}
	}
	if !reflect.DeepEqual(types, c.blocks) || whole["stop_reason"] != c.stop {
		t.Errorf("blocks %v, stop %v; want %v, %s", types, whole["stop_reason"], c.blocks, c.stop)
	}
	rec = httptest.NewRecorder()
	writeMessage(rec, r, fakeRun(c.pieces, c.res), "m", 3, true)
	evs := namedEvents(t, rec.Body)
	if evs[1].name != "content_block_start" || evs[2].name != "ping" {
		t.Errorf("the stream starts %s, %s", evs[1].name, evs[2].name)
	}
	if streamed := accumulateMessage(t, evs); withoutIDs(streamed) != withoutIDs(whole) {
		t.Errorf("streamed %s\nwhole %s", withoutIDs(streamed), withoutIDs(whole))
	}
}

// checkResponse writes c's response whole and streamed.
func checkResponse(t *testing.T, c replyCase) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/v1/responses", nil)
	req := &responsesRequest{Instructions: "Be brief."}
	rec := httptest.NewRecorder()
	writeResponse(rec, r, fakeRun(c.pieces, c.res), req, "m")
	var whole map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &whole); err != nil || rec.Code != 200 {
		t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
	}
	var types []string
	for _, it := range whole["output"].([]any) {
		it := it.(map[string]any)
		types = append(types, it["type"].(string))
		if it["type"] == "function_call" &&
			(it["name"] != "get_weather" || !strings.HasPrefix(it["call_id"].(string), "call_") || !json.Valid([]byte(it["arguments"].(string)))) {
			t.Errorf("call %v", it)
		}
	}
	if !reflect.DeepEqual(types, c.items) || whole["status"] != c.status || whole["instructions"] != "Be brief." {
		t.Errorf("items %v, status %v; want %v, %s", types, whole["status"], c.items, c.status)
	}
	if d := whole["usage"].(map[string]any)["output_tokens_details"].(map[string]any); c.name == "reasoning" && d["reasoning_tokens"] != 4.0 {
		t.Errorf("usage details %v", d)
	}
	if c.status == "incomplete" && whole["incomplete_details"].(map[string]any)["reason"] != "max_output_tokens" {
		t.Errorf("incomplete_details %v", whole["incomplete_details"])
	}
	req.Stream = true
	rec = httptest.NewRecorder()
	writeResponse(rec, r, fakeRun(c.pieces, c.res), req, "m")
	final, built := accumulateResponse(t, namedEvents(t, rec.Body))
	if withoutIDs(final) != withoutIDs(whole) || withoutIDs(built["output"]) != withoutIDs(whole["output"]) {
		t.Errorf("streamed %s\nbuilt %s\nwhole %s", withoutIDs(final), withoutIDs(built["output"]), withoutIDs(whole))
	}
}

// TestAnthropicMessages converts requests' conversations to the
// template's messages, and refuses what Saji cannot read.
func TestAnthropicMessages(t *testing.T) {
	cases := []struct {
		name, system, messages string
		want                   []chat.Message
		bad                    bool
	}{
		{"string", `"Be brief."`, `[{"role":"user","content":"Hi"}]`,
			[]chat.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}}, false},
		{"blocks", `[{"type":"text","text":"A"},{"type":"text","text":"B","cache_control":{"type":"ephemeral"}}]`,
			`[{"role":"user","content":[{"type":"text","text":"Hi "},{"type":"text","text":"there"}]}]`,
			[]chat.Message{{Role: "system", Content: "AB"}, {Role: "user", Content: "Hi there"}}, false},
		{"tools", ``, `[{"role":"user","content":"Weather?"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"Look it up.","signature":"x"},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"sunny"}]},{"type":"text","text":"And?"}]}]`,
			[]chat.Message{{Role: "user", Content: "Weather?"},
				{Role: "assistant", NullContent: true, ReasoningContent: "Look it up.", ToolCalls: []chat.ToolCall{
					{ID: "toolu_1", Type: "function", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
				{Role: "tool", ToolCallID: "toolu_1", Name: "get_weather", Content: "sunny"},
				{Role: "user", Content: "And?"}}, false},
		{"a result alone", ``, `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"42"}]}]`,
			[]chat.Message{{Role: "tool", ToolCallID: "t", Content: "42"}}, false},
		{"billing header", `[{"type":"text","text":"x-anthropic-billing-header: cc_version=2.1; cch=a5145;"},{"type":"text","text":"You are Claude Code."}]`,
			`[{"role":"user","content":"Hi"}]`,
			[]chat.Message{{Role: "system", Content: "x-anthropic-billing-header: cc_version=2.1; cch=00000;You are Claude Code."},
				{Role: "user", Content: "Hi"}}, false},
		{"image", ``, `[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}]`, nil, true},
		{"image result", ``, `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image"}]}]}]`, nil, true},
		{"system role", ``, `[{"role":"system","content":"Hi"}]`, nil, true},
		{"user tool_use", ``, `[{"role":"user","content":[{"type":"tool_use","id":"a","name":"b","input":{}}]}]`, nil, true},
		{"input not an object", ``, `[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"b","input":[1]}]}]`, nil, true},
		{"unknown block", ``, `[{"role":"user","content":[{"type":"video"}]}]`, nil, true},
		{"system image", `[{"type":"image"}]`, `[{"role":"user","content":"Hi"}]`, nil, true},
	}
	for _, c := range cases {
		var req anthropicRequest
		body := `{"messages":` + c.messages
		if c.system != "" {
			body += `,"system":` + c.system
		}
		if err := json.Unmarshal([]byte(body+"}"), &req); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := anthropicMessages(req.System, req.Messages, newImageReader(context.Background(), false))
		if c.bad {
			if ae := classify(err); err == nil || ae.status != http.StatusBadRequest {
				t.Errorf("%s: %v, want a 400", c.name, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v\n got %+v\nwant %+v", c.name, err, got, c.want)
		}
	}
	if s := steadySystem("You are helpful; cch=12345;"); s != "You are helpful; cch=12345;" {
		t.Errorf("a plain system prompt changed: %q", s)
	}
}

// TestMessagesAPI drives /v1/messages and count_tokens over HTTP: the
// message and its stream, usage, errors in Anthropic's shape, and the API
// key in x-api-key.
func TestMessagesAPI(t *testing.T) {
	_, hs := newTestServer(t, Config{APIKeys: []string{"sekrit"}})
	key := map[string]string{"x-api-key": "sekrit", "anthropic-version": "2023-06-01"}
	body := `{"model":"tiny","max_tokens":4,"temperature":0,"system":"Be brief.","messages":[{"role":"user","content":"the cat"}]}`
	resp := postHeaders(t, hs.URL+"/v1/messages", body, key)
	var msg map[string]any
	json.NewDecoder(resp.Body).Decode(&msg)
	resp.Body.Close()
	if resp.StatusCode != 200 || msg["type"] != "message" || msg["role"] != "assistant" || msg["model"] != "tiny" ||
		!strings.HasPrefix(msg["id"].(string), "msg_") {
		t.Fatalf("status %d: %v", resp.StatusCode, msg)
	}
	usage := msg["usage"].(map[string]any)
	out := int(usage["output_tokens"].(float64))
	wantStop := "end_turn"
	if out == 4 {
		wantStop = "max_tokens"
	}
	if out < 1 || out > 4 || msg["stop_reason"] != wantStop || usage["input_tokens"].(float64) < 1 {
		t.Errorf("%d output tokens, stop_reason %v, usage %v", out, msg["stop_reason"], usage)
	}
	content := msg["content"].([]any)
	text := content[0].(map[string]any)["text"].(string)

	// The same request streamed gives the same text and usage.
	resp = postHeaders(t, hs.URL+"/v1/messages", strings.Replace(body, `"max_tokens":4`, `"max_tokens":4,"stream":true`, 1), key)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	streamed := accumulateMessage(t, namedEvents(t, resp.Body))
	resp.Body.Close()
	sc := streamed["content"].([]any)
	su := streamed["usage"].(map[string]any)
	if len(sc) != 1 || sc[0].(map[string]any)["text"] != text || streamed["stop_reason"] != wantStop ||
		su["output_tokens"] != usage["output_tokens"] || su["input_tokens"].(float64)+su["cache_read_input_tokens"].(float64) != usage["input_tokens"].(float64)+usage["cache_read_input_tokens"].(float64) {
		t.Errorf("streamed %v, whole %v", streamed, msg)
	}

	// count_tokens counts the prompt the message read.
	resp = postHeaders(t, hs.URL+"/v1/messages/count_tokens", `{"model":"tiny","system":"Be brief.","messages":[{"role":"user","content":"the cat"}]}`, key)
	var count map[string]any
	json.NewDecoder(resp.Body).Decode(&count)
	resp.Body.Close()
	if resp.StatusCode != 200 || count["input_tokens"] != usage["input_tokens"].(float64)+usage["cache_read_input_tokens"].(float64) {
		t.Errorf("count_tokens: %d %v, usage %v", resp.StatusCode, count, usage)
	}

	// A stop sequence at the first character the model writes.
	if text != "" {
		first := string([]rune(text)[:1])
		stop, _ := json.Marshal(first)
		resp = postHeaders(t, hs.URL+"/v1/messages", strings.Replace(body, `"max_tokens":4`, `"max_tokens":4,"stop_sequences":[`+string(stop)+`]`, 1), key)
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if v["stop_reason"] != "stop_sequence" || v["stop_sequence"] != first {
			t.Errorf("stop sequence %s: %v", stop, v)
		}
	}
	// max_tokens beyond the context is cut at its end, not refused.
	resp = postHeaders(t, hs.URL+"/v1/messages", strings.Replace(body, `"max_tokens":4`, `"max_tokens":32000`, 1), key)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("max_tokens 32000: status %d", resp.StatusCode)
	}

	long := strings.Repeat("the cat sat on the mat ", 40)
	errs := []struct {
		name, path, body string
		status           int
		typ              string
	}{
		{"malformed JSON", "/v1/messages", `{"model":`, 400, "invalid_request_error"},
		{"no max_tokens", "/v1/messages", `{"model":"tiny","messages":[{"role":"user","content":"hi"}]}`, 400, "invalid_request_error"},
		{"no messages", "/v1/messages", `{"model":"tiny","max_tokens":5,"messages":[]}`, 400, "invalid_request_error"},
		{"unknown model", "/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, 404, "not_found_error"},
		{"image", "/v1/messages", `{"model":"tiny","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]}`, 400, "invalid_request_error"},
		{"bad content", "/v1/messages", `{"model":"tiny","max_tokens":5,"messages":[{"role":"user","content":5}]}`, 400, "invalid_request_error"},
		{"bad temperature", "/v1/messages", `{"model":"tiny","max_tokens":5,"temperature":-1,"messages":[{"role":"user","content":"hi"}]}`, 400, "invalid_request_error"},
		{"bad thinking", "/v1/messages", `{"model":"tiny","max_tokens":5,"thinking":{"type":"maybe"},"messages":[{"role":"user","content":"hi"}]}`, 400, "invalid_request_error"},
		{"tool without a name", "/v1/messages", `{"model":"tiny","max_tokens":5,"tools":[{"input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hi"}]}`, 400, "invalid_request_error"},
		{"too long a prompt", "/v1/messages", `{"model":"tiny","max_tokens":5,"messages":[{"role":"user","content":"` + long + `"}]}`, 400, "invalid_request_error"},
		{"count: no messages", "/v1/messages/count_tokens", `{"model":"tiny"}`, 400, "invalid_request_error"},
	}
	for _, c := range errs {
		resp := postHeaders(t, hs.URL+c.path, c.body, key)
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		e, ok := v["error"].(map[string]any)
		if resp.StatusCode != c.status || v["type"] != "error" || !ok || e["type"] != c.typ || e["message"] == "" {
			t.Errorf("%s: status %d, %v; want %d %s", c.name, resp.StatusCode, v, c.status, c.typ)
		}
		if msg, _ := e["message"].(string); c.name == "too long a prompt" && !strings.HasPrefix(msg, "prompt is too long: ") {
			t.Errorf("%s: %q, not in Anthropic's words", c.name, msg)
		}
	}
	// Without the key, or with a wrong one, the request is refused.
	for _, h := range []map[string]string{nil, {"x-api-key": "wrong"}} {
		resp := postHeaders(t, hs.URL+"/v1/messages", body, h)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("key %v: status %d", h, resp.StatusCode)
		}
	}
}

// TestAgentTools converts the tools and tool_choice of both dialects to
// the OpenAI shape; tools Saji cannot run are left out.
func TestAgentTools(t *testing.T) {
	type converter interface {
		toolsJSON(*slog.Logger) (json.RawMessage, json.RawMessage, error)
	}
	anthropic := func() converter { return new(anthropicRequest) }
	responses := func() converter { return new(responsesRequest) }
	const f = `[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}]`
	const bare = `[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}]`
	const named = `{"function":{"name":"f"},"type":"function"}`
	cases := []struct {
		dialect            func() converter
		body, defs, choice string
		ok                 bool
	}{
		{anthropic, `{"tools":[{"name":"f","description":"d","input_schema":{"type":"object"}}],"tool_choice":{"type":"any"}}`, f, `"required"`, true},
		{anthropic, `{"tools":[{"type":"custom","name":"f"},{"type":"web_search_20250305","name":"web_search"}],"tool_choice":{"type":"tool","name":"f"}}`, bare, named, true},
		{anthropic, `{"tool_choice":{"type":"none"}}`, ``, `"none"`, true},
		{anthropic, `{"tool_choice":{"type":"auto"}}`, ``, `"auto"`, true},
		{anthropic, `{"tools":[{"description":"no name"}]}`, ``, ``, false},
		{anthropic, `{"tool_choice":{"type":"tool"}}`, ``, ``, false},
		{anthropic, `{"tool_choice":{"type":"sometimes"}}`, ``, ``, false},
		{responses, `{"tools":[{"type":"function","name":"f","description":"d","parameters":{"type":"object"},"strict":true}],"tool_choice":"required"}`, f, `"required"`, true},
		{responses, `{"tools":[{"type":"function","name":"f"},{"type":"local_shell"},{"type":"web_search"}],"tool_choice":{"type":"function","name":"f"}}`, bare, named, true},
		{responses, `{"tool_choice":"none"}`, ``, `"none"`, true},
		{responses, `{"tools":[{"type":"function"}]}`, ``, ``, false},
		{responses, `{"tools":[5]}`, ``, ``, false},
		{responses, `{"tool_choice":{"type":"function"}}`, ``, ``, false},
		{responses, `{"tool_choice":5}`, ``, ``, false},
	}
	for _, c := range cases {
		req := c.dialect()
		if err := json.Unmarshal([]byte(c.body), req); err != nil {
			t.Fatal(err)
		}
		defs, choice, err := req.toolsJSON(slog.New(slog.DiscardHandler))
		if (err == nil) != c.ok || string(defs) != c.defs || string(choice) != c.choice {
			t.Errorf("%s: %s, %s, %v", c.body, defs, choice, err)
		}
	}
}

// TestAgentToolsAPI sends tools to a model with a tool-call format through
// both dialects, streamed or not: they reach the prompt (count_tokens
// counts them), with each tool_choice.
func TestAgentToolsAPI(t *testing.T) {
	s := New(Config{})
	s.Runner().Add(qwenModel(t))
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	defer s.Close()
	tool := `{"name":"get_weather","description":"Weather of a city","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`
	msgs := `"messages":[{"role":"user","content":"Weather in Paris?"},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"}]}]`
	count := func(body string) float64 {
		status, v := post(t, hs.URL+"/v1/messages/count_tokens", body)
		if status != 200 {
			t.Fatalf("count_tokens: %d %v", status, v)
		}
		return v["input_tokens"].(float64)
	}
	without := count(`{"model":"qwen",` + msgs + `}`)
	with := count(`{"model":"qwen","tools":[` + tool + `],` + msgs + `}`)
	if with <= without {
		t.Errorf("count_tokens: %v with the tool, %v without", with, without)
	}
	fn := `{"type":"function","name":"get_weather","description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":true}`
	input := `"input":[{"role":"user","content":"Weather in Paris?"},{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
		{"type":"function_call_output","call_id":"call_1","output":"sunny"}]`
	requests := []struct{ path, body string }{
		{"/v1/messages", `{"model":"qwen","max_tokens":3,"tools":[` + tool + `],` + msgs + `}`},
		{"/v1/messages", `{"model":"qwen","max_tokens":3,"stream":true,"tools":[` + tool + `],` + msgs + `}`},
		{"/v1/messages", `{"model":"qwen","max_tokens":3,"tool_choice":{"type":"tool","name":"get_weather"},"tools":[` + tool + `],` + msgs + `}`},
		{"/v1/messages", `{"model":"qwen","max_tokens":3,"tool_choice":{"type":"none"},"thinking":{"type":"enabled","budget_tokens":1024},"tools":[` + tool + `],` + msgs + `}`},
		// As Claude Code sends them: cache_control, metadata, fields Saji
		// does not know, a schema with $schema.
		{"/v1/messages", `{"model":"qwen","max_tokens":3,"stream":true,"temperature":1,"metadata":{"user_id":"u"},"context_management":{"edits":[]},
			"system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=2.1.101.e51; cc_entrypoint=cli; cch=a5145;"},
				{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}],
			"tools":[{"name":"Bash","description":"Runs a command","input_schema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
				"properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}},{"type":"web_search_20250305","name":"web_search"}],
			"messages":[{"role":"user","content":[{"type":"text","text":"<system-reminder>Be careful.</system-reminder>\n"},
				{"type":"text","text":"List the files.","cache_control":{"type":"ephemeral"}}]}]}`},
		{"/v1/responses", `{"model":"qwen","max_output_tokens":3,"tools":[` + fn + `],` + input + `}`},
		{"/v1/responses", `{"model":"qwen","max_output_tokens":3,"stream":true,"tools":[` + fn + `],` + input + `}`},
		{"/v1/responses", `{"model":"qwen","max_output_tokens":3,"tool_choice":{"type":"function","name":"get_weather"},"tools":[` + fn + `],` + input + `}`},
		{"/v1/responses", `{"model":"qwen","max_output_tokens":3,"tool_choice":"none","reasoning":{"effort":"low"},"tools":[` + fn + `],` + input + `}`},
		{"/v1/responses", `{"model":"qwen","max_output_tokens":3,"text":{"format":{"type":"json_schema","name":"w","schema":{"type":"object","properties":{"a":{"type":"string"}}}}},"input":"Weather?"}`},
	}
	for _, c := range requests {
		resp := postHeaders(t, hs.URL+c.path, c.body, nil)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: status %d: %s", c.body, resp.StatusCode, b)
		}
	}
	if status, v := post(t, hs.URL+"/v1/messages", `{"model":"qwen","max_tokens":3,"tools":[`+tool+`],"tool_choice":{"type":"tool","name":"other"},`+msgs+`}`); status != 400 || v["type"] != "error" {
		t.Errorf("a choice of an unknown tool: %d %v", status, v)
	}
	if status, v := post(t, hs.URL+"/v1/responses", `{"model":"qwen","tools":[`+fn+`],"tool_choice":{"type":"function","name":"other"},"input":"hi"}`); status != 400 || v["error"] == nil {
		t.Errorf("a choice of an unknown function: %d %v", status, v)
	}
}

// FuzzAgentRequests feeds request bodies to the conversions of both
// dialects' conversations and tools: they never panic, and what they
// refuse is a 400.
func FuzzAgentRequests(f *testing.F) {
	for _, seed := range []string{
		`{"system":"Be brief.","messages":[{"role":"user","content":"Hi"}]}`,
		`{"system":[{"type":"text","text":"x-anthropic-billing-header: cch=1;"}],"messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"tool_use","id":"a","name":"f","input":{"x":1}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"r"}]}]}]}`,
		`{"tools":[{"name":"f","input_schema":{"type":"object"}},{"type":"bash_20250124","name":"bash"}],"tool_choice":{"type":"tool","name":"f"}}`,
		`{"messages":[{"role":"user","content":[{"type":"tool_result","content":{"a":1}}]}]}`,
		`{"input":"Hi","instructions":"Be brief."}`,
		`{"input":[{"role":"developer","content":"R"},{"role":"user","content":[{"type":"input_text","text":"Hi"}]}]}`,
		`{"input":[{"type":"reasoning","summary":[{"text":"s"}],"content":[{"type":"reasoning_text","text":"t"}]},
			{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"o"}]}]}`,
		`{"tools":[{"type":"function","name":"f","parameters":{"type":"object"}},{"type":"local_shell"}],"tool_choice":{"type":"function","name":"f"}}`,
		`{"input":[{"type":"item_reference","id":"x"}]}`,
	} {
		f.Add([]byte(seed))
	}
	log := slog.New(slog.DiscardHandler)
	f.Fuzz(func(t *testing.T, body []byte) {
		var errs []error
		var areq anthropicRequest
		if json.Unmarshal(body, &areq) == nil {
			_, err := anthropicMessages(areq.System, areq.Messages, newImageReader(context.Background(), false))
			_, _, err2 := areq.toolsJSON(log)
			errs = append(errs, err, err2)
		}
		var rreq responsesRequest
		if json.Unmarshal(body, &rreq) == nil {
			_, err := responsesMessages(rreq.Instructions, nil, rreq.Input)
			_, _, err2 := rreq.toolsJSON(log)
			errs = append(errs, err, err2)
		}
		for _, err := range errs {
			if err != nil && classify(err).status != http.StatusBadRequest {
				t.Errorf("%s: %v", body, err)
			}
		}
	})
}
