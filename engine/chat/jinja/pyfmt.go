package jinja

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// percentFormat is Python's printf-style "fmt % arg".
// Bounds of %-format and str.format specs (see Limits): a width pads, a
// precision pads digits, and both would otherwise size an allocation.
const (
	maxFormatWidth     = 1 << 20
	maxFormatPrecision = 1 << 10
)

func (s *state) percentFormat(format string, arg Value) (string, error) {
	var args []Value
	var mapping *Dict
	// Python treats any non-tuple argument with __getitem__ as a mapping
	// and then does not complain about unused arguments.
	mappingLike := false
	if l, ok := arg.(*List); ok && l.Tuple {
		args = l.Items
	} else {
		args = []Value{arg}
		switch a := arg.(type) {
		case *Dict:
			mapping, mappingLike = a, true
		case *List, *rangeValue, undefined:
			mappingLike = true
		}
	}
	used := 0
	next := func() (Value, error) {
		if used >= len(args) {
			return nil, typeErrorf("not enough arguments for format string")
		}
		used++
		return args[used-1], nil
	}
	var b strings.Builder
	usedMapping := false
	for i := 0; i < len(format); {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			i++
			continue
		}
		i++
		if i >= len(format) {
			return "", typeErrorf("incomplete format")
		}
		var val Value
		haveVal := false
		if format[i] == '(' {
			if mapping == nil {
				return "", typeErrorf("format requires a mapping")
			}
			depth, j := 1, i+1
			for j < len(format) && depth > 0 {
				switch format[j] {
				case '(':
					depth++
				case ')':
					depth--
				}
				j++
			}
			if depth > 0 {
				return "", typeErrorf("incomplete format key")
			}
			key := format[i+1 : j-1]
			v, ok := mapping.Get(key)
			if !ok {
				return "", typeErrorf("KeyError: %s", repr(key))
			}
			val, haveVal, usedMapping = v, true, true
			i = j
		}
		var spec fmtSpec
		spec.fill = ' '
		for ; i < len(format); i++ {
			switch format[i] {
			case '-':
				spec.align = '<'
			case '+':
				spec.sign = '+'
			case ' ':
				if spec.sign == 0 {
					spec.sign = ' '
				}
			case '#':
				spec.alt = true
			case '0':
				spec.zero = true
			default:
				goto width
			}
		}
	width:
		if i < len(format) && format[i] == '*' {
			v, err := next()
			if err != nil {
				return "", err
			}
			w, ok := asInt(v)
			if !ok {
				return "", typeErrorf("* wants int")
			}
			if w > maxFormatWidth || w < -maxFormatWidth {
				return "", limitErrorf("format width %d is beyond the limit of %d", w, maxFormatWidth)
			}
			if w < 0 {
				spec.align, w = '<', -w
			}
			spec.width = int(w)
			i++
		} else {
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				spec.width = spec.width*10 + int(format[i]-'0')
				if spec.width > maxFormatWidth {
					return "", limitErrorf("format width too large")
				}
				i++
			}
		}
		spec.prec = -1
		if i < len(format) && format[i] == '.' {
			i++
			spec.prec = 0
			if i < len(format) && format[i] == '*' {
				v, err := next()
				if err != nil {
					return "", err
				}
				p, _ := asInt(v)
				if p > maxFormatPrecision {
					return "", limitErrorf("format precision %d is beyond the limit of %d", p, maxFormatPrecision)
				}
				spec.prec = int(max(p, 0)) // Python reads a negative * precision as 0
				i++
			} else {
				for i < len(format) && format[i] >= '0' && format[i] <= '9' {
					spec.prec = spec.prec*10 + int(format[i]-'0')
					if spec.prec > maxFormatPrecision {
						return "", limitErrorf("format precision too large")
					}
					i++
				}
			}
		}
		for i < len(format) && (format[i] == 'h' || format[i] == 'l' || format[i] == 'L') {
			i++
		}
		if i >= len(format) {
			return "", typeErrorf("incomplete format")
		}
		conv := format[i]
		i++
		if conv == '%' {
			b.WriteByte('%')
			continue
		}
		if !haveVal {
			v, err := next()
			if err != nil {
				return "", err
			}
			val = v
		}
		if spec.align == '<' {
			spec.zero = false
		}
		if spec.align == 0 {
			spec.align = '>'
		}
		var out string
		switch conv {
		case 's':
			str, err := s.str(val)
			if err != nil {
				return "", err
			}
			out = str
			if spec.prec >= 0 {
				out = truncRunes(out, spec.prec)
			}
			spec.zero = false
		case 'r', 'a':
			str, err := s.repr(val)
			if err != nil {
				return "", err
			}
			out = str
			if spec.prec >= 0 {
				out = truncRunes(out, spec.prec)
			}
			spec.zero = false
		case 'c':
			if n, ok := asInt(val); ok {
				if err := checkChr(n); err != nil {
					return "", err
				}
				out = string(rune(n))
			} else if str, ok := isString(val); ok && utf8.RuneCountInString(str) == 1 {
				out = str
			} else {
				return "", typeErrorf("%%c requires int or char")
			}
			spec.zero = false
		case 'd', 'i', 'u', 'o', 'x', 'X', 'e', 'E', 'f', 'F', 'g', 'G':
			if u, ok := val.(undefined); ok {
				return "", u.err()
			}
			f, isFloat, ok := asNumber(val)
			if !ok {
				if str, isStr := isString(val); isStr {
					_ = str
				}
				return "", typeErrorf("%%%c format: a real number is required, not %s", conv, typeName(val))
			}
			if conv == 'd' || conv == 'i' || conv == 'u' || conv == 'o' || conv == 'x' || conv == 'X' {
				var n int64
				if isFloat {
					if conv != 'd' && conv != 'i' && conv != 'u' {
						return "", typeErrorf("%%%c format: an integer is required, not float", conv)
					}
					if math.IsInf(f, 0) || math.IsNaN(f) {
						return "", typeErrorf("cannot convert float to integer")
					}
					n = int64(f)
				} else {
					n, _ = asInt(val)
				}
				typ := map[byte]byte{'d': 'd', 'i': 'd', 'u': 'd', 'o': 'o', 'x': 'x', 'X': 'X'}[conv]
				spec.typ = typ
				if spec.prec >= 0 {
					digits := strconv.FormatUint(abs64(n), map[byte]int{'d': 10, 'o': 8, 'x': 16, 'X': 16}[typ])
					if typ == 'X' {
						digits = strings.ToUpper(digits)
					}
					for len(digits) < spec.prec {
						digits = "0" + digits
					}
					out = signPrefix(n < 0, spec.sign) + altPrefix(spec, typ) + digits
					out = padNumber(out, spec)
					break
				}
				out = formatInt(n, spec)
			} else {
				spec.typ = conv
				if spec.prec < 0 {
					spec.prec = 6
				}
				out = formatFloat(f, spec)
			}
			b.WriteString(out)
			continue
		default:
			return "", typeErrorf("unsupported format character '%c'", conv)
		}
		b.WriteString(pad(out, spec))
		if err := s.checkLen(b.Len()); err != nil {
			return "", err
		}
	}
	if used < len(args) && !usedMapping && !mappingLike {
		return "", typeErrorf("not all arguments converted during string formatting")
	}
	if err := s.checkStr(b.Len()); err != nil {
		return "", err
	}
	return b.String(), nil
}

