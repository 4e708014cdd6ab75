package scheduler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"saji/engine/kvcache"
	"saji/engine/model"
	"saji/engine/sample"
)

// loop runs steps until ctx is cancelled (Close), sleeping while there is
// nothing to do.
func (s *Scheduler) loop(ctx context.Context) {
	defer close(s.done)
	for {
		if ctx.Err() != nil {
			s.shutdown()
			return
		}
		s.reap()
		s.admit()
		s.publish()
		saving := len(s.saves) > 0 && s.saveStep(saveBlocksPerStep, false)
		if len(s.running) == 0 {
			var retry <-chan time.Time
			if saving {
				retry = time.After(saveRetry)
			}
			select {
			case <-s.wake:
			case <-retry:
			case <-ctx.Done():
			}
			continue
		}
		s.step(ctx)
	}
}

// shutdown ends every sequence with ErrClosed.
func (s *Scheduler) shutdown() {
	s.mu.Lock()
	s.closed = true
	waiting := s.waiting
	s.waiting = nil
	s.mu.Unlock()
	for _, sq := range append(s.running, waiting...) {
		s.end(sq, FinishError, ErrClosed)
	}
	s.running = nil
	s.saveStep(math.MaxInt, true) // what ended is saved before Close returns
	s.publish()
}

// reap ends the sequences whose requests were cancelled, running or
// waiting.
func (s *Scheduler) reap() {
	s.running = slices.DeleteFunc(s.running, func(sq *seq) bool {
		if sq.ctx.Err() != nil {
			s.end(sq, FinishCancelled, nil)
			return true
		}
		return false
	})
	s.mu.Lock()
	var gone []*seq
	s.waiting = slices.DeleteFunc(s.waiting, func(sq *seq) bool {
		if sq.ctx.Err() != nil {
			gone = append(gone, sq)
			return true
		}
		return false
	})
	s.mu.Unlock()
	for _, sq := range gone {
		s.end(sq, FinishCancelled, nil)
	}
}

// admit moves waiting sequences to running while there is a free slot and
// the pool has room for their next chunk, taking what the prefix cache has
// of their tokens.
func (s *Scheduler) admit() {
	for len(s.running) < s.cfg.MaxSeqs {
		s.mu.Lock()
		if len(s.waiting) == 0 {
			s.mu.Unlock()
			return
		}
		sq := s.waiting[0]
		s.mu.Unlock()

		if len(s.running) > 0 && !s.room(min(len(sq.tokens), s.chunkRoom())) {
			if s.dropSaves() {
				continue // blocks held for the disk came back
			}
			// No room now: wait for running sequences to finish, keeping
			// the queue's order.
			return
		}
		s.dequeue(sq)
		s.takeSlot(sq)
		sq.kv = s.pool.NewSeq()
		n, err := s.match(sq)
		if err != nil {
			s.end(sq, FinishError, err)
			continue
		}
		n = s.restore(sq, n)
		sq.computed = n
		if !sq.admitted {
			sq.admitted = true
			sq.usage.CachedTokens = min(n, len(sq.req.Prompt))
			sq.usage.Queued = time.Since(sq.start)
		}
		s.cfg.Logger.Debug("scheduler: admitted", "seq", sq.id, "tokens", len(sq.tokens), "cached", n)
		s.running = append(s.running, sq)
	}
}

// match takes what the prefix cache has of sq's tokens (for a hybrid
// model, up to a state snapshot: matchHybrid; for a prompt with pictures,
// up to the start of its last chunk: tail) and returns the number of
// tokens cached.
func (s *Scheduler) match(sq *seq) (int, error) {
	if s.recurrent {
		return s.matchHybrid(sq)
	}
	n, copies := s.pool.Match(sq.kv, sq.tokens[:min(len(sq.tokens), s.tail(sq)+1)])
	return n, s.copyBlocks(copies)
}

