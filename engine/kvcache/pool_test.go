package kvcache

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestNewValidation(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		ok   bool
	}{
		{"default block size", Options{Groups: []GroupSpec{{Blocks: 4}}}, true},
		{"two groups", Options{BlockSize: 8, Groups: []GroupSpec{{Blocks: 4}, {Blocks: 2, Window: 16}}}, true},
		{"no groups", Options{}, false},
		{"negative block size", Options{BlockSize: -1, Groups: []GroupSpec{{Blocks: 4}}}, false},
		{"no blocks", Options{Groups: []GroupSpec{{Blocks: 0}}}, false},
		{"negative window", Options{Groups: []GroupSpec{{Blocks: 1, Window: -1}}}, false},
		{"cell index overflow", Options{BlockSize: 1 << 16, Groups: []GroupSpec{{Blocks: 1 << 16}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.opts)
			if (err == nil) != tt.ok {
				t.Fatalf("New: err = %v, want ok %v", err, tt.ok)
			}
			if err == nil && tt.opts.BlockSize == 0 && p.BlockSize() != DefaultBlockSize {
				t.Fatalf("BlockSize = %d", p.BlockSize())
			}
		})
	}
}

func TestAllocateAndRelease(t *testing.T) {
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 8}}})
	m := newSim(p)
	s := p.NewSeq()
	toks := seqTokens(100, 10)
	if err := m.step(s, toks); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 10 {
		t.Fatalf("Len = %d", s.Len())
	}
	cells := p.Cells(s, 0, 10, nil)
	want := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9} // blocks 0, 1, 2 in order
	if !slices.Equal(cells, want) {
		t.Fatalf("cells = %v, want %v", cells, want)
	}
	if got := p.FreeBlocks(0); got != 5 {
		t.Fatalf("FreeBlocks = %d, want 5", got)
	}
	st := p.Stats()
	if g := st.Groups[0]; g != (GroupStats{Total: 8, Used: 3, Cached: 0, Free: 5}) {
		t.Fatalf("stats before commit of full blocks: %+v", g)
	}
	// Decode two tokens: the third block fills up.
	toks = append(toks, 110, 111)
	if err := m.step(s, toks); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, p)
	st = p.Stats()
	if st.StoredTokens != 12 || st.CapacityTokens != 12 {
		t.Fatalf("stored %d of %d", st.StoredTokens, st.CapacityTokens)
	}
	p.Free(s)
	p.Free(s) // idempotent
	mustCheck(t, p)
	st = p.Stats()
	if g := st.Groups[0]; g != (GroupStats{Total: 8, Used: 0, Cached: 3, Free: 5}) {
		t.Fatalf("stats after free: %+v", g)
	}
	if got := p.FreeBlocks(0); got != 8 {
		t.Fatalf("FreeBlocks after free = %d, want 8", got)
	}
	if got := p.Cells(s, 0, 3, nil); len(got) != 0 {
		t.Fatalf("cells of a freed sequence: %v", got)
	}
}

func TestNoPrefixCache(t *testing.T) {
	p := mustPool(t, Options{BlockSize: 4, NoPrefixCache: true, Groups: []GroupSpec{{Blocks: 8}}})
	m := newSim(p)
	toks := seqTokens(0, 12)
	a := p.NewSeq()
	if err := m.step(a, toks); err != nil {
		t.Fatal(err)
	}
	p.Free(a)
	mustCheck(t, p)
	if g := p.Stats().Groups[0]; g.Free != 8 || g.Cached != 0 {
		t.Fatalf("blocks not freed at once: %+v", g)
	}
	b := p.NewSeq()
	if n, cs := p.Match(b, cat(toks, seqTokens(50, 3))); n != 0 || cs != nil {
		t.Fatalf("Match without prefix cache = %d, %v", n, cs)
	}
}

