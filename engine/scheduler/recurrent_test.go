package scheduler

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"saji/engine/model"
	"saji/engine/synth"
	"saji/engine/synth/synthtest"
	"saji/internal/refdata"
)

// hybrid is a synthetic hybrid model the tests run, in a type whose
// products compute every row alone, with its vocabulary's size and BOS.
type hybrid struct {
	recipe     synth.Recipe
	vocab, bos int32
}

// hybrids are LFM2 (two convolution layers, two attention layers),
// Qwen3.5 (two gated delta nets, two gated attention layers) and the
// Mamba-2 hybrids, Granite 4 (experts, three Mamba-2 layers and one
// attention layer) and Nemotron-H (Mamba-2, attention and feed-forward
// layers).
var hybrids = []hybrid{
	{synth.Recipe{Shape: "tiny-lfm2", Type: "q8_0", Seed: 1, Vocab: "vocab/llama3-trunc1280-llama-bpe.vocab.gguf"}, 1024, 1024},
	{synth.Recipe{Shape: "tiny-qwen35", Type: "q8_0", Seed: 1, Vocab: "vocab/llama3-trunc1280-qwen2.vocab.gguf"}, 1024, 1024},
	{synth.Recipe{Shape: "tiny-granitehybrid", Type: "q8_0", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"}, 512, 1},
	{synth.Recipe{Shape: "tiny-nemotronh", Type: "q8_0", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"}, 512, 1},
}

// loadHybrid writes h's model and loads it.
func loadHybrid(t *testing.T, h hybrid) model.Model {
	t.Helper()
	path, err := synthtest.Recipe(h.recipe, refdata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	m := loadFile(t, path)
	if len(m.Recurrent()) == 0 {
		t.Fatalf("%s has no recurrent layers", h.recipe.Shape)
	}
	return m
}

// loadLFM2 loads the synthetic tiny LFM2 (hybrids[0]).
func loadLFM2(t *testing.T) model.Model { return loadHybrid(t, hybrids[0]) }

// lfm2Prompts returns n random prompts of lengths in [lo, hi) for LFM2's
// vocabulary.
func lfm2Prompts(seed uint64, n, lo, hi int) [][]int32 { return hybrids[0].prompts(seed, n, lo, hi) }

// prompts returns n random prompts of lengths in [lo, hi), each
// starting with the vocabulary's BOS.
func (h hybrid) prompts(seed uint64, n, lo, hi int) [][]int32 {
	r := rand.New(rand.NewPCG(seed, 2))
	var ps [][]int32
	for range n {
		p := []int32{h.bos}
		for range lo + r.IntN(hi-lo) {
			p = append(p, r.Int32N(h.vocab))
		}
		ps = append(ps, p)
	}
	return ps
}

// TestHybridBatchedMatchesAlone runs sequences of each hybrid model together:
// more than MaxSeqs (they join at different steps, taking the slots of
// those that end), prompts longer than the token budget (chunked prefill
// carries each window and state from chunk to chunk) and a pool too
// small for all of them (the newest are preempted, their state dropped
// and recomputed, from a state snapshot where one is left). Each gets the
// tokens it gets alone.
func TestHybridBatchedMatchesAlone(t *testing.T) {
	if raceEnabled {
		t.Skip("scheduler: the race detector's step (TestHybridPrefixCache runs the hybrid paths there)")
	}
	for i, h := range hybrids {
		t.Run(h.recipe.Shape, func(t *testing.T) {
			if i > 0 && testing.Short() && runtime.GOARCH != "amd64" {
				t.Skip("scheduler: -short under emulation runs LFM2's hybrid paths only")
			}
			m := loadHybrid(t, h)
			ps := h.prompts(4, 6, 20, 40)
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
		})
	}
}

// TestHybridPrefixCache checks the prefix cache of a hybrid model: a
// request that shares a prompt's prefix starts from the last state
// snapshot within the prefix (the first prompt's chunks ended at block
// boundaries), a repeated prompt from the one at its own last boundary,
// and both get the tokens they get without a prefix cache; a single
// snapshot slot is reused; with no snapshots, nothing is cached.
//
// Nemotron-H's tiny model sits this one out: the request alone prefills
// its 65 tokens in one chunk, the cached one in chunks of 40, and with an
// F16 cache a chunk of 64 tokens or more attends with other roundings
// than a shorter one (every architecture's, 2e-5 in tiny-granite's F32
// logits), which its Q8_0 activations amplify to a different eleventh
// token.
func TestHybridPrefixCache(t *testing.T) {
	for i, h := range hybrids[:3] {
		t.Run(h.recipe.Shape, func(t *testing.T) {
			if raceEnabled && i > 0 {
				t.Skip("scheduler: under the race detector LFM2 runs the hybrid paths (the others take seconds more)")
			}
			if i > 0 && testing.Short() && runtime.GOARCH != "amd64" {
				t.Skip("scheduler: -short under emulation runs LFM2's hybrid paths only")
			}
			m := loadHybrid(t, h)
			prefix := h.prompts(7, 1, 50, 51)[0] // BOS + 50 tokens
			ps := h.prompts(8, 2, 10, 20)
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
		})
	}
}
