package jinja

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// builtin is a global function (range, namespace, raise_exception, ...).
type builtin struct {
	name string
	fn   func(s *state, args []Value, kw kwargs) (Value, error)
}

// method is a bound method value such as "abc".upper before it is called.
type method struct {
	recv Value
	name string
}

// Method tables: name -> safe. Unsafe (mutating) methods exist but using
// them raises a security error, as in the immutable sandbox.
var (
	strMethods = map[string]bool{
		"capitalize": true, "casefold": true, "center": true, "count": true, "endswith": true,
		"find": true, "format": true, "index": true, "isalnum": true, "isalpha": true,
		"isascii": true, "isdecimal": true, "isdigit": true, "isidentifier": true, "islower": true,
		"isnumeric": true, "isprintable": true, "isspace": true, "istitle": true, "isupper": true,
		"join": true, "ljust": true, "lower": true, "lstrip": true, "partition": true,
		"removeprefix": true, "removesuffix": true, "replace": true, "rfind": true, "rindex": true,
		"rjust": true, "rpartition": true, "rsplit": true, "rstrip": true, "split": true,
		"splitlines": true, "startswith": true, "strip": true, "swapcase": true, "title": true,
		"upper": true, "zfill": true, "expandtabs": true,
	}
	dictMethods = map[string]bool{
		"keys": true, "values": true, "items": true, "get": true, "copy": true,
		"clear": false, "pop": false, "popitem": false, "setdefault": false, "update": false,
	}
	listMethods = map[string]bool{
		"index": true, "count": true, "copy": true,
		"append": false, "clear": false, "pop": false, "reverse": false, "insert": false,
		"sort": false, "extend": false, "remove": false,
	}
	tupleMethods = map[string]bool{"index": true, "count": true}
)

// hasMethod reports whether obj's type has the named method and whether
// calling it is allowed.
func hasMethod(obj Value, name string) (safe, found bool) {
	var tbl map[string]bool
	switch x := obj.(type) {
	case string, markup:
		tbl = strMethods
	case *Dict:
		tbl = dictMethods
	case *List:
		if x.Tuple {
			tbl = tupleMethods
		} else {
			tbl = listMethods
		}
	case *loopState:
		return true, name == "cycle" || name == "changed"
	case *rangeValue:
		tbl = tupleMethods
	default:
		return false, false
	}
	safe, found = tbl[name]
	return safe, found
}

// callMethod calls recv.name(args...).
func (s *state) callMethod(recv Value, name string, args []Value, kw kwargs) (Value, error) {
	if safe, found := hasMethod(recv, name); !found || !safe {
		v, err := s.getattr(recv, name)
		if err != nil {
			return nil, err
		}
		return s.call(v, args, kw)
	}
	switch r := recv.(type) {
	case string:
		return s.strMethod(r, name, args, kw)
	case markup:
		return s.markupMethod(r, name, args, kw)
	case *Dict:
		return s.dictMethod(r, name, args, kw)
	case *List:
		return s.listMethod(r.Items, name, args, kw)
	case *rangeValue:
		items, err := s.toSlice(r)
		if err != nil {
			return nil, err
		}
		return s.listMethod(items, name, args, kw)
	case *loopState:
		return loopMethod(r, name, args, kw)
	}
	return nil, typeErrorf("'%s' object has no method '%s'", typeName(recv), name)
}

func loopMethod(l *loopState, name string, args []Value, kw kwargs) (Value, error) {
	switch name {
	case "cycle":
		if len(args) == 0 {
			return nil, typeErrorf("no items for cycling given")
		}
		return args[l.index0%len(args)], nil
	case "changed":
		if l.hasChg && len(l.changed) == len(args) {
			same := true
			for i := range args {
				if !equal(args[i], l.changed[i]) {
					same = false
					break
				}
			}
			if same {
				return false, nil
			}
		}
		l.changed, l.hasChg = append([]Value(nil), args...), true
		return true, nil
	}
	return nil, typeErrorf("unknown loop method")
}

