package jinja

import (
	"context"
	"errors"
)

// Jinja's optimizer folds constant expressions at compile time, and that
// is observable: there a slice goes through the sandbox's getitem (a
// failing slice gives Undefined) while at run time it is a plain Python
// subscript (a failing slice raises). The folder below reproduces it:
// every expression whose value does not depend on variables or calls is
// evaluated once at parse time and, when the result is a plain literal
// value, replaced by a constant; output expressions are folded whatever
// their value.

// errNotConst stops a parse-time evaluation that reaches a variable or a
// call.
var errNotConst = errors.New("jinja: not a constant expression")

// contextFilters are the filters Jinja passes the render context to; it
// never folds them.
var contextFilters = map[string]bool{"map": true, "select": true, "reject": true, "selectattr": true, "rejectattr": true}

// foldLimits keep parse-time evaluation cheap; an expression that needs
// more is simply left for run time.
var foldLimits = Limits{
	MaxIterations:  100_000,
	MaxRecursion:   50,
	MaxOutputBytes: 64 << 10,
	MaxStringBytes: 64 << 10,
	MaxWorkBytes:   4 << 20,
}

// maxFoldSteps bounds the expression nodes evaluated while folding one
// template; past it the rest is left for run time. (Folding re-evaluates
// sub-expressions that could not be folded, so without a bound a deep
// expression would cost quadratic time at parse time.)
const maxFoldSteps = 200_000

// folder folds the constant expressions of one template.
type folder struct {
	s *state
	// failed holds the expressions whose evaluation failed (a variable, a
	// call, an error): an expression that must evaluate such a child fails
	// too, so it is not evaluated again. Without this a chain x|f|g|...
	// re-evaluated its whole left side at each link: quadratic time.
	failed map[expr]bool
}

func newFolder() *folder {
	s := &state{ctx: context.Background(), lim: foldLimits, constMode: true}
	return &folder{s: s, failed: map[expr]bool{}}
}

// eval evaluates e at parse time. The work and iteration counters are
// shared by all the template's folding, so they bound it as a whole. An
// evaluation that fails, or panics on a bug, leaves e to run time, where
// the error happens only if that branch runs.
func (f *folder) eval(e expr) (v Value, ok bool) {
	if f.failed[e] || f.s.foldSteps > maxFoldSteps || f.s.iters > f.s.lim.MaxIterations || f.s.work > f.s.lim.MaxWorkBytes {
		return nil, false
	}
	defer func() {
		if r := recover(); r != nil {
			v, ok = nil, false
		}
		if !ok {
			f.failed[e] = true
		}
	}()
	f.s.depth = 0
	v, err := f.s.eval(e, nil)
	return v, err == nil
}

// mustFail reports whether evaluating e is bound to fail because a child
// it always evaluates failed. And, or and conditional expressions may
// skip a child, so a failed child says nothing about them.
func (f *folder) mustFail(e expr, children []*expr) bool {
	switch e.(type) {
	case *andExpr, *orExpr, *condExpr:
		return false
	}
	for _, c := range children {
		if f.failed[*c] {
			return true
		}
	}
	return false
}

