package sample

import (
	"fmt"
	"math"
)

// TokenLogProb is a token id with its log-probability.
type TokenLogProb struct {
	ID      int32
	LogProb float32
}

// LogProbs describes the model's own distribution over the vocabulary at
// one position: the log-softmax of the raw logits, before logit bias,
// penalties, temperature or any filter. This is what llama.cpp's server
// reports as "logprob" and "top_logprobs" by default (post_sampling_probs
// false), and what an OpenAI-compatible API should return: OpenAI's
// reference only calls them the log probabilities of the output tokens,
// and the raw distribution is the one that does not change with the
// request's sampling settings. The distribution a token was actually drawn
// from is available from Sampler.Final.
type LogProbs struct {
	logits []float32
	lse    float64 // log-sum-exp of logits
}

// NewLogProbs prepares the log-softmax of logits; it fails on an empty
// vector, a NaN or +Inf logit, or when every logit is -Inf. It keeps
// logits (no copy): do not change them while using the result.
func NewLogProbs(logits []float32) (LogProbs, error) {
	if len(logits) == 0 {
		return LogProbs{}, fmt.Errorf("sample: empty logits vector")
	}
	m := math.Inf(-1)
	for i, l := range logits {
		if l != l || l > math.MaxFloat32 {
			return LogProbs{}, fmt.Errorf("sample: logit %v for token %d is NaN or +Inf", l, i)
		}
		m = max(m, float64(l))
	}
	if math.IsInf(m, -1) {
		return LogProbs{}, fmt.Errorf("sample: all %d logits are -Inf", len(logits))
	}
	var sum float64
	for _, l := range logits {
		sum += math.Exp(float64(l) - m)
	}
	return LogProbs{logits: logits, lse: m + math.Log(sum)}, nil
}

// Of returns the log-probability of token id, or an error if id is outside
// the vocabulary.
func (lp LogProbs) Of(id int32) (float32, error) {
	if id < 0 || int(id) >= len(lp.logits) {
		return 0, fmt.Errorf("sample: token %d outside a vocabulary of %d", id, len(lp.logits))
	}
	return float32(float64(lp.logits[id]) - lp.lse), nil
}

// Top writes the n most probable tokens into dst, most probable first
// (ties to the lower id), and returns it; n is capped at the vocabulary
// size. dst is reused when it has room.
func (lp LogProbs) Top(n int, dst []TokenLogProb) []TokenLogProb {
	n = max(0, min(n, len(lp.logits)))
	if cap(dst) < n {
		dst = make([]TokenLogProb, n)
	}
	dst = dst[:n]
	if n == 0 {
		return dst
	}
	// A min-heap of the n best so far, in dst itself, whose root is the
	// worst of them; popping it from the back then sorts best first.
	for i := range n {
		dst[i] = TokenLogProb{int32(i), lp.logits[i]}
	}
	for i := n/2 - 1; i >= 0; i-- {
		siftLogProb(dst, i)
	}
	for i := n; i < len(lp.logits); i++ {
		if x := (TokenLogProb{int32(i), lp.logits[i]}); lowerRank(dst[0], x) {
			dst[0] = x
			siftLogProb(dst, 0)
		}
	}
	for end := n - 1; end > 0; end-- {
		dst[0], dst[end] = dst[end], dst[0]
		siftLogProb(dst[:end], 0)
	}
	for i := range dst {
		dst[i].LogProb = float32(float64(dst[i].LogProb) - lp.lse)
	}
	return dst
}

// lowerRank reports whether a ranks below b: a lower value, or an equal
// value and a higher id.
func lowerRank(a, b TokenLogProb) bool {
	return a.LogProb < b.LogProb || (a.LogProb == b.LogProb && a.ID > b.ID)
}

// siftLogProb restores the heap property below i in a heap whose root is
// the lowest-ranked entry.
func siftLogProb(h []TokenLogProb, i int) {
	for {
		w, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && lowerRank(h[l], h[w]) {
			w = l
		}
		if r < len(h) && lowerRank(h[r], h[w]) {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}
