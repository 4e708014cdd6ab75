package loadtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func items(n, outputLen int) []Item {
	its := make([]Item, n)
	for i := range its {
		its[i] = Item{Prompt: fmt.Sprintf("prompt %d", i), PromptTokens: 2, OutputLen: outputLen}
	}
	return its
}

func TestRunStamps(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		steps    []step
		usage    Usage
		ttft     time.Duration
		itl      []time.Duration
		e2e      time.Duration
		out, in  int
		tpot     time.Duration
		hasTPOT  bool
		fromSrv  bool
		chunks   int
		noTokens bool
	}{
		{
			name:  "chunks counted without usage",
			steps: []step{{20 * ms, 1}, {5 * ms, 1}, {5 * ms, 1}, {5 * ms, 1}, {2 * ms, 0}},
			ttft:  20 * ms, itl: []time.Duration{5 * ms, 5 * ms, 5 * ms}, e2e: 37 * ms,
			out: 4, in: 2, tpot: 17 * ms / 3, hasTPOT: true, chunks: 4,
		},
		{
			name:  "usage wins over chunks",
			steps: []step{{20 * ms, 1}, {5 * ms, 1}, {5 * ms, 1}, {5 * ms, 1}, {2 * ms, 0}},
			usage: Usage{PromptTokens: 50, CompletionTokens: 10},
			ttft:  20 * ms, itl: []time.Duration{5 * ms, 5 * ms, 5 * ms}, e2e: 37 * ms,
			out: 10, in: 50, tpot: 17 * ms / 9, hasTPOT: true, fromSrv: true, chunks: 4,
		},
		{
			name:  "multi-token chunks",
			steps: []step{{10 * ms, 2}, {8 * ms, 3}},
			ttft:  10 * ms, itl: []time.Duration{8 * ms}, e2e: 18 * ms,
			out: 5, in: 2, tpot: 2 * ms, hasTPOT: true, chunks: 2,
		},
		{
			name:  "one token: no TPOT",
			steps: []step{{30 * ms, 1}},
			ttft:  30 * ms, e2e: 30 * ms, out: 1, in: 2, chunks: 1,
		},
		{
			name:  "no output",
			steps: []step{{30 * ms, 0}},
			e2e:   30 * ms, in: 2, noTokens: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			target := &scriptTarget{clock: clock, steps: tt.steps, usage: tt.usage}
			res, err := Run(context.Background(), target, items(3, 8), Options{Concurrency: 1, Clock: clock})
			if err != nil {
				t.Fatal(err)
			}
			if res.Duration != 3*tt.e2e {
				t.Errorf("duration %v, want %v", res.Duration, 3*tt.e2e)
			}
			for i, r := range res.Requests {
				if !r.OK() {
					t.Fatalf("request %d: %v", i, r.Err)
				}
				if r.Start != time.Duration(i)*tt.e2e {
					t.Errorf("request %d started at %v, want %v", i, r.Start, time.Duration(i)*tt.e2e)
				}
				if r.TTFT != tt.ttft || r.Latency != tt.e2e || !slices.Equal(r.ITL, tt.itl) {
					t.Errorf("request %d: ttft %v e2e %v itl %v, want %v %v %v", i, r.TTFT, r.Latency, r.ITL, tt.ttft, tt.e2e, tt.itl)
				}
				if r.OutputTokens != tt.out || r.PromptTokens != tt.in || r.OutputFromServer != tt.fromSrv || r.Chunks != tt.chunks {
					t.Errorf("request %d: tokens %d/%d from server %v chunks %d, want %d/%d %v %d",
						i, r.PromptTokens, r.OutputTokens, r.OutputFromServer, r.Chunks, tt.in, tt.out, tt.fromSrv, tt.chunks)
				}
				tpot, ok := r.TPOT()
				if ok != tt.hasTPOT || tpot != tt.tpot {
					t.Errorf("request %d: TPOT %v %v, want %v %v", i, tpot, ok, tt.tpot, tt.hasTPOT)
				}
			}
			s := Summarize(res)
			if tt.noTokens && (s.MeanTTFT != 0 || len(s.Notes) == 0) {
				t.Errorf("no-output run: mean TTFT %g, notes %q", s.MeanTTFT, s.Notes)
			}
		})
	}
}

// gateTarget holds the first limit requests until limit are in flight at
// once, so a run that allows limit concurrent requests gets there, and
// records the most it saw.
type gateTarget struct {
	limit int
	full  chan struct{}
	once  sync.Once

	mu                sync.Mutex
	inFlight, maxSeen int
	started           int
}

func (g *gateTarget) Stream(ctx context.Context, req Request, emit func(Chunk)) (Usage, error) {
	g.mu.Lock()
	g.inFlight++
	g.started++
	g.maxSeen = max(g.maxSeen, g.inFlight)
	if g.inFlight == g.limit {
		g.once.Do(func() { close(g.full) })
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inFlight--
		g.mu.Unlock()
	}()
	select {
	case <-g.full:
	case <-ctx.Done():
		return Usage{}, ctx.Err()
	}
	emit(Chunk{Tokens: 1, Text: "a"})
	return Usage{CompletionTokens: 1}, nil
}

