package jinja

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type filterFunc func(s *state, v Value, args []Value, kw kwargs) (Value, error)

type testFunc func(s *state, v Value, args []Value, kw kwargs) (bool, error)

// filters and tests are the registries of Jinja's built-in filters and
// tests (plus Hugging Face's tojson). They are filled once by init and
// never changed.
var (
	filters map[string]filterFunc
	tests   map[string]testFunc
)

func init() {
	filters = map[string]filterFunc{
		"abs":            fAbs,
		"attr":           fAttr,
		"batch":          fBatch,
		"capitalize":     strFilter(pyCapitalize),
		"center":         fCenter,
		"count":          fLength,
		"d":              fDefault,
		"default":        fDefault,
		"dictsort":       fDictsort,
		"e":              fEscape,
		"escape":         fEscape,
		"filesizeformat": fFilesizeformat,
		"first":          fFirst,
		"float":          fFloat,
		"forceescape":    fForceEscape,
		"format":         fFormat,
		"groupby":        fGroupby,
		"indent":         fIndent,
		"int":            fInt,
		"items":          fItems,
		"join":           fJoin,
		"last":           fLast,
		"length":         fLength,
		"list":           fList,
		"lower":          strFilter(pyLower),
		"map":            fMap,
		"max":            fMinMax(1),
		"min":            fMinMax(-1),
		"pprint":         fPprint,
		"random":         fRandom,
		"reject":         fSelect(false, false),
		"rejectattr":     fSelect(false, true),
		"replace":        fReplace,
		"reverse":        fReverse,
		"round":          fRound,
		"safe":           fSafe,
		"select":         fSelect(true, false),
		"selectattr":     fSelect(true, true),
		"slice":          fSlice,
		"sort":           fSort,
		"string":         fString,
		"striptags":      fStriptags,
		"sum":            fSum,
		"title":          strFilter(jinjaTitle),
		"tojson":         fToJSON,
		"trim":           fTrim,
		"truncate":       fTruncate,
		"unique":         fUnique,
		"upper":          strFilter(pyUpper),
		"urlencode":      fURLEncode,
		"wordcount":      fWordcount,
		"xmlattr":        fXMLAttr,
	}
	initTests()
}

// bindArgs binds positional and keyword arguments to a signature.
// Parameters after the first len(params)-len(defaults) take the defaults.
func bindArgs(fname string, args []Value, kw kwargs, params []string, defaults ...Value) ([]Value, error) {
	if len(args) > len(params) {
		return nil, typeErrorf("%s() takes at most %d arguments (%d given)", fname, len(params), len(args))
	}
	out := make([]Value, len(params))
	set := make([]bool, len(params))
	for i, a := range args {
		out[i], set[i] = a, true
	}
	for j, name := range kw.names {
		found := false
		for i, p := range params {
			if p == name {
				if set[i] {
					return nil, typeErrorf("%s() got multiple values for argument '%s'", fname, name)
				}
				out[i], set[i] = kw.vals[j], true
				found = true
				break
			}
		}
		if !found {
			return nil, typeErrorf("%s() got an unexpected keyword argument '%s'", fname, name)
		}
	}
	first := len(params) - len(defaults)
	for i := range params {
		if !set[i] {
			if i < first {
				return nil, typeErrorf("%s() missing required argument '%s'", fname, params[i])
			}
			out[i] = defaults[i-first]
		}
	}
	return out, nil
}

// lazyGen returns a generator that runs init on its first use, as Jinja's
// generator filters do nothing (not even fail) until iterated.
func lazyGen(init func() (*generator, error)) *generator {
	var g *generator
	var err error
	started := false
	return &generator{next: func() (Value, bool, error) {
		if !started {
			started = true
			g, err = init()
		}
		if err != nil {
			return nil, false, err
		}
		return g.next()
	}}
}

// softStr is Jinja's soft_str: str(v), keeping Markup.
func (s *state) softStr(v Value) (Value, error) {
	if m, ok := v.(markup); ok {
		return m, nil
	}
	return s.str(v)
}

// strFilter lifts a string function into a filter over soft_str(value).
func strFilter(f func(string) string) filterFunc {
	return func(s *state, v Value, args []Value, kw kwargs) (Value, error) {
		if len(args) > 0 || kw.len() > 0 {
			return nil, typeErrorf("filter takes no arguments")
		}
		str, err := s.str(v)
		if err != nil {
			return nil, err
		}
		res := f(str)
		if err := s.checkStr(len(res)); err != nil {
			return nil, err
		}
		if _, ok := v.(markup); ok {
			return markup(res), nil
		}
		return res, nil
	}
}

func fAbs(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			if x == math.MinInt64 {
				return -float64(x), nil
			}
			return -x, nil
		}
		return x, nil
	case bool:
		i, _ := asInt(x)
		return i, nil
	case float64:
		return math.Abs(x), nil
	}
	return nil, typeErrorf("bad operand type for abs(): '%s'", typeName(v))
}

