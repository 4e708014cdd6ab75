package sample

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// schemaRules are the rules a compiled schema may use, as GBNF bodies
// that name their dependencies (deps).
var schemaRules = map[string]struct{ body, deps string }{
	"space":            {`| " " | "\n"{1,2} [ \t]{0,20}`, ""},
	"boolean":          {`("true" | "false")`, ""},
	"null":             {`"null"`, ""},
	"integral-part":    {`[0] | [1-9] [0-9]{0,15}`, ""},
	"decimal-part":     {`[0-9]{1,16}`, ""},
	"number":           {`("-"? integral-part) ("." decimal-part)? ([eE] [-+]? integral-part)?`, "integral-part decimal-part"},
	"integer":          {`("-"? integral-part)`, "integral-part"},
	"char":             {`[^"\\\x7F\x00-\x1F] | [\\] (["\\/bfnrt] | "u" [0-9a-fA-F]{4})`, ""},
	"string":           {`"\"" char* "\""`, "char"},
	"value":            {`object | array | string | number | boolean | null`, "object array string number boolean null"},
	"object":           {`"{" space ( string ":" space value ("," space string ":" space value)* )? space "}"`, "space string value"},
	"array":            {`"[" space ( value ("," space value)* )? space "]"`, "space value"},
	"uuid":             {`"\"" [0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12} "\""`, ""},
	"date":             {`[0-9]{4} "-" ( "0" [1-9] | "1" [0-2] ) "-" ( "0" [1-9] | [1-2] [0-9] | "3" [0-1] )`, ""},
	"time":             {`([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{3} )? ( "Z" | ( "+" | "-" ) ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] )`, ""},
	"date-time":        {`date "T" time`, "date time"},
	"date-string":      {`"\"" date "\""`, "date"},
	"time-string":      {`"\"" time "\""`, "time"},
	"date-time-string": {`"\"" date-time "\""`, "date-time"},
}

// Keywords that are read, or ignored without a word.
var schemaKnown = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"enum": true, "const": true, "anyOf": true, "oneOf": true, "allOf": true, "$ref": true,
	"$defs": true, "definitions": true, "items": true, "prefixItems": true, "minItems": true,
	"maxItems": true, "minLength": true, "maxLength": true, "pattern": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"nullable": true,
	"title":    true, "description": true, "examples": true, "default": true, "$schema": true,
	"$id": true, "$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"discriminator": true, "propertyNames": true, "$anchor": true, "contentMediaType": true,
}

// Limits of the schema compiler: the nesting of a schema, and the
// sub-schemas compiled (a list of types compiles the schema once per
// type, so nested lists could otherwise multiply without bound).
const (
	schemaMaxDepth  = 100
	schemaMaxVisits = 5000
)

// SchemaGrammar compiles a JSON Schema into GBNF text whose root rule
// matches one JSON value of the schema. It is Saji's own compiler, which
// supports what llama.cpp's json-schema-to-grammar does and writes each
// keyword the same way, so that a schema constrains a model alike in
// both:
//
//   - type (a name, or a list of them: a union), nullable: true;
//   - properties and required: required properties first, in the order
//     of properties, then the optional ones in that order, each skippable;
//     additionalProperties: absent or false allows no other property,
//     true or a schema allows others after the known ones;
//   - enum, const (written as encoding/json writes the value);
//   - anyOf, oneOf (alternatives), allOf (objects merged: properties and
//     required; enums intersected; one member alone is that member);
//   - $ref to "#", "#/$defs/...", "#/definitions/..." or any local JSON
//     pointer, recursion included;
//   - items, prefixItems (a tuple), minItems, maxItems;
//   - minLength, maxLength, pattern (see pattern.go), format (date,
//     time, date-time, uuid);
//   - minimum, maximum, exclusiveMinimum, exclusiveMaximum of integers
//     (of numbers they are ignored, as llama.cpp does).
//
// A schema without type or other structure ({} or true) is any JSON
// value; keywords that cannot be expressed are ignored (title,
// description, default, examples and the like silently, others with a log
// line). Whitespace between tokens is llama.cpp's: at most one space, or
// one or two newlines and up to 20 blanks of indentation. Strings take
// every JSON escape (llama.cpp leaves out \/).
//
// Errors name the place in the schema as a JSON pointer.
func SchemaGrammar(schema []byte) (string, error) {
	return SchemaRules(schema, "")
}

