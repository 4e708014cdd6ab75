package tokenizer

import "strings"

// GPT-2's byte alphabet: every byte has a printable stand-in character, so
// that byte-level BPE vocabularies can store arbitrary bytes as text.
// Printable Latin-1 bytes stand for themselves; the other 68 map to U+0100
// onwards in byte order.
var (
	byteToRune [256]rune
	runeToByte [0x144]int16 // -1 where the code point is not in the alphabet
)

func init() {
	for i := range runeToByte {
		runeToByte[i] = -1
	}
	n := rune(0)
	for b := 0; b < 256; b++ {
		if b >= 0x21 && b <= 0x7E || b >= 0xA1 && b <= 0xAC || b >= 0xAE {
			byteToRune[b] = rune(b)
		} else {
			byteToRune[b] = 256 + n
			n++
		}
		runeToByte[byteToRune[b]] = int16(b)
	}
}

// decodeByteLevel maps a byte-level BPE text to the bytes it stands for. ok
// is false when the text has a character outside the alphabet.
func decodeByteLevel(s string) (raw string, ok bool) {
	var buf []byte
	for _, r := range s {
		if r < 0 || int(r) >= len(runeToByte) || runeToByte[r] < 0 {
			return "", false
		}
		buf = append(buf, byte(runeToByte[r]))
	}
	return string(buf), true
}

// encodeByteLevel maps bytes to their byte-level BPE text.
func encodeByteLevel(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		b.WriteRune(byteToRune[raw[i]])
	}
	return b.String()
}

// merge is the outcome of merging a pair of symbols.
type merge struct {
	rank   int32 // position in tokenizer.ggml.merges; lower merges first
	result int32 // symbol id of the merged string
}