func TestPrefixReuse(t *testing.T) {
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 16}}, Seed: 7})
	m := newSim(p)
	system := seqTokens(1000, 10) // two full blocks and two tokens
	a := p.NewSeq()
	if n, err := m.admit(a, cat(system, seqTokens(1, 5))); err != nil || n != 0 {
		t.Fatalf("first admission: n = %d, err = %v", n, err)
	}
	// Second sequence while the first is still live: shares its blocks.
	b := p.NewSeq()
	bt := cat(system, seqTokens(2, 7))
	n, err := m.admit(b, bt)
	if err != nil || n != 8 {
		t.Fatalf("second admission: n = %d, err = %v; want 8", n, err)
	}
	ca, cb := p.Cells(a, 0, 8, nil), p.Cells(b, 0, 8, nil)
	if !slices.Equal(ca, cb) {
		t.Fatalf("shared prefix in different cells: %v vs %v", ca, cb)
	}
	mustCheck(t, p)
	st := p.Stats()
	if st.QueryTokens != 15+17 || st.HitTokens != 8 {
		t.Fatalf("query %d hit %d", st.QueryTokens, st.HitTokens)
	}
	if got, want := st.HitRate(), 8.0/32; got != want {
		t.Fatalf("HitRate = %v, want %v", got, want)
	}
	// After both are freed the blocks stay cached and a third sequence
	// finds the whole of b's full blocks.
	p.Free(a)
	p.Free(b)
	c := p.NewSeq()
	n, err = m.admit(c, cat(bt, seqTokens(3, 2)))
	if err != nil || n != 16 {
		t.Fatalf("third admission: n = %d, err = %v; want 16", n, err)
	}
	mustCheck(t, p)
}

func TestChainHash(t *testing.T) {
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 16}}})
	m := newSim(p)
	x, y, z := seqTokens(10, 4), seqTokens(20, 4), seqTokens(30, 4)
	a := p.NewSeq()
	if _, err := m.admit(a, cat(x, y, x)); err != nil {
		t.Fatal(err)
	}
	p.Free(a)
	tests := []struct {
		name   string
		prompt []int32
		want   int
	}{
		{"same block after another prefix", cat(z, y, x), 0},
		{"first block shared only", cat(x, z, x), 4},
		{"block repeated at another position", cat(x, x, y), 4},
		{"whole chain", cat(x, y, x, z), 12},
		{"shorter than a block", x[:3], 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := p.NewSeq()
			defer p.Free(s)
			n, err := m.admit(s, tt.prompt)
			if err != nil || n != tt.want {
				t.Fatalf("n = %d, err = %v; want %d", n, err, tt.want)
			}
			mustCheck(t, p)
		})
	}
}

// TestCollision forces every block into a handful of hash values: a hit
// must still never serve another prefix's blocks.
func TestCollision(t *testing.T) {
	for _, name := range []string{"constant", "sum"} {
		t.Run(name, func(t *testing.T) {
			p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 32}}})
			switch name {
			case "constant":
				p.hashFn = func([]int32) uint64 { return 1 }
			case "sum": // ignores the order of tokens
				p.hashFn = func(toks []int32) uint64 {
					var s uint64
					for _, t := range toks {
						s += uint64(t)
					}
					return s
				}
			}
			m := newSim(p)
			x, y := seqTokens(10, 4), seqTokens(20, 4)
			xr := []int32{13, 12, 11, 10} // same sum as x
			a := p.NewSeq()
			if _, err := m.admit(a, cat(x, y, seqTokens(0, 1))); err != nil {
				t.Fatal(err)
			}
			tests := []struct {
				prompt []int32
				max    int
			}{
				{cat(xr, y, seqTokens(0, 1)), 0},
				{cat(y, x, seqTokens(0, 1)), 0},
				{cat(x, xr, seqTokens(0, 1)), 4},
				{cat(x, y, seqTokens(0, 1)), 8},
				// The first prompt's blocks sit below a colliding node:
				// they must not be served after x.
				{cat(xr, y, seqTokens(0, 1)), 0},
				{cat(x, y, seqTokens(5, 1)), 8},
			}
			for _, tt := range tests {
				s := p.NewSeq()
				n, err := m.admit(s, tt.prompt)
				if err != nil {
					t.Fatal(err)
				}
				if n > tt.max {
					t.Fatalf("prompt %v matched %d, at most %d is right", tt.prompt, n, tt.max)
				}
				mustCheck(t, p)
				// Keep s live so its private blocks with colliding hashes
				// stay around next to the cached ones.
			}
		})
	}
}

