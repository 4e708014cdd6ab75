// Package hubtest is a fake Hugging Face Hub for tests: an httptest server
// that answers the API calls Saji makes (model search, model info, the file
// tree with LFS sizes and hashes, resolve) shaped like the real hub, and a
// second "CDN" server that resolve redirects LFS files to (a different host,
// so tests can check that the token stays with the hub). Faults can be
// injected per path: error statuses, connections cut mid-body, corrupted
// bytes and throttled transfers.
//
// The package does not import engine/hub, so hub's own tests can use it.
package hubtest

import (
	"bytes"
	"cmp"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// RepoOptions describes a fake repository beyond its files.
type RepoOptions struct {
	// Gated makes resolve answer 401 GatedRepo without the hub's token.
	Gated bool
	// Downloads and Likes are reported by search and model info.
	Downloads, Likes int
	// License goes into cardData.license and a "license:" tag.
	License string
	// Card is the README.md body (it replaces a README.md in the files).
	Card string
	// BaseModel goes into cardData.base_model.
	BaseModel string
	// Tags are added to the repository's tags (gguf and license:... are
	// added by themselves).
	Tags []string
	// PipelineTag defaults to "text-generation".
	PipelineTag string
	// LastModified defaults to a fixed time, a second later per repository.
	LastModified time.Time
	// Architecture, ContextLength and Parameters fill the "gguf" object
	// of model info (defaults "llama", 4096, 1e9) when a .gguf file exists.
	Architecture  string
	ContextLength int
	Parameters    int64
}

// Request is one request a server of the fake answered.
type Request struct {
	Server string // "hub" or "cdn"
	Method string
	Path   string // URL path
	Query  string // raw query
	Range  string // Range header
	Auth   bool   // an Authorization header was present
	Status int    // status answered
}

// Hub is a fake Hugging Face Hub. Its methods are safe for concurrent use.
type Hub struct {
	// URL is the hub's endpoint (use it as HF_ENDPOINT).
	URL string
	// CDNURL is the base URL of the CDN that LFS files redirect to.
	CDNURL string

	mu       sync.Mutex
	token    string
	pageSize int
	throttle int64
	repos    map[string]*repo
	blobs    map[string][]byte // by sha256
	faults   map[string]*fault
	log      []Request
	clock    time.Time

	hub, cdn *httptest.Server
}

type repo struct {
	id      string
	sha     string
	files   map[string]*file
	opts    RepoOptions
	created time.Time
}

type file struct {
	path   string
	data   []byte
	oid    string // git blob id (of the pointer for LFS files)
	sha256 string
	lfs    bool
	ptr    int // pointer size
}

type fault struct {
	fail    []int   // statuses of the next requests
	cut     []int64 // bytes after which the next transfers are cut
	corrupt int     // next transfers to corrupt
}

// New starts a fake hub and its CDN, closed when the test ends.
func New(t testing.TB) *Hub {
	t.Helper()
	h := &Hub{
		repos:  map[string]*repo{},
		blobs:  map[string][]byte{},
		faults: map[string]*fault{},
		clock:  time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	h.hub = httptest.NewServer(h.logged("hub", http.HandlerFunc(h.serveHub)))
	h.cdn = httptest.NewServer(h.logged("cdn", http.HandlerFunc(h.serveCDN)))
	h.URL, h.CDNURL = h.hub.URL, h.cdn.URL
	// The CDN must be on another host than the hub, as the real one is:
	// same IP, other port (net/http forwards Authorization across ports).
	t.Cleanup(func() {
		h.hub.Close()
		h.cdn.Close()
	})
	return h
}

// SetToken sets the access token gated repositories need ("" means any
// token does). With a token set, a request carrying another one gets 401.
func (h *Hub) SetToken(token string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.token = token
}

// SetPageSize makes the tree listing paginate with Link headers, n entries
// a page (0: no pagination).
func (h *Hub) SetPageSize(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pageSize = n
}

// Throttle limits every body transfer to about bytesPerSec (0: no limit).
func (h *Hub) Throttle(bytesPerSec int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.throttle = bytesPerSec
}

// AddRepo adds (or replaces) a repository with its files (path -> content).
// .gguf, .safetensors and .bin files are LFS files: the tree reports their
// sha256 and resolve redirects them to the CDN. It returns the commit id.
func (h *Hub) AddRepo(id string, files map[string][]byte, opts RepoOptions) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clock = h.clock.Add(time.Second)
	if opts.LastModified.IsZero() {
		opts.LastModified = h.clock
	}
	r := &repo{id: id, files: map[string]*file{}, opts: opts, created: h.clock}
	if opts.Card != "" {
		files = mapsClone(files)
		files["README.md"] = []byte(opts.Card)
	}
	commit := sha1.New()
	fmt.Fprintf(commit, "%s\n", id)
	for _, p := range sortedKeys(files) {
		data := bytes.Clone(files[p])
		f := &file{path: p, data: data}
		sum := sha256.Sum256(data)
		f.sha256 = hex.EncodeToString(sum[:])
		switch strings.ToLower(path.Ext(p)) {
		case ".gguf", ".safetensors", ".bin":
			f.lfs = true
		}
		if f.lfs {
			ptr := fmt.Sprintf("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n", f.sha256, len(data))
			f.ptr = len(ptr)
			f.oid = gitOID([]byte(ptr))
			h.blobs[f.sha256] = data
		} else {
			f.oid = gitOID(data)
		}
		r.files[p] = f
		fmt.Fprintf(commit, "%s %s\n", p, f.oid)
	}
	r.sha = hex.EncodeToString(commit.Sum(nil))
	h.repos[id] = r
	return r.sha
}

// Commit returns a repository's commit id ("" if there is none).
func (h *Hub) Commit(id string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.repos[id]; r != nil {
		return r.sha
	}
	return ""
}

// Fail makes the next n requests for path answer status (with a
// Retry-After: 0 for 429 and 503). path is a URL path on the hub or the
// CDN; a resolve path (/{repo}/resolve/{rev}/{file}) also covers the CDN
// transfer it redirects to, whatever the revision.
func (h *Hub) Fail(path string, n, status int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.fault(path)
	for range n {
		f.fail = append(f.fail, status)
	}
}

// CutAfter makes the next n body transfers of path close the connection
// after sending that many bytes of the body (path as for Fail).
func (h *Hub) CutAfter(path string, bytes int64, n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.fault(path)
	for range n {
		f.cut = append(f.cut, bytes)
	}
}

// Corrupt makes the next n body transfers of path flip the bits of the
// first byte they send (path as for Fail).
func (h *Hub) Corrupt(path string, n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fault(path).corrupt += n
}

// Requests returns the requests answered so far, in order.
func (h *Hub) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.log)
}

