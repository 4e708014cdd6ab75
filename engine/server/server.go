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
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"saji/engine/download"
	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/runner"
	"saji/engine/scheduler"
)

// Version is the version the Ollama dialect reports (/api/version): the
// Ollama release whose API Saji follows. Clients gate features on it (VS
// Code's Ollama provider wants 0.6.4 or later), so it is a plain version.
const Version = "0.12.0"

// DefaultMaxBody is the default request body limit.
const DefaultMaxBody = 32 << 20

// Config configures a Server.
type Config struct {
	// Runner holds the models the API serves and runs their generations
	// (nil: a runner of its own with no models, closed with the server).
	Runner *runner.Runner
	// MaxBody limits request bodies in bytes (0: DefaultMaxBody).
	MaxBody int64
	// Logger receives the server's records (nil: slog.Default()).
	Logger *slog.Logger
	// APIKeys, when not empty, are the bearer tokens a request must carry
	// (Authorization: Bearer KEY, or x-api-key: KEY as Anthropic's clients
	// send it); /health and / stay open.
	APIKeys []string
	// CORSOrigins are browser origins allowed to call the API besides the
	// default ones (this machine's pages, app shells and browser
	// extensions, as Ollama allows): "https://app.example", a pattern
	// with one "*" ("https://*.example.com"), or "*" for any.
	CORSOrigins []string
	// Hosts are Host names the API answers to on a loopback address
	// besides this machine's (localhost, its name, its addresses): the
	// name it is served as (saji serve --host). Others are refused (DNS
	// rebinding).
	Hosts []string
	// Remotes forwards the models named by its keys (after the runner's
	// aliases) to pools of other OpenAI-compatible servers.
	Remotes map[string]Remote
	// Routes are routing model names: a request that names one goes to
	// the model its rules choose (see ParseRoutes).
	Routes map[string]Route
	// Downloads returns the download manager Ollama's /api/pull fetches
	// with, its owner's (the app's, which opens it on first use); nil
	// means the server's own, its state in library.DownloadsDir(). Two
	// managers must not share a state folder.
	Downloads func() (*download.Manager, error)
	// AllowImageURLs lets a request's image_url parts (and Anthropic's
	// url image sources) name http(s) URLs, which the server then fetches
	// (saji serve --allow-image-urls); else only data: URIs are taken,
	// since the server does not reach the network for a request by
	// default.
	AllowImageURLs bool
}

// Server answers the API over a runner's models.
type Server struct {
	cfg   Config
	log   *slog.Logger
	mux   *http.ServeMux
	start time.Time
	run   *runner.Runner
	owned bool   // run is the server's own, closed with it
	stop  func() // stops observing run's generations

	metrics   *metrics
	pools     *pools           // the remote models
	routing   map[string]Route // the routing model names, compiled
	responses *responseStore   // the Responses API's kept responses

	dlMu sync.Mutex
	dl   *download.Manager // the server's own download manager, or nil
}

// New returns a server over cfg.Runner's models.
func New(cfg Config) *Server {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, log: cfg.Logger, mux: http.NewServeMux(), start: time.Now(), run: cfg.Runner}
	if s.run == nil {
		s.run, s.owned = runner.New(runner.Config{Logger: cfg.Logger}), true
	}
	s.metrics = newMetrics(s)
	s.stop = s.run.Observe(s.metrics.observe)
	s.pools = newPools(cfg.Remotes, cfg.Logger)
	s.routing = compileRoutes(cfg.Routes, cfg.Logger)
	s.metrics.reg.MustRegister(s.pools.metrics)
	s.routes()
	return s
}

// Runner returns the runner whose models the server serves.
func (s *Server) Runner() *runner.Runner { return s.run }

// Close stops reporting the runner's generations to the server's metrics,
// closes the server's own download manager (pausing its pulls) and the
// runner when it is the server's own. A runner or download manager given
// in Config stays open: its owner closes it.
func (s *Server) Close() error {
	s.stop()
	s.pools.close()
	s.dlMu.Lock()
	if s.dl != nil {
		s.dl.Close() // pauses the pulls, keeping their state
		s.dl = nil
	}
	s.dlMu.Unlock()
	if s.owned {
		return s.run.Close()
	}
	return nil
}

