package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"saji/internal/loadtest/fakeopenai"
)

func TestNormalizeBaseURL(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", ""},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080", ""},
		{"http://localhost:11434/v1", "http://localhost:11434", ""},
		{"http://localhost:11434/v1/", "http://localhost:11434", ""},
		{"https://host/proxy/v1", "https://host/proxy", ""},
		{"", "", "required"},
		{"localhost:8080", "", "want http"},
		{"ftp://x", "", "want http"},
		{"http://", "", "want http"},
	}
	for _, tt := range tests {
		got, err := normalizeBaseURL(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := NewHTTPTarget(HTTPConfig{URL: "http://x", Endpoint: "embeddings"}); err == nil {
		t.Error("an unknown endpoint was accepted")
	}
}

// runAgainst runs n requests of outputLen tokens against a fake server.
func runAgainst(t *testing.T, srv *fakeopenai.Server, cfg HTTPConfig, its []Item, opts Options) Summary {
	t.Helper()
	if cfg.URL == "" {
		cfg.URL = srv.URL
	}
	if cfg.Model == "" {
		cfg.Model = "fake"
	}
	target, err := NewHTTPTarget(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts.IgnoreEOS = true
	res, err := Run(context.Background(), target, its, opts)
	if err != nil {
		t.Fatal(err)
	}
	return Summarize(res)
}

func TestHTTPTargetCompletions(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Config{FirstDelay: 20 * time.Millisecond, Interval: 5 * time.Millisecond, Comments: true})
	defer srv.Close()
	const n, out, c = 12, 6, 3
	its := make([]Item, n)
	for i := range its {
		its[i] = Item{Prompt: "one two three four", OutputLen: out}
	}
	s := runAgainst(t, srv, HTTPConfig{URL: srv.URL + "/v1/"}, its, Options{Concurrency: c})
	if s.Completed != n || s.Failed != 0 {
		t.Fatalf("completed %d failed %d: %q", s.Completed, s.Failed, s.Errors)
	}
	if s.TotalInputTokens != 4*n || s.TotalOutputTokens != out*n {
		t.Errorf("tokens %d in, %d out; want %d, %d", s.TotalInputTokens, s.TotalOutputTokens, 4*n, out*n)
	}
	if len(s.Notes) != 0 {
		t.Errorf("notes %q", s.Notes)
	}
	if m := srv.MaxInFlight(); m > c || m < 1 {
		t.Errorf("the server saw %d requests at once, limit %d", m, c)
	}
	// The server cannot answer sooner than its delays.
	if s.P50TTFT < 20 || s.P50E2EL < 20+5*(out-1) {
		t.Errorf("p50 TTFT %g ms, E2E %g ms: sooner than the server's delays", s.P50TTFT, s.P50E2EL)
	}
	rec := srv.Received()
	if len(rec) != n {
		t.Fatalf("the server got %d requests, want %d", len(rec), n)
	}
	b := rec[0].Body
	if rec[0].Path != "/v1/completions" || b["model"] != "fake" || b["prompt"] != "one two three four" ||
		b["max_tokens"] != float64(out) || b["stream"] != true || b["ignore_eos"] != true || b["temperature"] != float64(0) {
		t.Errorf("request %s %v", rec[0].Path, b)
	}
	if so, _ := b["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options %v", b["stream_options"])
	}
	if rec[0].Authorization != "" {
		t.Errorf("authorization %q without a key", rec[0].Authorization)
	}
}

func TestHTTPTargetChat(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Config{CRLF: true, APIKey: "sekret"})
	defer srv.Close()
	its := []Item{{Prompt: "hi there", OutputLen: 5}, {Prompt: "hello", OutputLen: 3}}
	s := runAgainst(t, srv, HTTPConfig{Endpoint: Chat, APIKey: "sekret"}, its, Options{Concurrency: 2})
	if s.Completed != 2 || s.TotalOutputTokens != 8 || s.TotalInputTokens != 3 {
		t.Fatalf("completed %d, tokens %d in %d out: %q", s.Completed, s.TotalInputTokens, s.TotalOutputTokens, s.Errors)
	}
	for _, r := range srv.Received() {
		if r.Path != "/v1/chat/completions" || r.Authorization != "Bearer sekret" {
			t.Errorf("request %s with %q", r.Path, r.Authorization)
		}
		msgs, _ := r.Body["messages"].([]any)
		if len(msgs) != 1 {
			t.Fatalf("messages %v", r.Body["messages"])
		}
		if m := msgs[0].(map[string]any); m["role"] != "user" || m["content"] == "" {
			t.Errorf("message %v", m)
		}
		if _, ok := r.Body["prompt"]; ok {
			t.Errorf("a chat request with a prompt: %v", r.Body)
		}
	}
	// Without the key: 401, counted as failures with the server's message.
	s = runAgainst(t, srv, HTTPConfig{Endpoint: Chat}, its, Options{})
	if s.Failed != 2 || len(s.Errors) != 1 || !strings.Contains(s.Errors[0], "invalid api key") {
		t.Errorf("failed %d, errors %q", s.Failed, s.Errors)
	}
}

