package hub

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// FileMeta is what the hub says about one file before it is downloaded.
type FileMeta struct {
	// URL is where the bytes are: the CDN URL an LFS file redirects to (to
	// be fetched without the token), or FileURL for a file kept in git.
	URL string
	// Commit is the commit the revision resolved to (X-Repo-Commit).
	Commit string
	// ETag is the file's ETag: the sha256 for LFS files, the git blob id
	// otherwise (X-Linked-Etag or ETag, without quotes).
	ETag string
	// SHA256 is the LFS sha256, "" for files kept in git.
	SHA256 string
	// Size is the file's size in bytes (X-Linked-Size or Content-Length).
	Size int64
}

// Stat asks the hub about one file with a HEAD of its resolve URL, without
// following a redirect to another host, as huggingface_hub does before a
// download. Errors are *Error values (ErrNotFound, ErrGated...).
func (c *Client) Stat(ctx context.Context, repo, revision, path string) (FileMeta, error) {
	if err := checkRepo(repo); err != nil {
		return FileMeta{}, err
	}
	ctx, cancel := withTimeout(ctx)
	defer cancel()
	hc := c.HTTPClient()
	next := hc.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != via[0].URL.Host {
			return http.ErrUseLastResponse // the CDN: report it, do not go
		}
		return next(req, via) // a renamed repository: follow
	}
	u := c.FileURL(repo, revision, path)
	resp, err := c.send(ctx, hc, http.MethodHead, u, repo)
	if err != nil {
		return FileMeta{}, err
	}
	drain(resp.Body)
	h := resp.Header
	m := FileMeta{URL: resp.Request.URL.String(), Commit: h.Get("X-Repo-Commit")}
	if resp.StatusCode >= 300 {
		loc, err := resp.Location()
		if err != nil {
			return FileMeta{}, fmt.Errorf("hub: %s: a redirect without a location: %w", repo, err)
		}
		m.URL = loc.String()
	}
	linked := h.Get("X-Linked-Etag")
	m.ETag = trimETag(linked)
	if m.ETag == "" {
		m.ETag = trimETag(h.Get("ETag"))
	}
	if linked != "" && len(m.ETag) == 64 {
		m.SHA256 = m.ETag
	}
	size := h.Get("X-Linked-Size")
	if size == "" {
		size = h.Get("Content-Length")
	}
	if m.Size, err = strconv.ParseInt(size, 10, 64); err != nil {
		return FileMeta{}, fmt.Errorf("hub: %s: %s: the hub did not say the file's size", repo, path)
	}
	return m, nil
}

// trimETag strips W/ and quotes from an ETag.
func trimETag(s string) string {
	return strings.Trim(strings.TrimPrefix(strings.TrimSpace(s), "W/"), `"`)
}
