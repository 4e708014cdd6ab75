package server

import (
	"context"
	"encoding/json"
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

	"saji/engine/runner"
	"saji/engine/scheduler"
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
		{"a bad grammar", "POST", "/completion", `{"prompt":"a","grammar":"root ::= (\"a\""}`, 400, "grammar", "invalid_request_error"},
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
