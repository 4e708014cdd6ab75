package kvcache

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// DefaultBlockSize is the number of cells per block when Options.BlockSize
// is 0.
const DefaultBlockSize = 16

var (
	// ErrNoSpace reports that a reservation needs more blocks than are free
	// or evictable right now. It is temporary: blocks come back as other
	// sequences finish (or are preempted).
	ErrNoSpace = errors.New("kvcache: out of blocks")
	// ErrTooLarge reports that a sequence would need more blocks of a group
	// than the whole group has. Waiting does not help.
	ErrTooLarge = errors.New("kvcache: sequence does not fit in the pool")
)

// GroupSpec describes one layer group: its number of blocks and its
// attention window in positions (0 for full attention).
type GroupSpec struct {
	Blocks int
	Window int
}

// Options configures a Pool.
type Options struct {
	// BlockSize is the number of cells per block; 0 means DefaultBlockSize.
	BlockSize int
	// Groups lists the layer groups; at least one.
	Groups []GroupSpec
	// Seed identifies the model and KV type; it is mixed into every block
	// hash, so pools of different models never agree on a block.
	Seed uint64
	// NoPrefixCache disables prefix caching: Match finds nothing and a
	// block whose last reference goes is freed at once.
	NoPrefixCache bool
}

// Copy asks the caller to copy block Src of group Group onto block Dst: all
// BlockSize cells (cells Src*BlockSize ... Src*BlockSize+BlockSize-1), in
// every layer of the group, before the next forward pass. The source stays
// reserved for the sequence until its next Commit or Free.
type Copy struct {
	Group    int
	Src, Dst int32
}

// block is the bookkeeping of one physical block of a group.
type block struct {
	ref    int32 // table entries and pins that hold the block
	filled int32 // cells holding written KV
	// node is the prefix whose last block this is, when the block is
	// cached (full, immutable, findable); nil otherwise.
	node *node
	// LRU links among cached blocks with ref 0; -1 at the ends.
	prev, next int32
}

// group is one layer group's storage: blocks, free list and the LRU list
// of evictable cached blocks (head is evicted first).
type group struct {
	idx        int
	window     int
	blocks     []block
	free       []int32
	head, tail int32
	nlru       int
}

// pin holds a copy source until the sequence's next Commit.
type pin struct {
	g int
	b int32
}

// Pool hands out cache blocks to sequences. All methods are safe for
// concurrent use.
type Pool struct {
	mu      sync.Mutex
	bs      int
	noCache bool
	h       *hasher
	// hashFn hashes a block's tokens; tests replace it to force
	// collisions.
	hashFn func(toks []int32) uint64
	groups []*group
	// root is the empty prefix; index finds a node by its parent and
	// tokens.
	root     *node
	index    map[childKey]*node
	nextNode uint64
	nextID   uint64
	live     map[*Seq]struct{}

	queryTokens, hitTokens, evictions int64
}

// Seq is one sequence's view of the pool: a block table per group, the
// number of positions whose KV is stored, and the prefix nodes of its full
// blocks. A Seq is used through its Pool's methods.
type Seq struct {
	id     uint64
	pool   *Pool
	n      int       // stored positions
	res    int       // positions [n, res) are reserved in private blocks
	tables [][]int32 // per group: block per block index, -1 when released
	lo     []int     // per group: blocks below are released
	nodes  []*node   // prefixes ending at full blocks [0, n/bs); none without a prefix cache
	pins   []pin
	freed  bool
}

// ID returns the sequence's number, unique within its pool.
func (s *Seq) ID() uint64 {
	if s == nil {
		return 0
	}
	return s.id
}

// Len returns the number of positions whose KV is stored.
func (s *Seq) Len() int {
	if s == nil || s.pool == nil {
		return 0
	}
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	return s.n
}

