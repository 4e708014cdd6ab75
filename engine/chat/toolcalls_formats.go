package chat

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The markers of the formats parsed in this file.
const (
	xmlFunction        = "<function="
	xmlFunctionClose   = "</function>"
	xmlParameter       = "<parameter="
	xmlParameterClose  = "</parameter>"
	glmKey             = "<arg_key>"
	glmKeyClose        = "</arg_key>"
	glmValue           = "<arg_value>"
	glmValueClose      = "</arg_value>"
	deepseekCallsBegin = "<｜tool▁calls▁begin｜>"
	deepseekCallsEnd   = "<｜tool▁calls▁end｜>"
	deepseekCallBegin  = "<｜tool▁call▁begin｜>"
	deepseekCallEnd    = "<｜tool▁call▁end｜>"
	deepseekSep        = "<｜tool▁sep｜>"
	graniteTag         = "<|tool_call|>"
	commandRAction     = "<|START_ACTION|>"
	commandREnd        = "<|END_ACTION|>"
	functionaryOpen    = "<function="
	functionaryClose   = "</function>"
)

// closedBlock returns a markerLoop block for formats whose calls sit
// between an opening and a closing marker: parse reads the text between
// them (or, at the end of the reply, between the opening marker and the
// end: a model may stop before closing).
func (s *ToolStream) closedBlock(open, close string, parse func(inner []byte) ([]ToolCall, bool)) func(eof bool) (status, int, []ToolCall) {
	return func(eof bool) (status, int, []ToolCall) {
		from := len(open)
		if s.seq.valid && s.seq.start == s.base {
			from = max(from, s.seq.p-s.base) // searched up to there already
		}
		i := bytes.Index(s.buf[from:], []byte(close))
		if i < 0 {
			if !eof {
				s.seq = seqState{valid: true, start: s.base, p: s.base + max(len(open), len(s.buf)-len(close)+1)}
				return needMore, 0, nil
			}
			calls, ok := parse(s.buf[len(open):])
			if !ok {
				return failed, 0, nil
			}
			return parsed, len(s.buf), calls
		}
		end := from + i
		calls, ok := parse(s.buf[len(open):end])
		if !ok {
			return failed, 0, nil
		}
		return parsed, end + len(close), calls
	}
}

// jsonBlock returns a markerLoop block for formats whose marker is
// followed by a JSON call object or a list of them (Granite).
func (s *ToolStream) jsonBlock(marker string) func(eof bool) (status, int, []ToolCall) {
	return func(eof bool) (status, int, []ToolCall) {
		p := skipSpace(s.buf, len(marker), "")
		if p == len(s.buf) {
			return undecided(eof)
		}
		if c := s.buf[p]; c != '[' && c != '{' {
			return failed, 0, nil
		}
		return s.callsAt(p, eof)
	}
}

// cut returns the text of b before sep and the text after it.
func cut(b []byte, sep string) (before, after []byte, found bool) {
	return bytes.Cut(b, []byte(sep))
}

// trimNewline drops one newline (or CRLF) at each end of v, the ones the
// XML formats write around a value.
func trimNewline(v string) string {
	v = strings.TrimPrefix(v, "\r")
	v = strings.TrimPrefix(v, "\n")
	v = strings.TrimSuffix(v, "\n")
	return strings.TrimSuffix(v, "\r")
}

// tagName reads NAME> at the start of b: the name and the rest after ">".
func tagName(b []byte) (string, []byte, bool) {
	name, rest, ok := cut(b, ">")
	n := strings.TrimSpace(string(name))
	if !ok || n == "" || len(n) > maxMistralName || strings.ContainsAny(n, "<\n") {
		return "", nil, false
	}
	return n, rest, true
}

// parseXMLCalls reads the inside of a Qwen3-Coder <tool_call> block: one
// or more <function=NAME> elements of <parameter=KEY>value</parameter>.
func (s *ToolStream) parseXMLCalls(inner []byte) ([]ToolCall, bool) {
	var calls []ToolCall
	b := bytes.TrimSpace(inner)
	for len(b) > 0 {
		if !bytes.HasPrefix(b, []byte(xmlFunction)) {
			return nil, false
		}
		name, rest, ok := tagName(b[len(xmlFunction):])
		if !ok {
			return nil, false
		}
		tool := findTool(s.tools, name)
		var keys []string
		var vals []json.RawMessage
		b = bytes.TrimSpace(rest)
		for !bytes.HasPrefix(b, []byte(xmlFunctionClose)) {
			if len(b) == 0 {
				break // cut off at the end of the reply
			}
			if !bytes.HasPrefix(b, []byte(xmlParameter)) {
				return nil, false
			}
			key, rest, ok := tagName(b[len(xmlParameter):])
			if !ok {
				return nil, false
			}
			val, rest, ok := cut(rest, xmlParameterClose)
			if !ok {
				return nil, false
			}
			keys = append(keys, key)
			vals = append(vals, typedValue(tool, key, trimNewline(string(val))))
			b = bytes.TrimSpace(rest)
		}
		b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte(xmlFunctionClose)))
		calls = append(calls, ToolCall{Type: "function", Name: name, Arguments: argsObject(keys, vals)})
	}
	return calls, len(calls) > 0
}

