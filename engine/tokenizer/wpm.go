package tokenizer

// encodeWPM appends the tokens of a text fragment, as llama.cpp's
// llm_tokenizer_wpm_session does: normalize and split into words, then
// cover each word (with a leading U+2581) by longest-match tokens; a word
// that cannot be covered becomes the unknown token.
func (t *Tokenizer) encodeWPM(text string, out []int32) []int32 {
	for _, word := range t.wpmWords(text) {
		w := "\u2581" + word
		n := len(w)
		cur := len(out)
		for i := 0; i < n; i++ {
			match := false
			for j := min(n, i+t.maxTokenLen+1); j > i; j-- {
				if id, ok := t.byText[w[i:j]]; ok {
					out = append(out, id)
					match = true
					i = j - 1
					break
				}
			}
			if !match {
				out = out[:cur]
				break
			}
		}
		if len(out) == cur && t.ids[SpecialUNK] >= 0 {
			out = append(out, t.ids[SpecialUNK])
		}
	}
	return out
}

// wpmWords is BERT's pre-tokenization as llama.cpp does it: optional NFD
// with accent stripping, optional lowercasing, control characters dropped,
// whitespace separating words, and every punctuation character, ASCII
// symbol and CJK ideograph a word by itself.
func (t *Tokenizer) wpmWords(text string) []string {
	cpts := decodeCodepoints(text)
	var words []string
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	for _, c := range cpts {
		if t.stripAccent {
			c = nfdFirst(c)
		}
		f := cptFlags(c)
		if f&cfWhitespace != 0 {
			flush()
			continue
		}
		if c == 0 || c == 0xFFFD || f&cfControl != 0 {
			continue
		}
		if t.stripAccent && f&cfMark != 0 {
			continue
		}
		out := c
		if t.lowercase {
			out = toLower(c)
		}
		if f&cfPunct != 0 || (c < 0x7F && f&cfSymbol != 0) || isChineseChar(c) {
			flush()
			words = append(words, string(appendRune(nil, out)))
			continue
		}
		cur = appendRune(cur, out)
	}
	flush()
	return words
}

// isChineseChar is BERT's CJK test (with llama.cpp's and Hugging Face's
// 0x2B920 bound).
func isChineseChar(c rune) bool {
	return c >= 0x4E00 && c <= 0x9FFF ||
		c >= 0x3400 && c <= 0x4DBF ||
		c >= 0x20000 && c <= 0x2A6DF ||
		c >= 0x2A700 && c <= 0x2B73F ||
		c >= 0x2B740 && c <= 0x2B81F ||
		c >= 0x2B920 && c <= 0x2CEAF ||
		c >= 0xF900 && c <= 0xFAFF ||
		c >= 0x2F800 && c <= 0x2FA1F
}