// fault returns path's fault record; h.mu is held.
func (h *Hub) fault(p string) *fault {
	key := faultKey(p)
	f := h.faults[key]
	if f == nil {
		f = &fault{}
		h.faults[key] = f
	}
	return f
}

// faultKey names a resolve path by repository and file, other paths as is.
func faultKey(p string) string {
	if id, _, file, ok := parseResolve(p); ok {
		return "file:" + id + "/" + file
	}
	return p
}

// takeFail pops the next injected status for any of keys; h.mu is held.
func (h *Hub) takeFail(keys ...string) int {
	for _, k := range keys {
		if f := h.faults[k]; f != nil && len(f.fail) > 0 {
			st := f.fail[0]
			f.fail = f.fail[1:]
			return st
		}
	}
	return 0
}

// transfer is how one body is sent; h.mu is held.
func (h *Hub) transfer(keys ...string) (cut int64, corrupt bool, rate int64) {
	cut = -1
	for _, k := range keys {
		f := h.faults[k]
		if f == nil {
			continue
		}
		if cut < 0 && len(f.cut) > 0 {
			cut = f.cut[0]
			f.cut = f.cut[1:]
		}
		if !corrupt && f.corrupt > 0 {
			f.corrupt--
			corrupt = true
		}
	}
	return cut, corrupt, h.throttle
}