func (s *state) dictMethod(d *Dict, name string, args []Value, kw kwargs) (Value, error) {
	switch name {
	case "keys", "values", "items":
		if len(args) > 0 || kw.len() > 0 {
			return nil, typeErrorf("dict.%s() takes no arguments", name)
		}
		return &dictView{d, name}, nil
	case "get":
		if kw.len() > 0 || len(args) < 1 || len(args) > 2 {
			return nil, typeErrorf("get expected 1 or 2 arguments, got %d", len(args))
		}
		if _, err := hashKey(args[0]); err != nil {
			return nil, err
		}
		if v, ok := d.lookup(args[0]); ok {
			return v, nil
		}
		if len(args) == 2 {
			return args[1], nil
		}
		return nil, nil
	case "copy":
		return d.clone(), nil
	}
	return nil, typeErrorf("unknown dict method")
}

func (s *state) listMethod(items []Value, name string, args []Value, kw kwargs) (Value, error) {
	switch name {
	case "copy":
		return newList(append([]Value(nil), items...)), nil
	case "count":
		if len(args) != 1 {
			return nil, typeErrorf("count() takes exactly one argument")
		}
		n := int64(0)
		for _, it := range items {
			if equal(it, args[0]) {
				n++
			}
		}
		return n, nil
	case "index":
		if len(args) < 1 || len(args) > 3 {
			return nil, typeErrorf("index expected at least 1 argument")
		}
		start, end := sliceBounds(len(items), args[1:])
		for i := start; i < end; i++ {
			if equal(items[i], args[0]) {
				return int64(i), nil
			}
		}
		return nil, typeErrorf("%s is not in list", shortRepr(args[0]))
	}
	return nil, typeErrorf("unknown list method")
}

// sliceBounds resolves optional start/end arguments against length n.
func sliceBounds(n int, args []Value) (int, int) {
	var b [3]*int64
	for i := 0; i < 2 && i < len(args); i++ {
		if x, ok := asInt(args[i]); ok {
			b[i] = &x
		}
	}
	idx := sliceIndices(n, b)
	if len(idx) == 0 {
		if b[0] != nil {
			st := *b[0]
			if st < 0 {
				st += int64(n)
			}
			if st < 0 {
				st = 0
			}
			if st > int64(n) {
				st = int64(n)
			}
			return int(st), int(st)
		}
		return 0, 0
	}
	return idx[0], idx[len(idx)-1] + 1
}

// markupMethod runs a str method on Markup: string arguments are escaped
// and string results stay Markup, as markupsafe does.
func (s *state) markupMethod(m markup, name string, args []Value, kw kwargs) (Value, error) {
	wrapped := map[string]bool{
		"join": true, "split": true, "rsplit": true, "splitlines": true, "capitalize": true,
		"title": true, "lower": true, "upper": true, "replace": true, "ljust": true, "rjust": true,
		"lstrip": true, "rstrip": true, "center": true, "strip": true, "expandtabs": true,
		"swapcase": true, "zfill": true, "partition": true, "rpartition": true, "format": true,
	}
	if !wrapped[name] {
		return s.strMethod(string(m), name, args, kw)
	}
	esc := func(v Value) Value {
		switch x := v.(type) {
		case string:
			return htmlEscape(x)
		case markup:
			return string(x)
		}
		return v
	}
	eargs := make([]Value, len(args))
	for i, a := range args {
		eargs[i] = esc(a)
	}
	if name == "join" && len(eargs) == 1 {
		items, err := s.toSlice(eargs[0])
		if err != nil {
			return nil, err
		}
		ei := make([]Value, len(items))
		for i, it := range items {
			ei[i] = esc(it)
		}
		eargs[0] = newList(ei)
	}
	var ekw kwargs
	for i, n := range kw.names {
		ekw.add(n, esc(kw.vals[i]))
	}
	res, err := s.strMethod(string(m), name, eargs, ekw)
	if err != nil {
		return nil, err
	}
	switch r := res.(type) {
	case string:
		return markup(r), nil
	case *List:
		out := make([]Value, len(r.Items))
		for i, it := range r.Items {
			if str, ok := it.(string); ok {
				out[i] = markup(str)
			} else {
				out[i] = it
			}
		}
		return &List{Items: out, Tuple: r.Tuple}, nil
	}
	return res, nil
}

