package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// errUpstreamTimeout is the cause of a request to an upstream cut by its
// timeout.
var errUpstreamTimeout = errors.New("server: the upstream did not answer within its timeout")

// remote returns the pool of the remote model called name.
func (s *Server) remote(name string) (*pool, bool) {
	name = s.run.Resolve(name)
	p, ok := s.pools.byName[name]
	return p, ok && name != ""
}

// hopHeaders are the hop-by-hop headers, which a proxy does not pass on
// (RFC 9110, 7.6.1), and the client's credentials for Saji, which are not
// the upstream's.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Authorization", "X-Api-Key", "Host", "Content-Length"}

// forward sends an OpenAI request for the remote model of pool p to one
// of its upstreams, the body given back, the response (a stream too)
// passed through as it comes. A request that does not reach its upstream,
// or gets a 502 or 503 from it, goes to another while there is one; once
// the response has begun, a failure ends the connection.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, body []byte, p *pool) {
	tried := map[*upstream]bool{}
	lastErr := p.err
	for {
		u := p.pick(tried)
		if u == nil {
			break
		}
		tried[u] = true
		resp, stop, err := s.send(r, body, u)
		if err != nil {
			stop()
			switch {
			case r.Context().Err() != nil:
				s.pools.metrics.request(u, "cancelled")
				return // the client left
			case errors.Is(err, errUpstreamTimeout):
				s.pools.metrics.request(u, "timeout")
				oaiError(w, &apiError{status: http.StatusGatewayTimeout, typ: "server_error",
					msg: fmt.Sprintf("the remote server %s did not answer within %v", u.label, u.Timeout)})
				return
			}
			s.pools.metrics.request(u, "error")
			s.log.Warn("server: a remote upstream failed; trying another", "model", p.name, "upstream", u.label, "err", err)
			u.markDown()
			lastErr = err
			s.pools.metrics.retried(u)
			continue
		}
		code := resp.StatusCode
		if (code == http.StatusBadGateway || code == http.StatusServiceUnavailable) && p.untried(tried) {
			resp.Body.Close()
			stop()
			s.pools.metrics.request(u, strconv.Itoa(code))
			s.log.Warn("server: a remote upstream is unavailable; trying another", "model", p.name, "upstream", u.label, "status", code)
			s.pools.metrics.retried(u)
			continue
		}
		s.relay(w, resp, u)
		stop()
		return
	}
	msg := "no upstream of the remote model is available"
	if lastErr != nil {
		msg = "the remote server failed: " + lastErr.Error()
	}
	oaiError(w, &apiError{status: http.StatusBadGateway, typ: "server_error", msg: msg})
}

// send sends the request to u, and returns its response (whose reading
// u's timeout watches) and the function that releases the attempt, to
// call once the response is read or dropped.
func (s *Server) send(r *http.Request, body []byte, u *upstream) (*http.Response, func(), error) {
	if u.Model != "" {
		var v map[string]any
		if json.Unmarshal(body, &v) == nil {
			v["model"] = u.Model
			if b, err := json.Marshal(v); err == nil {
				body = b
			}
		}
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	u.inflight.Add(1)
	var timer *time.Timer
	stop := func() {
		if timer != nil {
			timer.Stop()
		}
		cancel(nil)
		u.inflight.Add(-1)
	}
	target := *u.base
	target.Path = strings.TrimRight(target.Path, "/") + r.URL.Path
	target.RawPath = ""
	target.RawQuery = r.URL.RawQuery
	req, err := http.NewRequestWithContext(ctx, r.Method, target.String(), bytes.NewReader(body))
	if err != nil {
		return nil, stop, fmt.Errorf("server: %w", err)
	}
	req.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	if u.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+u.APIKey)
	}
	if u.Timeout > 0 {
		timer = time.AfterFunc(u.Timeout, func() { cancel(errUpstreamTimeout) })
	}
	start := time.Now()
	resp, err := s.pools.client.Do(req)
	if err != nil {
		if context.Cause(ctx) == errUpstreamTimeout {
			err = errUpstreamTimeout
		}
		return nil, stop, err
	}
	s.pools.metrics.firstByte(u, time.Since(start))
	if timer != nil {
		resp.Body = &idleBody{ReadCloser: resp.Body, timer: timer, timeout: u.Timeout}
	}
	return resp, stop, nil
}

// relay passes resp on to w, flushing as it comes. A failure once the
// response has begun aborts the connection, so that the client sees a
// broken answer rather than a short one.
func (s *Server) relay(w http.ResponseWriter, resp *http.Response, u *upstream) {
	defer resp.Body.Close()
	h := w.Header()
	for k, v := range resp.Header {
		h[k] = v
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	if resp.ContentLength >= 0 {
		h.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
	}
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	rc.Flush()
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				s.pools.metrics.request(u, "cancelled")
				return // the client left
			}
			rc.Flush()
		}
		if err == io.EOF {
			s.pools.metrics.request(u, strconv.Itoa(resp.StatusCode))
			return
		}
		if err != nil {
			s.pools.metrics.request(u, "error")
			s.log.Warn("server: a remote upstream failed while streaming", "model", u.remote, "upstream", u.label, "err", err)
			panic(http.ErrAbortHandler)
		}
	}
}

// idleBody is a response body whose upstream's timeout starts again with
// every read that brings bytes.
type idleBody struct {
	io.ReadCloser
	timer   *time.Timer
	timeout time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.timer.Reset(b.timeout)
	}
	return n, err
}

// routeRemote forwards an OpenAI POST whose model is remote, and reports
// whether it did. The body is read (within the limit) and put back.
func (s *Server) routeRemote(w http.ResponseWriter, r *http.Request) bool {
	if len(s.pools.byName) == 0 || r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/") {
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false // the handler reports it
	}
	var v struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	p, ok := s.remote(v.Model)
	if !ok {
		return false
	}
	s.forward(w, r, body, p)
	return true
}
