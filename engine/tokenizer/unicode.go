package tokenizer

import (
	"slices"
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Code point classes, as llama.cpp's unicode tables define them: exactly one
// general-category class per code point, plus a separate whitespace bit.
const (
	cfUndefined  uint16 = 1 << 0 // Cn: unassigned
	cfNumber     uint16 = 1 << 1 // \p{N}
	cfLetter     uint16 = 1 << 2 // \p{L}
	cfSeparator  uint16 = 1 << 3 // \p{Z}
	cfMark       uint16 = 1 << 4 // \p{M}
	cfPunct      uint16 = 1 << 5 // \p{P}
	cfSymbol     uint16 = 1 << 6 // \p{S}
	cfControl    uint16 = 1 << 7 // \p{C} except Cn
	cfWhitespace uint16 = 1 << 8 // the White_Space property
)

// unicode151 lists the code points that Unicode 15.1 assigned after 15.0.
// llama.cpp's tables (and so the reference tokenizations) follow 15.1, while
// Go's unicode package is at 15.0.0; TestUnicodeVersion guards the gap.
var unicode151 = []struct {
	lo, hi rune
	flags  uint16
}{
	{0x2FFC, 0x2FFF, cfSymbol},   // ideographic description characters
	{0x31EF, 0x31EF, cfSymbol},   // CJK stroke HXG
	{0x2EBF0, 0x2EE5D, cfLetter}, // CJK Unified Ideographs Extension I
}

// whitespaceRunes is the White_Space property (PropList.txt), the set
// llama.cpp's \s matches.
var whitespaceRunes = []rune{
	0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680,
	0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A,
	0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
}

// flagRange is a run of supplementary-plane code points with equal flags.
type flagRange struct {
	lo, hi rune
	flags  uint16
}

// flagTables holds the class of every code point: a direct table for the
// Basic Multilingual Plane and sorted ranges above it.
type flagTables struct {
	bmp  [0x10000]uint16
	high []flagRange
}

// classTables is built once, on first use, and only read afterwards.
var classTables = sync.OnceValue(func() *flagTables {
	const maxRune = 0x110000
	all := make([]uint16, maxRune)
	for i := range all {
		all[i] = cfUndefined
	}
	paint := func(t *unicode.RangeTable, f uint16) {
		for _, r := range t.R16 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				all[c] = f
			}
		}
		for _, r := range t.R32 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				all[c] = f
			}
		}
	}
	// Not unicode.C, which also holds the unassigned code points (Cn).
	for _, c := range []*unicode.RangeTable{unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs} {
		paint(c, cfControl)
	}
	paint(unicode.L, cfLetter)
	paint(unicode.M, cfMark)
	paint(unicode.N, cfNumber)
	paint(unicode.P, cfPunct)
	paint(unicode.S, cfSymbol)
	paint(unicode.Z, cfSeparator)
	for _, o := range unicode151 {
		for c := o.lo; c <= o.hi; c++ {
			all[c] = o.flags
		}
	}
	for _, c := range whitespaceRunes {
		all[c] |= cfWhitespace
	}
	t := &flagTables{}
	copy(t.bmp[:], all[:0x10000])
	for c := rune(0x10000); c < maxRune; {
		f := all[c]
		end := c + 1
		for end < maxRune && all[end] == f {
			end++
		}
		t.high = append(t.high, flagRange{c, end - 1, f})
		c = end
	}
	return t
})

// asciiFlags is the class of each ASCII byte, for the hot paths.
var asciiFlags = func() (a [128]uint16) {
	for c := range a {
		r := rune(c)
		switch {
		case unicode.IsLetter(r):
			a[c] = cfLetter
		case unicode.IsNumber(r):
			a[c] = cfNumber
		case unicode.IsPunct(r):
			a[c] = cfPunct
		case unicode.IsSymbol(r):
			a[c] = cfSymbol
		case r == ' ':
			a[c] = cfSeparator
		default:
			a[c] = cfControl
		}
	}
	for _, c := range whitespaceRunes[:6] {
		a[c] |= cfWhitespace
	}
	return a
}()

// cptFlags returns llama.cpp's classification of code point c; values
// outside Unicode's range are undefined.
func cptFlags(c rune) uint16 {
	if c >= 0 && c < 0x80 {
		return asciiFlags[c]
	}
	t := classTables()
	if c >= 0 && c < 0x10000 {
		return t.bmp[c]
	}
	h := t.high
	i := sort.Search(len(h), func(i int) bool { return h[i].hi >= c })
	if i < len(h) && h[i].lo <= c {
		return h[i].flags
	}
	return cfUndefined
}

// utf8Len is the length of the UTF-8 sequence that lead byte b announces,
// the way llama.cpp's unicode_len_utf8 reads it: continuation and invalid
// bytes count as one.
func utf8Len(b byte) int {
	switch b >> 4 {
	case 0xC, 0xD:
		return 2
	case 0xE:
		return 3
	case 0xF:
		return 4
	}
	return 1
}

