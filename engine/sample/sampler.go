package sample

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
)

// Sampler picks tokens from logits vectors with one fixed set of Params. It
// keeps the penalty window and the random generator, so use one Sampler per
// sequence; it is not safe for concurrent use.
//
// The chain runs in llama.cpp's default order: logit bias, penalties,
// top-k, typical-p, top-p, min-p, temperature, then a random draw from the
// softmax of what is left. With a temperature <= 0 the draw is replaced by
// the best survivor (highest logit, lowest id on ties).
type Sampler struct {
	p    Params
	bias []tokenBias // p.LogitBias, in id order
	seed int64
	pcg  *rand.PCG
	rng  *rand.Rand

	// penalty window: a ring of the last LastN accepted tokens (unused
	// when LastN is -1) and how often each token occurs in it.
	ring   []int32
	head   int
	filled int
	counts map[int32]int32

	ch  chain
	buf []Candidate
}

type tokenBias struct {
	id   int32
	bias float32
}

// New returns a Sampler for p, or an error naming every bad parameter.
func New(p Params) (*Sampler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s := &Sampler{p: p, counts: make(map[int32]int32)}
	for _, id := range slices.Sorted(maps.Keys(p.LogitBias)) {
		s.bias = append(s.bias, tokenBias{id, p.LogitBias[id]})
	}
	s.p.LogitBias = nil // keep our own copy only
	s.seed = p.Seed
	if s.seed < 0 {
		s.seed = rand.Int64() // non-negative, so Params.Seed can repeat it
	}
	s.pcg = rand.NewPCG(pcgSeed(s.seed))
	s.rng = rand.New(s.pcg)
	if p.LastN > 0 {
		s.ring = make([]int32, p.LastN)
	}
	return s, nil
}

// Params returns the parameters the Sampler was made with.
func (s *Sampler) Params() Params {
	p := s.p
	if len(s.bias) > 0 {
		p.LogitBias = make(map[int32]float32, len(s.bias))
		for _, b := range s.bias {
			p.LogitBias[b.id] = b.bias
		}
	}
	return p
}

// Seed returns the seed in use: Params.Seed, or the random one chosen when
// that was negative. A Sampler made with this seed draws the same tokens.
func (s *Sampler) Seed() int64 { return s.seed }

// pcgSeed spreads a seed over PCG's two state words.
func pcgSeed(seed int64) (uint64, uint64) {
	return uint64(seed), uint64(seed) ^ 0x9e3779b97f4a7c15
}

// Reset forgets the penalty window and restarts the random generator from
// the seed, as for a new sequence.
func (s *Sampler) Reset() {
	s.head, s.filled = 0, 0
	clear(s.counts)
	s.pcg.Seed(pcgSeed(s.seed))
}

// Accept records a token of the sequence (prompt or generated) in the
// penalty window. Sample does not do this by itself; Next does.
func (s *Sampler) Accept(tok int32) {
	switch {
	case s.p.LastN == 0:
		return
	case s.p.LastN > 0:
		if s.filled == len(s.ring) {
			old := s.ring[s.head]
			if s.counts[old]--; s.counts[old] <= 0 {
				delete(s.counts, old)
			}
		} else {
			s.filled++
		}
		s.ring[s.head] = tok
		s.head = (s.head + 1) % len(s.ring)
	}
	s.counts[tok]++
}

// Window returns the tokens in the penalty window, oldest first (for
// LastN -1, the distinct tokens seen, in id order).
func (s *Sampler) Window() []int32 {
	if s.p.LastN < 0 {
		return slices.Sorted(maps.Keys(s.counts))
	}
	out := make([]int32, 0, s.filled)
	start := (s.head - s.filled + len(s.ring)) % max(len(s.ring), 1)
	for i := range s.filled {
		out = append(out, s.ring[(start+i)%len(s.ring)])
	}
	return out
}

