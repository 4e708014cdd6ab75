package jinja

import "testing"

// TestPyFormat renders Python-style formatting against jinja2's output.
func TestPyFormat(t *testing.T) { checkRenders(t, formatCases) }

// formatCases exercise Python-style formatting: %-formatting, str.format and the printing of numbers.
// Each expected output is what Python's jinja2 3.1 rendered with Hugging
// Face's settings (ImmutableSandboxedEnvironment, trim_blocks,
// lstrip_blocks, loop controls).
var formatCases = []renderCase{
	{"{{ '%s|%r|%d|%i|%5d|%-5d|%05d|%+d|% d' % ('a', 'a', 3, 4, 5, 6, 7, 8, 9) }}", "{}", "a|'a'|3|4|    5|6    |00007|+8| 9", 0},
	{"{{ '%x|%X|%o|%#x|%#o|%c|%%' % (255, 255, 8, 255, 8, 65) }}", "{}", "ff|FF|10|0xff|0o10|A|%", 0},
	{"{{ '%f|%.2f|%8.3f|%-8.1f|%e|%.2E|%g|%G|%.3g' % (3.14159, 3.14159, 3.14159, 3.14159, 31415.9, 0.000314, 1e20, 1e-10, 1234.5) }}", "{}", "3.141590|3.14|   3.142|3.1     |3.141590e+04|3.14E-04|1e+20|1E-10|1.23e+03", 0},
	{"{{ '%s' % none }}|{{ '%s' % [1] }}|{{ '%s' % (1,) }}|{{ '%s and %s' % ('a', 'b') }}", "{}", "None|[1]|1|a and b", 0},
	{"{{ '%s and %s' % ['a', 'b'] }}", "{}", "", KindType}, // TypeError
	{"{{ '%(a)s-%(b)05.1f' % {'a': 'x', 'b': 2.25} }}", "{}", "x-002.2", 0},
	{"{{ '%.3s|%5s|%-5s|' % ('abcdef', 'ab', 'ab') }}", "{}", "abc|   ab|ab   |", 0},
	{"{{ '%d' % 'x' }}", "{}", "", KindType},        // TypeError
	{"{{ '%s %s' % ('a',) }}", "{}", "", KindType},  // TypeError
	{"{{ '%s' % ('a', 'b') }}", "{}", "", KindType}, // TypeError
	{"{{ '%z' % 1 }}", "{}", "", KindType},          // ValueError
	{"{{ '%d %f' % (2.7, 3) }}", "{}", "2 3.000000", 0},
	{"{{ '{:>6}|{:<6}|{:^6}|{:*^7}|{:06.2f}|{:+d}|{:,}|{:_}|{:x}|{:#b}|{:o}|{:e}|{:.1%}' .format('ab', 'ab', 'ab', 'ab', 3.14159, 5, 1234567, 1234567, 255, 5, 8, 12345.678, 0.256) }}", "{}", "    ab|ab    |  ab  |**ab***|003.14|+5|1,234,567|1_234_567|ff|0b101|10|1.234568e+04|25.6%", 0},
	{"{{ '{0}{1}{0}'.format('a', 'b') }}|{{ '{x[0]}{y[k]}'.format(x=[1], y={'k': 2}) }}|{{ '{{}}{}'.format(1) }}|{{ '{!r}'.format('a') }}|{{ '{:s}'.format('a') }}", "{}", "aba|12|{}1|'a'|a", 0},
	{"{{ '{} {}'.format(1) }}", "{}", "", KindType},  // IndexError
	{"{{ '{:d}'.format('a') }}", "{}", "", KindType}, // ValueError
	{"{{ '{'.format(1) }}", "{}", "", KindType},      // ValueError
	{"{{ '{:g}|{:.3}|{:10.4f}|{:<10}|{}|{}'.format(1e-5, 3.14159, 2.5, 1.5, 1e16, 1/3) }}", "{}", "1e-05|3.14|    2.5000|1.5       |1e+16|0.3333333333333333", 0},
	{"{{ '%s'|format([1, 'a']) }}|{{ '%-4d|'|format(7) }}{{ '%5.1f'|format(-2.25) }}", "{}", "[1, 'a']|7   | -2.2", 0},
	{"{{ 1e100 }} {{ 1.5e-7 }} {{ 0.1 + 0.2 }} {{ 100.0 }} {{ 1e22 }} {{ 123456789012345680.0 }} {{ 2**62 }} {{ -(2**62) }}", "{}", "1e+100 1.5e-07 0.30000000000000004 100.0 1e+22 1.2345678901234568e+17 4611686018427387904 -4611686018427387904", 0},
	{"{{ 10 / 3 }} {{ 2**0.5 }} {{ 1 / 7 }} {{ 5e-324 }} {{ 1.7976931348623157e308 }}", "{}", "3.3333333333333335 1.4142135623730951 0.14285714285714285 5e-324 1.7976931348623157e+308", 0},
}
