package jinja

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"time"
)

// Limits bound one render so that a hostile template cannot hang or
// exhaust the process. Zero fields take the defaults.
type Limits struct {
	// MaxIterations caps loop iterations plus items materialized from
	// sequences (|list, ranges, string splits), over the whole render.
	// Default 1,000,000.
	MaxIterations int64
	// MaxRecursion caps the depth of macro calls, loops and recursive
	// loop calls. Default 200.
	MaxRecursion int
	// MaxOutputBytes caps the rendered output (and every captured block
	// or macro output). Default 64 MiB.
	MaxOutputBytes int
	// MaxStringBytes caps any one string a template builds (by +, ~, *,
	// join, replace, format, tojson...). Default 64 MiB.
	MaxStringBytes int
	// MaxWorkBytes caps the total bytes of strings built during a render.
	// Default 1 GiB.
	MaxWorkBytes int64
}

// DefaultLimits returns the limits used for zero fields.
func DefaultLimits() Limits {
	return Limits{
		MaxIterations:  1_000_000,
		MaxRecursion:   200,
		MaxOutputBytes: 64 << 20,
		MaxStringBytes: 64 << 20,
		MaxWorkBytes:   1 << 30,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxIterations <= 0 {
		l.MaxIterations = d.MaxIterations
	}
	if l.MaxRecursion <= 0 {
		l.MaxRecursion = d.MaxRecursion
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = d.MaxOutputBytes
	}
	if l.MaxStringBytes <= 0 {
		l.MaxStringBytes = d.MaxStringBytes
	}
	if l.MaxWorkBytes <= 0 {
		l.MaxWorkBytes = d.MaxWorkBytes
	}
	return l
}

// Options configure a template.
type Options struct {
	// Limits bound each render; zero fields take DefaultLimits().
	Limits Limits
	// Now is the clock strftime_now reads; nil means time.Now.
	Now func() time.Time
}

// Template is a parsed template. It is immutable and safe for concurrent
// use.
type Template struct {
	body []node
	opts Options
}

// Parse compiles a template source. Zero limits in opts take the defaults.
func Parse(src string, opts Options) (*Template, error) {
	body, err := parse(src)
	if err != nil {
		return nil, err
	}
	opts.Limits = opts.Limits.withDefaults()
	return &Template{body: body, opts: opts}, nil
}

// Render renders the template with vars, which is a map[string]any (Go
// values are converted with FromGo; map keys are sorted), a
// json.RawMessage holding a JSON object (keys keep their order) or a *Dict.
// A key that is absent is undefined in the template; a key holding nil is
// defined and none.
func (t *Template) Render(ctx context.Context, vars any) (string, error) {
	var d *Dict
	switch v := vars.(type) {
	case *Dict:
		d = v
	case nil:
		d = NewDict()
	default:
		x, err := FromGo(vars)
		if err != nil {
			return "", err
		}
		var ok bool
		if d, ok = x.(*Dict); !ok {
			return "", fmt.Errorf("jinja: render variables must be a map, not %T", vars)
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	now := t.opts.Now
	if now == nil {
		now = time.Now
	}
	s := &state{ctx: ctx, lim: t.opts.Limits, now: now}
	s.globals = makeGlobals(s)
	root := &scope{vars: d}
	top := newScope(root)
	w := s.newOutput()
	if _, err := s.execBody(t.body, top, w); err != nil {
		return "", err
	}
	return w.String(), nil
}

// makeGlobals returns the global functions of a render.
func makeGlobals(s *state) map[string]Value {
	return map[string]Value{
		"range":           &builtin{"range", gRange},
		"dict":            &builtin{"dict", gDict},
		"namespace":       &builtin{"namespace", gNamespace},
		"raise_exception": &builtin{"raise_exception", gRaise},
		"strftime_now":    &builtin{"strftime_now", gStrftimeNow},
	}
}

func gRange(s *state, args []Value, kw kwargs) (Value, error) {
	if kw.len() > 0 {
		return nil, typeErrorf("range() takes no keyword arguments")
	}
	var n [3]int64
	for i, a := range args {
		if i >= 3 {
			return nil, typeErrorf("range expected at most 3 arguments, got %d", len(args))
		}
		x, ok := asInt(a)
		if !ok {
			if u, isU := a.(undefined); isU {
				return nil, u.err()
			}
			return nil, typeErrorf("'%s' object cannot be interpreted as an integer", typeName(a))
		}
		n[i] = x
	}
	switch len(args) {
	case 0:
		return nil, typeErrorf("range expected at least 1 argument, got 0")
	case 1:
		return &rangeValue{0, n[0], 1}, nil
	case 2:
		return &rangeValue{n[0], n[1], 1}, nil
	}
	if n[2] == 0 {
		return nil, typeErrorf("range() arg 3 must not be zero")
	}
	return &rangeValue{n[0], n[1], n[2]}, nil
}

func gDict(s *state, args []Value, kw kwargs) (Value, error) {
	d := NewDict()
	if len(args) > 1 {
		return nil, typeErrorf("dict expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 1 {
		switch src := args[0].(type) {
		case *Dict:
			d = src.clone()
		default:
			items, err := s.toSlice(src)
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				pair, err := s.toSlice(it)
				if err != nil || len(pair) != 2 {
					return nil, typeErrorf("dictionary update sequence element has wrong length")
				}
				if err := d.set(pair[0], pair[1]); err != nil {
					return nil, err
				}
			}
		}
	}
	for i, n := range kw.names {
		d.Set(n, kw.vals[i])
	}
	return d, nil
}

func gNamespace(s *state, args []Value, kw kwargs) (Value, error) {
	v, err := gDict(s, args, kw)
	if err != nil {
		return nil, err
	}
	return &namespace{attrs: v.(*Dict)}, nil
}

func gRaise(s *state, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("raise_exception", args, kw, []string{"message"})
	if err != nil {
		return nil, err
	}
	msg, err := s.str(a[0])
	if err != nil {
		return nil, err
	}
	return nil, &Error{Kind: KindRaised, Msg: msg}
}

func gStrftimeNow(s *state, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("strftime_now", args, kw, []string{"format"})
	if err != nil {
		return nil, err
	}
	f, ok := isString(a[0])
	if !ok {
		return nil, typeErrorf("strftime() argument 1 must be str, not %s", typeName(a[0]))
	}
	if len(f) > 4096 {
		return nil, limitErrorf("strftime format too long")
	}
	return strftime(s.now(), f), nil
}

// FromGo converts a Go value into a template value: nil, bool, integers,
// floats, strings, json.Number, json.RawMessage (decoded by DecodeJSON),
// slices and arrays (lists), maps with string keys (dicts, keys sorted
// since Go maps have no order), and values that already are template
// values (*Dict, *List). Structs are not converted; pass a *Dict or a map
// instead.
func FromGo(x any) (Value, error) { return fromGo(x, 0) }

func fromGo(x any, depth int) (Value, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("jinja: value nested too deeply")
	}
	switch v := x.(type) {
	case nil:
		return nil, nil
	case bool, int64, float64, string, markup, undefined, *Dict, *List, *namespace:
		return v, nil
	case int:
		return int64(v), nil
	case int8:
		return int64(v), nil
	case int16:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case uint8:
		return int64(v), nil
	case uint16:
		return int64(v), nil
	case uint32:
		return int64(v), nil
	case uint:
		if uint64(v) > math.MaxInt64 {
			return float64(v), nil
		}
		return int64(v), nil
	case uint64:
		if v > math.MaxInt64 {
			return float64(v), nil
		}
		return int64(v), nil
	case float32:
		return float64(v), nil
	case json.Number:
		return numberValue(v), nil
	case json.RawMessage:
		return DecodeJSON(v)
	case []any:
		items := make([]Value, len(v))
		for i, it := range v {
			c, err := fromGo(it, depth+1)
			if err != nil {
				return nil, err
			}
			items[i] = c
		}
		return &List{Items: items}, nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := NewDict()
		for _, k := range keys {
			c, err := fromGo(v[k], depth+1)
			if err != nil {
				return nil, err
			}
			d.Set(k, c)
		}
		return d, nil
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return nil, nil
		}
		return fromGo(rv.Elem().Interface(), depth+1)
	case reflect.Slice, reflect.Array:
		items := make([]Value, rv.Len())
		for i := range items {
			c, err := fromGo(rv.Index(i).Interface(), depth+1)
			if err != nil {
				return nil, err
			}
			items[i] = c
		}
		return &List{Items: items}, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, fmt.Errorf("jinja: cannot convert %T: map keys must be strings", x)
		}
		keys := rv.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		d := NewDict()
		for _, k := range keys {
			c, err := fromGo(rv.MapIndex(k).Interface(), depth+1)
			if err != nil {
				return nil, err
			}
			d.Set(k.String(), c)
		}
		return d, nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	}
	return nil, fmt.Errorf("jinja: cannot convert %T to a template value", x)
}
