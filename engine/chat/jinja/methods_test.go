package jinja

import "testing"

// TestMethods renders the methods templates call against jinja2's output.
func TestMethods(t *testing.T) { checkRenders(t, methodCases) }

// methodCases exercise the str, dict, list and loop methods templates call.
// Each expected output is what Python's jinja2 3.1 rendered with Hugging
// Face's settings (ImmutableSandboxedEnvironment, trim_blocks,
// lstrip_blocks, loop controls).
var methodCases = []renderCase{
	{"{{ 'aBc ǅ'.upper() }} {{ 'aBc ǅ'.lower() }} {{ 'hello wORLD'.title() }} {{ 'hELLO'.capitalize() }} {{ 'aBc'.swapcase() }} {{ 'ABC'.casefold() }}", "{}", "ABC Ǆ abc ǆ Hello World Hello AbC abc", 0},
	{"[{{ ' x '.strip() }}][{{ ' x '.lstrip() }}][{{ ' x '.rstrip() }}][{{ 'xyaxy'.strip('xy') }}][{{ 'aab'.lstrip('a') }}]", "{}", "[x][x ][ x][a][b]", 0},
	{"{{ 'a b  c'.split() }} {{ 'a,b,,c'.split(',') }} {{ 'a,b,c'.split(',', 1) }} {{ 'a,b,c'.rsplit(',', 1) }} {{ ' a b '.split(none, 1) }} {{ ''.split(',') }} {{ ''.split() }}", "{}", "['a', 'b', 'c'] ['a', 'b', '', 'c'] ['a', 'b,c'] ['a,b', 'c'] ['a', 'b '] [''] []", 0},
	{"{{ 'a'.split('') }}", "{}", "", KindType}, // ValueError
	{"{{ 'a\\nb\\r\\nc\\n'.splitlines() }} {{ 'a\\nb'.splitlines(true) }} {{ ''.splitlines() }}", "{}", "['a', 'b', 'c'] ['a\\n', 'b'] []", 0},
	{"{{ 'abc'.startswith('ab') }} {{ 'abc'.startswith(('x', 'a')) }} {{ 'abc'.endswith('bc') }} {{ 'abc'.startswith('b', 1) }}", "{}", "True True True True", 0},
	{"{{ 'abcb'.find('b') }} {{ 'abcb'.rfind('b') }} {{ 'abc'.find('z') }} {{ 'abcb'.index('c') }} {{ 'abcb'.count('b') }} {{ 'aaa'.count('aa') }}", "{}", "1 3 -1 2 2 1", 0},
	{"{{ 'abc'.index('z') }}", "{}", "", KindType}, // ValueError
	{"{{ 'aaa'.replace('a', 'b') }} {{ 'aaa'.replace('a', 'b', 2) }} {{ 'ab'.replace('', '-') }}", "{}", "bbb bba -a-b-", 0},
	{"{{ ', '.join(['a', 'b']) }} {{ ''.join('abc') }}", "{}", "a, b abc", 0},
	{"{{ '-'.join([1, 2]) }}", "{}", "", KindType}, // TypeError
	{"{{ '{} {}'.format(1, 'a') }} {{ '{0}{0}'.format('x') }} {{ '{a}-{b}'.format(a=1, b=2) }}", "{}", "1 a xx 1-2", 0},
	{"[{{ 'ab'.center(5) }}][{{ 'ab'.ljust(4, '.') }}][{{ 'ab'.rjust(4) }}][{{ '42'.zfill(5) }}][{{ '-42'.zfill(5) }}]", "{}", "[  ab ][ab..][  ab][00042][-0042]", 0},
	{"{{ 'a=b=c'.partition('=') }} {{ 'a=b=c'.rpartition('=') }} {{ 'abc'.partition('x') }}", "{}", "('a', '=', 'b=c') ('a=b', '=', 'c') ('abc', '', '')", 0},
	{"{{ 'prefix_x'.removeprefix('prefix_') }} {{ 'x.txt'.removesuffix('.txt') }} {{ 'x'.removeprefix('y') }}", "{}", "x x x", 0},
	{"[{{ 'a\\tb'.expandtabs() }}][{{ 'a\\tb'.expandtabs(4) }}]", "{}", "[a       b][a   b]", 0},
	{"{{ 'ab1'.isalnum() }} {{ 'ab'.isalpha() }} {{ 'é'.isascii() }} {{ '12'.isdecimal() }} {{ '²'.isdigit() }} {{ '½'.isnumeric() }} {{ ' \\t'.isspace() }} {{ 'a\\n'.isprintable() }} {{ 'a_1'.isidentifier() }} {{ 'ab'.islower() }} {{ 'AB'.isupper() }} {{ 'Ab Cd'.istitle() }} {{ ''.isalpha() }}", "{}", "True True False True True True True False True True True True False", 0},
	{"{{ {'a': 1}.get('a') }} {{ {'a': 1}.get('b') }} {{ {'a': 1}.get('b', 2) }} {{ {'a': 1, 'b': 2}.keys()|list }} {{ {'a': 1}.values()|list }} {{ {'a': 1}.items()|list }} {{ {'a': 1}.copy() }}", "{}", "1 None 2 ['a', 'b'] [1] [('a', 1)] {'a': 1}", 0},
	{"{{ [1, 2, 1].count(1) }} {{ [1, 2, 1].index(2) }} {{ [1, 2].copy() }}", "{}", "2 1 [1, 2]", 0},
	{"{{ [1, 2].index(3) }}", "{}", "", KindType},               // ValueError
	{"{{ {'a': 1}.update({'b': 2}) }}", "{}", "", KindSecurity}, // SecurityError
	{"{{ {'a': 1}.pop('a') }}", "{}", "", KindSecurity},         // SecurityError
	{"{{ 'abc'.nosuch() }}", "{}", "", KindUndefined},           // UndefinedError
	{"{{ 'abc'.upper(1) }}", "{}", "", KindType},                // TypeError
	{"{% for x in [1, 2, 3] %}{{ loop.cycle('a', 'b') }}{{ loop.changed(x > 1) }};{% endfor %}", "{}", "aTrue;bTrue;aFalse;", 0},
}
