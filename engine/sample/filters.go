package sample

import (
	"math"
	"slices"
)

// Candidate is one token still in the running: its id, its (possibly
// adjusted) logit and, once a softmax has been taken, its probability.
type Candidate struct {
	ID    int32
	Logit float32
	P     float32
}

// better is the order every sampler uses: higher logit first, ties to the
// lower token id, so that results never depend on sort stability.
func better(a, b Candidate) bool {
	return a.Logit > b.Logit || (a.Logit == b.Logit && a.ID < b.ID)
}

func cmpCandidates(a, b Candidate) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}

// sortCandidates sorts c best first.
func sortCandidates(c []Candidate) { slices.SortFunc(c, cmpCandidates) }

// selectTop writes the k best of c, best first, into dst (which needs room
// for k) and returns dst[:k]. It leaves c untouched and costs O(n log k):
// a min-heap of the k best so far, whose root is the worst of them, rejects
// most of a large vocabulary with a single comparison.
func selectTop(c []Candidate, k int, dst []Candidate) []Candidate {
	k = min(k, len(c))
	if k <= 0 {
		return dst[:0]
	}
	h := dst[:k]
	copy(h, c[:k])
	for i := k/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	worst := h[0].Logit
	for _, x := range c[k:] {
		if x.Logit < worst { // the common case, decided on the logit alone
			continue
		}
		if better(x, h[0]) {
			h[0] = x
			siftDown(h, 0)
			worst = h[0].Logit
		}
	}
	sortCandidates(h)
	return h
}

