package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"saji/engine/library"
	"saji/engine/offload"
	"saji/engine/scheduler"
)

// newDirServer serves a models folder holding the tiny model as a.gguf and
// b.gguf, with cfg.Load's GPU and GPU layers (none by default).
func newDirServer(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range []string{"a", "b"} {
		if err := os.Symlink(path, filepath.Join(dir, n+".gguf")); err != nil {
			t.Fatal(err)
		}
	}
	cfg.ModelsDir = dir
	cfg.Load = LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2},
		GPU: cfg.Load.GPU, GPULayers: cfg.Load.GPULayers}
	s := New(cfg)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		s.Close()
	})
	return s, hs
}

func loadedNames(s *Server) string {
	var names []string
	for _, m := range s.Models() {
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
	s, hs := newDirServer(t, Config{MaxLoaded: 1, KeepAlive: -1})
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
	time.Sleep(grace + 100*time.Millisecond) // a is no longer "just used"
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
	s, hs := newDirServer(t, Config{KeepAlive: 300 * time.Millisecond, SweepEvery: 20 * time.Millisecond, MaxLoaded: 2})
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
	s := New(Config{Remotes: map[string]Remote{"big": {URL: upstream.URL + "/v1", APIKey: "up-key", Model: "tiny"}}})
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
	bad := New(Config{Remotes: map[string]Remote{"gone": {URL: "http://127.0.0.1:1"}}})
	defer bad.Close()
	rec := httptest.NewRecorder()
	req := httptest.NewRequestWithContext(context.Background(), "POST", "/v1/chat/completions",
		strings.NewReader(`{"model":"gone","messages":[{"role":"user","content":"hi"}]}`))
	bad.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusBadGateway {
		t.Errorf("an unreachable remote: status %d", rec.Code)
	}
}

// TestMemoryEviction unloads an idle model when memory is short of the
// next one, even under MaxLoaded.
func TestMemoryEviction(t *testing.T) {
	var avail atomic.Uint64
	avail.Store(1 << 40)
	s, hs := newDirServer(t, Config{MaxLoaded: 4, KeepAlive: -1, Available: avail.Load})
	ask := func(model string) {
		t.Helper()
		if status, v := post(t, hs.URL+"/v1/completions", `{"model":"`+model+`","prompt":"the cat","max_tokens":2}`); status != 200 {
			t.Fatalf("%s: %d %v", model, status, v)
		}
	}
	ask("a")
	time.Sleep(grace + 100*time.Millisecond)
	avail.Store(1) // nothing left
	ask("b")
	if loadedNames(s) != "b" {
		t.Errorf("loaded %q: a should have made room", loadedNames(s))
	}
}

// TestLibrary serves a library holding the tiny model by reference: it is
// listed without loading, and a request naming it loads it.
func TestLibrary(t *testing.T) {
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e, err := lib.Import(context.Background(), path, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{Library: lib, Load: LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}}})
	defer s.Close()
	cat := s.Catalog()
	if len(cat) != 1 || cat[0].Name != e.Name || cat[0].Path != path || cat[0].Info.Arch == "" {
		t.Fatalf("catalog %+v, want the library's %q", cat, e.Name)
	}
	if loadedNames(s) != "" {
		t.Fatalf("loaded %q before any request", loadedNames(s))
	}
	m, err := s.Model(e.Name)
	if err != nil {
		t.Fatal(err)
	}
	if m.Path != path || loadedNames(s) != e.Name {
		t.Errorf("loaded %q from %s", loadedNames(s), m.Path)
	}
	if _, err := s.Model("missing"); err == nil {
		t.Error("a name the library does not hold loaded")
	}
	if !s.Unload(e.Name) || loadedNames(s) != "" || s.Unload(e.Name) {
		t.Errorf("Unload left %q loaded", loadedNames(s))
	}
}

// TestMemoryNeed checks the RAM a load is counted for: the file and a
// quarter of it for the KV cache, less the share of the layers a GPU of
// its own holds.
func TestMemoryNeed(t *testing.T) {
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	all := st.Size() + st.Size()/4
	discrete := offload.NewRegistry(offload.Platform{Name: "Fake"})
	unified := offload.NewRegistry(offload.Platform{Name: "Fake", Unified: true})
	for _, tc := range []struct {
		name  string
		reg   *offload.Registry
		split offload.Split
		onGPU bool
		want  int64
	}{
		{"CPU", discrete, offload.Split{Of: 4}, false, all},
		{"all on the GPU", discrete, offload.Split{Layers: 4, Of: 4, Output: true}, true, 0},
		{"half on the GPU", discrete, offload.Split{Layers: 2, Of: 4}, true, all / 2},
		{"unified memory", unified, offload.Split{Layers: 4, Of: 4, Output: true}, true, all},
	} {
		s := New(Config{Load: LoadOptions{GPU: tc.reg}})
		if got := s.memoryNeed(path, tc.split, tc.onGPU); got != tc.want {
			t.Errorf("%s: %d bytes, want %d", tc.name, got, tc.want)
		}
		s.Close()
	}
}
