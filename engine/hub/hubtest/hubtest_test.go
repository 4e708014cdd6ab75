package hubtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func data(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func newFake(t *testing.T) (*Hub, string) {
	h := New(t)
	h.AddRepo("o/r", map[string][]byte{
		"m-Q4_K_M.gguf": data(1000),
		"README.md":     []byte("# Card\n\nHello."),
		"sub/x.txt":     []byte("x"),
	}, RepoOptions{Downloads: 3})
	h.AddRepo("o/gated", map[string][]byte{"m.gguf": data(10)}, RepoOptions{Gated: true, Card: "card"})
	sum := sha256.Sum256(data(1000))
	return h, hex.EncodeToString(sum[:])
}

// do sends a request with optional headers (name, value pairs).
func do(t *testing.T, method, url string, hdr ...string) (*http.Response, []byte, error) {
	t.Helper()
	return doWith(t, http.DefaultClient, method, url, hdr...)
}

// doWith is do with another client.
func doWith(t *testing.T, c *http.Client, method, url string, hdr ...string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func TestResolveAndRange(t *testing.T) {
	h, sha := newFake(t)
	u := h.URL + "/o/r/resolve/main/m-Q4_K_M.gguf"
	tests := []struct {
		name, rng    string
		status       int
		contentRange string
		body         []byte
	}{
		{"full", "", 200, "", data(1000)},
		{"range", "bytes=100-199", 206, "bytes 100-199/1000", data(1000)[100:200]},
		{"open range", "bytes=990-", 206, "bytes 990-999/1000", data(1000)[990:]},
		{"suffix", "bytes=-5", 206, "bytes 995-999/1000", data(1000)[995:]},
		{"past the end", "bytes=1000-", 416, "bytes */1000", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body, err := do(t, "GET", u, "Range", tt.rng)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Range") != tt.contentRange {
				t.Fatalf("status %d, Content-Range %q", resp.StatusCode, resp.Header.Get("Content-Range"))
			}
			if tt.body != nil && !bytes.Equal(body, tt.body) {
				t.Errorf("body: %d bytes", len(body))
			}
			if resp.StatusCode < 300 && resp.Header.Get("ETag") != `"`+sha+`"` {
				t.Errorf("ETag = %q", resp.Header.Get("ETag"))
			}
		})
	}
	// If-Range with another ETag gets the whole file.
	resp, body, err := do(t, "GET", u, "Range", "bytes=10-", "If-Range", `"other"`)
	if err != nil || resp.StatusCode != 200 || len(body) != 1000 {
		t.Errorf("If-Range mismatch: %v %v %d", err, resp.StatusCode, len(body))
	}
	// HEAD follows the redirect and reports the size.
	resp, body, err = do(t, "HEAD", u)
	if err != nil || resp.StatusCode != 200 || resp.ContentLength != 1000 || len(body) != 0 {
		t.Errorf("HEAD: %v %v %d", err, resp.StatusCode, resp.ContentLength)
	}
	// The redirect itself.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r2, err := noFollow.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	loc := r2.Header.Get("Location")
	if r2.StatusCode != http.StatusFound || !strings.HasPrefix(loc, h.CDNURL+"/lfs/"+sha) ||
		r2.Header.Get("X-Linked-Etag") != `"`+sha+`"` || r2.Header.Get("X-Linked-Size") != "1000" ||
		r2.Header.Get("X-Repo-Commit") != h.Commit("o/r") || len(h.Commit("o/r")) != 40 {
		t.Errorf("redirect: %d %v", r2.StatusCode, r2.Header)
	}
	// By commit id too.
	if resp, _, err := do(t, "GET", h.URL+"/o/r/resolve/"+h.Commit("o/r")+"/m-Q4_K_M.gguf"); err != nil || resp.StatusCode != 200 {
		t.Errorf("by commit: %v", err)
	}
	// A file kept in git is served by the hub itself, with Range.
	resp, body, err = do(t, "GET", h.URL+"/o/r/resolve/main/README.md", "Range", "bytes=2-5")
	if err != nil || resp.StatusCode != 206 || string(body) != "Card" || resp.Request.URL.Host != strings.TrimPrefix(h.URL, "http://") {
		t.Errorf("README: %v %d %q", err, resp.StatusCode, body)
	}
	// The CDN refuses an Authorization header, as pre-signed URLs do.
	resp, _, err = do(t, "GET", loc, "Authorization", "Bearer x")
	if err != nil || resp.StatusCode != 400 {
		t.Errorf("CDN with a token: %v %d", err, resp.StatusCode)
	}
}