// tail returns where the last prefill chunk of a prompt with pictures
// starts (len(sq.tokens) for one without, which is not cut): the longest match the prefix cache can
// give its tokens (the last block boundary before the last token, or the
// last token when it starts a block: the copy-on-write match), lowered to
// the block boundary at or before a bidirectional picture it would cut.
// The prefill cuts a chunk there (alignChunk) and the prefix cache matches
// no further (match), so that the same request served again from the
// cache computes the same last chunk as the first time and gets the same
// logits: the kernels' order depends on a chunk's length (an F16 cache's
// flash attention takes ggml's tiled kernel for 64 queries or more, its
// one-row kernel below), and the picture's question asked again, its last
// 15 tokens computed alone after 95 together the first time, got logits
// 4e-2 away and another first token.
func (s *Scheduler) tail(sq *seq) int {
	bs, n := s.cfg.BlockSize, len(sq.tokens)
	if len(sq.req.Pictures) == 0 {
		return n
	}
	p := max(0, n-1) / bs * bs
	if bs > 1 && n%bs == 0 {
		p = n - 1
	}
	for p > 0 {
		pic := sq.picture(p)
		if pic == nil || !pic.Bidirectional || pic.At == p {
			break
		}
		p = pic.At / bs * bs
	}
	return p
}

// room reports whether every group has blocks (free or evictable) for n
// more tokens and a spare block for each running sequence's next token.
func (s *Scheduler) room(n int) bool {
	need := (n+s.cfg.BlockSize-1)/s.cfg.BlockSize + len(s.running)
	for g := range s.pool.Groups() {
		if s.pool.FreeBlocks(g) < need {
			return false
		}
	}
	return true
}

// chunkRoom is the token budget a new sequence's first chunk can count on.
func (s *Scheduler) chunkRoom() int { return max(1, s.cfg.TokenBudget-len(s.running)) }

// dequeue removes sq from the head of the waiting queue.
func (s *Scheduler) dequeue(sq *seq) {
	s.mu.Lock()
	if i := slices.Index(s.waiting, sq); i >= 0 {
		s.waiting = slices.Delete(s.waiting, i, i+1)
	}
	s.stats.Waiting = len(s.waiting)
	s.mu.Unlock()
}

// copyBlocks performs the pool's copy-on-write requests on the cache.
func (s *Scheduler) copyBlocks(copies []kvcache.Copy) error {
	bs := int32(s.cfg.BlockSize)
	for _, c := range copies {
		src, dst := make([]int32, bs), make([]int32, bs)
		for i := range bs {
			src[i], dst[i] = c.Src*bs+i, c.Dst*bs+i
		}
		if err := s.cache.Copy(c.Group, src, dst); err != nil {
			return fmt.Errorf("scheduler: %w", err)
		}
	}
	return nil
}

// schedule picks the step's tokens: the next token of every generating
// sequence, then prompt chunks in arrival order up to the token budget,
// reserving their cache blocks and preempting the newest sequences when
// the pool runs out. It returns the sequences of the step in order.
func (s *Scheduler) schedule() []*seq {
	budget := s.cfg.TokenBudget
	var batch []*seq
	var order []*seq
	for _, decode := range []bool{true, false} {
		for _, sq := range s.running {
			if sq.decoding() == decode {
				order = append(order, sq)
			}
		}
	}
	for _, sq := range order {
		if !slices.Contains(s.running, sq) {
			continue // preempted for an earlier one
		}
		n := 1 // a decode token is never starved by the budget
		if !sq.decoding() {
			if budget <= 0 {
				continue
			}
			n = s.alignChunk(sq, sq.pictureChunk(min(len(sq.tokens)-sq.computed, budget)))
		}
		sq.draft = sq.draft[:0]
		if sq.decoding() && budget > 1 {
			s.draftFor(sq, budget-1) // a draft only where the budget has room
		}
		for {
			var copies []kvcache.Copy
			var err error
			if len(sq.draft) > 0 {
				copies, err = s.reserveDraft(sq)
			} else {
				copies, err = s.pool.Reserve(sq.kv, sq.computed, sq.computed+n)
			}
			if err == nil {
				if err := s.copyBlocks(copies); err != nil {
					s.finish(sq, FinishError, err)
					break
				}
				sq.n = n
				batch = append(batch, sq)
				budget -= n + len(sq.draft)
				break
			}
			if !errors.Is(err, kvcache.ErrNoSpace) || len(s.running) == 1 {
				s.finish(sq, FinishError, fmt.Errorf("%w (%d tokens): %w", ErrTooLarge, sq.computed+n, err))
				break
			}
			if !sq.decoding() && n > 1 && len(batch) > 0 {
				n = max(1, n/2) // a smaller chunk may fit without preempting anyone
				continue
			}
			if s.dropSaves() {
				continue // blocks held for the disk came back
			}
			victim := s.newest(batch)
			if victim == nil {
				break // everyone else runs this step: try again next step
			}
			s.preempt(victim)
			if victim == sq {
				break
			}
		}
	}
	return batch
}

