package download

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"saji/engine/units"
)

var (
	// ErrDiskFull is wrapped by the errors about a download that does not
	// fit on its disk: before it starts (the free-space check) or while it
	// writes (ENOSPC).
	ErrDiskFull = errors.New("download: not enough free disk space")
	// ErrChecksum is wrapped by the error of a download whose sha256 did
	// not match twice in a row.
	ErrChecksum = errors.New("download: checksum mismatch")
	// ErrCancelled is what Wait returns for a cancelled job.
	ErrCancelled = errors.New("download: cancelled")
	// ErrHTTP is wrapped by every *HTTPError, for errors.Is.
	ErrHTTP = errors.New("download: HTTP error")
	// ErrClosed is returned by Start after Close, and by Wait for a job
	// that cannot finish because its Manager was closed.
	ErrClosed = errors.New("download: manager closed")
)

// HTTPError is a response whose status is not a success. It matches
// ErrHTTP with errors.Is.
type HTTPError struct {
	StatusCode int    // the HTTP status code
	URL        string // the address that answered, without its query (signed URLs carry secrets there)
	// RetryAfter is the delay a 429 or 503 asked for (0 when it did not).
	RetryAfter time.Duration
}

// Error says what went wrong and, for the common statuses, what to do.
func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("download: HTTP %d %s from %s", e.StatusCode, http.StatusText(e.StatusCode), e.URL)
	switch e.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		msg += ": needs a token, or access to the gated model (accept its terms on the model's page)"
	case http.StatusNotFound:
		msg += ": the file does not exist (check the repository, the file name and the revision)"
	case http.StatusRequestedRangeNotSatisfiable:
		msg += ": the file on the server is shorter than expected"
	}
	return msg
}

// Is reports whether target is ErrHTTP.
func (e *HTTPError) Is(target error) bool { return target == ErrHTTP }

// retryable reports whether a request that got this status may succeed
// when repeated.
func (e *HTTPError) retryable() bool {
	return e.StatusCode == http.StatusRequestTimeout || e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// tempError marks an error worth retrying: a network error, a short
// body, a 5xx. after is the delay the server asked for, if any.
type tempError struct {
	err   error
	after time.Duration
}

func (e *tempError) Error() string { return e.err.Error() }
func (e *tempError) Unwrap() error { return e.err }

// temporary wraps err as worth retrying.
func temporary(err error) error { return &tempError{err: err} }

// kindError is an error with its own message that matches a sentinel
// (kind) and, when there is one, its cause.
type kindError struct {
	msg   string
	kind  error
	cause error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// diskFull is the error about dir not having room for need bytes.
func diskFull(dir string, need, free uint64, cause error) error {
	msg := fmt.Sprintf("download: not enough free disk space in %s: %s needed, %s free", dir, units.Bytes(int64(need)), units.Bytes(int64(free)))
	if cause != nil {
		msg = fmt.Sprintf("download: the disk holding %s is full (%s still to write): %v", dir, units.Bytes(int64(need)), cause)
	}
	return &kindError{msg: msg, kind: ErrDiskFull, cause: cause}
}

// redact returns an address without its query and fragment, for messages
// and logs.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
