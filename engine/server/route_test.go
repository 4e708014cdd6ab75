package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// testRoutes is a fast/strong router: images, tools, long prompts and
// hard questions go to the strong model.
const testRoutes = `{
  "auto": {
    "rules": [
      {"images": true, "model": "strong"},
      {"tools": true, "max_chars": 200, "model": "fast-tools"},
      {"tools": true, "model": "strong"},
      {"match": "(?i)\\b(prove|refactor)\\b", "model": "strong"},
      {"min_chars": 100, "model": "strong"}
    ],
    "default": "fast"
  },
  "always": {"default": "strong"}
}`

// TestRouteRules routes requests of every dialect by the rules, the
// first match winning.
func TestRouteRules(t *testing.T) {
	routes, err := ParseRoutes([]byte(testRoutes))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 30)
	for _, tc := range []struct {
		name, body, want string
	}{
		{"short chat", `{"messages":[{"role":"user","content":"hi"}]}`, "fast"},
		{"long chat", `{"messages":[{"role":"system","content":"` + long + `"},{"role":"user","content":"hi"}]}`, "strong"},
		{"long across messages", `{"messages":[{"role":"user","content":"` + long[:60] + `"},{"role":"assistant","content":"` + long[:60] + `"}]}`, "strong"},
		{"just under the length", `{"messages":[{"role":"user","content":"` + strings.Repeat("é", 99) + `"}]}`, "fast"},
		{"regexp on the last user message", `{"messages":[{"role":"user","content":"Please refactor this"}]}`, "strong"},
		{"regexp on an earlier user message only", `{"messages":[{"role":"user","content":"prove it"},{"role":"assistant","content":"ok"},{"role":"user","content":"thanks"}]}`, "fast"},
		{"regexp on a word inside another", `{"messages":[{"role":"user","content":"improve it"}]}`, "fast"},
		{"short with tools", `{"tools":[{"type":"function"}],"messages":[{"role":"user","content":"hi"}]}`, "fast-tools"},
		{"long with tools", `{"tools":[{"type":"function"}],"messages":[{"role":"user","content":"` + long + long + `"}]}`, "strong"},
		{"legacy functions", `{"functions":[{"name":"f"}],"messages":[]}`, "fast-tools"},
		{"OpenAI image part", `{"messages":[{"role":"user","content":[{"type":"text","text":"what is it"},{"type":"image_url","image_url":{"url":"data:"}}]}]}`, "strong"},
		{"Anthropic image block", `{"system":"be brief","messages":[{"role":"user","content":[{"type":"image","source":{}}]}]}`, "strong"},
		{"Anthropic system blocks count", `{"system":[{"type":"text","text":"` + long + `"}],"messages":[{"role":"user","content":"hi"}]}`, "strong"},
		{"Ollama message images", `{"messages":[{"role":"user","content":"what","images":["aGk="]}]}`, "strong"},
		{"Ollama generate", `{"prompt":"please prove this","images":[]}`, "strong"},
		{"Ollama generate image", `{"prompt":"hi","images":["aGk="]}`, "strong"},
		{"completions prompt list", `{"prompt":["a","b"]}`, "fast"},
		{"Responses string input", `{"input":"refactor this"}`, "strong"},
		{"Responses items", `{"instructions":"x","input":[{"role":"user","content":[{"type":"input_text","text":"hi"},{"type":"input_image","image_url":"data:"}]}]}`, "strong"},
		{"no text at all", `{}`, "fast"},
		{"odd content", `{"messages":[{"role":"user","content":42}]}`, "fast"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v routedRequest
			if err := json.Unmarshal([]byte(tc.body), &v); err != nil {
				t.Fatal(err)
			}
			rt := routes["auto"]
			if got := rt.choose(features(&v)); got != tc.want {
				t.Errorf("routed to %q, want %q (features %+v)", got, tc.want, features(&v))
			}
		})
	}
	always := routes["always"]
	if got := always.choose(requestFeatures{images: true}); got != "strong" {
		t.Errorf("a route without rules: %q", got)
	}
}

