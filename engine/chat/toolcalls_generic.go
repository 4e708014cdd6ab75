package chat

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The generic tool-call format serves templates with no tool-call syntax
// of their own, in the shape of llama.cpp's generic handler: the tools and
// the reply's shape are described in the system turn, and constrained
// decoding makes the reply one JSON object: one call,
//
//	{"tool_call": {"name": "get_weather", "arguments": {"city": "Paris"}}}
//
// or, when parallel calls are allowed, a list of them,
//
//	{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
//
// or, unless a call is required, {"response": "text for the user"}.
// llama.cpp also has the model write an "id" in each parallel call; Saji
// gives calls their IDs itself.

// ToolChoice is what a request lets the model do with its tools (OpenAI's
// tool_choice and parallel_tool_calls); the zero value is "auto" with one
// call at most. tool_choice "none" passes no tools at all.
type ToolChoice struct {
	// Required makes the reply one or more calls, and no content
	// ("required", or a named function).
	Required bool
	// Name, when set, is the only function the reply may call.
	Name string
	// Parallel lets the reply hold several calls.
	Parallel bool
	// ResponseSchema, in the generic format, is the JSON schema of the
	// response that the reply may be instead of calls (a response format
	// asked for with the tools); nil makes it text.
	ResponseSchema json.RawMessage
}

// Allowed returns the tools a reply may call under c: the named one
// alone, or all of them.
func (c ToolChoice) Allowed(tools []Tool) []Tool {
	if c.Name == "" {
		return tools
	}
	if t := findTool(tools, c.Name); t != nil {
		return []Tool{*t}
	}
	return nil
}

// GenericToolPrompt returns the text that tells a model in the generic
// format which tools it has and how to reply.
func GenericToolPrompt(tools []Tool, choice ToolChoice) string {
	var b strings.Builder
	b.WriteString("You can call these tools (each with the JSON schema of its arguments):\n")
	for _, t := range choice.Allowed(tools) {
		d := map[string]any{"name": t.Name}
		if t.Description != "" {
			d["description"] = t.Description
		}
		if t.Parameters != nil {
			d["parameters"] = t.Parameters
		}
		line, _ := json.Marshal(d) // names, strings and valid JSON always encode
		b.Write(line)
		b.WriteByte('\n')
	}
	name := "<tool name>"
	if choice.Name != "" {
		name = choice.Name
	}
	one := `{"name": "` + name + `", "arguments": {<arguments>}}`
	call := `{"tool_call": ` + one + `} to call a tool`
	if choice.Parallel {
		call = `{"tool_calls": [` + one + `, ...]} to call tools`
	}
	b.WriteString("\nRespond in JSON format, one object and nothing else: " + call)
	switch {
	case choice.Required || choice.Name != "":
	case choice.ResponseSchema != nil:
		b.WriteString(`, or {"response": <your reply>} to reply to the user's request, the reply a JSON value of this schema: ` + string(choice.ResponseSchema))
	default:
		b.WriteString(`, or {"response": "<your reply>"} to reply to the user's request`)
	}
	b.WriteString(".")
	return b.String()
}

// WithGenericTools returns msgs with GenericToolPrompt added to the
// system turn: appended to the first system message, or in a new one
// before the others; a template without a system role (systemRole false)
// gets it at the start of the first user message instead.
func WithGenericTools(msgs []Message, tools []Tool, choice ToolChoice, systemRole bool) []Message {
	prompt := GenericToolPrompt(tools, choice)
	out := append([]Message(nil), msgs...)
	if len(out) > 0 && out[0].Role == "system" {
		out[0].Content = strings.TrimRight(out[0].Content, "\n") + "\n\n" + prompt
		return out
	}
	if systemRole {
		return append([]Message{{Role: "system", Content: prompt}}, out...)
	}
	for i := range out {
		if out[i].Role == "user" {
			out[i].Content = prompt + "\n\n" + out[i].Content
			return out
		}
	}
	return append([]Message{{Role: "user", Content: prompt}}, out...)
}

