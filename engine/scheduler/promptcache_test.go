package scheduler

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"testing"

	"saji/engine/kvcache"
	"saji/engine/model"
)

// openTestDisk opens a prompt cache folder that the test closes.
func openTestDisk(t *testing.T, dir string) *kvcache.Disk {
	t.Helper()
	d, err := kvcache.OpenDisk(kvcache.DiskOptions{Dir: dir, MaxBytes: 1 << 30, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// runOne runs a request on a fresh scheduler, closes it and returns what
// it streamed.
func runOne(t *testing.T, m model.Model, cfg Config, req Request) result {
	t.Helper()
	evs := stream(t, m, cfg, req)
	r := result{tokens: tokensOf(evs), last: evs[len(evs)-1]}
	if r.last.Err != nil {
		t.Fatal(r.last.Err)
	}
	return r
}

// stream runs reqs one after the other on a fresh scheduler, closes it and
// returns the events of the last.
func stream(t *testing.T, m model.Model, cfg Config, reqs ...Request) (evs []Event) {
	t.Helper()
	s, err := New(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		s.Close()
		if u := evs[len(evs)-1].Usage; cfg.PromptCache != nil && s.Stats().RestoredTokens != int64(u.CachedTokens) {
			t.Errorf("stats say %d tokens restored from disk, the usage %d cached", s.Stats().RestoredTokens, u.CachedTokens)
		}
	}()
	for _, req := range reqs {
		ch, err := s.Submit(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		evs = evs[:0]
		for ev := range ch {
			evs = append(evs, ev)
		}
	}
	return evs
}

// sameStream reports how two streams of greedy tokens with their top
// log-probabilities differ, bit for bit ("" when they do not).
func sameStream(a, b []Event) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d events, %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Done != y.Done || x.Token != y.Token || math.Float32bits(x.LogProb) != math.Float32bits(y.LogProb) || len(x.Top) != len(y.Top) {
			return fmt.Sprintf("event %d: token %d (%v), token %d (%v)", i, x.Token, x.LogProb, y.Token, y.LogProb)
		}
		for j := range x.Top {
			if x.Top[j].ID != y.Top[j].ID || math.Float32bits(x.Top[j].LogProb) != math.Float32bits(y.Top[j].LogProb) {
				return fmt.Sprintf("event %d: alternatives %v, %v", i, x.Top, y.Top)
			}
		}
	}
	return ""
}

// TestPromptCacheRestore: a conversation saved by one scheduler (one
// process) is restored by a new scheduler over a new pool and cache, and
// continues bit for bit as it does from the same blocks in memory (the
// prefix cache without a restart), for every cache type, and as
// recomputing the conversation does for F32 and Q8_0 cells. Over F16
// cells attention follows ggml's flash-attention kernel, whose sums
// depend on how many queries a pass holds, so there a prefix cache hit,
// in memory as on disk, differs from recomputing in the last bits.
func TestPromptCacheRestore(t *testing.T) {
	m := loadTinyQ8(t)
	for _, kv := range []string{"f32", "f16", "q8_0"} {
		for _, turn := range []struct {
			name        string
			prompt, gen int
			blocks      int
		}{
			// 75 stored tokens (the last sampled one is not) fill four
			// blocks, one of them partly by decode steps.
			{"decoded", 70, 6, 4},
			// 80 prompt tokens fill five blocks in one pass.
			{"prompt", 80, 1, 5},
		} {
			t.Run(kv+"/"+turn.name, func(t *testing.T) {
				dir := t.TempDir()
				cfg := Config{KVType: kv, BlockSize: 16, Context: 256, ModelDigest: kvcache.Key{1}}
				first := Request{Prompt: prompts(7, 1, turn.prompt, turn.prompt+1, nil)[0], MaxTokens: turn.gen, IgnoreEOS: true}
				cfg.PromptCache = openTestDisk(t, dir)
				r1 := runOne(t, m, cfg, first)
				cfg.PromptCache.Close()
				if st := cfg.PromptCache.Stats(); st.Writes != int64(turn.blocks) {
					t.Fatalf("%d blocks written, want %d", st.Writes, turn.blocks)
				}

				// The next turn, after a restart: a new disk and scheduler.
				next := Request{Prompt: append(append(slices.Clone(first.Prompt), r1.tokens...), 5, 6, 7, 8, 9),
					MaxTokens: 6, IgnoreEOS: true, TopLogProbs: 4, LogProbs: true}
				cfg.PromptCache = openTestDisk(t, dir)
				got := stream(t, m, cfg, next)
				if u := got[len(got)-1].Usage; u.CachedTokens != 16*turn.blocks {
					t.Fatalf("%d prompt tokens cached, want the %d restored from disk", u.CachedTokens, 16*turn.blocks)
				}

				cfg.PromptCache = nil
				if d := sameStream(got, stream(t, m, cfg, first, next)); d != "" {
					t.Errorf("restored and in memory: %s", d)
				}
				if d := sameStream(got, stream(t, m, cfg, next)); d != "" && kv != "f16" {
					t.Errorf("restored and recomputed: %s", d)
				}
			})
		}
	}
}

// tokensOf returns the generated tokens of a stream's events.
func tokensOf(evs []Event) []int32 {
	var ts []int32
	for _, ev := range evs {
		if !ev.Done {
			ts = append(ts, ev.Token)
		}
	}
	return ts
}

// TestPromptCacheNoRejectedTokens: a speculative sequence whose drafts
// are all rejected saves only the blocks of its accepted tokens: every
// file on disk is a block of the tokens it stored.
func TestPromptCacheNoRejectedTokens(t *testing.T) {
	m := loadTinyQ8(t)
	dir := t.TempDir()
	d := openTestDisk(t, dir)
	cfg := Config{BlockSize: 16, Context: 256, ModelDigest: kvcache.Key{2}, PromptCache: d}
	p := prompts(8, 1, 20, 21, nil)[0]
	r := runOne(t, m, cfg, Request{Prompt: p, MaxTokens: 40, IgnoreEOS: true, Drafter: fixed{0, 0, 0}})
	d.Close()
	all := append(slices.Clone(p), r.tokens...)
	stored := len(all) - 1 // the last token sampled is not stored
	if st := d.Stats(); st.Writes != int64(stored/16) {
		t.Fatalf("%d blocks written, want %d", st.Writes, stored/16)
	}
	// The blocks on disk are exactly the chain of the stored tokens.
	s, err := New(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d2 := openTestDisk(t, dir)
	for i, k := range kvcache.Chains(s.diskKey, all, 16, stored/16) {
		b, ok := d2.Get(s.diskKey, k, 0, uint32(s.kvType))
		if !ok || !slices.Equal(b.Tokens, all[i*16:(i+1)*16]) {
			t.Fatalf("block %d of the stored tokens is not on disk", i)
		}
	}
	if st := d2.Stats(); st.Files != stored/16 {
		t.Fatalf("%d files on disk, want %d", st.Files, stored/16)
	}
}

// TestPromptCacheOff: without a model digest, with prefix caching off, or
// for a hybrid model (whose prefixes need its recurrent state, which the
// folder does not hold), nothing goes to disk.
func TestPromptCacheOff(t *testing.T) {
	m := loadTinyQ8(t)
	p := prompts(9, 1, 40, 41, nil)[0]
	for _, cfg := range []Config{{ModelDigest: kvcache.Key{}}, {ModelDigest: kvcache.Key{3}, NoPrefixCache: true}} {
		d := openTestDisk(t, t.TempDir())
		cfg.PromptCache = d
		runOne(t, m, cfg, Request{Prompt: p, MaxTokens: 2, IgnoreEOS: true})
		d.Close()
		if st := d.Stats(); st.Writes != 0 {
			t.Errorf("%+v: %d blocks written", cfg, st.Writes)
		}
	}
	d := openTestDisk(t, t.TempDir())
	runOne(t, loadLFM2(t), Config{ModelDigest: kvcache.Key{4}, PromptCache: d}, Request{Prompt: lfm2Prompts(9, 1, 40, 41)[0], MaxTokens: 2, IgnoreEOS: true})
	d.Close()
	if st := d.Stats(); st.Writes != 0 {
		t.Errorf("hybrid model: %d blocks written", st.Writes)
	}
}
