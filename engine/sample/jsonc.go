package sample

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strings"
)

// JSONConstraint is an incremental JSON (optionally JSON Schema) recognizer
// over text, for constrained decoding: a sampler asks Allows for each
// candidate token's text and keeps only the tokens it accepts, Advances by
// the token it picks, and lets generation end only once Complete.
//
// It is a pushdown automaton over bytes. Its state is a small stack of
// frames (at most 64 deep: deeper nesting is rejected), so Allows copies
// the stack into a scratch buffer, feeds the bytes and discards the copy:
// it allocates nothing. A JSONConstraint is not safe for concurrent use.
//
// The grammar is RFC 8259 JSON with these choices:
//
//   - Whitespace (space, tab, CR, LF) is allowed between tokens, and before
//     the top-level value, but each run is at most 32 bytes, so a model
//     cannot pad forever; nothing at all may follow the top-level value.
//   - Strings are valid UTF-8 without unescaped control characters; the
//     escapes are \" \\ \/ \b \f \n \r \t and \uXXXX.
//   - Numbers follow -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?; an "integer"
//     schema forbids the fraction and the exponent.
//
// Schemas: see NewJSONConstraint for the supported subset.
type JSONConstraint struct {
	nodes []jnode
	stk   []jframe // current state
	tmp   []jframe // scratch for Allows and Advance
}

const (
	jMaxDepth = 64 // frames on the stack
	jMaxWS    = 32 // bytes in one whitespace run
	jMaxSet   = 64 // properties per object, values per enum (bit masks)
)

// Type bits of a schema node.
const (
	tObj uint8 = 1 << iota
	tArr
	tStr
	tNum
	tInt
	tBool
	tNull
	tAny = tObj | tArr | tStr | tNum | tInt | tBool | tNull
)

// jnode is one compiled schema node.
type jnode struct {
	types    uint8
	free     bool    // object: any keys, values of any type
	props    []jprop // object: properties in schema order
	lastReq  int32   // object: index of the last required property, -1 if none
	items    int32   // array: node of the items
	minItems int32
	maxItems int32
	enum     []string // canonical JSON text of each allowed value
}

// jprop is one property of an object node.
type jprop struct {
	enc      string // the name as a JSON string, quotes included
	node     int32
	required bool
}

// Frame kinds.
const (
	kValue uint8 = iota // a value not started yet
	kObj
	kArr
	kStr // a string value, or a key of a free object
	kKey // a key of a schema object, matched against the property names
	kNum
	kLit
	kEnum
)

// Object states.
const (
	oOpen  uint8 = iota // after '{'
	oKey                // key frame on top
	oColon              // after the key
	oVal                // value frame on top
	oAfter              // after a value
	oComma              // after ','
)

// Array states.
const (
	aOpen uint8 = iota
	aVal
	aAfter
	aComma
)

// Number states.
const (
	nMinus uint8 = iota
	nZero
	nInt
	nDot
	nFrac
	nE
	nESign
	nExp
)

var jLits = [3]string{"true", "false", "null"}

// jframe is one level of the pushdown automaton.
type jframe struct {
	kind   uint8
	st     uint8 // state within the kind; for strings the escape state
	ws     uint8 // length of the current whitespace run
	need   uint8 // strings: UTF-8 continuation bytes still expected
	lo, hi uint8 // strings: bounds of the next continuation byte
	node   int32
	n      int32  // array: items; object: last property written; key/enum/literal: position
	cur    int32  // object: property being written; literal: which one
	mask   uint64 // key/enum: candidates still alive
}

// NewJSONConstraint returns a recognizer for one JSON value.
//
// A nil or empty schema is json_object mode: the value must be an object,
// with any keys and values. Otherwise schema is a JSON Schema limited to
// this subset (other keywords are an error; title, description, $schema,
// $id, $comment, default and examples are ignored):
//
//   - type: object, array, string, number, integer, boolean, null, or a
//     list of them; without type, properties implies object, items implies
//     array, enum/const stand alone, and a schema with none of them ({})
//     accepts any JSON value;
//   - properties and required: properties are written in schema order,
//     optional ones may be skipped, and no other property may appear
//     (additionalProperties: false is implied; writing it is allowed, true
//     is not). An object schema without properties accepts any object,
//     unless additionalProperties is false, which leaves only {};
//   - items, minItems, maxItems for arrays;
//   - enum and const of scalars, which must be written exactly as Go's
//     encoding/json writes them (numbers as written in the schema);
//   - nesting of all of these, up to 60 levels.
//
// At most 64 properties per object and 64 values per enum.
func NewJSONConstraint(schema []byte) (*JSONConstraint, error) {
	c := &JSONConstraint{
		nodes: []jnode{
			{types: tAny, free: true, lastReq: -1, items: 0, maxItems: math.MaxInt32},
			{types: tObj, free: true, lastReq: -1, maxItems: math.MaxInt32},
		},
		stk: make([]jframe, 0, jMaxDepth),
		tmp: make([]jframe, 0, jMaxDepth),
	}
	root := int32(1)
	if len(bytes.TrimSpace(schema)) > 0 {
		var err error
		root, err = c.compile(schema, "#", 0)
		if err != nil {
			return nil, err
		}
	}
	c.stk = append(c.stk, jframe{kind: kValue, node: root})
	return c, nil
}

