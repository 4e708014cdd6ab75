package jinja

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// hostileCase is a template from the issue #23 probes: it must parse
// and render within a second or two, failing (when kind is not zero)
// with an *Error of that kind, and printing want when it succeeds.
type hostileCase struct {
	name string
	src  string
	kind ErrorKind
	want string
}

// chain returns "{{ " + first + rep*n + " }}".
func chain(first, rep string, n int) string {
	return "{{ " + first + strings.Repeat(rep, n) + " }}"
}

// nest returns "{{ " + open*n + mid + close*n + " }}".
func nest(open, mid, close string, n int) string {
	return "{{ " + strings.Repeat(open, n) + mid + strings.Repeat(close, n) + " }}"
}

// hostileLinks are the links of left-deep chains; a chain of 100,000 of
// any of them is refused (20,000 filters took 32 s to parse, and
// 3,000,000 additions overflowed the stack).
var hostileLinks = []string{" + 1", " * 1", " and x", " or x", " ** 1", " if x else 1", "|abs", ".a", "[0]", "()"}

// hostileParse are the parse-time probes: long flat chains and deep
// nesting, refused quickly with a limit error instead of a stack
// overflow or minutes of work.
var hostileParse = append(hostileChains(100_000), []hostileCase{
	{"add chain 3M terms", chain("1", " + 1", 3_000_000), KindLimit, ""},
	{"test chain 20k", chain("x", " is defined is defined", 20_000), KindSyntax, ""},
	{"parens 100k", nest("(", "1", ")", 100_000), KindLimit, ""},
	{"lists 100k", nest("[", "1", "]", 100_000), KindLimit, ""},
	{"dicts 100k", nest("{'a': ", "1", "}", 100_000), KindLimit, ""},
	{"nots 100k", chain("", "not ", 100_000) + "1 }}", KindLimit, ""},
	{"minus 100k", chain("", "- ", 100_000) + "1 }}", KindLimit, ""},
	{"plus minus 100k", chain("", "+ -", 100_000) + "1 }}", KindLimit, ""},
	{"ifs 100k", strings.Repeat("{% if 1 %}", 100_000) + strings.Repeat("{% endif %}", 100_000), KindLimit, ""},
	{"elifs 100k", "{% if x %}" + strings.Repeat("{% elif x %}", 100_000) + "{% endif %}", KindLimit, ""},
	{"fors 100k", strings.Repeat("{% for i in x %}", 100_000) + strings.Repeat("{% endfor %}", 100_000), KindLimit, ""},
	{"template too big", strings.Repeat("x", MaxTemplateBytes+1), KindLimit, ""},
	// Long chains within the bounds still parse (in linear time) and render.
	{"filter chain 400", chain("-1", "|abs", 400), 0, "1"},
	{"variable filter chain 400", chain("n", "|abs", 400), 0, "2"},
	{"add chain 400", chain("n", " + 1", 400), 0, "402"},
	{"concat 100k", chain("'a'", " ~ 'a'", 100_000), 0, strings.Repeat("a", 100_001)},
	{"statements 100k", strings.Repeat("{{ n|abs|abs|abs }}", 40_000), 0, strings.Repeat("2", 40_000)},
	{"elifs 400", "{% if false %}" + strings.Repeat("{% elif false %}", 400) + "{% else %}e{% endif %}", 0, "e"},
}...)

// hostileChains returns a chain of n of each of hostileLinks, expected to
// fail with a limit error.
func hostileChains(n int) []hostileCase {
	var cases []hostileCase
	for _, l := range hostileLinks {
		cases = append(cases, hostileCase{"chain of" + l, chain("x", l, n), KindLimit, ""})
	}
	return cases
}

