package chat

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Tool-call grammars enforce tool_choice "required" and a named function
// by constrained decoding: ToolGrammar writes, in llama.cpp's GBNF syntax,
// the text of one call (or of one or more, when parallel) in a format,
// with each call's arguments constrained by its tool's parameters schema.
// The schemas become GBNF through a converter (sample.SchemaRules), under
// a rule-name prefix of their own.

// SchemaToGrammar converts a JSON schema to GBNF rules whose names all
// start with prefix (letters, digits and '-'), the value's rule being
// prefix+"root": sample.SchemaRules.
type SchemaToGrammar func(schema []byte, prefix string) (string, error)

// ToolGrammar returns the GBNF grammar of a reply that must call tools
// in format f: calls of the tools choice allows, one, or one or more when
// choice.Parallel (harmony ends its turn at a call: one), and nothing
// else but harmony's reasoning before it. It returns "" when choice does
// not require a call ("auto": the reply is free) or the format has no
// grammar (ToolNone). The generic format's reply always has one, that of
// GenericToolSchema, since it is JSON even for "auto". The markers are
// written as text; a grammar engine that matches special tokens by their
// text accepts them.
func ToolGrammar(f ToolFormat, tools []Tool, choice ToolChoice, toGrammar SchemaToGrammar) (string, error) {
	free := !choice.Required && choice.Name == ""
	if free && f != ToolGeneric || f == ToolNone {
		return "", nil
	}
	allowed := choice.Allowed(tools)
	if len(allowed) == 0 {
		return "", fmt.Errorf("chat: tool_choice %q is not among the tools", choice.Name)
	}
	g := &grammarBuilder{toGrammar: toGrammar}
	if f == ToolGeneric {
		ref, err := g.schema("reply", GenericToolSchema(tools, choice))
		if err != nil {
			return "", err
		}
		return g.grammar("root ::= " + ref), nil
	}
	var alts []string
	for i, t := range allowed {
		call, err := g.call(f, i, t)
		if err != nil {
			return "", err
		}
		alts = append(alts, call)
	}
	g.rule("call", strings.Join(alts, " | "))
	var root string
	many := choice.Parallel
	switch f {
	case ToolHermes:
		root = `"<tool_call>\n" call "\n</tool_call>"`
		if many {
			root += ` ("\n<tool_call>\n" call "\n</tool_call>")*`
		}
	case ToolLlama3:
		root = `call` // Llama 3 writes one call at a time
	case ToolMistral, ToolGranite:
		marker := mistralTag
		if f == ToolGranite {
			marker = graniteTag
		}
		root = lit(marker+"[") + ` call`
		if many {
			root += ` (", " call)*`
		}
		root += ` "]"`
	case ToolCommandR7B:
		root = lit(commandRAction+"[\n    ") + ` call`
		if many {
			root += ` (",\n    " call)*`
		}
		root += " " + lit("\n]"+commandREnd)
	case ToolDeepSeekR1, ToolDeepSeekV31:
		root = lit(deepseekCallsBegin) + " call"
		if many {
			root += ` ("\n" call)*`
		}
		root += " " + lit(deepseekCallsEnd)
	case ToolQwen3Coder, ToolGLM45:
		root = `call`
		if many {
			root += ` ("\n" call)*`
		}
	case ToolFunctionaryV31:
		root = `call`
		if many {
			root += ` call*`
		}
	case ToolFunctionaryV32:
		root = `call`
		if many {
			root += ` (">>>" call)*`
		}
	case ToolHarmony:
		root = `(` + lit(harmonyChannel+"analysis"+harmonyMessage) + ` [^<]* ` + lit(harmonyEnd+harmonyStart+"assistant") + `)? call`
	}
	return g.grammar("root ::= " + root), nil
}

// grammarBuilder collects the rules of a tool-call grammar.
type grammarBuilder struct {
	toGrammar SchemaToGrammar
	rules     []string
}

// rule adds the rule name ::= body.
func (g *grammarBuilder) rule(name, body string) {
	g.rules = append(g.rules, name+" ::= "+body)
}

// grammar returns the grammar: root first, then the rules in order.
func (g *grammarBuilder) grammar(root string) string {
	return root + "\n" + strings.Join(g.rules, "\n") + "\n"
}

// schema adds the rules of a JSON schema, named under prefix, and
// returns the name of its root rule.
func (g *grammarBuilder) schema(prefix string, schema []byte) (string, error) {
	if len(schema) == 0 {
		schema = []byte(`{"type":"object"}`)
	}
	src, err := g.toGrammar(schema, prefix+"-")
	if err != nil {
		return "", fmt.Errorf("chat: the grammar of %s: %w", prefix, err)
	}
	g.rules = append(g.rules, strings.TrimSpace(src))
	return prefix + "-root", nil
}

