package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ollamaDone is the final object of an Ollama chat or generate answer.
type ollamaDone struct {
	Model     string    `json:"model"`
	CreatedAt time.Time `json:"created_at"`
	Message   *struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"message"`
	Response           *string `json:"response"`
	Done               bool    `json:"done"`
	DoneReason         string  `json:"done_reason"`
	TotalDuration      *int64  `json:"total_duration"`
	LoadDuration       *int64  `json:"load_duration"`
	PromptEvalCount    int     `json:"prompt_eval_count"`
	PromptEvalDuration *int64  `json:"prompt_eval_duration"`
	EvalCount          int     `json:"eval_count"`
	EvalDuration       *int64  `json:"eval_duration"`
	Error              string  `json:"error"`
}

// text is the answer's text, chat or generate.
func (d ollamaDone) text() string {
	if d.Message != nil {
		return d.Message.Content
	}
	if d.Response != nil {
		return *d.Response
	}
	return ""
}

// ollamaPost sends body to path and returns the status, the content type
// and the NDJSON lines (one for an answer that does not stream).
func ollamaPost(t *testing.T, url, body string) (int, string, []ollamaDone) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []ollamaDone
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var d ollamaDone
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("%s: line %q is not JSON: %v", url, sc.Text(), err)
		}
		lines = append(lines, d)
	}
	if len(lines) == 0 {
		t.Fatalf("%s: empty answer (status %d)", url, resp.StatusCode)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), lines
}

// checkFinal checks a final object's fields.
func checkFinal(t *testing.T, what string, d ollamaDone, model string, maxEval int) {
	t.Helper()
	if !d.Done || (d.DoneReason != "stop" && d.DoneReason != "length") || d.Model != model || d.CreatedAt.IsZero() {
		t.Errorf("%s: final %+v", what, d)
	}
	if d.TotalDuration == nil || d.LoadDuration == nil || d.PromptEvalDuration == nil || d.EvalDuration == nil ||
		*d.TotalDuration < 0 || *d.PromptEvalDuration < 0 || *d.EvalDuration < 0 {
		t.Errorf("%s: durations missing or negative: %+v", what, d)
	}
	if d.PromptEvalCount <= 0 || d.EvalCount < 0 || d.EvalCount > maxEval {
		t.Errorf("%s: prompt_eval_count %d, eval_count %d (num_predict %d)", what, d.PromptEvalCount, d.EvalCount, maxEval)
	}
}

// ollamaStreamed joins streamed lines and returns the text and the final
// line, checking that only the last is done.
func ollamaStreamed(t *testing.T, what string, lines []ollamaDone) (string, ollamaDone) {
	t.Helper()
	var sb strings.Builder
	for i, l := range lines {
		if l.Error != "" {
			t.Fatalf("%s: error line %q", what, l.Error)
		}
		if l.Done != (i == len(lines)-1) {
			t.Errorf("%s: line %d done = %v of %d lines", what, i, l.Done, len(lines))
		}
		if l.Message != nil && l.Message.Role != "assistant" {
			t.Errorf("%s: line %d role %q", what, i, l.Message.Role)
		}
		sb.WriteString(l.text())
	}
	return sb.String(), lines[len(lines)-1]
}

func TestOllamaModelEndpoints(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	get := func(path string, v any) {
		t.Helper()
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d", path, resp.StatusCode)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	var version struct{ Version string }
	get("/api/version", &version)
	if version.Version != Version {
		t.Errorf("version %q", version.Version)
	}

	type details struct {
		ParentModel       *string  `json:"parent_model"`
		Format            string   `json:"format"`
		Family            string   `json:"family"`
		Families          []string `json:"families"`
		ParameterSize     string   `json:"parameter_size"`
		QuantizationLevel string   `json:"quantization_level"`
	}
	checkDetails := func(what string, d details) {
		t.Helper()
		if d.ParentModel == nil || d.Format != "gguf" || d.Family != "llama" || len(d.Families) != 1 ||
			d.Families[0] != "llama" || d.ParameterSize == "" || d.QuantizationLevel != "Q8_0" {
			t.Errorf("%s: details %+v", what, d)
		}
	}
	var tags struct {
		Models []struct {
			Name       string    `json:"name"`
			Model      string    `json:"model"`
			ModifiedAt time.Time `json:"modified_at"`
			Size       int64     `json:"size"`
			Digest     string    `json:"digest"`
			Details    details   `json:"details"`
		} `json:"models"`
	}
	get("/api/tags", &tags)
	if len(tags.Models) != 1 {
		t.Fatalf("tags %+v", tags)
	}
	tag := tags.Models[0]
	if tag.Name != "tiny:latest" || tag.Model != "tiny:latest" || tag.ModifiedAt.IsZero() || tag.Size <= 0 || len(tag.Digest) != 64 {
		t.Errorf("tag %+v", tag)
	}
	checkDetails("tags", tag.Details)
	var again struct {
		Models []struct{ Digest string } `json:"models"`
	}
	get("/api/tags", &again)
	if again.Models[0].Digest != tag.Digest {
		t.Errorf("the digest changes: %s then %s", tag.Digest, again.Models[0].Digest)
	}

	var ps struct {
		Models []struct {
			Name          string    `json:"name"`
			Model         string    `json:"model"`
			Size          int64     `json:"size"`
			Digest        string    `json:"digest"`
			Details       details   `json:"details"`
			ExpiresAt     time.Time `json:"expires_at"`
			SizeVRAM      *int64    `json:"size_vram"`
			ContextLength int       `json:"context_length"`
		} `json:"models"`
	}
	get("/api/ps", &ps)
	if len(ps.Models) != 1 {
		t.Fatalf("ps %+v", ps)
	}
	run := ps.Models[0]
	if run.Name != "tiny:latest" || run.Model != "tiny:latest" || run.Size != tag.Size || run.Digest != tag.Digest ||
		!run.ExpiresAt.After(time.Now()) || run.SizeVRAM == nil || run.ContextLength != 128 {
		t.Errorf("ps %+v", run)
	}
	checkDetails("ps", run.Details)

	for _, body := range []string{`{"model":"tiny"}`, `{"model":"tiny:latest"}`, `{"name":"tiny:latest"}`} {
		resp, err := http.Post(hs.URL+"/api/show", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var show struct {
			License      *string        `json:"license"`
			Modelfile    string         `json:"modelfile"`
			Parameters   *string        `json:"parameters"`
			Template     *string        `json:"template"`
			Details      details        `json:"details"`
			ModelInfo    map[string]any `json:"model_info"`
			Capabilities []string       `json:"capabilities"`
			ModifiedAt   time.Time      `json:"modified_at"`
		}
		err = json.NewDecoder(resp.Body).Decode(&show)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("show %s: status %d, %v", body, resp.StatusCode, err)
		}
		mi := show.ModelInfo
		if show.License == nil || show.Parameters == nil || show.Template == nil || !strings.Contains(show.Modelfile, "FROM ") ||
			show.ModifiedAt.IsZero() || len(show.Capabilities) == 0 || show.Capabilities[0] != "completion" {
			t.Errorf("show %s: %+v", body, show)
		}
		checkDetails("show", show.Details)
		// The context the model was trained with (the file's), as Ollama
		// shows it, not the 128 it serves with.
		if mi["general.architecture"] != "llama" || mi["llama.context_length"] != float64(2048) ||
			mi["general.parameter_count"].(float64) <= 0 || mi["llama.embedding_length"].(float64) <= 0 ||
			mi["llama.block_count"].(float64) <= 0 {
			t.Errorf("show %s: model_info %v", body, mi)
		}
	}
}

func TestOllamaChat(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	for _, name := range []string{"tiny", "tiny:latest"} {
		body := `{"model":"` + name + `","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"the cat"}],
			"options":{"temperature":0,"num_predict":6,"seed":1},"keep_alive":"5m"%s}`
		status, ct, lines := ollamaPost(t, hs.URL+"/api/chat", strings.Replace(body, "%s", `,"stream":false`, 1))
		if status != 200 || len(lines) != 1 || !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("%s: status %d, %s, %+v", name, status, ct, lines)
		}
		whole := lines[0]
		checkFinal(t, name, whole, name, 6)
		if whole.Message == nil || whole.Message.Role != "assistant" || whole.Response != nil {
			t.Errorf("%s: message %+v", name, whole)
		}
		// Streaming is the default; the lines join to the same text.
		status, ct, lines = ollamaPost(t, hs.URL+"/api/chat", strings.Replace(body, "%s", "", 1))
		if status != 200 || ct != "application/x-ndjson" {
			t.Fatalf("%s stream: status %d, %s", name, status, ct)
		}
		text, final := ollamaStreamed(t, name, lines)
		checkFinal(t, name+" stream", final, name, 6)
		if final.Message == nil || final.Message.Content != "" {
			t.Errorf("%s stream: final message %+v", name, final.Message)
		}
		if text != whole.Message.Content || final.EvalCount != whole.EvalCount || final.DoneReason != whole.DoneReason {
			t.Errorf("%s: streamed %q (%d tokens, %s), not streamed %q (%d tokens, %s)", name, text, final.EvalCount,
				final.DoneReason, whole.Message.Content, whole.EvalCount, whole.DoneReason)
		}
	}
}

func TestOllamaGenerate(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	cases := []struct{ name, fields string }{
		{"templated", `"prompt":"the cat","system":"be brief"`},
		{"raw", `"prompt":"the cat sat","raw":true`},
		{"bare template", `"prompt":"the cat sat","template":"{{ .Prompt }}"`},
	}
	for _, c := range cases {
		body := `{"model":"tiny:latest",` + c.fields + `,"options":{"temperature":0,"num_predict":5}%s}`
		status, _, lines := ollamaPost(t, hs.URL+"/api/generate", strings.Replace(body, "%s", `,"stream":false`, 1))
		if status != 200 || len(lines) != 1 {
			t.Fatalf("%s: status %d, %+v", c.name, status, lines)
		}
		whole := lines[0]
		checkFinal(t, c.name, whole, "tiny:latest", 5)
		if whole.Response == nil || whole.Message != nil {
			t.Errorf("%s: %+v", c.name, whole)
		}
		status, ct, lines := ollamaPost(t, hs.URL+"/api/generate", strings.Replace(body, "%s", `,"stream":true`, 1))
		if status != 200 || ct != "application/x-ndjson" {
			t.Fatalf("%s stream: status %d, %s", c.name, status, ct)
		}
		text, final := ollamaStreamed(t, c.name, lines)
		checkFinal(t, c.name+" stream", final, "tiny:latest", 5)
		if text != *whole.Response || final.EvalCount != whole.EvalCount {
			t.Errorf("%s: streamed %q (%d tokens), not streamed %q (%d tokens)", c.name, text, final.EvalCount, *whole.Response, whole.EvalCount)
		}
	}
	// The raw prompt is the text as is, the templated one is longer.
	_, _, raw := ollamaPost(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":"the cat","raw":true,"stream":false,"options":{"num_predict":1}}`)
	_, _, tmpl := ollamaPost(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":"the cat","stream":false,"options":{"num_predict":1}}`)
	if raw[0].PromptEvalCount >= tmpl[0].PromptEvalCount {
		t.Errorf("raw prompt %d tokens, templated %d", raw[0].PromptEvalCount, tmpl[0].PromptEvalCount)
	}
}