// Allows reports whether appending text keeps the output a valid prefix.
// It does not change the state.
func (c *JSONConstraint) Allows(text string) bool {
	c.tmp = append(c.tmp[:0], c.stk...)
	for i := 0; i < len(text); i++ {
		if !c.feed(&c.tmp, text[i]) {
			return false
		}
	}
	return true
}

// Advance appends text. If text is not allowed it returns an error and
// leaves the state as it was.
func (c *JSONConstraint) Advance(text string) error {
	c.tmp = append(c.tmp[:0], c.stk...)
	for i := 0; i < len(text); i++ {
		if !c.feed(&c.tmp, text[i]) {
			return fmt.Errorf("sample: json constraint rejects %q at byte %d", text, i)
		}
	}
	c.stk, c.tmp = c.tmp, c.stk
	return nil
}

// Complete reports whether the output so far is a complete value, so that
// end of generation may be sampled.
func (c *JSONConstraint) Complete() bool {
	switch len(c.stk) {
	case 0:
		return true
	case 1:
		f := &c.stk[0]
		switch f.kind {
		case kNum:
			return numTerminal(f.st)
		case kEnum:
			return c.enumDone(f) >= 0
		}
	}
	return false
}

func numTerminal(st uint8) bool {
	return st == nZero || st == nInt || st == nFrac || st == nExp
}

func isWS(b byte) bool { return b == ' ' || b == '\n' || b == '\r' || b == '\t' }

// enumDone returns the index of an alive enum candidate that is fully
// written, or -1.
func (c *JSONConstraint) enumDone(f *jframe) int32 {
	enum := c.nodes[f.node].enum
	for m := f.mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if int32(len(enum[i])) == f.n {
			return int32(i)
		}
	}
	return -1
}

// keyMask returns the properties that may be written after property last.
func keyMask(nd *jnode, last int32) uint64 {
	var m uint64
	for i := int(last) + 1; i < len(nd.props); i++ {
		m |= 1 << uint(i)
		if nd.props[i].required {
			break
		}
	}
	return m
}

// pop removes the finished top frame and tells its parent; prop is the
// matched property when the top frame is a schema key.
func pop(stk *[]jframe, prop int32) {
	s := (*stk)[:len(*stk)-1]
	*stk = s
	if len(s) == 0 {
		return
	}
	p := &s[len(s)-1]
	p.ws = 0
	switch p.kind {
	case kObj:
		if p.st == oKey {
			p.st, p.cur = oColon, prop
		} else {
			p.st, p.n = oAfter, p.cur
		}
	case kArr:
		p.st = aAfter
		p.n++
	}
}