func TestHTTPTargetNoUsage(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Config{OmitUsage: true})
	defer srv.Close()
	its := []Item{{Prompt: "a b", OutputLen: 4}, {Prompt: "c", PromptTokens: 7, OutputLen: 2}}
	s := runAgainst(t, srv, HTTPConfig{}, its, Options{})
	if s.Completed != 2 || s.TotalOutputTokens != 6 || s.TotalInputTokens != 7 {
		t.Fatalf("completed %d, tokens %d in %d out", s.Completed, s.TotalInputTokens, s.TotalOutputTokens)
	}
	notes := strings.Join(s.Notes, "\n")
	if !strings.Contains(notes, "input tokens unknown for 1 of 2") || !strings.Contains(notes, "no completion usage for 2 of 2") {
		t.Errorf("notes %q", s.Notes)
	}
}

func TestHTTPTargetFailures(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Config{Interval: time.Millisecond})
	defer srv.Close()
	its := []Item{
		{Prompt: "fine", OutputLen: 4},
		{Prompt: "FAIL500", OutputLen: 4},
		{Prompt: "DROP", OutputLen: 6},
		{Prompt: "ERRMID", OutputLen: 4},
		{Prompt: "also fine", OutputLen: 4},
	}
	s := runAgainst(t, srv, HTTPConfig{}, its, Options{Concurrency: 2})
	if s.Completed != 2 || s.Failed != 3 || s.TotalOutputTokens != 8 {
		t.Fatalf("completed %d failed %d output %d: %q", s.Completed, s.Failed, s.TotalOutputTokens, s.Errors)
	}
	errs := strings.Join(s.Errors, "\n")
	for _, want := range []string{"request 1: loadtest: POST " + srv.URL + "/v1/completions: 500 Internal Server Error: the model fell over",
		"request 2: loadtest: reading the stream", "request 3: loadtest: the server reported an error mid-stream: out of memory"} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors lack %q:\n%s", want, errs)
		}
	}
}

func TestHTTPTargetConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	s := runAgainst(t, nil, HTTPConfig{URL: url, Model: "m"}, []Item{{Prompt: "x", OutputLen: 1}}, Options{})
	if s.Failed != 1 || len(s.Errors) != 1 || !strings.Contains(s.Errors[0], "refused") {
		t.Errorf("failed %d, errors %q", s.Failed, s.Errors)
	}
}

func TestHTTPTargetNotStreaming(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices":[{"text":"whole answer"}]}`))
	}))
	defer srv.Close()
	s := runAgainst(t, nil, HTTPConfig{URL: srv.URL, Model: "m"}, []Item{{Prompt: "x", OutputLen: 1}}, Options{})
	if s.Failed != 1 || len(s.Errors) != 1 || !strings.Contains(s.Errors[0], "not an event stream") {
		t.Errorf("failed %d, errors %q", s.Failed, s.Errors)
	}
}

func TestHTTPTargetModels(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Config{Model: "llama-3"})
	defer srv.Close()
	target, err := NewHTTPTarget(HTTPConfig{URL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := target.Models(context.Background())
	if err != nil || len(ids) != 1 || ids[0] != "llama-3" {
		t.Errorf("models %q, %v", ids, err)
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"error":{"message":"bad model","type":"invalid_request_error"}}`, "bad model"},
		{`{"error":"model not found"}`, "model not found"},
		{`{"error":{"type":"overloaded"}}`, "overloaded"},
		{`{"error":null}`, ""},
		{`{"detail":"x"}`, ""},
		{`<html>`, ""},
	}
	for _, tt := range tests {
		if got := errorMessage([]byte(tt.in)); got != tt.want {
			t.Errorf("errorMessage(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHTTPTargetLlama streams from llama.cpp's native /completion API.
func TestHTTPTargetLlama(t *testing.T) {
	var got llamaRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/completion" {
			http.NotFound(w, r)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if got.Prompt == "fail" {
			fmt.Fprint(w, "data: {\"error\": {\"message\": \"context full\"}}\n\n")
			return
		}
		for _, c := range []string{"a", "", "b", "c"} {
			fmt.Fprintf(w, "data: {\"content\": %q, \"stop\": false}\n\n", c)
		}
		fmt.Fprint(w, "data: {\"content\": \"\", \"stop\": true, \"tokens_predicted\": 4, \"tokens_evaluated\": 7}\n\n")
	}))
	defer srv.Close()
	tg, err := NewHTTPTarget(HTTPConfig{URL: srv.URL, Endpoint: Llama})
	if err != nil {
		t.Fatal(err)
	}
	if tg.URL() != srv.URL+"/completion" {
		t.Errorf("URL %s", tg.URL())
	}
	var text string
	u, err := tg.Stream(context.Background(), Request{Prompt: "hi", MaxTokens: 4, IgnoreEOS: true}, func(c Chunk) { text += c.Text })
	if err != nil {
		t.Fatal(err)
	}
	if text != "abc" || u != (Usage{PromptTokens: 7, CompletionTokens: 4}) {
		t.Errorf("text %q, usage %+v", text, u)
	}
	if got.NPredict != 4 || !got.Stream || !got.IgnoreEOS || !got.CachePrompt {
		t.Errorf("request %+v", got)
	}
	if _, err := tg.Stream(context.Background(), Request{Prompt: "fail", MaxTokens: 4}, func(Chunk) {}); err == nil || !strings.Contains(err.Error(), "context full") {
		t.Errorf("error event: %v", err)
	}
}
