package loadtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	// The expected values are numpy.percentile's (linear interpolation).
	tests := []struct {
		x    []float64
		p    float64
		want float64
	}{
		{nil, 50, 0},
		{[]float64{7}, 99, 7},
		{[]float64{1, 2, 3, 4}, 0, 1},
		{[]float64{1, 2, 3, 4}, 50, 2.5},
		{[]float64{1, 2, 3, 4}, 90, 3.7},
		{[]float64{1, 2, 3, 4}, 99, 3.97},
		{[]float64{1, 2, 3, 4}, 100, 4},
		{[]float64{15, 20, 35, 40, 50}, 40, 29},
		{[]float64{15, 20, 35, 40, 50}, 90, 46},
		{[]float64{3, 1, 2}, 50, 2},
		{[]float64{10, 0}, 25, 2.5},
	}
	for _, tt := range tests {
		if got := Percentile(tt.x, tt.p); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Percentile(%v, %g) = %g, want %g", tt.x, tt.p, got, tt.want)
		}
	}
	x := []float64{3, 1, 2}
	Percentile(x, 50)
	if x[0] != 3 || x[1] != 1 {
		t.Errorf("Percentile sorted its input: %v", x)
	}
}

func TestDistOf(t *testing.T) {
	d := distOf([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	// numpy: mean 5, std (ddof=0) 2, p50 4.5, p90 7.6, p99 8.86.
	want := Dist{Mean: 5, Std: 2, P50: 4.5, P90: 7.6, P99: 8.86, N: 8}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"mean", d.Mean, want.Mean}, {"std", d.Std, want.Std}, {"p50", d.P50, want.P50}, {"p90", d.P90, want.P90}, {"p99", d.P99, want.P99}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	if d.N != 8 {
		t.Errorf("N = %d", d.N)
	}
}

// sampleResult is a run of four requests: two completed, one failed, one
// never sent.
func sampleResult() *Result {
	ms := time.Millisecond
	return &Result{
		Duration:    2 * time.Second,
		Concurrency: 4,
		Requests: []RequestResult{
			{Index: 0, Started: true, TTFT: 20 * ms, Latency: 50 * ms, ITL: []time.Duration{10 * ms, 10 * ms, 10 * ms}, Chunks: 4,
				PromptTokens: 100, OutputTokens: 4, PromptFromServer: true, OutputFromServer: true},
			{Index: 1, Started: true, TTFT: 40 * ms, Latency: 100 * ms, ITL: []time.Duration{30 * ms, 30 * ms}, Chunks: 3,
				PromptTokens: 100, OutputTokens: 3},
			{Index: 2, Started: true, Latency: 5 * ms, Err: errors.New("boom")},
			{Index: 3},
		},
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize(sampleResult())
	checks := []struct {
		name      string
		got, want float64
	}{
		{"completed", float64(s.Completed), 2},
		{"failed", float64(s.Failed), 1},
		{"not finished", float64(s.NotFinished), 1},
		{"input", float64(s.TotalInputTokens), 200},
		{"output", float64(s.TotalOutputTokens), 7},
		{"duration", s.Duration, 2},
		{"req/s", s.RequestThroughput, 1},
		{"in tok/s", s.InputThroughput, 100},
		{"out tok/s", s.OutputThroughput, 3.5},
		{"total tok/s", s.TotalTokenThroughput, 103.5},
		{"mean ttft", s.MeanTTFT, 30},
		{"median ttft", s.MedianTTFT, 30},
		{"std ttft", s.StdTTFT, 10},
		{"p99 ttft", s.P99TTFT, 39.8},
		// TPOT: (50-20)/3 = 10 and (100-40)/2 = 30.
		{"mean tpot", s.MeanTPOT, 20},
		{"p90 tpot", s.P90TPOT, 28},
		// ITL: 10, 10, 10, 30, 30.
		{"mean itl", s.MeanITL, 18},
		{"p50 itl", s.P50ITL, 10},
		{"p90 itl", s.P90ITL, 30},
		{"mean e2el", s.MeanE2EL, 75},
		{"p50 e2el", s.P50E2EL, 75},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	if len(s.Errors) != 1 || !strings.Contains(s.Errors[0], "request 2: boom") {
		t.Errorf("errors %q", s.Errors)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "no completion usage for 1 of 2") {
		t.Errorf("notes %q", s.Notes)
	}
	if s.MaxConcurrency == nil || *s.MaxConcurrency != 4 || s.RequestRate != nil {
		t.Errorf("limits %v %v", s.MaxConcurrency, s.RequestRate)
	}
}

func TestSummaryJSON(t *testing.T) {
	s := Summarize(sampleResult())
	s.Model = "m"
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{
		"model_id", "max_concurrency", "request_rate", "num_prompts", "duration", "completed", "failed",
		"total_input_tokens", "total_output_tokens", "request_throughput", "input_throughput",
		"output_throughput", "total_token_throughput", "errors", "notes",
	} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	for _, metric := range []string{"ttft", "tpot", "itl", "e2el"} {
		for _, stat := range []string{"mean", "median", "std", "p50", "p90", "p99"} {
			k := stat + "_" + metric + "_ms"
			if _, ok := m[k].(float64); !ok {
				t.Errorf("no number %q", k)
			}
		}
	}
	if m["request_rate"] != nil {
		t.Errorf("request_rate %v, want null for unlimited", m["request_rate"])
	}
}

func TestWriteText(t *testing.T) {
	s := Summarize(sampleResult())
	var b bytes.Buffer
	if err := WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Requests", "4: 2 completed, 1 failed, 1 not finished", "Request throughput", "1.00 req/s",
		"Output tokens", "7 (3.50 tok/s)", "TTFT", "30.00", "TPOT", "ITL", "E2E",
		"Errors:", "request 2: boom", "Notes:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
