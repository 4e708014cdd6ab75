package sample

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// plain returns parameters with every filter and penalty off and
// temperature 1, so that tests switch on only what they look at.
func plain() Params {
	return Params{Temperature: 1, TopP: 1, TypicalP: 1, RepeatPenalty: 1, Seed: 42}
}

func mustNew(t testing.TB, p Params) *Sampler {
	t.Helper()
	s, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func logitsOf(probs []float32) []float32 {
	l := make([]float32, len(probs))
	for i, p := range probs {
		l[i] = float32(math.Log(float64(p)))
	}
	return l
}

// finalProbs returns the final probabilities by token id (0 for dropped
// tokens).
func finalProbs(s *Sampler, n int) []float32 {
	out := make([]float32, n)
	for _, c := range s.Final() {
		out[c.ID] = c.P
	}
	return out
}

func TestDefaults(t *testing.T) {
	p := Defaults()
	if p.Temperature != 0.8 || p.TopK != 40 || p.TopP != 0.95 || p.MinP != 0.05 ||
		p.TypicalP != 1 || p.RepeatPenalty != 1 || p.LastN != 64 || p.Seed != -1 {
		t.Errorf("Defaults() = %+v", p)
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
	if err := Greedy().Validate(); err != nil {
		t.Error(err)
	}
}

func TestValidate(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	tests := []struct {
		name string
		edit func(*Params)
		want string // substring of the error; "" for valid
	}{
		{"defaults", func(*Params) {}, ""},
		{"negative temperature is greedy", func(p *Params) { p.Temperature = -1 }, ""},
		{"NaN temperature", func(p *Params) { p.Temperature = nan }, "temperature"},
		{"infinite temperature", func(p *Params) { p.Temperature = inf }, "temperature"},
		{"negative top_k", func(p *Params) { p.TopK = -1 }, "top_k"},
		{"top_p above 1", func(p *Params) { p.TopP = 1.5 }, "top_p"},
		{"top_p negative", func(p *Params) { p.TopP = -0.1 }, "top_p"},
		{"min_p NaN", func(p *Params) { p.MinP = nan }, "min_p"},
		{"typical_p above 1", func(p *Params) { p.TypicalP = 2 }, "typical_p"},
		{"min_keep negative", func(p *Params) { p.MinKeep = -3 }, "min_keep"},
		{"repeat_penalty 0", func(p *Params) { p.RepeatPenalty = 0 }, "repeat_penalty"},
		{"repeat_penalty Inf", func(p *Params) { p.RepeatPenalty = inf }, "repeat_penalty"},
		{"frequency_penalty NaN", func(p *Params) { p.FrequencyPenalty = nan }, "frequency_penalty"},
		{"presence_penalty Inf", func(p *Params) { p.PresencePenalty = -inf }, "presence_penalty"},
		{"negative penalties are fine", func(p *Params) { p.PresencePenalty, p.FrequencyPenalty = -2, -2 }, ""},
		{"last_n -1 is unbounded", func(p *Params) { p.LastN = -1 }, ""},
		{"last_n -2", func(p *Params) { p.LastN = -2 }, "last_n"},
		{"bias negative id", func(p *Params) { p.LogitBias = map[int32]float32{-1: 1} }, "negative token id"},
		{"bias NaN", func(p *Params) { p.LogitBias = map[int32]float32{3: nan} }, "NaN or +Inf"},
		{"bias +Inf", func(p *Params) { p.LogitBias = map[int32]float32{3: inf} }, "NaN or +Inf"},
		{"bias -Inf bans", func(p *Params) { p.LogitBias = map[int32]float32{3: -inf} }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Defaults()
			tt.edit(&p)
			err := p.Validate()
			_, newErr := New(p)
			switch {
			case tt.want == "" && (err != nil || newErr != nil):
				t.Errorf("unexpected error %v / %v", err, newErr)
			case tt.want != "" && (err == nil || newErr == nil):
				t.Errorf("no error, want one about %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("error %q does not mention %q", err, tt.want)
			case tt.want != "" && !strings.HasPrefix(err.Error(), "sample: "):
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
	// Several problems are all reported.
	p := Defaults()
	p.TopK, p.TopP = -1, 2
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "top_k") || !strings.Contains(err.Error(), "top_p") {
		t.Errorf("joined error = %v", err)
	}
}

// Expected values from llama.cpp's tests/test-sampling.cpp: five tokens of
// probability 0.2 and a window of previous tokens.
func TestPenalties(t *testing.T) {
	flat5 := []float32{0.2, 0.2, 0.2, 0.2, 0.2}
	tests := []struct {
		name                string
		window              []int32
		repeat, freq, prsnc float32
		want                []float32
	}{
		{"repeat one", []int32{0}, 50, 0, 0, []float32{0, 0.25, 0.25, 0.25, 0.25}},
		{"repeat three", []int32{0, 1, 2}, 50, 0, 0, []float32{0, 0, 0, 0.5, 0.5}},
		{"repeat counts once", []int32{0, 1, 2, 0, 0}, 50, 0, 0, []float32{0, 0, 0, 0.5, 0.5}},
		{"freq+presence one", []int32{0}, 1, 5, 5, []float32{0.000011, 0.249997, 0.249997, 0.249997, 0.249997}},
		{"freq+presence three", []int32{0, 1, 2}, 1, 5, 5, []float32{0.000023, 0.000023, 0.000023, 0.499966, 0.499966}},
		{"frequency counts", []int32{0, 1, 2, 0, 0}, 1, 5, 5, []float32{0, 0.000023, 0.000023, 0.499977, 0.499977}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plain()
			p.RepeatPenalty, p.FrequencyPenalty, p.PresencePenalty = tt.repeat, tt.freq, tt.prsnc
			p.LastN = len(tt.window)
			s := mustNew(t, p)
			for _, id := range tt.window {
				s.Accept(id)
			}
			if _, err := s.Sample(logitsOf(flat5)); err != nil {
				t.Fatal(err)
			}
			if got := finalProbs(s, 5); !near(got, tt.want, 1e-5) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func finalLogits(s *Sampler, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(math.NaN())
	}
	for _, c := range s.Final() {
		out[c.ID] = c.Logit
	}
	return out
}

func TestRepeatPenaltySign(t *testing.T) {
	p := plain()
	p.RepeatPenalty, p.LastN = 2, 8
	s := mustNew(t, p)
	s.Accept(0)
	s.Accept(1)
	s.Accept(2)
	if _, err := s.Sample([]float32{3, -3, 0, 1}); err != nil {
		t.Fatal(err)
	}
	// positive divided, negative multiplied, zero unchanged, unseen untouched
	if got, want := finalLogits(s, 4), []float32{1.5, -6, 0, 1}; !near(got, want, 0) {
		t.Errorf("logits %v, want %v", got, want)
	}
}

func TestPenaltyWindow(t *testing.T) {
	p := plain()
	p.FrequencyPenalty, p.LastN = 1, 3
	s := mustNew(t, p)
	for _, id := range []int32{0, 1, 1, 2, 3} { // window now 1 2 3
		s.Accept(id)
	}
	if w := s.Window(); !equalIDs(w, []int32{1, 2, 3}) {
		t.Errorf("window %v, want [1 2 3]", w)
	}
	if _, err := s.Sample([]float32{0, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if got, want := finalLogits(s, 5), []float32{0, -1, -1, -1, 0}; !near(got, want, 0) {
		t.Errorf("logits %v, want %v", got, want)
	}

	// Unbounded window: every accepted token counts.
	p.LastN = -1
	s = mustNew(t, p)
	for _, id := range []int32{0, 1, 1, 2, 3} {
		s.Accept(id)
	}
	if _, err := s.Sample([]float32{0, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if got, want := finalLogits(s, 5), []float32{-1, -2, -1, -1, 0}; !near(got, want, 0) {
		t.Errorf("unbounded: logits %v, want %v", got, want)
	}

	// LastN 0 disables penalties; Reset empties the window.
	p.LastN = 0
	s = mustNew(t, p)
	s.Accept(1)
	if _, err := s.Sample([]float32{0, 0}); err != nil {
		t.Fatal(err)
	}
	if got := finalLogits(s, 2); !near(got, []float32{0, 0}, 0) {
		t.Errorf("last_n 0: logits %v", got)
	}
	p.LastN = 4
	s = mustNew(t, p)
	s.Accept(1)
	s.Reset()
	if len(s.Window()) != 0 {
		t.Errorf("window after Reset: %v", s.Window())
	}
}

func TestLogitBias(t *testing.T) {
	inf := float32(math.Inf(-1))
	p := Greedy()
	p.LogitBias = map[int32]float32{0: inf, 2: 10, 99: 5} // 99 is beyond the vocabulary
	s := mustNew(t, p)
	if tok, err := s.Sample([]float32{9, 8, 0}); err != nil || tok != 2 {
		t.Errorf("biased greedy = %d, %v; want 2", tok, err)
	}
	// A banned token is never drawn, whatever the seed.
	p = plain()
	p.LogitBias = map[int32]float32{0: inf}
	s = mustNew(t, p)
	for range 200 {
		if tok, err := s.Sample([]float32{5, 0, 0}); err != nil || tok == 0 {
			t.Fatalf("drew %d, %v", tok, err)
		}
	}
	// Banning everything is an error, not a panic.
	p.LogitBias = map[int32]float32{0: inf, 1: inf, 2: inf}
	s = mustNew(t, p)
	if _, err := s.Sample([]float32{5, 0, 0}); err == nil {
		t.Error("all banned: no error")
	}
	// The caller's map is not shared.
	m := map[int32]float32{1: 2}
	p.LogitBias = m
	s = mustNew(t, p)
	m[1] = 100
	if got := s.Params().LogitBias[1]; got != 2 {
		t.Errorf("Params().LogitBias[1] = %v after the caller changed the map", got)
	}
}

func TestGreedy(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(*Params)
		logits []float32
		want   int32
	}{
		{"argmax", func(*Params) {}, []float32{0.1, 0.7, 0.3}, 1},
		{"ties to lowest id", func(*Params) {}, []float32{1, 3, 3, 2}, 1},
		{"ties with top-k 1", func(p *Params) { p.TopK = 1 }, []float32{1, 3, 3, 2}, 1},
		{"negative temperature", func(p *Params) { p.Temperature = -1 }, []float32{-5, -1, -3}, 1},
		{"defaults at temperature 0", func(p *Params) { *p = Defaults(); p.Temperature = 0 }, []float32{0, 1, 2, 7, 3}, 3},
		{"-Inf logits ignored", func(*Params) {}, []float32{float32(math.Inf(-1)), -100}, 1},
		{"single token", func(*Params) {}, []float32{-3}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Greedy()
			tt.edit(&p)
			s := mustNew(t, p)
			for range 3 { // greedy does not depend on the generator
				tok, err := s.Sample(tt.logits)
				if err != nil || tok != tt.want {
					t.Fatalf("got %d, %v; want %d", tok, err, tt.want)
				}
			}
			if f := s.Final(); len(f) != 1 || f[0].ID != tt.want || f[0].P != 1 {
				t.Errorf("Final() = %+v", f)
			}
		})
	}
}

func TestSampleErrors(t *testing.T) {
	s := mustNew(t, Defaults())
	for name, logits := range map[string][]float32{
		"empty": nil,
		"NaN":   {0, float32(math.NaN())},
		"+Inf":  {float32(math.Inf(1)), 0},
		"-Inf":  {float32(math.Inf(-1)), float32(math.Inf(-1))},
	} {
		if _, err := s.Sample(logits); err == nil || !strings.HasPrefix(err.Error(), "sample: ") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// sequence draws n tokens from s, feeding each back as accepted, over
// logits that change with the step.
func sequence(t *testing.T, s *Sampler, n int) []int32 {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 7))
	logits := randomLogits(r, 500, false)
	var out []int32
	for i := range n {
		logits[i%len(logits)] += 0.5
		tok, err := s.Next(logits)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok)
	}
	return out
}

func TestDeterminism(t *testing.T) {
	p := Defaults()
	p.Seed = 1234
	p.RepeatPenalty, p.FrequencyPenalty = 1.1, 0.2
	a := sequence(t, mustNew(t, p), 100)
	b := sequence(t, mustNew(t, p), 100)
	if !equalIDs(a, b) {
		t.Fatal("the same seed drew different tokens")
	}
	s := mustNew(t, p)
	first := sequence(t, s, 100)
	s.Reset()
	if again := sequence(t, s, 100); !equalIDs(first, again) {
		t.Error("Reset does not restart the sequence")
	}
	p.Seed = 1235
	if c := sequence(t, mustNew(t, p), 100); equalIDs(a, c) {
		t.Error("different seeds drew the same 100 tokens")
	}
	// A random seed is reported, and reproduces its run.
	p.Seed = -1
	r := mustNew(t, p)
	x := sequence(t, r, 50)
	p.Seed = r.Seed()
	if y := sequence(t, mustNew(t, p), 50); p.Seed < 0 || !equalIDs(x, y) {
		t.Errorf("the reported seed %d does not reproduce the run", p.Seed)
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// chiSquare draws n tokens from logits and returns Pearson's statistic
// against the expected probabilities.
func chiSquare(t *testing.T, s *Sampler, logits []float32, want []float64, n int) float64 {
	t.Helper()
	counts := make([]int, len(logits))
	for range n {
		tok, err := s.Sample(logits)
		if err != nil {
			t.Fatal(err)
		}
		counts[tok]++
	}
	var chi float64
	for i, p := range want {
		e := p * float64(n)
		if e == 0 {
			if counts[i] != 0 {
				t.Errorf("token %d drawn %d times, expected never", i, counts[i])
			}
			continue
		}
		d := float64(counts[i]) - e
		chi += d * d / e
	}
	return chi
}

func TestDistribution(t *testing.T) {
	n := 40000
	if testing.Short() {
		n = 8000
	}
	probs := []float32{0.5, 0.25, 0.125, 0.0625, 0.0625}
	// 99.9th percentiles of chi-square: 4 dof 18.47, 2 dof 13.82.
	tests := []struct {
		name  string
		edit  func(*Params)
		want  []float64
		limit float64
	}{
		{"temperature 1", func(*Params) {}, []float64{0.5, 0.25, 0.125, 0.0625, 0.0625}, 18.47},
		// p^(1/2): .7071 .5 .3536 .25 .25, sum 2.0607
		{"temperature 2", func(p *Params) { p.Temperature = 2 }, []float64{0.34314, 0.24264, 0.17157, 0.12132, 0.12132}, 18.47},
		// top-k 3 renormalises .5 .25 .125 over .875
		{"top-k 3", func(p *Params) { p.TopK = 3 }, []float64{4.0 / 7, 2.0 / 7, 1.0 / 7, 0, 0}, 13.82},
		// min-p 0.2 drops p < 0.1
		{"min-p 0.2", func(p *Params) { p.MinP = 0.2 }, []float64{4.0 / 7, 2.0 / 7, 1.0 / 7, 0, 0}, 13.82},
		// top-p 0.7 keeps .5 .25
		{"top-p 0.7", func(p *Params) { p.TopP = 0.7 }, []float64{2.0 / 3, 1.0 / 3, 0, 0, 0}, 10.83},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plain()
			p.Seed = 20260101
			tt.edit(&p)
			s := mustNew(t, p)
			if chi := chiSquare(t, s, logitsOf(probs), tt.want, n); chi > tt.limit {
				t.Errorf("chi-square %.2f over %d draws exceeds %.2f", chi, n, tt.limit)
			}
		})
	}
}

func TestFinalTop(t *testing.T) {
	s := mustNew(t, plain())
	if _, err := s.Sample(logitsOf([]float32{0.1, 0.4, 0.2, 0.3})); err != nil {
		t.Fatal(err)
	}
	top := s.FinalTop(2, nil)
	if len(top) != 2 || top[0].ID != 1 || top[1].ID != 3 || math.Abs(float64(top[0].P-0.4)) > 1e-6 {
		t.Errorf("FinalTop(2) = %+v", top)
	}
	if all := s.FinalTop(10, nil); len(all) != 4 {
		t.Errorf("FinalTop(10) has %d entries", len(all))
	}
	if none := s.FinalTop(-1, nil); len(none) != 0 {
		t.Errorf("FinalTop(-1) = %+v", none)
	}
}

func TestSampleDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	logits := randomLogits(r, 4096, false)
	for name, edit := range map[string]func(*Params){
		"defaults":  func(*Params) {},
		"top-p":     func(p *Params) { p.TopK = 0 },
		"typical":   func(p *Params) { p.TypicalP = 0.9 },
		"greedy":    func(p *Params) { p.Temperature = 0 },
		"penalties": func(p *Params) { p.RepeatPenalty, p.PresencePenalty = 1.2, 0.5 },
	} {
		p := Defaults()
		p.Seed = 1
		p.LogitBias = map[int32]float32{5: 1}
		edit(&p)
		s := mustNew(t, p)
		for i := range int32(100) {
			s.Accept(i)
		}
		if _, err := s.Sample(logits); err != nil { // warm-up
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(20, func() { _, _ = s.Sample(logits) }); a != 0 {
			t.Errorf("%s: %v allocations per Sample", name, a)
		}
	}
}
