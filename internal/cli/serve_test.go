package cli

import (
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeLoadtest starts 'saji serve' on the tiny model and drives it
// with 'saji loadtest --url': the API and the load test end to end.
func TestServeLoadtest(t *testing.T) {
	path := tinyModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		sf := serveFlags{models: []string{path}, host: "127.0.0.1", port: 0}
		sf.local = localFlags{threads: 2, maxSeqs: 4, budget: 64, ctx: 256, kvType: "f16"}
		done <- runServe(ctx, &sf, pw)
		pw.Close()
	}()
	var url string
	buf := make([]byte, 4096)
	var seen strings.Builder
	re := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	deadline := time.Now().Add(time.Minute)
	for url == "" && time.Now().Before(deadline) {
		n, err := pr.Read(buf)
		seen.Write(buf[:n])
		if m := re.FindStringSubmatch(seen.String()); m != nil {
			url = m[1]
		}
		if err != nil {
			t.Fatalf("serve ended: %v\n%s", err, seen.String())
		}
	}
	go io.Copy(io.Discard, pr)
	out, err := runWithInput(t, "", "loadtest", "--url", url, "--requests", "4", "--concurrency", "2",
		"--prompt-len", "8", "--output-len", "5", "--tokenizer", path, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Completed   int    `json:"completed"`
		Failed      int    `json:"failed"`
		TotalOutput int    `json:"total_output_tokens"`
		Model       string `json:"model_id"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if s.Completed != 4 || s.Failed != 0 || s.TotalOutput != 20 || s.Model != "tiny-q8_0" {
		t.Errorf("loadtest against saji serve: %+v", s)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}

// TestServeExposed refuses to bind beyond loopback without an API key.
func TestServeExposed(t *testing.T) {
	sf := serveFlags{models: []string{"x.gguf"}, host: "0.0.0.0", port: 0}
	t.Setenv("SAJI_API_KEY", "")
	err := runServe(context.Background(), &sf, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "api-key") {
		t.Errorf("binding 0.0.0.0 without a key: %v", err)
	}
}

func TestParseRemotes(t *testing.T) {
	r, err := parseRemotes([]string{"big=http://gpu:8000/v1,key=k,model=llama-70b"})
	if err != nil || r["big"].URL != "http://gpu:8000/v1" || r["big"].APIKey != "k" || r["big"].Model != "llama-70b" {
		t.Errorf("%+v %v", r, err)
	}
	for _, bad := range []string{"big", "=http://x", "big=gpu:8000", "big=http://x,colour=red"} {
		if _, err := parseRemotes([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
