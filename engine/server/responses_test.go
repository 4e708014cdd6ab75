package server

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"saji/engine/chat"
)

// accumulateResponse builds a response from its stream under the checks
// the openai npm client (7) makes as it does: numbered events, items
// appended at their output_index with an id that their events repeat,
// content parts appended, deltas on parts of the right type, and a done
// item of the added one's type and id. It returns the final response and
// the one built from the events.
func accumulateResponse(t *testing.T, evs []sseEvent) (final, built map[string]any) {
	t.Helper()
	var output []map[string]any
	for i, ev := range evs {
		if ev.data["type"] != ev.name || ev.data["sequence_number"] != float64(i) {
			t.Fatalf("event %d: %s, %v", i, ev.name, ev.data)
		}
		d := ev.data
		var item map[string]any
		oi := -1
		if f, ok := d["output_index"].(float64); ok {
			oi = int(f)
		}
		if oi >= 0 && ev.name != "response.output_item.added" {
			if oi >= len(output) {
				t.Fatalf("event %d: missing output at index %d", i, oi)
			}
			item = output[oi]
			if id, ok := d["item_id"]; ok && id != item["id"] {
				t.Fatalf("event %d: item_id %v, the item's %v", i, id, item["id"])
			}
		}
		part := func(typ string) map[string]any {
			content := item["content"].([]any)
			ci := int(d["content_index"].(float64))
			if ci >= len(content) {
				t.Fatalf("event %d: missing content at index %d", i, ci)
			}
			p := content[ci].(map[string]any)
			if p["type"] != typ {
				t.Fatalf("event %d: content %v, want %s", i, p["type"], typ)
			}
			return p
		}
		switch ev.name {
		case "response.created", "response.in_progress":
			if i > 1 || d["response"].(map[string]any)["status"] != "in_progress" {
				t.Fatalf("event %d: %s", i, ev.name)
			}
		case "response.output_item.added":
			it := d["item"].(map[string]any)
			if oi != len(output) || it["id"] == "" || it["id"] == nil {
				t.Fatalf("event %d: item %v added at %d of %d", i, it, oi, len(output))
			}
			if it["type"] == "function_call" && it["call_id"] == "" {
				t.Fatalf("event %d: a call without call_id", i)
			}
			output = append(output, it)
		case "response.content_part.added":
			p := d["part"].(map[string]any)
			want := "message"
			if p["type"] == "reasoning_text" {
				want = "reasoning"
			}
			content := item["content"].([]any)
			if item["type"] != want || int(d["content_index"].(float64)) != len(content) {
				t.Fatalf("event %d: part %v of %v", i, p, item)
			}
			item["content"] = append(content, p)
		case "response.output_text.delta":
			p := part("output_text")
			p["text"] = p["text"].(string) + d["delta"].(string)
		case "response.reasoning_text.delta":
			p := part("reasoning_text")
			p["text"] = p["text"].(string) + d["delta"].(string)
		case "response.output_text.done":
			if p := part("output_text"); p["text"] != d["text"] {
				t.Fatalf("event %d: text %q, deltas gave %q", i, d["text"], p["text"])
			}
		case "response.reasoning_text.done":
			if p := part("reasoning_text"); p["text"] != d["text"] {
				t.Fatalf("event %d: text %q, deltas gave %q", i, d["text"], p["text"])
			}
		case "response.content_part.done":
			part(d["part"].(map[string]any)["type"].(string))
		case "response.function_call_arguments.delta":
			item["arguments"] = item["arguments"].(string) + d["delta"].(string)
		case "response.function_call_arguments.done":
			if item["arguments"] != d["arguments"] {
				t.Fatalf("event %d: arguments %v, deltas gave %v", i, d["arguments"], item["arguments"])
			}
		case "response.output_item.done":
			it := d["item"].(map[string]any)
			if it["type"] != item["type"] || it["id"] != item["id"] || it["call_id"] != item["call_id"] {
				t.Fatalf("event %d: done %v, added %v", i, it, item)
			}
			b, _ := json.Marshal(item["content"])
			w, _ := json.Marshal(it["content"])
			if item["type"] != "function_call" && string(b) != string(w) {
				t.Fatalf("event %d: done %s, built %s", i, w, b)
			}
			output[oi] = it
		case "response.completed", "response.incomplete", "response.failed":
			if i != len(evs)-1 {
				t.Fatalf("%s at %d of %d", ev.name, i, len(evs))
			}
			final = d["response"].(map[string]any)
			if "response."+final["status"].(string) != ev.name {
				t.Fatalf("%s with status %v", ev.name, final["status"])
			}
		default:
			t.Fatalf("event %d: %s", i, ev.name)
		}
	}
	if final == nil {
		t.Fatalf("the stream has no end: %v", evs)
	}
	items := []any{}
	for _, it := range output {
		items = append(items, it)
	}
	return final, map[string]any{"output": items}
}

