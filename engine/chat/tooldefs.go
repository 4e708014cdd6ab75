package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Tool is a request's tool definition, as the parsers, the generic
// format and the grammars of tool calls need it.
type Tool struct {
	// Name is the function's name.
	Name string
	// Description is the function's description, if any.
	Description string
	// Parameters is the JSON schema of the arguments object; nil when the
	// definition has none.
	Parameters json.RawMessage
	// types are the JSON types of each top-level parameter, from its
	// schema's "type" (a name or a list of names).
	types map[string][]string
}

// ParseTools reads tool definitions in the OpenAI shape, {"type":
// "function", "function": {"name": ..., "description": ..., "parameters":
// {...}}}, as json.RawMessage or any other value that encodes to JSON. A
// definition without a function name is an error.
func ParseTools(defs []any) ([]Tool, error) {
	var out []Tool
	for i, d := range defs {
		raw, ok := d.(json.RawMessage)
		if !ok {
			var err error
			if raw, err = json.Marshal(d); err != nil {
				return nil, fmt.Errorf("chat: tools[%d]: %w", i, err)
			}
		}
		var def struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(raw, &def); err != nil {
			return nil, fmt.Errorf("chat: tools[%d]: %w", i, err)
		}
		if def.Function.Name == "" || def.Type != "" && def.Type != "function" {
			return nil, fmt.Errorf("chat: tools[%d] is not a function with a name", i)
		}
		t := Tool{Name: def.Function.Name, Description: def.Function.Description}
		if p := bytes.TrimSpace(def.Function.Parameters); len(p) > 0 && string(p) != "null" {
			t.Parameters = p
			t.types = paramTypes(p)
		}
		out = append(out, t)
	}
	return out, nil
}

// paramTypes returns the declared JSON types of the top-level properties
// of a parameters schema.
func paramTypes(schema json.RawMessage) map[string][]string {
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := make(map[string][]string, len(s.Properties))
	for k, p := range s.Properties {
		var one string
		var list []string
		switch {
		case json.Unmarshal(p.Type, &one) == nil && one != "":
			out[k] = []string{one}
		case json.Unmarshal(p.Type, &list) == nil:
			out[k] = list
		}
	}
	return out
}

// findTool returns the tool named name, or nil.
func findTool(tools []Tool, name string) *Tool {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}

// typedValue returns the JSON of an argument written as raw text (the XML
// formats): a string when the tool's schema says the parameter is only a
// string, otherwise the JSON value the text holds, or the text as a string
// when it holds none.
func typedValue(tool *Tool, key, raw string) json.RawMessage {
	str := func() json.RawMessage {
		b, _ := json.Marshal(raw) // a string always encodes
		return b
	}
	if tool != nil {
		if ts := tool.types[key]; len(ts) == 1 && ts[0] == "string" {
			return str()
		}
	}
	v := bytes.TrimSpace([]byte(raw))
	if len(v) > 0 && json.Valid(v) {
		var b bytes.Buffer
		if json.Compact(&b, v) == nil {
			return b.Bytes()
		}
	}
	return str()
}

// argsObject writes the JSON object of keys and their values, in order.
func argsObject(keys []string, vals []json.RawMessage) string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k) // a string always encodes
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vals[i])
	}
	b.WriteByte('}')
	return b.String()
}
