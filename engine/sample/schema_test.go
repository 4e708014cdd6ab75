package sample

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// schemaConstraint compiles schema and returns a constraint at its start.
func schemaConstraint(t testing.TB, schema string) *GrammarConstraint {
	t.Helper()
	return NewGrammarConstraint(compileSchema(t, []byte(schema)))
}

// compileSchema compiles schema to a parsed grammar.
func compileSchema(t testing.TB, schema []byte) *Grammar {
	t.Helper()
	src, err := SchemaGrammar(schema)
	if err != nil {
		t.Fatalf("%s: %v", schema, err)
	}
	g, err := ParseGrammar(src)
	if err != nil {
		t.Fatalf("%s: %v\n%s", schema, err, src)
	}
	return g
}

// checkInstance feeds text and reports whether it was accepted to the
// end, complete, or the byte at which it was refused.
func checkInstance(c *GrammarConstraint, text string) (complete bool, at int) {
	if at := feed(c, text); at >= 0 {
		return false, at
	}
	return c.Complete(), -1
}

// TestSchemaFixtures runs the schemas zod 4 and Pydantic 2 emit (see
// testdata/schemas/README.md) against their valid and invalid instances.
func TestSchemaFixtures(t *testing.T) {
	raw, err := os.ReadFile("testdata/schemas/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases map[string]struct {
		Valid   []string
		Invalid []struct {
			Text string
			At   int
		}
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/schemas/*-*.json")
	if len(files) != len(cases) {
		t.Errorf("%d schemas, cases for %d", len(files), len(cases))
	}
	for name, cs := range cases {
		schema, err := os.ReadFile("testdata/schemas/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range cs.Valid {
			if !json.Valid([]byte(v)) {
				t.Errorf("%s: the fixture %q is not JSON", name, v)
			}
			if ok, at := checkInstance(schemaConstraint(t, string(schema)), v); !ok {
				t.Errorf("%s: %q refused at %d (%q)", name, v, at, v[:max(at, 0)])
			}
		}
		for _, inv := range cs.Invalid {
			if _, at := checkInstance(schemaConstraint(t, string(schema)), inv.Text); at != inv.At {
				t.Errorf("%s: %q refused at %d, want %d", name, inv.Text, at, inv.At)
			}
		}
	}
}

func TestSchemaKeywords(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		ok           []string
		bad          map[string]int // text -> byte refused (len(text): accepted but not complete)
	}{
		{"any value", `{}`, []string{`1`, `"s"`, `[1, {"a": null}]`, `true`}, map[string]int{`x`: 0}},
		{"true", `true`, []string{`null`, `{}`}, nil},
		{"type object", `{"type": "object"}`, []string{`{}`, `{"a": [1]}`}, map[string]int{`[]`: 0}},
		{"nullable type list", `{"type": ["integer", "null"]}`, []string{`12`, `null`}, map[string]int{`"1"`: 0, `1.5`: 1}},
		{"openapi nullable", `{"type": "string", "nullable": true}`, []string{`"a"`, `null`}, map[string]int{`1`: 0}},
		{"enum of anything", `{"enum": ["a", 1, null, {"k": [true]}]}`, []string{`"a"`, `1`, `null`, `{"k":[true]}`}, map[string]int{`"b"`: 1, `2`: 0}},
		{"const", `{"const": "x\"y"}`, []string{`"x\"y"`}, map[string]int{`"xy"`: 2}},
		{"anyOf", `{"anyOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "integer"}}]}`, []string{`true`, `[1, 2]`}, map[string]int{`"x"`: 0, `[1.5`: 2}},
		{"oneOf", `{"oneOf": [{"const": 1}, {"const": 2}]}`, []string{`1`, `2`}, map[string]int{`3`: 0}},
		{"optional properties in order", `{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}}, "required": ["b"]}`,
			[]string{`{"b": 1}`, `{"b": 1, "a": 2, "c": 3}`, `{"b": 1, "c": 3}`}, map[string]int{`{"a": 1`: 2, `{"b": 1, "c": 3, "a"`: 15, `{}`: 1}},
		{"required order is the properties' order", `{"properties": {"x": {}, "y": {}}, "required": ["y", "x"]}`,
			[]string{`{"x": 1, "y": 2}`}, map[string]int{`{"y"`: 2}},
		{"additionalProperties true", `{"properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": true}`,
			[]string{`{"a": 1}`, `{"a": 1, "b": "x", "ab": [], "": null}`}, map[string]int{`{"a": 1, "a"`: 11}},
		{"additionalProperties schema", `{"type": "object", "additionalProperties": {"type": "string"}}`,
			[]string{`{}`, `{"k": "v", "l": "w"}`}, map[string]int{`{"k": 1`: 6}},
		{"additionalProperties false", `{"type": "object", "additionalProperties": false}`, []string{`{}`}, map[string]int{`{"a"`: 1}},
		{"allOf merged", `{"allOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"properties": {"b": {"type": "string"}}, "required": ["b"]}]}`,
			[]string{`{"a": 1, "b": "x"}`}, map[string]int{`{"b"`: 2}},
		{"allOf of one ref", `{"$defs": {"s": {"type": "string", "maxLength": 2}}, "allOf": [{"$ref": "#/$defs/s"}]}`, []string{`"ab"`}, map[string]int{`"abc`: 3}},
		{"allOf enums", `{"allOf": [{"enum": ["a", "b", "c"]}, {"enum": ["b", "c", "d"]}]}`, []string{`"b"`, `"c"`}, map[string]int{`"a"`: 1, `"d"`: 1}},
		{"definitions ref", `{"definitions": {"n": {"type": "integer"}}, "type": "array", "items": {"$ref": "#/definitions/n"}}`, []string{`[1, 2]`}, map[string]int{`["`: 1}},
		{"recursive ref", `{"$defs": {"l": {"type": "array", "items": {"$ref": "#/$defs/l"}}}, "$ref": "#/$defs/l"}`, []string{`[]`, `[[], [[]]]`}, map[string]int{`[1`: 1}},
		{"prefixItems", `{"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false}`, []string{`[1, "a"]`}, map[string]int{`[1]`: 2, `["a"`: 1}},
		{"minItems maxItems", `{"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2}`, []string{`[1]`, `[1, 2]`}, map[string]int{`[]`: 1, `[1, 2, `: 5}},
		{"minItems without items", `{"type": "array", "minItems": 1}`, []string{`[null]`}, map[string]int{`[]`: 1}},
		{"string length", `{"type": "string", "minLength": 2, "maxLength": 3}`, []string{`"ab"`, `"a\"c"`, `"éé"`}, map[string]int{`"a"`: 2, `"abcd`: 4}},
		{"pattern anchored", `{"type": "string", "pattern": "^(ab|c)+\\d?$"}`, []string{`"ab"`, `"cab7"`}, map[string]int{`"a"`: 2, `"ab77`: 4, `""`: 1}},
		{"pattern unanchored", `{"type": "string", "pattern": "x{2}"}`, []string{`"xx"`, `"axxb"`}, map[string]int{`"x"`: 2}},
		{"pattern with quote and backslash", `{"pattern": "^a\"\\\\b$"}`, []string{`"a\"\\b"`}, map[string]int{`"a"`: 2}},
		{"pattern class", `{"pattern": "^[^a-c]\\w\\s[\\d.-]$"}`, []string{`"x_ 1"`, `"d9 -"`}, map[string]int{`"a`: 1, `"xx 1x`: 5, `"""`: 1}},
		{"pattern unsupported", `{"type": "string", "pattern": "^(?=a)a$"}`, []string{`"anything"`}, nil},
		{"format uuid", `{"type": "string", "format": "uuid"}`, []string{`"123e4567-e89b-12d3-a456-426614174000"`}, map[string]int{`"123e4567-`: 10, `"x`: 1}},
		{"format date-time", `{"type": "string", "format": "date-time"}`, []string{`"2024-01-31T12:00:00Z"`, `"2024-01-31T12:00:00.000-07:00"`}, map[string]int{`"2024-1-`: 7}},
		{"format time", `{"type": "string", "format": "time"}`, []string{`"23:59:59Z"`}, map[string]int{`"24`: 2}},
		{"format unknown", `{"type": "string", "format": "email"}`, []string{`"x"`}, nil},
		{"integer range", `{"type": "integer", "minimum": -15, "maximum": 307}`,
			[]string{`-15`, `-9`, `0`, `9`, `10`, `99`, `100`, `299`, `300`, `307`},
			map[string]int{`-16`: 2, `-0`: 1, `308`: 2, `01`: 1, `400`: 2, `3070`: 3}},
		{"integer exclusive", `{"type": "integer", "exclusiveMinimum": 10, "exclusiveMaximum": 20}`, []string{`11`, `19`}, map[string]int{`10`: 1, `20`: 0, `9`: 0}},
		{"integer draft 4 exclusive", `{"type": "integer", "minimum": 0, "exclusiveMinimum": true}`, []string{`1`, `123456`}, map[string]int{`0`: 0, `-`: 0}},
		{"integer minimum only", `{"type": "integer", "minimum": 25}`, []string{`25`, `99`, `100`, `1234567`}, map[string]int{`24`: 2, `-1`: 0, `2`: 1}},
		{"integer maximum only", `{"type": "integer", "maximum": -5}`, []string{`-5`, `-6`, `-100`}, map[string]int{`-4`: 2, `0`: 0}},
		{"zod safe integer", `{"type": "integer", "minimum": -9007199254740991, "maximum": 9007199254740991}`, []string{`0`, `-9007199254740991`, `42`}, map[string]int{`9007199254740992`: 15}},
		{"number bounds ignored", `{"type": "number", "minimum": 0}`, []string{`-1.5`}, nil},
		{"unknown keywords", `{"type": "integer", "x-vendor": 1, "multipleOf": 3, "title": "t"}`, []string{`4`}, nil},
		{"whitespace bounded", `{"type": "array", "items": {"type": "integer"}}`, []string{"[\n\n    1,\n  2\n]", `[ 1]`}, map[string]int{"[  1]": 3, "[\n\n\n\n\n": 5, `[ 1 ,`: 4}},
	} {
		for _, s := range tc.ok {
			if ok, at := checkInstance(schemaConstraint(t, tc.schema), s); !ok {
				t.Errorf("%s: %q refused at %d", tc.name, s, at)
			}
		}
		for s, want := range tc.bad {
			ok, at := checkInstance(schemaConstraint(t, tc.schema), s)
			if at < 0 && !ok {
				at = len(s)
			}
			if at != want {
				t.Errorf("%s: %q refused at %d, want %d", tc.name, s, at, want)
			}
		}
	}
}

func TestSchemaErrors(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`[1]`, "#: a schema must be an object"},
		{`false`, "allows no value"},
		{`{"type": "thing"}`, `unknown type "thing"`},
		{`{"type": []}`, "non-empty list"},
		{`{"$ref": "https://example.com/s.json"}`, "only local references"},
		{`{"$ref": "#/$defs/missing"}`, `"$defs" not found`},
		{`{"properties": {"a": {"$ref": "#/nope"}}}`, `#/properties/a: $ref "#/nope"`},
		{`{"enum": []}`, "enum must be a non-empty list"},
		{`{"type": "array", "minItems": 3, "maxItems": 1}`, "minItems 3 is above maxItems 1"},
		{`{"type": "string", "minLength": -1}`, "minLength must be a non-negative integer"},
		{`{"type": "integer", "minimum": 5, "maximum": 4}`, "no integer is between"},
		{`{"type": "string", "pattern": "^(a$"}`, "unbalanced parenthesis"},
		{`{"type": "string", "pattern": "^[a$"}`, "unterminated character class"},
		{`{"pattern": "^*$"}`, "nothing to repeat"},
		{`{"anyOf": [{"type": "string"}, 3]}`, "#/anyOf/1: a schema must be"},
		{`{"$ref": "#"}`, "$ref cycle"},
		{`{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}`, "$ref cycle"},
		{strings.Repeat(`{"items": `, 120) + "{}" + strings.Repeat("}", 120), "nested deeper than"},
		{strings.Repeat(`{"type": ["array", "array"], "items": `, 40) + "{}" + strings.Repeat("}", 40), "sub-schemas to compile"},
	} {
		_, err := SchemaGrammar([]byte(tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60s: error %v, want %q", tc.schema, err, tc.want)
		}
	}
	if _, err := SchemaRules([]byte(`{}`), "bad_prefix"); err == nil {
		t.Error("a prefix with '_' accepted")
	}
}

// TestSchemaRulesEmbed nests two schemas' rules, prefixed, in one grammar.
func TestSchemaRulesEmbed(t *testing.T) {
	a, err := SchemaRules([]byte(`{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}`), "tool-a-")
	if err != nil {
		t.Fatal(err)
	}
	b, err := SchemaRules([]byte(`{"$defs": {"s": {"type": "string"}}, "type": "array", "items": {"$ref": "#/$defs/s"}}`), "tool-b-")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(a+b), "\n") {
		if !strings.HasPrefix(line, "tool-a-") && !strings.HasPrefix(line, "tool-b-") {
			t.Errorf("rule without its prefix: %s", line)
		}
	}
	g, err := ParseGrammar(`root ::= "A" tool-a-root | "B" tool-b-root` + "\n" + a + b)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`A{"n": 1}`, `B["x", "y"]`} {
		if ok, at := checkInstance(NewGrammarConstraint(g), s); !ok {
			t.Errorf("%q refused at %d", s, at)
		}
	}
}

func FuzzParseGrammar(f *testing.F) {
	f.Add(`root ::= "a" [b-c]* ("d" | e){1,3}` + "\ne ::= [^x] .?")
	f.Add("root ::= x\nx ::= \"(\" x? \")\"")
	for _, name := range []string{"zod-person", "pydantic-owner"} {
		raw, _ := os.ReadFile("testdata/schemas/" + name + ".json")
		if src, err := SchemaGrammar(raw); err == nil {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		g, err := ParseGrammar(src)
		if err != nil {
			return
		}
		c := NewGrammarConstraint(g)
		for _, text := range []string{"a", "(", "{\"", "\xff", "é"} {
			c.Allows(text)
			_ = c.Advance(text)
			c.Complete()
		}
	})
}

func FuzzSchemaGrammar(f *testing.F) {
	files, _ := filepath.Glob("testdata/schemas/*-*.json")
	for _, file := range files {
		raw, _ := os.ReadFile(file)
		f.Add(raw)
	}
	f.Add([]byte(`{"type": "integer", "minimum": -3, "maximum": 1234}`))
	f.Add([]byte(`{"pattern": "^(a|[b-d]+)?\\d{2,}$"}`))
	f.Fuzz(func(t *testing.T, schema []byte) {
		src, err := SchemaGrammar(schema)
		if err != nil {
			return
		}
		if _, err := ParseGrammar(src); err != nil {
			t.Fatalf("the grammar of %s does not parse: %v\n%s", schema, err, src)
		}
	})
}

// TestIntegerRanges checks integer bounds against every number of a
// window around them.
func TestIntegerRanges(t *testing.T) {
	type bound struct {
		key string
		v   int
	}
	var cases [][]bound
	for _, lo := range []int{-1000, -101, -100, -99, -10, -9, -1, 0, 1, 5, 9, 10, 11, 99, 100, 250, 999} {
		cases = append(cases, []bound{{"minimum", lo}}, []bound{{"maximum", lo}}, []bound{{"exclusiveMinimum", lo}})
		for _, hi := range []int{-100, -9, -1, 0, 7, 9, 10, 19, 100, 101, 307, 999, 1000, 1200} {
			if hi >= lo {
				cases = append(cases, []bound{{"minimum", lo}, {"maximum", hi}})
			}
		}
	}
	for _, bs := range cases {
		lo, hi := -1<<30, 1<<30
		schema := `{"type": "integer"`
		for _, b := range bs {
			schema += fmt.Sprintf(`, "%s": %d`, b.key, b.v)
			switch b.key {
			case "minimum":
				lo = b.v
			case "exclusiveMinimum":
				lo = b.v + 1
			case "maximum":
				hi = b.v
			}
		}
		schema += "}"
		src, err := SchemaGrammar([]byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		g, err := ParseGrammar(src)
		if err != nil {
			t.Fatalf("%s: %v", schema, err)
		}
		var nums []int
		for _, b := range bs {
			nums = append(nums, b.v-1, b.v, b.v+1)
		}
		for n := -1300; n <= 1300; n += 1 + 12*btoi(n < -120 || n > 120) {
			nums = append(nums, n)
		}
		for _, n := range nums {
			ok, _ := matchGrammar(t, g, strconv.Itoa(n))
			if want := n >= lo && n <= hi; ok != want {
				t.Fatalf("%s: %d accepted %v\n%s", schema, n, ok, src)
			}
		}
		for _, bad := range []string{"-0", "01", "+1", "1.0"} {
			if ok, _ := matchGrammar(t, g, bad); ok {
				t.Fatalf("%s: %q accepted", schema, bad)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestGrammarLiteral(t *testing.T) {
	for _, s := range []string{"", "plain", "<tool_call>\n{\"name\": \"f\\x\"", "tab\there\r", "\x01\x7f", "日本 🦀"} {
		g, err := ParseGrammar("root ::= " + GrammarLiteral(s))
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if ok, at := matchGrammar(t, g, s); !ok {
			t.Errorf("%q: refused at %d", s, at)
		}
	}
}