// Handler returns the server's HTTP handler: the API behind the Host,
// CORS and API key checks.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r) {
			refuse(w, r, http.StatusForbidden, "host_not_allowed",
				fmt.Sprintf("host %q is not this machine: the API answers to localhost and this machine's names and addresses", r.Host))
			return
		}
		if !s.cors(w, r) {
			return
		}
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="saji"`)
			refuse(w, r, http.StatusUnauthorized, "invalid_api_key", "a valid API key is required (Authorization: Bearer KEY)")
			return
		}
		s.route(w, r)
		if s.routeRemote(w, r) {
			return
		}
		s.serve(w, r)
	})
}

// serve routes r to its handler. A handler's panic (a bug) is an ERROR
// log with the stack, a 500 in the dialect's shape when nothing was
// written yet, and a count in /metrics: never a dropped connection
// without a word, nor an INFO line nobody reads.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	tw := &trackedWriter{ResponseWriter: w}
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if p == http.ErrAbortHandler {
			panic(p) // a handler's way to drop the connection on purpose
		}
		s.metrics.panics.Inc()
		s.log.Error("server: a handler panicked", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
		if !tw.wrote {
			refuse(w, r, http.StatusInternalServerError, "internal_error", fmt.Sprintf("internal error (a bug in Saji: %v); the server log has the details", p))
		}
	}()
	s.mux.ServeHTTP(tw, r)
}

// trackedWriter records whether a handler has started its response.
type trackedWriter struct {
	http.ResponseWriter
	wrote bool
}

func (t *trackedWriter) WriteHeader(code int) {
	t.wrote = true
	t.ResponseWriter.WriteHeader(code)
}

func (t *trackedWriter) Write(b []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer underneath (flushing,
// deadlines).
func (t *trackedWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// authorized reports whether r may use the API.
func (s *Server) authorized(r *http.Request) bool {
	if len(s.cfg.APIKeys) == 0 || r.URL.Path == "/health" || r.URL.Path == "/" {
		return true
	}
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		key = r.Header.Get("X-Api-Key")
		if key == "" {
			return false
		}
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
	if !s.originAllowed(origin) {
		refuse(w, r, http.StatusForbidden, "cors_origin_not_allowed",
			fmt.Sprintf("origin %q is not allowed (saji serve --cors ORIGIN, or the app's CORS setting, adds it)", origin))
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	if r.Method == http.MethodOptions {
		// The SDKs send headers of their own (x-stainless-*,
		// anthropic-version, ...): a preflight gets the ones it asks for.
		headers := r.Header.Get("Access-Control-Request-Headers")
		if headers == "" {
			headers = "Authorization, Content-Type, Accept, User-Agent, X-Requested-With"
		}
		h.Add("Vary", "Access-Control-Request-Headers")
		h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", headers)
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
	s.anthropicRoutes()
	s.responsesRoutes()
	s.ollamaRoutes()
	s.llamaServerRoutes()
	s.rerankRoutes()
	s.metricsRoutes()
}

// handleHealth reports that the server is up and which models it has.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	var names []string
	for _, m := range s.run.Models() {
		names = append(names, m.Name)
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "models": names})
}

// decodeJSON reads a request body of at most the configured size into v.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	// The body has bodyTimeout to arrive (a client that trickles it holds
	// a connection and a goroutine); the deadline goes once it has, so
	// that it cannot cut the reply's stream.
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(bodyTimeout)) == nil {
		defer rc.SetReadDeadline(time.Time{})
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	dec := json.NewDecoder(r.Body)
	err := dec.Decode(v)
	if err == nil {
		// One JSON value is the body: junk after it is a malformed request.
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("data after the JSON value")
			if terr != nil && !errors.Is(terr, io.ErrUnexpectedEOF) {
				err = terr
			}
		}
	}
	if err == nil {
		return nil
	}
	// The connection closes after the reply: net/http would otherwise
	// read what is left of the body before replying, with the deadline
	// lifted, so that a client that stops sending midway held the
	// connection and its goroutine without ever seeing the 408.
	w.Header().Set("Connection", "close")
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return &apiError{status: http.StatusRequestEntityTooLarge, typ: "invalid_request_error",
			msg: fmt.Sprintf("the request body is larger than %d bytes", tooBig.Limit)}
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &apiError{status: http.StatusRequestTimeout, typ: "invalid_request_error",
			msg: fmt.Sprintf("the request body did not arrive within %v", bodyTimeout)}
	}
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", msg: "invalid JSON: " + err.Error()}
}

// bodyTimeout bounds the time a request's body takes to arrive. It is a
// variable so that a test can shorten it.
var bodyTimeout = time.Minute

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
	var re *model.RunError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &re), errors.Is(err, runner.ErrModelFile), errors.Is(err, gguf.ErrFormat):
		// A model Saji cannot run, or whose file is at fault, fails at its
		// load with the reason.
		return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", code: "model_not_supported", param: "model", msg: err.Error()}
	case errors.Is(err, runner.ErrModelNotFound):
		return &apiError{status: http.StatusNotFound, typ: "invalid_request_error", code: "model_not_found", param: "model", msg: err.Error()}
	case errors.Is(err, runner.ErrContextLength):
		return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", code: "context_length_exceeded", param: "messages", msg: err.Error()}
	case errors.Is(err, scheduler.ErrClosed):
		return &apiError{status: http.StatusServiceUnavailable, typ: "server_error", code: "model_unloaded", msg: err.Error()}
	case errors.Is(err, runner.ErrBusy):
		return &apiError{status: http.StatusServiceUnavailable, typ: "server_error", code: "model_busy", msg: err.Error()}
	case errors.Is(err, runner.ErrBadRequest):
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
