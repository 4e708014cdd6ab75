package jinja

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"
)

// scope holds the variables of one frame: the template's top level, one
// loop iteration, a macro call, a block. Lookups fall back to the parent.
type scope struct {
	locals kwargs // this frame's variables, in order of first assignment
	parent *scope
	vars   *Dict // read-only render variables, at the root
	// Inline room for the first few variables (a loop target and loop).
	nbuf [3]string
	vbuf [3]Value
}

func newScope(parent *scope) *scope {
	s := &scope{parent: parent}
	s.locals = kwargs{names: s.nbuf[:0], vals: s.vbuf[:0]}
	return s
}

func (sc *scope) lookup(name string) (Value, bool) {
	for s := sc; s != nil; s = s.parent {
		if v, ok := s.locals.get(name); ok {
			return v, true
		}
		if s.vars != nil {
			if v, ok := s.vars.Get(name); ok {
				return v, true
			}
		}
	}
	return nil, false
}

func (sc *scope) set(name string, v Value) { sc.locals.add(name, v) }

// ctrl is how a statement list ended.
type ctrl uint8

const (
	ctrlNone ctrl = iota
	ctrlBreak
	ctrlContinue
)

// state is one render: its limits, counters and clock.
type state struct {
	ctx     context.Context
	lim     Limits
	now     func() time.Time
	iters   int64
	work    int64
	depth   int
	ticks   uint32
	globals map[string]Value
	// constMode evaluates at parse time for constant folding: names and
	// calls are not constant.
	constMode bool
	foldSteps int
}

// tick counts work and checks the context now and then.
func (s *state) tick() error {
	s.ticks++
	if s.ticks&255 == 0 {
		if s.ctx.Err() != nil {
			return ctxErr(s.ctx, s.lim)
		}
	}
	return nil
}

// countIter charges n loop iterations or materialized items.
func (s *state) countIter(n int64) error {
	s.iters += n
	if s.iters > s.lim.MaxIterations {
		return limitErrorf("more than %d loop iterations or sequence items", s.lim.MaxIterations)
	}
	return s.tick()
}

// checkLen checks that a string being built, n bytes so far, stays within
// MaxStringBytes, without charging the work budget: a builder charges its
// result once, with checkStr, when it is done. (Charging every partial
// length made joining n short strings cost quadratic work.)
func (s *state) checkLen(n int) error {
	if n > s.lim.MaxStringBytes {
		return limitErrorf("string of %d bytes exceeds the limit of %d", n, s.lim.MaxStringBytes)
	}
	return nil
}

// checkStr checks that a string of n bytes may be built, and charges it to
// the work budget.
func (s *state) checkStr(n int) error {
	if n > s.lim.MaxStringBytes {
		return limitErrorf("string of %d bytes exceeds the limit of %d", n, s.lim.MaxStringBytes)
	}
	s.work += int64(n)
	if s.work > s.lim.MaxWorkBytes {
		return limitErrorf("templates built more than %d bytes of strings", s.lim.MaxWorkBytes)
	}
	return nil
}

func (s *state) enterCall() error {
	s.depth++
	if s.depth > s.lim.MaxRecursion {
		return limitErrorf("recursion deeper than %d", s.lim.MaxRecursion)
	}
	if s.ctx.Err() != nil {
		return ctxErr(s.ctx, s.lim)
	}
	return nil
}

func (s *state) leaveCall() { s.depth-- }

// output is a buffer bounded by MaxOutputBytes.
type output struct {
	strings.Builder
	max int
}

func (s *state) newOutput() *output { return &output{max: s.lim.MaxOutputBytes} }

func (o *output) write(str string) error {
	if o.Len()+len(str) > o.max {
		return limitErrorf("output larger than %d bytes", o.max)
	}
	o.WriteString(str)
	return nil
}

// withLine attaches a line number to an error that has none.
func withLine(err error, line int) error {
	var e *Error
	if errors.As(err, &e) {
		if e.Line == 0 {
			e.Line = line
		}
		return err
	}
	return &Error{Kind: KindRuntime, Msg: err.Error(), Line: line, Err: err}
}

// execBody runs statements, writing to w.
func (s *state) execBody(body []node, sc *scope, w *output) (ctrl, error) {
	for _, n := range body {
		c, err := s.exec(n, sc, w)
		if err != nil {
			return ctrlNone, err
		}
		if c != ctrlNone {
			return c, nil
		}
	}
	return ctrlNone, nil
}