// parseGLMCall reads the inside of a GLM 4.5 <tool_call> block: the name,
// then <arg_key>KEY</arg_key><arg_value>value</arg_value> pairs.
func (s *ToolStream) parseGLMCall(inner []byte) ([]ToolCall, bool) {
	b := bytes.TrimLeft(inner, " \t\r\n")
	i := bytes.Index(b, []byte(glmKey))
	if i < 0 {
		i = len(b)
	}
	name := strings.TrimSpace(string(b[:i]))
	if name == "" || len(name) > maxMistralName || strings.ContainsAny(name, "<>{}\n") {
		return nil, false
	}
	tool := findTool(s.tools, name)
	var keys []string
	var vals []json.RawMessage
	b = bytes.TrimSpace(b[i:])
	for len(b) > 0 {
		if !bytes.HasPrefix(b, []byte(glmKey)) {
			return nil, false
		}
		key, rest, ok := cut(b[len(glmKey):], glmKeyClose)
		if !ok {
			return nil, false
		}
		rest = bytes.TrimSpace(rest)
		if !bytes.HasPrefix(rest, []byte(glmValue)) {
			return nil, false
		}
		val, rest, ok := cut(rest[len(glmValue):], glmValueClose)
		if !ok {
			return nil, false
		}
		k := strings.TrimSpace(string(key))
		keys = append(keys, k)
		vals = append(vals, typedValue(tool, k, string(val)))
		b = bytes.TrimSpace(rest)
	}
	return []ToolCall{{Type: "function", Name: name, Arguments: argsObject(keys, vals)}}, true
}

// parseDeepSeekCalls reads the inside of a DeepSeek calls block: one or
// more <｜tool▁call▁begin｜>...<｜tool▁call▁end｜>, each either R1's
// "function<｜tool▁sep｜>NAME\n```json\n{...}\n```" or V3.1's
// "NAME<｜tool▁sep｜>{...}".
func parseDeepSeekCalls(inner []byte) ([]ToolCall, bool) {
	var calls []ToolCall
	b := bytes.TrimSpace(inner)
	for len(b) > 0 {
		if !bytes.HasPrefix(b, []byte(deepseekCallBegin)) {
			return nil, false
		}
		one, rest, found := cut(b[len(deepseekCallBegin):], deepseekCallEnd)
		if !found && len(rest) > 0 {
			return nil, false
		}
		left, right, ok := cut(one, deepseekSep)
		if !ok {
			return nil, false
		}
		name := strings.TrimSpace(string(left))
		args := bytes.TrimSpace(right)
		if len(args) == 0 || args[0] != '{' { // R1: type, then name and fenced JSON
			n, a, _ := cut(right, "\n")
			name = strings.TrimSpace(string(n))
			a = bytes.TrimSpace(a)
			a = bytes.TrimPrefix(a, []byte("```json"))
			a = bytes.TrimSuffix(a, []byte("```"))
			args = bytes.TrimSpace(a)
		}
		if name == "" || strings.ContainsAny(name, "\n<>{}") {
			return nil, false
		}
		text, ok := argumentsText(args)
		if !ok {
			return nil, false
		}
		calls = append(calls, ToolCall{Type: "function", Name: name, Arguments: text})
		b = bytes.TrimSpace(rest)
	}
	return calls, len(calls) > 0
}

// commandRMarker starts every Command R7B marker; commandRDropped are the
// markers around its content, which are not content themselves.
const commandRMarker = "<|"

var commandRDropped = []string{"<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>"}

