package jinja

import "testing"

// TestTests renders each built-in test against jinja2's output.
func TestTests(t *testing.T) { checkRenders(t, testCases) }

// testCases exercise the built-in tests (is odd, is defined, ...).
// Each expected output is what Python's jinja2 3.1 rendered with Hugging
// Face's settings (ImmutableSandboxedEnvironment, trim_blocks,
// lstrip_blocks, loop controls).
var testCases = []renderCase{
	{"{{ 3 is odd }} {{ 3 is even }} {{ 4 is divisibleby 2 }} {{ 4 is divisibleby(3) }} {{ 0 is even }}", "{}", "True False True False True", 0},
	{"{{ 3.0 is odd }}", "{}", "True", 0},
	{"{{ x is defined }} {{ x is undefined }} {{ none is none }} {{ 0 is none }} {{ y is defined }}", "{\"y\": null}", "False True True False True", 0},
	{"{{ true is boolean }} {{ 1 is boolean }} {{ false is false }} {{ 0 is false }} {{ true is true }}", "{}", "True False True False True", 0},
	{"{{ 1 is integer }} {{ 1.0 is integer }} {{ 1.0 is float }} {{ 1 is number }} {{ 1.5 is number }} {{ true is number }} {{ '1' is number }}", "{}", "True False True True True True False", 0},
	{"{{ 'a' is string }} {{ 'a'|safe is string }} {{ 1 is string }} {{ {} is mapping }} {{ [] is mapping }}", "{}", "True True False True False", 0},
	{"{{ [] is sequence }} {{ 'a' is sequence }} {{ {} is sequence }} {{ 1 is sequence }} {{ (1,) is sequence }}", "{}", "True True True False True", 0},
	{"{{ [] is iterable }} {{ 'a' is iterable }} {{ {} is iterable }} {{ 1 is iterable }} {{ range(2) is iterable }} {{ x is iterable }}", "{}", "True True True False True True", 0},
	{"{{ 'abc' is lower }} {{ 'aBc' is lower }} {{ 'ABC' is upper }} {{ '123' is upper }} {{ '123' is lower }}", "{}", "True False True False False", 0},
	{"{{ 'a'|safe is escaped }} {{ 'a' is escaped }}", "{}", "True False", 0},
	{"{{ 1 is sameas 1 }} {{ none is sameas none }} {{ [] is sameas [] }} {{ true is sameas true }}", "{}", "True True False True", 0},
	{"{{ 2 is in [1, 2] }} {{ 'b' is in 'abc' }} {{ 'x' is in {'x': 1} }} {{ 3 is in [1, 2] }}", "{}", "True True True False", 0},
	{"{{ 'upper' is filter }} {{ 'nosuch' is filter }} {{ 'odd' is test }} {{ 'nosuch' is test }}", "{}", "True False True False", 0},
	{"{{ 1 is eq 1 }} {{ 1 is ne 1 }} {{ 2 is gt 1 }} {{ 2 is ge 2 }} {{ 1 is lt 2 }} {{ 1 is le 0 }} {{ 1 is equalto 1.0 }} {{ 3 is greaterthan 2 }} {{ 3 is lessthan 2 }}", "{}", "True False True True True False True True False", 0},
	{"{{ 2 is == 2 }}", "{}", "", KindSyntax}, // TemplateSyntaxError
	{"{{ 1 is callable }} {{ range is callable }} {{ 'a'.upper is callable }}", "{}", "False True True", 0},
	{"{{ 1 is nosuchtest }}", "{}", "", KindSyntax}, // TemplateAssertionError
	{"{{ x is odd }}", "{}", "", KindUndefined},     // UndefinedError
	{"{{ 'a' is lt 1 }}", "{}", "", KindType},       // TypeError
	{"{{ 1 is not odd }} {{ not 1 is odd }} {{ x is not defined }}", "{}", "False False True", 0},
}