func (s *state) exec(n node, sc *scope, w *output) (ctrl, error) {
	if err := s.tick(); err != nil {
		return ctrlNone, err
	}
	switch n := n.(type) {
	case *outputNode:
		for _, it := range n.items {
			if c, ok := it.(*constExpr); ok {
				if str, ok := c.v.(string); ok {
					if err := w.write(str); err != nil {
						return ctrlNone, withLine(err, n.line)
					}
					continue
				}
			}
			v, err := s.eval(it, sc)
			if err != nil {
				return ctrlNone, withLine(err, it.lineNo())
			}
			str, err := s.str(v)
			if err != nil {
				return ctrlNone, withLine(err, it.lineNo())
			}
			if err := w.write(str); err != nil {
				return ctrlNone, withLine(err, it.lineNo())
			}
		}
	case *ifNode:
		for {
			v, err := s.eval(n.cond, sc)
			if err != nil {
				return ctrlNone, withLine(err, n.line)
			}
			if truthy(v) {
				return s.execBody(n.body, sc, w)
			}
			if len(n.elseBody) == 1 {
				if elif, ok := n.elseBody[0].(*ifNode); ok {
					n = elif
					continue
				}
			}
			return s.execBody(n.elseBody, sc, w)
		}
	case *forNode:
		if err := s.execFor(n, sc, w); err != nil {
			return ctrlNone, withLine(err, n.line)
		}
	case *setNode:
		v, err := s.eval(n.value, sc)
		if err != nil {
			return ctrlNone, withLine(err, n.line)
		}
		if err := s.assign(n.target, v, sc); err != nil {
			return ctrlNone, withLine(err, n.line)
		}
	case *setBlockNode:
		v, err := s.renderBlock(n.body, sc)
		if err != nil {
			return ctrlNone, err
		}
		var val Value = v
		if n.filter != nil {
			if val, err = s.applyFilterChain(n.filter, val, sc); err != nil {
				return ctrlNone, withLine(err, n.line)
			}
		}
		if err := s.assign(n.target, val, sc); err != nil {
			return ctrlNone, withLine(err, n.line)
		}
	case *macroNode:
		sc.set(n.name, &macro{node: n, closure: sc, name: n.name})
	case *callBlockNode:
		caller := &macro{node: n.caller, closure: sc, name: "caller", anon: true}
		v, err := s.evalCall(n.call, sc, caller)
		if err != nil {
			return ctrlNone, withLine(err, n.line)
		}
		str, err := s.str(v)
		if err != nil {
			return ctrlNone, withLine(err, n.line)
		}
		if err := w.write(str); err != nil {
			return ctrlNone, withLine(err, n.line)
		}
	case *filterBlockNode:
		v, err := s.renderBlock(n.body, sc)
		if err != nil {
			return ctrlNone, err
		}
		r, err := s.applyFilterChain(n.filter, v, sc)
		if err != nil {
			return ctrlNone, withLine(err, n.line)
		}
		str, err := s.str(r)
		if err != nil {
			return ctrlNone, withLine(err, n.line)
		}
		if err := w.write(str); err != nil {
			return ctrlNone, withLine(err, n.line)
		}
	case *withNode:
		inner := newScope(sc)
		vals := make([]Value, len(n.values))
		for i, e := range n.values {
			v, err := s.eval(e, sc)
			if err != nil {
				return ctrlNone, withLine(err, n.line)
			}
			vals[i] = v
		}
		for i, t := range n.targets {
			if err := s.assign(t, vals[i], inner); err != nil {
				return ctrlNone, withLine(err, n.line)
			}
		}
		return s.execBody(n.body, inner, w)
	case *scopeNode:
		if err := s.enterCall(); err != nil {
			return ctrlNone, withLine(err, n.line)
		}
		defer s.leaveCall()
		_, err := s.execBody(n.body, newScope(sc), w)
		return ctrlNone, err
	case *breakNode:
		return ctrlBreak, nil
	case *continueNode:
		return ctrlContinue, nil
	}
	return ctrlNone, nil
}

// renderBlock renders body in a child scope and returns the text.
func (s *state) renderBlock(body []node, sc *scope) (string, error) {
	w := s.newOutput()
	if _, err := s.execBody(body, newScope(sc), w); err != nil {
		return "", err
	}
	return w.String(), nil
}

// assign binds a target (name, tuple of names, ns.attr) in sc.
func (s *state) assign(target expr, v Value, sc *scope) error {
	switch t := target.(type) {
	case *nameExpr:
		sc.set(t.name, v)
		return nil
	case *nsRefExpr:
		obj, ok := sc.lookup(t.name)
		if !ok {
			obj, ok = s.globals[t.name]
		}
		ns, isNS := obj.(*namespace)
		if !ok || !isNS {
			return newErr(KindRuntime, "cannot assign attribute on non-namespace object")
		}
		return ns.attrs.set(t.attr, v)
	case *tupleExpr:
		items, err := s.toSlice(v)
		if err != nil {
			return err
		}
		if len(items) != len(t.items) {
			if len(items) > len(t.items) {
				return typeErrorf("too many values to unpack (expected %d)", len(t.items))
			}
			return typeErrorf("not enough values to unpack (expected %d, got %d)", len(t.items), len(items))
		}
		for i, it := range t.items {
			if err := s.assign(it, items[i], sc); err != nil {
				return err
			}
		}
		return nil
	}
	return newErr(KindSyntax, "cannot assign to this expression")
}

// loopState is the loop variable of a for loop.
type loopState struct {
	n       int
	at      func(int) Value
	index0  int
	depth0  int
	recurse func(Value, int) (string, error)
	changed []Value
	hasChg  bool
}

func (l *loopState) length() int { return l.n }

func (s *state) execFor(n *forNode, sc *scope, w *output) error {
	it, err := s.eval(n.iter, sc)
	if err != nil {
		return err
	}
	return s.runLoop(n, it, sc, w, 0)
}

// runLoop renders a for loop over it at recursion depth depth0.
func (s *state) runLoop(n *forNode, it Value, sc *scope, w *output, depth0 int) error {
	if err := s.enterCall(); err != nil {
		return err
	}
	defer s.leaveCall()
	var count int
	var at func(int) Value
	if r, ok := it.(*rangeValue); ok && n.cond == nil {
		count = r.length()
		at = r.at
	} else {
		items, err := s.toSlice(it)
		if err != nil {
			return err
		}
		if n.cond != nil {
			kept := items[:0:0]
			for _, item := range items {
				tsc := newScope(sc)
				if err := s.assign(n.target, item, tsc); err != nil {
					return err
				}
				v, err := s.eval(n.cond, tsc)
				if err != nil {
					return err
				}
				if truthy(v) {
					kept = append(kept, item)
				}
			}
			items = kept
		}
		count = len(items)
		at = func(i int) Value { return items[i] }
	}
	ls := &loopState{n: count, at: at, depth0: depth0}
	if n.recursive {
		ls.recurse = func(v Value, depth int) (string, error) {
			rw := s.newOutput()
			if err := s.runLoop(n, v, sc, rw, depth); err != nil {
				return "", err
			}
			return rw.String(), nil
		}
	}
	// Jinja runs the else block unless some iteration reached the end of
	// the body: an iteration left by break or continue does not count.
	completed := false
	for i := 0; i < count; i++ {
		if err := s.countIter(1); err != nil {
			return err
		}
		ls.index0 = i
		inner := newScope(sc)
		if err := s.assign(n.target, at(i), inner); err != nil {
			return err
		}
		inner.set("loop", ls)
		c, err := s.execBody(n.body, inner, w)
		if err != nil {
			return err
		}
		if c == ctrlNone {
			completed = true
		}
		if c == ctrlBreak {
			break
		}
	}
	if !completed && len(n.elseBody) > 0 {
		_, err := s.execBody(n.elseBody, newScope(sc), w)
		return err
	}
	return nil
}

