package scheduler

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/sample"
	"saji/engine/synth/synthtest"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// oracle is a test drafter that knows each prompt's plain output and
// proposes it, each token replaced by a wrong one with probability wrong:
// its drafts are accepted, rejected at every position, or in part.
type oracle struct {
	mu     sync.Mutex
	want   map[string][]int32 // prompt -> plain output
	prompt int
	wrong  float64
	rng    *rand.Rand
	closed *int
}

// key is a map key of a prompt.

// tinyModelQ8 is the tiny llama in Q8_0, whose products compute every row
// alone whatever the batch: Q4_K's and Q2_K's follow ggml's repacked
// kernels, in which a batch's first n-n%4 rows take another float order,
// so a Q4_K model's greedy tokens may differ in the last bits of a logit
// between a step that verifies a draft and plain decoding's step, as they
// do between any two batch compositions (llama.cpp's too). The speculative
// tests compare token for token, so they take this model.
var tinyModelQ8 = sync.OnceValues(func() (model.Model, error) {
	mp, err := synthtest.Tiny("q8_0", 3)
	if err != nil {
		return nil, err
	}
	f, err := gguf.Open(mp) // stays open for the test binary's life
	if err != nil {
		return nil, err
	}
	return model.Load(context.Background(), f, model.Options{Backend: cpu.New(2)})
})

// skipEmulated skips t in the arm64 step (-short off amd64, under qemu):
// speculation's acceptance and its distributions are the same code on every
// architecture, tested natively and under the race detector, and the
// kernels they run on have their own arm64 tests; under emulation these
// tests took 160 of the step's seconds.
func skipEmulated(t *testing.T) {
	t.Helper()
	if testing.Short() && runtime.GOARCH != "amd64" {
		t.Skip("-short under emulation: speculation has nothing architecture-specific")
	}
}

