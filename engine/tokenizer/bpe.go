package tokenizer

import (
	"strings"
	"unicode/utf8"
)

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
	b, ok := appendByteLevel(nil, s)
	return string(b), ok
}

// appendByteLevel appends the bytes s stands for to dst.
func appendByteLevel(dst []byte, s string) ([]byte, bool) {
	for _, r := range s {
		if r < 0 || int(r) >= len(runeToByte) || runeToByte[r] < 0 {
			return dst, false
		}
		dst = append(dst, byte(runeToByte[r]))
	}
	return dst, true
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

// bpeTables are the BPE structures. The strings BPE works with (symbols)
// have ids: a token's id for a token text, and ids from nTok up for strings
// that merges name but the vocabulary lacks, so that merges are looked up
// by a pair of ids. A merge whose parts or result are not tokens still
// applies, as in llama.cpp's string-keyed merge table.
//
// Symbols are GPT-2 byte-level text, one character per byte of the word,
// except in raw mode (Gemma 4's SPM-style BPE): there they are the word's
// own UTF-8, one symbol per character to begin with, and a symbol that is
// no token falls back to the <0xNN> tokens of its bytes.
type bpeTables struct {
	nTok     int32
	raw      bool
	extra    map[string]int32 // text of a non-token merge string -> symbol id >= nTok
	ranks    map[uint64]merge // (left symbol, right symbol) -> merge
	byteSym  [256]int32       // symbol id of each single byte, or -1 (byte-level mode)
	fallback [256]int32       // token of each byte of a symbol that is no token, or -1
	stages   []splitter
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// inAlphabet reports whether every character of s is in GPT-2's byte
// alphabet, so that s can be the text of a BPE symbol.
func inAlphabet(s string) bool {
	for _, r := range s {
		if r < 0 || int(r) >= len(runeToByte) || runeToByte[r] < 0 {
			return false
		}
	}
	return true
}

// newBPETables builds the merge table of t's vocabulary; raw selects raw
// UTF-8 symbols over GPT-2's byte alphabet.
func newBPETables(t *Tokenizer, merges []string, raw bool) (*bpeTables, error) {
	n := int32(len(t.tokens))
	b := &bpeTables{
		nTok:   n,
		raw:    raw,
		extra:  map[string]int32{},
		ranks:  make(map[uint64]merge, len(merges)),
		stages: stagesOf(t.preKind),
	}
	// sym returns the id of a symbol text (a byte-level string); the token
	// map gives the last id with that text, as llama.cpp's does.
	sym := func(text []byte) int32 {
		if id, ok := t.byText[string(text)]; ok { // no allocation for the lookup
			return id
		}
		if id, ok := b.extra[string(text)]; ok {
			return id
		}
		id := n + int32(len(b.extra))
		b.extra[string(text)] = id
		return id
	}
	var buf []byte
	for rank, m := range merges {
		// llama.cpp splits at the first space after the first byte.
		sp := -1
		if len(m) > 1 {
			if i := strings.IndexByte(m[1:], ' '); i >= 0 {
				sp = i + 1
			}
		}
		if sp < 0 || sp == len(m)-1 {
			continue // an empty part (llama.cpp records it; it never matches)
		}
		left, right := m[:sp], m[sp+1:]
		if !raw && (!inAlphabet(left) || !inAlphabet(right)) {
			continue // no BPE symbol can ever equal this text
		}
		buf = append(append(buf[:0], left...), right...)
		key := pairKey(sym(buf[:len(left)]), sym(buf[len(left):]))
		if _, dup := b.ranks[key]; dup {
			continue // the first rank of a duplicated merge wins
		}
		b.ranks[key] = merge{rank: int32(rank), result: sym(buf)}
	}
	for i := range b.byteSym {
		b.byteSym[i] = -1
		if raw {
			b.fallback[i] = -1
			if id, ok := t.byText[byteTokenText(byte(i))]; ok {
				b.fallback[i] = id
			}
			continue
		}
		text := string(byteToRune[i])
		if id, ok := t.byText[text]; ok {
			b.byteSym[i] = id
		} else if id, ok := b.extra[text]; ok {
			b.byteSym[i] = id
		}
		b.fallback[i] = b.token(b.byteSym[i])
	}
	return b, nil
}

// symOf returns the symbol id of a text (raw mode), or -1 when the text is
// neither a token nor part of a merge.
func (b *bpeTables) symOf(t *Tokenizer, text string) int32 {
	if id, ok := t.byText[text]; ok {
		return id
	}
	if id, ok := b.extra[text]; ok {
		return id
	}
	return -1
}

// token returns the token of a symbol, or -1 when the symbol is no token.
func (b *bpeTables) token(sym int32) int32 {
	if sym >= 0 && sym < b.nTok {
		return sym
	}
	return -1
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
func (t *Tokenizer) encodeWord(w string, out []int32, st *encodeState) []int32 {
	b := t.bpe
	if t.ignoreMerges {
		st.enc = st.enc[:0]
		for i := 0; i < len(w); i++ {
			st.enc = utf8.AppendRune(st.enc, byteToRune[w[i]])
		}
		if id, ok := t.byText[string(st.enc)]; ok {
			return append(out, id)
		}
	}
	if t.preKind == preGemma4 && strings.Trim(w, "\n") == "" {
		// A run of newlines that is a token is taken whole (llama.cpp's
		// fix for Gemma 4, its PR 21343); merges could not build it.
		if id, ok := t.byText[w]; ok {
			return append(out, id)
		}
	}
	if len(w) == 1 && !b.raw {
		if tok := b.token(b.byteSym[w[0]]); tok >= 0 {
			out = append(out, tok)
		}
		return out
	}
	syms := st.syms[:0]
	if b.raw {
		for i := 0; i < len(w); {
			n := min(utf8Len(w[i]), len(w)-i)
			syms = append(syms, bpeSym{id: b.symOf(t, w[i:i+n]), start: int32(i), end: int32(i + n),
				prev: int32(len(syms) - 1), next: int32(len(syms) + 1)})
			i += n
		}
		syms[len(syms)-1].next = -1
	} else {
		for i := 0; i < len(w); i++ {
			next := int32(i + 1)
			if i == len(w)-1 {
				next = -1
			}
			syms = append(syms, bpeSym{id: b.byteSym[w[i]], start: int32(i), end: int32(i + 1), prev: int32(i - 1), next: next})
		}
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
		if tok := b.token(s.id); tok >= 0 {
			out = append(out, tok)
			continue
		}
		for j := s.start; j < s.end; j++ {
			if tok := b.fallback[w[j]]; tok >= 0 {
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
		if t.bpe.raw {
			// Gemma 4 merges whole lines; they are cut where no merge
			// can join, as encodeSPM cuts its text, with the same result.
			out = t.splitAtSpaces(w, out, st, (*Tokenizer).encodeWord)
			continue
		}
		out = t.mergeCached(w, out, st, (*Tokenizer).encodeWord)
	}
	return out
}

// Limits of the per-call word cache.
const (
	maxCachedWords   = 1 << 16
	maxCachedWordLen = 64
)
