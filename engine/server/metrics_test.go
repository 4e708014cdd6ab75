package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"saji/engine/runner"
	"saji/engine/scheduler"
)

// scrape gets /metrics and parses it as Prometheus' text format (legacy
// names: colons and underscores only).
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("/metrics: content type %q", ct)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

// series returns the metric of family name whose labels include want, or
// nil.
func series(fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		ok := true
		for k, v := range want {
			ok = ok && have[k] == v
		}
		if ok {
			return m
		}
	}
	return nil
}

// value returns a counter's or gauge's value, or -1 when the series is
// missing.
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	m := series(fams, name, labels)
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	}
	return -1
}

// settle waits until the scheduler has published the stats of its last
// step (they follow the last event of a request by a moment).
func settle(t *testing.T, sched *scheduler.Scheduler, done func(scheduler.Stats) bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for st := sched.Stats(); !done(st); st = sched.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("the scheduler does not settle: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// exported returns the names a query may use for the families: their
// names, and the series names of histograms and summaries.
func exported(fams map[string]*dto.MetricFamily) map[string]bool {
	out := map[string]bool{}
	for name, f := range fams {
		out[name] = true
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM:
			out[name+"_bucket"], out[name+"_sum"], out[name+"_count"] = true, true, true
		case dto.MetricType_SUMMARY:
			out[name+"_sum"], out[name+"_count"] = true, true
		}
	}
	return out
}

// TestMetrics checks /metrics after two completions, a generation that
// fails and a request whose client leaves: every metric is there for the model with
// counts that match the requests and token totals that match their usage.
func TestMetrics(t *testing.T) {
	// A long context, so that the request the client abandons is still
	// generating when the server notices (else it may finish first).
	s, hs := newTestServerContext(t, Config{}, 4096)
	tiny := map[string]string{"model_name": "tiny"}

	// Before any request the request series exist at zero.
	fams := scrape(t, hs.URL)
	for _, c := range []struct {
		name   string
		labels map[string]string
	}{
		{metricSuccess, map[string]string{"model_name": "tiny", "finished_reason": "stop"}},
		{metricSuccess, map[string]string{"model_name": "tiny", "finished_reason": "length"}},
		{metricFailure, map[string]string{"model_name": "tiny", "reason": "cancelled"}},
		{metricFailure, map[string]string{"model_name": "tiny", "reason": "error"}},
		{metricGenTokens, tiny},
	} {
		if v := value(fams, c.name, c.labels); v != 0 {
			t.Errorf("before any request: %s%v = %v, want 0", c.name, c.labels, v)
		}
	}

	// The same prompt twice: longer than a cache block, so that the second
	// request finds its first blocks in the prefix cache.
	var promptTokens, completionTokens float64
	for _, body := range []string{
		`{"model":"tiny","prompt":"the cat sat on the mat, the dog sat on the rug","max_tokens":4,"temperature":0,"ignore_eos":true}`,
		`{"model":"tiny","prompt":"the cat sat on the mat, the dog sat on the rug","max_tokens":3,"temperature":0,"ignore_eos":true}`,
	} {
		status, v := post(t, hs.URL+"/v1/completions", body)
		if status != 200 {
			t.Fatalf("status %d: %v", status, v)
		}
		u := v["usage"].(map[string]any)
		promptTokens += u["prompt_tokens"].(float64)
		completionTokens += u["completion_tokens"].(float64)
	}
	// Requests refused as invalid start no generation and are not counted
	// as failures; a generation the client abandons is.
	m := s.Runner().Models()[0]
	if _, err := m.Generate(context.Background(), runner.Request{Tokens: []int32{}}, func(runner.Piece) error { return nil }); err == nil {
		t.Fatal("a generation of an empty prompt succeeds")
	}
	if status, _ := post(t, hs.URL+"/v1/completions", `{"model":"tiny","prompt":"`+strings.Repeat("the cat sat on the mat ", 1000)+`"}`); status != 400 {
		t.Fatalf("a prompt past the context: status %d", status)
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel() // the client left before its request was admitted
	if _, err := m.Generate(gone, runner.Request{Prompt: "the cat", MaxTokens: 2}, func(runner.Piece) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled request: %v", err)
	}
	sched := m.Scheduler()
	settle(t, sched, func(st scheduler.Stats) bool {
		return st.Running == 0 && st.GeneratedTokens == int64(completionTokens)
	})
	st := sched.Stats()

	fams = scrape(t, hs.URL)
	cases := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{metricSuccess, map[string]string{"model_name": "tiny", "finished_reason": "length"}, 2},
		{metricSuccess, map[string]string{"model_name": "tiny", "finished_reason": "stop"}, 0},
		{metricFailure, map[string]string{"model_name": "tiny", "reason": "cancelled"}, 1},
		{metricFailure, map[string]string{"model_name": "tiny", "reason": "error"}, 0},
		{metricRunning, tiny, 0},
		{metricWaiting, tiny, 0},
		{metricKVUsage, tiny, 0}, // every block is free or cached
		{metricKVUtil, tiny, 0},
		{metricGenTokens, tiny, completionTokens},
		{metricPromptTokens, tiny, float64(st.PromptTokens)},
		{metricPrefixQueries, tiny, float64(st.KV.QueryTokens)},
		{metricPrefixHits, tiny, float64(st.KV.HitTokens)},
		{metricHitRate, tiny, st.KV.HitRate()},
		{metricPreemptions, tiny, 0},
		{metricDraftTokens, tiny, 0},
		{metricAccepted, tiny, 0},
		{metricInfo, map[string]string{"version": Version}, 1},
	}
	for _, c := range cases {
		if v := value(fams, c.name, c.labels); v != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, v, c.want)
		}
	}
	// Every prompt token was either computed or served from the cache.
	if got := value(fams, metricPromptTokens, tiny) + value(fams, metricPrefixHits, tiny); got != promptTokens {
		t.Errorf("computed + cached prompt tokens = %v, usage says %v", got, promptTokens)
	}
	if q := value(fams, metricPrefixQueries, tiny); q <= 0 || q > promptTokens {
		t.Errorf("prefix cache queries %v for %v prompt tokens", q, promptTokens)
	}
	if h := value(fams, metricPrefixHits, tiny); h <= 0 || value(fams, metricHitRate, tiny) <= 0 {
		t.Errorf("no prefix cache hits for a repeated prompt (%v tokens): %v", promptTokens/2, h)
	}

	hists := []struct {
		name string
		sum  float64 // -1: any positive sum
	}{
		{metricTTFT, -1},
		{metricTPOT, -1},
		{metricE2E, -1},
		{metricReqPrompt, promptTokens},
		{metricReqGen, completionTokens},
	}
	for _, h := range hists {
		m := series(fams, h.name, tiny)
		if m == nil || m.Histogram == nil {
			t.Errorf("%s: no histogram for tiny", h.name)
			continue
		}
		hg := m.Histogram
		if hg.GetSampleCount() != 2 {
			t.Errorf("%s: count %d, want 2", h.name, hg.GetSampleCount())
		}
		if h.sum >= 0 && hg.GetSampleSum() != h.sum || h.sum < 0 && hg.GetSampleSum() <= 0 {
			t.Errorf("%s: sum %v, want %v", h.name, hg.GetSampleSum(), h.sum)
		}
		if len(hg.Bucket) < 10 {
			t.Errorf("%s: %d buckets", h.name, len(hg.Bucket))
		}
	}
	if e2e, ttft := series(fams, metricE2E, tiny), series(fams, metricTTFT, tiny); e2e != nil && ttft != nil &&
		e2e.Histogram.GetSampleSum() < ttft.Histogram.GetSampleSum() {
		t.Errorf("e2e latency %v below the time to first token %v", e2e.Histogram.GetSampleSum(), ttft.Histogram.GetSampleSum())
	}

	// A client that leaves mid-stream is a cancelled request.
	leaveMidStream(t, http.DefaultClient, hs.URL)
	cancelled := map[string]string{"model_name": "tiny", "reason": "cancelled"}
	deadline := time.Now().Add(time.Minute)
	for value(scrape(t, hs.URL), metricFailure, cancelled) != 2 { // with the one cancelled before admission
		if time.Now().After(deadline) {
			t.Fatal("the cancelled request is not counted")
		}
		time.Sleep(5 * time.Millisecond)
	}
	fams = scrape(t, hs.URL)
	if n := series(fams, metricE2E, tiny).Histogram.GetSampleCount(); n != 2 {
		t.Errorf("a cancelled request is in the latency histogram: count %d", n)
	}
	if v := value(fams, metricGenTokens, tiny); v <= completionTokens {
		t.Errorf("generation tokens %v after a streamed request, were %v", v, completionTokens)
	}
}