// commandRBlock parses what starts with "<|" in a Command R7B reply: an
// action (its calls), a marker around the content (dropped), or content.
func (s *ToolStream) commandRBlock(eof bool) (status, int, []ToolCall) {
	if bytes.HasPrefix(s.buf, []byte(commandRAction)) {
		return s.closedBlock(commandRAction, commandREnd, parseCommandRCalls)(eof)
	}
	maybe := bytes.HasPrefix([]byte(commandRAction), s.buf)
	for _, m := range commandRDropped {
		if bytes.HasPrefix(s.buf, []byte(m)) {
			return parsed, len(m), nil
		}
		maybe = maybe || bytes.HasPrefix([]byte(m), s.buf)
	}
	if maybe {
		return undecided(eof)
	}
	return failed, 0, nil
}

// parseCommandRCalls reads the JSON list of a Command R7B action:
// {"tool_call_id": ..., "tool_name": ..., "parameters": {...}} items.
func parseCommandRCalls(inner []byte) ([]ToolCall, bool) {
	var items []struct {
		ID     json.RawMessage `json:"tool_call_id"`
		Name   string          `json:"tool_name"`
		Params json.RawMessage `json:"parameters"`
	}
	if json.Unmarshal(bytes.TrimSpace(inner), &items) != nil || len(items) == 0 {
		return nil, false
	}
	calls := make([]ToolCall, 0, len(items))
	for _, it := range items {
		if it.Name == "" {
			return nil, false
		}
		args := "{}"
		if len(it.Params) > 0 {
			var ok bool
			if args, ok = argumentsText(it.Params); !ok {
				return nil, false
			}
		}
		c := ToolCall{Type: "function", Name: it.Name, Arguments: args}
		var id string
		if json.Unmarshal(it.ID, &id) == nil {
			c.ID = id // as llama.cpp: the model's index, "0", "1", ...
		}
		calls = append(calls, c)
	}
	return calls, true
}

// parseFunctionaryCall reads NAME>{...} of a Functionary v3.1
// <function=NAME>{...}</function> call.
func parseFunctionaryCall(inner []byte) ([]ToolCall, bool) {
	name, rest, ok := tagName(inner)
	if !ok {
		return nil, false
	}
	rest = bytes.TrimSpace(rest)
	if len(rest) == 0 || rest[0] != '{' {
		return nil, false
	}
	args, ok := argumentsText(rest)
	if !ok {
		return nil, false
	}
	return []ToolCall{{Type: "function", Name: name, Arguments: args}}, true
}

// functionaryRecipient starts each Functionary v3.2 message after the
// first (the prompt writes the first one's).
const functionaryRecipient = ">>>"

// fv32State is the progress of a Functionary v3.2 reply.
type fv32State int

const (
	fv32Start    fv32State = iota // the first message, whose ">>>" the prompt wrote
	fv32Messages                  // after it: messages after ">>>" markers
	fv32Plain                     // not in the format: the rest is content
)

// fv32Step parses Functionary v3.2 replies: messages "NAME\n{...}" (a
// call) or "all\n" and content, the first right at the start, the others
// each after ">>>". A reply that does not start with a message is content.
func (s *ToolStream) fv32Step(out *strings.Builder, eof bool) {
	if s.fv32 == fv32Start {
		st := s.take(s.fv32Message(0, eof))
		if st == needMore {
			return
		}
		s.fv32 = fv32Messages
		if st == failed {
			s.fv32 = fv32Plain
		}
	}
	if s.fv32 == fv32Plain {
		s.emit(out, len(s.buf))
		return
	}
	s.markerLoop(out, eof, functionaryRecipient, func(eof bool) (status, int, []ToolCall) {
		return s.fv32Message(len(functionaryRecipient), eof)
	})
}

// fv32Message parses a message's recipient line at s.buf[from] and, for a
// function, its JSON arguments; "all" parses to no calls (content
// follows).
func (s *ToolStream) fv32Message(from int, eof bool) (status, int, []ToolCall) {
	rest := s.buf[from:]
	i := bytes.IndexByte(rest, '\n')
	line := rest
	if i >= 0 {
		line = rest[:i]
	}
	if len(line) > maxMistralName || bytes.IndexFunc(line, func(r rune) bool { return r > 0x7f || !isNameByte(byte(r)) }) >= 0 {
		return failed, 0, nil
	}
	if i < 0 {
		return undecided(eof)
	}
	if i == 0 {
		return failed, 0, nil
	}
	name := string(line)
	p := from + i + 1
	if name == "all" {
		return parsed, p, nil
	}
	st, e, args := s.argsAt(p, eof)
	if st != parsed {
		return st, 0, nil
	}
	return parsed, e, []ToolCall{{Type: "function", Name: name, Arguments: args}}
}