func strArg(fname string, v Value) (string, error) {
	if str, ok := isString(v); ok {
		return str, nil
	}
	return "", typeErrorf("%s() argument must be str, not %s", fname, typeName(v))
}

func optStrArg(fname string, v Value) (*string, error) {
	if v == nil {
		return nil, nil
	}
	str, err := strArg(fname, v)
	if err != nil {
		return nil, err
	}
	return &str, nil
}

// runeOffsets converts a Python character range to byte offsets of s.
func runeRange(s string, args []Value) (string, int) {
	if len(args) == 0 {
		return s, 0
	}
	rs := []rune(s)
	start, end := sliceBounds(len(rs), args)
	return string(rs[start:end]), start
}

func (s *state) strMethod(str string, name string, args []Value, kw kwargs) (Value, error) {
	noArgs := func() error {
		if len(args) > 0 || kw.len() > 0 {
			return typeErrorf("str.%s() takes no arguments", name)
		}
		return nil
	}
	switch name {
	case "upper", "lower", "title", "capitalize", "swapcase", "casefold":
		if err := noArgs(); err != nil {
			return nil, err
		}
		f := map[string]func(string) string{
			"upper": pyUpper, "lower": pyLower, "title": pyTitle, "capitalize": pyCapitalize,
			"swapcase": pySwapcase, "casefold": pyLower,
		}[name]
		res := f(str)
		if err := s.checkStr(len(res)); err != nil {
			return nil, err
		}
		return res, nil
	case "strip", "lstrip", "rstrip":
		a, err := bindArgs(name, args, kw, []string{"chars"}, nil)
		if err != nil {
			return nil, err
		}
		return pyStrip(str, a[0], name != "rstrip", name != "lstrip")
	case "split", "rsplit":
		a, err := bindArgs(name, args, kw, []string{"sep", "maxsplit"}, nil, int64(-1))
		if err != nil {
			return nil, err
		}
		sep, err := optStrArg(name, a[0])
		if err != nil {
			return nil, err
		}
		maxsplit, ok := asInt(a[1])
		if !ok {
			return nil, typeErrorf("'%s' object cannot be interpreted as an integer", typeName(a[1]))
		}
		parts, err := pySplit(str, sep, int(maxsplit), name == "rsplit")
		if err != nil {
			return nil, err
		}
		if err := s.countIter(int64(len(parts))); err != nil {
			return nil, err
		}
		items := make([]Value, len(parts))
		for i, p := range parts {
			items[i] = p
		}
		return newList(items), nil
	case "splitlines":
		a, err := bindArgs(name, args, kw, []string{"keepends"}, false)
		if err != nil {
			return nil, err
		}
		parts := pySplitlines(str, truthy(a[0]))
		items := make([]Value, len(parts))
		for i, p := range parts {
			items[i] = p
		}
		return newList(items), nil
	case "startswith", "endswith":
		if kw.len() > 0 || len(args) < 1 || len(args) > 3 {
			return nil, typeErrorf("%s() takes from 1 to 3 arguments", name)
		}
		sub, _ := runeRange(str, args[1:])
		var cands []string
		switch p := args[0].(type) {
		case *List:
			if !p.Tuple {
				return nil, typeErrorf("%s first arg must be str or a tuple of str, not list", name)
			}
			for _, it := range p.Items {
				c, err := strArg(name, it)
				if err != nil {
					return nil, typeErrorf("tuple for %s must only contain str, not %s", name, typeName(it))
				}
				cands = append(cands, c)
			}
		default:
			c, ok := isString(p)
			if !ok {
				return nil, typeErrorf("%s first arg must be str or a tuple of str, not %s", name, typeName(p))
			}
			cands = []string{c}
		}
		for _, c := range cands {
			if (name == "startswith" && strings.HasPrefix(sub, c)) || (name == "endswith" && strings.HasSuffix(sub, c)) {
				return true, nil
			}
		}
		return false, nil
	case "find", "rfind", "index", "rindex", "count":
		if kw.len() > 0 || len(args) < 1 || len(args) > 3 {
			return nil, typeErrorf("%s() takes from 1 to 3 arguments", name)
		}
		sub, err := strArg(name, args[0])
		if err != nil {
			return nil, err
		}
		hay, off := runeRange(str, args[1:])
		if name == "count" {
			if sub == "" {
				return int64(utf8.RuneCountInString(hay) + 1), nil
			}
			return int64(strings.Count(hay, sub)), nil
		}
		var i int
		if name == "find" || name == "index" {
			i = strings.Index(hay, sub)
		} else {
			i = strings.LastIndex(hay, sub)
		}
		if i < 0 {
			if name == "index" || name == "rindex" {
				return nil, typeErrorf("substring not found")
			}
			return int64(-1), nil
		}
		return int64(off + utf8.RuneCountInString(hay[:i])), nil
	case "replace":
		if kw.len() > 0 || len(args) < 2 || len(args) > 3 {
			return nil, typeErrorf("replace() takes 2 or 3 arguments")
		}
		old, err := strArg("replace", args[0])
		if err != nil {
			return nil, err
		}
		nw, err := strArg("replace", args[1])
		if err != nil {
			return nil, err
		}
		n := int64(-1)
		if len(args) == 3 {
			var ok bool
			if n, ok = asInt(args[2]); !ok {
				return nil, typeErrorf("'%s' object cannot be interpreted as an integer", typeName(args[2]))
			}
		}
		return s.pyReplace(str, old, nw, n)
	case "join":
		if kw.len() > 0 || len(args) != 1 {
			return nil, typeErrorf("str.join() takes exactly one argument")
		}
		items, err := s.toSlice(args[0])
		if err != nil {
			return nil, typeErrorf("can only join an iterable")
		}
		var b strings.Builder
		for i, it := range items {
			is, ok := isString(it)
			if !ok {
				return nil, typeErrorf("sequence item %d: expected str instance, %s found", i, typeName(it))
			}
			if i > 0 {
				b.WriteString(str)
			}
			b.WriteString(is)
			if err := s.checkLen(b.Len()); err != nil {
				return nil, err
			}
		}
		if err := s.checkStr(b.Len()); err != nil {
			return nil, err
		}
		return b.String(), nil
	case "format":
		return s.pyFormat(str, args, kw)
	case "center", "ljust", "rjust":
		if kw.len() > 0 || len(args) < 1 || len(args) > 2 {
			return nil, typeErrorf("%s() takes 1 or 2 arguments", name)
		}
		w, ok := asInt(args[0])
		if !ok {
			return nil, typeErrorf("integer argument expected")
		}
		if w > 0 { // the padded string is checked and charged to the work budget
			if err := s.checkStr(int(min(w, int64(s.lim.MaxStringBytes)+1))); err != nil {
				return nil, err
			}
		}
		fill := " "
		if len(args) == 2 {
			f, ok := isString(args[1])
			if !ok || utf8.RuneCountInString(f) != 1 {
				return nil, typeErrorf("The fill character must be exactly one character long")
			}
			fill = f
		}
		switch name {
		case "center":
			return pyCenter(str, int(w), fill), nil
		case "ljust":
			return padStr(str, int(w), fill, '<'), nil
		}
		return padStr(str, int(w), fill, '>'), nil
	case "zfill":
		if kw.len() > 0 || len(args) != 1 {
			return nil, typeErrorf("zfill() takes exactly one argument")
		}
		w, ok := asInt(args[0])
		if !ok {
			return nil, typeErrorf("integer argument expected")
		}
		if w > 0 { // the padded string is checked and charged to the work budget
			if err := s.checkStr(int(min(w, int64(s.lim.MaxStringBytes)+1))); err != nil {
				return nil, err
			}
		}
		n := utf8.RuneCountInString(str)
		if int(w) <= n {
			return str, nil
		}
		pad := strings.Repeat("0", int(w)-n)
		if strings.HasPrefix(str, "-") || strings.HasPrefix(str, "+") {
			return str[:1] + pad + str[1:], nil
		}
		return pad + str, nil
	case "partition", "rpartition":
		if kw.len() > 0 || len(args) != 1 {
			return nil, typeErrorf("%s() takes exactly one argument", name)
		}
		sep, err := strArg(name, args[0])
		if err != nil {
			return nil, err
		}
		if sep == "" {
			return nil, typeErrorf("empty separator")
		}
		var i int
		if name == "partition" {
			i = strings.Index(str, sep)
		} else {
			i = strings.LastIndex(str, sep)
		}
		if i < 0 {
			if name == "partition" {
				return newTuple(str, "", ""), nil
			}
			return newTuple("", "", str), nil
		}
		return newTuple(str[:i], sep, str[i+len(sep):]), nil
	case "removeprefix", "removesuffix":
		if kw.len() > 0 || len(args) != 1 {
			return nil, typeErrorf("%s() takes exactly one argument", name)
		}
		a, err := strArg(name, args[0])
		if err != nil {
			return nil, err
		}
		if name == "removeprefix" {
			return strings.TrimPrefix(str, a), nil
		}
		return strings.TrimSuffix(str, a), nil
	case "expandtabs":
		a, err := bindArgs(name, args, kw, []string{"tabsize"}, int64(8))
		if err != nil {
			return nil, err
		}
		ts, _ := asInt(a[0])
		if ts > 1000 {
			return nil, limitErrorf("tab size too large")
		}
		if ts > 0 {
			if err := s.checkStr(len(str) + strings.Count(str, "\t")*int(ts)); err != nil {
				return nil, err
			}
		}
		var b strings.Builder
		col := 0
		for _, r := range str {
			switch r {
			case '\t':
				if ts > 0 {
					n := int(ts) - col%int(ts)
					b.WriteString(strings.Repeat(" ", n))
					col += n
				}
			case '\n', '\r':
				b.WriteRune(r)
				col = 0
			default:
				b.WriteRune(r)
				col++
			}
		}
		return b.String(), nil
	case "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
		"isnumeric", "isprintable", "isspace", "istitle", "isupper":
		if err := noArgs(); err != nil {
			return nil, err
		}
		return strPredicate(str, name), nil
	}
	return nil, typeErrorf("'str' object has no attribute '%s'", name)
}

