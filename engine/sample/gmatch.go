package sample

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// GrammarConstraint matches text against a Grammar incrementally, for
// constrained decoding: Allows asks without changing anything, Advance
// appends, Complete says whether the text may end here, and Mask tests a
// whole vocabulary at once.
//
// It is a nondeterministic pushdown recogniser: its state is the set of
// stacks of grammar positions the text so far can be in, each stack's top
// a character set. Stacks are hash-consed (a stack is a position and the
// stack below it), sets of them are interned, and the transitions between
// sets are cached byte by byte as a lazily built DFA, with the UTF-8
// decoding of a code point split across bytes (and tokens) as part of the
// state. A vocabulary walk through a TokenTrie is then mostly table
// lookups: the string loop of a JSON grammar, for one, maps a set to
// itself.
//
// Memory is bounded: stacks deeper than gMaxDepth, sets of more than
// gMaxStacks stacks and expansions of more than gMaxWork steps are
// refused (the text is not allowed), and the caches are rebuilt from the
// current state when they grow past their limits. A GrammarConstraint is
// not safe for concurrent use.
type GrammarConstraint struct {
	g *Grammar

	nodes  []snode // nodes[0] is the empty stack
	depth  []int32
	nodeIx map[snode]int32

	sets  [][]int32 // sorted stack ids
	setIx map[string]int32

	states  []dstate
	stateIx map[dkey]int32
	cur     int32

	// advIx caches advance: which stacks of a set a code point moves
	// (bit i: the set's stack i) decides the set after it, so that the
	// many characters of a string's class expand once.
	advIx map[advKey]int32

	// masks keeps the vocabulary masks of the last states masked (over
	// the trie maskTrie), oldest first in maskOrder: a string's loop
	// comes back to the same state step after step.
	masks     map[int32][]uint64
	maskOrder []int32
	maskTrie  *TokenTrie

	out  []int32 // scratch: the stacks of a new set
	path []int32 // scratch: the states along a trie walk
	key  []byte  // scratch: a set's interning key
	work int     // expansion steps of the current transition
	over bool    // the current transition hit a limit
}

// Limits of a GrammarConstraint.
const (
	gMaxDepth  = 2048    // grammar positions on one stack
	gMaxStacks = 4096    // stacks in one set
	gMaxWork   = 1 << 16 // expansion steps of one transition
	gMaxStates = 1 << 13 // cached DFA states before the cache is rebuilt
	gMaxNodes  = 1 << 18 // stack nodes before the cache is rebuilt
	gHardCap   = 2       // a walk may pass the limits by this factor, then refuses
	gMaxMasks  = 16      // vocabulary masks kept
)

// snode is a stack: the grammar position on top and the stack below.
type snode struct{ pos, parent int32 }

// dkey is a DFA state: a set of stacks and a code point being decoded
// (need more UTF-8 bytes, the next one in [lo, hi]).
type dkey struct {
	set    int32
	cp     rune
	need   uint8
	lo, hi uint8
}

// dstate is a DFA state and its cached transitions: next[b] is the state
// after byte b plus 2; 1 is a refusal, 0 not computed yet. In the middle
// of a code point only continuation bytes can follow, and next has 64
// entries, for 0x80 to 0xBF.
type dstate struct {
	key  dkey
	next []int32
}

// advKey is a set and which of its stacks a code point moved.
type advKey struct {
	set   int32
	moved uint64
}

// dead is the state of a refused byte.
const dead = -1

// NewGrammarConstraint returns a constraint at the start of g's root.
func NewGrammarConstraint(g *Grammar) *GrammarConstraint {
	c := &GrammarConstraint{g: g}
	c.reset(nil)
	return c
}

