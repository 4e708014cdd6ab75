package loadtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Clock tells the runner the time and waits for arrivals. Tests pass a fake
// one to make the arithmetic exact.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d or until ctx is done, and returns ctx's error in
	// the second case.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock returns the clock of the operating system.
func SystemClock() Clock { return systemClock{} }

// systemClock is time.Now and a timer.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Options configures a run.
type Options struct {
	// Concurrency is the most requests in flight at once; the next request
	// starts when one ends. 0 means no limit.
	Concurrency int
	// Rate, when positive and finite, makes requests arrive as a Poisson
	// process of Rate requests per second (exponential gaps drawn from
	// Seed); a request that arrives while Concurrency requests are in
	// flight waits for one to end. 0 sends every request at once (as fast
	// as Concurrency allows).
	Rate float64
	// Seed draws the arrival times.
	Seed uint64
	// IgnoreEOS is passed with every request.
	IgnoreEOS bool
	// Clock stamps the chunks and times the arrivals; nil means the
	// system's.
	Clock Clock
	// Progress, when set, is called after every request ends, with the
	// number ended so far (failed ones included), the number failed and the
	// total. Calls do not overlap.
	Progress func(done, failed, total int)
}

// RequestResult is the record of one request.
type RequestResult struct {
	// Index is the request's position in the workload.
	Index int
	// Started reports whether the request was sent; a run cancelled early
	// leaves the rest unsent.
	Started bool
	// Start is when the request was sent, from the start of the run.
	Start time.Duration
	// TTFT is the time from sending to the first chunk of output; 0 when
	// none came.
	TTFT time.Duration
	// Latency is the time from sending to the end of the response.
	Latency time.Duration
	// ITL are the gaps between consecutive chunks of output.
	ITL []time.Duration
	// Chunks is the number of chunks of output.
	Chunks int
	// PromptTokens is the prompt length: the server's count when it
	// reported one, else the workload's (0 when unknown).
	PromptTokens int
	// OutputTokens is the number of tokens generated: the server's count
	// when it reported one, else the sum of the chunks' tokens.
	OutputTokens int
	// PromptFromServer and OutputFromServer report whether the counts
	// above come from the server's usage report.
	PromptFromServer, OutputFromServer bool
	// Err is why the request failed; nil when it succeeded.
	Err error
	// Cancelled reports that the request failed because the run was
	// cancelled, not because of the target.
	Cancelled bool
}

// OK reports whether the request was sent and completed.
func (r *RequestResult) OK() bool { return r.Started && r.Err == nil }

// TPOT returns the time per output token after the first, (Latency -
// TTFT) / (OutputTokens - 1), and whether it is defined (a completed
// request with more than one output token).
func (r *RequestResult) TPOT() (time.Duration, bool) {
	if !r.OK() || r.OutputTokens < 2 || r.Chunks == 0 {
		return 0, false
	}
	return (r.Latency - r.TTFT) / time.Duration(r.OutputTokens-1), true
}

// Result is the record of a run.
type Result struct {
	// Requests are the records of the workload's requests, in order.
	Requests []RequestResult
	// Duration is the time from the first request sent to the last ended.
	Duration time.Duration
	// Concurrency and Rate are the run's limits (0: none).
	Concurrency int
	Rate        float64
	// Interrupted reports that the run was cancelled before every request
	// ended.
	Interrupted bool
}

// Schedule returns the send times, from the start of a run, of n requests
// arriving as a Poisson process of rate requests per second: the first at
// 0, each next one an exponentially distributed gap (mean 1/rate) later,
// drawn from seed. It returns nil when rate is not positive and finite
// (every request at once).
func Schedule(n int, rate float64, seed uint64) []time.Duration {
	if !(rate > 0) || math.IsInf(rate, 1) || n <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x617272697661))
	out := make([]time.Duration, n)
	var t float64 // seconds
	for i := 1; i < n; i++ {
		t += rng.ExpFloat64() / rate
		out[i] = time.Duration(t * float64(time.Second))
	}
	return out
}