func strPredicate(str, name string) bool {
	all := func(f func(rune) bool) bool {
		if str == "" {
			return false
		}
		for _, r := range str {
			if !f(r) {
				return false
			}
		}
		return true
	}
	switch name {
	case "isalnum":
		return all(func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) })
	case "isalpha":
		return all(unicode.IsLetter)
	case "isascii":
		return isASCII(str)
	case "isdecimal":
		return all(func(r rune) bool { return unicode.Is(unicode.Nd, r) })
	case "isdigit":
		return all(func(r rune) bool { return unicode.Is(unicode.Nd, r) || unicode.Is(unicode.No, r) })
	case "isnumeric":
		return all(unicode.IsNumber)
	case "isspace":
		return all(pyIsSpace)
	case "isprintable":
		for _, r := range str {
			if !pyIsPrintable(r) {
				return false
			}
		}
		return true
	case "isidentifier":
		for i, r := range str {
			if r == '_' || unicode.IsLetter(r) || (i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r))) {
				continue
			}
			return false
		}
		return str != ""
	case "islower", "isupper":
		cased := false
		for _, r := range str {
			if unicode.IsTitle(r) {
				return false
			}
			if unicode.IsUpper(r) {
				if name == "islower" {
					return false
				}
				cased = true
			} else if unicode.IsLower(r) {
				if name == "isupper" {
					return false
				}
				cased = true
			}
		}
		return cased
	case "istitle":
		cased, prevCased := false, false
		for _, r := range str {
			switch {
			case unicode.IsUpper(r) || unicode.IsTitle(r):
				if prevCased {
					return false
				}
				prevCased, cased = true, true
			case unicode.IsLower(r):
				if !prevCased {
					return false
				}
				prevCased, cased = true, true
			default:
				prevCased = false
			}
		}
		return cased
	}
	return false
}

