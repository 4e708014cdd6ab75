package sample

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

const personSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string"},
    "age": {"type": "integer"},
    "height": {"type": "number"},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
    "pet": {"type": ["object", "null"], "properties": {"kind": {"enum": ["cat", "dog", 7, true, null]}}, "required": ["kind"]},
    "ok": {"type": "boolean"}
  },
  "required": ["name", "age"]
}`

const listSchema = `{
  "type": "array", "minItems": 1, "maxItems": 2,
  "items": {"type": "object", "properties": {"id": {"type": "integer"}, "v": {"const": "x<y"}}, "required": ["id", "v"]}
}`

// mustConstraint compiles schema ("": json_object mode, any object) to
// a grammar constraint.
func mustConstraint(t testing.TB, schema string) *GrammarConstraint {
	t.Helper()
	if schema == "" {
		schema = `{"type": "object"}`
	}
	return schemaConstraint(t, schema)
}

// TestJSONValid feeds valid documents byte by byte and in random chunks.
func TestJSONValid(t *testing.T) {
	for _, tc := range []struct {
		name, schema, doc string
		// early: a proper prefix may be Complete (top-level numbers, enums)
		early bool
	}{
		{"object mode empty", "", `{}`, false},
		{"object mode nested", "", `{"a": [1, -2.5e+3, true, false, null, {"b": "\u00e9\n\"\\\/"}], "c": {}}`, false},
		{"object mode pretty", "", "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}", false},
		{"object mode utf8", "", `{"日本": "héllo 🎉"}`, false},
		{"person min", personSchema, `{"name":"Ann","age":41}`, false},
		{"person full", personSchema, `{"name": "Ann", "age": -0, "height": 1.75, "tags": ["a","b","c"], "pet": {"kind": "dog"}, "ok": true}`, false},
		{"person skip optional", personSchema, `{"name":"A","age":1,"pet":null}`, false},
		{"person enum number", personSchema, `{"name":"A","age":1,"pet":{"kind":7}}`, false},
		{"person enum literals", personSchema, `{"name":"A","age":1,"pet":{"kind":true},"ok":false}`, false},
		{"person enum null", personSchema, `{"name":"A","age":1,"pet":{"kind":null}}`, false},
		{"array of objects", listSchema, `[{"id":1,"v":"x<y"},{"id":20,"v":"x<y"}]`, false},
		{"any value", `{}`, `[1,{"a":null}]`, false},
		{"top number", `{"type":"number"}`, `12.5e-3`, true},
		{"top integer", `{"type":"integer"}`, `-120`, true},
		{"top enum", `{"enum":[1,12,123]}`, `123`, true},
		{"top string or null", `{"type":["string","null"]}`, `null`, false},
		{"nested arrays", `{"type":"array","items":{"type":"array","items":{"type":"integer"}}}`, `[[1,2],[],[3]]`, false},
		{"free object schema", `{"type":"object","title":"t","description":"d"}`, `{"x":{"y":[1]}}`, false},
		{"closed empty object", `{"type":"object","additionalProperties":false}`, `{}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Byte by byte.
			c := mustConstraint(t, tc.schema)
			for i := 0; i < len(tc.doc); i++ {
				if !tc.early && c.Complete() {
					t.Fatalf("Complete after %q", tc.doc[:i])
				}
				if !c.Allows(tc.doc[i : i+1]) {
					t.Fatalf("rejects byte %d (%q) after %q", i, tc.doc[i], tc.doc[:i])
				}
				if err := c.Advance(tc.doc[i : i+1]); err != nil {
					t.Fatal(err)
				}
			}
			if !c.Complete() {
				t.Fatalf("not Complete after %q", tc.doc)
			}
			if c.Allows(" ") || c.Allows("x") {
				t.Errorf("allows text after the value")
			}
			// Random chunkings.
			r := rand.New(rand.NewPCG(1, uint64(len(tc.doc))))
			for range 20 {
				c := mustConstraint(t, tc.schema)
				for rest := tc.doc; rest != ""; {
					n := min(1+r.IntN(10), len(rest))
					if !c.Allows(rest[:n]) {
						t.Fatalf("rejects chunk %q before %q", rest[:n], rest[n:])
					}
					if err := c.Advance(rest[:n]); err != nil {
						t.Fatal(err)
					}
					rest = rest[n:]
				}
				if !c.Complete() {
					t.Fatal("not Complete")
				}
			}
			if !json.Valid([]byte(tc.doc)) {
				t.Errorf("test document is not valid JSON")
			}
		})
	}
}