func fAttr(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("attr", args, kw, []string{"name"})
	if err != nil {
		return nil, err
	}
	name, ok := a[0].(string)
	if !ok {
		return nil, typeErrorf("attribute name must be string")
	}
	if _, isU := v.(undefined); isU {
		return nil, v.(undefined).err()
	}
	switch v.(type) {
	case *Dict:
		// getattr only: dict keys are not attributes.
		if safe, found := hasMethod(v, name); found {
			return methodValue(v, name, safe), nil
		}
		return undefinedAttr(v, name), nil
	}
	return s.getattr(v, name)
}

func fBatch(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("batch", args, kw, []string{"linecount", "fill_with"}, nil)
	if err != nil {
		return nil, err
	}
	n, ok := asInt(a[0])
	if !ok || n <= 0 {
		return nil, typeErrorf("batch size must be a positive integer")
	}
	return lazyGen(func() (*generator, error) {
		items, err := s.toSlice(v)
		if err != nil {
			return nil, err
		}
		var out []Value
		for i := 0; i < len(items); {
			take := int(min(int64(len(items)-i), n))
			chunk := append([]Value(nil), items[i:i+take]...)
			i += take
			if missing := n - int64(take); missing > 0 && a[1] != nil {
				// The fill is charged like items: batch(10**10, x) is refused.
				if err := s.countIter(missing); err != nil {
					return nil, err
				}
				for int64(len(chunk)) < n {
					chunk = append(chunk, a[1])
				}
			}
			out = append(out, newList(chunk))
		}
		return sliceGen(out), nil
	}), nil
}

func fCenter(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("center", args, kw, []string{"width"}, int64(80))
	if err != nil {
		return nil, err
	}
	w, ok := asInt(a[0])
	if !ok {
		return nil, typeErrorf("integer argument expected")
	}
	if w > 0 { // the padded string is checked and charged to the work budget
		if err := s.checkStr(int(min(w, int64(s.lim.MaxStringBytes)+1))); err != nil {
			return nil, err
		}
	}
	str, err := s.str(v)
	if err != nil {
		return nil, err
	}
	return pyCenter(str, int(w), " "), nil
}

func fLength(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	n, err := pyLen(v)
	if err != nil {
		return nil, err
	}
	return int64(n), nil
}

// pyLen is Python's len().
func pyLen(v Value) (int, error) {
	switch x := v.(type) {
	case string:
		return utf8.RuneCountInString(x), nil
	case markup:
		return utf8.RuneCountInString(string(x)), nil
	case *List:
		return len(x.Items), nil
	case *Dict:
		return x.Len(), nil
	case *dictView:
		return x.d.Len(), nil
	case *rangeValue:
		return x.length(), nil
	case undefined:
		return 0, nil
	case *loopState:
		return x.n, nil
	}
	return 0, typeErrorf("object of type '%s' has no len()", typeName(v))
}

func fDefault(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("default", args, kw, []string{"default_value", "boolean"}, "", false)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(undefined); ok || (truthy(a[1]) && !truthy(v)) {
		return a[0], nil
	}
	return v, nil
}

// ignoreCase lowercases strings for case-insensitive sorting.
func ignoreCase(v Value) Value {
	if str, ok := isString(v); ok {
		return pyLower(str)
	}
	return v
}

func fDictsort(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("dictsort", args, kw, []string{"case_sensitive", "by", "reverse"}, false, "key", false)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*Dict)
	if !ok {
		if u, isU := v.(undefined); isU {
			return nil, u.err()
		}
		return nil, typeErrorf("'%s' object has no attribute 'items'", typeName(v))
	}
	pos := 0
	switch a[1] {
	case "key":
	case "value":
		pos = 1
	default:
		return nil, typeErrorf("You can only sort by either \"key\" or \"value\"")
	}
	items := (&dictView{d, "items"}).list().Items
	cs := truthy(a[0])
	err = sortValues(items, func(it Value) (Value, error) {
		k := it.(*List).Items[pos]
		if !cs {
			k = ignoreCase(k)
		}
		return k, nil
	}, truthy(a[2]))
	if err != nil {
		return nil, err
	}
	return newList(items), nil
}