// hostileRender are the render-time probes: arguments that drive an
// allocation or a loop, and integer arithmetic that could overflow.
var hostileRender = []hostileCase{
	{"batch fill", `{{ messages|batch(10**10, 'x')|list }}`, KindLimit, ""},
	{"batch huge size", `{{ [1, 2]|batch(2**62)|list }}`, 0, "[[1, 2]]"},
	{"slice fill", `{{ [1, 2]|slice(10**10, 'x')|list }}`, KindLimit, ""},
	{"round huge precision", `{{ 1.5|round(10**10) }}`, 0, "1.5"},
	{"round 2**62", `{{ 1.5|round(2**62) }}`, 0, "1.5"},
	{"round 2**62 floor", `{{ 1.5|round(2**62, 'floor') }}`, KindType, ""},
	{"round huge negative precision", `{{ 155.5|round(-(10**10)) }}`, 0, "0.0"},
	{"round negative sign", `{{ -1.5|round(-400) }}`, 0, "-0.0"},
	{"round float", `{{ 2.675|round(2) }}`, 0, "2.67"},
	{"round int", `{{ 15|round(-(2**62)) }}`, 0, "0"},
	{"round int tens", `{{ 15|round(-1) }}`, 0, "20"},
	{"round int hundreds", `{{ 250|round(-2) }}`, 0, "200"},
	{"round int huge precision", `{{ 15|round(2**62) }}`, 0, "15"},
	{"round floor 309", `{{ 1.5|round(309, 'floor') }}`, KindType, ""},
	{"round ceil -400", `{{ 1.5|round(-400, 'ceil') }}`, KindType, ""},
	{"percent star width", `{{ '%*d' % (10**9, 1) }}`, KindLimit, ""},
	{"percent star precision", `{{ '%.*f' % (10**9, 1.5) }}`, KindLimit, ""},
	{"percent huge width", `{{ '%9999999999999999999d' % 1 }}`, KindLimit, ""},
	{"percent precision", `{{ '%.999999999f' % 1.5 }}`, KindLimit, ""},
	{"percent string precision", `{{ '%.99999999999999999999s' % 'ab' }}`, KindLimit, ""},
	{"format width", `{{ '{:9223372036854775807}'.format(1) }}`, KindLimit, ""},
	{"format precision", `{{ '{:.999999999f}'.format(1.5) }}`, KindLimit, ""},
	{"percent chr", `{{ '%c' % 2**40 }}`, KindType, ""},
	{"format chr", `{{ '{:c}'.format(-1) }}`, KindType, ""},
	{"join work", `{{ range(300000)|map('string')|join(',')|length }}`, 0, "1988889"},
	{"str.join work", `{{ ','.join(range(300000)|map('string'))|length }}`, 0, "1988889"},
	{"tojson work", `{{ range(300000)|list|tojson|length }}`, 0, "2288890"},
	{"format work", `{{ ('%s' * 100000) % ((1,) * 100000) }}`, 0, strings.Repeat("1", 100000)},
	{"center", `{{ 'x'|center(2**62) }}`, KindLimit, ""},
	{"center method", `{{ 'x'.center(9223372036854775807) }}`, KindLimit, ""},
	{"ljust", `{{ 'x'.ljust(2**62) }}`, KindLimit, ""},
	{"rjust", `{{ 'x'.rjust(2**62, '-') }}`, KindLimit, ""},
	{"zfill", `{{ 'x'.zfill(2**62) }}`, KindLimit, ""},
	{"padding work", `{% for i in range(100) %}{% set x = 'x'.center(60000000) ~ 'x'|center(60000000) %}{% endfor %}`, KindLimit, ""},
	{"zfill negative", `{{ 'x'.zfill(-(2**62)) }}{{ 'x'.ljust(-5) }}{{ 'x'|center(-1) }}`, 0, "xxx"},
	{"indent", `{{ 'a\nb'|indent(2**62) }}`, KindLimit, ""},
	{"truncate length", `{{ 'abc'|truncate(2**62) }}`, 0, "abc"},
	{"truncate negative", `{{ 'abcdefghij'|truncate(-(2**62)) }}`, KindType, ""},
	{"expandtabs", `{{ 'a\tb'.expandtabs(2**62) }}`, KindLimit, ""},
	{"string repetition", `{{ 'ab' * (2**62) }}`, KindLimit, ""},
	{"string repetition max", `{{ 'ab' * (9223372036854775807) }}`, KindLimit, ""},
	{"list repetition", `{{ [1, 2] * (2**62) }}`, KindLimit, ""},
	{"list repetition max", `{{ (9223372036854775807) * [1, 2] }}`, KindLimit, ""},
	{"empty repetition", `{{ ([] * (2**62))|length }}{{ (9223372036854775807 * [])|length }}{{ [1] * 0 }}{{ ("" * (2**62))|length }}`, 0, "00[]0"},
	{"range list", `{{ range(2**62)|list }}`, KindLimit, ""},
	{"range big step", `{{ range(0, 9223372036854775807, 2**62)|list }}`, 0, "[0, 4611686018427387904]"},
	{"range negative step", `{{ range(9223372036854775807, -2**63, -(2**62))|list }}`, 0, "[9223372036854775807, 4611686018427387903, -1, -4611686018427387905]"},
	{"join", `{{ (['x' * 1000] * 100000)|join('y' * 1000) }}`, KindLimit, ""},
	{"replace count", `{{ ('a' * 1000)|replace('a', 'b' * 100000, 2**62) }}`, KindLimit, ""},
	{"replace method", `{{ ('a' * 1000).replace('', 'b' * 100000) }}`, KindLimit, ""},
	{"slice huge step", `{{ 'abc'[::9223372036854775807] }}`, 0, "a"},
	{"slice huge negative step", `{{ 'abc'[::-2**63] }}`, 0, "c"},
	{"slice list huge step", `{{ [1, 2, 3][1::9223372036854775807] }}`, 0, "[2]"},
	{"slice huge bounds", `{{ 'abc'[-2**63:9223372036854775807:2**62] }}`, 0, "a"},
	{"slice filter", `{{ 'abc'[9223372036854775807:-2**63:-1] }}`, 0, "cba"},
	{"untaken slice", `{% if false %}{{ 'abc'[::9223372036854775807] }}{{ 'abc'[::0] }}{{ 1 // 0 }}{{ 'x' * 10**10 }}{% endif %}ok`, 0, "ok"},
	{"untaken filters", `{% if false %}{{ 1.5|round(2**62) }}{{ [1]|batch(10**10, 'x')|list }}{{ '%*d' % (10**9, 1) }}{% endif %}ok`, 0, "ok"},
	{"int overflow add", `{{ 9223372036854775807 + 1 }}`, KindType, ""},
	{"int overflow mul", `{{ (2**62) * 4 }}`, KindType, ""},
	{"int overflow neg", `{{ -(-2**63) }}`, KindType, ""},
	{"int overflow abs", `{{ (-2**63)|abs }}`, 0, "9.223372036854776e+18"},
	{"int overflow floordiv", `{{ (-2**63) // -1 }}`, KindType, ""},
	{"int overflow mod", `{{ (-2**63) % -1 }}`, 0, "0"},
	{"int overflow pow", `{{ 3 ** 10**10 }}`, KindType, ""},
	{"sum", `{{ [2**62, 2**62]|sum }}`, KindType, ""},
	{"loop length", `{% for i in range(3) %}{{ loop.revindex }}{% endfor %}`, 0, "321"},
}

