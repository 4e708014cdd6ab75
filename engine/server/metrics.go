package server

import "net/http"

// metrics is the server's Prometheus registry (to be written).
type metrics struct{}

// newMetrics returns the metrics of s.
func newMetrics(s *Server) *metrics { return &metrics{} }

// observe records how a generation of m ended.
func (mt *metrics) observe(m *Model, res GenResult, err error) {}

// metricsRoutes registers /metrics.
func (s *Server) metricsRoutes() {
	s.mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "metrics are not written yet", http.StatusNotImplemented)
	})
}
