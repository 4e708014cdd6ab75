package jinja

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Values inside the interpreter are plain Go values of these types, mirroring
// the Python objects a Jinja2 template sees:
//
//	nil        None
//	bool       True / False
//	int64      int
//	float64    float
//	string     str
//	markup     markupsafe.Markup (from |safe)
//	*List      list, or tuple when Tuple is set
//	*Dict      dict (insertion ordered)
//	undefined  jinja2.Undefined
//
// plus kinds that only templates make: *namespace, *macro, *builtin,
// *method, *rangeValue, *generator, *dictView and *loopState.

// markup is a string marked safe (Jinja's |safe). With autoescape off it
// prints like a string, but concatenating a plain string to it with +
// HTML-escapes the plain string, as markupsafe does.
type markup string

// undefined is Jinja's Undefined: the value of a missing variable, key or
// attribute. It prints as the empty string, is falsy and iterates as empty;
// arithmetic, attribute access, calls and tojson on it fail.
type undefined struct {
	msg      string // message of the error raised when it is used
	security bool   // an unsafe attribute: using it raises a security error
}

// List is a Python list, or a tuple when Tuple is set. Templates cannot
// mutate lists (the sandbox forbids it), so a List is never changed once
// built.
type List struct {
	Items []Value
	Tuple bool
}

// Value is a template value (see the package's value model above).
type Value = any

// Dict is an insertion-ordered dictionary, Python's dict. Keys are strings
// for data decoded from JSON; templates may also build dicts with int,
// float, bool, None or tuple keys.
type Dict struct {
	keys  []Value
	vals  []Value
	index map[any]int // built once the dict grows past a few keys
}

// NewDict returns an empty dict.
func NewDict() *Dict { return &Dict{} }

// Len returns the number of keys.
func (d *Dict) Len() int { return len(d.keys) }

// Keys returns the keys in insertion order (shared, do not modify).
func (d *Dict) Keys() []Value { return d.keys }

// Values returns the values in insertion order (shared, do not modify).
func (d *Dict) Values() []Value { return d.vals }

// Set sets key to v, keeping the key's first position. v should be a
// template value (see FromGo).
func (d *Dict) Set(key string, v any) {
	_ = d.set(key, v) // a string key is always hashable
}

// Get returns the value under a string key.
func (d *Dict) Get(key string) (Value, bool) {
	i := d.find(key)
	if i < 0 {
		return nil, false
	}
	return d.vals[i], true
}

func (d *Dict) set(key, v Value) error {
	hk, err := hashKey(key)
	if err != nil {
		return err
	}
	if i := d.findHashed(hk); i >= 0 {
		d.vals[i] = v
		return nil
	}
	d.keys = append(d.keys, key)
	d.vals = append(d.vals, v)
	if d.index != nil {
		d.index[hk] = len(d.keys) - 1
	} else if len(d.keys) > 8 {
		d.index = make(map[any]int, len(d.keys)*2)
		for i, k := range d.keys {
			h, _ := hashKey(k)
			if _, dup := d.index[h]; !dup {
				d.index[h] = i
			}
		}
	}
	return nil
}

// find returns the index of key, or -1 (also for unhashable keys).
func (d *Dict) find(key Value) int {
	hk, err := hashKey(key)
	if err != nil {
		return -1
	}
	return d.findHashed(hk)
}

func (d *Dict) findHashed(hk any) int {
	if d.index != nil {
		if i, ok := d.index[hk]; ok {
			return i
		}
		return -1
	}
	for i, k := range d.keys {
		h, _ := hashKey(k)
		if h == hk {
			return i
		}
	}
	return -1
}

// lookup returns the value under key.
func (d *Dict) lookup(key Value) (Value, bool) {
	i := d.find(key)
	if i < 0 {
		return nil, false
	}
	return d.vals[i], true
}

func (d *Dict) clone() *Dict {
	n := &Dict{keys: append([]Value(nil), d.keys...), vals: append([]Value(nil), d.vals...)}
	if d.index != nil {
		n.index = make(map[any]int, len(d.index))
		for k, v := range d.index {
			n.index[k] = v
		}
	}
	return n
}

// noneKey and tupleKey are hash keys for None and tuples.
type noneKey struct{}
type tupleKey string