// TestHostileTemplates runs the probes of issue #23 (items 1, 3, 4 and 7).
func TestHostileTemplates(t *testing.T) {
	vars, err := DecodeJSON([]byte(`{"messages": [{"role": "user", "content": "hi"}], "n": 2, "x": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, group := range [][]hostileCase{hostileParse, hostileRender} {
		for _, c := range group {
			t.Run(c.name, func(t *testing.T) {
				start := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				tmpl, err := Parse(c.src, Options{})
				out := ""
				if err == nil {
					out, err = tmpl.Render(ctx, vars)
				}
				// A hang detector, not a speed check: the render deadline
				// and the limits end every case within seconds.
				if d := time.Since(start); d > time.Minute {
					t.Errorf("took %v: past every deadline", d)
				}
				if c.kind == 0 {
					if err != nil {
						t.Fatalf("got %v, want %.40q", err, c.want)
					}
					if out != c.want {
						t.Fatalf("got %.80q, want %.80q", out, c.want)
					}
					return
				}
				var e *Error
				if !errors.As(err, &e) || e.Kind != c.kind {
					t.Fatalf("got %.200v, want a %v error", err, c.kind)
				}
			})
		}
	}
}

// TestRenderDeadline: a render that runs past Limits.MaxRenderTime fails
// with a limit error soon after, while the caller's own deadline still
// gives a canceled error.
func TestRenderDeadline(t *testing.T) {
	if d := DefaultLimits().MaxRenderTime; d <= 0 || d > 10*time.Second {
		t.Errorf("default MaxRenderTime %v, want a few seconds", d)
	}
	srcs := []string{
		`{% for i in range(10**12) %}{% set x = i * 2 %}{% endfor %}`,
		`{% macro f(n) %}{% for i in range(10**6) %}{{ n }}{% endfor %}{% endmacro %}{% for i in range(10**6) %}{% set x = f(i) %}{% endfor %}`,
		`{% for i in range(10**9) %}{% if i is divisibleby 7 %}{% set x = 'a' ~ i %}{% endif %}{% endfor %}`,
	}
	for _, src := range srcs {
		tmpl, err := Parse(src, Options{Limits: Limits{MaxIterations: 1 << 62, MaxWorkBytes: 1 << 62, MaxRenderTime: 100 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = tmpl.Render(context.Background(), nil)
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindLimit || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%.40s: got %v, want a limit error wrapping DeadlineExceeded", src, err)
		}
		if d := time.Since(start); d > 30*time.Second { // without the deadline it runs for hours
			t.Errorf("%.40s: stopped after %v", src, d)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, err = tmpl.Render(ctx, nil)
		cancel()
		if !errors.As(err, &e) || e.Kind != KindCanceled {
			t.Errorf("%.40s: with the caller's deadline: got %v, want a canceled error", src, err)
		}
	}
}

// TestRecoverInternal: a panic in Parse or Render becomes a KindInternal
// error instead of ending the process.
func TestRecoverInternal(t *testing.T) {
	f := func() (err error) {
		defer recoverInternal("render", &err)
		var l []int
		_ = l[3]
		return nil
	}
	err := f()
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindInternal || !strings.Contains(e.Msg, "index out of range") {
		t.Fatalf("got %v, want an internal error", err)
	}
}