func TestCopyOnWriteFork(t *testing.T) {
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 8}}})
	m := newSim(p)
	prompt := seqTokens(0, 6)
	a := p.NewSeq()
	if err := m.step(a, prompt); err != nil {
		t.Fatal(err)
	}
	b := p.Fork(a)
	if b.Len() != 6 {
		t.Fatalf("fork Len = %d", b.Len())
	}
	mustCheck(t, p)
	if g := p.Stats().Groups[0]; g.Used != 2 {
		t.Fatalf("fork allocated blocks: %+v", g)
	}
	// Neither may commit past its length without reserving again.
	if err := p.Commit(a, cat(prompt, []int32{1})); err == nil {
		t.Fatal("commit into a shared block without Reserve succeeded")
	}
	at, bt := cat(prompt, []int32{100}), cat(prompt, []int32{200})
	for _, c := range []struct {
		s    *Seq
		toks []int32
		copy bool
	}{{a, at, true}, {b, bt, false}} {
		before := p.Cells(c.s, 0, 8, nil)
		cs, err := p.Reserve(c.s, 6, 7)
		if err != nil {
			t.Fatal(err)
		}
		// The first writer copies the shared block; the second finds it
		// private again.
		if got := len(cs) == 1; got != c.copy {
			t.Fatalf("seq %d: copies %v", c.s.ID(), cs)
		}
		if c.copy && (cs[0].Src != before[4]/4 || cs[0].Dst == cs[0].Src) {
			t.Fatalf("copy %+v of block %d", cs[0], before[4]/4)
		}
		m.copy(cs)
		if err := m.write(c.s, c.toks, 6); err != nil {
			t.Fatal(err)
		}
		if err := p.Commit(c.s, c.toks); err != nil {
			t.Fatal(err)
		}
		mustCheck(t, p)
	}
	for _, c := range []struct {
		s    *Seq
		toks []int32
	}{{a, at}, {b, bt}} {
		if err := m.verify(c.s, c.toks); err != nil {
			t.Fatal(err)
		}
	}
	if ca, cb := p.Cells(a, 0, 7, nil), p.Cells(b, 0, 7, nil); ca[0] != cb[0] || ca[4] == cb[4] {
		t.Fatalf("cells after divergence: %v, %v", ca, cb)
	}
	p.Free(a)
	p.Free(b)
	mustCheck(t, p)
}

func TestCopyOnWriteFullMatch(t *testing.T) {
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 8}}})
	m := newSim(p)
	prompt := seqTokens(0, 8)
	a := p.NewSeq()
	if err := m.step(a, prompt); err != nil {
		t.Fatal(err)
	}
	src := p.Cells(a, 0, 8, nil)[4] / 4
	b := p.NewSeq()
	n, cs := p.Match(b, prompt)
	if n != 7 || len(cs) != 1 || cs[0].Src != src || cs[0].Group != 0 {
		t.Fatalf("Match = %d, %+v; want 7 and a copy of block %d", n, cs, src)
	}
	m.copy(cs)
	mustCheck(t, p)
	// The source stays pinned until b commits, even when a lets go.
	p.Free(a)
	if g := p.Stats().Groups[0]; g.Used != 3 || g.Cached != 0 {
		t.Fatalf("source not pinned: %+v", g)
	}
	if err := m.verify(b, prompt[:7]); err != nil {
		t.Fatal(err)
	}
	if err := m.step(b, prompt); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, p)
	// b's last block is a private twin of the cached one: the index keeps
	// the first.
	if got := p.Stats().Groups[0]; got.Used != 2 || got.Cached != 1 {
		t.Fatalf("after commit: %+v", got)
	}
	p.Free(b)
	mustCheck(t, p)
}

func TestCopyOnWriteBackOff(t *testing.T) {
	// Two blocks in all: a fully cached 8-token prompt leaves no block for
	// the copy, so the match backs off to the first block.
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 2}}})
	m := newSim(p)
	prompt := seqTokens(0, 8)
	a := p.NewSeq()
	if err := m.step(a, prompt); err != nil {
		t.Fatal(err)
	}
	p.Free(a)
	b := p.NewSeq()
	n, cs := p.Match(b, prompt)
	if n != 4 || cs != nil {
		t.Fatalf("Match = %d, %v; want 4 and no copy", n, cs)
	}
	mustCheck(t, p)
	if err := m.verify(b, prompt[:4]); err != nil {
		t.Fatal(err)
	}
	if err := m.step(b, prompt); err != nil {
		t.Fatal(err)
	}
	p.Free(b)
	mustCheck(t, p)
	// Block size 1: a fully cached prompt backs off one token, no copy.
	q := mustPool(t, Options{BlockSize: 1, Groups: []GroupSpec{{Blocks: 8}}})
	mq := newSim(q)
	c := q.NewSeq()
	if err := mq.step(c, prompt[:5]); err != nil {
		t.Fatal(err)
	}
	d := q.NewSeq()
	if n, cs := q.Match(d, prompt[:5]); n != 4 || cs != nil {
		t.Fatalf("block size 1: Match = %d, %v", n, cs)
	}
	mustCheck(t, q)
}