// SchemaRules is SchemaGrammar with every rule's name prefixed, so that
// the rules can be embedded in a larger grammar: the value's rule is
// prefix+"root", and every other rule's name starts with prefix too. The
// prefix is made of letters, digits and '-', and should end with '-'
// (e.g. "tool-get-weather-"). Two schemas under different prefixes never
// clash; the host grammar names its own rules without those prefixes.
func SchemaRules(schema []byte, prefix string) (string, error) {
	for _, c := range []byte(prefix) {
		if !isNameByte(c) {
			return "", fmt.Errorf("sample: json schema: rule prefix %q: only letters, digits and '-'", prefix)
		}
	}
	s := &schemaConv{prefix: prefix, root: schema, rules: map[string]string{}, refs: map[string]string{}}
	if _, err := s.visit(schema, "", "#", 0); err != nil {
		return "", err
	}
	out := s.format()
	// A $ref can name itself (or a cycle of them) with nothing between:
	// the grammar would be left-recursive.
	check := out
	if prefix != "" {
		check = "root ::= " + prefix + "root\n" + out
	}
	if _, err := ParseGrammar(check); err != nil {
		return "", fmt.Errorf("sample: json schema: $ref cycle without a value in between: %s", strings.TrimPrefix(err.Error(), "sample: grammar: "))
	}
	return out, nil
}

// schemaConv holds the state of one schema compilation.
type schemaConv struct {
	prefix string
	root   []byte
	rules  map[string]string // prefixed name -> body
	refs   map[string]string // $ref -> the name of its rule
	visits int               // sub-schemas compiled so far
}

// schemaFail returns an error at the schema location path.
func schemaFail(path, format string, args ...any) error {
	return fmt.Errorf("sample: json schema %s: %s", path, fmt.Sprintf(format, args...))
}

var badRuleChars = regexp.MustCompile(`[^a-zA-Z0-9-]+`)

// add adds rule name ::= body and returns its name: prefixed, made of
// valid characters, and numbered when the name is taken by another body.
func (s *schemaConv) add(name, body string) string {
	name = s.prefix + badRuleChars.ReplaceAllString(name, "-")
	if old, ok := s.rules[name]; !ok || old == body || old == reserved {
		s.rules[name] = body
		return name
	}
	for i := 0; ; i++ {
		n := name + strconv.Itoa(i)
		if old, ok := s.rules[n]; !ok || old == body {
			s.rules[n] = body
			return n
		}
	}
}

// reserved marks a rule name taken before its body is known (a $ref
// being compiled).
const reserved = "\x00"

// prim adds a built-in rule and its dependencies, and returns its name.
func (s *schemaConv) prim(name string) string {
	r := schemaRules[name]
	body := r.body
	if s.prefix != "" {
		body = prefixRefs(body, s.prefix)
	}
	n := s.prefix + name
	if _, ok := s.rules[n]; !ok {
		s.rules[n] = body
		for _, dep := range strings.Fields(r.deps) {
			s.prim(dep)
		}
		if strings.Contains(r.body, "space") {
			s.prim("space")
		}
	}
	return n
}

// ruleName is the name of the rule of a schema at name ("" is the root),
// kept off the built-in rules' names.
func ruleName(name string) string {
	if name == "" {
		return "root"
	}
	if _, ok := schemaRules[name]; ok || name == "root" {
		return name + "-"
	}
	return name
}

// join names a sub-schema's rule after its parent's.
func join(name, sub string) string {
	if name == "" {
		return sub
	}
	return name + "-" + sub
}