// New returns a pool with every block free.
func New(opts Options) (*Pool, error) {
	bs := opts.BlockSize
	if bs == 0 {
		bs = DefaultBlockSize
	}
	if bs < 0 {
		return nil, fmt.Errorf("kvcache: block size %d", opts.BlockSize)
	}
	if len(opts.Groups) == 0 {
		return nil, errors.New("kvcache: no layer groups")
	}
	p := &Pool{
		bs:      bs,
		noCache: opts.NoPrefixCache,
		h:       newHasher(opts.Seed),
		index:   make(map[childKey]*node),
		live:    make(map[*Seq]struct{}),
	}
	p.hashFn = p.h.tokens
	for i, gs := range opts.Groups {
		if gs.Blocks < 1 {
			return nil, fmt.Errorf("kvcache: group %d has %d blocks", i, gs.Blocks)
		}
		if gs.Window < 0 {
			return nil, fmt.Errorf("kvcache: group %d has window %d", i, gs.Window)
		}
		if int64(gs.Blocks)*int64(bs) > math.MaxInt32 {
			return nil, fmt.Errorf("kvcache: group %d: %d blocks of %d cells overflow a cell index", i, gs.Blocks, bs)
		}
		g := &group{
			idx:    i,
			window: gs.Window,
			blocks: make([]block, gs.Blocks),
			free:   make([]int32, gs.Blocks),
			head:   -1,
			tail:   -1,
		}
		for b := range g.blocks {
			g.blocks[b].prev, g.blocks[b].next = -1, -1
			g.free[b] = int32(gs.Blocks - 1 - b) // block 0 is handed out first
		}
		p.groups = append(p.groups, g)
	}
	p.root = p.newNode(nil, nil, childKey{})
	p.root.refs = 1 // never released
	return p, nil
}

// BlockSize returns the number of cells per block.
func (p *Pool) BlockSize() int { return p.bs }

// Groups returns the number of layer groups.
func (p *Pool) Groups() int { return len(p.groups) }

// NewSeq returns an empty sequence.
func (p *Pool) NewSeq() *Seq {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.newSeq()
}

func (p *Pool) newSeq() *Seq {
	p.nextID++
	return &Seq{
		id:     p.nextID,
		pool:   p,
		tables: make([][]int32, len(p.groups)),
		lo:     make([]int, len(p.groups)),
	}
}

// check reports why s cannot be used with p.
func (p *Pool) check(s *Seq) error {
	switch {
	case s == nil:
		return errors.New("kvcache: nil sequence")
	case s.pool != p:
		return errors.New("kvcache: sequence belongs to another pool")
	case s.freed:
		return fmt.Errorf("kvcache: sequence %d already freed", s.id)
	}
	return nil
}

// cover returns the number of positions the tables of s cover.
func (p *Pool) cover(s *Seq) int { return len(s.tables[0]) * p.bs }

// firstLive returns the first block a query at position next still needs
// in group g: blocks entirely below next-window+1 are out of the window.
func (p *Pool) firstLive(g *group, next int) int {
	if g.window == 0 || next-g.window+1 <= 0 {
		return 0
	}
	return (next - g.window + 1) / p.bs
}

