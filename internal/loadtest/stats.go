package loadtest

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of x by linear
// interpolation between the closest ranks, as numpy.percentile does by
// default: the value at rank p/100·(n-1) of the sorted data. x need not be
// sorted and is not modified. It returns 0 for empty x.
func Percentile(x []float64, p float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return percentileSorted(s, p)
}

// percentileSorted is Percentile of sorted data.
func percentileSorted(s []float64, p float64) float64 {
	p = min(max(p, 0), 100)
	rank := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(rank))
	hi := min(lo+1, len(s)-1)
	frac := rank - float64(lo)
	return s[lo] + (s[hi]-s[lo])*frac
}

// Dist summarizes a latency distribution, in milliseconds.
type Dist struct {
	Mean, Std, P50, P90, P99 float64
	// N is the number of samples.
	N int
}

// distOf summarizes the samples: the mean, the population standard
// deviation (numpy.std's default) and the percentiles.
func distOf(ms []float64) Dist {
	if len(ms) == 0 {
		return Dist{}
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	var sum float64
	for _, v := range s {
		sum += v
	}
	mean := sum / float64(len(s))
	var sq float64
	for _, v := range s {
		sq += (v - mean) * (v - mean)
	}
	return Dist{
		Mean: mean,
		Std:  math.Sqrt(sq / float64(len(s))),
		P50:  percentileSorted(s, 50),
		P90:  percentileSorted(s, 90),
		P99:  percentileSorted(s, 99),
		N:    len(s),
	}
}

// ms converts a duration to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// maxErrors is how many distinct error messages a summary keeps.
const maxErrors = 5

// Summary is the report of a run. Its JSON names follow vLLM's
// benchmark_serving result file where it has one; times are in
// milliseconds unless the name says otherwise, throughputs per second.
type Summary struct {
	// Model, Endpoint and URL describe what was measured (set by the
	// caller; Summarize leaves them empty).
	Model    string `json:"model_id,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	URL      string `json:"base_url,omitempty"`
	// MaxConcurrency and RequestRate are the run's limits; null when
	// unlimited.
	MaxConcurrency *int     `json:"max_concurrency"`
	RequestRate    *float64 `json:"request_rate"`

	// NumPrompts is the number of requests in the workload; Duration the
	// run's length in seconds; Completed, Failed and NotFinished (cancelled
	// or never sent) divide the requests; Interrupted says the run was
	// cancelled.
	NumPrompts  int     `json:"num_prompts"`
	Duration    float64 `json:"duration"` // seconds
	Completed   int     `json:"completed"`
	Failed      int     `json:"failed"`
	NotFinished int     `json:"not_finished"` // cancelled or never sent
	Interrupted bool    `json:"interrupted"`

	// The token totals count completed requests; the throughputs divide
	// them (and Completed) by Duration.
	TotalInputTokens     int     `json:"total_input_tokens"`
	TotalOutputTokens    int     `json:"total_output_tokens"`
	RequestThroughput    float64 `json:"request_throughput"`
	InputThroughput      float64 `json:"input_throughput"`
	OutputThroughput     float64 `json:"output_throughput"`
	TotalTokenThroughput float64 `json:"total_token_throughput"`

	// The latency statistics, in milliseconds: mean, median, population
	// standard deviation and percentiles of the time to first token (TTFT),
	// the time per output token after the first (TPOT), the inter-token
	// latency (ITL) and the end-to-end latency (E2EL). Median and P50 are
	// the same figure under vLLM's name and the plain one.
	MeanTTFT   float64 `json:"mean_ttft_ms"`
	MedianTTFT float64 `json:"median_ttft_ms"`
	StdTTFT    float64 `json:"std_ttft_ms"`
	P50TTFT    float64 `json:"p50_ttft_ms"`
	P90TTFT    float64 `json:"p90_ttft_ms"`
	P99TTFT    float64 `json:"p99_ttft_ms"`

	MeanTPOT   float64 `json:"mean_tpot_ms"`
	MedianTPOT float64 `json:"median_tpot_ms"`
	StdTPOT    float64 `json:"std_tpot_ms"`
	P50TPOT    float64 `json:"p50_tpot_ms"`
	P90TPOT    float64 `json:"p90_tpot_ms"`
	P99TPOT    float64 `json:"p99_tpot_ms"`

	MeanITL   float64 `json:"mean_itl_ms"`
	MedianITL float64 `json:"median_itl_ms"`
	StdITL    float64 `json:"std_itl_ms"`
	P50ITL    float64 `json:"p50_itl_ms"`
	P90ITL    float64 `json:"p90_itl_ms"`
	P99ITL    float64 `json:"p99_itl_ms"`

	MeanE2EL   float64 `json:"mean_e2el_ms"`
	MedianE2EL float64 `json:"median_e2el_ms"`
	StdE2EL    float64 `json:"std_e2el_ms"`
	P50E2EL    float64 `json:"p50_e2el_ms"`
	P90E2EL    float64 `json:"p90_e2el_ms"`
	P99E2EL    float64 `json:"p99_e2el_ms"`

	// The records of the completed requests, as vLLM's detailed result
	// file has them (times in seconds): prompt and output lengths, time to
	// first token (0 when none streamed) and inter-token latencies; and
	// Saji's own: when each was sent, from the start of the run, and its
	// end-to-end latency. The HTML report's charts read them.
	InputLens  []int       `json:"input_lens,omitempty"`
	OutputLens []int       `json:"output_lens,omitempty"`
	TTFTs      []float64   `json:"ttfts,omitempty"`
	ITLs       [][]float64 `json:"itls,omitempty"`
	StartTimes []float64   `json:"start_times,omitempty"`
	E2ELs      []float64   `json:"e2els,omitempty"`

	// Errors are the first few distinct failure messages.
	Errors []string `json:"errors"`
	// Notes say where a figure is an estimate or missing.
	Notes []string `json:"notes"`
}

// TTFT, TPOT, ITL and E2EL return the distributions as Dist values.
func (s *Summary) TTFT() Dist {
	return Dist{s.MeanTTFT, s.StdTTFT, s.P50TTFT, s.P90TTFT, s.P99TTFT, 0}
}

// TPOT returns the time-per-output-token distribution; see TTFT.
func (s *Summary) TPOT() Dist {
	return Dist{s.MeanTPOT, s.StdTPOT, s.P50TPOT, s.P90TPOT, s.P99TPOT, 0}
}

// ITL returns the inter-token latency distribution; see TTFT.
func (s *Summary) ITL() Dist { return Dist{s.MeanITL, s.StdITL, s.P50ITL, s.P90ITL, s.P99ITL, 0} }

// E2EL returns the end-to-end latency distribution; see TTFT.
func (s *Summary) E2EL() Dist {
	return Dist{s.MeanE2EL, s.StdE2EL, s.P50E2EL, s.P90E2EL, s.P99E2EL, 0}
}

// Summarize computes the report of a run: counts and token totals over the
// completed requests, throughputs over the run's duration, and the latency
// distributions (TTFT over completed requests that streamed output, TPOT
// over those with more than one output token, ITL over every gap between
// chunks, E2E latency over completed requests).
func Summarize(res *Result) Summary {
	s := Summary{NumPrompts: len(res.Requests), Duration: res.Duration.Seconds(), Interrupted: res.Interrupted,
		Errors: []string{}, Notes: []string{}}
	if res.Concurrency > 0 {
		c := res.Concurrency
		s.MaxConcurrency = &c
	}
	if res.Rate > 0 && !math.IsInf(res.Rate, 1) {
		r := res.Rate
		s.RequestRate = &r
	}
	var ttft, tpot, itl, e2el []float64
	var noPromptCount, noUsage, noOutput int
	seen := map[string]bool{}
	for i := range res.Requests {
		r := &res.Requests[i]
		switch {
		case !r.Started || r.Cancelled:
			s.NotFinished++
			continue
		case r.Err != nil:
			s.Failed++
			if msg := r.Err.Error(); !seen[msg] && len(s.Errors) < maxErrors {
				seen[msg] = true
				s.Errors = append(s.Errors, fmt.Sprintf("request %d: %s", r.Index, msg))
			}
			continue
		}
		s.Completed++
		s.record(r)
		s.TotalInputTokens += r.PromptTokens
		s.TotalOutputTokens += r.OutputTokens
		if r.PromptTokens == 0 {
			noPromptCount++
		}
		if !r.OutputFromServer {
			noUsage++
		}
		e2el = append(e2el, ms(r.Latency))
		if r.Chunks == 0 {
			noOutput++
			continue
		}
		ttft = append(ttft, ms(r.TTFT))
		if d, ok := r.TPOT(); ok {
			tpot = append(tpot, ms(d))
		}
		for _, g := range r.ITL {
			itl = append(itl, ms(g))
		}
	}
	if sec := res.Duration.Seconds(); sec > 0 {
		s.RequestThroughput = float64(s.Completed) / sec
		s.InputThroughput = float64(s.TotalInputTokens) / sec
		s.OutputThroughput = float64(s.TotalOutputTokens) / sec
		s.TotalTokenThroughput = float64(s.TotalInputTokens+s.TotalOutputTokens) / sec
	}
	d := distOf(ttft)
	s.MeanTTFT, s.MedianTTFT, s.StdTTFT, s.P50TTFT, s.P90TTFT, s.P99TTFT = d.Mean, d.P50, d.Std, d.P50, d.P90, d.P99
	d = distOf(tpot)
	s.MeanTPOT, s.MedianTPOT, s.StdTPOT, s.P50TPOT, s.P90TPOT, s.P99TPOT = d.Mean, d.P50, d.Std, d.P50, d.P90, d.P99
	d = distOf(itl)
	s.MeanITL, s.MedianITL, s.StdITL, s.P50ITL, s.P90ITL, s.P99ITL = d.Mean, d.P50, d.Std, d.P50, d.P90, d.P99
	d = distOf(e2el)
	s.MeanE2EL, s.MedianE2EL, s.StdE2EL, s.P50E2EL, s.P90E2EL, s.P99E2EL = d.Mean, d.P50, d.Std, d.P50, d.P90, d.P99

	if noPromptCount > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("input tokens unknown for %d of %d completed requests (the server reported no usage and no tokenizer was given); counted as 0", noPromptCount, s.Completed))
	}
	if noUsage > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("the server reported no completion usage for %d of %d completed requests; their output tokens are the streamed chunks counted", noUsage, s.Completed))
	}
	if noOutput > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d completed requests streamed no output and are left out of TTFT, TPOT and ITL", noOutput))
	}
	if s.Failed > len(s.Errors) {
		s.Notes = append(s.Notes, fmt.Sprintf("%d requests failed; the errors list shows the first %d distinct messages", s.Failed, len(s.Errors)))
	}
	return s
}

// record appends the completed request r to the per-request records.
func (s *Summary) record(r *RequestResult) {
	sec := func(d time.Duration) float64 { return d.Seconds() }
	itl := make([]float64, len(r.ITL))
	for i, g := range r.ITL {
		itl[i] = sec(g)
	}
	s.InputLens = append(s.InputLens, r.PromptTokens)
	s.OutputLens = append(s.OutputLens, r.OutputTokens)
	s.TTFTs = append(s.TTFTs, sec(r.TTFT))
	s.ITLs = append(s.ITLs, itl)
	s.StartTimes = append(s.StartTimes, sec(r.Start))
	s.E2ELs = append(s.E2ELs, sec(r.Latency))
}

// WriteText prints the summary as a table.
func WriteText(w io.Writer, s Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format+"\n", a...) }
	if s.Model != "" {
		p("Model\t%s", s.Model)
	}
	if s.URL != "" {
		p("Server\t%s (%s)", s.URL, s.Endpoint)
	}
	limits := "unlimited"
	if s.MaxConcurrency != nil {
		limits = fmt.Sprintf("%d", *s.MaxConcurrency)
	}
	rate := "all at once"
	if s.RequestRate != nil {
		rate = fmt.Sprintf("%g req/s (Poisson)", *s.RequestRate)
	}
	p("Max concurrency\t%s", limits)
	p("Arrivals\t%s", rate)
	status := fmt.Sprintf("%d completed, %d failed", s.Completed, s.Failed)
	if s.NotFinished > 0 {
		status += fmt.Sprintf(", %d not finished", s.NotFinished)
	}
	if s.Interrupted {
		status += " (interrupted)"
	}
	p("Requests\t%d: %s", s.NumPrompts, status)
	p("Duration\t%.2f s", s.Duration)
	p("Request throughput\t%.2f req/s", s.RequestThroughput)
	p("Input tokens\t%d (%.2f tok/s)", s.TotalInputTokens, s.InputThroughput)
	p("Output tokens\t%d (%.2f tok/s)", s.TotalOutputTokens, s.OutputThroughput)
	p("Total token throughput\t%.2f tok/s", s.TotalTokenThroughput)
	p("")
	p("Latency (ms)\tmean\tstd\tp50\tp90\tp99")
	for _, row := range []struct {
		name string
		d    Dist
	}{
		{"TTFT (time to first token)", s.TTFT()},
		{"TPOT (time per output token)", s.TPOT()},
		{"ITL (inter-token latency)", s.ITL()},
		{"E2E (request latency)", s.E2EL()},
	} {
		d := row.d
		p("%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f", row.name, d.Mean, d.Std, d.P50, d.P90, d.P99)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("loadtest: writing the report: %w", err)
	}
	var b strings.Builder
	if len(s.Errors) > 0 {
		b.WriteString("\nErrors:\n")
		for _, e := range s.Errors {
			b.WriteString("  " + e + "\n")
		}
	}
	if len(s.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range s.Notes {
			b.WriteString("  " + n + "\n")
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("loadtest: writing the report: %w", err)
	}
	return nil
}