// feed advances the automaton in *stk by one byte and reports whether the
// byte was allowed.
func (c *JSONConstraint) feed(stk *[]jframe, b byte) bool {
	for {
		s := *stk
		if len(s) == 0 {
			return false // nothing may follow the value
		}
		f := &s[len(s)-1]
		switch f.kind {
		case kValue:
			if isWS(b) {
				if f.ws >= jMaxWS {
					return false
				}
				f.ws++
				return true
			}
			nd := &c.nodes[f.node]
			if nd.enum != nil {
				*f = jframe{kind: kEnum, node: f.node, mask: math.MaxUint64 >> (64 - len(nd.enum))}
				continue
			}
			switch {
			case b == '{' && nd.types&tObj != 0:
				*f = jframe{kind: kObj, st: oOpen, node: f.node, n: -1, cur: -1}
			case b == '[' && nd.types&tArr != 0:
				*f = jframe{kind: kArr, st: aOpen, node: f.node}
			case b == '"' && nd.types&tStr != 0:
				*f = jframe{kind: kStr}
			case (b == '-' || b >= '0' && b <= '9') && nd.types&(tNum|tInt) != 0:
				st := nInt
				if b == '-' {
					st = nMinus
				} else if b == '0' {
					st = nZero
				}
				*f = jframe{kind: kNum, st: st, node: f.node}
			case b == 't' && nd.types&tBool != 0:
				*f = jframe{kind: kLit, cur: 0, n: 1}
			case b == 'f' && nd.types&tBool != 0:
				*f = jframe{kind: kLit, cur: 1, n: 1}
			case b == 'n' && nd.types&tNull != 0:
				*f = jframe{kind: kLit, cur: 2, n: 1}
			default:
				return false
			}
			return true

		case kObj:
			if f.st != oKey && f.st != oVal && isWS(b) {
				if f.ws >= jMaxWS {
					return false
				}
				f.ws++
				return true
			}
			nd := &c.nodes[f.node]
			switch f.st {
			case oOpen, oComma:
				if b == '}' && f.st == oOpen && f.n >= nd.lastReq {
					pop(stk, 0)
					return true
				}
				if b != '"' || len(s) == cap(s) {
					return false
				}
				if nd.free {
					*stk = append(s, jframe{kind: kStr})
				} else {
					m := keyMask(nd, f.n)
					if m == 0 {
						return false
					}
					*stk = append(s, jframe{kind: kKey, node: f.node, n: 1, mask: m})
				}
				f.st, f.ws = oKey, 0
				return true
			case oColon:
				if b != ':' || len(s) == cap(s) {
					return false
				}
				child := int32(0)
				if !nd.free {
					child = nd.props[f.cur].node
				}
				f.st, f.ws = oVal, 0
				*stk = append(s, jframe{kind: kValue, node: child})
				return true
			case oAfter:
				switch {
				case b == '}' && f.n >= nd.lastReq:
					pop(stk, 0)
					return true
				case b == ',' && (nd.free || keyMask(nd, f.n) != 0):
					f.st, f.ws = oComma, 0
					return true
				}
				return false
			}
			return false // a child is on top; unreachable

		case kArr:
			if f.st != aVal && isWS(b) {
				if f.ws >= jMaxWS {
					return false
				}
				f.ws++
				return true
			}
			nd := &c.nodes[f.node]
			switch f.st {
			case aOpen, aComma:
				if b == ']' && f.st == aOpen && f.n >= nd.minItems {
					pop(stk, 0)
					return true
				}
				if f.n >= nd.maxItems || len(s) == cap(s) {
					return false
				}
				f.st, f.ws = aVal, 0
				*stk = append(s, jframe{kind: kValue, node: nd.items})
				continue // the new value frame takes the byte
			case aAfter:
				switch {
				case b == ']' && f.n >= nd.minItems:
					pop(stk, 0)
					return true
				case b == ',' && f.n < nd.maxItems:
					f.st, f.ws = aComma, 0
					return true
				}
				return false
			}
			return false

		case kStr:
			return strByte(stk, f, b)

		case kKey, kEnum:
			props, cands := c.nodes[f.node].props, c.nodes[f.node].enum
			var m uint64
			done := int32(-1)
			for a := f.mask; a != 0; a &= a - 1 {
				i := bits.TrailingZeros64(a)
				var t string
				if f.kind == kKey {
					t = props[i].enc
				} else {
					t = cands[i]
				}
				if int32(len(t)) > f.n && t[f.n] == b {
					m |= 1 << uint(i)
				} else if int32(len(t)) == f.n {
					done = int32(i)
				}
			}
			if m != 0 {
				f.mask = m
				f.n++
				if f.kind == kKey {
					// A key ends at its closing quote: no other
					// candidate can extend a complete JSON string.
					for a := m; a != 0; a &= a - 1 {
						i := bits.TrailingZeros64(a)
						if int32(len(props[i].enc)) == f.n {
							pop(stk, int32(i))
							break
						}
					}
				}
				return true
			}
			if f.kind == kEnum && done >= 0 {
				pop(stk, 0)
				continue
			}
			return false

		case kNum:
			intOnly := c.nodes[f.node].types&tNum == 0
			digit := b >= '0' && b <= '9'
			next := uint8(255)
			switch f.st {
			case nMinus:
				if b == '0' {
					next = nZero
				} else if digit {
					next = nInt
				}
			case nZero, nInt:
				switch {
				case digit && f.st == nInt:
					next = nInt
				case b == '.' && !intOnly:
					next = nDot
				case (b == 'e' || b == 'E') && !intOnly:
					next = nE
				}
			case nDot, nFrac:
				if digit {
					next = nFrac
				} else if f.st == nFrac && (b == 'e' || b == 'E') {
					next = nE
				}
			case nE:
				if b == '+' || b == '-' {
					next = nESign
				} else if digit {
					next = nExp
				}
			case nESign, nExp:
				if digit {
					next = nExp
				}
			}
			if next != 255 {
				f.st = next
				return true
			}
			if numTerminal(f.st) {
				pop(stk, 0)
				continue
			}
			return false

		case kLit:
			lit := jLits[f.cur]
			if lit[f.n] != b {
				return false
			}
			f.n++
			if int(f.n) == len(lit) {
				pop(stk, 0)
			}
			return true
		}
		return false
	}
}