// decoding reports whether sq's next step is one generated token (rather
// than a chunk of its prompt, or of its tokens after a preemption).
func (sq *seq) decoding() bool {
	return len(sq.tokens)-sq.computed == 1 && sq.computed >= len(sq.req.Prompt)
}

// newest returns the most recently admitted running sequence that is not
// in batch, or the newest in batch's last position when all are.
func (s *Scheduler) newest(batch []*seq) *seq {
	for i := len(s.running) - 1; i >= 0; i-- {
		if !slices.Contains(batch, s.running[i]) {
			return s.running[i]
		}
	}
	return nil
}

// preempt frees sq's blocks and puts it back at the head of the queue: it
// will be recomputed (mostly from the prefix cache) when there is room.
func (s *Scheduler) preempt(sq *seq) {
	s.pool.Free(sq.kv)
	s.freeSlot(sq)
	sq.kv, sq.computed, sq.draft = nil, 0, sq.draft[:0]
	sq.usage.Preemptions++
	s.running = slices.DeleteFunc(s.running, func(x *seq) bool { return x == sq })
	s.mu.Lock()
	s.waiting = append([]*seq{sq}, s.waiting...)
	s.stats.Waiting = len(s.waiting)
	s.stats.Preemptions++
	s.mu.Unlock()
	s.cfg.Logger.Debug("scheduler: preempted", "seq", sq.id, "tokens", len(sq.tokens))
}

// finish ends a running sequence for reason f.
func (s *Scheduler) finish(sq *seq, f Finish, err error) {
	s.running = slices.DeleteFunc(s.running, func(x *seq) bool { return x == sq })
	s.end(sq, f, err)
}

