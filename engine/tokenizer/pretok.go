package tokenizer

import "fmt"

// preKind is a family of pre-tokenizers that split text the same way.
type preKind int

const (
	preDefault       preKind = iota // llama.cpp's fallback: punctuation runs, GPT-2, digit runs, digit triples
	preGPT2                         // GPT-2's regex
	preLlama3                       // Llama-3's regex (digits in groups of up to three)
	preQwen2                        // Llama-3's regex with single digits
	preQwen35                       // Qwen2 with combining marks inside letter runs
	preStarCoder                    // single digits, then GPT-2
	preFalcon                       // punctuation runs, GPT-2, digit triples
	preDeepSeekLLM                  // DeepSeek LLM's chain of splits
	preDeepSeekCoder                // DeepSeek Coder's chain of splits
	preGemma4                       // runs of newlines and runs of anything else, over raw UTF-8 with U+2581 for spaces
)

// preSpec is what a tokenizer.ggml.pre name selects.
type preSpec struct {
	kind         preKind
	ignoreMerges bool // a word that is itself a token is not merged
	addBOS       bool // add_bos defaults to true
	keepSpaces   bool // clean_up_tokenization_spaces is off
	noBOS        bool // the default BOS id is disabled
	escapeWS     bool // spaces become U+2581 and words stay raw UTF-8 (no byte-level alphabet)
}

// lookupPre maps a pre-tokenizer name to its spec, as llama.cpp's loader
// does. Names llama.cpp knows whose splitting rules this package does not
// implement give an ErrUnsupported error.
func lookupPre(name string) (preSpec, error) {
	switch name {
	case "", "default":
		return preSpec{kind: preDefault}, nil
	case "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano":
		return preSpec{kind: preLlama3, ignoreMerges: true, addBOS: true}, nil
	case "dbrx", "smaug-bpe":
		return preSpec{kind: preLlama3}, nil
	case "glm4", "chatglm-bpe":
		return preSpec{kind: preLlama3, noBOS: true}, nil
	case "deepseek-llm":
		return preSpec{kind: preDeepSeekLLM, keepSpaces: true}, nil
	case "deepseek-coder":
		return preSpec{kind: preDeepSeekCoder, keepSpaces: true}, nil
	case "falcon":
		return preSpec{kind: preFalcon}, nil
	case "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
		"modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "mpt", "olmo", "jais", "exaone4":
		return preSpec{kind: preGPT2}, nil
	case "trillion", "granite-docling":
		return preSpec{kind: preGPT2, keepSpaces: true}, nil
	case "starcoder", "refact", "codeshell", "exaone", "minerva-7b", "mellum2":
		return preSpec{kind: preStarCoder}, nil
	case "command-r", "smollm":
		return preSpec{kind: preStarCoder, keepSpaces: true}, nil
	case "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "hunyuan", "solar-open", "grok-2":
		return preSpec{kind: preQwen2, keepSpaces: true}, nil
	case "stablelm2", "megrez":
		return preSpec{kind: preQwen2}, nil
	case "qwen35":
		return preSpec{kind: preQwen35, keepSpaces: true}, nil
	case "gemma4", "granite-embed-multi-311m":
		return preSpec{kind: preGemma4, escapeWS: true}, nil
	case "minicpm5", "deepseek-v3", "youtu", "jais-2", "sarvam-moe",
		"whitespace", "poro-chat", "viking", "tekken", "bloom", "gpt3-finnish", "chameleon", "gpt-4o",
		"llama4", "kanana2", "talkie", "granite-embed-multi-97m", "tiny_aya", "cohere2moe", "superbpe",
		"bailingmoe", "bailingmoe2", "llada-moe", "seed-coder", "hunyuan-dense", "joyai-llm", "kimi-k2",
		"afmoe", "laguna", "minimax-m2":
		return preSpec{}, fmt.Errorf("%w pre-tokenizer %q", ErrUnsupported, name)
	}
	return preSpec{}, fmt.Errorf("tokenizer: unknown pre-tokenizer type %q", name)
}

// splitter splits the code points [lo, hi) of c into words, appending the
// end offset of each word to out.
type splitter func(c *codepoints, lo, hi int, out []int32) []int32

