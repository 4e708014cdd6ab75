package hub

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestCheckResponse(t *testing.T) {
	tests := []struct {
		name   string
		status int
		code   string
		msg    string
		body   string
		token  bool
		want   error
		text   string
	}{
		{"ok", 200, "", "", "", false, nil, ""},
		{"redirect", 302, "", "", "", false, nil, ""},
		{"404", 404, "RepoNotFound", "Repository not found", "", false, ErrNotFound, "hub: a/b: repository not found (if it is private, set HF_TOKEN): Repository not found"},
		{"401 RepoNotFound (anonymous)", 401, "RepoNotFound", "", "", false, ErrNotFound, "repository not found"},
		{"entry", 404, "EntryNotFound", "Entry not found", "", true, ErrNotFound, "hub: a/b: file not found"},
		{"revision", 404, "RevisionNotFound", "", "", true, ErrNotFound, "revision not found"},
		{"gated 401", 401, "GatedRepo", "", "", false, ErrGated, "hub: a/b is gated: accept the licence on https://huggingface.co/a/b and set HF_TOKEN"},
		{"gated 403 with token", 403, "GatedRepo", "", "", true, ErrGated, "has no access yet"},
		{"gated by message", 401, "", "Access to model a/b is restricted.", "", false, ErrGated, "is gated"},
		{"unauthorized", 401, "", "Invalid credentials in Authorization header", "", true, ErrUnauthorized, "the token in HF_TOKEN was refused (HTTP 401)"},
		{"no token", 401, "", "", "", false, ErrUnauthorized, "needs a Hugging Face access token"},
		{"forbidden", 403, "", "", "", true, ErrUnauthorized, "refused (HTTP 403)"},
		{"503", 503, "", "", "", false, ErrUnavailable, "the hub is unavailable (HTTP 503)"},
		{"429", 429, "", "", `{"error":"slow down"}`, false, ErrUnavailable, "unavailable (HTTP 429), try again later: slow down"},
		{"500 html", 500, "", "", "<html>oops</html>", false, ErrUnavailable, "HTTP 500), try again later"},
		{"400 text", 400, "", "", "bad things", false, nil, "hub: a/b: HTTP 400: bad things"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &http.Request{URL: &url.URL{Scheme: "https", Host: "huggingface.co", Path: "/a/b"}, Header: http.Header{}}
			if tt.token {
				req.Header.Set("Authorization", "Bearer x")
			}
			resp := &http.Response{StatusCode: tt.status, Header: http.Header{}, Request: req, Body: io.NopCloser(strings.NewReader(tt.body))}
			if tt.code != "" {
				resp.Header.Set("X-Error-Code", tt.code)
			}
			if tt.msg != "" {
				resp.Header.Set("X-Error-Message", tt.msg)
			}
			err := CheckResponse(resp, "a/b")
			if tt.status < 400 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Status != tt.status {
				t.Fatalf("err = %#v", err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) || tt.want == nil && errors.Unwrap(err) != nil {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.text) || !strings.HasPrefix(err.Error(), "hub: ") {
				t.Errorf("message %q lacks %q", err, tt.text)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"0", 0}, {"3", 3 * time.Second}, {"-1", 0}, {"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.in, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	e := &Error{Status: 503, Repo: "a/b", RetryAfter: 90 * time.Second, kind: ErrUnavailable}
	if !strings.Contains(e.Error(), "try again in 1m30s") {
		t.Error(e)
	}
}