// visit adds the rules of the schema raw and returns the name of its rule.
func (s *schemaConv) visit(raw []byte, name, path string, depth int) (string, error) {
	if depth > schemaMaxDepth {
		return "", schemaFail(path, "nested deeper than %d levels", schemaMaxDepth)
	}
	if s.visits++; s.visits > schemaMaxVisits {
		return "", schemaFail(path, "more than %d sub-schemas to compile", schemaMaxVisits)
	}
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "true":
		return s.add(ruleName(name), s.prim("value")), nil
	case "false":
		return "", schemaFail(path, "the schema false allows no value")
	}
	var kw map[string]json.RawMessage
	if err := json.Unmarshal(raw, &kw); err != nil || kw == nil {
		return "", schemaFail(path, "a schema must be an object or a boolean")
	}
	for k := range kw {
		if !schemaKnown[k] {
			slog.Debug("sample: json schema keyword ignored", "keyword", k, "at", path)
		}
	}
	rule := ruleName(name)
	types, err := schemaTypes(kw["type"], path)
	if err != nil {
		return "", err
	}
	typ := ""
	if len(types) == 1 {
		typ = types[0]
	}

	if b, ok := kw["nullable"]; ok && string(bytes.TrimSpace(b)) == "true" && !slices.Contains(types, "null") {
		rest := make(map[string]json.RawMessage, len(kw))
		for k, v := range kw {
			if k != "nullable" {
				rest[k] = v
			}
		}
		inner, _ := json.Marshal(rest)
		a, err := s.visit(inner, join(name, "nonnull"), path, depth+1)
		if err != nil {
			return "", err
		}
		return s.add(rule, a+" | "+s.prim("null")), nil
	}

	if ref, ok := kw["$ref"]; ok {
		var r string
		if err := json.Unmarshal(ref, &r); err != nil {
			return "", schemaFail(path, "$ref must be a string")
		}
		target, err := s.ref(r, path, depth)
		if err != nil {
			return "", err
		}
		return s.add(rule, target), nil
	}

	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := kw[k]; ok {
			var list []json.RawMessage
			if err := json.Unmarshal(alts, &list); err != nil || len(list) == 0 {
				return "", schemaFail(path, "%s must be a non-empty list of schemas", k)
			}
			var names []string
			for i, a := range list {
				sub := "alternative-" + strconv.Itoa(i)
				if name != "" {
					sub = name + "-" + strconv.Itoa(i)
				}
				n, err := s.visit(a, sub, path+"/"+k+"/"+strconv.Itoa(i), depth+1)
				if err != nil {
					return "", err
				}
				names = append(names, n)
			}
			return s.add(rule, strings.Join(names, " | ")), nil
		}
	}

	if len(types) > 1 {
		var names []string
		for i, t := range types {
			kw["type"], _ = json.Marshal(t)
			one, _ := json.Marshal(kw)
			sub := "alternative-" + strconv.Itoa(i)
			if name != "" {
				sub = name + "-" + strconv.Itoa(i)
			}
			n, err := s.visit(one, sub, path, depth+1)
			if err != nil {
				return "", err
			}
			names = append(names, n)
		}
		return s.add(rule, strings.Join(names, " | ")), nil
	}

	if c, ok := kw["const"]; ok {
		lit, err := constLiteral(c)
		if err != nil {
			return "", schemaFail(path, "const: %v", err)
		}
		return s.add(rule, lit), nil
	}
	if e, ok := kw["enum"]; ok {
		var vals []json.RawMessage
		if err := json.Unmarshal(e, &vals); err != nil || len(vals) == 0 {
			return "", schemaFail(path, "enum must be a non-empty list")
		}
		lits := make([]string, len(vals))
		for i, v := range vals {
			if lits[i], err = constLiteral(v); err != nil {
				return "", schemaFail(path, "enum: %v", err)
			}
		}
		return s.add(rule, "("+strings.Join(lits, " | ")+")"), nil
	}

	_, hasProps := kw["properties"]
	addl, hasAddl := kw["additionalProperties"]
	if (typ == "" || typ == "object") && (hasProps || hasAddl && string(bytes.TrimSpace(addl)) != "true") {
		props, err := s.properties(kw, path)
		if err != nil {
			return "", err
		}
		body, err := s.object(props, required(kw), name, path, addl, depth)
		if err != nil {
			return "", err
		}
		return s.add(rule, body), nil
	}

	if all, ok := kw["allOf"]; ok && (typ == "" || typ == "object" || typ == "string") {
		return s.allOf(all, kw, name, rule, path, depth)
	}

	_, hasItems := kw["items"]
	_, hasPrefix := kw["prefixItems"]
	if typ == "array" || typ == "" && (hasItems || hasPrefix) {
		body, err := s.array(kw, name, path, depth)
		if err != nil {
			return "", err
		}
		return s.add(rule, body), nil
	}

	if typ == "" || typ == "string" {
		var format string
		_ = json.Unmarshal(kw["format"], &format)
		if p, ok := kw["pattern"]; ok {
			var pattern string
			if err := json.Unmarshal(p, &pattern); err != nil {
				return "", schemaFail(path, "pattern must be a string")
			}
			body, err := s.pattern(pattern, rule)
			if err != nil {
				return "", schemaFail(path, "pattern %q: %v", pattern, err)
			}
			if body != "" {
				return s.add(rule, body), nil
			}
			slog.Warn("sample: json schema pattern not supported, any string accepted", "pattern", pattern, "at", path)
		} else if ok, _ := regexp.MatchString(`^uuid[1-5]?$`, format); ok {
			return s.add(rule, s.prim("uuid")), nil
		} else if _, ok := schemaRules[format+"-string"]; ok && format != "" {
			return s.add(rule, s.prim(format+"-string")), nil
		} else if format != "" {
			slog.Debug("sample: json schema format ignored", "format", format, "at", path)
		}
		_, hasMin := kw["minLength"]
		_, hasMax := kw["maxLength"]
		if typ == "string" && (hasMin || hasMax) {
			lo, hi, err := bounds(kw, "minLength", "maxLength", path)
			if err != nil {
				return "", err
			}
			if lo > gMaxRepeat {
				return "", schemaFail(path, "minLength %d is more than %d", lo, gMaxRepeat)
			}
			return s.add(rule, `"\"" `+repetition(s.prim("char"), lo, hi, "")+` "\""`), nil
		}
	}

	if typ == "integer" {
		if body, ok, err := intRange(kw, path); err != nil {
			return "", err
		} else if ok {
			return s.add(rule, "("+body+")"), nil
		}
	}
	if typ == "number" {
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if _, ok := kw[k]; ok {
				slog.Debug("sample: json schema number bound ignored", "keyword", k, "at", path)
			}
		}
	}

	switch typ {
	case "":
		return s.add(rule, s.prim("value")), nil
	case "object", "string", "number", "integer", "boolean", "null":
		if name == "" {
			return s.add(rule, s.prim(typ)), nil
		}
		return s.prim(typ), nil
	}
	return "", schemaFail(path, "unknown type %q", typ)
}