// ---- expressions ----

func (s *state) eval(e expr, sc *scope) (Value, error) {
	if s.constMode {
		s.foldSteps++
		if s.foldSteps > maxFoldSteps {
			return nil, errNotConst
		}
	}
	switch e := e.(type) {
	case *constExpr:
		return e.v, nil
	case *nameExpr:
		if s.constMode {
			return nil, errNotConst
		}
		if v, ok := sc.lookup(e.name); ok {
			return v, nil
		}
		if v, ok := s.globals[e.name]; ok {
			return v, nil
		}
		return undefinedName(e.name), nil
	case *getattrExpr:
		obj, err := s.eval(e.obj, sc)
		if err != nil {
			return nil, err
		}
		return s.getattr(obj, e.attr)
	case *getitemExpr:
		obj, err := s.eval(e.obj, sc)
		if err != nil {
			return nil, err
		}
		if sl, ok := e.arg.(*sliceExpr); ok {
			return s.evalSlice(obj, sl, sc)
		}
		key, err := s.eval(e.arg, sc)
		if err != nil {
			return nil, err
		}
		return s.getitem(obj, key)
	case *binExpr:
		l, err := s.eval(e.l, sc)
		if err != nil {
			return nil, err
		}
		r, err := s.eval(e.r, sc)
		if err != nil {
			return nil, err
		}
		return s.binop(e.op, l, r)
	case *concatExpr:
		var b strings.Builder
		for _, it := range e.items {
			v, err := s.eval(it, sc)
			if err != nil {
				return nil, err
			}
			str, err := s.str(v)
			if err != nil {
				return nil, err
			}
			if err := s.checkLen(b.Len() + len(str)); err != nil {
				return nil, err
			}
			b.WriteString(str)
		}
		if err := s.checkStr(b.Len()); err != nil {
			return nil, err
		}
		return b.String(), nil
	case *compareExpr:
		l, err := s.eval(e.first, sc)
		if err != nil {
			return nil, err
		}
		for _, op := range e.ops {
			r, err := s.eval(op.val, sc)
			if err != nil {
				return nil, err
			}
			ok, err := s.compareOp(op.op, l, r)
			if err != nil {
				return nil, err
			}
			if !ok {
				return false, nil
			}
			l = r
		}
		return true, nil
	case *andExpr:
		l, err := s.eval(e.l, sc)
		if err != nil || !truthy(l) {
			return l, err
		}
		return s.eval(e.r, sc)
	case *orExpr:
		l, err := s.eval(e.l, sc)
		if err != nil || truthy(l) {
			return l, err
		}
		return s.eval(e.r, sc)
	case *notExpr:
		v, err := s.eval(e.x, sc)
		if err != nil {
			return nil, err
		}
		return !truthy(v), nil
	case *negExpr:
		v, err := s.eval(e.x, sc)
		if err != nil {
			return nil, err
		}
		return unaryOp(v, e.neg)
	case *condExpr:
		c, err := s.eval(e.cond, sc)
		if err != nil {
			return nil, err
		}
		if truthy(c) {
			return s.eval(e.yes, sc)
		}
		if e.no == nil {
			return undefinedHint("the inline if-expression evaluated to false and no else section was defined."), nil
		}
		return s.eval(e.no, sc)
	case *tupleExpr:
		items, err := s.evalList(e.items, sc)
		if err != nil {
			return nil, err
		}
		return &List{Items: items, Tuple: true}, nil
	case *listExpr:
		items, err := s.evalList(e.items, sc)
		if err != nil {
			return nil, err
		}
		return &List{Items: items}, nil
	case *dictExpr:
		d := NewDict()
		for i := range e.keys {
			k, err := s.eval(e.keys[i], sc)
			if err != nil {
				return nil, err
			}
			v, err := s.eval(e.vals[i], sc)
			if err != nil {
				return nil, err
			}
			if err := d.set(k, v); err != nil {
				return nil, err
			}
		}
		return d, nil
	case *callExpr:
		if s.constMode {
			return nil, errNotConst
		}
		return s.evalCall(e, sc, nil)
	case *filterExpr:
		if s.constMode && (e.fn == nil || e.arg == nil || contextFilters[e.name]) {
			return nil, errNotConst
		}
		return s.applyFilterChain(e, nil, sc)
	case *testExpr:
		if s.constMode && e.fn == nil {
			return nil, errNotConst
		}
		return s.evalTest(e, sc)
	case *nsRefExpr:
		return nil, newErr(KindSyntax, "namespace reference outside assignment")
	case *sliceExpr:
		return nil, newErr(KindSyntax, "slice outside subscript")
	}
	return nil, newErr(KindRuntime, "unknown expression %T", e)
}

