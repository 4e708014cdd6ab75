package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// sseChoices reads a completion stream's text and finish reason by choice
// index, and its usage event.
func sseChoices(t *testing.T, url, body string) (map[int]string, map[int]any, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs := events(t, resp.Body)
	if resp.StatusCode != 200 || len(evs) == 0 || evs[len(evs)-1] != "[DONE]" {
		t.Fatalf("%s: status %d, events %v", body, resp.StatusCode, evs)
	}
	text, finish := map[int]string{}, map[int]any{}
	var u map[string]any
	for _, e := range evs[:len(evs)-1] {
		var c struct {
			Choices []struct {
				Index        int            `json:"index"`
				Text         string         `json:"text"`
				Delta        map[string]any `json:"delta"`
				FinishReason any            `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("event %q: %v", e, err)
		}
		if c.Usage != nil {
			u = c.Usage
		}
		for _, ch := range c.Choices {
			text[ch.Index] += ch.Text
			if s, ok := ch.Delta["content"].(string); ok {
				text[ch.Index] += s
			}
			if ch.FinishReason != nil {
				finish[ch.Index] = ch.FinishReason
			}
		}
	}
	return text, finish, u
}

// TestContextOverflow checks that a max_tokens beyond the context is cut
// at its end (finish_reason "length"), as llama-server and Ollama do, and
// that only a prompt that does not fit is an error, saying by how much and
// how to raise the context.
func TestContextOverflow(t *testing.T) {
	_, hs := newTestServer(t, Config{}) // a context of 128
	chat := `{"model":"tiny","messages":[{"role":"user","content":"the cat"}],"max_tokens":4096,"temperature":0,"ignore_eos":true`
	text := `{"model":"tiny","prompt":"the cat","max_tokens":4096,"temperature":0,"ignore_eos":true`
	for _, c := range []struct{ name, path, body string }{
		{"chat", "/v1/chat/completions", chat + `}`},
		{"completion", "/v1/completions", text + `}`},
		{"max_completion_tokens", "/v1/chat/completions", strings.Replace(chat, "max_tokens", "max_completion_tokens", 1) + `}`},
	} {
		status, v := post(t, hs.URL+c.path, c.body)
		if status != 200 {
			t.Errorf("%s: status %d, %v", c.name, status, v)
			continue
		}
		u := v["usage"].(map[string]any)
		choice := v["choices"].([]any)[0].(map[string]any)
		if choice["finish_reason"] != "length" || u["prompt_tokens"].(float64)+u["completion_tokens"].(float64) != 128 {
			t.Errorf("%s: finish %v, usage %v; want length at the end of the context", c.name, choice["finish_reason"], u)
		}
		_, finish, u := sseChoices(t, hs.URL+c.path, strings.TrimSuffix(c.body, "}")+`,"stream":true,"stream_options":{"include_usage":true}}`)
		if finish[0] != "length" || u["prompt_tokens"].(float64)+u["completion_tokens"].(float64) != 128 {
			t.Errorf("%s streamed: finish %v, usage %v", c.name, finish, u)
		}
	}
	long := strings.Repeat("the cat sat on the mat ", 40)
	for _, c := range []struct{ name, path, body string }{
		{"chat", "/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"` + long + `"}]}`},
		{"completion", "/v1/completions", `{"model":"tiny","prompt":"` + long + `","stream":true}`},
		{"ollama chat", "/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"` + long + `"}]}`},
		{"ollama generate", "/api/generate", `{"model":"tiny","prompt":"` + long + `","stream":false}`},
	} {
		status, v := post(t, hs.URL+c.path, c.body)
		msg, _ := v["error"].(string)
		if e, ok := v["error"].(map[string]any); ok {
			msg, _ = e["message"].(string)
			if e["code"] != "context_length_exceeded" {
				t.Errorf("%s: code %v", c.name, e["code"])
			}
		}
		if status != 400 || !strings.Contains(msg, " over the context of 128") || !strings.Contains(msg, "saji serve --ctx") {
			t.Errorf("%s: status %d, %q; want a 400 saying by how much and how to raise the context", c.name, status, msg)
		}
	}
}

