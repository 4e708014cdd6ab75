package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"saji/engine/library"
	"saji/engine/scheduler"
	"sort"
	"strings"
	"sync"
	"time"
)

// ErrModelNotFound is wrapped when a request names a model the server
// does not have.
var ErrModelNotFound = errors.New("server: model not found")

// Version is the version the Ollama dialect reports (/api/version): the
// Ollama release whose API Saji follows. Clients gate features on it (VS
// Code's Ollama provider wants 0.6.4 or later), so it is a plain version.
const Version = "0.12.0"

// DefaultMaxBody is the default request body limit.
const DefaultMaxBody = 32 << 20

// Config configures a Server.
type Config struct {
	// MaxBody limits request bodies in bytes (0: DefaultMaxBody).
	MaxBody int64
	// Logger receives the server's records (nil: slog.Default()).
	Logger *slog.Logger
	// APIKeys, when not empty, are the bearer tokens a request must carry
	// (Authorization: Bearer KEY); /health and / stay open.
	APIKeys []string
	// CORSOrigins are the browser origins allowed to call the API ("*"
	// for any); none by default, so web pages cannot reach it.
	CORSOrigins []string

	// ModelsDir, when set, is a folder of GGUF files that requests may name
	// (by file name without .gguf): they load on first use with Load.
	ModelsDir string
	// Library, when set, adds the models of the app's library (its folder
	// and the files it holds by reference) to those requests may name; they
	// load on first use with Load, as ModelsDir's do.
	Library *library.Library
	// Load configures the models loaded from ModelsDir and Library.
	Load LoadOptions
	// KeepAlive is how long a model from ModelsDir stays loaded without
	// requests (0: DefaultKeepAlive; negative: for ever).
	KeepAlive time.Duration
	// MaxLoaded is the most models loaded at once (0: DefaultMaxLoaded, or
	// the models given to Add if more).
	MaxLoaded int
	// SweepEvery is how often expired models are unloaded (0: 5 s).
	SweepEvery time.Duration
	// Available returns the memory available for another model (nil: the
	// system's available memory); loading unloads idle models while it is
	// short of the new model's weights and KV cache.
	Available func() uint64
	// Remotes forwards the models named by its keys to other
	// OpenAI-compatible servers.
	Remotes map[string]Remote
	// Aliases are other names for models ("gpt-4o" -> "qwen2.5-7b"), for
	// clients that only offer a fixed list of model names.
	Aliases map[string]string
}

// Server answers the API over its models.
type Server struct {
	cfg   Config
	log   *slog.Logger
	mux   *http.ServeMux
	start time.Time

	mu      sync.RWMutex
	models  map[string]*Model
	order   []string // names in the order they were added
	loading map[string]*loadCall
	stop    chan struct{}
	closed  sync.Once
	// reloads are the loads of models whose GPU failed (recoverGPU).
	reloads sync.WaitGroup

	metrics *metrics
}

// New returns a server with no models; Add adds them.
func New(cfg Config) *Server {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, log: cfg.Logger, mux: http.NewServeMux(), start: time.Now(), models: map[string]*Model{},
		loading: map[string]*loadCall{}, stop: make(chan struct{})}
	s.metrics = newMetrics(s)
	s.routes()
	every := cfg.SweepEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	go s.janitor(every)
	return s
}

// Add makes m available under its name (and replaces a model of the same
// name, which the caller closes). It stays loaded until the server closes.
func (s *Server) Add(m *Model) { s.add(m, true) }

// add adds m, pinned or not.
func (s *Server) add(m *Model, pinned bool) {
	m.pinned = pinned
	m.touch()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.models[m.Name]; !ok {
		s.order = append(s.order, m.Name)
	}
	s.models[m.Name] = m
	s.hook(m)
}

// hook connects m's metrics and GPU fault reports to s.
func (s *Server) hook(m *Model) {
	m.observe = func(res GenResult, err error) { s.metrics.observe(m, res, err) }
	m.faulted = func() { s.recoverGPU(m) }
}

// Models returns the models in the order they were added.
func (s *Server) Models() []*Model {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*Model, 0, len(s.order))
	for _, n := range s.order {
		out = append(out, s.models[n])
	}
	return out
}

