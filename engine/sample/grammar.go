package sample

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Grammar is a parsed GBNF grammar (llama.cpp's grammar format), ready to
// constrain text through NewGrammarConstraint. It is immutable and safe
// for concurrent use.
//
// The syntax is llama.cpp's: rules "name ::= alternatives" (names of
// letters, digits and '-'), one a line unless inside parentheses or after
// '|'; alternatives separated by '|'; sequences of string literals
// ("..."), character classes ([a-z], [^"\\]), '.' (any character), rule
// references and groups in parentheses; the postfix operators * + ? {m}
// {m,} {m,n}; '#' comments to the end of the line. Literals and classes
// take the escapes \x.. \u.... \U........ \t \n \r \\ \" \[ \]. Matching
// starts at the rule "root" and works on Unicode code points.
//
// Left recursion (a rule that can reach itself without consuming a
// character) is rejected when parsing, as llama.cpp does: a recogniser
// over a set of stacks would loop on it.
type Grammar struct {
	elems []gelem   // every alternative of every rule, each ended by gEnd
	alts  [][]int32 // alts[r]: where each alternative of rule r starts in elems
	names []string  // rule names, for errors
	root  int32
}

// Element kinds of a compiled grammar.
const (
	gEnd  uint8 = iota // end of an alternative
	gChar              // one code point of a set
	gRef               // a rule reference
)

// gelem is one element of a compiled alternative.
type gelem struct {
	kind   uint8
	neg    bool   // gChar: the code point must be in none of the ranges
	ref    int32  // gRef: the rule
	ranges []rune // gChar: inclusive ranges as lo, hi pairs
}

// Limits of the grammar parser, so that hostile text cannot blow up.
const (
	gMaxRepeat = 2000    // the most a {m,n} bound may say, as llama.cpp
	gMaxElems  = 1 << 20 // elements of a compiled grammar
	gMaxSource = 1 << 22 // bytes of grammar text
)

// matches reports whether code point c is in the element's set.
func (e *gelem) matches(c rune) bool {
	in := false
	for i := 0; i+1 < len(e.ranges); i += 2 {
		if c >= e.ranges[i] && c <= e.ranges[i+1] {
			in = true
			break
		}
	}
	return in != e.neg
}

// overlaps reports whether some code point in [lo, hi] may be in the
// element's set; for a negated set it may say yes when the answer is no.
func (e *gelem) overlaps(lo, hi rune) bool {
	for i := 0; i+1 < len(e.ranges); i += 2 {
		a, b := e.ranges[i], e.ranges[i+1]
		if e.neg {
			if a <= lo && b >= hi {
				return false
			}
		} else if a <= hi && b >= lo {
			return true
		}
	}
	return e.neg
}

// gparser holds the state of one ParseGrammar call.
type gparser struct {
	src   string
	pos   int
	ids   map[string]int32
	names []string
	rules [][][]gelem // alternatives of each rule; nil: not defined yet
	used  []int       // where each rule was first referenced, for errors
	size  int         // elements so far
}

// grammarError is a parse error at a place in the source.
type grammarError struct {
	line, col int
	msg       string
}

func (e *grammarError) Error() string {
	return fmt.Sprintf("sample: grammar %d:%d: %s", e.line, e.col, e.msg)
}

// ParseGrammar parses GBNF text (see Grammar). Errors name the line and
// column, counted from 1 (columns in bytes).
func ParseGrammar(src string) (*Grammar, error) {
	if len(src) > gMaxSource {
		return nil, fmt.Errorf("sample: grammar of %d bytes is longer than %d", len(src), gMaxSource)
	}
	if !utf8.ValidString(src) {
		return nil, fmt.Errorf("sample: grammar is not valid UTF-8")
	}
	p := &gparser{src: src, ids: map[string]int32{}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.compile()
}

// fail returns a grammarError at byte offset at.
func (p *gparser) fail(at int, format string, args ...any) error {
	line := 1 + strings.Count(p.src[:at], "\n")
	col := at - strings.LastIndexByte(p.src[:at], '\n')
	return &grammarError{line: line, col: col, msg: fmt.Sprintf(format, args...)}
}

// peek returns the byte at the cursor, or 0 at the end.
func (p *gparser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// space skips blanks and comments, and newlines when newlines is set.
func (p *gparser) space(newlines bool) {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t':
			p.pos++
		case c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' && p.src[p.pos] != '\r' {
				p.pos++
			}
		case newlines && (c == '\n' || c == '\r'):
			p.pos++
		default:
			return
		}
	}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

// name reads a rule name.
func (p *gparser) name() (string, error) {
	start := p.pos
	for p.pos < len(p.src) && isNameByte(p.src[p.pos]) {
		p.pos++
	}
	if p.pos == start {
		return "", p.fail(start, "expecting a rule name")
	}
	return p.src[start:p.pos], nil
}

// symbol returns the id of the rule called name, making one if needed.
func (p *gparser) symbol(name string, at int) int32 {
	if id, ok := p.ids[name]; ok {
		return id
	}
	id := int32(len(p.names))
	p.ids[name] = id
	p.names = append(p.names, name)
	p.rules = append(p.rules, nil)
	p.used = append(p.used, at)
	return id
}

// fresh makes a new rule named after base.
func (p *gparser) fresh(base string) int32 {
	return p.symbol(fmt.Sprintf("%s_%d", base, len(p.names)), p.pos)
}

// define sets the alternatives of rule id.
func (p *gparser) define(id int32, alts [][]gelem) error {
	for _, a := range alts {
		p.size += len(a) + 1
	}
	if p.size > gMaxElems {
		return p.fail(p.pos, "grammar larger than %d elements", gMaxElems)
	}
	if alts == nil {
		alts = [][]gelem{}
	}
	p.rules[id] = alts
	return nil
}

// parse reads every rule.
func (p *gparser) parse() error {
	p.space(true)
	for p.pos < len(p.src) {
		at := p.pos
		name, err := p.name()
		if err != nil {
			return err
		}
		p.space(false)
		if !strings.HasPrefix(p.src[p.pos:], "::=") {
			return p.fail(p.pos, "expecting ::= after %q", name)
		}
		p.pos += 3
		p.space(true)
		id := p.symbol(name, at)
		if p.rules[id] != nil {
			return p.fail(at, "rule %q defined twice", name)
		}
		if err := p.alternates(id, name, false); err != nil {
			return err
		}
		switch p.peek() {
		case '\r':
			p.pos++
			if p.peek() == '\n' {
				p.pos++
			}
		case '\n':
			p.pos++
		case 0:
		default:
			return p.fail(p.pos, "expecting a newline or the end, not %q", p.peek())
		}
		p.space(true)
	}
	for id, r := range p.rules {
		if r == nil {
			return p.fail(p.used[id], "undefined rule %q", p.names[id])
		}
	}
	if _, ok := p.ids["root"]; !ok {
		return p.fail(len(p.src), "no rule named root")
	}
	return nil
}

// alternates reads alternatives separated by '|' as the rule id.
func (p *gparser) alternates(id int32, name string, nested bool) error {
	var alts [][]gelem
	for {
		seq, err := p.sequence(name, nested)
		if err != nil {
			return err
		}
		alts = append(alts, seq)
		if p.peek() != '|' {
			break
		}
		p.pos++
		p.space(true)
	}
	return p.define(id, alts)
}

// sequence reads the elements of one alternative.
func (p *gparser) sequence(name string, nested bool) ([]gelem, error) {
	var seq []gelem
	last := -1 // where the last item (what a repetition repeats) starts
	for p.pos < len(p.src) {
		at := p.pos
		switch c := p.src[p.pos]; {
		case c == '"':
			p.pos++
			last = len(seq)
			err := p.chars('"', at, "string literal", func(r rune) error {
				seq = append(seq, gelem{kind: gChar, ranges: []rune{r, r}})
				return nil
			})
			if err != nil {
				return nil, err
			}
			if last == len(seq) { // "" matches the empty string
				last = -1
			}
		case c == '[':
			p.pos++
			e := gelem{kind: gChar}
			if p.peek() == '^' {
				p.pos++
				e.neg = true
			}
			err := p.chars(']', at, "character class", func(lo rune) error {
				hi := lo
				if p.peek() == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' {
					p.pos++
					var err error
					if hi, err = p.char(); err != nil {
						return err
					}
					if hi < lo {
						return p.fail(at, "character range %q-%q is reversed", lo, hi)
					}
				}
				e.ranges = append(e.ranges, lo, hi)
				return nil
			})
			if err != nil {
				return nil, err
			}
			last = len(seq)
			seq = append(seq, e)
		case c == '.':
			p.pos++
			last = len(seq)
			seq = append(seq, gelem{kind: gChar, neg: true})
		case c == '<' || c == '!':
			return nil, p.fail(at, "token references (<...>) are not supported")
		case isNameByte(c):
			ref, err := p.name()
			if err != nil {
				return nil, err
			}
			last = len(seq)
			seq = append(seq, gelem{kind: gRef, ref: p.symbol(ref, at)})
		case c == '(':
			p.pos++
			p.space(true)
			sub := p.fresh(name)
			if err := p.alternates(sub, name, true); err != nil {
				return nil, err
			}
			if p.peek() != ')' {
				line, col := p.lineCol(at)
				return nil, p.fail(p.pos, "expecting ')' to close the group opened at %d:%d", line, col)
			}
			p.pos++
			last = len(seq)
			seq = append(seq, gelem{kind: gRef, ref: sub})
		case c == '*' || c == '+' || c == '?' || c == '{':
			lo, hi, err := p.repetition()
			if err != nil {
				return nil, err
			}
			if last < 0 {
				return nil, p.fail(at, "%q repeats nothing", c)
			}
			if seq, err = p.repeat(seq, last, lo, hi, name); err != nil {
				return nil, err
			}
			last = -1
		default:
			return seq, nil
		}
		p.space(nested)
	}
	return seq, nil
}

