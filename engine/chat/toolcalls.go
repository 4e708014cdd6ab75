package chat

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
)

// ToolFormat is the way a model family writes tool calls in its replies.
// DetectToolFormat finds it from the chat template.
type ToolFormat int

const (
	// ToolNone: the model has no known tool-call syntax; replies are
	// plain content.
	ToolNone ToolFormat = iota
	// ToolHermes: Hermes, Qwen 2.5/3, Granite 4 and others:
	// <tool_call>{"name": ..., "arguments": {...}}</tool_call>, possibly
	// after text and repeated. A block may hold a JSON list of calls.
	ToolHermes
	// ToolLlama3: Llama 3.1/3.2/3.3: the whole reply is
	// {"name": ..., "parameters": {...}} (several separated by ";" or
	// newlines), or text followed by <|python_tag|> and such calls.
	ToolLlama3
	// ToolMistral: Mistral: [TOOL_CALLS][{"name": ..., "arguments": {...},
	// "id": ...}, ...], or the newer [TOOL_CALLS]name[ARGS]{...} and
	// [TOOL_CALLS]name[CALL_ID]id[ARGS]{...}, one marker per call.
	ToolMistral
	// ToolQwen3Coder: Qwen3-Coder, Qwen3.5, Nemotron 3: XML parameters,
	// <tool_call><function=NAME><parameter=ARG>value</parameter>...
	// </function></tool_call>, values typed by the tool's schema.
	ToolQwen3Coder
	// ToolDeepSeekR1: DeepSeek R1: <｜tool▁calls▁begin｜>, then per call
	// <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME, a ```json fenced
	// object and <｜tool▁call▁end｜>, then <｜tool▁calls▁end｜>.
	ToolDeepSeekR1
	// ToolDeepSeekV31: DeepSeek V3.1: as R1, but each call is
	// <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>.
	ToolDeepSeekV31
	// ToolGranite: Granite 3.x: <|tool_call|>[{"name": ..., "arguments":
	// {...}}, ...].
	ToolGranite
	// ToolGLM45: GLM 4.5 and its kin: <tool_call>NAME
	// <arg_key>ARG</arg_key><arg_value>value</arg_value>...</tool_call>,
	// values typed by the tool's schema.
	ToolGLM45
	// ToolCommandR7B: Command R7B: <|START_ACTION|>[{"tool_call_id": ...,
	// "tool_name": ..., "parameters": {...}}, ...]<|END_ACTION|>.
	ToolCommandR7B
	// ToolFunctionaryV31: Functionary v3.1: <function=NAME>{...}</function>,
	// repeated.
	ToolFunctionaryV31
	// ToolFunctionaryV32: Functionary v3.2: the prompt ends in ">>>" and
	// the reply is a list of NAME\n{...} calls, or "all\n" and content,
	// each after a ">>>".
	ToolFunctionaryV32
	// ToolHarmony: gpt-oss's harmony format, whose calls chat.Harmony
	// parses together with the reply's channels: ToolStream passes its
	// text through.
	ToolHarmony
	// ToolGeneric: any other template. The tools and the reply's shape are
	// described in the system turn (see GenericToolPrompt) and the reply is
	// one JSON object, {"tool_calls": [{"name": ..., "arguments": {...}}]}
	// or {"response": "..."}, which constrained decoding enforces (see
	// GenericToolSchema).
	ToolGeneric
)

// String returns the format's name.
func (f ToolFormat) String() string {
	switch f {
	case ToolNone:
		return "none"
	case ToolHermes:
		return "hermes"
	case ToolLlama3:
		return "llama3"
	case ToolMistral:
		return "mistral"
	case ToolQwen3Coder:
		return "qwen3-coder"
	case ToolDeepSeekR1:
		return "deepseek-r1"
	case ToolDeepSeekV31:
		return "deepseek-v3.1"
	case ToolGranite:
		return "granite"
	case ToolGLM45:
		return "glm-4.5"
	case ToolCommandR7B:
		return "command-r7b"
	case ToolFunctionaryV31:
		return "functionary-v3.1"
	case ToolFunctionaryV32:
		return "functionary-v3.2"
	case ToolHarmony:
		return "harmony"
	case ToolGeneric:
		return "generic"
	}
	return "ToolFormat(" + strconv.Itoa(int(f)) + ")"
}

