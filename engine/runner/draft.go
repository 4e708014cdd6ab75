package runner

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/scheduler"
	"saji/engine/tokenizer"
	"saji/kernels/quant"
)

// Speculative configures speculative decoding of a model's requests
// (scheduler.Drafter): a draft model, or prompt lookup without one.
type Speculative struct {
	// Draft is the GGUF file of a small draft model with the target's
	// vocabulary ("" for none): llama.cpp's -md. It loads on the CPU
	// beside the target.
	Draft string
	// Lookup, without a Draft, proposes the continuation of the latest
	// earlier occurrence of the sequence's last tokens (prompt lookup).
	Lookup bool
	// DraftMax and DraftMin bound a draft's length (0:
	// scheduler.DefaultDraftMax, and no least).
	DraftMax, DraftMin int
}

// on reports whether sp drafts at all.
func (sp Speculative) on() bool { return sp.Draft != "" || sp.Lookup }

// The n-gram lengths prompt lookup tries, longest first (llama.cpp's
// LLAMA_NGRAM_MIN and LLAMA_NGRAM_MAX).
const (
	lookupMin = 1
	lookupMax = 4
)

// Lookup is prompt lookup: it drafts the tokens that followed the latest
// earlier occurrence of the sequence's last n tokens (n from lookupMax
// down to lookupMin), in the prompt or in the generated text. It pays
// where the reply repeats its input: code edits, summaries, quotations.
type Lookup struct{}

// Draft returns up to n tokens that followed the latest earlier
// occurrence of the longest tail of tokens found again.
func (Lookup) Draft(_ context.Context, tokens []int32, n int) ([]int32, error) {
	return lookup(tokens, n), nil
}

// Close does nothing: Lookup holds no state.
func (Lookup) Close() {}

// lookup is Lookup.Draft.
func lookup(tokens []int32, n int) []int32 {
	for g := min(lookupMax, len(tokens)-1); g >= lookupMin; g-- {
		tail := tokens[len(tokens)-g:]
		for i := len(tokens) - g - 1; i >= 0; i-- {
			if slices.Equal(tokens[i:i+g], tail) {
				return slices.Clone(tokens[i+g : min(len(tokens), i+g+n)])
			}
		}
	}
	return nil
}

// draftChunk is the most tokens one forward pass of the draft model reads
// of a prompt.
const draftChunk = 512

// DraftModel is a small model of the target's vocabulary that drafts
// greedily for the target's sequences. Each sequence drafts in a session
// of its own (a contiguous cache); the sessions of ended sequences are
// kept for the next ones, which reuse the longest common prefix (the
// earlier turns of a conversation).
type DraftModel struct {
	f     *gguf.File
	m     model.Model
	vocab int // the logits a draft may choose from: the smaller vocabulary
	size  int // each session's context

	mu   sync.Mutex
	idle []*draftSession
}

// draftIdle is the most idle sessions a DraftModel keeps.
const draftIdle = 2

// LoadDraft loads the draft model at path on the CPU with threads
// threads, its file held as mem says, for a target of tokenizer target and
// a context of size tokens, and refuses one whose vocabulary differs from
// the target's (see CheckDraftVocab).
func LoadDraft(ctx context.Context, path string, target *tokenizer.Tokenizer, size, threads int, mem gguf.OpenOptions) (*DraftModel, error) {
	f, err := gguf.OpenWith(ctx, path, mem)
	if err != nil {
		return nil, fmt.Errorf("runner: the draft model: %w", err)
	}
	tk, err := tokenizer.FromGGUF(f)
	if err == nil {
		err = CheckDraftVocab(target, tk)
	}
	var m model.Model
	if err == nil {
		m, err = model.Load(ctx, f, model.Options{Threads: threads})
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("runner: the draft model %s: %w", path, err)
	}
	return &DraftModel{f: f, m: m, vocab: min(m.Config().Vocab, target.NumTokens()), size: size}, nil
}

