package sample

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Patterns: a JSON Schema pattern is an ECMAScript regular expression
// that a string must contain a match of. schemaConv.pattern compiles the
// subset llama.cpp handles, and a little more: alternation, groups ((...), (?:...),
// (?<name>...)), the quantifiers * + ? {n} {n,} {n,m} (lazy ones alike),
// classes with ranges and negation, '.', the escapes \d \w \s (and \D \W
// \S outside classes), \t \n \r \f \v \0 \xHH \uHHHH \u{H...} and escaped
// punctuation. Without ^ (or $) the match may start (or end) anywhere in
// the string. Lookarounds, backreferences, word boundaries and anchors
// inside the pattern are not supported: the string is then any string,
// with a log line, as llama.cpp does. A pattern that is not a regular
// expression at all is an error.
//
// The grammar matches the string's JSON text: a literal '"' or '\' of
// the pattern is written escaped, and classes leave out the characters
// JSON must escape (quotes, backslashes, control characters), so the
// text is always valid JSON.

// errUnsupported marks a valid pattern with no grammar equivalent.
var errUnsupported = errors.New("unsupported")

// pattern returns the body of a string rule for pattern, "" when the
// pattern is valid but not supported.
func (s *schemaConv) pattern(pattern, rule string) (string, error) {
	p := &reParser{src: pattern}
	body, err := p.compile(s)
	if errors.Is(err, errUnsupported) {
		return "", nil
	}
	return body, err
}

// reNode is a node of a parsed pattern.
type reNode struct {
	kind   byte // 'c' a character set, 's' a sequence, 'a' alternatives, 'r' a repetition
	ranges []rune
	neg    bool
	kids   []*reNode
	lo, hi int // repetition bounds, hi -1: none
}

// reParser parses one pattern.
type reParser struct {
	src   string
	pos   int
	depth int
}

// compile parses the whole pattern and writes it as GBNF.
func (p *reParser) compile(s *schemaConv) (string, error) {
	start := strings.HasPrefix(p.src, "^")
	if start {
		p.pos++
	}
	n, err := p.alternatives()
	if err != nil {
		return "", err
	}
	end := false
	if p.pos < len(p.src) && p.src[p.pos] == '$' && p.pos == len(p.src)-1 {
		end = true
		p.pos++
	}
	if p.pos < len(p.src) {
		if p.src[p.pos] == ')' {
			return "", fmt.Errorf("unbalanced parenthesis at %d", p.pos)
		}
		return "", fmt.Errorf("%w: %q at %d", errUnsupported, p.src[p.pos], p.pos)
	}
	char := s.prim("char")
	body := `"\"" `
	if !start {
		body += char + "* "
	}
	body += "(" + reGBNF(n) + ")"
	if !end {
		body += " " + char + "*"
	}
	return body + ` "\""`, nil
}

// alternatives parses a|b|...
func (p *reParser) alternatives() (*reNode, error) {
	if p.depth++; p.depth > 100 {
		return nil, fmt.Errorf("%w: nested too deep", errUnsupported)
	}
	defer func() { p.depth-- }()
	alt := &reNode{kind: 'a'}
	for {
		seq, err := p.sequence()
		if err != nil {
			return nil, err
		}
		alt.kids = append(alt.kids, seq)
		if p.pos >= len(p.src) || p.src[p.pos] != '|' {
			return alt, nil
		}
		p.pos++
	}
}