// htmlEscape is markupsafe's escape of a plain string.
func htmlEscape(str string) string {
	if !strings.ContainsAny(str, "&<>'\"") {
		return str
	}
	var b strings.Builder
	for i := 0; i < len(str); i++ {
		switch c := str[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\'':
			b.WriteString("&#39;")
		case '"':
			b.WriteString("&#34;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// fEscape is markupsafe.escape.
func fEscape(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	if m, ok := v.(markup); ok {
		return m, nil
	}
	return fForceEscape(s, v, args, kw)
}

func fForceEscape(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	str, err := s.str(v)
	if err != nil {
		return nil, err
	}
	res := htmlEscape(str)
	if err := s.checkStr(len(res)); err != nil {
		return nil, err
	}
	return markup(res), nil
}

func fFirst(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	if g, ok := v.(*generator); ok {
		item, ok, err := g.next()
		if err != nil || !ok {
			return undefinedHint("No first item, sequence was empty."), err
		}
		return item, nil
	}
	if str, ok := isString(v); ok {
		if str == "" {
			return undefinedHint("No first item, sequence was empty."), nil
		}
		r, _ := utf8.DecodeRuneInString(str)
		return string(r), nil
	}
	items, err := s.toSlice(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return undefinedHint("No first item, sequence was empty."), nil
	}
	return items[0], nil
}

func fLast(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	switch v.(type) {
	case *generator, nil:
		return nil, typeErrorf("'%s' object is not reversible", typeName(v))
	}
	if str, ok := isString(v); ok {
		if str == "" {
			return undefinedHint("No last item, sequence was empty."), nil
		}
		r, _ := utf8.DecodeLastRuneInString(str)
		return string(r), nil
	}
	items, err := s.toSlice(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return undefinedHint("No last item, sequence was empty."), nil
	}
	return items[len(items)-1], nil
}

func fFloat(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("float", args, kw, []string{"default"}, 0.0)
	if err != nil {
		return nil, err
	}
	if f, ok := pyFloat(v); ok {
		return f, nil
	}
	if u, ok := v.(undefined); ok {
		return nil, u.err()
	}
	return a[0], nil
}

// pyFloat is Python's float(v) for numbers and numeric strings.
func pyFloat(v Value) (float64, bool) {
	if f, _, ok := asNumber(v); ok {
		return f, true
	}
	if str, ok := isString(v); ok {
		t := strings.TrimFunc(str, pyIsSpace)
		t = strings.ReplaceAll(t, "_", "")
		switch strings.ToLower(strings.TrimLeft(t, "+-")) {
		case "inf", "infinity", "nan":
			f, err := strconv.ParseFloat(t, 64)
			return f, err == nil
		}
		if t == "" || strings.ContainsAny(t, "xXpP") {
			return 0, false
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil && !isRangeErr(err) {
			return 0, false
		}
		return f, true
	}
	return 0, false
}

func fFormat(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	str, err := s.str(v)
	if err != nil {
		return nil, err
	}
	if len(args) > 0 && kw.len() > 0 {
		return nil, typeErrorf("can't handle positional and keyword arguments at the same time")
	}
	var arg Value
	if kw.len() > 0 {
		d := NewDict()
		for i, n := range kw.names {
			d.Set(n, kw.vals[i])
		}
		arg = d
	} else if len(args) == 1 {
		arg = args[0]
	} else {
		arg = newTuple(args...)
	}
	return s.percentFormat(str, arg)
}

func fGroupby(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("groupby", args, kw, []string{"attribute", "default", "case_sensitive"}, nil, false)
	if err != nil {
		return nil, err
	}
	items, err := s.toSlice(v)
	if err != nil {
		return nil, err
	}
	get := s.attrGetter(a[0], a[1])
	cs := truthy(a[2])
	keyOf := func(it Value) (Value, error) {
		k, err := get(it)
		if err != nil || cs {
			return k, err
		}
		return ignoreCase(k), nil
	}
	sorted := append([]Value(nil), items...)
	if err := sortValues(sorted, keyOf, false); err != nil {
		return nil, err
	}
	var out []Value
	var curKey Value
	var group []Value
	flush := func() {
		if group != nil {
			grouper := curKey
			if !cs {
				// Jinja reports the first item's own value as the grouper.
				grouper, _ = get(group[0])
			}
			out = append(out, newTuple(grouper, newList(group)))
		}
	}
	for _, it := range sorted {
		k, err := keyOf(it)
		if err != nil {
			return nil, err
		}
		if group == nil || !equal(k, curKey) {
			flush()
			curKey, group = k, nil
		}
		group = append(group, it)
	}
	flush()
	return newList(out), nil
}

func fIndent(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("indent", args, kw, []string{"width", "first", "blank"}, int64(4), false, false)
	if err != nil {
		return nil, err
	}
	var ind string
	if str, ok := isString(a[0]); ok {
		ind = str
	} else if n, ok := asInt(a[0]); ok {
		if n > 10000 {
			return nil, limitErrorf("indent width %d too large", n)
		}
		if n > 0 {
			ind = strings.Repeat(" ", int(n))
		}
	} else {
		return nil, typeErrorf("can't multiply sequence by non-int of type '%s'", typeName(a[0]))
	}
	if u, ok := v.(undefined); ok {
		return nil, u.err()
	}
	str, ok := isString(v)
	if !ok {
		return nil, typeErrorf("unsupported operand type(s) for +=: '%s' and 'str'", typeName(v))
	}
	lines := pySplitlines(str+"\n", false)
	if err := s.checkStr(len(str) + 1 + (len(lines)+1)*len(ind)); err != nil {
		return nil, err
	}
	var b strings.Builder
	if truthy(a[2]) {
		for i, l := range lines {
			if i > 0 {
				b.WriteString("\n" + ind)
			}
			b.WriteString(l)
		}
	} else {
		for i, l := range lines {
			if i > 0 {
				b.WriteString("\n")
				if l != "" {
					b.WriteString(ind)
				}
			}
			b.WriteString(l)
		}
	}
	res := b.String()
	if truthy(a[1]) {
		res = ind + res
	}
	if err := s.checkStr(len(res)); err != nil {
		return nil, err
	}
	if _, ok := v.(markup); ok {
		return markup(res), nil
	}
	return res, nil
}

func fInt(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("int", args, kw, []string{"default", "base"}, int64(0), int64(10))
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case int64:
		return x, nil
	case bool:
		i, _ := asInt(x)
		return i, nil
	case float64:
		return floatToInt(x)
	case undefined:
		return nil, x.err()
	}
	if str, ok := isString(v); ok {
		base, _ := asInt(a[1])
		t := strings.TrimFunc(str, pyIsSpace)
		if n, err := parsePyInt(t, int(base)); err == nil {
			return n, nil
		}
		if f, ok := pyFloat(str); ok {
			return floatToInt(f)
		}
	}
	return a[0], nil
}

// floatToInt is Python's int(float): truncation, failing for infinities,
// NaN and values beyond 64 bits.
func floatToInt(f float64) (Value, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, typeErrorf("cannot convert float %s to integer", pyFloatRepr(f))
	}
	t := math.Trunc(f)
	if t >= 1<<63 || t < -(1<<63) {
		return nil, errIntOverflow()
	}
	return int64(t), nil
}

// parsePyInt parses like Python's int(s, base).
func parsePyInt(t string, base int) (int64, error) {
	neg := false
	if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		neg = t[0] == '-'
		t = t[1:]
	}
	lt := strings.ToLower(t)
	if base == 0 || base == 16 || base == 8 || base == 2 {
		switch {
		case strings.HasPrefix(lt, "0x") && (base == 0 || base == 16):
			t, base = t[2:], 16
		case strings.HasPrefix(lt, "0o") && (base == 0 || base == 8):
			t, base = t[2:], 8
		case strings.HasPrefix(lt, "0b") && (base == 0 || base == 2):
			t, base = t[2:], 2
		case base == 0:
			base = 10
		}
	}
	if t == "" || strings.HasPrefix(t, "_") || strings.HasSuffix(t, "_") || strings.Contains(t, "__") {
		return 0, strconv.ErrSyntax
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), base, 64)
	if err != nil {
		return 0, err
	}
	if neg {
		n = -n
	}
	return n, nil
}

func fItems(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	return lazyGen(func() (*generator, error) {
		switch d := v.(type) {
		case undefined:
			return sliceGen(nil), nil
		case *Dict:
			return sliceGen((&dictView{d, "items"}).list().Items), nil
		}
		return nil, typeErrorf("Can only get item pairs from a mapping.")
	}), nil
}

func fJoin(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("join", args, kw, []string{"d", "attribute"}, "", nil)
	if err != nil {
		return nil, err
	}
	items, err := s.toSlice(v)
	if err != nil {
		return nil, err
	}
	if a[1] != nil {
		get := s.attrGetter(a[1], nil)
		mapped := make([]Value, len(items))
		for i, it := range items {
			if mapped[i], err = get(it); err != nil {
				return nil, err
			}
		}
		items = mapped
	}
	sep, err := s.str(a[0])
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString(sep)
		}
		str, err := s.str(it)
		if err != nil {
			return nil, err
		}
		b.WriteString(str)
		if err := s.checkLen(b.Len()); err != nil {
			return nil, err
		}
	}
	if err := s.checkStr(b.Len()); err != nil {
		return nil, err
	}
	return b.String(), nil
}

