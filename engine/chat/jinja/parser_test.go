package jinja

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// sexpr writes an expression as an s-expression, for comparing trees.
func sexpr(e expr) string {
	list := func(head string, es ...expr) string {
		parts := []string{head}
		for _, x := range es {
			parts = append(parts, sexpr(x))
		}
		return "(" + strings.Join(parts, " ") + ")"
	}
	withArgs := func(head string, recv expr, a callArgs) string {
		es := append([]expr{recv}, a.args...)
		s := list(head, es...)
		for i, n := range a.kwNames {
			s = s[:len(s)-1] + " " + n + "=" + sexpr(a.kwVals[i]) + ")"
		}
		return s
	}
	switch x := e.(type) {
	case nil:
		return "_"
	case *constExpr:
		return repr(x.v)
	case *nameExpr:
		return x.name
	case *nsRefExpr:
		return x.name + "." + x.attr
	case *tupleExpr:
		return list("tuple", x.items...)
	case *listExpr:
		return list("list", x.items...)
	case *dictExpr:
		var es []expr
		for i := range x.keys {
			es = append(es, x.keys[i], x.vals[i])
		}
		return list("dict", es...)
	case *getattrExpr:
		return list("."+x.attr, x.obj)
	case *getitemExpr:
		return list("[]", x.obj, x.arg)
	case *sliceExpr:
		return list("slice", x.start, x.stop, x.step)
	case *callExpr:
		return withArgs("call", x.fn, x.callArgs)
	case *filterExpr:
		return withArgs("|"+x.name, x.arg, x.callArgs)
	case *testExpr:
		return withArgs("is "+x.name, x.arg, x.callArgs)
	case *binExpr:
		return list(strings.Trim(x.op.String(), "'"), x.l, x.r)
	case *concatExpr:
		return list("~", x.items...)
	case *compareExpr:
		s := sexpr(x.first)
		for _, op := range x.ops {
			s += " " + op.op + " " + sexpr(op.val)
		}
		return "(cmp " + s + ")"
	case *andExpr:
		return list("and", x.l, x.r)
	case *orExpr:
		return list("or", x.l, x.r)
	case *notExpr:
		return list("not", x.x)
	case *negExpr:
		if x.neg {
			return list("-", x.x)
		}
		return list("+", x.x)
	case *condExpr:
		return list("if", x.cond, x.yes, x.no)
	}
	return fmt.Sprintf("%T", e)
}

func TestParseExpressions(t *testing.T) {
	tests := []struct{ src, want string }{
		{"a + b * c", "(+ a (* b c))"},
		{"(a + b) * c", "(* (+ a b) c)"},
		{"a ** b ** c", "(** (** a b) c)"},
		{"-a ** 2", "(** (- a) 2)"},
		{"a ~ b ~ c", "(~ a b c)"},
		{"a // b % c", "(% (// a b) c)"},
		{"a < b <= c", "(cmp a lt b lteq c)"},
		{"a not in b", "(cmp a notin b)"},
		{"not a and b or c", "(or (and (not a) b) c)"},
		{"a if b else c", "(if b a c)"},
		{"a if b", "(if b a _)"},
		{"a.b[c]", "([] (.b a) c)"},
		{"a[1:2]", "([] a (slice 1 2 _))"},
		{"a[::-1]", "([] a (slice _ _ -1))"},
		{"f(1, x=2)", "(call f 1 x=2)"},
		{"a|upper|join(', ')", "(|join (|upper a) ', ')"},
		{"-a|abs", "(|abs (- a))"},
		{"a is divisibleby 3", "(is divisibleby a 3)"},
		{"a is not none", "(not (is none a))"},
		{"[a, (b, c), {'k': d}]", "(list a (tuple b c) (dict 'k' d))"},
		{"1 + 2 * 3", "7"},
		{"'a' ~ 1", "'a1'"},
		{"[1, 2][0]", "1"},
	}
	for _, tt := range tests {
		body, err := parse("{{ " + tt.src + " }}")
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		out, ok := body[0].(*outputNode)
		if len(body) != 1 || !ok || len(out.items) != 1 {
			t.Errorf("%s: parsed to %d nodes, want one print", tt.src, len(body))
			continue
		}
		if got := sexpr(out.items[0]); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestParseStatements(t *testing.T) {
	body, err := parse("{% for k, v in d|items if v recursive %}{{ k }}{% else %}none{% endfor %}" +
		"{% if a %}1{% elif b %}2{% else %}3{% endif %}" +
		"{% set ns.x = 1 %}{% set y %}z{% endset %}" +
		"{% macro m(a, b=2) %}{{ a }}{% endmacro %}")
	if err != nil {
		t.Fatal(err)
	}
	if len(body) != 5 {
		t.Fatalf("got %d nodes, want 5", len(body))
	}
	f, ok := body[0].(*forNode)
	if !ok || sexpr(f.target) != "(tuple k v)" || sexpr(f.iter) != "(|items d)" || sexpr(f.cond) != "v" ||
		!f.recursive || len(f.body) != 1 || len(f.elseBody) != 1 {
		t.Errorf("for: %#v", body[0])
	}
	i, ok := body[1].(*ifNode)
	if !ok || sexpr(i.cond) != "a" || len(i.elseBody) != 1 {
		t.Fatalf("if: %#v", body[1])
	}
	if elif, ok := i.elseBody[0].(*ifNode); !ok || sexpr(elif.cond) != "b" || len(elif.elseBody) != 1 {
		t.Errorf("elif: %#v", i.elseBody[0])
	}
	if s, ok := body[2].(*setNode); !ok || sexpr(s.target) != "ns.x" || sexpr(s.value) != "1" {
		t.Errorf("set: %#v", body[2])
	}
	if s, ok := body[3].(*setBlockNode); !ok || sexpr(s.target) != "y" || len(s.body) != 1 {
		t.Errorf("set block: %#v", body[3])
	}
	if m, ok := body[4].(*macroNode); !ok || m.name != "m" || strings.Join(m.params, ",") != "a,b" || len(m.defaults) != 1 {
		t.Errorf("macro: %#v", body[4])
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src  string
		kind ErrorKind
		line int
		msg  string
	}{
		{"{{ x", KindSyntax, 1, "end of template"},
		{"{% if a %}x", KindSyntax, 1, "endif"},
		{"a\n{% for %}", KindSyntax, 2, ""},
		{"{% endfor %}", KindSyntax, 1, "endfor"},
		{"{% frobnicate %}", KindSyntax, 1, "unknown tag 'frobnicate'"},
		{"{% break %}", KindSyntax, 1, "'break' outside loop"},
		{"{{ 1 = 2 }}", KindSyntax, 1, ""},
		{"{% set 1 = 2 %}", KindSyntax, 1, "can't assign to"},
		{"{{ x|nosuchfilter }}", KindSyntax, 1, "nosuchfilter"},
		{"{{ x is nosuchtest }}", KindSyntax, 1, "nosuchtest"},
		{"{% include 'x' %}", KindUnsupported, 1, "include"},
		{"{% extends 'x' %}", KindUnsupported, 1, "extends"},
		{"{% block b %}{% endblock %}", KindUnsupported, 1, "block"},
	}
	for _, tt := range tests {
		_, err := parse(tt.src)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: got %v, want an error", tt.src, err)
			continue
		}
		if e.Kind != tt.kind || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%q: got %v %q at line %d, want %v %q at line %d", tt.src, e.Kind, e.Msg, e.Line, tt.kind, tt.msg, tt.line)
		}
	}
}