// Match looks up the longest cached prefix of tokens, the whole prompt s
// will run, and attaches its blocks to s, which must be empty (a used or
// freed sequence gets 0). It returns the number of positions whose KV is
// now stored, and the copies the caller must perform before the next
// forward pass.
//
// The result is never len(tokens): the last token must be computed to get
// logits. When every block of tokens is cached, the last one is attached by
// copy-on-write: a private block receives a copy of the cached one and the
// match covers len(tokens)-1 positions; the last token is recomputed into
// the copy. If no block can be had for the copy, the match backs off to a
// shorter one. A group with a window matches when the blocks its window
// needs at the match point are cached; earlier blocks may be absent and
// stay released (-1).
func (p *Pool) Match(s *Seq, tokens []int32) (n int, copies []Copy) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.check(s) != nil || s.n != 0 || p.cover(s) != 0 || len(s.pins) != 0 {
		return 0, nil
	}
	p.queryTokens += int64(len(tokens))
	if p.noCache || len(tokens) == 0 {
		return 0, nil
	}
	bs := p.bs
	// Walk the prefix tree: nodes[i] is the prompt's prefix ending at
	// block i, found by exact comparison of every block's tokens.
	var nodes []*node
	for nd, i := p.root, 0; (i+1)*bs <= len(tokens); i++ {
		if nd = p.child(nd, tokens[i*bs:(i+1)*bs]); nd == nil {
			break
		}
		nodes = append(nodes, nd)
	}
	nfull := len(tokens) / bs

	// Full-attention groups first: no match can go past the shortest of
	// their cached prefixes.
	found := make([][]int32, len(p.groups))
	limit := len(nodes)
	for gi, g := range p.groups {
		if g.window != 0 {
			continue
		}
		f := make([]int32, 0, limit)
		for _, nd := range nodes[:limit] {
			if nd.blocks[gi] < 0 {
				break
			}
			f = append(f, nd.blocks[gi])
		}
		limit = len(f)
		found[gi] = f
	}
	// miss[gi][i] counts the blocks of [0, i) that a windowed group lacks.
	miss := make([][]int, len(p.groups))
	for gi, g := range p.groups {
		if g.window == 0 {
			continue
		}
		f := make([]int32, limit)
		m := make([]int, limit+1)
		for i := range limit {
			f[i] = nodes[i].blocks[gi]
			m[i+1] = m[i]
			if f[i] < 0 {
				m[i+1]++
			}
		}
		found[gi], miss[gi] = f, m
	}
	// ok reports whether every group has the blocks a match of m positions
	// needs; blocks [lo, ceil(m/bs)) of each group must be cached.
	ok := func(m int) bool {
		hi := (m + bs - 1) / bs
		if hi > limit {
			return false
		}
		for gi, g := range p.groups {
			if g.window == 0 {
				continue // found[gi] covers [0, limit)
			}
			lo := p.firstLive(g, m)
			if lo < hi && miss[gi][hi]-miss[gi][lo] != 0 {
				return false
			}
		}
		return true
	}

	if bs > 1 && len(tokens)%bs == 0 && limit == nfull && ok(len(tokens)-1) && p.roomForCopy(found, len(tokens)-1) {
		n = len(tokens) - 1
		copies = p.attach(s, found, nodes, n, true)
	} else {
		for k := min(limit, (len(tokens)-1)/bs); k > 0; k-- {
			if ok(k * bs) {
				n = k * bs
				p.attach(s, found, nodes, n, false)
				break
			}
		}
	}
	p.hitTokens += int64(n)
	return n, copies
}

// roomForCopy reports whether every group can allocate the private block of
// a copy-on-write match of m positions once the match's blocks, which may
// sit in the LRU list, are taken.
func (p *Pool) roomForCopy(found [][]int32, m int) bool {
	hi := (m + p.bs - 1) / p.bs
	for gi, g := range p.groups {
		taken := 0
		for i := p.firstLive(g, m); i < hi; i++ {
			if g.blocks[found[gi][i]].ref == 0 {
				taken++
			}
		}
		if g.avail()-taken < 1 {
			return false
		}
	}
	return true
}

// attach gives s the cached blocks of a match of m positions. With cow,
// the last block is a private copy of the cached one, which is pinned.
func (p *Pool) attach(s *Seq, found [][]int32, nodes []*node, m int, cow bool) []Copy {
	var copies []Copy
	hi := (m + p.bs - 1) / p.bs
	for gi, g := range p.groups {
		t := make([]int32, hi)
		lo := p.firstLive(g, m)
		for i := range t {
			t[i] = -1
			if i >= lo {
				t[i] = found[gi][i]
				g.ref(t[i]) // taken before the copy's allocation can evict it
			}
		}
		if cow {
			src := t[hi-1] // its table reference becomes the pin
			dst := g.alloc(p)
			g.blocks[dst].filled = int32(m - (hi-1)*p.bs)
			t[hi-1] = dst
			s.pins = append(s.pins, pin{gi, src})
			copies = append(copies, Copy{Group: gi, Src: src, Dst: dst})
		}
		s.tables[gi] = t
		s.lo[gi] = lo
	}
	s.n, s.res = m, m
	s.nodes = slices.Clone(nodes[:m/p.bs])
	for _, nd := range s.nodes {
		nd.refs++
	}
	p.live[s] = struct{}{}
	return copies
}