// strByte feeds one byte to the string frame f on top of *stk.
func strByte(stk *[]jframe, f *jframe, b byte) bool {
	if f.need > 0 {
		if b < f.lo || b > f.hi {
			return false
		}
		f.need--
		f.lo, f.hi = 0x80, 0xBF
		return true
	}
	switch f.st {
	case 1: // after a backslash
		switch b {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			f.st = 0
		case 'u':
			f.st = 2
		default:
			return false
		}
		return true
	case 2, 3, 4, 5: // hex digits of \uXXXX
		if !(b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F') {
			return false
		}
		if f.st == 5 {
			f.st = 0
		} else {
			f.st++
		}
		return true
	}
	switch {
	case b == '"':
		pop(stk, 0)
	case b == '\\':
		f.st = 1
	case b < 0x20:
		return false
	case b < 0x80:
	case b >= 0xC2 && b <= 0xDF:
		f.need, f.lo, f.hi = 1, 0x80, 0xBF
	case b == 0xE0:
		f.need, f.lo, f.hi = 2, 0xA0, 0xBF
	case b == 0xED:
		f.need, f.lo, f.hi = 2, 0x80, 0x9F
	case b >= 0xE1 && b <= 0xEF:
		f.need, f.lo, f.hi = 2, 0x80, 0xBF
	case b == 0xF0:
		f.need, f.lo, f.hi = 3, 0x90, 0xBF
	case b >= 0xF1 && b <= 0xF3:
		f.need, f.lo, f.hi = 3, 0x80, 0xBF
	case b == 0xF4:
		f.need, f.lo, f.hi = 3, 0x80, 0x8F
	default:
		return false
	}
	return true
}

