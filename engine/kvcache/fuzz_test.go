package kvcache

import (
	"errors"
	"testing"
)

// FuzzPool drives a small pool through random sequences of operations
// read from the input and checks, after every one, the pool's invariants
// and that every live sequence reads the KV its tokens say.
func FuzzPool(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 1, 3, 5, 0, 9, 0, 1, 1, 1, 2, 0, 3, 1})
	f.Add([]byte{3, 1, 2, 0, 4, 0, 1, 0, 4, 1, 1, 1, 1, 2, 0, 2, 1, 1, 1, 1, 4, 2, 3, 1})
	f.Add([]byte{1, 2, 7, 0, 0, 0, 16, 0, 1, 0, 16, 0, 2, 0, 1, 1, 2, 1, 3, 0, 0, 2, 16})
	f.Add([]byte{4, 3, 0, 0, 8, 0, 0, 1, 8, 5, 0, 2, 0, 3, 4, 1, 1, 1, 2, 1, 0, 2, 3, 3})
	f.Add([]byte{2, 0, 1, 0, 0, 20, 5, 1, 0, 20, 4, 0, 0, 2, 0, 1, 3, 3, 2, 5, 1, 0, 8, 1, 1})
	f.Fuzz(runOps)
}

// runOps interprets data as a pool configuration and a list of
// operations; see FuzzPool.
func runOps(t *testing.T, data []byte) {
	if len(data) < 3 {
		return
	}
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	bs := 1 + next()%5
	mode := next()
	window := next() % 12
	opts := Options{
		BlockSize:     bs,
		Groups:        []GroupSpec{{Blocks: 4 + mode%8}},
		NoPrefixCache: mode&0x80 != 0,
	}
	if window > 0 {
		opts.Groups = append(opts.Groups, GroupSpec{Blocks: 3 + (mode>>3)%6, Window: window})
	}
	p := mustPool(t, opts)
	if mode&0x40 != 0 { // collide: blocks hash to the sum of their tokens mod 3
		p.hashFn = func(toks []int32) uint64 {
			var s uint64
			for _, t := range toks {
				s += uint64(t)
			}
			return s % 3
		}
	}
	m := newSim(p)
	const slots = 4
	var seqs [slots]*Seq
	var toks [slots][]int32
	free := func(i int) {
		p.Free(seqs[i])
		seqs[i], toks[i] = nil, nil
	}
	// tokens returns a prompt: one of two shared stems, cut, then a
	// short tail from a tiny alphabet.
	tokens := func() []int32 {
		stem := seqTokens(100*(next()%2), 3*bs)
		out := append([]int32(nil), stem[:next()%len(stem)+1]...)
		for range next() % 4 {
			out = append(out, int32(next()%2))
		}
		return out
	}
	for len(data) > 0 {
		op, i := next()%6, next()%slots
		switch op {
		case 0: // admit
			if seqs[i] != nil {
				free(i)
			}
			seqs[i] = p.NewSeq()
			toks[i] = tokens()
			n, err := m.admit(seqs[i], toks[i])
			switch {
			case errors.Is(err, ErrNoSpace) || errors.Is(err, ErrTooLarge):
				toks[i] = toks[i][:n] // Reserve kept the match as it was
			case err != nil:
				t.Fatal(err)
			}
			if n >= len(toks[i]) && len(toks[i]) > 0 && err == nil {
				t.Fatalf("match of %d covers the whole prompt", n)
			}
		case 1, 2: // decode one or a few tokens
			if seqs[i] == nil {
				continue
			}
			nt := append(toks[i][:len(toks[i]):len(toks[i])], int32(next()%3))
			if op == 2 {
				nt = append(nt, int32(next()%3), int32(next()%3))
			}
			if err := m.step(seqs[i], nt); err != nil {
				if !errors.Is(err, ErrNoSpace) && !errors.Is(err, ErrTooLarge) {
					t.Fatal(err)
				}
				continue
			}
			toks[i] = nt
		case 3: // fork into the next slot
			j := (i + 1) % slots
			if seqs[i] == nil {
				continue
			}
			if seqs[j] != nil {
				free(j)
			}
			seqs[j], toks[j] = p.Fork(seqs[i]), toks[i]
		case 4: // free
			if seqs[i] != nil {
				free(i)
			}
		case 5: // reserve ahead without writing
			if seqs[i] == nil {
				continue
			}
			n := seqs[i].Len()
			cs, err := p.Reserve(seqs[i], n, n+next()%(2*bs))
			if err != nil && !errors.Is(err, ErrNoSpace) && !errors.Is(err, ErrTooLarge) {
				t.Fatal(err)
			}
			m.copy(cs)
		}
		if err := p.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		for k, s := range seqs {
			if s != nil {
				if err := m.verify(s, toks[k]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for i := range seqs {
		if seqs[i] != nil {
			free(i)
		}
	}
	if err := p.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	for gi, g := range p.Stats().Groups {
		if g.Used != 0 {
			t.Fatalf("group %d: %d blocks held after every sequence was freed", gi, g.Used)
		}
	}
}
