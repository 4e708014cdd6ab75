package server

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"saji/engine/download"
	"saji/engine/hub/hubtest"
	"saji/engine/library"
	"saji/engine/runner"
	"saji/engine/scheduler"
)

// newPullServer serves a runner over an empty library, pulling from a fake
// hub that holds owner/tiny-GGUF (the tiny model as Q8_0 and F16 files)
// and owner/f16-GGUF (as an F16 file alone).
func newPullServer(t *testing.T) (*httptest.Server, *hubtest.Hub, *library.Library, *download.Manager) {
	t.Helper()
	data := tinyData(t)
	fake := hubtest.New(t)
	fake.AddRepo("owner/tiny-GGUF", map[string][]byte{"tiny-Q8_0.gguf": data, "tiny-F16.gguf": data, "README.md": []byte("# tiny")}, hubtest.RepoOptions{})
	fake.AddRepo("owner/f16-GGUF", map[string][]byte{"f16-model-F16.gguf": data}, hubtest.RepoOptions{})
	t.Setenv("HF_ENDPOINT", fake.URL)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := download.New(download.Options{StateDir: t.TempDir(), Backoff: time.Millisecond, MaxBackoff: time.Millisecond, Retries: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mgr.Close() }) // after the server's
	rn := runner.New(runner.Config{Library: lib, Load: runner.LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}}})
	_, hs := serveRunner(t, rn, Config{Downloads: func() (*download.Manager, error) { return mgr, nil }})
	return hs, fake, lib, mgr
}

// pullLines posts a pull and returns the status and the answer's lines.
func pullLines(t *testing.T, url, body string) (int, []map[string]any) {
	t.Helper()
	resp, err := http.Post(url+"/api/pull", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, v)
	}
	return resp.StatusCode, lines
}

// TestOllamaPull pulls from the fake hub as Ollama's clients do: streamed
// status lines from "pulling manifest" to "success", the model in the
// library under its file's name and usable by the name pulled; a second
// pull finds it there; stream false answers one line.
func TestOllamaPull(t *testing.T) {
	hs, _, lib, _ := newPullServer(t)
	status, lines := pullLines(t, hs.URL, `{"model":"hf.co/owner/tiny-GGUF:Q8_0"}`)
	if status != 200 || len(lines) < 4 {
		t.Fatalf("pull: %d %v", status, lines)
	}
	if lines[0]["status"] != "pulling manifest" || lines[len(lines)-1]["status"] != "success" {
		t.Errorf("first and last lines: %v, %v", lines[0], lines[len(lines)-1])
	}
	var sawLayer bool
	for _, l := range lines {
		if s, _ := l["status"].(string); strings.HasPrefix(s, "pulling ") && s != "pulling manifest" {
			sawLayer = true
			if d, _ := l["digest"].(string); !strings.HasPrefix(d, "sha256:") || l["total"] == nil || !strings.HasSuffix(d, s[len("pulling "):]+d[len("sha256:")+12:]) {
				t.Errorf("layer line %v", l)
			}
		}
		if l["error"] != nil {
			t.Errorf("error line %v", l)
		}
	}
	if last := lines[len(lines)-2]; !sawLayer || last["status"] != "writing manifest" {
		t.Errorf("lines %v", lines)
	}
	if e, err := lib.Get("tiny-Q8_0"); err != nil || e.Err != nil {
		t.Fatalf("the pulled model in the library: %+v %v", e, err)
	}
	if got := tagNames(t, hs.URL); got != "tiny-Q8_0:latest" {
		t.Errorf("tags: %s", got)
	}
	for _, name := range []string{"hf.co/owner/tiny-GGUF:Q8_0", "tiny-Q8_0:latest"} {
		if status, v := post(t, hs.URL+"/api/generate", `{"model":"`+name+`","prompt":"the cat","stream":false,"options":{"num_predict":2}}`); status != 200 || v["done"] != true {
			t.Errorf("generate on %s: %d %v", name, status, v)
		}
	}
	// Pulled again: in the library already; without a level: Q4_K_M is
	// missing, so the repository's level; stream false: one line.
	status, lines = pullLines(t, hs.URL, `{"name":"hf.co/owner/tiny-GGUF:Q8_0","stream":false}`)
	if status != 200 || len(lines) != 1 || lines[0]["status"] != "success" {
		t.Errorf("pull again: %d %v", status, lines)
	}
	status, lines = pullLines(t, hs.URL, `{"model":"hf.co/owner/f16-GGUF:latest"}`)
	if status != 200 || lines[len(lines)-1]["status"] != "success" {
		t.Errorf("pull without a level: %d %v", status, lines)
	}
	if e, err := lib.Get("hf.co/owner/f16-GGUF"); err != nil || e.Name != "f16-model-F16" {
		t.Errorf("pull without a level took %+v, %v; want the F16 file", e, err)
	}
	// Deleting by the name pulled deletes the model.
	if status, body := send(t, "DELETE", hs.URL+"/api/delete", `{"model":"hf.co/owner/tiny-GGUF:Q8_0"}`); status != 200 {
		t.Errorf("delete by the pulled name: %d %s", status, body)
	}
	if got := tagNames(t, hs.URL); got != "f16-model-F16:latest" {
		t.Errorf("tags after delete: %s", got)
	}
}