// Markers of the formats.
const (
	hermesOpen  = "<tool_call>"
	hermesClose = "</tool_call>"
	pythonTag   = "<|python_tag|>"
	mistralTag  = "[TOOL_CALLS]"
	mistralArgs = "[ARGS]"
	mistralID   = "[CALL_ID]"
)

// DetectToolFormat returns the tool-call format of the model whose chat
// template is templateSource, from the markers the template writes. A
// template with none of the known syntaxes gives ToolGeneric: its tools
// are described in the system turn and the reply is constrained JSON.
func DetectToolFormat(templateSource string) ToolFormat {
	has := func(s string) bool { return strings.Contains(templateSource, s) }
	switch {
	case has(harmonyChannel):
		return ToolHarmony
	case has(mistralTag):
		return ToolMistral
	case has(deepseekCallsBegin) && has("```json"):
		return ToolDeepSeekR1
	case has(deepseekCallsBegin):
		return ToolDeepSeekV31
	case has(commandRAction):
		return ToolCommandR7B
	case has(graniteTag):
		return ToolGranite
	case has(functionaryRecipient) && has("recipient"):
		return ToolFunctionaryV32
	case has(xmlParameter):
		return ToolQwen3Coder
	case has(glmKey):
		return ToolGLM45
	case has(functionaryOpen):
		return ToolFunctionaryV31
	case has("functools["):
		return ToolGeneric // FireFunction: no parser of its own
	case has(hermesOpen):
		return ToolHermes
	case has(pythonTag) || has("<|start_header_id|>") && has(`"parameters"`):
		return ToolLlama3
	}
	return ToolGeneric
}

// ParseToolCalls splits a complete reply into plain content and tool
// calls; tools, when given, are the request's tools, whose parameter types
// type the values of the XML formats (Qwen3-Coder, GLM 4.5). Text that looks like a call but is not valid JSON stays content:
// nothing the model wrote is lost. When calls are found, whitespace at the
// end of the content is dropped (often it only separated the calls).
//
// Each call's Arguments is the JSON text of the arguments object (a
// string, as the OpenAI API carries it; chat templates accept it too), its
// Type is "function", and its ID is the one the model wrote (Mistral) or a
// new random one: "call_" and 24 alphanumerics, or 9 alphanumerics for
// Mistral, whose templates require that shape.
func ParseToolCalls(f ToolFormat, text string, tools ...Tool) (content string, calls []ToolCall) {
	s := NewToolStream(f, tools...)
	head := s.Push(text)
	tail, calls := s.Finish()
	return head + tail, calls
}

// ToolStream parses a streamed reply. Push returns the content that is
// safe to show now: text that might be the start of a call is held back
// until it is clear. Finish returns the held text that turned out to be
// content and all the calls. Fed any split of a reply, a ToolStream gives
// the same content (joined) and calls as ParseToolCalls. A ToolStream is
// not safe for concurrent use.
type ToolStream struct {
	f     ToolFormat
	tools []Tool // the request's tools, for typing XML values
	buf   []byte // text not yet decided
	base  int    // offset in the reply of buf[0]
	ws    string // decided content: trailing whitespace not yet shown
	calls []ToolCall
	llama llamaState
	// JSON value scanning, by offset in the reply, so that a value
	// streamed in many pieces is scanned once.
	ends map[int]int
	scan jsonScan
	// pending: s.buf starts with a marker whose call is undecided; seq is
	// how far its calls were read, so each Push reads only the new text.
	pending bool
	seq     seqState
	// fv32 is the progress of a Functionary v3.2 reply, generic of a
	// generic one.
	fv32    fv32State
	generic genericState
}

// seqState is the progress through a sequence of JSON call values.
type seqState struct {
	valid    bool
	start, p int // offsets in the reply
	calls    []ToolCall
}

// resume returns where reading the calls from s.buf[from] stands: p
// (index in s.buf, past separators: whitespace, and sep after a call) and
// the calls read so far.
func (s *ToolStream) resume(from int, sep string) (int, []ToolCall) {
	if s.seq.valid && s.seq.start == s.base+from {
		if len(s.seq.calls) == 0 {
			sep = ""
		}
		return skipSpace(s.buf, s.seq.p-s.base, sep), s.seq.calls
	}
	return skipSpace(s.buf, from, ""), nil
}