// compile adds the schema's node (and its children) and returns its index.
func (c *JSONConstraint) compile(raw []byte, path string, depth int) (int32, error) {
	if depth > 60 {
		return 0, fmt.Errorf("sample: json schema %s: nested deeper than 60 levels", path)
	}
	var kw map[string]json.RawMessage
	if err := json.Unmarshal(raw, &kw); err != nil {
		return 0, fmt.Errorf("sample: json schema %s: %w", path, err)
	}
	nd := jnode{lastReq: -1, maxItems: math.MaxInt32}
	hasType := false
	if t, ok := kw["type"]; ok {
		hasType = true
		var names []string
		var one string
		if err := json.Unmarshal(t, &one); err == nil {
			names = []string{one}
		} else if err := json.Unmarshal(t, &names); err != nil {
			return 0, fmt.Errorf("sample: json schema %s: type must be a string or a list of strings", path)
		}
		for _, n := range names {
			bit, ok := map[string]uint8{"object": tObj, "array": tArr, "string": tStr,
				"number": tNum, "integer": tInt, "boolean": tBool, "null": tNull}[n]
			if !ok {
				return 0, fmt.Errorf("sample: json schema %s: unknown type %q", path, n)
			}
			nd.types |= bit
		}
		if nd.types == 0 {
			return 0, fmt.Errorf("sample: json schema %s: empty type list", path)
		}
	}
	for k := range kw {
		switch k {
		case "type", "properties", "required", "items", "enum", "const", "minItems",
			"maxItems", "additionalProperties",
			"title", "description", "$schema", "$id", "$comment", "default", "examples":
		default:
			return 0, fmt.Errorf("sample: json schema %s: unsupported keyword %q", path, k)
		}
	}
	_, hasProps := kw["properties"]
	_, hasItems := kw["items"]
	_, hasEnum := kw["enum"]
	_, hasConst := kw["const"]
	if !hasType {
		switch {
		case hasProps:
			nd.types = tObj
		case hasItems:
			nd.types = tArr
		case hasEnum || hasConst:
		default:
			nd.types, nd.free = tAny, true
		}
	}

	// enum / const
	var vals []json.RawMessage
	if hasEnum {
		if err := json.Unmarshal(kw["enum"], &vals); err != nil || len(vals) == 0 {
			return 0, fmt.Errorf("sample: json schema %s: enum must be a non-empty list", path)
		}
	}
	if hasConst {
		vals = append(vals, kw["const"])
	}
	if hasEnum && hasConst {
		return 0, fmt.Errorf("sample: json schema %s: enum and const together", path)
	}
	if len(vals) > jMaxSet {
		return 0, fmt.Errorf("sample: json schema %s: more than %d enum values", path, jMaxSet)
	}
	for _, v := range vals {
		enc, err := canonScalar(v)
		if err != nil {
			return 0, fmt.Errorf("sample: json schema %s: enum: %w", path, err)
		}
		nd.enum = append(nd.enum, enc)
	}

	// additionalProperties
	addFalse := false
	if a, ok := kw["additionalProperties"]; ok {
		if string(bytes.TrimSpace(a)) != "false" {
			return 0, fmt.Errorf("sample: json schema %s: only additionalProperties: false is supported", path)
		}
		addFalse = true
	}

	// minItems / maxItems
	for _, k := range []string{"minItems", "maxItems"} {
		r, ok := kw[k]
		if !ok {
			continue
		}
		var n int64
		if err := json.Unmarshal(r, &n); err != nil || n < 0 || n > math.MaxInt32 {
			return 0, fmt.Errorf("sample: json schema %s: %s must be a non-negative integer", path, k)
		}
		if k == "minItems" {
			nd.minItems = int32(n)
		} else {
			nd.maxItems = int32(n)
		}
	}
	if nd.minItems > nd.maxItems {
		return 0, fmt.Errorf("sample: json schema %s: minItems %d > maxItems %d", path, nd.minItems, nd.maxItems)
	}

	idx := int32(len(c.nodes))
	c.nodes = append(c.nodes, jnode{}) // reserve; children follow

	// items
	nd.items = 0
	if hasItems {
		ci, err := c.compile(kw["items"], path+"/items", depth+1)
		if err != nil {
			return 0, err
		}
		nd.items = ci
	}

	// properties / required
	if hasProps {
		names, raws, err := orderedObject(kw["properties"])
		if err != nil {
			return 0, fmt.Errorf("sample: json schema %s/properties: %w", path, err)
		}
		if len(names) > jMaxSet {
			return 0, fmt.Errorf("sample: json schema %s: more than %d properties", path, jMaxSet)
		}
		for i, name := range names {
			ci, err := c.compile(raws[i], path+"/properties/"+name, depth+1)
			if err != nil {
				return 0, err
			}
			var enc strings.Builder
			e := json.NewEncoder(&enc)
			e.SetEscapeHTML(false)
			if err := e.Encode(name); err != nil {
				return 0, fmt.Errorf("sample: json schema %s: %w", path, err)
			}
			nd.props = append(nd.props, jprop{enc: strings.TrimSuffix(enc.String(), "\n"), node: ci})
		}
	} else if nd.types&tObj != 0 && !addFalse {
		nd.free = true
	}
	if r, ok := kw["required"]; ok {
		var req []string
		if err := json.Unmarshal(r, &req); err != nil {
			return 0, fmt.Errorf("sample: json schema %s: required must be a list of strings", path)
		}
		for _, name := range req {
			found := false
			for i := range nd.props {
				var n string
				_ = json.Unmarshal([]byte(nd.props[i].enc), &n)
				if n == name {
					nd.props[i].required = true
					nd.lastReq = max(nd.lastReq, int32(i))
					found = true
				}
			}
			if !found {
				return 0, fmt.Errorf("sample: json schema %s: required property %q is not in properties", path, name)
			}
		}
	}
	c.nodes[idx] = nd
	return idx, nil
}

// orderedObject returns the keys and raw values of a JSON object in the
// order they are written.
func orderedObject(raw []byte) ([]string, []json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	t, err := d.Token()
	if err != nil {
		return nil, nil, err
	}
	if t != json.Delim('{') {
		return nil, nil, fmt.Errorf("not an object")
	}
	var names []string
	var vals []json.RawMessage
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := t.(string)
		for _, n := range names {
			if n == name {
				return nil, nil, fmt.Errorf("duplicate property %q", name)
			}
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, nil, err
		}
		names = append(names, name)
		vals = append(vals, v)
	}
	if _, err := d.Token(); err != nil && err != io.EOF {
		return nil, nil, err
	}
	return names, vals, nil
}

// canonScalar returns the JSON text a model must write for an enum value.
func canonScalar(raw json.RawMessage) (string, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case nil:
		return "null", nil
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	case json.Number:
		return x.String(), nil
	case string:
		var b strings.Builder
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		if err := e.Encode(x); err != nil {
			return "", err
		}
		return strings.TrimSuffix(b.String(), "\n"), nil
	}
	return "", fmt.Errorf("only scalar values are supported, not %s", raw)
}