func TestLRUEviction(t *testing.T) {
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 6}}})
	m := newSim(p)
	pa, pb, pc := seqTokens(100, 9), seqTokens(200, 9), seqTokens(300, 9)
	// a and b each leave two cached blocks: a's, then b's.
	for _, pr := range [][]int32{pa, pb} {
		s := p.NewSeq()
		if _, err := m.admit(s, pr); err != nil {
			t.Fatal(err)
		}
		p.Free(s)
	}
	// Using a's prefix again makes b's blocks the least recently used.
	s := p.NewSeq()
	if n, err := m.admit(s, pa); err != nil || n != 8 {
		t.Fatalf("re-admit a: %d, %v", n, err)
	}
	p.Free(s)
	mustCheck(t, p)
	if g := p.Stats().Groups[0]; g.Cached != 4 || g.Free != 2 {
		t.Fatalf("%+v", g)
	}
	// c needs three blocks: two free ones, then b's second block (the
	// last block of a chain goes before its first).
	c := p.NewSeq()
	if _, err := m.admit(c, pc); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Evictions != 1 {
		t.Fatalf("evictions = %d, want 1", st.Evictions)
	}
	probe := func(pr []int32) int {
		s := p.NewSeq()
		defer p.Free(s)
		n, cs := p.Match(s, pr)
		m.copy(cs)
		return n
	}
	if n := probe(pb); n != 4 {
		t.Fatalf("b matches %d after its last block was evicted, want 4", n)
	}
	if n := probe(pa); n != 8 {
		t.Fatalf("a matches %d, want 8", n)
	}
	// Held blocks are never evicted: d takes a's prefix and evicts b's
	// first block for its third; with c live, nothing is left.
	d := p.NewSeq()
	if n, err := m.admit(d, pa); err != nil || n != 8 {
		t.Fatalf("d: %d, %v", n, err)
	}
	if got := p.FreeBlocks(0); got != 0 {
		t.Fatalf("FreeBlocks = %d, want 0", got)
	}
	if n := probe(pb); n != 0 {
		t.Fatalf("b matches %d after both its blocks were evicted", n)
	}
	if _, err := p.Reserve(d, 9, 17); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("Reserve past the evictable blocks: %v", err)
	}
	if err := m.verify(c, pc); err != nil {
		t.Fatal(err)
	}
	if err := m.verify(d, pa); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, p)
}

// snapshot captures what a failed call must leave as it was.
type snapshot struct {
	stats Stats
	cells [][]int32
	lens  []int
	lru   [][]int32
	free  [][]int32
}

