package sample

import (
	"math/rand/v2"
	"testing"
)

const benchVocab = 128 * 1024

// benchLogits looks like a language model's output: mostly small values
// with a few hundred plausible tokens well above them.
func benchLogits() []float32 {
	r := rand.New(rand.NewPCG(11, 12))
	l := make([]float32, benchVocab)
	for i := range l {
		l[i] = float32(r.NormFloat64() * 2)
	}
	for range 300 {
		l[r.IntN(benchVocab)] += 8 + float32(r.NormFloat64())
	}
	return l
}

func BenchmarkSample128k(b *testing.B) {
	logits := benchLogits()
	for _, bc := range []struct {
		name string
		edit func(*Params)
	}{
		{"defaults", func(*Params) {}},
		{"greedy", func(p *Params) { *p = Greedy() }},
		{"greedy-defaults", func(p *Params) { p.Temperature = 0 }},
		{"top-p-only", func(p *Params) { p.TopK, p.MinP = 0, 0 }},
		{"min-p-only", func(p *Params) { p.TopK, p.TopP = 0, 1 }},
		{"no-filters", func(p *Params) { p.TopK, p.TopP, p.MinP = 0, 1, 0 }},
		{"penalties", func(p *Params) { p.RepeatPenalty, p.FrequencyPenalty, p.PresencePenalty = 1.1, 0.1, 0.1 }},
		{"typical", func(p *Params) { p.TypicalP = 0.9 }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := Defaults()
			p.Seed = 1
			bc.edit(&p)
			s := mustNew(b, p)
			for i := range int32(64) {
				s.Accept(i * 997)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Sample(logits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLogProbs128k(b *testing.B) {
	logits := benchLogits()
	dst := make([]TokenLogProb, 0, 20)
	b.ReportAllocs()
	for b.Loop() {
		lp, err := NewLogProbs(logits)
		if err != nil {
			b.Fatal(err)
		}
		dst = lp.Top(20, dst)
	}
}

func BenchmarkStopMatcher(b *testing.B) {
	pieces := []string{"The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".", "\n"}
	m, err := NewStopMatcher([]string{"</s>", "\n\nUser:", "<|im_end|>"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pieces {
			m.Push(p)
		}
		m.Flush()
	}
}
