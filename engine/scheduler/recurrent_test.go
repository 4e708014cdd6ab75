package scheduler

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/synth"
	"saji/engine/synth/synthtest"
	"saji/internal/refdata"
	"saji/kernels/cpu"
)

// loadLFM2 writes the synthetic tiny LFM2 (two convolution layers, two
// attention layers) in Q8_0, whose products compute every row alone, and
// loads it.
func loadLFM2(t *testing.T) model.Model {
	t.Helper()
	r := synth.Recipe{Shape: "tiny-lfm2", Type: "q8_0", Seed: 1, Vocab: "vocab/llama3-trunc1280-llama-bpe.vocab.gguf"}
	path, err := synthtest.Recipe(r, refdata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m, err := model.Load(context.Background(), f, model.Options{Backend: cpu.New(2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Recurrent()) == 0 {
		t.Fatal("tiny-lfm2 has no recurrent layers")
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

// TestHybridBatchedMatchesAlone runs sequences of a hybrid model together:
// more than MaxSeqs (they join at different steps, taking the slots of
// those that end), prompts longer than the token budget (chunked prefill
// carries each convolution window from chunk to chunk) and a pool too
// small for all of them (the newest are preempted, their state dropped
// and recomputed). Each gets the tokens it gets alone; a repeated prompt
// is recomputed, not taken from the prefix cache, whose blocks would come
// without the state at their end.
func TestHybridBatchedMatchesAlone(t *testing.T) {
	m := loadLFM2(t)
	ps := lfm2Prompts(4, 6, 20, 40)
	const maxTokens = 24
	solo := newSched(t, m, Config{MaxSeqs: 1, Context: 128, NoPrefixCache: true})
	var want [][]int32
	for _, p := range ps {
		want = append(want, runAll(t, solo, [][]int32{p}, maxTokens)[0].tokens)
	}
	// 10 blocks of 16: a sequence needs up to 4 at its end, so four
	// cannot all run to the end together.
	s := newSched(t, m, Config{MaxSeqs: 4, Context: 128, TokenBudget: 16, KVBytes: kvBytes(m, 10*16)})
	got := runAll(t, s, ps, maxTokens)
	for i := range ps {
		if got[i].last.Err != nil || !slices.Equal(got[i].tokens, want[i]) {
			t.Errorf("sequence %d: %v (%v), alone %v", i, got[i].tokens, got[i].last.Err, want[i])
		}
	}
	st := s.Stats()
	if st.Preemptions == 0 {
		t.Error("no sequence was preempted")
	}
	if len(s.slots) != 4 || st.Running != 0 {
		t.Errorf("after the run: %d free state slots of 4, %d running", len(s.slots), st.Running)
	}
	again := runAll(t, s, ps[:1], maxTokens)[0]
	if again.last.Usage.CachedTokens != 0 || !slices.Equal(again.tokens, want[0]) {
		t.Errorf("repeated prompt: %d cached tokens, %v, alone %v", again.last.Usage.CachedTokens, again.tokens, want[0])
	}
}