// loadTinyQ8 returns tinyModelQ8.
func loadTinyQ8(t *testing.T) model.Model {
	t.Helper()
	m, err := tinyModelQ8()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func key(p []int32) string { return fmt.Sprint(p) }

func (o *oracle) Draft(_ context.Context, tokens []int32, n int) ([]int32, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	want := o.want[key(tokens[:o.prompt])]
	at := len(tokens) - o.prompt
	if !slices.Equal(tokens[o.prompt:], want[:min(at, len(want))]) {
		return nil, fmt.Errorf("oracle: the sequence went off the plain output at %d", at)
	}
	var d []int32
	for i := at; i < at+n && i < len(want)+2; i++ {
		tok := int32(3 + o.rng.IntN(266))
		if i < len(want) && o.rng.Float64() >= o.wrong {
			tok = want[i]
		}
		d = append(d, tok)
	}
	return d, nil
}

func (o *oracle) Close() { *o.closed++ }

// TestSpeculativeGreedy runs greedy sequences side by side, each with a
// drafter that is right, wrong or partly right, for several draft lengths,
// and checks that every sequence gets exactly its plain tokens, that the
// counts of drafted and accepted tokens add up, and that no block is left
// held.
func TestSpeculativeGreedy(t *testing.T) {
	skipEmulated(t)
	m := loadTinyQ8(t)
	ps := prompts(5, 8, 5, 40, nil)
	const maxTokens = 24
	plain := newSched(t, m, Config{MaxSeqs: 8, TokenBudget: 64, Context: 256})
	want := map[string][]int32{}
	for i, r := range runAll(t, plain, ps, maxTokens) {
		want[key(ps[i])] = r.tokens
	}
	for _, c := range []struct {
		draftMax int
		wrong    float64
	}{{1, 0}, {3, 0.2}, {8, 0}, {8, 0.1}, {5, 1}, {16, 0.4}} {
		t.Run(fmt.Sprintf("k=%d,wrong=%g", c.draftMax, c.wrong), func(t *testing.T) {
			s := newSched(t, m, Config{MaxSeqs: 8, TokenBudget: 64, Context: 256})
			closed := 0
			var chans []<-chan Event
			for i, p := range ps {
				d := &oracle{want: want, prompt: len(p), wrong: c.wrong, rng: rand.New(rand.NewPCG(uint64(i), 9)), closed: &closed}
				ch, err := s.Submit(context.Background(), Request{Prompt: p, MaxTokens: maxTokens, IgnoreEOS: true, Drafter: d, DraftMax: c.draftMax})
				if err != nil {
					t.Fatal(err)
				}
				chans = append(chans, ch)
			}
			var drafted, accepted int
			for i, ch := range chans {
				r := collect(t, ch)
				if r.last.Err != nil || r.last.Finish != FinishLength {
					t.Fatalf("sequence %d ended with %v (%v)", i, r.last.Finish, r.last.Err)
				}
				if !slices.Equal(r.tokens, want[key(ps[i])]) {
					t.Errorf("sequence %d: speculative %v, plain %v", i, r.tokens, want[key(ps[i])])
				}
				u := r.last.Usage
				if u.CompletionTokens != maxTokens || u.AcceptedTokens > u.DraftTokens {
					t.Errorf("sequence %d: usage %+v", i, u)
				}
				drafted += u.DraftTokens
				accepted += u.AcceptedTokens
			}
			st := s.Stats()
			if st.DraftTokens != int64(drafted) || st.AcceptedTokens != int64(accepted) {
				t.Errorf("stats count %d/%d drafted/accepted, the requests %d/%d", st.DraftTokens, st.AcceptedTokens, drafted, accepted)
			}
			if st.KV.Groups[0].Used != 0 || closed != len(ps) {
				t.Errorf("after the run: %d blocks used, %d of %d drafters closed", st.KV.Groups[0].Used, closed, len(ps))
			}
			switch {
			case drafted == 0:
				t.Error("nothing was drafted")
			case c.wrong == 0 && accepted != drafted:
				t.Errorf("a right drafter had %d of %d tokens accepted", accepted, drafted)
			case c.wrong == 1 && accepted > drafted/20:
				t.Errorf("a wrong drafter had %d of %d tokens accepted", accepted, drafted)
			case c.wrong == 1 && drafted >= 2*len(ps)*maxTokens:
				// Its drafts shrink to one token.
				t.Errorf("a wrong drafter drafted %d tokens for %d", drafted, len(ps)*maxTokens)
			}
			// Fewer steps than tokens when drafts are accepted.
			if c.wrong == 0 && c.draftMax > 1 && st.Steps >= int64(maxTokens) {
				t.Errorf("%d steps for %d tokens with right drafts", st.Steps, maxTokens)
			}
			t.Logf("%d of %d draft tokens accepted in %d steps", accepted, drafted, st.Steps)
		})
	}
}

// TestSpeculativeSampled checks that sampling (temperature, penalties)
// with a drafter gives, seed for seed, the tokens of plain sampling: the
// draws happen in the same order. (Top-k, top-p and min-p select their
// candidates in an order that the last bits of the logits decide, and the
// logits of a verified position can differ from a lone one's in their
// last bit, as a batch of several sequences's do: with them the output is
// the same in distribution, which TestSpeculativeDistribution checks.)
func TestSpeculativeSampled(t *testing.T) {
	skipEmulated(t)
	m := loadTinyQ8(t)
	s := newSched(t, m, Config{MaxSeqs: 8, Context: 128})
	prompt := []int32{1, 10, 11, 12, 40}
	params := func(seed int64) sample.Params {
		return sample.Params{Temperature: 0.7, TopP: 1, TypicalP: 1, RepeatPenalty: 1.2, LastN: 16, FrequencyPenalty: 0.1, Seed: seed}
	}
	const seeds, maxTokens = 12, 16
	want := map[string][]int32{}
	for seed := range int64(seeds) {
		ch, err := s.Submit(context.Background(), Request{Prompt: prompt, MaxTokens: maxTokens, Sampling: params(seed), IgnoreEOS: true})
		if err != nil {
			t.Fatal(err)
		}
		want[fmt.Sprint(seed)] = collect(t, ch).tokens
	}
	closed := 0
	accepted := 0
	for seed := range int64(seeds) {
		// The oracle knows this seed's output under the prompt's key.
		d := &oracle{want: map[string][]int32{key(prompt): want[fmt.Sprint(seed)]}, prompt: len(prompt), wrong: 0.3,
			rng: rand.New(rand.NewPCG(uint64(seed), 3)), closed: &closed}
		ch, err := s.Submit(context.Background(), Request{Prompt: prompt, MaxTokens: maxTokens, Sampling: params(seed), IgnoreEOS: true,
			Drafter: d, DraftMax: 4, TopLogProbs: 2})
		if err != nil {
			t.Fatal(err)
		}
		r := collect(t, ch)
		if !slices.Equal(r.tokens, want[fmt.Sprint(seed)]) {
			t.Errorf("seed %d: speculative %v, plain %v", seed, r.tokens, want[fmt.Sprint(seed)])
		}
		accepted += r.last.Usage.AcceptedTokens
	}
	if accepted == 0 {
		t.Error("no draft token was accepted")
	}
}

// fixed is a drafter that always proposes the same tokens.
type fixed []int32

func (f fixed) Draft(context.Context, []int32, int) ([]int32, error) { return f, nil }
func (fixed) Close()                                                 {}

// byLast is a drafter that proposes the token its map gives for the
// sequence's last token.
type byLast map[int32]int32

func (b byLast) Draft(_ context.Context, tokens []int32, _ int) ([]int32, error) {
	return []int32{b[tokens[len(tokens)-1]]}, nil
}
func (byLast) Close() {}

// dist returns the sampler's distribution (top-k and temperature applied)
// over m's logits after tokens, as the scheduler computes them.
func dist(t *testing.T, m model.Model, p sample.Params, tokens []int32) map[int32]float64 {
	t.Helper()
	cache, err := m.NewCache(32, quant.TypeF16) // the scheduler's cache type
	if err != nil {
		t.Fatal(err)
	}
	pos := make([]int32, len(tokens))
	for i := range pos {
		pos[i] = int32(i)
	}
	logits, err := m.Forward(context.Background(), tokens, pos, cache, false)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sample.New(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Sample(logits); err != nil {
		t.Fatal(err)
	}
	d := map[int32]float64{}
	for _, c := range sp.Final() {
		d[c.ID] = float64(c.P)
	}
	return d
}

// TestSpeculativeDistribution checks the rejection scheme statistically
// with the whole sampler pipeline (top-k, temperature): after each first
// token t, a drafter proposes the target's likeliest second token x(t),
// which must be accepted with probability p(x(t) | t), and the second
// token's distribution over many seeds must be p(. | t): a chi-square
// test over the pairs, with fixed seeds, so that the outcome never changes
// from run to run.
func TestSpeculativeDistribution(t *testing.T) {
	skipEmulated(t)
	m := loadTinyQ8(t)
	prompt := []int32{1, 50, 51, 52}
	params := func(seed int64) sample.Params {
		return sample.Params{Temperature: 1.5, TopK: 5, TopP: 1, TypicalP: 1, RepeatPenalty: 1, Seed: seed}
	}
	first := dist(t, m, params(0), prompt)
	second := map[int32]map[int32]float64{}
	draft := byLast{}
	for t1 := range first {
		p := dist(t, m, params(0), append(slices.Clone(prompt), t1))
		second[t1] = p
		for id, pr := range p {
			if pr > p[draft[t1]] {
				draft[t1] = id
			}
		}
	}
	s := newSched(t, m, Config{MaxSeqs: 16, Context: 64})
	const draws = 1600
	counts := map[[2]int32]int{}
	firsts := map[int32]int{}
	accepted := 0
	wantAccepted := 0.0
	for at := 0; at < draws; at += 16 {
		var chans []<-chan Event
		for seed := at; seed < min(draws, at+16); seed++ {
			ch, err := s.Submit(context.Background(), Request{Prompt: prompt, MaxTokens: 3, Sampling: params(int64(seed)), IgnoreEOS: true,
				Drafter: draft, DraftMax: 1})
			if err != nil {
				t.Fatal(err)
			}
			chans = append(chans, ch)
		}
		for _, ch := range chans {
			r := collect(t, ch)
			counts[[2]int32{r.tokens[0], r.tokens[1]}]++
			firsts[r.tokens[0]]++
			accepted += r.last.Usage.AcceptedTokens
			wantAccepted += second[r.tokens[0]][draft[r.tokens[0]]]
		}
	}
	chi, df := 0.0, 0
	for t1, n := range firsts {
		p, ok := second[t1]
		if !ok {
			t.Fatalf("first token %d outside the sampler's support %v", t1, first)
		}
		df += len(p) - 1
		for t2, pr := range p {
			e := pr * float64(n)
			d := float64(counts[[2]int32{t1, t2}]) - e
			chi += d * d / e
		}
	}
	for pair := range counts {
		if _, ok := second[pair[0]][pair[1]]; !ok {
			t.Errorf("pair %v sampled outside the sampler's support", pair)
		}
	}
	// At most 20 degrees of freedom: P(chi² > 45.31) = 0.001.
	if chi > 45.31 {
		t.Errorf("chi-square %.1f with %d degrees of freedom: counts %v", chi, df, counts)
	}
	if sd := math.Sqrt(wantAccepted / 4); math.Abs(float64(accepted)-wantAccepted) > 4*sd {
		t.Errorf("%d draft tokens accepted, expected %.0f", accepted, wantAccepted)
	}
	t.Logf("chi-square %.2f (%d df); %d draft tokens accepted, expected %.1f", chi, df, accepted, wantAccepted)
}

// TestSpeculativeEnds checks that an end token, max_tokens and a
// constraint cut a run of accepted draft tokens where plain decoding ends.
func TestSpeculativeEnds(t *testing.T) {
	m := loadTinyQ8(t)
	s := newSched(t, m, Config{Context: 128})
	prompt := []int32{1, 20, 21, 22, 23}
	ch, err := s.Submit(context.Background(), Request{Prompt: prompt, MaxTokens: 12, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	plain := collect(t, ch).tokens
	closed := 0
	right := func() *oracle {
		return &oracle{want: map[string][]int32{key(prompt): plain}, prompt: len(prompt), rng: rand.New(rand.NewPCG(1, 1)), closed: &closed}
	}
	// The fifth plain token as the end token: the sequence stops before it.
	eog := plain[4]
	end := slices.Index(plain, eog)
	ch, err = s.Submit(context.Background(), Request{Prompt: prompt, MaxTokens: 12, EOG: []int32{eog}, Drafter: right(), DraftMax: 8})
	if err != nil {
		t.Fatal(err)
	}
	r := collect(t, ch)
	if !slices.Equal(r.tokens, plain[:end]) || r.last.Finish != FinishStop || r.last.StopToken != eog {
		t.Errorf("end token %d: %v (%v), want %v", eog, r.tokens, r.last.Finish, plain[:end])
	}
	// max_tokens inside a draft.
	ch, err = s.Submit(context.Background(), Request{Prompt: prompt, MaxTokens: 3, IgnoreEOS: true, Drafter: right(), DraftMax: 8})
	if err != nil {
		t.Fatal(err)
	}
	if r := collect(t, ch); !slices.Equal(r.tokens, plain[:3]) || r.last.Finish != FinishLength {
		t.Errorf("max_tokens 3: %v (%v), want %v", r.tokens, r.last.Finish, plain[:3])
	}
	// A constraint: the draft of allowed tokens is verified through it,
	// one of forbidden ones dropped; the output is the plain one.
	var outs [][]int32
	for _, d := range []Drafter{nil, fixed{5, 6, 5, 6, 6}, fixed{7, 5}, fixed{6, 6, 6, 6, 6, 6}} {
		ch, err := s.Submit(context.Background(), Request{Prompt: prompt, MaxTokens: 20, EOG: []int32{2}, Constraint: &twoTokens{n: 4}, Drafter: d})
		if err != nil {
			t.Fatal(err)
		}
		r := collect(t, ch)
		if r.last.Err != nil || r.last.Finish != FinishStop {
			t.Errorf("drafter %v: %v (%v)", d, r.last.Finish, r.last.Err)
		}
		outs = append(outs, r.tokens)
	}
	for i, o := range outs[1:] {
		if !slices.Equal(o, outs[0]) {
			t.Errorf("constrained, drafter %d: %v, plain %v", i+1, o, outs[0])
		}
	}
	if st := s.Stats(); st.KV.Groups[0].Used != 0 || closed != 2 {
		t.Errorf("after the run: %d blocks used, %d drafters closed", st.KV.Groups[0].Used, closed)
	}
}

// TestSpeculativeSlidingWindow decodes Gemma 3 (sliding-window layers of
// 16 tokens, whose blocks are released as the window moves) speculatively
// with drafts far longer than the window allows to reject, in a pool small
// enough to preempt: every sequence gets the tokens it gets alone.
func TestSpeculativeSlidingWindow(t *testing.T) {
	m := loadGemma3(t)
	ps := gemmaPrompts(m, 7)
	const maxTokens = 30
	solo := newSched(t, m, Config{MaxSeqs: 1, Context: 128, NoPrefixCache: true})
	want := map[string][]int32{}
	for _, p := range ps {
		want[key(p)] = runAll(t, solo, [][]int32{p}, maxTokens)[0].tokens
	}
	s := newSched(t, m, Config{MaxSeqs: 5, Context: 128, TokenBudget: 48, KVBytes: kvBytes(m, 16*16)})
	closed := 0
	var chans []<-chan Event
	for i, p := range ps {
		d := &oracle{want: want, prompt: len(p), wrong: 0.25, rng: rand.New(rand.NewPCG(uint64(i), 1)), closed: &closed}
		ch, err := s.Submit(context.Background(), Request{Prompt: p, MaxTokens: maxTokens, IgnoreEOS: true, Drafter: d, DraftMax: 12})
		if err != nil {
			t.Fatal(err)
		}
		chans = append(chans, ch)
	}
	for i, ch := range chans {
		got := collect(t, ch)
		if got.last.Err != nil || !slices.Equal(got.tokens, want[key(ps[i])]) {
			t.Errorf("sequence %d: %v (%v), alone %v", i, got.tokens, got.last.Err, want[key(ps[i])])
		}
	}
	st := s.Stats()
	if st.AcceptedTokens == 0 || st.AcceptedTokens == st.DraftTokens {
		t.Errorf("%d of %d draft tokens accepted: want some of each", st.AcceptedTokens, st.DraftTokens)
	}
	for g, gs := range st.KV.Groups {
		if gs.Used != 0 {
			t.Errorf("group %d: %d blocks held after the run", g, gs.Used)
		}
	}
	t.Logf("%d preemptions; %d of %d draft tokens accepted", st.Preemptions, st.AcceptedTokens, st.DraftTokens)
}