// TestOllamaPullErrors checks a pull's errors: before the answer starts,
// Ollama's {"error": ...} with a status; during it, an error line.
func TestOllamaPullErrors(t *testing.T) {
	hs, fake, lib, _ := newPullServer(t)
	for _, c := range []struct {
		name, body string
		status     int
	}{
		{"an Ollama registry name", `{"model":"llama3.2"}`, 400},
		{"a repository that is not there", `{"model":"hf.co/owner/missing-GGUF"}`, 404},
		{"a level that is not there", `{"model":"hf.co/owner/tiny-GGUF:Q2_K"}`, 404},
		{"malformed JSON", `{"model":`, 400},
	} {
		status, lines := pullLines(t, hs.URL, c.body)
		if status != c.status || len(lines) != 1 || lines[0]["error"] == nil {
			t.Errorf("%s: %d %v; want %d and an Ollama error", c.name, status, lines, c.status)
		}
	}
	// A file that keeps arriving corrupted fails its checksum: the stream
	// ends with an error line, and nothing enters the library.
	fake.Corrupt("/owner/tiny-GGUF/resolve/main/tiny-Q8_0.gguf", 100)
	status, lines := pullLines(t, hs.URL, `{"model":"hf.co/owner/tiny-GGUF:Q8_0"}`)
	if status != 200 || len(lines) == 0 || lines[len(lines)-1]["error"] == nil {
		t.Errorf("a corrupted download: %d %v", status, lines)
	}
	if es, _ := lib.List(); len(es) != 0 {
		t.Errorf("library after a failed pull: %v", es)
	}
	// Without a library there is nothing to pull into.
	_, plain := newTestServer(t, Config{})
	if status, lines := pullLines(t, plain.URL, `{"model":"hf.co/owner/tiny-GGUF:Q8_0"}`); status != 501 || lines[0]["error"] == nil {
		t.Errorf("pull without a library: %d %v", status, lines)
	}
}

// TestOllamaPullResumes leaves a pull midway: the download is paused, not
// lost, and the next pull of the name finishes it.
func TestOllamaPullResumes(t *testing.T) {
	hs, fake, lib, mgr := newPullServer(t)
	fake.Throttle(64 << 10) // about 40 s for the tiny model
	req, _ := http.NewRequest("POST", hs.URL+"/api/pull", strings.NewReader(`{"model":"hf.co/owner/tiny-GGUF:Q8_0"}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() { // up to a line of some progress
		var l pullStatus
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Completed > 0 {
			break
		}
	}
	resp.Body.Close() // the client goes
	waitFor(t, "the download to pause", func() bool {
		jobs := mgr.Jobs()
		return len(jobs) == 1 && jobs[0].Progress().State == download.Paused
	})
	if done := mgr.Jobs()[0].Progress().Done; done <= 0 {
		t.Errorf("paused with %d bytes", done)
	}
	fake.Throttle(0)
	status, lines := pullLines(t, hs.URL, `{"model":"hf.co/owner/tiny-GGUF:Q8_0"}`)
	if status != 200 || lines[len(lines)-1]["status"] != "success" {
		t.Fatalf("the pull again: %d %v", status, lines)
	}
	if e, err := lib.Get("hf.co/owner/tiny-GGUF:Q8_0"); err != nil || e.Err != nil {
		t.Errorf("the resumed model: %+v %v", e, err)
	}
}