func takeSnapshot(p *Pool, seqs ...*Seq) snapshot {
	sn := snapshot{stats: p.Stats()}
	for _, s := range seqs {
		for g := range p.groups {
			sn.cells = append(sn.cells, p.Cells(s, g, 64, nil))
		}
		sn.lens = append(sn.lens, s.Len())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, g := range p.groups {
		var l []int32
		for b := g.head; b >= 0; b = g.blocks[b].next {
			l = append(l, b)
		}
		sn.lru = append(sn.lru, l)
		sn.free = append(sn.free, slices.Clone(g.free))
	}
	return sn
}

func (a snapshot) equal(b snapshot) bool {
	eq := func(x, y [][]int32) bool { return slices.EqualFunc(x, y, slices.Equal[[]int32]) }
	return slices.Equal(a.stats.Groups, b.stats.Groups) && a.stats.Evictions == b.stats.Evictions &&
		a.stats.StoredTokens == b.stats.StoredTokens && eq(a.cells, b.cells) &&
		slices.Equal(a.lens, b.lens) && eq(a.lru, b.lru) && eq(a.free, b.free)
}

func TestNoSpaceLeavesStateUnchanged(t *testing.T) {
	// Group 0 has room, group 1 does not: nothing may be kept from the
	// first group's allocation, nor from a copy-on-write.
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 12}, {Blocks: 6}}})
	m := newSim(p)
	cached := p.NewSeq()
	if err := m.step(cached, seqTokens(500, 4)); err != nil {
		t.Fatal(err)
	}
	p.Free(cached) // one evictable block in each group
	a := p.NewSeq()
	if err := m.step(a, seqTokens(0, 6)); err != nil {
		t.Fatal(err)
	}
	b := p.Fork(a) // the block holding position 6 is shared
	hog := p.NewSeq()
	if _, err := p.Reserve(hog, 0, 8); err != nil {
		t.Fatal(err)
	}
	// Group 1: 4 blocks held, 1 cached, 1 free.
	tests := []struct {
		name string
		s    *Seq
		from int
		n    int
		want error
	}{
		{"past free and evictable", a, 6, 6 + 4*3, ErrNoSpace},
		{"copy-on-write and more", b, 6, 6 + 4*2, ErrNoSpace},
		{"past the group's size", a, 6, 4*6 + 1, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := takeSnapshot(p, a, b)
			if p.CanReserve(tt.s, tt.from, tt.n) {
				t.Fatal("CanReserve says yes")
			}
			cs, err := p.Reserve(tt.s, tt.from, tt.n)
			if !errors.Is(err, tt.want) || cs != nil {
				t.Fatalf("Reserve = %v, %v; want %v", cs, err, tt.want)
			}
			if after := takeSnapshot(p, a, b); !before.equal(after) {
				t.Fatalf("state changed:\n%+v\n%+v", before, after)
			}
			mustCheck(t, p)
		})
	}
	// What fits still works, evicting the cached block.
	if !p.CanReserve(b, 6, 6+6) {
		t.Fatal("CanReserve says no")
	}
	if err := m.step(b, cat(seqTokens(0, 6), seqTokens(900, 6))); err != nil {
		t.Fatal(err)
	}
	if err := m.verify(a, seqTokens(0, 6)); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Evictions != 1 {
		t.Fatalf("evictions = %d, want 1", st.Evictions)
	}
	mustCheck(t, p)
}

func TestMisuse(t *testing.T) {
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 8}}})
	other := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 8}}})
	m := newSim(p)
	s := p.NewSeq()
	toks := seqTokens(0, 6)
	if err := m.step(s, toks); err != nil {
		t.Fatal(err)
	}
	freed := p.NewSeq()
	p.Free(freed)
	foreign := other.NewSeq()
	errTests := []struct {
		name string
		err  func() error
	}{
		{"reserve from behind the stored length", func() error { _, err := p.Reserve(s, 4, 8); return err }},
		{"reserve from past the stored length", func() error { _, err := p.Reserve(s, 7, 8); return err }},
		{"reserve backwards", func() error { _, err := p.Reserve(s, 6, 5); return err }},
		{"reserve a freed sequence", func() error { _, err := p.Reserve(freed, 0, 4); return err }},
		{"reserve a foreign sequence", func() error { _, err := p.Reserve(foreign, 0, 4); return err }},
		{"reserve a nil sequence", func() error { _, err := p.Reserve(nil, 0, 4); return err }},
		{"reserve past the pool", func() error { _, err := p.Reserve(s, 6, 1000); return err }},
		{"reserve an absurd length", func() error { _, err := p.Reserve(s, 6, math.MaxInt); return err }},
		{"reserve a zero sequence", func() error { _, err := p.Reserve(&Seq{}, 0, 4); return err }},
		{"commit backwards", func() error { return p.Commit(s, toks[:5]) }},
		{"commit past the reservation", func() error { return p.Commit(s, cat(toks, seqTokens(0, 10))) }},
		{"commit a freed sequence", func() error { return p.Commit(freed, nil) }},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err() == nil {
				t.Fatal("no error")
			}
			mustCheck(t, p)
		})
	}
	// Calls without an error result do nothing.
	if n, cs := p.Match(s, toks); n != 0 || cs != nil {
		t.Fatalf("Match on a used sequence = %d, %v", n, cs)
	}
	if n, _ := p.Match(freed, toks); n != 0 {
		t.Fatalf("Match on a freed sequence = %d", n)
	}
	if got := p.Cells(s, 1, 4, nil); got != nil {
		t.Fatalf("Cells of a missing group = %v", got)
	}
	if got := p.Cells(s, 0, 10, nil); !slices.Equal(got[6:], []int32{6, 7, -1, -1}) {
		t.Fatalf("Cells past the reservation = %v", got)
	}
	if (&Seq{}).Len() != 0 || (*Seq)(nil).ID() != 0 {
		t.Fatal("zero sequence")
	}
	if n, _ := p.Match(&Seq{}, toks); n != 0 {
		t.Fatal("Match on a zero sequence")
	}
	p.Free(&Seq{})
	if f := p.Fork(freed); f.Len() != 0 {
		t.Fatal("fork of a freed sequence is not empty")
	}
	if p.FreeBlocks(-1) != 0 || p.FreeBlocks(3) != 0 {
		t.Fatal("FreeBlocks of a missing group")
	}
	p.Free(foreign)
	p.Free(nil)
	if err := m.verify(s, toks); err != nil {
		t.Fatal(err)
	}
	// Reserving nothing and committing the same length are fine.
	if cs, err := p.Reserve(s, 6, 6); err != nil || cs != nil {
		t.Fatalf("empty Reserve = %v, %v", cs, err)
	}
	if err := p.Commit(s, toks); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, p)
}