// sequence parses items up to '|', ')' or the end.
func (p *reParser) sequence() (*reNode, error) {
	seq := &reNode{kind: 's'}
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		var item *reNode
		switch c {
		case '|', ')':
			return seq, nil
		case '$':
			if p.pos == len(p.src)-1 {
				return seq, nil
			}
			return nil, fmt.Errorf("%w: anchor inside the pattern", errUnsupported)
		case '^':
			return nil, fmt.Errorf("%w: anchor inside the pattern", errUnsupported)
		case '(':
			p.pos++
			if strings.HasPrefix(p.src[p.pos:], "?:") {
				p.pos += 2
			} else if strings.HasPrefix(p.src[p.pos:], "?<") && !strings.HasPrefix(p.src[p.pos:], "?<=") && !strings.HasPrefix(p.src[p.pos:], "?<!") {
				end := strings.IndexByte(p.src[p.pos:], '>')
				if end < 0 {
					return nil, fmt.Errorf("unterminated group name at %d", p.pos)
				}
				p.pos += end + 1
			} else if strings.HasPrefix(p.src[p.pos:], "?") {
				return nil, fmt.Errorf("%w: group (%s", errUnsupported, p.src[p.pos:min(p.pos+3, len(p.src))])
			}
			inner, err := p.alternatives()
			if err != nil {
				return nil, err
			}
			if p.pos >= len(p.src) || p.src[p.pos] != ')' {
				return nil, fmt.Errorf("unbalanced parenthesis")
			}
			p.pos++
			item = inner
		case '[':
			set, err := p.class()
			if err != nil {
				return nil, err
			}
			item = set
		case '.':
			p.pos++
			item = &reNode{kind: 'c', neg: true, ranges: []rune{'\n', '\n', '\r', '\r', 0x2028, 0x2029}}
		case '\\':
			set, err := p.escape(false)
			if err != nil {
				return nil, err
			}
			item = set
		case '*', '+', '?', '{':
			if c == '{' && !p.isBound() {
				p.pos++
				item = &reNode{kind: 'c', ranges: []rune{'{', '{'}}
				break
			}
			return nil, fmt.Errorf("nothing to repeat at %d", p.pos)
		default:
			r, n := utf8.DecodeRuneInString(p.src[p.pos:])
			p.pos += n
			item = &reNode{kind: 'c', ranges: []rune{r, r}}
		}
		item, err := p.quantifier(item)
		if err != nil {
			return nil, err
		}
		seq.kids = append(seq.kids, item)
	}
	return seq, nil
}