func (s *state) evalList(es []expr, sc *scope) ([]Value, error) {
	out := make([]Value, len(es))
	for i, e := range es {
		v, err := s.eval(e, sc)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// kwargs are keyword arguments in call order.
type kwargs struct {
	names []string
	vals  []Value
}

func (k *kwargs) get(name string) (Value, bool) {
	for i, n := range k.names {
		if n == name {
			return k.vals[i], true
		}
	}
	return nil, false
}

func (k *kwargs) add(name string, v Value) {
	for i, n := range k.names {
		if n == name {
			k.vals[i] = v
			return
		}
	}
	k.names = append(k.names, name)
	k.vals = append(k.vals, v)
}

func (k *kwargs) len() int { return len(k.names) }

// evalArgs evaluates call arguments, expanding *args and **kwargs.
func (s *state) evalArgs(a *callArgs, sc *scope) ([]Value, kwargs, error) {
	var kw kwargs
	if !a.hasAnyArgs {
		return nil, kw, nil
	}
	args, err := s.evalList(a.args, sc)
	if err != nil {
		return nil, kw, err
	}
	for i, name := range a.kwNames {
		v, err := s.eval(a.kwVals[i], sc)
		if err != nil {
			return nil, kw, err
		}
		kw.add(name, v)
	}
	if a.dynArgs != nil {
		v, err := s.eval(a.dynArgs, sc)
		if err != nil {
			return nil, kw, err
		}
		more, err := s.toSlice(v)
		if err != nil {
			return nil, kw, err
		}
		args = append(args, more...)
	}
	if a.dynKwargs != nil {
		v, err := s.eval(a.dynKwargs, sc)
		if err != nil {
			return nil, kw, err
		}
		d, ok := v.(*Dict)
		if !ok {
			return nil, kw, typeErrorf("argument after ** must be a mapping, not %s", typeName(v))
		}
		for i, k := range d.keys {
			ks, ok := k.(string)
			if !ok {
				return nil, kw, typeErrorf("keywords must be strings")
			}
			kw.add(ks, d.vals[i])
		}
	}
	return args, kw, nil
}

// evalCall evaluates a call; caller, when set, is passed as the caller
// keyword ({% call %} blocks).
func (s *state) evalCall(e *callExpr, sc *scope, caller *macro) (Value, error) {
	// Method calls go straight to the method without building a bound
	// method value.
	if ga, ok := e.fn.(*getattrExpr); ok {
		obj, err := s.eval(ga.obj, sc)
		if err != nil {
			return nil, err
		}
		args, kw, err := s.evalArgs(&e.callArgs, sc)
		if err != nil {
			return nil, err
		}
		if caller != nil {
			kw.add("caller", caller)
		}
		if safe, found := hasMethod(obj, ga.attr); found && safe {
			return s.callMethod(obj, ga.attr, args, kw)
		}
		fn, err := s.getattr(obj, ga.attr)
		if err != nil {
			return nil, err
		}
		return s.call(fn, args, kw)
	}
	fn, err := s.eval(e.fn, sc)
	if err != nil {
		return nil, err
	}
	args, kw, err := s.evalArgs(&e.callArgs, sc)
	if err != nil {
		return nil, err
	}
	if caller != nil {
		kw.add("caller", caller)
	}
	return s.call(fn, args, kw)
}

// call calls any callable value.
func (s *state) call(fn Value, args []Value, kw kwargs) (Value, error) {
	switch f := fn.(type) {
	case *macro:
		return s.callMacro(f, args, kw)
	case *builtin:
		return f.fn(s, args, kw)
	case *method:
		return s.callMethod(f.recv, f.name, args, kw)
	case *loopState:
		if f.recurse == nil {
			return nil, typeErrorf("The loop must have the 'recursive' marker to be called recursively.")
		}
		if len(args) != 1 || kw.len() > 0 {
			return nil, typeErrorf("loop() takes exactly one argument")
		}
		return f.recurse(args[0], f.depth0+1)
	case undefined:
		return nil, f.err()
	}
	return nil, typeErrorf("'%s' object is not callable", typeName(fn))
}

// macro is a callable defined with {% macro %} (or a call block's caller).
type macro struct {
	node    *macroNode
	closure *scope
	name    string
	anon    bool // a call block's caller
}

func (s *state) callMacro(m *macro, args []Value, kw kwargs) (Value, error) {
	if err := s.enterCall(); err != nil {
		return nil, err
	}
	defer s.leaveCall()
	n := m.node
	inner := newScope(m.closure)
	np := len(n.params)
	kwUsed := make([]bool, kw.len())
	foundCaller := false
	firstDefault := np - len(n.defaults)
	for i, p := range n.params {
		var v Value
		have := false
		if i < len(args) {
			v, have = args[i], true
		} else if len(args) < np {
			for j, name := range kw.names {
				if name == p && !kwUsed[j] {
					v, have = kw.vals[j], true
					kwUsed[j] = true
					break
				}
			}
			if p == "caller" {
				foundCaller = true
			}
		}
		if !have {
			if i >= firstDefault {
				// Defaults see the parameters bound before them.
				d, err := s.eval(n.defaults[i-firstDefault], inner)
				if err != nil {
					return nil, err
				}
				v = d
			} else {
				v = undefinedHint("parameter '" + p + "' was not provided")
			}
		}
		inner.set(p, v)
	}
	if n.usesCaller && !foundCaller {
		var c Value = undefinedHint("No caller defined")
		for j, name := range kw.names {
			if name == "caller" && !kwUsed[j] {
				c = kw.vals[j]
				kwUsed[j] = true
			}
		}
		inner.set("caller", c)
	}
	rest := NewDict()
	for j, name := range kw.names {
		if !kwUsed[j] {
			if !n.usesKwargs {
				if name == "caller" {
					return nil, typeErrorf("macro '%s' was invoked with two values for the special caller argument. This is most likely a bug.", m.name)
				}
				return nil, typeErrorf("macro '%s' takes no keyword argument '%s'", m.name, name)
			}
			rest.Set(name, kw.vals[j])
		}
	}
	if n.usesKwargs {
		inner.set("kwargs", rest)
	}
	if len(args) > np {
		if !n.usesVarargs {
			return nil, typeErrorf("macro '%s' takes not more than %d argument(s)", m.name, np)
		}
		inner.set("varargs", &List{Items: append([]Value(nil), args[np:]...), Tuple: true})
	} else if n.usesVarargs {
		inner.set("varargs", &List{Tuple: true})
	}
	w := s.newOutput()
	if _, err := s.execBody(n.body, inner, w); err != nil {
		return nil, err
	}
	return w.String(), nil
}

// ---- operators ----

func unaryOp(v Value, neg bool) (Value, error) {
	switch x := v.(type) {
	case int64:
		if neg {
			if x == math.MinInt64 {
				return nil, typeErrorf("integer overflow")
			}
			return -x, nil
		}
		return x, nil
	case bool:
		i, _ := asInt(x)
		if neg {
			return -i, nil
		}
		return i, nil
	case float64:
		if neg {
			return -x, nil
		}
		return x, nil
	case undefined:
		return nil, x.err()
	}
	op := "-"
	if !neg {
		op = "+"
	}
	return nil, typeErrorf("bad operand type for unary %s: '%s'", op, typeName(v))
}

var binopNames = map[tokKind]string{tAdd: "+", tSub: "-", tMul: "*", tDiv: "/", tFloorDiv: "//", tMod: "%", tPow: "**"}

func (s *state) binop(op tokKind, l, r Value) (Value, error) {
	// str % x is str.__mod__, which accepts anything (Undefined too).
	if ls, ok := isString(l); ok && op == tMod {
		res, err := s.percentFormat(ls, r)
		if err != nil {
			return nil, err
		}
		if _, isM := l.(markup); isM {
			return markup(res), nil
		}
		return res, nil
	}
	if u, ok := l.(undefined); ok {
		return nil, u.err()
	}
	if u, ok := r.(undefined); ok {
		return nil, u.err()
	}
	// Numbers.
	if lf, lfl, ok := asNumber(l); ok {
		if rf, rfl, ok := asNumber(r); ok {
			if !lfl && !rfl && op != tDiv {
				li, _ := asInt(l)
				ri, _ := asInt(r)
				return intOp(op, li, ri)
			}
			return floatOp(op, lf, rf)
		}
	}
	switch op {
	case tAdd:
		if ls, ok := isString(l); ok {
			if rs, ok := isString(r); ok {
				if err := s.checkStr(len(ls) + len(rs)); err != nil {
					return nil, err
				}
				lm, lIsM := l.(markup)
				_, rIsM := r.(markup)
				switch {
				case lIsM && !rIsM:
					return lm + markup(htmlEscape(rs)), nil
				case rIsM && !lIsM:
					return markup(htmlEscape(ls)) + r.(markup), nil
				case lIsM:
					return markup(ls + rs), nil
				}
				return ls + rs, nil
			}
			return nil, typeErrorf("can only concatenate str (not \"%s\") to str", typeName(r))
		}
		if ll, ok := l.(*List); ok {
			if rl, ok := r.(*List); ok && rl.Tuple == ll.Tuple {
				if err := s.countIter(int64(len(ll.Items) + len(rl.Items))); err != nil {
					return nil, err
				}
				items := make([]Value, 0, len(ll.Items)+len(rl.Items))
				items = append(items, ll.Items...)
				items = append(items, rl.Items...)
				return &List{Items: items, Tuple: ll.Tuple}, nil
			}
			return nil, typeErrorf("can only concatenate %s (not \"%s\") to %s", typeName(l), typeName(r), typeName(l))
		}
	case tMul:
		if n, ok := asInt(r); ok {
			if v, ok, err := s.repeat(l, n); ok || err != nil {
				return v, err
			}
		}
		if n, ok := asInt(l); ok {
			if v, ok, err := s.repeat(r, n); ok || err != nil {
				return v, err
			}
		}
	}
	return nil, typeErrorf("unsupported operand type(s) for %s: '%s' and '%s'", binopNames[op], typeName(l), typeName(r))
}

// repeat is str * n and list * n.
func (s *state) repeat(v Value, n int64) (Value, bool, error) {
	if n < 0 {
		n = 0
	}
	if str, ok := isString(v); ok {
		if len(str) > 0 && n > int64(s.lim.MaxStringBytes)/int64(len(str)) {
			return nil, true, limitErrorf("string repetition of %d bytes x %d exceeds the limit of %d bytes", len(str), n, s.lim.MaxStringBytes)
		}
		if err := s.checkStr(len(str) * int(n)); err != nil {
			return nil, true, err
		}
		res := strings.Repeat(str, int(n))
		if _, isM := v.(markup); isM {
			return markup(res), true, nil
		}
		return res, true, nil
	}
	if l, ok := v.(*List); ok {
		if len(l.Items) == 0 || n == 0 {
			// No items to count against the limits: [] * 2**62 looped
			// 2**62 times without checking them.
			return &List{Items: []Value{}, Tuple: l.Tuple}, true, nil
		}
		if n > s.lim.MaxIterations/int64(len(l.Items)) {
			return nil, true, limitErrorf("list repetition too large")
		}
		if err := s.countIter(int64(len(l.Items)) * n); err != nil {
			return nil, true, err
		}
		items := make([]Value, 0, len(l.Items)*int(n))
		for i := int64(0); i < n; i++ {
			items = append(items, l.Items...)
		}
		return &List{Items: items, Tuple: l.Tuple}, true, nil
	}
	return nil, false, nil
}

// errIntOverflow reports integer results beyond 64 bits, which Python
// would hold exactly as big integers.
func errIntOverflow() error {
	return &Error{Kind: KindType, Msg: "integer overflow: the result does not fit in 64 bits"}
}

func intOp(op tokKind, a, b int64) (Value, error) {
	switch op {
	case tAdd:
		c := a + b
		if (c > a) != (b > 0) {
			return nil, errIntOverflow()
		}
		return c, nil
	case tSub:
		c := a - b
		if (c < a) != (b > 0) {
			return nil, errIntOverflow()
		}
		return c, nil
	case tMul:
		if a == 0 || b == 0 {
			return int64(0), nil
		}
		c := a * b
		if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
			return nil, errIntOverflow()
		}
		return c, nil
	case tFloorDiv:
		if b == 0 {
			return nil, typeErrorf("integer division or modulo by zero")
		}
		if a == math.MinInt64 && b == -1 {
			return nil, errIntOverflow()
		}
		q := a / b
		if (a%b != 0) && ((a < 0) != (b < 0)) {
			q--
		}
		return q, nil
	case tMod:
		if b == 0 {
			return nil, typeErrorf("integer division or modulo by zero")
		}
		m := a % b
		if m != 0 && ((m < 0) != (b < 0)) {
			m += b
		}
		return m, nil
	case tPow:
		if b < 0 {
			return floatOp(tPow, float64(a), float64(b))
		}
		res := int64(1)
		base := a
		e := b
		for e > 0 {
			if e&1 == 1 {
				r2 := res * base
				if base != 0 && r2/base != res {
					return nil, errIntOverflow()
				}
				res = r2
			}
			e >>= 1
			if e > 0 {
				b2 := base * base
				if base != 0 && b2/base != base {
					return nil, errIntOverflow()
				}
				base = b2
			}
		}
		return res, nil
	}
	return nil, typeErrorf("bad integer operator")
}

func floatOp(op tokKind, a, b float64) (Value, error) {
	switch op {
	case tAdd:
		return a + b, nil
	case tSub:
		return a - b, nil
	case tMul:
		return a * b, nil
	case tDiv:
		if b == 0 {
			return nil, typeErrorf("division by zero")
		}
		return a / b, nil
	case tFloorDiv:
		if b == 0 {
			return nil, typeErrorf("float floor division by zero")
		}
		return math.Floor(a / b), nil
	case tMod:
		if b == 0 {
			return nil, typeErrorf("float modulo")
		}
		m := math.Mod(a, b)
		if m != 0 && ((m < 0) != (b < 0)) {
			m += b
		}
		return m, nil
	case tPow:
		if a == 0 && b < 0 {
			return nil, typeErrorf("0.0 cannot be raised to a negative power")
		}
		r := math.Pow(a, b)
		if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
			return nil, typeErrorf("OverflowError: (34, 'Numerical result out of range')")
		}
		if math.IsNaN(r) && !math.IsNaN(a) && !math.IsNaN(b) {
			return nil, typeErrorf("ValueError: math domain error (a negative number raised to a fractional power)")
		}
		return r, nil
	}
	return nil, typeErrorf("bad float operator")
}

