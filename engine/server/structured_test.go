package server

import (
	"encoding/json"
	"testing"
)

// TestStructuredOutput checks that response_format and Ollama's format
// make even a model of random weights write valid JSON of the schema.
func TestStructuredOutput(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	schema := `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"ok":{"type":"boolean"}},"required":["name","age","ok"]}`
	cases := []struct {
		name, path, body string
		content          func(v map[string]any) string
	}{
		{"json_object", "/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"},"max_tokens":70,"seed":1,"temperature":0.7}`, chatContent},
		{"json_schema", "/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"p","schema":` + schema + `}},"max_tokens":70,"seed":2,"temperature":0.7}`, chatContent},
		{"ollama format schema", "/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"format":` + schema + `,"stream":false,"options":{"num_predict":70,"seed":3}}`,
			func(v map[string]any) string { return v["message"].(map[string]any)["content"].(string) }},
	}
	for _, c := range cases {
		status, v := post(t, hs.URL+c.path, c.body)
		if status != 200 {
			t.Errorf("%s: %d %v", c.name, status, v)
			continue
		}
		text := c.content(v)
		var obj map[string]any
		if err := json.Unmarshal([]byte(text), &obj); err != nil {
			// A token limit may cut the value short; the prefix is still valid.
			if fin, _ := v["choices"].([]any); (fin != nil && fin[0].(map[string]any)["finish_reason"] == "length") || v["done_reason"] == "length" {
				t.Logf("%s: cut at the token limit: %q", c.name, text)
				continue
			}
			t.Errorf("%s: not JSON: %q (%v)", c.name, text, err)
			continue
		}
		if c.name != "json_object" {
			if _, ok := obj["age"].(float64); !ok || len(obj) != 3 {
				t.Errorf("%s: %q does not match the schema", c.name, text)
			}
		}
		t.Logf("%s: %s", c.name, text)
	}
	if status, _ := post(t, hs.URL+"/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"schema":{"$ref":"#/x"}}}}`); status != 400 {
		t.Errorf("an unsupported schema: status %d", status)
	}
}

func chatContent(v map[string]any) string {
	return v["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
}