func TestErrors(t *testing.T) {
	h, _ := newFake(t)
	h.SetToken("hf_t")
	tests := []struct {
		name, path, auth string
		status           int
		code             string
	}{
		{"no repo", "/x/y/resolve/main/a.gguf", "", 404, "RepoNotFound"},
		{"no file", "/o/r/resolve/main/a.gguf", "", 404, "EntryNotFound"},
		{"no revision", "/o/r/resolve/v2/m-Q4_K_M.gguf", "", 404, "RevisionNotFound"},
		{"no repo api", "/api/models/x/y", "", 404, "RepoNotFound"},
		{"no revision tree", "/api/models/o/r/tree/v2", "", 404, "RevisionNotFound"},
		{"no folder", "/api/models/o/r/tree/main/nope", "", 404, "EntryNotFound"},
		{"gated anonymous", "/o/gated/resolve/main/m.gguf", "", 401, "GatedRepo"},
		{"gated right token", "/o/gated/resolve/main/m.gguf", "Bearer hf_t", 302, ""},
		{"gated card is public", "/o/gated/resolve/main/README.md", "", 200, ""},
		{"gated info is public", "/api/models/o/gated", "", 200, ""},
		{"wrong token", "/api/models/o/r", "Bearer nope", 401, ""},
		{"page", "/nothing", "", 404, ""},
	}
	// Redirects are not followed: net/http would send the token on to the
	// CDN (same host name, other port), which refuses it.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body, err := doWith(t, noFollow, "GET", h.URL+tt.path, "Authorization", tt.auth)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || resp.Header.Get("X-Error-Code") != tt.code {
				t.Errorf("status %d code %q: %s", resp.StatusCode, resp.Header.Get("X-Error-Code"), body)
			}
			if tt.status >= 400 && resp.Header.Get("X-Error-Message") == "" {
				t.Error("no X-Error-Message")
			}
		})
	}
}

func TestSearchShape(t *testing.T) {
	h, _ := newFake(t)
	var list []map[string]any
	resp, body, err := do(t, "GET", h.URL+"/api/models?filter=gguf&sort=downloads&direction=-1")
	if err != nil || resp.StatusCode != 200 || json.Unmarshal(body, &list) != nil || len(list) != 2 {
		t.Fatalf("%v %s", err, body)
	}
	// Without expand, the real API lists no lastModified, author or gated.
	for _, k := range []string{"lastModified", "author", "gated"} {
		if _, ok := list[0][k]; ok {
			t.Errorf("default fields include %s", k)
		}
	}
	if list[0]["id"] != "o/r" || list[0]["downloads"] != 3.0 {
		t.Errorf("first = %v", list[0])
	}
	_, body, _ = do(t, "GET", h.URL+"/api/models?expand=gated&expand[]=author&search=GATED")
	list = nil
	if json.Unmarshal(body, &list) != nil || len(list) != 1 || list[0]["gated"] != "manual" || list[0]["author"] != "o" || list[0]["downloads"] != nil {
		t.Errorf("expanded: %s", body)
	}
	if resp, _, _ := do(t, "GET", h.URL+"/api/models?sort=size"); resp.StatusCode != 400 {
		t.Errorf("bad sort: %d", resp.StatusCode)
	}
}

func TestTree(t *testing.T) {
	h, sha := newFake(t)
	get := func(path string) []map[string]any {
		t.Helper()
		_, body, err := do(t, "GET", h.URL+path)
		var out []map[string]any
		if err != nil || json.Unmarshal(body, &out) != nil {
			t.Fatalf("%s: %v %s", path, err, body)
		}
		return out
	}
	top := get("/api/models/o/r/tree/main")
	var paths []string
	for _, e := range top {
		paths = append(paths, fmt.Sprint(e["type"], ":", e["path"]))
	}
	if fmt.Sprint(paths) != "[file:README.md file:m-Q4_K_M.gguf directory:sub]" {
		t.Errorf("top = %v", paths)
	}
	lfs, _ := top[1]["lfs"].(map[string]any)
	if lfs == nil || lfs["oid"] != sha || lfs["size"] != 1000.0 || lfs["pointerSize"].(float64) < 100 || top[1]["size"] != 1000.0 {
		t.Errorf("lfs entry = %v", top[1])
	}
	if top[0]["lfs"] != nil || len(top[0]["oid"].(string)) != 40 {
		t.Errorf("git entry = %v", top[0])
	}
	if sub := get("/api/models/o/r/tree/main/sub"); len(sub) != 1 || sub[0]["path"] != "sub/x.txt" {
		t.Errorf("sub = %v", sub)
	}
	if all := get("/api/models/o/r/tree/main?recursive=true"); len(all) != 4 {
		t.Errorf("recursive = %v", all)
	}
}

