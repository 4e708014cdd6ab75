package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/library"
	"saji/engine/runner"
	"saji/engine/scheduler"
)

// newLibraryServer serves a runner over an empty library in a folder of
// its own.
func newLibraryServer(t *testing.T) (*Server, *httptest.Server, *library.Library) {
	t.Helper()
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rn := runner.New(runner.Config{Library: lib, Load: runner.LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}}})
	s, hs := serveRunner(t, rn, Config{})
	return s, hs, lib
}

// serveRunner serves rn with cfg over HTTP; the server and rn are closed
// when the test ends.
func serveRunner(t *testing.T, rn *runner.Runner, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	cfg.Runner = rn
	s := New(cfg)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		s.Close()
		rn.Close()
	})
	return s, hs
}

// tinyData returns the bytes of the tiny model's file.
func tinyData(t *testing.T) []byte {
	t.Helper()
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// send makes a request and returns the status and the body.
func send(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// tagNames lists /api/tags.
func tagNames(t *testing.T, url string) string {
	t.Helper()
	_, body := send(t, "GET", url+"/api/tags", "")
	var v struct {
		Models []struct{ Name string } `json:"models"`
	}
	json.Unmarshal([]byte(body), &v)
	var names []string
	for _, m := range v.Models {
		names = append(names, m.Name)
	}
	return strings.Join(names, ",")
}

// TestOllamaCreateFromBlob registers a local GGUF file as Ollama's clients
// do: HEAD the blob (missing), push it (digest checked), create a model of
// it, then copy, use and delete models.
func TestOllamaCreateFromBlob(t *testing.T) {
	_, hs, _ := newLibraryServer(t)
	data := tinyData(t)
	sum := sha256.Sum256(data)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	blobs := hs.URL + "/api/blobs/" + digest
	if status, _ := send(t, "HEAD", blobs, ""); status != 404 {
		t.Errorf("HEAD of a missing blob: %d", status)
	}
	other := "sha256:" + strings.Repeat("0", 64)
	if status, body := send(t, "POST", hs.URL+"/api/blobs/"+other, string(data)); status != 400 || !strings.Contains(body, `"error"`) {
		t.Errorf("a blob that does not match its digest: %d %s", status, body)
	}
	if status, body := send(t, "POST", hs.URL+"/api/blobs/sha256:xyz", "x"); status != 400 || !strings.Contains(body, `"error"`) {
		t.Errorf("a malformed digest: %d %s", status, body)
	}
	resp, err := http.Post(blobs, "application/octet-stream", bytes.NewReader(data))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("push: %v %v", resp, err)
	}
	resp.Body.Close()
	if status, _ := send(t, "HEAD", blobs, ""); status != 200 {
		t.Errorf("HEAD of a pushed blob: %d", status)
	}
	// Streamed status lines, as Ollama's.
	status, body := send(t, "POST", hs.URL+"/api/create", `{"model":"mine:latest","files":{"tiny.gguf":"`+digest+`"}}`)
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if status != 200 || len(lines) < 2 || lines[len(lines)-1] != `{"status":"success"}` || !strings.Contains(body, "parsing GGUF") {
		t.Fatalf("create: %d %s", status, body)
	}
	if got := tagNames(t, hs.URL); got != "mine:latest" {
		t.Errorf("tags after create: %s", got)
	}
	if status, v := post(t, hs.URL+"/api/generate", `{"model":"mine","prompt":"the cat","stream":false,"options":{"num_predict":2}}`); status != 200 || v["done"] != true {
		t.Errorf("generate on the created model: %d %v", status, v)
	}
	// Copy, and create from another model, without streaming.
	if status, body := send(t, "POST", hs.URL+"/api/copy", `{"source":"mine:latest","destination":"yours"}`); status != 200 {
		t.Errorf("copy: %d %s", status, body)
	}
	if status, body := send(t, "POST", hs.URL+"/api/create", `{"model":"third","from":"yours","stream":false}`); status != 200 || strings.TrimSpace(body) != `{"status":"success"}` {
		t.Errorf("create from: %d %s", status, body)
	}
	if got := tagNames(t, hs.URL); got != "mine:latest,third:latest,yours:latest" {
		t.Errorf("tags after copies: %s", got)
	}
	// A loaded model is unloaded before its file goes.
	if status, body := send(t, "DELETE", hs.URL+"/api/delete", `{"model":"mine:latest"}`); status != 200 {
		t.Errorf("delete: %d %s", status, body)
	}
	if status, body := send(t, "DELETE", hs.URL+"/api/delete", `{"name":"mine"}`); status != 404 || !strings.Contains(body, `"error"`) {
		t.Errorf("delete again: %d %s", status, body)
	}
	if got := tagNames(t, hs.URL); got != "third:latest,yours:latest" {
		t.Errorf("tags after delete: %s", got)
	}
	if status, v := post(t, hs.URL+"/api/generate", `{"model":"yours","prompt":"the cat","stream":false,"options":{"num_predict":2}}`); status != 200 {
		t.Errorf("generate on the copy: %d %v", status, v)
	}
}

// TestOllamaModelErrors checks the management endpoints' errors: Ollama's
// {"error": ...} with the status for each.
func TestOllamaModelErrors(t *testing.T) {
	_, hs, lib := newLibraryServer(t)
	junk := []byte("not a model at all")
	sum := sha256.Sum256(junk)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if status, _ := send(t, "POST", hs.URL+"/api/blobs/"+digest, string(junk)); status != 201 {
		t.Fatalf("push: %d", status)
	}
	missing := "sha256:" + strings.Repeat("1", 64)
	for _, c := range []struct {
		name, method, path, body string
		status                   int
	}{
		{"create of a blob that is not a model", "POST", "/api/create", `{"model":"x","files":{"x.gguf":"` + digest + `"}}`, 400},
		{"create of a missing blob", "POST", "/api/create", `{"model":"x","files":{"x.gguf":"` + missing + `"}}`, 400},
		{"create with a bad digest", "POST", "/api/create", `{"model":"x","files":{"x.gguf":"sha256:1"}}`, 400},
		{"create of two files", "POST", "/api/create", `{"model":"x","files":{"a.gguf":"` + digest + `","b.gguf":"` + digest + `"}}`, 400},
		{"create of a file not GGUF", "POST", "/api/create", `{"model":"x","files":{"x.safetensors":"` + digest + `"}}`, 400},
		{"create without a name", "POST", "/api/create", `{"files":{"x.gguf":"` + digest + `"}}`, 400},
		{"create with a template", "POST", "/api/create", `{"model":"x","from":"y","template":"{{ .Prompt }}"}`, 400},
		{"create with a modelfile", "POST", "/api/create", `{"model":"x","modelfile":"FROM y"}`, 400},
		{"create from a missing model", "POST", "/api/create", `{"model":"x","from":"nope"}`, 404},
		{"create with a bad name", "POST", "/api/create", `{"model":"../x","files":{"x.gguf":"` + digest + `"}}`, 400},
		{"copy of a missing model", "POST", "/api/copy", `{"source":"nope","destination":"x"}`, 404},
		{"copy without a destination", "POST", "/api/copy", `{"source":"nope"}`, 400},
		{"delete of a missing model", "DELETE", "/api/delete", `{"model":"nope"}`, 404},
		{"malformed JSON", "POST", "/api/create", `{"model":`, 400},
	} {
		status, body := send(t, c.method, hs.URL+c.path, c.body)
		var v struct {
			Error string `json:"error"`
		}
		if status != c.status || json.Unmarshal([]byte(body), &v) != nil || v.Error == "" {
			t.Errorf("%s: %d %s; want %d and an Ollama error", c.name, status, body, c.status)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(lib.Dir(), "*.gguf")); len(left) != 0 {
		t.Errorf("files left in the library: %v", left)
	}
	// Without a library, management is not there to use.
	_, plain := newTestServer(t, Config{})
	if status, body := send(t, "DELETE", plain.URL+"/api/delete", `{"model":"tiny"}`); status != 501 || !strings.Contains(body, `"error"`) {
		t.Errorf("delete without a library: %d %s", status, body)
	}
}