// TestOllamaLimits checks num_predict and num_ctx.
func TestOllamaLimits(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	for _, n := range []int{1, 3} {
		_, _, lines := ollamaPost(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":"the cat","raw":true,"stream":false,
			"options":{"temperature":0,"num_predict":`+strconv.Itoa(n)+`}}`)
		checkFinal(t, "num_predict", lines[0], "tiny", n)
		if lines[0].DoneReason == "length" && lines[0].EvalCount != n {
			t.Errorf("num_predict %d: %d tokens, length", n, lines[0].EvalCount)
		}
	}
	// A num_ctx larger than the model's is clamped to it (the generation
	// ends at the end of the context, 128 tokens); a smaller one is
	// honoured, and an integer option may come as a float.
	_, _, lines := ollamaPost(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":"the cat","raw":true,"stream":false,
		"options":{"num_ctx":100000,"num_predict":-1,"temperature":0}}`)
	checkFinal(t, "num_ctx 100000", lines[0], "tiny", 128-lines[0].PromptEvalCount)
	_, _, lines = ollamaPost(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":"the cat","raw":true,"stream":false,
		"options":{"num_ctx":16.0,"temperature":0}}`)
	checkFinal(t, "num_ctx 16", lines[0], "tiny", 16-lines[0].PromptEvalCount)
	status, _, lines := ollamaPost(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":"the cat sat on the mat","raw":true,
		"options":{"num_ctx":3}}`)
	if status != 400 || lines[0].Error == "" {
		t.Errorf("prompt beyond num_ctx: status %d, %+v", status, lines[0])
	}
}

