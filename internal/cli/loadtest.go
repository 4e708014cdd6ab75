package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"saji/engine/tokenizer"
	"saji/internal/loadtest"
)

// loadtestFlags are the settings of 'saji loadtest'.
type loadtestFlags struct {
	url, model, endpoint, apiKey string
	dataset, tokenizer           string
	requests, concurrency        int
	rate                         float64
	promptLen, outputLen         int
	sharedPrefix                 int
	seed                         uint64
	jsonOut, ignoreEOS           bool
	report                       string     // --report: the HTML report's path
	compare                      bool       // --compare A.json B.json
	local                        localFlags // in-process runs
}

// newLoadtestCmd is 'saji loadtest': a serving benchmark in the manner of
// vLLM's benchmark_serving, against any OpenAI-compatible server.
func newLoadtestCmd() *cobra.Command {
	lf := loadtestFlags{requests: 200, concurrency: 8, promptLen: 256, outputLen: 128, endpoint: string(loadtest.Completions), ignoreEOS: true}
	cmd := &cobra.Command{
		Use:   "loadtest (--url URL [--model NAME] | --model FILE.gguf) [--report FILE.html] | --compare A.json B.json [--report FILE.html]",
		Short: "Benchmark an OpenAI-compatible server under load, as vLLM's benchmark_serving does",
		Long: "Send a workload of streamed completions to an OpenAI-compatible server (Saji's own,\n" +
			"llama-server, vLLM, Ollama's /v1) and report what vLLM's benchmark_serving reports:\n" +
			"the duration, completed and failed requests, request and token throughput, and the\n" +
			"mean, standard deviation, p50, p90 and p99 of\n\n" +
			"  TTFT  time to first token;\n" +
			"  TPOT  time per output token after the first, (latency - TTFT) / (tokens - 1);\n" +
			"  ITL   inter-token latency, every gap between streamed chunks;\n" +
			"  E2E   end-to-end request latency.\n\n" +
			"The prompts are --requests random prompts of --prompt-len tokens, or the lines of a\n" +
			"--dataset file ({\"prompt\": \"...\", \"output_len\": 128} per line; every line once\n" +
			"unless --requests is given, then that many, starting over when the file runs out).\n" +
			"With --tokenizer (a GGUF model or vocabulary) the random prompts encode to exactly\n" +
			"--prompt-len tokens (no BOS counted); without one they are common English words,\n" +
			"about one token each. --shared-prefix K starts every prompt with the same K tokens.\n" +
			"The same --seed gives the same prompts and arrival times.\n\n" +
			"Arrivals: by default at most --concurrency (8) requests are in flight and the next\n" +
			"starts when one ends. --rate R sends requests as a Poisson process of R per second,\n" +
			"with no concurrency limit unless --concurrency is also given. --concurrency 0 means\n" +
			"no limit.\n\n" +
			"Each request asks for --output-len tokens with ignore_eos (turn it off with\n" +
			"--ignore-eos=false for servers that reject it), temperature 0 and the usage report;\n" +
			"token counts come from that report, or else from counting streamed chunks. With no\n" +
			"--model the first model the server lists (GET /v1/models) is used. A failed request\n" +
			"is counted and its error shown; Ctrl-C stops the run and reports what finished.\n" +
			"--json prints one JSON object with vLLM's result names (request_throughput,\n" +
			"output_throughput, mean_ttft_ms, p99_itl_ms, ...; times in milliseconds), and the\n" +
			"completed requests' records as vLLM's detailed results have them (input_lens,\n" +
			"output_lens, ttfts, itls, in seconds) with start_times and e2els.\n\n" +
			"--report FILE.html also writes one self-contained page (inline SVG charts; it\n" +
			"needs no network) with the run's settings, the TTFT, TPOT, ITL and E2E\n" +
			"percentiles, the output throughput over time and the latency distributions.\n" +
			"--compare A.json B.json reads two runs that --json wrote and puts them side by\n" +
			"side: a table with B's ratio to A, and with --report the same page for both.\n\n" +
			"Without --url, --model names a GGUF file that is served in process by Saji's\n" +
			"scheduler (continuous batching, paged KV cache, prefix caching), without HTTP: the\n" +
			"serving core measured on its own. Its tokenizer sizes the prompts, and the report\n" +
			"adds the KV cache's utilisation, the prefix-cache hit rate and the preemptions.\n" +
			"--max-seqs, --token-budget, --kv-budget, --ctx, --ctk, --threads and\n" +
			"--gpu-layers (-ngl, the last N layers on the GPU) set it up.",
		Example: "  saji loadtest --url http://127.0.0.1:8080 --requests 100 --concurrency 4\n" +
			"  saji loadtest --url http://localhost:11434/v1 --model llama3.2 --rate 2 --endpoint chat\n" +
			"  saji loadtest --url http://127.0.0.1:8000 --tokenizer model.gguf --prompt-len 1024 --shared-prefix 1000 --json\n" +
			"  saji loadtest --url http://127.0.0.1:8080 --dataset prompts.jsonl --output-len 256\n" +
			"  saji loadtest --model llama-1b-q4_k_m.gguf --requests 16 --concurrency 8 --prompt-len 128 --output-len 64\n" +
			"  saji loadtest --url http://127.0.0.1:8080 -c 1 --json --report c1.html > c1.json\n" +
			"  saji loadtest --compare c1.json c8.json --report c1-c8.html",
		Args: func(cmd *cobra.Command, args []string) error {
			if lf.compare {
				return cobra.ExactArgs(2)(cmd, args)
			}
			return cobra.NoArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			f := cmd.Flags()
			if lf.compare {
				return runLoadtestCompare(args[0], args[1], lf.report, cmd.OutOrStdout())
			}
			if f.Changed("rate") && !f.Changed("concurrency") {
				lf.concurrency = 0
			}
			if !f.Changed("requests") && lf.dataset != "" {
				lf.requests = 0 // every line once
			}
			return runLoadtest(ctx, &lf, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&lf.url, "url", "", "server base `URL`, with or without /v1 (such as http://127.0.0.1:8080)")
	f.StringVar(&lf.model, "model", "", "model `NAME` to request (default: the first the server lists)")
	f.StringVar(&lf.endpoint, "endpoint", lf.endpoint, "API to call: completions, chat, or llama (llama-server's native /completion)")
	f.StringVar(&lf.apiKey, "api-key", "", "send this `KEY` as a bearer token")
	f.IntVarP(&lf.requests, "requests", "n", lf.requests, "number of requests")
	f.IntVarP(&lf.concurrency, "concurrency", "c", lf.concurrency, "most requests in flight at once (0: no limit)")
	f.Float64VarP(&lf.rate, "rate", "r", 0, "Poisson arrivals at this many requests per second (0: all at once)")
	f.IntVar(&lf.promptLen, "prompt-len", lf.promptLen, "tokens in each random prompt (after the shared prefix)")
	f.IntVar(&lf.outputLen, "output-len", lf.outputLen, "tokens to generate per request (max_tokens)")
	f.IntVar(&lf.sharedPrefix, "shared-prefix", 0, "tokens of a prefix every prompt starts with")
	f.StringVar(&lf.dataset, "dataset", "", "JSON Lines `FILE` of prompts instead of random ones")
	f.StringVar(&lf.tokenizer, "tokenizer", "", "GGUF `FILE` whose vocabulary sizes the prompts exactly")
	f.Uint64Var(&lf.seed, "seed", 0, "seed for the prompts and arrival times")
	f.BoolVar(&lf.ignoreEOS, "ignore-eos", lf.ignoreEOS, "ask the server to generate past end-of-sequence")
	f.BoolVar(&lf.jsonOut, "json", false, "print the results as one JSON object")
	f.StringVar(&lf.report, "report", "", "also write an HTML report with charts to `FILE`")
	f.BoolVar(&lf.compare, "compare", false, "compare two runs' --json files, given as arguments, instead of running")
	lf.local.register(f, "in process: ")
	return cmd
}

// runLoadtest builds the workload, runs it and prints the report.
func runLoadtest(ctx context.Context, lf *loadtestFlags, stdout, stderr io.Writer) error {
	local := lf.url == "" && isModelFile(lf.model)
	switch {
	case lf.url == "" && !local:
		return errors.New("loadtest: a server is required (--url URL), or a GGUF model file (--model FILE.gguf) to measure in process")
	case lf.requests < 0:
		return fmt.Errorf("loadtest: --requests %d, want ≥ 1", lf.requests)
	case lf.concurrency < 0:
		return fmt.Errorf("loadtest: --concurrency %d, want ≥ 0", lf.concurrency)
	case lf.rate < 0 || math.IsNaN(lf.rate) || math.IsInf(lf.rate, 0):
		return fmt.Errorf("loadtest: --rate %g, want a number ≥ 0", lf.rate)
	case lf.outputLen < 1:
		return fmt.Errorf("loadtest: --output-len %d, want ≥ 1", lf.outputLen)
	case lf.promptLen < 0 || lf.sharedPrefix < 0:
		return errors.New("loadtest: --prompt-len and --shared-prefix must be ≥ 0")
	}
	if local {
		return runLocalLoadtest(ctx, lf, stdout, stderr)
	}
	target, err := loadtest.NewHTTPTarget(loadtest.HTTPConfig{
		URL: lf.url, Model: lf.model, Endpoint: loadtest.Endpoint(lf.endpoint), APIKey: lf.apiKey,
	})
	if err != nil {
		return err
	}
	tk, err := loadtestTokenizer(lf.tokenizer)
	if err != nil {
		return err
	}
	items, err := loadtestWorkload(lf, tk)
	if err != nil {
		return err
	}
	model := lf.model
	if model == "" {
		ids, err := target.Models(ctx)
		if err != nil {
			return fmt.Errorf("loadtest: no --model given, and asking the server for its models failed: %w", err)
		}
		if len(ids) == 0 {
			return errors.New("loadtest: no --model given, and the server lists no models")
		}
		model = ids[0]
		target, err = loadtest.NewHTTPTarget(loadtest.HTTPConfig{
			URL: lf.url, Model: model, Endpoint: loadtest.Endpoint(lf.endpoint), APIKey: lf.apiKey,
		})
		if err != nil {
			return err
		}
	}

	return driveLoadtest(ctx, lf, target, loadtestInfo{model: model, endpoint: lf.endpoint, url: target.URL(), tokenizer: tk != nil}, items, nil, stdout, stderr)
}

// loadtestInfo describes the target of a load test for the report.
type loadtestInfo struct {
	model, endpoint, url string
	tokenizer            bool // the workload was sized with a tokenizer
}

// driveLoadtest runs items against target and prints the report; an
// in-process target plugs in here.
func driveLoadtest(ctx context.Context, lf *loadtestFlags, target loadtest.Target, info loadtestInfo, items []loadtest.Item,
	notes func() []string, stdout, stderr io.Writer) error {
	limit := "no concurrency limit"
	if lf.concurrency > 0 {
		limit = fmt.Sprintf("at most %d at once", lf.concurrency)
	}
	arrivals := "all at once"
	if lf.rate > 0 {
		arrivals = fmt.Sprintf("%g/s (Poisson)", lf.rate)
	}
	fmt.Fprintf(stderr, "loadtest: %d requests to %s (model %s), arriving %s, %s\n", len(items), info.url, info.model, arrivals, limit)
	step := max(1, len(items)/10)
	res, err := loadtest.Run(ctx, target, items, loadtest.Options{
		Concurrency: lf.concurrency,
		Rate:        lf.rate,
		Seed:        lf.seed,
		IgnoreEOS:   lf.ignoreEOS,
		Progress: func(done, failed, total int) {
			if done%step == 0 || done == total {
				fmt.Fprintf(stderr, "loadtest: %d/%d requests done, %d failed\n", done, total, failed)
			}
		},
	})
	if err != nil {
		return err
	}
	s := loadtest.Summarize(res)
	s.Model, s.Endpoint, s.URL = info.model, info.endpoint, info.url
	if !info.tokenizer && lf.dataset == "" {
		s.Notes = append(s.Notes, "no --tokenizer: the random prompts are words, about one token each, so their lengths are approximate")
	}
	if lf.sharedPrefix > 0 {
		if n := prefixNote(res); n != "" {
			s.Notes = append(s.Notes, n)
		}
	}
	if notes != nil {
		s.Notes = append(s.Notes, notes()...)
	}
	if lf.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			return fmt.Errorf("loadtest: writing the report: %w", err)
		}
	} else if err := loadtest.WriteText(stdout, s); err != nil {
		return err
	}
	if lf.report != "" {
		if err := writeReport(lf.report, "Load test: "+s.Model, []loadtest.ReportRun{{Label: s.Model, Summary: s}}); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "loadtest: wrote the report %s\n", lf.report)
	}
	switch {
	case res.Interrupted:
		return fmt.Errorf("loadtest: interrupted with %d of %d requests finished", s.Completed+s.Failed, s.NumPrompts)
	case s.Completed == 0 && s.Failed > 0:
		return fmt.Errorf("loadtest: every request failed; the first: %s", s.Errors[0])
	}
	return nil
}

