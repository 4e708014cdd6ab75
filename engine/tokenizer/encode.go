package tokenizer

import "strings"

// encodeState is the scratch space of one Encode call.
type encodeState struct {
	cp         codepoints
	bufA, bufB []int32
	syms       []bpeSym
	heap       bigramHeap
	spmSyms    []spmSym
	spmHeap    spmHeap
	cache      map[string]uint64 // word -> span of its tokens in arena
	arena      []int32
	enc        []byte // a word in GPT-2's byte alphabet
}

// cached returns the tokens of a word merged earlier in this call.
func (st *encodeState) cached(w string) ([]int32, bool) {
	span, ok := st.cache[w]
	if !ok {
		return nil, false
	}
	return st.arena[span>>32 : span>>32+span&0xFFFFFFFF], true
}

// remember records the tokens of a short word for the rest of the call.
func (st *encodeState) remember(w string, toks []int32) {
	if len(st.cache) < maxCachedWords && len(w) <= maxCachedWordLen {
		st.cache[w] = uint64(len(st.arena))<<32 | uint64(len(toks))
		st.arena = append(st.arena, toks...)
	}
}

func (t *Tokenizer) getState() *encodeState {
	if st, ok := t.states.Get().(*encodeState); ok {
		return st
	}
	return &encodeState{cache: map[string]uint64{}}
}

func (t *Tokenizer) putState(st *encodeState) {
	if len(st.cache) > 1<<12 {
		st.cache = map[string]uint64{} // do not keep a large map alive
	} else {
		clear(st.cache)
	}
	st.arena = st.arena[:0]
	st.cp.text = ""
	if cap(st.arena) > maxKeptScratch || cap(st.cp.cpts) > maxKeptScratch {
		return // let large buffers go
	}
	t.states.Put(st)
}

// maxKeptScratch bounds the buffers (in elements) an encodeState keeps
// for the next call.
const maxKeptScratch = 1 << 21

// fragment is a piece of the input: a special token already recognised
// (tok >= 0) or text still to tokenize.
type fragment struct {
	tok      int32
	off, len int
}

// Encode tokenizes text as llama.cpp's llama_tokenize(text, addSpecial,
// parseSpecial) does.
//
// addSpecial adds the tokens the vocabulary asks for around the text (BOS
// and EOS per tokenizer.ggml.add_bos_token/add_eos_token; BERT's CLS and
// SEP). A text that already starts with BOS then gets a second one, as in
// llama.cpp. parseSpecial makes the text of control tokens (such as
// "<|eot_id|>") encode as those tokens; user-defined tokens are always
// recognised.
//
// Fragments between special tokens longer than 1 GiB are tokenized in
// 1 GiB pieces, which llama.cpp cannot handle at all.
//
// Text need not be valid UTF-8. SPM tokenizes the raw bytes (with byte
// fallback); BPE and WPM, like llama.cpp, read each malformed byte as
// U+FFFD. A special token the vocabulary lacks (say addSpecial with no BOS
// id) is left out where llama.cpp would abort.
func (t *Tokenizer) Encode(text string, addSpecial, parseSpecial bool) []int32 {
	frags := t.partition(text, parseSpecial)
	out := make([]int32, 0, len(text)/3+4)
	st := t.getState()
	defer t.putState(st)
	switch t.model {
	case SPM:
		if addSpecial && t.addBOS && t.ids[SpecialBOS] >= 0 {
			out = append(out, t.ids[SpecialBOS])
		}
		prevSpecial := true
		var sb strings.Builder
		for _, f := range frags {
			if f.tok >= 0 {
				out = append(out, f.tok)
				prevSpecial = true
				continue
			}
			for i, part := range splitLong(text[f.off:f.off+f.len], maxFragment) {
				sb.Reset()
				if t.addSpacePrefix && prevSpecial && i == 0 {
					sb.WriteString("\u2581")
				}
				escapeSpaces(&sb, part)
				out = t.encodeSPM(sb.String(), out, st)
			}
			prevSpecial = false
		}
		if addSpecial && t.addEOS && t.ids[SpecialEOS] >= 0 {
			out = append(out, t.ids[SpecialEOS])
		}
	case BPE:
		var sb strings.Builder
		if addSpecial && t.addBOS && t.ids[SpecialBOS] >= 0 {
			out = append(out, t.ids[SpecialBOS])
		}
		for _, f := range frags {
			if f.tok >= 0 {
				out = append(out, f.tok)
				continue
			}
			for _, part := range splitLong(text[f.off:f.off+f.len], maxFragment) {
				if t.escapeWS {
					sb.Reset()
					escapeSpaces(&sb, part)
					part = sb.String()
				}
				out = t.encodeBPE(part, out, st)
			}
		}
		if addSpecial && t.addEOS && t.ids[SpecialEOS] >= 0 {
			out = append(out, t.ids[SpecialEOS])
		}
	case WPM:
		if addSpecial && t.ids[SpecialBOS] >= 0 {
			out = append(out, t.ids[SpecialBOS])
		}
		for _, f := range frags {
			if f.tok >= 0 {
				out = append(out, f.tok)
				continue
			}
			out = t.encodeWPM(text[f.off:f.off+f.len], out)
		}
		if addSpecial && t.ids[SpecialSEP] >= 0 {
			out = append(out, t.ids[SpecialSEP])
		}
	}
	return out
}

