package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/synth/synthtest"
)

func TestMain(m *testing.M) { synthtest.Main(m) }

// tinyPath is the tiny llama (mini vocabulary, no chat template: ChatML)
// the tests share.
func tinyPath() (string, error) { return synthtest.Tiny("q8_0", 3) }

// newTestServer serves the tiny model (context 128) over HTTP.
func newTestServer(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	return newTestServerContext(t, cfg, 128)
}

// newTestServerContext serves the tiny model with a context of n.
func newTestServerContext(t *testing.T, cfg Config, n int) (*Server, *httptest.Server) {
	t.Helper()
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	m, err := runner.Load(context.Background(), path, runner.LoadOptions{Name: "tiny", Threads: 2,
		Scheduler: scheduler.Config{Context: n, MaxSeqs: 4}})
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg)
	s.Runner().Add(m)
	return s, serveTest(t, s)
}

// post sends body to path and returns the status and decoded JSON.
func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("%s: response is not JSON: %v", url, err)
	}
	return resp.StatusCode, v
}

// events reads an SSE stream's data lines.
func events(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestModels(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	resp, err := http.Get(hs.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID, Object string
		} `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if list.Object != "list" || len(list.Data) != 1 || list.Data[0].ID != "tiny" || list.Data[0].Object != "model" {
		t.Errorf("models: %+v", list)
	}
	if resp, _ := http.Get(hs.URL + "/v1/models/nope"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown model: status %d", resp.StatusCode)
	}
	if resp, _ := http.Get(hs.URL + "/health"); resp.StatusCode != http.StatusOK {
		t.Errorf("health: status %d", resp.StatusCode)
	}
}

func TestChatCompletion(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	status, v := post(t, hs.URL+"/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"the cat"}],
		"max_tokens":5,"temperature":0,"logprobs":true,"top_logprobs":2,"ignore_eos":true}`)
	if status != 200 {
		t.Fatalf("status %d: %v", status, v)
	}
	choice := v["choices"].([]any)[0].(map[string]any)
	usage := v["usage"].(map[string]any)
	if choice["finish_reason"] != "length" || usage["completion_tokens"] != float64(5) || v["object"] != "chat.completion" {
		t.Errorf("response %v", v)
	}
	lp := choice["logprobs"].(map[string]any)["content"].([]any)
	if len(lp) != 5 || len(lp[0].(map[string]any)["top_logprobs"].([]any)) != 2 {
		t.Errorf("logprobs %v", lp)
	}
	// The same request streamed gives the same text, then usage and [DONE].
	resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"tiny",
		"messages":[{"role":"user","content":"the cat"}],"max_tokens":5,"temperature":0,"stream":true,
		"stream_options":{"include_usage":true},"ignore_eos":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	evs := events(t, resp.Body)
	if len(evs) < 4 || evs[len(evs)-1] != "[DONE]" {
		t.Fatalf("events %v", evs)
	}
	var text strings.Builder
	var finish any
	var gotUsage map[string]any
	for _, e := range evs[:len(evs)-1] {
		var c map[string]any
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatal(err)
		}
		if u, ok := c["usage"].(map[string]any); ok {
			gotUsage = u
			continue
		}
		ch := c["choices"].([]any)[0].(map[string]any)
		if d, ok := ch["delta"].(map[string]any)["content"].(string); ok {
			text.WriteString(d)
		}
		if ch["finish_reason"] != nil {
			finish = ch["finish_reason"]
		}
	}
	want := choice["message"].(map[string]any)["content"].(string)
	if text.String() != want || finish != "length" || gotUsage["completion_tokens"] != float64(5) {
		t.Errorf("stream: %q (finish %v, usage %v), non-stream %q", text.String(), finish, gotUsage, want)
	}
}

func TestCompletion(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	status, v := post(t, hs.URL+"/v1/completions", `{"model":"tiny","prompt":"the cat sat","max_tokens":4,"temperature":0,"logprobs":1,"ignore_eos":true}`)
	if status != 200 {
		t.Fatalf("status %d: %v", status, v)
	}
	choice := v["choices"].([]any)[0].(map[string]any)
	lp := choice["logprobs"].(map[string]any)
	if v["object"] != "text_completion" || choice["finish_reason"] != "length" || len(lp["tokens"].([]any)) != 4 {
		t.Errorf("response %v", v)
	}
	// A stop string cuts the text before it: stop at the first character
	// the model writes.
	text := choice["text"].(string)
	if text != "" {
		stop, _ := json.Marshal(text[:1])
		status, v = post(t, hs.URL+"/v1/completions", `{"model":"tiny","prompt":"the cat sat","max_tokens":4,"temperature":0,"ignore_eos":true,"stop":`+string(stop)+`}`)
		c := v["choices"].([]any)[0].(map[string]any)
		if status != 200 || c["text"] != "" || c["finish_reason"] != "stop" {
			t.Errorf("stop %s: %v", stop, v)
		}
	}
}

