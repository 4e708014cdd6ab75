package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"saji/engine/kvcache"
)

// Speculative decoding. A sequence whose request has a Drafter proposes up
// to Request.DraftMax tokens before each decode step; the step runs the
// sequence's last token and the draft as one chunk of the batched forward
// pass, with logits for every position, and the sequence samples from them
// in order with its own sampler (constraint, penalties, seed), keeping the
// draft while the sampled token is the drafted one. The first token that
// differs (the target's correction), or the token after a wholly accepted
// draft (its bonus), ends the run. The keys and values of the rejected
// positions are dropped: the pool stores only the accepted tokens (so the
// prefix cache never holds a rejected one) and gives back the blocks the
// draft alone took (kvcache.Pool.Trim).
//
// A drafter is deterministic: it proposes one continuation, so that its
// distribution q is one-hot. The standard rejection scheme (accept draft
// token x with probability min(1, p(x)/q(x)); on rejection sample from
// max(0, p-q), normalized) then accepts x with probability p(x) and
// otherwise samples p without x: exactly what sampling p and comparing
// with x does. Sampling the target's distribution at each position, with
// the random draws of plain decoding in the same order, the output is the
// target's alone, token for token, for greedy and sampled decoding with
// the same seed alike (where the verified logits have the bits of plain
// decoding's: see TestSpeculativeSampled).
//
// A draft's length adapts to how the sequence's drafts fare, as Hugging
// Face's assisted generation does: two tokens more after a wholly accepted
// draft, one fewer after a rejection, between DraftMin (at least 1) and
// DraftMax. A drafter
// that rarely guesses right then costs one verified token per step.

// DefaultDraftMax is the longest draft when Request.DraftMax is 0
// (llama-server's --draft-max is 16; on two cores a draft model's own cost
// makes shorter drafts pay better).
const DefaultDraftMax = 8

// Drafter proposes tokens for a sequence to verify: a small draft model of
// the same vocabulary, or prompt lookup. One Drafter serves one sequence;
// the scheduler calls it from its loop only.
type Drafter interface {
	// Draft returns up to n tokens that may follow tokens (the prompt and
	// the tokens generated so far); none when it has no guess.
	Draft(ctx context.Context, tokens []int32, n int) ([]int32, error)
	// Close frees what the drafter holds; the scheduler calls it when the
	// sequence ends.
	Close()
}

// draftFor asks sq's drafter for the draft of its next step: at most
// DraftMax tokens, fewer where the step's room (what is left of its token
// budget) is less or max_tokens or the context end sooner (the
// last generated token leaves room for the target's own), none below
// DraftMin. A draft whose first token the constraint forbids is dropped.
// A drafter's failure costs the step its draft, not the sequence.
func (s *Scheduler) draftFor(sq *seq, room int) []int32 {
	sq.draft = sq.draft[:0]
	r := sq.req
	if r.Drafter == nil || !sq.decoding() || sq.ctx.Err() != nil || s.recurrent {
		return nil // a recurrent state cannot take back rejected tokens: no drafts
	}
	n := r.DraftMax
	if n <= 0 {
		n = DefaultDraftMax
	}
	if sq.draftLen <= 0 || sq.draftLen > n {
		sq.draftLen = n
	}
	n = min(sq.draftLen, s.cfg.Context-len(sq.tokens)-1, room)
	if r.MaxTokens > 0 {
		n = min(n, r.MaxTokens-(len(sq.tokens)-len(r.Prompt))-1)
	}
	if n <= 0 || n < r.DraftMin {
		return nil
	}
	d, err := r.Drafter.Draft(sq.ctx, sq.tokens, n)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			s.cfg.Logger.Warn("scheduler: the drafter failed; decoding without a draft", "seq", sq.id, "err", err)
		}
		return nil
	}
	d = d[:min(len(d), n)]
	if len(d) < max(1, r.DraftMin) || slices.ContainsFunc(d, func(t int32) bool { return t < 0 || int(t) >= s.vocab }) {
		return nil
	}
	if c := r.Constraint; c != nil && !c.Allowed(d[0]) {
		return nil
	}
	sq.draft = append(sq.draft, d...)
	return sq.draft
}

// verify hands sq, which ran its last token and its draft in the step, the
// tokens the target agrees with and one of its own: rows holds the logits
// of the len(draft)+1 positions. It reports the tokens generated.
func (s *Scheduler) verify(sq *seq, rows []float32) int64 {
	draft := sq.draft
	var gen int64
	accepted := 0
	sq.usage.DraftTokens += len(draft) // before next ends the sequence with its usage
	for i := 0; i <= len(draft); i++ {
		if i > 0 {
			// The token sampled last was draft[i-1]: the keys and values
			// the draft token left are the accepted token's.
			accepted++
			sq.usage.AcceptedTokens++
			sq.computed++
		}
		if !s.next(sq, rows[i*s.vocab:(i+1)*s.vocab]) {
			break
		}
		gen++
		if sq.kv == nil || i == len(draft) || sq.tokens[len(sq.tokens)-1] != draft[i] {
			break // ended, the bonus token, or the correction
		}
	}
	if accepted == len(draft) {
		sq.draftLen += 2 // draftFor caps it at DraftMax
	} else {
		sq.draftLen = max(1, sq.req.DraftMin, sq.draftLen-1)
	}
	s.mu.Lock()
	s.stats.DraftTokens += int64(len(draft))
	s.stats.AcceptedTokens += int64(accepted)
	s.mu.Unlock()
	sq.draft = sq.draft[:0]
	if sq.kv == nil {
		return gen // ended: its blocks are freed
	}
	if err := s.pool.Commit(sq.kv, sq.tokens[:sq.computed]); err != nil {
		s.finish(sq, FinishError, fmt.Errorf("scheduler: %w", err))
		return gen
	}
	s.pool.Trim(sq.kv)
	return gen
}

// reserveDraft reserves sq's next token and its draft, and drops the draft
// (keeping the token's reservation) when the pool has no room for it: a
// draft never preempts anyone.
func (s *Scheduler) reserveDraft(sq *seq) ([]kvcache.Copy, error) {
	copies, err := s.pool.Reserve(sq.kv, sq.computed, sq.computed+1+len(sq.draft))
	if err != nil && len(sq.draft) > 0 && errors.Is(err, kvcache.ErrNoSpace) {
		sq.draft = sq.draft[:0]
		return s.pool.Reserve(sq.kv, sq.computed, sq.computed+1)
	}
	return copies, err
}
