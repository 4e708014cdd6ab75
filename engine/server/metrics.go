package server

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"saji/engine/runner"
)

// Metric names, as vLLM names its own under "vllm:". Every metric but
// saji:server_info carries the model_name label.
const (
	metricRunning       = "saji:num_requests_running"
	metricWaiting       = "saji:num_requests_waiting"
	metricKVUsage       = "saji:kv_cache_usage_perc"
	metricKVUtil        = "saji:kv_cache_utilization"
	metricHitRate       = "saji:prefix_cache_hit_rate"
	metricPromptTokens  = "saji:prompt_tokens_total"
	metricGenTokens     = "saji:generation_tokens_total"
	metricPrefixQueries = "saji:prefix_cache_queries_total"
	metricPrefixHits    = "saji:prefix_cache_hits_total"
	metricPreemptions   = "saji:num_preemptions_total"
	metricSuccess       = "saji:request_success_total"
	metricFailure       = "saji:request_failure_total"
	metricTTFT          = "saji:time_to_first_token_seconds"
	metricTPOT          = "saji:time_per_output_token_seconds"
	metricE2E           = "saji:e2e_request_latency_seconds"
	metricReqPrompt     = "saji:request_prompt_tokens"
	metricReqGen        = "saji:request_generation_tokens"
	metricInfo          = "saji:server_info"
	metricPanics        = "saji:handler_panics_total"
	metricDraftTokens   = "saji:spec_decode_num_draft_tokens_total"
	metricAccepted      = "saji:spec_decode_num_accepted_tokens_total"

	// The remote models' metrics carry the upstream label too.
	metricUpstreamRequests  = "saji:upstream_requests_total"
	metricUpstreamRetries   = "saji:upstream_retries_total"
	metricUpstreamFirstByte = "saji:upstream_time_to_first_byte_seconds"
	metricUpstreamUp        = "saji:upstream_up"
	metricUpstreamRunning   = "saji:upstream_requests_running"
	metricRouted            = "saji:routed_requests_total"
)

// The label values of saji:request_success_total and
// saji:request_failure_total.
var (
	finishReasons  = []string{"stop", "length"}
	failureReasons = []string{"cancelled", "error"}
)

// Histogram buckets, sized for a desktop CPU: a long prompt may take a
// minute to process, and a large model a few seconds per token.
var (
	ttftBuckets = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10, 15, 20, 30, 45, 60, 90, 120}
	tpotBuckets = []float64{0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 2, 5}
	e2eBuckets  = []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600, 1200}
	tokBuckets  = buckets125(1 << 20)
)

// buckets125 returns 1, 2, 5, 10, 20, 50, ... up to top.
func buckets125(top float64) []float64 {
	var out []float64
	for m := 1.0; ; m *= 10 {
		for _, f := range []float64{1, 2, 5} {
			if m*f > top {
				return out
			}
			out = append(out, m*f)
		}
	}
}

// metrics is the server's Prometheus registry: the request outcomes and
// latencies that observe records, and the schedulers' state read at
// scrape time. Each Server has its own registry.
type metrics struct {
	s   *Server
	reg *prometheus.Registry

	success, failure                   *prometheus.CounterVec
	panics                             prometheus.Counter
	routed                             *prometheus.CounterVec
	ttft, tpot, e2e, reqPrompt, reqGen *prometheus.HistogramVec

	// Descriptions of the metrics read from the schedulers.
	running, waiting, kvUsage, kvUtil, hitRate                  *prometheus.Desc
	promptTokens, genTokens, prefixQueries, prefixHits, preempt *prometheus.Desc
	info                                                        *prometheus.Desc
	draftTokens, accepted                                       *prometheus.Desc

	mu    sync.Mutex
	known map[string]bool // model names with series in the vectors
}

