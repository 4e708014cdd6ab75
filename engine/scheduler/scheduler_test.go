package scheduler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/sample"
	"saji/engine/synth/synthtest"
	"saji/internal/refdata"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// tinyModel writes the synthetic "tiny" llama (4 layers, 256 wide, 269
// tokens) in Q4_K_M, whose products compute every row alone, and loads it.
var tinyModel = sync.OnceValues(func() (model.Model, error) {
	ctx := context.Background()
	mp, err := synthtest.Tiny("q4_k_m", 3)
	if err != nil {
		return nil, err
	}
	f, err := gguf.Open(mp) // stays open for the test binary's life
	if err != nil {
		return nil, err
	}
	return model.Load(ctx, f, model.Options{Backend: cpu.New(2)})
})

func TestMain(m *testing.M) { synthtest.Main(m) }

func loadTiny(t *testing.T) model.Model {
	t.Helper()
	m, err := tinyModel()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newSched starts a scheduler that the test closes.
func newSched(t *testing.T, m model.Model, cfg Config) *Scheduler {
	t.Helper()
	s, err := New(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// result is what a stream delivered.
type result struct {
	tokens []int32
	last   Event
}

// collect reads a stream to its end.
func collect(t *testing.T, ch <-chan Event) result {
	t.Helper()
	var r result
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				if !r.last.Done {
					t.Fatal("stream closed without a Done event")
				}
				return r
			}
			if ev.Done {
				r.last = ev
				continue
			}
			r.tokens = append(r.tokens, ev.Token)
		case <-timeout:
			t.Fatal("stream did not finish")
		}
	}
}

// prompts returns n random prompts of lengths in [lo, hi), each starting
// with BOS (1) and the shared prefix.
func prompts(seed uint64, n, lo, hi int, prefix []int32) [][]int32 {
	r := rand.New(rand.NewPCG(seed, 1))
	var ps [][]int32
	for range n {
		p := append([]int32{1}, prefix...)
		for range lo + r.IntN(hi-lo) {
			p = append(p, int32(3+r.IntN(266)))
		}
		ps = append(ps, p)
	}
	return ps
}

func runAll(t *testing.T, s *Scheduler, ps [][]int32, maxTokens int) []result {
	t.Helper()
	var chans []<-chan Event
	for _, p := range ps {
		ch, err := s.Submit(context.Background(), Request{Prompt: p, MaxTokens: maxTokens, IgnoreEOS: true})
		if err != nil {
			t.Fatal(err)
		}
		chans = append(chans, ch)
	}
	var rs []result
	for _, ch := range chans {
		rs = append(rs, collect(t, ch))
	}
	return rs
}

// TestBatchedMatchesAlone runs many greedy sequences together (more than
// MaxSeqs, prompts longer than the token budget, so sequences queue,
// prefill in chunks and decode side by side) and checks that each gets
// the tokens it gets when run alone.
func TestBatchedMatchesAlone(t *testing.T) {
	m := loadTiny(t)
	ps := prompts(1, 7, 5, 60, nil)
	const maxTokens = 10
	solo := newSched(t, m, Config{MaxSeqs: 1, TokenBudget: 1000, Context: 256, NoPrefixCache: true})
	var want [][]int32
	for _, p := range ps {
		r := runAll(t, solo, [][]int32{p}, maxTokens)
		want = append(want, r[0].tokens)
	}
	s := newSched(t, m, Config{MaxSeqs: 4, TokenBudget: 24, Context: 256})
	got := runAll(t, s, ps, maxTokens)
	for i := range ps {
		if got[i].last.Finish != FinishLength || got[i].last.Err != nil {
			t.Errorf("sequence %d ended with %v (%v)", i, got[i].last.Finish, got[i].last.Err)
		}
		if !slices.Equal(got[i].tokens, want[i]) {
			t.Errorf("sequence %d: batched %v, alone %v", i, got[i].tokens, want[i])
		}
	}
	st := s.Stats()
	if st.Running != 0 || st.Waiting != 0 || st.KV.Groups[0].Used != 0 {
		t.Errorf("after the run: %d running, %d waiting, %d blocks used", st.Running, st.Waiting, st.KV.Groups[0].Used)
	}
	if st.GeneratedTokens != int64(len(ps)*maxTokens) {
		t.Errorf("%d generated tokens counted, want %d", st.GeneratedTokens, len(ps)*maxTokens)
	}
}

