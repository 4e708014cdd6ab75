package hub

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Sentinel errors that every *Error wraps, for errors.Is.
var (
	// ErrNotFound: the repository, revision or file does not exist (or is
	// private and the token cannot see it).
	ErrNotFound = errors.New("hub: not found")
	// ErrGated: the repository is gated; its licence must be accepted on the
	// model page and HF_TOKEN set to a token of that account.
	ErrGated = errors.New("hub: gated repository")
	// ErrUnauthorized: the token is missing, invalid or lacks permission.
	ErrUnauthorized = errors.New("hub: unauthorized")
	// ErrUnavailable: the hub answered 5xx or 429 (after the retries).
	ErrUnavailable = errors.New("hub: unavailable")
)

// Error is an HTTP error answer of the hub. It unwraps to one of the
// sentinel errors above when the status says which (else to nothing).
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code and Message are the hub's X-Error-Code and X-Error-Message
	// headers (Code is e.g. "RepoNotFound", "EntryNotFound", "GatedRepo").
	Code, Message string
	// URL is the requested URL.
	URL string
	// Repo is the repository the request was about, when known.
	Repo string
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration

	kind  error
	token bool   // a token was sent
	site  string // scheme://host of the hub that answered
}

// Unwrap returns the sentinel error for the status (ErrNotFound, ErrGated,
// ErrUnauthorized, ErrUnavailable) or nil.
func (e *Error) Unwrap() error { return e.kind }

// Error says what went wrong in words a user can act on.
func (e *Error) Error() string {
	what := e.Repo
	if what == "" {
		what = e.URL
	}
	var s string
	switch e.kind {
	case ErrNotFound:
		switch e.Code {
		case "EntryNotFound":
			s = fmt.Sprintf("hub: %s: file not found", what)
		case "RevisionNotFound":
			s = fmt.Sprintf("hub: %s: revision not found", what)
		default:
			s = fmt.Sprintf("hub: %s: repository not found", what)
			if !e.token {
				s += " (if it is private, set HF_TOKEN)"
			}
		}
	case ErrGated:
		page := "the model page"
		if e.Repo != "" {
			page = cmp.Or(e.site, DefaultEndpoint) + "/" + e.Repo
		}
		if e.token {
			s = fmt.Sprintf("hub: %s is gated and the token in HF_TOKEN has no access yet: accept the licence on %s with that account (approval may take a while)", what, page)
		} else {
			s = fmt.Sprintf("hub: %s is gated: accept the licence on %s and set HF_TOKEN to an access token of that account", what, page)
		}
	case ErrUnauthorized:
		if e.token {
			s = fmt.Sprintf("hub: %s: the token in HF_TOKEN was refused (HTTP %d)", what, e.Status)
		} else {
			s = fmt.Sprintf("hub: %s needs a Hugging Face access token: set HF_TOKEN (HTTP %d)", what, e.Status)
		}
	case ErrUnavailable:
		s = fmt.Sprintf("hub: %s: the hub is unavailable (HTTP %d), try again later", what, e.Status)
		if e.RetryAfter > 0 {
			s = fmt.Sprintf("hub: %s: the hub is unavailable (HTTP %d), try again in %s", what, e.Status, e.RetryAfter.Round(time.Second))
		}
	default:
		s = fmt.Sprintf("hub: %s: HTTP %d", what, e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// CheckResponse returns nil for a 2xx or 3xx response and an *Error for any
// other, classified by status and the X-Error-Code header. repo names the
// repository in the message ("" for none). It reads (a little of) the body of
// an error response for a message when the hub sent no X-Error-Message, and
// does not close it. The download manager uses it on resolve answers.
func CheckResponse(resp *http.Response, repo string) error {
	if resp.StatusCode < 400 {
		return nil
	}
	e := &Error{
		Status:  resp.StatusCode,
		Code:    resp.Header.Get("X-Error-Code"),
		Message: resp.Header.Get("X-Error-Message"),
		Repo:    repo,
		token:   resp.Request != nil && resp.Request.Header.Get("Authorization") != "",
	}
	if resp.Request != nil && resp.Request.URL != nil {
		e.URL = resp.Request.URL.Redacted()
		e.site = resp.Request.URL.Scheme + "://" + resp.Request.URL.Host
	}
	if e.Message == "" && resp.Body != nil {
		e.Message = bodyMessage(resp.Body)
	}
	e.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	st := resp.StatusCode
	msg := strings.ToLower(e.Message)
	switch {
	case e.Code == "GatedRepo":
		e.kind = ErrGated
	case e.Code == "RepoNotFound" || e.Code == "EntryNotFound" || e.Code == "RevisionNotFound":
		// The hub answers 401 RepoNotFound to an anonymous request for a
		// repository that does not exist (or is private).
		e.kind = ErrNotFound
	case st == http.StatusNotFound:
		e.kind = ErrNotFound
	case (st == http.StatusUnauthorized || st == http.StatusForbidden) &&
		(strings.Contains(msg, "gated") || strings.Contains(msg, "restricted")):
		e.kind = ErrGated
	case st == http.StatusUnauthorized || st == http.StatusForbidden:
		e.kind = ErrUnauthorized
	case st == http.StatusTooManyRequests || st >= 500:
		e.kind = ErrUnavailable
	}
	return e
}

// bodyMessage reads a short error message from a JSON {"error": "..."} or a
// plain-text body.
func bodyMessage(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 4<<10))
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if strings.HasPrefix(s, "{") {
		var v struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &v) == nil && v.Error != "" {
			return v.Error
		}
		return ""
	}
	if strings.HasPrefix(s, "<") { // an HTML error page says nothing useful
		return ""
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// retryAfter parses a Retry-After header (seconds or an HTTP date).
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