// TestMetricsDropUnloaded checks that the request series of a model
// closed and gone from the server leave /metrics (the server-wide ones,
// its info and the panics, stay).
func TestMetricsDropUnloaded(t *testing.T) {
	s, hs := newTestServer(t, Config{})
	if status, v := post(t, hs.URL+"/v1/completions", `{"model":"tiny","prompt":"the cat","max_tokens":2,"ignore_eos":true}`); status != 200 {
		t.Fatalf("status %d: %v", status, v)
	}
	if fams := scrape(t, hs.URL); series(fams, metricE2E, map[string]string{"model_name": "tiny"}) == nil {
		t.Fatal("no latency histogram for tiny")
	}
	s.Close()
	fams := scrape(t, hs.URL)
	for name, f := range fams {
		if strings.HasPrefix(name, "saji:") && name != metricInfo && name != metricPanics && len(f.Metric) > 0 {
			t.Errorf("%s still has %d series after the model is gone", name, len(f.Metric))
		}
	}
}

// saji matches the names of Saji's metrics in queries.
var saji = regexp.MustCompile(`saji:[a-zA-Z_][a-zA-Z0-9_:]*`)

// TestMonitoringFiles checks that the Grafana dashboard is JSON with a
// model_name variable and a Prometheus input, and that every saji: metric
// the dashboard, the alerting rules and their tests use is one the server
// exports.
func TestMonitoringFiles(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	// One request, so that the histograms have series too.
	if status, v := post(t, hs.URL+"/v1/completions", `{"model":"tiny","prompt":"the cat","max_tokens":2,"ignore_eos":true}`); status != 200 {
		t.Fatalf("status %d: %v", status, v)
	}
	names := exported(scrape(t, hs.URL))
	dir := filepath.Join("..", "..", "packaging", "monitoring")

	raw, err := os.ReadFile(filepath.Join(dir, "saji-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Inputs []struct {
			Name, Type, PluginID string
		} `json:"__inputs"`
		Title      string
		Templating struct {
			List []struct{ Name string }
		}
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	if !slices.ContainsFunc(dash.Inputs, func(in struct{ Name, Type, PluginID string }) bool {
		return in.Name == "DS_PROMETHEUS" && in.PluginID == "prometheus"
	}) {
		t.Errorf("the dashboard has no DS_PROMETHEUS input: %+v", dash.Inputs)
	}
	if !slices.ContainsFunc(dash.Templating.List, func(v struct{ Name string }) bool { return v.Name == "model_name" }) {
		t.Error("the dashboard has no model_name variable")
	}
	var exprs int
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs++
			if !saji.MatchString(tg.Expr) {
				t.Errorf("panel %q: %q uses no saji: metric", p.Title, tg.Expr)
			}
		}
	}
	if exprs < 8 {
		t.Errorf("the dashboard has %d queries", exprs)
	}

	alerts, err := os.ReadFile(filepath.Join(dir, "saji-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(alerts), "- alert:"); n < 4 {
		t.Errorf("the alerting rules have %d alerts, want at least 4", n)
	}
	alertTests, err := os.ReadFile(filepath.Join(dir, "saji-alerts.test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for file, text := range map[string]string{"saji-dashboard.json": string(raw), "saji-alerts.yml": string(alerts),
		"saji-alerts.test.yml": string(alertTests)} {
		used := saji.FindAllString(text, -1)
		if len(used) == 0 {
			t.Errorf("%s uses no saji: metric", file)
		}
		for _, name := range used {
			if !names[name] {
				t.Errorf("%s uses %s, which the server does not export", file, name)
			}
		}
	}
}