func abs64(n int64) uint64 {
	if n < 0 {
		return uint64(-n)
	}
	return uint64(n)
}

func truncRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// fmtSpec is a parsed format specification (both % and {} styles).
type fmtSpec struct {
	fill     rune
	align    byte // '<', '>', '^', '=' or 0
	sign     byte // '+', '-', ' ' or 0
	alt      bool
	zero     bool
	width    int
	grouping byte // ',' or '_' or 0
	prec     int  // -1 when absent
	typ      byte
}

func pad(str string, spec fmtSpec) string {
	n := utf8.RuneCountInString(str)
	if spec.width <= n {
		return str
	}
	fill := string(spec.fill)
	m := spec.width - n
	switch spec.align {
	case '<':
		return str + strings.Repeat(fill, m)
	case '^':
		l := m / 2
		return strings.Repeat(fill, l) + str + strings.Repeat(fill, m-l)
	}
	return strings.Repeat(fill, m) + str
}

func signPrefix(neg bool, sign byte) string {
	switch {
	case neg:
		return "-"
	case sign == '+':
		return "+"
	case sign == ' ':
		return " "
	}
	return ""
}

func altPrefix(spec fmtSpec, typ byte) string {
	if !spec.alt {
		return ""
	}
	switch typ {
	case 'o':
		return "0o"
	case 'x':
		return "0x"
	case 'X':
		return "0X"
	case 'b':
		return "0b"
	}
	return ""
}