// writeReport writes the HTML report of runs to path, atomically.
func writeReport(path, title string, runs []loadtest.ReportRun) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".report-*.html")
	if err != nil {
		return fmt.Errorf("loadtest: writing the report: %w", err)
	}
	defer os.Remove(tmp.Name())
	err = loadtest.WriteHTML(tmp, title, runs)
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("loadtest: writing the report: %w", cerr)
	}
	if err == nil {
		if err = os.Chmod(tmp.Name(), 0o644); err == nil {
			err = os.Rename(tmp.Name(), path)
		}
	}
	if err != nil {
		return fmt.Errorf("loadtest: writing the report: %w", err)
	}
	return nil
}

// runLoadtestCompare reads two runs' JSON summaries, prints them side by
// side, and writes their HTML report when report is set.
func runLoadtestCompare(a, b, report string, stdout io.Writer) error {
	var runs []loadtest.ReportRun
	for _, path := range []string{a, b} {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("loadtest: --compare: %w", err)
		}
		s, err := loadtest.ReadSummary(data)
		if err != nil {
			return fmt.Errorf("loadtest: --compare %s: %w", path, err)
		}
		runs = append(runs, loadtest.ReportRun{Label: strings.TrimSuffix(filepath.Base(path), ".json"), Summary: s})
	}
	if err := loadtest.WriteCompareText(stdout, runs[0], runs[1]); err != nil {
		return err
	}
	if report != "" {
		return writeReport(report, fmt.Sprintf("Load tests: %s and %s", runs[0].Label, runs[1].Label), runs)
	}
	return nil
}

