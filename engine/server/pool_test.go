package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeUpstream is an OpenAI-compatible server for pool tests: it answers
// chat completions (a stream of a few events when asked) with its name
// as the model, and /health as its health says.
type fakeUpstream struct {
	*httptest.Server
	name     string
	served   atomic.Int64
	sick     atomic.Bool   // /health answers 503
	status   atomic.Int64  // when not 0, chat completions answer it
	noHealth bool          // /health is not found (as Ollama's)
	gap      time.Duration // between stream events
	hang     chan struct{} // when not nil, chat completions wait for it to close
	lastAuth atomic.Value  // the last Authorization header
}

// newFakeUpstream starts a fake upstream called name.
func newFakeUpstream(t *testing.T, name string, setup func(*fakeUpstream)) *fakeUpstream {
	t.Helper()
	f := &fakeUpstream{name: name}
	if setup != nil {
		setup(f)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		if f.noHealth {
			http.NotFound(w, r)
			return
		}
		if f.sick.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		if f.sick.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{"object":"list","data":[]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		f.lastAuth.Store(r.Header.Get("Authorization"))
		if f.hang != nil {
			select {
			case <-f.hang:
			case <-r.Context().Done():
				return
			}
		}
		if st := f.status.Load(); st != 0 {
			w.WriteHeader(int(st))
			return
		}
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		f.served.Add(1)
		if !req.Stream {
			fmt.Fprintf(w, `{"model":%q,"served_by":%q,"choices":[{"message":{"content":"hi"}}]}`, req.Model, f.name)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 4 {
			fmt.Fprintf(w, "data: {\"served_by\":%q,\"i\":%d}\n\n", f.name, i)
			w.(http.Flusher).Flush()
			time.Sleep(f.gap)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// newPoolServer serves a remote model "big" over the upstreams.
func newPoolServer(t *testing.T, rm Remote, ups ...*fakeUpstream) *httptest.Server {
	t.Helper()
	for _, u := range ups {
		rm.Upstreams = append(rm.Upstreams, Upstream{URL: u.URL + "/v1"})
	}
	s := New(Config{Remotes: map[string]Remote{"big": rm}})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		s.Close()
	})
	return hs
}

// askPool asks hs's remote model for a chat completion and returns the
// status and the upstream that served it.
func askPool(t *testing.T, hs *httptest.Server) (int, string) {
	t.Helper()
	resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"big","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		ServedBy string `json:"served_by"`
	}
	json.NewDecoder(resp.Body).Decode(&v)
	return resp.StatusCode, v.ServedBy
}

// TestPoolPick takes upstreams by the policies, healthy ones first.
func TestPoolPick(t *testing.T) {
	mk := func(policy Policy, inflight []int64, down []bool) *pool {
		rm := Remote{Policy: policy}
		for range inflight {
			rm.Upstreams = append(rm.Upstreams, Upstream{URL: "http://h:1"})
		}
		p, err := newPool("m", rm)
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range p.ups {
			u.inflight.Store(inflight[i])
			u.down.Store(down[i])
		}
		return p
	}
	for _, tc := range []struct {
		name     string
		policy   Policy
		inflight []int64
		down     []bool
		tried    []int
		want     []int // the picks of successive requests (-1: none)
	}{
		{"round robin", RoundRobin, []int64{5, 0, 0}, []bool{false, false, false}, nil, []int{0, 1, 2, 0}},
		{"round robin skips a down one", "", []int64{0, 0, 0}, []bool{false, true, false}, nil, []int{0, 2, 0, 2}},
		{"least outstanding", LeastOutstanding, []int64{3, 1, 2}, []bool{false, false, false}, nil, []int{1, 1, 1}},
		{"least outstanding skips a down one", LeastOutstanding, []int64{3, 1, 2}, []bool{false, true, false}, nil, []int{2, 2}},
		{"least outstanding in turn among equals", LeastOutstanding, []int64{1, 1, 4}, []bool{false, false, false}, nil, []int{0, 1, 0, 1}},
		{"every one down: a down one", RoundRobin, []int64{0, 0}, []bool{true, true}, nil, []int{0, 1}},
		{"healthy ones tried: a down one", LeastOutstanding, []int64{0, 0}, []bool{false, true}, []int{0}, []int{1}},
		{"every one tried", RoundRobin, []int64{0, 0}, []bool{false, false}, []int{0, 1}, []int{-1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mk(tc.policy, tc.inflight, tc.down)
			tried := map[*upstream]bool{}
			for _, i := range tc.tried {
				tried[p.ups[i]] = true
			}
			for n, want := range tc.want {
				got := -1
				if u := p.pick(tried); u != nil {
					for i := range p.ups {
						if p.ups[i] == u {
							got = i
						}
					}
				}
				if got != want {
					t.Errorf("pick %d: upstream %d, want %d", n, got, want)
				}
			}
		})
	}
}

// TestRemoteValidate refuses pools that cannot serve.
func TestRemoteValidate(t *testing.T) {
	for _, tc := range []struct {
		rm Remote
		ok bool
	}{
		{Remote{Upstreams: []Upstream{{URL: "http://a:1/v1"}, {URL: "https://b"}}, Policy: LeastOutstanding}, true},
		{Remote{}, false},
		{Remote{Upstreams: []Upstream{{URL: "ftp://a"}}}, false},
		{Remote{Upstreams: []Upstream{{URL: "http://"}}}, false},
		{Remote{Upstreams: []Upstream{{URL: "http://a"}}, Policy: "random"}, false},
	} {
		if err := tc.rm.Validate("m"); (err == nil) != tc.ok {
			t.Errorf("%+v: %v", tc.rm, err)
		}
	}
}

// TestPoolFailover kills one of two upstreams in the middle of a run:
// no request fails, since each could go to the other; a request whose
// answer had begun to stream is not sent again.
func TestPoolFailover(t *testing.T) {
	a := newFakeUpstream(t, "a", nil)
	b := newFakeUpstream(t, "b", nil)
	hs := newPoolServer(t, Remote{HealthInterval: -1}, a, b)
	var wg sync.WaitGroup
	var failed atomic.Int64
	killed := make(chan struct{})
	for g := range 4 {
		wg.Go(func() {
			for i := range 25 {
				if g == 0 && i == 5 {
					a.Close() // in-flight requests finish; the next ones cannot connect
					close(killed)
				}
				if status, by := askPool(t, hs); status != 200 || by == "" {
					failed.Add(1)
					t.Errorf("request %d.%d: status %d, served by %q", g, i, status, by)
				}
			}
		})
	}
	wg.Wait()
	<-killed
	if a.served.Load() == 0 || b.served.Load() <= a.served.Load() {
		t.Errorf("served by a %d, b %d", a.served.Load(), b.served.Load())
	}
	if n := failed.Load(); n != 0 {
		t.Errorf("%d requests failed", n)
	}
	status, by := askPool(t, hs)
	if status != 200 || by != "b" {
		t.Errorf("after the kill: %d from %q", status, by)
	}
}

// TestPoolUnavailable moves a request that got a 502 or 503 to another
// upstream, and passes the last one's answer on when none is left.
func TestPoolUnavailable(t *testing.T) {
	a := newFakeUpstream(t, "a", func(f *fakeUpstream) { f.status.Store(http.StatusServiceUnavailable) })
	b := newFakeUpstream(t, "b", func(f *fakeUpstream) { f.status.Store(http.StatusBadGateway) })
	hs := newPoolServer(t, Remote{HealthInterval: -1}, a, b)
	if status, _ := askPool(t, hs); status != http.StatusServiceUnavailable && status != http.StatusBadGateway {
		t.Errorf("both unavailable: status %d", status)
	}
	b.status.Store(0)
	for i := range 4 {
		if status, by := askPool(t, hs); status != 200 || by != "b" {
			t.Errorf("request %d: %d from %q", i, status, by)
		}
	}
	b.status.Store(http.StatusBadRequest) // the client's mistake: not retried
	a.status.Store(0)
	var bad int
	for range 4 {
		if status, _ := askPool(t, hs); status == http.StatusBadRequest {
			bad++
		}
	}
	if bad != 2 {
		t.Errorf("%d of 4 requests got b's 400, want 2 (round robin, no retry)", bad)
	}
}

// TestPoolStreamBroken ends the client's connection when the upstream
// fails in the middle of a stream, without sending the request again.
func TestPoolStreamBroken(t *testing.T) {
	a := newFakeUpstream(t, "a", func(f *fakeUpstream) { f.gap = 20 * time.Millisecond })
	b := newFakeUpstream(t, "b", nil)
	hs := newPoolServer(t, Remote{HealthInterval: -1}, a, b)
	resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"big","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 10)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	a.CloseClientConnections()
	if rest, err := io.ReadAll(resp.Body); err == nil {
		t.Errorf("a stream broken upstream ended cleanly: %q", rest)
	}
	if n := b.served.Load(); n != 0 {
		t.Errorf("the broken stream was sent again: b served %d", n)
	}
}

// TestPoolHealth takes an upstream out of the rotation when its health
// check fails and back when it passes, and reads /v1/models of one that
// has no /health.
func TestPoolHealth(t *testing.T) {
	a := newFakeUpstream(t, "a", nil)
	b := newFakeUpstream(t, "b", func(f *fakeUpstream) { f.noHealth = true })
	s := New(Config{Remotes: map[string]Remote{"big": {HealthInterval: 20 * time.Millisecond,
		Upstreams: []Upstream{{URL: a.URL}, {URL: b.URL}}}}})
	defer s.Close()
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	p := s.pools.byName["big"]
	a.sick.Store(true)
	waitFor(t, "a to leave the rotation", func() bool { return p.ups[0].down.Load() })
	if p.ups[1].down.Load() {
		t.Error("b, without /health, is down")
	}
	for i := range 4 {
		if status, by := askPool(t, hs); status != 200 || by != "b" {
			t.Errorf("a down, request %d: %d from %q", i, status, by)
		}
	}
	a.sick.Store(false)
	waitFor(t, "a to return", func() bool { return !p.ups[0].down.Load() })
	seen := map[string]bool{}
	for range 4 {
		_, by := askPool(t, hs)
		seen[by] = true
	}
	if !seen["a"] || !seen["b"] {
		t.Errorf("a back: served by %v", seen)
	}
	b.sick.Store(true)
	waitFor(t, "b (its /v1/models failing) to leave the rotation", func() bool { return p.ups[1].down.Load() })
}

// TestPoolLeastOutstanding sends a request to the upstream with fewer in
// flight.
func TestPoolLeastOutstanding(t *testing.T) {
	release := make(chan struct{})
	a := newFakeUpstream(t, "a", func(f *fakeUpstream) { f.hang = release })
	b := newFakeUpstream(t, "b", nil)
	s := New(Config{Remotes: map[string]Remote{"big": {HealthInterval: -1, Policy: LeastOutstanding,
		Upstreams: []Upstream{{URL: a.URL}, {URL: b.URL}}}}})
	defer s.Close()
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	p := s.pools.byName["big"]
	// Two requests wait on a (b answers at once): while they do, every
	// other request goes to b.
	var wg sync.WaitGroup
	for range 2 {
		p.ups[1].inflight.Add(10) // keeps the two waiting ones off b
		wg.Go(func() {
			if status, by := askPool(t, hs); status != 200 || by != "a" {
				t.Errorf("a waiting request: %d from %q", status, by)
			}
		})
	}
	waitFor(t, "two requests on a", func() bool { return p.ups[0].inflight.Load() == 2 })
	p.ups[1].inflight.Add(-20)
	for i := range 5 {
		if status, by := askPool(t, hs); status != 200 || by != "b" {
			t.Errorf("request %d: %d from %q", i, status, by)
		}
	}
	close(release)
	wg.Wait()
}

// TestPoolTimeout answers 504 when an upstream does not begin its answer
// within its timeout, and lets a stream whose events keep coming run
// past it.
func TestPoolTimeout(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	a := newFakeUpstream(t, "a", func(f *fakeUpstream) { f.hang = hang })
	s := New(Config{Remotes: map[string]Remote{"big": {HealthInterval: -1,
		Upstreams: []Upstream{{URL: a.URL, Timeout: 50 * time.Millisecond}}}}})
	defer s.Close()
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	if status, _ := askPool(t, hs); status != http.StatusGatewayTimeout {
		t.Errorf("a hung upstream: status %d", status)
	}

	slow := newFakeUpstream(t, "slow", func(f *fakeUpstream) { f.gap = 100 * time.Millisecond })
	s2 := New(Config{Remotes: map[string]Remote{"big": {HealthInterval: -1,
		Upstreams: []Upstream{{URL: slow.URL, Timeout: time.Second}}}}})
	defer s2.Close()
	hs2 := httptest.NewServer(s2.Handler())
	defer hs2.Close()
	resp, err := http.Post(hs2.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"big","stream":true,"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	evs := events(t, resp.Body)
	resp.Body.Close()
	if len(evs) != 5 || evs[4] != "[DONE]" {
		t.Errorf("a steady stream: %v", evs)
	}
}

// TestPoolKeysAndMetrics sends each upstream its own key and model name,
// and reports the upstreams in /metrics.
func TestPoolKeysAndMetrics(t *testing.T) {
	a := newFakeUpstream(t, "a", nil)
	b := newFakeUpstream(t, "b", nil)
	s := New(Config{Remotes: map[string]Remote{"big": {HealthInterval: -1, Upstreams: []Upstream{
		{URL: a.URL, APIKey: "ka", Model: "llama3.3:70b"}, {URL: b.URL + "/v1", APIKey: "kb"}}}}})
	defer s.Close()
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	for range 2 {
		status, v := post(t, hs.URL+"/v1/chat/completions", `{"model":"big","messages":[]}`)
		want := map[string]string{"a": "llama3.3:70b", "b": "big"}[fmt.Sprint(v["served_by"])]
		if status != 200 || v["model"] != want {
			t.Errorf("%d %v: want model %q", status, v, want)
		}
	}
	if a.lastAuth.Load() != "Bearer ka" || b.lastAuth.Load() != "Bearer kb" {
		t.Errorf("keys %v %v", a.lastAuth.Load(), b.lastAuth.Load())
	}
	resp, err := http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		fmt.Sprintf(`saji:upstream_requests_total{model_name="big",status="200",upstream=%q} 1`, a.URL),
		fmt.Sprintf(`saji:upstream_requests_total{model_name="big",status="200",upstream=%q} 1`, b.URL),
		fmt.Sprintf(`saji:upstream_up{model_name="big",upstream=%q} 1`, a.URL),
		fmt.Sprintf(`saji:upstream_requests_running{model_name="big",upstream=%q} 0`, b.URL),
		fmt.Sprintf(`saji:upstream_time_to_first_byte_seconds_count{model_name="big",upstream=%q} 1`, a.URL),
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
