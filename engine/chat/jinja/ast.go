package jinja

// Statement nodes.

type node interface{ lineNo() int }

type pos struct{ line int }

func (p pos) lineNo() int { return p.line }

// outputNode prints template data and expressions.
type outputNode struct {
	pos
	items []expr // *constExpr with a string for template data
}

type forNode struct {
	pos
	target    expr // *nameExpr or *tupleExpr of names
	iter      expr
	body      []node
	elseBody  []node
	cond      expr // loop filter, or nil
	recursive bool
}

type ifNode struct {
	pos
	cond     expr
	body     []node
	elseBody []node // an elif is an *ifNode alone in elseBody
}

type setNode struct {
	pos
	target expr // *nameExpr, *tupleExpr or *nsRefExpr
	value  expr
}

type setBlockNode struct {
	pos
	target expr
	filter *filterExpr // chain applied to the body, innermost arg nil
	body   []node
}

type macroNode struct {
	pos
	name     string
	params   []string
	defaults []expr // for the last len(defaults) params
	body     []node
	// uses* record whether the body refers to these special names.
	usesVarargs, usesKwargs, usesCaller bool
}

type callBlockNode struct {
	pos
	call   *callExpr
	caller *macroNode // the body as a macro named "caller"
}

type filterBlockNode struct {
	pos
	filter *filterExpr // innermost arg nil: the body
	body   []node
}

type withNode struct {
	pos
	targets []expr
	values  []expr
	body    []node
}

// scopeNode renders its body in a child scope ({% generation %}).
type scopeNode struct {
	pos
	body []node
}

type breakNode struct{ pos }
type continueNode struct{ pos }

// Expression nodes.

type expr interface{ lineNo() int }

type constExpr struct {
	pos
	v Value
}

type nameExpr struct {
	pos
	name string
}

type nsRefExpr struct {
	pos
	name, attr string
}

type tupleExpr struct {
	pos
	items []expr
}

type listExpr struct {
	pos
	items []expr
}

type dictExpr struct {
	pos
	keys, vals []expr
}

type getattrExpr struct {
	pos
	obj  expr
	attr string
}

type getitemExpr struct {
	pos
	obj expr
	arg expr
}

type sliceExpr struct {
	pos
	start, stop, step expr // each may be nil
}

type callArgs struct {
	args       []expr
	kwNames    []string
	kwVals     []expr
	dynArgs    expr
	dynKwargs  expr
	hasAnyArgs bool
}

type callExpr struct {
	pos
	fn expr
	callArgs
}

type filterExpr struct {
	pos
	arg  expr // nil inside {% filter %} and {% set %} blocks
	name string
	callArgs
	fn filterFunc // nil: unknown, fails when evaluated
}

type testExpr struct {
	pos
	arg  expr
	name string
	callArgs
	fn testFunc // nil: unknown, fails when evaluated
}

type binExpr struct {
	pos
	op   tokKind // tAdd, tSub, tMul, tDiv, tFloorDiv, tMod, tPow
	l, r expr
}

type concatExpr struct {
	pos
	items []expr
}

type compareExpr struct {
	pos
	first expr
	ops   []cmpOp
}

type cmpOp struct {
	op  string // "eq","ne","lt","lteq","gt","gteq","in","notin"
	val expr
}

type andExpr struct {
	pos
	l, r expr
}

type orExpr struct {
	pos
	l, r expr
}

type notExpr struct {
	pos
	x expr
}

type negExpr struct {
	pos
	x   expr
	neg bool // false: unary plus
}

type condExpr struct {
	pos
	cond, yes, no expr // no may be nil
}
