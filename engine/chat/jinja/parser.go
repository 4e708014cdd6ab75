package jinja

import (
	"fmt"
	"strings"
)

// parser builds the AST from tokens, following jinja2.parser.Parser.
type parser struct {
	toks []token
	i    int

	soft      bool // inside an if/conditional: unknown filters fail at run time
	loopDepth int  // for {% break %} / {% continue %}
	macroRefs []map[string]bool
	depth     int // expression nesting, bounded against hostile input
}

// Parse-time bounds (see Limits for all the bounds in one place).
const (
	// MaxTemplateBytes bounds the size of a template source. The largest
	// real chat templates are tens of kilobytes.
	MaxTemplateBytes = 1 << 20
	// MaxNesting bounds the depth of the syntax tree: nested blocks,
	// brackets and unary operators, and the links of left-deep chains
	// (a + b + c, x|f|g, x.a[0](), elif), each of which makes the tree one
	// level deeper. The parser, the folder and the evaluator recurse on
	// the tree, so this bound is what keeps them off the stack's limit.
	MaxNesting = 500
)

func parse(src string) ([]node, error) {
	if len(src) > MaxTemplateBytes {
		return nil, limitErrorf("template of %d bytes is larger than the limit of %d bytes", len(src), MaxTemplateBytes)
	}
	toks, err := tokenize(normalizeSource(src))
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	body, err := p.subparse(nil)
	if err != nil {
		return nil, err
	}
	if p.cur().kind != tEOF {
		return nil, p.failf("unexpected %s", p.cur().describe())
	}
	newFolder().body(body)
	return body, nil
}

func (p *parser) cur() token { return p.toks[p.i] }