func (s *state) compareOp(op string, l, r Value) (bool, error) {
	switch op {
	case "eq":
		return equal(l, r), nil
	case "ne":
		return !equal(l, r), nil
	case "in":
		return s.contains(r, l)
	case "notin":
		ok, err := s.contains(r, l)
		return !ok, err
	}
	sym := map[string]string{"lt": "<", "lteq": "<=", "gt": ">", "gteq": ">="}[op]
	c, err := compare(l, r, sym)
	if err != nil {
		return false, err
	}
	switch op {
	case "lt":
		return c == -1, nil
	case "lteq":
		return c == -1 || c == 0, nil
	case "gt":
		return c == 1, nil
	case "gteq":
		return c == 1 || c == 0, nil
	}
	return false, nil
}

// contains is Python's "needle in container".
func (s *state) contains(container, needle Value) (bool, error) {
	switch c := container.(type) {
	case string, markup:
		cs, _ := isString(c)
		ns, ok := isString(needle)
		if !ok {
			return false, typeErrorf("'in <string>' requires string as left operand, not %s", typeName(needle))
		}
		return strings.Contains(cs, ns), nil
	case *List:
		for _, it := range c.Items {
			if equal(it, needle) {
				return true, nil
			}
		}
		return false, nil
	case *Dict:
		if _, err := hashKey(needle); err != nil {
			return false, err
		}
		return c.find(needle) >= 0, nil
	case *dictView:
		if c.kind == "keys" {
			return c.d.find(needle) >= 0, nil
		}
		return s.contains(c.list(), needle)
	case *rangeValue:
		n, ok := asInt(needle)
		if !ok {
			if f, isF := needle.(float64); isF && f == math.Trunc(f) {
				n, ok = int64(f), true
			}
		}
		return ok && c.has(n), nil
	case undefined:
		return false, nil
	case *generator:
		items, err := s.toSlice(c)
		if err != nil {
			return false, err
		}
		for _, it := range items {
			if equal(it, needle) {
				return true, nil
			}
		}
		return false, nil
	case nil:
		return false, typeErrorf("argument of type 'NoneType' is not iterable")
	}
	return false, typeErrorf("argument of type '%s' is not iterable", typeName(container))
}