// reset empties the caches and makes stacks (each bottom first) the
// current set, keeping the current state's partial code point; nil
// stacks is the start of root.
func (c *GrammarConstraint) reset(stacks [][]int32) {
	var k dkey
	if len(c.states) > 0 {
		k = c.states[c.cur].key
	}
	c.nodes = append(c.nodes[:0], snode{-1, -1})
	c.depth = append(c.depth[:0], 0)
	c.nodeIx = map[snode]int32{}
	c.sets = nil
	c.setIx = map[string]int32{}
	c.states = nil // drop the transition tables
	c.stateIx = map[dkey]int32{}
	c.advIx = map[advKey]int32{}
	c.masks, c.maskOrder = map[int32][]uint64{}, c.maskOrder[:0]
	c.out = c.out[:0]
	c.work, c.over = 0, false
	if stacks == nil {
		for _, a := range c.g.alts[c.g.root] {
			c.expand(a, 0)
		}
	} else {
		for _, st := range stacks {
			n := int32(0)
			for _, pos := range st {
				n = c.node(pos, n)
			}
			c.out = append(c.out, n)
		}
	}
	k.set = c.intern()
	if k.set < 0 { // the start itself is over a limit: nothing is allowed
		k.set = c.internSet([]int32{})
	}
	c.cur = c.state(k)
}

// compact rebuilds the caches when they have grown past their limits.
func (c *GrammarConstraint) compact() {
	if len(c.states) <= gMaxStates && len(c.nodes) <= gMaxNodes {
		return
	}
	var stacks [][]int32
	for _, n := range c.sets[c.states[c.cur].key.set] {
		var st []int32
		for ; n != 0; n = c.nodes[n].parent {
			st = append(st, c.nodes[n].pos)
		}
		slices.Reverse(st)
		stacks = append(stacks, st)
	}
	c.reset(stacks)
}

// node returns the stack of pos on top of parent; c.over is set when it
// would be too deep.
func (c *GrammarConstraint) node(pos, parent int32) int32 {
	k := snode{pos, parent}
	if n, ok := c.nodeIx[k]; ok {
		return n
	}
	d := c.depth[parent] + 1
	if d > gMaxDepth || len(c.nodes) >= gMaxNodes*gHardCap {
		c.over = true
		return 0
	}
	n := int32(len(c.nodes))
	c.nodes = append(c.nodes, k)
	c.depth = append(c.depth, d)
	c.nodeIx[k] = n
	return n
}

// expand adds to c.out the stacks that continue at pos over parent, each
// with a character set on top (or the empty stack: the text may end).
func (c *GrammarConstraint) expand(pos, parent int32) {
	for {
		if c.work++; c.work > gMaxWork || len(c.out) > gMaxStacks {
			c.over = true
			return
		}
		e := &c.g.elems[pos]
		switch e.kind {
		case gEnd:
			if parent == 0 {
				c.out = append(c.out, 0)
				return
			}
			pos, parent = c.nodes[parent].pos, c.nodes[parent].parent
		case gChar:
			c.out = append(c.out, c.node(pos, parent))
			return
		default: // gRef
			ret := parent
			if c.g.elems[pos+1].kind != gEnd { // else a tail call: nothing to return to
				ret = c.node(pos+1, parent)
			}
			for _, a := range c.g.alts[e.ref] {
				c.expand(a, ret)
			}
			return
		}
	}
}

// intern makes the stacks in c.out a set and returns its id, or -1 when
// the expansion was over a limit.
func (c *GrammarConstraint) intern() int32 {
	if c.over {
		c.out, c.work, c.over = c.out[:0], 0, false
		return -1
	}
	slices.Sort(c.out)
	c.out = slices.Compact(c.out)
	id := c.internSet(c.out)
	c.out, c.work = c.out[:0], 0
	return id
}

// internSet returns the id of the set of sorted stacks.
func (c *GrammarConstraint) internSet(s []int32) int32 {
	c.key = c.key[:0]
	for _, n := range s {
		c.key = binary.LittleEndian.AppendUint32(c.key, uint32(n))
	}
	if id, ok := c.setIx[string(c.key)]; ok {
		return id
	}
	id := int32(len(c.sets))
	c.sets = append(c.sets, slices.Clone(s))
	c.setIx[string(c.key)] = id
	return id
}