// TestErrors checks the error paths: OpenAI-shaped errors with the right
// status for each.
func TestErrors(t *testing.T) {
	_, hs := newTestServer(t, Config{MaxBody: 4096})
	long := strings.Repeat("the cat sat on the mat ", 40)
	cases := []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"malformed JSON", "/v1/chat/completions", `{"model":`, 400, ""},
		{"junk after the JSON", "/v1/completions", `{"model":"tiny","prompt":"hi","max_tokens":1} junk`, 400, ""},
		{"two JSON values", "/v1/completions", `{"model":"tiny","prompt":"hi","max_tokens":1}{}`, 400, ""},
		{"unknown model", "/v1/chat/completions", `{"model":"nope","messages":[{"role":"user","content":"hi"}]}`, 404, "model_not_found"},
		{"no messages", "/v1/chat/completions", `{"model":"tiny","messages":[]}`, 400, ""},
		{"n = 2", "/v1/chat/completions", `{"model":"tiny","n":2,"messages":[{"role":"user","content":"hi"}]}`, 400, ""},
		{"too long a prompt", "/v1/completions", `{"model":"tiny","prompt":"` + long + `"}`, 400, "context_length_exceeded"},
		{"bad temperature", "/v1/completions", `{"model":"tiny","prompt":"hi","temperature":-1}`, 400, ""},
		{"bad stop", "/v1/completions", `{"model":"tiny","prompt":"hi","stop":5}`, 400, ""},
		{"oversized body", "/v1/completions", `{"model":"tiny","prompt":"` + strings.Repeat("a", 5000) + `"}`, 413, ""},
	}
	for _, c := range cases {
		status, v := post(t, hs.URL+c.path, c.body)
		e, ok := v["error"].(map[string]any)
		if status != c.status || !ok || e["message"] == "" || e["type"] == nil {
			t.Errorf("%s: status %d, %v; want %d and an OpenAI error", c.name, status, v, c.status)
			continue
		}
		if c.code != "" && e["code"] != c.code {
			t.Errorf("%s: code %v, want %s", c.name, e["code"], c.code)
		}
	}
}

// TestDisconnect checks that a client that goes away mid-stream cancels
// the generation and frees its cache blocks.
func TestDisconnect(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	leaveMidStream(t, http.DefaultClient, hs.URL)
	waitIdle(t, s.Runner().Models()[0].Scheduler())
}

// leaveMidStream starts a streamed completion on the server at url that
// would run to the end of the context, and leaves after a few events, as
// a client that goes away does. It returns the stream's status.
func leaveMidStream(t *testing.T, client *http.Client, url string) int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/completions",
		strings.NewReader(`{"model":"tiny","prompt":"the cat","stream":true,"ignore_eos":true}`))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for range 3 { // a few events in
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

// waitIdle waits for sched to run nothing and hold no cache blocks: for a
// minute, a hang detector.
func waitIdle(t *testing.T, sched *scheduler.Scheduler) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st := sched.Stats()
		if st.Running == 0 && st.KV.Groups[0].Used == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the generation goes on after the client left: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAuthAndCORS checks API keys and the CORS allowlist.
func TestAuthAndCORS(t *testing.T) {
	_, hs := newTestServer(t, Config{APIKeys: []string{"sekret"}, CORSOrigins: []string{"http://ok.example"}})
	do := func(method, path, key, origin string) *http.Response {
		req, _ := http.NewRequest(method, hs.URL+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	cases := []struct {
		name, method, path, key, origin string
		status                          int
	}{
		{"no key", "GET", "/v1/models", "", "", 401},
		{"wrong key", "GET", "/v1/models", "nope", "", 401},
		{"right key", "GET", "/v1/models", "sekret", "", 200},
		{"health is open", "GET", "/health", "", "", 200},
		{"foreign origin", "GET", "/v1/models", "sekret", "http://evil.example", 403},
		{"allowed origin", "GET", "/v1/models", "sekret", "http://ok.example", 200},
		{"preflight", "OPTIONS", "/v1/chat/completions", "", "http://ok.example", 204},
	}
	for _, c := range cases {
		resp := do(c.method, c.path, c.key, c.origin)
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
		}
		if c.status == 200 && c.origin != "" && resp.Header.Get("Access-Control-Allow-Origin") != c.origin {
			t.Errorf("%s: no CORS header", c.name)
		}
	}
}

// TestLatestTag lets the OpenAI dialect take the NAME:latest that the
// Ollama dialect lists.
func TestLatestTag(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	status, v := post(t, hs.URL+"/v1/completions", `{"model":"tiny:latest","prompt":"the cat","max_tokens":2}`)
	if status != 200 || v["model"] != "tiny" {
		t.Errorf("tiny:latest: %d %v", status, v)
	}
}

// TestAlias resolves another name for a model.
func TestAlias(t *testing.T) {
	_, hs := newTestServer(t, Config{Runner: runner.New(runner.Config{Aliases: map[string]string{"gpt-4o": "tiny"}})})
	status, v := post(t, hs.URL+"/v1/completions", `{"model":"gpt-4o","prompt":"the cat","max_tokens":2}`)
	if status != 200 || v["model"] != "tiny" {
		t.Errorf("alias: %d %v", status, v)
	}
}