// wait records the progress of a sequence that needs more text.
func (s *ToolStream) wait(from, p int, calls []ToolCall) {
	s.seq = seqState{valid: true, start: s.base + from, p: s.base + p, calls: calls}
}

type llamaState int

const (
	llamaStart   llamaState = iota // nothing but whitespace seen
	llamaContent                   // plain text, until <|python_tag|>
	llamaTagged                    // after <|python_tag|>: calls to the end
	llamaPlain                     // the rest is content
)

// jsonScan is the state of scanning one JSON value for its end.
type jsonScan struct {
	valid        bool
	start, pos   int // offsets in the reply
	depth        int
	inStr, escap bool
}

// NewToolStream starts parsing a reply in format f; tools are the
// request's tools (see ParseToolCalls).
func NewToolStream(f ToolFormat, tools ...Tool) *ToolStream {
	return &ToolStream{f: f, tools: tools}
}

// Push adds the next piece of the reply and returns the content that is
// now known not to be part of a call.
func (s *ToolStream) Push(delta string) (content string) {
	if !s.parses() {
		return delta
	}
	s.buf = append(s.buf, delta...)
	return s.show(s.step(false))
}

// Finish ends the reply: it returns the content held back so far and the
// tool calls, in order. The stream starts over afterwards.
func (s *ToolStream) Finish() (content string, calls []ToolCall) {
	if !s.parses() {
		return "", nil
	}
	all := s.ws + s.step(true)
	calls = s.calls
	if len(calls) > 0 {
		all = strings.TrimRightFunc(all, unicode.IsSpace)
	}
	*s = ToolStream{f: s.f, tools: s.tools}
	return all, calls
}

// parses reports whether the format's calls are parsed from the text
// (harmony's are parsed by chat.Harmony).
func (s *ToolStream) parses() bool {
	return s.f != ToolNone && s.f != ToolHarmony
}

// show returns decided content minus its trailing whitespace, which waits
// in s.ws: if the reply ends in calls it is dropped.
func (s *ToolStream) show(decided string) string {
	if decided == "" {
		return ""
	}
	all := s.ws + decided
	t := strings.TrimRightFunc(all, unicode.IsSpace)
	s.ws = all[len(t):]
	return t
}

// status is the outcome of parsing a call at the start of the undecided
// text.
type status int

const (
	needMore status = iota // undecided until more text comes
	parsed                 // calls
	failed                 // not a call: the marker is content
)

// step decides as much of s.buf as it can (all of it when eof) and
// returns the decided content; decided calls go to s.calls.
func (s *ToolStream) step(eof bool) string {
	var out strings.Builder
	switch s.f {
	case ToolHermes:
		s.markerLoop(&out, eof, hermesOpen, s.hermesBlock)
	case ToolMistral:
		s.markerLoop(&out, eof, mistralTag, s.mistralBlock)
	case ToolLlama3:
		s.llamaStep(&out, eof)
	case ToolQwen3Coder:
		s.markerLoop(&out, eof, hermesOpen, s.closedBlock(hermesOpen, hermesClose, s.parseXMLCalls))
	case ToolGLM45:
		s.markerLoop(&out, eof, hermesOpen, s.closedBlock(hermesOpen, hermesClose, s.parseGLMCall))
	case ToolDeepSeekR1, ToolDeepSeekV31:
		s.markerLoop(&out, eof, deepseekCallsBegin, s.closedBlock(deepseekCallsBegin, deepseekCallsEnd, parseDeepSeekCalls))
	case ToolCommandR7B:
		s.markerLoop(&out, eof, commandRMarker, s.commandRBlock)
	case ToolFunctionaryV31:
		s.markerLoop(&out, eof, functionaryOpen, s.closedBlock(functionaryOpen, functionaryClose, parseFunctionaryCall))
	case ToolGranite:
		s.markerLoop(&out, eof, graniteTag, s.jsonBlock(graniteTag))
	case ToolFunctionaryV32:
		s.fv32Step(&out, eof)
	case ToolGeneric:
		s.genericStep(&out, eof)
	}
	return out.String()
}

// emit moves the first n undecided bytes to out as content.
func (s *ToolStream) emit(out *strings.Builder, n int) {
	out.Write(s.buf[:n])
	s.consume(n)
}

func (s *ToolStream) consume(n int) {
	if n == 0 {
		return
	}
	s.buf = s.buf[n:]
	s.base += n
	if len(s.buf) == 0 {
		s.buf = nil
	}
	clear(s.ends)
}