// lineCol returns the line and column of byte offset at.
func (p *gparser) lineCol(at int) (int, int) {
	e := p.fail(at, "").(*grammarError)
	return e.line, e.col
}

// repetition reads a postfix operator as its bounds; hi -1 is no bound.
func (p *gparser) repetition() (lo, hi int, err error) {
	at := p.pos
	c := p.src[p.pos]
	p.pos++
	switch c {
	case '*':
		return 0, -1, nil
	case '+':
		return 1, -1, nil
	case '?':
		return 0, 1, nil
	}
	p.space(true)
	if lo, err = p.int(); err != nil {
		return 0, 0, err
	}
	p.space(true)
	hi = lo
	if p.peek() == ',' {
		p.pos++
		p.space(true)
		hi = -1
		if c := p.peek(); c >= '0' && c <= '9' {
			if hi, err = p.int(); err != nil {
				return 0, 0, err
			}
			p.space(true)
		}
	}
	if p.peek() != '}' {
		return 0, 0, p.fail(p.pos, "expecting '}' to close the repetition")
	}
	p.pos++
	if lo > gMaxRepeat {
		return 0, 0, p.fail(at, "repetition of %d is more than %d", lo, gMaxRepeat)
	}
	if hi > gMaxRepeat {
		hi = -1 // as llama.cpp: a huge bound is no bound
	}
	if hi >= 0 && hi < lo {
		return 0, 0, p.fail(at, "repetition {%d,%d}: the most is below the least", lo, hi)
	}
	return lo, hi, nil
}