// GenericToolSchema returns the JSON schema of a generic reply under
// choice: calls of the allowed tools, each name with its own arguments
// schema (anyOf when there are several tools), and for "auto" the
// alternative {"response": string} (or of choice.ResponseSchema).
// Parallel choices allow several calls.
func GenericToolSchema(tools []Tool, choice ToolChoice) json.RawMessage {
	var items []any
	for _, t := range choice.Allowed(tools) {
		items = append(items, callSchema(t.Name, t.Parameters))
	}
	var item any = map[string]any{"anyOf": items}
	if len(items) == 1 {
		item = items[0]
	}
	return genericSchema(item, choice)
}

// genericSchema builds the reply's schema around one call's schema.
func genericSchema(item any, choice ToolChoice) json.RawMessage {
	key, c := callsSchema(item, choice)
	calls := map[string]any{"type": "object", "properties": map[string]any{key: c}, "required": []string{key}}
	var schema any = calls
	if !choice.Required && choice.Name == "" {
		response := map[string]any{"type": "object",
			"properties": map[string]any{"response": responseSchema(choice)}, "required": []string{"response"}}
		schema = map[string]any{"anyOf": []any{calls, response}}
	}
	b, _ := json.Marshal(schema) // maps of strings and raw JSON always encode
	return b
}

// responseSchema is the schema of a generic reply's response.
func responseSchema(choice ToolChoice) json.RawMessage {
	if choice.ResponseSchema != nil {
		return choice.ResponseSchema
	}
	return json.RawMessage(`{"type":"string"}`)
}

// callsSchema returns the key and schema of the reply's calls: tool_call
// and one call, or tool_calls and a list when parallel.
func callsSchema(item any, choice ToolChoice) (string, any) {
	if !choice.Parallel {
		return "tool_call", item
	}
	return "tool_calls", map[string]any{"type": "array", "items": item, "minItems": 1}
}

// callSchema is the schema of one call of the tool name, its keys in the
// order the model should write them (name first).
func callSchema(name string, params json.RawMessage) json.RawMessage {
	args := []byte(`{"type":"object"}`)
	if params != nil {
		args = params
	}
	quoted, _ := json.Marshal(name) // a string always encodes
	return json.RawMessage(`{"type":"object","properties":{"name":{"const":` + string(quoted) + `},"arguments":` +
		string(args) + `},"required":["name","arguments"]}`)
}

// genericState is the progress of a generic reply: a reply that starts
// as {"response": "..."} streams the string's text as it comes.
type genericState struct {
	mode   genericMode
	cur    int  // response: offset in the reply of the next byte to decode
	closed bool // response: the string ended (or could not go on)
}

type genericMode int

const (
	genericUndecided genericMode = iota // too short to tell
	genericResponse                     // {"response": "... : the string streams
	genericHeld                         // anything else: decided at the end
)

// genericStep parses a generic reply. The reply is kept whole, as its
// calls are only known at its end; a response's text streams as it is
// decoded.
func (s *ToolStream) genericStep(out *strings.Builder, eof bool) {
	g := &s.generic
	if g.mode == genericUndecided {
		switch n, ok := responsePrefix(s.buf); {
		case n > 0:
			g.mode, g.cur = genericResponse, n
		case !ok || eof:
			g.mode = genericHeld
		}
	}
	if g.mode == genericResponse && !g.closed {
		text, next, closed := decodeStringPrefix(s.buf, g.cur, eof)
		out.WriteString(text)
		g.cur, g.closed = next, closed
	}
	if !eof {
		return
	}
	content, calls := parseGeneric(s.buf)
	if g.mode == genericResponse {
		content = "" // the response's text went out as it came
	}
	s.commit(calls)
	out.WriteString(content)
	s.consume(len(s.buf))
}

