package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestHandlerPanic checks that a handler's panic is a 500 in the
// dialect's shape, counted in /metrics, and that a panic after the
// response started leaves what was written alone.
func TestHandlerPanic(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	s.mux.HandleFunc("GET /v1/boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	s.mux.HandleFunc("GET /api/boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	s.mux.HandleFunc("GET /v1/late", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "started")
		panic("late")
	})
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/v1/boom", 500, `"type":"server_error"`},
		{"/api/boom", 500, `{"error":"internal error (a bug in Saji: boom)`},
		{"/v1/late", 200, "started"},
	}
	for _, tt := range tests {
		status, body := get(tt.path)
		if status != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s: %d %s, want %d with %s", tt.path, status, body, tt.status, tt.want)
		}
	}
	if _, m := get("/metrics"); !strings.Contains(m, metricPanics+" 3") {
		t.Errorf("/metrics does not count 3 panics:\n%s", m)
	}
}