// logged records each request with its status.
func (h *Hub) logged(server string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			h.mu.Lock()
			h.log = append(h.log, Request{
				Server: server, Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
				Range: r.Header.Get("Range"), Auth: r.Header.Get("Authorization") != "", Status: rec.status,
			})
			h.mu.Unlock()
		}()
		next.ServeHTTP(rec, r)
	})
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// hubError answers an error the way the hub does: X-Error-Code,
// X-Error-Message and a JSON {"error": ...} body.
func hubError(w http.ResponseWriter, status int, code, msg string) {
	if code != "" {
		w.Header().Set("X-Error-Code", code)
	}
	w.Header().Set("X-Error-Message", msg)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "0")
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// serveHub routes the hub's endpoints.
func (h *Hub) serveHub(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	h.mu.Lock()
	st := h.takeFail(faultKey(p))
	token := h.token
	h.mu.Unlock()
	if st != 0 {
		hubError(w, st, "", http.StatusText(st))
		return
	}
	auth := r.Header.Get("Authorization")
	if token != "" && auth != "" && auth != "Bearer "+token {
		hubError(w, http.StatusUnauthorized, "", "Invalid credentials in Authorization header")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hubError(w, http.StatusMethodNotAllowed, "", "method not allowed")
		return
	}
	switch {
	case p == "/api/models" || p == "/api/models/":
		h.serveSearch(w, r)
	case strings.HasPrefix(p, "/api/models/"):
		h.serveModelAPI(w, r, strings.TrimPrefix(p, "/api/models/"))
	default:
		if id, rev, f, ok := parseResolve(p); ok {
			h.serveResolve(w, r, id, rev, f)
			return
		}
		hubError(w, http.StatusNotFound, "", "Sorry, we can't find the page you are looking for.")
	}
}

// parseResolve splits /{owner}/{name}/resolve/{rev}/{file...}.
func parseResolve(p string) (id, rev, file string, ok bool) {
	parts := strings.SplitN(strings.TrimPrefix(p, "/"), "/", 5)
	if len(parts) < 5 || parts[2] != "resolve" || parts[4] == "" {
		return "", "", "", false
	}
	return parts[0] + "/" + parts[1], parts[3], parts[4], true
}

// repoJSON is a repository as /api/models and /api/models/{id} show it.
func (h *Hub) repoJSON(r *repo, full bool) map[string]any {
	owner, _, _ := strings.Cut(r.id, "/")
	tags := []string{}
	hasGGUF := false
	for _, f := range r.files {
		if strings.HasSuffix(strings.ToLower(f.path), ".gguf") {
			hasGGUF = true
		}
	}
	if hasGGUF {
		tags = append(tags, "gguf")
	}
	tags = append(tags, r.opts.Tags...)
	if r.opts.License != "" {
		tags = append(tags, "license:"+r.opts.License)
	}
	pipeline := cmp.Or(r.opts.PipelineTag, "text-generation")
	tags = append(tags, pipeline, "endpoints_compatible", "region:us")
	var gated any = false
	if r.opts.Gated {
		gated = "manual"
	}
	m := map[string]any{
		"_id":           fmt.Sprintf("%024x", r.created.Unix()),
		"id":            r.id,
		"modelId":       r.id,
		"author":        owner,
		"sha":           r.sha,
		"lastModified":  r.opts.LastModified.UTC().Format("2006-01-02T15:04:05.000Z"),
		"createdAt":     r.created.UTC().Format("2006-01-02T15:04:05.000Z"),
		"private":       false,
		"disabled":      false,
		"gated":         gated,
		"downloads":     r.opts.Downloads,
		"likes":         r.opts.Likes,
		"trendingScore": r.opts.Likes / 10,
		"tags":          tags,
		"pipeline_tag":  pipeline,
	}
	if hasGGUF {
		m["library_name"] = "gguf"
	}
	if !full {
		return m
	}
	card := map[string]any{}
	if r.opts.License != "" {
		card["license"] = r.opts.License
	}
	if r.opts.BaseModel != "" {
		card["base_model"] = r.opts.BaseModel
	}
	if len(card) > 0 {
		m["cardData"] = card
	}
	siblings := []map[string]any{}
	var used int64
	for _, p := range sortedKeys(r.files) {
		siblings = append(siblings, map[string]any{"rfilename": p})
		used += int64(len(r.files[p].data))
	}
	m["siblings"] = siblings
	m["usedStorage"] = used
	if hasGGUF {
		m["gguf"] = map[string]any{
			"total":          cmp.Or(r.opts.Parameters, 1_000_000_000),
			"architecture":   cmp.Or(r.opts.Architecture, "llama"),
			"context_length": cmp.Or(r.opts.ContextLength, 4096),
		}
	}
	return m
}

// searchDefault are the properties /api/models lists without expand.
var searchDefault = []string{"_id", "id", "likes", "trendingScore", "private", "downloads", "tags", "pipeline_tag", "library_name", "createdAt", "modelId"}