// ---- Python string helpers ----

// pyStrip is str.strip / lstrip / rstrip with optional chars.
func pyStrip(str string, chars Value, left, right bool) (string, error) {
	f := pyIsSpace
	if chars != nil {
		cs, ok := isString(chars)
		if !ok {
			return "", typeErrorf("strip arg must be None or str")
		}
		f = func(r rune) bool { return strings.ContainsRune(cs, r) }
	}
	if left {
		str = strings.TrimLeftFunc(str, f)
	}
	if right {
		str = strings.TrimRightFunc(str, f)
	}
	return str, nil
}

// pySplit is str.split / str.rsplit.
func pySplit(str string, sep *string, maxsplit int, fromRight bool) ([]string, error) {
	if sep == nil {
		fields := strings.FieldsFunc(str, pyIsSpace)
		if maxsplit < 0 || maxsplit >= len(fields) {
			if fields == nil {
				return []string{}, nil
			}
			return fields, nil
		}
		// Keep the remainder intact after maxsplit splits.
		if !fromRight {
			out := make([]string, 0, maxsplit+1)
			rest := strings.TrimLeftFunc(str, pyIsSpace)
			for i := 0; i < maxsplit && rest != ""; i++ {
				j := strings.IndexFunc(rest, pyIsSpace)
				if j < 0 {
					break
				}
				out = append(out, rest[:j])
				rest = strings.TrimLeftFunc(rest[j:], pyIsSpace)
			}
			if rest != "" {
				out = append(out, rest)
			}
			return out, nil
		}
		var out []string
		rest := strings.TrimRightFunc(str, pyIsSpace)
		for i := 0; i < maxsplit && rest != ""; i++ {
			j := strings.LastIndexFunc(rest, pyIsSpace)
			if j < 0 {
				break
			}
			_, n := utf8.DecodeRuneInString(rest[j:])
			out = append([]string{rest[j+n:]}, out...)
			rest = strings.TrimRightFunc(rest[:j], pyIsSpace)
		}
		if rest != "" {
			out = append([]string{rest}, out...)
		}
		return out, nil
	}
	if *sep == "" {
		return nil, typeErrorf("empty separator")
	}
	if maxsplit < 0 {
		return strings.Split(str, *sep), nil
	}
	if !fromRight {
		return strings.SplitN(str, *sep, maxsplit+1), nil
	}
	var out []string
	rest := str
	for i := 0; i < maxsplit; i++ {
		j := strings.LastIndex(rest, *sep)
		if j < 0 {
			break
		}
		out = append([]string{rest[j+len(*sep):]}, out...)
		rest = rest[:j]
	}
	return append([]string{rest}, out...), nil
}