// padNumber pads a signed number, inserting zeros after the sign with the
// 0 flag or '=' alignment.
func padNumber(str string, spec fmtSpec) string {
	if spec.zero || spec.align == '=' {
		n := utf8.RuneCountInString(str)
		if spec.width <= n {
			return str
		}
		signLen := 0
		if len(str) > 0 && (str[0] == '-' || str[0] == '+' || str[0] == ' ') {
			signLen = 1
		}
		if strings.HasPrefix(str[signLen:], "0x") || strings.HasPrefix(str[signLen:], "0X") ||
			strings.HasPrefix(str[signLen:], "0o") || strings.HasPrefix(str[signLen:], "0b") {
			signLen += 2
		}
		fill := "0"
		if !spec.zero {
			fill = string(spec.fill)
		}
		return str[:signLen] + strings.Repeat(fill, spec.width-n) + str[signLen:]
	}
	return pad(str, spec)
}

func groupDigits(digits string, sep byte, every int) string {
	if sep == 0 || len(digits) <= every {
		return digits
	}
	var b strings.Builder
	lead := len(digits) % every
	if lead > 0 {
		b.WriteString(digits[:lead])
	}
	for i := lead; i < len(digits); i += every {
		if b.Len() > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(digits[i : i+every])
	}
	return b.String()
}

// checkChr is Python's range check of %c and {:c}: a code point, not a
// truncated int64.
func checkChr(n int64) error {
	if n < 0 || n > unicode.MaxRune {
		return typeErrorf("%%c arg not in range(0x110000)")
	}
	return nil
}

func formatInt(n int64, spec fmtSpec) string {
	var digits string
	switch spec.typ {
	case 'b':
		digits = strconv.FormatUint(abs64(n), 2)
	case 'o':
		digits = strconv.FormatUint(abs64(n), 8)
	case 'x':
		digits = strconv.FormatUint(abs64(n), 16)
	case 'X':
		digits = strings.ToUpper(strconv.FormatUint(abs64(n), 16))
	case 'c':
		return pad(string(rune(n)), spec)
	default:
		digits = strconv.FormatUint(abs64(n), 10)
		digits = groupDigits(digits, spec.grouping, 3)
	}
	return padNumber(signPrefix(n < 0, spec.sign)+altPrefix(spec, spec.typ)+digits, spec)
}