// draftVocabSlack is how many more tokens one of two vocabularies may have
// (padding, a few added tokens), as llama.cpp allows.
const draftVocabSlack = 128

// CheckDraftVocab returns an error naming the first difference between a
// target's vocabulary and a draft's that would make the draft's tokens
// mean something else to the target: the tokenizer model, the sizes
// beyond draftVocabSlack, BOS and EOS, or the text of a token they share.
func CheckDraftVocab(target, draft *tokenizer.Tokenizer) error {
	switch {
	case target.Model() != draft.Model():
		return fmt.Errorf("%w: its tokenizer is %v, the target's %v", ErrDraftVocab, draft.Model(), target.Model())
	case abs(target.NumTokens()-draft.NumTokens()) > draftVocabSlack:
		return fmt.Errorf("%w: it has %d tokens, the target %d", ErrDraftVocab, draft.NumTokens(), target.NumTokens())
	case target.BOS() != draft.BOS() || target.EOS() != draft.EOS():
		return fmt.Errorf("%w: its BOS and EOS are %d and %d, the target's %d and %d", ErrDraftVocab, draft.BOS(), draft.EOS(), target.BOS(), target.EOS())
	}
	for id := range int32(min(target.NumTokens(), draft.NumTokens())) {
		if a, b := target.Text(id), draft.Text(id); a != b {
			return fmt.Errorf("%w: token %d is %q, the target's %q", ErrDraftVocab, id, b, a)
		}
	}
	return nil
}

// ErrDraftVocab is wrapped by the errors of a draft model whose vocabulary
// is not the target's.
var ErrDraftVocab = errors.New("runner: the draft model's vocabulary differs from the target's")

// abs returns |x|.
func abs(x int) int { return max(x, -x) }

// VocabHash identifies a vocabulary: the tokenizer model and every token's
// text. Models of the same hash can draft for each other.
func VocabHash(tk *tokenizer.Tokenizer) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%v\x00%d\x00%d\x00", tk.Model(), tk.BOS(), tk.EOS())
	for id := range int32(tk.NumTokens()) {
		h.Write([]byte(tk.Text(id)))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Drafter returns a drafter for one sequence: a session of the model.
func (d *DraftModel) Drafter() scheduler.Drafter { return &draftSeq{d: d} }

// Close frees the draft model. Its drafters must have been closed.
func (d *DraftModel) Close() error {
	d.mu.Lock()
	d.idle = nil
	d.mu.Unlock()
	return d.f.Close()
}

// draftSession is a contiguous cache of the draft model and the tokens
// whose keys and values it holds.
type draftSession struct {
	cache  *model.Cache
	tokens []int32
}

// take returns the idle session sharing the longest prefix with tokens,
// or a new one.
func (d *DraftModel) take(tokens []int32) (*draftSession, error) {
	d.mu.Lock()
	best, bestN := -1, -1
	for i, s := range d.idle {
		if n := commonPrefix(s.tokens, tokens); n > bestN {
			best, bestN = i, n
		}
	}
	if best >= 0 {
		s := d.idle[best]
		d.idle = slices.Delete(d.idle, best, best+1)
		d.mu.Unlock()
		return s, nil
	}
	d.mu.Unlock()
	c, err := d.m.NewCache(d.size, quant.TypeF16)
	if err != nil {
		return nil, fmt.Errorf("runner: the draft model's cache: %w", err)
	}
	return &draftSession{cache: c}, nil
}

// put keeps s for a later sequence, dropping the oldest beyond draftIdle.
func (d *DraftModel) put(s *draftSession) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.idle = append(d.idle, s)
	if len(d.idle) > draftIdle {
		d.idle = slices.Delete(d.idle, 0, 1)
	}
}

// commonPrefix returns the length of the common prefix of a and b.
func commonPrefix(a, b []int32) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// draftSeq is one sequence's drafter on a DraftModel.
type draftSeq struct {
	d *DraftModel
	s *draftSession
}