// Model returns the model called name. An empty name means the first
// model, so that clients that send none (or a placeholder) still work
// with one model loaded.
//
// A name that is not loaded but is a GGUF file in the models folder loads
// it first (unloading an idle model when MaxLoaded are loaded).
func (s *Server) Model(name string) (*Model, error) {
	if to, ok := s.cfg.Aliases[name]; ok {
		name = to
	}
	// Ollama's clients name models NAME:TAG, and list them (from /api/tags)
	// as NAME:latest, sometimes to call the OpenAI dialect with.
	if base, ok := strings.CutSuffix(name, latestTag); ok && base != "" && !s.has(name) {
		name = base
	}
	s.mu.RLock()
	m, ok := s.models[name]
	if !ok && name == "" && len(s.order) > 0 {
		m, ok = s.models[s.order[0]], true
	}
	s.mu.RUnlock()
	if ok {
		m.touch()
		return m, nil
	}
	if path, ok := s.dirModel(name); ok {
		return s.load(name, path)
	}
	var names []string
	for _, m := range s.Catalog() {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("%w: %q (available: %v)", ErrModelNotFound, name, names)
}

// has reports whether a model called name is loaded.
func (s *Server) has(name string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.models[name]
	return ok
}

// Close stops unloading models and closes every model.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed.Do(func() { close(s.stop) }) // under mu: see recoverGPU
	s.mu.Unlock()
	s.reloads.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for _, m := range s.models {
		if err := m.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.models, s.order = map[string]*Model{}, nil
	return first
}

// Handler returns the server's HTTP handler: the API behind the CORS and
// API key checks.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.cors(w, r) {
			return
		}
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="saji"`)
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{
				"message": "a valid API key is required (Authorization: Bearer KEY)", "type": "invalid_request_error",
				"param": nil, "code": "invalid_api_key"}})
			return
		}
		if s.routeRemote(w, r) {
			return
		}
		s.mux.ServeHTTP(w, r)
	})
}

// authorized reports whether r may use the API.
func (s *Server) authorized(r *http.Request) bool {
	if len(s.cfg.APIKeys) == 0 || r.URL.Path == "/health" || r.URL.Path == "/" {
		return true
	}
	auth := r.Header.Get("Authorization")
	key, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		return false
	}
	for _, k := range s.cfg.APIKeys {
		if subtle.ConstantTimeCompare([]byte(k), []byte(key)) == 1 {
			return true
		}
	}
	return false
}

// cors answers a cross-origin request from an allowed origin with its
// headers (and a preflight at once), and refuses one from another origin.
// It reports whether the request goes on.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true // not from a browser page
	}
	allowed := false
	for _, o := range s.cfg.CORSOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			allowed = true
			break
		}
	}
	if !allowed {
		writeJSON(w, http.StatusForbidden, map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("origin %q is not allowed (see the CORS allowlist)", origin), "type": "invalid_request_error",
			"param": nil, "code": "cors_origin_not_allowed"}})
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return false
	}
	return true
}

// routes registers every endpoint.
func (s *Server) routes() {
	s.mux.HandleFunc("GET /health", s.handleHealth)
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "Saji is running\n") // what Ollama clients probe
	})
	s.openAIRoutes()
	s.ollamaRoutes()
	s.metricsRoutes()
}

// handleHealth reports that the server is up and which models it has.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	var names []string
	for _, m := range s.Models() {
		names = append(names, m.Name)
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "models": names})
}

// decodeJSON reads a request body of at most the configured size into v.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &apiError{status: http.StatusRequestEntityTooLarge, typ: "invalid_request_error",
				msg: fmt.Sprintf("the request body is larger than %d bytes", tooBig.Limit)}
		}
		return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", msg: "invalid JSON: " + err.Error()}
	}
	return nil
}

// apiError is an error with the HTTP status and OpenAI error type it is
// reported with.
type apiError struct {
	status int
	typ    string
	code   string
	param  string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

// classify turns an error into an apiError.
func classify(err error) *apiError {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, ErrModelNotFound):
		return &apiError{status: http.StatusNotFound, typ: "invalid_request_error", code: "model_not_found", param: "model", msg: err.Error()}
	case errors.Is(err, ErrContextLength):
		return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", code: "context_length_exceeded", param: "messages", msg: err.Error()}
	case errors.Is(err, scheduler.ErrClosed):
		return &apiError{status: http.StatusServiceUnavailable, typ: "server_error", code: "model_unloaded", msg: err.Error()}
	case errors.Is(err, ErrBusy):
		return &apiError{status: http.StatusServiceUnavailable, typ: "server_error", code: "model_busy", msg: err.Error()}
	case errors.Is(err, ErrBadRequest):
		return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", msg: err.Error()}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &apiError{status: 499, typ: "cancelled", msg: err.Error()}
	}
	return &apiError{status: http.StatusInternalServerError, typ: "server_error", msg: err.Error()}
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
