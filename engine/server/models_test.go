package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/synth/synthtest"
)

// newDirServer serves a models folder holding the tiny model as a.gguf and
// b.gguf through a runner of cfg, with cfg.Load's GPU and GPU layers (none
// by default).
func newDirServer(t *testing.T, cfg runner.Config) (*Server, *httptest.Server) {
	t.Helper()
	cfg.ModelsDir = synthtest.Folder(t, "q8_0", 3, "a", "b")
	cfg.Load = runner.LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2},
		GPU: cfg.Load.GPU, GPULayers: cfg.Load.GPULayers}
	return serveRunner(t, runner.New(cfg), Config{})
}

func loadedNames(s *Server) string {
	var names []string
	for _, m := range s.Runner().Models() {
		names = append(names, m.Name)
	}
	return strings.Join(names, ",")
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestLoadOnDemand lists the folder's models without loading them, loads
// one on first use, and makes room for another by unloading the least
// recently used idle one.
func TestLoadOnDemand(t *testing.T) {
	s, hs := newDirServer(t, runner.Config{MaxLoaded: 1, KeepAlive: -1})
	resp, err := http.Get(hs.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Data []struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Data) != 2 || list.Data[0].ID != "a" || loadedNames(s) != "" {
		t.Fatalf("models %+v, loaded %q", list.Data, loadedNames(s))
	}
	// Asking about one model (as a cross-site <img> could) loads nothing.
	for _, name := range []string{"b", "b:latest"} {
		resp, err := http.Get(hs.URL + "/v1/models/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var one struct{ ID string }
		json.NewDecoder(resp.Body).Decode(&one)
		resp.Body.Close()
		if resp.StatusCode != 200 || one.ID != "b" || loadedNames(s) != "" {
			t.Fatalf("GET /v1/models/%s: %d %+v, loaded %q", name, resp.StatusCode, one, loadedNames(s))
		}
	}
	ask := func(model string) {
		t.Helper()
		status, v := post(t, hs.URL+"/v1/completions", `{"model":"`+model+`","prompt":"the cat","max_tokens":2}`)
		if status != 200 {
			t.Fatalf("%s: %d %v", model, status, v)
		}
	}
	ask("a")
	if loadedNames(s) != "a" {
		t.Fatalf("loaded %q after a request to a", loadedNames(s))
	}
	time.Sleep(runner.Grace + 100*time.Millisecond) // a is no longer "just used"
	ask("b")
	if loadedNames(s) != "b" {
		t.Errorf("loaded %q after a request to b with room for one", loadedNames(s))
	}
	status, v := post(t, hs.URL+"/v1/completions", `{"model":"nope","prompt":"hi"}`)
	if status != 404 || !strings.Contains(v["error"].(map[string]any)["message"].(string), "a b") {
		t.Errorf("unknown model: %d %v", status, v)
	}
}

// TestKeepAlive unloads a folder model after its keep-alive, the default's
// or the request's (Ollama's keep_alive), and keeps pinned models.
func TestKeepAlive(t *testing.T) {
	s, hs := newDirServer(t, runner.Config{KeepAlive: 300 * time.Millisecond, SweepEvery: 20 * time.Millisecond, MaxLoaded: 2})
	status, _ := post(t, hs.URL+"/api/generate", `{"model":"a","prompt":"the cat","stream":false,"options":{"num_predict":2}}`)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	waitFor(t, "a to unload after the default keep-alive", func() bool { return loadedNames(s) == "" })
	status, _ = post(t, hs.URL+"/api/generate", `{"model":"b","prompt":"the cat","stream":false,"keep_alive":-1,"options":{"num_predict":2}}`)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	time.Sleep(500 * time.Millisecond)
	if loadedNames(s) != "b" {
		t.Errorf("keep_alive -1: loaded %q", loadedNames(s))
	}
	status, _ = post(t, hs.URL+"/api/generate", `{"model":"b","prompt":"the cat","stream":false,"keep_alive":"0s","options":{"num_predict":2}}`)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	waitFor(t, "b to unload after keep_alive 0", func() bool { return loadedNames(s) == "" })
	if status, _ := post(t, hs.URL+"/api/generate", `{"model":"a","prompt":"x","keep_alive":"soon"}`); status != 400 {
		t.Errorf("a bad keep_alive: status %d", status)
	}
}

// TestRemote forwards a model name to another OpenAI-compatible server,
// streaming passed through.
func TestRemote(t *testing.T) {
	_, upstream := newTestServer(t, Config{APIKeys: []string{"up-key"}})
	s := New(Config{Remotes: map[string]Remote{"big": {Upstreams: []Upstream{{URL: upstream.URL + "/v1", APIKey: "up-key", Model: "tiny"}}}}})
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	defer s.Close()
	status, v := post(t, hs.URL+"/v1/chat/completions", `{"model":"big","messages":[{"role":"user","content":"the cat"}],"max_tokens":3,"temperature":0}`)
	if status != 200 || v["model"] != "tiny" {
		t.Fatalf("forwarded chat: %d %v", status, v)
	}
	resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(
		`{"model":"big","messages":[{"role":"user","content":"the cat"}],"max_tokens":3,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	evs := events(t, resp.Body)
	resp.Body.Close()
	if len(evs) < 3 || evs[len(evs)-1] != "[DONE]" {
		t.Errorf("forwarded stream: %v", evs)
	}
	resp, err = http.Get(hs.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		}
	}
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Data) != 1 || list.Data[0].ID != "big" || list.Data[0].OwnedBy != "remote" {
		t.Errorf("models %+v", list.Data)
	}
	bad := New(Config{Remotes: map[string]Remote{"gone": {Upstreams: []Upstream{{URL: "http://127.0.0.1:1"}}}}})
	defer bad.Close()
	rec := httptest.NewRecorder()
	req := httptest.NewRequestWithContext(context.Background(), "POST", "/v1/chat/completions",
		strings.NewReader(`{"model":"gone","messages":[{"role":"user","content":"hi"}]}`))
	bad.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusBadGateway {
		t.Errorf("an unreachable remote: status %d", rec.Code)
	}
}

// TestLoadUnrunnable asks for a folder model Saji cannot run (a weight of
// a type no kernel computes with): its load fails with the reason, a 400
// that names the tensor rather than a 500 from its first matrix product,
// and the folder's other models are untouched.
func TestLoadUnrunnable(t *testing.T) {
	bad, err := synthtest.Unrunnable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := runner.Config{MaxLoaded: 1, KeepAlive: -1}
	cfg.ModelsDir = synthtest.Folder(t, "q8_0", 3, "a")
	if err := os.Symlink(bad, filepath.Join(cfg.ModelsDir, "q1.gguf")); err != nil {
		t.Fatal(err)
	}
	cfg.Load = runner.LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}}
	rn := runner.New(cfg)
	s := New(Config{Runner: rn})
	hs := httptest.NewServer(s.Handler())
	defer func() {
		hs.Close()
		s.Close()
		rn.Close()
	}()
	const want = "blk.0.ffn_up.weight is Q1_0, a type Saji cannot compute with yet"
	tests := []struct {
		name, path, body string
	}{
		{"openai", "/v1/completions", `{"model":"q1","prompt":"the cat","max_tokens":2}`},
		{"ollama", "/api/generate", `{"model":"q1","prompt":"the cat","stream":false}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, v := post(t, hs.URL+tc.path, tc.body)
			if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(v["error"]), want) {
				t.Errorf("status %d, %v; want 400 saying %q", status, v, want)
			}
			if loadedNames(s) != "" {
				t.Errorf("loaded %q", loadedNames(s))
			}
		})
	}
	if status, v := post(t, hs.URL+"/v1/completions", `{"model":"a","prompt":"the cat","max_tokens":2}`); status != 200 {
		t.Errorf("a: %d %v", status, v)
	}
}
