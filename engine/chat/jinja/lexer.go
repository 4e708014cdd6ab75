package jinja

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is a lexical token type; operator tokens use Jinja's names.
type tokKind uint8

const (
	tEOF tokKind = iota
	tData
	tVarBegin
	tVarEnd
	tBlockBegin
	tBlockEnd
	tName
	tString
	tInt
	tFloat
	// operators
	tAdd      // +
	tSub      // -
	tMul      // *
	tDiv      // /
	tFloorDiv // //
	tMod      // %
	tPow      // **
	tTilde    // ~
	tLBracket
	tRBracket
	tLParen
	tRParen
	tLBrace
	tRBrace
	tEq     // ==
	tNe     // !=
	tGt     // >
	tGtEq   // >=
	tLt     // <
	tLtEq   // <=
	tAssign // =
	tDot
	tColon
	tPipe
	tComma
	tSemicolon
)

var tokNames = [...]string{
	tEOF: "end of template", tData: "template data", tVarBegin: "begin of print statement",
	tVarEnd: "end of print statement", tBlockBegin: "begin of statement block",
	tBlockEnd: "end of statement block", tName: "name", tString: "string", tInt: "integer",
	tFloat: "float", tAdd: "'+'", tSub: "'-'", tMul: "'*'", tDiv: "'/'", tFloorDiv: "'//'",
	tMod: "'%'", tPow: "'**'", tTilde: "'~'", tLBracket: "'['", tRBracket: "']'",
	tLParen: "'('", tRParen: "')'", tLBrace: "'{'", tRBrace: "'}'", tEq: "'=='", tNe: "'!='",
	tGt: "'>'", tGtEq: "'>='", tLt: "'<'", tLtEq: "'<='", tAssign: "'='", tDot: "'.'",
	tColon: "':'", tPipe: "'|'", tComma: "','", tSemicolon: "';'",
}

func (k tokKind) String() string { return tokNames[k] }

type token struct {
	kind tokKind
	line int
	str  string // data, name, string value
	num  Value  // int64 or float64 for numbers
}

func (t token) describe() string {
	switch t.kind {
	case tName:
		return t.str
	case tString:
		return "string"
	}
	return t.kind.String()
}

// operators, longest first.
var operators = []struct {
	s string
	k tokKind
}{
	{"**", tPow}, {"//", tFloorDiv}, {"==", tEq}, {"!=", tNe}, {">=", tGtEq}, {"<=", tLtEq},
	{"+", tAdd}, {"-", tSub}, {"/", tDiv}, {"*", tMul}, {"%", tMod}, {"~", tTilde},
	{"[", tLBracket}, {"]", tRBracket}, {"(", tLParen}, {")", tRParen}, {"{", tLBrace},
	{"}", tRBrace}, {"=", tAssign}, {".", tDot}, {":", tColon}, {"|", tPipe}, {",", tComma},
	{";", tSemicolon}, {"<", tLt}, {">", tGt},
}

// pyIsSpace is Python's str.isspace for one character (what \s matches in
// Jinja's regular expressions).
func pyIsSpace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || (r >= '\t' && r <= '\r') || (r >= 0x1c && r <= 0x1f)
	}
	return unicode.IsSpace(r)
}

// pyIsPrintable is Python's str.isprintable for one character.
func pyIsPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	return unicode.IsPrint(r)
}

// normalizeSource applies Jinja's preprocessing: every newline (\r\n, \r,
// \n) becomes \n and, with keep_trailing_newline off, one trailing newline
// is dropped. Invalid UTF-8 becomes U+FFFD.
func normalizeSource(src string) string {
	if !utf8.ValidString(src) {
		src = strings.ToValidUTF8(src, "\uFFFD")
	}
	if strings.IndexByte(src, '\r') >= 0 {
		src = strings.ReplaceAll(src, "\r\n", "\n")
		src = strings.ReplaceAll(src, "\r", "\n")
	}
	return strings.TrimSuffix(src, "\n")
}