// schemaTypes reads the type keyword: nil when absent.
func schemaTypes(raw json.RawMessage, path string) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		raw, _ = json.Marshal([]string{one})
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil || len(names) == 0 {
		return nil, schemaFail(path, "type must be a type name or a non-empty list of them")
	}
	for _, n := range names {
		switch n {
		case "object", "array", "string", "number", "integer", "boolean", "null":
		default:
			return nil, schemaFail(path, "unknown type %q", n)
		}
	}
	return names, nil
}

// ref returns the name of the rule of the local reference r, compiling
// the schema it points to the first time.
func (s *schemaConv) ref(r, path string, depth int) (string, error) {
	if n, ok := s.refs[r]; ok {
		return n, nil
	}
	if !strings.HasPrefix(r, "#") {
		return "", schemaFail(path, "$ref %q: only local references (#/...) are supported", r)
	}
	target := s.root
	frag := strings.TrimPrefix(r, "#")
	if frag != "" {
		if !strings.HasPrefix(frag, "/") {
			return "", schemaFail(path, "$ref %q: not a JSON pointer", r)
		}
		for _, tok := range strings.Split(frag[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			next, ok := pointerStep(target, tok)
			if !ok {
				return "", schemaFail(path, "$ref %q: %q not found", r, tok)
			}
			target = next
		}
	}
	name := "ref" + badRuleChars.ReplaceAllString(frag, "-")
	if frag == "" {
		name = "ref-root"
	}
	full := s.prefix + name
	for i := 0; s.taken(full); i++ {
		full = s.prefix + name + strconv.Itoa(i)
	}
	s.rules[full] = reserved
	s.refs[r] = full
	got, err := s.visit(target, strings.TrimPrefix(full, s.prefix), r, depth+1)
	if err != nil {
		return "", err
	}
	if got != full {
		s.rules[full] = got
	}
	return full, nil
}

// pointerStep returns member tok of the JSON object or array raw.
func pointerStep(raw []byte, tok string) ([]byte, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		v, ok := obj[tok]
		return v, ok
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		i, err := strconv.Atoi(tok)
		if err == nil && i >= 0 && i < len(arr) {
			return arr[i], true
		}
	}
	return nil, false
}

// schemaProp is one property of an object schema.
type schemaProp struct {
	name string
	raw  json.RawMessage
}

// properties returns an object schema's properties in schema order.
func (s *schemaConv) properties(kw map[string]json.RawMessage, path string) ([]schemaProp, error) {
	raw, ok := kw["properties"]
	if !ok {
		return nil, nil
	}
	names, vals, err := orderedMembers(raw)
	if err != nil {
		return nil, schemaFail(path, "properties: %v", err)
	}
	props := make([]schemaProp, len(names))
	for i := range names {
		props[i] = schemaProp{names[i], vals[i]}
	}
	return props, nil
}