// groupPlan is what Reserve does in one group.
type groupPlan struct {
	cow   int // block index to copy-on-write, or -1
	fresh int // blocks to allocate, including the copy's
}

// plan checks a reservation of positions [from, n) for s and says what it
// takes, without changing anything.
func (p *Pool) plan(s *Seq, from, n int) ([]groupPlan, error) {
	if err := p.check(s); err != nil {
		return nil, err
	}
	if from != s.n {
		return nil, fmt.Errorf("kvcache: sequence %d: write from position %d, but %d are stored", s.id, from, s.n)
	}
	if n < from {
		return nil, fmt.Errorf("kvcache: sequence %d: reserve up to %d, below position %d", s.id, n, from)
	}
	if n == from {
		return nil, nil
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%w: sequence %d: %d positions", ErrTooLarge, s.id, n)
	}
	bs := p.bs
	nb := (n + bs - 1) / bs
	plans := make([]groupPlan, len(p.groups))
	for gi, g := range p.groups {
		t := s.tables[gi]
		if live := max(nb, len(t)) - s.lo[gi]; live > len(g.blocks) {
			return nil, fmt.Errorf("%w: sequence %d needs %d blocks of group %d, which has %d", ErrTooLarge, s.id, live, gi, len(g.blocks))
		}
		pl := groupPlan{cow: -1, fresh: max(0, nb-len(t))}
		// Only the block holding from can be shared or cached: Fork shares
		// the blocks holding stored positions, and only full blocks are
		// cached; the check is general all the same.
		for i := from / bs; i < min(nb, len(t)); i++ {
			if b := t[i]; b >= 0 && (g.blocks[b].ref > 1 || g.blocks[b].node != nil) {
				if pl.cow >= 0 {
					return nil, fmt.Errorf("kvcache: sequence %d: blocks %d and %d of group %d are both shared", s.id, pl.cow, i, gi)
				}
				pl.cow = i
				pl.fresh++
			}
		}
		if pl.fresh > g.avail() {
			return nil, fmt.Errorf("%w: group %d needs %d blocks, %d obtainable", ErrNoSpace, gi, pl.fresh, g.avail())
		}
		plans[gi] = pl
	}
	return plans, nil
}

// Reserve makes the tables of s cover positions [0, n) in every group, for
// a forward pass that writes positions [from, n); from must be s.Len().
// Blocks come from the free list first, then from evicting the least
// recently used cached block that no sequence holds. A write into a block
// that is shared or cached goes to a fresh copy; the copies are returned
// and must be performed before the forward pass. On shortage Reserve
// returns an error wrapping ErrNoSpace (or ErrTooLarge when the group
// could never hold the sequence) and leaves s and the pool as they were.
func (p *Pool) Reserve(s *Seq, from, n int) ([]Copy, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	plans, err := p.plan(s, from, n)
	if err != nil || plans == nil {
		return nil, err
	}
	var copies []Copy
	nb := (n + p.bs - 1) / p.bs
	for gi, g := range p.groups {
		pl := plans[gi]
		t := s.tables[gi]
		if i := pl.cow; i >= 0 {
			src := t[i]
			dst := g.alloc(p)
			if off := from - i*p.bs; off > 0 {
				g.blocks[dst].filled = int32(off)
				s.pins = append(s.pins, pin{gi, src}) // the table's reference moves to the pin
				copies = append(copies, Copy{Group: gi, Src: src, Dst: dst})
			} else {
				g.unref(src)
			}
			t[i] = dst
		}
		for len(t) < nb {
			t = append(t, g.alloc(p))
		}
		s.tables[gi] = t
	}
	s.res = max(s.res, n)
	p.live[s] = struct{}{}
	return copies, nil
}

// CanReserve reports whether Reserve(s, from, n) would succeed now.
func (p *Pool) CanReserve(s *Seq, from, n int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.plan(s, from, n)
	return err == nil
}