type lexer struct {
	src          string
	pos          int
	line         int
	toks         []token
	lineStarting bool
}

func (lx *lexer) fail(format string, args ...any) error {
	e := newErr(KindSyntax, format, args...)
	e.Line = lx.line
	return e
}

func (lx *lexer) emit(t token) {
	t.line = lx.line
	lx.toks = append(lx.toks, t)
}

// advance moves to p, counting newlines in what was consumed; it records
// whether the consumed text ended with a newline (Jinja's line_starting).
func (lx *lexer) advance(p int) {
	seg := lx.src[lx.pos:p]
	lx.line += strings.Count(seg, "\n")
	if len(seg) > 0 {
		lx.lineStarting = seg[len(seg)-1] == '\n'
	}
	lx.pos = p
}

// skipSpace returns the position after any whitespace at p.
func (lx *lexer) skipSpace(p int) int {
	for p < len(lx.src) {
		r, n := utf8.DecodeRuneInString(lx.src[p:])
		if !pyIsSpace(r) {
			break
		}
		p += n
	}
	return p
}

// rstripPy strips trailing Python whitespace.
func rstripPy(s string) string { return strings.TrimRightFunc(s, pyIsSpace) }

// tokenize splits a normalized template source into tokens, applying
// trim_blocks, lstrip_blocks and the -/+ whitespace controls.
func tokenize(src string) ([]token, error) {
	lx := &lexer{src: src, line: 1, lineStarting: true}
	for lx.pos < len(src) {
		if err := lx.root(); err != nil {
			return nil, err
		}
	}
	lx.emit(token{kind: tEOF})
	return lx.toks, nil
}

// root lexes template data up to and including the next tag.
func (lx *lexer) root() error {
	src := lx.src
	start := lx.pos
	i := start
	for {
		j := strings.IndexByte(src[i:], '{')
		if j < 0 {
			// The rest is data.
			lx.emit(token{kind: tData, str: src[start:]})
			lx.advance(len(src))
			return nil
		}
		i += j
		if i+1 < len(src) && (src[i+1] == '%' || src[i+1] == '{' || src[i+1] == '#') {
			break
		}
		i++
	}
	kind := src[i+1]
	sign := byte(0)
	if i+2 < len(src) && (src[i+2] == '-' || src[i+2] == '+') {
		sign = src[i+2]
	}
	// A raw block is matched before other block tags.
	rawEnd := -1
	if kind == '%' {
		rawEnd = lx.matchRawBegin(i)
	}
	text := src[start:i]
	if sign == '-' {
		text = rstripPy(text)
	} else if sign != '+' && kind != '{' {
		// lstrip_blocks: drop whitespace between a line start and the tag.
		lpos := strings.LastIndexByte(text, '\n') + 1
		if lpos > 0 || lx.lineStarting {
			rest := text[lpos:]
			if rest != "" && strings.TrimLeftFunc(rest, pyIsSpace) == "" {
				text = text[:lpos]
			}
		}
	}
	if text != "" {
		lx.emit(token{kind: tData, str: text})
	}
	lx.advance(i)
	open := i + 2
	if sign != 0 {
		open++
	}
	switch {
	case rawEnd >= 0:
		lx.advance(rawEnd)
		return lx.raw()
	case kind == '#':
		lx.advance(open)
		return lx.comment()
	case kind == '%':
		lx.emit(token{kind: tBlockBegin})
		lx.advance(open)
		return lx.tag(false)
	default:
		lx.emit(token{kind: tVarBegin})
		lx.advance(open)
		return lx.tag(true)
	}
}