// step runs one forward pass and hands each sequence its token.
func (s *Scheduler) step(ctx context.Context) {
	batch := s.schedule()
	if len(batch) == 0 {
		s.publish() // sequences schedule ended
		return
	}
	groups := s.pool.Groups()
	b := &s.batch
	b.Tokens, b.Pos, b.Seqs, b.Embd, b.AttnPos = b.Tokens[:0], b.Pos[:0], b.Seqs[:0], b.Embd[:0], b.AttnPos[:0]
	for len(s.cells) < len(batch) {
		s.cells = append(s.cells, make([][]int32, groups))
	}
	pictures := slices.ContainsFunc(batch, func(sq *seq) bool { return len(sq.req.Pictures) > 0 })
	for i, sq := range batch {
		end := sq.computed + sq.n
		b.Tokens = append(b.Tokens, sq.tokens[sq.computed:end]...)
		b.Tokens = append(b.Tokens, sq.draft...)
		for p := sq.computed; p < end+len(sq.draft); p++ {
			b.Pos = append(b.Pos, int32(p))
			if pictures {
				b.AttnPos = append(b.AttnPos, s.picturePos(sq, p, end, b))
			}
		}
		cells := s.cells[i]
		for g := range groups {
			cells[g] = s.pool.Cells(sq.kv, g, end+len(sq.draft), cells[g][:0])
		}
		b.Seqs = append(b.Seqs, model.SeqBatch{N: sq.n + len(sq.draft), Cells: cells, Size: s.cfg.Context,
			Logits: end == len(sq.tokens), Outputs: 1 + len(sq.draft), Slot: max(0, sq.slot)})
	}
	if !pictures {
		b.AttnPos = nil
	}
	b.Rope = b.Rope[:0]
	if s.mrope && pictures {
		n := len(b.Tokens)
		b.Rope = slices.Grow(b.Rope, 4*n)[:4*n]
		j := 0
		for _, sq := range batch {
			for p := sq.computed; p < sq.computed+sq.n+len(sq.draft); p++ {
				r := sq.rotation(p)
				for k := range 4 {
					b.Rope[k*n+j] = r[k]
				}
				j++
			}
		}
	} else {
		b.Rope = nil
	}
	logits, err := s.m.ForwardBatch(ctx, b, s.cache)
	if err != nil {
		if ctx.Err() != nil {
			return // closing
		}
		for _, sq := range batch {
			s.finish(sq, FinishError, fmt.Errorf("scheduler: forward pass: %w", err))
		}
		s.publish()
		return
	}
	var prompt, gen int64
	k := 0
	for _, sq := range batch {
		prefill := sq.computed < len(sq.req.Prompt)
		sq.computed += sq.n
		if prefill {
			prompt += int64(sq.n)
			if sq.req.Progress != nil {
				sq.req.Progress(min(sq.computed, len(sq.req.Prompt)), len(sq.req.Prompt))
			}
		}
		rows := 1 + len(sq.draft)
		if err := s.pool.Commit(sq.kv, sq.tokens[:sq.computed]); err != nil {
			s.finish(sq, FinishError, fmt.Errorf("scheduler: %w", err))
			if sq.computed == len(sq.tokens) {
				k += rows
			}
			continue
		}
		if err := s.saveSnapshot(sq); err != nil {
			s.finish(sq, FinishError, err)
			if sq.computed == len(sq.tokens) {
				k += rows
			}
			continue
		}
		if sq.computed < len(sq.tokens) {
			continue // more prompt to read
		}
		if rows > 1 {
			gen += s.verify(sq, logits[k*s.vocab:(k+rows)*s.vocab])
			k += rows
			continue
		}
		row := logits[k*s.vocab : (k+1)*s.vocab]
		k++
		if s.next(sq, row) {
			gen++
		}
	}
	kv := s.pool.Stats()
	s.mu.Lock()
	if kv.CapacityTokens > 0 {
		u := kv.Utilization()
		if s.stats.UtilSteps == 0 || u < s.stats.UtilMin {
			s.stats.UtilMin = u
		}
		s.stats.UtilSum += u
		s.stats.UtilSteps++
	}
	s.stats.Steps++
	s.stats.PromptTokens += prompt
	s.stats.GeneratedTokens += gen
	s.stats.BatchTokens = len(b.Tokens)
	s.mu.Unlock()
	s.publish()
}

// next samples sq's next token from its logits and emits it, or ends the
// sequence. It reports whether a token was generated.
func (s *Scheduler) next(sq *seq, logits []float32) bool {
	if sq.ctx.Err() != nil {
		s.finish(sq, FinishCancelled, nil)
		return false
	}
	var lp sample.LogProbs
	var err error
	if sq.req.LogProbs || sq.req.TopLogProbs > 0 {
		// Before the sampler touches the logits.
		if lp, err = sample.NewLogProbs(slices.Clone(logits)); err != nil {
			s.finish(sq, FinishError, fmt.Errorf("scheduler: %w", err))
			return false
		}
	}
	if c := sq.req.Constraint; c != nil {
		if !s.constrain(sq, logits) {
			// Nothing may follow: the output is complete, or stuck.
			if c.Complete() {
				s.running = slices.DeleteFunc(s.running, func(x *seq) bool { return x == sq })
				s.endWith(sq, Event{Done: true, Finish: FinishStop, StopToken: -1})
			} else {
				s.finish(sq, FinishError, errors.New("scheduler: the constraint allows no token"))
			}
			return false
		}
	}
	tok, err := sq.sampler.Next(logits)
	if err != nil {
		s.finish(sq, FinishError, fmt.Errorf("scheduler: %w", err))
		return false
	}
	if !sq.req.IgnoreEOS && slices.Contains(sq.req.EOG, tok) {
		s.running = slices.DeleteFunc(s.running, func(x *seq) bool { return x == sq })
		s.endWith(sq, Event{Done: true, Finish: FinishStop, StopToken: tok})
		return false
	}
	if c := sq.req.Constraint; c != nil {
		if err := c.Accept(tok); err != nil {
			s.finish(sq, FinishError, fmt.Errorf("scheduler: %w", err))
			return false
		}
	}
	ev := Event{Token: tok}
	if sq.req.LogProbs || sq.req.TopLogProbs > 0 {
		ev.LogProb, _ = lp.Of(tok)
		if sq.req.TopLogProbs > 0 {
			ev.Top = lp.Top(sq.req.TopLogProbs, nil)
		}
	}
	if len(sq.tokens) == len(sq.req.Prompt) {
		sq.usage.FirstToken = time.Since(sq.start)
	}
	sq.tokens = append(sq.tokens, tok)
	sq.out <- ev
	generated := len(sq.tokens) - len(sq.req.Prompt)
	if (sq.req.MaxTokens > 0 && generated >= sq.req.MaxTokens) || len(sq.tokens) >= s.cfg.Context {
		s.finish(sq, FinishLength, nil)
	}
	return true
}