// TestJSONInvalid checks the byte at which invalid documents are refused.
func TestJSONInvalid(t *testing.T) {
	// doc's last byte is the first one that must be rejected.
	for _, tc := range []struct{ name, schema, doc string }{
		{"not object", "", `[`},
		{"not object string", "", `"`},
		{"trailing comma object", "", `{"a":1,}`},
		{"trailing comma array", "", `{"a":[1,]`},
		{"leading zero", "", `{"a":01`},
		{"leading zero neg", "", `{"a":-01`},
		{"bare minus", "", `{"a":-}`},
		{"dot no digits", "", `{"a":1.}`},
		{"exp no digits", "", `{"a":1e}`},
		{"bad escape", "", `{"a":"\x`},
		{"bad unicode escape", "", `{"a":"\u12g`},
		{"control char", "", "{\"a\":\"\n"},
		{"bad utf8", "", "{\"a\":\"\xff"},
		{"overlong utf8", "", "{\"a\":\"\xc0"},
		{"surrogate utf8", "", "{\"a\":\"\xed\xa0"},
		{"text after value", "", `{}x`},
		{"space after value", "", `{} `},
		{"single quote", "", `{'`},
		{"bad literal", "", `{"a":tru `},
		{"unquoted key", "", `{a`},
		{"missing colon", "", `{"a" 1`[:5]},
		{"leading whitespace", "", " "},
		{"too much whitespace", "", "{" + strings.Repeat(" ", 3)},
		{"too many newlines", "", "{\n\n\n\n\n"},
		{"too much indentation", "", "{\n" + strings.Repeat(" ", 22)},
		{"wrong type string", personSchema, `{"name":1`},
		{"wrong type integer", personSchema, `{"name":"A","age":"`},
		{"integer no fraction", personSchema, `{"name":"A","age":1.`},
		{"integer no exponent", personSchema, `{"name":"A","age":1e`},
		{"missing required first", personSchema, `{"a`},
		{"missing required close", personSchema, `{"name":"A"}`},
		{"missing required empty", personSchema, `{}`},
		{"extra property", personSchema, `{"name":"A","age":1,"x`},
		{"out of order", personSchema, `{"name":"A","age":1,"tags":[],"h`},
		{"duplicate property", personSchema, `{"name":"A","age":1,"n`},
		{"comma after last", personSchema, `{"name":"A","age":1,"pet":null,"ok":true,`},
		{"maxItems", personSchema, `{"name":"A","age":1,"tags":["a","b","c",`},
		{"enum bad string", personSchema, `{"name":"A","age":1,"pet":{"kind":"co`},
		{"enum bad number", personSchema, `{"name":"A","age":1,"pet":{"kind":70`},
		{"enum prefix only", personSchema, `{"name":"A","age":1,"pet":{"kind":"ca"`},
		{"required in nested", personSchema, `{"name":"A","age":1,"pet":{}`},
		{"minItems", listSchema, `[]`},
		{"array maxItems", listSchema, `[{"id":1,"v":"x<y"},{"id":2,"v":"x<y"},`},
		{"const", listSchema, `[{"id":1,"v":"x\`},
		{"top integer fraction", `{"type":"integer"}`, `1.`},
		{"top number then space", `{"type":"number"}`, `1 `},
		{"closed empty object", `{"type":"object","additionalProperties":false}`, `{"`},
		{"string not null", `{"type":["string","null"]}`, `t`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustConstraint(t, tc.schema)
			last := len(tc.doc) - 1
			if !c.Allows(tc.doc[:last]) {
				t.Fatalf("rejects the valid prefix %q", tc.doc[:last])
			}
			if c.Allows(tc.doc) {
				t.Fatalf("allows %q", tc.doc)
			}
			if err := c.Advance(tc.doc); err == nil {
				t.Fatalf("Advance(%q) succeeded", tc.doc)
			}
			// A failed Advance leaves the state alone.
			if err := c.Advance(tc.doc[:last]); err != nil {
				t.Fatalf("state changed by a failed Advance: %v", err)
			}
		})
	}
}

// TestJSONAllowsDoesNotAllocate checks that asking again from a state
// whose transitions are cached allocates nothing.
func TestJSONAllowsDoesNotAllocate(t *testing.T) {
	c := mustConstraint(t, personSchema)
	if err := c.Advance(`{"name":"Ann","age":4`); err != nil {
		t.Fatal(err)
	}
	c.Allows(`1,"tags":["x"`)
	c.Allows(`"`)
	if n := testing.AllocsPerRun(100, func() {
		c.Allows(`1,"tags":["x"`)
		c.Allows(`"`)
	}); n != 0 {
		t.Errorf("Allows allocates %v times", n)
	}
}

// FuzzJSON checks that Allows and Advance agree, byte by byte and whole,
// and that a complete document is valid JSON.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,2.5e3,"x\u00e9"]}`, `{"a":{"b":null}}`, `{"a":tru`, "{\"\xe2\x82\xac\":0}"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
	}
	schemas := []string{"", personSchema, listSchema, `{}`, `{"type":"number"}`}
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		c := mustConstraint(t, schemas[int(which)%len(schemas)])
		ok := c.Allows(s)
		if err := c.Advance(s); (err == nil) != ok {
			t.Fatalf("Allows(%q) = %v but Advance error = %v", s, ok, err)
		}
		if ok && c.Complete() && !json.Valid([]byte(s)) {
			t.Fatalf("accepted and Complete, but not valid JSON: %q", s)
		}
		// Byte by byte agrees with all at once.
		c2 := mustConstraint(t, schemas[int(which)%len(schemas)])
		all := true
		for i := 0; i < len(s) && all; i++ {
			all = c2.Advance(s[i:i+1]) == nil
		}
		if all != ok {
			t.Fatalf("byte-wise acceptance %v != whole %v for %q", all, ok, s)
		}
	})
}

// BenchmarkGrammarAllows asks about one token text mid-document.
func BenchmarkGrammarAllows(b *testing.B) {
	c := mustConstraint(b, personSchema)
	if err := c.Advance(`{"name":"Ann","age":41,"tags":["a`); err != nil {
		b.Fatal(err)
	}
	toks := []string{"b", `",`, `"]`, " the", "1", "},", `\n`, "ing", `"}`, "{\""}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c.Allows(toks[i%len(toks)])
	}
}