// TestCompletionPrompts checks the prompts /v1/completions takes: a list
// of strings (a choice each), token ids, lists of token ids; and their
// errors.
func TestCompletionPrompts(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	tk := s.Runner().Models()[0].Tokenizer()
	ids, _ := json.Marshal(tk.Encode("the cat", true, true))
	one := func(prompt string) (string, float64) {
		t.Helper()
		status, v := post(t, hs.URL+"/v1/completions", `{"model":"tiny","prompt":`+prompt+`,"max_tokens":3,"temperature":0,"ignore_eos":true}`)
		if status != 200 {
			t.Fatalf("prompt %s: status %d, %v", prompt, status, v)
		}
		c := v["choices"].([]any)
		return c[0].(map[string]any)["text"].(string), v["usage"].(map[string]any)["prompt_tokens"].(float64)
	}
	want, n := one(`"the cat"`)
	if got, m := one(string(ids)); got != want || m != n {
		t.Errorf("token ids %s: %q (%v tokens), text prompt %q (%v)", ids, got, m, want, n)
	}
	if got, _ := one(`["the cat"]`); got != want {
		t.Errorf("a list of one: %q, want %q", got, want)
	}
	body := `{"model":"tiny","prompt":["the cat","the mat","a"],"max_tokens":3,"temperature":0,"ignore_eos":true,"echo":true}`
	status, v := post(t, hs.URL+"/v1/completions", body)
	if status != 200 {
		t.Fatalf("three prompts: %d %v", status, v)
	}
	choices := v["choices"].([]any)
	if len(choices) != 3 || v["usage"].(map[string]any)["completion_tokens"] != float64(9) {
		t.Fatalf("three prompts: %v", v)
	}
	for i, p := range []string{"the cat", "the mat", "a"} {
		c := choices[i].(map[string]any)
		if c["index"] != float64(i) || !strings.HasPrefix(c["text"].(string), p) || c["finish_reason"] != "length" {
			t.Errorf("choice %d: %v", i, c)
		}
	}
	if choices[0].(map[string]any)["text"] != "the cat"+want {
		t.Errorf("echo: %q, want %q", choices[0].(map[string]any)["text"], "the cat"+want)
	}
	text, finish, u := sseChoices(t, hs.URL+"/v1/completions", strings.Replace(body, `"echo":true`, `"echo":true,"stream":true,"stream_options":{"include_usage":true}`, 1))
	for i := range 3 {
		if text[i] != choices[i].(map[string]any)["text"] || finish[i] != "length" {
			t.Errorf("streamed choice %d: %q (%v), not streamed %q", i, text[i], finish[i], choices[i].(map[string]any)["text"])
		}
	}
	if u["completion_tokens"] != float64(9) {
		t.Errorf("streamed usage %v", u)
	}
	status, v = post(t, hs.URL+"/v1/completions", `{"model":"tiny","prompt":[`+string(ids)+`,`+string(ids)+`],"max_tokens":2,"echo":true}`)
	if status != 200 || len(v["choices"].([]any)) != 2 || !strings.HasPrefix(strings.TrimSpace(v["choices"].([]any)[1].(map[string]any)["text"].(string)), "the cat") {
		t.Errorf("lists of token ids: %d %v", status, v)
	}
	for _, c := range []struct{ name, body string }{
		{"empty list", `{"model":"tiny","prompt":[]}`},
		{"empty token list", `{"model":"tiny","prompt":[[]]}`},
		{"no prompt", `{"model":"tiny"}`},
		{"an object", `{"model":"tiny","prompt":{"a":1}}`},
		{"mixed list", `{"model":"tiny","prompt":["a",1]}`},
		{"token outside the vocabulary", `{"model":"tiny","prompt":[1,99999]}`},
		{"negative token", `{"model":"tiny","prompt":[1,-2]}`},
		{"token ids with a suffix", `{"model":"tiny","prompt":[1,5],"suffix":"x"}`},
		{"too many prompts", `{"model":"tiny","prompt":[` + strings.TrimSuffix(strings.Repeat(`"a",`, maxPrompts+1), ",") + `]}`},
		{"a bad prompt among good ones", `{"model":"tiny","prompt":["a","` + strings.Repeat("the cat sat on the mat ", 40) + `"]}`},
	} {
		status, v := post(t, hs.URL+"/v1/completions", c.body)
		if e, ok := v["error"].(map[string]any); status != 400 || !ok || e["message"] == "" {
			t.Errorf("%s: status %d, %v; want a 400 OpenAI error", c.name, status, v)
		}
	}
}