// state returns the id of DFA state k, or dead when the cache is over
// its hard limit.
func (c *GrammarConstraint) state(k dkey) int32 {
	if id, ok := c.stateIx[k]; ok {
		return id
	}
	if len(c.states) >= gMaxStates*gHardCap {
		return dead
	}
	id := int32(len(c.states))
	c.states = append(c.states, dstate{key: k})
	c.stateIx[k] = id
	return id
}

// step returns the state after byte b from state s, or dead.
func (c *GrammarConstraint) step(s int32, b byte) int32 {
	switch t := c.states[s].next; len(t) {
	case 256:
		if n := t[b]; n != 0 {
			return n - 2
		}
	case 64:
		if b < 0x80 || b > 0xBF {
			return dead
		}
		if n := t[b-0x80]; n != 0 {
			return n - 2
		}
	}
	return c.stepSlow(s, b)
}

// stepSlow computes and caches a transition.
func (c *GrammarConstraint) stepSlow(s int32, b byte) int32 {
	n := c.transition(c.states[s].key, b)
	st := &c.states[s]
	if st.key.need == 0 {
		if st.next == nil {
			st.next = make([]int32, 256)
		}
		st.next[b] = n + 2
	} else if b >= 0x80 && b <= 0xBF {
		if st.next == nil {
			st.next = make([]int32, 64)
		}
		st.next[b-0x80] = n + 2
	}
	return n
}

// transition computes the state after byte b from k.
func (c *GrammarConstraint) transition(k dkey, b byte) int32 {
	if k.need == 0 {
		switch {
		case b < 0x80:
			return c.advance(k.set, rune(b))
		case b >= 0xC2 && b <= 0xDF:
			k = dkey{k.set, rune(b & 0x1F), 1, 0x80, 0xBF}
		case b == 0xE0:
			k = dkey{k.set, rune(b & 0x0F), 2, 0xA0, 0xBF}
		case b == 0xED:
			k = dkey{k.set, rune(b & 0x0F), 2, 0x80, 0x9F}
		case b >= 0xE1 && b <= 0xEF:
			k = dkey{k.set, rune(b & 0x0F), 2, 0x80, 0xBF}
		case b == 0xF0:
			k = dkey{k.set, rune(b & 0x07), 3, 0x90, 0xBF}
		case b >= 0xF1 && b <= 0xF3:
			k = dkey{k.set, rune(b & 0x07), 3, 0x80, 0xBF}
		case b == 0xF4:
			k = dkey{k.set, rune(b & 0x07), 3, 0x80, 0x8F}
		default:
			return dead
		}
	} else {
		if b < k.lo || b > k.hi {
			return dead
		}
		k = dkey{k.set, k.cp<<6 | rune(b&0x3F), k.need - 1, 0x80, 0xBF}
		if k.need == 0 {
			return c.advance(k.set, k.cp)
		}
	}
	// A partial code point: go on only if some stack can take one of the
	// code points it may become.
	// The next byte is in [k.lo, k.hi], which bounds the code point from
	// below too (no overlong forms).
	shift := 6 * uint(k.need-1)
	lo := (k.cp<<6 | rune(k.lo&0x3F)) << shift
	hi := (k.cp<<6|rune(k.hi&0x3F))<<shift | (1<<shift - 1)
	for _, n := range c.sets[k.set] {
		if n != 0 && c.g.elems[c.nodes[n].pos].overlaps(lo, hi) {
			return c.state(k)
		}
	}
	return dead
}

