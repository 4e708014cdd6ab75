package hub_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"saji/engine/hub"
	"saji/engine/hub/hubtest"
)

// payload is deterministic file content of n bytes.
func payload(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

const card = `---
license: apache-2.0
base_model:
- meta-llama/Llama-3.2-1B-Instruct
tags:
- gguf
---

# Llama 3.2 1B Instruct GGUF

![logo](https://example.com/logo.png)

Quantized versions of [Llama 3.2 1B Instruct](https://huggingface.co/meta-llama/Llama-3.2-1B-Instruct) made with **llama.cpp**.

## Files

| File | Size |
|------|------|
| a    | 1    |
`

// newHub returns a fake hub with a few repositories and a client for it.
func newHub(t *testing.T) (*hubtest.Hub, *hub.Client) {
	t.Helper()
	h := hubtest.New(t)
	h.AddRepo("bartowski/Llama-3.2-1B-Instruct-GGUF", map[string][]byte{
		"Llama-3.2-1B-Instruct-Q4_K_M.gguf": payload(3000, 1),
		"Llama-3.2-1B-Instruct-Q8_0.gguf":   payload(5000, 2),
		"Llama-3.2-1B-Instruct-f16.gguf":    payload(9000, 3),
		"config.json":                       []byte(`{}`),
	}, hubtest.RepoOptions{Downloads: 500, Likes: 20, License: "llama3.2", Card: card, BaseModel: "meta-llama/Llama-3.2-1B-Instruct", Architecture: "llama", ContextLength: 131072, Parameters: 1_235_814_432})
	h.AddRepo("Qwen/Qwen2.5-7B-Instruct-GGUF", map[string][]byte{
		"qwen2.5-7b-instruct-q4_k_m-00001-of-00002.gguf": payload(4000, 4),
		"qwen2.5-7b-instruct-q4_k_m-00002-of-00002.gguf": payload(1000, 5),
	}, hubtest.RepoOptions{Downloads: 900, Likes: 5})
	h.AddRepo("meta-llama/Llama-3.2-1B", map[string][]byte{
		"model.safetensors": payload(100, 6),
	}, hubtest.RepoOptions{Downloads: 10000, Likes: 900, Gated: true, License: "llama3.2"})
	h.AddRepo("someone/gated-GGUF", map[string][]byte{
		"m-Q4_K_M.gguf": payload(100, 7),
	}, hubtest.RepoOptions{Downloads: 1, Likes: 1, Gated: true, Card: "A gated model."})
	return h, &hub.Client{Endpoint: h.URL}
}

func TestSearch(t *testing.T) {
	h, c := newHub(t)
	ctx := context.Background()
	tests := []struct {
		name string
		opts hub.SearchOptions
		want []string
	}{
		{"gguf by downloads", hub.SearchOptions{GGUFOnly: true}, []string{"Qwen/Qwen2.5-7B-Instruct-GGUF", "bartowski/Llama-3.2-1B-Instruct-GGUF", "someone/gated-GGUF"}},
		{"all by likes", hub.SearchOptions{Sort: "likes"}, []string{"meta-llama/Llama-3.2-1B", "bartowski/Llama-3.2-1B-Instruct-GGUF", "Qwen/Qwen2.5-7B-Instruct-GGUF", "someone/gated-GGUF"}},
		{"query", hub.SearchOptions{Query: "llama 1b", GGUFOnly: true}, []string{"bartowski/Llama-3.2-1B-Instruct-GGUF"}},
		{"updated", hub.SearchOptions{Sort: "updated", GGUFOnly: true}, []string{"someone/gated-GGUF", "Qwen/Qwen2.5-7B-Instruct-GGUF", "bartowski/Llama-3.2-1B-Instruct-GGUF"}},
		{"limit", hub.SearchOptions{Limit: 1, GGUFOnly: true}, []string{"Qwen/Qwen2.5-7B-Instruct-GGUF"}},
		{"trending", hub.SearchOptions{Sort: "Trending", Limit: 2}, []string{"meta-llama/Llama-3.2-1B", "bartowski/Llama-3.2-1B-Instruct-GGUF"}},
		{"none", hub.SearchOptions{Query: "nothing-like-this"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Search(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, m := range got {
				ids = append(ids, m.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", ids, tt.want)
			}
		})
	}
	got, err := c.Search(ctx, hub.SearchOptions{Query: "gated", GGUFOnly: true})
	if err != nil || len(got) != 1 {
		t.Fatalf("Search(gated) = %v, %v", got, err)
	}
	m := got[0]
	if m.Author != "someone" || !m.Gated || m.Downloads != 1 || m.Likes != 1 || m.LastModified.IsZero() || m.PipelineTag != "text-generation" || !contains(m.Tags, "gguf") {
		t.Errorf("summary = %+v", m)
	}
	if _, err := c.Search(ctx, hub.SearchOptions{Sort: "size"}); err == nil {
		t.Error("unknown sort: no error")
	}
	// The query is shaped as the real API wants it.
	reqs := h.Requests()
	var q string
	for _, r := range reqs {
		if r.Path == "/api/models" {
			q = r.Query
		}
	}
	for _, want := range []string{"filter=gguf", "sort=downloads", "direction=-1", "limit=20", "search=gated", "expand=gated", "expand=lastModified"} {
		if !strings.Contains(q, want) {
			t.Errorf("query %q lacks %q", q, want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestModel(t *testing.T) {
	h, c := newHub(t)
	ctx := context.Background()
	m, err := c.Model(ctx, "bartowski/Llama-3.2-1B-Instruct-GGUF")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "bartowski/Llama-3.2-1B-Instruct-GGUF" || m.Author != "bartowski" || m.SHA != h.Commit(m.ID) ||
		m.Gated || m.Downloads != 500 || m.Likes != 20 || m.License != "llama3.2" ||
		m.BaseModel != "meta-llama/Llama-3.2-1B-Instruct" || m.LastModified.IsZero() {
		t.Errorf("model = %+v", m)
	}
	if m.GGUF == nil || m.GGUF.Architecture != "llama" || m.GGUF.ContextLength != 131072 || m.GGUF.Parameters != 1_235_814_432 {
		t.Errorf("gguf = %+v", m.GGUF)
	}
	g, err := c.Model(ctx, "meta-llama/Llama-3.2-1B")
	if err != nil {
		t.Fatal(err)
	}
	if !g.Gated || g.GGUF != nil || g.License != "llama3.2" {
		t.Errorf("gated model = %+v", g)
	}
	_, err = c.Model(ctx, "nobody/nothing")
	if !errors.Is(err, hub.ErrNotFound) || !strings.HasPrefix(err.Error(), "hub: ") {
		t.Errorf("missing repo: %v", err)
	}
	if _, err := c.Model(ctx, "../etc"); err == nil {
		t.Error("bad repo id: no error")
	}
}

func TestFiles(t *testing.T) {
	for _, pageSize := range []int{0, 1, 2, 100} {
		t.Run(fmt.Sprint("page", pageSize), func(t *testing.T) {
			h, c := newHub(t)
			h.SetPageSize(pageSize)
			h.AddRepo("x/deep", map[string][]byte{
				"Q4_K_M/m-Q4_K_M-00001-of-00002.gguf": payload(10, 1),
				"Q4_K_M/m-Q4_K_M-00002-of-00002.gguf": payload(20, 2),
				"README.md":                           []byte("hi"),
				"a/b/c.txt":                           []byte("c"),
			}, hubtest.RepoOptions{})
			files, err := c.Files(context.Background(), "x/deep", "")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range files {
				got = append(got, fmt.Sprintf("%s:%d:%t", f.Path, f.Size, f.SHA256 != ""))
				if f.OID == "" {
					t.Errorf("%s: no oid", f.Path)
				}
			}
			want := "[Q4_K_M/m-Q4_K_M-00001-of-00002.gguf:10:true Q4_K_M/m-Q4_K_M-00002-of-00002.gguf:20:true README.md:2:false a/b/c.txt:1:false]"
			if fmt.Sprint(got) != want {
				t.Errorf("got %v\nwant %v", got, want)
			}
			if files[0].SHA256 != sha(payload(10, 1)) {
				t.Errorf("sha256 = %s", files[0].SHA256)
			}
			pages := 0
			for _, r := range h.Requests() {
				if strings.HasPrefix(r.Path, "/api/models/x/deep/tree/") {
					pages++
				}
			}
			// 7 entries: 3 folders (Q4_K_M, a, a/b) and 4 files.
			wantPages := 1
			if pageSize > 0 {
				wantPages = (7 + pageSize - 1) / pageSize
			}
			if pages != wantPages {
				t.Errorf("%d pages, want %d", pages, wantPages)
			}
		})
	}
	_, c := newHub(t)
	if _, err := c.Files(context.Background(), "bartowski/Llama-3.2-1B-Instruct-GGUF", "nope"); !errors.Is(err, hub.ErrNotFound) {
		t.Errorf("bad revision: %v", err)
	}
}

func TestCard(t *testing.T) {
	_, c := newHub(t)
	ctx := context.Background()
	cd, err := c.Card(ctx, "bartowski/Llama-3.2-1B-Instruct-GGUF")
	if err != nil {
		t.Fatal(err)
	}
	want := hub.Card{
		Summary:   "Quantized versions of Llama 3.2 1B Instruct made with llama.cpp.",
		License:   "apache-2.0",
		BaseModel: "meta-llama/Llama-3.2-1B-Instruct",
	}
	if cd != want {
		t.Errorf("card = %+v\nwant %+v", cd, want)
	}
	// A gated repository's card is public.
	if cd, err := c.Card(ctx, "someone/gated-GGUF"); err != nil || cd.Summary != "A gated model." {
		t.Errorf("gated card = %+v, %v", cd, err)
	}
	// No README: an empty card.
	if cd, err := c.Card(ctx, "Qwen/Qwen2.5-7B-Instruct-GGUF"); err != nil || cd != (hub.Card{}) {
		t.Errorf("no card = %+v, %v", cd, err)
	}
	if _, err := c.Card(ctx, "nobody/nothing"); !errors.Is(err, hub.ErrNotFound) {
		t.Errorf("missing repo: %v", err)
	}
}

// TestResolve downloads through the resolve redirect with a token and a
// Range, and checks the token reached the hub but not the CDN.
func TestResolve(t *testing.T) {
	h, _ := newHub(t)
	h.SetToken("hf_secret")
	c := &hub.Client{Endpoint: h.URL + "/", Token: "hf_secret"}
	ctx := context.Background()
	repo, file := "someone/gated-GGUF", "m-Q4_K_M.gguf"
	u := c.FileURL(repo, "", file)
	if want := h.URL + "/someone/gated-GGUF/resolve/main/m-Q4_K_M.gguf"; u != want {
		t.Fatalf("FileURL = %s, want %s", u, want)
	}
	req, err := c.NewRequest(ctx, http.MethodGet, u)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Range", "bytes=10-")
	resp, err := c.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := hub.CheckResponse(resp, repo); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, payload(100, 7)[10:]) {
		t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
	}
	if got := resp.Header.Get("Content-Range"); got != "bytes 10-99/100" {
		t.Errorf("Content-Range = %q", got)
	}
	var sawHub, sawCDN bool
	for _, r := range h.Requests() {
		switch r.Server {
		case "hub":
			if strings.Contains(r.Path, "/resolve/") {
				sawHub = true
				if !r.Auth {
					t.Error("the hub got no token")
				}
			}
		case "cdn":
			sawCDN = true
			if r.Auth {
				t.Error("the token was forwarded to the CDN")
			}
			if r.Range != "bytes=10-" {
				t.Errorf("CDN Range = %q", r.Range)
			}
		}
	}
	if !sawHub || !sawCDN {
		t.Errorf("requests: %+v", h.Requests())
	}

	// Plain net/http forwards the token to the same host on another port:
	// the fake's CDN refuses it, which is why HTTPClient exists.
	req, _ = c.NewRequest(ctx, http.MethodGet, u)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("net/http's own redirect: status %d, want the CDN's 400", resp.StatusCode)
	}

	// HEAD through the redirect reports the size; the 302 itself carries
	// the LFS metadata.
	req, _ = c.NewRequest(ctx, http.MethodHead, u)
	hc := c.HTTPClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = (&hub.Client{Endpoint: h.URL, Token: "hf_secret", HTTP: hc}).HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("X-Linked-Etag") != `"`+sha(payload(100, 7))+`"` ||
		resp.Header.Get("X-Linked-Size") != "100" || resp.Header.Get("X-Repo-Commit") != h.Commit(repo) {
		t.Errorf("HEAD: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestErrors(t *testing.T) {
	h, _ := newHub(t)
	h.SetToken("hf_right")
	ctx := context.Background()
	get := func(c *hub.Client, repo, file string) error {
		req, err := c.NewRequest(ctx, http.MethodGet, c.FileURL(repo, "main", file))
		if err != nil {
			return err
		}
		resp, err := c.HTTPClient().Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		return hub.CheckResponse(resp, repo)
	}
	anon := &hub.Client{Endpoint: h.URL}
	wrong := &hub.Client{Endpoint: h.URL, Token: "hf_wrong"}
	right := &hub.Client{Endpoint: h.URL, Token: "hf_right"}
	tests := []struct {
		name       string
		c          *hub.Client
		repo, file string
		want       error
		msg        string
	}{
		{"gated anonymous", anon, "someone/gated-GGUF", "m-Q4_K_M.gguf", hub.ErrGated, "accept the licence on " + h.URL + "/someone/gated-GGUF and set HF_TOKEN"},
		{"gated right token", right, "someone/gated-GGUF", "m-Q4_K_M.gguf", nil, ""},
		{"wrong token", wrong, "someone/gated-GGUF", "m-Q4_K_M.gguf", hub.ErrUnauthorized, "token in HF_TOKEN was refused"},
		{"missing repo", anon, "nobody/nothing", "x.gguf", hub.ErrNotFound, "repository not found"},
		{"missing file", anon, "bartowski/Llama-3.2-1B-Instruct-GGUF", "x.gguf", hub.ErrNotFound, "file not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := get(tt.c, tt.repo, tt.file)
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if err != nil && (!strings.HasPrefix(err.Error(), "hub: ") || !strings.Contains(err.Error(), tt.msg)) {
				t.Errorf("message %q lacks %q", err, tt.msg)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	h, c := newHub(t)
	ctx := context.Background()
	// Two 503s are retried (Retry-After: 0), a third is not.
	h.Fail("/api/models/Qwen/Qwen2.5-7B-Instruct-GGUF", 2, http.StatusServiceUnavailable)
	if _, err := c.Model(ctx, "Qwen/Qwen2.5-7B-Instruct-GGUF"); err != nil {
		t.Fatalf("after two 503s: %v", err)
	}
	h.Fail("/api/models/Qwen/Qwen2.5-7B-Instruct-GGUF", 3, http.StatusTooManyRequests)
	_, err := c.Model(ctx, "Qwen/Qwen2.5-7B-Instruct-GGUF")
	if !errors.Is(err, hub.ErrUnavailable) {
		t.Fatalf("after three 429s: %v", err)
	}
	// A 4xx is not retried.
	h.Fail("/api/models/Qwen/Qwen2.5-7B-Instruct-GGUF", 1, http.StatusBadRequest)
	if _, err := c.Model(ctx, "Qwen/Qwen2.5-7B-Instruct-GGUF"); err == nil || errors.Is(err, hub.ErrUnavailable) {
		t.Fatalf("400: %v", err)
	}
	if _, err := c.Model(ctx, "Qwen/Qwen2.5-7B-Instruct-GGUF"); err != nil {
		t.Fatalf("after the 400: %v", err)
	}
	n := 0
	for _, r := range h.Requests() {
		if r.Path == "/api/models/Qwen/Qwen2.5-7B-Instruct-GGUF" {
			n++
		}
	}
	if n != 3+3+1+1 {
		t.Errorf("%d requests, want 8", n)
	}
	// A cancelled context stops at once.
	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Model(ctx2, "Qwen/Qwen2.5-7B-Instruct-GGUF"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// A network error is wrapped.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	if _, err := (&hub.Client{Endpoint: dead.URL}).Model(context.Background(), "a/b"); err == nil || !strings.HasPrefix(err.Error(), "hub: ") {
		t.Errorf("dead server: %v", err)
	}
}

func TestNewClient(t *testing.T) {
	tests := []struct {
		name                         string
		endpoint, token, legacyToken string
		wantEndpoint, wantToken      string
	}{
		{"defaults", "", "", "", "https://huggingface.co", ""},
		{"mirror", "https://hf-mirror.com/", "hf_a", "", "https://hf-mirror.com", "hf_a"},
		{"legacy token", "", "", "hf_b", "https://huggingface.co", "hf_b"},
		{"HF_TOKEN wins", "", "hf_a", "hf_b", "https://huggingface.co", "hf_a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HF_ENDPOINT", tt.endpoint)
			t.Setenv("HF_TOKEN", tt.token)
			t.Setenv("HUGGING_FACE_HUB_TOKEN", tt.legacyToken)
			c := hub.NewClient()
			if c.Endpoint != tt.wantEndpoint || c.Token != tt.wantToken {
				t.Errorf("got %q %q", c.Endpoint, c.Token)
			}
			h := c.Header()
			if h.Get("User-Agent") == "" || (h.Get("Authorization") != "") != (tt.wantToken != "") ||
				tt.wantToken != "" && h.Get("Authorization") != "Bearer "+tt.wantToken {
				t.Errorf("header = %v", h)
			}
		})
	}
}

func TestFileURL(t *testing.T) {
	c := &hub.Client{Endpoint: "http://h.test/"}
	tests := []struct{ repo, rev, path, want string }{
		{"a/b", "", "m.gguf", "http://h.test/a/b/resolve/main/m.gguf"},
		{"a/b", "abc123", "Q4_K_M/m-00001-of-00002.gguf", "http://h.test/a/b/resolve/abc123/Q4_K_M/m-00001-of-00002.gguf"},
		{"a/b", "refs/pr/1", "a b/c#d?.gguf", "http://h.test/a/b/resolve/refs%2Fpr%2F1/a%20b/c%23d%3F.gguf"},
	}
	for _, tt := range tests {
		if got := c.FileURL(tt.repo, tt.rev, tt.path); got != tt.want {
			t.Errorf("FileURL(%q, %q, %q) = %s, want %s", tt.repo, tt.rev, tt.path, got, tt.want)
		}
	}
	if got := (&hub.Client{}).FileURL("a/b", "main", "x"); got != "https://huggingface.co/a/b/resolve/main/x" {
		t.Errorf("zero client: %s", got)
	}
}

// TestRedirectToSubdomain checks the token does not follow a redirect to a
// subdomain of the endpoint (net/http would send it there) but does follow
// one back to the endpoint's host.
func TestRedirectToSubdomain(t *testing.T) {
	var mu sync.Mutex
	auth := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth[r.Host+r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		switch r.URL.Path {
		case "/start":
			http.Redirect(w, r, "/again", http.StatusFound) // same host
		case "/again":
			http.Redirect(w, r, "http://cdn.hub.test/blob", http.StatusFound)
		default:
			fmt.Fprint(w, "ok")
		}
	}))
	defer srv.Close()
	// Every host name reaches the test server.
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}}
	defer tr.CloseIdleConnections()
	c := &hub.Client{Endpoint: "http://hub.test", Token: "hf_x", HTTP: &http.Client{Transport: tr}}
	req, err := c.NewRequest(context.Background(), http.MethodGet, "http://hub.test/start")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	want := map[string]string{"hub.test/start": "Bearer hf_x", "hub.test/again": "Bearer hf_x", "cdn.hub.test/blob": ""}
	if fmt.Sprint(auth) != fmt.Sprint(want) {
		t.Errorf("Authorization seen: %v, want %v", auth, want)
	}
	// A request built for another host carries no token.
	other, _ := c.NewRequest(context.Background(), http.MethodGet, "http://cdn.hub.test/x")
	if other.Header.Get("Authorization") != "" {
		t.Error("NewRequest put the token on another host's request")
	}
}

func TestStat(t *testing.T) {
	h, c := newHub(t)
	ctx := context.Background()
	repo := "bartowski/Llama-3.2-1B-Instruct-GGUF"
	m, err := c.Stat(ctx, repo, "", "Llama-3.2-1B-Instruct-Q4_K_M.gguf")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.URL, h.CDNURL+"/") || m.Commit != h.Commit(repo) || m.SHA256 != sha(payload(3000, 1)) || m.ETag != m.SHA256 || m.Size != 3000 {
		t.Errorf("LFS file: %+v", m)
	}
	// The CDN URL works without the token.
	resp, err := http.Get(m.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(b, payload(3000, 1)) {
		t.Error("CDN URL: wrong bytes")
	}
	m, err = c.Stat(ctx, repo, h.Commit(repo), "config.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.URL != c.FileURL(repo, h.Commit(repo), "config.json") || m.SHA256 != "" || m.ETag == "" || m.Size != 2 {
		t.Errorf("git file: %+v", m)
	}
	for _, tt := range []struct {
		repo, file string
		want       error
	}{
		{"someone/gated-GGUF", "m-Q4_K_M.gguf", hub.ErrGated},
		{repo, "nope.gguf", hub.ErrNotFound},
		{"nobody/nothing", "x", hub.ErrNotFound},
	} {
		if _, err := c.Stat(ctx, tt.repo, "main", tt.file); !errors.Is(err, tt.want) {
			t.Errorf("Stat(%s, %s) = %v, want %v", tt.repo, tt.file, err, tt.want)
		}
	}
	// With the token, a gated file's metadata comes and the token does not
	// leave the hub.
	h.SetToken("hf_ok")
	tc := &hub.Client{Endpoint: h.URL, Token: "hf_ok"}
	if m, err := tc.Stat(ctx, "someone/gated-GGUF", "", "m-Q4_K_M.gguf"); err != nil || m.Size != 100 {
		t.Errorf("gated with token: %+v, %v", m, err)
	}
	for _, r := range h.Requests() {
		if r.Server == "cdn" && r.Auth {
			t.Error("token sent to the CDN")
		}
	}
}