// TestPrefixCache checks that a second request sharing a prefix reuses its
// full blocks, and that an identical prompt reuses all but its last token
// through a copy-on-write block, with the same output.
func TestPrefixCache(t *testing.T) {
	m := loadTiny(t)
	s := newSched(t, m, Config{MaxSeqs: 4, Context: 256})
	prefix := prompts(9, 1, 40, 41, nil)[0] // BOS + 40 tokens
	ps := prompts(2, 2, 8, 12, prefix[1:])
	ps[0] = ps[0][:48] // three full blocks: all cached the second time
	first := runAll(t, s, ps[:1], 5)[0]
	if first.last.Usage.CachedTokens != 0 {
		t.Errorf("first request: %d cached tokens", first.last.Usage.CachedTokens)
	}
	second := runAll(t, s, ps[1:], 5)[0]
	if got := second.last.Usage.CachedTokens; got != 32 {
		t.Errorf("second request: %d cached tokens, want 32 (two full blocks of the 41-token prefix)", got)
	}
	again := runAll(t, s, ps[:1], 5)[0]
	if got, want := again.last.Usage.CachedTokens, len(ps[0])-1; got != want {
		t.Errorf("repeated request: %d cached tokens, want %d", got, want)
	}
	if !slices.Equal(again.tokens, first.tokens) {
		t.Errorf("repeated request: %v, first time %v", again.tokens, first.tokens)
	}
	st := s.Stats().KV
	if st.HitTokens == 0 || st.HitRate() <= 0 {
		t.Errorf("hit stats: %d tokens, rate %v", st.HitTokens, st.HitRate())
	}
	off := newSched(t, m, Config{MaxSeqs: 4, Context: 256, NoPrefixCache: true})
	ref := runAll(t, off, ps[1:], 5)[0]
	if !slices.Equal(ref.tokens, second.tokens) {
		t.Errorf("with the prefix cache %v, without %v", second.tokens, ref.tokens)
	}
}

// TestPreemption runs more sequences than the pool holds at once: the
// newest are preempted and recomputed, and everyone still gets the tokens
// they get alone.
func TestPreemption(t *testing.T) {
	m := loadTiny(t)
	ps := prompts(3, 4, 30, 40, nil)
	const maxTokens = 30
	want := alone(t, m, ps, maxTokens, 128)
	// 10 blocks of 16: each sequence needs 5 at its end, so four cannot
	// all run to the end together.
	s := newSched(t, m, Config{MaxSeqs: 4, Context: 128, KVBytes: kvBytes(m, 10*16), NoPrefixCache: true})
	sameAsAlone(t, runAll(t, s, ps, maxTokens), want)
	if st := s.Stats(); st.Preemptions == 0 {
		t.Error("no sequence was preempted")
	}
}

// alone returns the greedy tokens of each prompt run alone, without a
// prefix cache, in a context of ctx.
func alone(t *testing.T, m model.Model, ps [][]int32, maxTokens, ctx int) [][]int32 {
	t.Helper()
	solo := newSched(t, m, Config{MaxSeqs: 1, Context: ctx, NoPrefixCache: true})
	var want [][]int32
	for _, p := range ps {
		want = append(want, runAll(t, solo, [][]int32{p}, maxTokens)[0].tokens)
	}
	return want
}

// sameAsAlone checks that each sequence ended without an error and got
// the tokens it gets alone.
func sameAsAlone(t *testing.T, got []result, want [][]int32) {
	t.Helper()
	for i := range want {
		if got[i].last.Err != nil || !slices.Equal(got[i].tokens, want[i]) {
			t.Errorf("sequence %d: %v (%v), alone %v", i, got[i].tokens, got[i].last.Err, want[i])
		}
	}
}