// ---- attribute and item access (the sandbox's getattr / getitem) ----

func (s *state) getattr(obj Value, name string) (Value, error) {
	switch o := obj.(type) {
	case undefined:
		return nil, o.err()
	case *Dict:
		if safe, ok := hasMethod(obj, name); ok {
			return methodValue(obj, name, safe), nil
		}
		if v, ok := o.Get(name); ok {
			return v, nil
		}
		return undefinedAttr(obj, name), nil
	case *namespace:
		if v, ok := o.attrs.Get(name); ok {
			return v, nil
		}
		return undefinedAttr(obj, name), nil
	case *loopState:
		return loopAttr(o, name), nil
	case int64, bool, float64:
		switch name {
		case "real":
			if f, ok := o.(float64); ok {
				return f, nil
			}
			i, _ := asInt(o)
			return i, nil
		case "imag":
			if _, ok := o.(float64); ok {
				return 0.0, nil
			}
			return int64(0), nil
		}
	case *rangeValue:
		switch name {
		case "start":
			return o.start, nil
		case "stop":
			return o.stop, nil
		case "step":
			return o.step, nil
		}
	}
	if safe, ok := hasMethod(obj, name); ok {
		return methodValue(obj, name, safe), nil
	}
	if strings.HasPrefix(name, "__") {
		return undefined{msg: "access to attribute '" + name + "' of '" + typeName(obj) + "' object is unsafe.", security: true}, nil
	}
	return undefinedAttr(obj, name), nil
}

