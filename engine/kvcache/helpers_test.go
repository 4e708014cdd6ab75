package kvcache

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

// checkInvariants verifies the pool's bookkeeping: every block is free,
// cached-and-evictable or held; reference counts equal the table entries
// and pins of live sequences that name the block; the index, LRU list and
// free list agree with the blocks; and every reserved position lies in a
// private block.
func (p *Pool) checkInvariants() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	want := make([][]int32, len(p.groups))
	for gi, g := range p.groups {
		want[gi] = make([]int32, len(g.blocks))
	}
	for s := range p.live {
		if s.freed {
			bad("seq %d: freed but live", s.id)
			continue
		}
		for gi, t := range s.tables {
			if len(t) != len(s.tables[0]) {
				bad("seq %d: group %d table has %d blocks, group 0 has %d", s.id, gi, len(t), len(s.tables[0]))
			}
			for i, b := range t {
				if (i < s.lo[gi]) != (b < 0) {
					bad("seq %d group %d: block %d is %d with lo %d", s.id, gi, i, b, s.lo[gi])
				}
				if b >= 0 {
					want[gi][b]++
				}
			}
			if s.lo[gi] > p.firstLive(p.groups[gi], s.n) {
				bad("seq %d group %d: lo %d past the window of position %d", s.id, gi, s.lo[gi], s.n)
			}
		}
		for _, pn := range s.pins {
			want[pn.g][pn.b]++
		}
		if s.n > p.cover(s) || s.res > p.cover(s) {
			bad("seq %d: stores %d, reserves %d, covers %d", s.id, s.n, s.res, p.cover(s))
		}
		if want := s.n / p.bs; len(s.nodes) != want && !(p.noCache && len(s.nodes) == 0) {
			bad("seq %d: %d nodes for %d positions", s.id, len(s.nodes), s.n)
		}
		for i, nd := range s.nodes {
			if i > 0 && nd.parent != s.nodes[i-1] || i == 0 && nd.parent != p.root {
				bad("seq %d: node %d has the wrong parent", s.id, i)
			}
		}
		if s.res > s.n {
			for gi, g := range p.groups {
				for i := s.n / p.bs; i < (s.res+p.bs-1)/p.bs; i++ {
					b := s.tables[gi][i]
					if b < 0 || g.blocks[b].ref != 1 || g.blocks[b].node != nil {
						bad("seq %d group %d: reserved block %d (%d) is not private", s.id, gi, i, b)
					}
				}
			}
		}
	}
	for gi, g := range p.groups {
		inFree := make([]bool, len(g.blocks))
		for _, b := range g.free {
			if inFree[b] {
				bad("group %d: block %d twice on the free list", gi, b)
			}
			inFree[b] = true
		}
		inLRU := make([]bool, len(g.blocks))
		n, prev := 0, int32(-1)
		for b := g.head; b >= 0 && n <= len(g.blocks); b = g.blocks[b].next {
			if g.blocks[b].prev != prev {
				bad("group %d: LRU link of %d", gi, b)
			}
			inLRU[b] = true
			prev = b
			n++
		}
		if n != g.nlru || prev != g.tail {
			bad("group %d: LRU walk %d blocks ending at %d, counted %d ending at %d", gi, n, prev, g.nlru, g.tail)
		}
		cached := 0
		for b := range g.blocks {
			blk := &g.blocks[b]
			if blk.ref != want[gi][b] {
				bad("group %d block %d: ref %d, held %d times", gi, b, blk.ref, want[gi][b])
			}
			switch {
			case blk.ref < 0:
				bad("group %d block %d: ref %d", gi, b, blk.ref)
			case blk.ref == 0 && blk.node == nil && !inFree[b]:
				bad("group %d block %d: unheld, uncached, not free", gi, b)
			case blk.ref == 0 && blk.node != nil && !inLRU[b]:
				bad("group %d block %d: unheld and cached but not in the LRU list", gi, b)
			case blk.ref > 0 && (inFree[b] || inLRU[b]):
				bad("group %d block %d: held and free (%v) or in LRU (%v)", gi, b, inFree[b], inLRU[b])
			}
			if inFree[b] && inLRU[b] {
				bad("group %d block %d: free and in LRU", gi, b)
			}
			if nd := blk.node; nd != nil {
				cached++
				if blk.filled != int32(p.bs) {
					bad("group %d block %d: cached with %d cells filled", gi, b, blk.filled)
				}
				if !nd.indexed || nd.blocks[gi] != int32(b) {
					bad("group %d block %d: cached under node %d (indexed %v) that names block %d", gi, b, nd.id, nd.indexed, nd.blocks[gi])
				}
			}
		}
		if p.noCache && cached != 0 {
			bad("group %d: %d cached blocks without a prefix cache", gi, cached)
		}
	}
	errs = append(errs, p.checkNodes())
	return errors.Join(errs...)
}