// serveSearch answers GET /api/models?search=&author=&filter=&sort=&direction=&limit=&expand=.
func (h *Hub) serveSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	search := strings.ToLower(q.Get("search"))
	author := q.Get("author")
	var filters []string
	for _, f := range q["filter"] {
		filters = append(filters, strings.Split(f, ",")...)
	}
	h.mu.Lock()
	var list []map[string]any
	for _, id := range sortedKeys(h.repos) {
		rp := h.repos[id]
		if search != "" && !matchSearch(strings.ToLower(id), search) {
			continue
		}
		if author != "" && !strings.EqualFold(strings.SplitN(id, "/", 2)[0], author) {
			continue
		}
		m := h.repoJSON(rp, false)
		tags := m["tags"].([]string)
		ok := true
		for _, f := range filters {
			if f != "" && !slices.Contains(tags, f) && m["library_name"] != f {
				ok = false
			}
		}
		if ok {
			list = append(list, m)
		}
	}
	h.mu.Unlock()

	sortKey := q.Get("sort")
	desc := q.Get("direction") == "-1"
	if sortKey != "" {
		if !slices.Contains([]string{"downloads", "likes", "lastModified", "createdAt", "trendingScore", "id"}, sortKey) {
			hubError(w, http.StatusBadRequest, "", "Invalid sort parameter")
			return
		}
		slices.SortStableFunc(list, func(a, b map[string]any) int {
			c := compareAny(a[sortKey], b[sortKey])
			if desc {
				return -c
			}
			return c
		})
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 {
			hubError(w, http.StatusBadRequest, "", "Invalid limit parameter")
			return
		}
		if n < len(list) {
			list = list[:n]
		}
	}
	keep := searchDefault
	if ex := append(q["expand"], q["expand[]"]...); len(ex) > 0 {
		keep = append([]string{"_id", "id"}, ex...)
	}
	out := make([]map[string]any, 0, len(list))
	for _, m := range list {
		o := map[string]any{}
		for _, k := range keep {
			if v, ok := m[k]; ok {
				o[k] = v
			}
		}
		out = append(out, o)
	}
	writeJSON(w, out)
}

// matchSearch says whether every word of the query is in the id.
func matchSearch(id, query string) bool {
	for _, word := range strings.Fields(query) {
		if !strings.Contains(id, word) {
			return false
		}
	}
	return true
}

// compareAny orders two JSON values of the same kind.
func compareAny(a, b any) int {
	switch a := a.(type) {
	case int:
		bi, _ := b.(int)
		return cmp.Compare(a, bi)
	case string:
		bs, _ := b.(string)
		return cmp.Compare(a, bs)
	}
	return 0
}

// serveModelAPI answers /api/models/{id}, /api/models/{id}/revision/{rev}
// and /api/models/{id}/tree/{rev}[/{path}].
func (h *Hub) serveModelAPI(w http.ResponseWriter, r *http.Request, rest string) {
	parts := strings.SplitN(rest, "/", 5)
	if len(parts) < 2 {
		hubError(w, http.StatusNotFound, "RepoNotFound", "Repository not found")
		return
	}
	id := parts[0] + "/" + parts[1]
	h.mu.Lock()
	rp := h.repos[id]
	h.mu.Unlock()
	if rp == nil {
		hubError(w, http.StatusNotFound, "RepoNotFound", "Repository not found")
		return
	}
	if len(parts) == 2 || (len(parts) == 4 && parts[2] == "revision") {
		if len(parts) == 4 && parts[3] != "main" && parts[3] != rp.sha {
			hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+parts[3])
			return
		}
		h.mu.Lock()
		m := h.repoJSON(rp, true)
		h.mu.Unlock()
		writeJSON(w, m)
		return
	}
	if len(parts) >= 4 && parts[2] == "tree" {
		dir := ""
		if len(parts) == 5 {
			dir = strings.Trim(parts[4], "/")
		}
		h.serveTree(w, r, rp, parts[3], dir)
		return
	}
	hubError(w, http.StatusNotFound, "", "Not Found")
}