func (p *parser) look() token {
	if p.i+1 < len(p.toks) {
		return p.toks[p.i+1]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *parser) failf(format string, args ...any) *Error {
	e := newErr(KindSyntax, format, args...)
	e.Line = p.cur().line
	return e
}

func (p *parser) isName(s string) bool {
	t := p.cur()
	return t.kind == tName && t.str == s
}

func (p *parser) skipName(s string) bool {
	if p.isName(s) {
		p.next()
		return true
	}
	return false
}

func (p *parser) skip(k tokKind) bool {
	if p.cur().kind == k {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(k tokKind) (token, error) {
	t := p.cur()
	if t.kind != k {
		if t.kind == tEOF {
			return t, p.failf("unexpected end of template, expected %s", k)
		}
		return t, p.failf("expected token %s, got %s", k, t.describe())
	}
	return p.next(), nil
}

func (p *parser) expectName(s string) error {
	if !p.isName(s) {
		return p.failf("expected '%s', got %s", s, p.cur().describe())
	}
	p.next()
	return nil
}

// enter counts one more level of nesting; past MaxNesting it fails with a
// limit error. Every enter is matched by a leave.
func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxNesting {
		e := limitErrorf("template nested too deeply (more than %d levels of blocks, brackets, operators or chained filters)", MaxNesting)
		e.Line = p.cur().line
		return e
	}
	return nil
}

// leave undoes one enter.
func (p *parser) leave() { p.depth-- }

// link counts one more link of a left-deep chain (a + b + c, x|f|g,
// x.a[0](), elif): each makes the tree one level deeper for the folder and
// the evaluator, so links count against MaxNesting like nesting does,
// until the function that builds the chain returns and calls unlink.
func (p *parser) link(links *int) error {
	*links++
	return p.enter()
}

// unlink undoes the links a chain counted.
func (p *parser) unlink(links *int) { p.depth -= *links }

// subparse parses statements and data until a block tag whose name is in
// end (left as the current token) or the end of input.
func (p *parser) subparse(end []string) ([]node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	var body []node
	var out *outputNode
	flush := func() {
		if out != nil {
			body = append(body, out)
			out = nil
		}
	}
	addOut := func(e expr) {
		if out == nil {
			out = &outputNode{pos: pos{e.lineNo()}}
		}
		out.items = append(out.items, e)
	}
	for {
		t := p.cur()
		switch t.kind {
		case tEOF:
			flush()
			return body, nil
		case tData:
			addOut(&constExpr{pos{t.line}, t.str})
			p.next()
		case tVarBegin:
			p.next()
			e, err := p.parseTuple(false, true, nil, false)
			if err != nil {
				return nil, err
			}
			addOut(e)
			if _, err := p.expect(tVarEnd); err != nil {
				return nil, err
			}
		case tBlockBegin:
			flush()
			p.next()
			if c := p.cur(); c.kind == tName {
				for _, e := range end {
					if c.str == e {
						return body, nil
					}
				}
			}
			n, err := p.parseStatement()
			if err != nil {
				return nil, err
			}
			if n != nil {
				body = append(body, n)
			}
			if _, err := p.expect(tBlockEnd); err != nil {
				return nil, err
			}
		default:
			return nil, p.failf("unexpected %s", t.describe())
		}
	}
}

// parseStatements parses a block body up to one of end; with drop the end
// tag's name is consumed.
func (p *parser) parseStatements(end []string, drop bool) ([]node, error) {
	p.skip(tColon)
	if _, err := p.expect(tBlockEnd); err != nil {
		return nil, err
	}
	body, err := p.subparse(end)
	if err != nil {
		return nil, err
	}
	if p.cur().kind == tEOF {
		return nil, p.failf("unexpected end of template: expected '%s'", strings.Join(end, "' or '"))
	}
	if drop {
		p.next()
	}
	return body, nil
}

func (p *parser) parseStatement() (node, error) {
	t := p.cur()
	if t.kind != tName {
		return nil, p.failf("tag name expected")
	}
	switch t.str {
	case "for":
		return p.parseFor()
	case "if":
		return p.parseIf()
	case "set":
		return p.parseSet()
	case "macro":
		return p.parseMacro()
	case "call":
		return p.parseCallBlock()
	case "filter":
		return p.parseFilterBlock()
	case "with":
		return p.parseWith()
	case "print":
		p.next()
		out := &outputNode{pos: pos{t.line}}
		for p.cur().kind != tBlockEnd {
			if len(out.items) > 0 {
				if _, err := p.expect(tComma); err != nil {
					return nil, err
				}
			}
			e, err := p.parseExpression(true)
			if err != nil {
				return nil, err
			}
			out.items = append(out.items, e)
		}
		return out, nil
	case "break", "continue":
		p.next()
		if p.loopDepth == 0 {
			return nil, p.failf("'%s' outside loop", t.str)
		}
		if t.str == "break" {
			return &breakNode{pos{t.line}}, nil
		}
		return &continueNode{pos{t.line}}, nil
	case "generation":
		// Hugging Face's AssistantTracker tag: renders its body.
		p.next()
		saved := p.enterFunction()
		body, err := p.parseStatements([]string{"endgeneration"}, true)
		p.leaveFunction(saved)
		if err != nil {
			return nil, err
		}
		return &scopeNode{pos{t.line}, body}, nil
	case "include", "import", "from", "extends":
		e := newErr(KindUnsupported, "'%s' is not supported: templates cannot load other templates", t.str)
		e.Line = t.line
		return nil, e
	case "block", "autoescape", "do", "trans":
		e := newErr(KindUnsupported, "the '%s' tag is not supported", t.str)
		e.Line = t.line
		return nil, e
	}
	return nil, p.failf("Encountered unknown tag '%s'.", t.str)
}

type funcState struct {
	loopDepth int
	soft      bool
}

// enterFunction starts a body compiled as a separate function in Jinja
// (macro, call block): loop controls and soft mode do not carry in.
func (p *parser) enterFunction() funcState {
	s := funcState{p.loopDepth, p.soft}
	p.loopDepth = 0
	p.soft = false
	return s
}

func (p *parser) leaveFunction(s funcState) { p.loopDepth, p.soft = s.loopDepth, s.soft }

func (p *parser) parseFor() (node, error) {
	line := p.next().line
	target, err := p.parseAssignTarget(true, false, []string{"in"}, false)
	if err != nil {
		return nil, err
	}
	if err := p.expectName("in"); err != nil {
		return nil, err
	}
	iter, err := p.parseTuple(false, false, []string{"recursive"}, false)
	if err != nil {
		return nil, err
	}
	n := &forNode{pos: pos{line}, target: target, iter: iter}
	savedSoft := p.soft
	p.soft = false
	defer func() { p.soft = savedSoft }()
	if p.skipName("if") {
		if n.cond, err = p.parseExpression(true); err != nil {
			return nil, err
		}
	}
	n.recursive = p.skipName("recursive")
	p.loopDepth++
	n.body, err = p.parseStatements([]string{"endfor", "else"}, false)
	p.loopDepth--
	if err != nil {
		return nil, err
	}
	if p.next().str == "else" {
		if n.elseBody, err = p.parseStatements([]string{"endfor"}, true); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (p *parser) parseIf() (node, error) {
	links := 0
	defer p.unlink(&links)
	line := p.next().line
	saved := p.soft
	p.soft = true
	defer func() { p.soft = saved }()
	root := &ifNode{pos: pos{line}}
	n := root
	for {
		var err error
		if n.cond, err = p.parseTuple(false, false, nil, false); err != nil {
			return nil, err
		}
		if n.body, err = p.parseStatements([]string{"elif", "else", "endif"}, false); err != nil {
			return nil, err
		}
		t := p.next()
		if t.str == "elif" {
			if err := p.link(&links); err != nil {
				return nil, err
			}
			elif := &ifNode{pos: pos{p.cur().line}}
			n.elseBody = []node{elif}
			n = elif
			continue
		}
		if t.str == "else" {
			if n.elseBody, err = p.parseStatements([]string{"endif"}, true); err != nil {
				return nil, err
			}
		}
		return root, nil
	}
}

func (p *parser) parseSet() (node, error) {
	line := p.next().line
	target, err := p.parseAssignTarget(true, false, nil, true)
	if err != nil {
		return nil, err
	}
	if p.skip(tAssign) {
		v, err := p.parseTuple(false, true, nil, false)
		if err != nil {
			return nil, err
		}
		return &setNode{pos{line}, target, v}, nil
	}
	var f *filterExpr
	if p.cur().kind == tPipe {
		e, err := p.parseFilter(nil, false)
		if err != nil {
			return nil, err
		}
		f = e.(*filterExpr)
	}
	body, err := p.parseStatements([]string{"endset"}, true)
	if err != nil {
		return nil, err
	}
	return &setBlockNode{pos{line}, target, f, body}, nil
}

func (p *parser) parseSignature() (params []string, defaults []expr, err error) {
	if _, err := p.expect(tLParen); err != nil {
		return nil, nil, err
	}
	for p.cur().kind != tRParen {
		if len(params) > 0 {
			if _, err := p.expect(tComma); err != nil {
				return nil, nil, err
			}
		}
		t, err := p.expect(tName)
		if err != nil {
			return nil, nil, err
		}
		if p.skip(tAssign) {
			d, err := p.parseExpression(true)
			if err != nil {
				return nil, nil, err
			}
			defaults = append(defaults, d)
		} else if len(defaults) > 0 {
			return nil, nil, p.failf("non-default argument follows default argument")
		}
		params = append(params, t.str)
	}
	p.next()
	return params, defaults, nil
}

// parseMacroBody parses a macro's body and records which special names
// (varargs, kwargs, caller) it uses.
func (p *parser) parseMacroBody(m *macroNode, end string) error {
	saved := p.enterFunction()
	defer p.leaveFunction(saved)
	refs := map[string]bool{}
	p.macroRefs = append(p.macroRefs, refs)
	body, err := p.parseStatements([]string{end}, true)
	p.macroRefs = p.macroRefs[:len(p.macroRefs)-1]
	if err != nil {
		return err
	}
	m.body = body
	isParam := func(s string) bool {
		for _, q := range m.params {
			if q == s {
				return true
			}
		}
		return false
	}
	m.usesVarargs = refs["varargs"] && !isParam("varargs")
	m.usesKwargs = refs["kwargs"] && !isParam("kwargs")
	m.usesCaller = refs["caller"] && !isParam("caller")
	return nil
}

func (p *parser) parseMacro() (node, error) {
	line := p.next().line
	t, err := p.expect(tName)
	if err != nil {
		return nil, err
	}
	m := &macroNode{pos: pos{line}, name: t.str}
	if m.params, m.defaults, err = p.parseSignature(); err != nil {
		return nil, err
	}
	if err := p.parseMacroBody(m, "endmacro"); err != nil {
		return nil, err
	}
	return m, nil
}

func (p *parser) parseCallBlock() (node, error) {
	line := p.next().line
	m := &macroNode{pos: pos{line}, name: "caller"}
	if p.cur().kind == tLParen {
		var err error
		if m.params, m.defaults, err = p.parseSignature(); err != nil {
			return nil, err
		}
	}
	e, err := p.parseExpression(true)
	if err != nil {
		return nil, err
	}
	call, ok := e.(*callExpr)
	if !ok {
		return nil, p.failf("expected call")
	}
	if err := p.parseMacroBody(m, "endcall"); err != nil {
		return nil, err
	}
	return &callBlockNode{pos{line}, call, m}, nil
}

func (p *parser) parseFilterBlock() (node, error) {
	line := p.next().line
	e, err := p.parseFilter(nil, true)
	if err != nil {
		return nil, err
	}
	body, err := p.parseStatements([]string{"endfilter"}, true)
	if err != nil {
		return nil, err
	}
	return &filterBlockNode{pos{line}, e.(*filterExpr), body}, nil
}

func (p *parser) parseWith() (node, error) {
	line := p.next().line
	n := &withNode{pos: pos{line}}
	for p.cur().kind != tBlockEnd {
		if len(n.targets) > 0 {
			if _, err := p.expect(tComma); err != nil {
				return nil, err
			}
		}
		t, err := p.parseAssignTarget(true, false, nil, false)
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tAssign); err != nil {
			return nil, err
		}
		v, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		n.targets = append(n.targets, t)
		n.values = append(n.values, v)
	}
	body, err := p.parseStatements([]string{"endwith"}, true)
	if err != nil {
		return nil, err
	}
	n.body = body
	return n, nil
}

// parseAssignTarget parses a name, a tuple of names, or (withNS) ns.attr.
func (p *parser) parseAssignTarget(withTuple, nameOnly bool, extraEnd []string, withNS bool) (expr, error) {
	if nameOnly {
		t, err := p.expect(tName)
		if err != nil {
			return nil, err
		}
		return &nameExpr{pos{t.line}, t.str}, nil
	}
	var target expr
	var err error
	if withTuple {
		target, err = p.parseTuple(true, true, extraEnd, false, withNS)
	} else {
		target, err = p.parsePrimary(withNS)
	}
	if err != nil {
		return nil, err
	}
	if !canAssign(target) {
		return nil, p.failf("can't assign to %s", nodeKind(target))
	}
	return target, nil
}

func canAssign(e expr) bool {
	switch x := e.(type) {
	case *nameExpr:
		switch x.name {
		case "true", "false", "none", "True", "False", "None":
			return false
		}
		return true
	case *nsRefExpr:
		return true
	case *tupleExpr:
		for _, it := range x.items {
			if !canAssign(it) {
				return false
			}
		}
		return true
	}
	return false
}

func nodeKind(e expr) string {
	s := fmt.Sprintf("%T", e)
	s = strings.TrimPrefix(s, "*jinja.")
	return "'" + strings.TrimSuffix(s, "Expr") + "'"
}

func (p *parser) parseExpression(withCond bool) (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if withCond {
		return p.parseCondExpr()
	}
	return p.parseOr()
}

func (p *parser) parseCondExpr() (expr, error) {
	links := 0
	defer p.unlink(&links)
	line := p.cur().line
	e1, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	for p.skipName("if") {
		if err := p.link(&links); err != nil {
			return nil, err
		}
		saved := p.soft
		p.soft = true
		e2, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		var e3 expr
		if p.skipName("else") {
			if e3, err = p.parseCondExpr(); err != nil {
				return nil, err
			}
		}
		p.soft = saved
		e1 = &condExpr{pos{line}, e2, e1, e3}
		line = p.cur().line
	}
	return e1, nil
}

func (p *parser) parseOr() (expr, error) {
	links := 0
	defer p.unlink(&links)
	line := p.cur().line
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.skipName("or") {
		if err := p.link(&links); err != nil {
			return nil, err
		}
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		l = &orExpr{pos{line}, l, r}
		line = p.cur().line
	}
	return l, nil
}

func (p *parser) parseAnd() (expr, error) {
	links := 0
	defer p.unlink(&links)
	line := p.cur().line
	l, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.skipName("and") {
		if err := p.link(&links); err != nil {
			return nil, err
		}
		r, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		l = &andExpr{pos{line}, l, r}
		line = p.cur().line
	}
	return l, nil
}

func (p *parser) parseNot() (expr, error) {
	if p.isName("not") {
		line := p.next().line
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &notExpr{pos{line}, x}, nil
	}
	return p.parseCompare()
}

var cmpTokens = map[tokKind]string{tEq: "eq", tNe: "ne", tLt: "lt", tLtEq: "lteq", tGt: "gt", tGtEq: "gteq"}

func (p *parser) parseCompare() (expr, error) {
	line := p.cur().line
	first, err := p.parseMath1()
	if err != nil {
		return nil, err
	}
	var ops []cmpOp
	for {
		var op string
		if name, ok := cmpTokens[p.cur().kind]; ok {
			p.next()
			op = name
		} else if p.skipName("in") {
			op = "in"
		} else if p.isName("not") && p.look().kind == tName && p.look().str == "in" {
			p.next()
			p.next()
			op = "notin"
		} else {
			break
		}
		v, err := p.parseMath1()
		if err != nil {
			return nil, err
		}
		ops = append(ops, cmpOp{op, v})
	}
	if len(ops) == 0 {
		return first, nil
	}
	return &compareExpr{pos{line}, first, ops}, nil
}

func (p *parser) parseMath1() (expr, error) {
	links := 0
	defer p.unlink(&links)
	line := p.cur().line
	l, err := p.parseConcat()
	if err != nil {
		return nil, err
	}
	for k := p.cur().kind; k == tAdd || k == tSub; k = p.cur().kind {
		if err := p.link(&links); err != nil {
			return nil, err
		}
		p.next()
		r, err := p.parseConcat()
		if err != nil {
			return nil, err
		}
		l = &binExpr{pos{line}, k, l, r}
		line = p.cur().line
	}
	return l, nil
}

func (p *parser) parseConcat() (expr, error) {
	line := p.cur().line
	first, err := p.parseMath2()
	if err != nil {
		return nil, err
	}
	items := []expr{first}
	for p.skip(tTilde) {
		e, err := p.parseMath2()
		if err != nil {
			return nil, err
		}
		items = append(items, e)
	}
	if len(items) == 1 {
		return first, nil
	}
	return &concatExpr{pos{line}, items}, nil
}

func (p *parser) parseMath2() (expr, error) {
	links := 0
	defer p.unlink(&links)
	line := p.cur().line
	l, err := p.parsePow()
	if err != nil {
		return nil, err
	}
	for k := p.cur().kind; k == tMul || k == tDiv || k == tFloorDiv || k == tMod; k = p.cur().kind {
		if err := p.link(&links); err != nil {
			return nil, err
		}
		p.next()
		r, err := p.parsePow()
		if err != nil {
			return nil, err
		}
		l = &binExpr{pos{line}, k, l, r}
		line = p.cur().line
	}
	return l, nil
}

func (p *parser) parsePow() (expr, error) {
	links := 0
	defer p.unlink(&links)
	line := p.cur().line
	l, err := p.parseUnary(true)
	if err != nil {
		return nil, err
	}
	for p.skip(tPow) {
		if err := p.link(&links); err != nil {
			return nil, err
		}
		r, err := p.parseUnary(true)
		if err != nil {
			return nil, err
		}
		l = &binExpr{pos{line}, tPow, l, r}
		line = p.cur().line
	}
	return l, nil
}

func (p *parser) parseUnary(withFilter bool) (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.cur()
	var n expr
	var err error
	switch t.kind {
	case tSub, tAdd:
		p.next()
		x, err := p.parseUnary(false)
		if err != nil {
			return nil, err
		}
		n = &negExpr{pos{t.line}, x, t.kind == tSub}
	default:
		if n, err = p.parsePrimary(false); err != nil {
			return nil, err
		}
	}
	if n, err = p.parsePostfix(n); err != nil {
		return nil, err
	}
	if withFilter {
		return p.parseFilterExpr(n)
	}
	return n, nil
}

func (p *parser) parsePrimary(withNS bool) (expr, error) {
	t := p.cur()
	switch t.kind {
	case tName:
		p.next()
		switch t.str {
		case "true", "True":
			return &constExpr{pos{t.line}, true}, nil
		case "false", "False":
			return &constExpr{pos{t.line}, false}, nil
		case "none", "None":
			return &constExpr{pos{t.line}, nil}, nil
		}
		if withNS && p.cur().kind == tDot {
			p.next()
			a, err := p.expect(tName)
			if err != nil {
				return nil, err
			}
			return &nsRefExpr{pos{t.line}, t.str, a.str}, nil
		}
		for _, refs := range p.macroRefs {
			refs[t.str] = true
		}
		return &nameExpr{pos{t.line}, t.str}, nil
	case tString:
		p.next()
		s := t.str
		if p.cur().kind == tString {
			var b strings.Builder
			b.WriteString(s)
			for p.cur().kind == tString {
				b.WriteString(p.next().str)
			}
			s = b.String()
		}
		return &constExpr{pos{t.line}, s}, nil
	case tInt, tFloat:
		p.next()
		return &constExpr{pos{t.line}, t.num}, nil
	case tLParen:
		p.next()
		e, err := p.parseTuple(false, true, nil, true)
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tRParen); err != nil {
			return nil, err
		}
		return e, nil
	case tLBracket:
		return p.parseList()
	case tLBrace:
		return p.parseDict()
	case tEOF:
		return nil, p.failf("unexpected end of template")
	}
	return nil, p.failf("unexpected %s", t.describe())
}

// parseTuple parses comma-separated expressions; one expression without a
// comma is returned as itself. simplified parses primaries only.
func (p *parser) parseTuple(simplified, withCond bool, extraEnd []string, explicitParens bool, withNS ...bool) (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	line := p.cur().line
	ns := len(withNS) > 0 && withNS[0]
	var items []expr
	isTuple := false
	for {
		if len(items) > 0 {
			if _, err := p.expect(tComma); err != nil {
				return nil, err
			}
		}
		if p.isTupleEnd(extraEnd) {
			break
		}
		var e expr
		var err error
		if simplified {
			e, err = p.parsePrimary(ns)
		} else {
			e, err = p.parseExpression(withCond)
		}
		if err != nil {
			return nil, err
		}
		items = append(items, e)
		if p.cur().kind == tComma {
			isTuple = true
		} else {
			break
		}
	}
	if !isTuple {
		if len(items) > 0 {
			return items[0], nil
		}
		if !explicitParens {
			return nil, p.failf("Expected an expression, got %s", p.cur().describe())
		}
	}
	return &tupleExpr{pos{line}, items}, nil
}

func (p *parser) isTupleEnd(extraEnd []string) bool {
	switch p.cur().kind {
	case tVarEnd, tBlockEnd, tRParen:
		return true
	}
	for _, e := range extraEnd {
		if p.isName(e) {
			return true
		}
	}
	return false
}

func (p *parser) parseList() (expr, error) {
	t := p.next()
	n := &listExpr{pos: pos{t.line}}
	for p.cur().kind != tRBracket {
		if len(n.items) > 0 {
			if _, err := p.expect(tComma); err != nil {
				return nil, err
			}
		}
		if p.cur().kind == tRBracket {
			break
		}
		e, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, e)
	}
	p.next()
	return n, nil
}

func (p *parser) parseDict() (expr, error) {
	t := p.next()
	n := &dictExpr{pos: pos{t.line}}
	for p.cur().kind != tRBrace {
		if len(n.keys) > 0 {
			if _, err := p.expect(tComma); err != nil {
				return nil, err
			}
		}
		if p.cur().kind == tRBrace {
			break
		}
		k, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tColon); err != nil {
			return nil, err
		}
		v, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, k)
		n.vals = append(n.vals, v)
	}
	p.next()
	return n, nil
}