// hasSafeRepr is Jinja's has_safe_repr: values that can be written back
// into the template as literals.
func hasSafeRepr(v Value, depth int) bool {
	if depth > 100 {
		return false
	}
	switch x := v.(type) {
	case nil, bool, int64, float64, string, markup, *rangeValue:
		return true
	case *List:
		for _, it := range x.Items {
			if !hasSafeRepr(it, depth+1) {
				return false
			}
		}
		return true
	case *Dict:
		for i, k := range x.keys {
			if !hasSafeRepr(k, depth+1) || !hasSafeRepr(x.vals[i], depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// expr folds e bottom-up and returns the (possibly replaced) expression.
func (f *folder) expr(e expr) expr {
	if e == nil {
		return nil
	}
	children := childRefs(e)
	for _, ref := range children {
		*ref = f.expr(*ref)
	}
	switch e.(type) {
	case *constExpr:
		return e
	case *nameExpr, *nsRefExpr, *callExpr:
		f.failed[e] = true
		return e
	case *sliceExpr:
		if f.mustFail(e, children) {
			f.failed[e] = true
		}
		return e
	}
	if f.mustFail(e, children) {
		f.failed[e] = true
		return e
	}
	if v, ok := f.eval(e); ok && hasSafeRepr(v, 0) {
		return &constExpr{pos{e.lineNo()}, v}
	}
	return e
}

// output folds a printed expression: any constant value is printed at
// parse time.
func (f *folder) output(e expr) expr {
	e = f.expr(e)
	if _, ok := e.(*constExpr); ok {
		return e
	}
	if v, ok := f.eval(e); ok {
		if str, err := f.s.str(v); err == nil {
			return &constExpr{pos{e.lineNo()}, str}
		}
	}
	return e
}

func (f *folder) args(a *callArgs) {
	for i := range a.args {
		a.args[i] = f.expr(a.args[i])
	}
	for i := range a.kwVals {
		a.kwVals[i] = f.expr(a.kwVals[i])
	}
	a.dynArgs = f.expr(a.dynArgs)
	a.dynKwargs = f.expr(a.dynKwargs)
}

// body folds the expressions of statements.
func (f *folder) body(body []node) {
	for _, n := range body {
		switch n := n.(type) {
		case *outputNode:
			for i, it := range n.items {
				n.items[i] = f.output(it)
			}
		case *forNode:
			n.iter = f.expr(n.iter)
			n.cond = f.expr(n.cond)
			f.body(n.body)
			f.body(n.elseBody)
		case *ifNode:
			n.cond = f.expr(n.cond)
			f.body(n.body)
			f.body(n.elseBody)
		case *setNode:
			n.value = f.expr(n.value)
		case *setBlockNode:
			if n.filter != nil {
				f.filterChain(n.filter)
			}
			f.body(n.body)
		case *macroNode:
			for i := range n.defaults {
				n.defaults[i] = f.expr(n.defaults[i])
			}
			f.body(n.body)
		case *callBlockNode:
			f.args(&n.call.callArgs)
			for i := range n.caller.defaults {
				n.caller.defaults[i] = f.expr(n.caller.defaults[i])
			}
			f.body(n.caller.body)
		case *filterBlockNode:
			f.filterChain(n.filter)
			f.body(n.body)
		case *withNode:
			for i := range n.values {
				n.values[i] = f.expr(n.values[i])
			}
			f.body(n.body)
		case *scopeNode:
			f.body(n.body)
		}
	}
}

// filterChain folds the arguments of a block filter chain.
func (f *folder) filterChain(fe *filterExpr) {
	for fe != nil {
		f.args(&fe.callArgs)
		next, _ := fe.arg.(*filterExpr)
		fe = next
	}
}

// childRefs returns pointers to the sub-expressions of e.
func childRefs(e expr) []*expr {
	var refs []*expr
	add := func(es ...*expr) {
		for _, r := range es {
			if *r != nil {
				refs = append(refs, r)
			}
		}
	}
	addArgs := func(a *callArgs) {
		for i := range a.args {
			add(&a.args[i])
		}
		for i := range a.kwVals {
			add(&a.kwVals[i])
		}
		add(&a.dynArgs, &a.dynKwargs)
	}
	switch x := e.(type) {
	case *tupleExpr:
		for i := range x.items {
			add(&x.items[i])
		}
	case *listExpr:
		for i := range x.items {
			add(&x.items[i])
		}
	case *dictExpr:
		for i := range x.keys {
			add(&x.keys[i], &x.vals[i])
		}
	case *getattrExpr:
		add(&x.obj)
	case *getitemExpr:
		add(&x.obj, &x.arg)
	case *sliceExpr:
		add(&x.start, &x.stop, &x.step)
	case *callExpr:
		add(&x.fn)
		addArgs(&x.callArgs)
	case *filterExpr:
		add(&x.arg)
		addArgs(&x.callArgs)
	case *testExpr:
		add(&x.arg)
		addArgs(&x.callArgs)
	case *binExpr:
		add(&x.l, &x.r)
	case *concatExpr:
		for i := range x.items {
			add(&x.items[i])
		}
	case *compareExpr:
		add(&x.first)
		for i := range x.ops {
			add(&x.ops[i].val)
		}
	case *andExpr:
		add(&x.l, &x.r)
	case *orExpr:
		add(&x.l, &x.r)
	case *notExpr:
		add(&x.x)
	case *negExpr:
		add(&x.x)
	case *condExpr:
		add(&x.cond, &x.yes, &x.no)
	}
	return refs
}