// Run sends the workload's requests to target as opts says, and returns
// their records. A failed request is recorded with its error and does not
// stop the run. When ctx is cancelled Run stops sending, lets the requests
// in flight fail with the cancellation, and returns what it has with
// Interrupted set; the error is non-nil only for bad arguments.
func Run(ctx context.Context, target Target, items []Item, opts Options) (*Result, error) {
	switch {
	case target == nil:
		return nil, errors.New("loadtest: no target")
	case opts.Concurrency < 0:
		return nil, fmt.Errorf("loadtest: concurrency %d, want ≥ 0", opts.Concurrency)
	case math.IsNaN(opts.Rate) || opts.Rate < 0:
		return nil, fmt.Errorf("loadtest: rate %g, want ≥ 0", opts.Rate)
	}
	clock := opts.Clock
	if clock == nil {
		clock = SystemClock()
	}
	res := &Result{Requests: make([]RequestResult, len(items)), Concurrency: opts.Concurrency, Rate: opts.Rate}
	for i := range res.Requests {
		res.Requests[i].Index = i
	}
	sched := Schedule(len(items), opts.Rate, opts.Seed)
	var sem chan struct{}
	if opts.Concurrency > 0 {
		sem = make(chan struct{}, opts.Concurrency)
	}
	var (
		wg           sync.WaitGroup
		mu           sync.Mutex // guards done, failed and the Progress calls
		done, failed int
	)
	start := clock.Now()
dispatch:
	for i := range items {
		if sched != nil {
			if wait := sched[i] - clock.Now().Sub(start); wait > 0 {
				if clock.Sleep(ctx, wait) != nil {
					break
				}
			}
		}
		if sem != nil {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				break dispatch
			}
		}
		if ctx.Err() != nil {
			break
		}
		sent := clock.Now()
		wg.Go(func() {
			r := &res.Requests[i]
			runOne(ctx, target, items[i], opts.IgnoreEOS, clock, sent.Sub(start), sent, r)
			if sem != nil {
				<-sem
			}
			mu.Lock()
			done++
			if r.Err != nil {
				failed++
			}
			if opts.Progress != nil {
				opts.Progress(done, failed, len(items))
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	res.Duration = clock.Now().Sub(start)
	if ctx.Err() != nil {
		for i := range res.Requests {
			if r := &res.Requests[i]; !r.Started || r.Cancelled {
				res.Interrupted = true
				break
			}
		}
	}
	return res, nil
}

// runOne sends one request, sent at offset from the start of the run, and
// fills in its record.
func runOne(ctx context.Context, target Target, it Item, ignoreEOS bool, clock Clock, offset time.Duration, sent time.Time, r *RequestResult) {
	r.Started = true
	r.Start = offset
	var (
		mu       sync.Mutex // guards the fields emit writes, against a target emitting late
		closed   bool
		last     time.Time
		streamed int
	)
	emit := func(c Chunk) {
		if c.Text == "" && c.Tokens <= 0 {
			return
		}
		now := clock.Now()
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		if r.Chunks == 0 {
			r.TTFT = now.Sub(sent)
		} else {
			r.ITL = append(r.ITL, now.Sub(last))
		}
		last = now
		r.Chunks++
		streamed += max(c.Tokens, 1)
	}
	usage, err := stream(ctx, target, Request{Prompt: it.Prompt, MaxTokens: it.OutputLen, IgnoreEOS: ignoreEOS}, emit)
	end := clock.Now()
	mu.Lock()
	defer mu.Unlock()
	closed = true
	r.Latency = end.Sub(sent)
	r.PromptTokens, r.OutputTokens = it.PromptTokens, streamed
	if usage.PromptTokens > 0 {
		r.PromptTokens, r.PromptFromServer = usage.PromptTokens, true
	}
	if usage.CompletionTokens > 0 {
		r.OutputTokens, r.OutputFromServer = usage.CompletionTokens, true
	}
	if err != nil {
		r.Err = err
		r.Cancelled = ctx.Err() != nil
	}
}

// stream calls target.Stream, turning a panic into an error.
func stream(ctx context.Context, target Target, req Request, emit func(Chunk)) (u Usage, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("loadtest: the target panicked: %v", p)
		}
	}()
	return target.Stream(ctx, req, emit)
}
