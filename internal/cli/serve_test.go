package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"saji/engine/server"
	"saji/engine/synth"

	"github.com/spf13/cobra"
)

// TestServeLoadtest starts 'saji serve' on the tiny model and drives it
// with 'saji loadtest --url': the API and the load test end to end.
func TestServeLoadtest(t *testing.T) {
	path := tinyModel(t)
	sf := serveFlags{models: []string{path}, host: "127.0.0.1", port: 0}
	sf.local = localFlags{threads: 2, maxSeqs: 4, budget: 64, ctx: 256, kvType: "f16"}
	url, stop := startServe(t, &sf)
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
	stop()
}

// startServe runs 'saji serve' with sf until the returned stop, which
// checks that it ended well, and returns its URL.
func startServe(t *testing.T, sf *serveFlags) (url string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, sf, pw)
		pw.Close()
	}()
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
			cancel()
			t.Fatalf("serve ended: %v\n%s", err, seen.String())
		}
	}
	go io.Copy(io.Discard, pr)
	return url, func() {
		t.Helper()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
}

// TestServeModelsDirLibrary checks that --models-dir is also the library
// Ollama's model management works in: a copy and a delete change the
// folder.
func TestServeModelsDirLibrary(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(tinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tiny.gguf"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	sf := serveFlags{dir: dir, host: "127.0.0.1", port: 0}
	sf.local = localFlags{threads: 2, maxSeqs: 2, budget: 64, ctx: 128, kvType: "f16"}
	url, stop := startServe(t, &sf)
	defer stop()
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/api/copy", `{"source":"tiny:latest","destination":"copy"}`},
		{"DELETE", "/api/delete", `{"model":"tiny:latest"}`},
	} {
		req, _ := http.NewRequest(c.method, url+c.path, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s %s: status %d", c.method, c.path, resp.StatusCode)
		}
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.gguf"))
	if len(names) != 1 || filepath.Base(names[0]) != "copy.gguf" {
		t.Errorf("the folder after a copy and a delete: %v", names)
	}
}

// TestServeUnrunnable refuses, at start, a model Saji cannot run (a
// weight of a type no kernel computes with), with the reason, rather than
// serving it and failing its first request.
func TestServeUnrunnable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q1.gguf")
	if err := synth.WriteUnrunnable(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	sf := serveFlags{models: []string{path}, host: "127.0.0.1", port: 0}
	sf.local = localFlags{threads: 2, maxSeqs: 4, budget: 64, ctx: 256, kvType: "f16"}
	var out strings.Builder
	err := runServe(context.Background(), &sf, &out)
	const want = "model: blk.0.ffn_up.weight is Q1_0, a type Saji cannot compute with yet"
	if err == nil || !strings.HasPrefix(err.Error(), "serve: ") || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("serve: %v, want an error ending %q", err, want)
	}
	if strings.Contains(out.String(), "serving") {
		t.Errorf("it served:\n%s", out.String())
	}
}