// required returns the names in an object schema's required list.
func required(kw map[string]json.RawMessage) map[string]bool {
	var names []string
	_ = json.Unmarshal(kw["required"], &names)
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// object returns the body of an object rule: the required properties in
// order, then the optional ones in order, each of which may be left out,
// then (when addl allows them) other properties.
func (s *schemaConv) object(props []schemaProp, req map[string]bool, name, path string, addl json.RawMessage, depth int) (string, error) {
	kv := map[string]string{}
	var reqNames, optNames []string
	for _, p := range props {
		v, err := s.visit(p.raw, join(name, p.name), path+"/properties/"+p.name, depth+1)
		if err != nil {
			return "", err
		}
		kv[p.name] = s.add(join(name, p.name)+"-kv", GrammarLiteral(jsonText(p.name))+" "+s.prim("space")+` ":" `+s.prim("space")+" "+v)
		if req[p.name] {
			reqNames = append(reqNames, p.name)
		} else {
			optNames = append(optNames, p.name)
		}
	}
	addl = bytes.TrimSpace(addl)
	if string(addl) == "true" || len(addl) > 0 && addl[0] == '{' {
		sub := join(name, "additional")
		var value string
		if addl[0] == '{' {
			var err error
			if value, err = s.visit(addl, sub+"-value", path+"/additionalProperties", depth+1); err != nil {
				return "", err
			}
		} else {
			value = s.prim("value")
		}
		key := s.prim("string")
		if len(props) > 0 {
			names := make([]string, len(props))
			for i, p := range props {
				names[i] = p.name
			}
			key = s.add(sub+"-k", s.notStrings(names))
		}
		kv["*"] = s.add(sub+"-kv", key+` ":" `+s.prim("space")+" "+value)
		optNames = append(optNames, "*")
	}
	comma := `"," ` + s.prim("space")
	var b strings.Builder
	b.WriteString(`"{" ` + s.prim("space") + " ")
	for i, n := range reqNames {
		if i > 0 {
			b.WriteString(" " + comma + " ")
		}
		b.WriteString(kv[n])
	}
	if len(optNames) > 0 {
		b.WriteString(" (")
		if len(reqNames) > 0 {
			b.WriteString(" " + comma + " ( ")
		}
		// rest writes the optional properties from ks on, the first of
		// them required when first is set (it is the one that was chosen).
		var rest func(ks []string, first bool) string
		rest = func(ks []string, first bool) string {
			k := ks[0]
			var r string
			if first {
				r = kv[k]
				if k == "*" {
					r += " ( " + comma + " " + kv[k] + " )*"
				}
			} else {
				r = "( " + comma + " " + kv[k] + " )"
				if k == "*" {
					r += "*"
				} else {
					r += "?"
				}
			}
			if len(ks) > 1 {
				r += " " + s.add(join(name, k)+"-rest", rest(ks[1:], false))
			}
			return r
		}
		for i := range optNames {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(rest(optNames[i:], true))
		}
		if len(reqNames) > 0 {
			b.WriteString(" )")
		}
		b.WriteString(" )?")
	}
	b.WriteString(" " + s.prim("space") + ` "}"`)
	return b.String(), nil
}

// notStrings returns a rule body matching a JSON string that is none of
// names, as a trie of their characters (so that additional properties
// cannot repeat a known one).
func (s *schemaConv) notStrings(names []string) string {
	type trie struct {
		kids map[rune]*trie
		keys []rune
		end  bool
	}
	root := &trie{kids: map[rune]*trie{}}
	for _, n := range names {
		t := root
		for _, r := range n {
			k, ok := t.kids[r]
			if !ok {
				k = &trie{kids: map[rune]*trie{}}
				t.kids[r] = k
				t.keys = append(t.keys, r)
			}
			t = k
		}
		t.end = true
	}
	char := s.prim("char")
	var visit func(t *trie) string
	visit = func(t *trie) string {
		var alts []string
		slices.Sort(t.keys)
		for _, r := range t.keys {
			k := t.kids[r]
			a := "[" + classRune(r) + "]"
			switch {
			case len(k.kids) > 0 && k.end:
				a += " (" + visit(k) + ")"
			case len(k.kids) > 0:
				a += " (" + visit(k) + ")?"
			default:
				a += " " + char + "+"
			}
			alts = append(alts, a)
		}
		var ex strings.Builder
		for _, r := range t.keys {
			ex.WriteString(classRune(r))
		}
		alts = append(alts, `([^"\\\x7F\x00-\x1F`+ex.String()+`] | [\\] (["\\/bfnrt] | "u" [0-9a-fA-F]{4})) `+char+"*")
		return strings.Join(alts, " | ")
	}
	body := `"\"" ( ` + visit(root) + " )"
	if !root.end {
		body += "?"
	}
	return body + ` "\""`
}

// allOf merges the members of an allOf as llama.cpp does: the properties
// of each (required ones stay required, those of an anyOf member are
// optional) into one object, or the intersection of their enums. One
// member alone is that member, with the schema's other keywords.
func (s *schemaConv) allOf(all json.RawMessage, kw map[string]json.RawMessage, name, rule, path string, depth int) (string, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(all, &list); err != nil || len(list) == 0 {
		return "", schemaFail(path, "allOf must be a non-empty list of schemas")
	}
	if len(list) == 1 {
		var one map[string]json.RawMessage
		if json.Unmarshal(list[0], &one) == nil && one != nil {
			for k, v := range kw {
				if _, ok := one[k]; !ok && k != "allOf" {
					one[k] = v
				}
			}
			merged, _ := json.Marshal(one)
			n, err := s.visit(merged, join(name, "0"), path+"/allOf/0", depth+1)
			if err != nil {
				return "", err
			}
			return s.add(rule, n), nil
		}
	}
	var props []schemaProp
	req := map[string]bool{}
	enums := map[string]int{}
	var enumOrder []string
	var add func(raw json.RawMessage, isReq bool, at string, hops int) error
	add = func(raw json.RawMessage, isReq bool, at string, hops int) error {
		if hops > schemaMaxDepth {
			return schemaFail(at, "$ref chain longer than %d", schemaMaxDepth)
		}
		var c map[string]json.RawMessage
		if json.Unmarshal(raw, &c) != nil {
			return nil
		}
		if r, ok := c["$ref"]; ok {
			var ref string
			_ = json.Unmarshal(r, &ref)
			target, ok := s.resolve(ref)
			if !ok {
				return schemaFail(at, "$ref %q not found", ref)
			}
			return add(target, isReq, ref, hops+1)
		}
		if _, ok := c["properties"]; ok {
			ps, err := s.properties(c, at)
			if err != nil {
				return err
			}
			for _, p := range ps {
				props = append(props, p)
				if isReq {
					req[p.name] = true
				}
			}
			return nil
		}
		if e, ok := c["enum"]; ok {
			var vals []json.RawMessage
			_ = json.Unmarshal(e, &vals)
			for _, v := range vals {
				lit, err := constLiteral(v)
				if err != nil {
					return schemaFail(at, "enum: %v", err)
				}
				if enums[lit] == 0 {
					enumOrder = append(enumOrder, lit)
				}
				enums[lit]++
			}
			return nil
		}
		slog.Debug("sample: json schema allOf member ignored", "at", at)
		return nil
	}
	for i, m := range list {
		at := path + "/allOf/" + strconv.Itoa(i)
		var c map[string]json.RawMessage
		_ = json.Unmarshal(m, &c)
		if alt, ok := c["anyOf"]; ok {
			var alts []json.RawMessage
			_ = json.Unmarshal(alt, &alts)
			for _, a := range alts {
				if err := add(a, false, at, 0); err != nil {
					return "", err
				}
			}
		} else if err := add(m, true, at, 0); err != nil {
			return "", err
		}
	}
	var both []string
	for _, lit := range enumOrder {
		if enums[lit] == len(list) {
			both = append(both, lit)
		}
	}
	if len(both) > 0 {
		return s.add(rule, "("+strings.Join(both, " | ")+")"), nil
	}
	body, err := s.object(props, req, name, path, nil, depth)
	if err != nil {
		return "", err
	}
	return s.add(rule, body), nil
}

// resolve returns the schema a local $ref points to.
func (s *schemaConv) resolve(r string) ([]byte, bool) {
	if !strings.HasPrefix(r, "#") {
		return nil, false
	}
	target := s.root
	if frag := r[1:]; frag != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			next, ok := pointerStep(target, tok)
			if !ok {
				return nil, false
			}
			target = next
		}
	}
	return target, true
}

