package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"saji/internal/loadtest/fakeopenai"
	"saji/internal/refdata"
)

func TestLoadtestText(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Config{FirstDelay: 2 * time.Millisecond, Interval: time.Millisecond, Model: "tiny"})
	defer srv.Close()
	out, err := runWithInput(t, "", "loadtest", "--url", srv.URL, "--requests", "6", "--concurrency", "2",
		"--prompt-len", "8", "--output-len", "4", "--seed", "5")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Model", "tiny", srv.URL + "/v1/completions", "6: 6 completed, 0 failed",
		"Max concurrency", "2", "Output tokens", "24 (", "TTFT", "TPOT", "ITL", "E2E", "lengths are approximate"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if m := srv.MaxInFlight(); m > 2 {
		t.Errorf("%d requests at once, limit 2", m)
	}
	for _, r := range srv.Received() {
		if r.Body["model"] != "tiny" || r.Body["max_tokens"] != float64(4) || r.Body["ignore_eos"] != true {
			t.Errorf("request %v", r.Body)
		}
		if n := len(strings.Fields(r.Body["prompt"].(string))); n != 8 {
			t.Errorf("prompt of %d words, want 8", n)
		}
	}
}

func TestLoadtestJSON(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Config{})
	defer srv.Close()
	out, err := runWithInput(t, "", "loadtest", "--url", srv.URL+"/v1", "--model", "m", "-n", "5", "--rate", "1000",
		"--prompt-len", "4", "--output-len", "3", "--json", "--ignore-eos=false")
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	checks := map[string]any{
		"model_id": "m", "num_prompts": 5.0, "completed": 5.0, "failed": 0.0, "total_output_tokens": 15.0,
		"total_input_tokens": 20.0, "request_rate": 1000.0, "max_concurrency": nil, "endpoint": "completions",
	}
	for k, want := range checks {
		if s[k] != want {
			t.Errorf("%s = %v, want %v", k, s[k], want)
		}
	}
	for _, k := range []string{"request_throughput", "output_throughput", "mean_ttft_ms", "p99_itl_ms", "median_tpot_ms", "p90_e2el_ms", "duration"} {
		if _, ok := s[k].(float64); !ok {
			t.Errorf("no number %s", k)
		}
	}
	for _, r := range srv.Received() {
		if _, ok := r.Body["ignore_eos"]; ok {
			t.Errorf("ignore_eos sent with --ignore-eos=false: %v", r.Body)
		}
	}
}

func TestLoadtestDatasetChat(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Config{OmitUsage: true})
	defer srv.Close()
	ds := filepath.Join(t.TempDir(), "prompts.jsonl")
	os.WriteFile(ds, []byte("{\"prompt\":\"first question\",\"output_len\":2}\n{\"prompt\":\"second\"}\n"), 0o644)
	out, err := runWithInput(t, "", "loadtest", "--url", srv.URL, "--model", "m", "--dataset", ds, "--endpoint", "chat",
		"--shared-prefix", "3", "--output-len", "5", "--requests", "4", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Completed         int      `json:"completed"`
		TotalOutputTokens int      `json:"total_output_tokens"`
		Notes             []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	// Four requests cycling through two lines: 2+5+2+5 tokens, counted from
	// the chunks since the server reports no usage.
	if s.Completed != 4 || s.TotalOutputTokens != 14 || len(s.Notes) == 0 {
		t.Errorf("completed %d, output %d, notes %q", s.Completed, s.TotalOutputTokens, s.Notes)
	}
	rec := srv.Received()
	if len(rec) != 4 {
		t.Fatalf("%d requests", len(rec))
	}
	var prefix string
	for i, r := range rec {
		if r.Path != "/v1/chat/completions" {
			t.Errorf("path %s", r.Path)
		}
		content := r.Body["messages"].([]any)[0].(map[string]any)["content"].(string)
		words := strings.Fields(content)
		if len(words) < 4 {
			t.Fatalf("message %q", content)
		}
		p := strings.Join(words[:3], " ")
		if i == 0 {
			prefix = p
		} else if p != prefix {
			t.Errorf("prefix %q, want %q", p, prefix)
		}
		if !strings.HasSuffix(content, " first question") && !strings.HasSuffix(content, " second") {
			t.Errorf("message %q", content)
		}
	}
}

func TestLoadtestTokenizer(t *testing.T) {
	vocab := refdata.Path(t, "vocab/ggml-vocab-llama-spm.gguf")
	srv := fakeopenai.New(fakeopenai.Config{})
	defer srv.Close()
	out, err := runWithInput(t, "", "loadtest", "--url", srv.URL, "--model", "m", "-n", "2", "--prompt-len", "16",
		"--output-len", "2", "--tokenizer", vocab)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "approximate") || !strings.Contains(out, "2: 2 completed") {
		t.Errorf("report:\n%s", out)
	}
}