// TestStopField checks "stop": null and "" stop nothing, as llama-server
// takes them; a string and a list stop.
func TestStopField(t *testing.T) {
	for _, c := range []struct {
		json string
		want []string
	}{
		{`null`, nil},
		{`""`, []string{}},
		{`"x"`, []string{"x"}},
		{`["x","","y"]`, []string{"x", "y"}},
		{`[]`, []string{}},
	} {
		var f stopField
		if err := json.Unmarshal([]byte(c.json), &f); err != nil || strings.Join(f, "|") != strings.Join(c.want, "|") || len(f) != len(c.want) {
			t.Errorf("stop %s: %q, %v; want %q", c.json, f, err, c.want)
		}
	}
	for _, bad := range []string{`5`, `[1]`, `{"a":"b"}`} {
		var f stopField
		if err := json.Unmarshal([]byte(bad), &f); err == nil {
			t.Errorf("stop %s: accepted", bad)
		}
	}
	_, hs := newTestServer(t, Config{})
	for _, stop := range []string{`null`, `""`, `[""]`} {
		status, v := post(t, hs.URL+"/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"max_tokens":2,"stop":`+stop+`}`)
		if status != 200 {
			t.Errorf("stop %s: %d %v", stop, status, v)
		}
	}
}

// TestCompletionLogProbsText checks that a legacy completion's logprobs
// carry the tokens' text (" the", not SentencePiece's "▁the"), and that
// they add up to the choice's text.
func TestCompletionLogProbsText(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	status, v := post(t, hs.URL+"/v1/completions", `{"model":"tiny","prompt":"the cat","max_tokens":8,"temperature":0,"logprobs":3,"ignore_eos":true}`)
	if status != 200 {
		t.Fatalf("status %d: %v", status, v)
	}
	c := v["choices"].([]any)[0].(map[string]any)
	lp := c["logprobs"].(map[string]any)
	var joined strings.Builder
	for i, tok := range lp["tokens"].([]any) {
		joined.WriteString(tok.(string))
		for alt := range lp["top_logprobs"].([]any)[i].(map[string]any) {
			if strings.Contains(alt, "▁") {
				t.Errorf("top_logprobs[%d] has %q", i, alt)
			}
		}
	}
	if strings.Contains(joined.String(), "▁") || joined.String() != c["text"] {
		t.Errorf("tokens %q, text %q", lp["tokens"], c["text"])
	}
}

// FuzzPrompts feeds parsePrompts and stopField arbitrary JSON: no panic,
// and an accepted prompt list holds 1 to maxPrompts prompts, none of them
// an empty token list, an accepted stop list no empty string.
func FuzzPrompts(f *testing.F) {
	for _, s := range []string{`"a"`, `["a","b"]`, `[1,2,3]`, `[[1],[2,3]]`, `[]`, `[[]]`, `null`, `""`, `["a",1]`, `{"a":1}`, `[-1]`, `[4294967296]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if ps, err := parsePrompts(b); err == nil {
			if len(ps) == 0 || len(ps) > maxPrompts {
				t.Errorf("%s: %d prompts", b, len(ps))
			}
			for _, p := range ps {
				if p.tokens != nil && len(p.tokens) == 0 {
					t.Errorf("%s: an empty token list", b)
				}
			}
		}
		var stop stopField
		if json.Unmarshal(b, &stop) == nil {
			for _, s := range stop {
				if s == "" {
					t.Errorf("%s: an empty stop string", b)
				}
			}
		}
	})
}