// withoutIDs returns v as JSON with its ids, call ids and creation times
// blanked.
func withoutIDs(v any) string {
	b, _ := json.Marshal(v)
	var x any
	json.Unmarshal(b, &x)
	var blank func(any)
	blank = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				if k == "id" || k == "call_id" || k == "created_at" {
					x[k] = ""
				}
				blank(v)
			}
		case []any:
			for _, v := range x {
				blank(v)
			}
		}
	}
	blank(x)
	b, _ = json.Marshal(x)
	return string(b)
}

// TestResponsesMessages converts requests' input to the template's
// messages, and refuses what Saji cannot read.
func TestResponsesMessages(t *testing.T) {
	cases := []struct {
		name, instructions, input string
		want                      []chat.Message
		bad                       bool
	}{
		{"string", "Be brief.", `"Hi"`, []chat.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}}, false},
		{"messages", "", `[{"role":"developer","content":"Rules."},{"role":"user","content":[{"type":"input_text","text":"Hi"}]},
			{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello","annotations":[]}]},
			{"type":"message","role":"user","content":"Bye"}]`,
			[]chat.Message{{Role: "system", Content: "Rules."}, {Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello"},
				{Role: "user", Content: "Bye"}}, false},
		{"a turn with tools", "", `[{"role":"user","content":"Weather?"},
			{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"Look it up."}]},
			{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
			{"type":"function_call","call_id":"call_2","name":"get_weather","arguments":"{\"city\":\"Oslo\"}"},
			{"type":"function_call_output","call_id":"call_1","output":"sunny"},
			{"type":"function_call_output","call_id":"call_2","output":[{"type":"input_text","text":"rain"}]}]`,
			[]chat.Message{{Role: "user", Content: "Weather?"},
				{Role: "assistant", NullContent: true, ReasoningContent: "Look it up.", ToolCalls: []chat.ToolCall{
					{ID: "call_1", Type: "function", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
					{ID: "call_2", Type: "function", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)}}},
				{Role: "tool", ToolCallID: "call_1", Content: "sunny"}, {Role: "tool", ToolCallID: "call_2", Content: "rain"}}, false},
		{"summary", "", `[{"type":"reasoning","summary":[{"type":"summary_text","text":"Thought."}]},
			{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}]`,
			[]chat.Message{{Role: "assistant", Content: "Done.", ReasoningContent: "Thought."}}, false},
		{"image", "", `[{"role":"user","content":[{"type":"input_image","image_url":"data:"}]}]`, nil, true},
		{"reference", "", `[{"type":"item_reference","id":"msg_1"}]`, nil, true},
		{"unknown item", "", `[{"type":"web_search_call"}]`, nil, true},
		{"bad role", "", `[{"role":"tool","content":"x"}]`, nil, true},
		{"call without name", "", `[{"type":"function_call","call_id":"c"}]`, nil, true},
		{"empty list", "", `[]`, nil, true},
		{"a number", "", `5`, nil, true},
	}
	for _, c := range cases {
		got, err := responsesMessages(c.instructions, nil, json.RawMessage(c.input))
		if c.bad {
			if ae := classify(err); err == nil || ae.status != http.StatusBadRequest || ae.param != "input" {
				t.Errorf("%s: %v, want a 400 about input", c.name, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v\n got %+v\nwant %+v", c.name, err, got, c.want)
		}
	}

	// A continued conversation comes after the instructions, and is left
	// as it is when the input adds to its last turn.
	call := chat.ToolCall{ID: "call_1", Type: "function", Name: "f", Arguments: json.RawMessage("{}")}
	history := []chat.Message{{Role: "user", Content: "Hi"}, {Role: "assistant", NullContent: true, ToolCalls: make([]chat.ToolCall, 1, 4)}}
	history[1].ToolCalls[0] = call
	got, err := responsesMessages("Be brief.", history, json.RawMessage(`[{"type":"function_call","call_id":"call_2","name":"g","arguments":"{}"}]`))
	if err != nil || len(got) != 3 || got[0].Role != "system" || len(got[2].ToolCalls) != 2 {
		t.Fatalf("continued: %v, %+v", err, got)
	}
	if history[1].ToolCalls[:2][1].ID != "" {
		t.Errorf("the history changed: %+v", history[1].ToolCalls[:2])
	}
}

// TestResponseStore keeps the last responses, and forgets the oldest.
func TestResponseStore(t *testing.T) {
	st := newResponseStore(2)
	for _, id := range []string{"a", "b", "c"} {
		st.put(id, storedResponse{object: map[string]any{"id": id}})
	}
	if _, ok := st.get("a"); ok {
		t.Error("the oldest is kept")
	}
	if r, ok := st.get("c"); !ok || r.object["id"] != "c" {
		t.Errorf("the newest: %v %v", r, ok)
	}
	if !st.remove("b") || st.remove("b") || len(st.order) != 1 {
		t.Errorf("remove: %v", st.order)
	}
}

// TestResponsesAPI drives /v1/responses over HTTP: the response and its
// stream, usage, max_output_tokens, and errors in the OpenAI shape.
func TestResponsesAPI(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	body := `{"model":"tiny","instructions":"Be brief.","input":"the cat","max_output_tokens":4,"temperature":0}`
	status, v := post(t, hs.URL+"/v1/responses", body)
	if status != 200 || v["object"] != "response" || v["model"] != "tiny" || !strings.HasPrefix(v["id"].(string), "resp_") {
		t.Fatalf("status %d: %v", status, v)
	}
	usage := v["usage"].(map[string]any)
	out := usage["output_tokens"].(float64)
	wantStatus := "completed"
	if out == 4 {
		wantStatus = "incomplete"
	}
	if out < 1 || out > 4 || v["status"] != wantStatus || usage["total_tokens"] != usage["input_tokens"].(float64)+out {
		t.Errorf("status %v, usage %v", v["status"], usage)
	}
	output := v["output"].([]any)
	if len(output) != 1 {
		t.Fatalf("output %v", output)
	}
	msg := output[0].(map[string]any)
	text := msg["content"].([]any)[0].(map[string]any)["text"]
	if msg["type"] != "message" || msg["role"] != "assistant" || !strings.HasPrefix(msg["id"].(string), "msg_") {
		t.Errorf("message %v", msg)
	}

	// The same request streamed gives the same output and usage.
	resp, err := http.Post(hs.URL+"/v1/responses", "application/json", strings.NewReader(strings.Replace(body, `"input"`, `"stream":true,"input"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	evs := namedEvents(t, resp.Body)
	resp.Body.Close()
	final, _ := accumulateResponse(t, evs)
	fo := final["output"].([]any)
	if final["status"] != wantStatus || len(fo) != 1 || fo[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"] != text ||
		final["usage"].(map[string]any)["output_tokens"] != out {
		t.Errorf("streamed %v, whole %v", final, v)
	}
	names := []string{evs[0].name, evs[1].name, evs[2].name, evs[3].name, evs[4].name}
	if want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta"}; !reflect.DeepEqual(names, want) {
		t.Errorf("the stream starts %v", names)
	}

	// A conversation as items, with a turn that called a tool.
	status, v = post(t, hs.URL+"/v1/responses", `{"model":"tiny","max_output_tokens":2,"store":false,"input":[
		{"role":"user","content":"hi"},{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_1","output":"ok"}]}`)
	if status != 200 {
		t.Errorf("items: %d %v", status, v)
	}

	// A response made with store (the default) is kept: it can be
	// read back, continued (its conversation is in the next prompt) and
	// deleted; one made with store false is not kept.
	status, first := post(t, hs.URL+"/v1/responses", `{"model":"tiny","instructions":"Hi.","input":"cat","max_output_tokens":2}`)
	id, _ := first["id"].(string)
	if status != 200 || first["store"] != true {
		t.Fatalf("stored: %d %v", status, first)
	}
	if got := getJSON(t, hs.URL+"/v1/responses/"+id); withoutIDs(got["output"]) != withoutIDs(first["output"]) || got["id"] != id {
		t.Errorf("GET %s: %v", id, got)
	}
	status, next := post(t, hs.URL+"/v1/responses", `{"model":"tiny","previous_response_id":"`+id+`","input":"dog","max_output_tokens":2,"store":false}`)
	if status != 200 || next["previous_response_id"] != id || next["store"] != false {
		t.Fatalf("continued: %d %v", status, next)
	}
	if in, prev := next["usage"].(map[string]any)["input_tokens"].(float64), first["usage"].(map[string]any)["input_tokens"].(float64); in <= prev {
		t.Errorf("the continuation's prompt has %v tokens, the first's %v", in, prev)
	}
	if got := getJSON(t, hs.URL+"/v1/responses/"+next["id"].(string)); got["error"] == nil {
		t.Errorf("a response made with store false is kept: %v", got)
	}
	req, _ := http.NewRequest(http.MethodDelete, hs.URL+"/v1/responses/"+id, nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := getJSON(t, hs.URL+"/v1/responses/"+id); resp.StatusCode != 200 || got["error"] == nil {
		t.Errorf("deleted: %d, then %v", resp.StatusCode, got)
	}

	long := strings.Repeat("the cat sat on the mat ", 40)
	errs := []struct {
		name, body, param string
		status            int
	}{
		{"malformed JSON", `{"model":`, "", 400},
		{"no input", `{"model":"tiny"}`, "input", 400},
		{"unknown previous response", `{"model":"tiny","input":"hi","previous_response_id":"resp_1"}`, "previous_response_id", 400},
		{"unknown model", `{"model":"gpt-5","input":"hi"}`, "model", 404},
		{"image", `{"model":"tiny","input":[{"role":"user","content":[{"type":"input_image","image_url":"x"}]}]}`, "input", 400},
		{"bad max_output_tokens", `{"model":"tiny","input":"hi","max_output_tokens":0}`, "max_output_tokens", 400},
		{"bad temperature", `{"model":"tiny","input":"hi","temperature":3}`, "temperature", 400},
		{"bad text format", `{"model":"tiny","input":"hi","text":{"format":{"type":"yaml"}}}`, "response_format", 400},
		{"tool without a name", `{"model":"tiny","input":"hi","tools":[{"type":"function"}]}`, "tools", 400},
		{"too long a prompt", `{"model":"tiny","input":"` + long + `"}`, "messages", 400},
	}
	for _, c := range errs {
		status, v := post(t, hs.URL+"/v1/responses", c.body)
		e, ok := v["error"].(map[string]any)
		if status != c.status || !ok || e["message"] == "" || e["type"] == nil || (c.param != "" && e["param"] != c.param) {
			t.Errorf("%s: status %d, %v; want %d about %s", c.name, status, v, c.status, c.param)
		}
	}
}

// getJSON gets url and returns the decoded JSON.
func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return v
}