func (p *parser) parsePostfix(n expr) (expr, error) {
	links := 0
	defer p.unlink(&links)
	for {
		if err := p.link(&links); err != nil {
			return nil, err
		}
		var err error
		switch p.cur().kind {
		case tDot, tLBracket:
			n, err = p.parseSubscript(n)
		case tLParen:
			n, err = p.parseCall(n)
		default:
			return n, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *parser) parseFilterExpr(n expr) (expr, error) {
	links := 0
	defer p.unlink(&links)
	for {
		if err := p.link(&links); err != nil {
			return nil, err
		}
		var err error
		switch {
		case p.cur().kind == tPipe:
			n, err = p.parseFilter(n, false)
		case p.isName("is"):
			n, err = p.parseTest(n)
		case p.cur().kind == tLParen:
			n, err = p.parseCall(n)
		default:
			return n, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *parser) parseSubscript(n expr) (expr, error) {
	t := p.next()
	if t.kind == tDot {
		a := p.next()
		switch a.kind {
		case tName:
			return &getattrExpr{pos{t.line}, n, a.str}, nil
		case tInt:
			return &getitemExpr{pos{t.line}, n, &constExpr{pos{a.line}, a.num}}, nil
		}
		return nil, p.failf("expected name or number")
	}
	var args []expr
	for p.cur().kind != tRBracket {
		if len(args) > 0 {
			if _, err := p.expect(tComma); err != nil {
				return nil, err
			}
		}
		a, err := p.parseSubscribed()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	p.next()
	if len(args) == 1 {
		return &getitemExpr{pos{t.line}, n, args[0]}, nil
	}
	return &getitemExpr{pos{t.line}, n, &tupleExpr{pos{t.line}, args}}, nil
}

func (p *parser) parseSubscribed() (expr, error) {
	line := p.cur().line
	var parts []expr
	if p.cur().kind == tColon {
		p.next()
		parts = []expr{nil}
	} else {
		e, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		if p.cur().kind != tColon {
			return e, nil
		}
		p.next()
		parts = []expr{e}
	}
	switch p.cur().kind {
	case tColon, tRBracket, tComma:
		parts = append(parts, nil)
	default:
		e, err := p.parseExpression(true)
		if err != nil {
			return nil, err
		}
		parts = append(parts, e)
	}
	if p.cur().kind == tColon {
		p.next()
		switch p.cur().kind {
		case tRBracket, tComma:
			parts = append(parts, nil)
		default:
			e, err := p.parseExpression(true)
			if err != nil {
				return nil, err
			}
			parts = append(parts, e)
		}
	} else {
		parts = append(parts, nil)
	}
	return &sliceExpr{pos{line}, parts[0], parts[1], parts[2]}, nil
}

func (p *parser) parseCallArgs() (callArgs, error) {
	var a callArgs
	t, err := p.expect(tLParen)
	if err != nil {
		return a, err
	}
	bad := func() error {
		e := newErr(KindSyntax, "invalid syntax for function call expression")
		e.Line = t.line
		return e
	}
	requireComma := false
	for p.cur().kind != tRParen {
		if requireComma {
			if _, err := p.expect(tComma); err != nil {
				return a, err
			}
			if p.cur().kind == tRParen {
				break
			}
		}
		switch {
		case p.cur().kind == tMul:
			if a.dynArgs != nil || a.dynKwargs != nil {
				return a, bad()
			}
			p.next()
			if a.dynArgs, err = p.parseExpression(true); err != nil {
				return a, err
			}
		case p.cur().kind == tPow:
			if a.dynKwargs != nil {
				return a, bad()
			}
			p.next()
			if a.dynKwargs, err = p.parseExpression(true); err != nil {
				return a, err
			}
		case p.cur().kind == tName && p.look().kind == tAssign:
			if a.dynKwargs != nil {
				return a, bad()
			}
			key := p.next().str
			p.next()
			v, err := p.parseExpression(true)
			if err != nil {
				return a, err
			}
			a.kwNames = append(a.kwNames, key)
			a.kwVals = append(a.kwVals, v)
		default:
			if a.dynArgs != nil || a.dynKwargs != nil || len(a.kwNames) > 0 {
				return a, bad()
			}
			v, err := p.parseExpression(true)
			if err != nil {
				return a, err
			}
			a.args = append(a.args, v)
		}
		requireComma = true
	}
	p.next()
	a.hasAnyArgs = len(a.args) > 0 || len(a.kwNames) > 0 || a.dynArgs != nil || a.dynKwargs != nil
	return a, nil
}

func (p *parser) parseCall(n expr) (expr, error) {
	line := p.cur().line
	a, err := p.parseCallArgs()
	if err != nil {
		return nil, err
	}
	return &callExpr{pos{line}, n, a}, nil
}

func (p *parser) parseFilter(n expr, startInline bool) (expr, error) {
	links := 0
	defer p.unlink(&links)
	for p.cur().kind == tPipe || startInline {
		if err := p.link(&links); err != nil {
			return nil, err
		}
		if !startInline {
			p.next()
		}
		t, err := p.expect(tName)
		if err != nil {
			return nil, err
		}
		name := t.str
		for p.cur().kind == tDot {
			p.next()
			a, err := p.expect(tName)
			if err != nil {
				return nil, err
			}
			name += "." + a.str
		}
		var a callArgs
		if p.cur().kind == tLParen {
			if a, err = p.parseCallArgs(); err != nil {
				return nil, err
			}
		}
		fn := filters[name]
		if fn == nil && !p.soft {
			e := newErr(KindSyntax, "No filter named '%s'.", name)
			e.Line = t.line
			return nil, e
		}
		n = &filterExpr{pos{t.line}, n, name, a, fn}
		startInline = false
	}
	return n, nil
}

func (p *parser) parseTest(n expr) (expr, error) {
	line := p.next().line
	negated := p.skipName("not")
	t, err := p.expect(tName)
	if err != nil {
		return nil, err
	}
	name := t.str
	for p.cur().kind == tDot {
		p.next()
		a, err := p.expect(tName)
		if err != nil {
			return nil, err
		}
		name += "." + a.str
	}
	var a callArgs
	c := p.cur()
	switch {
	case c.kind == tLParen:
		if a, err = p.parseCallArgs(); err != nil {
			return nil, err
		}
	case (c.kind == tName || c.kind == tString || c.kind == tInt || c.kind == tFloat ||
		c.kind == tLBracket || c.kind == tLBrace) &&
		!p.isName("else") && !p.isName("or") && !p.isName("and"):
		if p.isName("is") {
			return nil, p.failf("You cannot chain multiple tests with is")
		}
		arg, err := p.parsePrimary(false)
		if err != nil {
			return nil, err
		}
		if arg, err = p.parsePostfix(arg); err != nil {
			return nil, err
		}
		a.args = []expr{arg}
		a.hasAnyArgs = true
	}
	fn := tests[name]
	if fn == nil && !p.soft {
		e := newErr(KindSyntax, "No test named '%s'.", name)
		e.Line = t.line
		return nil, e
	}
	var out expr = &testExpr{pos{line}, n, name, a, fn}
	if negated {
		out = &notExpr{pos{line}, out}
	}
	return out, nil
}
