package jinja

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxJSONDepth bounds the nesting of decoded JSON.
const maxJSONDepth = 1000

// DecodeJSON decodes one JSON value into template values, keeping the key
// order of objects (*Dict). Integers stay int64 (numbers beyond int64
// become float64), other numbers become float64.
func DecodeJSON(data []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("jinja: json: trailing data after the value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (Value, error) {
	if depth > maxJSONDepth {
		return nil, errors.New("jinja: json: nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("jinja: json: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			d := NewDict()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("jinja: json: %w", err)
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("jinja: json: object key is not a string")
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				d.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("jinja: json: %w", err)
			}
			return d, nil
		case '[':
			l := &List{Items: []Value{}}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				l.Items = append(l.Items, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("jinja: json: %w", err)
			}
			return l, nil
		}
		return nil, fmt.Errorf("jinja: json: unexpected %v", t)
	case json.Number:
		return numberValue(t), nil
	case string, bool, nil:
		return t, nil
	}
	return nil, fmt.Errorf("jinja: json: unexpected token %v", tok)
}

func numberValue(n json.Number) Value {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// jsonOpts are the json.dumps arguments HF's tojson passes through.
type jsonOpts struct {
	ensureASCII bool
	sortKeys    bool
	hasIndent   bool
	indent      string
	itemSep     string
	keySep      string
}

// writeJSON is Python's json.dumps.
func (s *state) writeJSON(b *strings.Builder, v Value, o *jsonOpts, depth int) error {
	if depth > maxReprDepth {
		return typeErrorf("ValueError: Circular reference detected")
	}
	if err := s.checkLen(b.Len()); err != nil { // the caller charges the result
		return err
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(jsonFloat(x))
	case string, markup:
		str, _ := isString(x)
		// The escaped text is at least as long as the string.
		if err := s.checkLen(b.Len() + len(str)); err != nil {
			return err
		}
		writeJSONString(b, str, o.ensureASCII)
	case *List:
		if len(x.Items) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, it := range x.Items {
			if i > 0 {
				b.WriteString(o.itemSep)
			}
			s.jsonNewline(b, o, depth+1)
			if err := s.writeJSON(b, it, o, depth+1); err != nil {
				return err
			}
		}
		s.jsonNewline(b, o, depth)
		b.WriteByte(']')
	case *Dict:
		if x.Len() == 0 {
			b.WriteString("{}")
			return nil
		}
		idx := make([]int, x.Len())
		for i := range idx {
			idx[i] = i
		}
		if o.sortKeys {
			keys := make([]Value, len(idx))
			for i := range idx {
				keys[i] = int64(i)
			}
			var sortErr error
			err := sortValues(keys, func(k Value) (Value, error) {
				key := x.keys[k.(int64)]
				if _, ok := isString(key); !ok {
					if sortErr == nil {
						sortErr = typeErrorf("'<' not supported between instances of '%s' and 'str'", typeName(key))
					}
				}
				return key, nil
			}, false)
			if err != nil {
				return err
			}
			if sortErr != nil {
				return sortErr
			}
			for i, k := range keys {
				idx[i] = int(k.(int64))
			}
		}
		b.WriteByte('{')
		for n, i := range idx {
			if n > 0 {
				b.WriteString(o.itemSep)
			}
			s.jsonNewline(b, o, depth+1)
			var ks string
			switch k := x.keys[i].(type) {
			case string:
				ks = k
			case markup:
				ks = string(k)
			case int64:
				ks = strconv.FormatInt(k, 10)
			case float64:
				ks = jsonFloat(k)
			case bool:
				ks = "false"
				if k {
					ks = "true"
				}
			case nil:
				ks = "null"
			default:
				return typeErrorf("keys must be str, int, float, bool or None, not %s", typeName(k))
			}
			writeJSONString(b, ks, o.ensureASCII)
			b.WriteString(o.keySep)
			if err := s.writeJSON(b, x.vals[i], o, depth+1); err != nil {
				return err
			}
		}
		s.jsonNewline(b, o, depth)
		b.WriteByte('}')
	default:
		return typeErrorf("Object of type %s is not JSON serializable", typeName(v))
	}
	return nil
}

func (s *state) jsonNewline(b *strings.Builder, o *jsonOpts, depth int) {
	if !o.hasIndent {
		return
	}
	b.WriteByte('\n')
	for i := 0; i < depth; i++ {
		b.WriteString(o.indent)
	}
}

func jsonFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return pyFloatRepr(f)
}

// writeJSONString writes a JSON string as Python's json module does.
func writeJSONString(b *strings.Builder, s string, ensureASCII bool) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				if c < 0x20 || (ensureASCII && c == 0x7f) {
					fmt.Fprintf(b, `\u%04x`, c)
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if ensureASCII {
			if r > 0xffff {
				r -= 0x10000
				fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				fmt.Fprintf(b, `\u%04x`, r)
			}
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('"')
}