// isLineBreak reports the characters str.splitlines splits on.
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// pySplitlines is str.splitlines.
func pySplitlines(str string, keepends bool) []string {
	var out []string
	start := 0
	for i := 0; i < len(str); {
		r, n := utf8.DecodeRuneInString(str[i:])
		if !isLineBreak(r) {
			i += n
			continue
		}
		end := i + n
		if r == '\r' && end < len(str) && str[end] == '\n' {
			end++
		}
		if keepends {
			out = append(out, str[start:end])
		} else {
			out = append(out, str[start:i])
		}
		start, i = end, end
	}
	if start < len(str) {
		out = append(out, str[start:])
	}
	return out
}

// pyReplace is str.replace with Python's count semantics.
func (s *state) pyReplace(str, old, nw string, n int64) (Value, error) {
	if n < 0 {
		n = -1
	}
	cnt := int64(strings.Count(str, old))
	if old == "" {
		cnt = int64(utf8.RuneCountInString(str) + 1)
	}
	if n >= 0 && n < cnt {
		cnt = n
	}
	if err := s.checkStr(len(str) + int(cnt)*(len(nw)-len(old))); err != nil {
		return nil, err
	}
	if n > int64(len(str)+1) {
		n = int64(len(str) + 1)
	}
	return strings.Replace(str, old, nw, int(n)), nil
}

