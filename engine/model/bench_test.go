package model

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"saji/engine/gguf"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// benchModels are measured by the benchmarks (go test -bench . -run ^$).
var benchModels = []string{
	"stories260K.gguf", "tiny-llama-spm-f32.gguf", "tiny-llama-spm-f16.gguf",
	"tiny-llama-spm-q8_0.gguf", "tiny-llama-spm-q4_k_m.gguf", "tiny-qwen3-q4_k_m.gguf", "tiny-gemma3-q4_0.gguf",
}

func benchLoad(b *testing.B, file string) Model {
	b.Helper()
	f, err := gguf.Open(filepath.Join(refdata.Dir(b), "models", file))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	m, err := Load(context.Background(), f, Options{Threads: runtime.GOMAXPROCS(0)})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkPrompt measures prompt processing: 128 tokens in one batch.
func BenchmarkPrompt(b *testing.B) {
	const n = 128
	for _, file := range benchModels {
		b.Run(file, func(b *testing.B) {
			m := benchLoad(b, file)
			cache, err := m.NewCache(n, quant.TypeF32)
			if err != nil {
				b.Fatal(err)
			}
			tokens, pos := make([]int32, n), make([]int32, n)
			for i := range tokens {
				tokens[i], pos[i] = int32(1+i*7%(m.Config().Vocab-1)), int32(i)
			}
			b.ResetTimer()
			for b.Loop() {
				cache.Reset()
				if _, err := m.Forward(context.Background(), tokens, pos, cache, false); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkGenerate measures generation: 64 tokens decoded one at a time
// through the cache.
func BenchmarkGenerate(b *testing.B) {
	const n = 64
	for _, file := range benchModels {
		b.Run(file, func(b *testing.B) {
			m := benchLoad(b, file)
			cache, err := m.NewCache(n, quant.TypeF32)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				cache.Reset()
				for i := range n {
					if _, err := m.Forward(context.Background(), []int32{int32(1 + i)}, []int32{int32(i)}, cache, false); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
