package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Policy is how a remote model's pool picks the upstream of a request.
type Policy string

// The balancing policies.
const (
	// RoundRobin takes the healthy upstreams in turn.
	RoundRobin Policy = "rr"
	// LeastOutstanding takes the healthy upstream with the fewest requests
	// in flight, in turn among equals.
	LeastOutstanding Policy = "lor"
)

// DefaultHealthInterval is how often a healthy upstream is checked.
const DefaultHealthInterval = 10 * time.Second

// Upstream is one server of a remote model's pool: vLLM, TGI,
// llama-server, or Ollama through its OpenAI endpoint (/v1), which
// speaks the dialect the request came in, streams included.
type Upstream struct {
	// URL is its base URL, with or without /v1 (http://host:8000).
	URL string
	// APIKey, when set, is sent to it as a bearer token in place of the
	// client's.
	APIKey string
	// Model is the name the upstream knows the model by ("" for the same).
	Model string
	// Timeout, when positive, bounds the wait for the upstream's answer to
	// begin and then every wait for its next bytes: a long stream that
	// keeps coming is never cut.
	Timeout time.Duration
}

// Remote is a model served by a pool of other OpenAI-compatible servers.
// A request goes to one healthy upstream by the policy; one that could not
// reach it, lost the connection before an answer, or got a 502 or 503 is
// retried on another upstream, never once the answer has begun to stream.
type Remote struct {
	// Upstreams serve the model; one at least.
	Upstreams []Upstream
	// Policy picks an upstream ("": RoundRobin).
	Policy Policy
	// HealthInterval is how often each upstream's /health (or, where it
	// has none, /v1/models) is read while it answers (0:
	// DefaultHealthInterval; negative: never). A down upstream leaves the
	// rotation and is read again sooner, backing off to twice the
	// interval, until it answers.
	HealthInterval time.Duration
}

// pool is a remote model's upstreams and their state.
type pool struct {
	name   string
	policy Policy
	ups    []*upstream
	err    error         // why the configuration is invalid, or nil
	next   atomic.Uint64 // the round-robin turn
}

// upstream is an Upstream with its state.
type upstream struct {
	Upstream
	remote   string   // the name of its pool's model
	base     *url.URL // URL without a trailing /v1
	label    string   // its metrics label: the URL without credentials
	inflight atomic.Int64
	down     atomic.Bool
	wake     chan struct{} // asks the health checker for a check now
}

// Validate reports whether rm, called name, can serve: an upstream at
// least, each with an http or https URL, and a known policy.
func (rm Remote) Validate(name string) error {
	_, err := newPool(name, rm)
	return err
}

// newPool returns the pool of rm, called name.
func newPool(name string, rm Remote) (*pool, error) {
	p := &pool{name: name, policy: rm.Policy}
	switch p.policy {
	case "":
		p.policy = RoundRobin
	case RoundRobin, LeastOutstanding:
	default:
		return nil, fmt.Errorf("server: remote %q: unknown policy %q (rr or lor)", name, rm.Policy)
	}
	if len(rm.Upstreams) == 0 {
		return nil, fmt.Errorf("server: remote %q has no upstream", name)
	}
	for _, up := range rm.Upstreams {
		base, err := url.Parse(strings.TrimSuffix(strings.TrimRight(up.URL, "/"), "/v1"))
		if err != nil || base.Host == "" || (base.Scheme != "http" && base.Scheme != "https") {
			return nil, fmt.Errorf("server: remote %q: the URL %q is invalid", name, up.URL)
		}
		p.ups = append(p.ups, &upstream{Upstream: up, remote: name, base: base, label: base.Redacted(), wake: make(chan struct{}, 1)})
	}
	return p, nil
}