// matchRawBegin matches {%[-+]? raw [-]%} at i and returns the end of the
// match, or -1.
func (lx *lexer) matchRawBegin(i int) int {
	src := lx.src
	p := i + 2
	if p < len(src) && (src[p] == '-' || src[p] == '+') {
		p++
	}
	p = lx.skipSpace(p)
	if !strings.HasPrefix(src[p:], "raw") {
		return -1
	}
	p = lx.skipSpace(p + 3)
	switch {
	case strings.HasPrefix(src[p:], "-%}"):
		return lx.skipSpace(p + 3)
	case strings.HasPrefix(src[p:], "%}"):
		return p + 2
	}
	return -1
}

// raw lexes the body of a raw block up to its endraw tag.
func (lx *lexer) raw() error {
	src := lx.src
	for i := lx.pos; i < len(src); i++ {
		if src[i] != '{' || !strings.HasPrefix(src[i:], "{%") {
			continue
		}
		p := i + 2
		sign := byte(0)
		if p < len(src) && (src[p] == '-' || src[p] == '+') {
			sign = src[p]
			p++
		}
		p = lx.skipSpace(p)
		if !strings.HasPrefix(src[p:], "endraw") {
			continue
		}
		p = lx.skipSpace(p + 6)
		end := -1
		switch {
		case strings.HasPrefix(src[p:], "+%}"):
			end = p + 3
		case strings.HasPrefix(src[p:], "-%}"):
			end = lx.skipSpace(p + 3)
		case strings.HasPrefix(src[p:], "%}"):
			end = p + 2
			if end < len(src) && src[end] == '\n' {
				end++
			}
		}
		if end < 0 {
			continue
		}
		text := src[lx.pos:i]
		if sign == '-' {
			text = rstripPy(text)
		} else if sign != '+' {
			lpos := strings.LastIndexByte(text, '\n') + 1
			if lpos > 0 || lx.lineStarting {
				rest := text[lpos:]
				if rest != "" && strings.TrimLeftFunc(rest, pyIsSpace) == "" {
					text = text[:lpos]
				}
			}
		}
		if text != "" {
			lx.emit(token{kind: tData, str: text})
		}
		lx.advance(end)
		return nil
	}
	return lx.fail("Missing end of raw directive")
}

// comment skips a comment up to its end marker.
func (lx *lexer) comment() error {
	src := lx.src
	for i := lx.pos; i < len(src); i++ {
		switch {
		case strings.HasPrefix(src[i:], "+#}"):
			lx.advance(i + 3)
			return nil
		case strings.HasPrefix(src[i:], "-#}"):
			lx.advance(lx.skipSpace(i + 3))
			return nil
		case strings.HasPrefix(src[i:], "#}"):
			end := i + 2
			if end < len(src) && src[end] == '\n' {
				end++
			}
			lx.advance(end)
			return nil
		}
	}
	return lx.fail("Missing end of comment tag")
}

