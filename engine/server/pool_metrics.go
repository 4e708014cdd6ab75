package server

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// upstreamMetrics are the remote models' metrics, each with the
// model_name and upstream labels: requests by outcome, requests moved to
// another upstream, time to the upstream's answer, and, read at scrape
// time, whether each upstream is in the rotation and its requests in
// flight.
type upstreamMetrics struct {
	ps                *pools
	requests, retries *prometheus.CounterVec
	firstByteTime     *prometheus.HistogramVec
	up, running       *prometheus.Desc
}

// newUpstreamMetrics returns the metrics of ps's upstreams.
func newUpstreamMetrics(ps *pools) *upstreamMetrics {
	labels := []string{"model_name", "upstream"}
	return &upstreamMetrics{
		ps: ps,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricUpstreamRequests,
			Help: "Requests sent to a remote model's upstream, by status: its HTTP status code, or error (no answer, or a broken stream), timeout or cancelled (the client left)."},
			append(labels, "status")),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricUpstreamRetries,
			Help: "Requests an upstream failed (not reached, or a 502 or 503) that went to another upstream of the pool."}, labels),
		firstByteTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: metricUpstreamFirstByte,
			Help: "Time from sending a request to an upstream to its response's headers, in seconds (a stream's first event, or a whole answer).", Buckets: ttftBuckets}, labels),
		up:      prometheus.NewDesc(metricUpstreamUp, "Whether an upstream of a remote model is in the rotation (1) or failed its health check or a request (0).", labels, nil),
		running: prometheus.NewDesc(metricUpstreamRunning, "Requests in flight to an upstream of a remote model.", labels, nil),
	}
}

// Describe implements prometheus.Collector.
func (um *upstreamMetrics) Describe(ch chan<- *prometheus.Desc) {
	um.requests.Describe(ch)
	um.retries.Describe(ch)
	um.firstByteTime.Describe(ch)
	ch <- um.up
	ch <- um.running
}

// Collect implements prometheus.Collector.
func (um *upstreamMetrics) Collect(ch chan<- prometheus.Metric) {
	um.requests.Collect(ch)
	um.retries.Collect(ch)
	um.firstByteTime.Collect(ch)
	for _, p := range um.ps.byName {
		for _, u := range p.ups {
			up := 1.0
			if u.down.Load() {
				up = 0
			}
			ch <- prometheus.MustNewConstMetric(um.up, prometheus.GaugeValue, up, p.name, u.label)
			ch <- prometheus.MustNewConstMetric(um.running, prometheus.GaugeValue, float64(u.inflight.Load()), p.name, u.label)
		}
	}
}

// request counts a request to u by its outcome.
func (um *upstreamMetrics) request(u *upstream, status string) {
	um.requests.WithLabelValues(u.remote, u.label, status).Inc()
}

// retried counts a request that u failed and another upstream was asked.
func (um *upstreamMetrics) retried(u *upstream) {
	um.retries.WithLabelValues(u.remote, u.label).Inc()
}

// firstByte records the time u took to answer.
func (um *upstreamMetrics) firstByte(u *upstream, d time.Duration) {
	um.firstByteTime.WithLabelValues(u.remote, u.label).Observe(d.Seconds())
}
