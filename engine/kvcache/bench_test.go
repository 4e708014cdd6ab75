package kvcache

import (
	"fmt"
	"testing"
)

// BenchmarkMatch measures admitting a prompt whose first 2048 tokens are
// cached (a long system prompt), with and without a sliding group, and a
// prompt that misses.
func BenchmarkMatch(b *testing.B) {
	for _, bc := range []struct {
		name   string
		groups []GroupSpec
		hit    bool
	}{
		{"full/hit", []GroupSpec{{Blocks: 1024}}, true},
		{"full+sliding/hit", []GroupSpec{{Blocks: 1024}, {Blocks: 1024, Window: 512}}, true},
		{"full/miss", []GroupSpec{{Blocks: 1024}}, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := mustPool(b, Options{Groups: bc.groups})
			system := seqTokens(0, 2048)
			s := p.NewSeq()
			if _, err := p.Reserve(s, 0, len(system)); err != nil {
				b.Fatal(err)
			}
			if err := p.Commit(s, system); err != nil {
				b.Fatal(err)
			}
			p.Free(s)
			prompt := cat(system, seqTokens(5000, 40))
			if !bc.hit {
				prompt = seqTokens(9000, len(prompt))
			}
			b.SetBytes(int64(4 * len(prompt)))
			b.ResetTimer()
			for b.Loop() {
				s := p.NewSeq()
				n, _ := p.Match(s, prompt)
				if bc.hit != (n == len(system)) {
					b.Fatal(fmt.Sprint("matched ", n))
				}
				p.Free(s)
			}
		})
	}
}