// kvBytes is the F16 cache budget of n tokens of m.
func kvBytes(m model.Model, n int) int64 {
	var b int64
	for _, g := range m.KVGroups() {
		b += int64(n) * int64(g.CellBytes(quant.TypeF16))
	}
	return b
}

// TestCancel cancels a running and a waiting request: both end with
// FinishCancelled at once and free their blocks.
func TestCancel(t *testing.T) {
	m := loadTiny(t)
	s := newSched(t, m, Config{MaxSeqs: 1, Context: 256})
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := s.Submit(ctx, Request{Prompt: []int32{1, 5, 6, 7}, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	queued, err := s.Submit(ctx, Request{Prompt: []int32{1, 8, 9}, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	<-ch // one token
	cancel()
	for _, c := range []<-chan Event{ch, queued} {
		r := collect(t, c)
		if r.last.Finish != FinishCancelled {
			t.Errorf("finish %v, want cancelled", r.last.Finish)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		st := s.Stats()
		if st.Running == 0 && st.KV.Groups[0].Used == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("blocks still held after cancel: %+v", st)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLimits checks the explicit errors: context overflow at Submit, a
// sequence bigger than the pool, a vocabulary violation, end-of-generation
// tokens, and Close ending what still runs.
func TestLimits(t *testing.T) {
	m := loadTiny(t)
	s := newSched(t, m, Config{Context: 64})
	long := make([]int32, 64)
	if _, err := s.Submit(context.Background(), Request{Prompt: long}); !errors.Is(err, ErrContextOverflow) {
		t.Errorf("64-token prompt in a context of 64: %v", err)
	}
	if _, err := s.Submit(context.Background(), Request{Prompt: long[:10], MaxTokens: 60}); !errors.Is(err, ErrContextOverflow) {
		t.Errorf("10 + 60 tokens in a context of 64: %v", err)
	}
	if _, err := s.Submit(context.Background(), Request{Prompt: long[:10], MaxTokens: math.MaxInt - 5}); !errors.Is(err, ErrContextOverflow) {
		t.Errorf("max tokens near 2^63 (the sum wraps): %v", err)
	}
	if _, err := s.Submit(context.Background(), Request{Prompt: []int32{1, 9999}}); err == nil {
		t.Error("a token outside the vocabulary was accepted")
	}
	if _, err := s.Submit(context.Background(), Request{}); err == nil {
		t.Error("an empty prompt was accepted")
	}
	// Every token ends generation: a stop before any token.
	all := make([]int32, 269)
	for i := range all {
		all[i] = int32(i)
	}
	ch, err := s.Submit(context.Background(), Request{Prompt: []int32{1, 4}, EOG: all})
	if err != nil {
		t.Fatal(err)
	}
	if r := collect(t, ch); r.last.Finish != FinishStop || len(r.tokens) != 0 || r.last.Usage.CompletionTokens != 0 {
		t.Errorf("EOG: %v tokens, finish %v", r.tokens, r.last.Finish)
	}
	// Without MaxTokens, generation ends with the context.
	ch, err = s.Submit(context.Background(), Request{Prompt: []int32{1, 4, 5}, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := collect(t, ch); r.last.Finish != FinishLength || len(r.tokens) != 61 {
		t.Errorf("to the end of the context: %d tokens, finish %v", len(r.tokens), r.last.Finish)
	}

	small := newSched(t, m, Config{Context: 256, KVBytes: kvBytes(m, 32)})
	ch, err = small.Submit(context.Background(), Request{Prompt: prompts(4, 1, 50, 51, nil)[0]})
	if err != nil {
		t.Fatal(err)
	}
	if r := collect(t, ch); r.last.Finish != FinishError || !errors.Is(r.last.Err, ErrTooLarge) {
		t.Errorf("a prompt bigger than the pool: %v %v", r.last.Finish, r.last.Err)
	}

	closing, err := New(m, Config{Context: 256})
	if err != nil {
		t.Fatal(err)
	}
	ch, err = closing.Submit(context.Background(), Request{Prompt: []int32{1, 4}, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	closing.Close()
	if r := collect(t, ch); !errors.Is(r.last.Err, ErrClosed) && r.last.Finish != FinishLength {
		t.Errorf("after Close: %v %v", r.last.Finish, r.last.Err)
	}
	if _, err := closing.Submit(context.Background(), Request{Prompt: []int32{1}}); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit after Close: %v", err)
	}
}

// TestSampling checks that each sequence samples with its own settings:
// a seeded sampler gives the same tokens batched with others as alone.
func TestSampling(t *testing.T) {
	m := loadTiny(t)
	s := newSched(t, m, Config{MaxSeqs: 8, Context: 128})
	req := func(seed int64) Request {
		p := sample.Params{Temperature: 1, TopK: 40, TopP: 0.95, MinP: 0.05, TypicalP: 1, RepeatPenalty: 1, Seed: seed}
		return Request{Prompt: []int32{1, 10, 11, 12}, MaxTokens: 12, Sampling: p, IgnoreEOS: true, TopLogProbs: 3}
	}
	var want [][]int32
	for seed := range int64(3) {
		ch, err := s.Submit(context.Background(), req(seed))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, collect(t, ch).tokens)
	}
	var chans []<-chan Event
	for seed := range int64(3) {
		ch, err := s.Submit(context.Background(), req(seed))
		if err != nil {
			t.Fatal(err)
		}
		chans = append(chans, ch)
	}
	for i, ch := range chans {
		var got []int32
		for ev := range ch {
			if !ev.Done {
				got = append(got, ev.Token)
				if len(ev.Top) != 3 || ev.LogProb > 0 {
					t.Fatalf("log-probabilities: %v %v", ev.LogProb, ev.Top)
				}
			}
		}
		if !slices.Equal(got, want[i]) {
			t.Errorf("seed %d: %v together, %v alone", i, got, want[i])
		}
	}
	if slices.Equal(want[0], want[1]) && slices.Equal(want[1], want[2]) {
		t.Error("three seeds gave the same tokens")
	}
}

// TestSlidingWindow runs Gemma 3 (sliding-window layers of 16 tokens
// beside full-attention ones: two KV groups, the sliding one releasing
// blocks) from the reference data: batched sequences, some preempted, get
// the tokens they get alone, and a repeated prompt hits the prefix cache
// in both groups.
func TestSlidingWindow(t *testing.T) {
	m := loadGemma3(t)
	ps := gemmaPrompts(m, 5)
	const maxTokens = 24
	want := alone(t, m, ps, maxTokens, 128)
	s := newSched(t, m, Config{MaxSeqs: 5, Context: 128, TokenBudget: 40, KVBytes: kvBytes(m, 14*16)})
	sameAsAlone(t, runAll(t, s, ps, maxTokens), want)
	big := newSched(t, m, Config{MaxSeqs: 5, Context: 128, TokenBudget: 40})
	runAll(t, big, ps[:1], maxTokens)
	again := runAll(t, big, ps[:1], maxTokens)[0]
	if n := again.last.Usage.CachedTokens; n < (len(ps[0])-1)/16*16 || !slices.Equal(again.tokens, want[0]) {
		t.Errorf("repeated prompt of %d tokens: %d cached tokens, %v, first time %v", len(ps[0]), n, again.tokens, want[0])
	}
	st := s.Stats()
	t.Logf("%d preemptions, hit rate %.2f, groups %+v", st.Preemptions, st.KV.HitRate(), st.KV.Groups)
}

// loadFile loads the model at path on two threads; the file stays open
// until t ends.
func loadFile(t *testing.T, path string) model.Model {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m, err := model.Load(context.Background(), f, model.Options{Backend: cpu.New(2)})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loadGemma3 loads the reference data's Gemma 3, whose sliding-window
// layers see 16 tokens.
func loadGemma3(t *testing.T) model.Model {
	t.Helper()
	m := loadFile(t, filepath.Join(refdata.Dir(t), "models", "tiny-gemma3-q8_0.gguf"))
	if g := m.KVGroups(); len(g) != 2 || g[0].Window != 16 {
		t.Fatalf("KV groups %+v", g)
	}
	return m
}

// gemmaPrompts returns five random prompts of 21 to 80 tokens, past the
// window, each starting with Gemma's BOS (2), drawn from seed.
func gemmaPrompts(m model.Model, seed uint64) [][]int32 {
	vocab := m.Config().Vocab
	r := rand.New(rand.NewPCG(seed, seed+1))
	var ps [][]int32
	for range 5 {
		p := []int32{2}
		for range 20 + r.IntN(60) {
			p = append(p, int32(10+r.IntN(vocab-10)))
		}
		ps = append(ps, p)
	}
	return ps
}

// TestPlan checks how the KV budget is split between a full-attention
// group and a sliding-window group.
func TestPlan(t *testing.T) {
	full := model.KVGroup{Window: 0, Layers: []int{0, 1}, KDim: 64, VDim: 64}         // 512 B per cell in F16
	slide := model.KVGroup{Window: 32, Layers: []int{2, 3, 4, 5}, KDim: 64, VDim: 64} // 1024 B
	cases := []struct {
		name   string
		groups []model.KVGroup
		cfg    Config
		cells  []int
	}{
		{"full only", []model.KVGroup{full}, Config{KVBytes: 512 * 1000, BlockSize: 16, MaxSeqs: 4, TokenBudget: 64, Context: 256}, []int{992}},
		// The windows need 4 × 112 cells (window and a step's tokens in
		// blocks, and a spare block); the rest goes to the full group.
		{"windows capped", []model.KVGroup{full, slide}, Config{KVBytes: 512*4000 + 1024*512, BlockSize: 16, MaxSeqs: 4, TokenBudget: 64, Context: 4096}, []int{4128, 448}},
		// A small budget: both groups get the same tokens.
		{"small", []model.KVGroup{slide, full}, Config{KVBytes: 1536 * 200, BlockSize: 16, MaxSeqs: 4, TokenBudget: 64, Context: 4096}, []int{192, 192}},
	}
	for _, c := range cases {
		_, cells, err := plan(c.cfg, quant.TypeF16, c.groups)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(cells, c.cells) {
			t.Errorf("%s: cells %v, want %v", c.name, cells, c.cells)
		}
	}
	if _, _, err := plan(Config{KVBytes: 100, BlockSize: 16, MaxSeqs: 1, TokenBudget: 8, Context: 64}, quant.TypeF16, []model.KVGroup{full}); err == nil {
		t.Error("a budget below one block was accepted")
	}
}

// TestProfiles checks the pools of the memory profiles without a budget:
// the desktop's one context and reserve, the server's N contexts, and the
// older default, with the sliding-window groups capped as PoolCells caps
// them.
func TestProfiles(t *testing.T) {
	full := PoolGroup{Window: 0, CellBytes: 512}
	slide := PoolGroup{Window: 32, CellBytes: 1024}
	cases := []struct {
		name      string
		cfg       Config
		groups    []PoolGroup
		tokens    int64
		cells     []int
		maxSeqs   int
		budgetFor int64 // full-attention tokens the budget pays for in every group
	}{
		{"desktop", Config{Context: 4096, Parallel: 1}, []PoolGroup{full}, 4096 + ReserveTokens, []int{4608}, DesktopMaxSeqs, 4608},
		{"desktop with windows", Config{Context: 4096, Parallel: 1}, []PoolGroup{full, slide}, 4608, []int{4608, DesktopMaxSeqs * 176}, DesktopMaxSeqs, 0},
		{"serve 4", Config{Context: 2048, Parallel: 4}, []PoolGroup{full}, 8192, []int{8192}, DefaultMaxSeqs, 8192},
		{"serve 3, 2 at once", Config{Context: 1000, Parallel: 3, MaxSeqs: 2}, []PoolGroup{full}, 3000, []int{2992}, 2, 3000},
		{"older default", Config{Context: 1024}, []PoolGroup{full}, 4096, []int{4096}, DefaultMaxSeqs, 4096},
		{"older default, many", Config{Context: 1024, MaxSeqs: 64}, []PoolGroup{full}, 16384, []int{16384}, 64, 16384},
	}
	for _, c := range cases {
		cfg := c.cfg.Sized(0)
		if cfg.MaxSeqs != c.maxSeqs {
			t.Errorf("%s: %d sequences at once, want %d", c.name, cfg.MaxSeqs, c.maxSeqs)
		}
		if got := PoolTokens(cfg); got != c.tokens {
			t.Errorf("%s: %d tokens, want %d", c.name, got, c.tokens)
		}
		cells, budget := PoolCells(cfg, c.groups)
		if !slices.Equal(cells, c.cells) {
			t.Errorf("%s: cells %v, want %v", c.name, cells, c.cells)
		}
		if c.budgetFor > 0 && budget != c.budgetFor*512 {
			t.Errorf("%s: budget %d, want %d", c.name, budget, c.budgetFor*512)
		}
		// The budget, given as KVBytes, sizes the same pool.
		again := cfg
		again.KVBytes, again.Parallel = budget, 0
		if got, _ := PoolCells(again, c.groups); !slices.Equal(got, cells) {
			t.Errorf("%s: the budget of %d bytes gives cells %v, the profile %v", c.name, budget, got, cells)
		}
	}
}

// twoTokens allows only tokens 5 and 6, and is complete after n tokens,
// when only the end (token 2) may follow.
type twoTokens struct{ n, seen int }

func (c *twoTokens) Allowed(id int32) bool { return c.seen < c.n && (id == 5 || id == 6) }
func (c *twoTokens) Accept(id int32) error {
	if id != 5 && id != 6 {
		return errors.New("twoTokens: a masked token was sampled")
	}
	c.seen++
	return nil
}
func (c *twoTokens) Complete() bool { return c.seen >= c.n }

// TestConstraint samples under a constraint: only allowed tokens, and the
// end exactly when the constraint is complete, greedy or not.
func TestConstraint(t *testing.T) {
	m := loadTiny(t)
	s := newSched(t, m, Config{Context: 128})
	for _, p := range []sample.Params{sample.Greedy(), {Temperature: 1, TopK: 40, TopP: 0.95, TypicalP: 1, RepeatPenalty: 1, Seed: 3}} {
		c := &twoTokens{n: 4}
		ch, err := s.Submit(context.Background(), Request{Prompt: []int32{1, 10, 11}, MaxTokens: 20, Sampling: p, EOG: []int32{2}, Constraint: c})
		if err != nil {
			t.Fatal(err)
		}
		r := collect(t, ch)
		if len(r.tokens) != 4 || r.last.Finish != FinishStop || r.last.Err != nil {
			t.Errorf("%+v: tokens %v, finish %v (%v)", p, r.tokens, r.last.Finish, r.last.Err)
		}
		for _, tok := range r.tokens {
			if tok != 5 && tok != 6 {
				t.Errorf("token %d sampled against the constraint", tok)
			}
		}
	}
}

// TestProgress checks that a prompt longer than the token budget reports
// its chunks in order, ending with the whole prompt.
func TestProgress(t *testing.T) {
	m := loadTiny(t)
	s := newSched(t, m, Config{Context: 256, TokenBudget: 16})
	var seen [][2]int
	p := prompts(7, 1, 50, 51, nil)[0]
	ch, err := s.Submit(context.Background(), Request{Prompt: p, MaxTokens: 2, IgnoreEOS: true,
		Progress: func(done, total int) { seen = append(seen, [2]int{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, ch)
	// The loop goroutine wrote seen before it sent the Done event.
	want := [][2]int{{16, 51}, {32, 51}, {48, 51}, {51, 51}}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("progress %v, want %v", seen, want)
	}
}