// newMetrics returns the metrics of s.
func newMetrics(s *Server) *metrics {
	model := []string{"model_name"}
	hist := func(name, help string, buckets []float64) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, model)
	}
	desc := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, model, nil) }
	mt := &metrics{
		s:   s,
		reg: prometheus.NewRegistry(),
		success: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricSuccess,
			Help: "Requests that finished, by reason: stop (end of generation or a stop string) or length (max tokens or the end of the context)."},
			[]string{"model_name", "finished_reason"}),
		failure: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricFailure,
			Help: "Requests that failed, by reason: cancelled (the client left) or error."},
			[]string{"model_name", "reason"}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{Name: metricPanics,
			Help: "Requests whose handler panicked (a bug in Saji: the log has the stack); each got a 500."}),
		routed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricRouted,
			Help: "Requests that named a routing model, by the route and the model its rules chose."},
			[]string{"route", "model_name"}),
		ttft:      hist(metricTTFT, "Time from submission to the first generated token of successful requests, in seconds.", ttftBuckets),
		tpot:      hist(metricTPOT, "Mean time per output token after the first, of successful requests with more than one token, in seconds.", tpotBuckets),
		e2e:       hist(metricE2E, "Time from submission to the end of successful requests, in seconds.", e2eBuckets),
		reqPrompt: hist(metricReqPrompt, "Prompt tokens of successful requests (cached ones included).", tokBuckets),
		reqGen:    hist(metricReqGen, "Generated tokens of successful requests.", tokBuckets),

		running: desc(metricRunning, "Requests in the running batch."),
		waiting: desc(metricWaiting, "Requests queued for admission (preempted ones included)."),
		kvUsage: desc(metricKVUsage, "KV cache blocks held by live requests over all blocks, all layer groups together (0 to 1; cached blocks kept for prefix reuse count as free)."),
		kvUtil:  desc(metricKVUtil, "Tokens stored in the held KV cache blocks over their cells (0 to 1)."),
		hitRate: desc(metricHitRate, "Prompt tokens served from the prefix cache over prompt tokens looked up, since the model was loaded (0 to 1)."),

		promptTokens:  desc(metricPromptTokens, "Prompt tokens computed (those served from the prefix cache are not; recomputed ones after a preemption are)."),
		genTokens:     desc(metricGenTokens, "Tokens generated."),
		prefixQueries: desc(metricPrefixQueries, "Prompt tokens looked up in the prefix cache."),
		prefixHits:    desc(metricPrefixHits, "Prompt tokens served from the prefix cache."),
		preempt:       desc(metricPreemptions, "Requests preempted to free KV cache blocks."),
		draftTokens:   desc(metricDraftTokens, "Draft tokens of speculative decoding verified by the model."),
		accepted:      desc(metricAccepted, "Draft tokens of speculative decoding the model accepted."),

		info:  prometheus.NewDesc(metricInfo, "Saji's version (always 1).", []string{"version"}, nil),
		known: map[string]bool{},
	}
	mt.reg.MustRegister(mt,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return mt
}