func fList(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	items, err := s.toSlice(v)
	if err != nil {
		return nil, err
	}
	return newList(append([]Value(nil), items...)), nil
}

// attrGetter is Jinja's make_attrgetter: a dotted path of attributes or
// item indexes, with a default for undefined results.
func (s *state) attrGetter(attr Value, def Value) func(Value) (Value, error) {
	var parts []Value
	if str, ok := attr.(string); ok {
		for _, p := range strings.Split(str, ".") {
			if n, err := strconv.ParseInt(p, 10, 64); err == nil && isDigits(p) {
				parts = append(parts, n)
			} else {
				parts = append(parts, p)
			}
		}
	} else if attr != nil {
		parts = []Value{attr}
	}
	return func(item Value) (Value, error) {
		for _, p := range parts {
			var err error
			if item, err = s.getitem(item, p); err != nil {
				return nil, err
			}
			if _, isU := item.(undefined); isU && def != nil {
				item = def
			}
		}
		return item, nil
	}
}

func isDigits(p string) bool {
	if p == "" {
		return false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func fMap(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	var fn func(Value) (Value, error)
	if len(args) == 0 {
		attr, ok := kw.get("attribute")
		if !ok {
			return nil, typeErrorf("map requires a filter argument")
		}
		def, _ := kw.get("default")
		for _, n := range kw.names {
			if n != "attribute" && n != "default" {
				return nil, typeErrorf("Unexpected keyword argument '%s'", n)
			}
		}
		fn = s.attrGetter(attr, def)
	} else {
		name, ok := args[0].(string)
		if !ok {
			return nil, typeErrorf("filter name must be a string")
		}
		f := filters[name]
		if f == nil {
			return nil, newErr(KindRuntime, "No filter named '%s'.", name)
		}
		rest := args[1:]
		fn = func(item Value) (Value, error) { return f(s, item, rest, kw) }
	}
	return lazyGen(func() (*generator, error) {
		if !truthy(v) {
			return sliceGen(nil), nil
		}
		items, err := s.toSlice(v)
		if err != nil {
			return nil, err
		}
		i := 0
		return &generator{next: func() (Value, bool, error) {
			if i >= len(items) {
				return nil, false, nil
			}
			i++
			r, err := fn(items[i-1])
			return r, err == nil, err
		}}, nil
	}), nil
}

func fMinMax(sign int) filterFunc {
	return func(s *state, v Value, args []Value, kw kwargs) (Value, error) {
		a, err := bindArgs("min", args, kw, []string{"case_sensitive", "attribute"}, false, nil)
		if err != nil {
			return nil, err
		}
		items, err := s.toSlice(v)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return undefinedHint("No aggregated item, sequence was empty."), nil
		}
		get := s.attrGetter(a[1], nil)
		key := func(it Value) (Value, error) {
			k, err := get(it)
			if err != nil || truthy(a[0]) {
				return k, err
			}
			return ignoreCase(k), nil
		}
		best := items[0]
		bk, err := key(best)
		if err != nil {
			return nil, err
		}
		for _, it := range items[1:] {
			k, err := key(it)
			if err != nil {
				return nil, err
			}
			c, err := compare(k, bk, "<")
			if err != nil {
				return nil, err
			}
			if c == sign {
				best, bk = it, k
			}
		}
		return best, nil
	}
}

// fPprint is pprint.pformat without line wrapping: repr with dict keys
// sorted.
func fPprint(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	return s.repr(sortedDicts(v, 0))
}

func sortedDicts(v Value, depth int) Value {
	if depth > maxReprDepth {
		return v
	}
	switch x := v.(type) {
	case *List:
		items := make([]Value, len(x.Items))
		for i, it := range x.Items {
			items[i] = sortedDicts(it, depth+1)
		}
		return &List{Items: items, Tuple: x.Tuple}
	case *Dict:
		keys := append([]Value(nil), x.keys...)
		if sortValues(keys, func(k Value) (Value, error) { return k, nil }, false) != nil {
			keys = x.keys
		}
		d := NewDict()
		for _, k := range keys {
			val, _ := x.lookup(k)
			_ = d.set(k, sortedDicts(val, depth+1))
		}
		return d
	}
	return v
}

// fSelect builds select, reject, selectattr and rejectattr.
func fSelect(keep, byAttr bool) filterFunc {
	return func(s *state, v Value, args []Value, kw kwargs) (Value, error) {
		return lazyGen(func() (*generator, error) { return s.selectItems(v, args, kw, keep, byAttr) }), nil
	}
}

func (s *state) selectItems(v Value, args []Value, kw kwargs, keep, byAttr bool) (*generator, error) {
	{
		if !truthy(v) {
			return sliceGen(nil), nil
		}
		get := func(x Value) (Value, error) { return x, nil }
		off := 0
		if byAttr {
			if len(args) == 0 {
				return nil, typeErrorf("Missing parameter for attribute name")
			}
			get = s.attrGetter(args[0], nil)
			off = 1
		}
		var test func(Value) (bool, error)
		if len(args) > off {
			name, ok := args[off].(string)
			if !ok {
				return nil, typeErrorf("test name must be a string")
			}
			t := tests[name]
			if t == nil {
				return nil, newErr(KindRuntime, "No test named '%s'.", name)
			}
			rest := args[off+1:]
			test = func(x Value) (bool, error) { return t(s, x, rest, kw) }
		} else {
			test = func(x Value) (bool, error) { return truthy(x), nil }
		}
		items, err := s.toSlice(v)
		if err != nil {
			return nil, err
		}
		i := 0
		return &generator{next: func() (Value, bool, error) {
			for i < len(items) {
				it := items[i]
				i++
				x, err := get(it)
				if err != nil {
					return nil, false, err
				}
				ok, err := test(x)
				if err != nil {
					return nil, false, err
				}
				if ok == keep {
					return it, true, nil
				}
			}
			return nil, false, nil
		}}, nil
	}
}

func fReplace(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("replace", args, kw, []string{"old", "new", "count"}, nil)
	if err != nil {
		return nil, err
	}
	n := int64(-1)
	if a[2] != nil {
		var ok bool
		if n, ok = asInt(a[2]); !ok {
			return nil, typeErrorf("'%s' object cannot be interpreted as an integer", typeName(a[2]))
		}
	}
	var strs [3]string
	for i, x := range []Value{v, a[0], a[1]} {
		if strs[i], err = s.str(x); err != nil {
			return nil, err
		}
	}
	return s.pyReplace(strs[0], strs[1], strs[2], n)
}

func fReverse(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	if str, ok := isString(v); ok {
		rs := []rune(str)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs), nil
	}
	items, err := s.toSlice(v)
	if err != nil {
		return nil, typeErrorf("argument must be iterable")
	}
	out := make([]Value, len(items))
	for i, it := range items {
		out[len(items)-1-i] = it
	}
	if _, ok := v.(*generator); ok {
		return newList(out), nil
	}
	return sliceGen(out), nil
}