// array returns the body of an array rule: a tuple for prefixItems (or
// items as a list), else items repeated between minItems and maxItems.
func (s *schemaConv) array(kw map[string]json.RawMessage, name, path string, depth int) (string, error) {
	space := s.prim("space")
	var tuple []json.RawMessage
	if p, ok := kw["prefixItems"]; ok {
		if err := json.Unmarshal(p, &tuple); err != nil {
			return "", schemaFail(path, "prefixItems must be a list of schemas")
		}
	} else if it := bytes.TrimSpace(kw["items"]); len(it) > 0 && it[0] == '[' {
		if err := json.Unmarshal(it, &tuple); err != nil {
			return "", schemaFail(path, "items must be a schema or a list of schemas")
		}
	}
	if tuple != nil {
		var b strings.Builder
		b.WriteString(`"[" ` + space + " ")
		for i, t := range tuple {
			if i > 0 {
				b.WriteString(` "," ` + space + " ")
			}
			n, err := s.visit(t, join(name, "tuple-"+strconv.Itoa(i)), path+"/prefixItems/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return "", err
			}
			b.WriteString(n)
		}
		b.WriteString(" " + space + ` "]"`)
		return b.String(), nil
	}
	var item string
	if it, ok := kw["items"]; ok {
		var err error
		if item, err = s.visit(it, join(name, "item"), path+"/items", depth+1); err != nil {
			return "", err
		}
	} else {
		item = s.prim("value")
	}
	lo, hi, err := bounds(kw, "minItems", "maxItems", path)
	if err != nil {
		return "", err
	}
	if lo > gMaxRepeat {
		return "", schemaFail(path, "minItems %d is more than %d", lo, gMaxRepeat)
	}
	return `"[" ` + space + " " + repetition(item, lo, hi, `"," `+space) + " " + space + ` "]"`, nil
}

// bounds reads a pair of non-negative integer bounds; hi -1 is none.
func bounds(kw map[string]json.RawMessage, min, max, path string) (lo, hi int, err error) {
	hi = -1
	for i, k := range []string{min, max} {
		raw, ok := kw[k]
		if !ok {
			continue
		}
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil || f < 0 || f != math.Trunc(f) {
			return 0, 0, schemaFail(path, "%s must be a non-negative integer", k)
		}
		n := int(min64(f, 1<<30))
		if i == 0 {
			lo = n
		} else {
			hi = n
		}
	}
	if hi >= 0 && hi < lo {
		return 0, 0, schemaFail(path, "%s %d is above %s %d", min, lo, max, hi)
	}
	return lo, hi, nil
}