func pyCenter(str string, w int, fill string) string {
	n := utf8.RuneCountInString(str)
	if w <= n {
		return str
	}
	marg := w - n
	left := marg/2 + (marg & w & 1)
	return strings.Repeat(fill, left) + str + strings.Repeat(fill, marg-left)
}

func padStr(str string, w int, fill string, align byte) string {
	n := utf8.RuneCountInString(str)
	if w <= n {
		return str
	}
	if align == '<' {
		return str + strings.Repeat(fill, w-n)
	}
	return strings.Repeat(fill, w-n) + str
}

// upperSpecial holds the full (multi-character) uppercase mappings Go's
// simple case mapping lacks.
var upperSpecial = map[rune]string{
	'ß': "SS", 'ŉ': "ʼN", 'ǰ': "J̌", 'ΐ': "Ϊ́", 'ΰ': "Ϋ́", 'և': "ԵՒ",
	'ﬀ': "FF", 'ﬁ': "FI", 'ﬂ': "FL", 'ﬃ': "FFI", 'ﬄ': "FFL", 'ﬅ': "ST", 'ﬆ': "ST",
}

func pyUpper(str string) string {
	if isASCII(str) {
		return strings.ToUpper(str)
	}
	var b strings.Builder
	for _, r := range str {
		if sp, ok := upperSpecial[r]; ok {
			b.WriteString(sp)
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

func pyLower(str string) string {
	if isASCII(str) {
		return strings.ToLower(str)
	}
	rs := []rune(str)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == 'İ':
			b.WriteString("i̇")
		case r == 'Σ' && finalSigma(rs, i):
			b.WriteRune('ς')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma reports whether the capital sigma at i ends a word.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && unicode.Is(unicode.Mn, rs[j]) {
		j--
	}
	if j < 0 || !isCased(rs[j]) {
		return false
	}
	k := i + 1
	for k < len(rs) && unicode.Is(unicode.Mn, rs[k]) {
		k++
	}
	return k >= len(rs) || !isCased(rs[k])
}

func isCased(r rune) bool { return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) }

// pyTitle is str.title: a cased character after an uncased one starts a
// word and is title-cased; the rest are lowercased.
func pyTitle(str string) string {
	var b strings.Builder
	prevCased := false
	for _, r := range str {
		if prevCased {
			b.WriteString(pyLower(string(r)))
		} else if sp, ok := upperSpecial[r]; ok {
			rs := []rune(sp)
			b.WriteRune(rs[0])
			b.WriteString(pyLower(string(rs[1:])))
		} else {
			b.WriteRune(unicode.ToTitle(r))
		}
		prevCased = isCased(r)
	}
	return b.String()
}

// pyCapitalize is str.capitalize: first character title-cased, the rest
// lowercased.
func pyCapitalize(str string) string {
	if str == "" {
		return str
	}
	r, n := utf8.DecodeRuneInString(str)
	first := string(unicode.ToTitle(r))
	if sp, ok := upperSpecial[r]; ok {
		rs := []rune(sp)
		first = string(rs[0]) + pyLower(string(rs[1:]))
	}
	return first + pyLower(str[n:])
}

func pySwapcase(str string) string {
	var b strings.Builder
	for _, r := range str {
		switch {
		case unicode.IsUpper(r):
			b.WriteString(pyLower(string(r)))
		case unicode.IsLower(r):
			b.WriteString(pyUpper(string(r)))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// jinjaTitle is Jinja's |title filter: words begin after -, whitespace or
// an opening bracket.
func jinjaTitle(str string) string {
	var b strings.Builder
	isSep := func(r rune) bool {
		return r == '-' || r == '(' || r == '{' || r == '[' || r == '<' || pyIsSpace(r)
	}
	rs := []rune(str)
	for i := 0; i < len(rs); {
		j := i
		sep := isSep(rs[i])
		for j < len(rs) && isSep(rs[j]) == sep {
			j++
		}
		item := string(rs[i:j])
		r, n := utf8.DecodeRuneInString(item)
		b.WriteString(pyUpper(string(r)))
		b.WriteString(pyLower(item[n:]))
		i = j
	}
	return b.String()
}
