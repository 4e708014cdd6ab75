package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/internal/refdata"
)

// writeCoder writes the tiny model with StarCoder's vocabulary from the
// reference data (which has fill-in-the-middle tokens) at path, trained
// (as its metadata says) on 4096 tokens.
func writeCoder(t *testing.T, path string) {
	t.Helper()
	vocab, err := gguf.Open(filepath.Join(refdata.Dir(t), "vocab", "ggml-vocab-starcoder.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer vocab.Close()
	shape, _ := synth.LookupShape("tiny")
	shape.Context = 4096 // room for an infill's extra chunks
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
		{"grammar", `{"prompt":"the cat","n_predict":20,"temperature":1,"seed":5,"grammar":"root ::= (\"yes\" | \"no\") \" cat\""}`, func(t *testing.T, a lsAnswer) {
			if (a.Content != "yes cat" && a.Content != "no cat") || a.StopType != "eos" {
				t.Errorf("a grammar of two sentences gave %q (stop %s)", a.Content, a.StopType)
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

// TestLSInfill fills in the middle with the StarCoder-vocabulary model:
// the prompts, extra chunks after snippet markers (the vocabulary has no
// repository tokens), are llama-server's for the same request on the same
// file (llama.cpp 3f545bec, -np 1 and -c 4096, or -c 2048, which leaves
// room for the last two tokens of the chunks).
func TestLSInfill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "coder.gguf")
	writeCoder(t, path)
	s := New(Config{})
	hs := serveTest(t, s)
	for _, n := range []int{4096, 2048} {
		m, err := runner.Load(context.Background(), path, runner.LoadOptions{Name: fmt.Sprint("coder", n), Threads: 2, Scheduler: scheduler.Config{Context: n, MaxSeqs: 1}})
		if err != nil {
			t.Fatal(err)
		}
		s.Runner().Add(m)
	}
	const fim = "<fim_prefix>def f(x):\n    return x<fim_suffix>\n\nprint(f(2))<fim_middle>"
	for _, tt := range []struct {
		model  string
		prompt string
		tokens int
	}{
		{"coder4096", "\n\n--- snippet ---\n\nimport os\n\n\n--- snippet ---\n\ny = 1\n" + fim, 40},
		{"coder2048", "1\n" + fim, 22},
	} {
		body := `{"model":"` + tt.model + `","input_prefix":"def f(x):\n    return ","input_suffix":"\n\nprint(f(2))","prompt":"x",
			"input_extra":[{"filename":"a.py","text":"import os\n"},{"text":"y = 1\n"}],"n_predict":3,"temperature":0}`
		status, b := postRaw(t, hs.URL+"/infill", body)
		var a lsAnswer
		if err := json.Unmarshal([]byte(b), &a); err != nil || status != 200 {
			t.Fatalf("%s: status %d: %s", tt.model, status, b)
		}
		if a.Prompt != tt.prompt || a.TokensEvaluated != tt.tokens || a.TokensPredicted != 3 {
			t.Errorf("%s: infill prompt %q (%d tokens, %d predicted), want %q (%d tokens)", tt.model, a.Prompt, a.TokensEvaluated, a.TokensPredicted, tt.prompt, tt.tokens)
		}
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