// tag lexes the inside of a {{ }} or {% %} tag, through its end marker.
func (lx *lexer) tag(variable bool) error {
	src := lx.src
	var balance []byte
	for {
		p := lx.pos
		if p >= len(src) {
			return nil // the parser reports the unexpected end
		}
		if len(balance) == 0 {
			if variable {
				if strings.HasPrefix(src[p:], "-}}") {
					lx.emit(token{kind: tVarEnd})
					lx.advance(lx.skipSpace(p + 3))
					return nil
				}
				if strings.HasPrefix(src[p:], "}}") {
					lx.emit(token{kind: tVarEnd})
					lx.advance(p + 2)
					return nil
				}
			} else {
				if strings.HasPrefix(src[p:], "+%}") {
					lx.emit(token{kind: tBlockEnd})
					lx.advance(p + 3)
					return nil
				}
				if strings.HasPrefix(src[p:], "-%}") {
					lx.emit(token{kind: tBlockEnd})
					lx.advance(lx.skipSpace(p + 3))
					return nil
				}
				if strings.HasPrefix(src[p:], "%}") {
					lx.emit(token{kind: tBlockEnd})
					end := p + 2
					if end < len(src) && src[end] == '\n' {
						end++
					}
					lx.advance(end)
					return nil
				}
			}
		}
		r, n := utf8.DecodeRuneInString(src[p:])
		if pyIsSpace(r) {
			lx.advance(lx.skipSpace(p))
			continue
		}
		if r >= '0' && r <= '9' {
			if end, v, ok := lx.number(p); ok {
				lx.emit(token{kind: v.kind, num: v.num})
				lx.advance(end)
				continue
			}
		}
		if r == '_' || unicode.IsLetter(r) {
			end := p + n
			for end < len(src) {
				r2, n2 := utf8.DecodeRuneInString(src[end:])
				if r2 != '_' && !unicode.IsLetter(r2) && !unicode.IsDigit(r2) && !unicode.Is(unicode.Mn, r2) && !unicode.Is(unicode.Mc, r2) && !unicode.Is(unicode.Nd, r2) && !unicode.Is(unicode.Pc, r2) {
					break
				}
				end += n2
			}
			lx.emit(token{kind: tName, str: src[p:end]})
			lx.advance(end)
			continue
		}
		if r == '\'' || r == '"' {
			end, s, err := lx.stringLit(p)
			if err != nil {
				return err
			}
			lx.emit(token{kind: tString, str: s})
			lx.advance(end)
			continue
		}
		matched := false
		for _, op := range operators {
			if strings.HasPrefix(src[p:], op.s) {
				switch op.k {
				case tLBrace:
					balance = append(balance, '}')
				case tLParen:
					balance = append(balance, ')')
				case tLBracket:
					balance = append(balance, ']')
				case tRBrace, tRParen, tRBracket:
					if len(balance) == 0 {
						return lx.fail("unexpected '%s'", op.s)
					}
					want := balance[len(balance)-1]
					balance = balance[:len(balance)-1]
					if want != op.s[0] {
						return lx.fail("unexpected '%s', expected '%c'", op.s, want)
					}
				}
				lx.emit(token{kind: op.k})
				lx.advance(p + len(op.s))
				matched = true
				break
			}
		}
		if !matched {
			return lx.fail("unexpected char %s at %d", repr(string(r)), p)
		}
	}
}

type numTok struct {
	kind tokKind
	num  Value
}