func TestSlidingWindow(t *testing.T) {
	const w = 8
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 32}, {Blocks: 12, Window: w}}})
	m := newSim(p)
	prompt := seqTokens(0, 40)
	a := p.NewSeq()
	// Prefill in chunks of 12, then decode: released blocks show as -1.
	for n := 12; n <= len(prompt); n += 12 {
		n := min(n, len(prompt))
		if err := m.step(a, prompt[:n]); err != nil {
			t.Fatal(err)
		}
		mustCheck(t, p)
	}
	if err := m.step(a, prompt); err != nil {
		t.Fatal(err)
	}
	cells := p.Cells(a, 1, 40, nil)
	// The next query at 40 sees positions 33..39: blocks 8 and 9.
	for pos, c := range cells {
		if released := pos < 32; released != (c < 0) {
			t.Fatalf("position %d: cell %d", pos, c)
		}
	}
	if g := p.Stats().Groups[1]; g.Used != 2 || g.Cached != 8 {
		t.Fatalf("sliding group: %+v", g)
	}
	if full := p.Cells(a, 0, 40, nil); slices.Contains(full, -1) {
		t.Fatalf("full-attention group released cells: %v", full)
	}
	p.Free(a)
	mustCheck(t, p)

	// The whole 40 tokens match: both groups have what a query at 40
	// needs.
	b := p.NewSeq()
	if n, err := m.admit(b, cat(prompt, seqTokens(100, 3))); err != nil || n != 40 {
		t.Fatalf("b: n = %d, err = %v; want 40", n, err)
	}
	p.Free(b)
	mustCheck(t, p)

	// b left the sliding group's LRU list as prompt blocks 0..7, 8, 9 and
	// two free blocks. Take nine: the two free ones and blocks 0..6. A
	// match at 36 needs only blocks 7 and 8 (positions 29..35); c's own
	// third block then evicts block 9.
	hog := p.NewSeq()
	if _, err := p.Reserve(hog, 0, 4*9); err != nil {
		t.Fatal(err)
	}
	c := p.NewSeq()
	if n, err := m.admit(c, cat(prompt[:36], seqTokens(200, 2))); err != nil || n != 36 {
		t.Fatalf("c: n = %d, err = %v; want 36", n, err)
	}
	if got := p.Cells(c, 1, 36, nil); slices.Index(got, -1) != 0 || got[27] != -1 || got[28] < 0 {
		t.Fatalf("c's sliding cells: %v", got)
	}
	mustCheck(t, p)
	p.Free(c)
	mustCheck(t, p)
	if st := p.Stats(); st.Evictions != 8 {
		t.Fatalf("evictions = %d, want 8", st.Evictions)
	}
}

func TestSlidingMatchBacksOff(t *testing.T) {
	// The full-attention group keeps everything; the sliding group loses
	// the prompt's last blocks, so the match must stop where the window
	// is still cached.
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 32}, {Blocks: 32, Window: 6}}})
	m := newSim(p)
	prompt := seqTokens(0, 24)
	a := p.NewSeq()
	if err := m.step(a, prompt); err != nil {
		t.Fatal(err)
	}
	p.Free(a)
	// Evict the sliding group's blocks 4 and 5 by hand.
	p.mu.Lock()
	g := p.groups[1]
	for _, i := range []int{4, 5} {
		b := nodesOf(p, prompt)[i].blocks[1]
		p.evict(g, b)
		g.free = append(g.free, b)
	}
	p.mu.Unlock()
	mustCheck(t, p)
	b := p.NewSeq()
	// At 16 the window (positions 11..15) needs blocks 2 and 3.
	if n, err := m.admit(b, cat(prompt, seqTokens(50, 1))); err != nil || n != 16 {
		t.Fatalf("n = %d, err = %v; want 16", n, err)
	}
	mustCheck(t, p)
}

