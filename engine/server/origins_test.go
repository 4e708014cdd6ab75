package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// getWith GETs url after set has changed the request, and returns the
// response and its body.
func getWith(t *testing.T, url string, set func(*http.Request)) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	set(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// TestOrigins checks the CORS allowlist: every class of Ollama's default
// origins is allowed, others are refused in the dialect's error shape
// unless --cors adds them (exactly, or by a pattern).
func TestOrigins(t *testing.T) {
	_, hs := newTestServer(t, Config{CORSOrigins: []string{"https://ok.example", "https://*.corp.example"}})
	cases := []struct {
		origin string
		ok     bool
	}{
		{"http://localhost", true},
		{"http://localhost:3000", true},
		{"https://localhost:8443", true},
		{"http://127.0.0.1:5173", true},
		{"https://127.0.0.1", true},
		{"http://0.0.0.0:8080", true},
		{"http://[::1]:8080", true},
		{"HTTP://LOCALHOST:3000", true},
		{"app://obsidian.md", true},
		{"file://", true},
		{"tauri://localhost", true},
		{"vscode-webview://1a2b3c", true},
		{"vscode-file://vscode-app", true},
		{"chrome-extension://jfgfiigpkhlkbnfnbobbkinehhfdhndo", true},
		{"moz-extension://5d2b1c3e-aaaa-bbbb-cccc-1234567890ab", true},
		{"safari-web-extension://ABCDEF", true},
		{"https://ok.example", true},
		{"https://chat.corp.example", true},
		{"https://evil.example", false},
		{"http://localhost.evil.example", false},
		{"http://127.0.0.1.evil.example", false},
		{"http://localhost:80.evil.example", false},
		{"https://corp.example.evil.example", false},
		{"null", false},
		{"http://192.168.1.20:3000", false},
	}
	for _, c := range cases {
		for _, path := range []string{"/v1/models", "/api/tags"} {
			resp, body := getWith(t, hs.URL+path, func(r *http.Request) { r.Header.Set("Origin", c.origin) })
			switch {
			case c.ok && (resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != c.origin):
				t.Errorf("%s %s: status %d, allow-origin %q; want it allowed", c.origin, path, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
			case !c.ok && resp.StatusCode != 403:
				t.Errorf("%s %s: status %d; want 403", c.origin, path, resp.StatusCode)
			case !c.ok && strings.HasPrefix(path, "/api/") && !strings.HasPrefix(body, `{"error":"`):
				t.Errorf("%s %s: %s; want an Ollama error", c.origin, path, body)
			case !c.ok && strings.HasPrefix(path, "/v1/") && !strings.Contains(body, `"code":"cors_origin_not_allowed"`):
				t.Errorf("%s %s: %s; want an OpenAI error", c.origin, path, body)
			}
		}
	}
	// A preflight from an allowed origin gets the headers it asks for
	// (the SDKs' own), from another a 403.
	for _, c := range []struct {
		origin string
		status int
	}{{"chrome-extension://abc", 204}, {"https://evil.example", 403}} {
		req, _ := http.NewRequest("OPTIONS", hs.URL+"/v1/chat/completions", nil)
		req.Header.Set("Origin", c.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type,x-stainless-os,anthropic-version")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("preflight from %s: status %d, want %d", c.origin, resp.StatusCode, c.status)
		}
		if c.status == 204 && (resp.Header.Get("Access-Control-Allow-Headers") != "content-type,x-stainless-os,anthropic-version" ||
			!strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST")) {
			t.Errorf("preflight headers %v", resp.Header)
		}
	}
	// "*" allows any origin.
	_, any := newTestServer(t, Config{CORSOrigins: []string{"*"}})
	req, _ := http.NewRequest("GET", any.URL+"/v1/models", nil)
	req.Header.Set("Origin", "https://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("--cors '*': %v %v", resp, err)
	}
}

// TestOriginMatches checks the origin patterns.
func TestOriginMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, origin string
		want            bool
	}{
		{"https://a.example", "https://a.example", true},
		{"https://a.example", "https://A.Example", true},
		{"https://a.example", "https://a.example:8443", false},
		{"*", "https://anything", true},
		{"http://localhost:*", "http://localhost:1", true},
		{"http://localhost:*", "http://localhost", false},
		{"http://localhost:*", "http://localhost:1.evil.example", false},
		{"http://localhost:*", "http://localhost:", false},
		{"http://localhost:*", "http://localhost:8080", true},
		{"https://*.example.com", "https://x.example.com", true},
		{"https://*.example.com", "https://example.com", false},
		{"https://*.example.com", "https://x.example.com.evil", false},
		{"app://*", "app://", true},
		{"ab*ba", "aba", false},
	} {
		if got := originMatches(c.pattern, c.origin); got != c.want {
			t.Errorf("originMatches(%q, %q) = %v", c.pattern, c.origin, got)
		}
	}
}

