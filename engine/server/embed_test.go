package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"saji/engine/scheduler"
)

// TestEmbeddings checks both dialects' embeddings: unit vectors of the
// model's width, the same for the same text, different for another, as
// floats or base64, and the error paths.
func TestEmbeddings(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	status, v := post(t, hs.URL+"/v1/embeddings", `{"model":"tiny","input":["the cat","the cat","a mat"]}`)
	if status != 200 || v["object"] != "list" {
		t.Fatalf("%d %v", status, v)
	}
	data := v["data"].([]any)
	if len(data) != 3 {
		t.Fatalf("%d embeddings", len(data))
	}
	vec := func(i int) []float64 {
		var out []float64
		for _, x := range data[i].(map[string]any)["embedding"].([]any) {
			out = append(out, x.(float64))
		}
		return out
	}
	a, b, c := vec(0), vec(1), vec(2)
	if len(a) != 256 {
		t.Errorf("%d dimensions, want the model's 256", len(a))
	}
	norm, same, diff := 0.0, true, false
	for i := range a {
		norm += a[i] * a[i]
		same = same && a[i] == b[i]
		diff = diff || a[i] != c[i]
	}
	if math.Abs(norm-1) > 1e-5 || !same || !diff {
		t.Errorf("norm %v, same text same vector %v, other text other vector %v", norm, same, diff)
	}
	if u := v["usage"].(map[string]any); u["prompt_tokens"].(float64) <= 0 {
		t.Errorf("usage %v", u)
	}
	status, v = post(t, hs.URL+"/v1/embeddings", `{"model":"tiny","input":"the cat","encoding_format":"base64"}`)
	if status != 200 {
		t.Fatalf("base64: %d %v", status, v)
	}
	raw, err := base64.StdEncoding.DecodeString(v["data"].([]any)[0].(map[string]any)["embedding"].(string))
	if err != nil || len(raw) != 4*256 {
		t.Errorf("base64 embedding: %d bytes, %v", len(raw), err)
	}
	status, v = post(t, hs.URL+"/api/embed", `{"model":"tiny:latest","input":["the cat","a mat"]}`)
	if status != 200 || len(v["embeddings"].([]any)) != 2 || v["prompt_eval_count"].(float64) <= 0 {
		t.Errorf("ollama embed: %d %v", status, v)
	}
	// The legacy /api/embeddings: one prompt, the same vector as /api/embed.
	status, legacy := post(t, hs.URL+"/api/embeddings", `{"model":"tiny","prompt":"the cat","keep_alive":"5m"}`)
	if e, ok := legacy["embedding"].([]any); status != 200 || !ok || len(e) != 256 || e[0].(float64) != a[0] {
		t.Errorf("ollama embeddings: %d %v", status, legacy)
	}
	if status, v := post(t, hs.URL+"/api/embeddings", `{"model":"tiny","prompt":""}`); status != 200 || len(v["embedding"].([]any)) != 0 {
		t.Errorf("ollama embeddings of an empty prompt: %d %v", status, v)
	}
	for _, bad := range []struct {
		path, body string
		status     int
	}{
		{"/api/embeddings", `{"model":"nope","prompt":"x"}`, 404},
		{"/api/embeddings", `{"model":"tiny","prompt":5}`, 400},
		{"/api/embeddings", `{"model":"tiny","prompt":"x","keep_alive":"soon"}`, 400},
	} {
		status, v := post(t, hs.URL+bad.path, bad.body)
		if _, ok := v["error"].(string); status != bad.status || !ok {
			t.Errorf("%s %s: %d %v; want %d and an Ollama error", bad.path, bad.body, status, v, bad.status)
		}
	}
	for _, bad := range []struct{ path, body string }{
		{"/v1/embeddings", `{"model":"tiny","input":[]}`},
		{"/v1/embeddings", `{"model":"tiny","input":5}`},
		{"/v1/embeddings", `{"model":"tiny","input":"x","dimensions":3}`},
		{"/v1/embeddings", `{"model":"tiny","input":[[1,99999]]}`},
		{"/api/embed", `{"model":"tiny","input":[]}`},
	} {
		if status, v := post(t, hs.URL+bad.path, bad.body); status != 400 {
			t.Errorf("%s %s: %d %v", bad.path, bad.body, status, v)
		}
	}
}

// TestEmbeddingsDuringUnload unloads a model while embeddings run on it:
// Unload cancels them and waits for them before it frees the weights, each
// request ends with its vectors or a 503 saying the model was unloaded,
// and the model is busy (not evicted) while one runs.
func TestEmbeddingsDuringUnload(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	m, err := s.Runner().Model("tiny")
	if err != nil {
		t.Fatal(err)
	}
	var inputs []string
	for i := range 64 {
		inputs = append(inputs, fmt.Sprintf(`"text number %d, long enough to take a while to embed"`, i))
	}
	body := `{"model":"tiny","input":[` + strings.Join(inputs, ",") + `]}`
	statuses := make(chan int, 3)
	for range cap(statuses) {
		go func() {
			resp, err := http.Post(hs.URL+"/v1/embeddings", "application/json", strings.NewReader(body))
			if err != nil {
				t.Error(err)
				statuses <- 0
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		}()
	}
	deadline := time.Now().Add(30 * time.Second)
	for !m.Busy() {
		if time.Now().After(deadline) {
			t.Fatal("no embedding started")
		}
		time.Sleep(time.Millisecond)
	}
	if !s.Runner().Unload("tiny") {
		t.Fatal("Unload found no model")
	}
	if m.Busy() {
		t.Error("Unload returned with embeddings still running")
	}
	for range cap(statuses) {
		st := <-statuses
		if st != 200 && st != 503 && st != 404 {
			t.Errorf("an embedding during the unload ended with %d", st)
		}
		t.Logf("an embedding during the unload: %d", st)
	}
	if _, _, err := m.Embed(context.Background(), []string{"x"}, nil, false); !errors.Is(err, scheduler.ErrClosed) {
		t.Errorf("embedding on an unloaded model: %v, want scheduler.ErrClosed", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("closing twice: %v", err)
	}
}