func fRound(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("round", args, kw, []string{"precision", "method"}, int64(0), "common")
	if err != nil {
		return nil, err
	}
	prec, ok := asInt(a[0])
	if !ok {
		return nil, typeErrorf("precision must be an integer")
	}
	f, isFloat, ok := asNumber(v)
	if !ok {
		return nil, typeErrorf("type %s doesn't define __round__ method", typeName(v))
	}
	switch a[1] {
	case "common":
		if !isFloat {
			i, _ := asInt(v)
			return roundInt(i, prec)
		}
		return pyRound(f, prec), nil
	case "ceil", "floor":
		// Jinja computes value * 10**precision / 10**precision.
		if prec > 308 {
			return nil, typeErrorf("int too large to convert to float")
		}
		p := math.Pow(10, float64(max(prec, -400)))
		if p == 0 {
			return nil, typeErrorf("float division by zero")
		}
		if a[1] == "ceil" {
			return math.Ceil(f*p) / p, nil
		}
		return math.Floor(f*p) / p, nil
	}
	return nil, typeErrorf("method must be common, ceil or floor")
}

// roundInt is Python's round(i, n) for ints: exact, half to even.
func roundInt(i, n int64) (Value, error) {
	if n >= 0 {
		return i, nil
	}
	if n < -18 { // 10**19 is beyond every int64
		return int64(0), nil
	}
	p := int64(1)
	for ; n < 0; n++ {
		p *= 10
	}
	q, r := i/p, i%p
	if r < 0 { // floor division, as Python
		q, r = q-1, r+p
	}
	if 2*r > p || (2*r == p && q%2 != 0) {
		q++
	}
	return intOp(tMul, q, p)
}