func TestLoadtestErrors(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Config{})
	defer srv.Close()
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"prompt\":\"ok\"}\nnot json\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no url", []string{"loadtest"}, "--url"},
		{"bad url", []string{"loadtest", "--url", "localhost:1"}, "want http"},
		{"bad endpoint", []string{"loadtest", "--url", srv.URL, "--endpoint", "embed"}, "unknown endpoint"},
		{"bad rate", []string{"loadtest", "--url", srv.URL, "--rate", "-1"}, "--rate"},
		{"bad output", []string{"loadtest", "--url", srv.URL, "--output-len", "0"}, "--output-len"},
		{"bad dataset line", []string{"loadtest", "--url", srv.URL, "--dataset", bad}, "bad.jsonl:2:"},
		{"missing tokenizer", []string{"loadtest", "--url", srv.URL, "--tokenizer", bad + ".gguf"}, "tokenizer"},
		{"all failed", []string{"loadtest", "--url", srv.URL, "--model", "m", "-n", "2", "--dataset", writeLoadtestFile(t, "{\"prompt\":\"FAIL500\"}\n")},
			"every request failed; the first: request 0: loadtest: POST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runWithInput(t, "", tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// writeLoadtestFile writes content to a new temporary file and returns its path.
func writeLoadtestFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadtestInterrupted(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Config{FirstDelay: time.Hour})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Interrupt once the first requests are in flight.
		for len(srv.Received()) < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	var out bytes.Buffer
	root := NewRootCommand(Options{Stdout: &out, Stderr: io.Discard})
	root.SetArgs([]string{"loadtest", "--url", srv.URL, "--model", "m", "-n", "10", "-c", "2", "--output-len", "2"})
	err := root.ExecuteContext(ctx)
	if err == nil || !strings.Contains(err.Error(), "interrupted with 0 of 10 requests finished") {
		t.Errorf("error %v", err)
	}
	if !strings.Contains(out.String(), "10: 0 completed, 0 failed, 10 not finished (interrupted)") {
		t.Errorf("report:\n%s", out.String())
	}
}

// TestLoadtestReport writes a run's HTML report beside its JSON, then
// compares two runs' JSON files side by side, in text and HTML.
func TestLoadtestReport(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Config{FirstDelay: time.Millisecond, Interval: time.Millisecond, Model: "tiny"})
	defer srv.Close()
	dir := t.TempDir()
	for _, c := range []string{"1", "4"} {
		out, err := runWithInput(t, "", "loadtest", "--url", srv.URL, "-n", "8", "-c", c, "--prompt-len", "4", "--output-len", "5",
			"--json", "--report", filepath.Join(dir, "c"+c+".html"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "c"+c+".json"), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		page, err := os.ReadFile(filepath.Join(dir, "c"+c+".html"))
		if err != nil || !strings.Contains(string(page), "Output throughput over time") || !strings.Contains(string(page), "<td>"+c+"</td>") {
			t.Errorf("the report of -c %s: %v\n%.300s", c, err, page)
		}
		var s map[string]any
		json.Unmarshal([]byte(out), &s)
		if ttfts, _ := s["ttfts"].([]any); len(ttfts) != 8 {
			t.Errorf("-c %s: the JSON has %d ttfts, want 8", c, len(ttfts))
		}
	}
	out, err := runWithInput(t, "", "loadtest", "--compare", filepath.Join(dir, "c1.json"), filepath.Join(dir, "c4.json"),
		"--report", filepath.Join(dir, "cmp.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"c1", "c4", "c4/c1", "Max concurrency", "Output throughput (tok/s)", "TTFT p99 (ms)", "1.00×"} {
		if !strings.Contains(out, want) {
			t.Errorf("the comparison lacks %q:\n%s", want, out)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, "cmp.html"))
	if err != nil || !strings.Contains(string(page), "<th>ratio</th>") || strings.Count(string(page), "<svg ") != 9 {
		t.Errorf("the comparison's report: %v", err)
	}
	for _, args := range [][]string{
		{"loadtest", "--compare", filepath.Join(dir, "c1.json")},
		{"loadtest", "--compare", filepath.Join(dir, "c1.json"), filepath.Join(dir, "none.json")},
		{"loadtest", "--compare", filepath.Join(dir, "c1.json"), filepath.Join(dir, "c1.html")},
		{"loadtest", "--url", srv.URL, "extra"},
	} {
		if _, err := runWithInput(t, "", args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