// loadtestWorkload builds the requests the flags describe.
func loadtestWorkload(lf *loadtestFlags, tk loadtest.Tokenizer) ([]loadtest.Item, error) {
	if lf.dataset == "" {
		if lf.requests == 0 {
			return nil, errors.New("loadtest: --requests 0: nothing to send")
		}
		return loadtest.Synthetic{
			Requests: lf.requests, PromptLen: lf.promptLen, SharedPrefix: lf.sharedPrefix,
			OutputLen: lf.outputLen, Seed: lf.seed, Tokenizer: tk,
		}.Build()
	}
	prefix, err := loadtest.SharedPrefixText(lf.sharedPrefix, lf.seed, tk)
	if err != nil {
		return nil, err
	}
	items, err := loadtest.ReadDatasetFile(lf.dataset, loadtest.DatasetOptions{OutputLen: lf.outputLen, SharedPrefix: prefix, Tokenizer: tk})
	if err != nil {
		return nil, err
	}
	if lf.requests > 0 {
		items = loadtest.Repeat(items, lf.requests)
	}
	return items, nil
}

// prefixNote compares the time to first token of the first request sent
// with the median of the later ones: with a shared prefix, the later ones
// should find it in the server's prefix cache.
func prefixNote(res *loadtest.Result) string {
	var first *loadtest.RequestResult
	for i := range res.Requests {
		r := &res.Requests[i]
		if r.OK() && (first == nil || r.Start < first.Start) {
			first = r
		}
	}
	if first == nil {
		return ""
	}
	var later []float64
	for i := range res.Requests {
		r := &res.Requests[i]
		if r.OK() && r != first && r.Start >= first.TTFT {
			later = append(later, float64(r.TTFT)/1e6)
		}
	}
	if len(later) == 0 {
		return ""
	}
	med := loadtest.Percentile(later, 50)
	f := float64(first.TTFT) / 1e6
	return fmt.Sprintf("shared prefix: TTFT of the first request %.1f ms; median of the %d requests sent after it had its first token %.1f ms (%.1fx lower)",
		f, len(later), med, f/max(med, 1e-9))
}

// loadtestTokenizer loads the tokenizer of --tokenizer, or returns nil
// when path is empty.
func loadtestTokenizer(path string) (loadtest.Tokenizer, error) {
	if path == "" {
		return nil, nil
	}
	t, err := tokenizer.Open(path)
	if err != nil {
		return nil, fmt.Errorf("loadtest: loading the tokenizer: %w", err)
	}
	return t, nil
}