func formatFloat(f float64, spec fmtSpec) string {
	neg := math.Signbit(f) && !math.IsNaN(f)
	a := math.Abs(f)
	var body string
	typ := spec.typ
	prec := spec.prec
	switch {
	case math.IsInf(a, 0):
		body = "inf"
	case math.IsNaN(a):
		body = "nan"
	default:
		switch typ {
		case 'f', 'F', '%':
			if typ == '%' {
				a *= 100
			}
			body = strconv.FormatFloat(a, 'f', prec, 64)
		case 'e', 'E':
			body = fixExp(strconv.FormatFloat(a, 'e', prec, 64))
		case 'g', 'G', 'n':
			body = pyGeneral(a, prec, spec.alt)
		default: // no type: like str() with precision semantics
			if prec < 0 {
				body = pyFloatRepr(a)
			} else {
				body = pyGeneral(a, prec, true)
				if !strings.ContainsAny(body, ".e") {
					body += ".0"
				}
			}
		}
		if spec.grouping != 0 {
			intPart, frac, _ := strings.Cut(body, ".")
			if !strings.ContainsAny(intPart, "e") {
				body = groupDigits(intPart, spec.grouping, 3)
				if frac != "" || strings.Contains(body, ".") {
					body += "." + frac
				}
			}
		}
		if typ == '%' {
			body += "%"
		}
	}
	if typ == 'E' || typ == 'F' || typ == 'G' {
		body = strings.ToUpper(body)
	}
	return padNumber(signPrefix(neg, spec.sign)+body, spec)
}

// fixExp turns Go's e+0X exponents into Python's two-digit minimum (Go
// already uses at least two digits) and keeps the sign.
func fixExp(s string) string { return s }

