package tokenizer

import (
	"fmt"
	"strings"
)

// spmSym is a symbol of the SPM merge: bytes [start, start+n) of the text.
type spmSym struct {
	start, n   int32
	prev, next int32
}

// spmBigram is a candidate merge; the merged text is a token with score.
type spmBigram struct {
	score       float32
	left, right int32
	size        int32
}

// spmHeap is a binary max-heap: highest score first, then leftmost.
type spmHeap []spmBigram

func (x *spmBigram) before(y *spmBigram) bool {
	return x.score > y.score || x.score == y.score && x.left < y.left
}

func (h *spmHeap) push(x spmBigram) {
	*h = append(*h, x)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].before(&s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *spmHeap) pop() spmBigram {
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
		if r := l + 1; r < n && s[r].before(&s[l]) {
			m = r
		}
		if !s[m].before(&s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// spmByteTokens finds the byte-fallback token of every byte: <0xNN>, else
// the byte itself as a token, else the unknown token (llama.cpp fails
// there), else none (-1).
func (t *Tokenizer) spmByteTokens() (out [256]int32) {
	for i := range out {
		if id, ok := t.byText[byteTokenText(byte(i))]; ok {
			out[i] = id
		} else if id, ok := t.byText[string([]byte{byte(i)})]; ok {
			out[i] = id
		} else {
			out[i] = t.ids[SpecialUNK]
		}
	}
	return out
}

// byteTokenText is the text of the byte-fallback token of b, "<0xNN>".
func byteTokenText(b byte) string { return fmt.Sprintf("<0x%02X>", b) }

// spmSpace is the escaped space, U+2581.
const spmSpace = "\u2581"

// spmJoiners collects, for every occurrence of U+2581 inside a token (or,
// for Gemma 4's BPE, a string a merge makes) after its first byte, the 1
// to 4 bytes before it. A U+2581 in the text that follows a character not
// in this set can never be merged with what comes before it, which lets
// encodeSPM and encodeBPE work word by word.
func (t *Tokenizer) spmJoiners() map[string]bool {
	m := map[string]bool{}
	add := func(s string) {
		for off := 1; off < len(s); {
			i := strings.Index(s[off:], spmSpace)
			if i < 0 {
				break
			}
			i += off
			for k := 1; k <= 4 && k <= i; k++ {
				m[s[i-k:i]] = true
			}
			off = i + 1
		}
	}
	for _, d := range t.tokens {
		add(d.text)
	}
	if t.bpe != nil {
		for s := range t.bpe.extra {
			add(s)
		}
	}
	return m
}

// mergeFunc appends the tokens of one word to out: mergeSPM or encodeWord.
type mergeFunc func(t *Tokenizer, w string, out []int32, st *encodeState) []int32

// mergeCached merges one word with merge, using the per-call cache.
func (t *Tokenizer) mergeCached(w string, out []int32, st *encodeState, merge mergeFunc) []int32 {
	if toks, ok := st.cached(w); ok {
		return append(out, toks...)
	}
	n0 := len(out)
	out = merge(t, w, out, st)
	st.remember(w, out[n0:])
	return out
}

// splitAtSpaces merges (mergeCached) each piece of an escaped text cut
// before every U+2581 that no merge can join to the character before it
// (see spmJoiners).
func (t *Tokenizer) splitAtSpaces(text string, out []int32, st *encodeState, merge mergeFunc) []int32 {
	seg, prev := 0, 0
	for offs := 0; offs < len(text); {
		n := min(utf8Len(text[offs]), len(text)-offs)
		if offs > seg && n == len(spmSpace) && text[offs:offs+n] == spmSpace && !t.spmJoin[text[prev:offs]] {
			out = t.mergeCached(text[seg:offs], out, st, merge)
			seg = offs
		}
		prev = offs
		offs += n
	}
	if seg < len(text) {
		out = t.mergeCached(text[seg:], out, st, merge)
	}
	return out
}

// encodeSPM appends the tokens of an escaped text fragment (spaces already
// replaced by U+2581), as llama.cpp's llm_tokenizer_spm_session does: start
// from single UTF-8 characters and repeatedly merge the adjacent pair whose
// concatenation is the highest-scoring token (leftmost on ties); pieces
// that are not tokens fall back to byte tokens.
//
// llama.cpp merges over the whole fragment at once. Merges never cross a
// U+2581 that follows a character no token has before a U+2581 (see
// spmJoiners), and merges on the two sides of such a point do not affect
// each other, so the fragment is cut there into words that are merged (and
// cached) separately, with the same result.
func (t *Tokenizer) encodeSPM(text string, out []int32, st *encodeState) []int32 {
	return t.splitAtSpaces(text, out, st, (*Tokenizer).mergeSPM)
}

// mergeSPM is llama.cpp's SPM merge over one piece of text.
func (t *Tokenizer) mergeSPM(text string, out []int32, st *encodeState) []int32 {
	syms := st.spmSyms[:0]
	for offs := 0; offs < len(text); {
		n := min(utf8Len(text[offs]), len(text)-offs)
		idx := int32(len(syms))
		next := idx + 1
		if offs+n == len(text) {
			next = -1
		}
		syms = append(syms, spmSym{start: int32(offs), n: int32(n), prev: idx - 1, next: next})
		offs += n
	}
	if len(syms) == 0 {
		return out
	}
	h := st.spmHeap[:0]
	try := func(l, r int32) {
		if l < 0 || r < 0 {
			return
		}
		s := text[syms[l].start : syms[l].start+syms[l].n+syms[r].n]
		id, ok := t.byText[s]
		if !ok {
			return
		}
		h.push(spmBigram{score: t.tokens[id].score, left: l, right: r, size: int32(len(s))})
	}
	for i := int32(1); i < int32(len(syms)); i++ {
		try(i-1, i)
	}
	for len(h) > 0 {
		bg := h.pop()
		l, r := &syms[bg.left], &syms[bg.right]
		if l.n == 0 || r.n == 0 || l.n+r.n != bg.size {
			continue // stale
		}
		l.n += r.n
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = bg.left
		}
		try(l.prev, bg.left)
		try(bg.left, l.next)
	}
	for i := int32(0); i != -1; i = syms[i].next {
		s := text[syms[i].start : syms[i].start+syms[i].n]
		if id, ok := t.byText[s]; ok {
			out = append(out, id)
			continue
		}
		for j := 0; j < len(s); j++ {
			if id := t.spmBytes[s[j]]; id >= 0 {
				out = append(out, id)
			}
		}
	}
	st.spmSyms, st.spmHeap = syms, h
	return out
}