// Commit records that the KV of tokens, the sequence's whole token list so
// far, is stored: len(tokens) becomes s.Len(). It must not go backwards nor
// past the reserved positions. Blocks that became full enter the prefix
// cache under their prefix (unless a block of the same prefix is there
// already); groups with a window release the blocks the next
// position no longer sees. Commit also ends the pins of earlier copies:
// call it only after the copies have been performed.
func (p *Pool) Commit(s *Seq, tokens []int32) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.check(s); err != nil {
		return err
	}
	m := len(tokens)
	if m < s.n {
		return fmt.Errorf("kvcache: sequence %d: commit of %d positions, but %d are stored", s.id, m, s.n)
	}
	if m > max(s.n, s.res) {
		return fmt.Errorf("kvcache: sequence %d: commit of %d positions, but only %d are reserved", s.id, m, max(s.n, s.res))
	}
	p.unpin(s)
	bs := p.bs
	for gi, g := range p.groups {
		t := s.tables[gi]
		for i := s.n / bs; i < (m+bs-1)/bs; i++ {
			if b := t[i]; b >= 0 {
				blk := &g.blocks[b]
				blk.filled = max(blk.filled, int32(min(bs, m-i*bs)))
			}
		}
	}
	for i := len(s.nodes); i < m/bs && !p.noCache; i++ {
		parent := p.root
		if i > 0 {
			parent = s.nodes[i-1]
		}
		nd := p.intern(parent, tokens[i*bs:(i+1)*bs])
		s.nodes = append(s.nodes, nd)
		if !nd.indexed {
			continue // a hash collision: this prefix cannot be found
		}
		for gi, g := range p.groups {
			b := s.tables[gi][i]
			if b < 0 || g.blocks[b].node != nil || nd.blocks[gi] >= 0 {
				// Released, cached already, or a twin is cached: that one
				// stays and b stays private.
				continue
			}
			g.blocks[b].node = nd
			nd.blocks[gi] = b
			nd.refs++
		}
	}
	s.n = m
	for gi, g := range p.groups {
		lo := p.firstLive(g, m)
		t := s.tables[gi]
		for i := s.lo[gi]; i < lo; i++ {
			if t[i] >= 0 {
				g.unref(t[i])
				t[i] = -1
			}
		}
		s.lo[gi] = max(s.lo[gi], lo)
	}
	return nil
}

// Cells appends to dst the cell of each position [0, n) of s in group g:
// block*BlockSize + position%BlockSize, or -1 for a position whose block
// was released or is not reserved. A bad group or sequence appends
// nothing.
func (p *Pool) Cells(s *Seq, g, n int, dst []int32) []int32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.check(s) != nil || g < 0 || g >= len(p.groups) {
		return dst
	}
	t := s.tables[g]
	bs := p.bs
	for pos := range n {
		i := pos / bs
		if i < len(t) && t[i] >= 0 {
			dst = append(dst, t[i]*int32(bs)+int32(pos%bs))
		} else {
			dst = append(dst, -1)
		}
	}
	return dst
}

// Fork returns a sequence that shares the blocks holding the stored
// positions of s (each block's count goes up by one) and has the same
// length. The first write of either into a shared block goes to a copy,
// so both must Reserve before writing again, even where s had reserved
// before the fork. Forking a freed or foreign sequence gives an empty one.
func (p *Pool) Fork(s *Seq) *Seq {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.newSeq()
	if p.check(s) != nil || s.n == 0 {
		return c
	}
	nb := (s.n + p.bs - 1) / p.bs
	for gi, g := range p.groups {
		t := slices.Clone(s.tables[gi][:nb])
		for _, b := range t {
			if b >= 0 {
				g.ref(b)
			}
		}
		c.tables[gi] = t
		c.lo[gi] = s.lo[gi]
	}
	c.n, c.res = s.n, s.n
	s.res = s.n // the block holding s.n may now be shared: reserve again
	c.nodes = slices.Clone(s.nodes)
	for _, nd := range c.nodes {
		nd.refs++
	}
	p.live[c] = struct{}{}
	return c
}