// hashKey maps a hashable value to a comparable Go value such that values
// Python considers equal (1, 1.0, True) share a key.
func hashKey(v Value) (any, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case markup:
		return string(x), nil
	case int64:
		return x, nil
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x), nil
		}
		return x, nil
	case nil:
		return noneKey{}, nil
	case undefined:
		return noneKey{}, nil // Undefined hashes like an object; close enough
	case *List:
		if !x.Tuple {
			return nil, typeErrorf("unhashable type: 'list'")
		}
		var b strings.Builder
		for _, it := range x.Items {
			h, err := hashKey(it)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "%T:%v\x00", h, h)
		}
		return tupleKey(b.String()), nil
	case *Dict:
		return nil, typeErrorf("unhashable type: 'dict'")
	default:
		return fmt.Sprintf("%p", v), nil
	}
}

// namespace is the object namespace() returns: attributes that
// {% set ns.attr = ... %} may change, even from inside loops.
type namespace struct {
	attrs *Dict
}

// newList builds a list.
func newList(items []Value) *List { return &List{Items: items} }

// newTuple builds a tuple.
func newTuple(items ...Value) *List { return &List{Items: items, Tuple: true} }

// typeName returns Python's type name for v.
func typeName(v Value) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case markup:
		return "Markup"
	case *List:
		if x.Tuple {
			return "tuple"
		}
		return "list"
	case *Dict:
		return "dict"
	case undefined:
		return "Undefined"
	case *namespace:
		return "Namespace"
	case *macro:
		return "Macro"
	case *builtin, *method:
		return "builtin_function_or_method"
	case *rangeValue:
		return "range"
	case *generator:
		return "generator"
	case *dictView:
		return "dict_" + x.kind
	case *loopState:
		return "LoopContext"
	}
	return fmt.Sprintf("%T", v)
}

// objectTypeRepr is Jinja's object_type_repr, used in undefined messages.
func objectTypeRepr(v Value) string {
	if v == nil {
		return "None"
	}
	switch v.(type) {
	case markup:
		return "markupsafe.Markup object"
	case *namespace:
		return "jinja2.utils.Namespace object"
	case *loopState:
		return "jinja2.runtime.LoopContext object"
	case *macro:
		return "jinja2.runtime.Macro object"
	}
	return typeName(v) + " object"
}

// truthy is Python's bool(v).
func truthy(v Value) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int64:
		return x != 0
	case float64:
		return x != 0
	case string:
		return x != ""
	case markup:
		return x != ""
	case *List:
		return len(x.Items) > 0
	case *Dict:
		return x.Len() > 0
	case undefined:
		return false
	case *rangeValue:
		return x.length() > 0
	case *dictView:
		return x.d.Len() > 0
	}
	return true
}

// isString reports whether v is a str (or Markup) and returns it.
func isString(v Value) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case markup:
		return string(x), true
	}
	return "", false
}

// asInt converts ints and bools (Python ints) to int64.
func asInt(v Value) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// asNumber converts ints, bools and floats to float64; isFloat tells
// whether the value was a float.
func asNumber(v Value) (f float64, isFloat, ok bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), false, true
	case bool:
		if x {
			return 1, false, true
		}
		return 0, false, true
	case float64:
		return x, true, true
	}
	return 0, false, false
}

// ---- printing ----

// toStr is Python's str(v) as Jinja prints it.
func toStr(v Value) string {
	switch x := v.(type) {
	case string:
		return x
	case markup:
		return string(x)
	case undefined:
		return ""
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return pyFloatRepr(x)
	}
	var b strings.Builder
	writeRepr(&b, v, 0, math.MaxInt)
	return b.String()
}

// repr is Python's repr(v), unbounded: for values known to be small.
func repr(v Value) string {
	var b strings.Builder
	writeRepr(&b, v, 0, math.MaxInt)
	return b.String()
}

// shortRepr is repr cut to a length fit for an error message.
func shortRepr(v Value) string {
	const max = 200
	var b strings.Builder
	writeRepr(&b, v, 0, max)
	if b.Len() > max {
		return b.String()[:max] + "..."
	}
	return b.String()
}

// isContainer reports values whose printed form can be far larger than
// the value itself (a list holding one big string many times).
func isContainer(v Value) bool {
	switch v.(type) {
	case *List, *Dict, *namespace, *dictView:
		return true
	}
	return false
}