// commit adds calls, giving an ID to those without one.
func (s *ToolStream) commit(calls []ToolCall) {
	for _, c := range calls {
		if c.ID == "" {
			c.ID = newCallID(s.f)
		}
		s.calls = append(s.calls, c)
	}
}

// markerLoop handles formats where calls start at a marker anywhere in the
// text: text before a marker is content, and block parses what follows
// the marker at the start of s.buf.
func (s *ToolStream) markerLoop(out *strings.Builder, eof bool, marker string, block func(eof bool) (status, int, []ToolCall)) {
	for {
		i := 0
		if !s.pending {
			i = bytes.Index(s.buf, []byte(marker))
		}
		if i < 0 {
			n := len(s.buf)
			if !eof {
				n -= partialSuffix(s.buf, marker)
			}
			s.emit(out, n)
			return
		}
		s.emit(out, i)
		st := s.take(block(eof))
		s.pending = st == needMore
		if st != needMore {
			s.seq = seqState{}
		}
		switch st {
		case needMore:
			return
		case failed:
			s.emit(out, len(marker))
		}
	}
}

// take applies a parser's outcome: parsed calls are committed and their
// text (the first end bytes) consumed. It returns the status.
func (s *ToolStream) take(st status, end int, calls []ToolCall) status {
	if st == parsed {
		s.commit(calls)
		s.consume(end)
	}
	return st
}

// undecided is what a parser returns when the text ran out: wait for more,
// or fail at the end of the reply.
func undecided(eof bool) (status, int, []ToolCall) {
	if eof {
		return failed, 0, nil
	}
	return needMore, 0, nil
}

// hermesBlock parses <tool_call> (at the start of s.buf), one or more JSON
// values holding calls, and </tool_call> (or the end of the reply).
func (s *ToolStream) hermesBlock(eof bool) (status, int, []ToolCall) {
	p, calls := s.resume(len(hermesOpen), "")
	for {
		if p == len(s.buf) {
			if eof && len(calls) > 0 {
				return parsed, p, calls
			}
			s.wait(len(hermesOpen), p, calls)
			return undecided(eof)
		}
		rest := s.buf[p:]
		if len(calls) > 0 {
			if bytes.HasPrefix(rest, []byte(hermesClose)) {
				return parsed, p + len(hermesClose), calls
			}
			if bytes.HasPrefix([]byte(hermesClose), rest) {
				if eof { // cut inside the closing tag
					return parsed, len(s.buf), calls
				}
				s.wait(len(hermesOpen), p, calls)
				return needMore, 0, nil
			}
		}
		if rest[0] != '{' && rest[0] != '[' {
			return failed, 0, nil
		}
		e := s.valueEnd(p)
		if e < 0 {
			s.wait(len(hermesOpen), p, calls)
			return undecided(eof)
		}
		cs, ok := parseCallValue(s.buf[p:e], false)
		if !ok {
			return failed, 0, nil
		}
		calls = append(calls, cs...)
		p = skipSpace(s.buf, e, "")
	}
}

// maxMistralName bounds a function name (and maxMistralID a call ID) in
// the [TOOL_CALLS]name[ARGS] form; longer ones are not calls.
const (
	maxMistralName = 256
	maxMistralID   = 64
)

// mistralBlock parses [TOOL_CALLS] (at the start of s.buf) and either a
// JSON list of calls or name[CALL_ID]id[ARGS]{...}.
func (s *ToolStream) mistralBlock(eof bool) (status, int, []ToolCall) {
	p := skipSpace(s.buf, len(mistralTag), "")
	if p == len(s.buf) {
		return undecided(eof)
	}
	if s.buf[p] == '[' {
		return s.callsAt(p, eof)
	}
	q := p
	for q < len(s.buf) && isNameByte(s.buf[q]) {
		q++
	}
	switch {
	case q-p > maxMistralName:
		return failed, 0, nil
	case q == len(s.buf):
		return undecided(eof)
	case q == p:
		return failed, 0, nil
	}
	call := ToolCall{Type: "function", Name: string(s.buf[p:q])}
	if r := s.buf[q:]; bytes.HasPrefix(r, []byte(mistralID)) {
		q += len(mistralID)
		k := q
		for k < len(s.buf) && isAlnum(s.buf[k]) {
			k++
		}
		switch {
		case k-q > maxMistralID:
			return failed, 0, nil
		case k == len(s.buf):
			return undecided(eof)
		}
		call.ID = string(s.buf[q:k])
		q = k
	}
	switch r := s.buf[q:]; {
	case bytes.HasPrefix(r, []byte(mistralArgs)):
		q += len(mistralArgs)
	case bytes.HasPrefix([]byte(mistralArgs), r) || bytes.HasPrefix([]byte(mistralID), r) && call.ID == "":
		return undecided(eof)
	default:
		return failed, 0, nil
	}
	st, e, args := s.argsAt(q, eof)
	if st != parsed {
		return st, 0, nil
	}
	call.Arguments = args
	return parsed, e, []ToolCall{call}
}