func methodValue(obj Value, name string, safe bool) Value {
	if !safe {
		return undefined{msg: "access to attribute '" + name + "' of '" + typeName(obj) + "' object is unsafe.", security: true}
	}
	return &method{recv: obj, name: name}
}

func loopAttr(l *loopState, name string) Value {
	switch name {
	case "index":
		return int64(l.index0 + 1)
	case "index0":
		return int64(l.index0)
	case "revindex":
		return int64(l.n - l.index0)
	case "revindex0":
		return int64(l.n - l.index0 - 1)
	case "first":
		return l.index0 == 0
	case "last":
		return l.index0 == l.n-1
	case "length":
		return int64(l.n)
	case "depth":
		return int64(l.depth0 + 1)
	case "depth0":
		return int64(l.depth0)
	case "previtem":
		if l.index0 == 0 {
			return undefinedHint("there is no previous item")
		}
		return l.at(l.index0 - 1)
	case "nextitem":
		if l.index0+1 >= l.n {
			return undefinedHint("there is no next item")
		}
		return l.at(l.index0 + 1)
	case "cycle", "changed":
		return &method{recv: l, name: name}
	}
	return undefinedAttr(l, name)
}

func (s *state) getitem(obj Value, key Value) (Value, error) {
	switch o := obj.(type) {
	case undefined:
		return nil, o.err()
	case *Dict:
		if _, err := hashKey(key); err != nil {
			return undefinedAttr(obj, key), nil
		}
		if v, ok := o.lookup(key); ok {
			return v, nil
		}
	case *List:
		if i, ok := asInt(key); ok {
			n := int64(len(o.Items))
			if i < 0 {
				i += n
			}
			if i >= 0 && i < n {
				return o.Items[i], nil
			}
			return undefinedAttr(obj, key), nil
		}
	case string, markup:
		if i, ok := asInt(key); ok {
			str, _ := isString(o)
			r, ok := runeAt(str, i)
			if !ok {
				return undefinedAttr(obj, key), nil
			}
			if _, isM := o.(markup); isM {
				return markup(r), nil
			}
			return r, nil
		}
	case *rangeValue:
		if i, ok := asInt(key); ok {
			n := int64(o.length())
			if i < 0 {
				i += n
			}
			if i >= 0 && i < n {
				return o.at(int(i)), nil
			}
			return undefinedAttr(obj, key), nil
		}
	case *loopState:
		if name, ok := key.(string); ok {
			return loopAttr(o, name), nil
		}
	}
	if name, ok := key.(string); ok {
		return s.getattr(obj, name)
	}
	return undefinedAttr(obj, key), nil
}

// evalSlice evaluates obj[start:stop:step]. Jinja compiles slices to a
// plain Python subscript (bypassing the sandbox's getitem), so failures
// raise instead of giving Undefined.
func (s *state) evalSlice(obj Value, sl *sliceExpr, sc *scope) (Value, error) {
	var bounds [3]*int64
	badIndex := false
	for i, e := range []expr{sl.start, sl.stop, sl.step} {
		if e == nil {
			continue
		}
		v, err := s.eval(e, sc)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		n, ok := asInt(v)
		if !ok {
			badIndex = true
			continue
		}
		bounds[i] = &n
	}
	if s.constMode {
		// Compile-time folding slices through the sandbox's getitem.
		switch obj.(type) {
		case undefined:
		case *List, string, markup, *rangeValue:
			if !badIndex && (bounds[2] == nil || *bounds[2] != 0) {
				break
			}
			return undefinedAttr(obj, "slice"), nil
		default:
			return undefinedAttr(obj, "slice"), nil
		}
	}
	switch o := obj.(type) {
	case undefined:
		return nil, o.err()
	case *List, string, markup, *rangeValue:
	case *Dict:
		return nil, typeErrorf("unhashable type: 'slice'")
	default:
		return nil, typeErrorf("'%s' object is not subscriptable", typeName(obj))
	}
	if badIndex {
		return nil, typeErrorf("slice indices must be integers or None or have an __index__ method")
	}
	if bounds[2] != nil && *bounds[2] == 0 {
		return nil, typeErrorf("slice step cannot be zero")
	}
	switch o := obj.(type) {
	case *List:
		idx := sliceIndices(len(o.Items), bounds)
		items := make([]Value, len(idx))
		for i, j := range idx {
			items[i] = o.Items[j]
		}
		return &List{Items: items, Tuple: o.Tuple}, nil
	case string, markup:
		str, _ := isString(o)
		res := sliceString(str, bounds)
		if _, isM := o.(markup); isM {
			return markup(res), nil
		}
		return res, nil
	case *rangeValue:
		return o.slice(bounds)
	}
	return nil, typeErrorf("'%s' object is not subscriptable", typeName(obj))
}

// sliceParams resolves Python's slice(start, stop, step) against a
// sequence of length n (slice.indices): the first index, the step and the
// number of items selected.
func sliceParams(n int, b [3]*int64) (start, step, count int64) {
	step = 1
	if b[2] != nil {
		step = *b[2]
	}
	ln := int64(n)
	clamp := func(v, lo, hi int64) int64 {
		if v < lo {
			return lo
		}
		if v > hi {
			return hi
		}
		return v
	}
	resolve := func(p *int64, def, lo, hi int64) int64 {
		if p == nil {
			return def
		}
		v := *p
		if v < 0 {
			v += ln
		}
		return clamp(v, lo, hi)
	}
	var stop int64
	if step > 0 {
		start = resolve(b[0], 0, 0, ln)
		stop = resolve(b[1], ln, 0, ln)
		if stop > start {
			// Not (stop-start+step-1)/step: that overflows for a huge step.
			count = (stop-start-1)/step + 1
		}
	} else {
		start = resolve(b[0], ln-1, -1, ln-1)
		stop = resolve(b[1], -1, -1, ln-1)
		switch {
		case stop >= start:
		case step == math.MinInt64: // -step overflows; one item at most
			count = 1
		default:
			count = (start-stop-1)/-step + 1
		}
	}
	return start, step, count
}