func TestFaults(t *testing.T) {
	h, sha := newFake(t)
	file := "/o/r/resolve/main/m-Q4_K_M.gguf"
	u := h.URL + file

	// Fail: the next n requests answer the status, then all is well.
	h.Fail(file, 2, 503)
	for i, want := range []int{503, 503, 200} {
		resp, _, err := do(t, "GET", u)
		if err != nil || resp.StatusCode != want {
			t.Fatalf("request %d: %v %v", i, err, resp.StatusCode)
		}
		if want == 503 && resp.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
	}
	// Fail on the CDN's own path.
	h.Fail("/lfs/"+sha, 1, 500)
	if resp, _, _ := do(t, "GET", u); resp.StatusCode != 500 || resp.Request.URL.Host == strings.TrimPrefix(h.URL, "http://") {
		t.Errorf("CDN fail: %d from %s", resp.StatusCode, resp.Request.URL.Host)
	}

	// CutAfter: the body stops after that many bytes, on the resolve path
	// (served by the CDN) and for a ranged request too.
	h.CutAfter(file, 300, 2)
	for _, rng := range []string{"", "bytes=500-"} {
		resp, body, err := do(t, "GET", u, "Range", rng)
		if resp == nil || !errors.Is(err, io.ErrUnexpectedEOF) || len(body) != 300 {
			t.Fatalf("cut (%q): err %v, %d bytes", rng, err, len(body))
		}
	}
	if _, body, err := do(t, "GET", u); err != nil || !bytes.Equal(body, data(1000)) {
		t.Errorf("after the cuts: %v", err)
	}
	// A cut after 0 bytes.
	h.CutAfter("/o/r/resolve/main/README.md", 0, 1)
	if _, _, err := do(t, "GET", h.URL+"/o/r/resolve/main/README.md"); err == nil {
		t.Error("cut at 0: no error")
	}

	// Corrupt: the first byte of the next transfer is flipped.
	h.Corrupt(file, 1)
	_, body, err := do(t, "GET", u, "Range", "bytes=10-19")
	want := bytes.Clone(data(1000)[10:20])
	want[0] ^= 0xff
	if err != nil || !bytes.Equal(body, want) {
		t.Errorf("corrupt: %v %v", err, body)
	}
	if _, body, _ := do(t, "GET", u); !bytes.Equal(body, data(1000)) {
		t.Error("still corrupt")
	}

	// Throttle keeps the bytes right (its speed is not asserted).
	h.Throttle(50_000)
	if _, body, err := do(t, "GET", u); err != nil || !bytes.Equal(body, data(1000)) {
		t.Errorf("throttled: %v", err)
	}
	h.Throttle(0)

	// The log saw it all, with ranges and no token anywhere.
	var cdn, ranged int
	for _, r := range h.Requests() {
		if r.Server == "cdn" {
			cdn++
		}
		if r.Range == "bytes=10-19" {
			ranged++
		}
		if r.Auth {
			t.Error("a request had a token")
		}
	}
	if cdn < 8 || ranged != 2 { // hub and CDN both saw the ranged request
		t.Errorf("cdn %d, ranged %d", cdn, ranged)
	}
}

// TestConcurrent fetches ranges in parallel while faults and repositories
// are added (run it with -race).
func TestConcurrent(t *testing.T) {
	h, _ := newFake(t)
	u := h.URL + "/o/r/resolve/main/m-Q4_K_M.gguf"
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 4 {
			case 0:
				h.AddRepo(fmt.Sprintf("c/r%d", i), map[string][]byte{"a.gguf": data(i)}, RepoOptions{})
			case 1:
				h.Corrupt("/c/none/resolve/main/a.gguf", 1)
				h.Throttle(0)
				h.SetPageSize(0)
			}
			start := i * 50
			resp, body, err := do(t, "GET", u, "Range", fmt.Sprintf("bytes=%d-%d", start, start+49))
			if err != nil {
				errs <- err
				return
			}
			if resp.StatusCode != 206 || !bytes.Equal(body, data(1000)[start:start+50]) {
				errs <- fmt.Errorf("range %d: status %d", start, resp.StatusCode)
			}
			_ = h.Requests()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
