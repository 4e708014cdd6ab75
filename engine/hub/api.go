package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// SearchOptions says what Search looks for.
type SearchOptions struct {
	// Query is matched against model ids ("llama 3.2 1b").
	Query string
	// Sort is "downloads" (the default), "likes", "updated" or "trending";
	// results come largest (newest) first.
	Sort string
	// Limit is the most results to return (default 20, at most 1000).
	Limit int
	// GGUFOnly keeps models tagged gguf only (callers set it by default).
	GGUFOnly bool
}

// ModelSummary is one search result.
type ModelSummary struct {
	ID           string    // "owner/name"
	Author       string    // "owner"
	Downloads    int       // downloads in the last 30 days
	Likes        int       // likes
	LastModified time.Time // last commit
	Tags         []string  // tags ("gguf", "license:apache-2.0", ...)
	Gated        bool      // the licence must be accepted before download
	PipelineTag  string    // "text-generation", ...
}

// GGUFInfo is the hub's summary of a repository's GGUF files.
type GGUFInfo struct {
	Architecture  string // general.architecture, e.g. "llama"
	ContextLength int    // the model's trained context length
	Parameters    int64  // total parameters
}

// ModelInfo is a repository's metadata.
type ModelInfo struct {
	ID           string    // "owner/name"
	Author       string    // "owner"
	SHA          string    // the commit the main branch points to
	Gated        bool      // the licence must be accepted before download
	Private      bool      // visible to its owner only
	Downloads    int       // downloads in the last 30 days
	Likes        int       // likes
	LastModified time.Time // last commit
	License      string    // cardData.license or a "license:" tag
	BaseModel    string    // cardData.base_model (the first one)
	PipelineTag  string    // "text-generation", ...
	Tags         []string  // tags
	GGUF         *GGUFInfo // nil when the hub has no GGUF summary
}

// File is one file of a repository's tree.
type File struct {
	Path   string // path in the repository
	Size   int64  // bytes (of the real file for LFS files)
	SHA256 string // lfs.oid for LFS files; "" for files kept in git
	OID    string // git blob id
}

// gatedFlag decodes the hub's "gated": false, true, "auto" or "manual".
type gatedFlag bool

// UnmarshalJSON accepts a boolean or a non-empty string (true).
func (g *gatedFlag) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case bool:
		*g = gatedFlag(v)
	case string:
		*g = v != "" && v != "false"
	default:
		*g = false
	}
	return nil
}

// baseModel decodes cardData.base_model: a string or a list of strings.
type baseModel string

// UnmarshalJSON keeps the string or the list's first element.
func (m *baseModel) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case string:
		*m = baseModel(v)
	case []any:
		if len(v) > 0 {
			s, _ := v[0].(string)
			*m = baseModel(s)
		}
	}
	return nil
}

// licence decodes cardData.license: a string or a list (first element).
type licence = baseModel

// apiModel is the JSON of /api/models and /api/models/{repo}.
type apiModel struct {
	ID           string    `json:"id"`
	ModelID      string    `json:"modelId"`
	Author       string    `json:"author"`
	SHA          string    `json:"sha"`
	Gated        gatedFlag `json:"gated"`
	Private      bool      `json:"private"`
	Downloads    int       `json:"downloads"`
	Likes        int       `json:"likes"`
	LastModified time.Time `json:"lastModified"`
	Tags         []string  `json:"tags"`
	PipelineTag  string    `json:"pipeline_tag"`
	CardData     *struct {
		License   licence   `json:"license"`
		BaseModel baseModel `json:"base_model"`
	} `json:"cardData"`
	GGUF *struct {
		Total         int64  `json:"total"`
		Architecture  string `json:"architecture"`
		ContextLength int    `json:"context_length"`
	} `json:"gguf"`
}

func (m *apiModel) id() string {
	if m.ID != "" {
		return m.ID
	}
	return m.ModelID
}

func (m *apiModel) author() string {
	if m.Author != "" {
		return m.Author
	}
	owner, _, _ := strings.Cut(m.id(), "/")
	return owner
}

// searchExpand lists the properties Search asks /api/models for.
var searchExpand = []string{"author", "downloads", "likes", "lastModified", "tags", "gated", "pipeline_tag"}

// sortKeys maps SearchOptions.Sort to the API's sort key.
var sortKeys = map[string]string{
	"":          "downloads",
	"downloads": "downloads",
	"likes":     "likes",
	"updated":   "lastModified",
	"trending":  "trendingScore",
}