// end frees sq's blocks and sends its last event.
func (s *Scheduler) end(sq *seq, f Finish, err error) {
	s.endWith(sq, Event{Done: true, Finish: f, Err: err})
}

// endWith frees sq's blocks and makes ev, with the usage, its last event.
// The event is sent by the next publish, so that a client that has seen
// its request end reads stats that count the request's last step.
func (s *Scheduler) endWith(sq *seq, ev Event) {
	s.queueSave(sq)
	if sq.kv != nil {
		s.pool.Free(sq.kv)
		sq.kv = nil
	}
	s.freeSlot(sq)
	if sq.req.Drafter != nil {
		sq.req.Drafter.Close()
		sq.req.Drafter = nil
	}
	sq.usage.CompletionTokens = len(sq.tokens) - len(sq.req.Prompt)
	sq.usage.Total = time.Since(sq.start)
	ev.Usage = sq.usage
	s.ended = append(s.ended, ending{sq, ev})
}

// publish updates the running and waiting counts of the stats, then sends
// the ended sequences their last events. The channels never block: each
// has room for every event its sequence can be sent.
func (s *Scheduler) publish() {
	s.mu.Lock()
	s.stats.Running = len(s.running)
	s.stats.Waiting = len(s.waiting)
	s.mu.Unlock()
	for i, e := range s.ended {
		e.sq.out <- e.ev
		close(e.sq.out)
		s.ended[i] = ending{}
	}
	s.ended = s.ended[:0]
}

// constrain masks the logits of the tokens sq's constraint does not allow,
// end-of-generation tokens included unless the output is complete. It
// reports whether any token is left.
func (s *Scheduler) constrain(sq *seq, logits []float32) bool {
	c := sq.req.Constraint
	complete := c.Complete()
	eog := func(id int32) bool { return !sq.req.IgnoreEOS && slices.Contains(sq.req.EOG, id) }
	left := false
	for i := range logits {
		id := int32(i)
		ok := c.Allowed(id)
		if eog(id) {
			ok = complete
		}
		if ok {
			left = true
		} else {
			logits[i] = float32(math.Inf(-1))
		}
	}
	return left
}

// picturePos returns the position token p of sq attends from, the step's
// tokens of sq ending before end, and adds its vector to b when p is a
// picture's: a bidirectional picture's tokens stand at its last position
// in the step, the others at their own.
func (s *Scheduler) picturePos(sq *seq, p, end int, b *model.Batch) int32 {
	pic := sq.picture(p)
	if pic == nil || p >= len(sq.req.Prompt) {
		return int32(p)
	}
	i := p - pic.At
	b.Embd = append(b.Embd, pic.Embd[i*s.embd:(i+1)*s.embd]...)
	if !pic.Bidirectional {
		return int32(p)
	}
	return int32(min(pic.At+pic.N, end) - 1)
}

// takeSlot gives sq a free recurrent state slot of a hybrid model's cache
// (there is one for each of the MaxSeqs sequences that can run); its
// first chunk, at position 0, starts the state from zeros.
func (s *Scheduler) takeSlot(sq *seq) {
	if !s.recurrent || len(s.slots) == 0 {
		return // every running sequence holds one of MaxSeqs: never short
	}
	sq.slot = s.slots[len(s.slots)-1]
	s.slots = s.slots[:len(s.slots)-1]
}

// freeSlot returns sq's recurrent state slot, if it holds one. The state
// is dropped: a preempted sequence recomputes it from its first token.
func (s *Scheduler) freeSlot(sq *seq) {
	if sq.slot >= 0 {
		s.slots = append(s.slots, sq.slot)
		sq.slot = -1
	}
}