// Draft runs the tokens the session lacks through the draft model (its
// cache keeps the prefix it shares with tokens) and then drafts greedily.
func (q *draftSeq) Draft(ctx context.Context, tokens []int32, n int) ([]int32, error) {
	d := q.d
	if len(tokens)+n > d.size {
		return nil, nil // past the draft's context: no draft
	}
	if q.s == nil {
		s, err := d.take(tokens)
		if err != nil {
			return nil, err
		}
		q.s = s
	}
	s := q.s
	// At least the last token runs, for its logits.
	keep := min(commonPrefix(s.tokens, tokens), len(tokens)-1)
	s.cache.Truncate(keep)
	s.tokens = s.tokens[:keep]
	var logits []float32
	for at := keep; at < len(tokens); at += draftChunk {
		end := min(len(tokens), at+draftChunk)
		var err error
		if logits, err = d.m.Forward(ctx, tokens[at:end], positions(at, end), s.cache, false); err != nil {
			s.cache.Truncate(len(s.tokens)) // what the cache holds for sure
			return nil, fmt.Errorf("runner: the draft model: %w", err)
		}
		s.tokens = append(s.tokens, tokens[at:end]...)
	}
	draft := make([]int32, 0, n)
	for {
		tok := argmax(logits[:d.vocab])
		draft = append(draft, tok)
		if len(draft) == n {
			return draft, nil
		}
		at := len(s.tokens)
		var err error
		if logits, err = d.m.Forward(ctx, []int32{tok}, positions(at, at+1), s.cache, false); err != nil {
			s.cache.Truncate(len(s.tokens))
			return draft, nil // what was drafted stands
		}
		s.tokens = append(s.tokens, tok)
	}
}

// Close gives the session back to the model for a later sequence.
func (q *draftSeq) Close() {
	if q.s != nil {
		q.d.put(q.s)
		q.s = nil
	}
}

// positions returns the positions lo..hi-1.
func positions(lo, hi int) []int32 {
	p := make([]int32, hi-lo)
	for i := range p {
		p[i] = int32(lo + i)
	}
	return p
}

// argmax returns the index of the largest value (the first of equals).
func argmax(x []float32) int32 {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return int32(best)
}

// DraftCandidate is a model of the library as PickDraft sees it.
type DraftCandidate struct {
	// Path identifies the model.
	Path string
	// VocabHash is its vocabulary's VocabHash (0: unknown, never paired).
	VocabHash uint64
	// Size is its file's size in bytes.
	Size int64
}

// Draft pairing bounds: a draft is at most a quarter of its target's
// size (its own decode costs a share of each step), and the best is the
// one nearest a tenth (big enough to agree often).
const (
	draftMaxShare  = 4
	draftBestShare = 10
)

// PickDraft picks a draft model for target among models: one of the same
// vocabulary and at most a quarter of its size, the nearest to a tenth of
// it (the smaller of two as near). It reports false when none fits.
func PickDraft(target DraftCandidate, models []DraftCandidate) (DraftCandidate, bool) {
	var best DraftCandidate
	found := false
	score := func(c DraftCandidate) float64 {
		r := float64(c.Size) * draftBestShare / float64(target.Size)
		return max(r, 1/r)
	}
	for _, c := range models {
		if c.VocabHash == 0 || c.VocabHash != target.VocabHash || c.Path == target.Path ||
			c.Size <= 0 || c.Size*draftMaxShare > target.Size {
			continue
		}
		if !found || score(c) < score(best) || (score(c) == score(best) && c.Size < best.Size) {
			best, found = c, true
		}
	}
	return best, found
}

// speculate sets the drafter of sr as the model's Speculative options
// say, unless req turns it off.
func (m *Model) speculate(sr *scheduler.Request, req Request) {
	sp := m.opts.Speculative
	switch {
	case req.NoDraft || !sp.on():
		return
	case m.draft != nil:
		sr.Drafter = m.draft.Drafter()
	case sp.Lookup:
		sr.Drafter = Lookup{}
	default:
		return
	}
	sr.DraftMax, sr.DraftMin = sp.DraftMax, sp.DraftMin
}
