package sample

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// chainOf builds a chain over logits ln(p) for the given probabilities, as
// llama.cpp's sampler tests do.
func chainOf(probs []float32) *chain {
	ch := &chain{}
	ch.grow(len(probs))
	ch.c = make([]Candidate, len(probs))
	for i, p := range probs {
		ch.c[i] = Candidate{ID: int32(i), Logit: float32(math.Log(float64(p)))}
	}
	return ch
}

// survivors renormalises what is left and returns its probabilities in the
// chain's current order.
func survivors(ch *chain) []float32 {
	softmax(ch.c, ch.sorted)
	out := make([]float32, len(ch.c))
	for i := range ch.c {
		out[i] = ch.c[i].P
	}
	return out
}

func near(a, b []float32, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol {
			return false
		}
	}
	return true
}

var flat4 = []float32{0.1, 0.2, 0.3, 0.4}

// The expected values are those of llama.cpp's tests/test-sampling.cpp.
func TestFilters(t *testing.T) {
	tests := []struct {
		name  string
		probs []float32
		apply func(*chain)
		want  []float32
	}{
		{"top-k 1", flat4, func(c *chain) { c.topK(1) }, []float32{1}},
		{"top-k 3", flat4, func(c *chain) { c.topK(3) }, []float32{0.44444, 0.33333, 0.22222}},
		{"top-k 4", flat4, func(c *chain) { c.topK(4) }, []float32{0.4, 0.3, 0.2, 0.1}},
		{"top-k 0 is off", flat4, func(c *chain) { c.topK(0) }, []float32{0.1, 0.2, 0.3, 0.4}},
		{"top-k beyond vocab", flat4, func(c *chain) { c.topK(10) }, []float32{0.4, 0.3, 0.2, 0.1}},
		{"top-p 0", flat4, func(c *chain) { c.topP(0, 0) }, []float32{1}},
		{"top-p 0.7", flat4, func(c *chain) { c.topP(0.7, 0) }, []float32{0.571429, 0.428571}},
		{"top-p 0.8", flat4, func(c *chain) { c.topP(0.8, 0) }, []float32{0.44444, 0.33333, 0.22222}},
		{"top-p 1 is off", flat4, func(c *chain) { c.topP(1, 0) }, []float32{0.1, 0.2, 0.3, 0.4}},
		{"top-p min_keep 3", flat4, func(c *chain) { c.topP(0.1, 3) }, []float32{0.44444, 0.33333, 0.22222}},
		{"min-p 0 is off", flat4, func(c *chain) { c.minP(0, 0) }, []float32{0.1, 0.2, 0.3, 0.4}},
		{"min-p 0.24", flat4, func(c *chain) { c.minP(0.24, 0) }, []float32{0.1, 0.2, 0.3, 0.4}},
		{"min-p 0.26", flat4, func(c *chain) { c.minP(0.26, 0) }, []float32{0.2 / 0.9, 0.3 / 0.9, 0.4 / 0.9}},
		{"min-p 0.49", flat4, func(c *chain) { c.minP(0.49, 0) }, []float32{0.2 / 0.9, 0.3 / 0.9, 0.4 / 0.9}},
		{"min-p 0.51", flat4, func(c *chain) { c.minP(0.51, 0) }, []float32{0.3 / 0.7, 0.4 / 0.7}},
		{"min-p 0.74", flat4, func(c *chain) { c.minP(0.74, 0) }, []float32{0.3 / 0.7, 0.4 / 0.7}},
		{"min-p 0.76", flat4, func(c *chain) { c.minP(0.76, 0) }, []float32{1}},
		{"min-p 1", flat4, func(c *chain) { c.minP(1, 0) }, []float32{1}},
		{"min-p 1.05", flat4, func(c *chain) { c.minP(1.05, 0) }, []float32{1}},
		{"min-p min_keep 2", flat4, func(c *chain) { c.minP(0.9, 2) }, []float32{0.4 / 0.7, 0.3 / 0.7}},
		{"typical 0.5 peaked", []float32{0.97, 0.01, 0.01, 0.01}, func(c *chain) { c.typical(0.5, 0) }, []float32{1}},
		{"typical 0.5 flat", []float32{0.4, 0.2, 0.2, 0.2}, func(c *chain) { c.typical(0.5, 0) }, []float32{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{"typical 1 is off", []float32{0.4, 0.2, 0.2, 0.2}, func(c *chain) { c.typical(1, 0) }, []float32{0.4, 0.2, 0.2, 0.2}},
		{"temperature 1", flat4, func(c *chain) { c.temperature(1) }, []float32{0.1, 0.2, 0.3, 0.4}},
		// p^(1/2) normalised: sqrt(.1),sqrt(.2),sqrt(.3),sqrt(.4) over their sum
		{"temperature 2", flat4, func(c *chain) { c.temperature(2) }, []float32{0.16270, 0.23009, 0.28181, 0.32540}},
		// p^2 normalised: .01,.04,.09,.16 over .30
		{"temperature 0.5", flat4, func(c *chain) { c.temperature(0.5) }, []float32{0.01 / 0.3, 0.04 / 0.3, 0.09 / 0.3, 0.16 / 0.3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := chainOf(tt.probs)
			tt.apply(ch)
			if got := survivors(ch); !near(got, tt.want, 1e-4) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTypicalKeepsTypicalOrder(t *testing.T) {
	// Entropy of {0.4, 0.2, 0.2, 0.2} is about 1.33; -ln 0.2 = 1.61 is
	// closer to it than -ln 0.4 = 0.92, so the three 0.2 tokens come first,
	// lowest id first, and the 0.4 token is dropped.
	ch := chainOf([]float32{0.4, 0.2, 0.2, 0.2})
	ch.typical(0.5, 0)
	var ids []int32
	for _, c := range ch.c {
		ids = append(ids, c.ID)
	}
	if !slices.Equal(ids, []int32{1, 2, 3}) {
		t.Errorf("ids %v, want [1 2 3]", ids)
	}
	// min_keep forces the fourth one in.
	ch = chainOf([]float32{0.4, 0.2, 0.2, 0.2})
	ch.typical(0.1, 4)
	if len(ch.c) != 4 {
		t.Errorf("min_keep 4 kept %d", len(ch.c))
	}
}

func randomLogits(r *rand.Rand, n int, ties bool) []float32 {
	l := make([]float32, n)
	for i := range l {
		if ties {
			l[i] = float32(r.IntN(8)) // many equal values
		} else {
			l[i] = float32(r.NormFloat64() * 3)
		}
	}
	return l
}

func candidatesOf(logits []float32) []Candidate {
	c := make([]Candidate, len(logits))
	for i, l := range logits {
		c[i] = Candidate{ID: int32(i), Logit: l}
	}
	return c
}

// selectTop must agree with a full sort, ties included.
func TestSelectTopMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 100, 3000} {
		for _, ties := range []bool{false, true} {
			logits := randomLogits(r, n, ties)
			full := candidatesOf(logits)
			sortCandidates(full)
			for _, k := range []int{1, 2, 5, 40, n / 2, n, n + 3} {
				c := candidatesOf(logits)
				got := selectTop(c, k, make([]Candidate, n))
				if want := full[:min(k, n)]; !slices.Equal(got, want) {
					t.Fatalf("n %d k %d ties %v: selectTop differs from sort", n, k, ties)
				}
			}
		}
	}
}

// The bucket shortcut of top-p must give what sorting everything gives,
// for peaked and flat distributions, with min_keep and with banned tokens.
func TestTopPShortcut(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, scale := range []float64{10, 1, 0.01} {
		for _, banned := range []bool{false, true} {
			logits := make([]float32, 5000)
			for i := range logits {
				logits[i] = float32(r.NormFloat64() * scale)
				if banned && i%3 == 0 {
					logits[i] = float32(math.Inf(-1))
				}
			}
			for _, p := range []float32{0, 0.1, 0.5, 0.95, 0.999, 0.9999999} {
				for _, minKeep := range []int{0, 300} {
					fast := &chain{c: candidatesOf(logits)}
					fast.grow(len(logits))
					fast.topP(p, minKeep)
					// The reference: the same softmax (float32 sums depend on
					// the order), then a full sort.
					slow := &chain{c: candidatesOf(logits)}
					softmax(slow.c, false)
					sortCandidates(slow.c)
					n, _ := massPrefix(slow.c, p, minKeep)
					slow.c = slow.c[:n]
					if len(fast.c) != len(slow.c) {
						t.Fatalf("scale %v banned %v p %v min_keep %d: kept %d, want %d", scale, banned, p, minKeep, len(fast.c), len(slow.c))
					}
					for i := range fast.c {
						if fast.c[i].ID != slow.c[i].ID {
							t.Fatalf("scale %v p %v: survivor %d is %d, want %d", scale, p, i, fast.c[i].ID, slow.c[i].ID)
						}
					}
				}
			}
		}
	}
}

func TestDrawNeverPicksZeroProbability(t *testing.T) {
	inf := float32(math.Inf(-1))
	for _, u := range []float64{0, 1e-300, 0.5, math.Nextafter(1, 0)} {
		ch := &chain{c: candidatesOf([]float32{inf, 0, inf, 0, inf})}
		i := ch.draw(u)
		if id := ch.c[i].ID; id != 1 && id != 3 {
			t.Errorf("u %v drew banned token %d", u, id)
		}
	}
	// An overflowing temperature falls back to the best token.
	ch := &chain{c: candidatesOf([]float32{1, float32(math.Inf(1)), 2})}
	if i := ch.draw(0.9); ch.c[i].ID != 1 || ch.c[i].P != 1 {
		t.Errorf("+Inf logit: drew %+v", ch.c[i])
	}
}