// Next samples a token from logits and accepts it into the penalty window.
func (s *Sampler) Next(logits []float32) (int32, error) {
	tok, err := s.Sample(logits)
	if err == nil {
		s.Accept(tok)
	}
	return tok, err
}

// Sample picks a token from logits (one per vocabulary entry) without
// recording it; see Accept. It fails on an empty vector, on a NaN or +Inf
// logit, and when no token is left with a finite logit (all banned). After
// warm-up (the first call for a vocabulary size) it does not allocate.
func (s *Sampler) Sample(logits []float32) (int32, error) {
	n := len(logits)
	if n == 0 {
		return 0, fmt.Errorf("sample: empty logits vector")
	}
	if n > math.MaxInt32 {
		return 0, fmt.Errorf("sample: %d logits exceed the int32 token id range", n)
	}
	if cap(s.buf) < n {
		s.buf = make([]Candidate, n)
	}
	s.ch.grow(n)
	c := s.buf[:n]
	anyFinite := false
	for i, l := range logits {
		if l != l || l > math.MaxFloat32 {
			return 0, fmt.Errorf("sample: logit %v for token %d is NaN or +Inf", l, i)
		}
		if l >= -math.MaxFloat32 {
			anyFinite = true
		}
		c[i] = Candidate{ID: int32(i), Logit: l}
	}

	// Logit bias and penalties touch only a few ids, found directly since
	// c is still in id order.
	banned := false
	for _, b := range s.bias {
		if int(b.id) < n {
			c[b.id].Logit += b.bias
			banned = banned || math.IsInf(float64(b.bias), -1)
		}
	}
	if s.p.penalised() {
		for id, cnt := range s.counts {
			if id < 0 || int(id) >= n {
				continue
			}
			l := c[id].Logit
			if l <= 0 {
				l *= s.p.RepeatPenalty
			} else {
				l /= s.p.RepeatPenalty
			}
			c[id].Logit = l - float32(cnt)*s.p.FrequencyPenalty - s.p.PresencePenalty
		}
	}
	if (banned || s.p.penalised()) && anyFinite {
		// Only a ban (or a penalty overflowing) can remove the last
		// finite logit; look for one, which usually ends the scan at once.
		anyFinite = false
		for i := range c {
			if c[i].Logit >= -math.MaxFloat32 {
				anyFinite = true
				break
			}
		}
	}
	if !anyFinite {
		return 0, fmt.Errorf("sample: every token is banned (all %d logits are -Inf)", n)
	}

	s.ch.c, s.ch.sorted = c, false
	s.ch.topK(s.p.TopK)
	s.ch.typical(s.p.TypicalP, s.p.MinKeep)
	s.ch.topP(s.p.TopP, s.p.MinKeep)
	s.ch.minP(s.p.MinP, s.p.MinKeep)

	if s.p.Temperature <= 0 {
		b := s.ch.best()
		s.ch.c[0], s.ch.c[b] = s.ch.c[b], s.ch.c[0]
		s.ch.c = s.ch.c[:1]
		s.ch.c[0].P = 1
		s.ch.sorted = true
		return s.ch.c[0].ID, nil
	}
	s.ch.temperature(s.p.Temperature)
	return s.ch.c[s.ch.draw(s.rng.Float64())].ID, nil
}

// Final returns the distribution the last Sample drew from: the surviving
// candidates with their final logits (after bias, penalties and
// temperature) and probabilities, in no particular order (greedy leaves
// only the chosen token, at probability 1). It is what llama.cpp's server
// calls post-sampling probabilities. The slice is the Sampler's own and is
// overwritten by the next Sample.
func (s *Sampler) Final() []Candidate { return s.ch.c }

// FinalTop writes the n most probable candidates of Final into dst, most
// probable first, and returns it.
func (s *Sampler) FinalTop(n int, dst []Candidate) []Candidate {
	if n > len(s.ch.c) {
		n = len(s.ch.c)
	}
	if cap(dst) < n {
		dst = make([]Candidate, n)
	}
	return selectTop(s.ch.c, n, dst[:max(n, 0)])
}