// stagesOf returns the chain of splits of a pre-tokenizer: each stage splits
// every word of the previous one. The chains follow the regex lists in
// llama.cpp's llm_tokenizer_bpe, where llama.cpp's own hand-written
// splitters exist for GPT-2, Llama-3 and Qwen2, and std::regex runs the
// others over text whose code points are collapsed to their class.
func stagesOf(k preKind) []splitter {
	switch k {
	case preGPT2:
		return []splitter{splitGPT2}
	case preLlama3:
		return []splitter{splitLlama3}
	case preQwen2:
		return []splitter{splitQwen2}
	case preQwen35:
		return []splitter{splitQwen35}
	case preGemma4:
		return []splitter{isolateRuns(isNewline)}
	case preStarCoder:
		return []splitter{isolateEach(isNumber), splitGPT2}
	case preFalcon:
		return []splitter{isolateRuns(isFalconPunct), splitGPT2, isolateTriples}
	case preDeepSeekLLM:
		return []splitter{
			isolateEach(isCRLF),
			isolateOptSpaceRuns(deepseekLetter),
			isolateOptSpaceRuns(deepseekPunct),
			isolateTrailingSpace,
			isolateRuns(deepseekCJK),
			isolateRuns(isNumber),
		}
	case preDeepSeekCoder:
		return []splitter{
			isolateEach(isCRLF),
			isolateOptSpaceRuns(isLetter),
			isolateOptSpaceRuns(isPunct),
			isolateRuns(deepseekCJK),
			isolateEach(isNumber),
		}
	}
	return []splitter{isolateRuns(isDefaultPunct), splitGPT2, isolateRuns(isNumber), isolateTriples}
}

// pretokenize splits c into words and returns their end offsets, valid
// until the next call with the same state.
func pretokenize(stages []splitter, c *codepoints, st *encodeState) []int32 {
	cur := st.bufA[:0]
	if len(c.cpts) == 0 {
		return cur
	}
	cur = append(cur, int32(len(c.cpts)))
	for _, split := range stages {
		next := st.bufB[:0]
		lo := 0
		for _, end := range cur {
			next = split(c, lo, int(end), next)
			lo = int(end)
		}
		st.bufA, st.bufB = next, cur
		cur = next
	}
	return cur
}

// A class predicate looks at code point i of c.
type classPred func(c *codepoints, i int) bool

func isNumber(c *codepoints, i int) bool { return c.flags[i]&cfNumber != 0 }
func isLetter(c *codepoints, i int) bool { return c.flags[i]&cfLetter != 0 }
func isPunct(c *codepoints, i int) bool  { return c.flags[i]&cfPunct != 0 }
func isSpace(c *codepoints, i int) bool  { return c.flags[i]&cfWhitespace != 0 }
func isCRLF(c *codepoints, i int) bool   { return c.cpts[i] == '\r' || c.cpts[i] == '\n' }

// isNewline is "\n" alone, Gemma 4's split ("[^\n]+|[\n]+").
func isNewline(c *codepoints, i int) bool { return c.cpts[i] == '\n' }

// isFalconPunct is Falcon's [\p{P}\$\+<=>\^~\|`].
func isFalconPunct(c *codepoints, i int) bool {
	switch c.cpts[i] {
	case '$', '+', '<', '=', '>', '^', '~', '|', '`':
		return true
	}
	return isPunct(c, i)
}

// isDefaultPunct is the default pre-tokenizer's [\p{P}\$\+<=>\^~\|].
func isDefaultPunct(c *codepoints, i int) bool {
	return c.cpts[i] != '`' && isFalconPunct(c, i)
}

// inRanges reports whether r lies in one of the sorted-or-not ranges.
func inRanges(r rune, ranges [][2]rune) bool {
	for _, x := range ranges {
		if x[0] <= r && r <= x[1] {
			return true
		}
	}
	return false
}

// wideChar is the code point that llama.cpp's std::wregex path matches a
// literal character class against: non-ASCII whitespace is replaced by a
// vertical tab first.
func wideChar(c *codepoints, i int) rune {
	r := c.cpts[i]
	if r > 0x7F && c.flags[i]&cfWhitespace != 0 {
		return 0x0B
	}
	return r
}