// str is str(v) bounded by the string limit and charged to the work
// budget.
func (s *state) str(v Value) (string, error) {
	if !isContainer(v) {
		return toStr(v), nil
	}
	return s.reprBounded(v)
}

// repr is repr(v) bounded by the string limit.
func (s *state) repr(v Value) (string, error) {
	if !isContainer(v) {
		return repr(v), nil
	}
	return s.reprBounded(v)
}

func (s *state) reprBounded(v Value) (string, error) {
	var b strings.Builder
	writeRepr(&b, v, 0, s.lim.MaxStringBytes)
	if err := s.checkStr(b.Len()); err != nil {
		return "", err
	}
	return b.String(), nil
}

// maxReprDepth bounds nesting when printing (namespaces can be cyclic).
const maxReprDepth = 500

// writeRepr writes repr(v), stopping early once b holds more than max
// bytes.
func writeRepr(b *strings.Builder, v Value, depth int, max int) {
	if depth > maxReprDepth {
		b.WriteString("...")
		return
	}
	if b.Len() > max {
		return
	}
	switch x := v.(type) {
	case string:
		writePyStr(b, x)
	case markup:
		b.WriteString("Markup(")
		writePyStr(b, string(x))
		b.WriteString(")")
	case undefined:
		b.WriteString("Undefined")
	case nil, bool, int64, float64:
		b.WriteString(toStr(x))
	case *List:
		open, close := "[", "]"
		if x.Tuple {
			open, close = "(", ")"
		}
		b.WriteString(open)
		for i, it := range x.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, it, depth+1, max)
		}
		if x.Tuple && len(x.Items) == 1 {
			b.WriteString(",")
		}
		b.WriteString(close)
	case *Dict:
		b.WriteString("{")
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, k, depth+1, max)
			b.WriteString(": ")
			writeRepr(b, x.vals[i], depth+1, max)
		}
		b.WriteString("}")
	case *namespace:
		b.WriteString("<Namespace ")
		writeRepr(b, x.attrs, depth+1, max)
		b.WriteString(">")
	case *rangeValue:
		if x.step == 1 {
			fmt.Fprintf(b, "range(%d, %d)", x.start, x.stop)
		} else {
			fmt.Fprintf(b, "range(%d, %d, %d)", x.start, x.stop, x.step)
		}
	case *dictView:
		b.WriteString("dict_" + x.kind + "(")
		writeRepr(b, x.list(), depth+1, max)
		b.WriteString(")")
	case *macro:
		if x.anon {
			b.WriteString("<Macro anonymous>")
		} else {
			fmt.Fprintf(b, "<Macro '%s'>", x.name)
		}
	case *builtin:
		fmt.Fprintf(b, "<built-in function %s>", x.name)
	case *method:
		fmt.Fprintf(b, "<built-in method %s of %s object>", x.name, typeName(x.recv))
	case *generator:
		b.WriteString("<generator object>")
	case *loopState:
		fmt.Fprintf(b, "<LoopContext %d/%d>", x.index0+1, x.length())
	default:
		fmt.Fprintf(b, "<%T>", v)
	}
}