// pick returns the upstream for the next request, leaving out those in
// tried: a healthy one by the policy, else (every one down) a down one,
// since a health check can be wrong where a request is not; nil when every
// upstream was tried.
func (p *pool) pick(tried map[*upstream]bool) *upstream {
	var cands []*upstream
	for _, wantDown := range []bool{false, true} {
		for _, u := range p.ups {
			if !tried[u] && u.down.Load() == wantDown {
				cands = append(cands, u)
			}
		}
		if len(cands) > 0 {
			break
		}
	}
	if len(cands) == 0 {
		return nil
	}
	if p.policy == LeastOutstanding {
		least := cands[:0:0]
		for _, u := range cands {
			switch n := u.inflight.Load(); {
			case len(least) == 0 || n < least[0].inflight.Load():
				least = append(least[:0], u)
			case n == least[0].inflight.Load():
				least = append(least, u)
			}
		}
		cands = least
	}
	return cands[(p.next.Add(1)-1)%uint64(len(cands))]
}

// untried reports whether an upstream of p is not in tried.
func (p *pool) untried(tried map[*upstream]bool) bool {
	return len(tried) < len(p.ups)
}

// markDown takes u out of the rotation after a request failed to reach
// it, and has its health checker look again.
func (u *upstream) markDown() {
	u.down.Store(true)
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

// healthy reports whether u answers its health check: a 2xx on /health,
// or on /v1/models where /health is not found (Ollama has none).
func (u *upstream) healthy(ctx context.Context, client *http.Client) bool {
	timeout := 5 * time.Second
	if u.Timeout > 0 {
		timeout = min(timeout, u.Timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, path := range []string{"/health", "/v1/models"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.base.JoinPath(path).String(), nil)
		if err != nil {
			return false
		}
		if u.APIKey != "" {
			req.Header.Set("Authorization", "Bearer "+u.APIKey)
		}
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			return resp.StatusCode/100 == 2
		}
	}
	return false
}

// watch checks u's health until ctx ends: every interval while it
// answers; while it does not, after an eighth of the interval, doubling up
// to twice the interval. A failed request (markDown) asks for a check at
// once.
func (u *upstream) watch(ctx context.Context, client *http.Client, interval time.Duration, log *slog.Logger) {
	fails := 0
	delay := time.Duration(0)
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-u.wake:
			t.Stop()
		}
		ok := u.healthy(ctx, client)
		if ctx.Err() != nil {
			return
		}
		switch {
		case ok:
			if u.down.Swap(false) {
				log.Info("server: a remote upstream is back", "model", u.remote, "upstream", u.label)
			}
			fails, delay = 0, interval
		default:
			if !u.down.Swap(true) {
				log.Warn("server: a remote upstream is down", "model", u.remote, "upstream", u.label)
			}
			fails++
			delay = min(interval/8<<min(fails-1, 16), 2*interval)
		}
		t.Reset(delay)
	}
}

// pools are the server's remote models.
type pools struct {
	byName  map[string]*pool
	client  *http.Client
	metrics *upstreamMetrics
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

// newPools returns the pools of remotes, their health checkers running
// until close. A remote whose configuration is invalid (see
// Remote.Validate) is logged and answers every request with the reason.
func newPools(remotes map[string]Remote, log *slog.Logger) *pools {
	ctx, cancel := context.WithCancel(context.Background())
	ps := &pools{byName: map[string]*pool{}, stop: cancel, client: &http.Client{Transport: upstreamTransport()}}
	ps.metrics = newUpstreamMetrics(ps)
	for name, rm := range remotes {
		p, err := newPool(name, rm)
		if err != nil {
			log.Error("server: a remote model cannot serve", "model", name, "err", err)
			ps.byName[name] = &pool{name: name, err: err}
			continue
		}
		ps.byName[name] = p
		interval := rm.HealthInterval
		if interval == 0 {
			interval = DefaultHealthInterval
		}
		if interval < 0 {
			continue
		}
		for _, u := range p.ups {
			ps.wg.Go(func() { u.watch(ctx, ps.client, interval, log) })
		}
	}
	return ps
}

// close stops the health checkers.
func (ps *pools) close() {
	ps.stop()
	ps.wg.Wait()
	ps.client.CloseIdleConnections()
}

// upstreamTransport is the transport requests to upstreams go over: no
// compression of its own (a stream passes through as it comes, encoded as
// the client asked), a bounded connection time.
func upstreamTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	t.MaxIdleConnsPerHost = 64
	return t
}