// siftDown restores the heap property below i in a heap whose root is the
// worst candidate.
func siftDown(h []Candidate, i int) {
	n := len(h)
	for {
		w := i
		l, r := 2*i+1, 2*i+2
		if l < n && better(h[w], h[l]) {
			w = l
		}
		if r < n && better(h[w], h[r]) {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// maxLogit returns the highest logit in c (c[0]'s when c is sorted).
func maxLogit(c []Candidate, sorted bool) float32 {
	if sorted {
		return c[0].Logit
	}
	m := float32(math.Inf(-1))
	for i := range c {
		if c[i].Logit > m { // not max(): its NaN and -0 care is slow here
			m = c[i].Logit
		}
	}
	return m
}

// softmax fills P with the softmax of the logits, in float32 arithmetic as
// llama.cpp does, so that thresholds compare the same way.
func softmax(c []Candidate, sorted bool) {
	m := maxLogit(c, sorted)
	var sum float32
	for i := range c {
		p := float32(math.Exp(float64(c[i].Logit - m)))
		c[i].P = p
		sum += p
	}
	for i := range c {
		c[i].P /= sum
	}
}

// chain holds the candidate array as the samplers narrow it down, with the
// scratch space they need so that a step does not allocate.
type chain struct {
	c       []Candidate // the survivors
	sorted  bool        // c is in better order
	scratch []Candidate // room for a full vocabulary
	scores  []typicalScore
}

// grow makes sure the scratch space holds n candidates.
func (ch *chain) grow(n int) {
	if cap(ch.scratch) < n {
		ch.scratch = make([]Candidate, n)
		ch.scores = make([]typicalScore, n)
	}
	ch.scratch = ch.scratch[:n]
	ch.scores = ch.scores[:n]
}

// topK keeps the k best candidates, sorted; k <= 0 does nothing.
func (ch *chain) topK(k int) {
	if k <= 0 || len(ch.c) == 0 {
		return
	}
	k = min(k, len(ch.c))
	if !ch.sorted {
		top := selectTop(ch.c, k, ch.scratch)
		copy(ch.c, top)
		ch.sorted = true
	}
	ch.c = ch.c[:k]
}

// topP keeps the smallest best-first prefix whose probability mass reaches
// p, and at least minKeep candidates; p >= 1 does nothing.
func (ch *chain) topP(p float32, minKeep int) {
	if p >= 1 || len(ch.c) == 0 {
		return
	}
	softmax(ch.c, ch.sorted)
	if !ch.sorted && len(ch.c) > 1024 && ch.topPBuckets(p, minKeep) {
		return
	}
	if !ch.sorted {
		sortCandidates(ch.c)
		ch.sorted = true
	}
	n, _ := massPrefix(ch.c, p, minKeep)
	ch.c = ch.c[:n]
}

// Bucket layout for topPBuckets: logits fall into buckets of width
// topPBucketWidth below the maximum; the last bucket takes everything
// further down (probability below e^-32 of the best token's).
const (
	topPBuckets     = 128
	topPBucketWidth = 0.25
)

// topPBuckets does top-p on a large unsorted vocabulary without sorting
// all of it: a histogram of probability mass by distance below the best
// logit tells how far down the mass reaches p, and only the candidates
// above that line are sorted. It returns false, leaving the chain as it
// was, when rounding leaves the mass short; the caller then sorts.
func (ch *chain) topPBuckets(p float32, minKeep int) bool {
	c := ch.c
	m := maxLogit(c, false)
	bucket := func(l float32) int {
		d := (m - l) * (1 / topPBucketWidth)
		if !(d < topPBuckets-1) { // also catches -Inf logits
			return topPBuckets - 1
		}
		return int(d)
	}
	var mass [topPBuckets]float64
	var count [topPBuckets]int
	for i := range c {
		b := bucket(c[i].Logit)
		mass[b] += float64(c[i].P)
		count[b]++
	}
	var cum float64
	n, last := 0, topPBuckets-1
	for b := range topPBuckets {
		cum += mass[b]
		n += count[b]
		if cum >= float64(p) && n >= minKeep {
			last = min(b+1, topPBuckets-1) // one bucket more against rounding
			break
		}
	}
	kept := ch.scratch[:0]
	for i := range c {
		if bucket(c[i].Logit) <= last {
			kept = append(kept, c[i])
		}
	}
	sortCandidates(kept)
	k, ok := massPrefix(kept, p, minKeep)
	if !ok && len(kept) < len(c) {
		return false
	}
	copy(c, kept[:k])
	ch.c = c[:k]
	ch.sorted = true
	return true
}

// massPrefix returns the length of the shortest prefix of c whose mass
// reaches p and holds at least minKeep candidates; ok is false when c runs
// out first (then n is len(c)).
func massPrefix(c []Candidate, p float32, minKeep int) (n int, ok bool) {
	var cum float32
	for i := range c {
		cum += c[i].P
		if cum >= p && i+1 >= minKeep {
			return i + 1, true
		}
	}
	return len(c), false
}

// minP drops candidates whose probability is below p times the best one's,
// keeping at least minKeep (and always the best); p <= 0 does nothing.
func (ch *chain) minP(p float32, minKeep int) {
	if p <= 0 || len(ch.c) == 0 {
		return
	}
	// p_i >= p * p_max  <=>  logit_i >= logit_max + ln p
	if !ch.sorted {
		threshold := maxLogit(ch.c, false) + float32(math.Log(float64(p)))
		n := 0
		for i := range ch.c {
			if ch.c[i].Logit >= threshold {
				n++
			}
		}
		if n > 0 && n >= minKeep {
			j := 0
			for i := range ch.c {
				if ch.c[i].Logit >= threshold {
					ch.c[j] = ch.c[i]
					j++
				}
			}
			ch.c = ch.c[:j]
			return
		}
		sortCandidates(ch.c)
		ch.sorted = true
	}
	threshold := ch.c[0].Logit + float32(math.Log(float64(p)))
	i := 1
	for ; i < len(ch.c); i++ {
		if ch.c[i].Logit < threshold && i >= minKeep {
			break
		}
	}
	ch.c = ch.c[:i]
}

type typicalScore struct {
	score float32
	idx   int32
}

func cmpTypical(a, b typicalScore) int {
	switch {
	case a.score < b.score:
		return -1
	case a.score > b.score:
		return 1
	}
	return int(a.idx - b.idx)
}

// typical keeps the locally typical candidates: ordered by how far their
// information content -ln p lies from the entropy, the shortest such
// prefix whose mass exceeds p (Meister et al., as llama.cpp implements it).
// p >= 1 does nothing. The survivors are left in typicality order.
func (ch *chain) typical(p float32, minKeep int) {
	if p >= 1 || len(ch.c) == 0 {
		return
	}
	if !ch.sorted {
		sortCandidates(ch.c)
		ch.sorted = true
	}
	softmax(ch.c, true)
	var entropy float32
	for i := range ch.c {
		if q := ch.c[i].P; q > 0 {
			entropy -= q * float32(math.Log(float64(q)))
		}
	}
	scores := ch.scores[:len(ch.c)]
	for i := range ch.c {
		s := float32(math.Inf(1))
		if q := ch.c[i].P; q > 0 {
			s = float32(math.Abs(float64(-float32(math.Log(float64(q))) - entropy)))
		}
		scores[i] = typicalScore{s, int32(i)}
	}
	slices.SortFunc(scores, cmpTypical)
	n := len(scores)
	var cum float32
	for i := range scores {
		cum += ch.c[scores[i].idx].P
		if cum > p && (minKeep == 0 || i >= minKeep-1) {
			n = i + 1
			break
		}
	}
	out := ch.scratch[:n]
	for i := range out {
		out[i] = ch.c[scores[i].idx]
	}
	copy(ch.c, out)
	ch.c = ch.c[:n]
	ch.sorted = false
}

// temperature divides the logits by t (> 0).
func (ch *chain) temperature(t float32) {
	if t == 1 {
		return
	}
	for i := range ch.c {
		ch.c[i].Logit /= t
	}
}

// best returns the index of the best candidate.
func (ch *chain) best() int {
	if ch.sorted {
		return 0
	}
	b := 0
	for i := 1; i < len(ch.c); i++ {
		if better(ch.c[i], ch.c[b]) {
			b = i
		}
	}
	return b
}

// draw picks a candidate with probability softmax(logits) using u in
// [0, 1), and leaves the normalised probabilities in P. Candidates of
// probability zero are never picked.
func (ch *chain) draw(u float64) int {
	c := ch.c
	m := maxLogit(c, ch.sorted)
	if math.IsInf(float64(m), 1) {
		// A tiny temperature overflowed: the limit is greedy.
		b := ch.best()
		for i := range c {
			c[i].P = 0
		}
		c[b].P = 1
		return b
	}
	var sum float64
	for i := range c {
		p := float32(math.Exp(float64(c[i].Logit - m)))
		c[i].P = p
		sum += float64(p)
	}
	target := sum * u
	picked := -1
	var run float64
	for i := range c {
		run += float64(c[i].P)
		if picked < 0 && run > target && c[i].P > 0 {
			picked = i
		}
		c[i].P = float32(float64(c[i].P) / sum)
	}
	if picked < 0 { // rounding left target out of reach
		picked = ch.best()
	}
	return picked
}