// pyGeneral is the 'g' presentation: precision p significant digits,
// exponent form when exp < -4 or exp >= p; trailing zeros dropped unless alt.
func pyGeneral(a float64, p int, alt bool) string {
	if p == 0 {
		p = 1
	}
	if p < 0 {
		p = 6
	}
	e := strconv.FormatFloat(a, 'e', p-1, 64)
	mant, expS, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expS)
	var out string
	if exp < -4 || exp >= p {
		if !alt {
			mant = trimZeros(mant)
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		out = fmt.Sprintf("%se%s%02d", mant, sign, exp)
	} else {
		out = strconv.FormatFloat(a, 'f', p-1-exp, 64)
		if !alt {
			out = trimZeros(out)
		}
	}
	return out
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// pyFormat is str.format(*args, **kwargs).
func (s *state) pyFormat(format string, args []Value, kw kwargs) (Value, error) {
	var b strings.Builder
	auto := 0
	for i := 0; i < len(format); {
		c := format[i]
		if c == '}' {
			if i+1 < len(format) && format[i+1] == '}' {
				b.WriteByte('}')
				i += 2
				continue
			}
			return nil, typeErrorf("Single '}' encountered in format string")
		}
		if c != '{' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 < len(format) && format[i+1] == '{' {
			b.WriteByte('{')
			i += 2
			continue
		}
		// Find the matching close brace (one level of nesting in the spec).
		depth, j := 1, i+1
		for j < len(format) && depth > 0 {
			switch format[j] {
			case '{':
				depth++
			case '}':
				depth--
			}
			j++
		}
		if depth > 0 {
			return nil, typeErrorf("expected '}' before end of string")
		}
		field := format[i+1 : j-1]
		i = j
		specStr := ""
		conv := byte(0)
		if k := strings.IndexByte(field, ':'); k >= 0 {
			field, specStr = field[:k], field[k+1:]
		}
		if k := strings.IndexByte(field, '!'); k >= 0 {
			if k+2 != len(field) {
				return nil, typeErrorf("expected ':' after conversion specifier")
			}
			conv = field[k+1]
			field = field[:k]
		}
		// Nested replacement fields inside the spec.
		if strings.Contains(specStr, "{") {
			r, err := s.pyFormat(specStr, args, kw)
			if err != nil {
				return nil, err
			}
			specStr = toStr(r)
		}
		name := field
		rest := ""
		if k := strings.IndexAny(field, ".["); k >= 0 {
			name, rest = field[:k], field[k:]
		}
		var v Value
		if name == "" {
			if auto < 0 {
				return nil, typeErrorf("cannot switch from manual field specification to automatic field numbering")
			}
			if auto >= len(args) {
				return nil, typeErrorf("Replacement index %d out of range for positional args tuple", auto)
			}
			v = args[auto]
			auto++
		} else if isDigits(name) {
			if auto > 0 {
				return nil, typeErrorf("cannot switch from automatic field numbering to manual field specification")
			}
			auto = -1
			n, _ := strconv.Atoi(name)
			if n >= len(args) {
				return nil, typeErrorf("Replacement index %d out of range for positional args tuple", n)
			}
			v = args[n]
		} else {
			x, ok := kw.get(name)
			if !ok {
				return nil, typeErrorf("KeyError: %s", repr(name))
			}
			v = x
		}
		for rest != "" {
			var err error
			if rest[0] == '.' {
				k := strings.IndexAny(rest[1:], ".[")
				attr := rest[1:]
				if k >= 0 {
					attr, rest = rest[1:k+1], rest[k+1:]
				} else {
					rest = ""
				}
				v, err = s.getattr(v, attr)
			} else {
				k := strings.IndexByte(rest, ']')
				if k < 0 {
					return nil, typeErrorf("Missing ']' in format string")
				}
				key := rest[1:k]
				rest = rest[k+1:]
				var kv Value = key
				if isDigits(key) {
					n, _ := strconv.ParseInt(key, 10, 64)
					kv = n
				}
				v, err = s.getitem(v, kv)
			}
			if err != nil {
				return nil, err
			}
			if u, ok := v.(undefined); ok {
				return nil, u.err()
			}
		}
		var err error
		switch conv {
		case 0:
		case 's':
			v, err = s.str(v)
		case 'r', 'a':
			v, err = s.repr(v)
		default:
			return nil, typeErrorf("Unknown conversion specifier %c", conv)
		}
		if err != nil {
			return nil, err
		}
		if isContainer(v) {
			if v, err = s.str(v); err != nil {
				return nil, err
			}
		}
		out, err := formatValue(v, specStr)
		if err != nil {
			return nil, err
		}
		b.WriteString(out)
		if err := s.checkLen(b.Len()); err != nil {
			return nil, err
		}
	}
	if err := s.checkStr(b.Len()); err != nil {
		return nil, err
	}
	return b.String(), nil
}

// formatValue is format(v, spec) for the format mini-language.
func formatValue(v Value, specStr string) (string, error) {
	if specStr == "" {
		return toStr(v), nil
	}
	spec, err := parseFormatSpec(specStr)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string, markup:
		str, _ := isString(x)
		if spec.typ != 0 && spec.typ != 's' {
			return "", typeErrorf("Unknown format code '%c' for object of type 'str'", spec.typ)
		}
		if spec.prec >= 0 {
			str = truncRunes(str, spec.prec)
		}
		if spec.align == 0 {
			spec.align = '<'
		}
		return pad(str, spec), nil
	case bool, int64:
		n, _ := asInt(x)
		switch spec.typ {
		case 0, 'd', 'b', 'o', 'x', 'X', 'c', 'n':
			if spec.align == 0 {
				spec.align = '>'
			}
			if _, isB := x.(bool); isB && spec.typ == 0 {
				return pad(toStr(x), spec), nil
			}
			if spec.typ == 'c' {
				if err := checkChr(n); err != nil {
					return "", err
				}
			}
			return formatInt(n, spec), nil
		case 'e', 'E', 'f', 'F', 'g', 'G', '%':
			return formatValue(float64(n), specStr)
		}
		return "", typeErrorf("Unknown format code '%c' for object of type 'int'", spec.typ)
	case float64:
		switch spec.typ {
		case 0, 'e', 'E', 'f', 'F', 'g', 'G', '%', 'n':
			if spec.align == 0 {
				spec.align = '>'
			}
			if spec.prec < 0 && spec.typ != 0 {
				spec.prec = 6
			}
			return formatFloat(x, spec), nil
		}
		return "", typeErrorf("Unknown format code '%c' for object of type 'float'", spec.typ)
	}
	if spec.typ != 0 {
		return "", typeErrorf("unsupported format string passed to %s.__format__", typeName(v))
	}
	if spec.align == 0 {
		spec.align = '<'
	}
	return pad(toStr(v), spec), nil
}

