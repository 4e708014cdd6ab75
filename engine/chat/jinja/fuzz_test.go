package jinja

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"saji/engine/chat/internal/corpus"
)

// fuzzSeeds are small synthetic templates exercising most of the syntax.
var fuzzSeeds = []string{
	"",
	"plain text\n",
	"{{ x }}",
	"{%- for m in messages -%}{{ m.role }}: {{ m['content']|trim }}\n{%- endfor %}",
	"{% if a is defined and a|length > 1 %}{{ a[1:] }}{% elif b %}{{ b ~ 'x' }}{% else %}{{ none }}{% endif %}",
	"{% set ns = namespace(n=0) %}{% for i in range(5) if i % 2 %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}",
	"{% macro m(a, b=2) %}{{ a * b }}{{ varargs }}{% endmacro %}{{ m(3) }}{{ m('x', 4, 5) }}",
	"{% call(x) m(1) %}{{ x }}{% endcall %}",
	"{{ {'a': [1, 2.5, true, none]}|tojson(indent=2) }}{{ [3, 1]|sort|join(',') }}",
	"{% for k, v in d|dictsort %}{{ loop.index }}{{ k }}{{ v }}{% else %}empty{% endfor %}",
	"{{ 'a,b'.split(',')|map('upper')|list }}{{ \"%s-%d\" % ('x', 2) }}{{ '{}'.format(1) }}",
	"{% raw %}{{ not parsed }}{% endraw %}{# comment #}",
	"{% filter upper %}abc{% endfilter %}{% set s %}x{% endset %}{{ s }}",
	"{{ raise_exception('stop') if fail else strftime_now('%Y') }}",
	"{% for x in l recursive %}{{ x }}{% if x is iterable %}{{ loop(x) }}{% endif %}{% endfor %}",
	"{{ 'ab' * 3 }}{{ 7 // 2 }}{{ 2 ** 10 }}{{ -1.5|abs }}{{ 1 < 2 < 3 }}",
}

// hostileSeeds are the parse-time probes of issue #23 at sizes the fuzzer
// takes: nesting just past MaxNesting (hostileChains adds the chains).
var hostileSeeds = []string{
	nest("(", "1", ")", 600),
	nest("[", "1", "]", 600),
	chain("", "not ", 600) + "1 }}",
	chain("", "- ", 600) + "1 }}",
	strings.Repeat("{% if 1 %}", 600) + strings.Repeat("{% endif %}", 600),
	"{% if x %}" + strings.Repeat("{% elif x %}", 600) + "{% endif %}",
}

// FuzzParseRender feeds arbitrary template sources to the parser and
// renderer: they must never panic, must return *Error on failure, and
// must finish within the limits.
func FuzzParseRender(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, c := range hostileRender {
		f.Add(c.src)
	}
	for _, s := range hostileSeeds {
		f.Add(s)
	}
	for _, c := range hostileChains(MaxNesting + 100) {
		f.Add(c.src)
	}
	vars := fuzzVars()
	lim := Limits{MaxIterations: 20_000, MaxRecursion: 50, MaxOutputBytes: 1 << 20, MaxStringBytes: 1 << 20, MaxWorkBytes: 8 << 20,
		MaxRenderTime: time.Second}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<16 {
			return
		}
		start := time.Now()
		tmpl, err := Parse(src, Options{Limits: lim, Now: corpus.FixedNow})
		if d := time.Since(start); d > 30*time.Second { // a hang, not a slow machine
			t.Fatalf("parse took %v", d)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("parse error %T %v is not *Error", err, err)
			}
			return
		}
		start = time.Now()
		out, err := tmpl.Render(context.Background(), vars)
		// The render's own deadline must stop it: a render that runs far
		// past it (30 times, so that a loaded machine or the race
		// detector does not count) is a loop that never checks the context.
		if d := time.Since(start); d > 30*lim.MaxRenderTime {
			t.Fatalf("render took %v, past its deadline of %v", d, lim.MaxRenderTime)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("render error %T %v is not *Error", err, err)
			}
			return
		}
		if len(out) > lim.MaxOutputBytes {
			t.Fatalf("output of %d bytes beyond the limit", len(out))
		}
	})
}

func fuzzVars() *Dict {
	v, err := DecodeJSON([]byte(`{"messages": [{"role": "system", "content": "be brief"},
		{"role": "user", "content": [{"type": "text", "text": "hi"}]},
		{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]},
		{"role": "tool", "tool_call_id": "c1", "content": "42"}],
		"tools": null, "add_generation_prompt": true, "a": [1, 2, 3], "b": "str", "d": {"z": 1, "y": 2},
		"l": [1, [2, [3]]], "fail": false}`))
	if err != nil {
		panic(err)
	}
	return v.(*Dict)
}

// TestFuzzSeeds runs the seeds as a plain test.
func TestFuzzSeeds(t *testing.T) {
	vars := fuzzVars()
	for _, s := range fuzzSeeds {
		tmpl, err := Parse(s, Options{})
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if _, err := tmpl.Render(context.Background(), vars); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%q: %v", s, err)
			}
		}
	}
}
