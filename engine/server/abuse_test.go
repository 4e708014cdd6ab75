package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/engine/synth/synthtest"
)

// abuseServer is a server as `saji serve` runs one (the production
// handler behind NewHTTPServer, on a loopback port) over a models folder
// holding the tiny model as tiny and other, and models whose chat
// templates are hostile.
type abuseServer struct {
	s    *Server
	hs   *httptest.Server
	addr string
}

// abuseHeaderTimeout stands for NewHTTPServer's header timeout in
// TestAbuse, which waits for it.
const abuseHeaderTimeout = time.Second

// hostileTemplates are the chat templates of the hostile models in
// TestAbuse's folder: a chain of additions (issue #23's 3 million terms,
// here 100,000: refused at parse either way) and loops without end.
var hostileTemplates = map[string]string{
	"chain": "{{ 1" + strings.Repeat(" + 1", 100_000) + " }}",
	"loops": `{% for i in range(10**12) %}{% for j in range(10**12) %}x{% endfor %}{% endfor %}`,
}

func newAbuseServer(t *testing.T) *abuseServer {
	t.Helper()
	dir := synthtest.Folder(t, "q8_0", 3, "tiny", "other")
	for name, tmpl := range hostileTemplates {
		if err := synth.WriteChat(context.Background(), filepath.Join(dir, name+".gguf"), "q8_0", tmpl, nil, 1); err != nil {
			t.Fatal(err)
		}
	}
	rn := runner.New(runner.Config{ModelsDir: dir, MaxLoaded: 2, KeepAlive: -1,
		Load: runner.LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 4}}})
	s := New(Config{Runner: rn})
	hs := httptest.NewUnstartedServer(nil)
	hs.Config = NewHTTPServer(s.Handler())
	hs.Config.ReadHeaderTimeout = abuseHeaderTimeout
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		s.Close()
		rn.Close()
	})
	return &abuseServer{s: s, hs: hs, addr: hs.Listener.Addr().String()}
}