// call returns the grammar expression of one call of tool t (the i-th
// allowed one) in format f, adding the rules it needs.
func (g *grammarBuilder) call(f ToolFormat, i int, t Tool) (string, error) {
	prefix := "tool" + strconv.Itoa(i)
	name := lit(t.Name)
	quoted, _ := json.Marshal(t.Name) // a string always encodes
	jsonName := lit(string(quoted))
	if f == ToolQwen3Coder || f == ToolGLM45 {
		return g.xmlCall(f, prefix, t)
	}
	args, err := g.schema(prefix+"-args", t.Parameters)
	if err != nil {
		return "", err
	}
	switch f {
	case ToolHermes, ToolMistral, ToolGranite:
		return `"{\"name\": " ` + jsonName + ` ", \"arguments\": " ` + args + ` "}"`, nil
	case ToolLlama3:
		return `"{\"name\": " ` + jsonName + ` ", \"parameters\": " ` + args + ` "}"`, nil
	case ToolCommandR7B:
		return `"{\"tool_call_id\": \"" [0-9] "\", \"tool_name\": " ` + jsonName + ` ", \"parameters\": " ` + args + ` "}"`, nil
	case ToolDeepSeekR1:
		return lit(deepseekCallBegin+"function"+deepseekSep) + " " + name + ` "\n` + "```" + `json\n" ` + args + ` "\n` + "```" + `" ` + lit(deepseekCallEnd), nil
	case ToolDeepSeekV31:
		return lit(deepseekCallBegin) + " " + name + " " + lit(deepseekSep) + " " + args + " " + lit(deepseekCallEnd), nil
	case ToolFunctionaryV31:
		return lit(functionaryOpen) + " " + name + ` ">" ` + args + " " + lit(functionaryClose), nil
	case ToolFunctionaryV32:
		return name + ` "\n" ` + args, nil
	case ToolHarmony:
		return lit(harmonyChannel+"commentary to=functions."+t.Name+" <|constrain|>json"+harmonyMessage) + " " + args + " " + lit(harmonyCall), nil
	}
	return "", fmt.Errorf("chat: no grammar for the %v tool-call format", f)
}

// xmlCall returns the expression of a call in the XML formats: the
// parameters of the tool's schema in its order (the required ones
// always, the others optional), a string one as raw text and the others
// as JSON of their own schemas.
func (g *grammarBuilder) xmlCall(f ToolFormat, prefix string, t Tool) (string, error) {
	props, required, err := schemaProperties(t.Parameters)
	if err != nil {
		return "", fmt.Errorf("chat: tool %q: %w", t.Name, err)
	}
	var parts []string
	for j, p := range props {
		var value string
		if ts := t.types[p.name]; len(ts) == 1 && ts[0] == "string" {
			value = g.text(prefix+"-p"+strconv.Itoa(j), p.schema)
		} else {
			v, err := g.schema(prefix+"-p"+strconv.Itoa(j), p.schema)
			if err != nil {
				return "", err
			}
			value = v
		}
		var part string
		if f == ToolQwen3Coder {
			part = lit("<parameter="+p.name+">\n") + " " + value + " " + lit("\n</parameter>\n")
		} else {
			part = lit(glmKey+p.name+glmKeyClose+"\n"+glmValue) + " " + value + " " + lit(glmValueClose+"\n")
		}
		if !required[p.name] {
			part = "(" + part + ")?"
		}
		parts = append(parts, part)
	}
	body := strings.Join(parts, " ")
	if body == "" {
		body = `""`
	}
	if f == ToolQwen3Coder {
		return lit("<tool_call>\n<function="+t.Name+">\n") + " " + body + " " + lit("</function>\n</tool_call>"), nil
	}
	return lit("<tool_call>"+t.Name+"\n") + " " + body + " " + lit("</tool_call>"), nil
}

// text adds the rule of a raw text value of a string schema, named
// name, and returns its name: anything without "<" (which could start a
// closing tag), of at most the schema's maxLength bytes if it has one.
func (g *grammarBuilder) text(name string, schema json.RawMessage) string {
	var s struct {
		MaxLength *int `json:"maxLength"`
	}
	body := `[^<]*`
	if json.Unmarshal(schema, &s) == nil && s.MaxLength != nil && *s.MaxLength >= 0 {
		body = `[^<]{0,` + strconv.Itoa(*s.MaxLength) + `}`
	}
	g.rule(name, body)
	return name
}

// schemaProp is one top-level property of a parameters schema.
type schemaProp struct {
	name   string
	schema json.RawMessage
}

// schemaProperties returns a parameters schema's properties in their
// order, and which are required.
func schemaProperties(schema json.RawMessage) ([]schemaProp, map[string]bool, error) {
	if len(schema) == 0 {
		return nil, nil, nil
	}
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, nil, err
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	if len(s.Properties) == 0 {
		return nil, required, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(s.Properties)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("properties is not an object")
	}
	var props []schemaProp
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		props = append(props, schemaProp{name: tok.(string), schema: v})
	}
	return props, required, nil
}

// gbnfEscaper escapes the characters a GBNF string literal cannot hold
// as they are.
var gbnfEscaper = strings.NewReplacer(`"`, `\"`, `\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`)

// lit returns s as a GBNF string literal.
func lit(s string) string {
	s = gbnfEscaper.Replace(s)
	if strings.IndexFunc(s, func(r rune) bool { return r < 0x20 }) >= 0 {
		var b strings.Builder
		for _, r := range s {
			if r < 0x20 {
				fmt.Fprintf(&b, `\x%02X`, r)
			} else {
				b.WriteRune(r)
			}
		}
		s = b.String()
	}
	return `"` + s + `"`
}