// The character classes of the DeepSeek LLM pre-tokenizer, from its
// tokenizer.json (llama.cpp's LLAMA_VOCAB_PRE_TYPE_DEEPSEEK_LLM regexes).
var (
	deepseekLetterRanges = [][2]rune{
		{0x41, 0x5A}, {0x61, 0x7A}, {0xB5, 0xB5}, {0xC0, 0xD6}, {0xD8, 0xF6}, {0xF8, 0x1BA}, {0x1BC, 0x1BF},
		{0x1C4, 0x293}, {0x295, 0x2AF}, {0x370, 0x373}, {0x376, 0x377}, {0x37B, 0x37D}, {0x37F, 0x37F},
		{0x386, 0x386}, {0x388, 0x38A}, {0x38C, 0x38C}, {0x38E, 0x3A1}, {0x3A3, 0x3F5}, {0x3F7, 0x481},
		{0x48A, 0x52F}, {0x531, 0x556}, {0x10A0, 0x10C5}, {0x13A0, 0x13F5}, {0x13F8, 0x13FD},
		{0x1C90, 0x1CBA}, {0x1CBD, 0x1CBF}, {0x1D00, 0x1D2B}, {0x1D6B, 0x1D77}, {0x1D79, 0x1D9A},
		{0x1E00, 0x1F15}, {0x1F18, 0x1F1D}, {0x1F20, 0x1F45}, {0x1F48, 0x1F4D}, {0x1F50, 0x1F57},
		{0x1F59, 0x1F59}, {0x1F5B, 0x1F5B}, {0x1F5D, 0x1F5D}, {0x1F5F, 0x1F7D}, {0x1F80, 0x1FB4},
		{0x1FB6, 0x1FBC}, {0x1FBE, 0x1FBE}, {0x1FC2, 0x1FC4}, {0x1FC6, 0x1FCC}, {0x1FD0, 0x1FD3},
		{0x1FD6, 0x1FDB}, {0x1FE0, 0x1FEC}, {0x1FF2, 0x1FF4}, {0x1FF6, 0x1FFC}, {0x2102, 0x2102},
		{0x2107, 0x2107}, {0x210A, 0x2113}, {0x2115, 0x2115}, {0x2119, 0x211D}, {0x2124, 0x2124},
		{0x2126, 0x2126}, {0x2128, 0x2128}, {0x212A, 0x212D}, {0x212F, 0x2134}, {0x2139, 0x2139},
		{0x213C, 0x213F}, {0x2145, 0x2149}, {0x214E, 0x214E}, {0x2183, 0x2184}, {0x2C00, 0x2C7B},
		{0x2C7E, 0x2CE4}, {0x2CEB, 0x2CEE}, {0x2CF2, 0x2CF3}, {0xA640, 0xA66D}, {0xA680, 0xA69B},
		{0xA722, 0xA76F}, {0xA771, 0xA787}, {0xA78B, 0xA78E}, {0xAB70, 0xABBF}, {0xFB00, 0xFB06},
		{0xFB13, 0xFB17}, {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A}, {0x10400, 0x1044F}, {0x104B0, 0x104D3},
		{0x104D8, 0x104FB}, {0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF}, {0x1E900, 0x1E943},
	}
	deepseekPunctRanges = [][2]rune{
		{0x21, 0x2F}, {0x3A, 0x7E}, {0xFF01, 0xFF0F}, {0xFF1A, 0xFF5E}, {0x2018, 0x201F}, {0x3000, 0x3002},
	}
	// [一-龥ࠀ-一가-퟿], shared with DeepSeek Coder.
	deepseekCJKRanges = [][2]rune{{0x4E00, 0x9FA5}, {0x0800, 0x4E00}, {0xAC00, 0xD7FF}}
)

func deepseekLetter(c *codepoints, i int) bool {
	r := wideChar(c, i)
	if r < 0x80 {
		return 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z'
	}
	return inRanges(r, deepseekLetterRanges)
}

func deepseekPunct(c *codepoints, i int) bool { return inRanges(wideChar(c, i), deepseekPunctRanges) }
func deepseekCJK(c *codepoints, i int) bool   { return inRanges(wideChar(c, i), deepseekCJKRanges) }

// matcher finds the leftmost match in [p, hi), as std::regex_search would.
type matcher func(c *codepoints, p, hi int) (start, end int, ok bool)

// isolate makes a splitter that cuts every match out as its own word and
// keeps the text between matches as words too, like llama.cpp's
// unicode_regex_split_stl.
func isolate(m matcher) splitter {
	return func(c *codepoints, lo, hi int, out []int32) []int32 {
		p := lo
		for p < hi {
			s, e, ok := m(c, p, hi)
			if !ok {
				break
			}
			if s > p {
				out = append(out, int32(s))
			}
			out = append(out, int32(e))
			p = e
		}
		if p < hi {
			out = append(out, int32(hi))
		}
		return out
	}
}

