// Package fakeopenai is a small OpenAI-compatible streaming server for
// tests: /v1/completions and /v1/chat/completions answer every request
// with max_tokens streamed chunks at set delays, and /v1/models lists one
// model. It records what it received and the most requests it served at
// once. Prompts containing a trigger word make a request misbehave:
//
//	FAIL500  a 500 response with an OpenAI error body
//	DROP     the connection drops after the second chunk
//	ERRMID   an error event after the first chunk
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Config sets the server's behaviour.
type Config struct {
	// FirstDelay is the wait before the first chunk; Interval the wait
	// between chunks.
	FirstDelay, Interval time.Duration
	// OmitUsage leaves out the final usage chunk.
	OmitUsage bool
	// CRLF ends lines with CRLF, and Comments sends keep-alive comments.
	CRLF, Comments bool
	// APIKey, when set, is the bearer token every request must carry.
	APIKey string
	// Model is the name /v1/models lists ("fake" when empty).
	Model string
}

// Received is one request the server got.
type Received struct {
	// Path is the URL path.
	Path string
	// Body is the decoded JSON body.
	Body map[string]any
	// Authorization is the header's value.
	Authorization string
}

// Server is a running fake server.
type Server struct {
	*httptest.Server
	cfg Config

	mu          sync.Mutex
	received    []Received
	inFlight    int
	maxInFlight int
}

// New starts a server; Close stops it.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/completions", s.complete)
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	mux.HandleFunc("GET /v1/models", s.models)
	s.Server = httptest.NewServer(mux)
	return s
}

// Received returns the requests received so far.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// MaxInFlight returns the most completion requests served at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	name := s.cfg.Model
	if name == "" {
		name = "fake"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []map[string]any{{"id": name, "object": "model"}}})
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.APIKey {
		writeError(w, http.StatusUnauthorized, "invalid api key")
		return false
	}
	return true
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "code": code}})
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	// A request stops counting as in flight just before its last write,
	// since the client may send its next request as soon as it reads it.
	var once sync.Once
	leave := func() {
		once.Do(func() {
			s.mu.Lock()
			s.inFlight--
			s.mu.Unlock()
		})
	}
	defer leave()

	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		leave()
		writeError(w, http.StatusBadRequest, "bad JSON: "+err.Error())
		return
	}
	s.mu.Lock()
	s.received = append(s.received, Received{Path: r.URL.Path, Body: body, Authorization: r.Header.Get("Authorization")})
	s.mu.Unlock()
	if s.cfg.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.APIKey {
		leave()
		writeError(w, http.StatusUnauthorized, "invalid api key")
		return
	}
	chat := strings.HasSuffix(r.URL.Path, "/chat/completions")
	prompt, _ := body["prompt"].(string)
	if chat {
		if msgs, ok := body["messages"].([]any); ok && len(msgs) > 0 {
			if m, ok := msgs[0].(map[string]any); ok {
				prompt, _ = m["content"].(string)
			}
		}
	}
	maxTokens := 16
	if n, ok := body["max_tokens"].(float64); ok {
		maxTokens = int(n)
	}
	if strings.Contains(prompt, "FAIL500") {
		leave()
		writeError(w, http.StatusInternalServerError, "the model fell over")
		return
	}

	flusher := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	eol := "\n"
	if s.cfg.CRLF {
		eol = "\r\n"
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s%s%s", b, eol, eol)
		flusher.Flush()
	}
	if chat {
		// The first chat chunk carries the role only.
		send(map[string]any{"object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant"}, "finish_reason": nil}}})
	}
	if s.cfg.Comments {
		fmt.Fprintf(w, ": keep-alive%s%s", eol, eol)
		flusher.Flush()
	}
	for i := range maxTokens {
		d := s.cfg.Interval
		if i == 0 {
			d = s.cfg.FirstDelay
		}
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		if i == 1 && strings.Contains(prompt, "ERRMID") {
			leave()
			fmt.Fprintf(w, "data: {\"error\":{\"message\":\"out of memory\"}}%s%s", eol, eol)
			flusher.Flush()
			return
		}
		if i == 2 && strings.Contains(prompt, "DROP") {
			panic(http.ErrAbortHandler) // closes the connection mid-stream
		}
		var finish any
		if i == maxTokens-1 {
			finish = "length"
		}
		text := fmt.Sprintf("t%d ", i)
		var choice map[string]any
		if chat {
			choice = map[string]any{"index": 0, "delta": map[string]any{"content": text}, "finish_reason": finish}
		} else {
			choice = map[string]any{"index": 0, "text": text, "finish_reason": finish}
		}
		send(map[string]any{"choices": []any{choice}})
	}
	if !s.cfg.OmitUsage {
		promptTokens := len(strings.Fields(prompt))
		send(map[string]any{"choices": []any{}, "usage": map[string]any{
			"prompt_tokens": promptTokens, "completion_tokens": maxTokens, "total_tokens": promptTokens + maxTokens}})
	}
	leave()
	fmt.Fprintf(w, "data: [DONE]%s%s", eol, eol)
	flusher.Flush()
}