// int reads a decimal integer.
func (p *gparser) int() (int, error) {
	start := p.pos
	for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
		p.pos++
	}
	if p.pos == start {
		return 0, p.fail(start, "expecting an integer")
	}
	n, err := strconv.Atoi(p.src[start:p.pos])
	if err != nil || n > 1<<30 {
		return 1 << 30, nil // refused by the caller's bound
	}
	return n, nil
}

// repeat rewrites seq[last:] repeated lo to hi times (hi -1: no bound).
// An item of more than one element becomes a rule of its own, so that
// nested repetitions grow the grammar additively; the optional copies
// are right-recursive rules, whose recursion the matcher turns into a
// loop (a reference at the end of an alternative pushes nothing).
func (p *gparser) repeat(seq []gelem, last, lo, hi int, name string) ([]gelem, error) {
	item := append([]gelem(nil), seq[last:]...)
	seq = seq[:last]
	if len(item) > 1 {
		sub := p.fresh(name)
		if err := p.define(sub, [][]gelem{item}); err != nil {
			return nil, err
		}
		item = []gelem{{kind: gRef, ref: sub}}
	}
	p.size += lo
	if p.size > gMaxElems {
		return nil, p.fail(p.pos, "grammar larger than %d elements", gMaxElems)
	}
	for range lo {
		seq = append(seq, item...)
	}
	switch {
	case hi < 0: // R ::= item R |
		r := p.fresh(name)
		if err := p.define(r, [][]gelem{append(item[:1:1], gelem{kind: gRef, ref: r}), {}}); err != nil {
			return nil, err
		}
		seq = append(seq, gelem{kind: gRef, ref: r})
	case hi > lo: // R1 ::= item | ; Rk ::= item R(k-1) |
		prev := int32(-1)
		for range hi - lo {
			r := p.fresh(name)
			alt := item[:1:1]
			if prev >= 0 {
				alt = append(alt, gelem{kind: gRef, ref: prev})
			}
			if err := p.define(r, [][]gelem{alt, {}}); err != nil {
				return nil, err
			}
			prev = r
		}
		seq = append(seq, gelem{kind: gRef, ref: prev})
	}
	return seq, nil
}

