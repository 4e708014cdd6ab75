package model

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"saji/engine/gguf"
	"saji/kernels/quant"
)

// TestBigModelProfile runs pp64 and tg16 on the model file SAJI_BIG_MODEL
// (mapped, 2 threads) SAJI_BIG_REPS times (3), for profiling with
// -cpuprofile; SAJI_BIG_PHASE picks "pp" or "tg" (both when empty). It
// skips without the variable.
func TestBigModelProfile(t *testing.T) {
	path := os.Getenv("SAJI_BIG_MODEL")
	if path == "" {
		t.Skip("model: SAJI_BIG_MODEL is not set")
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := Load(context.Background(), f, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	phase := os.Getenv("SAJI_BIG_PHASE")
	const np, ng = 64, 16
	cache, err := m.NewCache(np+ng+1, quant.TypeF16)
	if err != nil {
		t.Fatal(err)
	}
	tokens, pos := make([]int32, np), make([]int32, np)
	for i := range tokens {
		tokens[i], pos[i] = int32(1+i*7%(m.Config().Vocab-1)), int32(i)
	}
	reps := 3
	if r, err := strconv.Atoi(os.Getenv("SAJI_BIG_REPS")); err == nil && r > 0 {
		reps = r
	}
	for range reps {
		cache.Reset()
		start := time.Now()
		if phase != "tg" {
			if _, err := m.Forward(context.Background(), tokens, pos, cache, false); err != nil {
				t.Fatal(err)
			}
			t.Logf("pp%d: %.2f tokens/s", np, np/time.Since(start).Seconds())
			cache.Reset()
		}
		start = time.Now()
		if phase != "pp" {
			for i := range ng {
				if _, err := m.Forward(context.Background(), []int32{int32(1 + i)}, []int32{int32(i)}, cache, false); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("tg%d: %.2f tokens/s", ng, ng/time.Since(start).Seconds())
		}
	}
}