// advance returns the state after code point r from set.
func (c *GrammarConstraint) advance(set int32, r rune) int32 {
	stacks := c.sets[set]
	var key advKey
	if len(stacks) <= 64 {
		key.set = set
		for i, n := range stacks {
			if n != 0 && c.g.elems[c.nodes[n].pos].matches(r) {
				key.moved |= 1 << i
			}
		}
		if key.moved == 0 {
			return dead
		}
		if s, ok := c.advIx[key]; ok {
			return s
		}
	}
	for i, n := range stacks {
		if n == 0 || key.moved != 0 && key.moved&(1<<i) == 0 {
			continue
		}
		nd := c.nodes[n]
		if key.moved != 0 || c.g.elems[nd.pos].matches(r) {
			c.expand(nd.pos+1, nd.parent)
		}
	}
	s := int32(dead)
	if len(c.out) == 0 {
		c.over, c.work = false, 0
	} else if id := c.intern(); id >= 0 {
		s = c.state(dkey{set: id})
	}
	if key.moved != 0 {
		c.advIx[key] = s
	}
	return s
}

// walk feeds text from state s and returns the state after it, or dead.
func (c *GrammarConstraint) walk(s int32, text string) int32 {
	for i := 0; i < len(text) && s >= 0; i++ {
		s = c.step(s, text[i])
	}
	return s
}

// Allows reports whether appending text keeps the text a valid prefix of
// the grammar. It does not change the state.
func (c *GrammarConstraint) Allows(text string) bool {
	c.compact()
	return c.walk(c.cur, text) >= 0
}

// Advance appends text. If text is not allowed it returns an error and
// leaves the state as it was.
func (c *GrammarConstraint) Advance(text string) error {
	c.compact()
	s := c.cur
	for i := 0; i < len(text); i++ {
		if s = c.step(s, text[i]); s < 0 {
			return fmt.Errorf("sample: grammar rejects %q at byte %d", text, i)
		}
	}
	c.cur = s
	return nil
}

// Complete reports whether the text so far is a whole sentence of the
// grammar, so that the end of generation may be sampled.
func (c *GrammarConstraint) Complete() bool {
	k := c.states[c.cur].key
	s := c.sets[k.set]
	return k.need == 0 && len(s) > 0 && s[0] == 0
}

// Done reports whether nothing more may follow: the text is complete and
// no stack can take another character.
func (c *GrammarConstraint) Done() bool {
	k := c.states[c.cur].key
	s := c.sets[k.set]
	return k.need == 0 && len(s) == 1 && s[0] == 0
}

// Mask sets bit id of allow (allow[id/64] bit id%64) for every token of
// the trie whose text may come next, and clears the others; allow must
// have room for the trie's vocabulary. Tokens without text are never
// allowed: the end of generation is the caller's (see Complete).
func (c *GrammarConstraint) Mask(t *TokenTrie, allow []uint64) {
	c.compact()
	if c.maskTrie != t {
		c.masks, c.maskOrder, c.maskTrie = map[int32][]uint64{}, c.maskOrder[:0], t
	}
	if m, ok := c.masks[c.cur]; ok && len(m) == len(allow) {
		copy(allow, m)
		return
	}
	c.walkTrie(t, allow)
	var m []uint64
	if len(c.maskOrder) >= gMaxMasks {
		old := c.maskOrder[0]
		m = c.masks[old][:0] // reuse the oldest mask's memory
		delete(c.masks, old)
		c.maskOrder = append(c.maskOrder[:0], c.maskOrder[1:]...)
	}
	c.masks[c.cur] = append(m, allow...)
	c.maskOrder = append(c.maskOrder, c.cur)
}

// walkTrie sets the bits of allow for the trie's tokens that may come
// next, walking the trie from the current state.
func (c *GrammarConstraint) walkTrie(t *TokenTrie, allow []uint64) {
	clear(allow)
	if cap(c.path) < t.maxDepth+1 {
		c.path = make([]int32, t.maxDepth+1)
	}
	st := c.path[:t.maxDepth+1]
	st[0] = c.cur
	label, depth, end, tok, ids := t.label, t.depth, t.end, t.tok, t.ids
	for i := 1; i < len(label); {
		s := c.step(st[depth[i]-1], label[i])
		if s < 0 {
			i = int(end[i])
			continue
		}
		st[depth[i]] = s
		for _, id := range ids[tok[i]:tok[i+1]] {
			allow[id>>6] |= 1 << (id & 63)
		}
		i++
	}
}