// pyRound is Python's round(x, n) for floats: round half to even on the
// exact decimal value. Like Python, a precision beyond what a float64 can
// hold returns x (or a zero of x's sign) instead of formatting n digits.
func pyRound(x float64, n int64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	switch {
	case n > 323: // Python's NDIGITS_MAX: (DBL_MANT_DIG - DBL_MIN_EXP) * log10(2)
		return x
	case n < -308: // NDIGITS_MIN
		return math.Copysign(0, x)
	}
	if n < 0 {
		p := math.Pow(10, float64(-n))
		return math.RoundToEven(x/p) * p
	}
	s := strconv.FormatFloat(x, 'f', int(n), 64) // correctly rounded, half-even on exact value
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

func fSafe(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	if m, ok := v.(markup); ok {
		return m, nil
	}
	str, err := s.str(v)
	return markup(str), err
}

func fSlice(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("slice", args, kw, []string{"slices", "fill_with"}, nil)
	if err != nil {
		return nil, err
	}
	n, ok := asInt(a[0])
	if !ok || n <= 0 {
		return nil, typeErrorf("slices must be a positive integer")
	}
	// Each slice is a list, and with fill_with one item more: charged like
	// items, so that slice(10**10) is refused.
	if err := s.countIter(n); err != nil {
		return nil, err
	}
	return lazyGen(func() (*generator, error) { return sliceFilter(s, v, n, a[1]) }), nil
}

func sliceFilter(s *state, v Value, n int64, fill Value) (*generator, error) {
	items, err := s.toSlice(v)
	if err != nil {
		return nil, err
	}
	per := len(items) / int(n)
	extra := len(items) % int(n)
	offset := 0
	var out []Value
	for i := 0; i < int(n); i++ {
		start := offset + i*per
		if i < extra {
			offset++
		}
		end := offset + (i+1)*per
		chunk := append([]Value(nil), items[start:end]...)
		if fill != nil && i >= extra {
			chunk = append(chunk, fill)
		}
		out = append(out, newList(chunk))
	}
	return sliceGen(out), nil
}

func fSort(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("sort", args, kw, []string{"reverse", "case_sensitive", "attribute"}, false, false, nil)
	if err != nil {
		return nil, err
	}
	items, err := s.toSlice(v)
	if err != nil {
		return nil, err
	}
	items = append([]Value(nil), items...)
	var getters []func(Value) (Value, error)
	if str, ok := a[2].(string); ok {
		for _, part := range strings.Split(str, ",") {
			getters = append(getters, s.attrGetter(part, nil))
		}
	} else {
		getters = append(getters, s.attrGetter(a[2], nil))
	}
	cs := truthy(a[1])
	err = sortValues(items, func(it Value) (Value, error) {
		keys := make([]Value, len(getters))
		for i, g := range getters {
			k, err := g(it)
			if err != nil {
				return nil, err
			}
			if !cs {
				k = ignoreCase(k)
			}
			keys[i] = k
		}
		return newList(keys), nil
	}, truthy(a[0]))
	if err != nil {
		return nil, err
	}
	return newList(items), nil
}

func fString(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	return s.softStr(v)
}

func fStriptags(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	str, err := s.str(v)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for {
		c := strings.Index(str, "<!--")
		t := strings.IndexByte(str, '<')
		if t < 0 {
			b.WriteString(str)
			break
		}
		if c == t {
			e := strings.Index(str[c:], "-->")
			if e < 0 {
				b.WriteString(str)
				break
			}
			b.WriteString(str[:c])
			str = str[c+e+3:]
			continue
		}
		e := strings.IndexByte(str[t:], '>')
		if e < 0 {
			b.WriteString(str)
			break
		}
		b.WriteString(str[:t])
		str = str[t+e+1:]
	}
	words := strings.FieldsFunc(b.String(), pyIsSpace)
	return htmlUnescape(strings.Join(words, " ")), nil
}

func htmlUnescape(s string) string {
	r := strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&#39;", "'", "&#34;", "\"", "&quot;", "\"", "&nbsp;", "\u00a0")
	return r.Replace(s)
}

func fSum(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("sum", args, kw, []string{"attribute", "start"}, nil, int64(0))
	if err != nil {
		return nil, err
	}
	items, err := s.toSlice(v)
	if err != nil {
		return nil, err
	}
	get := s.attrGetter(a[0], nil)
	total := a[1]
	for _, it := range items {
		x, err := get(it)
		if err != nil {
			return nil, err
		}
		if total, err = s.binop(tAdd, total, x); err != nil {
			return nil, err
		}
	}
	return total, nil
}

func fToJSON(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("tojson", args, kw, []string{"ensure_ascii", "indent", "separators", "sort_keys"}, false, nil, nil, false)
	if err != nil {
		return nil, err
	}
	opts := jsonOpts{ensureASCII: truthy(a[0]), sortKeys: truthy(a[3]), itemSep: ", ", keySep: ": "}
	if a[1] != nil {
		switch ind := a[1].(type) {
		case string:
			opts.indent, opts.hasIndent = ind, true
		default:
			n, ok := asInt(ind)
			if !ok {
				return nil, typeErrorf("indent must be an int or a string")
			}
			if n > 100 {
				return nil, limitErrorf("indent %d too large", n)
			}
			if n < 0 {
				n = 0
			}
			opts.indent, opts.hasIndent = strings.Repeat(" ", int(n)), true
		}
		opts.itemSep = ","
	}
	if a[2] != nil {
		seps, err := s.toSlice(a[2])
		if err != nil || len(seps) != 2 {
			return nil, typeErrorf("separators must be a pair of strings")
		}
		is, ok1 := isString(seps[0])
		ks, ok2 := isString(seps[1])
		if !ok1 || !ok2 {
			return nil, typeErrorf("separators must be a pair of strings")
		}
		opts.itemSep, opts.keySep = is, ks
	}
	var b strings.Builder
	if err := s.writeJSON(&b, v, &opts, 0); err != nil {
		return nil, err
	}
	if err := s.checkStr(b.Len()); err != nil {
		return nil, err
	}
	return b.String(), nil
}

func fTrim(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("trim", args, kw, []string{"chars"}, nil)
	if err != nil {
		return nil, err
	}
	str, err := s.str(v)
	if err != nil {
		return nil, err
	}
	res, err := pyStrip(str, a[0], true, true)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(markup); ok {
		return markup(res), nil
	}
	return res, nil
}

func fTruncate(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("truncate", args, kw, []string{"length", "killwords", "end", "leeway"}, int64(255), false, "...", int64(5))
	if err != nil {
		return nil, err
	}
	if _, ok := isString(v); !ok {
		n, err := pyLen(v)
		if err != nil {
			return nil, err
		}
		if l, ok := asInt(a[0]); ok {
			if lw, ok := asInt(a[3]); ok && lw >= 0 && int64(n)-lw <= l {
				return v, nil
			}
		}
		return nil, typeErrorf("truncate needs a string")
	}
	str := []rune(toStr(v))
	length, ok1 := asInt(a[0])
	leeway, ok2 := asInt(a[3])
	end, err := s.str(a[2])
	if err != nil {
		return nil, err
	}
	endLen := int64(utf8.RuneCountInString(end))
	if !ok1 || !ok2 || length < endLen || leeway < 0 {
		return nil, typeErrorf("invalid truncate arguments")
	}
	if int64(len(str))-leeway <= length { // not length+leeway: that overflows
		return string(str), nil
	}
	cut := string(str[:length-endLen])
	if truthy(a[1]) {
		return cut + end, nil
	}
	if i := strings.LastIndexByte(cut, ' '); i >= 0 {
		cut = cut[:i]
	}
	return cut + end, nil
}

func fUnique(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("unique", args, kw, []string{"case_sensitive", "attribute"}, false, nil)
	if err != nil {
		return nil, err
	}
	return lazyGen(func() (*generator, error) { return s.uniqueItems(v, truthy(a[0]), a[1]) }), nil
}

func (s *state) uniqueItems(v Value, caseSensitive bool, attr Value) (*generator, error) {
	items, err := s.toSlice(v)
	if err != nil {
		return nil, err
	}
	get := s.attrGetter(attr, nil)
	seen := NewDict()
	var out []Value
	for _, it := range items {
		k, err := get(it)
		if err != nil {
			return nil, err
		}
		if !caseSensitive {
			k = ignoreCase(k)
		}
		if seen.find(k) >= 0 {
			continue
		}
		if err := seen.set(k, true); err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return sliceGen(out), nil
}

func fWordcount(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	str, err := s.str(v)
	if err != nil {
		return nil, err
	}
	n := 0
	in := false
	for _, r := range str {
		w := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
		if w && !in {
			n++
		}
		in = w
	}
	return int64(n), nil
}

// applyFilterChain evaluates a filter expression; base is the value of a
// {% filter %} or {% set %} block body (arg nil).
func (s *state) applyFilterChain(f *filterExpr, base Value, sc *scope) (Value, error) {
	var v Value
	var err error
	switch a := f.arg.(type) {
	case nil:
		v = base
	case *filterExpr:
		v, err = s.applyFilterChain(a, base, sc)
	default:
		v, err = s.eval(a, sc)
	}
	if err != nil {
		return nil, err
	}
	if f.fn == nil {
		return nil, newErr(KindRuntime, "No filter named '%s' found.", f.name)
	}
	args, kw, err := s.evalArgs(&f.callArgs, sc)
	if err != nil {
		return nil, err
	}
	return f.fn(s, v, args, kw)
}

func (s *state) evalTest(t *testExpr, sc *scope) (Value, error) {
	v, err := s.eval(t.arg, sc)
	if err != nil {
		return nil, err
	}
	if t.fn == nil {
		return nil, newErr(KindRuntime, "No test named '%s' found.", t.name)
	}
	args, kw, err := s.evalArgs(&t.callArgs, sc)
	if err != nil {
		return nil, err
	}
	return t.fn(s, v, args, kw)
}

func fFilesizeformat(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("filesizeformat", args, kw, []string{"binary"}, false)
	if err != nil {
		return nil, err
	}
	b, ok := pyFloat(v)
	if !ok {
		return nil, typeErrorf("float() argument must be a string or a real number, not '%s'", typeName(v))
	}
	base := 1000.0
	prefixes := []string{"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"}
	if truthy(a[0]) {
		base = 1024
		prefixes = []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"}
	}
	switch {
	case b == 1:
		return "1 Byte", nil
	case b < base:
		n, err := floatToInt(b)
		if err != nil {
			return nil, err
		}
		return fmt.Sprintf("%d Bytes", n), nil
	}
	var unit float64
	var prefix string
	for i, p := range prefixes {
		unit, prefix = math.Pow(base, float64(i+2)), p
		if b < unit {
			break
		}
	}
	return formatFloat(base*b/unit, fmtSpec{fill: ' ', prec: 1, typ: 'f'}) + " " + prefix, nil
}

// fRandom picks a random item (the one filter whose output cannot be
// reproduced).
func fRandom(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	items, err := s.toSlice(v)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return undefinedHint("No random item, sequence was empty."), nil
	}
	return items[rand.IntN(len(items))], nil
}

// urlQuote is Python's urllib.parse.quote (safe "/" unless forQS, where
// spaces become "+").
func urlQuote(str string, forQS bool) string {
	var b strings.Builder
	for i := 0; i < len(str); i++ {
		c := str[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '-', c == '~':
			b.WriteByte(c)
		case c == '/' && !forQS:
			b.WriteByte(c)
		case c == ' ' && forQS:
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func fURLEncode(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	var items []Value
	switch x := v.(type) {
	case *Dict:
		items = (&dictView{x, "items"}).list().Items
	case *List, *generator, *dictView:
		var err error
		if items, err = s.toSlice(x); err != nil {
			return nil, err
		}
	default:
		str, err := s.str(v)
		if err != nil {
			return nil, err
		}
		return urlQuote(str, false), nil
	}
	parts := make([]string, 0, len(items))
	for _, it := range items {
		kv, err := s.toSlice(it)
		if err != nil || len(kv) != 2 {
			return nil, typeErrorf("urlencode needs (key, value) pairs")
		}
		k, err := s.str(kv[0])
		if err != nil {
			return nil, err
		}
		val, err := s.str(kv[1])
		if err != nil {
			return nil, err
		}
		parts = append(parts, urlQuote(k, true)+"="+urlQuote(val, true))
	}
	return strings.Join(parts, "&"), nil
}

func fXMLAttr(s *state, v Value, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("xmlattr", args, kw, []string{"autospace"}, true)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*Dict)
	if !ok {
		return nil, typeErrorf("'%s' object has no attribute 'items'", typeName(v))
	}
	var parts []string
	for i, k := range d.keys {
		val := d.vals[i]
		if _, isU := val.(undefined); isU || val == nil {
			continue
		}
		key, err := s.str(k)
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(key, " \t\n\f/>=") {
			return nil, typeErrorf("Invalid character in attribute name: %s", shortRepr(key))
		}
		vs, err := fEscape(s, val, nil, kwargs{})
		if err != nil {
			return nil, err
		}
		parts = append(parts, htmlEscape(key)+`="`+string(vs.(markup))+`"`)
	}
	res := strings.Join(parts, " ")
	if truthy(a[0]) && res != "" {
		res = " " + res
	}
	return res, nil
}