// isolateEach isolates every code point of a class (regex "X").
func isolateEach(pred classPred) splitter {
	return isolate(func(c *codepoints, p, hi int) (int, int, bool) {
		for i := p; i < hi; i++ {
			if pred(c, i) {
				return i, i + 1, true
			}
		}
		return 0, 0, false
	})
}

// isolateRuns isolates every run of a class (regex "X+").
func isolateRuns(pred classPred) splitter {
	return isolate(func(c *codepoints, p, hi int) (int, int, bool) {
		for i := p; i < hi; i++ {
			if pred(c, i) {
				j := i + 1
				for j < hi && pred(c, j) {
					j++
				}
				return i, j, true
			}
		}
		return 0, 0, false
	})
}

// isolateOptSpaceRuns isolates runs of a class with an optional whitespace
// character in front (regex "\s?X+").
func isolateOptSpaceRuns(pred classPred) splitter {
	return isolate(func(c *codepoints, p, hi int) (int, int, bool) {
		for i := p; i < hi; i++ {
			start := -1
			switch {
			case isSpace(c, i) && i+1 < hi && pred(c, i+1):
				start = i + 1
			case pred(c, i):
				start = i
			}
			if start < 0 {
				continue
			}
			j := start + 1
			for j < hi && pred(c, j) {
				j++
			}
			return i, j, true
		}
		return 0, 0, false
	})
}

// isolateTriples isolates runs of three ASCII digits ("[0-9][0-9][0-9]").
var isolateTriples = isolate(func(c *codepoints, p, hi int) (int, int, bool) {
	digit := func(i int) bool { return c.cpts[i] >= '0' && c.cpts[i] <= '9' }
	for i := p; i+2 < hi; i++ {
		if digit(i) && digit(i+1) && digit(i+2) {
			return i, i + 3, true
		}
	}
	return 0, 0, false
})

// isolateTrailingSpace isolates the whitespace at the end ("\s+$").
var isolateTrailingSpace = isolate(func(c *codepoints, p, hi int) (int, int, bool) {
	j := hi
	for j > p && isSpace(c, j-1) {
		j--
	}
	if j == hi {
		return 0, 0, false
	}
	return j, hi, true
})

// wordSplitter walks [lo, hi) the way llama.cpp's hand-written splitters
// do: flags and code points outside the range read as zero and "none".
type wordSplitter struct {
	c        *codepoints
	lo, hi   int
	prev     int
	out      []int32
	maxDigit int // digits per number word (Llama-3: 3); 0 means unlimited
}

const outOfRange = -1

func (w *wordSplitter) cpt(i int) rune {
	if i >= w.lo && i < w.hi {
		return w.c.cpts[i]
	}
	return outOfRange
}

func (w *wordSplitter) flags(i int) uint16 {
	if i >= w.lo && i < w.hi {
		return w.c.flags[i]
	}
	return 0
}

// add ends a word at end and returns its length.
// spaceRunEnd returns where the pre-tokenizer regexes' common tail
// `\s+(?!\S)|\s+|.` ends for a word starting at pos that begins with nws
// whitespace code points: a run of spaces followed by more text leaves its
// last space to the next word; a run at the end of the text, or a single
// space, is one word; no whitespace means a lone code point.
func (w *wordSplitter) spaceRunEnd(pos, nws int) int {
	switch {
	case nws > 1 && w.cpt(pos+nws) != outOfRange:
		return pos + nws - 1
	case nws > 0:
		return pos + nws
	default:
		return pos + 1
	}
}

func (w *wordSplitter) add(end int) int {
	n := end - w.prev
	if n > 0 {
		w.out = append(w.out, int32(end))
	}
	w.prev = end
	return n
}