// Trim gives back what s reserved beyond its stored positions: a
// speculative step reserves cells for draft tokens that the target model
// may reject, and Commit stores only the accepted ones. The blocks past the
// one holding the next position go back to the pool; the cells of the
// rejected positions in that block are written again by the next step.
// Trimming a freed or foreign sequence does nothing.
func (p *Pool) Trim(s *Seq) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.check(s) != nil {
		return
	}
	keep := (s.n + p.bs - 1) / p.bs
	for gi, g := range p.groups {
		t := s.tables[gi]
		for i := len(t) - 1; i >= keep; i-- {
			if t[i] >= 0 {
				g.unref(t[i])
			}
		}
		s.tables[gi] = t[:min(keep, len(t))]
		s.lo[gi] = min(s.lo[gi], len(s.tables[gi]))
	}
	s.res = s.n
}

// Free releases every block of s. Cached blocks no other sequence holds
// stay findable until evicted, the last block of the sequence first.
// Freeing a freed sequence does nothing.
func (p *Pool) Free(s *Seq) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.check(s) != nil {
		return
	}
	p.unpin(s)
	for gi, g := range p.groups {
		t := s.tables[gi]
		for i := len(t) - 1; i >= 0; i-- {
			if t[i] >= 0 {
				g.unref(t[i])
			}
		}
		s.tables[gi] = nil
	}
	for _, nd := range s.nodes {
		p.release(nd)
	}
	s.freed = true
	s.nodes = nil
	delete(p.live, s)
}

func (p *Pool) unpin(s *Seq) {
	for _, pn := range s.pins {
		p.groups[pn.g].unref(pn.b)
	}
	s.pins = s.pins[:0]
}

// FreeBlocks returns the number of blocks of group g obtainable now: free
// ones plus cached ones no sequence holds.
func (p *Pool) FreeBlocks(g int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if g < 0 || g >= len(p.groups) {
		return 0
	}
	return p.groups[g].avail()
}

func (g *group) avail() int { return len(g.free) + g.nlru }

// ref adds a reference to b, taking it off the LRU list.
func (g *group) ref(b int32) {
	blk := &g.blocks[b]
	if blk.ref == 0 && blk.node != nil {
		g.lruRemove(b)
	}
	blk.ref++
}

// unref drops a reference to b. A block nobody holds goes to the LRU list
// when cached and to the free list otherwise.
func (g *group) unref(b int32) {
	blk := &g.blocks[b]
	blk.ref--
	if blk.ref > 0 {
		return
	}
	if blk.node != nil {
		g.lruPush(b)
		return
	}
	blk.filled = 0
	g.free = append(g.free, b)
}

// alloc returns a private block with one reference: a free one, else the
// least recently used cached block nobody holds. The caller has checked
// avail.
func (g *group) alloc(p *Pool) int32 {
	var b int32
	if n := len(g.free); n > 0 {
		b = g.free[n-1]
		g.free = g.free[:n-1]
	} else {
		b = g.head
		p.evict(g, b)
	}
	blk := &g.blocks[b]
	blk.ref = 1
	blk.filled = 0
	return b
}

// evict takes cached block b, which nobody holds, out of the LRU list
// and the prefix cache.
func (p *Pool) evict(g *group, b int32) {
	g.lruRemove(b)
	blk := &g.blocks[b]
	blk.node.blocks[g.idx] = -1
	p.release(blk.node)
	blk.node = nil
	p.evictions++
}

func (g *group) lruPush(b int32) {
	blk := &g.blocks[b]
	blk.prev, blk.next = g.tail, -1
	if g.tail >= 0 {
		g.blocks[g.tail].next = b
	} else {
		g.head = b
	}
	g.tail = b
	g.nlru++
}

func (g *group) lruRemove(b int32) {
	blk := &g.blocks[b]
	if blk.prev >= 0 {
		g.blocks[blk.prev].next = blk.next
	} else {
		g.head = blk.next
	}
	if blk.next >= 0 {
		g.blocks[blk.next].prev = blk.prev
	} else {
		g.tail = blk.prev
	}
	blk.prev, blk.next = -1, -1
	g.nlru--
}