// sliceIndices returns the indices Python's slice(start, stop, step)
// selects from a sequence of length n.
func sliceIndices(n int, b [3]*int64) []int {
	start, step, count := sliceParams(n, b)
	idx := make([]int, count)
	for i := range idx {
		idx[i] = int(start + int64(i)*step)
	}
	return idx
}

func sliceString(str string, b [3]*int64) string {
	if isASCII(str) {
		idx := sliceIndices(len(str), b)
		if b[2] == nil || *b[2] == 1 {
			if len(idx) == 0 {
				return ""
			}
			return str[idx[0] : idx[len(idx)-1]+1]
		}
		out := make([]byte, len(idx))
		for i, j := range idx {
			out[i] = str[j]
		}
		return string(out)
	}
	rs := []rune(str)
	idx := sliceIndices(len(rs), b)
	out := make([]rune, len(idx))
	for i, j := range idx {
		out[i] = rs[j]
	}
	return string(out)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// runeAt returns the character at Python index i of s.
func runeAt(s string, i int64) (string, bool) {
	if isASCII(s) {
		n := int64(len(s))
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return "", false
		}
		return s[i : i+1], true
	}
	rs := []rune(s)
	n := int64(len(rs))
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return "", false
	}
	return string(rs[i]), true
}

// ---- iteration ----

// toSlice materializes an iterable, charging each item to the iteration
// budget. The returned slice may be shared with a list: do not modify it.
func (s *state) toSlice(v Value) ([]Value, error) {
	switch x := v.(type) {
	case *List:
		return x.Items, nil
	case *Dict:
		return x.keys, nil
	case string, markup:
		str, _ := isString(x)
		if err := s.countIter(int64(len(str))); err != nil {
			return nil, err
		}
		out := make([]Value, 0, len(str))
		for _, r := range str {
			out = append(out, string(r))
		}
		return out, nil
	case undefined:
		return nil, nil
	case *rangeValue:
		n := x.length()
		if err := s.countIter(int64(n)); err != nil {
			return nil, err
		}
		out := make([]Value, n)
		for i := range out {
			out[i] = x.at(i)
		}
		return out, nil
	case *dictView:
		return x.list().Items, nil
	case *generator:
		var out []Value
		for {
			item, ok, err := x.next()
			if err != nil {
				return nil, err
			}
			if !ok {
				return out, nil
			}
			if err := s.countIter(1); err != nil {
				return nil, err
			}
			out = append(out, item)
		}
	case *loopState:
		return nil, typeErrorf("iterating a loop object is not supported")
	case nil:
		return nil, typeErrorf("'NoneType' object is not iterable")
	}
	return nil, typeErrorf("'%s' object is not iterable", typeName(v))
}

// rangeValue is Python's range.
type rangeValue struct{ start, stop, step int64 }

// length is len(r), capped at math.MaxInt32 (far beyond any iteration
// limit). The distances are unsigned: stop-start overflows an int64 for
// range(-2**63, 2**63-1).
func (r *rangeValue) length() int {
	var n uint64
	if r.step > 0 && r.start < r.stop {
		n = (uint64(r.stop)-uint64(r.start)-1)/uint64(r.step) + 1
	} else if r.step < 0 && r.start > r.stop {
		n = (uint64(r.start)-uint64(r.stop)-1)/uint64(-r.step) + 1 // -MinInt64 is 2**63 as uint64
	}
	if n > math.MaxInt32 {
		n = math.MaxInt32
	}
	return int(n)
}

// slice is r[start:stop:step], a range again; a bound beyond 64 bits is
// an overflow error.
func (r *rangeValue) slice(b [3]*int64) (Value, error) {
	start, step, count := sliceParams(r.length(), b)
	var err error
	op := func(op tokKind, a, b int64) int64 {
		if err != nil {
			return 0
		}
		var v Value
		v, err = intOp(op, a, b)
		n, _ := v.(int64)
		return n
	}
	newStep := op(tMul, step, r.step)
	first := op(tAdd, r.start, op(tMul, start, r.step))
	stop := op(tAdd, first, op(tMul, count, newStep))
	if err != nil {
		return nil, err
	}
	return &rangeValue{first, stop, newStep}, nil
}

func (r *rangeValue) at(i int) Value { return r.start + int64(i)*r.step }

func (r *rangeValue) has(n int64) bool {
	if r.step > 0 {
		return n >= r.start && n < r.stop && (uint64(n)-uint64(r.start))%uint64(r.step) == 0
	}
	return n <= r.start && n > r.stop && (uint64(r.start)-uint64(n))%uint64(-r.step) == 0
}

// generator is a one-shot lazy iterator (what |map, |select and |items
// return in Jinja): iterating it a second time yields nothing.
type generator struct {
	next func() (Value, bool, error)
}

// sliceGen returns a generator over items.
func sliceGen(items []Value) *generator {
	i := 0
	return &generator{next: func() (Value, bool, error) {
		if i >= len(items) {
			return nil, false, nil
		}
		i++
		return items[i-1], true, nil
	}}
}

// dictView is dict.keys(), dict.values() or dict.items().
type dictView struct {
	d    *Dict
	kind string // "keys", "values", "items"
}

func (v *dictView) list() *List {
	switch v.kind {
	case "keys":
		return &List{Items: append([]Value(nil), v.d.keys...)}
	case "values":
		return &List{Items: append([]Value(nil), v.d.vals...)}
	}
	items := make([]Value, len(v.d.keys))
	for i, k := range v.d.keys {
		items[i] = newTuple(k, v.d.vals[i])
	}
	return &List{Items: items}
}