// chars reads the characters of a literal or class up to close (opened
// at at), escapes included, and hands each to add.
func (p *gparser) chars(close byte, at int, what string, add func(rune) error) error {
	for {
		switch {
		case p.pos >= len(p.src):
			return p.fail(at, "unterminated %s", what)
		case p.src[p.pos] == close:
			p.pos++
			return nil
		}
		r, err := p.char()
		if err != nil {
			return err
		}
		if err := add(r); err != nil {
			return err
		}
	}
}

// char reads one character of a literal or class, escapes included.
func (p *gparser) char() (rune, error) {
	at := p.pos
	if p.src[p.pos] != '\\' {
		r, n := utf8.DecodeRuneInString(p.src[p.pos:])
		p.pos += n
		return r, nil
	}
	if p.pos+1 >= len(p.src) {
		return 0, p.fail(at, "unfinished escape")
	}
	c := p.src[p.pos+1]
	p.pos += 2
	digits := 0
	switch c {
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	case 't':
		return '\t', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case '\\', '"', '[', ']':
		return rune(c), nil
	default:
		return 0, p.fail(at, "unknown escape \\%c", c)
	}
	if p.pos+digits > len(p.src) {
		return 0, p.fail(at, "escape \\%c needs %d hex digits", c, digits)
	}
	v, err := strconv.ParseUint(p.src[p.pos:p.pos+digits], 16, 32)
	if err != nil || strings.ContainsAny(p.src[p.pos:p.pos+digits], "+-") {
		return 0, p.fail(at, "escape \\%c needs %d hex digits", c, digits)
	}
	p.pos += digits
	if v > utf8.MaxRune {
		return 0, p.fail(at, "code point %#x is beyond Unicode", v)
	}
	return rune(v), nil
}

// compile flattens the rules and checks them for left recursion.
func (p *gparser) compile() (*Grammar, error) {
	g := &Grammar{names: p.names, root: p.ids["root"], alts: make([][]int32, len(p.rules))}
	g.elems = make([]gelem, 0, p.size)
	for id, alts := range p.rules {
		for _, a := range alts {
			g.alts[id] = append(g.alts[id], int32(len(g.elems)))
			g.elems = append(g.elems, a...)
			g.elems = append(g.elems, gelem{kind: gEnd})
		}
	}
	if err := g.checkLeftRecursion(); err != nil {
		return nil, err
	}
	return g, nil
}

// nullable returns which rules can match the empty string.
func (g *Grammar) nullable() []bool {
	null := make([]bool, len(g.alts))
	for changed := true; changed; {
		changed = false
		for r, alts := range g.alts {
			if null[r] {
				continue
			}
			for _, a := range alts {
				i := a
				for g.elems[i].kind == gRef && null[g.elems[i].ref] {
					i++
				}
				if g.elems[i].kind == gEnd {
					null[r], changed = true, true
					break
				}
			}
		}
	}
	return null
}

// checkLeftRecursion refuses a rule that can reach itself before any
// character is matched.
func (g *Grammar) checkLeftRecursion() error {
	null := g.nullable()
	// starts[r]: the rules r may begin with.
	starts := make([][]int32, len(g.alts))
	for r, alts := range g.alts {
		for _, a := range alts {
			for i := a; g.elems[i].kind == gRef; i++ {
				starts[r] = append(starts[r], g.elems[i].ref)
				if !null[g.elems[i].ref] {
					break
				}
			}
		}
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(g.alts))
	type frame struct{ r, next int32 }
	for r0 := range g.alts {
		if state[r0] != unseen {
			continue
		}
		stack := []frame{{int32(r0), 0}}
		state[r0] = onPath
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if int(f.next) == len(starts[f.r]) {
				state[f.r] = done
				stack = stack[:len(stack)-1]
				continue
			}
			s := starts[f.r][f.next]
			f.next++
			switch state[s] {
			case onPath:
				return fmt.Errorf("sample: grammar: rule %q is left-recursive (it can reach itself before matching a character)", g.ruleName(s))
			case unseen:
				state[s] = onPath
				stack = append(stack, frame{s, 0})
			}
		}
	}
	return nil
}

// ruleName names rule r for errors: a rule made for a group or a
// repetition is named after the rule it was written in.
func (g *Grammar) ruleName(r int32) string {
	n := g.names[r]
	if i := strings.LastIndexByte(n, '_'); i > 0 {
		return n[:i]
	}
	return n
}