// serveTree lists a repository's files and folders under dir, recursively
// with ?recursive=true, paginated by SetPageSize with a cursor.
func (h *Hub) serveTree(w http.ResponseWriter, r *http.Request, rp *repo, rev, dir string) {
	if rev != "main" && rev != rp.sha {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	q := r.URL.Query()
	recursive := q.Get("recursive") == "true" || q.Get("recursive") == "1"
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	type entry = map[string]any
	var entries []entry
	dirs := map[string]bool{}
	for _, p := range sortedKeys(rp.files) {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		rel := strings.TrimPrefix(p, prefix)
		// Folders on the way to the file.
		segs := strings.Split(rel, "/")
		for i := 1; i < len(segs); i++ {
			d := prefix + strings.Join(segs[:i], "/")
			if !dirs[d] && (recursive || i == 1) {
				dirs[d] = true
				entries = append(entries, entry{"type": "directory", "oid": gitOID([]byte(d)), "size": 0, "path": d})
			}
		}
		if !recursive && len(segs) > 1 {
			continue
		}
		f := rp.files[p]
		e := entry{"type": "file", "oid": f.oid, "size": len(f.data), "path": f.path}
		if f.lfs {
			e["lfs"] = map[string]any{"oid": f.sha256, "size": len(f.data), "pointerSize": f.ptr}
		}
		entries = append(entries, e)
	}
	if dir != "" && len(entries) == 0 {
		hubError(w, http.StatusNotFound, "EntryNotFound", fmt.Sprintf("%s does not exist on %q", dir, rev))
		return
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return cmp.Compare(a["path"].(string), b["path"].(string)) })

	h.mu.Lock()
	size := h.pageSize
	h.mu.Unlock()
	if size > 0 {
		start := 0
		if c := q.Get("cursor"); c != "" {
			b, err := base64.RawURLEncoding.DecodeString(c)
			if n, err2 := strconv.Atoi(string(b)); err == nil && err2 == nil && n >= 0 {
				start = min(n, len(entries))
			} else {
				hubError(w, http.StatusBadRequest, "", "Invalid cursor")
				return
			}
		}
		end := min(start+size, len(entries))
		if end < len(entries) {
			nq := url.Values{}
			for k, v := range q {
				nq[k] = v
			}
			nq.Set("cursor", base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end))))
			next := h.URL + r.URL.Path + "?" + nq.Encode()
			w.Header().Set("Link", "<"+next+`>; rel="next"`)
		}
		entries = entries[start:end]
	}
	if entries == nil {
		entries = []entry{}
	}
	writeJSON(w, entries)
}

// serveResolve answers /{id}/resolve/{rev}/{file}: LFS files redirect to the
// CDN, other files are served here.
func (h *Hub) serveResolve(w http.ResponseWriter, r *http.Request, id, rev, name string) {
	h.mu.Lock()
	rp := h.repos[id]
	token := h.token
	h.mu.Unlock()
	if rp == nil {
		hubError(w, http.StatusNotFound, "RepoNotFound", "Repository not found")
		return
	}
	if rev != "main" && rev != rp.sha {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	f := rp.files[name]
	if f == nil {
		hubError(w, http.StatusNotFound, "EntryNotFound", "Entry not found")
		return
	}
	auth := r.Header.Get("Authorization")
	if rp.opts.Gated && name != "README.md" && name != ".gitattributes" &&
		(auth == "" || token != "" && auth != "Bearer "+token) {
		hubError(w, http.StatusUnauthorized, "GatedRepo",
			fmt.Sprintf("Access to model %s is restricted. You must have access to it and be authenticated to access it. Please log in.", id))
		return
	}
	w.Header().Set("X-Repo-Commit", rp.sha)
	w.Header().Set("Accept-Ranges", "bytes")
	if f.lfs {
		w.Header().Set("X-Linked-Etag", `"`+f.sha256+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(f.data)))
		w.Header().Set("ETag", `"`+f.oid+`"`)
		loc := fmt.Sprintf("%s/lfs/%s?repo=%s&file=%s&expires=%d", h.CDNURL, f.sha256,
			url.QueryEscape(id), url.QueryEscape(name), rp.created.Add(time.Hour).Unix())
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+f.oid+`"`)
	h.serveBody(w, r, f.data, "file:"+id+"/"+name)
}