// Search lists the models that match opts, most downloaded (or liked,
// updated, trending) first.
func (c *Client) Search(ctx context.Context, opts SearchOptions) ([]ModelSummary, error) {
	sort, ok := sortKeys[strings.ToLower(strings.TrimSpace(opts.Sort))]
	if !ok {
		return nil, fmt.Errorf("hub: unknown sort %q (want downloads, likes, updated or trending)", opts.Sort)
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 1000)
	q := url.Values{}
	if s := strings.TrimSpace(opts.Query); s != "" {
		q.Set("search", s)
	}
	if opts.GGUFOnly {
		q.Set("filter", "gguf")
	}
	q.Set("sort", sort)
	q.Set("direction", "-1")
	q.Set("limit", strconv.Itoa(limit))
	for _, e := range searchExpand {
		q.Add("expand", e)
	}
	var models []apiModel
	if _, err := c.getJSON(ctx, c.endpoint()+"/api/models?"+q.Encode(), "", &models); err != nil {
		return nil, err
	}
	out := make([]ModelSummary, 0, len(models))
	for i := range models {
		m := &models[i]
		out = append(out, ModelSummary{
			ID:           m.id(),
			Author:       m.author(),
			Downloads:    m.Downloads,
			Likes:        m.Likes,
			LastModified: m.LastModified,
			Tags:         m.Tags,
			Gated:        bool(m.Gated),
			PipelineTag:  m.PipelineTag,
		})
	}
	return out, nil
}

// Model returns a repository's metadata.
func (c *Client) Model(ctx context.Context, repo string) (ModelInfo, error) {
	if err := checkRepo(repo); err != nil {
		return ModelInfo{}, err
	}
	var m apiModel
	if _, err := c.getJSON(ctx, c.endpoint()+"/api/models/"+escapeSegments(repo), repo, &m); err != nil {
		return ModelInfo{}, err
	}
	info := ModelInfo{
		ID:           m.id(),
		Author:       m.author(),
		SHA:          m.SHA,
		Gated:        bool(m.Gated),
		Private:      m.Private,
		Downloads:    m.Downloads,
		Likes:        m.Likes,
		LastModified: m.LastModified,
		PipelineTag:  m.PipelineTag,
		Tags:         m.Tags,
	}
	if m.CardData != nil {
		info.License = string(m.CardData.License)
		info.BaseModel = string(m.CardData.BaseModel)
	}
	if info.License == "" {
		for _, t := range m.Tags {
			if l, ok := strings.CutPrefix(t, "license:"); ok {
				info.License = l
				break
			}
		}
	}
	if m.GGUF != nil {
		info.GGUF = &GGUFInfo{Architecture: m.GGUF.Architecture, ContextLength: m.GGUF.ContextLength, Parameters: m.GGUF.Total}
	}
	return info, nil
}

// apiTreeEntry is one entry of /api/models/{repo}/tree/{rev}.
type apiTreeEntry struct {
	Type string `json:"type"` // "file" or "directory"
	OID  string `json:"oid"`
	Size int64  `json:"size"`
	Path string `json:"path"`
	LFS  *struct {
		OID         string `json:"oid"`
		Size        int64  `json:"size"`
		PointerSize int64  `json:"pointerSize"`
	} `json:"lfs"`
}

// maxTreePages bounds the pages Files follows (a loop guard).
const maxTreePages = 1000

// Files lists every file of a repository at a revision ("" means main),
// following the tree's pagination.
func (c *Client) Files(ctx context.Context, repo, revision string) ([]File, error) {
	if err := checkRepo(repo); err != nil {
		return nil, err
	}
	if revision == "" {
		revision = "main"
	}
	next := c.endpoint() + "/api/models/" + escapeSegments(repo) + "/tree/" + url.PathEscape(revision) + "?recursive=true"
	var files []File
	for page := 0; next != ""; page++ {
		if page == maxTreePages {
			return nil, fmt.Errorf("hub: %s: the file list has more than %d pages", repo, maxTreePages)
		}
		var entries []apiTreeEntry
		h, err := c.getJSON(ctx, next, repo, &entries)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Type != "file" {
				continue
			}
			f := File{Path: e.Path, Size: e.Size, OID: e.OID}
			if e.LFS != nil {
				f.SHA256 = e.LFS.OID
				if e.LFS.Size > 0 {
					f.Size = e.LFS.Size
				}
			}
			files = append(files, f)
		}
		next, err = nextLink(next, h)
		if err != nil {
			return nil, fmt.Errorf("hub: %s: %w", repo, err)
		}
	}
	return files, nil
}

// linkNext matches one `<URL>; rel="next"` element of a Link header.
var linkNext = regexp.MustCompile(`<([^>]*)>\s*;[^,]*\brel="?next"?`)

// nextLink returns the absolute URL of the Link header's rel="next", or "".
func nextLink(current string, h http.Header) (string, error) {
	for _, v := range h.Values("Link") {
		m := linkNext.FindStringSubmatch(v)
		if m == nil {
			continue
		}
		base, err := url.Parse(current)
		if err != nil {
			return "", err
		}
		ref, err := url.Parse(m[1])
		if err != nil {
			return "", fmt.Errorf("bad Link header %q: %w", v, err)
		}
		return base.ResolveReference(ref).String(), nil
	}
	return "", nil
}

// repoPart is one valid part of a repository id.
var repoPart = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$`)

// checkRepo says whether repo looks like "owner/name".
func checkRepo(repo string) error {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || !repoPart.MatchString(owner) || !repoPart.MatchString(name) ||
		strings.Contains(repo, "..") || strings.HasSuffix(name, ".") {
		return fmt.Errorf("hub: %q is not a repository id (want owner/name)", repo)
	}
	return nil
}