// TestParseRoutes refuses routing files that cannot work.
func TestParseRoutes(t *testing.T) {
	for _, tc := range []struct {
		name, text string
	}{
		{"not JSON", `auto: fast`},
		{"empty", `{}`},
		{"no default", `{"auto":{"rules":[{"model":"a"}]}}`},
		{"a rule without a model", `{"auto":{"rules":[{"tools":true}],"default":"a"}}`},
		{"a bad expression", `{"auto":{"rules":[{"match":"(","model":"b"}],"default":"a"}}`},
		{"an empty range", `{"auto":{"rules":[{"min_chars":10,"max_chars":5,"model":"b"}],"default":"a"}}`},
		{"a negative length", `{"auto":{"rules":[{"min_chars":-1,"model":"b"}],"default":"a"}}`},
		{"a loop", `{"auto":{"rules":[{"model":"auto"}],"default":"a"}}`},
		{"a default loop", `{"auto":{"default":"auto"}}`},
		{"a misspelt field", `{"auto":{"rules":[{"tool":true,"model":"b"}],"default":"a"}}`},
		{"a blank name", `{" ":{"default":"a"}}`},
	} {
		if _, err := ParseRoutes([]byte(tc.text)); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

// FuzzParseRoutes reads any routing file without a panic, and routes any
// request through what it accepts.
func FuzzParseRoutes(f *testing.F) {
	f.Add(testRoutes, `{"messages":[{"role":"user","content":"prove it"}],"tools":[{}]}`)
	f.Add(`{"a":{"rules":[{"match":"x*","min_chars":1,"model":"b"}],"default":"c"}}`, `{"input":[{"content":[1,"x"]}]}`)
	f.Add(`{"a":{"default":"c"}}`, `{"prompt":["x"],"system":[{"text":"y"}]}`)
	f.Fuzz(func(t *testing.T, routes, body string) {
		rs, err := ParseRoutes([]byte(routes))
		if err != nil {
			return
		}
		var v routedRequest
		json.Unmarshal([]byte(body), &v)
		for _, rt := range rs {
			if rt.choose(features(&v)) == "" {
				t.Error("routed to no model")
			}
		}
	})
}

// TestRouteServer routes requests to remote models, says so in the
// header, the model field and /metrics, and lists the routing name.
func TestRouteServer(t *testing.T) {
	fast := newFakeUpstream(t, "fast", nil)
	strong := newFakeUpstream(t, "strong", nil)
	routes, err := ParseRoutes([]byte(testRoutes))
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{Routes: routes, Remotes: map[string]Remote{
		"fast":       {HealthInterval: -1, Upstreams: []Upstream{{URL: fast.URL}}},
		"fast-tools": {HealthInterval: -1, Upstreams: []Upstream{{URL: fast.URL}}},
		"strong":     {HealthInterval: -1, Upstreams: []Upstream{{URL: strong.URL}}},
	}})
	defer s.Close()
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	for _, tc := range []struct{ model, content, want string }{
		{"auto", "hi", "fast"},
		{"auto", "refactor this", "strong"},
		{"auto:latest", "hi", "fast"},
		{"always", "hi", "strong"},
		{"fast", "refactor this", "fast"}, // not a route: untouched
	} {
		resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(
			`{"model":"`+tc.model+`","messages":[{"role":"user","content":"`+tc.content+`"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]any
		json.NewDecoder(resp.Body).Decode(&raw)
		resp.Body.Close()
		header := resp.Header.Get(RoutedHeader)
		if resp.StatusCode != 200 || raw["served_by"] != tc.want || raw["model"] != tc.want {
			t.Errorf("%s %q: %d %v", tc.model, tc.content, resp.StatusCode, raw)
		}
		if isRoute := tc.model != "fast"; (header == tc.want) != isRoute || (!isRoute && header != "") {
			t.Errorf("%s %q: %s %q", tc.model, tc.content, RoutedHeader, header)
		}
	}
	get := func(path string) string {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if models := get("/v1/models"); !strings.Contains(models, `{"id":"auto","object":"model","created":0,"owned_by":"router"}`) {
		t.Errorf("/v1/models: %s", models)
	}
	if tags := get("/api/tags"); !strings.Contains(tags, `"name":"auto:latest"`) || !strings.Contains(tags, `"name":"always:latest"`) {
		t.Errorf("/api/tags: %s", tags)
	}
	metrics := get("/metrics")
	for _, want := range []string{
		`saji:routed_requests_total{model_name="fast",route="auto"} 2`,
		`saji:routed_requests_total{model_name="strong",route="auto"} 1`,
		`saji:routed_requests_total{model_name="strong",route="always"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
