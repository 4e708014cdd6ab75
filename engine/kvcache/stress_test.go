package kvcache

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestConcurrentStress runs goroutines that admit, decode, fork and free
// sequences over shared prompts on one pool while another reads Stats and
// checks the invariants; every sequence checks what it reads after every
// step. At the end every block is free or cached.
func TestConcurrentStress(t *testing.T) {
	const (
		workers = 4
		iters   = 150
	)
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 96}, {Blocks: 40, Window: 10}}})
	m := newSim(p)
	systems := [][]int32{seqTokens(1000, 13), seqTokens(2000, 24), seqTokens(3000, 8)}

	var wg sync.WaitGroup
	errc := make(chan error, workers+1)
	done := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			st := p.Stats()
			if u := st.Utilization(); u < 0 || u > 1 {
				errc <- errors.New("utilization out of range")
				return
			}
			if err := p.checkInvariants(); err != nil {
				errc <- err
				return
			}
		}
	})
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			for range iters {
				if err := stressOne(p, m, rng, systems); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(done)
	watcher.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	mustCheck(t, p)
	st := p.Stats()
	for gi, g := range st.Groups {
		if g.Used != 0 || g.Free+g.Cached != g.Total {
			t.Fatalf("group %d after all frees: %+v", gi, g)
		}
	}
	if st.HitTokens == 0 || st.Evictions == 0 {
		t.Fatalf("stress did not exercise the cache: %+v", st)
	}
	t.Logf("hit rate %.2f, %d evictions", st.HitRate(), st.Evictions)
}

// stressOne runs one request: admission, a few decode steps, maybe a fork.
// Running out of blocks ends the request early, as preemption would.
func stressOne(p *Pool, m *sim, rng *rand.Rand, systems [][]int32) error {
	prompt := append([]int32(nil), systems[rng.IntN(len(systems))]...)
	for range rng.IntN(12) {
		prompt = append(prompt, int32(rng.IntN(3)))
	}
	s := p.NewSeq()
	defer p.Free(s)
	if _, err := m.admit(s, prompt); err != nil {
		return tolerate(err)
	}
	var kid *Seq
	kidToks := prompt
	if rng.IntN(3) == 0 {
		kid = p.Fork(s)
		defer p.Free(kid)
	}
	toks := prompt
	for range rng.IntN(10) {
		toks = append(toks[:len(toks):len(toks)], int32(rng.IntN(5)))
		if err := m.step(s, toks); err != nil {
			return tolerate(err)
		}
		if kid != nil {
			kidToks = append(kidToks[:len(kidToks):len(kidToks)], int32(10+rng.IntN(5)))
			if err := m.step(kid, kidToks); err != nil {
				return tolerate(err)
			}
		}
	}
	return nil
}

func tolerate(err error) error {
	if errors.Is(err, ErrNoSpace) {
		return nil
	}
	return err
}