// isBound reports whether a '{' at the cursor starts a {n}, {n,} or {n,m}.
func (p *reParser) isBound() bool {
	end := strings.IndexByte(p.src[p.pos:], '}')
	if end < 0 {
		return false
	}
	lo, hi, ok := strings.Cut(p.src[p.pos+1:p.pos+end], ",")
	digits := func(s string) bool {
		for _, c := range s {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	return lo != "" && digits(lo) && (!ok || digits(hi))
}

// quantifier applies a quantifier at the cursor, if any, to item.
func (p *reParser) quantifier(item *reNode) (*reNode, error) {
	for p.pos < len(p.src) {
		lo, hi := 0, 0
		switch p.src[p.pos] {
		case '*':
			lo, hi = 0, -1
			p.pos++
		case '+':
			lo, hi = 1, -1
			p.pos++
		case '?':
			lo, hi = 0, 1
			p.pos++
		case '{':
			if !p.isBound() {
				return item, nil
			}
			end := p.pos + strings.IndexByte(p.src[p.pos:], '}')
			a, b, comma := strings.Cut(p.src[p.pos+1:end], ",")
			p.pos = end + 1
			var err error
			if lo, err = strconv.Atoi(a); err != nil {
				return nil, fmt.Errorf("%w: bound %q", errUnsupported, a)
			}
			hi = lo
			if comma {
				hi = -1
				if b != "" {
					if hi, err = strconv.Atoi(b); err != nil {
						return nil, fmt.Errorf("%w: bound %q", errUnsupported, b)
					}
				}
			}
			if hi >= 0 && hi < lo {
				return nil, fmt.Errorf("numbers out of order in {%d,%d}", lo, hi)
			}
			if lo > gMaxRepeat {
				return nil, fmt.Errorf("%w: repetition of %d", errUnsupported, lo)
			}
			if hi > gMaxRepeat {
				hi = -1
			}
		default:
			return item, nil
		}
		if item.kind == 'r' {
			return nil, fmt.Errorf("nothing to repeat at %d", p.pos-1)
		}
		if p.pos < len(p.src) && p.src[p.pos] == '?' { // lazy: the same strings
			p.pos++
		}
		item = &reNode{kind: 'r', kids: []*reNode{item}, lo: lo, hi: hi}
	}
	return item, nil
}

// class parses [...] at the cursor.
func (p *reParser) class() (*reNode, error) {
	start := p.pos
	p.pos++
	set := &reNode{kind: 'c'}
	if p.pos < len(p.src) && p.src[p.pos] == '^' {
		set.neg = true
		p.pos++
	}
	first := true
	for {
		if p.pos >= len(p.src) {
			return nil, fmt.Errorf("unterminated character class at %d", start)
		}
		if p.src[p.pos] == ']' && !first {
			p.pos++
			return set, nil
		}
		first = false
		lo, err := p.classAtom(set)
		if err != nil {
			return nil, err
		}
		if lo < 0 {
			continue // a class escape such as \d, already added
		}
		hi := lo
		if p.pos+1 < len(p.src) && p.src[p.pos] == '-' && p.src[p.pos+1] != ']' {
			p.pos++
			if hi, err = p.classAtom(set); err != nil {
				return nil, err
			}
			if hi < 0 {
				return nil, fmt.Errorf("%w: a class escape ends a range", errUnsupported)
			}
			if hi < lo {
				return nil, fmt.Errorf("range out of order in character class at %d", start)
			}
		}
		set.ranges = append(set.ranges, lo, hi)
	}
}

// classAtom reads one character of a class; a class escape (\d, \w, \s)
// is added to set and returns -1.
func (p *reParser) classAtom(set *reNode) (rune, error) {
	if p.src[p.pos] != '\\' {
		r, n := utf8.DecodeRuneInString(p.src[p.pos:])
		p.pos += n
		return r, nil
	}
	e, err := p.escape(true)
	if err != nil {
		return 0, err
	}
	if len(e.ranges) == 2 && e.ranges[0] == e.ranges[1] && !e.neg {
		return e.ranges[0], nil
	}
	if e.neg {
		return 0, fmt.Errorf("%w: negated class escape inside a class", errUnsupported)
	}
	set.ranges = append(set.ranges, e.ranges...)
	return -1, nil
}

// Class escapes.
var (
	reDigit = []rune{'0', '9'}
	reWord  = []rune{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}
	reSpace = []rune{'\t', '\r', ' ', ' ', 0xA0, 0xA0, 0x1680, 0x1680, 0x2000, 0x200A, 0x2028, 0x2029, 0x202F, 0x202F, 0x205F, 0x205F, 0x3000, 0x3000, 0xFEFF, 0xFEFF}
)

// escape parses a backslash escape at the cursor.
func (p *reParser) escape(inClass bool) (*reNode, error) {
	if p.pos+1 >= len(p.src) {
		return nil, fmt.Errorf("trailing backslash")
	}
	c := p.src[p.pos+1]
	p.pos += 2
	one := func(r rune) (*reNode, error) { return &reNode{kind: 'c', ranges: []rune{r, r}}, nil }
	switch c {
	case 'd', 'D':
		return &reNode{kind: 'c', ranges: reDigit, neg: c == 'D'}, nil
	case 'w', 'W':
		return &reNode{kind: 'c', ranges: reWord, neg: c == 'W'}, nil
	case 's', 'S':
		return &reNode{kind: 'c', ranges: reSpace, neg: c == 'S'}, nil
	case 't':
		return one('\t')
	case 'n':
		return one('\n')
	case 'r':
		return one('\r')
	case 'f':
		return one('\f')
	case 'v':
		return one('\v')
	case '0':
		return one(0)
	case 'b':
		if inClass {
			return one('\b')
		}
		return nil, fmt.Errorf("%w: word boundary \\b", errUnsupported)
	case 'x', 'u':
		digits := 2
		if c == 'u' {
			digits = 4
			if strings.HasPrefix(p.src[p.pos:], "{") {
				end := strings.IndexByte(p.src[p.pos:], '}')
				if end < 0 {
					return nil, fmt.Errorf("unterminated \\u{")
				}
				v, err := strconv.ParseUint(p.src[p.pos+1:p.pos+end], 16, 32)
				if err != nil || v > utf8.MaxRune {
					return nil, fmt.Errorf("bad escape \\u{%s}", p.src[p.pos+1:p.pos+end])
				}
				p.pos += end + 1
				return one(rune(v))
			}
		}
		if p.pos+digits > len(p.src) {
			return nil, fmt.Errorf("escape \\%c needs %d hex digits", c, digits)
		}
		v, err := strconv.ParseUint(p.src[p.pos:p.pos+digits], 16, 32)
		if err != nil {
			return nil, fmt.Errorf("escape \\%c needs %d hex digits", c, digits)
		}
		p.pos += digits
		return one(rune(v))
	}
	switch {
	case c >= '1' && c <= '9':
		return nil, fmt.Errorf("%w: backreference", errUnsupported)
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return nil, fmt.Errorf("%w: escape \\%c", errUnsupported, c)
	}
	r, n := utf8.DecodeRuneInString(p.src[p.pos-1:])
	p.pos += n - 1
	return one(r)
}

// reGBNF writes a parsed pattern as a GBNF expression.
func reGBNF(n *reNode) string {
	switch n.kind {
	case 'c':
		return jsonCharSet(n.ranges, n.neg)
	case 's':
		parts := make([]string, 0, len(n.kids))
		for _, k := range n.kids {
			parts = append(parts, reGBNF(k))
		}
		if len(parts) == 0 {
			return `""`
		}
		return strings.Join(parts, " ")
	case 'a':
		parts := make([]string, 0, len(n.kids))
		for _, k := range n.kids {
			parts = append(parts, reGBNF(k))
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return "(" + strings.Join(parts, " | ") + ")"
	}
	// 'r'
	inner := "(" + reGBNF(n.kids[0]) + ")"
	return repetition(inner, n.lo, max(n.hi, -1), "")
}

// jsonCharSet writes a set of characters as the JSON text of one of
// them: a single '"' or '\' escaped, and in a larger set only the
// characters JSON writes as themselves (no quote, backslash or control
// character).
func jsonCharSet(ranges []rune, neg bool) string {
	if !neg && len(ranges) == 2 && ranges[0] == ranges[1] {
		if r := ranges[0]; r == '"' || r == '\\' || r < 0x20 || r == 0x7F {
			t := jsonText(string(r))
			if r == 0x7F {
				t = `"\u007f"`
			}
			return GrammarLiteral(t[1 : len(t)-1])
		}
		return GrammarLiteral(string(ranges[0]))
	}
	var b strings.Builder
	b.WriteByte('[')
	if neg {
		b.WriteString(`^"\\\x00-\x1F\x7F`)
		for i := 0; i+1 < len(ranges); i += 2 {
			writeRange(&b, ranges[i], ranges[i+1])
		}
		b.WriteByte(']')
		return b.String()
	}
	some := false
	for i := 0; i+1 < len(ranges); i += 2 {
		// Cut out what JSON escapes: 0x00-0x1F, '"', '\', 0x7F.
		for _, r := range clipRange(ranges[i], ranges[i+1]) {
			writeRange(&b, r[0], r[1])
			some = true
		}
	}
	if !some {
		return `[^\x00-\U0010FFFF]` // matches nothing
	}
	b.WriteByte(']')
	return b.String()
}

// clipRange returns [lo, hi] without the characters JSON escapes.
func clipRange(lo, hi rune) [][2]rune {
	var out [][2]rune
	for _, cut := range [][2]rune{{0, 0x1F}, {'"', '"'}, {'\\', '\\'}, {0x7F, 0x7F}, {math.MaxInt32, math.MaxInt32}} {
		if lo > hi {
			break
		}
		if hi < cut[0] {
			out = append(out, [2]rune{lo, hi})
			return out
		}
		if lo < cut[0] {
			out = append(out, [2]rune{lo, cut[0] - 1})
		}
		lo = max(lo, cut[1]+1)
	}
	return out
}

// writeRange writes lo-hi into a GBNF class.
func writeRange(b *strings.Builder, lo, hi rune) {
	b.WriteString(classRune(lo))
	if hi != lo {
		b.WriteString("-" + classRune(hi))
	}
}