func parseFormatSpec(s string) (fmtSpec, error) {
	spec := fmtSpec{fill: ' ', prec: -1}
	rs := []rune(s)
	i := 0
	isAlign := func(r rune) bool { return r == '<' || r == '>' || r == '^' || r == '=' }
	if len(rs) >= 2 && isAlign(rs[1]) {
		spec.fill, spec.align = rs[0], byte(rs[1])
		i = 2
	} else if len(rs) >= 1 && isAlign(rs[0]) {
		spec.align = byte(rs[0])
		i = 1
	}
	if i < len(rs) && (rs[i] == '+' || rs[i] == '-' || rs[i] == ' ') {
		spec.sign = byte(rs[i])
		i++
	}
	if i < len(rs) && rs[i] == 'z' {
		i++
	}
	if i < len(rs) && rs[i] == '#' {
		spec.alt = true
		i++
	}
	if i < len(rs) && rs[i] == '0' {
		if spec.align == 0 {
			spec.fill, spec.align = '0', '='
		}
		i++
	}
	for i < len(rs) && rs[i] >= '0' && rs[i] <= '9' {
		spec.width = spec.width*10 + int(rs[i]-'0')
		if spec.width > maxFormatWidth {
			return spec, limitErrorf("format width too large")
		}
		i++
	}
	if i < len(rs) && (rs[i] == ',' || rs[i] == '_') {
		spec.grouping = byte(rs[i])
		i++
	}
	if i < len(rs) && rs[i] == '.' {
		i++
		spec.prec = 0
		start := i
		for i < len(rs) && rs[i] >= '0' && rs[i] <= '9' {
			spec.prec = spec.prec*10 + int(rs[i]-'0')
			if spec.prec > maxFormatPrecision {
				return spec, limitErrorf("format precision too large")
			}
			i++
		}
		if i == start {
			return spec, typeErrorf("Format specifier missing precision")
		}
	}
	if i < len(rs) {
		spec.typ = byte(rs[i])
		i++
	}
	if i != len(rs) {
		return spec, typeErrorf("Invalid format specifier '%s'", s)
	}
	return spec, nil
}

// strftime formats t like Python's time.strftime (C library directives
// plus glibc's %-d style flags).
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		noPad := false
		if format[i] == '-' && i+1 < len(format) {
			noPad = true
			i++
		}
		num := func(n, w int) {
			s := strconv.Itoa(n)
			if !noPad {
				for len(s) < w {
					s = "0" + s
				}
			}
			b.WriteString(s)
		}
		switch format[i] {
		case 'Y':
			num(t.Year(), 1)
		case 'y':
			num(t.Year()%100, 2)
		case 'm':
			num(int(t.Month()), 2)
		case 'd':
			num(t.Day(), 2)
		case 'e':
			s := strconv.Itoa(t.Day())
			if len(s) < 2 && !noPad {
				s = " " + s
			}
			b.WriteString(s)
		case 'H':
			num(t.Hour(), 2)
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			num(h, 2)
		case 'M':
			num(t.Minute(), 2)
		case 'S':
			num(t.Second(), 2)
		case 'f':
			num(t.Nanosecond()/1000, 6)
		case 'j':
			num(t.YearDay(), 3)
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'w':
			num(int(t.Weekday()), 1)
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			num(wd, 1)
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'U':
			num((t.YearDay()+6-int(t.Weekday()))/7, 2)
		case 'W':
			num((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2)
		case 'V':
			_, w := t.ISOWeek()
			num(w, 2)
		case 'G':
			y, _ := t.ISOWeek()
			num(y, 4)
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			name, _ := t.Zone()
			b.WriteString(name)
		case 'c':
			b.WriteString(t.Format("Mon Jan  2 15:04:05 2006"))
		case 'x':
			b.WriteString(t.Format("01/02/06"))
		case 'X', 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'R':
			b.WriteString(t.Format("15:04"))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			if noPad {
				b.WriteByte('-')
			}
			b.WriteByte(format[i])
		}
	}
	return b.String()
}
