package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// ollamaLine is what the tests of context and logprobs read of a line.
type ollamaLine struct {
	Response *string `json:"response"`
	Message  *struct {
		Content string `json:"content"`
	} `json:"message"`
	Done     bool          `json:"done"`
	Context  []int32       `json:"context"`
	LogProbs []chatLogProb `json:"logprobs"`
	Eval     int           `json:"eval_count"`
	Prompt   int           `json:"prompt_eval_count"`
	Error    string        `json:"error"`
}

// ollamaLines posts body and returns the answer's lines, the last done.
func ollamaLines(t *testing.T, url, body string) []ollamaLine {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []ollamaLine
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l ollamaLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: line %q: %v", body, sc.Text(), err)
		}
		lines = append(lines, l)
	}
	if resp.StatusCode != 200 || len(lines) == 0 || lines[len(lines)-1].Error != "" || !lines[len(lines)-1].Done {
		t.Fatalf("%s: status %d, %+v", body, resp.StatusCode, lines)
	}
	return lines
}

// text joins the lines' text.
func text(lines []ollamaLine) string {
	var sb strings.Builder
	for _, l := range lines {
		if l.Response != nil {
			sb.WriteString(*l.Response)
		}
		if l.Message != nil {
			sb.WriteString(l.Message.Content)
		}
	}
	return sb.String()
}

// TestOllamaGenerateContext checks /api/generate's context: the last line
// holds the tokens of the prompt and the reply (not for raw prompts, as
// Ollama), and a request that sends it back continues after them.
func TestOllamaGenerateContext(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	tk := s.Runner().Models()[0].Tokenizer()
	for _, stream := range []bool{false, true} {
		lines := ollamaLines(t, hs.URL+"/api/generate", fmt.Sprintf(`{"model":"tiny","prompt":"the cat","stream":%v,
			"options":{"temperature":0,"num_predict":4}}`, stream))
		last := lines[len(lines)-1]
		if len(last.Context) != last.Prompt+last.Eval || last.Eval == 0 {
			t.Fatalf("stream %v: context of %d tokens for %d prompt and %d reply tokens", stream, len(last.Context), last.Prompt, last.Eval)
		}
		for _, l := range lines[:len(lines)-1] {
			if l.Context != nil {
				t.Errorf("stream %v: context on a line before the last", stream)
			}
		}
		reply, _ := tk.Detokenize(last.Context[last.Prompt:], false, false)
		b, _ := json.Marshal(reply) // as JSON has it: a U+FFFD for each byte not UTF-8
		json.Unmarshal(b, &reply)
		if reply != text(lines) {
			t.Errorf("stream %v: the context's reply is %q, the text %q", stream, reply, text(lines))
		}
		// The next turn follows the context: its prompt is the context and
		// the new turn's tokens, one BOS in all.
		body, _ := json.Marshal(map[string]any{"model": "tiny", "prompt": "the mat", "stream": stream, "context": last.Context,
			"options": map[string]any{"temperature": 0, "num_predict": 2}})
		next := ollamaLines(t, hs.URL+"/api/generate", string(body))
		nl := next[len(next)-1]
		alone := ollamaLines(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":"the mat","stream":false,"options":{"num_predict":1}}`)
		if nl.Prompt != len(last.Context)+alone[0].Prompt-1 || len(nl.Context) != nl.Prompt+nl.Eval ||
			!slicesEqual(nl.Context[:len(last.Context)], last.Context) {
			t.Errorf("stream %v: continued prompt of %d tokens (context %d, turn alone %d), context %d", stream, nl.Prompt,
				len(last.Context), alone[0].Prompt, len(nl.Context))
		}
	}
	// A raw prompt returns no context, and continues the text of one.
	raw := ollamaLines(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":"the cat","raw":true,"stream":false,"options":{"num_predict":2}}`)
	if raw[0].Context != nil {
		t.Errorf("raw: context %v", raw[0].Context)
	}
	ids, _ := json.Marshal(tk.Encode("the cat", true, true))
	cont := ollamaLines(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":" sat","raw":true,"stream":false,"context":`+string(ids)+`,"options":{"num_predict":2}}`)
	if want := len(tk.Encode("the cat", true, true)) + len(tk.Encode(" sat", false, true)); cont[0].Prompt != want {
		t.Errorf("raw continued: %d prompt tokens, want %d", cont[0].Prompt, want)
	}
}

// slicesEqual reports whether a and b hold the same tokens.
func slicesEqual(a, b []int32) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// TestOllamaLogProbs checks logprobs and top_logprobs on /api/chat and
// /api/generate, in Ollama's shape: each line carries its tokens', the
// whole answer all of them.
func TestOllamaLogProbs(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	for _, c := range []struct{ path, body string }{
		{"/api/generate", `"prompt":"the cat"`},
		{"/api/chat", `"messages":[{"role":"user","content":"the cat"}]`},
	} {
		for _, stream := range []bool{false, true} {
			lines := ollamaLines(t, hs.URL+c.path, fmt.Sprintf(`{"model":"tiny",%s,"stream":%v,"logprobs":true,"top_logprobs":2,
				"options":{"temperature":0,"num_predict":5}}`, c.body, stream))
			var lps []chatLogProb
			for _, l := range lines {
				lps = append(lps, l.LogProbs...)
			}
			var joined strings.Builder
			for _, lp := range lps {
				joined.WriteString(lp.Token)
				if lp.LogProb > 0 || len(lp.TopLogProbs) != 2 {
					t.Errorf("%s stream %v: logprob %+v", c.path, stream, lp)
				}
			}
			if last := lines[len(lines)-1]; len(lps) != last.Eval || joined.String() != text(lines) {
				t.Errorf("%s stream %v: %d logprobs (%q) for %d tokens (%q)", c.path, stream, len(lps), joined.String(), last.Eval, text(lines))
			}
		}
		// Without logprobs, none.
		lines := ollamaLines(t, hs.URL+c.path, `{"model":"tiny",`+c.body+`,"stream":false,"options":{"num_predict":2}}`)
		if lines[0].LogProbs != nil {
			t.Errorf("%s: logprobs not asked for: %+v", c.path, lines[0].LogProbs)
		}
	}
}