func min64(a, b float64) float64 { return math.Min(a, b) }

// repetition writes item repeated lo to hi times (hi -1: no bound), with
// sep between the items when it is set.
func repetition(item string, lo, hi int, sep string) string {
	if hi == 0 {
		return ""
	}
	if lo == 0 && hi == 1 {
		return item + "?"
	}
	if sep == "" {
		switch {
		case lo == 1 && hi < 0:
			return item + "+"
		case lo == 0 && hi < 0:
			return item + "*"
		case hi < 0:
			return fmt.Sprintf("%s{%d,}", item, lo)
		case lo == hi:
			return fmt.Sprintf("%s{%d}", item, lo)
		}
		return fmt.Sprintf("%s{%d,%d}", item, lo, hi)
	}
	more := hi
	if hi > 0 {
		more = hi - 1
	}
	r := item + " " + repetition("("+sep+" "+item+")", max(lo-1, 0), more, "")
	if lo == 0 {
		r = "(" + r + ")?"
	}
	return r
}

// jsonText returns v as JSON text, without HTML escaping.
func jsonText(v any) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return "null"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// constLiteral returns the GBNF literal of the JSON value raw as a model
// must write it: compact, object keys sorted, numbers as in the schema.
func constLiteral(raw json.RawMessage) (string, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	if _, err := d.Token(); err != io.EOF {
		return "", fmt.Errorf("more than one value")
	}
	return GrammarLiteral(jsonText(v)), nil
}

