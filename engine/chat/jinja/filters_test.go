package jinja

import "testing"

// TestFilters renders each built-in filter against jinja2's output.
func TestFilters(t *testing.T) { checkRenders(t, filterCases) }

// filterCases exercise the built-in filters.
// Each expected output is what Python's jinja2 3.1 rendered with Hugging
// Face's settings (ImmutableSandboxedEnvironment, trim_blocks,
// lstrip_blocks, loop controls).
var filterCases = []renderCase{
	{"{{ -3|abs }} {{ -2.5|abs }} {{ 0|abs }}", "{}", "3 2.5 0", 0},
	{"{{ 'x'|abs }}", "{}", "", KindType}, // TypeError
	{"{{ d|attr('a') }}|{{ d|attr('zz') is defined }}", "{\"d\": {\"a\": 1}}", "|False", 0},
	{"{{ [1,2,3,4,5]|batch(2)|list }}{{ [1,2,3]|batch(2, 0)|list }}", "{}", "[[1, 2], [3, 4], [5]][[1, 2], [3, 0]]", 0},
	{"{{ 'hELLO wORLD'|capitalize }}", "{}", "Hello world", 0},
	{"[{{ 'ab'|center(6) }}][{{ 'abc'|center(2) }}]", "{}", "[  ab  ][abc]", 0},
	{"{{ [1,2,3]|count }} {{ 'héllo'|count }} {{ {'a': 1}|length }}", "{}", "3 5 1", 0},
	{"{{ x|default('d') }} {{ x|d('d') }} {{ ''|default('e') }} {{ ''|default('e', true) }} {{ none|default('n') }} {{ 0|d(5, boolean=true) }}", "{}", "d d  e None 5", 0},
	{"{{ {'b': 1, 'A': 2, 'a': 3}|dictsort }} {{ {'b': 1, 'A': 2, 'a': 0}|dictsort(true) }} {{ {'b': 1, 'a': 2}|dictsort(by='value') }} {{ {'b': 1, 'a': 2}|dictsort(reverse=true) }}", "{}", "[('A', 2), ('a', 3), ('b', 1)] [('A', 2), ('a', 0), ('b', 1)] [('b', 1), ('a', 2)] [('b', 1), ('a', 2)]", 0},
	{"{{ '<a href=\"x\">&\\'</a>'|e }} {{ '<b>'|escape }} {{ '<b>'|safe|e }} {{ '<b>'|safe|forceescape }}", "{}", "&lt;a href=&#34;x&#34;&gt;&amp;&#39;&lt;/a&gt; &lt;b&gt; <b> &lt;b&gt;", 0},
	{"{{ 1000|filesizeformat }} {{ 1048576|filesizeformat(true) }} {{ 3|filesizeformat }} {{ 1500000000|filesizeformat }}", "{}", "1.0 kB 1.0 MiB 3 Bytes 1.5 GB", 0},
	{"{{ [3,1,2]|first }} {{ 'abc'|first }} {{ []|first is defined }} {{ [3,1,2]|last }} {{ 'abc'|last }}", "{}", "3 a False 2 c", 0},
	{"{{ '3.5'|float }} {{ 'x'|float }} {{ 'x'|float(1.5) }} {{ 2|float }} {{ ' 1e3 '|float }} {{ true|float }}", "{}", "3.5 0.0 1.5 2.0 1000.0 1.0", 0},
	{"{{ '%s-%d'|format('a', 3) }} {{ '%(x)s'|format(x=1) }}", "{}", "a-3 1", 0},
	{"{% for k, g in [{'k': 'a', 'v': 1}, {'k': 'b', 'v': 2}, {'k': 'a', 'v': 3}]|groupby('k') %}{{ k }}={{ g|map(attribute='v')|list }};{% endfor %}", "{}", "a=[1, 3];b=[2];", 0},
	{"{% for k, items in [{'k': 'x'}, {}, {'k': 'y'}, {'k': 'x'}]|groupby('k', default='?') %}{{ k }}:{{ items|length }};{% endfor %}", "{}", "?:1;x:2;y:1;", 0},
	{"[{{ 'a\\nb\\n\\nc'|indent }}][{{ 'a\\nb'|indent(2, true) }}][{{ 'a\\n\\nb'|indent(width='> ', blank=true) }}]", "{}", "[a\n    b\n\n    c][  a\n  b][a\n> \n> b]", 0},
	{"{{ '42'|int }} {{ '0x1A'|int(0, 16) }} {{ '0b101'|int(base=0) }} {{ 'x'|int(7) }} {{ 3.9|int }} {{ -3.9|int }} {{ '1_000'|int }} {{ ' 12 '|int }} {{ '3.7'|int }}", "{}", "42 26 5 7 3 -3 1000 12 3", 0},
	{"{{ {'a': 1, 'b': 2}|items|list }} {{ x|items|list }}", "{}", "[('a', 1), ('b', 2)] []", 0},
	{"{{ none|items|list }}", "{}", "", KindType}, // TypeError
	{"{{ ['a', 'b']|join }} {{ [1, 2]|join(', ') }} {{ [{'n': 'x'}, {'n': 'y'}]|join('-', attribute='n') }} {{ 'abc'|join('.') }}", "{}", "ab 1, 2 x-y a.b.c", 0},
	{"{{ 'abc'|list }} {{ {'a': 1, 'b': 2}|list }} {{ range(3)|list }} {{ (1, 2)|list }}", "{}", "['a', 'b', 'c'] ['a', 'b'] [0, 1, 2] [1, 2]", 0},
	{"{{ 'HéLLo'|lower }} {{ 'héllo wörld'|upper }} {{ 'ǅ'|lower }}", "{}", "héllo HÉLLO WÖRLD ǆ", 0},
	{"{{ ['1', '2']|map('int')|sum }} {{ [{'a': 1}, {}]|map(attribute='a', default=0)|list }} {{ ['a', 'b']|map('upper')|join }} {{ [[1, 2], [3]]|map('length')|list }}", "{}", "3 [1, 0] AB [2, 1]", 0},
	{"{{ [3, 1, 2]|max }} {{ [3, 1, 2]|min }} {{ ['b', 'A', 'c']|max }} {{ ['b', 'A', 'c']|max(case_sensitive=true) }} {{ [{'v': 2}, {'v': 5}]|max(attribute='v') }} {{ []|max is defined }}", "{}", "3 1 c c {'v': 5} False", 0},
	{"{{ [1, 2, 3, 4]|select('odd')|list }} {{ [1, 2, 3, 4]|reject('odd')|list }} {{ [0, 1, '', 'a', none]|select|list }} {{ [1, 5, 9]|select('>', 4)|list }} {{ [1, 2]|select('in', [2, 3])|list }}", "{}", "[1, 3] [2, 4] [1, 'a'] [5, 9] [2]", 0},
	{"{{ [{'a': 1}, {'a': 0}, {}]|selectattr('a')|list }} {{ [{'a': 1}, {'a': 0}, {}]|rejectattr('a')|list }} {{ [{'a': 1}, {'a': 2}]|selectattr('a', 'equalto', 2)|list }}", "{}", "[{'a': 1}] [{'a': 0}, {}] [{'a': 2}]", 0},
	{"{{ 'aXbXc'|replace('X', '-') }} {{ 'aXbXc'|replace('X', '-', 1) }} {{ 'abc'|replace('', '.') }}", "{}", "a-b-c a-bXc .a.b.c.", 0},
	{"{{ 'abc'|reverse }} {{ [1, 2, 3]|reverse|list }} {{ (1, 2)|reverse|list }}", "{}", "cba [3, 2, 1] [2, 1]", 0},
	{"{{ 2.5|round }} {{ 3.5|round }} {{ 2.567|round(2) }} {{ 2.1|round(0, 'ceil') }} {{ 2.9|round(method='floor') }} {{ 7|round }} {{ -2.5|round }} {{ 1234.5|round(-2) }}", "{}", "2.0 4.0 2.57 3.0 2.0 7 -2.0 1200.0", 0},
	{"{{ [1, 2, 3, 4, 5]|slice(2)|list }} {{ [1, 2, 3, 4, 5]|slice(3, 0)|list }}", "{}", "[[1, 2, 3], [4, 5]] [[1, 2], [3, 4], [5, 0]]", 0},
	{"{{ [3, 1, 2]|sort }} {{ ['b', 'A', 'c']|sort }} {{ ['b', 'A', 'c']|sort(case_sensitive=true) }} {{ [3, 1, 2]|sort(reverse=true) }} {{ [{'n': 2}, {'n': 1}]|sort(attribute='n') }} {{ [[2, 'b'], [1, 'z'], [2, 'a']]|sort(attribute='0,1') }}", "{}", "[1, 2, 3] ['A', 'b', 'c'] ['A', 'b', 'c'] [3, 2, 1] [{'n': 1}, {'n': 2}] [[1, 'z'], [2, 'a'], [2, 'b']]", 0},
	{"{{ [1, 'a']|sort }}", "{}", "", KindType}, // TypeError
	{"{{ 1|string }}{{ none|string }}{{ [1, 'a']|string }}{{ 1.0|string }}{{ true|string }}", "{}", "1None[1, 'a']1.0True", 0},
	{"{{ '<p>a  <b>b</b>\\n c</p><!-- x -->'|striptags }}", "{}", "a b c", 0},
	{"{{ [1, 2, 3]|sum }} {{ [1.5, 2]|sum }} {{ [1, 2]|sum(start=10) }} {{ [{'v': 1}, {'v': 2}]|sum(attribute='v') }} {{ []|sum }}", "{}", "6 3.5 13 3 0", 0},
	{"{{ ['a']|sum }}", "{}", "", KindType}, // TypeError
	{"{{ 'hello wORLD-foo bar_baz'|title }} {{ \"it's\"|title }}", "{}", "Hello World-Foo Bar_baz It's", 0},
	{"[{{ '  a b \\n'|trim }}][{{ 'xxaxx'|trim('x') }}]", "{}", "[a b][a]", 0},
	{"{{ 'foo bar baz qux'|truncate(9) }}|{{ 'foo bar baz qux'|truncate(9, true) }}|{{ 'foo bar baz qux'|truncate(11, false, '!!', 0) }}|{{ 'short'|truncate(10) }}|{{ 'foo bar baz qux'|truncate(13) }}", "{}", "foo...|foo ba...|foo bar!!|short|foo bar baz qux", 0},
	{"{{ [1, 2, 1, 3, 2]|unique|list }} {{ ['a', 'A', 'b']|unique|list }} {{ ['a', 'A', 'b']|unique(case_sensitive=true)|list }} {{ [{'k': 1}, {'k': 1}, {'k': 2}]|unique(attribute='k')|list }}", "{}", "[1, 2, 3] ['a', 'b'] ['a', 'A', 'b'] [{'k': 1}, {'k': 2}]", 0},
	{"{{ 'a b&c/é'|urlencode }} {{ {'a': 1, 'b': 'x y'}|urlencode }} {{ [('k', 'v')]|urlencode }}", "{}", "a%20b%26c/%C3%A9 a=1&b=x+y k=v", 0},
	{"{{ 'one two  three\\nfour'|wordcount }} {{ ''|wordcount }}", "{}", "4 0", 0},
	{"{{ {'class': 'x', 'id': none, 'data-v': '<1>'}|xmlattr }}|{{ {'a': 1}|xmlattr(false) }}", "{}", " class=\"x\" data-v=\"&lt;1&gt;\"|a=\"1\"", 0},
	{"{{ {'b': [1, {'c': none}], 'a': 'x'}|pprint }}", "{}", "{'a': 'x', 'b': [1, {'c': None}]}", 0},
	{"{{ x|nosuch }}", "{\"x\": 1}", "", KindSyntax}, // TemplateAssertionError
	{"{{ [1, 2]|join(1) }}", "{}", "112", 0},
	{"[{{ 'abc'|center }}]", "{}", "[                                      abc                                       ]", 0},
	{"{{ 'a'|center(5, '*') }}", "{}", "", KindType}, // TypeError
}