// Describe implements prometheus.Collector.
func (mt *metrics) Describe(ch chan<- *prometheus.Desc) {
	mt.success.Describe(ch)
	mt.failure.Describe(ch)
	mt.panics.Describe(ch)
	mt.routed.Describe(ch)
	for _, h := range mt.histograms() {
		h.Describe(ch)
	}
	for _, d := range []*prometheus.Desc{mt.running, mt.waiting, mt.kvUsage, mt.kvUtil, mt.hitRate,
		mt.promptTokens, mt.genTokens, mt.prefixQueries, mt.prefixHits, mt.preempt, mt.info, mt.draftTokens, mt.accepted} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: it reads every model's
// scheduler, and reports the request metrics of every loaded model, at
// zero before its first request so that rates are defined from the start.
func (mt *metrics) Collect(ch chan<- prometheus.Metric) {
	models := mt.s.run.Models()
	mt.sync(models)
	mt.success.Collect(ch)
	mt.failure.Collect(ch)
	mt.panics.Collect(ch)
	mt.routed.Collect(ch)
	for _, h := range mt.histograms() {
		h.Collect(ch)
	}
	ch <- prometheus.MustNewConstMetric(mt.info, prometheus.GaugeValue, 1, Version)
	for _, m := range models {
		st := m.Scheduler().Stats()
		var used, total int
		for _, g := range st.KV.Groups {
			used += g.Used
			total += g.Total
		}
		usage := 0.0
		if total > 0 {
			usage = float64(used) / float64(total)
		}
		for _, v := range []struct {
			d *prometheus.Desc
			t prometheus.ValueType
			v float64
		}{
			{mt.running, prometheus.GaugeValue, float64(st.Running)},
			{mt.waiting, prometheus.GaugeValue, float64(st.Waiting)},
			{mt.kvUsage, prometheus.GaugeValue, usage},
			{mt.kvUtil, prometheus.GaugeValue, st.KV.Utilization()},
			{mt.hitRate, prometheus.GaugeValue, st.KV.HitRate()},
			{mt.promptTokens, prometheus.CounterValue, float64(st.PromptTokens)},
			{mt.genTokens, prometheus.CounterValue, float64(st.GeneratedTokens)},
			{mt.prefixQueries, prometheus.CounterValue, float64(st.KV.QueryTokens)},
			{mt.prefixHits, prometheus.CounterValue, float64(st.KV.HitTokens)},
			{mt.preempt, prometheus.CounterValue, float64(st.Preemptions)},
			{mt.draftTokens, prometheus.CounterValue, float64(st.DraftTokens)},
			{mt.accepted, prometheus.CounterValue, float64(st.AcceptedTokens)},
		} {
			ch <- prometheus.MustNewConstMetric(v.d, v.t, v.v, m.Name)
		}
	}
}

// histograms returns the per-request histograms.
func (mt *metrics) histograms() []*prometheus.HistogramVec {
	return []*prometheus.HistogramVec{mt.ttft, mt.tpot, mt.e2e, mt.reqPrompt, mt.reqGen}
}

// sync gives every loaded model its series and drops those of models no
// longer loaded (a model loaded again starts from zero, as its scheduler's
// counters do).
func (mt *metrics) sync(models []*runner.Model) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	loaded := make(map[string]bool, len(models))
	for _, m := range models {
		loaded[m.Name] = true
		if mt.known[m.Name] {
			continue
		}
		mt.known[m.Name] = true
		for _, r := range finishReasons {
			mt.success.WithLabelValues(m.Name, r)
		}
		for _, r := range failureReasons {
			mt.failure.WithLabelValues(m.Name, r)
		}
		for _, h := range mt.histograms() {
			h.WithLabelValues(m.Name)
		}
	}
	for name := range mt.known {
		if loaded[name] {
			continue
		}
		delete(mt.known, name)
		l := prometheus.Labels{"model_name": name}
		mt.success.DeletePartialMatch(l)
		mt.failure.DeletePartialMatch(l)
		for _, h := range mt.histograms() {
			h.DeletePartialMatch(l)
		}
	}
}

// observe records how a generation of m ended: a success by its finish
// reason, with its latencies and token counts, or a failure.
func (mt *metrics) observe(m *runner.Model, res runner.Result, err error) {
	name := m.Name
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		mt.failure.WithLabelValues(name, "cancelled").Inc()
		return
	case err != nil:
		mt.failure.WithLabelValues(name, "error").Inc()
		return
	}
	finish := res.Finish
	if finish != "stop" && finish != "length" {
		finish = "stop" // not expected; keeps the label's values bounded
	}
	mt.success.WithLabelValues(name, finish).Inc()
	if res.FirstToken > 0 {
		mt.ttft.WithLabelValues(name).Observe(res.FirstToken.Seconds())
	}
	if res.CompletionTokens > 1 {
		mt.tpot.WithLabelValues(name).Observe((res.Total - res.FirstToken).Seconds() / float64(res.CompletionTokens-1))
	}
	mt.e2e.WithLabelValues(name).Observe(res.Total.Seconds())
	mt.reqPrompt.WithLabelValues(name).Observe(float64(res.PromptTokens))
	mt.reqGen.WithLabelValues(name).Observe(float64(res.CompletionTokens))
}

// Gather returns the server's metrics as /metrics reports them, for a
// reader in the same process (the app's live charts).
func (s *Server) Gather() ([]*dto.MetricFamily, error) { return s.metrics.reg.Gather() }

// metricsRoutes registers /metrics: the server's registry in Prometheus'
// text format (or what the scraper negotiates).
func (s *Server) metricsRoutes() {
	h := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(s.log.Handler(), slog.LevelError),
		ErrorHandling: promhttp.ContinueOnError,
	})
	s.mux.Handle("GET /metrics", h)
}