// writePyStr writes Python's repr of a str: single quotes unless the text
// holds a single quote and no double quote, with non-printable characters
// escaped.
func writePyStr(b *strings.Builder, s string) {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	b.WriteByte(quote)
	for len(s) > 0 {
		// Copy the run of plain printable ASCII in one go.
		n := 0
		for n < len(s) && s[n] >= 0x20 && s[n] < 0x7f && s[n] != quote && s[n] != '\\' {
			n++
		}
		b.WriteString(s[:n])
		s = s[n:]
		if s == "" {
			break
		}
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case !pyIsPrintable(r):
			switch {
			case r <= 0xff:
				fmt.Fprintf(b, `\x%02x`, r)
			case r <= 0xffff:
				fmt.Fprintf(b, `\u%04x`, r)
			default:
				fmt.Fprintf(b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
}

// pyFloatRepr is Python's repr(float): the shortest round-trip digits, in
// positional form for exponents -4..15 and scientific form otherwise.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	neg := false
	if s[0] == '-' {
		neg = true
		s = s[1:]
	}
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp >= -5 && exp < 16 {
		// Python switches to exponent form when exp < -4.
		if exp < -4 {
			out = sciForm(digits, exp)
		} else if exp < 0 {
			out = "0." + strings.Repeat("0", -exp-1) + digits
		} else if len(digits) <= exp+1 {
			out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		} else {
			out = digits[:exp+1] + "." + digits[exp+1:]
		}
	} else {
		out = sciForm(digits, exp)
	}
	if neg {
		return "-" + out
	}
	return out
}

func sciForm(digits string, exp int) string {
	m := digits[:1]
	if len(digits) > 1 {
		m += "." + digits[1:]
	}
	sign := "+"
	if exp < 0 {
		sign = "-"
		exp = -exp
	}
	return fmt.Sprintf("%se%s%02d", m, sign, exp)
}

// ---- equality and ordering ----

// equal is Python's ==.
func equal(a, b Value) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case undefined:
		_, ok := b.(undefined)
		return ok
	case string, markup:
		s1, _ := isString(x)
		s2, ok := isString(b)
		return ok && s1 == s2
	case bool, int64, float64:
		f1, fl1, _ := asNumber(x)
		f2, fl2, ok := asNumber(b)
		if !ok {
			return false
		}
		if !fl1 && !fl2 {
			i1, _ := asInt(x)
			i2, _ := asInt(b)
			return i1 == i2
		}
		return f1 == f2
	case *List:
		y, ok := b.(*List)
		if !ok || x.Tuple != y.Tuple || len(x.Items) != len(y.Items) {
			return false
		}
		for i := range x.Items {
			if !equal(x.Items[i], y.Items[i]) {
				return false
			}
		}
		return true
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i, k := range x.keys {
			v, ok := y.lookup(k)
			if !ok || !equal(x.vals[i], v) {
				return false
			}
		}
		return true
	case *rangeValue:
		y, ok := b.(*rangeValue)
		if !ok {
			return false
		}
		if x.length() != y.length() {
			return false
		}
		return x.length() == 0 || (x.start == y.start && (x.length() == 1 || x.step == y.step))
	}
	return a == b
}

// compare is Python's ordering for <, <=, >, >=: numbers with numbers,
// strings with strings, lists with lists of the same kind.
func compare(a, b Value, op string) (int, error) {
	if u, ok := a.(undefined); ok {
		return 0, u.err()
	}
	if u, ok := b.(undefined); ok {
		return 0, u.err()
	}
	if f1, fl1, ok1 := asNumber(a); ok1 {
		if f2, fl2, ok2 := asNumber(b); ok2 {
			if !fl1 && !fl2 {
				i1, _ := asInt(a)
				i2, _ := asInt(b)
				return cmp3(i1 < i2, i1 > i2), nil
			}
			if math.IsNaN(f1) || math.IsNaN(f2) {
				return 2, nil // unordered: every comparison false
			}
			return cmp3(f1 < f2, f1 > f2), nil
		}
	}
	if s1, ok := isString(a); ok {
		if s2, ok := isString(b); ok {
			return strings.Compare(s1, s2), nil
		}
	}
	if l1, ok := a.(*List); ok {
		if l2, ok := b.(*List); ok && l1.Tuple == l2.Tuple {
			for i := 0; i < len(l1.Items) && i < len(l2.Items); i++ {
				if equal(l1.Items[i], l2.Items[i]) {
					continue
				}
				return compare(l1.Items[i], l2.Items[i], op)
			}
			return cmp3(len(l1.Items) < len(l2.Items), len(l1.Items) > len(l2.Items)), nil
		}
	}
	return 0, typeErrorf("'%s' not supported between instances of '%s' and '%s'", op, typeName(a), typeName(b))
}

func cmp3(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

// sortValues sorts vs stably by Python ordering, with key applied first.
func sortValues(vs []Value, key func(Value) (Value, error), reverse bool) error {
	keys := make([]Value, len(vs))
	for i, v := range vs {
		k, err := key(v)
		if err != nil {
			return err
		}
		keys[i] = k
	}
	idx := make([]int, len(vs))
	for i := range idx {
		idx[i] = i
	}
	var firstErr error
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := keys[idx[i]], keys[idx[j]]
		if reverse {
			a, b = b, a
		}
		c, err := compare(a, b, "<")
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return c == -1
	})
	if firstErr != nil {
		return firstErr
	}
	out := make([]Value, len(vs))
	for i, j := range idx {
		out[i] = vs[j]
	}
	copy(vs, out)
	return nil
}