func TestRunConcurrencyLimit(t *testing.T) {
	for _, c := range []int{1, 3, 8} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			g := &gateTarget{limit: c, full: make(chan struct{})}
			res, err := Run(ctx, g, items(20, 1), Options{Concurrency: c})
			if err != nil {
				t.Fatal(err)
			}
			if s := Summarize(res); s.Completed != 20 {
				t.Fatalf("completed %d of 20: %q", s.Completed, s.Errors)
			}
			if g.maxSeen != c {
				t.Errorf("at most %d in flight, want %d", g.maxSeen, c)
			}
		})
	}
}

func TestSchedule(t *testing.T) {
	a := Schedule(200, 5, 42)
	if !slices.Equal(a, Schedule(200, 5, 42)) {
		t.Error("the same seed gave two schedules")
	}
	if slices.Equal(a, Schedule(200, 5, 43)) {
		t.Error("two seeds gave the same schedule")
	}
	if a[0] != 0 {
		t.Errorf("first arrival at %v, want 0", a[0])
	}
	for i := 1; i < len(a); i++ {
		if a[i] < a[i-1] {
			t.Fatalf("arrival %d at %v before arrival %d at %v", i, a[i], i-1, a[i-1])
		}
	}
	// 199 gaps of mean 200 ms: the seeded draw lands near 39.8 s.
	if mean := a[len(a)-1].Seconds() / 199; mean < 0.15 || mean > 0.25 {
		t.Errorf("mean gap %.3f s, want about 0.2", mean)
	}
	for _, rate := range []float64{0, -1} {
		if s := Schedule(10, rate, 1); s != nil {
			t.Errorf("rate %g: schedule %v, want nil", rate, s)
		}
	}
}

func TestRunPoissonArrivals(t *testing.T) {
	clock := newFakeClock()
	target := &scriptTarget{clock: clock, steps: nil}
	want := Schedule(30, 4, 7)
	res, err := Run(context.Background(), target, items(30, 4), Options{Rate: 4, Seed: 7, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Requests {
		if r.Start != want[i] {
			t.Errorf("request %d sent at %v, want %v", i, r.Start, want[i])
		}
	}
	if res.Duration != want[len(want)-1] {
		t.Errorf("duration %v, want %v", res.Duration, want[len(want)-1])
	}
}

// blockingTarget answers requests whose prompt ends in an index below
// quick at once, and blocks the others until ctx is done.
type blockingTarget struct{ quick int }

func (b blockingTarget) Stream(ctx context.Context, req Request, emit func(Chunk)) (Usage, error) {
	var i int
	fmt.Sscanf(req.Prompt, "prompt %d", &i)
	if i < b.quick {
		emit(Chunk{Tokens: 1, Text: "a"})
		return Usage{}, nil
	}
	<-ctx.Done()
	return Usage{}, ctx.Err()
}

func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := Options{Concurrency: 1, Progress: func(done, failed, total int) {
		if done == 3 {
			cancel()
		}
	}}
	res, err := Run(ctx, blockingTarget{quick: 3}, items(10, 4), opts)
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(res)
	if !res.Interrupted || s.Completed != 3 || s.Failed != 0 || s.NotFinished != 7 {
		t.Errorf("interrupted %v, completed %d, failed %d, not finished %d; want true 3 0 7",
			res.Interrupted, s.Completed, s.Failed, s.NotFinished)
	}
}

type panicTarget struct{}

func (panicTarget) Stream(context.Context, Request, func(Chunk)) (Usage, error) { panic("oops") }

type errTarget struct{}

func (errTarget) Stream(context.Context, Request, func(Chunk)) (Usage, error) {
	return Usage{}, errors.New("refused")
}

func TestRunFailures(t *testing.T) {
	for _, tt := range []struct {
		name   string
		target Target
		want   string
	}{
		{"error", errTarget{}, "refused"},
		{"panic", panicTarget{}, "panicked: oops"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), tt.target, items(5, 4), Options{Concurrency: 2})
			if err != nil {
				t.Fatal(err)
			}
			s := Summarize(res)
			if s.Failed != 5 || s.Completed != 0 || res.Interrupted {
				t.Errorf("failed %d completed %d interrupted %v", s.Failed, s.Completed, res.Interrupted)
			}
			if len(s.Errors) != 1 || !strings.Contains(s.Errors[0], tt.want) {
				t.Errorf("errors %q, want one with %q", s.Errors, tt.want)
			}
		})
	}
}

func TestRunBadOptions(t *testing.T) {
	for _, tt := range []struct {
		name   string
		target Target
		opts   Options
	}{
		{"no target", nil, Options{}},
		{"negative concurrency", errTarget{}, Options{Concurrency: -1}},
		{"negative rate", errTarget{}, Options{Rate: -2}},
	} {
		if _, err := Run(context.Background(), tt.target, items(1, 1), tt.opts); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}