// callsAt parses the JSON call object, or list of them, at s.buf[p].
func (s *ToolStream) callsAt(p int, eof bool) (status, int, []ToolCall) {
	e := s.valueEnd(p)
	if e < 0 {
		return undecided(eof)
	}
	calls, ok := parseCallValue(s.buf[p:e], false)
	if !ok {
		return failed, 0, nil
	}
	return parsed, e, calls
}

// argsAt parses the JSON arguments object at s.buf[p] (after
// whitespace): its end and its compact text.
func (s *ToolStream) argsAt(p int, eof bool) (status, int, string) {
	p = skipSpace(s.buf, p, "")
	if p == len(s.buf) {
		st, _, _ := undecided(eof)
		return st, 0, ""
	}
	if s.buf[p] != '{' {
		return failed, 0, ""
	}
	e := s.valueEnd(p)
	if e < 0 {
		st, _, _ := undecided(eof)
		return st, 0, ""
	}
	args, ok := argumentsText(s.buf[p:e])
	if !ok {
		return failed, 0, ""
	}
	return parsed, e, args
}

// llamaStep parses Llama 3 replies: calls as the whole reply, or after the
// first <|python_tag|> to the end; otherwise everything is content.
func (s *ToolStream) llamaStep(out *strings.Builder, eof bool) {
	for {
		switch s.llama {
		case llamaStart:
			p := skipSpace(s.buf, 0, "")
			if p == len(s.buf) {
				if eof {
					s.emit(out, p)
				}
				return
			}
			if c := s.buf[p]; c != '{' && c != '[' {
				s.llama = llamaContent
				continue
			}
			switch st, calls := s.llamaCalls(p, eof); st {
			case needMore:
				return
			case parsed:
				s.commit(calls)
				s.consume(len(s.buf))
				s.llama = llamaPlain
				return
			default:
				s.llama = llamaContent
			}
		case llamaContent:
			i := bytes.Index(s.buf, []byte(pythonTag))
			if i < 0 {
				n := len(s.buf)
				if !eof {
					n -= partialSuffix(s.buf, pythonTag)
				}
				s.emit(out, n)
				return
			}
			s.emit(out, i)
			s.llama = llamaTagged
		case llamaTagged:
			switch st, calls := s.llamaCalls(len(pythonTag), eof); st {
			case needMore:
				return
			case parsed:
				s.commit(calls)
				s.consume(len(s.buf))
				s.llama = llamaPlain
				return
			default:
				s.llama = llamaPlain
			}
		default:
			s.emit(out, len(s.buf))
			return
		}
	}
}

// llamaCalls parses JSON call objects (or lists of them) from p to the end
// of the reply, separated by whitespace or semicolons.
func (s *ToolStream) llamaCalls(from int, eof bool) (status, []ToolCall) {
	p, calls := s.resume(from, ";")
	for {
		if p == len(s.buf) {
			if !eof {
				s.wait(from, p, calls)
				return needMore, nil
			}
			if len(calls) > 0 {
				return parsed, calls
			}
			return failed, nil
		}
		if c := s.buf[p]; c != '{' && c != '[' {
			return failed, nil
		}
		e := s.valueEnd(p)
		if e < 0 {
			s.wait(from, p, calls)
			st, _, _ := undecided(eof)
			return st, nil
		}
		cs, ok := parseCallValue(s.buf[p:e], true)
		if !ok {
			return failed, nil
		}
		calls = append(calls, cs...)
		p = skipSpace(s.buf, e, ";")
	}
}

