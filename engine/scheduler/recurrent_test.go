package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"

	"saji/engine/model"
	"saji/engine/synth"
	"saji/engine/synth/synthtest"
	"saji/internal/refdata"
)

// loadLFM2 writes the synthetic tiny LFM2 (two convolution layers, two
// attention layers) in Q8_0, whose products compute every row alone, and
// loads it.
func loadLFM2(t *testing.T) model.Model {
	t.Helper()
	return loadHybrid(t, synth.Recipe{Shape: "tiny-lfm2", Type: "q8_0", Seed: 1, Vocab: "vocab/llama3-trunc1280-llama-bpe.vocab.gguf"})
}

// loadQwen35 writes the synthetic tiny Qwen3.5 (two gated delta nets, two
// gated attention layers) in Q8_0 and loads it.
func loadQwen35(t *testing.T) model.Model {
	t.Helper()
	return loadHybrid(t, synth.Recipe{Shape: "tiny-qwen35", Type: "q8_0", Seed: 1, Vocab: "vocab/llama3-trunc1280-qwen2.vocab.gguf"})
}

// loadHybrid writes the recipe's synthetic hybrid model and loads it.
func loadHybrid(t *testing.T, r synth.Recipe) model.Model {
	t.Helper()
	path, err := synthtest.Recipe(r, refdata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	m := loadFile(t, path)
	if len(m.Recurrent()) == 0 {
		t.Fatalf("%s has no recurrent layers", r.Shape)
	}
	return m
}

// lfm2Prompts returns n random prompts of lengths in [lo, hi), each
// starting with the vocabulary's BOS (1024).
func lfm2Prompts(seed uint64, n, lo, hi int) [][]int32 {
	r := rand.New(rand.NewPCG(seed, 2))
	var ps [][]int32
	for range n {
		p := []int32{1024}
		for range lo + r.IntN(hi-lo) {
			p = append(p, int32(r.IntN(1024)))
		}
		ps = append(ps, p)
	}
	return ps
}

// TestHybridBatchedMatchesAlone runs sequences of a hybrid model (LFM2's
// convolutions, Qwen3.5's gated delta nets) together: more than MaxSeqs
// (they join at different steps, taking the slots of those that end),
// prompts longer than the token budget (chunked prefill carries each
// window and state from chunk to chunk) and a pool too small for all of
// them (the newest are preempted, their state dropped and recomputed,
// from a state snapshot where one is left). Each gets the tokens it gets
// alone.
func TestHybridBatchedMatchesAlone(t *testing.T) {
	if raceEnabled {
		t.Skip("scheduler: the race detector's step (TestHybridPrefixCache runs the hybrid paths there)")
	}
	t.Run("lfm2", func(t *testing.T) { testHybridBatchedMatchesAlone(t, loadLFM2(t)) })
	t.Run("qwen35", func(t *testing.T) {
		testHybridBatchedMatchesAlone(t, loadQwen35(t))
	})
}

// testHybridBatchedMatchesAlone is TestHybridBatchedMatchesAlone on m.
func testHybridBatchedMatchesAlone(t *testing.T, m model.Model) {
	ps := lfm2Prompts(4, 6, 20, 40)
	const maxTokens = 24
	want := alone(t, m, ps, maxTokens, 128)
	// 10 blocks of 16: a sequence needs up to 4 at its end, so four
	// cannot all run to the end together.
	s := newSched(t, m, Config{MaxSeqs: 4, Context: 128, TokenBudget: 16, KVBytes: kvBytes(m, 10*16)})
	sameAsAlone(t, runAll(t, s, ps, maxTokens), want)
	st := s.Stats()
	if st.Preemptions == 0 {
		t.Error("no sequence was preempted")
	}
	if len(s.slots) != 4 || st.Running != 0 {
		t.Errorf("after the run: %d free state slots of 4, %d running", len(s.slots), st.Running)
	}
}

// TestHybridPrefixCache checks the prefix cache of a hybrid model (LFM2,
// Qwen3.5): a request that shares a prompt's prefix starts from the last
// state snapshot within the prefix (the first prompt's chunks ended at
// block boundaries), a repeated prompt from the one at its own last
// boundary, and both get the tokens they get without a prefix cache; a
// single snapshot slot is reused; with no snapshots, nothing is cached.
func TestHybridPrefixCache(t *testing.T) {
	t.Run("lfm2", func(t *testing.T) { testHybridPrefixCache(t, loadLFM2(t)) })
	t.Run("qwen35", func(t *testing.T) {
		if raceEnabled {
			t.Skip("scheduler: one hybrid under the race detector, LFM2 (the paths are the same)")
		}
		testHybridPrefixCache(t, loadQwen35(t))
	})
}

// testHybridPrefixCache is TestHybridPrefixCache on m.
func testHybridPrefixCache(t *testing.T, m model.Model) {
	prefix := lfm2Prompts(7, 1, 50, 51)[0] // BOS + 50 tokens
	ps := lfm2Prompts(8, 2, 10, 20)
	for i := range ps {
		ps[i] = append(slices.Clone(prefix), ps[i][1:]...)
	}
	const maxTokens = 12
	want := alone(t, m, ps, maxTokens, 128)
	s := newSched(t, m, Config{MaxSeqs: 2, Context: 128, TokenBudget: 40})
	for i, tc := range []struct {
		p      int
		cached int
	}{
		{0, 0},
		{1, 32},                         // chunks of 40 end at 32, then at the last boundary
		{0, (len(ps[0]) - 1) / 16 * 16}, // the repeated prompt's last
	} {
		r := runAll(t, s, ps[tc.p:tc.p+1], maxTokens)[0]
		if r.last.Err != nil || r.last.Usage.CachedTokens != tc.cached || !slices.Equal(r.tokens, want[tc.p]) {
			t.Errorf("request %d: %d cached tokens (want %d), %v (%v), without the cache %v",
				i, r.last.Usage.CachedTokens, tc.cached, r.tokens, r.last.Err, want[tc.p])
		}
	}
	// One snapshot: each prompt's chunks replace the last one's.
	one := newSched(t, m, Config{MaxSeqs: 2, Context: 128, TokenBudget: 40, StateSnapshots: 1})
	for round := range 2 {
		sameAsAlone(t, runAll(t, one, ps, maxTokens), want)
		if n := len(one.snaps.byKey); n != 1 || len(one.snaps.free) != 0 {
			t.Errorf("round %d: %d snapshots kept, %d free slots, want 1 and 0", round, n, len(one.snaps.free))
		}
	}
	none := newSched(t, m, Config{MaxSeqs: 2, Context: 128, StateSnapshots: -1})
	runAll(t, none, ps[:1], maxTokens)
	if r := runAll(t, none, ps[:1], maxTokens)[0]; r.last.Usage.CachedTokens != 0 || !slices.Equal(r.tokens, want[0]) {
		t.Errorf("without snapshots: %d cached tokens, %v, want %v", r.last.Usage.CachedTokens, r.tokens, want[0])
	}
}