// splitGPT2 is GPT-2's regex:
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func splitGPT2(c *codepoints, lo, hi int, out []int32) []int32 {
	w := wordSplitter{c: c, lo: lo, hi: hi, prev: lo, out: out}
	const lnw = cfLetter | cfNumber | cfWhitespace
	for pos := lo; pos < hi; {
		r := w.cpt(pos)
		f := w.flags(pos)
		if r == '\'' && pos+1 < hi {
			n := w.cpt(pos + 1)
			if n == 's' || n == 't' || n == 'm' || n == 'd' {
				pos += w.add(pos + 2)
				continue
			}
			if pos+2 < hi {
				nn := w.cpt(pos + 2)
				if (n == 'r' && nn == 'e') || (n == 'v' && nn == 'e') || (n == 'l' && nn == 'l') {
					pos += w.add(pos + 3)
					continue
				}
			}
		}
		f2 := f
		if r == ' ' {
			f2 = w.flags(pos + 1)
		}
		if f2&cfLetter != 0 || f2&cfNumber != 0 {
			class := f2 & (cfLetter | cfNumber) // a code point has one class
			if r == ' ' {
				pos++
			}
			for f2&class != 0 {
				pos++
				f2 = w.flags(pos)
			}
			w.add(pos)
			continue
		}
		if f2&lnw == 0 && f2 != 0 {
			if r == ' ' {
				pos++
			}
			for f2&lnw == 0 && f2 != 0 {
				pos++
				f2 = w.flags(pos)
			}
			w.add(pos)
			continue
		}
		nws := 0
		for w.flags(pos+nws)&cfWhitespace != 0 {
			nws++
		}
		pos = w.spaceRunEnd(pos, nws)
		w.add(pos)
	}
	return w.out
}

// splitLlama3 is Llama-3's regex:
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitLlama3(c *codepoints, lo, hi int, out []int32) []int32 {
	w := wordSplitter{c: c, lo: lo, hi: hi, prev: lo, out: out, maxDigit: 3}
	return w.splitLlama3Like(false)
}

// splitQwen2 is Qwen2's regex, Llama-3's with \p{N} instead of \p{N}{1,3}.
func splitQwen2(c *codepoints, lo, hi int, out []int32) []int32 {
	w := wordSplitter{c: c, lo: lo, hi: hi, prev: lo, out: out, maxDigit: 1}
	return w.splitLlama3Like(false)
}

// splitQwen35 is Qwen3.5's regex, Qwen2's with combining marks (\p{M})
// counted with letters.
func splitQwen35(c *codepoints, lo, hi int, out []int32) []int32 {
	w := wordSplitter{c: c, lo: lo, hi: hi, prev: lo, out: out, maxDigit: 1}
	return w.splitLlama3Like(true)
}

func (w *wordSplitter) splitLlama3Like(marks bool) []int32 {
	letter := cfLetter
	if marks {
		letter |= cfMark
	}
	lnw := letter | cfNumber | cfWhitespace
	for pos := w.lo; pos < w.hi; {
		r := w.cpt(pos)
		f := w.flags(pos)
		if r == '\'' && pos+1 < w.hi {
			n := toLower(w.cpt(pos + 1))
			if n == 's' || n == 't' || n == 'm' || n == 'd' {
				pos += w.add(pos + 2)
				continue
			}
			if pos+2 < w.hi {
				nn := toLower(w.cpt(pos + 2))
				if (n == 'r' && nn == 'e') || (n == 'v' && nn == 'e') || (n == 'l' && nn == 'l') {
					pos += w.add(pos + 3)
					continue
				}
			}
		}
		// [^\r\n\p{L}\p{N}]?\p{L}+
		if !(r == '\r' || r == '\n' || f&cfNumber != 0) {
			if f&letter != 0 || w.flags(pos+1)&letter != 0 {
				pos++
				for w.flags(pos)&letter != 0 {
					pos++
				}
				w.add(pos)
				continue
			}
		}
		// \p{N}{1,3}
		if f&cfNumber != 0 {
			ini := pos
			for w.flags(pos)&cfNumber != 0 {
				pos++
				if pos-ini >= w.maxDigit {
					w.add(pos)
					ini = pos
				}
			}
			w.add(pos)
			continue
		}
		// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
		f2 := f
		if r == ' ' {
			f2 = w.flags(pos + 1)
		}
		if f2&lnw == 0 && f != 0 {
			if r == ' ' {
				pos++
			}
			for f2&lnw == 0 && f2 != 0 {
				pos++
				f2 = w.flags(pos)
			}
			for r2 := w.cpt(pos); r2 == '\r' || r2 == '\n'; r2 = w.cpt(pos) {
				pos++
			}
			w.add(pos)
			continue
		}
		nws, lastCRLF := 0, 0
		for w.flags(pos+nws)&cfWhitespace != 0 {
			if r2 := w.cpt(pos + nws); r2 == '\r' || r2 == '\n' {
				lastCRLF = pos + nws + 1
			}
			nws++
		}
		// \s*[\r\n]+
		if lastCRLF > 0 {
			pos = lastCRLF
			w.add(pos)
			continue
		}
		pos = w.spaceRunEnd(pos, nws)
		w.add(pos)
	}
	return w.out
}