// send sends a request built by the arguments and returns its status and
// body (status 0 and the error's text when no response came).
func (a *abuseServer) send(method, path, body string, set func(*http.Request)) (int, string) {
	req, err := http.NewRequest(method, a.hs.URL+path, strings.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	if set != nil {
		set(req)
	}
	resp, err := a.hs.Client().Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// raw writes head (and then nothing) on a connection of its own and
// returns the status of the response, or 0 when the server closed the
// connection without one.
func (a *abuseServer) raw(t *testing.T, head string) int {
	t.Helper()
	conn, err := net.Dial("tcp", a.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute)) // a hang detector
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || isReset(err) {
			return 0
		}
		t.Fatalf("no response: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// isReset reports whether err is a connection reset by the peer.
func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && strings.Contains(op.Err.Error(), "reset")
}

// loaded reports whether the model name is loaded.
func (a *abuseServer) loaded(name string) bool {
	return slices.ContainsFunc(a.s.Runner().Models(), func(m *runner.Model) bool { return m.Name == name })
}

// alive checks that the server still answers: its health and a short
// completion.
func (a *abuseServer) alive(t *testing.T) {
	t.Helper()
	if status, body := a.send("GET", "/health", "", nil); status != 200 {
		t.Fatalf("the server no longer answers /health: %d %s", status, body)
	}
	if status, body := a.send("POST", "/v1/completions", `{"model":"tiny","prompt":"the cat","max_tokens":2}`, nil); status != 200 {
		t.Fatalf("the server no longer completes: %d %.300s", status, body)
	}
}

// openFiles counts the process's open file descriptors (-1 where /proc
// does not list them).
func openFiles() int {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(fds)
}

// TestAbuse is the HTTP abuse of issue #23 against a server as `saji
// serve` runs one: each case gets its documented status (0: the
// connection is closed without one) and the server answers afterwards;
// at the end, goroutines and open files are back to where they were.
func TestAbuse(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 60 MB of bodies: the tests without -short and make probe run it")
	}
	a := newAbuseServer(t)
	a.alive(t) // tiny is loaded: the baseline counts its goroutines
	goBefore, _ := quiesce(a.hs.Client())
	filesBefore := openFiles()

	huge := func(n int) string { return `{"model":"tiny","prompt":"` + strings.Repeat("a", n) + `"}` }
	inputs := make([]string, 10_000)
	for i := range inputs {
		inputs[i] = fmt.Sprintf("%q", fmt.Sprint("text ", i))
	}
	const maxInt = "9223372036854775807"
	cases := []struct {
		name string
		want int
		do   func(t *testing.T) int
	}{
		{"body over the limit", 413, func(t *testing.T) int {
			status, _ := a.send("POST", "/v1/completions", huge(DefaultMaxBody), nil)
			return status
		}},
		{"body stopped midway", 408, func(t *testing.T) int {
			defer func(d time.Duration) { bodyTimeout = d }(bodyTimeout)
			bodyTimeout = time.Second // stands for its minute
			return a.raw(t, "POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":")
		}},
		{"headers trickled past their deadline", 0, func(t *testing.T) int {
			return a.raw(t, "POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
		}},
		{"headers over the limit", 431, func(t *testing.T) int {
			return a.raw(t, "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: "+strings.Repeat("b", 2*maxHeaderBytes)+"\r\n\r\n")
		}},
		{"junk after the JSON", 400, func(t *testing.T) int {
			status, _ := a.send("POST", "/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hi"}]} {"more":1}`, nil)
			return status
		}},
		{"Host of another site", 403, func(t *testing.T) int {
			status, _ := a.send("GET", "/v1/models", "", func(r *http.Request) { r.Host = "evil.example" })
			return status
		}},
		{"cross-site GET of a model", 200, func(t *testing.T) int {
			status, _ := a.send("GET", "/v1/models/other", "", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") })
			if a.loaded("other") {
				t.Error("a GET loaded the model")
			}
			return status
		}},
		{"cross-site POST that would load a model", 403, func(t *testing.T) int {
			status, _ := a.send("POST", "/api/generate", `{"model":"other"}`, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") })
			if a.loaded("other") {
				t.Error("a foreign site loaded the model")
			}
			return status
		}},
		// A max_tokens past the context is cut at its end where the
		// dialect asks (OpenAI's, Anthropic's), else refused.
		{"max_tokens 2^63-1", 200, func(t *testing.T) int {
			status, _ := a.send("POST", "/v1/completions", `{"model":"tiny","prompt":"hi","max_tokens":`+maxInt+`}`, nil)
			return status
		}},
		{"max_completion_tokens 2^63-1 in a chat", 200, func(t *testing.T) int {
			status, _ := a.send("POST", "/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":`+maxInt+`}`, nil)
			return status
		}},
		{"num_predict 2^63-1", 200, func(t *testing.T) int {
			status, _ := a.send("POST", "/api/generate", `{"model":"tiny","prompt":"hi","stream":false,"options":{"num_predict":`+maxInt+`}}`, nil)
			return status
		}},
		{"Anthropic max_tokens 2^63-1", 200, func(t *testing.T) int {
			status, _ := a.send("POST", "/v1/messages", `{"model":"tiny","max_tokens":`+maxInt+`,"messages":[{"role":"user","content":"hi"}]}`, nil)
			return status
		}},
		{"30 MB prompt", 400, func(t *testing.T) int {
			status, _ := a.send("POST", "/v1/completions", huge(30<<20), nil)
			return status
		}},
		{"10,000 embedding inputs", 400, func(t *testing.T) int {
			status, _ := a.send("POST", "/v1/embeddings", `{"model":"tiny","input":[`+strings.Join(inputs, ",")+`]}`, nil)
			return status
		}},
		{"hostile template: a chain of 100,000 additions", 400, func(t *testing.T) int {
			status, body := a.send("POST", "/v1/chat/completions", `{"model":"chain","messages":[{"role":"user","content":"hi"}]}`, nil)
			if !strings.Contains(body, "chat template") {
				t.Errorf("the refusal does not name the chat template: %.300s", body)
			}
			return status
		}},
		{"hostile template: loops without end", 400, func(t *testing.T) int {
			status, body := a.send("POST", "/api/chat", `{"model":"loops","stream":false,"messages":[{"role":"user","content":"hi"}]}`, nil)
			if !strings.Contains(body, "chat template") {
				t.Errorf("the refusal does not name the chat template: %.300s", body)
			}
			return status
		}},
		{"client gone mid-stream", 200, func(t *testing.T) int {
			status := leaveMidStream(t, a.hs.Client(), a.hs.URL)
			m, err := a.s.Runner().Model("tiny")
			if err != nil {
				t.Fatal(err)
			}
			waitIdle(t, m.Scheduler())
			return status
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.do(t); got != c.want {
				t.Errorf("status %d, want %d", got, c.want)
			}
			a.alive(t)
		})
	}

	// Leaks: what the cases started has ended once the connections close.
	var goAfter, filesAfter int
	for end := time.Now().Add(30 * time.Second); ; {
		goAfter, _ = quiesce(a.hs.Client())
		filesAfter = openFiles()
		if (goAfter <= goBefore+2 && filesAfter <= filesBefore+2) || time.Now().After(end) {
			break
		}
	}
	t.Logf("goroutines %d -> %d, open files %d -> %d", goBefore, goAfter, filesBefore, filesAfter)
	if goAfter > goBefore+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines leaked: %d before, %d after\n%s", goBefore, goAfter, buf[:runtime.Stack(buf, true)])
	}
	if filesAfter > filesBefore+2 {
		t.Errorf("open files leaked: %d before, %d after", filesBefore, filesAfter)
	}
}