// number lexes an integer or float literal at p (Jinja's float_re and
// integer_re, underscores allowed between digits).
func (lx *lexer) number(p int) (int, numTok, bool) {
	src := lx.src
	digits := func(q int) int { // (\d+_)*\d+ ; returns end or -1
		start := q
		for {
			d := q
			for q < len(src) && src[q] >= '0' && src[q] <= '9' {
				q++
			}
			if q == d {
				if q == start {
					return -1
				}
				return -1
			}
			if q < len(src) && src[q] == '_' && q+1 < len(src) && src[q+1] >= '0' && src[q+1] <= '9' {
				q++
				continue
			}
			return q
		}
	}
	// Float: digits ((\.digits)? e[+-]?digits | \.digits); not after a dot.
	if p == 0 || src[p-1] != '.' {
		if q := digits(p); q > 0 {
			end := -1
			frac := q
			if frac < len(src) && src[frac] == '.' {
				if f := digits(frac + 1); f > 0 {
					end = f
					frac = f
				}
			}
			if frac < len(src) && (src[frac] == 'e' || src[frac] == 'E') {
				e := frac + 1
				if e < len(src) && (src[e] == '+' || src[e] == '-') {
					e++
				}
				if x := digits(e); x > 0 {
					end = x
				}
			}
			if end > 0 {
				f, err := strconv.ParseFloat(strings.ReplaceAll(src[p:end], "_", ""), 64)
				if err == nil || isRangeErr(err) {
					return end, numTok{tFloat, f}, true
				}
			}
		}
	}
	// Integer: 0b.., 0o.., 0x.., [1-9](_?\d)*, 0(_?0)*.
	if src[p] == '0' && p+1 < len(src) {
		base := 0
		switch src[p+1] {
		case 'b', 'B':
			base = 2
		case 'o', 'O':
			base = 8
		case 'x', 'X':
			base = 16
		}
		if base != 0 {
			q := p + 2
			for q < len(src) {
				c := src[q]
				if c == '_' && q+1 < len(src) && isDigitBase(src[q+1], base) {
					q++
					continue
				}
				if !isDigitBase(c, base) {
					break
				}
				q++
			}
			if q > p+2 {
				n, err := strconv.ParseInt(strings.ReplaceAll(src[p+2:q], "_", ""), base, 64)
				if err != nil {
					return 0, numTok{}, false
				}
				return q, numTok{tInt, n}, true
			}
		}
	}
	q := p + 1
	if src[p] == '0' {
		for q < len(src) {
			if src[q] == '0' {
				q++
			} else if src[q] == '_' && q+1 < len(src) && src[q+1] == '0' {
				q += 2
			} else {
				break
			}
		}
		return q, numTok{tInt, int64(0)}, true
	}
	for q < len(src) {
		if src[q] >= '0' && src[q] <= '9' {
			q++
		} else if src[q] == '_' && q+1 < len(src) && src[q+1] >= '0' && src[q+1] <= '9' {
			q += 2
		} else {
			break
		}
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(src[p:q], "_", ""), 10, 64)
	if err != nil {
		// Beyond int64: keep it as a float rather than fail.
		f, _ := strconv.ParseFloat(strings.ReplaceAll(src[p:q], "_", ""), 64)
		return q, numTok{tFloat, f}, true
	}
	return q, numTok{tInt, n}, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func isDigitBase(c byte, base int) bool {
	switch base {
	case 2:
		return c == '0' || c == '1'
	case 8:
		return c >= '0' && c <= '7'
	}
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// stringLit lexes a quoted literal at p and decodes its escapes like
// Python's unicode-escape codec.
func (lx *lexer) stringLit(p int) (int, string, error) {
	src := lx.src
	q := src[p]
	i := p + 1
	for i < len(src) {
		c := src[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == q {
			s, err := unescapePy(src[p+1 : i])
			if err != nil {
				return 0, "", lx.fail("%s", err.Error())
			}
			return i + 1, s, nil
		}
		i++
	}
	// Unterminated: Jinja fails on the quote as an unexpected char.
	return 0, "", lx.fail("unexpected char %s at %d", repr(string(q)), p)
}

// unescapePy decodes backslash escapes as Python's unicode-escape does.
func unescapePy(s string) (string, error) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", errSyntaxMsg("\\ at end of string")
		}
		e := s[i+1]
		i += 2
		switch e {
		case '\n':
			// line continuation: nothing
		case '\\':
			b.WriteByte('\\')
		case '\'':
			b.WriteByte('\'')
		case '"':
			b.WriteByte('"')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n := int(e - '0')
			for k := 0; k < 2 && i < len(s) && s[i] >= '0' && s[i] <= '7'; k++ {
				n = n*8 + int(s[i]-'0')
				i++
			}
			b.WriteRune(rune(n))
		case 'x', 'u', 'U':
			w := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+w > len(s) {
				return "", errSyntaxMsg("truncated \\%cXX escape", e)
			}
			n, err := strconv.ParseUint(s[i:i+w], 16, 32)
			if err != nil {
				return "", errSyntaxMsg("truncated \\%cXX escape", e)
			}
			if n > unicode.MaxRune {
				return "", errSyntaxMsg("illegal Unicode character")
			}
			r := rune(n)
			if r >= 0xD800 && r <= 0xDFFF {
				r = utf8.RuneError
			}
			b.WriteRune(r)
			i += w
		case 'N':
			return "", errSyntaxMsg("\\N{...} escapes are not supported")
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String(), nil
}

func errSyntaxMsg(format string, args ...any) error { return newErr(KindSyntax, format, args...) }
