package scheduler

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkStreams measures the aggregate decode rate of n concurrent
// greedy streams on the tiny model: the gain of continuous batching is
// tokens/s at n streams over tokens/s at 1. On a real model use
// `saji loadtest --model FILE.gguf`.
func BenchmarkStreams(b *testing.B) {
	m, err := tinyModel()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 4, 8, 16} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) {
			s, err := New(m, Config{MaxSeqs: 16, Context: 512})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ps := prompts(7, n, 16, 17, nil)
			const gen = 32
			tokens := 0
			b.ResetTimer()
			for range b.N {
				var chans []<-chan Event
				for _, p := range ps {
					ch, err := s.Submit(context.Background(), Request{Prompt: p, MaxTokens: gen, IgnoreEOS: true})
					if err != nil {
						b.Fatal(err)
					}
					chans = append(chans, ch)
				}
				for _, ch := range chans {
					for ev := range ch {
						if ev.Err != nil {
							b.Fatal(ev.Err)
						}
						if !ev.Done {
							tokens++
						}
					}
				}
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tok/s")
		})
	}
}