// checkNodes verifies the prefix tree: every node's count equals its
// children, the cached blocks naming it and the sequences holding it, and
// the index holds exactly the indexed nodes. Call with p.mu held.
func (p *Pool) checkNodes() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	want := map[*node]int{p.root: 1}
	var add func(nd *node)
	add = func(nd *node) {
		if _, ok := want[nd]; ok {
			return
		}
		want[nd] = 0
		add(nd.parent)
	}
	for k, nd := range p.index {
		if !nd.indexed || nd.key != k {
			bad("index entry for node %d: indexed %v, key match %v", nd.id, nd.indexed, nd.key == k)
		}
		add(nd)
	}
	for s := range p.live {
		for _, nd := range s.nodes {
			add(nd)
			want[nd]++
		}
	}
	for _, g := range p.groups {
		for b := range g.blocks {
			if nd := g.blocks[b].node; nd != nil {
				add(nd)
				want[nd]++
			}
		}
	}
	for nd := range want {
		if nd.parent != nil {
			want[nd.parent]++
		}
		for gi, b := range nd.blocks {
			if b >= 0 && p.groups[gi].blocks[b].node != nd {
				bad("node %d names block %d of group %d, which is not cached under it", nd.id, b, gi)
			}
		}
		if nd.indexed && p.index[nd.key] != nd {
			bad("node %d is indexed but not in the index", nd.id)
		}
		if nd.indexed && nd.parent != p.root && !nd.parent.indexed {
			bad("node %d is indexed below an unindexed node", nd.id)
		}
		if nd != p.root && nd.parent == nil {
			bad("node %d has no parent", nd.id)
		}
	}
	for nd, w := range want {
		if nd.refs != w {
			bad("node %d: refs %d, held %d times", nd.id, nd.refs, w)
		}
	}
	return errors.Join(errs...)
}

// label identifies the KV of one position: its token and every token
// before it.
type label [32]byte

// labels returns the label of each position of toks.
func labels(toks []int32) []label {
	out := make([]label, len(toks))
	var prev label
	var buf [36]byte
	for i, t := range toks {
		copy(buf[:], prev[:])
		binary.LittleEndian.PutUint32(buf[32:], uint32(t))
		prev = sha256.Sum256(buf[:])
		out[i] = prev
	}
	return out
}

// sim plays the model: it keeps, per group and cell, the label of the KV
// written there, performs copies and writes, and checks that what a
// sequence reads is what its tokens say. A wrong prefix hit or a write
// into a shared block shows up as a wrong label.
type sim struct {
	p   *Pool
	mem [][]label
}

func newSim(p *Pool) *sim {
	m := &sim{p: p, mem: make([][]label, len(p.groups))}
	for gi, g := range p.groups {
		m.mem[gi] = make([]label, len(g.blocks)*p.bs)
	}
	return m
}

func (m *sim) copy(cs []Copy) {
	bs := m.p.bs
	for _, c := range cs {
		mem := m.mem[c.Group]
		copy(mem[int(c.Dst)*bs:int(c.Dst+1)*bs], mem[int(c.Src)*bs:int(c.Src+1)*bs])
	}
}

// write stores the KV of positions [from, len(toks)) of s.
func (m *sim) write(s *Seq, toks []int32, from int) error {
	lab := labels(toks)
	for gi := range m.mem {
		cells := m.p.Cells(s, gi, len(toks), nil)
		for pos := from; pos < len(toks); pos++ {
			if cells[pos] < 0 {
				return fmt.Errorf("seq %d group %d: write to position %d without a cell", s.ID(), gi, pos)
			}
			m.mem[gi][cells[pos]] = lab[pos]
		}
	}
	return nil
}

// verify checks that every position of s a query at s.Len() can see holds
// the KV of toks, and that released positions are out of the window.
func (m *sim) verify(s *Seq, toks []int32) error {
	n := s.Len()
	if n > len(toks) {
		return fmt.Errorf("seq %d: stores %d positions of %d tokens", s.ID(), n, len(toks))
	}
	lab := labels(toks[:n])
	for gi, g := range m.p.groups {
		cells := m.p.Cells(s, gi, n, nil)
		for pos, c := range cells {
			visible := g.window == 0 || n-pos < g.window
			switch {
			case c < 0 && visible:
				return fmt.Errorf("seq %d group %d: position %d of %d released inside the window", s.ID(), gi, pos, n)
			case c >= 0 && m.mem[gi][c] != lab[pos]:
				return fmt.Errorf("seq %d group %d: position %d (cell %d) holds the wrong KV", s.ID(), gi, pos, c)
			}
		}
	}
	return nil
}

// step runs positions [s.Len(), len(toks)) of s like a scheduler would:
// reserve, copy, write, commit, verify.
func (m *sim) step(s *Seq, toks []int32) error {
	from := s.Len()
	cs, err := m.p.Reserve(s, from, len(toks))
	if err != nil {
		return err
	}
	m.copy(cs)
	if err := m.write(s, toks, from); err != nil {
		return err
	}
	if err := m.p.Commit(s, toks); err != nil {
		return err
	}
	return m.verify(s, toks)
}

// admit matches toks, performs the copies and runs the rest.
func (m *sim) admit(s *Seq, toks []int32) (int, error) {
	n, cs := m.p.Match(s, toks)
	m.copy(cs)
	if err := m.verify(s, toks[:n]); err != nil {
		return n, fmt.Errorf("after match of %d: %w", n, err)
	}
	return n, m.step(s, toks)
}

func mustPool(t testing.TB, o Options) *Pool {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustCheck(t testing.TB, p *Pool) {
	t.Helper()
	if err := p.checkInvariants(); err != nil {
		t.Fatal(err)
	}
}

// seqTokens returns n tokens: base+0, base+1, ...
func seqTokens(base, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(base + i)
	}
	return out
}

func cat(parts ...[]int32) []int32 {
	var out []int32
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