// TestOllamaLoad checks Ollama's "load the model" calls.
func TestOllamaLoad(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	for _, c := range []struct{ path, body string }{
		{"/api/generate", `{"model":"tiny"}`},
		{"/api/generate", `{"model":"tiny:latest","prompt":"","keep_alive":-1}`},
		{"/api/chat", `{"model":"tiny","messages":[]}`},
	} {
		status, _, lines := ollamaPost(t, hs.URL+c.path, c.body)
		d := lines[0]
		if status != 200 || len(lines) != 1 || !d.Done || d.DoneReason != "load" || d.CreatedAt.IsZero() || d.EvalCount != 0 {
			t.Errorf("%s %s: status %d, %+v", c.path, c.body, status, lines)
		}
		if (c.path == "/api/chat") != (d.Message != nil) {
			t.Errorf("%s %s: %+v", c.path, c.body, d)
		}
	}
}

// TestOllamaErrors checks that errors are {"error": "..."} with the
// right status.
func TestOllamaErrors(t *testing.T) {
	_, hs := newTestServer(t, Config{MaxBody: 4096})
	long := strings.Repeat("the cat sat on the mat ", 40)
	user := `"messages":[{"role":"user","content":"hi"}]`
	cases := []struct {
		name, path, body string
		status           int
	}{
		{"malformed JSON", "/api/chat", `{"model":`, 400},
		{"malformed JSON (show)", "/api/show", `{"model"`, 400},
		{"unknown model (chat)", "/api/chat", `{"model":"nope",` + user + `}`, 404},
		{"unknown model (generate)", "/api/generate", `{"model":"nope:latest","prompt":"hi"}`, 404},
		{"unknown tag", "/api/generate", `{"model":"tiny:7b","prompt":"hi"}`, 404},
		{"unknown model (show)", "/api/show", `{"model":"nope"}`, 404},
		{"unknown model (load)", "/api/generate", `{"model":"nope"}`, 404},
		{"tools", "/api/chat", `{"model":"tiny",` + user + `,"tools":[{"type":"function","function":{"name":"f"}}]}`, 400},
		{"format yaml", "/api/chat", `{"model":"tiny",` + user + `,"format":"yaml"}`, 400},
		{"format with a bad schema", "/api/generate", `{"model":"tiny","prompt":"hi","format":{"type":"object","properties":{"a":{"type":"nope"}}}}`, 400},
		{"suffix", "/api/generate", `{"model":"tiny","prompt":"def f(","suffix":"return x"}`, 400},
		{"images (chat)", "/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"hi","images":["aGk="]}]}`, 400},
		{"images (generate)", "/api/generate", `{"model":"tiny","prompt":"hi","images":["aGk="]}`, 400},
		{"context not token ids", "/api/generate", `{"model":"tiny","prompt":"hi","context":["a"]}`, 400},
		{"context outside the vocabulary", "/api/generate", `{"model":"tiny","prompt":"hi","context":[1,99999]}`, 400},
		{"context with suffix", "/api/generate", `{"model":"tiny","prompt":"hi","suffix":"x","context":[1,2]}`, 400},
		{"bad top_logprobs", "/api/chat", `{"model":"tiny",` + user + `,"top_logprobs":21}`, 400},
		{"template", "/api/generate", `{"model":"tiny","prompt":"hi","template":"{{ .System }} {{ .Prompt }}"}`, 400},
		{"bad option type", "/api/generate", `{"model":"tiny","prompt":"hi","options":{"num_predict":"many"}}`, 400},
		{"bad option value", "/api/generate", `{"model":"tiny","prompt":"hi","options":{"top_p":3}}`, 400},
		{"bad think", "/api/chat", `{"model":"tiny",` + user + `,"think":[1]}`, 400},
		{"too long a prompt", "/api/generate", `{"model":"tiny","prompt":"` + long + `"}`, 400},
		{"too long a prompt (stream)", "/api/chat", `{"model":"tiny","stream":true,"messages":[{"role":"user","content":"` + long + `"}]}`, 400},
		{"oversized body", "/api/generate", `{"model":"tiny","prompt":"` + strings.Repeat("a", 5000) + `"}`, 413},
	}
	for _, c := range cases {
		resp, err := http.Post(hs.URL+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var v struct {
			Error string `json:"error"`
		}
		if resp.StatusCode != c.status || json.Unmarshal(b, &v) != nil || v.Error == "" {
			t.Errorf("%s: status %d, %s; want %d and {\"error\": ...}", c.name, resp.StatusCode, b, c.status)
		}
	}
	// Accepted and ignored: keep_alive, an empty format, empty tools and
	// context, think false on a template without thinking (true is
	// refused, as Ollama does: see TestReasoningOllama).
	status, _, lines := ollamaPost(t, hs.URL+"/api/chat", `{"model":"tiny",`+user+`,"stream":false,"keep_alive":0,
		"format":"","tools":[],"think":false,"options":{"num_predict":1,"mirostat":0}}`)
	if status != 200 || !lines[0].Done {
		t.Errorf("ignored fields: status %d, %+v", status, lines[0])
	}
}

// TestOllamaDisconnect checks that a client that goes away mid-stream
// cancels the generation and frees its cache blocks.
func TestOllamaDisconnect(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/api/generate",
		strings.NewReader(`{"model":"tiny","prompt":"the cat","raw":true,"options":{"temperature":1,"seed":7}}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil { // one line in
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	// The cancelled sequence gives its cache blocks back. (The scheduler
	// publishes its running count after a step, so a request that ends
	// between steps leaves the count stale until the next one: a short
	// request afterwards brings it up to date at the end of its step.)
	sched := s.Runner().Models()[0].Scheduler()
	deadline := time.Now().Add(time.Minute)
	for sched.Stats().KV.Groups[0].Used != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the generation goes on after the client left: %+v", sched.Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
	status, _, lines := ollamaPost(t, hs.URL+"/api/generate", `{"model":"tiny","prompt":"the cat","raw":true,"stream":false,"options":{"num_predict":1}}`)
	if status != 200 || !lines[0].Done {
		t.Fatalf("after the client left: status %d, %+v", status, lines[0])
	}
	for st := sched.Stats(); st.Running != 0 || st.Waiting != 0 || st.KV.Groups[0].Used != 0; st = sched.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("sequences left after the client left: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestParameterSize(t *testing.T) {
	cases := []struct {
		n    int64
		want string
	}{
		{0, "0"}, {999, "999"}, {1500, "1.5K"}, {135_000_000, "135M"}, {1_235_814_400, "1.2B"},
		{8_030_261_248, "8.0B"}, {7_000_000_000, "7B"}, {1_500_000_000_000, "1.5T"},
	}
	for _, c := range cases {
		if got := parameterSize(c.n); got != c.want {
			t.Errorf("parameterSize(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestOllamaName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"tiny", "tiny:latest"}, {"qwen2.5:7b", "qwen2.5:7b"}, {"a:latest", "a:latest"},
	}
	for _, c := range cases {
		if got := ollamaName(c.in); got != c.want {
			t.Errorf("ollamaName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestOllamaInt(t *testing.T) {
	cases := []struct {
		in   string
		want ollamaInt
		ok   bool
	}{
		{"2048", 2048, true}, {"2048.0", 2048, true}, {"-1", -1, true}, {"1e3", 1000, true},
		{`"2048"`, 0, false}, {"true", 0, false}, {"1e300", 1 << 62, true}, {"-1e300", -1 << 62, true},
		{"9223372036854775807", 1 << 62, true},
	}
	for _, c := range cases {
		var n ollamaInt
		err := json.Unmarshal([]byte(c.in), &n)
		if (err == nil) != c.ok || (c.ok && n != c.want) {
			t.Errorf("%s: %d, %v", c.in, n, err)
		}
	}
}