// GrammarLiteral quotes s as a GBNF string literal, for a grammar that
// embeds fixed text (a tool call's wrapper around SchemaRules, say).
func GrammarLiteral(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if e, ok := grammarEscapes[r]; ok {
			b.WriteString(e)
		} else if r < 0x20 || r == 0x7F {
			fmt.Fprintf(&b, `\x%02X`, r)
		} else {
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// grammarEscapes are the characters a GBNF literal writes escaped (other
// control characters are written \xHH).
var grammarEscapes = map[rune]string{'"': `\"`, '\\': `\\`, '\n': `\n`, '\r': `\r`, '\t': `\t`}

// classRune writes r for a GBNF character class: letters and digits as
// themselves, everything else as an escape.
func classRune(r rune) string {
	switch {
	case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
		return string(r)
	case r <= 0xFF:
		return fmt.Sprintf(`\x%02X`, r)
	case r <= 0xFFFF:
		return fmt.Sprintf(`\u%04X`, r)
	}
	return fmt.Sprintf(`\U%08X`, r)
}

// format writes the rules, the root first and the others by name.
func (s *schemaConv) format() string {
	root := s.prefix + "root"
	names := make([]string, 0, len(s.rules))
	for n := range s.rules {
		if n != root {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range append([]string{root}, names...) {
		if body, ok := s.rules[n]; ok {
			b.WriteString(n + " ::= " + body + "\n")
		}
	}
	return b.String()
}

// orderedMembers returns the keys and raw values of a JSON object in the
// order they are written.
func orderedMembers(raw []byte) ([]string, []json.RawMessage, error) {
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
	seen := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := t.(string)
		if seen[name] {
			return nil, nil, fmt.Errorf("duplicate property %q", name)
		}
		seen[name] = true
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

// taken reports whether a rule is called name.
func (s *schemaConv) taken(name string) bool {
	_, ok := s.rules[name]
	return ok
}

// prefixRefs prefixes the rule names a GBNF body refers to (the words
// outside literals, classes and repetition bounds).
func prefixRefs(body, prefix string) string {
	var b strings.Builder
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '"' || c == '[':
			close := byte('"')
			if c == '[' {
				close = ']'
			}
			j := i + 1
			for j < len(body) && body[j] != close {
				if body[j] == '\\' {
					j++
				}
				j++
			}
			b.WriteString(body[i:min(j+1, len(body))])
			i = j + 1
		case c == '{':
			j := strings.IndexByte(body[i:], '}')
			if j < 0 {
				j = len(body) - i - 1
			}
			b.WriteString(body[i : i+j+1])
			i += j + 1
		case isNameByte(c):
			j := i
			for j < len(body) && isNameByte(body[j]) {
				j++
			}
			b.WriteString(prefix + body[i:j])
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// intDigits is the most digits an integer may have, as llama.cpp's
// integral-part rule.
const intDigits = 16

// intRange returns the body of an integer rule bounded by minimum,
// maximum, exclusiveMinimum and exclusiveMaximum (numbers, or the
// exclusive ones as booleans of draft 4), or ok false when none is set.
func intRange(kw map[string]json.RawMessage, path string) (body string, ok bool, err error) {
	num := func(k string) (float64, bool, error) {
		raw, ok := kw[k]
		if !ok {
			return 0, false, nil
		}
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			var b bool
			if json.Unmarshal(raw, &b) == nil {
				return 0, false, nil // draft 4: read with minimum/maximum
			}
			return 0, false, schemaFail(path, "%s must be a number", k)
		}
		return f, true, nil
	}
	flag := func(k string) bool {
		var b bool
		return json.Unmarshal(kw[k], &b) == nil && b
	}
	const limit = 1e16 // beyond intDigits: no bound
	lo, hi := math.Inf(-1), math.Inf(1)
	if v, ok, err := num("minimum"); err != nil {
		return "", false, err
	} else if ok {
		if lo = math.Ceil(v); flag("exclusiveMinimum") && lo == v {
			lo++
		}
	}
	if v, ok, err := num("exclusiveMinimum"); err != nil {
		return "", false, err
	} else if ok {
		lo = max(lo, math.Floor(v)+1)
	}
	if v, ok, err := num("maximum"); err != nil {
		return "", false, err
	} else if ok {
		if hi = math.Floor(v); flag("exclusiveMaximum") && hi == v {
			hi--
		}
	}
	if v, ok, err := num("exclusiveMaximum"); err != nil {
		return "", false, err
	} else if ok {
		hi = min(hi, math.Ceil(v)-1)
	}
	if lo > hi {
		return "", false, schemaFail(path, "no integer is between the minimum and the maximum")
	}
	hasLo, hasHi := lo > -limit, hi < limit
	if !hasLo && !hasHi {
		return "", false, nil
	}
	var alts []string
	// Negative numbers: "-" and a magnitude.
	if !hasLo || lo < 0 {
		mlo := int64(1)
		if hasHi && hi < 0 {
			mlo = int64(-hi)
		}
		if hasLo {
			alts = append(alts, `"-" (`+natRange(mlo, int64(-lo), true)+`)`)
		} else {
			alts = append(alts, `"-" (`+natRange(mlo, 0, false)+`)`)
		}
	}
	if !hasHi || hi >= 0 {
		nlo := int64(0)
		if hasLo && lo > 0 {
			nlo = int64(lo)
		}
		if hasHi {
			alts = append(alts, natRange(nlo, int64(hi), true))
		} else {
			alts = append(alts, natRange(nlo, 0, false))
		}
	}
	return strings.Join(alts, " | "), true, nil
}

// natRange writes the natural numbers from a to b (to any length up to
// intDigits when not bounded), without leading zeros.
func natRange(a, b int64, bounded bool) string {
	as := strconv.FormatInt(a, 10)
	if !bounded {
		alts := []string{sameLenRange(as, strings.Repeat("9", len(as)))}
		if len(as) < intDigits {
			alts = append(alts, "[1-9] "+digits(len(as), intDigits-1))
		}
		return strings.Join(alts, " | ")
	}
	bs := strconv.FormatInt(b, 10)
	var alts []string
	for d := len(as); d <= len(bs); d++ {
		from, to := as, bs
		if d > len(as) {
			from = "1" + strings.Repeat("0", d-1)
		}
		if d < len(bs) {
			to = strings.Repeat("9", d)
		}
		alts = append(alts, sameLenRange(from, to))
	}
	return strings.Join(alts, " | ")
}

// digits writes [0-9] repeated lo to hi times.
func digits(lo, hi int) string {
	switch {
	case lo == hi && lo == 1:
		return "[0-9]"
	case lo == hi:
		return fmt.Sprintf("[0-9]{%d}", lo)
	}
	return fmt.Sprintf("[0-9]{%d,%d}", lo, hi)
}

// sameLenRange writes the numbers from x to y, decimal strings of the
// same length with x <= y.
func sameLenRange(x, y string) string {
	i := 0
	for i < len(x) && x[i] == y[i] {
		i++
	}
	if i == len(x) {
		return `"` + x + `"`
	}
	prefix := ""
	if i > 0 {
		prefix = `"` + x[:i] + `" `
	}
	n := len(x) - i - 1
	if n == 0 {
		return prefix + "[" + x[i:i+1] + "-" + y[i:i+1] + "]"
	}
	xr, yr := x[i+1:], y[i+1:]
	zeros, nines := strings.Repeat("0", n), strings.Repeat("9", n)
	lo, hi := x[i], y[i]
	var alts []string
	if xr != zeros {
		alts = append(alts, "["+string(lo)+"] ("+sameLenRange(xr, nines)+")")
		lo++
	}
	last := ""
	if yr != nines {
		last = "[" + string(hi) + "] (" + sameLenRange(zeros, yr) + ")"
		hi--
	}
	if lo <= hi {
		alts = append(alts, "["+string(lo)+"-"+string(hi)+"] "+digits(n, n))
	}
	if last != "" {
		alts = append(alts, last)
	}
	return prefix + "(" + strings.Join(alts, " | ") + ")"
}
