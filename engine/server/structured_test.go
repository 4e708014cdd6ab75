package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
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

// zodSchema is a schema as zod 4's z.toJSONSchema writes it for
// z.object({id: z.number().int().min(1).max(999), kind: z.enum(["a", "b"]),
// tag: z.string().max(4).nullable(), ok: z.boolean().optional()}).
const zodSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"id":{"type":"integer","minimum":1,"maximum":999},"kind":{"type":"string","enum":["a","b"]},"tag":{"anyOf":[{"type":"string","maxLength":4},{"type":"null"}]},"ok":{"type":"boolean"}},"required":["id","kind","tag"],"additionalProperties":false}`

// checkZod reports why text is not an instance of zodSchema, or "".
func checkZod(text string) string {
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return err.Error()
	}
	id, ok := v["id"].(float64)
	if !ok || id < 1 || id > 999 || id != float64(int(id)) {
		return "id"
	}
	if k := v["kind"]; k != "a" && k != "b" {
		return "kind"
	}
	if tag, ok := v["tag"].(string); v["tag"] != nil && (!ok || len([]rune(tag)) > 4) {
		return "tag"
	}
	for k := range v {
		if k != "id" && k != "kind" && k != "tag" && k != "ok" {
			return "property " + k
		}
	}
	return ""
}

// TestGrammarAndSchemaFields drives the grammar engine through every
// field that reaches it: response_format json_schema with a zod schema,
// llama-server's json_schema and grammar, Ollama's format; and checks
// that bad grammars and schemas are 400s that name the problem.
func TestGrammarAndSchemaFields(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	msgs := `"messages":[{"role":"user","content":"hi"}]`
	completion := func(v map[string]any) string { return v["choices"].([]any)[0].(map[string]any)["text"].(string) }
	for i, c := range []struct {
		name, path, body string
		content          func(map[string]any) string
		check            func(string) string
	}{
		{"response_format zod", "/v1/chat/completions", `{"model":"tiny",` + msgs + `,"response_format":{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":` + zodSchema + `}},"max_tokens":70,"temperature":0.8,"seed":%d}`, chatContent, checkZod},
		{"json_object with a schema", "/v1/chat/completions", `{"model":"tiny",` + msgs + `,"response_format":{"type":"json_object","schema":` + zodSchema + `},"max_tokens":70,"temperature":0.8,"seed":%d}`, chatContent, checkZod},
		{"json_schema field", "/v1/chat/completions", `{"model":"tiny",` + msgs + `,"json_schema":` + zodSchema + `,"max_tokens":70,"temperature":0.8,"seed":%d}`, chatContent, checkZod},
		{"ollama format zod", "/api/chat", `{"model":"tiny",` + msgs + `,"format":` + zodSchema + `,"stream":false,"options":{"num_predict":70,"seed":%d}}`,
			func(v map[string]any) string { return v["message"].(map[string]any)["content"].(string) }, checkZod},
		{"grammar on completions", "/v1/completions", `{"model":"tiny","prompt":"hi","grammar":"root ::= (\"yes\" | \"no\") \" \" [0-9]{1,3}","max_tokens":30,"temperature":0.8,"seed":%d}`, completion,
			func(s string) string {
				if ok, _ := regexp.MatchString(`^(yes|no) [0-9]{1,3}$`, s); !ok {
					return "not of the grammar"
				}
				return ""
			}},
	} {
		for seed := range 3 {
			status, v := post(t, hs.URL+c.path, fmt.Sprintf(c.body, 10*i+seed))
			if status != 200 {
				t.Fatalf("%s: %d %v", c.name, status, v)
			}
			text := c.content(v)
			if why := c.check(text); why != "" {
				t.Errorf("%s (seed %d): %q: %s", c.name, seed, text, why)
			}
		}
	}
	for _, c := range []struct{ name, path, body, want string }{
		{"bad grammar", "/v1/completions", `{"model":"tiny","prompt":"hi","grammar":"root ::= \"a\"\nx ::= [b-"}`, "2:7: unterminated character class"},
		{"undefined rule", "/v1/chat/completions", `{"model":"tiny",` + msgs + `,"grammar":"root ::= value"}`, `1:10: undefined rule \"value\"`},
		{"grammar and json_schema", "/v1/chat/completions", `{"model":"tiny",` + msgs + `,"grammar":"root ::= \"a\"","json_schema":{}}`, "grammar and json_schema together"},
		{"grammar and response_format", "/v1/chat/completions", `{"model":"tiny",` + msgs + `,"grammar":"root ::= \"a\"","response_format":{"type":"json_object"}}`, "response_format and grammar"},
		{"bad schema", "/v1/chat/completions", `{"model":"tiny",` + msgs + `,"response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"}}}}}}`, `$ref \"#/$defs/nope\"`},
		{"json_schema not an object", "/v1/completions", `{"model":"tiny","prompt":"hi","json_schema":"x"}`, "json_schema must be a JSON Schema object"},
	} {
		resp, err := http.Post(hs.URL+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(body), c.want) || !strings.Contains(string(body), `"type":"invalid_request_error"`) {
			t.Errorf("%s: %d %s, want 400 with %q", c.name, resp.StatusCode, body, c.want)
		}
	}
	// Ollama's error shape.
	status, v := post(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":"hi","format":{"type":"nope"},"stream":false}`)
	if msg, _ := v["error"].(string); status != 400 || !strings.Contains(msg, `unknown type \"nope\"`) && !strings.Contains(msg, `unknown type "nope"`) {
		t.Errorf("ollama bad format: %d %v", status, v)
	}
}