// TestHostCheck checks the DNS rebinding guard: on a loopback address the
// Host must name this machine (or a configured host), in each dialect's
// error shape; on another address any Host goes.
func TestHostCheck(t *testing.T) {
	name, _ := os.Hostname()
	_, hs := newTestServer(t, Config{Hosts: []string{"saji.box"}})
	cases := []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1", true},
		{"127.0.0.1:11435", true},
		{"localhost:11435", true},
		{"LocalHost", true},
		{"[::1]:11435", true},
		{"0.0.0.0:11435", true},
		{"192.168.1.20:11435", true},
		{"10.0.0.3", true},
		{"app.localhost:11435", true},
		{"printer.local", true},
		{"api.internal:11435", true},
		{"saji.box:11435", true},
		{name, true},
		{"evil.example", false},
		{"evil.example:11435", false},
		{"localhost.evil.example", false},
		{"8.8.8.8:11435", false},
	}
	for _, c := range cases {
		for _, path := range []string{"/v1/models", "/api/tags", "/v1/messages"} {
			resp, body := getWith(t, hs.URL+path, func(r *http.Request) { r.Host = c.host })
			switch {
			case c.ok && resp.StatusCode == 403:
				t.Errorf("Host %q %s: refused: %s", c.host, path, body)
			case !c.ok && resp.StatusCode != 403:
				t.Errorf("Host %q %s: status %d; want 403", c.host, path, resp.StatusCode)
			case !c.ok && path == "/api/tags" && !strings.HasPrefix(body, `{"error":"`):
				t.Errorf("Host %q %s: %s; want an Ollama error", c.host, path, body)
			case !c.ok && path == "/v1/messages" && !strings.HasPrefix(body, `{"error":{"message":`) && !strings.HasPrefix(body, `{"error":{"type":"permission_error"`):
				t.Errorf("Host %q %s: %s; want an Anthropic error", c.host, path, body)
			case !c.ok && path == "/v1/models" && !strings.Contains(body, `"code":"host_not_allowed"`):
				t.Errorf("Host %q %s: %s; want an OpenAI error", c.host, path, body)
			}
		}
	}
	// Served on an address other than loopback (exposed on purpose, with
	// keys), or in process, any Host goes, as in Ollama.
	s := New(Config{})
	defer s.Close()
	for _, c := range []struct {
		local string
		ok    bool
	}{{"192.168.1.5:11435", true}, {"127.0.0.1:11435", false}, {"[::1]:11435", false}, {"", true}} {
		req := httptest.NewRequest("GET", "/v1/models", nil)
		if c.local != "" { // "": the handler called in process, no listener
			ap, _ := net.ResolveTCPAddr("tcp", c.local)
			req = req.WithContext(context.WithValue(context.Background(), http.LocalAddrContextKey, ap))
		}
		req.Host = "evil.example"
		if got := s.hostAllowed(req); got != c.ok {
			t.Errorf("on %s, Host evil.example: allowed %v", c.local, got)
		}
	}
}

// FuzzOriginAndHost feeds the origin and Host checks arbitrary text: no
// panic, and no origin with a foreign host passes the default list.
func FuzzOriginAndHost(f *testing.F) {
	for _, s := range []string{"http://localhost:3000", "chrome-extension://x", "https://evil.example", "", "*", "[::1]:1", "a:b:c", "http://localhost.evil"} {
		f.Add(s)
	}
	s := New(Config{})
	defer s.Close()
	f.Fuzz(func(t *testing.T, v string) {
		if s.originAllowed(v) && strings.HasPrefix(strings.ToLower(v), "http") && strings.Contains(strings.ToLower(v), ".evil") {
			t.Errorf("origin %q allowed", v)
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.Host = v
		ap, _ := net.ResolveTCPAddr("tcp", "127.0.0.1:11435")
		s.hostAllowed(req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, ap)))
	})
}