// maxFragment is the longest text fragment tokenized in one piece; the
// tokenizers index text with 32-bit offsets.
const maxFragment = 1 << 30

// splitLong cuts a fragment longer than limit bytes into pieces at UTF-8
// character starts. (llama.cpp cannot tokenize inputs this long at all.)
func splitLong(s string, limit int) []string {
	if len(s) <= limit {
		return []string{s}
	}
	var parts []string
	for len(s) > limit {
		cut := limit
		for c := limit; c > 0 && c >= limit-3; c-- {
			if s[c]&0xC0 != 0x80 {
				cut = c
				break
			}
		}
		parts = append(parts, s[:cut])
		s = s[cut:]
	}
	return append(parts, s)
}

// escapeSpaces writes s with every space replaced by U+2581.
func escapeSpaces(sb *strings.Builder, s string) {
	for {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			sb.WriteString(s)
			return
		}
		sb.WriteString(s[:i])
		sb.WriteString("\u2581")
		s = s[i+1:]
	}
}

// isCSpace is C's isspace in the "C" locale.
func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// partition splits text at the special tokens it contains, as llama.cpp's
// tokenizer_st_partition does: every control, user-defined and unknown
// token in turn, longest first, cuts each remaining text fragment at each
// of its occurrences. Without parseSpecial only user-defined tokens are
// looked for. A token with the lstrip (rstrip) attribute swallows the
// whitespace before (after) it.
func (t *Tokenizer) partition(text string, parseSpecial bool) []fragment {
	if text == "" {
		return nil
	}
	frags := []fragment{{tok: -1, off: 0, len: len(text)}}
	var present [256]bool
	for i := 0; i < len(text); i++ {
		present[text[i]] = true
	}
	var next []fragment
	for _, id := range t.specialCache {
		d := &t.tokens[id]
		if !parseSpecial && d.attr&(AttrControl|AttrUnknown) != 0 {
			continue
		}
		s := d.text
		if !present[s[0]] || !strings.Contains(text, s) {
			continue
		}
		next = next[:0]
		for _, f := range frags {
			if f.tok >= 0 {
				next = append(next, f)
				continue
			}
			base, n := f.off, f.len
			for {
				i := strings.Index(text[base:base+n], s)
				if i < 0 {
					next = append(next, fragment{tok: -1, off: base, len: n})
					break
				}
				match := base + i
				if match > base {
					left := match - base
					if d.attr&AttrLStrip != 0 {
						for left > 0 && isCSpace(text[base+left-1]) {
							left--
						}
					}
					if left > 0 {
						next = append(next, fragment{tok: -1, off: base, len: left})
					}
				}
				next = append(next, fragment{tok: id})
				end := match + len(s)
				if end >= base+n {
					break
				}
				roff, rlen := end, base+n-end
				if d.attr&AttrRStrip != 0 {
					for rlen > 0 && isCSpace(text[roff]) {
						roff++
						rlen--
					}
				}
				if rlen == 0 {
					break
				}
				base, n = roff, rlen
			}
		}
		frags, next = next, frags
	}
	return frags
}
