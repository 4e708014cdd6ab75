package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// DefaultEndpoint is the Hugging Face Hub.
const DefaultEndpoint = "https://huggingface.co"

// Client talks to a Hugging Face Hub endpoint. The zero value works
// (huggingface.co, no token, a default HTTP client); NewClient reads the
// endpoint and token from the environment. A Client is safe for concurrent
// use as long as its fields are not changed.
type Client struct {
	// Endpoint is the hub's base URL without a trailing slash
	// (HF_ENDPOINT; "" means https://huggingface.co).
	Endpoint string
	// Token is a Hugging Face access token (HF_TOKEN), sent as
	// "Authorization: Bearer" to the endpoint's host only.
	Token string
	// HTTP is the client requests go through; nil means a default client.
	// Its CheckRedirect, if any, is still called.
	HTTP *http.Client
	// UserAgent identifies Saji to the hub ("" means "saji").
	UserAgent string

	// retryBase is the first retry's backoff (tests shorten it).
	retryBase time.Duration
}

// NewClient returns a client for the endpoint in HF_ENDPOINT (default
// https://huggingface.co, trailing slash trimmed) with the token in HF_TOKEN
// or, failing that, HUGGING_FACE_HUB_TOKEN.
func NewClient() *Client {
	c := &Client{
		Endpoint:  strings.TrimRight(strings.TrimSpace(os.Getenv("HF_ENDPOINT")), "/"),
		Token:     strings.TrimSpace(os.Getenv("HF_TOKEN")),
		UserAgent: "saji",
	}
	if c.Endpoint == "" {
		c.Endpoint = DefaultEndpoint
	}
	if c.Token == "" {
		c.Token = strings.TrimSpace(os.Getenv("HUGGING_FACE_HUB_TOKEN"))
	}
	return c
}

// endpoint returns the base URL without a trailing slash.
func (c *Client) endpoint() string {
	e := strings.TrimRight(c.Endpoint, "/")
	if e == "" {
		return DefaultEndpoint
	}
	return e
}

// endpointHost is the host (with port) that may see the token.
func (c *Client) endpointHost() string {
	u, err := url.Parse(c.endpoint())
	if err != nil {
		return ""
	}
	return u.Host
}

// Header returns the headers every request to the endpoint carries: the
// User-Agent and, with a token, Authorization. Send them with requests to
// the endpoint only (FileURL's URLs); HTTPClient drops Authorization when a
// request is redirected to another host.
func (c *Client) Header() http.Header {
	h := http.Header{}
	ua := c.UserAgent
	if ua == "" {
		ua = "saji"
	}
	h.Set("User-Agent", ua)
	if c.Token != "" {
		h.Set("Authorization", "Bearer "+c.Token)
	}
	return h
}

// HTTPClient returns the HTTP client to fetch the endpoint's URLs with: a
// copy of c.HTTP (or a default client) whose redirect policy removes the
// Authorization header whenever a redirect leaves the host of the first
// request. (net/http itself keeps it on a redirect to the same host name on
// another port, or to a subdomain such as cdn-lfs.huggingface.co.)
func (c *Client) HTTPClient() *http.Client {
	var hc http.Client
	if c.HTTP != nil {
		hc = *c.HTTP
	}
	next := hc.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && req.URL.Host != via[0].URL.Host {
			req.Header.Del("Authorization")
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("hub: stopped after 10 redirects")
		}
		return nil
	}
	return &hc
}

// NewRequest returns a request carrying Header's headers, the token only
// when rawURL is on the endpoint's host.
func (c *Client) NewRequest(ctx context.Context, method, rawURL string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	for k, v := range c.Header() {
		req.Header[k] = v
	}
	if req.URL.Host != c.endpointHost() {
		req.Header.Del("Authorization")
	}
	return req, nil
}

// FileURL returns the download URL of a file of a repository at a revision
// ("" means main): {endpoint}/{repo}/resolve/{revision}/{path}, each path
// segment escaped.
func (c *Client) FileURL(repo, revision, path string) string {
	if revision == "" {
		revision = "main"
	}
	return c.endpoint() + "/" + escapeSegments(repo) + "/resolve/" + url.PathEscape(revision) + "/" + escapeSegments(path)
}

// escapeSegments escapes each /-separated segment of p.
func escapeSegments(p string) string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// apiTimeout bounds one API call (with its retries) when ctx has no deadline.
const apiTimeout = 60 * time.Second

// maxRetries is how many times an API GET is retried after a 5xx, a 429 or
// a network error.
const maxRetries = 2

// maxRetryAfter is the longest Retry-After the client waits for; a longer
// one is returned as an ErrUnavailable error at once.
const maxRetryAfter = 30 * time.Second

// get fetches rawURL with GET, retrying 5xx, 429 and network errors up to
// maxRetries times with backoff (honouring Retry-After). The caller closes
// the body of the returned 2xx response; any other status is an error.
func (c *Client) get(ctx context.Context, rawURL, repo string) (*http.Response, error) {
	return c.send(ctx, c.HTTPClient(), http.MethodGet, rawURL, repo)
}

// send is get with any client and method; 2xx and 3xx answers are returned.
func (c *Client) send(ctx context.Context, hc *http.Client, method, rawURL, repo string) (*http.Response, error) {
	backoff := c.retryBase
	if backoff <= 0 {
		backoff = 500 * time.Millisecond
	}
	for attempt := 0; ; attempt++ {
		req, err := c.NewRequest(ctx, method, rawURL)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		var wait time.Duration
		switch {
		case err != nil:
			if ctx.Err() != nil || attempt >= maxRetries {
				return nil, fmt.Errorf("hub: %s: %w", req.URL.Host, err)
			}
			wait = backoff
		case resp.StatusCode >= 200 && resp.StatusCode < 400:
			return resp, nil
		default:
			herr := CheckResponse(resp, repo)
			drain(resp.Body)
			var e *Error
			if !errors.Is(herr, ErrUnavailable) || attempt >= maxRetries || !errors.As(herr, &e) || e.RetryAfter > maxRetryAfter {
				return nil, herr
			}
			wait = backoff
			if resp.Header.Get("Retry-After") != "" {
				wait = max(e.RetryAfter, 100*time.Millisecond)
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("hub: %w", ctx.Err())
		case <-t.C:
		}
		backoff *= 2
	}
}

// getJSON GETs rawURL and decodes its JSON body into v, returning the
// response's headers.
func (c *Client) getJSON(ctx context.Context, rawURL, repo string, v any) (http.Header, error) {
	ctx, cancel := withTimeout(ctx)
	defer cancel()
	resp, err := c.get(ctx, rawURL, repo)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(v); err != nil {
		return nil, fmt.Errorf("hub: %s: reading the answer: %w", rawURL, err)
	}
	return resp.Header, nil
}

// withTimeout gives ctx a deadline of apiTimeout if it has none.
func withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, apiTimeout)
}

// drain reads a little of an unwanted body and closes it so the
// connection can be reused.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	body.Close()
}
