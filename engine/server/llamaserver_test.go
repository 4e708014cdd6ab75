package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"saji/engine/gguf"
	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/internal/refdata"
)

// serveTest serves s over HTTP until the test ends, then closes it and its
// runner.
func serveTest(t *testing.T, s *Server) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		s.Close()
		s.Runner().Close()
	})
	return hs
}

// postRaw sends body to url and returns the status and the body.
func postRaw(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// wantError checks that a body is llama-server's error of type typ whose
// message has msg.
func wantError(msg, typ string) func(t *testing.T, body string) {
	return func(t *testing.T, body string) {
		t.Helper()
		var v struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
				Type    string `json:"type"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil || v.Error.Code < 400 || v.Error.Type != typ ||
			!strings.Contains(v.Error.Message, strings.ReplaceAll(msg, `\"`, `"`)) {
			t.Errorf("error %s, want type %s and a message with %q", body, typ, msg)
		}
	}
}

// writeCoder writes the tiny model with StarCoder's vocabulary from the
// reference data (which has fill-in-the-middle tokens) at path.
func writeCoder(t *testing.T, path string) {
	t.Helper()
	vocab, err := gguf.Open(filepath.Join(refdata.Dir(t), "vocab", "ggml-vocab-starcoder.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer vocab.Close()
	shape, _ := synth.LookupShape("tiny")
	ft, _ := synth.ParseFileType("q8_0")
	if err := synth.Write(context.Background(), path, synth.Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: 5, Threads: 2}); err != nil {
		t.Fatal(err)
	}
}

// lsAnswer is the part of a /completion answer the tests read.
type lsAnswer struct {
	Content         string  `json:"content"`
	Tokens          []int32 `json:"tokens"`
	Stop            bool    `json:"stop"`
	StopType        string  `json:"stop_type"`
	StoppingWord    string  `json:"stopping_word"`
	TokensPredicted int     `json:"tokens_predicted"`
	TokensEvaluated int     `json:"tokens_evaluated"`
	Prompt          string  `json:"prompt"`
	Settings        struct {
		NPredict    int      `json:"n_predict"`
		Temperature float64  `json:"temperature"`
		Stop        []string `json:"stop"`
		NProbs      int      `json:"n_probs"`
		Schema      any      `json:"json_schema"`
		LogitBias   []struct {
			Token int32    `json:"token"`
			Bias  *float64 `json:"bias"`
		} `json:"logit_bias"`
	} `json:"generation_settings"`
	Timings struct {
		PromptN    int     `json:"prompt_n"`
		PredictedN int     `json:"predicted_n"`
		PredictedS float64 `json:"predicted_per_second"`
	} `json:"timings"`
	Probs []struct {
		ID      int32   `json:"id"`
		Token   string  `json:"token"`
		LogProb float64 `json:"logprob"`
		Top     []struct {
			ID int32 `json:"id"`
		} `json:"top_logprobs"`
	} `json:"completion_probabilities"`
}

// complete posts a /completion request that must succeed.
func complete(t *testing.T, url, body string) lsAnswer {
	t.Helper()
	status, b := postRaw(t, url+"/completion", body)
	if status != 200 {
		t.Fatalf("%s: status %d: %s", body, status, b)
	}
	var a lsAnswer
	if err := json.Unmarshal([]byte(b), &a); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return a
}

func TestLSCompletion(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	m, _ := s.Runner().Model("tiny")
	tk := m.Tokenizer()
	greedy := complete(t, hs.URL, `{"prompt":"the cat","n_predict":8,"temperature":0,"ignore_eos":true,"return_tokens":true}`)
	if len(greedy.Tokens) != 8 || greedy.Content == "" {
		t.Fatalf("greedy answer %+v", greedy)
	}
	first := greedy.Tokens[0]
	// A stop word: the first printable token after the first of a sampled
	// text (the same again with the same seed).
	seeded := complete(t, hs.URL, `{"prompt":"the cat","n_predict":10,"temperature":1,"seed":3,"ignore_eos":true,"return_tokens":true}`)
	word := ""
	for _, id := range seeded.Tokens[1:] {
		if p := strings.TrimSpace(tk.TokenToPiece(id, false)); p != "" && strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
			word = p
			break
		}
	}
	if word == "" {
		t.Fatalf("no word in %q", seeded.Content)
	}
	prefix := seeded.Content[:strings.Index(seeded.Content, word)]
	promptLen := len(tk.Encode("the cat", true, true))
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, a lsAnswer)
	}{
		{"plain", `{"model":"tiny","prompt":"the cat","n_predict":4,"temperature":0,"ignore_eos":true}`, func(t *testing.T, a lsAnswer) {
			if !a.Stop || a.StopType != "limit" || a.TokensPredicted != 4 || a.TokensEvaluated != promptLen || len(a.Tokens) != 0 ||
				a.Prompt != "<s> the cat" || a.Settings.NPredict != 4 || a.Timings.PredictedN != 4 || a.Timings.PromptN+a.TokensEvaluated == 0 ||
				a.Probs != nil || !strings.HasPrefix(greedy.Content, a.Content) {
				t.Errorf("answer %+v", a)
			}
		}},
		{"n_probs", `{"prompt":"the cat","n_predict":3,"temperature":0,"ignore_eos":true,"n_probs":2}`, func(t *testing.T, a lsAnswer) {
			if len(a.Probs) != 3 || len(a.Probs[0].Top) != 2 || a.Probs[0].ID != first || a.Probs[0].LogProb > 0 || a.Settings.NProbs != 2 {
				t.Errorf("probabilities %+v", a.Probs)
			}
		}},
		{"token ids", fmt.Sprintf(`{"prompt":%s,"n_predict":2,"temperature":0,"ignore_eos":true,"cache_prompt":true}`, jsonOf(tk.Encode("the cat", true, true))),
			func(t *testing.T, a lsAnswer) {
				if a.TokensEvaluated != promptLen || a.Prompt != "<s> the cat" || !strings.HasPrefix(greedy.Content, a.Content) {
					t.Errorf("answer %+v", a)
				}
			}},
		{"mixed", `{"prompt":["the",` + fmt.Sprint(tk.Encode(" cat", false, false)[0]) + `],"n_predict":1,"temperature":0}`, func(t *testing.T, a lsAnswer) {
			if a.TokensEvaluated != len(tk.Encode("the", true, true))+1 || !strings.HasPrefix(a.Prompt, "<s> the") {
				t.Errorf("answer %+v", a)
			}
		}},
		{"a list of one prompt", `{"prompt":["the cat"],"n_predict":1,"temperature":0}`, func(t *testing.T, a lsAnswer) {
			if a.TokensEvaluated != promptLen {
				t.Errorf("answer %+v", a)
			}
		}},
		{"stop word", `{"prompt":"the cat","n_predict":10,"temperature":1,"seed":3,"ignore_eos":true,"stop":[` + jsonOf(word) + `]}`, func(t *testing.T, a lsAnswer) {
			if a.StopType != "word" || a.StoppingWord != word || a.Content != prefix || len(a.Settings.Stop) != 1 {
				t.Errorf("answer %+v; want %q before %q", a, prefix, word)
			}
		}},
		{"cut at the context", `{"prompt":"the cat","n_predict":1000,"temperature":0,"ignore_eos":true}`, func(t *testing.T, a lsAnswer) {
			if a.StopType != "limit" || a.TokensPredicted != 128-promptLen {
				t.Errorf("answer stop_type %s, %d tokens; want limit, %d", a.StopType, a.TokensPredicted, 128-promptLen)
			}
		}},
		{"n_predict 0", `{"prompt":"the cat","n_predict":0,"temperature":0,"ignore_eos":true}`, func(t *testing.T, a lsAnswer) {
			if a.TokensPredicted != 1 {
				t.Errorf("n_predict 0 generated %d tokens, want 1 as llama-server", a.TokensPredicted)
			}
		}},
		{"a banned token", `{"prompt":"the cat","n_predict":1,"temperature":0,"ignore_eos":true,"return_tokens":true,"logit_bias":[[` + fmt.Sprint(first) + `,false]]}`,
			func(t *testing.T, a lsAnswer) {
				if len(a.Tokens) != 1 || a.Tokens[0] == first || len(a.Settings.LogitBias) != 1 || a.Settings.LogitBias[0].Bias != nil {
					t.Errorf("banning %d: %+v", first, a)
				}
			}},
		{"a bias object", `{"prompt":"the cat","n_predict":1,"temperature":0,"ignore_eos":true,"return_tokens":true,"logit_bias":{"` + fmt.Sprint(first) + `":-1000}}`,
			func(t *testing.T, a lsAnswer) {
				if len(a.Tokens) != 1 || a.Tokens[0] == first {
					t.Errorf("biasing %d: %+v", first, a)
				}
			}},
		{"negative temperature", `{"prompt":"the cat","n_predict":2,"temperature":-1,"ignore_eos":true}`, func(t *testing.T, a lsAnswer) {
			if !strings.HasPrefix(greedy.Content, a.Content) || a.Settings.Temperature != -1 {
				t.Errorf("answer %+v", a)
			}
		}},
		{"json_schema of any value", `{"prompt":"the cat","n_predict":3,"temperature":1,"seed":3,"json_schema":{}}`, func(t *testing.T, a lsAnswer) {
			if jsonOf(a.Settings.Schema) != `{}` {
				t.Errorf("schema %v", a.Settings.Schema)
			}
		}},
		{"json_schema", `{"prompt":"the cat","n_predict":6,"temperature":1,"seed":3,"json_schema":{"type":"object"}}`, func(t *testing.T, a lsAnswer) {
			if c := strings.TrimSpace(a.Content); c != "" && !strings.HasPrefix(c, "{") || jsonOf(a.Settings.Schema) != `{"type":"object"}` {
				t.Errorf("constrained content %q, schema %v", a.Content, a.Settings.Schema)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, complete(t, hs.URL, tt.body)) })
	}
}

// jsonOf returns v as JSON text.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestLSErrors(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	long := strings.Repeat("the cat ", 100)
	tests := []struct {
		name, method, path, body string
		status                   int
		msg, typ                 string
	}{
		{"no prompt", "POST", "/completion", `{"n_predict":1}`, 400, `"prompt" is required`, "invalid_request_error"},
		{"a number prompt", "POST", "/completion", `{"prompt":5}`, 400, "must be a string", "invalid_request_error"},
		{"empty prompt", "POST", "/completions", `{"prompt":[]}`, 400, "empty", "invalid_request_error"},
		{"a bad prompt among two", "POST", "/completion", `{"prompt":["a",{}]}`, 400, "must be a string", "invalid_request_error"},
		{"a token outside the vocabulary among two", "POST", "/completion", `{"prompt":["a",[1,99999]]}`, 400, "outside the vocabulary", "invalid_request_error"},
		{"a token outside the vocabulary", "POST", "/completion", `{"prompt":[1,99999]}`, 400, "outside the vocabulary", "invalid_request_error"},
		{"too long", "POST", "/completion", `{"prompt":"` + long + `"}`, 400, "exceeds the available context size (128 tokens)", "exceed_context_size_error"},
		{"bad JSON", "POST", "/completion", `{"prompt":`, 400, "invalid JSON", "invalid_request_error"},
		{"a string n_predict", "POST", "/completion", `{"prompt":"a","n_predict":"x"}`, 400, "invalid JSON", "invalid_request_error"},
		{"grammar", "POST", "/completion", `{"prompt":"a","grammar":"root ::= \"a\""}`, 400, "grammar", "invalid_request_error"},
		{"n_probs", "POST", "/completion", `{"prompt":"a","n_probs":50}`, 400, "n_probs", "invalid_request_error"},
		{"logit_bias", "POST", "/completion", `{"prompt":"a","logit_bias":[[1]]}`, 400, "logit_bias", "invalid_request_error"},
		{"logit_bias outside the vocabulary", "POST", "/completion", `{"prompt":"a","logit_bias":[[99999,1]]}`, 400, "outside the vocabulary", "invalid_request_error"},
		{"repeat_last_n", "POST", "/completion", `{"prompt":"a","repeat_last_n":-5}`, 400, "repeat_last_n", "invalid_request_error"},
		{"unknown model", "POST", "/completion", `{"model":"nope","prompt":"a"}`, 404, "nope", "not_found_error"},
		{"infill without FIM tokens", "POST", "/infill", `{"input_prefix":"a","input_suffix":"b"}`, 501, "no fill-in-the-middle tokens", "not_supported_error"},
		{"tokenize a number", "POST", "/tokenize", `{"content":5}`, 400, "content", "invalid_request_error"},
		{"detokenize outside the vocabulary", "POST", "/detokenize", `{"tokens":[1,99999]}`, 400, "outside the vocabulary", "invalid_request_error"},
		{"apply-template without messages", "POST", "/apply-template", `{}`, 400, `"messages" is required`, "invalid_request_error"},
		{"apply-template with bad tools", "POST", "/apply-template", `{"messages":[{"role":"user","content":"hi"}],"tools":5}`, 400, "tools", "invalid_request_error"},
		{"POST /props", "POST", "/props", `{}`, 501, "changing global properties", "not_supported_error"},
		{"props of an unknown model", "GET", "/props?model=nope", ``, 404, "nope", "not_found_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, hs.URL+tt.path, strings.NewReader(tt.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, b)
			}
			wantError(tt.msg, tt.typ)(t, string(b))
		})
	}
	// The error of a prompt that does not fit says by how much.
	_, b := postRaw(t, hs.URL+"/completion", `{"prompt":"`+long+`"}`)
	var v struct {
		Error struct {
			NPrompt int `json:"n_prompt_tokens"`
			NCtx    int `json:"n_ctx"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(b), &v); v.Error.NPrompt <= 128 || v.Error.NCtx != 128 {
		t.Errorf("too long: %s", b)
	}
}

func TestLSCompletionStream(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	resp, err := http.Post(hs.URL+"/completion", "application/json",
		strings.NewReader(`{"prompt":"the cat","n_predict":5,"temperature":0,"ignore_eos":true,"stream":true,"n_probs":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	lines := events(t, resp.Body)
	if len(lines) < 2 {
		t.Fatalf("events %v", lines)
	}
	var text strings.Builder
	tokens := 0
	for i, l := range lines {
		var a lsAnswer
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("event %d %q: %v", i, l, err)
		}
		last := i == len(lines)-1
		switch {
		case a.Stop != last:
			t.Errorf("event %d: stop %v", i, a.Stop)
		case !last:
			text.WriteString(a.Content)
			tokens += len(a.Tokens)
			if a.TokensPredicted != tokens || len(a.Probs) != len(a.Tokens) {
				t.Errorf("event %d: %s", i, l)
			}
		case a.TokensPredicted != 5 || a.StopType != "limit" || a.Content != "" || a.Timings.PredictedN != 5:
			t.Errorf("last event %s", l)
		}
	}
	want := complete(t, hs.URL, `{"prompt":"the cat","n_predict":5,"temperature":0,"ignore_eos":true}`)
	if tokens != 5 || text.String() != want.Content {
		t.Errorf("streamed %q in %d tokens, want %q in 5", text.String(), tokens, want.Content)
	}
}

func TestLSTokenize(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	m, _ := s.Runner().Model("")
	tk := m.Tokenizer()
	cat := tk.Encode("the cat", false, false)
	// pieces are toks with their pieces, the bytes of those that are not
	// whole UTF-8.
	pieces := func(toks []int32) []map[string]any {
		var out []map[string]any
		for _, id := range toks {
			var p any = tk.TokenToPiece(id, true)
			if !utf8.ValidString(p.(string)) {
				p = tokenBytes(p.(string))
			}
			out = append(out, map[string]any{"id": id, "piece": p})
		}
		return out
	}
	if p := pieces(tk.Encode("é", false, false)); len(p) < 2 || jsonOf(p[len(p)-1]["piece"])[0] != '[' {
		t.Fatalf("é has no piece of a character: %v", p)
	}
	tests := []struct {
		name, path, body, want string
	}{
		{"plain", "/tokenize", `{"content":"the cat"}`, `{"tokens":` + jsonOf(cat) + `}`},
		{"add_special", "/tokenize", `{"content":"the cat","add_special":true}`, `{"tokens":` + jsonOf(append([]int32{1}, cat...)) + `}`},
		{"special text", "/tokenize", `{"content":"</s>"}`, `{"tokens":[2]}`},
		{"special text not parsed", "/tokenize", `{"content":"</s>","parse_special":false}`, `{"tokens":` + jsonOf(tk.Encode("</s>", false, false)) + `}`},
		{"mixed", "/tokenize", `{"content":[1,"the cat",2],"add_special":true}`, `{"tokens":` + jsonOf(append(append([]int32{1}, cat...), 2)) + `}`},
		{"pieces", "/tokenize", `{"content":"the cat","with_pieces":true}`, `{"tokens":` + jsonOf(pieces(cat)) + `}`},
		{"a piece of a character", "/tokenize", `{"content":"é","with_pieces":true}`, `{"tokens":` + jsonOf(pieces(tk.Encode("é", false, false))) + `}`},
		{"no content", "/tokenize", `{}`, `{"tokens":[]}`},
		{"detokenize", "/detokenize", `{"tokens":` + jsonOf(append([]int32{1}, cat...)) + `}`, `{"content":"<s> the cat"}`},
		{"detokenize nothing", "/detokenize", `{}`, `{"content":""}`},
		{"apply-template", "/apply-template", `{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}`,
			`{"prompt":"<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, b := postRaw(t, hs.URL+tt.path, tt.body)
			var got, want any
			json.Unmarshal([]byte(b), &got)
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if status != 200 || !reflect.DeepEqual(got, want) {
				t.Errorf("%d %s, want %s", status, b, tt.want)
			}
		})
	}
}

func TestLSPropsAndSlots(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	resp, err := http.Get(hs.URL + "/props")
	if err != nil {
		t.Fatal(err)
	}
	var props struct {
		Defaults struct {
			Params struct {
				Temperature float64 `json:"temperature"`
				NPredict    int     `json:"n_predict"`
			} `json:"params"`
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		Slots      int    `json:"total_slots"`
		Alias      string `json:"model_alias"`
		Path       string `json:"model_path"`
		Template   string `json:"chat_template"`
		BOS        string `json:"bos_token"`
		EOS        string `json:"eos_token"`
		Build      string `json:"build_info"`
		Modalities struct {
			Vision bool `json:"vision"`
		} `json:"modalities"`
	}
	json.NewDecoder(resp.Body).Decode(&props)
	resp.Body.Close()
	if props.Defaults.NCtx != 128 || props.Defaults.Params.NPredict != -1 || math.Abs(props.Defaults.Params.Temperature-0.8) > 1e-6 ||
		props.Slots != 4 || props.Alias != "tiny" || !strings.HasSuffix(props.Path, ".gguf") || !strings.Contains(props.Template, "<|im_start|>") ||
		props.BOS != "<s>" || props.EOS != "</s>" || props.Build != lsBuild || props.Modalities.Vision {
		t.Errorf("props %+v", props)
	}
	resp, err = http.Get(hs.URL + "/slots?model=tiny")
	if err != nil {
		t.Fatal(err)
	}
	var slots []struct {
		ID   int  `json:"id"`
		NCtx int  `json:"n_ctx"`
		Busy bool `json:"is_processing"`
	}
	json.NewDecoder(resp.Body).Decode(&slots)
	resp.Body.Close()
	if len(slots) != 4 || slots[3].ID != 3 || slots[0].NCtx != 128 || slots[0].Busy {
		t.Errorf("slots %+v", slots)
	}
}

// TestLSInfill fills in the middle with the StarCoder-vocabulary model:
// the prompt is llama-server's for the same request on the same file
// (llama.cpp 3f545bec, its slot context capped to the model's 2048, which
// leaves room for the last two tokens of the extra chunks).
func TestLSInfill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "coder.gguf")
	writeCoder(t, path)
	m, err := runner.Load(context.Background(), path, runner.LoadOptions{Name: "coder", Threads: 2, Scheduler: scheduler.Config{Context: 2048, MaxSeqs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{})
	s.Runner().Add(m)
	hs := serveTest(t, s)
	body := `{"input_prefix":"def f(x):\n    return ","input_suffix":"\n\nprint(f(2))","prompt":"x",
		"input_extra":[{"filename":"a.py","text":"import os\n"},{"text":"y = 1\n"}],"n_predict":3,"temperature":0}`
	status, b := postRaw(t, hs.URL+"/infill", body)
	var a lsAnswer
	if err := json.Unmarshal([]byte(b), &a); err != nil || status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	if want := "1\n<fim_prefix>def f(x):\n    return x<fim_suffix>\n\nprint(f(2))<fim_middle>"; a.Prompt != want || a.TokensEvaluated != 22 || a.TokensPredicted != 3 {
		t.Errorf("infill prompt %q (%d tokens, %d predicted), want %q (22 tokens)", a.Prompt, a.TokensEvaluated, a.TokensPredicted, want)
	}
	for _, tt := range []struct{ body, msg string }{
		{`{"input_suffix":"b"}`, `"input_prefix" is required`},
		{`{"input_prefix":"a"}`, `"input_suffix" is required`},
		{`{"input_prefix":"a","input_suffix":"b","prompt":5}`, `"prompt" must be a string`},
		{`{"input_prefix":"a","input_suffix":"b","input_extra":[{"filename":"x"}]}`, `"text" string`},
	} {
		status, b := postRaw(t, hs.URL+"/infill", tt.body)
		if status != 400 {
			t.Errorf("%s: status %d", tt.body, status)
		}
		wantError(tt.msg, "invalid_request_error")(t, b)
	}
}

// FuzzLSInputs feeds the llama-server dialect's parsers of untrusted JSON
// (prompts, token contents, logit biases, rerank documents) arbitrary
// input: they return an error or a value, never panic.
func FuzzLSInputs(f *testing.F) {
	for _, seed := range []string{`"the cat"`, `[1,"the",2]`, `["a"]`, `[["a",1],[5,false]]`, `{"3":-1}`, `{"prompt_string":"x"}`,
		`[{"text":"a"},"b"]`, `[[]]`, `[99999999999]`, `[-1,"x"]`, `null`, `{"1":"x"}`, `[["é",true]]`} {
		f.Add([]byte(seed))
	}
	path, err := tinyPath()
	if err != nil {
		f.Fatal(err)
	}
	m, err := runner.Load(context.Background(), path, runner.LoadOptions{Name: "tiny", Threads: 1, Scheduler: scheduler.Config{Context: 64, MaxSeqs: 1}})
	if err != nil {
		f.Fatal(err)
	}
	defer m.Close()
	tk := m.Tokenizer()
	f.Fuzz(func(t *testing.T, b []byte) {
		if ins, err := lsPrompts(m, b); err == nil {
			for _, in := range ins {
				for _, id := range in.toks {
					if id < 0 || int(id) >= tk.NumTokens() {
						t.Fatalf("prompt %s: token %d", b, id)
					}
				}
			}
		}
		tokenizeMixed(tk, b, true, true)
		if bias, err := lsLogitBias(b).resolve(tk); err == nil {
			for id := range bias {
				if id < 0 || int(id) >= tk.NumTokens() {
					t.Fatalf("logit_bias %s: token %d", b, id)
				}
			}
		}
		var docs rerankDocs
		json.Unmarshal(b, &docs)
	})
}

// TestLSKeys checks that Saji's answers have the keys llama-server's have
// (testdata/llamaserver_keys.json), but for media_marker: Saji takes no
// images or sound.
func TestLSKeys(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "llamaserver_keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Keys map[string][]string `json:"keys"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	_, hs := newTestServer(t, Config{})
	req := `{"prompt":"the cat","n_predict":2,"temperature":0,"ignore_eos":true,"n_probs":1`
	_, whole := postRaw(t, hs.URL+"/completion", req+`}`)
	resp, err := http.Post(hs.URL+"/completion", "application/json", strings.NewReader(req+`,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	stream := events(t, resp.Body)
	resp.Body.Close()
	resp, err = http.Get(hs.URL + "/props")
	if err != nil {
		t.Fatal(err)
	}
	props, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	object := func(s string) map[string]any {
		var v map[string]any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return v
	}
	completion, p := object(whole), object(string(props))
	got := map[string]map[string]any{
		"completion":                  completion,
		"timings":                     completion["timings"].(map[string]any),
		"probability":                 completion["completion_probabilities"].([]any)[0].(map[string]any),
		"stream_chunk":                object(stream[0]),
		"stream_last":                 object(stream[len(stream)-1]),
		"props":                       p,
		"default_generation_settings": p["default_generation_settings"].(map[string]any),
	}
	for group, keys := range ref.Keys {
		for _, k := range keys {
			if _, ok := got[group][k]; !ok && !(group == "props" && k == "media_marker") {
				t.Errorf("%s: no %q", group, k)
			}
		}
	}
}

// TestLSSeveralPrompts completes a list of prompts side by side, whole and
// streamed: each answer, with its prompt's index, is what the prompt
// alone gets.
func TestLSSeveralPrompts(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	prompts := []string{`"the cat"`, `[1,"a mat"]`, `{"prompt_string":"on the"}`}
	opts := `"n_predict":4,"temperature":0,"ignore_eos":true`
	var alone []lsAnswer
	for _, p := range prompts {
		alone = append(alone, complete(t, hs.URL, `{"prompt":`+p+`,`+opts+`}`))
	}
	list := `{"prompt":[` + strings.Join(prompts, ",") + `],` + opts
	status, b := postRaw(t, hs.URL+"/completion", list+`}`)
	var all []struct {
		lsAnswer
		Index int `json:"index"`
	}
	if err := json.Unmarshal([]byte(b), &all); err != nil || status != 200 || len(all) != len(prompts) {
		t.Fatalf("status %d: %s (%v)", status, b, err)
	}
	for i, a := range all {
		if a.Index != i || a.Content != alone[i].Content || a.Prompt != alone[i].Prompt || a.TokensEvaluated != alone[i].TokensEvaluated {
			t.Errorf("answer %d: %+v, alone %+v", i, a, alone[i])
		}
	}
	resp, err := http.Post(hs.URL+"/completion", "application/json", strings.NewReader(list+`,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	texts, finals := make([]string, len(prompts)), make([]int, len(prompts))
	for _, l := range events(t, resp.Body) {
		var a struct {
			lsAnswer
			Index int `json:"index"`
		}
		if err := json.Unmarshal([]byte(l), &a); err != nil || a.Index < 0 || a.Index >= len(prompts) {
			t.Fatalf("event %s (%v)", l, err)
		}
		texts[a.Index] += a.Content
		if a.Stop {
			finals[a.Index]++
		}
	}
	for i := range prompts {
		if texts[i] != alone[i].Content || finals[i] != 1 {
			t.Errorf("stream %d: %q with %d last events, want %q and 1", i, texts[i], finals[i], alone[i].Content)
		}
	}
}

// TestLSStories asks stories260K (a real trained model) what
// testdata/llamaserver_stories.json asked llama-server, and gets its
// answers: the greedy text and its top tokens, the prompt as shown, the
// stop, the token counts, and a tokenization with pieces.
func TestLSStories(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "llamaserver_stories.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Request json.RawMessage `json:"request"`
			Answers []struct {
				Content         string    `json:"content"`
				Prompt          string    `json:"prompt"`
				StopType        string    `json:"stop_type"`
				StoppingWord    string    `json:"stopping_word"`
				TokensPredicted int       `json:"tokens_predicted"`
				TokensEvaluated int       `json:"tokens_evaluated"`
				TopIDs          [][]int32 `json:"top_ids"`
			} `json:"answers"`
		} `json:"cases"`
		Tokenize json.RawMessage `json:"tokenize"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	m, err := runner.Load(context.Background(), refdata.Path(t, "models/stories260K.gguf"), runner.LoadOptions{Name: "stories", Threads: 2,
		Scheduler: scheduler.Config{Context: 256, MaxSeqs: 2}})
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{})
	s.Runner().Add(m)
	hs := serveTest(t, s)
	for i, c := range ref.Cases {
		status, body := postRaw(t, hs.URL+"/completion", string(c.Request))
		if status != 200 {
			t.Fatalf("case %d: status %d: %s", i, status, body)
		}
		var got []lsAnswer
		if len(c.Answers) == 1 {
			got = make([]lsAnswer, 1)
			err = json.Unmarshal([]byte(body), &got[0])
		} else {
			err = json.Unmarshal([]byte(body), &got)
		}
		if err != nil || len(got) != len(c.Answers) {
			t.Fatalf("case %d: %s (%v)", i, body, err)
		}
		for j, want := range c.Answers {
			a := got[j]
			if a.Content != want.Content || a.Prompt != want.Prompt || a.StopType != want.StopType || a.StoppingWord != want.StoppingWord ||
				a.TokensPredicted != want.TokensPredicted || a.TokensEvaluated != want.TokensEvaluated {
				t.Errorf("case %d, answer %d: %q %q %s %q %d %d; llama-server: %+v", i, j, a.Content, a.Prompt, a.StopType, a.StoppingWord,
					a.TokensPredicted, a.TokensEvaluated, want)
			}
			for k, ids := range want.TopIDs {
				var top []int32
				if k < len(a.Probs) {
					for _, p := range a.Probs[k].Top {
						top = append(top, p.ID)
					}
				}
				if !reflect.DeepEqual(top, ids) {
					t.Errorf("case %d, token %d: top ids %v, llama-server %v", i, k, top, ids)
				}
			}
		}
	}
	status, body := postRaw(t, hs.URL+"/tokenize", `{"content":"Once upon a time, Lily","add_special":true,"with_pieces":true}`)
	var got, want any
	json.Unmarshal([]byte(body), &got)
	json.Unmarshal(ref.Tokenize, &want)
	if status != 200 || !reflect.DeepEqual(got, want) {
		t.Errorf("tokenize: %d %s, llama-server %s", status, body, ref.Tokenize)
	}
}