// bpeTables are the byte-level BPE structures. Symbols (the strings BPE
// works with) are interned to ids: every token text and every string a
// merge names, keyed by the raw bytes they stand for, so that merges are
// looked up by a pair of ids. A merge whose parts or result are not tokens
// still applies, as in llama.cpp's string-keyed merge table.
type bpeTables struct {
	intern  map[string]int32 // raw bytes -> symbol id
	symTok  []int32          // symbol id -> token id, or -1
	ranks   map[uint64]merge // (left symbol, right symbol) -> merge
	byteSym [256]int32       // symbol id of each single byte, or -1
	byteTok [256]int32       // token of each single byte, or -1
	stages  []splitter
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func newBPETables(t *Tokenizer, merges []string) (*bpeTables, error) {
	b := &bpeTables{
		intern: make(map[string]int32, len(t.tokens)+len(merges)/4),
		ranks:  make(map[uint64]merge, len(merges)),
		stages: stagesOf(t.preKind),
	}
	sym := func(raw string) int32 {
		if id, ok := b.intern[raw]; ok {
			return id
		}
		id := int32(len(b.symTok))
		b.intern[raw] = id
		b.symTok = append(b.symTok, -1)
		return id
	}
	for id, d := range t.tokens {
		if raw, ok := decodeByteLevel(d.text); ok {
			b.symTok[sym(raw)] = int32(id) // the last id with a text wins, as in llama.cpp
		}
	}
	for rank, m := range merges {
		// llama.cpp splits at the first space after the first byte.
		sp := -1
		if len(m) > 1 {
			if i := strings.IndexByte(m[1:], ' '); i >= 0 {
				sp = i + 1
			}
		}
		if sp < 0 {
			continue // llama.cpp records an empty pair, which never matches
		}
		left, okL := decodeByteLevel(m[:sp])
		right, okR := decodeByteLevel(m[sp+1:])
		if !okL || !okR || left == "" || right == "" {
			continue // no BPE symbol can ever equal this text
		}
		a, c := sym(left), sym(right)
		key := pairKey(a, c)
		if _, dup := b.ranks[key]; dup {
			continue // the first rank of a duplicated merge wins
		}
		b.ranks[key] = merge{rank: int32(rank), result: sym(left + right)}
	}
	for i := range b.byteSym {
		b.byteSym[i], b.byteTok[i] = -1, -1
		if id, ok := b.intern[string([]byte{byte(i)})]; ok {
			b.byteSym[i] = id
			b.byteTok[i] = b.symTok[id]
		}
	}
	return b, nil
}

// bpeSym is a symbol of the word being merged: bytes [start, end) of it.
type bpeSym struct {
	id         int32
	start, end int32
	prev, next int32
}

// bigram is a candidate merge of symbols left and right.
type bigram struct {
	rank        int32
	left, right int32
	a, b        int32 // the symbol ids when the candidate was made
	result      int32
}

// less orders candidates: lowest rank first, then leftmost.
func (x *bigram) less(y *bigram) bool {
	return x.rank < y.rank || x.rank == y.rank && x.left < y.left
}

// bigramHeap is a binary min-heap of candidates.
type bigramHeap []bigram

func (h *bigramHeap) push(x bigram) {
	*h = append(*h, x)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].less(&s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *bigramHeap) pop() bigram {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].less(&s[l]) {
			m = r
		}
		if !s[m].less(&s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// encodeWord appends the tokens of one pre-tokenized word (raw bytes),
// merging the lowest-ranked adjacent pair first, leftmost on ties, as
// llama.cpp's llm_tokenizer_bpe_session does.
func (b *bpeTables) encodeWord(ignoreMerges bool, w string, out []int32, st *encodeState) []int32 {
	if ignoreMerges {
		if id, ok := b.intern[w]; ok && b.symTok[id] >= 0 {
			return append(out, b.symTok[id])
		}
	}
	if len(w) == 1 {
		if tok := b.byteTok[w[0]]; tok >= 0 {
			out = append(out, tok)
		}
		return out
	}
	syms := st.syms[:0]
	for i := 0; i < len(w); i++ {
		next := int32(i + 1)
		if i == len(w)-1 {
			next = -1
		}
		syms = append(syms, bpeSym{id: b.byteSym[w[i]], start: int32(i), end: int32(i + 1), prev: int32(i - 1), next: next})
	}
	h := st.heap[:0]
	try := func(l, r int32) {
		if l < 0 || r < 0 {
			return
		}
		m, ok := b.ranks[pairKey(syms[l].id, syms[r].id)]
		if !ok {
			return
		}
		h.push(bigram{rank: m.rank, left: l, right: r, a: syms[l].id, b: syms[r].id, result: m.result})
	}
	for i := int32(1); i < int32(len(syms)); i++ {
		try(i-1, i)
	}
	for len(h) > 0 {
		bg := h.pop()
		l, r := &syms[bg.left], &syms[bg.right]
		if l.end == l.start || r.end == r.start || l.id != bg.a || r.id != bg.b {
			continue // stale: one side has merged since
		}
		l.id = bg.result
		l.end = r.end
		r.end = r.start
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = bg.left
		}
		try(l.prev, bg.left)
		try(bg.left, l.next)
	}
	for i := int32(0); i != -1; i = syms[i].next {
		s := &syms[i]
		if s.id >= 0 && b.symTok[s.id] >= 0 {
			out = append(out, b.symTok[s.id])
			continue
		}
		for j := s.start; j < s.end; j++ {
			if tok := b.byteTok[w[j]]; tok >= 0 {
				out = append(out, tok)
			}
		}
	}
	st.syms, st.heap = syms, h
	return out
}

// encodeBPE appends the tokens of a text fragment.
func (t *Tokenizer) encodeBPE(text string, out []int32, st *encodeState) []int32 {
	c := &st.cp
	c.decode(text)
	ends := pretokenize(t.bpe.stages, c, st)
	lo := 0
	for _, e := range ends {
		w := c.text[c.offs[lo]:c.offs[e]]
		lo = int(e)
		if span, ok := st.cache[w]; ok {
			out = append(out, st.arena[span>>32:span>>32+span&0xFFFFFFFF]...)
			continue
		}
		n0 := len(out)
		out = t.bpe.encodeWord(t.ignoreMerges, w, out, st)
		if len(st.cache) < maxCachedWords && len(w) <= maxCachedWordLen {
			st.cache[w] = uint64(len(st.arena))<<32 | uint64(len(out)-n0)
			st.arena = append(st.arena, out[n0:]...)
		}
	}
	return out
}

// Limits of the per-call word cache.
const (
	maxCachedWords   = 1 << 16
	maxCachedWordLen = 64
)