// serveCDN answers /lfs/{sha256}?repo=&file= with Range, HEAD and ETag. It
// refuses requests carrying an Authorization header, as a pre-signed
// storage URL does.
func (h *Hub) serveCDN(w http.ResponseWriter, r *http.Request) {
	sha, ok := strings.CutPrefix(r.URL.Path, "/lfs/")
	h.mu.Lock()
	data, found := h.blobs[sha]
	q := r.URL.Query()
	fileKey := "file:" + q.Get("repo") + "/" + q.Get("file")
	st := h.takeFail(r.URL.Path, fileKey)
	h.mu.Unlock()
	if st != 0 {
		w.Header().Set("Retry-After", "0")
		http.Error(w, http.StatusText(st), st)
		return
	}
	if r.Header.Get("Authorization") != "" {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>`)
		return
	}
	if !ok || !found {
		http.Error(w, "NoSuchKey", http.StatusNotFound)
		return
	}
	w.Header().Set("ETag", `"`+sha+`"`)
	w.Header().Set("Accept-Ranges", "bytes")
	h.serveBody(w, r, data, r.URL.Path, fileKey)
}

// serveBody sends data with Range, If-Range, HEAD and 416 handled by
// http.ServeContent, through the injected faults and the throttle.
func (h *Hub) serveBody(w http.ResponseWriter, r *http.Request, data []byte, keys ...string) {
	var cut int64 = -1
	var corrupt bool
	var rate int64
	if r.Method != http.MethodHead {
		h.mu.Lock()
		cut, corrupt, rate = h.transfer(keys...)
		h.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	fw := &faultWriter{ResponseWriter: w, r: r, cut: cut, corrupt: corrupt, rate: rate}
	http.ServeContent(fw, r, "", time.Time{}, bytes.NewReader(data))
}

// faultWriter passes a body through the injected faults.
type faultWriter struct {
	http.ResponseWriter
	r       *http.Request
	sent    int64
	cut     int64 // < 0: none
	corrupt bool
	rate    int64
}

func (w *faultWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		chunk := p
		if w.rate > 0 {
			chunk = p[:min(int64(len(p)), max(w.rate/20, 1))]
		}
		if w.cut >= 0 && w.sent+int64(len(chunk)) > w.cut {
			chunk = chunk[:w.cut-w.sent]
		}
		if w.corrupt && w.sent == 0 && len(chunk) > 0 {
			c := bytes.Clone(chunk)
			c[0] ^= 0xff
			chunk = c
		}
		m, err := w.ResponseWriter.Write(chunk)
		w.sent += int64(m)
		n += m
		p = p[m:]
		if err != nil {
			return n, err
		}
		if w.cut >= 0 && w.sent >= w.cut {
			if f, ok := w.ResponseWriter.(http.Flusher); ok {
				f.Flush()
			}
			panic(http.ErrAbortHandler) // closes the connection mid-body
		}
		if w.rate > 0 && len(p) > 0 {
			t := time.NewTimer(time.Duration(int64(m) * int64(time.Second) / w.rate))
			select {
			case <-w.r.Context().Done():
				t.Stop()
				return n, w.r.Context().Err()
			case <-t.C:
			}
		}
	}
	return n, nil
}

// writeJSON answers 200 with v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

// gitOID is git's blob id of data.
func gitOID(data []byte) string {
	s := sha1.New()
	fmt.Fprintf(s, "blob %d\x00", len(data))
	s.Write(data)
	return hex.EncodeToString(s.Sum(nil))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func mapsClone(m map[string][]byte) map[string][]byte {
	c := make(map[string][]byte, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Serve starts a fake hub on hubLn and its CDN on cdnLn, for a program
// rather than a test (internal/tools/fakehub): it is New without a
// testing.TB. The listeners must be on different ports; Close stops both
// servers.
func Serve(hubLn, cdnLn net.Listener) *Hub {
	h := &Hub{
		repos:  map[string]*repo{},
		blobs:  map[string][]byte{},
		faults: map[string]*fault{},
		clock:  time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	h.hub = &httptest.Server{Listener: hubLn, Config: &http.Server{Handler: h.logged("hub", http.HandlerFunc(h.serveHub))}}
	h.cdn = &httptest.Server{Listener: cdnLn, Config: &http.Server{Handler: h.logged("cdn", http.HandlerFunc(h.serveCDN))}}
	h.hub.Start()
	h.cdn.Start()
	h.URL, h.CDNURL = h.hub.URL, h.cdn.URL
	return h
}

// Close stops a hub started by Serve (New's hub stops with its test).
func (h *Hub) Close() {
	h.hub.Close()
	h.cdn.Close()
}