// responsePrefix matches b against the start of a response object,
// `{"response": "`, with JSON whitespace between its tokens: it returns
// the length of the match when b holds all of it, and whether b could
// still be its beginning when not.
func responsePrefix(b []byte) (int, bool) {
	p := 0
	for _, tok := range []string{"{", `"response"`, ":", `"`} {
		p = skipSpace(b, p, "")
		rest := b[p:]
		if len(rest) < len(tok) {
			return 0, strings.HasPrefix(tok, string(rest))
		}
		if string(rest[:len(tok)]) != tok {
			return 0, false
		}
		p += len(tok)
	}
	return p, true
}

// decodeStringPrefix decodes the JSON string text at b[p:] up to its
// closing quote, or as far as it can be decoded now: an escape cut at the
// end waits for the rest (unless eof). It returns the text, the offset to
// go on from, and whether the string ended; an invalid escape ends it.
func decodeStringPrefix(b []byte, p int, eof bool) (string, int, bool) {
	var out strings.Builder
	for p < len(b) {
		c := b[p]
		switch {
		case c == '"':
			return out.String(), p + 1, true
		case c != '\\':
			out.WriteByte(c)
			p++
			continue
		}
		// An escape: decode the longest one (a surrogate pair) that fits.
		n := escapeLen(b[p:])
		if n == 0 {
			return out.String(), p, true // invalid: the string ends here
		}
		if p+n > len(b) {
			return out.String(), p, eof // cut: wait for the rest
		}
		var r string
		if json.Unmarshal(append(append([]byte{'"'}, b[p:p+n]...), '"'), &r) != nil {
			return out.String(), p, true
		}
		out.WriteString(r)
		p += n
	}
	return out.String(), p, eof
}

// escapeLen returns the length of the escape at the start of e (which
// starts with a backslash), as far as its first bytes tell: 2 for \n and
// its kind, 6 for \uXXXX, 12 for a \uD8XX\uDCXX surrogate pair; 0 when
// it is invalid.
func escapeLen(e []byte) int {
	if len(e) < 2 {
		return 2
	}
	switch e[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
	default:
		return 0
	}
	for i := 2; i < min(6, len(e)); i++ {
		if !isHex(e[i]) {
			return 0
		}
	}
	if len(e) < 6 {
		return 6
	}
	if v := hexValue(e[2:6]); v < 0xD800 || v > 0xDBFF {
		return 6
	}
	// A high surrogate: a low one, \uDC00 to \uDFFF, may follow.
	tail := e[6:min(12, len(e))]
	for i, c := range tail {
		ok := false
		switch i {
		case 0:
			ok = c == '\\'
		case 1:
			ok = c == 'u'
		case 2:
			ok = c == 'd' || c == 'D'
		case 3:
			ok = c >= 'c' && c <= 'f' || c >= 'C' && c <= 'F'
		default:
			ok = isHex(c)
		}
		if !ok {
			return 6
		}
	}
	return 12
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// hexValue returns the value of four hex digits.
func hexValue(h []byte) int {
	v := 0
	for _, c := range h[:4] {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= int(c - '0')
		case c >= 'a' && c <= 'f':
			v |= int(c-'a') + 10
		default:
			v |= int(c-'A') + 10
		}
	}
	return v
}

// parseGeneric reads a generic reply: its response as the content and
// its calls. A reply that is not such an object is all content.
func parseGeneric(b []byte) (string, []ToolCall) {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return string(b), nil
	}
	var calls []ToolCall
	if raw, ok := m["tool_calls"]; ok {
		cs, ok := parseCallValue(bytes.TrimSpace(raw), false)
		if !ok && string(bytes.TrimSpace(raw)) != "[]" {
			return string(b), nil
		}
		calls = cs
	}
	if raw, ok := m["tool_call"]; ok {
		c, ok := callFromJSON(raw, false)
		if !ok {
			return string(b), nil
		}
		calls = append(calls, c)
	}
	raw, hasResponse := m["response"]
	if !hasResponse && calls == nil && m["tool_calls"] == nil {
		return string(b), nil // some other JSON: the model's answer
	}
	var content string
	if hasResponse && json.Unmarshal(raw, &content) != nil {
		content = string(bytes.TrimSpace(raw))
	}
	return content, calls
}