// TestServeRouteFile refuses a routing file that is missing or wrong
// before it serves.
func TestServeRouteFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "routes.json")
	if err := os.WriteFile(bad, []byte(`{"auto":{"rules":[{"match":"(","model":"big"}],"default":"small"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		filepath.Join(t.TempDir(), "none.json"): "no such file",
		bad:                                     "rule 1: error parsing regexp",
	} {
		sf := serveFlags{remotes: []string{"big=http://127.0.0.1:1"}, route: file, host: "127.0.0.1"}
		if err := runServe(context.Background(), &sf, io.Discard); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--route %s: %v, want %q", file, err, want)
		}
	}
}

// TestServeExposed refuses to bind beyond loopback without an API key.
func TestServeExposed(t *testing.T) {
	tests := []struct {
		name string
		sf   serveFlags
		want string
	}{
		{"network without a key", serveFlags{models: []string{"x.gguf"}, host: "0.0.0.0"}, "give it an --api-key"},
		{"network with an empty key", serveFlags{models: []string{"x.gguf"}, host: "0.0.0.0", apiKeys: []string{""}}, "--api-key is empty"},
		{"loopback with an empty key", serveFlags{models: []string{"x.gguf"}, host: "127.0.0.1", apiKeys: []string{"k", ""}}, "--api-key is empty"},
	}
	t.Setenv("SAJI_API_KEY", "")
	for _, tt := range tests {
		err := runServe(context.Background(), &tt.sf, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestParseRemotes reads --remote flags into pools.
func TestParseRemotes(t *testing.T) {
	r, err := parseRemotes([]string{"big=http://gpu:8000/v1,key=k,model=llama-70b"})
	if err != nil || len(r["big"].Upstreams) != 1 || r["big"].Upstreams[0] != (server.Upstream{URL: "http://gpu:8000/v1", APIKey: "k", Model: "llama-70b"}) {
		t.Errorf("%+v %v", r, err)
	}
	r, err = parseRemotes([]string{"big=http://a:8000|http://b:8000,timeout=30s,policy=lor",
		"big=http://c:11434/v1,model=llama3.3:70b,health=0", "small=https://d"})
	want := map[string]server.Remote{
		"big": {Policy: server.LeastOutstanding, HealthInterval: -1, Upstreams: []server.Upstream{
			{URL: "http://a:8000", Timeout: 30 * time.Second}, {URL: "http://b:8000", Timeout: 30 * time.Second},
			{URL: "http://c:11434/v1", Model: "llama3.3:70b"}}},
		"small": {Upstreams: []server.Upstream{{URL: "https://d"}}},
	}
	if err != nil || !reflect.DeepEqual(r, want) {
		t.Errorf("a pool: %+v %v", r, err)
	}
	for _, bad := range [][]string{{"big"}, {"=http://x"}, {"big=gpu:8000"}, {"big=http://x,colour=red"},
		{"big=http://x|gpu:1"}, {"big=http://x,timeout=soon"}, {"big=http://x,timeout=0s"}, {"big=http://x,policy=random"},
		{"big=http://x,policy=lor", "big=http://y,policy=rr"}, {"big=http://x,health=often"}} {
		if _, err := parseRemotes(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestLlamaArgs(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"serve", "-m", "x.gguf", "-ngl", "20"}, []string{"serve", "-m", "x.gguf", "--n-gpu-layers", "20"}},
		{[]string{"run", "-ngl=0", "-n", "5"}, []string{"run", "--n-gpu-layers=0", "-n", "5"}},
		{[]string{"run", "-m", "x", "--", "-ngl"}, []string{"run", "-m", "x", "--", "-ngl"}},
		{[]string{"bench", "-nglx", "--ngl"}, []string{"bench", "-nglx", "--ngl"}},
		{[]string{"run", "-m", "x", "-md", "d.gguf"}, []string{"run", "-m", "x", "--draft", "d.gguf"}},
		{[]string{"serve", "-md=d.gguf", "-mdx"}, []string{"serve", "--draft=d.gguf", "-mdx"}},
		{nil, []string{}},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		if got := llamaArgs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("llamaArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !slices.Equal(in, tt.in) {
			t.Errorf("llamaArgs changed its argument to %q", tt.in)
		}
	}
}

// TestGPULayersFlags parses the GPU layer flags of serve, run and bench
// under each of their names.
func TestGPULayersFlags(t *testing.T) {
	intFlag := func(cmd *cobra.Command) string {
		n, err := cmd.Flags().GetInt("gpu-layers")
		if err != nil {
			t.Fatal(err)
		}
		return strconv.Itoa(n)
	}
	strFlag := func(cmd *cobra.Command) string {
		s, err := cmd.Flags().GetString("n-gpu-layers")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		cmd  func() *cobra.Command
		get  func(*cobra.Command) string
		args []string
		want string
	}{
		{newServeCmd, intFlag, nil, "-1"},
		{newServeCmd, intFlag, []string{"-ngl", "20"}, "20"},
		{newServeCmd, intFlag, []string{"--gpu-layers=0"}, "0"},
		{newServeCmd, intFlag, []string{"--n-gpu-layers", "7"}, "7"},
		{newRunCmd, intFlag, nil, "-1"},
		{newRunCmd, intFlag, []string{"-ngl=99", "-n", "5"}, "99"},
		{newRunCmd, intFlag, []string{"--gpu-layers", "3"}, "3"},
		{newEvalCmd, intFlag, nil, "-1"},
		{newEvalCmd, intFlag, []string{"-ngl", "0"}, "0"},
		{newPerplexityCmd, intFlag, []string{"--n-gpu-layers=12"}, "12"},
		{newLoadtestCmd, intFlag, []string{"-ngl", "5"}, "5"},
		{newBenchCmd, strFlag, nil, "-1"},
		{newBenchCmd, strFlag, []string{"-ngl", "0,16,99", "-n", "4"}, "0,16,99"},
		{newBenchCmd, strFlag, []string{"--n-gpu-layers=8"}, "8"},
		{newBenchCmd, strFlag, []string{"--gpu-layers", "4"}, "4"},
	}
	for _, tt := range tests {
		cmd := tt.cmd()
		if err := cmd.ParseFlags(llamaArgs(tt.args)); err != nil {
			t.Fatalf("%s %q: %v", cmd.Name(), tt.args, err)
		}
		if got := tt.get(cmd); got != tt.want {
			t.Errorf("%s %q: GPU layers %s, want %s", cmd.Name(), tt.args, got, tt.want)
		}
	}
}

// TestServeGPULayers serves the tiny model with 2 GPU layers: it loads on
// the GPU, or says in its load line why not.
func TestServeGPULayers(t *testing.T) {
	path := tinyModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		sf := serveFlags{models: []string{path}, host: "127.0.0.1", port: 0}
		sf.local = localFlags{threads: 2, maxSeqs: 2, budget: 64, ctx: 128, kvType: "f16", gpuLayers: 2}
		done <- runServe(ctx, &sf, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	seen := ""
	for seen == "" && sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "saji: loaded tiny-q8_0") {
			seen = line
		}
	}
	if !regexp.MustCompile(`; (GPU: 2/4 layers on \S+, the rest on the CPU|CPU \(.+\))$`).MatchString(seen) {
		t.Errorf("load line %q does not say where the model runs", seen)
	}
	t.Log(seen)
	cancel()
	go io.Copy(io.Discard, pr)
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}