// valueEnd returns the end of the JSON object or list starting at
// s.buf[p], or -1 when it does not end in s.buf. It only balances brackets
// outside strings; validity is checked by the caller.
func (s *ToolStream) valueEnd(p int) int {
	abs := s.base + p
	if e, ok := s.ends[abs]; ok {
		return e - s.base
	}
	sc := s.scan
	if !sc.valid || sc.start != abs {
		sc = jsonScan{valid: true, start: abs, pos: abs}
	}
	for i := sc.pos - s.base; i < len(s.buf); i++ {
		c := s.buf[i]
		if sc.inStr {
			switch {
			case sc.escap:
				sc.escap = false
			case c == '\\':
				sc.escap = true
			case c == '"':
				sc.inStr = false
			}
			continue
		}
		switch c {
		case '"':
			sc.inStr = true
		case '{', '[':
			sc.depth++
		case '}', ']':
			sc.depth--
			if sc.depth <= 0 {
				if s.ends == nil {
					s.ends = make(map[int]int)
				}
				s.ends[abs] = s.base + i + 1
				s.scan = jsonScan{}
				return i + 1
			}
		}
	}
	sc.pos = s.base + len(s.buf)
	s.scan = sc
	return -1
}

// parseCallValue reads one call object, or a non-empty list of them.
// needArgs requires an arguments (or parameters) key.
func parseCallValue(raw []byte, needArgs bool) ([]ToolCall, bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	if raw[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
			return nil, false
		}
		calls := make([]ToolCall, 0, len(items))
		for _, it := range items {
			c, ok := callFromJSON(it, needArgs)
			if !ok {
				return nil, false
			}
			calls = append(calls, c)
		}
		return calls, true
	}
	c, ok := callFromJSON(raw, needArgs)
	if !ok {
		return nil, false
	}
	return []ToolCall{c}, true
}

// callFromJSON reads {"name": ..., "arguments"|"parameters": {...},
// "id": ...}.
func callFromJSON(raw []byte, needArgs bool) (ToolCall, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return ToolCall{}, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ToolCall{}, false
	}
	var name string
	if json.Unmarshal(m["name"], &name) != nil || name == "" {
		return ToolCall{}, false
	}
	args, ok := m["arguments"]
	if !ok {
		args, ok = m["parameters"]
	}
	argText := "{}"
	switch {
	case ok:
		if argText, ok = argumentsText(args); !ok {
			return ToolCall{}, false
		}
	case needArgs:
		return ToolCall{}, false
	}
	c := ToolCall{Type: "function", Name: name, Arguments: argText}
	if idRaw, ok := m["id"]; ok {
		var id string
		if json.Unmarshal(idRaw, &id) == nil {
			c.ID = id
		}
	}
	return c, true
}

// argumentsText returns the compact JSON text of an arguments object,
// which may also come as a string holding the object's JSON text, or null
// (no arguments).
func argumentsText(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case 'n':
		if string(raw) == "null" {
			return "{}", true
		}
	case '"':
		var inner string
		if json.Unmarshal(raw, &inner) != nil {
			return "", false
		}
		in := bytes.TrimSpace([]byte(inner))
		if len(in) == 0 || in[0] != '{' || !json.Valid(in) {
			return "", false
		}
		raw = in
		fallthrough
	case '{':
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return "", false
		}
		return b.String(), true
	}
	return "", false
}

// skipSpace returns the index of the first byte at or after p that is
// neither JSON whitespace nor in extra.
func skipSpace(b []byte, p int, extra string) int {
	for p < len(b) {
		switch c := b[p]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case extra != "" && strings.IndexByte(extra, c) >= 0:
		default:
			return p
		}
		p++
	}
	return p
}

// partialSuffix returns the length of the longest end of b that is a
// proper beginning of marker.
func partialSuffix(b []byte, marker string) int {
	n := min(len(b), len(marker)-1)
	for ; n > 0; n-- {
		if string(b[len(b)-n:]) == marker[:n] {
			return n
		}
	}
	return 0
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isNameByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '.'
}

// newCallID returns a random call ID: 9 alphanumerics for Mistral (its
// templates reject others), "call_" and 24 alphanumerics otherwise.
func newCallID(f ToolFormat) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	n, prefix := 24, "call_"
	if f == ToolMistral {
		n, prefix = 9, ""
	}
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics rather than return an error)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return prefix + string(b)
}