// decodeRune decodes one code point at s[i:] the way llama.cpp's
// unicode_cpt_from_utf8 does: lead bytes and continuation bytes are checked
// but overlong forms and surrogates are accepted. It returns ok=false for a
// malformed sequence (the caller substitutes U+FFFD and skips one byte).
// Values above U+10FFFF, which llama.cpp cannot re-encode, are malformed here.
func decodeRune(s string, i int) (r rune, size int, ok bool) {
	b0 := s[i]
	switch {
	case b0 < 0x80:
		return rune(b0), 1, true
	case b0&0x40 == 0:
		return 0, 0, false
	case b0&0x20 == 0:
		if i+1 >= len(s) || s[i+1]&0xC0 != 0x80 {
			return 0, 0, false
		}
		return rune(b0&0x1F)<<6 | rune(s[i+1]&0x3F), 2, true
	case b0&0x10 == 0:
		if i+2 >= len(s) || s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 {
			return 0, 0, false
		}
		return rune(b0&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), 3, true
	case b0&0x08 == 0:
		if i+3 >= len(s) || s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 || s[i+3]&0xC0 != 0x80 {
			return 0, 0, false
		}
		r = rune(b0&0x07)<<18 | rune(s[i+1]&0x3F)<<12 | rune(s[i+2]&0x3F)<<6 | rune(s[i+3]&0x3F)
		if r > unicode.MaxRune {
			return 0, 0, false
		}
		return r, 4, true
	}
	return 0, 0, false
}

// appendRune appends the UTF-8 encoding of c as llama.cpp's
// unicode_cpt_to_utf8 writes it; unlike utf8.AppendRune it encodes
// surrogates as three bytes instead of replacing them.
func appendRune(b []byte, c rune) []byte {
	switch {
	case c < 0x80:
		return append(b, byte(c))
	case c < 0x800:
		return append(b, 0xC0|byte(c>>6), 0x80|byte(c&0x3F))
	case c < 0x10000:
		return append(b, 0xE0|byte(c>>12), 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
	}
	return append(b, 0xF0|byte(c>>18), 0x80|byte(c>>12&0x3F), 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
}

// codepoints is a text decoded into code points, with each code point's
// class and byte offset in the normalized (re-encoded) text.
type codepoints struct {
	text  string   // the text, re-encoded from cpts when the input was not canonical UTF-8
	cpts  []rune   // code points; malformed input bytes become U+FFFD each
	flags []uint16 // cptFlags of each code point
	offs  []int32  // byte offset of each code point in text, plus len(text) at the end
}

// decode fills c from s, reusing c's slices.
func (c *codepoints) decode(s string) {
	c.cpts = slices.Grow(c.cpts[:0], len(s))
	c.flags = slices.Grow(c.flags[:0], len(s))
	c.offs = slices.Grow(c.offs[:0], len(s)+1)
	if utf8.ValidString(s) {
		c.text = s
		for i, r := range s {
			c.cpts = append(c.cpts, r)
			c.offs = append(c.offs, int32(i))
		}
	} else {
		buf := make([]byte, 0, len(s)+16)
		for i := 0; i < len(s); {
			r, n, ok := decodeRune(s, i)
			if !ok {
				r, n = utf8.RuneError, 1
			}
			c.cpts = append(c.cpts, r)
			c.offs = append(c.offs, int32(len(buf)))
			buf = appendRune(buf, r)
			i += n
		}
		c.text = string(buf)
	}
	c.offs = append(c.offs, int32(len(c.text)))
	for _, r := range c.cpts {
		c.flags = append(c.flags, cptFlags(r))
	}
}

// decodeCodepoints is llama.cpp's unicode_cpts_from_utf8.
func decodeCodepoints(s string) []rune {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, n, ok := decodeRune(s, i)
		if !ok {
			r, n = utf8.RuneError, 1
		}
		out = append(out, r)
		i += n
	}
	return out
}

// toLower is llama.cpp's unicode_tolower: the simple lowercase mapping of
// UnicodeData.txt (Go's unicode.ToLower uses the same data).
func toLower(c rune) rune {
	if c < 0x80 {
		if 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	return unicode.ToLower(c)
}

// nfdFirst maps c to the first code point of its canonical decomposition
// (NFD), the approximation llama.cpp's unicode_cpts_normalize_nfd makes.
func nfdFirst(c rune) rune {
	if c < 0xC0 || (c >= 0xD800 && c < 0xE000) || c > unicode.MaxRune {
		return c
	}
	s := string(c)
	if norm.NFD.IsNormalString(s) {
		return c
	}
	r, _ := utf8.DecodeRuneInString(norm.NFD.String(s))
	return r
}
