package sample

import (
	"math"
	"strings"
	"testing"
)

func TestLogProbs(t *testing.T) {
	// logits ln(.1) ln(.2) ln(.3) ln(.4) + 7: the log-softmax is ln p
	// whatever the offset.
	probs := []float32{0.1, 0.2, 0.3, 0.4}
	logits := logitsOf(probs)
	for i := range logits {
		logits[i] += 7
	}
	lp, err := NewLogProbs(logits)
	if err != nil {
		t.Fatal(err)
	}
	for id, p := range probs {
		got, err := lp.Of(int32(id))
		if err != nil || math.Abs(float64(got)-math.Log(float64(p))) > 1e-6 {
			t.Errorf("Of(%d) = %v, %v; want %v", id, got, err, math.Log(float64(p)))
		}
	}
	top := lp.Top(3, nil)
	wantIDs := []int32{3, 2, 1}
	for i, w := range wantIDs {
		if top[i].ID != w || math.Abs(float64(top[i].LogProb)-math.Log(float64(probs[w]))) > 1e-6 {
			t.Errorf("Top(3)[%d] = %+v, want id %d", i, top[i], w)
		}
	}
	for _, n := range []int{0, -2} {
		if got := lp.Top(n, nil); len(got) != 0 {
			t.Errorf("Top(%d) = %v", n, got)
		}
	}
	if got := lp.Top(10, make([]TokenLogProb, 0, 16)); len(got) != 4 {
		t.Errorf("Top(10) has %d entries", len(got))
	}
	for _, id := range []int32{-1, 4} {
		if _, err := lp.Of(id); err == nil {
			t.Errorf("Of(%d): no error", id)
		}
	}
}

func TestLogProbsTiesAndLargeVocab(t *testing.T) {
	// Ties rank by id; a banned (-Inf) token has log-probability -Inf.
	logits := []float32{1, 2, 2, float32(math.Inf(-1)), 2, 0}
	lp, err := NewLogProbs(logits)
	if err != nil {
		t.Fatal(err)
	}
	top := lp.Top(6, nil)
	ids := make([]int32, len(top))
	for i := range top {
		ids[i] = top[i].ID
	}
	if !equalIDs(ids, []int32{1, 2, 4, 0, 5, 3}) {
		t.Errorf("order %v", ids)
	}
	if !math.IsInf(float64(top[5].LogProb), -1) {
		t.Errorf("banned token log-prob %v", top[5].LogProb)
	}
	// Probabilities sum to one over a vocabulary with a wide range.
	big := make([]float32, 50000)
	for i := range big {
		big[i] = float32(i%97) * 0.3
	}
	lp, err = NewLogProbs(big)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for id := range big {
		l, _ := lp.Of(int32(id))
		sum += math.Exp(float64(l))
	}
	if math.Abs(sum-1) > 1e-4 {
		t.Errorf("probabilities sum to %v", sum)
	}
}

func TestLogProbsErrors(t *testing.T) {
	for name, logits := range map[string][]float32{
		"empty":   nil,
		"NaN":     {float32(math.NaN())},
		"+Inf":    {0, float32(math.Inf(1))},
		"all-Inf": {float32(math.Inf(-1))},
	} {
		if _, err := NewLogProbs(logits); err == nil || !strings.HasPrefix(err.Error(), "sample: ") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
