package loadtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fakeClock is a Clock that moves only when told to (or when slept on).
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.Advance(d)
	return ctx.Err()
}

// step is one move of a scripted stream: wait, then emit a chunk of
// tokens (none when tokens is 0).
type step struct {
	wait   time.Duration
	tokens int
}

// scriptTarget plays the same script for every request on a fake clock.
type scriptTarget struct {
	clock *fakeClock
	steps []step
	usage Usage
	err   error
}

func (s *scriptTarget) Stream(ctx context.Context, req Request, emit func(Chunk)) (Usage, error) {
	for _, st := range s.steps {
		s.clock.Advance(st.wait)
		if st.tokens > 0 {
			emit(Chunk{Tokens: st.tokens, Text: strings.Repeat("x", st.tokens)})
		}
	}
	return s.usage, s.err
}

// wordTokenizer is a toy vocabulary: id 0 is a control token "<s>", id i
// ≥ 1 is the word "w<i>", and text is split at spaces.
type wordTokenizer struct{ n int }

func (w wordTokenizer) Encode(text string, addSpecial, parseSpecial bool) []int32 {
	var ids []int32
	for _, f := range strings.Fields(text) {
		id, _ := strconv.Atoi(strings.TrimPrefix(f, "w"))
		ids = append(ids, int32(id))
	}
	return ids
}

func (w wordTokenizer) Detokenize(ids []int32, removeSpecial, unparseSpecial bool) (string, error) {
	var sb strings.Builder
	for _, id := range ids {
		sb.WriteString(w.TokenToPiece(id, unparseSpecial))
	}
	return strings.TrimPrefix(sb.String(), " "), nil
}

func (w wordTokenizer) NumTokens() int         { return w.n }
func (w wordTokenizer) IsNormal(id int32) bool { return id > 0 && int(id) < w.n }
func (w wordTokenizer) TokenToPiece(id int32, special bool) string {
	if id == 0 {
		if special {
			return "<s>"
		}
		return ""
	}
	return fmt.Sprintf(" w%d", id)
}