// nodesOf returns the indexed prefix nodes of the full blocks of toks.
func nodesOf(p *Pool, toks []int32) []*node {
	var out []*node
	for nd, i := p.root, 0; i+p.bs <= len(toks); i += p.bs {
		if nd = p.child(nd, toks[i:i+p.bs]); nd == nil {
			break
		}
		out = append(out, nd)
	}
	return out
}

func TestStatsUtilization(t *testing.T) {
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 8}}})
	m := newSim(p)
	if st := p.Stats(); st.Utilization() != 0 || st.HitRate() != 0 {
		t.Fatalf("empty pool: %v %v", st.Utilization(), st.HitRate())
	}
	a := p.NewSeq()
	if err := m.step(a, seqTokens(0, 6)); err != nil {
		t.Fatal(err)
	}
	// Reserved ahead: 3 blocks, 6 cells filled.
	if _, err := p.Reserve(a, 6, 12); err != nil {
		t.Fatal(err)
	}
	st := p.Stats()
	if st.StoredTokens != 6 || st.CapacityTokens != 12 || st.Utilization() != 0.5 {
		t.Fatalf("stored %d of %d", st.StoredTokens, st.CapacityTokens)
	}
	// A fork shares: the shared cells count once.
	b := p.Fork(a)
	st = p.Stats()
	if st.StoredTokens != 6 || st.CapacityTokens != 12 {
		t.Fatalf("after fork: stored %d of %d", st.StoredTokens, st.CapacityTokens)
	}
	p.Free(a)
	p.Free(b)
	if st := p.Stats(); st.Utilization() != 0 {
		t.Fatalf("freed pool utilization %v", st.Utilization())
	}
}

// TestTrim runs speculative steps: positions reserved and written for
// draft tokens, of which only a prefix is committed. Trim gives back the
// blocks past the stored positions, the prefix cache never holds a
// rejected token, and the next step writes over the rejected cells.
func TestTrim(t *testing.T) {
	p := mustPool(t, Options{BlockSize: 4, Groups: []GroupSpec{{Blocks: 8}, {Blocks: 8, Window: 6}}})
	m := newSim(p)
	s := p.NewSeq()
	toks := seqTokens(100, 6)
	if err := m.step(s, toks); err != nil {
		t.Fatal(err)
	}
	// Draft 7 tokens after the 6 stored: positions [6, 13) written.
	draft := cat(toks, seqTokens(500, 7))
	cs, err := p.Reserve(s, 6, len(draft))
	if err != nil {
		t.Fatal(err)
	}
	m.copy(cs)
	if err := m.write(s, draft, 6); err != nil {
		t.Fatal(err)
	}
	// Two are accepted: 8 positions stored, two blocks kept.
	accepted := draft[:8]
	if err := p.Commit(s, accepted); err != nil {
		t.Fatal(err)
	}
	before := p.FreeBlocks(0)
	p.Trim(s)
	mustCheck(t, p)
	if got := p.FreeBlocks(0); got != before+2 {
		t.Errorf("free blocks after Trim: %d, want %d", got, before+2)
	}
	if err := m.verify(s, accepted); err != nil {
		t.Fatal(err)
	}
	// Committing past the trimmed reservation is refused.
	if err := p.Commit(s, draft[:9]); err == nil {
		t.Error("commit past a trimmed reservation: no error")
	}
	// The sequence goes on with other tokens than the rejected ones.
	next := cat(accepted, seqTokens(900, 5))
	if err := m.step(s, next); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, p)
	// Another sequence finds the accepted prefix, and never the rejected
	// tokens.
	o := p.NewSeq()
	if n, _ := p.Match(o, cat(draft, seqTokens(1, 3))); n != 8 {
		t.Errorf("match of the drafted tokens: %d, want the 8 accepted", n)
	}
	p.Free(o)
	p.Free(s)
	p.Trim(s) // freed: nothing
	mustCheck(t, p)
}
