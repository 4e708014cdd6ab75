package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
)

// Remote is a model served by another OpenAI-compatible server.
type Remote struct {
	// URL is its base URL, with or without /v1 (http://host:8000).
	URL string
	// APIKey, when set, is sent to it as a bearer token in place of the
	// client's.
	APIKey string
	// Model is the name the remote server knows it by ("" for the same).
	Model string
}

// remote returns the remote model called name.
func (s *Server) remote(name string) (Remote, bool) {
	name = s.run.Resolve(name)
	r, ok := s.cfg.Remotes[name]
	return r, ok && name != ""
}

// forward sends an OpenAI request for a remote model to its server, the
// body given back, the response (a stream too) passed through as it comes.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, body []byte, rm Remote) {
	target, err := url.Parse(strings.TrimSuffix(strings.TrimRight(rm.URL, "/"), "/v1"))
	if err != nil || target.Host == "" {
		oaiError(w, fmt.Errorf("server: the remote URL %q is invalid", rm.URL))
		return
	}
	if rm.Model != "" {
		var v map[string]any
		if json.Unmarshal(body, &v) == nil {
			v["model"] = rm.Model
			if b, err := json.Marshal(v); err == nil {
				body = b
			}
		}
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = target.Host
			pr.Out.Body = io.NopCloser(bytes.NewReader(body))
			pr.Out.ContentLength = int64(len(body))
			pr.Out.Header.Del("Authorization")
			if rm.APIKey != "" {
				pr.Out.Header.Set("Authorization", "Bearer "+rm.APIKey)
			}
		},
		FlushInterval: -1, // stream as it comes
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			oaiError(w, &apiError{status: http.StatusBadGateway, typ: "server_error", msg: "the remote server failed: " + err.Error()})
		},
	}
	proxy.ServeHTTP(w, r)
}

// routeRemote forwards an OpenAI POST whose model is remote, and reports
// whether it did. The body is read (within the limit) and put back.
func (s *Server) routeRemote(w http.ResponseWriter, r *http.Request) bool {
	if len(s.cfg.Remotes) == 0 || r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/") {
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false // the handler reports it
	}
	var v struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	rm, ok := s.remote(v.Model)
	if !ok {
		return false
	}
	s.forward(w, r, body, rm)
	return true
}
